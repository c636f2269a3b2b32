/* Every --json object carries "schema" (bumped when a field changes meaning or type) and "units" (the unit of
 * each numeric field; times are seconds, shares fractions 0..1). docs/json.md documents each object. */
#ifndef PM_JSON_OUT_H
#define PM_JSON_OUT_H

#include <jansson.h>

#define PM_JSON_SCHEMA 1

/* Sets root["schema"] = PM_JSON_SCHEMA and root["units"] = {key: unit, ...} from NULL-terminated pairs. */
void pm_json_stamp(json_t *root, ...);

#endif
