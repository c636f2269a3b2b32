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
 *   pass_time(step_id, idx, name_id, counted, wall_s, user_s, flags, depth, parent_idx, section, report_index,
 *             start_s)                  -- start_s: offset in the step's report (v2; NULL: not given);
 *                                          name_id (v6; before: the name as text, and another column order)
 *   pass_name(id, name UNIQUE)  (v6)    -- pass names interned; ids are per file (merge maps them by name)
 *   pass_count(step_id, idx, instructions, how, why)  -- per-pass instructions beside pass_time's row (the
 *                                            callgrind meter, store_passcount.h); NULL with why: not counted
 *   metric(run_id, step_id, name, value)     -- step_id NULL for run-level metrics
 *   config_param(config_id, name, value)     -- the config model: every axis as name=value (schema 2)
 *   meta(key PRIMARY KEY, value)             -- free-form facts, e.g. compiler versions
 *   host(id, name, fingerprint, cpu_model, cores, kernel, machine, compiler, UNIQUE(name, fingerprint))  (v3)
 *                                            -- run.host_id (v3): the machine that measured the run (NULL: unknown)
 *   shard(sweep_id, shard_k, shard_n, config_key, cold, cache_miss, warm)  (v3)
 *                                            -- the plan of each shard: runs planned per config and mode
 *   merge_log(id, source, sweep, runs_merged, runs_skipped, forced, note, merged_at)  (v3)
 *   startup(id, sweep_id, host_id, tool, repeat, status, argv, wall_s, user_s, sys_s, note, measured_at)  (v5)
 *                                            -- each tool started on a null input, once per sweep and machine
 *   view v_pass: one row per pass joined up to its sweep (columns in store.c)
 * Absent values are NULL: window/resolution/layers 0, user_s/wall_s < 0, instructions < 0, parent -1.
 */
#ifndef PM_STORE_H
#define PM_STORE_H

#include <stdint.h>
#include <sqlite3.h>
#include "error.h"
#include "host.h"
#include "config.h"
#include "kinds.h"
#include "parse.h"
#include "stagemap.h"
#include "run.h"

typedef struct pm_store pm_store;

/* A config to store: its identity (config.h: key, kind, variant, params; borrowed for the call) and the
 * workload columns of the config table. */
typedef struct pm_config {
    PM_CFG_EMBED;           /* key unique within a sweep, e.g. "llm/qwen2/0.5b/w256/int8/stock"; kind "llm",
                               "cnn", "command" (older stores: "cmd" for an import, read as "command"); variant "stock", "no-rollback", ... or NULL; the axes
                               as name=value, stored in config_param */
    pm_workload workload;   /* the model fields (kinds.h), borrowed: the family, size, window, precision,
                               resolution columns (NULL / 0: not applicable) and the depth emitted (the layers
                               column: pm_workload_depth by the kind's row) */
    const char *params_json;/* anything else, as a JSON object text, or NULL */
} pm_config;

typedef struct pm_step_record {
    const char *tool;
    const char *argv;            /* joined command line */
    const pm_run_result *result;
    const pm_report *report;     /* NULL: no report parsed */
    const char *stderr_tail;     /* last lines of stderr on failure, or NULL */
    const struct pm_passcount *counts;   /* per-pass instruction counts of report (the callgrind meter), or NULL */
} pm_step_record;

typedef struct pm_run_record {
    int64_t config_id;
    int repeat;
    const char *mode;            /* "cold", "warm", "import" ... */
    const char *status;          /* pm_run_status_name's names, or PM_RUN_STATUS_NO_REPORT */
    double wall_s, user_s, sys_s;/* whole compile (sum of steps) */
    long maxrss_kb;              /* max over steps */
    const char *note;            /* e.g. the failure reason, or NULL */
    const pm_step_record *steps;
    int n_steps;
    const pm_metric *metrics;    /* run-level metrics (e.g. "ir.ops"), may be NULL */
    int n_metrics;
    int64_t host_id;             /* from pm_store_host; 0: unknown (e.g. an imported report) */
} pm_run_record;

/* Creates the schema when new and upgrades an older one. A read-only open of an older database upgrades a
 * copy in memory, so reading never changes the file. */
int pm_store_open(const char *path, pm_store **out, pm_err *err);
int pm_store_open_readonly(const char *path, pm_store **out, pm_err *err);
/* The journal a store opened for writing gets on a filesystem: "DELETE" (the rollback journal) on a network
 * filesystem, where WAL's shared-memory index is unsafe, else "WAL" (PASSMAP_JOURNAL=wal|delete overrides it).
 * magic: statfs's f_type; mount_type: the mount's type in /proc/self/mountinfo ("fuse.sshfs"), which tells FUSE
 * filesystems apart (they share one magic), or NULL. *fs_name (when not NULL): the network filesystem's name, or
 * NULL. Pure. */
