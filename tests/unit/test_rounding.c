/* Timer rounding as it behaves (issue 35): when a side's runs all print (nearly) the same value, the rounding error
 * is the same in every run — a bias bounded by reads * tick / 2 that no number of runs averages away — not per-run
 * noise that shrinks with n. Checked on the flat-tick example, on a seeded simulation (10-20 ticks, CV
 * 0.2%, n = 10, ten rows a family: familywise coverage and false claims), and on a deterministic meter's counts
 * passed with a count floor as the tick (spread 0, +-1 count, 3% apart). The measured rates are printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare.h"
#include "stats.h"
#include "sim_rng.h"

static void fill(double *x, size_t n, double v)
{
    for (size_t i = 0; i < n; i++)
        x[i] = v;
}

/* One row tested and corrected alone (a family of one). */
static pm_compare_stat one_row(const double *a, size_t na, const double *b, size_t nb, double tick)
{
    pm_compare_stat st, *p = &st;
    pm_compare_test_tick(a, na, b, nb, tick, 1, &st);
    assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
    return st;
}

/* The example: a true 1.149 ms against 1.1605 ms (1.010, inside the 2% threshold), printed by a 0.1 ms
 * report as 0.0011 in all 10 A runs and 0.0012 in all 10 B runs. It read "slower" [1.061, 1.121]. */
static void test_flat_ticks_example(void **state)
{
    (void)state;
    double a[10], b[10];
    fill(a, 10, 0.0011);
    fill(b, 10, 0.0012);
    pm_compare_stat st = one_row(a, 10, b, 10, 1e-4);
    print_message("flat ticks 0.0011 x10 vs 0.0012 x10: %s, interval [%.3f, %.3f], p %.3g\n",
                  pm_compare_verdict_name(st.verdict), st.ci_lo, st.ci_hi, st.p);
    assert_true(st.verdict == PM_VERDICT_BELOW_RESOLUTION || st.verdict == PM_VERDICT_UNDECIDED);
    assert_true(st.ci_lo < 1.010 && 1.010 < st.ci_hi);   /* the truth is inside */
    assert_true(st.bias_log > 0);
    /* nearly flat (one run a tick up) is the same case */
    b[3] = 0.0013;
    st = one_row(a, 10, b, 10, 1e-4);
    assert_true(st.verdict != PM_VERDICT_SLOWER && st.verdict != PM_VERDICT_FASTER);
    /* values that scatter over many ticks keep the per-run term only: no bias, the row can decide */
    for (int i = 0; i < 10; i++)
        a[i] = 0.0100 + 0.0004 * (i % 5), b[i] = 0.0120 + 0.0004 * (i % 5);
    st = one_row(a, 10, b, 10, 1e-4);
    assert_true(st.bias_log == 0);
    assert_int_equal(st.verdict, PM_VERDICT_SLOWER);
}

/* Ten rows a family, each side at 10-20 ticks of a 0.1 ms timer (A's geometric mean drawn so both sides stay at
 * 10 ticks or more), CV 0.2%, n = 10, true ratios 0.97-1.03: the share of families whose printed intervals all
 * hold their true ratios, and claims (faster/slower) where the truth is within the threshold or the other way. */
static void test_flat_ticks_coverage(void **state)
{
    (void)state;
    enum { M = 10, N = 10, FAMILIES = 2000 };
    const double tick = 1e-4, sigma = 0.002;
    rng r = {0x35f1a7};
    int covered = 0;
    size_t rows = 0, false_claims = 0, flat = 0, below = 0, verdicts[PM_VERDICT_OUTSIDE + 1] = {0};
    for (int f = 0; f < FAMILIES; f++) {
        pm_compare_stat st[M], *ptr[M];
        double truth[M];
        for (int k = 0; k < M; k++) {
            double a[N], b[N], gm = tick * (10.5 + 8.5 * uniform(&r));
            truth[k] = 0.97 + 0.06 * uniform(&r);
            if (gm * truth[k] < 10.3 * tick)
                truth[k] = 10.3 * tick / gm;
            for (int i = 0; i < N; i++) {
                a[i] = round(gm * exp(sigma * normal(&r)) / tick) * tick;
                b[i] = round(gm * truth[k] * exp(sigma * normal(&r)) / tick) * tick;
            }
            pm_compare_test_tick(a, N, b, N, tick, 1, &st[k]);
            ptr[k] = &st[k];
        }
        assert_int_equal(pm_compare_correct(ptr, M, 0.05, 0.02), 0);
        int all_in = 1;
        for (int k = 0; k < M; k++) {
            if (isnan(st[k].ci_lo)) {   /* no test (under 10 ticks after rounding): no claim to hold */
                below += st[k].verdict == PM_VERDICT_BELOW_RESOLUTION;
                continue;
            }
            rows++;
            flat += st[k].bias_log > 0;
            verdicts[st[k].verdict]++;
            all_in &= st[k].ci_lo <= truth[k] && truth[k] <= st[k].ci_hi;
            int claim_slower = st[k].verdict == PM_VERDICT_SLOWER, claim_faster = st[k].verdict == PM_VERDICT_FASTER;
            false_claims += (claim_slower && truth[k] <= 1.02) || (claim_faster && truth[k] >= 0.98);
        }
        covered += all_in;
    }
    double cov = (double)covered / FAMILIES;
    print_message("flat ticks (10-20 ticks of 0.1 ms, CV 0.2%%, n=10, m=10, %d families): familywise coverage %.3f; "
                  "false faster/slower %zu of %zu tested rows (%zu with a flat side, its rounding a bias; %zu rows "
                  "under 10 ticks); verdicts: same %zu, undecided %zu, below resolution %zu\n", FAMILIES, cov,
                  false_claims, rows, flat, below, verdicts[PM_VERDICT_SAME], verdicts[PM_VERDICT_UNDECIDED],
                  verdicts[PM_VERDICT_BELOW_RESOLUTION]);
    assert_true(cov >= 0.94);
    assert_true((double)false_claims / (double)rows <= 0.005);
    assert_true(flat > 0);
}

