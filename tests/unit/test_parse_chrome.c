/* Chrome trace parser on real clang-14 -ftime-trace and llc-22 --time-trace output, plus format sniffing of
 * every fixture. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <unistd.h>

#include "parse_fixture.h"

#define EPS 1e-9

static void clang_trace(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("chrome/clang14-ftime-trace.json"), PM_FMT_AUTO, &r);
    assert_int_equal(r.format, PM_FMT_CHROME_TRACE);
    assert_int_equal(r.n_reports, 1);
    /* 1031 "X" events (the 2 "M" metadata events are skipped) + 86 "(self)" rows, one per span with children */
    assert_int_equal(r.n_passes, 1117);
    assert_true(fabs(r.total_wall_s - 0.085321) < EPS); /* ExecuteCompiler, the root span */
    int root = find_pass(&r, "ExecuteCompiler", 0);
    assert_true(root >= 0);
    assert_int_equal(r.passes[root].depth, 0);
    assert_int_equal(r.passes[root].parent, -1);
    assert_int_equal(r.passes[root].flags, PM_PASS_GROUP);
    int fe = find_pass(&r, "Total Frontend", 0);
    assert_int_equal(r.passes[fe].flags, PM_PASS_SUMMARY);
    assert_true(fabs(r.passes[fe].wall_s - 0.026534) < EPS);
    /* detail is appended to the name; ISel of the first function is a leaf under CodeGen passes */
    int isel = find_pass(&r, "RunPass: X86 DAG->DAG Instruction Selection", 0);
    assert_true(isel >= 0);
    assert_true(fabs(r.passes[isel].wall_s - 0.005576) < EPS);
    assert_int_equal(r.passes[isel].flags, 0);
    assert_true(r.passes[isel].depth >= 2);
    int p = r.passes[isel].parent;
    assert_true(p >= 0 && (r.passes[p].flags & PM_PASS_GROUP));
    /* nesting is by time containment */
    for (size_t i = 0; i < r.n_passes; i++) {
        if (r.passes[i].parent < 0)
            continue;
        assert_true(r.passes[i].wall_s <= r.passes[r.passes[i].parent].wall_s + EPS);
        assert_int_equal(r.passes[i].depth, r.passes[r.passes[i].parent].depth + 1);
    }
    /* one thread, one root: leaves plus self rows add up to the root span */
    assert_true(fabs(pm_report_pass_wall(&r) - r.total_wall_s) < 1e-6);
    int fself = find_pass(&r, "Frontend (self)", 0);
    int front = find_pass(&r, "Frontend", 0);
    assert_int_equal(r.passes[fself].parent, front);
    assert_int_equal(r.passes[fself].flags, 0);
    assert_int_equal(r.passes[front].flags, PM_PASS_GROUP);
    assert_true(r.passes[fself].wall_s > 0.001 && r.passes[fself].wall_s < r.passes[front].wall_s);
    /* the function a pass ran on is the row's section, not its name: rows aggregate by pass; no directories */
    int ic = find_pass(&r, "InstCombinePass", 0);
    assert_true(ic >= 0);
    assert_non_null(r.passes[ic].section);
    for (size_t i = 0; i < r.n_passes; i++) {
        assert_true(!strchr(r.passes[i].name, '/') || !strncmp(r.passes[i].name, "RunPass: ", 9)); /* "load/store" */
        assert_true(!strstr(r.passes[i].name, ": ") || !strncmp(r.passes[i].name, "RunPass: ", 9) ||
                    !strncmp(r.passes[i].name, "RunLoopPass: ", 13));
        assert_true(!r.passes[i].section || !strchr(r.passes[i].section, '/'));
    }
    pm_report_free(&r);
}

/* clang drops spans under -ftime-trace-granularity; its "Total NAME" event is exact: the missing time moves from
 * the pass manager's self row into a row named after the pass, and the counted rows still add up to the root. */
