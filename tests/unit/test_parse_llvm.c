/* LLVM -time-passes text parser on real llc/opt 22 output (scripts/make-fixtures.sh); values are read off the
 * committed fixtures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "parse_fixture.h"

#define EPS 1e-9

static const char *const PASS_SECTION = "Pass execution timing report";

static void llc_sections(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/llc-time-passes.txt"), PM_FMT_AUTO, &r);
    assert_int_equal(r.format, PM_FMT_LLVM_TEXT);
    assert_int_equal(r.n_reports, 4);
    assert_int_equal(r.n_passes, 232);
    /* pass report (0.1066 wall clock) + IR parsing (0.0053); the ISel and RegAlloc breakdowns are not added */
    assert_true(fabs(r.total_wall_s - (0.1066 + 0.0053)) < EPS);
    assert_true(fabs(r.total_user_s - 0.0595) < EPS); /* IR Parsing has no User column this run */

    int isel = find_pass(&r, "X86 DAG->DAG Instruction Selection", 0);
    assert_true(isel >= 0);
    assert_string_equal(r.passes[isel].section, PASS_SECTION);
    assert_true(fabs(r.passes[isel].wall_s - 0.0353) < EPS);
    assert_true(fabs(r.passes[isel].user_s - 0.0194) < EPS);
    assert_int_equal(r.passes[isel].flags, 0);
    assert_int_equal(r.passes[isel].report_index, 0);

    int comb = find_pass(&r, "DAG Combining 1", 0);
    assert_string_equal(r.passes[comb].section, "Instruction Selection and Scheduling");
    assert_int_equal(r.passes[comb].flags, PM_PASS_DETAIL);
    assert_int_equal(r.passes[comb].report_index, 1);

    int split = find_pass(&r, "Global Splitting", 0);
    assert_string_equal(r.passes[split].section, "Register Allocation");
    assert_int_equal(r.passes[split].flags, PM_PASS_DETAIL);
    assert_true(fabs(r.passes[split].wall_s - 0.0010) < EPS);

    /* "LLVM IR Parsing" has only System, User+System and Wall columns */
    int parse = find_pass(&r, "Parse IR", 0);
    assert_string_equal(r.passes[parse].section, "LLVM IR Parsing");
    assert_int_equal(r.passes[parse].flags, 0);
    assert_true(fabs(r.passes[parse].wall_s - 0.0053) < EPS);
    assert_true(r.passes[parse].user_s < 0);

    int totals = 0;
    for (size_t i = 0; i < r.n_passes; i++) {
        if (strcmp(r.passes[i].name, "Total") == 0) {
            assert_int_equal(r.passes[i].flags, PM_PASS_SUMMARY);
            totals++;
        }
        assert_int_equal(r.passes[i].depth, 0);
        assert_int_equal(r.passes[i].parent, -1);
    }
    assert_int_equal(totals, 4);
    /* LLVM's Total row is the sum of its rows: counted rows add up to total within rounding */
    double tol = 0.00005 * (double)counted_rows(&r);
    assert_true(fabs(pm_report_pass_wall(&r) - r.total_wall_s) <= tol);
    assert_true(fabs(pm_report_pass_wall(&r) - 0.1113) < 1e-6);
    pm_report_free(&r);
}

static void llc_per_run(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/llc-time-passes-per-run.txt"), PM_FMT_LLVM_TEXT, &r);
    assert_int_equal(r.n_reports, 4);
    assert_true(fabs(r.total_wall_s - (0.1101 + 0.0026)) < EPS);
    int split = find_pass(&r, "Global Splitting", 0);
    assert_int_equal(r.passes[split].flags, PM_PASS_DETAIL);
    assert_true(fabs(pm_report_pass_wall(&r) - r.total_wall_s) <= 0.00005 * (double)counted_rows(&r));
    pm_report_free(&r);
}

static void opt_analysis_section(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/opt-O2-time-passes.txt"), PM_FMT_AUTO, &r);
    assert_int_equal(r.n_reports, 3);
    assert_string_equal(r.passes[0].section, "Analysis execution timing report");
    /* the new PM does not pause a pass while an analysis it asked for runs: analyses are inside the pass rows */
    size_t analyses = 0;
    for (size_t i = 0; i < r.n_passes; i++)
        if (strcmp(r.passes[i].section, "Analysis execution timing report") == 0 && !(r.passes[i].flags & PM_PASS_SUMMARY)) {
            assert_int_equal(r.passes[i].flags, PM_PASS_ANALYSIS | PM_PASS_DETAIL);
            analyses++;
        }
    assert_true(analyses > 10);
    /* pass report (0.3432 wall) + IR parsing (0.0027), not the analysis report (0.0028) */
    assert_true(fabs(r.total_wall_s - (0.3432 + 0.0027)) < EPS);
    assert_true(fabs(pm_report_pass_wall(&r) - r.total_wall_s) <= 0.00005 * (double)counted_rows(&r));
    pm_report_free(&r);
}

