/* Log-scale intervals, Welch on log times with Holm, MAD outliers and the adaptive stopping rule, checked
 * against tests/fixtures/stats/log-scale.txt: the output of `scripts/stats-expected.py --fixture` (scipy,
 * computed independently of this C), committed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define assert_near(actual, expected, rel)                                                                \
    do {                                                                                                \
        double a_ = (actual), e_ = (expected);                                                          \
        if (!(fabs(a_ - e_) <= (rel) * fmax(1.0, fabs(e_))))                                            \
            fail_msg("%s = %.17g, expected %.17g", #actual, a_, e_);                                   \
    } while (0)

/* The values of the fixture line `name`; fails the test when the line is missing. */
static size_t ref(const char *name, double *v, size_t cap)
{
    FILE *f = fopen(PM_SOURCE_DIR "/tests/fixtures/stats/log-scale.txt", "r");
    assert_non_null(f);
    char line[4096];
    size_t n = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *save = NULL, *tok = strtok_r(line, " \n", &save);
        if (!tok || strcmp(tok, name))
            continue;
        found = 1;
        while ((tok = strtok_r(NULL, " \n", &save)) && n < cap)
            v[n++] = strtod(tok, NULL);   /* "nan" parses to NaN */
    }
    fclose(f);
    if (!found)
        fail_msg("fixture line %s missing", name);
    return n;
}

static const double sample[] = {2.1, 3.4, 1.9, 5.6, 4.2, 3.3, 2.8};

static void log_interval_matches_scipy(void **state)
{
    double e[8];
    ref("logci", e, 8);
    pm_stats_logci c;
    assert_int_equal(pm_stats_log_interval(sample, 7, 0.95, &c), PM_STATS_OK);
    assert_near(c.gmean, e[0], 1e-12);
    assert_near(c.sd_log, e[1], 1e-12);
    assert_near(c.half_log, e[2], 1e-9);
    assert_near(c.lo, e[3], 1e-9);
    assert_near(c.hi, e[4], 1e-9);
    const double three[] = {1.0, 1.1, 1.3};
    ref("logci3", e, 8);
    assert_int_equal(pm_stats_log_interval(three, 3, 0.95, &c), PM_STATS_OK);
    assert_near(c.gmean, e[0], 1e-12);
    assert_near(c.lo, e[1], 1e-9);
    assert_near(c.hi, e[2], 1e-9);
    assert_near(pm_stats_log_precision(&c), e[3], 1e-9);
}

static void log_interval_never_below_zero_and_none_under_three(void **state)
{
    /* The case: two wildly different repeats gave -3.74 .. 11.05 s on the raw scale. */
    const double two[] = {2.0, 8.0};
    double e[2];
    ref("logci2", e, 2);
    pm_stats_logci c;
    assert_int_equal(pm_stats_log_interval(two, 2, 0.95, &c), PM_STATS_TOO_FEW);
    assert_near(c.gmean, e[0], 1e-12);
    assert_true(isnan(c.lo) && isnan(c.hi) && isnan(pm_stats_log_precision(&c)));
    const double wild[] = {0.01, 9.0, 0.02, 12.0};
    assert_int_equal(pm_stats_log_interval(wild, 4, 0.95, &c), PM_STATS_OK);
    assert_true(c.lo > 0 && c.lo < c.gmean && c.gmean < c.hi);
    const double bad[] = {1.0, 0.0, 2.0};
    assert_int_equal(pm_stats_log_interval(bad, 3, 0.95, &c), PM_STATS_BAD_INPUT);
    assert_true(isnan(c.gmean));
}

static void welch_log_matches_scipy(void **state)
{
    const double a[] = {10.2, 9.8, 10.5, 10.1, 9.9}, b[] = {10.9, 11.2, 10.7, 11.4};
    double e[8], lo, hi;
    ref("welchlog", e, 8);
    pm_stats_logratio r;
    assert_int_equal(pm_stats_welch_log(b, 4, a, 5, &r), PM_STATS_OK);
    assert_near(r.ratio, e[0], 1e-12);
    assert_near(r.diff, e[1], 1e-12);
    assert_near(r.se, e[2], 1e-9);
    assert_near(r.df, e[3], 1e-9);
    assert_near(r.t, e[4], 1e-9);
    assert_near(r.p, e[5], 1e-7);
    ref("welchlog_ci_0.05", e, 2);
    pm_stats_logratio_ci(&r, 0.05, &lo, &hi);
    assert_near(lo, e[0], 1e-9);
    assert_near(hi, e[1], 1e-9);
    ref("welchlog_ci_0.0166667", e, 2);
    pm_stats_logratio_ci(&r, 0.05 / 3, &lo, &hi);
    assert_near(lo, e[0], 1e-9);
    assert_near(hi, e[1], 1e-9);
}