static void total_events_fill_granularity(void **state)
{
    const char *t = "{\"traceEvents\":["
                    "{\"ph\":\"X\",\"name\":\"ExecuteCompiler\",\"ts\":0,\"dur\":10000,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"Optimizer\",\"ts\":100,\"dur\":9000,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"PassManager<Function>\",\"ts\":200,\"dur\":8000,\"pid\":1,\"tid\":1,"
                    "\"args\":{\"detail\":\"/home/u/src/f.c\"}},"
                    "{\"ph\":\"X\",\"name\":\"InstCombinePass\",\"ts\":300,\"dur\":1000,\"pid\":1,\"tid\":1,"
                    "\"args\":{\"detail\":\"foo\"}},"
                    "{\"ph\":\"X\",\"name\":\"Total InstCombinePass\",\"ts\":0,\"dur\":5000,\"pid\":1,\"tid\":2}"
                    "]}";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(t, strlen(t), PM_FMT_CHROME_TRACE, &r, &e), PM_OK);
    double ic = 0, pm_self = -1;
    for (size_t i = 0; i < r.n_passes; i++) {
        if (!strcmp(r.passes[i].name, "InstCombinePass") && pm_pass_counted(&r.passes[i]))
            ic += r.passes[i].wall_s;
        if (!strcmp(r.passes[i].name, "PassManager<Function> (self)"))
            pm_self = r.passes[i].wall_s;
    }
    assert_true(fabs(ic - 0.005) < 1e-9);          /* clang's exact total, not the 1 ms recorded */
    /* the 4 ms leave the pass managers' self rows (Optimizer 1 ms, PassManager 7 ms) in proportion */
    assert_true(fabs(pm_self - 0.0035) < 1e-9);
    assert_true(fabs(pm_report_pass_wall(&r) - 0.010) < 1e-9);
    int pmf = find_pass(&r, "PassManager<Function>", 0);
    assert_string_equal(r.passes[pmf].section, "f.c");
    pm_report_free(&r);
}

static void llc_trace(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("chrome/llc-time-trace.json"), PM_FMT_CHROME_TRACE, &r);
    assert_int_equal(r.n_passes, 917); /* 880 "X" events + 37 "(self)" rows */
    assert_true(fabs(r.total_wall_s - 0.069075) < EPS);
    int isel = find_pass(&r, "RunPass: X86 DAG->DAG Instruction Selection", 0);
    assert_true(fabs(r.passes[isel].wall_s - 0.012546) < EPS);
    assert_int_equal(r.passes[find_pass(&r, "Total OptModule", 0)].flags, PM_PASS_SUMMARY);
    /* several top-level spans with untraced gaps between them (IR parsing is not traced) */
    assert_true(fabs(pm_report_pass_wall(&r) - 0.063354) < 1e-6);
    assert_true(pm_report_pass_wall(&r) <= r.total_wall_s);
    pm_report_free(&r);
}

/* One stray event far from the compile (a bogus clock) once made the total the extent of every event: a 1 s
 * compile read 1,700,000.9 s. The total is the root span's duration; a negative ts is refused. */
static void total_is_the_root_span(void **state)
{
    const char *t = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ExecuteCompiler\",\"ts\":10,\"dur\":1000000,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"Frontend\",\"ts\":20,\"dur\":600000,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"stray\",\"ts\":1700000000000,\"dur\":900000,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"other thread\",\"ts\":5000,\"dur\":20000,\"pid\":1,\"tid\":2}]}";
    pm_report r;
    pm_err e = {0};
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(t, strlen(t), PM_FMT_CHROME_TRACE, &r, &e), PM_OK);
    assert_true(fabs(r.total_wall_s - 1.0) < EPS);
    assert_true(find_pass(&r, "stray", 0) >= 0);   /* still a row: nothing is dropped */
    assert_int_equal(r.n_skipped, 0);
    pm_report_free(&r);
    /* span events that cannot be read are counted and the first named, never dropped silently */
    const char *bad = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1000},{\"ph\":\"X\",\"name\":\"b\",\"ts\":5},"
                      "{\"ph\":\"E\",\"ts\":9,\"pid\":1,\"tid\":1},{\"ph\":\"M\",\"name\":\"process_name\"}]";
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(bad, strlen(bad), PM_FMT_CHROME_TRACE, &r, &e), PM_OK);
    assert_int_equal(r.n_skipped, 2);
    assert_non_null(strstr(r.skipped_first, "without a numeric dur at byte 41"));
    pm_report_free(&r);
    const char *neg = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1000},"
                      "{\"ph\":\"X\",\"name\":\"b\",\"ts\":-1700000000000,\"dur\":1}]";
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(neg, strlen(neg), PM_FMT_CHROME_TRACE, &r, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "negative ts"));
    pm_report_free(&r);
}

