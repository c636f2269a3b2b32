/* pm_sq_flagcost_steps: the steps of the cold runs and their uninstrumented twins (run mode "plain", a [step]'s
 * timing_flag), for what the timing flags cost (lib/study/analysis_flagcost.c). */
#ifndef PM_STORE_FLAGCOST_H
#define PM_STORE_FLAGCOST_H

#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "store_query.h"

typedef struct pm_sq_flagcost_row {
    int64_t config_id;
    int seq, repeat, plain;  /* plain: 1 the uninstrumented twin, 0 the cold run */
    const char *tool, *argv; /* the step's label and argv as run (pm_argv_join) */
    double wall_s, cpu_s;    /* cpu_s: user + sys, < 0 when not recorded */
} pm_sq_flagcost_row;

/* The ok steps of ok cold and plain runs of the sweeps' configs that have a plain run, by tool, config, step,
 * repeat; nothing (and one indexed look-up per config) for a study without plain runs. */
int pm_sq_flagcost_steps(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_flagcost_row *), void *ctx,
                         pm_err *err);

#endif
