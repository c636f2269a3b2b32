/* The meter table: one row per meter, X(NAME) for the `const pm_meter pm_meter_NAME` its file
 * (lib/run/meter_NAME.c) defines, in table order (the first is the fallback of `auto`; lists and help follow
 * this order). A new meter is its file and its row here; only meter.c includes this. */
#ifndef PM_METER_ROWS_H
#define PM_METER_ROWS_H

#include "meter.h"

#define PM_METER_ROWS(X) X(wall) X(counters) X(valgrind) X(callgrind)

#define PM_METER_DECLARE(name) extern const pm_meter pm_meter_##name;
PM_METER_ROWS(PM_METER_DECLARE)
#undef PM_METER_DECLARE

#endif
