/* pm_store: the SQLite results database. WAL mode; every run lands in one transaction, so a killed sweep
 * keeps every run it had finished.
 *
 * Schema (see store.c for the DDL):
 *   sweep(id, name UNIQUE, backend, spec_text, meta_json, created_at)
 *   config(id, sweep_id, key, kind, family, size, window, precision, resolution, layers, variant,
 *          params_json, UNIQUE(sweep_id, key))
 *   run(id, config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb, started_at, note)
 *   step(id, run_id, seq, tool, argv, status, wall_s, user_s, sys_s, maxrss_kb, instructions, exit_code,
 *        term_signal, report_format, report_wall_s, stderr_tail, pass_order)   -- pass_order (v2): "timed",
 *                                        "sequence" (rows in execution order) or NULL (not in order)
 *   pass_time(step_id, idx, name, section, parent_idx, depth, wall_s, user_s, flags, report_index, counted,
 *             start_s)                  -- start_s: offset in the step's report (v2; NULL: not given)
 *   metric(run_id, step_id, name, value)     -- step_id NULL for run-level metrics
 *   config_param(config_id, name, value)     -- the config model: every axis as name=value (schema 2)
 *   meta(key PRIMARY KEY, value)             -- free-form facts, e.g. compiler versions
 *   view v_pass: one row per pass joined up to its sweep (columns in store.c)
 * Absent values are NULL: window/resolution/layers 0, user_s/wall_s < 0, instructions < 0, parent -1.
 */
#ifndef PM_STORE_H
#define PM_STORE_H

#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "param.h"
#include "parse.h"
#include "run.h"

typedef struct pm_store pm_store;

typedef struct pm_config {
    const char *key;        /* unique within a sweep, e.g. "llm/qwen2/0.5b/w256/int8/stock" */
    const char *kind;       /* "llm", "cnn", "cmd" */
    const char *family;     /* NULL when not applicable */
    const char *size;
    int window;             /* 0 when not applicable */
    const char *precision;
    int resolution;         /* 0 when not applicable */
    int layers;             /* layers emitted; 0 when not applicable */
    const char *variant;    /* compile variant ("stock", "no-rollback", "per-layer"), or NULL */
    const char *params_json;/* anything else, as a JSON object text, or NULL */
    const pm_param *params; /* the config's axes as name=value (stored in config_param) */
    int n_params;
} pm_config;

typedef struct pm_step_record {
    const char *tool;
    const char *argv;            /* joined command line */
    const pm_run_result *result;
    const pm_report *report;     /* NULL: no report parsed */
    const char *stderr_tail;     /* last lines of stderr on failure, or NULL */
} pm_step_record;

typedef struct pm_run_record {
    int64_t config_id;
    int repeat;
    const char *mode;            /* "cold", "warm", "import" ... */
    const char *status;          /* "ok", "failed", "timeout", "oom", "spawn-error" */
    double wall_s, user_s, sys_s;/* whole compile (sum of steps) */
    long maxrss_kb;              /* max over steps */
    const char *note;            /* e.g. the failure reason, or NULL */
    const pm_step_record *steps;
    int n_steps;
    const pm_metric *metrics;    /* run-level metrics (e.g. "ir.ops"), may be NULL */
    int n_metrics;
} pm_run_record;

/* Creates the schema when new and upgrades an older one. A read-only open of an older database upgrades a
 * copy in memory, so reading never changes the file. */
int pm_store_open(const char *path, pm_store **out, pm_err *err);
int pm_store_open_readonly(const char *path, pm_store **out, pm_err *err);
void pm_store_close(pm_store *st);
/* A bare read-only connection for read queries (the report), with no schema check; a WAL database in a
 * read-only folder is opened as immutable. */
int pm_store_open_db_readonly(const char *path, sqlite3 **db, pm_err *err);
sqlite3 *pm_store_db(pm_store *st);                                 /* for read queries (analysis) */
/* The file's schema version: the current one after a writer opened it; a read-only open of an older
 * file keeps its version (e.g. 1 has no pass_time.start_s / step.pass_order). */
int pm_store_schema_version(const pm_store *st);

/* Get-or-create a sweep by name; spec_text and meta_json are updated when given. */
int pm_store_sweep(pm_store *st, const char *name, const char *backend, const char *spec_text,
                   const char *meta_json, int64_t *sweep_id, pm_err *err);
/* Get-or-create a config by (sweep, key). */
int pm_store_config(pm_store *st, int64_t sweep_id, const pm_config *cfg, int64_t *config_id, pm_err *err);
/* The config's parameters (name=value, sorted by name); *out malloc'd, free with pm_params_free. */
int pm_store_config_params(pm_store *st, int64_t config_id, pm_param **out, int *n, pm_err *err);
void pm_params_free(pm_param *p, int n);
/* Number of runs already recorded for (config, mode) with any status: used to resume. */
int pm_store_runs_done(pm_store *st, int64_t config_id, const char *mode, int *n, pm_err *err);
/* Records a run with its steps, passes and metrics in one transaction. */
int pm_store_record_run(pm_store *st, const pm_run_record *rec, int64_t *run_id, pm_err *err);

/* Free-form key/value facts. get: *value is malloc'd (free it); PM_ERR_NOTFOUND when the key is absent. */
int pm_store_meta_set(pm_store *st, const char *key, const char *value, pm_err *err);
int pm_store_meta_get(pm_store *st, const char *key, char **value, pm_err *err);

#endif
