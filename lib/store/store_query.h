/* pm_sq: the read queries the analysis issues against a results database. Rows are handed to a callback one
 * at a time (strings valid during the call only), so the analysis keeps its own data structures and never
 * writes SQL. A callback returns a pm_status; non-zero stops the scan and is returned (it fills err itself). */
#ifndef PM_STORE_QUERY_H
#define PM_STORE_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "kinds.h"

typedef struct pm_sq_sweeps {
    int64_t *ids;                 /* the sweeps analysed, in the order named */
    size_t n;
    char *name;                   /* as asked ("a,b"), or the latest sweep's name */
    char *backend, *meta_json;    /* of the first sweep named; NULL when absent */
} pm_sq_sweeps;

/* names: one sweep name or several as "a,b"; NULL: the latest sweep. PM_ERR_NOTFOUND names the missing one. */
int pm_sq_sweeps_find(sqlite3 *db, const char *names, pm_sq_sweeps *out, pm_err *err);
void pm_sq_sweeps_free(pm_sq_sweeps *s);

typedef struct pm_sq_config_row {
    int64_t id;
    const char *key, *kind, *variant;
    pm_workload workload;         /* the model columns (the layers column as the kind's depth field) */
} pm_sq_config_row;
int pm_sq_configs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_config_row *), void *ctx,
                  pm_err *err);

typedef struct pm_sq_param_row { int64_t config_id; const char *name, *value; } pm_sq_param_row;
/* The configs' parameters (name=value, schema 3); nothing from an older file without them. */
int pm_sq_config_params(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_param_row *), void *ctx,
                        pm_err *err);

typedef struct pm_sq_run_row {
    int64_t id, config_id;
    const char *mode, *status;
    double wall_s, user_s;        /* user_s < 0: not recorded */
    const char *note;             /* why a run is not ok (NULL: none) */
} pm_sq_run_row;
/* Every run of the sweeps (any mode and status), by id. */
int pm_sq_runs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_run_row *), void *ctx,
               pm_err *err);

/* The queries below read the sweeps' ok cold and warm runs from a temporary table: build it with
 * pm_sq_scope_begin, drop it with pm_sq_scope_end (safe to call when begin failed or never ran). */
int pm_sq_scope_begin(sqlite3 *db, const pm_sq_sweeps *s, pm_err *err);
void pm_sq_scope_end(sqlite3 *db);

typedef struct pm_sq_pass_row {
    int64_t run_id;
    const char *tool, *name;      /* never NULL ("" when absent) */
    double wall_s, user_s;        /* user_s < 0: not recorded */
    int64_t key;                  /* (tool, name) as a small number, the same for the same pair within one scan
                                   * (from the interned name ids, schema 6); -1: not given (an older file) */
} pm_sq_pass_row;
/* Counted pass rows of the scoped runs (cold and warm), in step order (a run's steps are written together). */
int pm_sq_counted_passes(sqlite3 *db, int (*fn)(void *, const pm_sq_pass_row *), void *ctx, pm_err *err);

/* The report's aggregates (schema 8, store_agg.c), read instead of the pass rows when every scoped run has them.
 * ready: the tables exist and every scoped run has its row. */
int pm_sq_agg_ready(sqlite3 *db, int *ready, pm_err *err);
/* Each recorded (tool, pass) with the stage its runs' stage sums were made under. */
int pm_sq_agg_pass_stages(sqlite3 *db, int (*fn)(void *, const char *tool, const char *name, const char *stage),
                          void *ctx, pm_err *err);
typedef struct pm_sq_agg_pass_row {
    int64_t config_id;
    const char *tool, *name;
    size_t slot;                  /* the (tool, pass)'s index among the distinct pairs, in the order the scan met
                                   * them: key_fn names the pair of each slot afterwards */
    double wall_s, log_s, user_s, user_wall_s;   /* over the config's ok cold runs (see store_agg.c) */
    int n_log;
} pm_sq_agg_pass_row;
/* One scan: fn per scoped config and pass, in no particular order, each row with its pass's slot; then key_fn once
 * per pass of those sums (tool, name, key as pm_sq_pass_row's, -1: not given; and its slot), in the order the passes
 * first appear in the scoped runs' rows. */
int pm_sq_agg_cfg_passes(sqlite3 *db,
                         int (*key_fn)(void *, const char *tool, const char *name, int64_t key, size_t slot),
                         int (*fn)(void *, const pm_sq_agg_pass_row *), void *ctx, pm_err *err);
typedef struct pm_sq_agg_run_row {
    int64_t run_id;
    double pass_sum;
    const char *stage;            /* NULL: the run has no counted row */
    double wall_s, user_s, user_wall_s;
} pm_sq_agg_run_row;
/* Per scoped run (by id) and stage hit. */
int pm_sq_agg_runs(sqlite3 *db, int (*fn)(void *, const pm_sq_agg_run_row *), void *ctx, pm_err *err);

