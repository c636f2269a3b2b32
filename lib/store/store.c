/* pm_store: the SQLite results database (see store.h for the layout).
 *
 * Durability: WAL with synchronous=NORMAL survives a killed process (only a power loss can drop the last
 * commits), and pm_store_record_run writes a run with everything below it in one BEGIN IMMEDIATE
 * transaction, so a reader never sees a run without its steps. */
#include "store.h"
#include "store_passcount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <xxhash.h>

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
    {"trace columns", "ALTER TABLE pass_time ADD COLUMN start_s REAL;\n"
                      "ALTER TABLE step ADD COLUMN pass_order TEXT;\n", 0, NULL},
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
     "  cold INTEGER NOT NULL,\n"        /* runs planned per mode */
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
     "  forced INTEGER NOT NULL,\n"      /* 1: spec or compiler differed and --force merged it anyway */
     "  note TEXT,\n"
     "  merged_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))\n"
     ");\n", 0, NULL},
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
     "  FROM config WHERE layers IS NOT NULL;\n", 0, NULL},
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
     ");\n", 0, NULL},
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
     "  name TEXT NOT NULL,\n"          /* the step's tool label (clang, llc, mlir-opt) */
     "  path TEXT NOT NULL,\n"          /* as the PATH lookup resolved argv[0] */
     "  version_text TEXT NOT NULL,\n"  /* what `PATH --version` printed (stdout, then stderr) */
     "  hash TEXT NOT NULL,\n"          /* "xxh3-128:HEX" of the file, '' when unreadable */
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
/* 'pmap': marks the file as ours, so a foreign SQLite database is rejected clearly. */
#define PM_STORE_APPLICATION_ID 0x706d6170
#define PM_STORE_BUSY_TIMEOUT_MS 10000

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


enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK,
    S_SWEEP, S_CONFIG, S_RUNS_DONE,
    S_RUN, S_STEP, S_PASS, S_METRIC,
    S_META_SET, S_META_GET, S_HOST, S_SHARD, S_CONFIG_PARAM, S_CONFIG_PARAMS, S_PASS_NAME,
    S__COUNT
};

/* Prepared lazily: a read-only store never compiles the writes. */
static const char *const stmt_sql[S__COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_SWEEP] = "INSERT INTO sweep(name, backend, spec_text, meta_json) VALUES(?1, ?2, ?3, ?4)\n"
                "ON CONFLICT(name) DO UPDATE SET\n"
                "  backend = coalesce(sweep.backend, excluded.backend),\n"
                "  spec_text = coalesce(excluded.spec_text, sweep.spec_text),\n"
                "  meta_json = coalesce(excluded.meta_json, sweep.meta_json)\n"
                "RETURNING id",
    /* The no-op update makes RETURNING yield the existing id in one atomic statement. */
    [S_CONFIG] = "INSERT INTO config(sweep_id, key, kind, family, size, window, precision, resolution,\n"
                 "  layers, variant, params_json) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)\n"
                 "ON CONFLICT(sweep_id, key) DO UPDATE SET key = excluded.key\n"
                 "RETURNING id",
    [S_RUNS_DONE] = "SELECT count(*) FROM run WHERE config_id = ?1 AND mode = ?2",
    [S_RUN] = "INSERT INTO run(config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb,\n"
              "  started_at, note, host_id)\n"
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,\n"
              "  strftime('%Y-%m-%dT%H:%M:%fZ', julianday('now') - coalesce(?5, 0) / 86400.0), ?9, ?10)",
    [S_STEP] = "INSERT INTO step(run_id, seq, tool, argv, status, wall_s, user_s, sys_s, maxrss_kb,\n"
               "  instructions, exit_code, term_signal, report_format, report_wall_s, stderr_tail, pass_order)\n"
               "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [S_PASS] = "INSERT INTO pass_time(step_id, idx, name_id, section, parent_idx, depth, wall_s, user_s,\n"
               "  flags, report_index, counted, start_s) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [S_METRIC] = "INSERT INTO metric(run_id, step_id, name, value) VALUES(?1, ?2, ?3, ?4)",
    [S_META_SET] = "INSERT INTO meta(key, value) VALUES(?1, ?2)\n"
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [S_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [S_HOST] = "INSERT INTO host(name, fingerprint, cpu_model, cores, kernel, machine, compiler)\n"
               "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)\n"
               "ON CONFLICT(name, fingerprint) DO UPDATE SET name = excluded.name\n"
               "RETURNING id",
    [S_SHARD] = "INSERT INTO shard(sweep_id, shard_k, shard_n, config_key, cold, cache_miss, warm)\n"
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)\n"
                "ON CONFLICT(sweep_id, shard_n, config_key) DO UPDATE SET shard_k = excluded.shard_k,\n"
                "  cold = excluded.cold, cache_miss = excluded.cache_miss, warm = excluded.warm",
    /* insert-or-get: the no-op update makes RETURNING yield an existing name's id */
    [S_PASS_NAME] = "INSERT INTO pass_name(name) VALUES(?1) ON CONFLICT(name) DO UPDATE SET name = excluded.name\n"
                    "RETURNING id",
    [S_CONFIG_PARAMS] = "SELECT name, value FROM config_param WHERE config_id = ?1 ORDER BY name",
    [S_CONFIG_PARAM] = "INSERT INTO config_param(config_id, name, value) VALUES(?1, ?2, ?3)\n"
                       "ON CONFLICT(config_id, name) DO UPDATE SET value = excluded.value",
};

