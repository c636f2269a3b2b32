/* What the timing flags cost: each cold step against its uninstrumented twin (run mode "plain", a [step]'s
 * timing_flag; lib/sweep/sweep_pair.c), per tool build. The report's "timing flags" section and compare's sides
 * read it alike (flagcost.c). */
#ifndef PM_FLAGCOST_H
#define PM_FLAGCOST_H

#include <sqlite3.h>
#include <stddef.h>
#include "error.h"
#include "store_query.h"

typedef struct pm_an_flagcost_row { /* one tool build's timing flag against its uninstrumented twin runs */
    char *tool, *program, *flag;    /* the step's label, argv[0]'s file name, the argv words the twin leaves out */
    size_t n_pairs;                 /* ok cold runs with an ok plain twin (same config, step, repeat) */
    double plain_wall_s, wall_s;    /* medians over the pairs: without the flag, with it */
    double wall_overhead;           /* median over the pairs of wall / plain wall, less 1 */
    double cpu_overhead;            /* the same of user + sys; NAN when a step recorded none */
    double *ratios;                 /* [n_pairs]: each pair's wall / plain wall, what the rule tests */
} pm_an_flagcost_row;

typedef struct pm_an_flagcost { /* flagcost: what the timing flags cost (analysis_flagcost.c); n = 0: no plain runs */
    pm_an_flagcost_row *rows;   /* by tool, then program */
    size_t n;
    /* per config with plain runs: those runs' walls (each the sum of its steps'), what the config's compile wall
     * is (the report's configs, headline and stage seconds: analysis_flagcost.c) */
    struct pm_flagcost_cfg {
        int64_t config_id;
        double *walls;
        size_t n;
    } * cfgs;
    size_t n_cfgs;
    /* the tools whose builds' costs differ by compare's rule on the pairs' ratios (their interval past the
     * threshold: "llc: -time-passes +54% on llc-14, +20% on llc-22 (cost ratio 1.28x [1.26, 1.30])"), and those whose
     * interval straddles it or that have fewer than 3 pairs a build: undecided; "; "-joined; NULL: none */
    char *differs, *undecided;
} pm_an_flagcost;

/* What the timing flags cost in the sweeps (analysis_flagcost.c; n = 0 without plain runs): the report's section
 * and compare's sides read it alike. */
int pm_flagcost_read(sqlite3 *db, const pm_sq_sweeps *sweeps, pm_an_flagcost *fc, pm_err *err);
/* The same of the configs ids[0..n) only (a compare side's). */
int pm_flagcost_read_cfgs(sqlite3 *db, const pm_sq_sweeps *sweeps, const int64_t *ids, size_t n, pm_an_flagcost *fc,
                          pm_err *err);
void pm_flagcost_free(pm_an_flagcost *fc);
/* "clang-22 -ftime-report +44%; llc-14 -time-passes +54%" (heap), NULL when no row or out of memory. */
char *pm_flagcost_words(const pm_an_flagcost *fc);
/* Whether one tool's flag costs A and B differently, by compare's rule (docs/statistics.md) on the pairs' ratios
 * of each side (1 + cost): PM_FLAGCOST_DIFFER (the interval of B's over A's past the threshold), _UNDECIDED (it
 * straddles the threshold, or a side has fewer than 3 pairs), _ALIKE (within it, or no tool on both sides); buf
 * says which tool and how. A differing tool wins over an undecided one. */
enum { PM_FLAGCOST_ALIKE = 0, PM_FLAGCOST_DIFFER = 1, PM_FLAGCOST_UNDECIDED = 2 };
int pm_flagcost_differ(const pm_an_flagcost *a, const pm_an_flagcost *b, double threshold, char *buf, size_t cap);

#endif
