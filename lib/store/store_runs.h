/* pm_store_runs: one stored run read back whole (steps, argv, stderr tail, metrics, passes with their order,
 * nesting and start offsets): what `passmap trace`, `passmap show` and the report's drill-down need.
 * Works on any passmap database opened with SQLite (read-only is enough), including schema version 1 files,
 * which have no start offsets and no pass order (every step then reads as order "none"). */
#ifndef PM_STORE_RUNS_H
#define PM_STORE_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "parse.h"

typedef struct pm_stored_pass {
    char *name, *section;
    int parent;              /* index into the step's passes (idx order), -1 at top */
    int depth;
    double wall_s, user_s;   /* user_s < 0: absent */
    double start_s;          /* valid when has_start */
    int has_start;
    unsigned flags;          /* PM_PASS_* */
    int counted;             /* pm_pass_counted() as stored */
    int report_index;
} pm_stored_pass;

typedef struct pm_stored_step {
    int seq;
    char *tool, *argv, *status, *report_format, *stderr_tail;
    pm_pass_order order;
    double wall_s, user_s, sys_s;     /* < 0: absent */
    double report_wall_s;             /* the report's own Total; < 0: absent */
    long maxrss_kb;                   /* < 0: absent */
    int64_t instructions;             /* < 0: absent */
    int exit_code, term_signal;
    pm_stored_pass *passes;           /* in report order (idx) */
    size_t n_passes;
} pm_stored_step;

typedef struct pm_stored_metric {
    char *name;
    double value;
    int step_seq;                     /* -1: run-level */
} pm_stored_metric;

typedef struct pm_stored_run {
    int64_t id, config_id;
    char *sweep, *config_key, *mode, *status, *note, *started_at;
    int repeat;
    double wall_s, user_s, sys_s;     /* < 0: absent */
    long maxrss_kb;                   /* < 0: absent */
    pm_stored_step *steps;
    size_t n_steps;
    pm_stored_metric *metrics;
    size_t n_metrics;
    int order_recorded;               /* 0: schema version 1 file, no pass order or start offsets stored */
} pm_stored_run;

/* Short form of one run, for listings (no steps loaded). */
typedef struct pm_run_summary {
    int64_t id;
    int repeat;
    char *mode, *status, *note;
    double wall_s, user_s;            /* < 0: absent */
    long maxrss_kb;                   /* < 0: absent */
} pm_run_summary;

/* Opens a database file read-only for these queries (any schema version; PM_ERR_NOTFOUND when missing). */
int pm_store_open_sqlite_readonly(const char *path, sqlite3 **db, pm_err *err);
/* Closes a connection it (or pm_store_open_report) opened; NULL: nothing. */
void pm_store_db_close(sqlite3 *db);

/* Loads a run; with_passes 0 skips the pass rows (steps, argv and metrics only). PM_ERR_NOTFOUND when absent. */
int pm_store_load_run(sqlite3 *db, int64_t run_id, int with_passes, pm_stored_run *out, pm_err *err);
void pm_stored_run_free(pm_stored_run *r);

/* The sweep to use: name given (PM_ERR_NOTFOUND when absent) or the latest. *sweep_id set. */
int pm_store_pick_sweep(sqlite3 *db, const char *name, int64_t *sweep_id, pm_err *err);

/* A run of config_key in the sweep: mode (NULL: "cold"); repeat >= 0 that repeat, else the ok run with the
 * median wall (the representative compile; lower median for an even count). PM_ERR_NOTFOUND names what is
 * missing (config, or no such run, listing the repeats there are). */
int pm_store_find_run(sqlite3 *db, int64_t sweep_id, const char *config_key, const char *mode, int repeat,
                      int64_t *run_id, pm_err *err);

/* The same for a config by id (config_key only names it in errors). */
int pm_store_config_run(sqlite3 *db, int64_t config_id, const char *config_key, const char *mode, int repeat,
                        int64_t *run_id, pm_err *err);

/* Every run of a config (all modes), ordered by mode then repeat. Free with pm_run_summaries_free. */
int pm_store_config_runs(sqlite3 *db, int64_t config_id, pm_run_summary **out, size_t *n, pm_err *err);
void pm_run_summaries_free(pm_run_summary *r, size_t n);

/* Config keys of a sweep, in key order (malloc'd array of malloc'd strings). */
int pm_store_config_keys(sqlite3 *db, int64_t sweep_id, char ***keys, size_t *n, pm_err *err);

#endif
