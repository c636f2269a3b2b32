/* The store's schema: version 1's DDL (frozen) and the ordered migrations after it; a new file is created,
 * an older one migrated (a reader's on a copy in memory). */
#include "store_internal.h"

#include <stdio.h>

/* schema_sql below is version 1, frozen. Every later change is one entry appended to `migrations`
 * (never edited, never reordered): entry i takes user_version i+1 to i+2. A new database gets version 1
 * and then every migration, an existing one the migrations it lacks, each in the opening writer's
 * transaction. Older passmaps refuse newer databases instead of misreading them. */
typedef struct pm_migration {
    const char *what;   /* for the error message */
    const char *sql;
    /* 1: readers handle the older layout themselves, so a read-only open does not apply it (a table rebuild
     * that every report of an old file would otherwise pay on a copy in memory, at each open). Only the last
     * migrations may be so, or ones no later migration builds on. */
    int readers_skip;
    /* after sql, in a writer only (readers_skip must be 1): what SQL cannot build (the aggregates, summed in C
     * in the analysis's order with the data dir's stage map) */
    int (*build)(pm_store *st, pm_err *err);
} pm_migration;

static int build_aggregates(pm_store *st, pm_err *err);

static const pm_migration migrations[] = {
    /* v2 (issue 12, report): what a trace needs. start_s: the span's start offset in its step's report
     * (NULL: the report gives none); pass_order: "timed" (every span has a start), "sequence" (rows in
     * execution order, e.g. MLIR's tree), NULL (rows not in execution order, e.g. LLVM's list). */
    {"trace columns",
     "ALTER TABLE pass_time ADD COLUMN start_s REAL;\n"
     "ALTER TABLE step ADD COLUMN pass_order TEXT;\n",
     0, NULL},
    /* v3 (issue 13, scale-out): which machine measured each run, the plan of each shard, the merges made.
     * host.fingerprint: pm_host_fingerprint (CPU, cores, kernel, compiler build); a run names its host. */
    {"hosts, shard plans, merge log",
     "CREATE TABLE host(\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  name TEXT NOT NULL,\n"
     "  fingerprint TEXT NOT NULL,\n"
     "  cpu_model TEXT,\n"
     "  cores INTEGER,\n"
     "  kernel TEXT,\n"
     "  machine TEXT,\n"
     "  compiler TEXT,\n"
     "  first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),\n"
     "  UNIQUE(name, fingerprint)\n"
     ");\n"
     "ALTER TABLE run ADD COLUMN host_id INTEGER REFERENCES host(id);\n"
     /* (config, mode, repeat) names a run: resume and merge look runs up by it */
     "DROP INDEX run_config_mode;\n"
     "CREATE INDEX run_key ON run(config_id, mode, repeat);\n"
     "CREATE TABLE shard(\n"
     "  sweep_id INTEGER NOT NULL REFERENCES sweep(id) ON DELETE CASCADE,\n"
     "  shard_k INTEGER NOT NULL,\n"
     "  shard_n INTEGER NOT NULL,\n"
     "  config_key TEXT NOT NULL,\n"
     "  cold INTEGER NOT NULL,\n" /* runs planned per mode */
     "  cache_miss INTEGER NOT NULL,\n"
     "  warm INTEGER NOT NULL,\n"
     "  PRIMARY KEY(sweep_id, shard_n, config_key)\n"
     ") WITHOUT ROWID;\n"
     "CREATE TABLE merge_log(\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  source TEXT NOT NULL,\n"
     "  sweep TEXT,\n"
     "  runs_merged INTEGER NOT NULL,\n"
     "  runs_skipped INTEGER NOT NULL,\n"
     "  forced INTEGER NOT NULL,\n" /* 1: spec or compiler differed and --force merged it anyway */
     "  note TEXT,\n"
     "  merged_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))\n"
     ");\n",
     0, NULL},
    /* v4 (issue 8, backend-table): the config model: every axis as name=value (any back end's axes,
     * e.g. opt=2, input=a.c). The workload columns stay; old configs get their workload axes as parameters. */
    {"config parameters",
     "CREATE TABLE IF NOT EXISTS config_param(\n"
     "  config_id INTEGER NOT NULL REFERENCES config(id) ON DELETE CASCADE,\n"
     "  name TEXT NOT NULL,\n"
     "  value TEXT NOT NULL,\n"
     "  PRIMARY KEY(config_id, name)\n"
     ") WITHOUT ROWID;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, 'family', family FROM config WHERE family IS NOT NULL;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, 'size', size FROM config WHERE size IS NOT NULL;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, 'window', window FROM config WHERE window IS NOT NULL;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, 'resolution', resolution FROM config WHERE resolution IS NOT NULL;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, 'precision', precision FROM config WHERE precision IS NOT NULL;\n"
     "INSERT OR IGNORE INTO config_param SELECT id, CASE kind WHEN 'cnn' THEN 'blocks' ELSE 'layers' END, layers\n"
     "  FROM config WHERE layers IS NOT NULL;\n",
     0, NULL},
    /* v5 (issue 9, overhead): process start-up, measured once per sweep and machine: each tool the sweep's
     * steps run, started a few times on a null input (an empty module...). status "ok" / "failed" /
     * "timeout" / ...; "not-measured": the back end has no null input for that tool (note says why). */
    {"start-up runs",
     "CREATE TABLE IF NOT EXISTS startup(\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  sweep_id INTEGER NOT NULL REFERENCES sweep(id) ON DELETE CASCADE,\n"
     "  host_id INTEGER REFERENCES host(id),\n"
     "  tool TEXT NOT NULL,\n"
     "  repeat INTEGER NOT NULL,\n"
     "  status TEXT NOT NULL,\n"
     "  argv TEXT,\n"
     "  wall_s REAL,\n"
     "  user_s REAL,\n"
     "  sys_s REAL,\n"
     "  note TEXT,\n"
     "  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),\n"
     "  UNIQUE(sweep_id, host_id, tool, repeat)\n"
     ");\n",
     0, NULL},
    /* v6 (issue 9, speed4): pass names interned. A store holds a few hundred distinct names in millions of
     * rows; the report's scan read each row's name as text and hashed it (about a quarter of its time on the
     * 15,000-run bench store). pass_time is rebuilt with name_id in name's place, and v_pass keeps its
     * columns through a join. Ids are per file: merge maps them by name. */
    {"pass names interned",
     "CREATE TABLE pass_name(\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  name TEXT NOT NULL UNIQUE\n"
     ");\n"
     "INSERT INTO pass_name(name) SELECT DISTINCT name FROM pass_time ORDER BY name;\n"
     "DROP VIEW IF EXISTS v_pass;\n"
     /* the columns the report's scan reads come first: SQLite decodes a row's header up to the last column
      * asked for (10% of the scan on the 15,000-run bench store) */
     "CREATE TABLE pass_time_v6(\n"
     "  step_id INTEGER NOT NULL REFERENCES step(id) ON DELETE CASCADE,\n"
     "  idx INTEGER NOT NULL,\n"
     "  name_id INTEGER NOT NULL REFERENCES pass_name(id),\n"
     "  counted INTEGER NOT NULL,\n"
     "  wall_s REAL,\n"
     "  user_s REAL,\n"
     "  flags INTEGER NOT NULL,\n"
     "  depth INTEGER NOT NULL,\n"
     "  parent_idx INTEGER,\n"
     "  section TEXT,\n"
     "  report_index INTEGER NOT NULL,\n"
     "  start_s REAL,\n"
     "  PRIMARY KEY(step_id, idx)\n"
     ") WITHOUT ROWID;\n"
     "INSERT INTO pass_time_v6 SELECT p.step_id, p.idx, n.id, p.counted, p.wall_s, p.user_s, p.flags, p.depth,\n"
     "  p.parent_idx, p.section, p.report_index, p.start_s\n"
     "  FROM pass_time p JOIN pass_name n ON n.name = p.name ORDER BY p.step_id, p.idx;\n"
     "DROP TABLE pass_time;\n"
     "ALTER TABLE pass_time_v6 RENAME TO pass_time;\n"
     "CREATE VIEW v_pass AS SELECT\n"
     "  sw.id AS sweep_id, sw.name AS sweep, sw.backend AS backend,\n"
     "  c.id AS config_id, c.key AS config_key, c.kind AS kind, c.family AS family, c.size AS size,\n"
     "  c.window AS window, c.precision AS precision, c.resolution AS resolution, c.layers AS layers,\n"
     "  c.variant AS variant,\n"
     "  r.id AS run_id, r.repeat AS repeat, r.mode AS mode, r.status AS run_status,\n"
     "  s.id AS step_id, s.seq AS step_seq, s.tool AS tool, s.status AS step_status,\n"
     "  p.idx AS pass_idx, n.name AS pass, p.section AS section, p.parent_idx AS parent_idx,\n"
     "  p.depth AS depth, p.wall_s AS wall_s, p.user_s AS user_s, p.flags AS flags,\n"
     "  p.report_index AS report_index, p.counted AS counted\n"
     "FROM pass_time p\n"
     "  JOIN pass_name n ON n.id = p.name_id\n"
     "  JOIN step s ON s.id = p.step_id\n"
     "  JOIN run r ON r.id = s.run_id\n"
     "  JOIN config c ON c.id = r.config_id\n"
     "  JOIN sweep sw ON sw.id = c.sweep_id;\n",
     1 /* the readers of pass names (pm_sq_counted_passes, store_runs.c) and v_pass read either layout */, NULL},
    /* v7 (issue 19/25, identity): a spec is a contract and the compiler has one identity. tool: each step's
     * program per sweep and machine (resolved path, its --version text, XXH3-128 of the binary: what merge
     * compares; the path may differ across machines). config.fingerprint: XXH3-128 of fingerprint_text, the
     * config's steps after substitution (argv, report, tool identity) and the environment they read; a sweep
     * refuses to add runs to a config whose fingerprint changed. sweep.superseded_by: the runs an edited spec
     * (`sweep --force`) or a retry (`--retry-failed`) replaced live on in their own sweep, named
     * STUDY~superseded-TIME, never read as the study. */
    {"tool identity, config fingerprints, superseded sweeps",
     "CREATE TABLE tool(\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  sweep_id INTEGER NOT NULL REFERENCES sweep(id) ON DELETE CASCADE,\n"
     "  host_id INTEGER REFERENCES host(id),\n"
     "  name TEXT NOT NULL,\n"         /* the step's tool label (clang, llc, mlir-opt) */
     "  path TEXT NOT NULL,\n"         /* as the PATH lookup resolved argv[0] */
     "  version_text TEXT NOT NULL,\n" /* what `PATH --version` printed (stdout, then stderr) */
     "  hash TEXT NOT NULL,\n"         /* "xxh3-128:HEX" of the file, '' when unreadable */
     "  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),\n"
     "  UNIQUE(sweep_id, host_id, name, path, hash)\n"
     ");\n"
     "ALTER TABLE config ADD COLUMN fingerprint TEXT;\n"
     "ALTER TABLE config ADD COLUMN fingerprint_text TEXT;\n"
     "ALTER TABLE sweep ADD COLUMN superseded_by TEXT;\n",
     1 /* readers check PM_STORE_VERSION_IDENTITY (or the table) and read an older file as it is */, NULL},
    /* v8 (issue 19, compiler builds as an axis): tool.invoked, the program word a step named (llc-14,
     * {spec_dir}/bin/cc; NULL before). A build is one per (name, invoked): a spec whose axis picks the build
     * (`argv = llc-{llvm} ...`) runs several builds of llc, one per word, which merge must not take for
     * "another build", while the same word naming another binary still is. */
    {"tool invocation", "ALTER TABLE tool ADD COLUMN invoked TEXT;\n",
     1 /* pm_store_read_tools and merge's check read a file without the column as it is */, NULL},
    /* v9 (issue 24, perfagg): the report's sums, kept by the writers (store_agg.c says what each table holds and
     * why stage sums are per run under a recorded stage per pass). The report read every counted pass row (37 M
     * at 150,000 runs) to make sums it could have had at write time; pass rows stay for show, trace and a
     * report whose stage map disagrees with the recorded stages. Built here for the runs already stored. */
    {"report aggregates",
     "CREATE TABLE agg_run(\n"
     "  run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,\n"
     "  pass_sum REAL NOT NULL\n"
     ");\n"
     "CREATE TABLE agg_run_stage(\n"
     "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
     "  stage TEXT NOT NULL,\n"
     "  wall_s REAL NOT NULL,\n"
     "  user_s REAL NOT NULL,\n"
     "  user_wall_s REAL NOT NULL,\n"
     "  PRIMARY KEY(run_id, stage)\n"
     ") WITHOUT ROWID;\n"
     "CREATE TABLE agg_pass_stage(\n"
     "  tool TEXT NOT NULL,\n"
     "  name_id INTEGER NOT NULL REFERENCES pass_name(id),\n"
     "  stage TEXT NOT NULL,\n"
     "  PRIMARY KEY(tool, name_id)\n"
     ") WITHOUT ROWID;\n"
     "CREATE TABLE agg_cfg_pass(\n"
     "  config_id INTEGER NOT NULL REFERENCES config(id) ON DELETE CASCADE,\n"
     "  tool TEXT NOT NULL,\n"
     "  name_id INTEGER NOT NULL REFERENCES pass_name(id),\n"
     "  wall_s REAL NOT NULL,\n"
     "  log_s REAL NOT NULL,\n"
     "  n_log INTEGER NOT NULL,\n"
     "  user_s REAL NOT NULL,\n"
     "  user_wall_s REAL NOT NULL,\n"
     "  first_run INTEGER NOT NULL,\n"
     "  first_pos INTEGER NOT NULL,\n"
     "  PRIMARY KEY(config_id, tool, name_id)\n"
     ") WITHOUT ROWID;\n",
     1 /* readers of an older file sum the pass rows, as before */, build_aggregates},
    /* (issue 32, per-pass counts) the instructions of each counted row of a step's report, from the callgrind
     * meter (store_passcount.c): beside pass_time's wall, keyed as its row; NULL with why when not counted */
    {"per-pass instruction counts",
     "CREATE TABLE pass_count(\n"
     "  step_id INTEGER NOT NULL REFERENCES step(id) ON DELETE CASCADE,\n"
     "  idx INTEGER NOT NULL,\n"
     "  instructions INTEGER,\n"
     "  how TEXT,\n"
     "  why TEXT,\n"
     "  PRIMARY KEY(step_id, idx)\n"
     ") WITHOUT ROWID;\n",
     1 /* readers of an older file find no table: no counts (pm_store_config_passcounts) */, NULL},
};
#define PM_STORE_N_MIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))
#define PM_STORE_SCHEMA_VERSION (1 + PM_STORE_N_MIGRATIONS)