const char *pm_store_journal_for(unsigned long magic, const char *mount_type, const char **fs_name);
/* The type of the mount whose device is major:minor in mountinfo's text (/proc/self/mountinfo), into out:
 * 0, or -1 when no line has that device (or the type does not fit cap). Pure. */
int pm_store_mount_type(const char *mountinfo, unsigned major_no, unsigned minor_no, char *out, size_t cap);
void pm_store_close(pm_store *st);
/* A bare read-only connection for read queries (the report): a foreign, empty or newer-schema file is refused
 * (PM_ERR_UNSUPPORTED), an older one read as it is; a WAL database in a
 * read-only folder is opened as immutable. */
int pm_store_open_db_readonly(const char *path, sqlite3 **db, pm_err *err);
sqlite3 *pm_store_db(pm_store *st);                                 /* for read queries (analysis) */
/* For lib/store's own files: sql (a string literal: its address is the key) prepared once per store and reset
 * before it is handed out again; the store finalizes it. */
int pm_store_cached(pm_store *st, const char *sql, sqlite3_stmt **out, pm_err *err);
const char *pm_store_path(pm_store *st);
/* The schema version that added hosts, shard plans and the merge log: older files have none. */
#define PM_STORE_VERSION_HOSTS 3
/* The file's schema version: the current one after a writer opened it; a read-only open of an older
 * file keeps its version (e.g. 1 has no pass_time.start_s / step.pass_order). */
int pm_store_schema_version(const pm_store *st);
/* The schema version with the report's aggregates (store_agg.c): older files have none. */
#define PM_STORE_VERSION_AGG 9

/* The report's aggregates (store_agg.c) of the ok cold/warm runs with an id above after_run, in a writer's open
 * transaction: pm_store_record_run adds each run's, merge the merged runs', the schema-8 migration all. With no
 * stage map in the data dir, nothing is written (the report then sums those runs' pass rows). */
int pm_store_agg_after(pm_store *st, int64_t after_run, pm_err *err);
int pm_store_agg_add(sqlite3 *db, const char *path, const pm_stagemap *map, int64_t after_run, pm_err *err);
/* Merge's shortcut (inside its transaction, the input ATTACHed as src, temp.pm_config_map and temp.pm_name_map
 * made, every input run new with its id shifted by run_off): the input's own aggregates copied with the ids
 * remapped, when they are whole, its configs have no sums in the output yet and each pass's recorded stage is the
 * one the output would give it; the same rows summing the merged runs would make. *copied = 0: nothing written,
 * sum them (pm_store_agg_after). */
int pm_store_agg_merge(pm_store *st, int64_t run_off, int *copied, pm_err *err);
int pm_store_agg_copy(sqlite3 *db, const char *path, const pm_stagemap *map, int64_t run_off, int *copied,
                      pm_err *err);

/* Get-or-create a sweep by name; spec_text and meta_json are updated when given. */
int pm_store_sweep(pm_store *st, const char *name, const char *backend, const char *spec_text,
                   const char *meta_json, int64_t *sweep_id, pm_err *err);
/* Get-or-create a config by (sweep, key). */
int pm_store_config(pm_store *st, int64_t sweep_id, const pm_config *cfg, int64_t *config_id, pm_err *err);
/* Appends the config's parameters (name=value, sorted by name) to c->params (owned by c: pm_cfg_clear). */
int pm_store_config_params(pm_store *st, int64_t config_id, pm_cfg *c, pm_err *err);
/* Number of runs already recorded for (config, mode) with any status: used to resume. */
/* Read only: the id of config KEY of sweep SWEEP, 0 when it is not recorded (a dry run's plan). */
int pm_store_config_find(pm_store *st, const char *sweep, const char *key, int64_t *config_id, pm_err *err);
int pm_store_runs_done(pm_store *st, int64_t config_id, const char *mode, int *n, pm_err *err);
/* Records a run with its steps, passes and metrics in one transaction. */
int pm_store_record_run(pm_store *st, const pm_run_record *rec, int64_t *run_id, pm_err *err);

/* Free-form key/value facts. get: *value is malloc'd (free it); PM_ERR_NOTFOUND when the key is absent. */
int pm_store_meta_set(pm_store *st, const char *key, const char *value, pm_err *err);
int pm_store_meta_get(pm_store *st, const char *key, char **value, pm_err *err);

/* Get-or-create the host row of a machine (by name and fingerprint). */
int pm_store_host(pm_store *st, const pm_host *h, int64_t *host_id, pm_err *err);