/* The pass names this writer has seen, name -> pass_name.id (open addressing; a sweep has a few hundred). Only
 * committed ids may stay: a rolled-back run's new names are forgotten with the whole cache. */
typedef struct name_cache {
    char **names;
    int64_t *ids;
    size_t n, cap;      /* cap: 0 or a power of two */
} name_cache;

struct pm_store {
    sqlite3 *db;
    char *path;
    int readonly;
    int version;        /* schema version of the file (a read-only open may see an older one) */
    sqlite3_stmt *stmt[S__COUNT];
    name_cache names;
    struct { const char *sql; sqlite3_stmt *s; } cached[8];   /* pm_store_cached */
    pm_stagemap *agg_map;   /* the data dir's stage map, for the aggregates (loaded at the first write) */
    int agg_map_state;      /* 0 not tried, 1 loaded, -1 none (no data dir): no aggregates are written */
};

static void name_cache_clear(name_cache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->names[i]);
    free(c->names);
    free(c->ids);
    memset(c, 0, sizeof *c);
}

/* The slot of name: its own, or the empty one where it would go. */
static size_t name_cache_slot(const name_cache *c, const char *name)
{
    size_t h = (size_t)XXH3_64bits(name, strlen(name)) & (c->cap - 1);
    while (c->names[h] && strcmp(c->names[h], name))
        h = (h + 1) & (c->cap - 1);
    return h;
}

static int name_cache_put(name_cache *c, const char *name, int64_t id)
{
    if ((c->n + 1) * 2 > c->cap) {
        name_cache old = *c, grown = {.cap = c->cap ? c->cap * 2 : 256};
        if (!(grown.names = calloc(grown.cap, sizeof *grown.names)) ||
            !(grown.ids = calloc(grown.cap, sizeof *grown.ids))) {
            free(grown.names);
            return PM_ERR_NOMEM;
        }
        for (size_t i = 0; i < old.cap; i++)
            if (old.names[i]) {
                size_t h = name_cache_slot(&grown, old.names[i]);
                grown.names[h] = old.names[i];
                grown.ids[h] = old.ids[i];
            }
        grown.n = old.n;
        free(old.names);
        free(old.ids);
        *c = grown;
    }
    size_t h = name_cache_slot(c, name);
    if (!c->names[h]) {
        if (!(c->names[h] = strdup(name)))
            return PM_ERR_NOMEM;
        c->n++;
    }
    c->ids[h] = id;
    return PM_OK;
}

static int db_err(pm_store *st, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int get_stmt(pm_store *st, int which, sqlite3_stmt **out, pm_err *err)
{
    if (!st->stmt[which] &&
        sqlite3_prepare_v3(st->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[which], NULL)
            != SQLITE_OK)
        return db_err(st, err, "prepare");
    *out = st->stmt[which];
    return PM_OK;
}

static void done_stmt(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* Steps a statement that returns no rows. */
static int exec_stmt(pm_store *st, int which, pm_err *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, which, &s, err);
    if (rc != PM_OK)
        return rc;
    rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : db_err(st, err, what);
    done_stmt(s);
    return rc;
}

static int exec_sql(pm_store *st, const char *sql, pm_err *err, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        pm_err_set(err, PM_ERR_DB, "%s: %s: %s", st->path, what, msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return PM_ERR_DB;
    }
    return PM_OK;
}

static int pragma_int(pm_store *st, const char *sql, int *value, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_err(st, err, sql);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *value = sqlite3_column_int(s, 0);
    else
        rc = db_err(st, err, sql);
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
        int rc = exec_sql(st, migrations[v - 1].sql, err, what);
        if (rc == PM_OK && !for_reader && migrations[v - 1].build)
            rc = migrations[v - 1].build(st, err);
        if (rc != PM_OK)
            return rc;
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d;", v + 1);
        if ((rc = exec_sql(st, bump, err, what)) != PM_OK)
            return rc;
    }
    st->version = PM_STORE_SCHEMA_VERSION;
    return PM_OK;
}

/* Checks user_version and application_id; creates the schema in a fresh file when allowed, migrates an
 * older one. Runs inside BEGIN IMMEDIATE for writers, so two processes opening a new file do not both
 * create it. *old_version: the version found (readers of an older file migrate a copy). */
static int check_schema(pm_store *st, int may_create, int *old_version, pm_err *err)
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
    if ((rc = exec_sql(st, schema_sql, err, "create schema")) != PM_OK)
        return rc;
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA user_version = 1; PRAGMA application_id = %d;",
             PM_STORE_APPLICATION_ID);
    if ((rc = exec_sql(st, pragmas, err, "set schema version")) != PM_OK)
        return rc;
    return migrate(st, 1, 0, err);
}

