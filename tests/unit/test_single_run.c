/* One measured command recorded with its report (lib/sweep/single_run.h, what `passmap run --db` stores): a real
 * /bin/sh child printing an MLIR timing report on stderr, into a store in a scratch folder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "single_run.h"
#include "util.h"

typedef struct fixture {
    char dir[128];
    char db[192];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/pm-single.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->db, sizeof f->db, "%s/r.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pm_util_remove_tree(f->dir);
    free(f);
    return 0;
}

/* The first column of the first row as text ("<null>", "<no row>"). */
static const char *q_text(const char *db_path, const char *sql, char *buf, size_t size)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    snprintf(buf, size, "<no row>");
    assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        snprintf(buf, size, "%s", t ? (const char *)t : "<null>");
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return buf;
}

/* mlir-opt's -mlir-timing report, as a shell prints it on stderr */
#define REPORT_SH                                                                            \
    "printf '%s\\n' "                                                                        \
    "'===-------------------------------------------------------------------------===' "     \
    "'                         ... Execution time report ...' "                              \
    "'===-------------------------------------------------------------------------===' "     \
    "'  Total Execution Time: 0.0100 seconds' '' '  ----Wall Time----  ----Name----' "        \
    "'    0.0060 ( 60.0%)  Canonicalizer' '    0.0030 ( 30.0%)  CSE' "                        \
    "'    0.0010 ( 10.0%)  Parser' '    0.0100 (100.0%)  Total' >&2"

/* Runs cmd once with its stderr kept in FILE.index (as passmap run keeps it) and records it. */
static void run_and_record(pm_single_run *sr, char *const cmd[], int index)
{
    char err_path[4200];
    snprintf(err_path, sizeof err_path, "%s.%d", sr->stderr_base, index + 1);
    pm_run_opts o = {.stderr_path = err_path, .timeout_s = 60};
    pm_run_result r;
    pm_err e = {0};
    assert_int_equal(pm_run_exec((const char *const *)cmd, &o, &r, &e), PM_OK);
    assert_int_equal(r.status, PM_RUN_OK);
    if (pm_single_run_record(sr, &r, index, NULL, err_path, &e) != PM_OK)
        fail_msg("%s", e.msg);
}

/* Process stats and pass times in the same runs; the key's axes as parameters, a value with '/' whole (it was
 * cut at its '/' and the rest dropped); a rerun continues the repeats; the private stream folder goes. */
static void records_stats_and_passes_of_each_run(void **state)
{
    fixture *f = *state;
    char *cmd[] = {"/bin/sh", "-c", REPORT_SH, NULL};
    pm_single_run_opts o = {.db = f->db, .key = "c/input=sub/a.c/opt=2"};
    pm_single_run sr;
    pm_err e = {0};
    if (pm_single_run_open(&sr, &o, cmd, &e) != PM_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(sr.first_repeat, 0);
    /* the report is on stderr and the caller keeps none: a private folder for it, none for stdout */
    assert_non_null(sr.stderr_base);
    assert_null(sr.stdout_base);
    char tmpdir[4096];
    snprintf(tmpdir, sizeof tmpdir, "%s", sr.tmpdir);
    run_and_record(&sr, cmd, 0);
    run_and_record(&sr, cmd, 1);
    pm_single_run_close(&sr);
    assert_int_not_equal(access(tmpdir, F_OK), 0);

    char b[256];
    assert_string_equal(q_text(f->db, "select group_concat(repeat || ':' || status || ':' || (wall_s > 0) "
                                      "|| ':' || (maxrss_kb > 0), ' ') from (select * from run order by repeat)",
                               b, sizeof b),
                        "0:ok:1:1 1:ok:1:1");
    assert_string_equal(q_text(f->db, "select count(*) from run where note is not null", b, sizeof b), "0");
    assert_string_equal(q_text(f->db, "select group_concat(distinct tool) from step", b, sizeof b), "sh");
    assert_string_equal(q_text(f->db, "select count(distinct run_id) from v_pass where pass = 'CSE' and wall_s = 0.003",
                               b, sizeof b),
                        "2");
    assert_string_equal(q_text(f->db, "select group_concat(name || '=' || value, ' ') from "
                                      "(select * from config_param order by name)",
                               b, sizeof b),
                        "input=sub/a.c opt=2");
    assert_string_equal(q_text(f->db, "select s.name || '/' || c.key || '/' || c.kind from sweep s "
                                      "join config c on c.sweep_id = s.id",
                               b, sizeof b),
                        "runs/c/input=sub/a.c/opt=2/command");

    /* a rerun of the config continues its repeats */
    if (pm_single_run_open(&sr, &o, cmd, &e) != PM_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(sr.first_repeat, 2);
    pm_single_run_close(&sr);
}

/* A report file that never appears makes the run failed, saying so; the caller's --tool is the label. */
static void missing_report_file_fails_the_run(void **state)
{
    fixture *f = *state;
    char report[300];
    snprintf(report, sizeof report, "%s/none.txt", f->dir);
    char *cmd[] = {"/bin/sh", "-c", "true", NULL};
    pm_single_run_opts o = {.db = f->db, .key = "k", .sweep = "s", .report = report, .tool = "mytool"};
    pm_single_run sr;
    pm_err e = {0};
    assert_int_equal(pm_single_run_open(&sr, &o, cmd, &e), PM_OK);
    assert_null(sr.tmpdir);   /* the report is a file: no stream is kept for it */
    pm_run_result r;
    assert_int_equal(pm_run_exec((const char *const *)cmd, &(pm_run_opts){.timeout_s = 60}, &r, &e), PM_OK);
    assert_int_equal(pm_single_run_record(&sr, &r, 0, NULL, NULL, &e), PM_OK);
    pm_single_run_close(&sr);
    char b[600], want[600];
    snprintf(want, sizeof want, "failed|report %s never appeared|mytool", report);
    assert_string_equal(q_text(f->db, "select r.status || '|' || r.note || '|' || s.tool from run r "
                                      "join step s on s.run_id = r.id",
                               b, sizeof b),
                        want);
    assert_string_equal(q_text(f->db, "select count(*) from config_param", b, sizeof b), "0");
}

/* A key part with no name or an axis named twice was dropped without a word: now a usage error, before any
 * database is made. */
static void bad_key_is_refused_before_the_store(void **state)
{
    fixture *f = *state;
    char *cmd[] = {"/bin/true", NULL};
    const char *keys[] = {"c/=2/opt=1", "c/opt=1/opt=2"};
    for (int i = 0; i < 2; i++) {
        pm_single_run_opts o = {.db = f->db, .key = keys[i]};
        pm_single_run sr;
        pm_err e = {0};
        assert_int_equal(pm_single_run_open(&sr, &o, cmd, &e), PM_ERR_USAGE);
        assert_non_null(strstr(e.msg, keys[i]));
        assert_null(sr.st);
        assert_int_not_equal(access(f->db, F_OK), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(records_stats_and_passes_of_each_run, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_report_file_fails_the_run, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_key_is_refused_before_the_store, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