static const char schema_sql[] =
    "CREATE TABLE sweep(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  backend TEXT,\n"
    "  spec_text TEXT,\n"
    "  meta_json TEXT,\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))\n"
    ");\n"
    "CREATE TABLE config(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  sweep_id INTEGER NOT NULL REFERENCES sweep(id) ON DELETE CASCADE,\n"
    "  key TEXT NOT NULL,\n"
    "  kind TEXT NOT NULL,\n"
    "  family TEXT,\n"
    "  size TEXT,\n"
    "  window INTEGER,\n"       /* NULL when not applicable (pm_config: 0) */
    "  precision TEXT,\n"
    "  resolution INTEGER,\n"   /* NULL when not applicable */
    "  layers INTEGER,\n"       /* NULL when not applicable */
    "  variant TEXT,\n"
    "  params_json TEXT,\n"
    "  UNIQUE(sweep_id, key)\n" /* also the config(sweep_id) index */
    ");\n"
    "CREATE TABLE run(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  config_id INTEGER NOT NULL REFERENCES config(id) ON DELETE CASCADE,\n"
    "  repeat INTEGER NOT NULL,\n"
    "  mode TEXT NOT NULL,\n"
    "  status TEXT NOT NULL,\n"
    "  wall_s REAL,\n"
    "  user_s REAL,\n"
    "  sys_s REAL,\n"
    "  maxrss_kb INTEGER,\n"
    "  started_at TEXT NOT NULL,\n" /* recording time minus wall_s, UTC ISO 8601 */
    "  note TEXT\n"
    ");\n"
    "CREATE INDEX run_config_mode ON run(config_id, mode);\n"
    "CREATE TABLE step(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
    "  seq INTEGER NOT NULL,\n"
    "  tool TEXT,\n"
    "  argv TEXT,\n"
    "  status TEXT,\n"
    "  wall_s REAL,\n"
    "  user_s REAL,\n"
    "  sys_s REAL,\n"
    "  maxrss_kb INTEGER,\n"
    "  instructions INTEGER,\n"  /* NULL: unavailable */
    "  exit_code INTEGER,\n"
    "  term_signal INTEGER,\n"
    "  report_format TEXT,\n"    /* NULL: no report parsed */
    "  report_wall_s REAL,\n"    /* the report's own Total */
    "  stderr_tail TEXT,\n"
    "  UNIQUE(run_id, seq)\n"    /* also the step(run_id) index */
    ");\n"
    "CREATE TABLE pass_time(\n"
    "  step_id INTEGER NOT NULL REFERENCES step(id) ON DELETE CASCADE,\n"
    "  idx INTEGER NOT NULL,\n"       /* position in the report, 0-based */
    "  name TEXT NOT NULL,\n"
    "  section TEXT,\n"
    "  parent_idx INTEGER,\n"         /* idx of the parent row, NULL at top level */
    "  depth INTEGER NOT NULL,\n"
    "  wall_s REAL,\n"
    "  user_s REAL,\n"
    "  flags INTEGER NOT NULL,\n"     /* PM_PASS_* bits: 1 group, 2 analysis, 4 summary */
    "  report_index INTEGER NOT NULL,\n"
    "  counted INTEGER NOT NULL,\n"   /* pm_pass_counted(): the parsers' rule, stored so SQL sums agree */
    "  PRIMARY KEY(step_id, idx)\n"   /* also the pass_time(step_id) index */
    ") WITHOUT ROWID;\n"
    "CREATE TABLE metric(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
    "  step_id INTEGER REFERENCES step(id) ON DELETE CASCADE,\n" /* NULL: run-level */
    "  name TEXT NOT NULL,\n"
    "  value REAL\n"
    ");\n"
    "CREATE INDEX metric_run ON metric(run_id, step_id);\n"
    "CREATE INDEX metric_step ON metric(step_id);\n" /* cascades from step need it */
    "CREATE TABLE meta(\n"
    "  key TEXT PRIMARY KEY,\n"
    "  value TEXT\n"
    ");\n"
    /* One row per pass with what analyses group by. counted = neither group nor summary row, i.e. the
     * rows pm_report_pass_wall sums. */
    "CREATE VIEW v_pass AS SELECT\n"
    "  sw.id AS sweep_id, sw.name AS sweep, sw.backend AS backend,\n"
    "  c.id AS config_id, c.key AS config_key, c.kind AS kind, c.family AS family, c.size AS size,\n"
    "  c.window AS window, c.precision AS precision, c.resolution AS resolution, c.layers AS layers,\n"
    "  c.variant AS variant,\n"
    "  r.id AS run_id, r.repeat AS repeat, r.mode AS mode, r.status AS run_status,\n"
    "  s.id AS step_id, s.seq AS step_seq, s.tool AS tool, s.status AS step_status,\n"
    "  p.idx AS pass_idx, p.name AS pass, p.section AS section, p.parent_idx AS parent_idx,\n"
    "  p.depth AS depth, p.wall_s AS wall_s, p.user_s AS user_s, p.flags AS flags,\n"
    "  p.report_index AS report_index, p.counted AS counted\n"
    "FROM pass_time p\n"
    "  JOIN step s ON s.id = p.step_id\n"
    "  JOIN run r ON r.id = s.run_id\n"
    "  JOIN config c ON c.id = r.config_id\n"
    "  JOIN sweep sw ON sw.id = c.sweep_id;\n";

