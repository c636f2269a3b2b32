/* The adaptive stop's answer test (repeats = auto): is a config's dominant stage known? A study's answer per
 * config is which stage dominates its compile; on a shared machine the run's time is noisy (10-25% CV of wall
 * and of CPU time here: a neighbour slows the whole process), but the noise scales every stage of a run alike,
 * so the stage shares of the same runs are steady and the answer is often known after a few runs while the
 * time's interval is still wide. See docs/statistics.md, "Adaptive repeats". */
#ifndef PM_SETTLE_H
#define PM_SETTLE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "stagemap.h"

typedef struct pm_settle_stage {
    int known;            /* 1: the leading stage's share is above the runner-up's (paired, one-sided 97.5%) */
    size_t n;             /* cold ok runs with pass rows */
    char dominant[64], runner_up[64];   /* "" when absent */
    double diff_mean, diff_lo;          /* leading share - runner-up share, per run: mean and 95% lower end */
} pm_settle_stage;

/* Stage shares of each of config_id's ok cold runs, as the report computes them (counted passes mapped by
 * map, the rest of the run's wall as process-overhead, each run normalised by the larger of its wall and its
 * pass sum), then the leading stage by mean share and the one-sided test of the paired differences. Known
 * needs at least max(min_n, 3) runs. */
int pm_settle_stage_known(sqlite3 *db, int64_t config_id, const pm_stagemap *map, size_t min_n,
                          pm_settle_stage *out, pm_err *err);

#endif
