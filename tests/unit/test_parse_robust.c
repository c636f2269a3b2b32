/* Parser behaviour on hostile or unusual input: files that hold no report, every clang -ftime-report title
 * variant, out-of-range numbers, nesting deeper than any fixed stack, and inputs that are not regular files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse_fixture.h"
#include "util.h"

#define EPS 1e-9

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/pm-parse-robust.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    pm_util_remove_tree(tmpdir);
    return 0;
}

static const char *write_tmp(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static double counted_wall(const pm_report *r)
{
    return pm_report_pass_wall(r);
}

/* A file without any report was a 0-pass success; now it names the formats it tried. */
static void file_without_report_is_an_error(void **state)
{
    const char *inputs[] = {"", "hello world\n", "[1, 2, 3]\n", "{\"a\": 1}\n"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        const char *path = write_tmp("none.txt", inputs[i]);
        pm_report r;
        pm_report_init(&r);
        pm_err e = {0};
        int rc = pm_parse_file(path, PM_FMT_AUTO, &r, &e);
        assert_int_not_equal(rc, PM_OK);
        if (i < 2) { /* the JSON ones fail inside a JSON parser: also an error, with its own message */
            assert_int_equal(rc, PM_ERR_NOTFOUND);
            assert_non_null(strstr(e.msg, "no timing report in"));
            assert_non_null(strstr(e.msg, "formats tried: mlir-text"));
            assert_non_null(strstr(e.msg, "npu-log"));
        }
        pm_report_free(&r);
    }
    /* an explicit format names only itself */
    const char *path = write_tmp("none.txt", "nothing\n");
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_file(path, PM_FMT_LLVM_TEXT, &r, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "formats tried: llvm-text"));
    assert_null(strstr(e.msg, "mlir-text"));
    pm_report_free(&r);
}

/* clang 14 (LLVM <= 15) titles the pass report "... Pass execution timing report ...": it parsed as 0 counted
 * passes. The two pass reports (optimizer, then codegen) are counted; the front-end timer is not. */
static void clang14_ftime_report_counts_its_passes(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/clang14-ftime-report.txt"), PM_FMT_AUTO, &r);
    assert_int_equal(r.format, PM_FMT_LLVM_TEXT);
    assert_true(counted_rows(&r) > 50);
    /* the whole compile (the front-end timer), not the two pass reports summed (0.1201 + 0.0129 > 0.1028) */
    assert_true(fabs(r.total_wall_s - 0.1028) < EPS);
    assert_true(pm_report_pass_wall(&r) <= 0.1028 + EPS);
    int simplify = find_pass(&r, "SimplifyCFGPass", 0);
    assert_true(simplify >= 0);
    assert_string_equal(r.passes[simplify].section, "Pass execution timing report");
    assert_int_equal(r.passes[simplify].flags, 0);
    int isel = find_pass(&r, "X86 DAG->DAG Instruction Selection", 0);
    assert_true(isel >= 0);
    assert_int_equal(r.passes[isel].flags, 0);
    int fe = find_pass(&r, "Clang front-end timer", 0);
    assert_true(fe >= 0);
    assert_int_equal(r.passes[fe].flags, PM_PASS_DETAIL);
    int cg = find_pass(&r, "Code Generation Time", 0);
    assert_true(cg >= 0);
    assert_int_equal(r.passes[cg].flags, PM_PASS_DETAIL);
    int irgen = find_pass(&r, "LLVM IR Generation Time", 0), front = find_pass(&r, "clang: Front end (outside passes)", 0);
    assert_true(irgen >= 0 && front >= 0);
    assert_int_equal(r.passes[irgen].flags, 0);
    assert_true(fabs(r.passes[front].wall_s - (0.1028 - 0.0811 - 0.0058)) < EPS);
    pm_report_free(&r);
}

