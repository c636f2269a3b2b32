#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store.h"
#include "store_query.h"
#include "store_runs.h"
#include "slurp.h"

/* Each test gets a scratch directory holding db.sqlite (plus its -wal/-shm). */
typedef struct fixture {
    char dir[64];
    char path[96];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/pm-store.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/db.sqlite", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
    char p[128];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(p, sizeof p, "%s%s", f->path, suffixes[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
        return v;
    }
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1000 : sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static double q_real(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    double v = -999;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Copies the first column of the first row into buf ("<null>" when NULL). */
static const char *q_text(sqlite3 *db, const char *sql, char *buf, size_t size)
{
    sqlite3_stmt *s = NULL;
    snprintf(buf, size, "<no row>");
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        snprintf(buf, size, "%s", t ? (const char *)t : "<null>");
    }
    sqlite3_finalize(s);
    return buf;
}

/* Turns today's pass layout back into schema 5's (names as text in pass_time, no pass_name): what a file written
 * before schema 6 holds. Tests that simulate an older file start from this. */
/* What the per-pass counts' migration (issue 32) added, removed again: with UNDO_V9, a file of an older schema. */
#define UNDO_PASSCOUNT "DROP TABLE pass_count;"
/* What schema 9 (the report's aggregates) added, removed again (schema 8's tool.invoked goes with UNDO_V7's tool table). */
#define UNDO_V9                                                                                                        \
    UNDO_PASSCOUNT "DROP TABLE agg_run_stage; DROP TABLE agg_run; DROP TABLE agg_cfg_pass; DROP TABLE agg_pass_stage;"
/* What schema 7 (identity) added, removed again: with UNDO_V6, a file of an older schema. */
#define UNDO_V7                                                                                              \
    UNDO_V9                                                                                                  \
    "DROP TABLE tool; ALTER TABLE config DROP COLUMN fingerprint; ALTER TABLE config DROP COLUMN fingerprint_text;" \
    "ALTER TABLE sweep DROP COLUMN superseded_by;"
#define UNDO_V6                                                                                              \
    UNDO_V7                                                                                                  \
    "DROP VIEW v_pass;"                                                                                      \
    "CREATE TABLE pass_time_v5(step_id INTEGER NOT NULL REFERENCES step(id) ON DELETE CASCADE,"              \
    "  idx INTEGER NOT NULL, name TEXT NOT NULL, section TEXT, parent_idx INTEGER, depth INTEGER NOT NULL,"   \
    "  wall_s REAL, user_s REAL, flags INTEGER NOT NULL, report_index INTEGER NOT NULL,"                     \
    "  counted INTEGER NOT NULL, start_s REAL, PRIMARY KEY(step_id, idx)) WITHOUT ROWID;"                    \
    "INSERT INTO pass_time_v5 SELECT p.step_id, p.idx, n.name, p.section, p.parent_idx, p.depth, p.wall_s,"  \
    "  p.user_s, p.flags, p.report_index, p.counted, p.start_s FROM pass_time p"                             \
    "  JOIN pass_name n ON n.id = p.name_id;"                                                                \
    "DROP TABLE pass_time; ALTER TABLE pass_time_v5 RENAME TO pass_time; DROP TABLE pass_name;"

/* A two-level MLIR-like report: a group row with n_children passes under it, then a Total summary. */
static void build_report(pm_report *r, int n_children)
{
    pm_report_init(r);
    r->format = PM_FMT_MLIR_TEXT;
    r->n_reports = 1;
    r->total_wall_s = 2.5;
    pm_pass g = {.name = "func.func", .wall_s = 2.0, .user_s = -1, .depth = 0, .parent = -1,
                 .flags = PM_PASS_GROUP};
    assert_int_equal(pm_report_add_pass(r, &g), PM_OK);
    for (int i = 0; i < n_children; i++) {
        char name[32];
        snprintf(name, sizeof name, "pass-%d", i);
        pm_pass p = {.name = name, .section = i == 0 ? "sec" : NULL, .wall_s = 0.01 * (i + 1),
                     .user_s = 0.005 * (i + 1), .depth = 1, .parent = 0,
                     .flags = i == 1 ? PM_PASS_ANALYSIS : 0, .report_index = 0};
        assert_int_equal(pm_report_add_pass(r, &p), PM_OK);
    }
    pm_pass total = {.name = "Total", .wall_s = 2.5, .user_s = -1, .depth = 0, .parent = -1,
                     .flags = PM_PASS_SUMMARY};
    assert_int_equal(pm_report_add_pass(r, &total), PM_OK);
    assert_int_equal(pm_report_add_metric(r, "ops.total", 42), PM_OK);
}

static pm_run_result ok_result(double wall)
{
    pm_run_result res = {.status = PM_RUN_OK, .wall_s = wall, .user_s = wall * 0.9, .sys_s = 0.01,
                         .maxrss_kb = 12345, .instructions = 1000000, .exit_code = 0};
    return res;
}

static void open_with_config(const char *path, pm_store **st, int64_t *cfg_id)
{
    pm_err e = {0};
    int64_t sw;
    assert_int_equal(pm_store_open(path, st, &e), PM_OK);
    assert_int_equal(pm_store_sweep(*st, "s1", "embedded", "spec", NULL, &sw, &e), PM_OK);
    pm_config c = {.key = "cnn/r18/224/f32", .kind = "cnn", .variant = "stock",
                   .workload = {.family = "resnet", .size = "18", .precision = "f32", .resolution = 224, .blocks = 18}};
    assert_int_equal(pm_store_config(*st, sw, &c, cfg_id, &e), PM_OK);
}

static void schema_is_created(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    sqlite3 *db = pm_store_db(st);
    char buf[64];
    /* version 1 plus every migration */
    assert_true(q_int(db, "PRAGMA user_version") >= 2);
    assert_int_equal(q_int(db, "PRAGMA user_version"), pm_store_schema_version(st));
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('pass_time') WHERE name = 'start_s'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('step') WHERE name = 'pass_order'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'config_param'"), 1);
    assert_string_equal(q_text(db, "PRAGMA journal_mode", buf, sizeof buf), "wal");
    assert_int_equal(q_int(db, "PRAGMA foreign_keys"), 1);
    assert_int_equal(q_int(db, "PRAGMA synchronous"), 1); /* NORMAL */
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
                               "('sweep','config','run','step','pass_time','metric','meta','config_param')"), 8);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='view' AND name='v_pass'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='index' AND name IN "
                               "('run_key','metric_run','metric_step')"), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
                               "('host','shard','merge_log')"), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('run') WHERE name = 'host_id'"), 1);
    pm_store_close(st);
    /* Reopening an existing database keeps it. */
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_int_equal(q_int(pm_store_db(st), "PRAGMA user_version"), pm_store_schema_version(st));
    pm_store_close(st);
}