/* The machines that measured a config's ok cold runs, as "name [machine id], ..." sorted (pm_host_machine_id:
 * the compiler build and kernel left out, so two builds measured on one machine name it once; a host row
 * without its CPU, read back from a baseline file, keeps its recorded id); *hosts NULL when none is recorded.
 * Malloc'd. */
int pm_store_config_hosts(pm_store *st, int64_t config_id, char **hosts, pm_err *err);

/* Records that config KEY belongs to shard K of N of the sweep, with the runs planned per mode (idempotent). */
int pm_store_shard_plan(pm_store *st, int64_t sweep_id, int shard_k, int shard_n, const char *config_key,
                        int cold, int cache_miss, int warm, pm_err *err);

/* Done/left per shard, one row per (sweep, shard) of the database. */
typedef struct pm_shard_status {
    char *sweep;
    int shard_k, shard_n;
    int configs;
    int planned, done;        /* runs planned by the shard's plan / recorded (capped at the plan per config+mode);
                                 a sweep with timing twins plans one plain run per cold one */
    int failed;               /* recorded runs whose status is not ok */
    char *hosts;              /* comma-separated host names that measured them, or NULL */
} pm_shard_status;
int pm_store_shard_status(pm_store *st, pm_shard_status **rows, int *n_rows, pm_err *err);
void pm_shard_status_free(pm_shard_status *rows, int n_rows);
/* What an earlier sweep SWEEP of this store knows of config KEY's cost: the mean wall of its ok cold runs (*wall;
 * -1 when none) and the sum over stages of its IR size at each stage's entry (metrics ir.stage.*, the
 * stage-size probe: *probe; -1 when not measured). */
int pm_store_config_costs(pm_store *st, const char *sweep, const char *key, double *wall, double *probe,
                          pm_err *err);
/* Per planned config of every sweep's shard plans: the runs planned and recorded (capped at the plan per mode),
 * as for pm_store_shard_status; fn returns non-zero to stop (that value is returned). */
typedef int (*pm_plan_config_fn)(void *user, const char *sweep, int shard_k, int shard_n, const char *config_key,
                                 int planned, int done);
int pm_store_plan_configs(pm_store *st, pm_plan_config_fn fn, void *user, pm_err *err);

/* One-writer lock of a database while a sweep, a merge or a probe (cmd) writes it: an flock on the file DB.lock
 * beside it, which also names the holder (pid, host and cmd). Held until pm_store_writer_unlock or the process
 * ends. */
int pm_store_writer_lock(const char *db_path, const char *cmd, int *fd, pm_err *err);
void pm_store_writer_unlock(int fd);
/* Whether path holds no database yet: missing, 0 bytes, or an SQLite file with no table and no passmap pragmas
 * (what a writer killed while creating it leaves). A writer opening it creates the schema. */
int pm_store_is_empty(const char *path);
/* PM_OK when nobody holds the lock; PM_ERR_USAGE with the holder named when a sweep (merge, probe) is writing
 * the file. */
int pm_store_writer_check(const char *db_path, pm_err *err);

/* Process start-up (schema 5): each tool a sweep's steps run, started on a null input a few times, once per
 * sweep and machine. A "not-measured" row (no times) says why a tool has none. */
#define PM_STORE_VERSION_STARTUP 5
typedef struct pm_startup_row {
    const char *tool;
    int repeat;
    const char *status;          /* "ok", "failed", "timeout", ... or "not-measured" */
    const char *argv;            /* joined command line, or NULL */
    double wall_s, user_s, sys_s;/* < 0: absent */
    const char *note;            /* why not measured / why it failed, or NULL */
} pm_startup_row;
/* Whether the sweep's start-up was already measured on that host (a resumed sweep does not measure again). */
int pm_store_startup_done(pm_store *st, int64_t sweep_id, int64_t host_id, int *done, pm_err *err);
/* Records the rows of one measurement in one transaction. */
int pm_store_record_startup(pm_store *st, int64_t sweep_id, int64_t host_id, const pm_startup_row *rows, int n,
                            pm_err *err);

/* Merge: copies every run of the database at IN_PATH (with its steps, passes and metrics, config, sweep and
 * host rows) into the open store, in one transaction. A run whose (sweep, config, mode, repeat) is already in
 * the store is skipped as a duplicate, so merging again changes nothing. An input whose sweep has another spec
 * text or compiler identity than the same sweep in the store is refused (unless force: then recorded in
 * merge_log). */
typedef struct pm_merge_result {
    int runs_merged, runs_skipped;
    int refused;              /* 1: nothing merged from this input; reason says why */
    int forced;               /* a difference was overridden by force (recorded) */
    char reason[1536];
    char note[512];           /* what was found and ignored, or "" (one build on machines with other host CPUs) */
} pm_merge_result;
int pm_store_merge(pm_store *out, const char *in_path, int force, pm_merge_result *res, pm_err *err);