static int pragma_int(pm_store *st, const char *sql, int *value, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return pm_store_db_err(st, err, sql);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *value = sqlite3_column_int(s, 0);
    else
        rc = pm_store_db_err(st, err, sql);
    sqlite3_finalize(s);
    return rc;
}

/* Applies migrations[version-1 ..] in order, bumping user_version after each (same transaction). for_reader:
 * the ones readers need only (on a copy in memory). */
static int migrate(pm_store *st, int version, int for_reader, pm_err *err)
{
    for (int v = version; v < PM_STORE_SCHEMA_VERSION; v++) {
        char what[160], bump[64];
        if (for_reader && migrations[v - 1].readers_skip)
            continue;
        snprintf(what, sizeof what, "migrate schema %d -> %d (%s)", v, v + 1, migrations[v - 1].what);
        int rc = pm_store_exec_sql(st, migrations[v - 1].sql, err, what);
        if (rc == PM_OK && !for_reader && migrations[v - 1].build)
            rc = migrations[v - 1].build(st, err);
        if (rc != PM_OK)
            return rc;
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d;", v + 1);
        if ((rc = pm_store_exec_sql(st, bump, err, what)) != PM_OK)
            return rc;
    }
    st->version = PM_STORE_SCHEMA_VERSION;
    return PM_OK;
}

