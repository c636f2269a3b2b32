/* Per-pass instruction counts in the store (store_passcount.c: the table, the writer, the report's reader). */
#ifndef PM_STORE_PASSCOUNT_H
#define PM_STORE_PASSCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "passcount.h"

/* The pass_count rows of step step_id (inside the run's transaction), one per row of pc; path names the store in
 * errors. */
int pm_store_record_passcount(sqlite3 *db, const char *path, int64_t step_id, const pm_passcount *pc, pm_err *err);

typedef struct pm_stored_passcount {   /* one (tool, pass name) of a config, over its ok cold runs with counts */
    char *tool, *pass;
    double instructions;   /* mean per run; -1: never counted */
    double wall_s;         /* mean per run of the same rows' wall */
    int n_counted;         /* rows that got a count */
    int by_timer;          /* 1: counted at the timer's boundaries, 0: by an exported entry point */
    char *why;             /* never counted: why (the store's first reason) */
} pm_stored_passcount;

typedef struct pm_config_passcounts {
    int n_runs;            /* ok cold runs with pass counts; 0: none (no rows) */
    double process;        /* their steps' process-tree count, summed over the runs */
    pm_stored_passcount *rows;   /* in the order the passes ran */
    size_t n;
} pm_config_passcounts;

/* The counts of config config_id (nothing, n_runs 0, in a store without them). */
int pm_store_config_passcounts(sqlite3 *db, int64_t config_id, pm_config_passcounts *out, pm_err *err);
void pm_config_passcounts_free(pm_config_passcounts *c);

#endif