static void welch_log_interval_agrees_with_p(void **state)
{
    const double a[] = {1.00, 1.05, 0.97, 1.02}, b[] = {1.03, 1.09, 1.01, 1.06};
    double e[1], lo, hi;
    ref("welchlog2_p", e, 1);
    pm_stats_logratio r;
    assert_int_equal(pm_stats_welch_log(b, 4, a, 4, &r), PM_STATS_OK);
    assert_near(r.p, e[0], 1e-7);
    /* at alpha just below p the interval contains 1, just above it excludes 1 */
    pm_stats_logratio_ci(&r, r.p * 0.999, &lo, &hi);
    assert_true(lo < 1 && hi > 1);
    pm_stats_logratio_ci(&r, r.p * 1.001, &lo, &hi);
    assert_true(lo > 1 || hi < 1);
    /* n = 2 on a side: the ratio, but no test and no interval */
    assert_int_equal(pm_stats_welch_log(b, 2, a, 4, &r), PM_STATS_TOO_FEW);
    assert_true(r.ratio > 0 && isnan(r.p));
    pm_stats_logratio_ci(&r, 0.05, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

static void holm_matches_reference(void **state)
{
    double p[6], e[6], adj[6];
    assert_int_equal(ref("holm_p", p, 6), 6);
    ref("holm_adj", e, 6);
    assert_int_equal(pm_stats_holm(p, 6, adj), PM_STATS_OK);
    for (int i = 0; i < 6; i++) {
        if (isnan(e[i]))
            assert_true(isnan(adj[i]));
        else
            assert_near(adj[i], e[i], 1e-12);
    }
    /* the per-test level agrees with the adjusted p: p < level exactly when adj < alpha */
    for (int i = 0; i < 6; i++)
        if (!isnan(p[i]))
            assert_int_equal(p[i] < pm_stats_holm_level(p[i], adj[i], 0.05), adj[i] < 0.05);
}

static void mad_outliers_match_reference(void **state)
{
    double x[9], e[9];
    int flag[9];
    size_t n_out, expect = 0;
    assert_int_equal(ref("mad_x", x, 9), 9);
    ref("mad_flags", e, 9);
    assert_int_equal(pm_stats_mad_outliers(x, 9, 3.5, flag, &n_out), PM_STATS_OK);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(flag[i], (int)e[i]);
        expect += e[i] != 0;
    }
    assert_int_equal(n_out, expect);
    assert_int_equal(pm_stats_mad_outliers(x, 2, 3.5, flag, &n_out), PM_STATS_TOO_FEW);
    assert_int_equal(n_out, 0);
}

static void stopping_rule_matches_reference(void **state)
{
    const char *names[] = {"settle_stable", "settle_noisy"};
    for (int k = 0; k < 2; k++) {
        double v[11];
        assert_int_equal(ref(names[k], v, 11), 11);
        size_t stop = (size_t)v[0];
        const double *s = v + 1;
        for (size_t n = 1; n <= 10; n++)
            assert_int_equal(pm_stats_settled(s, n, 3, 10, 0.03), n >= stop);
    }
    /* min_repeats holds a settled series back */
    const double flat[] = {5, 5, 5, 5, 5};
    assert_false(pm_stats_settled(flat, 3, 5, 10, 0.03));
    assert_true(pm_stats_settled(flat, 5, 5, 10, 0.03));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_interval_matches_scipy),
        cmocka_unit_test(log_interval_never_below_zero_and_none_under_three),
        cmocka_unit_test(welch_log_matches_scipy),
        cmocka_unit_test(welch_log_interval_agrees_with_p),
        cmocka_unit_test(holm_matches_reference),
        cmocka_unit_test(mad_outliers_match_reference),
        cmocka_unit_test(stopping_rule_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