/* Checks user_version and application_id; creates the schema in a fresh file when allowed, migrates an
 * older one. Runs inside BEGIN IMMEDIATE for writers, so two processes opening a new file do not both
 * create it. *old_version: the version found (readers of an older file migrate a copy). */
int pm_store_check_schema(pm_store *st, int may_create, int *old_version, pm_err *err)
{
    int version = 0, app_id = 0, n_objects = 0, rc;
    *old_version = 0;
    if ((rc = pragma_int(st, "PRAGMA user_version", &version, err)) != PM_OK ||
        (rc = pragma_int(st, "PRAGMA application_id", &app_id, err)) != PM_OK ||
        (rc = pragma_int(st, "SELECT count(*) FROM sqlite_schema", &n_objects, err)) != PM_OK)
        return rc;
    st->version = version;
    if (app_id != 0 && app_id != PM_STORE_APPLICATION_ID)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (application_id %d)",
                          st->path, app_id);
    if (version > PM_STORE_SCHEMA_VERSION)
        return pm_err_set(err, PM_ERR_UNSUPPORTED,
                          "%s: database schema version %d is newer than this passmap supports (%d); "
                          "use a newer passmap", st->path, version, PM_STORE_SCHEMA_VERSION);
    if (version == PM_STORE_SCHEMA_VERSION && app_id == PM_STORE_APPLICATION_ID)
        return PM_OK;
    if (version >= 1 && app_id == PM_STORE_APPLICATION_ID) {
        /* read-only: the file is left as it is (its version stays what pm_store_schema_version says);
         * store_open upgrades a copy in memory (with the migrations readers need), so readers see every table
         * and column they read */
        *old_version = version;
        if (!may_create) {
            int need = 0;
            for (int v = version; v < PM_STORE_SCHEMA_VERSION; v++)
                need |= !migrations[v - 1].readers_skip;
            if (!need)
                *old_version = 0;   /* read as it is: no copy */
            return PM_OK;
        }
        return migrate(st, version, 0, err);
    }
    if (version != 0 || n_objects != 0)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (schema version %d, %d objects)",
                          st->path, version, n_objects);
    if (!may_create)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: empty database, not a passmap database", st->path);
    if ((rc = pm_store_exec_sql(st, schema_sql, err, "create schema")) != PM_OK)
        return rc;
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA user_version = 1; PRAGMA application_id = %d;",
             PM_STORE_APPLICATION_ID);
    if ((rc = pm_store_exec_sql(st, pragmas, err, "set schema version")) != PM_OK)
        return rc;
    return migrate(st, 1, 0, err);
}