/* A reader of an older database works on an upgraded copy in memory: reading never changes the file. */
static int migrate_copy(pm_store *st, int version, pm_err *err)
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
    int rc = exec_sql(st, "BEGIN", err, "begin");
    if (rc == PM_OK)
        rc = migrate(st, version, 1, err);
    exec_sql(st, rc == PM_OK ? "COMMIT" : "ROLLBACK", NULL, "end");
    st->version = version; /* the file's version: what readers that check it expect */
    return rc;
}

/* A WAL database can not be opened read-only the usual way when its folder is read-only: SQLite must create the
 * -shm file. With no -wal content left (every writer finished and checkpointed) nothing can change the file
 * (no writer can create its -wal there either), so it is opened as immutable. NULL: open normally. */
static char *immutable_uri(const char *path)
{
    char dir[PATH_MAX], wal[PATH_MAX + 8];
    const char *slash = strrchr(path, '/');
    size_t dn = slash ? (size_t)(slash - path) : 1;
    if (dn == 0)
        dn = 1; /* "/x.db" */
    if (dn >= sizeof dir || strlen(path) >= PATH_MAX)
        return NULL;
    memcpy(dir, slash ? path : ".", dn);
    dir[dn] = '\0';
    if (access(dir, W_OK) == 0)
        return NULL;
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0)
        return NULL;
    /* file: URI, percent-encoding what a URI would read as syntax */
    size_t n = strlen(path);
    size_t cap = 3 * n + 32;
    char *uri = malloc(cap), *o = uri;
    if (!uri)
        return NULL;
    o += snprintf(o, cap, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            o += snprintf(o, cap - (size_t)(o - uri), "%%%02X", *p);
        else
            *o++ = (char)*p;
    }
    snprintf(o, cap - (size_t)(o - uri), "?immutable=1");
    return uri;
}

/* A file of another application (application_id, or tables without passmap's schema), of a newer passmap, or
 * (unless may_be_empty: a writer creating it) empty: refused with PM_ERR_UNSUPPORTED before anything is
 * changed in it (a writer's journal_mode = WAL would already rewrite its header). */
static int refuse_foreign(sqlite3 *db, const char *path, int may_be_empty, pm_err *err)
{
    int version = -1, app_id = -1, n_objects = -1, rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM "
                               "pragma_application_id), (SELECT count(*) FROM sqlite_schema)", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        version = sqlite3_column_int(s, 0);
        app_id = sqlite3_column_int(s, 1);
        n_objects = sqlite3_column_int(s, 2);
    }
    if (version < 0)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (%s)", path, sqlite3_errmsg(db));
    else if (app_id != 0 && app_id != PM_STORE_APPLICATION_ID)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (application_id %d)", path, app_id);
    else if (version > PM_STORE_SCHEMA_VERSION)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: database schema version %d is newer than this passmap "
                        "supports (%d); use a newer passmap", path, version, PM_STORE_SCHEMA_VERSION);
    else if (app_id == 0 && version == 0 && (n_objects || !may_be_empty))
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (%s)", path,
                        n_objects ? "no passmap schema" : "empty");
    else
        rc = PM_OK;
    sqlite3_finalize(s);
    if (rc && !may_be_empty && app_id == 0 && version == 0 && n_objects > 0) {
        /* a reader still reads a passmap store whose pragmas were lost (an .dump reloaded): its tables say so */
        int tables = 0;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('run', "
                                   "'pass_time', 'config', 'sweep')", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            tables = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
        if (tables == 4) {
            if (err)
                pm_err_clear(err);
            rc = PM_OK;
        }
    }
    return rc;
}

/* SQLite's WAL keeps its index in shared memory (-shm), which only processes on one host share: on a network
 * filesystem a reader elsewhere can see a torn database, so a store there uses the rollback journal (one file,
 * fcntl locks) instead. PASSMAP_JOURNAL=wal or =delete overrides the detection (a filesystem it does not know). */
static const struct network_fs {
    unsigned long magic;
    const char *name;
} network_fs[] = {
    {0x6969, "NFS"},         {0x517B, "SMB"},        {0xFF534D42, "CIFS"},  {0xFE534D42, "SMB2"},
    {0x0BD00BD0, "Lustre"},  {0x47504653, "GPFS"},   {0x19830326, "BeeGFS"}, {0x00C36400, "CephFS"},
    {0xAAD7AAEA, "PanFS"},   {0x6B414653, "AFS"},    {0x5346414F, "OpenAFS"},
};

/* Every FUSE filesystem has this one statfs magic; the mount's type ("fuse.sshfs") tells them apart. */
#define PM_FUSE_MAGIC 0x65735546UL
/* FUSE filesystems whose files live on another host (the mount type's part after "fuse."). */
static const char *const network_fuse[] = {
    "sshfs", "s3fs", "gcsfuse", "rclone", "glusterfs", "ceph-fuse", "juicefs", "goofys", "blobfuse", "blobfuse2",
    "smbnetfs", "curlftpfs", "moosefs", "mfs", "lizardfs",
};