/* clang >= 20: "Clang time report" phases; front end and IR generation are outside every pass timer. */
static void clang22_ftime_report_counts_front_end(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/clang22-ftime-report.txt"), PM_FMT_AUTO, &r);
    int fe = find_pass(&r, "Front end", 0), irgen = find_pass(&r, "LLVM IR generation", 0);
    int opt = find_pass(&r, "Optimizer", 0), mc = find_pass(&r, "Machine code generation", 0);
    assert_true(fe >= 0 && irgen >= 0 && opt >= 0 && mc >= 0);
    assert_int_equal(r.passes[fe].flags, 0);
    assert_int_equal(r.passes[irgen].flags, 0);
    assert_int_equal(r.passes[opt].flags, PM_PASS_DETAIL);
    assert_int_equal(r.passes[mc].flags, PM_PASS_DETAIL);
    /* clang's phase total; the passes plus each phase's time outside them add up to it */
    assert_true(fabs(r.total_wall_s - 0.0398) < EPS);
    assert_true(fabs(pm_report_pass_wall(&r) - 0.0398) < 0.00005 * (double)counted_rows(&r));
    assert_true(find_pass(&r, "clang: Machine code generation (outside passes)", 0) >= 0);
    assert_true(counted_rows(&r) > 50);
    pm_report_free(&r);
}

/* Timer rows with a memory column (-track-memory prints "---Mem---", possibly negative) still parse. */
static void mem_column_and_bad_numbers(void **state)
{
    const char *txt = "===-------------------------------------------------------------------------===\n"
                      "                      ... Pass execution timing report ...\n"
                      "===-------------------------------------------------------------------------===\n"
                      "  Total Execution Time: 0.0030 seconds (0.0030 wall clock)\n\n"
                      "   ---User Time---   ---Wall Time---  ---Mem---  --- Name ---\n"
                      "   0.0020 ( 66.7%)   0.0020 ( 66.7%)      -4096  Pass A\n"
                      "   0.0010 ( 33.3%)   0.0010 ( 33.3%)       8192  Pass B\n"
                      "   0.0010 ( 33.3%)   1e999 ( 33.3%)       8192  Infinite Pass\n"
                      "   0.0030 (100.0%)   0.0030 (100.0%)       4096  Total\n";
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(txt, strlen(txt), PM_FMT_AUTO, &r, &e), PM_OK);
    assert_true(find_pass(&r, "Pass A", 0) >= 0);
    assert_true(find_pass(&r, "Pass B", 0) >= 0);
    assert_int_equal(find_pass(&r, "Infinite Pass", 0), -1);
    assert_true(fabs(counted_wall(&r) - 0.0030) < EPS);
    pm_report_free(&r);
}

/* "tid": 1e84 was converted to long long: undefined behaviour. Ids must be integers within ±2^53. */
static void chrome_ids_and_times_are_range_checked(void **state)
{
    const char *bad[] = {
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":1e84}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":5,\"pid\":-1e300,\"tid\":1}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":\"99999999999999999999\"}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":0.5}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e300,\"dur\":5,\"pid\":1,\"tid\":1}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1e300,\"pid\":1,\"tid\":1}]}",
        "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"a\",\"ts\":0,\"pid\":1,\"tid\":1e84},"
        "{\"ph\":\"E\",\"ts\":5,\"pid\":1,\"tid\":1}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_report r;
        pm_report_init(&r);
        pm_err e = {0};
        assert_int_equal(pm_parse_buffer(bad[i], strlen(bad[i]), PM_FMT_CHROME_TRACE, &r, &e), PM_ERR_PARSE);
        assert_true(strstr(e.msg, "out of range") || strstr(e.msg, "within"));
        pm_report_free(&r);
    }
    /* whole reals and decimal strings are fine ids */
    const char *okj = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":5,\"pid\":1.0,\"tid\":\"7\"}]}";
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(okj, strlen(okj), PM_FMT_CHROME_TRACE, &r, &e), PM_OK);
    assert_int_equal(r.n_passes, 1);
    pm_report_free(&r);
}

/* 300 nested spans (the stack held 256): the counted rows still add up to the root, once. */
static void chrome_deep_nesting_counts_once(void **state)
{
    enum { DEPTH = 300 };
    size_t cap = 100 * DEPTH + 64, n = 0;
    char *txt = malloc(cap);
    n += (size_t)snprintf(txt + n, cap - n, "{\"traceEvents\":[");
    for (int d = 0; d < DEPTH; d++)
        n += (size_t)snprintf(txt + n, cap - n, "%s{\"ph\":\"X\",\"name\":\"s%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":1}",
                              d ? "," : "", d, d, 2 * (DEPTH - d));
    n += (size_t)snprintf(txt + n, cap - n, "]}");
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(txt, n, PM_FMT_CHROME_TRACE, &r, &e), PM_OK);
    assert_true(fabs(counted_wall(&r) - 2.0 * DEPTH / 1e6) < 1e-12);
    int leaf = find_pass(&r, "s299", 0);
    assert_int_equal(r.passes[leaf].depth, DEPTH - 1);
    pm_report_free(&r);
    free(txt);
}