static void sweep_and_config_get_or_create(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t a, b, c1, c2, c3;
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_sweep(st, "s", "embedded", "v1", NULL, &a, &e), PM_OK);
    assert_int_equal(pm_store_sweep(st, "s", NULL, NULL, "{\"x\":1}", &b, &e), PM_OK);
    assert_true(a == b);
    char buf[64];
    sqlite3 *db = pm_store_db(st);
    assert_string_equal(q_text(db, "SELECT spec_text FROM sweep", buf, sizeof buf), "v1"); /* kept */
    assert_string_equal(q_text(db, "SELECT meta_json FROM sweep", buf, sizeof buf), "{\"x\":1}");
    assert_string_equal(q_text(db, "SELECT backend FROM sweep", buf, sizeof buf), "embedded");
    assert_int_equal(pm_store_sweep(st, "s", NULL, "v2", NULL, &b, &e), PM_OK);
    assert_string_equal(q_text(db, "SELECT spec_text FROM sweep", buf, sizeof buf), "v2"); /* updated */
    int64_t other;
    assert_int_equal(pm_store_sweep(st, "t", "npu", NULL, NULL, &other, &e), PM_OK);
    assert_true(other != a);

    pm_config c = {.key = "llm/qwen2/0.5b/w256/int8/stock", .kind = "llm", .variant = "stock",
                   .workload = {.family = "qwen2", .size = "0.5b", .window = 256, .precision = "int8"}};
    assert_int_equal(pm_store_config(st, a, &c, &c1, &e), PM_OK);
    assert_int_equal(pm_store_config(st, a, &c, &c2, &e), PM_OK);
    assert_true(c1 == c2);
    assert_int_equal(pm_store_config(st, other, &c, &c3, &e), PM_OK); /* same key, other sweep */
    assert_true(c3 != c1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM config"), 2);
    assert_int_equal(q_int(db, "SELECT window FROM config WHERE id = 1"), 256);
    assert_int_equal(q_int(db, "SELECT resolution FROM config WHERE id = 1"), -1000); /* 0 -> NULL */
    assert_int_equal(q_int(db, "SELECT layers FROM config WHERE id = 1"), -1000);
    /* A config in a sweep that does not exist violates the foreign key. */
    assert_int_equal(pm_store_config(st, 9999, &c, &c3, &e), PM_ERR_DB);
    assert_non_null(strstr(e.msg, "FOREIGN KEY"));
    pm_config bad = {.key = NULL, .kind = "llm"};
    assert_int_equal(pm_store_config(st, a, &bad, &c3, &e), PM_ERR_USAGE);
    pm_store_close(st);
}