const char *pm_store_journal_for(unsigned long magic, const char *mount_type, const char **fs_name)
{
    if (fs_name)
        *fs_name = NULL;
    for (size_t i = 0; i < sizeof network_fs / sizeof network_fs[0]; i++)
        if (magic == network_fs[i].magic) {
            if (fs_name)
                *fs_name = network_fs[i].name;
            return "DELETE";
        }
    if (magic == PM_FUSE_MAGIC && mount_type && !strncmp(mount_type, "fuse.", 5))
        for (size_t i = 0; i < sizeof network_fuse / sizeof network_fuse[0]; i++)
            if (!strcmp(mount_type + 5, network_fuse[i])) {
                if (fs_name)
                    *fs_name = network_fuse[i];
                return "DELETE";
            }
    return "WAL";
}

int pm_store_mount_type(const char *mountinfo, unsigned major_no, unsigned minor_no, char *out, size_t cap)
{
    /* "36 35 0:45 / /mnt rw,relatime shared:1 - fuse.sshfs host:/ rw,...": field 3 is the device, the word
     * after " - " the type */
    for (const char *p = mountinfo; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        unsigned id, parent, ma, mi;
        int used = 0;
        if (sscanf(p, "%u %u %u:%u%n", &id, &parent, &ma, &mi, &used) == 4 && ma == major_no && mi == minor_no) {
            const char *dash = strstr(p, " - ");
            if (dash && dash < p + len) {
                const char *t = dash + 3;
                size_t n = strcspn(t, " \n");
                if (n >= cap)
                    return -1;
                memcpy(out, t, n);
                out[n] = '\0';
                return 0;
            }
        }
        p = nl ? nl + 1 : p + len;
    }
    return -1;
}

