/* gcc -ftime-report ("Time variable" table) on real gcc 12 output (tests/fixtures/gcc, scripts/make-fixtures.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "parse_fixture.h"

#define EPS 1e-9

static void o2_rows_add_up_to_total(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("gcc/gcc12-O2-ftime-report.txt"), PM_FMT_AUTO, &r);
    assert_int_equal(r.format, PM_FMT_GCC_TEXT);
    assert_int_equal(r.n_reports, 1);
    assert_true(fabs(r.total_wall_s - 0.71) < EPS);
    assert_true(fabs(r.total_user_s - 0.07) < EPS);
    int ph = find_pass(&r, "phase opt and generate", 0), exp = find_pass(&r, "callgraph functions expansion", 0);
    int ipa = find_pass(&r, "callgraph ipa passes", 0), tot = find_pass(&r, "TOTAL", 0);
    int pre = find_pass(&r, "preprocessing", 0);
    assert_true(ph >= 0 && exp >= 0 && ipa >= 0 && tot >= 0 && pre >= 0);
    assert_int_equal(r.passes[ph].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[exp].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[ipa].flags, PM_PASS_GROUP);
    assert_int_equal(r.passes[tot].flags, PM_PASS_SUMMARY);
    assert_int_equal(r.passes[pre].flags, 0);
    assert_string_equal(r.passes[pre].section, "Time variable");
    /* counted rows are disjoint: they add up to TOTAL less the rows gcc leaves out under 0.01 s */
    double sum = pm_report_pass_wall(&r);
    assert_true(sum <= 0.71 + EPS);
    assert_true(sum >= 0.71 - 0.01 * 5);
    pm_report_free(&r);
}

static void o0_and_details(void **state)
{
    pm_report r;
    parse_fixture(FIXTURE("gcc/gcc12-O0-ftime-report.txt"), PM_FMT_AUTO, &r);
    assert_true(fabs(r.total_wall_s - 0.16) < EPS);
    assert_true(pm_report_pass_wall(&r) <= 0.16 + EPS && pm_report_pass_wall(&r) >= 0.12);
    pm_report_free(&r);
    /* -ftime-report-details repeats child timers under their parent as "`- name": detail, not counted twice */
    parse_fixture(FIXTURE("gcc/gcc12-O2-details.txt"), PM_FMT_AUTO, &r);
    int d = find_pass(&r, "dump files", 1);
    assert_true(d >= 0);
    assert_int_equal(r.passes[d].flags, PM_PASS_DETAIL);
    assert_true(pm_report_pass_wall(&r) <= r.total_wall_s + EPS);
    pm_report_free(&r);
}

/* two cc1 processes (gcc a.c b.c): two tables whose totals add up */
static void two_tables(void **state)
{
    size_t len;
    char *one = slurp(FIXTURE("gcc/gcc12-O0-ftime-report.txt"), &len);
    char *two = malloc(2 * len + 1);
    memcpy(two, one, len);
    memcpy(two + len, one, len);
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_sniff(two, 2 * len), PM_FMT_GCC_TEXT);
    assert_int_equal(pm_parse_buffer(two, 2 * len, PM_FMT_AUTO, &r, &e), PM_OK);
    assert_int_equal(r.n_reports, 2);
    assert_true(fabs(r.total_wall_s - 0.32) < EPS);
    pm_report_free(&r);
    /* truncated anywhere: no crash, never more counted than the complete input */
    for (size_t cut = 0; cut < len; cut += 7) {
        pm_report_init(&r);
        assert_int_equal(pm_parse_buffer(one, cut, PM_FMT_GCC_TEXT, &r, &e), PM_OK);
        assert_true(pm_report_pass_wall(&r) <= 0.16 + EPS);
        pm_report_free(&r);
    }
    free(one);
    free(two);
}

/* A compile of 1000 s and more: gcc prints the value against the colon (":1234.56"); the row and TOTAL were
 * dropped when the name ended at " : ". The name ends at the last ':'. */
static void rows_of_a_thousand_seconds(void **state)
{
    const char *t = "Time variable                                   usr           sys          wall           GGC\n"
                    " phase opt and generate             :1200.00 ( 97%)   3.00 ( 60%)1234.56 ( 97%)  1326k ( 63%)\n"
                    " tree PTA                           :1180.00 ( 96%)   2.00 ( 40%)1200.00 ( 94%)    10k (  1%)\n"
                    " expand                             :  20.00 (  2%)   1.00 ( 20%)  34.56 (  3%)    20k (  1%)\n"
                    " TOTAL                              :1234.00          5.00        1278.89         2118k\n";
    pm_report r;
    pm_err e;
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(t, strlen(t), PM_FMT_GCC_TEXT, &r, &e), PM_OK);
    assert_true(fabs(r.total_wall_s - 1278.89) < EPS);
    assert_true(fabs(r.total_user_s - 1234.0) < EPS);
    int pta = find_pass(&r, "tree PTA", 0), ph = find_pass(&r, "phase opt and generate", 0);
    assert_true(pta >= 0 && ph >= 0);
    assert_true(fabs(r.passes[pta].wall_s - 1200.0) < EPS);
    assert_true(fabs(pm_report_pass_wall(&r) - 1234.56) < EPS);
    assert_int_equal(r.n_skipped, 0);
    pm_report_free(&r);
    /* a row whose values do not read is left out, counted and named: never dropped silently */
    const char *bad = "Time variable                                   usr           sys          wall           GGC\n"
                      " tree PTA                           :   x.00 (  1%)   0.00 (  0%)   0.01 (  1%)    10k (  1%)\n"
                      " expand                             :   0.01 (  2%)   0.00 (  0%)   0.02 (  3%)    20k (  1%)\n"
                      " TOTAL                              :   0.01          0.00          0.03         2118k\n";
    pm_report_init(&r);
    assert_int_equal(pm_parse_buffer(bad, strlen(bad), PM_FMT_GCC_TEXT, &r, &e), PM_OK);
    assert_int_equal(r.n_skipped, 1);
    assert_non_null(strstr(r.skipped_first, "line 2"));
    assert_non_null(strstr(r.skipped_first, "tree PTA"));
    pm_report_free(&r);
}

static void not_gcc(void **state)
{
    const char *llvm = "Time variable is a phrase\nno total here\n";
    assert_int_not_equal(pm_parse_sniff(llvm, strlen(llvm)), PM_FMT_GCC_TEXT);
    assert_int_equal(pm_format_from_name("gcc-text"), PM_FMT_GCC_TEXT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(o2_rows_add_up_to_total),
        cmocka_unit_test(o0_and_details),
        cmocka_unit_test(two_tables),
        cmocka_unit_test(rows_of_a_thousand_seconds),
        cmocka_unit_test(not_gcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
