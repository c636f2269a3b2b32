/* MLIR --mlir-timing text and JSON parsers on real mlir-opt 22 fixtures (scripts/make-fixtures.sh). The
 * asserted values are read off the committed fixture files: regenerating the fixtures means updating them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "parse_fixture.h"

#define EPS 1e-9

static double summary_wall(const pm_report *r, const char *name)
{
    double s = 0;
    for (size_t i = 0; i < r->n_passes; i++)
        if ((r->passes[i].flags & PM_PASS_SUMMARY) && strcmp(r->passes[i].name, name) == 0)
            s += r->passes[i].wall_s;
    return s;
}

/* Counted rows cover the tree's leaves once: they add up to Total - Rest within print rounding (0.00005 a
 * row) plus pipeline overhead that belongs to no pass (slack). */
static void assert_consistent(const pm_report *r, double slack)
{
    double want = r->total_wall_s - summary_wall(r, "Rest");
    double got = pm_report_pass_wall(r);
    double tol = 0.00005 * (double)counted_rows(r) + slack;
    if (fabs(got - want) > tol)
        fail_msg("per-pass sum %.4f vs Total-Rest %.4f (tolerance %.4f)", got, want, tol);
}

static void tree_single_text(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("mlir/tree-single.txt"), PM_FMT_MLIR_TEXT, &r);
    assert_int_equal(r.n_reports, 1);
    assert_int_equal(r.n_passes, 42);
    assert_true(fabs(r.total_wall_s - 0.0340) < EPS);
    assert_true(r.total_user_s < 0); /* single-threaded: no User Time column */
    int parser = find_pass(&r, "Parser", 0);
    assert_int_equal(parser, 0);
    assert_true(fabs(r.passes[parser].wall_s - 0.0024) < EPS);
    assert_int_equal(r.passes[parser].flags, 0);
    assert_true(r.passes[parser].user_s < 0);
    int pipe = find_pass(&r, "'func.func' Pipeline", 0);
    assert_int_equal(pipe, 1);
    assert_int_equal(r.passes[pipe].flags, PM_PASS_GROUP);
    assert_true(fabs(r.passes[pipe].wall_s - 0.0010) < EPS);
    int gen = find_pass(&r, "LinalgGeneralizeNamedOpsPass", 0);
    assert_int_equal(r.passes[gen].depth, 1);
    assert_int_equal(r.passes[gen].parent, pipe);
    assert_true(fabs(r.passes[gen].wall_s - 0.0004) < EPS);
    /* CSE has only an (A) child: it stays a counted pass, the analysis is a detail of it */
    int cse = find_pass(&r, "CSE", 0);
    assert_int_equal(r.passes[cse].flags, 0);
    int dom = find_pass(&r, "DominanceInfo", 0);
    assert_int_equal(dom, cse + 1);
    assert_int_equal(r.passes[dom].flags, PM_PASS_ANALYSIS | PM_PASS_DETAIL);
    assert_int_equal(r.passes[dom].depth, 2);
    assert_int_equal(r.passes[dom].parent, cse);
    assert_int_equal(find_pass(&r, "(A) DominanceInfo", 0), -1);
    assert_int_equal(r.passes[find_pass(&r, "Rest", 0)].flags, PM_PASS_SUMMARY);
    assert_int_equal(r.passes[find_pass(&r, "Total", 0)].flags, PM_PASS_SUMMARY);
    assert_int_equal(r.passes[find_pass(&r, "'func.func' Pipeline", 1)].flags, PM_PASS_GROUP);
    assert_int_equal(counted_rows(&r), 33);
    assert_true(fabs(pm_report_pass_wall(&r) - 0.0305) < 1e-6);
    assert_consistent(&r, 0.0005);
    pm_report_free(&r);
}

static void tree_threaded_text_has_user(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("mlir/tree-threaded.txt"), PM_FMT_AUTO, &r);
    assert_int_equal(r.format, PM_FMT_MLIR_TEXT);
    assert_int_equal(r.n_passes, 42);
    assert_true(fabs(r.total_wall_s - 0.0456) < EPS);
    assert_true(fabs(r.total_user_s - 0.0543) < EPS);
    int pipe2 = find_pass(&r, "'func.func' Pipeline", 1);
    assert_true(fabs(r.passes[pipe2].wall_s - 0.0047) < EPS);
    assert_true(fabs(r.passes[pipe2].user_s - 0.0080) < EPS);
    assert_consistent(&r, 0.001);
    pm_report_free(&r);
}