/* The same events as "B"/"E" pairs in a bare array give the same spans. */
static void begin_end_pairs(void **state)
{
    json_error_t je;
    json_t *root = json_load_file(FIXTURE("chrome/llc-time-trace.json"), 0, &je);
    assert_non_null(root);
    json_t *out = json_array(), *ev;
    size_t i;
    json_array_foreach(json_object_get(root, "traceEvents"), i, ev) {
        if (strcmp(json_string_value(json_object_get(ev, "ph")), "X") != 0)
            continue;
        json_int_t ts = json_integer_value(json_object_get(ev, "ts"));
        json_int_t dur = json_integer_value(json_object_get(ev, "dur"));
        json_t *b = json_deep_copy(ev), *e = json_object();
        json_object_del(b, "dur");
        json_object_set_new(b, "ph", json_string("B"));
        json_object_set(e, "pid", json_object_get(ev, "pid"));
        json_object_set(e, "tid", json_object_get(ev, "tid"));
        json_object_set_new(e, "ph", json_string("E"));
        json_object_set_new(e, "ts", json_integer(ts + dur));
        json_array_append_new(out, b);
        json_array_append_new(out, e);
    }
    char *txt = json_dumps(out, JSON_COMPACT);
    pm_report r, x;
    pm_err err;
    pm_report_init(&r);
    assert_int_equal(pm_parse_sniff(txt, strlen(txt)), PM_FMT_CHROME_TRACE);
    assert_int_equal(pm_parse_buffer(txt, strlen(txt), PM_FMT_AUTO, &r, &err), PM_OK);
    parse_fixture(FIXTURE("chrome/llc-time-trace.json"), PM_FMT_CHROME_TRACE, &x);
    /* B/E pairs close innermost-first; "X" events of a whole trace are matched per thread the same way */
    assert_int_equal(r.n_passes, x.n_passes);
    assert_true(fabs(r.total_wall_s - x.total_wall_s) < EPS);
    assert_true(fabs(pm_report_pass_wall(&r) - pm_report_pass_wall(&x)) < 1e-6);
    pm_report_free(&r);
    pm_report_free(&x);
    free(txt);
    json_decref(out);
    json_decref(root);
}

static void truncations_do_not_crash(void **state)
{
    size_t len;
    char *buf = slurp(FIXTURE("chrome/clang14-ftime-trace.json"), &len);
    for (size_t cut = 0; cut < len; cut += 1009) {
        char *copy = malloc(cut + 1);
        memcpy(copy, buf, cut);
        pm_report r;
        pm_err e;
        pm_report_init(&r);
        assert_int_equal(pm_parse_buffer(copy, cut, PM_FMT_CHROME_TRACE, &r, &e), PM_ERR_PARSE);
        pm_report_free(&r);
        free(copy);
    }
    free(buf);
}

static void sniff_every_fixture(void **state)
{
    static const struct {
        const char *file;
        pm_format fmt;
    } cases[] = {
        {"mlir/tree-single.txt", PM_FMT_MLIR_TEXT},       {"mlir/tree-threaded.txt", PM_FMT_MLIR_TEXT},
        {"mlir/list-single.txt", PM_FMT_MLIR_TEXT},       {"mlir/list-threaded.txt", PM_FMT_MLIR_TEXT},
        {"mlir/tree-single.json", PM_FMT_MLIR_JSON},      {"mlir/tree-threaded.json", PM_FMT_MLIR_JSON},
        {"mlir/list-single.json", PM_FMT_MLIR_JSON},      {"mlir/list-threaded.json", PM_FMT_MLIR_JSON},
        {"llvm/llc-time-passes.txt", PM_FMT_LLVM_TEXT},   {"llvm/llc-time-passes-per-run.txt", PM_FMT_LLVM_TEXT},
        {"llvm/opt-O2-time-passes.txt", PM_FMT_LLVM_TEXT}, {"chrome/clang14-ftime-trace.json", PM_FMT_CHROME_TRACE},
        {"chrome/llc-time-trace.json", PM_FMT_CHROME_TRACE}, {"mlir/input.mlir", PM_FMT_AUTO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fixtures/%s", PM_SOURCE_DIR, cases[i].file);
        size_t len;
        char *buf = slurp(path, &len);
        if (pm_parse_sniff(buf, len) != cases[i].fmt)
            fail_msg("%s sniffed as %s", cases[i].file, pm_format_name(pm_parse_sniff(buf, len)));
        free(buf);
    }
    assert_int_equal(pm_parse_sniff("[INFO] hello\n", 13), PM_FMT_AUTO);
}

/* Rows equal field by field (times bit for bit): the file reader and the buffer reader make one report. */
static void assert_same_report(const pm_report *a, const pm_report *b)
{
    assert_int_equal(a->n_passes, b->n_passes);
    assert_int_equal(a->n_reports, b->n_reports);
    assert_memory_equal(&a->total_wall_s, &b->total_wall_s, sizeof a->total_wall_s);
    for (size_t i = 0; i < a->n_passes; i++) {
        const pm_pass *x = &a->passes[i], *y = &b->passes[i];
        assert_string_equal(x->name, y->name);
        assert_true((!x->section && !y->section) || (x->section && y->section && !strcmp(x->section, y->section)));
        assert_memory_equal(&x->wall_s, &y->wall_s, sizeof x->wall_s);
        assert_memory_equal(&x->start_s, &y->start_s, sizeof x->start_s);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->has_start, y->has_start);
    }
}