static void run_round_trip_keeps_tree(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    int64_t cfg, run_id = 0;
    pm_err e = {0};
    open_with_config(f->path, &st, &cfg);
    pm_report rep;
    build_report(&rep, 3);
    pm_run_result r0 = ok_result(1.5), r1 = ok_result(0.5);
    r1.instructions = -1;   /* unavailable -> NULL */
    r1.user_s = -1;         /* absent -> NULL */
    pm_step_record steps[2] = {
        {.tool = "mlir-opt", .argv = "mlir-opt -mlir-timing x.mlir", .result = &r0, .report = &rep},
        {.tool = "llc", .argv = "llc x.ll", .result = &r1, .report = NULL, .stderr_tail = "warn"},
    };
    pm_metric run_metrics[1] = {{.name = "ir.ops", .value = 777}};
    pm_run_record rec = {.config_id = cfg, .repeat = 2, .mode = "cold", .status = "ok", .wall_s = 2.0,
                         .user_s = 1.8, .sys_s = 0.1, .maxrss_kb = 12345, .note = NULL, .steps = steps,
                         .n_steps = 2, .metrics = run_metrics, .n_metrics = 1};
    assert_int_equal(pm_store_record_run(st, &rec, &run_id, &e), PM_OK);
    assert_true(run_id > 0);
    sqlite3 *db = pm_store_db(st);
    char buf[128];
    assert_int_equal(q_int(db, "SELECT repeat FROM run"), 2);
    assert_string_equal(q_text(db, "SELECT mode || '/' || status FROM run", buf, sizeof buf), "cold/ok");
    assert_int_equal(q_int(db, "SELECT note IS NULL AND started_at LIKE '20__-__-__T%Z' FROM run"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM step"), 2);
    assert_string_equal(q_text(db, "SELECT tool || '|' || argv || '|' || status || '|' || report_format "
                                   "FROM step WHERE seq = 0", buf, sizeof buf),
                        "mlir-opt|mlir-opt -mlir-timing x.mlir|ok|mlir-text");
    assert_true(q_real(db, "SELECT report_wall_s FROM step WHERE seq = 0") == 2.5);
    assert_int_equal(q_int(db, "SELECT instructions FROM step WHERE seq = 0"), 1000000);
    assert_int_equal(q_int(db, "SELECT maxrss_kb FROM step WHERE seq = 0"), 12345);
    /* NULL handling on the second step */
    assert_int_equal(q_int(db, "SELECT instructions FROM step WHERE seq = 1"), -1000);
    assert_int_equal(q_int(db, "SELECT user_s FROM step WHERE seq = 1"), -1000);
    assert_int_equal(q_int(db, "SELECT report_format FROM step WHERE seq = 1"), -1000);
    assert_int_equal(q_int(db, "SELECT report_wall_s FROM step WHERE seq = 1"), -1000);
    assert_string_equal(q_text(db, "SELECT stderr_tail FROM step WHERE seq = 1", buf, sizeof buf), "warn");
    /* passes: order, parents, depth, flags, sections, NULL user_s */
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_time"), 5);
    assert_string_equal(q_text(db, "SELECT group_concat(name || ':' || coalesce(parent_idx, '-') || ':' || "
                                   "depth || ':' || flags, ',') FROM (SELECT p.*, n.name AS name FROM pass_time p "
                                   "JOIN pass_name n ON n.id = p.name_id ORDER BY p.idx)",
                               buf, sizeof buf),
                        "func.func:-:0:1,pass-0:0:1:0,pass-1:0:1:2,pass-2:0:1:0,Total:-:0:4");
    assert_string_equal(q_text(db, "SELECT section FROM pass_time WHERE idx = 1", buf, sizeof buf), "sec");
    assert_int_equal(q_int(db, "SELECT user_s FROM pass_time WHERE idx = 0"), -1000);
    assert_true(q_real(db, "SELECT user_s FROM pass_time WHERE idx = 2") == 0.01);
    assert_true(q_real(db, "SELECT wall_s FROM pass_time WHERE idx = 3") == 0.03);
    /* metrics: the report's with its step, the run's with NULL */
    assert_int_equal(q_int(db, "SELECT value FROM metric WHERE name = 'ops.total' AND step_id = "
                               "(SELECT id FROM step WHERE seq = 0)"), 42);
    assert_int_equal(q_int(db, "SELECT value FROM metric WHERE name = 'ir.ops' AND step_id IS NULL"), 777);
    /* the view: counted rows sum to pm_report_pass_wall */
    assert_true(q_real(db, "SELECT sum(wall_s) FROM v_pass WHERE counted") == pm_report_pass_wall(&rep));
    assert_string_equal(q_text(db, "SELECT sweep || '|' || config_key || '|' || kind || '|' || family || '|' || "
                                   "size || '|' || precision || '|' || resolution || '|' || variant || '|' || "
                                   "repeat || '|' || mode || '|' || run_status || '|' || tool || '|' || pass "
                                   "FROM v_pass WHERE pass_idx = 1", buf, sizeof buf),
                        "s1|cnn/r18/224/f32|cnn|resnet|18|f32|224|stock|2|cold|ok|mlir-opt|pass-0");
    assert_int_equal(q_int(db, "SELECT window FROM v_pass LIMIT 1"), -1000);
    pm_report_free(&rep);
    pm_store_close(st);
}

static void runs_done_counts_per_mode(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    int64_t cfg;
    pm_err e = {0};
    int n = -1;
    open_with_config(f->path, &st, &cfg);
    assert_int_equal(pm_store_runs_done(st, cfg, "cold", &n, &e), PM_OK);
    assert_int_equal(n, 0);
    pm_run_result r = ok_result(0.1);
    pm_step_record step = {.tool = "t", .result = &r};
    const char *statuses[] = {"ok", "failed", "timeout"};
    for (int i = 0; i < 3; i++) {
        pm_run_record rec = {.config_id = cfg, .repeat = i, .mode = "cold", .status = statuses[i],
                             .wall_s = 0.1, .user_s = -1, .steps = &step, .n_steps = 1};
        assert_int_equal(pm_store_record_run(st, &rec, NULL, &e), PM_OK);
    }
    pm_run_record warm = {.config_id = cfg, .mode = "warm", .status = "ok", .steps = &step, .n_steps = 1};
    assert_int_equal(pm_store_record_run(st, &warm, NULL, &e), PM_OK);
    assert_int_equal(pm_store_runs_done(st, cfg, "cold", &n, &e), PM_OK);
    assert_int_equal(n, 3);
    assert_int_equal(pm_store_runs_done(st, cfg, "warm", &n, &e), PM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(pm_store_runs_done(st, cfg + 1, "cold", &n, &e), PM_OK);
    assert_int_equal(n, 0);
    assert_int_equal(q_int(pm_store_db(st), "SELECT count(*) FROM run WHERE user_s IS NULL"), 3);
    pm_store_close(st);
}

static void failed_record_rolls_back(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    int64_t cfg, id = -5;
    pm_err e = {0};
    open_with_config(f->path, &st, &cfg);
    sqlite3 *db = pm_store_db(st);
    /* Makes the second step's insert fail after the run and first step rows went in. */
    assert_int_equal(sqlite3_exec(db, "CREATE TEMP TRIGGER boom BEFORE INSERT ON step WHEN NEW.seq = 1 "
                                      "BEGIN SELECT RAISE(ABORT, 'boom'); END", NULL, NULL, NULL), SQLITE_OK);
    pm_run_result r = ok_result(0.1);
    pm_step_record steps[2] = {{.tool = "a", .result = &r}, {.tool = "b", .result = &r}};
    pm_run_record rec = {.config_id = cfg, .mode = "cold", .status = "ok", .steps = steps, .n_steps = 2};
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_ERR_DB);
    assert_non_null(strstr(e.msg, "boom"));
    assert_true(id == -5);
    assert_int_equal(q_int(db, "SELECT count(*) FROM run"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM step"), 0);
    /* The connection is usable afterwards. */
    rec.n_steps = 1;
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_OK);
    assert_int_equal(q_int(db, "SELECT count(*) FROM run"), 1);
    /* Unknown config: foreign key error, nothing written. */
    rec.config_id = 4242;
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_ERR_DB);
    assert_non_null(strstr(e.msg, "FOREIGN KEY"));
    assert_int_equal(q_int(db, "SELECT count(*) FROM run"), 1);
    pm_store_close(st);
}

static void readonly_open(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_ERR_NOTFOUND);
    assert_null(st);
    assert_non_null(strstr(e.msg, "no such database"));
    assert_int_equal(access(f->path, F_OK), -1); /* not created */
    int64_t cfg;
    open_with_config(f->path, &st, &cfg);
    assert_int_equal(pm_store_meta_set(st, "llvm.version", "22.1", &e), PM_OK);
    pm_store_close(st);
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    assert_int_equal(q_int(pm_store_db(st), "SELECT count(*) FROM config"), 1);
    char *v = NULL;
    assert_int_equal(pm_store_meta_get(st, "llvm.version", &v, &e), PM_OK);
    assert_string_equal(v, "22.1");
    free(v);
    int64_t sw;
    assert_int_equal(pm_store_sweep(st, "new", NULL, NULL, NULL, &sw, &e), PM_ERR_DB);
    assert_non_null(strstr(e.msg, "readonly"));
    pm_store_close(st);
}

static void meta_set_get(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    char *v = NULL;
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_meta_get(st, "cc", &v, &e), PM_ERR_NOTFOUND);
    assert_null(v);
    assert_int_equal(pm_store_meta_set(st, "cc", "gcc 14", &e), PM_OK);
    assert_int_equal(pm_store_meta_set(st, "cc", "gcc 15", &e), PM_OK);
    assert_int_equal(pm_store_meta_get(st, "cc", &v, &e), PM_OK);
    assert_string_equal(v, "gcc 15");
    free(v);
    assert_int_equal(q_int(pm_store_db(st), "SELECT count(*) FROM meta"), 1);
    pm_store_close(st);
}