static void list_single_text(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("mlir/list-single.txt"), PM_FMT_MLIR_TEXT, &r);
    assert_int_equal(r.n_reports, 1);
    assert_int_equal(r.n_passes, 31);
    assert_true(fabs(r.total_wall_s - 0.0670) < EPS);
    assert_int_equal(r.passes[0].flags, PM_PASS_SUMMARY); /* root */
    assert_string_equal(r.passes[0].name, "root");
    assert_int_equal(r.passes[find_pass(&r, "Pipeline Collection : ['func.func']", 0)].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[find_pass(&r, "'func.func' Pipeline", 0)].flags, PM_PASS_GROUP);
    /* list display merges nested timers: an analysis is always inside some pass's time */
    assert_int_equal(r.passes[find_pass(&r, "DataLayoutAnalysis", 0)].flags, PM_PASS_ANALYSIS | PM_PASS_DETAIL);
    for (size_t i = 0; i < r.n_passes; i++)
        assert_int_equal(r.passes[i].depth, 0);
    assert_int_equal(counted_rows(&r), 24);
    assert_consistent(&r, 0.0005);
    pm_report_free(&r);
}

/* Same kind of run in both outputs: same rows, names, depths and flags (timings differ between runs). */
static void same_shape(const char *txt, const char *json, int ordered)
{
    pm_report a, b;
    parse_fixture(txt, PM_FMT_MLIR_TEXT, &a);
    parse_fixture(json, PM_FMT_AUTO, &b);
    assert_int_equal(b.format, PM_FMT_MLIR_JSON);
    assert_int_equal(a.n_passes, b.n_passes);
    assert_int_equal(b.n_reports, 1);
    assert_true(b.total_wall_s > 0);
    for (size_t i = 0; i < a.n_passes; i++) {
        const pm_pass *p = &a.passes[i];
        if (ordered) {
            assert_string_equal(p->name, b.passes[i].name);
            assert_int_equal(p->flags, b.passes[i].flags);
            assert_int_equal(p->depth, b.passes[i].depth);
            assert_int_equal(p->parent, b.passes[i].parent);
            assert_int_equal(p->user_s < 0, b.passes[i].user_s < 0);
        } else { /* list display is sorted by time: match by name */
            int nth = 0;
            for (size_t k = 0; k < i; k++)
                nth += strcmp(a.passes[k].name, p->name) == 0;
            int j = find_pass(&b, p->name, nth);
            assert_true(j >= 0);
            assert_int_equal(p->flags, b.passes[j].flags);
        }
    }
    pm_report_free(&a);
    pm_report_free(&b);
}

static void json_matches_text(void **state)
{
    same_shape(FIXTURE("mlir/tree-single.txt"), FIXTURE("mlir/tree-single.json"), 1);
    same_shape(FIXTURE("mlir/tree-threaded.txt"), FIXTURE("mlir/tree-threaded.json"), 1);
    same_shape(FIXTURE("mlir/list-single.txt"), FIXTURE("mlir/list-single.json"), 0);
    same_shape(FIXTURE("mlir/list-threaded.txt"), FIXTURE("mlir/list-threaded.json"), 0);
}

static void json_values(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("mlir/tree-single.json"), PM_FMT_MLIR_JSON, &r);
    assert_true(fabs(r.total_wall_s - 0.0390) < EPS);
    assert_int_equal(r.passes[1].flags, PM_PASS_GROUP);
    assert_string_equal(r.passes[1].name, "'func.func' Pipeline");
    assert_consistent(&r, 0.0005);
    pm_report_free(&r);
    parse_fixture(FIXTURE("mlir/list-single.json"), PM_FMT_MLIR_JSON, &r);
    assert_true(fabs(r.total_wall_s - 0.0720) < EPS);
    assert_consistent(&r, 0.0005);
    pm_report_free(&r);
}

/* NPU-style stdout: colour codes on every line, log lines between rows and blocks, a prefixed title, two
 * report blocks. */