/* Identity (schema 7, store_identity.c): the tools a sweep ran and each config's fingerprint. */
#define PM_STORE_VERSION_IDENTITY 7
#define PM_STORE_VERSION_INVOKED 8   /* tool.invoked */
typedef struct pm_tool_ident {
    char *name;                  /* tool label */
    char *path;                  /* resolved path */
    char *version_text;          /* `--version` output ("" when none) */
    char *hash;                  /* "xxh3-128:HEX", "" when the file could not be read */
    char *host;                  /* reading: the host name that recorded it, or NULL */
    char *invoked;               /* the program word as the step names it (llc-14, {spec_dir}/cc); NULL: recorded
                                    before schema 8. A build is matched per (name, invoked): an axis that picks
                                    the build (llc-{llvm}) gives one tool per build */
} pm_tool_ident;
void pm_tool_idents_free(pm_tool_ident *t, size_t n);
/* Records the tools of a sweep on a host (idempotent). */
int pm_store_record_tools(pm_store *st, int64_t sweep_id, int64_t host_id, const pm_tool_ident *t, size_t n,
                          pm_err *err);
/* The tools recorded for a sweep (any machine), by name then hash; none for a file older than schema 7. */
int pm_store_read_tools(sqlite3 *db, int64_t sweep_id, pm_tool_ident **out, size_t *n, pm_err *err);
/* Sets a config's fingerprint (its hash and the text hashed). */
int pm_store_config_set_fingerprint(pm_store *st, int64_t config_id, const char *hash, const char *text,
                                    pm_err *err);
typedef struct pm_config_fp {
    char *key;
    char *hash, *text;           /* NULL: recorded before fingerprints */
    int n_runs, n_failed;
} pm_config_fp;
void pm_config_fps_free(pm_config_fp *c, size_t n);
/* The configs of sweep NAME with their fingerprints (none when the sweep is absent). */
int pm_store_config_fps(pm_store *st, const char *sweep, pm_config_fp **out, size_t *n, pm_err *err);
/* Moves runs out of sweep NAME into a new sweep "NAME~superseded-TIME" (its name in new_name), marked
 * superseded_by NAME, with NAME's spec text and metadata as they were: only_failed 0: the whole configs
 * `keys` (with every run); 1: only the runs of `keys` whose status is not ok (the configs stay, so their
 * repeats are planned again). *moved: the runs moved. Nothing is moved when keys is empty. */
int pm_store_supersede(pm_store *st, const char *sweep, const char *const *keys, size_t n_keys, int only_failed,
                       char *new_name, size_t cap, int *moved, pm_err *err);
/* Moves the runs of sweep SWEEP killed from outside (status "killed": a signal passmap did not send, e.g. a
 * scheduler's SIGTERM reaching the compiler first) aside, like --retry-failed, so their repeats run again; a run
 * slot (config, mode, repeat) killed max_retries times already stays killed and counts as done. *moved: runs
 * moved; *kept: killed runs left as they are (out of retries). */
int pm_store_retry_killed(pm_store *st, const char *sweep, int max_retries, int *moved, int *kept, pm_err *err);
/* The repeats recorded for (config, mode), any status: have[r] = 1 for r < cap; *max_repeat: the largest (-1
 * when none). */
int pm_store_repeats(pm_store *st, int64_t config_id, const char *mode, unsigned char *have, int cap,
                     int *max_repeat, pm_err *err);
/* Whether sweep rows carry superseded_by (schema 7) on this connection. */
int pm_store_has_superseded(sqlite3 *db);
/* The SQL condition (on sweep alias `s`) of a study sweep: not superseded and not the fix sweep
 * (STUDY-fix beside STUDY) of another; what report, show, trace and fix pick by default. has_superseded: the
 * connection's sweep table has the column. */
const char *pm_store_study_sweep_cond(int has_superseded);
/* The first line where two fingerprint texts differ, as "'was' -> 'now'" (lines over 160 bytes cut, with ...). */
void pm_fp_diff(const char *was, const char *now, char *out, size_t cap);
/* The line of a --version text that names the version (the first with "version", else the first non-empty
 * one), cut to cap; "(no --version output)" when empty. Returns out. */
const char *pm_version_line(const char *text, char *out, size_t cap);
/* A --version text without (host = 0) or with only (host = 1) its lines that describe the machine it ran on, not
 * the build: LLVM's "Host CPU:" (one binary prints skylake on one node, znver3 on the next), clang's
 * "InstalledDir:". Two tools are one build when their hashes and build texts are equal. Heap; NULL: out of memory. */
char *pm_version_text_part(const char *text, int host);

#endif