/* A version 1 file (before the migrations) is upgraded by the next writer and keeps its rows; a reader
 * leaves it as it is. */
/* A file as passmap 1 wrote it: tests/fixtures/store/schema-v1.sql (the frozen version-1 DDL) plus one config
 * and one run. */
static void make_version_1(const char *path)
{
    size_t len;
    char *ddl = slurp(PM_SOURCE_DIR "/tests/fixtures/store/schema-v1.sql", &len);
    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw, ddl, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "INSERT INTO sweep(name) VALUES('old');"
                                  "INSERT INTO config(sweep_id, key, kind) VALUES(1, 'k', 'llm');"
                                  "INSERT INTO run(config_id, repeat, mode, status, started_at) "
                                  "VALUES(1, 0, 'cold', 'ok', 'x');",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);
    free(ddl);
}

static void version_1_database_is_migrated(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    int current = pm_store_schema_version(st);
    pm_store_close(st);
    teardown(state);
    setup(state);
    f = *state;
    make_version_1(f->path);
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_schema_version(st), 1);
    pm_store_close(st);
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    sqlite3 *db = pm_store_db(st);
    assert_int_equal(q_int(db, "PRAGMA user_version"), current);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('pass_time') WHERE name = 'start_s'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM config"), 1);
    pm_store_close(st);
}

static void newer_or_foreign_schema_rejected(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_int_equal(sqlite3_exec(pm_store_db(st), "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    pm_store_close(st);
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_ERR_UNSUPPORTED);
    assert_null(st);
    assert_non_null(strstr(e.msg, "schema version 99 is newer"));
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_ERR_UNSUPPORTED);
    teardown(state);
    setup(state);
    f = *state;
    /* Some other application's database. */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE foo(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "not a passmap database"));
}

enum { DUR_STEPS = 3, DUR_CHILDREN = 20 };

/* Child side: records runs forever (until killed or max_runs), writing each returned id to fd. */
static void child_record_loop(const char *path, int64_t cfg, int fd, int max_runs)
{
    pm_store *st = NULL;
    pm_err e = {0};
    if (pm_store_open(path, &st, &e) != PM_OK)
        _exit(3);
    pm_report rep;
    build_report(&rep, DUR_CHILDREN);
    pm_run_result r = ok_result(0.2);
    pm_step_record steps[DUR_STEPS];
    for (int i = 0; i < DUR_STEPS; i++)
        steps[i] = (pm_step_record){.tool = "t", .argv = "t x", .result = &r, .report = &rep};
    for (int i = 0; i < max_runs; i++) {
        pm_run_record rec = {.config_id = cfg, .repeat = i, .mode = "cold", .status = "ok", .wall_s = 0.6,
                             .steps = steps, .n_steps = DUR_STEPS};
        int64_t id;
        if (pm_store_record_run(st, &rec, &id, &e) != PM_OK)
            _exit(4);
        if (fd >= 0 && write(fd, &id, sizeof id) != (ssize_t)sizeof id)
            _exit(5);
    }
    pm_report_free(&rep);
    pm_store_close(st);
    _exit(0);
}

/* Every run present has all its steps and passes. */
static void assert_all_runs_intact(sqlite3 *db)
{
    const int passes = DUR_CHILDREN + 2;
    assert_int_equal(q_int(db, "SELECT count(*) FROM run WHERE (SELECT count(*) FROM step "
                               "WHERE step.run_id = run.id) != 3"), 0);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM step WHERE (SELECT count(*) FROM pass_time "
                              "WHERE pass_time.step_id = step.id) != %d", passes);
    assert_int_equal(q_int(db, sql), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM step s WHERE (SELECT count(*) FROM metric m "
                               "WHERE m.step_id = s.id) != 1"), 0);
    char buf[32];
    assert_string_equal(q_text(db, "PRAGMA integrity_check", buf, sizeof buf), "ok");
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

static void killed_writer_keeps_finished_runs(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    int64_t cfg;
    pm_err e = {0};
    open_with_config(f->path, &st, &cfg);
    pm_store_close(st);
    for (int round = 0; round < 3; round++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_record_loop(f->path, cfg, fds[1], 1000000);
        }
        close(fds[1]);
        /* Kill after a varying number of returned runs, at a varying point inside the next one. */
        int want = 20 + 15 * round, got = 0;
        int64_t ids[64];
        while (got < want && read(fds[0], &ids[got], sizeof ids[got]) == (ssize_t)sizeof ids[got])
            got++;
        usleep(300 * round);
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        /* ids written before the kill but not yet read are still in the pipe */
        int64_t extra;
        while (got < 64 && read(fds[0], &extra, sizeof extra) == (ssize_t)sizeof extra)
            ids[got++] = extra;
        close(fds[0]);
        assert_true(got >= want);

        assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
        sqlite3 *db = pm_store_db(st);
        for (int i = 0; i < got; i++) {
            char sql[128];
            snprintf(sql, sizeof sql, "SELECT count(*) FROM step WHERE run_id = %lld", (long long)ids[i]);
            assert_int_equal(q_int(db, sql), DUR_STEPS);
        }
        assert_all_runs_intact(db);
        int64_t n_runs = q_int(db, "SELECT count(*) FROM run");
        assert_true(n_runs >= got);
        pm_store_close(st);
    }
}

