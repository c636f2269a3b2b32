/* The reads of `passmap compare` (lib/study/compare.c) and the report's read-only connection, so neither the
 * study layer nor the CLI writes SQL: the sweeps and configs of a side, each handed to a callback (strings valid
 * during the call only; a callback's non-zero return stops the scan and is returned), and a config's runs, steps
 * and passes through one cursor per side whose statements are prepared once, not once per config. Errors name
 * the store's path. */
#ifndef PM_STORE_COMPARE_H
#define PM_STORE_COMPARE_H

#include <stdint.h>
#include "error.h"
#include "store.h"

/* Every sweep of the store, by name (BINARY order); name may be NULL. */
int pm_store_sweep_list(pm_store *st, int (*fn)(void *user, int64_t id, const char *name), void *user,
                        pm_err *err);
/* The configs of a sweep (in the table's order); key and variant may be NULL. */
int pm_store_configs_of_sweep(pm_store *st, int64_t sweep_id,
                              int (*fn)(void *user, int64_t id, const char *key, const char *variant), void *user,
                              pm_err *err);

/* A compare side's cursor over one config's ok runs of one mode, then their step and pass times. */
typedef struct pm_store_side_cursor pm_store_side_cursor;
typedef enum pm_side_rows {
    PM_SIDE_RUNS,     /* one row per run, by id, repeat below max_repeats (<= 0: all) */
    PM_SIDE_STEPS,    /* per (tool, run): the steps' summed wall, ordered by tool then run */
    PM_SIDE_PASSES    /* per (tool, pass, run): the counted passes' summed wall, ordered by tool, pass, run */
} pm_side_rows;
typedef struct pm_side_row {
    int64_t run_id;
    /* PM_SIDE_RUNS: */
    int has_wall;                 /* 0: the run's wall is not recorded (the other three are then unset) */
    double wall, user, sys;       /* user, sys: -1 when not recorded */
    double ins;                   /* the run's steps' instructions summed; -1 when a step has none */
    double scale;                 /* its step and pass seconds times this are the twin's (its wall over the cold
                                     run's; 1: no uninstrumented twin) */
    /* PM_SIDE_STEPS, PM_SIDE_PASSES (strings valid until the next call): */
    const char *tool;             /* "" for none, so the order is the BINARY order of non-NULL strings */
    const char *pass;             /* NULL for a step */
    double value;                 /* seconds */
    const char *format;           /* the report format a pass time was read from; NULL: the runner's clock */
    int64_t reads;                /* rows summed (a pass run k times in a run: k); 1 for a step */
} pm_side_row;
/* walls_only: the pass rows are never asked for (their statement is not prepared). */
int pm_store_side_cursor_open(pm_store *st, int walls_only, pm_store_side_cursor **out, pm_err *err);
/* Starts the rows `which` of config_id in run mode `mode` (which must outlive the scan). Starting again
 * abandons the previous scan. */
int pm_store_side_cursor_start(pm_store_side_cursor *c, pm_side_rows which, int64_t config_id, const char *mode,
                               int max_repeats, pm_err *err);
/* *more = 1 and *row filled, or *more = 0 at the end (the scan is then closed). */
int pm_store_side_cursor_next(pm_store_side_cursor *c, pm_side_row *row, int *more, pm_err *err);
void pm_store_side_cursor_close(pm_store_side_cursor *c);

/* The report's connection: pm_store_open_sqlite_readonly's checks and words (store_runs.h), with memory-mapped
 * reads and temp tables in memory for its one big scan. Close with pm_store_db_close (store_runs.h). */
int pm_store_open_report(const char *path, sqlite3 **db, pm_err *err);

#endif
