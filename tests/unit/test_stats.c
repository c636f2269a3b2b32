/* Reference values come from numpy 1.24.2 / scipy 1.10.1 via scripts/stats-expected.py (run once, numbers
 * pasted); the Welch example is also Wikipedia's "Welch's t-test" example 2 (t = -2.46, df = 25.0,
 * p = 0.021). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "stats.h"

#define assert_near(actual, expected, rel)                                                                \
    do {                                                                                                \
        double a_ = (actual), e_ = (expected);                                                          \
        if (!(fabs(a_ - e_) <= (rel) * fmax(1.0, fabs(e_))))                                            \
            fail_msg("%s = %.17g, expected %.17g", #actual, a_, e_);                                   \
    } while (0)

static const double sample[] = {2.1, 3.4, 1.9, 5.6, 4.2, 3.3, 2.8};

static void summary_matches_numpy(void **state)
{
    pm_stats_summary s;
    assert_int_equal(pm_stats_summarize(sample, 7, &s), PM_STATS_OK);
    assert_int_equal(s.n, 7);
    assert_near(s.mean, 3.3285714285714287, 1e-12);
    assert_near(s.median, 3.3, 1e-12);
    assert_near(s.sd, 1.2750350135248387, 1e-12);
    assert_near(s.min, 1.9, 0);
    assert_near(s.max, 5.6, 0);
    assert_near(s.ci_lo, 2.149360718490438, 1e-9);  /* scipy t.interval(0.95, 6) */
    assert_near(s.ci_hi, 4.50778213865242, 1e-9);
    const double even[] = {4, 1, 3, 2};
    assert_int_equal(pm_stats_summarize(even, 4, &s), PM_STATS_OK);
    assert_near(s.median, 2.5, 0);
}

static void summary_small_n(void **state)
{
    pm_stats_summary s;
    assert_int_equal(pm_stats_summarize(NULL, 0, &s), PM_STATS_TOO_FEW);
    assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.sd) && isnan(s.min) && isnan(s.ci_lo));
    const double one = 7.5;
    assert_int_equal(pm_stats_summarize(&one, 1, &s), PM_STATS_TOO_FEW);
    assert_near(s.mean, 7.5, 0);
    assert_near(s.median, 7.5, 0);
    assert_near(s.max, 7.5, 0);
    assert_true(isnan(s.sd) && isnan(s.ci_lo) && isnan(s.ci_hi));
}

static void quantiles_match_numpy_linear(void **state)
{
    double q;
    assert_int_equal(pm_stats_quantile(sample, 7, 0.9, &q), PM_STATS_OK);
    assert_near(q, 4.760000000000001, 1e-12);
    assert_int_equal(pm_stats_quantile(sample, 7, 0.25, &q), PM_STATS_OK);
    assert_near(q, 2.45, 1e-12);
    assert_int_equal(pm_stats_quantile(sample, 7, 0, &q), PM_STATS_OK);
    assert_near(q, 1.9, 0);
    assert_int_equal(pm_stats_quantile(sample, 7, 1.5, &q), PM_STATS_BAD_INPUT);
    assert_true(isnan(q));
    assert_int_equal(pm_stats_quantile(sample, 0, 0.5, &q), PM_STATS_TOO_FEW);
    assert_true(isnan(q));
}

static void t_crit_matches_scipy(void **state)
{
    assert_near(pm_stats_t_crit(4, 0.95), 2.7764451051977987, 1e-10);
    assert_near(pm_stats_t_crit(1000, 0.95), 1.9623390808264074, 1e-10);
    assert_true(isnan(pm_stats_t_crit(0, 0.95)));
    assert_true(isnan(pm_stats_t_crit(3, 1.0)));
}