static void concurrent_writers_lose_nothing(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    int64_t cfg;
    pm_err e = {0};
    open_with_config(f->path, &st, &cfg);
    pm_store_close(st);
    enum { WRITERS = 3, RUNS = 30 };
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0)
            child_record_loop(f->path, cfg, -1, RUNS);
    }
    for (int w = 0; w < WRITERS; w++) {
        int status;
        assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    int n = 0;
    assert_int_equal(pm_store_runs_done(st, cfg, "cold", &n, &e), PM_OK);
    assert_int_equal(n, WRITERS * RUNS);
    assert_all_runs_intact(pm_store_db(st));
    pm_store_close(st);
}

/* A version-3 database (before config parameters) opens: a reader sees the workload axes as parameters
 * without the file changing, a writer upgrades the file. */
static void old_database_is_migrated(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t cfg;
    open_with_config(f->path, &st, &cfg);
    pm_store_close(st);
    /* turn it into what passmap wrote before schema 4 */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, UNDO_V6 "DROP TABLE config_param; DROP TABLE startup; PRAGMA user_version = 3;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    db = pm_store_db(st);
    char buf[64];
    assert_string_equal(q_text(db, "SELECT value FROM config_param WHERE name = 'family'", buf, sizeof buf), "resnet");
    assert_string_equal(q_text(db, "SELECT value FROM config_param WHERE name = 'resolution'", buf, sizeof buf), "224");
    assert_string_equal(q_text(db, "SELECT value FROM config_param WHERE name = 'blocks'", buf, sizeof buf), "18");
    assert_int_equal(pm_store_schema_version(st), 3); /* the file's version */
    pm_store_close(st);
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(q_int(db, "PRAGMA user_version"), 3); /* reading left the file alone */
    sqlite3_close(db);

    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    db = pm_store_db(st);
    assert_int_equal(q_int(db, "PRAGMA user_version"), pm_store_schema_version(st));
    assert_true(pm_store_schema_version(st) >= 4);
    assert_int_equal(q_int(db, "SELECT count(*) FROM config_param"), 5);
    pm_store_close(st);
}

/* Schema 7: a schema-6 file is read as it is (no tool rows, no copy in memory: readers check), and a writer adds
 * the tool table, the config fingerprints and superseded_by; supersede moves whole configs or failed runs only. */