static char *temp_write(const char *text, size_t len)
{
    char *path = strdup("/tmp/pm-chrome-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* The file is read streaming through a 1 MiB window: it must give exactly the buffer's report, on both fixtures
 * and on a trace whose events straddle the window's edges, with one event larger than the window, skipped
 * members holding nested containers and escapes, and a second traceEvents member that replaces the first. */
static void file_reader_equals_buffer_reader(void **state)
{
    const char *fx[] = {FIXTURE("chrome/clang14-ftime-trace.json"), FIXTURE("chrome/llc-time-trace.json")};
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        char *buf = slurp(fx[i], &len);
        pm_report a, b;
        parse_fixture(fx[i], PM_FMT_AUTO, &a);
        pm_report_init(&b);
        pm_err e = {0};
        assert_int_equal(pm_parse_buffer(buf, len, PM_FMT_CHROME_TRACE, &b, &e), PM_OK);
        assert_same_report(&a, &b);
        pm_report_free(&a);
        pm_report_free(&b);
        free(buf);
    }
    size_t cap = 8u << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "{\"meta\":{\"a\":[1,-2.5e3,{\"b\":\"\\u00e9\\\"x\\ud83d\\ude00\"}],\"c\":null},"
                          "\"traceEvents\":[{\"ph\":\"X\",\"name\":\"old\",\"ts\":0,\"dur\":1,\"pid\":1,\"tid\":1}],"
                          "\"x\":[true,false,[]],\"traceEvents\":[");
    for (int k = 0; k < 30000; k++) {
        n += (size_t)snprintf(t + n, cap - n, "%s{\"pid\":1,\"tid\":%d,\"ph\":\"X\",\"ts\":%d,\"dur\":%d,\"name\":\"P%d\","
                              "\"args\":{\"detail\":\"/d/fn_%d\"}}", k ? "," : "", k % 3, 10 * k, 5 + k % 4, k % 7, k);
        if (k == 12345) { /* an event of 3 MiB: the window grows to hold it */
            n += (size_t)snprintf(t + n, cap - n, ",{\"ph\":\"B\",\"name\":\"big\",\"ts\":5,\"pid\":1,\"tid\":9,"
                                  "\"args\":{\"pad\":\"");
            memset(t + n, 'y', 3u << 20);
            n += 3u << 20;
            n += (size_t)snprintf(t + n, cap - n, "\"}},{\"ph\":\"E\",\"ts\":99,\"pid\":1,\"tid\":9}");
        }
    }
    n += (size_t)snprintf(t + n, cap - n, "]}\n");
    assert_true(n < cap - 1);
    char *path = temp_write(t, n);
    pm_report a, b;
    parse_fixture(path, PM_FMT_AUTO, &a);
    pm_report_init(&b);
    pm_err e = {0};
    assert_int_equal(pm_parse_buffer(t, n, PM_FMT_AUTO, &b, &e), PM_OK);
    assert_int_equal(a.format, PM_FMT_CHROME_TRACE);
    assert_same_report(&a, &b);
    assert_int_equal(find_pass(&a, "old", 0), -1);
    assert_true(find_pass(&a, "big", 0) >= 0);
    assert_true(find_pass(&a, "P6", 0) >= 0);
    pm_report_free(&a);
    pm_report_free(&b);
    unlink(path);
    free(path);
    free(t);
}

/* A bad byte is named with the file and its offset, wherever it is: in an event, in a skipped member, after the
 * end. */
static void errors_name_file_and_offset(void **state)
{
    static const char *const bad[] = {
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1},{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":@}]}",
        "{\"meta\":[1,2,@],\"traceEvents\":[]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\\@\",\"ts\":0,\"dur\":1}]}",
        "{\"traceEvents\":[]} @",
        "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1} @",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *path = temp_write(bad[i], strlen(bad[i]));
        pm_report r;
        pm_report_init(&r);
        pm_err e = {0};
        assert_int_equal(pm_parse_file(path, PM_FMT_CHROME_TRACE, &r, &e), PM_ERR_PARSE);
        char want[64];
        snprintf(want, sizeof want, "byte %td", strchr(bad[i], '@') - bad[i]);
        if (!strstr(e.msg, path) || !strstr(e.msg, want))
            fail_msg("case %zu: '%s' lacks the file or '%s'", i, e.msg, want);
        pm_report_free(&r);
        unlink(path);
        free(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clang_trace), cmocka_unit_test(total_events_fill_granularity),     cmocka_unit_test(llc_trace),
        cmocka_unit_test(total_is_the_root_span), cmocka_unit_test(begin_end_pairs), cmocka_unit_test(truncations_do_not_crash),
        cmocka_unit_test(sniff_every_fixture), cmocka_unit_test(file_reader_equals_buffer_reader),
        cmocka_unit_test(errors_name_file_and_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