/* A reader of an older database works on an upgraded copy in memory: reading never changes the file. */
int pm_store_migrate_copy(pm_store *st, int version, pm_err *err)
{
    sqlite3 *mem = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
        sqlite3_close(mem);
        return pm_err_set(err, PM_ERR_NOMEM, "%s: cannot open a copy in memory", st->path);
    }
    sqlite3_backup *b = sqlite3_backup_init(mem, "main", st->db, "main");
    int ok = b && sqlite3_backup_step(b, -1) == SQLITE_DONE;
    sqlite3_backup_finish(b);
    if (!ok) {
        int rc = pm_err_set(err, PM_ERR_DB, "%s: copying to memory: %s", st->path, sqlite3_errmsg(mem));
        sqlite3_close(mem);
        return rc;
    }
    sqlite3_close(st->db);
    st->db = mem;
    int rc = pm_store_exec_sql(st, "BEGIN", err, "begin");
    if (rc == PM_OK)
        rc = migrate(st, version, 1, err);
    pm_store_exec_sql(st, rc == PM_OK ? "COMMIT" : "ROLLBACK", NULL, "end");
    st->version = version; /* the file's version: what readers that check it expect */
    return rc;
}

int pm_store_schema_latest(void)
{
    return PM_STORE_SCHEMA_VERSION;
}

static int build_aggregates(pm_store *st, pm_err *err)
{
    return pm_store_agg_after(st, 0, err);
}