static void identity_from_v6(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t cfg, sweep_id;
    open_with_config(f->path, &st, &cfg);
    pm_store_close(st);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, UNDO_V7 "PRAGMA user_version = 6;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_schema_version(st), 6);
    pm_tool_ident *t = NULL;
    size_t n = 9;
    assert_int_equal(pm_store_read_tools(pm_store_db(st), 1, &t, &n, &e), PM_OK);
    assert_int_equal(n, 0);
    assert_false(pm_store_has_superseded(pm_store_db(st)));
    pm_store_close(st);

    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_true(pm_store_schema_version(st) >= PM_STORE_VERSION_IDENTITY);
    assert_int_equal(pm_store_sweep(st, "s", "embedded", NULL, NULL, &sweep_id, &e), PM_OK);
    pm_tool_ident tool = {.name = "llc", .path = "/usr/bin/llc", .version_text = "LLVM version 22", .hash = "xxh3-128:ab"};
    assert_int_equal(pm_store_record_tools(st, sweep_id, 0, &tool, 1, &e), PM_OK);
    assert_int_equal(pm_store_read_tools(pm_store_db(st), sweep_id, &t, &n, &e), PM_OK);
    assert_int_equal(n, 1);
    assert_string_equal(t[0].hash, "xxh3-128:ab");
    pm_tool_idents_free(t, n);
    /* one ok and one failed run: --retry-failed moves the failed one only, --force the whole config */
    pm_run_record ok_run = {.config_id = cfg, .repeat = 0, .mode = "cold", .status = "ok", .wall_s = 1};
    pm_run_record bad_run = {.config_id = cfg, .repeat = 1, .mode = "cold", .status = "failed", .wall_s = 1};
    assert_int_equal(pm_store_record_run(st, &ok_run, NULL, &e), PM_OK);
    assert_int_equal(pm_store_record_run(st, &bad_run, NULL, &e), PM_OK);
    char key[256], name[300];
    db = pm_store_db(st);
    q_text(db, "SELECT key FROM config WHERE id = (SELECT min(id) FROM config)", key, sizeof key);
    char sw[128];
    q_text(db, "SELECT w.name FROM sweep w JOIN config c ON c.sweep_id = w.id WHERE c.id = (SELECT min(id) FROM config)",
           sw, sizeof sw);
    const char *keys[] = {key};
    int moved = 0;
    assert_int_equal(pm_store_supersede(st, sw, keys, 1, 1, name, sizeof name, &moved, &e), PM_OK);
    assert_int_equal(moved, 1);
    assert_non_null(strstr(name, "~superseded-"));
    unsigned char have[4];
    int max_r;
    assert_int_equal(pm_store_repeats(st, cfg, "cold", have, 4, &max_r, &e), PM_OK);
    assert_true(have[0] && !have[1]);
    assert_int_equal(max_r, 0);
    assert_int_equal(pm_store_supersede(st, sw, keys, 1, 0, name, sizeof name, &moved, &e), PM_OK);
    assert_int_equal(moved, 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sweep WHERE superseded_by IS NOT NULL"), 2);
    pm_store_close(st);
}

/* Schema 5: start-up rows, once per sweep and machine; a schema-4 file gains the table when a writer opens it. */
static void startup_rows_once_per_sweep_and_host(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t cfg;
    open_with_config(f->path, &st, &cfg);
    pm_store_close(st);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, UNDO_V6 "DROP TABLE startup; PRAGMA user_version = 4;", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_true(pm_store_schema_version(st) >= PM_STORE_VERSION_STARTUP);
    pm_host h = {0};
    strcpy(h.name, "a");
    strcpy(h.fingerprint, "f1");
    int64_t host_a, host_b, sweep;
    assert_int_equal(pm_store_host(st, &h, &host_a, &e), PM_OK);
    strcpy(h.name, "b");
    assert_int_equal(pm_store_host(st, &h, &host_b, &e), PM_OK);
    assert_int_equal(pm_store_sweep(st, "s", "embedded", NULL, NULL, &sweep, &e), PM_OK);
    int done = 1;
    assert_int_equal(pm_store_startup_done(st, sweep, host_a, &done, &e), PM_OK);
    assert_false(done);
    pm_startup_row rows[] = {
        {.tool = "mlir-opt", .repeat = 0, .status = "ok", .argv = "mlir-opt empty.mlir", .wall_s = 0.04,
         .user_s = 0.03, .sys_s = 0.01},
        {.tool = "ld", .repeat = 0, .status = "not-measured", .wall_s = -1, .user_s = -1, .sys_s = -1,
         .note = "[step link] has no null_argv"},
    };
    assert_int_equal(pm_store_record_startup(st, sweep, host_a, rows, 2, &e), PM_OK);
    assert_int_equal(pm_store_startup_done(st, sweep, host_a, &done, &e), PM_OK);
    assert_true(done);
    assert_int_equal(pm_store_startup_done(st, sweep, host_b, &done, &e), PM_OK);
    assert_false(done);   /* another machine measures its own */
    db = pm_store_db(st);
    assert_int_equal(q_int(db, "SELECT count(*) FROM startup WHERE tool = 'ld' AND wall_s IS NULL"), 1);
    /* the same rows again: refused whole (one transaction), nothing doubled */
    assert_int_not_equal(pm_store_record_startup(st, sweep, host_a, rows, 2, &e), PM_OK);
    assert_int_equal(q_int(db, "SELECT count(*) FROM startup"), 2);
    pm_store_close(st);
}

static void config_params_are_stored(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t sw, id;
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_sweep(st, "s", "command", NULL, NULL, &sw, &e), PM_OK);
    pm_param p[] = {{"input", "a.c"}, {"opt", "2"}};
    pm_config c = {.key = "c/input=a.c/opt=2", .kind = "command", .params = p, .n_params = 2};
    assert_int_equal(pm_store_config(st, sw, &c, &id, &e), PM_OK);
    assert_int_equal(pm_store_config(st, sw, &c, &id, &e), PM_OK); /* get-or-create: no duplicate */
    char buf[64];
    assert_string_equal(q_text(pm_store_db(st), "SELECT group_concat(name || '=' || value, ' ') FROM config_param",
                               buf, sizeof buf), "input=a.c opt=2");
    pm_store_close(st);
}

/* A database of schema 1 (as passmap wrote it before hosts existed) is read as is and upgraded by a writer,
 * keeping its runs. */
static void schema_1_is_migrated(void **state)
{
    fixture *f = *state;
    make_version_1(f->path);
    pm_store *st = NULL;
    pm_err e = {0};
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_schema_version(st), 1);
    pm_store_close(st);
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    assert_true(pm_store_schema_version(st) >= PM_STORE_VERSION_HOSTS);
    sqlite3 *db = pm_store_db(st);
    assert_int_equal(q_int(db, "SELECT count(*) FROM run WHERE host_id IS NULL"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'run_config_mode'"), 0);
    pm_host h;
    int64_t host = 0, again = 0, run = 0;
    assert_int_equal(pm_host_probe(&h, &e), PM_OK);
    pm_host_set_compiler(&h, "test 1.0");
    assert_int_equal(pm_store_host(st, &h, &host, &e), PM_OK);
    assert_int_equal(pm_store_host(st, &h, &again, &e), PM_OK);
    assert_int_equal(host, again);
    pm_run_record rec = {.config_id = 1, .repeat = 1, .mode = "cold", .status = "ok", .wall_s = 1, .user_s = 1,
                         .sys_s = 0, .host_id = host};
    assert_int_equal(pm_store_record_run(st, &rec, &run, &e), PM_OK);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT host_id FROM run WHERE id = %lld", (long long)run);
    assert_int_equal(q_int(db, sql), host);
    pm_store_close(st);
}

/* A run of one mlir-opt step whose report is build_report(n_children). */
static void record_report_run(pm_store *st, int64_t cfg, int repeat, const pm_report *rep)
{
    pm_err e = {0};
    pm_run_result r0 = ok_result(1.5);
    pm_step_record steps[1] = {{.tool = "mlir-opt", .argv = "mlir-opt x.mlir", .result = &r0, .report = rep}};
    /* Each run its own wall: merge names a run by (sweep, config, mode, host, start time to the ms, status, wall),
     * and two runs recorded within one millisecond with equal walls would be one measurement to it (this test
     * records them that fast, which real runs, each a process, cannot). */
    pm_run_record rec = {.config_id = cfg, .repeat = repeat, .mode = "cold", .status = "ok",
                         .wall_s = 2.0 + 0.001 * repeat, .user_s = 1.8, .sys_s = 0.1, .steps = steps, .n_steps = 1};
    int64_t id = 0;
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_OK);
}