static void ansi_interleaved_blocks(void **state)
{
    size_t len;
    char *src = slurp(FIXTURE("mlir/tree-threaded.txt"), &len);
    size_t cap = len * 8 + 4096, n = 0;
    char *dst = malloc(cap);
    assert_non_null(dst);
    for (int copy = 0; copy < 2; copy++) {
        n += (size_t)snprintf(dst + n, cap - n, "[INFO] 12:00:0%d.000 [vpux-compiler] Compile network\n", copy);
        int lineno = 0;
        for (char *p = src; *p;) {
            char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            const char *pre = strstr(p, "Execution time report") && strstr(p, "Execution time report") < p + l
                                  ? "\x1b[1m[npu] " : "\x1b[32m";
            n += (size_t)snprintf(dst + n, cap - n, "%s%.*s\x1b[0m\r\n", pre, (int)l, p);
            if (++lineno % 5 == 0)
                n += (size_t)snprintf(dst + n, cap - n, "\x1b[33m[Warning][NPU] 0.5000 (1.0%%) junk\x1b[0m\n");
            p += l + (e ? 1 : 0);
        }
    }
    pm_report clean, r;
    parse_fixture(FIXTURE("mlir/tree-threaded.txt"), PM_FMT_MLIR_TEXT, &clean);
    pm_report_init(&r);
    pm_err e;
    assert_int_equal(pm_parse_sniff(dst, n), PM_FMT_MLIR_TEXT);
    assert_int_equal(pm_parse_buffer(dst, n, PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.n_reports, 2);
    assert_int_equal(r.n_passes, 2 * clean.n_passes);
    assert_true(fabs(r.total_wall_s - 2 * 0.0456) < EPS);
    assert_true(fabs(pm_report_pass_wall(&r) - 2 * pm_report_pass_wall(&clean)) < EPS);
    for (size_t i = 0; i < r.n_passes; i++) {
        const pm_pass *c = &clean.passes[i % clean.n_passes];
        assert_string_equal(r.passes[i].name, c->name);
        assert_int_equal(r.passes[i].flags, c->flags);
        assert_int_equal(r.passes[i].report_index, (int)(i / clean.n_passes));
        assert_int_equal(r.passes[i].parent, c->parent < 0 ? -1 : c->parent + (int)(i / clean.n_passes * clean.n_passes));
    }
    pm_report_free(&clean);
    pm_report_free(&r);
    free(dst);
    free(src);
}

/* Values of 10000 s and more overflow %8.4f: columns shift, whitespace splitting still works. */
static void wide_values(void **state)
{
    const char *txt = "===---===\n  ... Execution time report ...\n===---===\n"
                      "  Total Execution Time: 12345.6789 seconds\n\n"
                      "  ----User Time----  ----Wall Time----  ----Name----\n"
                      "  20000.0000 (100.0%)  12000.5000 ( 97.2%)  'func.func' Pipeline\n"
                      "  20000.0000 (100.0%)  12000.5000 ( 97.2%)    FeasibleAllocation\n"
                      "    1.0000 (  0.0%)  345.1789 (  2.8%)  Rest\n"
                      "  20001.0000 (100.0%)  12345.6789 (100.0%)  Total\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(txt, strlen(txt), PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.n_passes, 4);
    assert_true(fabs(r.total_wall_s - 12345.6789) < EPS);
    assert_true(fabs(r.passes[1].wall_s - 12000.5) < EPS);
    assert_true(fabs(r.passes[1].user_s - 20000) < EPS);
    assert_int_equal(r.passes[1].depth, 1);
    assert_int_equal(r.passes[0].flags, PM_PASS_GROUP);
    assert_true(fabs(pm_report_pass_wall(&r) - 12000.5) < EPS);
    pm_report_free(&r);
}

static void truncations_do_not_crash(void **state)
{
    static const char *const files[] = {"mlir/tree-single.txt", "mlir/tree-threaded.txt", "mlir/list-threaded.txt",
                                        "mlir/tree-threaded.json", "mlir/list-single.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fixtures/%s", PM_SOURCE_DIR, files[f]);
        size_t len;
        char *buf = slurp(path, &len);
        pm_format fmt = pm_parse_sniff(buf, len);
        size_t last_n = 0;
        for (size_t cut = 0; cut <= len; cut += (cut + 7 > len && cut < len) ? len - cut : 7) {
            char *copy = malloc(cut + 1); /* exact-size copy so ASan sees reads past the cut */
            memcpy(copy, buf, cut);
            pm_report r;
            pm_err e;
            pm_report_init(&r);
            int rc = pm_parse_buffer(copy, cut, fmt, &r, &e);
            assert_true(rc == PM_OK || rc == PM_ERR_PARSE);
            if (fmt == PM_FMT_MLIR_TEXT) {
                assert_int_equal(rc, PM_OK);
                assert_true(r.n_passes >= last_n); /* a longer prefix never loses rows */
                last_n = r.n_passes;
            }
            pm_report_free(&r);
            free(copy);
            if (cut == len)
                break;
        }
        free(buf);
    }
}

static void malformed_json_is_parse_error(void **state)
{
    const char *bad = "[{\"wall\": {\"duration\": 1.0}, \"name\": 5}]";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(bad, strlen(bad), PM_FMT_MLIR_JSON, &r, &e), PM_ERR_PARSE);
    assert_int_equal(pm_parse_buffer("[{\"wall\":", 9, PM_FMT_MLIR_JSON, &r, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "line 1"));
    pm_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_single_text),
        cmocka_unit_test(tree_threaded_text_has_user),
        cmocka_unit_test(list_single_text),
        cmocka_unit_test(json_matches_text),
        cmocka_unit_test(json_values),
        cmocka_unit_test(ansi_interleaved_blocks),
        cmocka_unit_test(wide_values),
        cmocka_unit_test(truncations_do_not_crash),
        cmocka_unit_test(malformed_json_is_parse_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