typedef struct pm_sq_metric_row { int64_t config_id; const char *name; double mean; } pm_sq_metric_row;
/* Mean of each metric over the scoped cold runs, per config and metric name. */
int pm_sq_cold_metric_means(sqlite3 *db, int (*fn)(void *, const pm_sq_metric_row *), void *ctx, pm_err *err);

typedef struct pm_sq_tool_row { const char *tool; double user_s, wall_s; } pm_sq_tool_row;
/* One scan of the steps (pm_sq_scope_begin first): per tool over the scoped cold runs' steps, summed user time and
 * the wall of the steps that have one, in pipeline order, to fn; and *n_trace, the ok runs of the sweeps with a
 * step whose report was a Chrome trace (clang -ftime-trace, llc --time-trace). */
int pm_sq_steps_scan(sqlite3 *db, const pm_sq_sweeps *s, int *n_trace, int (*fn)(void *, const pm_sq_tool_row *),
                     void *ctx, pm_err *err);

typedef struct pm_sq_config_tool_row {
    int64_t config_id;
    const char *tool;             /* "" when absent */
    int n_steps;                  /* steps of that tool over the config's scoped cold runs */
    double wall_s, user_s, sys_s; /* sums over the steps that have all three recorded; wall_s 0: none */
} pm_sq_config_tool_row;
/* Per config and tool over the scoped cold runs' steps (user/wall per step against the tool's own baseline). */
int pm_sq_cold_config_tools(sqlite3 *db, int (*fn)(void *, const pm_sq_config_tool_row *), void *ctx, pm_err *err);

typedef struct pm_sq_startup_row {
    const char *tool, *status, *note;   /* note may be NULL */
    double wall_s, user_s, sys_s;       /* < 0: not recorded */
} pm_sq_startup_row;
/* The start-up rows of the sweeps (schema 5), by tool then repeat; nothing from an older file. *present: the
 * table exists (0: an older database, start-up never measured). */
int pm_sq_startup(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_startup_row *), void *ctx,
                  int *present, pm_err *err);

/* The walls of a config's ok cold runs, by id (*walls malloc'd; free it). Adaptive repeats stop on them. */
int pm_sq_cold_walls(sqlite3 *db, int64_t config_id, double **walls, size_t *n, pm_err *err);

typedef struct pm_sq_run_pass_row {
    int64_t run_id;
    double run_wall_s;
    const char *tool, *name;   /* never NULL */
    double wall_s;
} pm_sq_run_pass_row;
/* The counted pass rows of one config's ok cold runs, in run order (a run's rows together), for the adaptive
 * stop's stage shares; a run without pass rows gives none (schema 6 stores: names interned). */
int pm_sq_cold_run_passes(sqlite3 *db, int64_t config_id, int (*fn)(void *, const pm_sq_run_pass_row *), void *ctx,
                          pm_err *err);

/* A config's ok cold runs, by id, with what the deciding metric (decide.h) may use: wall, user, sys (-1: not
 * recorded) and the user-space instructions summed over the run's steps (-1: some step has none). */
typedef struct pm_sq_samples {
    size_t n;
    double *wall, *user, *sys, *instructions;
} pm_sq_samples;
int pm_sq_cold_samples(sqlite3 *db, int64_t config_id, pm_sq_samples *out, pm_err *err);
void pm_sq_samples_free(pm_sq_samples *s);
/* The max and min over a sweep's tools of the median CPU/wall ((user+sys)/wall) of their ok null-input runs
 * (the startup table); NAN when none was measured. */
int pm_sq_tools_cpu_wall(sqlite3 *db, int64_t sweep_id, double *max, double *min, pm_err *err);
typedef struct pm_sq_host_row {
    int64_t config_id;
    const char *name, *fingerprint, *cpu_model, *kernel, *compiler;
    int cores, n_runs;
} pm_sq_host_row;
/* Per config and host: the scoped cold runs that host measured (runs with no host recorded are left out). */
int pm_sq_cold_hosts(sqlite3 *db, int (*fn)(void *, const pm_sq_host_row *), void *ctx, pm_err *err);
/* What `merge --partial` recorded as missing from the sweep (meta "incomplete:SWEEP"), or, first, that a merge
 * into the store did not finish (meta "merging:SWEEP", set before the first input and cleared after the last;
 * *unfinished 1): *note malloc'd, NULL when the sweep is complete or never merged partially. */
int pm_sq_incomplete(sqlite3 *db, int64_t sweep_id, char **note, int *unfinished, pm_err *err);

#endif