typedef struct pass_rows {
    char text[512];     /* "tool/name=wall;..." */
    int keyed;          /* rows that came with a key */
    int64_t key_of_pass1;
} pass_rows;

static int collect_pass(void *ctx, const pm_sq_pass_row *r)
{
    pass_rows *pr = ctx;
    size_t n = strlen(pr->text);
    snprintf(pr->text + n, sizeof pr->text - n, "%s/%s=%.3f;", r->tool, r->name, r->wall_s);
    pr->keyed += r->key >= 0;
    if (!strcmp(r->name, "pass-1"))
        pr->key_of_pass1 = r->key;
    return 0;
}

/* The report's pass scan on a bare connection, as `passmap report` reads a file of any version. */
static void scan_passes(const char *path, pass_rows *pr)
{
    sqlite3 *db = NULL;
    pm_err e = {0};
    pm_sq_sweeps sw;
    memset(pr, 0, sizeof *pr);
    pr->key_of_pass1 = -2;
    assert_int_equal(pm_store_open_db_readonly(path, &db, &e), PM_OK);
    assert_int_equal(pm_sq_sweeps_find(db, NULL, &sw, &e), PM_OK);
    assert_int_equal(pm_sq_scope_begin(db, &sw, &e), PM_OK);
    assert_int_equal(pm_sq_counted_passes(db, collect_pass, pr, &e), PM_OK);
    pm_sq_scope_end(db);
    pm_sq_sweeps_free(&sw);
    sqlite3_close(db);
}

/* Schema 6 interns pass names. A schema-5 file (names as text in every row) is read as it is, with no copy in
 * memory; a writer rebuilds its pass rows with ids, and the scan, the view and run loading give the same names. */
static void pass_names_interned_from_v5(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t cfg;
    open_with_config(f->path, &st, &cfg);
    pm_report rep;
    build_report(&rep, 3);
    record_report_run(st, cfg, 0, &rep);
    sqlite3 *db = pm_store_db(st);
    /* five names for five rows; the writer's cache gave the same id twice within one run */
    record_report_run(st, cfg, 1, &rep);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 5);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_time"), 10);
    assert_int_equal(q_int(db, "SELECT count(DISTINCT name_id) FROM pass_time"), 5);
    pm_store_close(st);
    pass_rows v6;
    scan_passes(f->path, &v6);
    assert_string_equal(v6.text, "mlir-opt/pass-0=0.010;mlir-opt/pass-1=0.020;mlir-opt/pass-2=0.030;"
                                 "mlir-opt/pass-0=0.010;mlir-opt/pass-1=0.020;mlir-opt/pass-2=0.030;");
    assert_int_equal(v6.keyed, 6);
    assert_true(v6.key_of_pass1 >= 0);

    /* what passmap wrote before schema 6 */
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, UNDO_V6 "PRAGMA user_version = 5;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    pass_rows v5;
    scan_passes(f->path, &v5);
    assert_string_equal(v5.text, v6.text);
    assert_int_equal(v5.keyed, 0);
    /* a reader: the file as it is, no copy (its pass rows still hold the names) */
    assert_int_equal(pm_store_open_readonly(f->path, &st, &e), PM_OK);
    assert_int_equal(pm_store_schema_version(st), 5);
    assert_int_equal(q_int(pm_store_db(st), "SELECT count(*) FROM sqlite_schema WHERE name = 'pass_name'"), 0);
    pm_store_close(st);
    sqlite3 *raw = NULL;
    pm_stored_run run;
    assert_int_equal(pm_store_open_sqlite_readonly(f->path, &raw, &e), PM_OK);
    assert_int_equal(pm_store_load_run(raw, 1, 1, &run, &e), PM_OK);
    assert_int_equal(run.n_steps, 1);
    assert_int_equal(run.steps[0].n_passes, 5);
    assert_string_equal(run.steps[0].passes[2].name, "pass-1");
    assert_string_equal(run.steps[0].passes[1].section, "sec");
    pm_stored_run_free(&run);
    sqlite3_close(raw);

    /* a writer upgrades it */
    assert_int_equal(pm_store_open(f->path, &st, &e), PM_OK);
    db = pm_store_db(st);
    assert_int_equal(q_int(db, "PRAGMA user_version"), pm_store_schema_version(st));
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('pass_time') WHERE name = 'name'"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 5);
    char buf[128];
    assert_string_equal(q_text(db, "SELECT group_concat(pass, ',') FROM (SELECT pass FROM v_pass WHERE repeat = 1 "
                                   "ORDER BY pass_idx)", buf, sizeof buf),
                        "func.func,pass-0,pass-1,pass-2,Total");
    /* a new name after the upgrade gets the next id; a known one keeps its id */
    pm_report rep4;
    build_report(&rep4, 4);
    record_report_run(st, cfg, 2, &rep4);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 6);
    assert_int_equal(q_int(db, "SELECT count(DISTINCT name_id) FROM pass_time WHERE idx = 2"), 1);
    pm_store_close(st);
    pm_report_free(&rep4);
    assert_int_equal(pm_store_open_sqlite_readonly(f->path, &raw, &e), PM_OK);
    assert_int_equal(pm_store_load_run(raw, 3, 1, &run, &e), PM_OK);
    assert_string_equal(run.steps[0].passes[4].name, "pass-3");
    assert_string_equal(run.steps[0].passes[5].name, "Total");
    pm_stored_run_free(&run);
    sqlite3_close(raw);
    pass_rows after;
    scan_passes(f->path, &after);
    assert_int_equal(after.keyed, 10);
    pm_report_free(&rep);
}