static void welch_textbook_example(void **state)
{
    const double a[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
    const double b[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
    pm_stats_welch w;
    assert_int_equal(pm_stats_welch_test(a, 15, b, 15, &w), PM_STATS_OK);
    assert_near(w.t, -2.455356398286006, 1e-10);
    assert_near(w.df, 24.988529290231416, 1e-10);
    assert_near(w.p, 0.021378001462866985, 1e-9);
    /* symmetric */
    assert_int_equal(pm_stats_welch_test(b, 15, a, 15, &w), PM_STATS_OK);
    assert_near(w.t, 2.455356398286006, 1e-10);
    assert_near(w.p, 0.021378001462866985, 1e-9);
    assert_int_equal(pm_stats_welch_test(a, 1, b, 15, &w), PM_STATS_TOO_FEW);
    assert_true(isnan(w.t) && isnan(w.p));
    const double c[] = {3, 3, 3};
    assert_int_equal(pm_stats_welch_test(c, 3, c, 3, &w), PM_STATS_DEGENERATE);
    assert_true(isnan(w.p));
}

static void ratio_of_means_delta_method(void **state)
{
    const double a[] = {10.2, 9.8, 10.5, 10.1, 9.9};
    const double b[] = {5.1, 4.9, 5.3, 5.0};
    pm_stats_ratio r;
    assert_int_equal(pm_stats_ratio_of_means(a, 5, b, 4, &r), PM_STATS_OK);
    assert_near(r.ratio, 1.9901477832512313, 1e-12);
    assert_near(r.se, 0.04127597612077775, 1e-10);
    assert_near(r.df, 5.7602080146462855, 1e-10);
    assert_near(r.ci_lo, 1.8881211229109294, 1e-9);
    assert_near(r.ci_hi, 2.0921744435915333, 1e-9);
    const double zero[] = {0, 0};
    assert_int_equal(pm_stats_ratio_of_means(a, 5, zero, 2, &r), PM_STATS_DEGENERATE);
    assert_true(isnan(r.ratio));
    assert_int_equal(pm_stats_ratio_of_means(a, 1, b, 4, &r), PM_STATS_TOO_FEW);
    assert_near(r.ratio, 10.2 / 5.075, 1e-12);
    assert_true(isnan(r.ci_lo));
}

static void geomean_matches_scipy(void **state)
{
    const double x[] = {1, 2, 4, 8, 3.5};
    double g;
    assert_int_equal(pm_stats_geomean(x, 5, &g), PM_STATS_OK);
    assert_near(g, 2.951546323189104, 1e-12);
    const double bad[] = {1, 0, 2};
    assert_int_equal(pm_stats_geomean(bad, 3, &g), PM_STATS_BAD_INPUT);
    assert_true(isnan(g));
    assert_int_equal(pm_stats_geomean(x, 0, &g), PM_STATS_TOO_FEW);
}

static void powerlaw_exact(void **state)
{
    double x[6], y[6];
    for (int i = 0; i < 6; i++) {
        x[i] = 16.0 * (1 << i);
        y[i] = 3 * pow(x[i], 0.7);
    }
    pm_stats_powerlaw f;
    assert_int_equal(pm_stats_powerlaw_fit(x, y, 6, &f), PM_STATS_OK);
    assert_near(f.b, 0.7, 1e-12);
    assert_near(f.a, 3.0, 1e-10);
    assert_near(f.r2, 1.0, 1e-12);
    assert_true(f.b_se < 1e-10);
    assert_int_equal(f.n, 6);
    assert_int_equal(f.n_skipped, 0);
}

static void powerlaw_noisy_matches_scipy(void **state)
{
    /* plus two points that must be skipped: x = 0 and y < 0 */
    const double x[] = {1, 2, 4, 8, 16, 32, 64, 0, 5};
    const double y[] = {3.1, 4.6, 8.2, 12.9, 22.5, 36.0, 61.0, 1, -2};
    pm_stats_powerlaw f;
    assert_int_equal(pm_stats_powerlaw_fit(x, y, 9, &f), PM_STATS_OK);
    assert_int_equal(f.n, 7);
    assert_int_equal(f.n_skipped, 2);
    assert_near(f.b, 0.7245792440476572, 1e-12);        /* scipy linregress on logs */
    assert_near(f.a, 2.9529727949587636, 1e-11);
    assert_near(f.b_se, 0.010882151759946184, 1e-10);
    assert_near(f.b_ci_lo, 0.6966057823902544, 1e-9);    /* t.ppf(0.975, 5) */
    assert_near(f.b_ci_hi, 0.7525527057050599, 1e-9);
    assert_near(f.r2, 0.998873481662289, 1e-12);
}

static void powerlaw_degenerate_inputs(void **state)
{
    pm_stats_powerlaw f;
    assert_int_equal(pm_stats_powerlaw_fit(NULL, NULL, 0, &f), PM_STATS_TOO_FEW);
    assert_true(isnan(f.b) && isnan(f.r2));
    const double x1[] = {2}, y1[] = {3};
    assert_int_equal(pm_stats_powerlaw_fit(x1, y1, 1, &f), PM_STATS_TOO_FEW);
    assert_true(isnan(f.b));
    const double x2[] = {1, 10}, y2[] = {2, 20};
    assert_int_equal(pm_stats_powerlaw_fit(x2, y2, 2, &f), PM_STATS_TOO_FEW);
    assert_near(f.b, 1.0, 1e-12);
    assert_near(f.a, 2.0, 1e-12);
    assert_true(isnan(f.b_se) && isnan(f.b_ci_lo));
    const double xs[] = {4, 4, 4}, ys[] = {1, 2, 3};
    assert_int_equal(pm_stats_powerlaw_fit(xs, ys, 3, &f), PM_STATS_DEGENERATE);
    assert_true(isnan(f.b));
    const double xn[] = {-1, 0, 3}, yn[] = {1, 1, 1};
    assert_int_equal(pm_stats_powerlaw_fit(xn, yn, 3, &f), PM_STATS_TOO_FEW);
    assert_int_equal(f.n_skipped, 2);
}

static void js_distance(void **state)
{
    double d;
    const double p[] = {0.1, 0.4, 0.5, 0}, q[] = {0.3, 0.3, 0.2, 0.2};
    assert_int_equal(pm_stats_js_distance(p, q, 4, &d), PM_STATS_OK);
    assert_near(d, 0.4368321514012729, 1e-12);  /* scipy jensenshannon(base=2) */
    assert_int_equal(pm_stats_js_distance(q, p, 4, &d), PM_STATS_OK);
    assert_near(d, 0.4368321514012729, 1e-12);
    const double u[] = {1, 2, 3}, v[] = {2, 4, 6};  /* identical after normalising */
    assert_int_equal(pm_stats_js_distance(u, v, 3, &d), PM_STATS_OK);
    assert_near(d, 0.0, 1e-12);
    const double l[] = {1, 0}, r[] = {0, 1};        /* disjoint */
    assert_int_equal(pm_stats_js_distance(l, r, 2, &d), PM_STATS_OK);
    assert_near(d, 1.0, 1e-12);
    const double z[] = {0, 0}, neg[] = {1, -1};
    assert_int_equal(pm_stats_js_distance(z, r, 2, &d), PM_STATS_DEGENERATE);
    assert_true(isnan(d));
    assert_int_equal(pm_stats_js_distance(neg, r, 2, &d), PM_STATS_BAD_INPUT);
    assert_int_equal(pm_stats_js_distance(NULL, NULL, 0, &d), PM_STATS_DEGENERATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_matches_numpy),
        cmocka_unit_test(summary_small_n),
        cmocka_unit_test(quantiles_match_numpy_linear),
        cmocka_unit_test(t_crit_matches_scipy),
        cmocka_unit_test(welch_textbook_example),
        cmocka_unit_test(ratio_of_means_delta_method),
        cmocka_unit_test(geomean_matches_scipy),
        cmocka_unit_test(powerlaw_exact),
        cmocka_unit_test(powerlaw_noisy_matches_scipy),
        cmocka_unit_test(powerlaw_degenerate_inputs),
        cmocka_unit_test(js_distance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
