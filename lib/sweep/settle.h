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
    int known;            /* 1: the leading stage's share is above the runner-up's (paired; the level paid for
                             every look the adaptive stop may take: pm_settle_alpha) */
    size_t n;             /* cold ok runs with pass rows */
    char dominant[64], runner_up[64];   /* "" when absent */
    double diff_mean, diff_lo;          /* leading share - runner-up share, per run: mean and the lower end of
                                           its two-sided 1 - pm_settle_alpha interval */
    size_t lead, second;                /* the two stages' indices (pm_settle_lead); second = n_stages: none */
} pm_settle_stage;

/* The adaptive stop's error, 5%, spent over the looks it may take (Bonferroni over the planned looks): one after
 * each run from max(min_n, 3) up to max_n - 1 (at max_n it stops anyway), so a look's two-sided level is
 * 0.05 / looks. The leader is picked by the data (the larger mean), so a one-sided test at alpha / 2 is a
 * two-sided one: with a true tie, each look declares a leader with probability <= alpha, all looks together
 * with <= 5%. A single look's 5% repeated after every round declared one on 15.7% of tied configs (issue 35;
 * tests/unit/test_settle_looks.c measures both). max_n 0: one look. */
double pm_settle_alpha(size_t min_n, size_t max_n);

/* The test on a matrix of stage shares, n runs x ns stages (row r: run r's shares): the leading stage by mean
 * share, the runner-up, and whether the paired per-run difference of their shares has its lower end at
 * 1 - pm_settle_alpha(min_n, max_n) above zero. Known needs at least max(min_n, 3) runs. The names in out are
 * left empty. NOMEM: PM_STATS_NOMEM (stats.h); else 0. */
int pm_settle_lead(const double *share, size_t n, size_t ns, size_t min_n, size_t max_n, pm_settle_stage *out);

/* Stage shares of each of config_id's ok cold runs, as the report computes them (counted passes mapped by
 * map, the rest of the run's wall as process-overhead, each run normalised by the larger of its wall and its
 * pass sum), then pm_settle_lead. */
int pm_settle_stage_known(sqlite3 *db, int64_t config_id, const pm_stagemap *map, size_t min_n, size_t max_n,
                          pm_settle_stage *out, pm_err *err);

#endif
