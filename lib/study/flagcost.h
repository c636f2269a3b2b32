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
    char *differs; /* the tools whose builds' overheads are more than compare's threshold apart
                                     ("llc: -time-passes +54% on llc-14, +20% on llc-22"), "; "-joined; NULL: none */
} pm_an_flagcost;

/* What the timing flags cost in the sweeps (analysis_flagcost.c; n = 0 without plain runs): the report's section
 * and compare's sides read it alike. */
int pm_flagcost_read(sqlite3 *db, const pm_sq_sweeps *sweeps, pm_an_flagcost *fc, pm_err *err);
void pm_flagcost_free(pm_an_flagcost *fc);
/* "clang-22 -ftime-report +44%; llc-14 -time-passes +54%" (heap), NULL when no row or out of memory. */
char *pm_flagcost_words(const pm_an_flagcost *fc);
/* 1 when one tool's flag costs A and B more than threshold apart (a ratio of 1 + costs); buf says which. */
int pm_flagcost_differ(const pm_an_flagcost *a, const pm_an_flagcost *b, double threshold, char *buf, size_t cap);

#endif