/* /proc/self/mountinfo whole (proc files say size 0: read to the end), or NULL. */
static char *read_mountinfo(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    if (!f)
        return NULL;
    do {
        if (cap - len < 4096) {
            char *g = realloc(buf, cap += 65536);
            if (!g) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static const char *journal_mode(const char *path)
{
    const char *env = getenv("PASSMAP_JOURNAL");
    if (env && !strcmp(env, "wal"))
        return "WAL";
    if (env && !strcmp(env, "delete"))
        return "DELETE";
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t dn = slash ? (size_t)(slash - path) : 1;
    if (dn == 0)
        dn = 1;
    if (dn >= sizeof dir)
        return "WAL";
    memcpy(dir, slash ? path : ".", dn);
    dir[dn] = '\0';
    struct statfs fs;
    if (statfs(dir, &fs) != 0)
        return "WAL";
    /* FUSE: which one, from the mount table (the one way to tell sshfs from a local FUSE filesystem) */
    char type[64] = "", *info = NULL;
    struct stat sb;
    if ((unsigned long)fs.f_type == PM_FUSE_MAGIC && stat(dir, &sb) == 0 && (info = read_mountinfo()) &&
        pm_store_mount_type(info, major(sb.st_dev), minor(sb.st_dev), type, sizeof type) != 0)
        type[0] = '\0';
    free(info);
    return pm_store_journal_for((unsigned long)fs.f_type, type[0] ? type : NULL, NULL);
}

/* A reader's page cache and temporary tables: the report sorts and groups per (config, pass) and per metric, and
 * with SQLite's default 2 MB cache its sorter spilled to temporary files at 15,000 runs. Hints: errors ignored. */
static void reader_pragmas(sqlite3 *db)
{
    sqlite3_exec(db, "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;", NULL, NULL, NULL);
}

static int store_open(const char *path, int readonly, pm_store **out, pm_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return pm_err_set(err, PM_ERR_USAGE, "store: no database path given");
    struct stat sb;
    if (readonly && stat(path, &sb) != 0)
        return errno == ENOENT ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no such database", path)
                               : pm_err_errno(err, PM_ERR_IO, "%s", path);
    pm_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return pm_err_set(err, PM_ERR_NOMEM, "store: out of memory");
    }
    st->readonly = readonly;
    int rc = PM_OK;
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    char *uri = readonly ? immutable_uri(path) : NULL;
    if (uri)
        flags |= SQLITE_OPEN_URI;
    int orc = sqlite3_open_v2(uri ? uri : path, &st->db, flags, NULL);
    free(uri);
    if (orc != SQLITE_OK) {
        rc = st->db ? db_err(st, err, "open") : pm_err_set(err, PM_ERR_NOMEM, "%s: open: out of memory", path);
        goto cleanup;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, PM_STORE_BUSY_TIMEOUT_MS);
    if (readonly) {
        int old_version = 0;
        reader_pragmas(st->db);
        if ((rc = exec_sql(st, "BEGIN", err, "begin")) != PM_OK)
            goto cleanup;
        rc = check_schema(st, 0, &old_version, err);
        exec_sql(st, "COMMIT", NULL, "commit");
        if (rc == PM_OK && old_version)
            rc = migrate_copy(st, old_version, err);
        goto cleanup;
    }
    /* refused before the journal mode is touched: WAL would rewrite a foreign file's header */
    if ((rc = refuse_foreign(st->db, path, 1, err)) != PM_OK)
        goto cleanup;
    /* journal_mode cannot change inside a transaction; it is persistent once set. */
    char pragmas[160];
    const char *mode = journal_mode(path);
    /* synchronous = FULL with the rollback journal: NORMAL is only as durable as WAL's with WAL */
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = %s; PRAGMA synchronous = %s; PRAGMA foreign_keys = ON;",
             mode, strcmp(mode, "WAL") ? "FULL" : "NORMAL");
    if ((rc = exec_sql(st, pragmas, err, "configure")) != PM_OK)
        goto cleanup;
    if ((rc = exec_stmt(st, S_BEGIN, err, "begin")) != PM_OK)
        goto cleanup;
    int old_version = 0;
    if ((rc = check_schema(st, 1, &old_version, err)) != PM_OK) {
        exec_stmt(st, S_ROLLBACK, NULL, "rollback");
        goto cleanup;
    }
    rc = exec_stmt(st, S_COMMIT, err, "commit");
cleanup:
    if (rc != PM_OK) {
        pm_store_close(st);
        return rc;
    }
    *out = st;
    return PM_OK;
}

int pm_store_open(const char *path, pm_store **out, pm_err *err)
{
    return store_open(path, 0, out, err);
}

int pm_store_open_readonly(const char *path, pm_store **out, pm_err *err)
{
    return store_open(path, 1, out, err);
}

int pm_store_is_empty(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT;
    if (!S_ISREG(sb.st_mode))
        return 0;
    if (sb.st_size == 0)
        return 1;
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int empty = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version) = 0 AND (SELECT application_id "
                               "FROM pragma_application_id) = 0 AND (SELECT count(*) FROM sqlite_schema) = 0",
                           -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        empty = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return empty;
}

int pm_store_open_db_readonly(const char *path, sqlite3 **db, pm_err *err)
{
    *db = NULL;
    char *uri = immutable_uri(path);
    int rc = sqlite3_open_v2(uri ? uri : path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0),
                             NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        pm_err_set(err, PM_ERR_DB, "cannot open %s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return PM_ERR_DB;
    }
    /* The checks every reader makes before trusting a table (the writers' check_schema refuses the same): a
     * file of another application, or of a newer passmap whose tables may mean something else. */
    rc = refuse_foreign(*db, path, 0, err);
    if (rc) {
        sqlite3_close(*db);
        *db = NULL;
    } else
        reader_pragmas(*db);
    return rc;
}

void pm_store_close(pm_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < S__COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    for (size_t i = 0; i < sizeof st->cached / sizeof st->cached[0]; i++)
        sqlite3_finalize(st->cached[i].s);
    name_cache_clear(&st->names);
    pm_stagemap_free(st->agg_map);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

int pm_store_cached(pm_store *st, const char *sql, sqlite3_stmt **out, pm_err *err)
{
    size_t i, n = sizeof st->cached / sizeof st->cached[0];
    for (i = 0; i < n && st->cached[i].sql && st->cached[i].sql != sql; i++)
        ;
    if (i < n && st->cached[i].sql) {
        *out = st->cached[i].s;
        sqlite3_reset(*out);
        sqlite3_clear_bindings(*out);
        return PM_OK;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v3(st->db, sql, -1, i < n ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK)
        return db_err(st, err, "prepare");
    if (i == n) {   /* the cache is full: the caller's statement is not kept (not reached: a few callers) */
        sqlite3_finalize(s);
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: store statement cache full", st->path);
    }
    st->cached[i].sql = sql;
    st->cached[i].s = *out = s;
    return PM_OK;
}

sqlite3 *pm_store_db(pm_store *st)
{
    return st ? st->db : NULL;
}

const char *pm_store_path(pm_store *st)
{
    return st ? st->path : NULL;
}

int pm_store_schema_version(const pm_store *st)
{
    return st ? st->version : 0;
}

/* Binding helpers; each returns an SQLite result code, collected with |= (SQLITE_OK is 0). */
static int bind_text(sqlite3_stmt *s, int i, const char *v)
{
    return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int bind_real_nonneg(sqlite3_stmt *s, int i, double v)   /* < 0 (absent) or NaN: NULL */
{
    return v >= 0 ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}

static int bind_int_nonzero(sqlite3_stmt *s, int i, int64_t v)  /* 0 (not applicable): NULL */
{
    return v ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
}

static int bind_int_nonneg(sqlite3_stmt *s, int i, int64_t v)   /* < 0 (unavailable): NULL */
{
    return v >= 0 ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
}

/* Steps an INSERT ... RETURNING id. */
static int step_returning_id(pm_store *st, sqlite3_stmt *s, int64_t *id, pm_err *err, const char *what)
{
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW)
        *id = sqlite3_column_int64(s, 0);
    else
        rc = db_err(st, err, what);
    if (rc == PM_OK && sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, what);
    done_stmt(s);
    return rc;
}

int pm_store_sweep(pm_store *st, const char *name, const char *backend, const char *spec_text,
                   const char *meta_json, int64_t *sweep_id, pm_err *err)
{
    if (!name || !*name)
        return pm_err_set(err, PM_ERR_USAGE, "store: sweep needs a name");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_SWEEP, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, name) | bind_text(s, 2, backend) | bind_text(s, 3, spec_text) |
         bind_text(s, 4, meta_json)) != SQLITE_OK) {
        rc = db_err(st, err, "sweep: bind");
        done_stmt(s);
        return rc;
    }
    return step_returning_id(st, s, sweep_id, err, "sweep");
}