/* 100 nested MLIR timers (the stack held 63 levels): depth and counting stay right. */
static void mlir_deep_nesting_counts_once(void **state)
{
    enum { DEPTH = 100 };
    size_t cap = (size_t)DEPTH * (2 * DEPTH + 64) + 1024, n = 0;
    char *txt = malloc(cap);
    n += (size_t)snprintf(txt + n, cap - n,
                          "===-------------------------------------------------------------------------===\n"
                          "                         ... Execution time report ...\n"
                          "===-------------------------------------------------------------------------===\n"
                          "  Total Execution Time: 1.0000 seconds\n\n"
                          "  ----Wall Time----  ----Name----\n");
    for (int d = 0; d < DEPTH; d++)
        n += (size_t)snprintf(txt + n, cap - n, "    1.0000 (100.0%%)  %*sp%d\n", 2 * d, "", d);
    n += (size_t)snprintf(txt + n, cap - n, "    1.0000 (100.0%%)  Total\n");
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(txt, n, PM_FMT_MLIR_TEXT, &r, &e), PM_OK);
    assert_int_equal(counted_rows(&r), 1); /* only the innermost timer is a leaf */
    assert_true(fabs(counted_wall(&r) - 1.0) < EPS);
    int leaf = find_pass(&r, "p99", 0);
    assert_true(leaf >= 0);
    assert_int_equal(r.passes[leaf].depth, DEPTH - 1);
    assert_int_equal(r.passes[leaf].parent, find_pass(&r, "p98", 0));
    pm_report_free(&r);
    free(txt);
}

/* MLIR JSON durations: finite and in range, else a parse error. */
static void mlir_json_durations_are_range_checked(void **state)
{
    const char *bad = "[{\"wall\":{\"duration\":-1},\"name\":\"p\"}]";
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(bad, strlen(bad), PM_FMT_MLIR_JSON, &r, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "out of range"));
    pm_report_free(&r);
}

/* /dev/zero grew memory forever and a FIFO blocked forever: only regular files are read, up to a cap. */
static void only_regular_files_within_the_cap(void **state)
{
    pm_report r;
    pm_report_init(&r);
    pm_err e = {0};
    assert_int_equal(pm_parse_file("/dev/zero", PM_FMT_AUTO, &r, &e), PM_ERR_IO);
    assert_non_null(strstr(e.msg, "not a regular file"));
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(pm_parse_file(fifo, PM_FMT_AUTO, &r, &e), PM_ERR_IO);
    assert_non_null(strstr(e.msg, "not a regular file"));
    assert_int_equal(pm_parse_file(tmpdir, PM_FMT_AUTO, &r, &e), PM_ERR_IO);

    const char *path = write_tmp("big.txt", "0123456789abcdef");
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(pm_util_read_file_max(path, 15, &buf, &len, &e), PM_ERR_IO);
    assert_non_null(strstr(e.msg, "15-byte limit"));
    assert_null(buf);
    assert_int_equal(pm_util_read_file_max(path, 16, &buf, &len, &e), PM_OK);
    assert_int_equal(len, 16);
    free(buf);
    pm_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_without_report_is_an_error),
        cmocka_unit_test(clang14_ftime_report_counts_its_passes),
        cmocka_unit_test(clang22_ftime_report_counts_front_end),
        cmocka_unit_test(mem_column_and_bad_numbers),
        cmocka_unit_test(chrome_ids_and_times_are_range_checked),
        cmocka_unit_test(chrome_deep_nesting_counts_once),
        cmocka_unit_test(mlir_deep_nesting_counts_once),
        cmocka_unit_test(mlir_json_durations_are_range_checked),
        cmocka_unit_test(only_regular_files_within_the_cap),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
