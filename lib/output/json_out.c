#include "json_out.h"

#include <stdarg.h>

void pm_json_stamp(json_t *root, ...)
{
    if (!json_is_object(root))
        return;
    json_t *units = json_object();
    va_list ap;
    va_start(ap, root);
    for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *)) {
        const char *u = va_arg(ap, const char *);
        json_object_set_new(units, k, json_string(u ? u : ""));
    }
    va_end(ap);
    json_object_set_new(root, "schema", json_integer(PM_JSON_SCHEMA));
    json_object_set_new(root, "units", units);
}