int pm_store_config(pm_store *st, int64_t sweep_id, const pm_config *cfg, int64_t *config_id, pm_err *err)
{
    if (!cfg || !cfg->key || !*cfg->key || !cfg->kind)
        return pm_err_set(err, PM_ERR_USAGE, "store: config needs a key and a kind");
    sqlite3_stmt *s = NULL;
    const pm_workload *w = &cfg->workload;
    int rc = get_stmt(st, S_CONFIG, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((sqlite3_bind_int64(s, 1, sweep_id) | bind_text(s, 2, cfg->key) | bind_text(s, 3, cfg->kind) |
         bind_text(s, 4, w->family) | bind_text(s, 5, w->size) | bind_int_nonzero(s, 6, w->window) |
         bind_text(s, 7, w->precision) | bind_int_nonzero(s, 8, w->resolution) |
         bind_int_nonzero(s, 9, pm_workload_depth(w, cfg->kind)) | bind_text(s, 10, cfg->variant) |
         bind_text(s, 11, cfg->params_json)) != SQLITE_OK) {
        rc = db_err(st, err, "config: bind");
        done_stmt(s);
        return rc;
    }
    rc = step_returning_id(st, s, config_id, err, "config");
    if (rc != PM_OK)
        return pm_err_wrap(err, "config %s", cfg->key);
    for (size_t i = 0; i < cfg->n_params && rc == PM_OK; i++) {
        if ((rc = get_stmt(st, S_CONFIG_PARAM, &s, err)) != PM_OK)
            break;
        sqlite3_bind_int64(s, 1, *config_id);
        bind_text(s, 2, cfg->params[i].name);
        bind_text(s, 3, cfg->params[i].value);
        rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : db_err(st, err, "config parameter");
        done_stmt(s);
    }
    return rc;
}

int pm_store_runs_done(pm_store *st, int64_t config_id, const char *mode, int *n, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_RUNS_DONE, &s, err);
    if (rc != PM_OK)
        return rc;
    sqlite3_bind_int64(s, 1, config_id);
    bind_text(s, 2, mode ? mode : "");
    if (sqlite3_step(s) == SQLITE_ROW)
        *n = sqlite3_column_int(s, 0);
    else
        rc = db_err(st, err, "runs done");
    done_stmt(s);
    return rc;
}

int pm_store_config_find(pm_store *st, const char *sweep, const char *key, int64_t *config_id, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    *config_id = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT c.id FROM config c JOIN sweep w ON c.sweep_id = w.id "
                                   "WHERE w.name = ?1 AND c.key = ?2", -1, &s, NULL) != SQLITE_OK)
        return db_err(st, err, "find config");
    bind_text(s, 1, sweep);
    bind_text(s, 2, key);
    int rc = PM_OK, step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *config_id = sqlite3_column_int64(s, 0);
    else if (step != SQLITE_DONE)
        rc = db_err(st, err, "find config");
    sqlite3_finalize(s);
    return rc;
}

static const char *run_status_text(pm_run_status s)
{
    return pm_run_status_name(s); /* one name map, the runner's */
}

static int insert_metric(pm_store *st, int64_t run_id, int64_t step_id, const pm_metric *m, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_METRIC, &s, err);
    if (rc != PM_OK)
        return rc;
    int brc = sqlite3_bind_int64(s, 1, run_id) |
              (step_id > 0 ? sqlite3_bind_int64(s, 2, step_id) : sqlite3_bind_null(s, 2)) |
              bind_text(s, 3, m->name ? m->name : "") |
              (m->value == m->value ? sqlite3_bind_double(s, 4, m->value) : sqlite3_bind_null(s, 4));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, "metric");
    done_stmt(s);
    return rc;
}

/* pass_name.id of name, inserted when new (inside the caller's transaction). */
static int pass_name_id(pm_store *st, const char *name, int64_t *id, pm_err *err)
{
    if (st->names.cap) {
        size_t h = name_cache_slot(&st->names, name);
        if (st->names.names[h]) {
            *id = st->names.ids[h];
            return PM_OK;
        }
    }
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_PASS_NAME, &s, err);
    if (rc != PM_OK)
        return rc;
    if (bind_text(s, 1, name) != SQLITE_OK) {
        rc = db_err(st, err, "pass name: bind");
        done_stmt(s);
        return rc;
    }
    if ((rc = step_returning_id(st, s, id, err, "pass name")) != PM_OK)
        return rc;
    return name_cache_put(&st->names, name, *id) ? pm_err_set(err, PM_ERR_NOMEM, "store: out of memory") : PM_OK;
}

