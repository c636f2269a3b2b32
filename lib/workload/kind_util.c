/* The helpers the kinds' expand functions share (below the kind table in kinds.c and every gen_NAME.c). */
#include "kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

int pm_kind_capped(int v, int cap)
{
    return cap && v > cap ? cap : v;
}

int pm_kind_in_list(const char *name, const char *const *names)
{
    for (; names && *names; names++)
        if (!strcmp(*names, name))
            return 1;
    return 0;
}

void pm_kind_join(const char *const *names, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (; names && *names && len < cap; names++) {
        int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", *names);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

int pm_kind_parse_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not an integer in [%d, %d]", what, v, lo, hi);
    *out = (int)x;
    return PM_OK;
}

int pm_kind_check_precision(const char *p, pm_err *err, const char *what)
{
    static const char *const precisions[] = {"int4", "int8", "fp16", NULL};
    if (!pm_kind_in_list(p, precisions))
        return pm_err_set(err, PM_ERR_USAGE, "%s: unknown precision '%s' (int4, int8, fp16)", what, p);
    return PM_OK;
}