/* opt-22 -passes=verify: VerifierPass and VerifierAnalysis are the same time; it was counted twice. */
static void opt22_verify_counted_once(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/opt22-verify-time-passes.txt"), PM_FMT_AUTO, &r);
    int pass = find_pass(&r, "VerifierPass", 0), an = find_pass(&r, "VerifierAnalysis", 0);
    assert_true(pass >= 0 && an >= 0);
    assert_true(fabs(r.passes[pass].wall_s - r.passes[an].wall_s) < EPS);
    assert_int_equal(r.passes[pass].flags, 0);
    assert_true(r.passes[an].flags & PM_PASS_DETAIL);
    /* pass report 0.0102 + IR parsing 0.0307 */
    assert_true(fabs(pm_report_pass_wall(&r) - (0.0102 + 0.0307)) < 0.00005 * (double)counted_rows(&r));
    pm_report_free(&r);
}

/* LLVM <= 15's new PM: one "... Pass execution timing report ..." list where no timer pauses for a nested pass or
 * analysis. The wrappers and the analyses were counted on top of the passes inside them. */
static void opt14_newpm_list(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("llvm/opt14-O2-time-passes.txt"), PM_FMT_AUTO, &r);
    int wrap = find_pass(&r, "ModuleInlinerWrapperPass", 0), devirt = find_pass(&r, "DevirtSCCRepeatedPass", 0);
    int an = find_pass(&r, "VerifierAnalysis", 0), aa = find_pass(&r, "AAManager", 0);
    int inst = find_pass(&r, "InstCombinePass", 0), req = find_pass(&r, "RequireAnalysisPass<llvm::GlobalsAA, llvm::Module>", 0);
    assert_true(wrap >= 0 && devirt >= 0 && an >= 0 && aa >= 0 && inst >= 0 && req >= 0);
    assert_int_equal(r.passes[wrap].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[devirt].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[an].flags, PM_PASS_ANALYSIS | PM_PASS_DETAIL);
    assert_int_equal(r.passes[aa].flags, PM_PASS_ANALYSIS | PM_PASS_DETAIL);
    assert_int_equal(r.passes[inst].flags, 0);
    assert_int_equal(r.passes[req].flags, 0);
    /* the list's own Total (0.1182) adds nested timers; the counted rows are well under it */
    assert_true(pm_report_pass_wall(&r) < 0.1182 - 0.0275 * 2 + 0.0171);
    assert_true(fabs(pm_report_pass_wall(&r) - r.total_wall_s) <= 0.00005 * (double)r.n_passes);
    pm_report_free(&r);
}

static void ansi_and_junk(void **state)
{
    size_t len;
    char *src = slurp(FIXTURE("llvm/llc-time-passes.txt"), &len);
    size_t cap = len * 3 + 4096, n = 0;
    char *dst = malloc(cap);
    n += (size_t)snprintf(dst + n, cap - n, "warning: something unrelated\n");
    int lineno = 0;
    for (char *p = src; *p;) {
        char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        n += (size_t)snprintf(dst + n, cap - n, "\x1b[0;1m%.*s\x1b[0m\n", (int)l, p);
        if (++lineno % 9 == 0 && lineno > 10)
            n += (size_t)snprintf(dst + n, cap - n, "note: log line\n");
        p += l + (e ? 1 : 0);
    }
    pm_report clean, r;
    pm_err e;
    parse_fixture(FIXTURE("llvm/llc-time-passes.txt"), PM_FMT_LLVM_TEXT, &clean);
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(dst, n, PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.n_passes, clean.n_passes);
    assert_true(fabs(r.total_wall_s - clean.total_wall_s) < EPS);
    for (size_t i = 0; i < r.n_passes; i++) {
        assert_string_equal(r.passes[i].name, clean.passes[i].name);
        assert_int_equal(r.passes[i].flags, clean.passes[i].flags);
    }
    pm_report_free(&clean);
    pm_report_free(&r);
    free(dst);
    free(src);
}

static void truncations_do_not_crash(void **state)
{
    size_t len;
    char *buf = slurp(FIXTURE("llvm/llc-time-passes.txt"), &len);
    size_t last = 0;
    for (size_t cut = 0; cut < len; cut += 13) {
        char *copy = malloc(cut + 1);
        memcpy(copy, buf, cut);
        pm_report r;
        pm_err e;
        pm_report_init(&r);
        assert_int_equal(pm_parse_buffer(copy, cut, PM_FMT_LLVM_TEXT, &r, &e), PM_OK);
        assert_true(r.n_passes >= last);
        last = r.n_passes;
        pm_report_free(&r);
        free(copy);
    }
    assert_true(last >= 231);
    free(buf);
}

static void json_unsupported(void **state)
{
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer("{}", 2, PM_FMT_LLVM_JSON, &r, &e), PM_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "no JSON"));
    pm_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llc_sections),     cmocka_unit_test(llc_per_run),
        cmocka_unit_test(opt_analysis_section), cmocka_unit_test(opt22_verify_counted_once),
        cmocka_unit_test(opt14_newpm_list), cmocka_unit_test(ansi_and_junk),
        cmocka_unit_test(truncations_do_not_crash), cmocka_unit_test(json_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