static int insert_passes(pm_store *st, int64_t step_id, const pm_report *r, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    for (size_t i = 0; i < r->n_passes && rc == PM_OK; i++) {
        const pm_pass *p = &r->passes[i];
        int64_t name_id = 0;
        if ((rc = pass_name_id(st, p->name ? p->name : "", &name_id, err)) != PM_OK ||
            (rc = get_stmt(st, S_PASS, &s, err)) != PM_OK)
            break;
        int brc = sqlite3_bind_int64(s, 1, step_id) | sqlite3_bind_int64(s, 2, (int64_t)i) |
                  sqlite3_bind_int64(s, 3, name_id) | bind_text(s, 4, p->section) |
                  bind_int_nonneg(s, 5, p->parent) | sqlite3_bind_int(s, 6, p->depth) |
                  bind_real_nonneg(s, 7, p->wall_s) | bind_real_nonneg(s, 8, p->user_s) |
                  sqlite3_bind_int64(s, 9, p->flags) | sqlite3_bind_int(s, 10, p->report_index) |
                  sqlite3_bind_int(s, 11, pm_pass_counted(p)) |
                  (p->has_start ? sqlite3_bind_double(s, 12, p->start_s) : sqlite3_bind_null(s, 12));
        if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
            rc = db_err(st, err, "pass");
        done_stmt(s);
    }
    return rc;
}

static int insert_step(pm_store *st, int64_t run_id, int seq, const pm_step_record *sr, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_STEP, &s, err);
    if (rc != PM_OK)
        return rc;
    const pm_run_result *res = sr->result;
    const pm_report *rep = sr->report;
    int brc = sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int(s, 2, seq) | bind_text(s, 3, sr->tool) |
              bind_text(s, 4, sr->argv) | bind_text(s, 15, sr->stderr_tail);
    if (res)
        brc |= bind_text(s, 5, run_status_text(res->status)) | bind_real_nonneg(s, 6, res->wall_s) |
               bind_real_nonneg(s, 7, res->user_s) | bind_real_nonneg(s, 8, res->sys_s) |
               bind_int_nonneg(s, 9, res->maxrss_kb) | bind_int_nonneg(s, 10, res->instructions) |
               sqlite3_bind_int(s, 11, res->exit_code) | sqlite3_bind_int(s, 12, res->term_signal);
    if (rep)
        brc |= bind_text(s, 13, pm_format_name(rep->format)) | bind_real_nonneg(s, 14, rep->total_wall_s) |
               bind_text(s, 16, rep->pass_order == PM_ORDER_NONE ? NULL : pm_pass_order_name(rep->pass_order));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, "step");
    done_stmt(s);
    if (rc != PM_OK)
        return rc;
    int64_t step_id = sqlite3_last_insert_rowid(st->db);
    if (!rep)
        return PM_OK;
    if ((rc = insert_passes(st, step_id, rep, err)) != PM_OK ||
        (sr->counts && (rc = pm_store_record_passcount(st->db, st->path, step_id, sr->counts, err)) != PM_OK))
        return rc;
    for (size_t i = 0; i < rep->n_metrics && rc == PM_OK; i++)
        rc = insert_metric(st, run_id, step_id, &rep->metrics[i], err);
    return rc;
}

int pm_store_record_run(pm_store *st, const pm_run_record *rec, int64_t *run_id, pm_err *err)
{
    if (!rec || !rec->mode || !rec->status || rec->n_steps < 0 || (rec->n_steps > 0 && !rec->steps) ||
        rec->n_metrics < 0 || (rec->n_metrics > 0 && !rec->metrics))
        return pm_err_set(err, PM_ERR_USAGE, "store: incomplete run record");
    int rc = exec_stmt(st, S_BEGIN, err, "begin");
    if (rc != PM_OK)
        return rc;
    sqlite3_stmt *s = NULL;
    if ((rc = get_stmt(st, S_RUN, &s, err)) != PM_OK)
        goto cleanup;
    int brc = sqlite3_bind_int64(s, 1, rec->config_id) | sqlite3_bind_int(s, 2, rec->repeat) |
              bind_text(s, 3, rec->mode) | bind_text(s, 4, rec->status) | bind_real_nonneg(s, 5, rec->wall_s) |
              bind_real_nonneg(s, 6, rec->user_s) | bind_real_nonneg(s, 7, rec->sys_s) |
              bind_int_nonneg(s, 8, rec->maxrss_kb) | bind_text(s, 9, rec->note) |
              (rec->host_id > 0 ? sqlite3_bind_int64(s, 10, rec->host_id) : sqlite3_bind_null(s, 10));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, "run");
    done_stmt(s);
    if (rc != PM_OK)
        goto cleanup;
    int64_t id = sqlite3_last_insert_rowid(st->db);
    for (int i = 0; i < rec->n_steps && rc == PM_OK; i++)
        rc = insert_step(st, id, i, &rec->steps[i], err);
    for (int i = 0; i < rec->n_metrics && rc == PM_OK; i++)
        rc = insert_metric(st, id, 0, &rec->metrics[i], err);
    /* the run's sums join the aggregates in its own transaction (runs after id - 1: this one) */
    if (rc == PM_OK && !strcmp(rec->status, "ok") && (!strcmp(rec->mode, "cold") || !strcmp(rec->mode, "warm")))
        rc = pm_store_agg_after(st, id - 1, err);
    if (rc == PM_OK && (rc = exec_stmt(st, S_COMMIT, err, "commit")) == PM_OK && run_id)
        *run_id = id;