/* A rolled-back run forgets the names it inserted: the writer's cache must not hand out their ids. */
static void rolled_back_pass_names_are_forgotten(void **state)
{
    fixture *f = *state;
    pm_store *st = NULL;
    pm_err e = {0};
    int64_t cfg, id = 0;
    open_with_config(f->path, &st, &cfg);
    sqlite3 *db = pm_store_db(st);
    assert_int_equal(sqlite3_exec(db, "CREATE TEMP TRIGGER boom BEFORE INSERT ON step WHEN NEW.seq = 1 "
                                      "BEGIN SELECT RAISE(ABORT, 'boom'); END", NULL, NULL, NULL), SQLITE_OK);
    pm_report rep;
    build_report(&rep, 2);
    pm_run_result r = ok_result(0.1);
    pm_step_record steps[2] = {{.tool = "a", .result = &r, .report = &rep}, {.tool = "b", .result = &r}};
    pm_run_record rec = {.config_id = cfg, .mode = "cold", .status = "ok", .steps = steps, .n_steps = 2};
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_ERR_DB);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 0);
    rec.n_steps = 1;
    assert_int_equal(pm_store_record_run(st, &rec, &id, &e), PM_OK);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 4);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_time p JOIN pass_name n ON n.id = p.name_id"), 4);
    pm_report_free(&rep);
    pm_store_close(st);
}

/* Pass-name ids are per file: merging maps them by name. Two stores that met their names in different orders
 * give the same passes, and merging again adds nothing. */
static void merge_maps_pass_name_ids(void **state)
{
    fixture *f = *state;
    pm_store *a = NULL, *b = NULL;
    pm_err e = {0};
    int64_t cfg_a, cfg_b;
    char path_b[128];
    snprintf(path_b, sizeof path_b, "%s/b.sqlite", f->dir);
    open_with_config(f->path, &a, &cfg_a);
    open_with_config(path_b, &b, &cfg_b);
    pm_report small, big;
    build_report(&small, 1);
    build_report(&big, 3);
    /* a: func.func, pass-0, Total, then pass-1, pass-2; b: a name a never has first, then big's in its order */
    record_report_run(a, cfg_a, 0, &small);
    record_report_run(a, cfg_a, 1, &big);
    pm_report other;
    pm_report_init(&other);
    other.format = PM_FMT_MLIR_TEXT;
    pm_pass z = {.name = "only-in-b", .wall_s = 0.5, .user_s = -1, .depth = 0, .parent = -1};
    assert_int_equal(pm_report_add_pass(&other, &z), PM_OK);
    pm_pass p2 = {.name = "pass-2", .wall_s = 0.25, .user_s = -1, .depth = 0, .parent = -1};
    assert_int_equal(pm_report_add_pass(&other, &p2), PM_OK);
    record_report_run(b, cfg_b, 5, &other);
    record_report_run(b, cfg_b, 6, &big);
    char buf[256];
    /* the same name has another id in each file (else the test could not tell a mapping from a copy) */
    assert_int_not_equal(q_int(pm_store_db(a), "SELECT id FROM pass_name WHERE name = 'pass-2'"),
                         q_int(pm_store_db(b), "SELECT id FROM pass_name WHERE name = 'pass-2'"));
    pm_store_close(b);
    pm_merge_result res;
    assert_int_equal(pm_store_merge(a, path_b, 0, &res, &e), PM_OK);
    assert_int_equal(res.runs_merged, 2);
    sqlite3 *db = pm_store_db(a);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 6);
    assert_string_equal(q_text(db, "SELECT group_concat(pass, ',') FROM (SELECT pass FROM v_pass WHERE repeat = 5 "
                                   "ORDER BY pass_idx)", buf, sizeof buf),
                        "only-in-b,pass-2");
    assert_string_equal(q_text(db, "SELECT group_concat(pass, ',') FROM (SELECT pass FROM v_pass WHERE repeat = 6 "
                                   "ORDER BY pass_idx)", buf, sizeof buf),
                        "func.func,pass-0,pass-1,pass-2,Total");
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_time"), 5 + 3 + 2 + 5);
    /* again: every run a duplicate, nothing written */
    assert_int_equal(pm_store_merge(a, path_b, 0, &res, &e), PM_OK);
    assert_int_equal(res.runs_merged, 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_name"), 6);
    assert_int_equal(q_int(db, "SELECT count(*) FROM pass_time"), 15);
    pm_store_close(a);
    pm_report_free(&small);
    pm_report_free(&big);
    pm_report_free(&other);
    unlink(path_b);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path_b);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path_b);
    unlink(wal);
}

/* The machine fingerprint changes with the compiler build, not with the host name. */
static void host_fingerprint(void **state)
{
    (void)state;
    pm_host a, b;
    pm_err e = {0};
    assert_int_equal(pm_host_probe(&a, &e), PM_OK);
    assert_true(a.cores > 0);
    assert_true(a.cpu_model[0] && a.kernel[0] && a.name[0]);
    b = a;
    snprintf(b.name, sizeof b.name, "elsewhere");
    pm_host_fingerprint(&b);
    assert_string_equal(a.fingerprint, b.fingerprint);
    pm_host_set_compiler(&b, "LLVM 23");
    assert_string_not_equal(a.fingerprint, b.fingerprint);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(old_database_is_migrated, setup, teardown),
        cmocka_unit_test_setup_teardown(pass_names_interned_from_v5, setup, teardown),
        cmocka_unit_test_setup_teardown(rolled_back_pass_names_are_forgotten, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_maps_pass_name_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(config_params_are_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(startup_rows_once_per_sweep_and_host, setup, teardown),
        cmocka_unit_test_setup_teardown(schema_is_created, setup, teardown),
        cmocka_unit_test_setup_teardown(sweep_and_config_get_or_create, setup, teardown),
        cmocka_unit_test_setup_teardown(run_round_trip_keeps_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_done_counts_per_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_record_rolls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(readonly_open, setup, teardown),
        cmocka_unit_test_setup_teardown(meta_set_get, setup, teardown),
        cmocka_unit_test_setup_teardown(version_1_database_is_migrated, setup, teardown),
        cmocka_unit_test_setup_teardown(schema_1_is_migrated, setup, teardown),
        cmocka_unit_test(host_fingerprint),
        cmocka_unit_test_setup_teardown(newer_or_foreign_schema_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(killed_writer_keeps_finished_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_writers_lose_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(identity_from_v6, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