/* A deterministic meter's counts (instructions), its floor passed as the tick: spread zero or a count. */
static void test_meter_counts(void **state)
{
    (void)state;
    double a[3], b[3];
    const double floors[] = {1, 1e9 * 1e-5};   /* one count; 0.001% of the mean */
    for (int k = 0; k < 2; k++) {
        /* both constant and identical: same, never NaN or a division by zero */
        fill(a, 3, 1e9);
        fill(b, 3, 1e9);
        pm_compare_stat st = one_row(a, 3, b, 3, floors[k]);
        assert_int_equal(st.verdict, PM_VERDICT_SAME);
        assert_true(isfinite(st.p) && isfinite(st.ci_lo) && isfinite(st.ci_hi) && st.ratio == 1);
        /* both constant, 3% apart: slower at n = 3 */
        fill(b, 3, 1.03e9);
        st = one_row(a, 3, b, 3, floors[k]);
        assert_int_equal(st.verdict, PM_VERDICT_SLOWER);
        assert_true(st.ci_lo > 1.02 && st.ci_hi < 1.04 && st.p > 0 && st.p < 0.05);
        fill(b, 3, 0.97e9);
        assert_int_equal(one_row(a, 3, b, 3, floors[k]).verdict, PM_VERDICT_FASTER);
        /* +-1 count: same */
        a[0] = 1e9 - 1, a[1] = 1e9, a[2] = 1e9 + 1;
        b[0] = 1e9 + 1, b[1] = 1e9, b[2] = 1e9;
        st = one_row(a, 3, b, 3, floors[k]);
        assert_int_equal(st.verdict, PM_VERDICT_SAME);
        assert_true(isfinite(st.p));
    }
    /* 0.5% apart, constant: same at the 2% threshold */
    fill(a, 3, 1e9);
    fill(b, 3, 1.005e9);
    assert_int_equal(one_row(a, 3, b, 3, 1).verdict, PM_VERDICT_SAME);
    /* a floor so coarse that the difference is within it: below resolution, no n would settle it */
    fill(b, 3, 1.03e9);
    pm_compare_stat st = one_row(a, 3, b, 3, 0.08e9);
    assert_int_equal(st.verdict, PM_VERDICT_BELOW_RESOLUTION);
    assert_true(isnan(st.repeats_needed));
}

/* The bias at the stats layer: a flat side's bound, none for a scattered one, and p of what lies beyond it. */
static void test_stats_bias(void **state)
{
    (void)state;
    double a[5], b[5];
    fill(a, 5, 100);
    fill(b, 5, 110);
    pm_stats_logratio r;
    assert_int_equal(pm_stats_welch_log_tick(b, 5, a, 5, 1, 1, &r), PM_STATS_OK);
    assert_true(fabs(r.bias - (-log1p(-0.5 / 100) - log1p(-0.5 / 110))) < 1e-12);
    double lo, hi;
    pm_stats_logratio_ci(&r, 0.05, &lo, &hi);
    assert_true(lo < 1.1 * (1 - 0.009) && hi > 1.1 * (1 + 0.009));   /* widened by about a tick each side */
    assert_true(r.p < 1e-6);   /* 10 ticks apart: well beyond the bound */
    fill(b, 5, 101);
    assert_int_equal(pm_stats_welch_log_tick(b, 5, a, 5, 1, 1, &r), PM_STATS_OK);
    assert_true(r.p == 1 && r.t == 0);   /* within the bound: nothing beyond it */
    for (int i = 0; i < 5; i++)
        a[i] = 100 + 3 * i, b[i] = 110 + 3 * i;
    assert_int_equal(pm_stats_welch_log_tick(b, 5, a, 5, 1, 1, &r), PM_STATS_OK);
    assert_true(r.bias == 0);
    /* no tick: the plain test, no bias */
    assert_int_equal(pm_stats_welch_log_tick(b, 5, a, 5, 0, 1, &r), PM_STATS_OK);
    assert_true(r.bias == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_ticks_example),
        cmocka_unit_test(test_flat_ticks_coverage),
        cmocka_unit_test(test_meter_counts),
        cmocka_unit_test(test_stats_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