cleanup:
    if (rc != PM_OK) {
        /* COMMIT may have failed with the transaction still open: always try to roll back. */
        if (!sqlite3_get_autocommit(st->db))
            exec_stmt(st, S_ROLLBACK, NULL, "rollback");
        name_cache_clear(&st->names);   /* it may hold names this run inserted */
        pm_err_wrap(err, "recording run of config %lld", (long long)rec->config_id);
    }
    return rc;
}

int pm_store_meta_set(pm_store *st, const char *key, const char *value, pm_err *err)
{
    if (!key || !*key)
        return pm_err_set(err, PM_ERR_USAGE, "store: meta needs a key");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_META_SET, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, key) | bind_text(s, 2, value)) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, "meta set");
    done_stmt(s);
    return rc;
}

int pm_store_meta_get(pm_store *st, const char *key, char **value, pm_err *err)
{
    *value = NULL;
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_META_GET, &s, err);
    if (rc != PM_OK)
        return rc;
    bind_text(s, 1, key ? key : "");
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(s, 0);
        if (v && !(*value = strdup((const char *)v)))
            rc = pm_err_set(err, PM_ERR_NOMEM, "store: out of memory");
        else if (!v)
            rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: meta %s is NULL", st->path, key);
    } else if (step == SQLITE_DONE) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: no meta key %s", st->path, key ? key : "");
    } else {
        rc = db_err(st, err, "meta get");
    }
    done_stmt(s);
    return rc;
}

int pm_store_host(pm_store *st, const pm_host *h, int64_t *host_id, pm_err *err)
{
    if (!h || !h->name[0] || !h->fingerprint[0])
        return pm_err_set(err, PM_ERR_USAGE, "store: host needs a name and a fingerprint");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_HOST, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, h->name) | bind_text(s, 2, h->fingerprint) | bind_text(s, 3, h->cpu_model) |
         sqlite3_bind_int(s, 4, h->cores) | bind_text(s, 5, h->kernel) | bind_text(s, 6, h->machine) |
         bind_text(s, 7, h->compiler)) != SQLITE_OK) {
        rc = db_err(st, err, "host: bind");
        done_stmt(s);
        return rc;
    }
    return step_returning_id(st, s, host_id, err, "host");
}

int pm_store_shard_plan(pm_store *st, int64_t sweep_id, int shard_k, int shard_n, const char *config_key,
                        int cold, int cache_miss, int warm, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_SHARD, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((sqlite3_bind_int64(s, 1, sweep_id) | sqlite3_bind_int(s, 2, shard_k) | sqlite3_bind_int(s, 3, shard_n) |
         bind_text(s, 4, config_key) | sqlite3_bind_int(s, 5, cold) | sqlite3_bind_int(s, 6, cache_miss) |
         sqlite3_bind_int(s, 7, warm)) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = db_err(st, err, "shard plan");
    done_stmt(s);
    return rc;
}

int pm_store_config_params(pm_store *st, int64_t config_id, pm_cfg *c, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_CONFIG_PARAMS, &s, err), step;
    if (rc != PM_OK)
        return rc;
    sqlite3_bind_int64(s, 1, config_id);
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if (pm_cfg_param_add(c, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = db_err(st, err, "config parameters");
    done_stmt(s);
    return rc;
}

/* The writer's stage map for the aggregates: the data dir's, loaded once. None (no data dir): no aggregates,
 * and the report sums the pass rows of such runs as before (it reads the aggregates only when every run in
 * scope has them). */
static const pm_stagemap *agg_map(pm_store *st)
{
    if (st->agg_map_state == 0) {
        pm_err e = {0};
        st->agg_map_state = -1;
        if ((st->agg_map = pm_stagemap_new()) && pm_stagemap_load_default(st->agg_map, &e) == PM_OK)
            st->agg_map_state = 1;
        else {
            pm_stagemap_free(st->agg_map);
            st->agg_map = NULL;
        }
        pm_err_clear(&e);
    }
    return st->agg_map_state > 0 ? st->agg_map : NULL;
}

int pm_store_agg_after(pm_store *st, int64_t after_run, pm_err *err)
{
    const pm_stagemap *map = agg_map(st);
    return map ? pm_store_agg_add(st->db, st->path, map, after_run, err) : PM_OK;
}

int pm_store_agg_merge(pm_store *st, int64_t run_off, int *copied, pm_err *err)
{
    const pm_stagemap *map = agg_map(st);
    *copied = 0;
    return map ? pm_store_agg_copy(st->db, st->path, map, run_off, copied, err) : PM_OK;
}

static int build_aggregates(pm_store *st, pm_err *err)
{
    return pm_store_agg_after(st, 0, err);
}
