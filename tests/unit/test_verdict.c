/* The verdict rule on synthetic runs (issue 18): a seeded generator of A/B samples with known ratios, noise and
 * timer ticks; every verdict checked against the rule written out here over hundreds of families; the familywise
 * coverage of the printed simultaneous intervals; the quantised-constant case; the outlier false-flag rate; the
 * repeats estimate; each report format's tick. The measured rates are printed (the test states what it saw). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "parse.h"
#include "run.h"
#include "stats.h"

/* ---- the generator: xorshift64*, Box-Muller; lognormal runs rounded to the timer's tick ---- */
typedef struct rng {
    uint64_t s;
} rng;

static double uniform(rng *r)
{
    r->s ^= r->s >> 12, r->s ^= r->s << 25, r->s ^= r->s >> 27;
    return ((r->s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(rng *r)
{
    double u = uniform(r), v = uniform(r);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* n runs of a time with geometric mean gm and log-sd sigma, read off a timer of tick `tick` (0: exact). */
static void gen(rng *r, double gm, double sigma, double tick, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double x = gm * exp(sigma * normal(r));
        out[i] = tick > 0 ? round(x / tick) * tick : x;
    }
}

static size_t pick(rng *r, size_t n)
{
    size_t k = (size_t)(uniform(r) * (double)n);
    return k < n ? k : n - 1;
}

/* ---- every verdict against the rule ---- */
enum { MAX_M = 12, MAX_N = 10 };

static void test_every_verdict_follows_the_rule(void **state)
{
    (void)state;
    static const double ratios[] = {0.6, 0.8, 0.9, 0.95, 0.97, 0.99, 1.0, 1.01, 1.03, 1.05, 1.1, 1.3};
    static const double sigmas[] = {0, 0.003, 0.01, 0.03, 0.08, 0.2};
    static const double ticks[] = {0, PM_RUN_CLOCK_TICK_S, 1e-4, 1e-3};
    static const double bases[] = {2e-4, 5e-4, 2e-3, 0.02, 0.5};
    static const size_t ns[] = {2, 3, 4, 5, 10};
    rng r = {0x9e3779b97f4a7c15ull};
    size_t counts[PM_VERDICT_OUTSIDE + 1] = {0}, families = 0, zero_width = 0, p_zero = 0;
    for (int fam = 0; fam < 400; fam++) {
        size_t m = 2 + pick(&r, MAX_M - 1);
        pm_compare_stat st[MAX_M], *ptr[MAX_M];
        double tick[MAX_M];
        size_t tested = 0;
        for (size_t k = 0; k < m; k++) {
            double a[MAX_N], b[MAX_N], base = bases[pick(&r, 5)], sigma = sigmas[pick(&r, 6)];
            size_t n = ns[pick(&r, 5)];
            tick[k] = ticks[pick(&r, 4)];
            gen(&r, base, sigma, tick[k], n, a);
            gen(&r, base * ratios[pick(&r, 12)], sigma, tick[k], n, b);
            pm_compare_test_tick(a, n, b, n, tick[k], 1, &st[k]);
            ptr[k] = &st[k];
            tested += !isnan(st[k].p);
        }
        assert_int_equal(pm_compare_correct(ptr, m, 0.05, 0.02), 0);
        families++;
        for (size_t k = 0; k < m; k++) {
            const pm_compare_stat *x = &st[k];
            counts[x->verdict]++;
            int positive = x->mean_a > 0 && x->mean_b > 0 && x->gmean_a > 0 && x->gmean_b > 0;
            int below = tick[k] > 0 && positive && fmax(x->mean_a, x->mean_b) < PM_COMPARE_RESOLUTION_TICKS * tick[k];
            if (below) {   /* within a few ticks: no test, no claim, no interval */
                assert_int_equal(x->verdict, PM_VERDICT_BELOW_RESOLUTION);
                assert_true(isnan(x->p) && isnan(x->ci_lo));
                continue;
            }
            if (x->n_a < 3 || x->n_b < 3 || isnan(x->p)) {   /* n < 3, a zero reading, or constant without tick */
                assert_int_equal(x->verdict, PM_VERDICT_NA);
                assert_true(isnan(x->ci_lo) && isnan(x->t) && isnan(x->p));
                continue;
            }
            /* tested: interval at 0.05 / m of the tested rows, never zero-width, p never 0 from quantisation */
            assert_int_equal(x->family_m, tested);
            assert_true(fabs(x->level - 0.05 / (double)tested) < 1e-15);
            zero_width += !(x->ci_lo < x->ci_hi);
            p_zero += !(x->p > 0);
            assert_true(x->ci_lo < x->ratio && x->ratio < x->ci_hi);
            pm_compare_verdict want = x->ci_hi < 0.98                     ? PM_VERDICT_FASTER
                                      : x->ci_lo > 1.02                   ? PM_VERDICT_SLOWER
                                      : x->ci_lo >= 0.98 && x->ci_hi <= 1.02 ? PM_VERDICT_SAME
                                                                          : PM_VERDICT_UNDECIDED;
            if (want == PM_VERDICT_UNDECIDED && x->verdict == PM_VERDICT_BELOW_RESOLUTION) {
                /* tested, but its rounding bound alone reaches past a threshold: no n would settle it */
                assert_true(x->bias_log > 0 && isnan(x->repeats_needed));
                counts[PM_VERDICT_UNDECIDED]++;   /* the branch of the rule it took */
                continue;
            }
            assert_int_equal(x->verdict, want);
            if (want == PM_VERDICT_FASTER || want == PM_VERDICT_SLOWER)
                assert_true(x->p_holm < 0.05);   /* a claim is also Holm-significant */
            if (want == PM_VERDICT_UNDECIDED && isfinite(x->repeats_needed))
                assert_true(x->repeats_needed >= 3);
        }
    }
    print_message("verdict rule: %zu families; faster %zu, slower %zu, same %zu, undecided %zu, below resolution "
                  "%zu, n/a %zu; zero-width intervals %zu, p = 0 %zu\n", families, counts[PM_VERDICT_FASTER],
                  counts[PM_VERDICT_SLOWER], counts[PM_VERDICT_SAME], counts[PM_VERDICT_UNDECIDED],
                  counts[PM_VERDICT_BELOW_RESOLUTION], counts[PM_VERDICT_NA], zero_width, p_zero);
    assert_true(families >= 200);
    assert_int_equal(zero_width, 0);
    assert_int_equal(p_zero, 0);
    /* the generator reaches every outcome, so each branch of the rule was checked */
    for (int v = PM_VERDICT_NA; v <= PM_VERDICT_BELOW_RESOLUTION; v++)
        if (v != PM_VERDICT_CONTENDED)
            assert_true(counts[v] > 0);
}

/* ---- familywise coverage of the simultaneous intervals ---- */
/* Familywise coverage of the printed intervals; *holm_cov (when given): the same of the intervals at the per-row
 * level matched to Holm's adjusted p, which passmap printed before (pm_stats_holm_level). */
static double coverage(rng *r, size_t m, size_t n, double sigma, double base, double tick, int trials,
                       double *holm_cov)
{
    int all_in = 0, holm_in = 0;
    for (int t = 0; t < trials; t++) {
        pm_compare_stat st[MAX_M], *ptr[MAX_M];
        double truth[MAX_M];
        for (size_t k = 0; k < m; k++) {
            double a[MAX_N], b[MAX_N];
            truth[k] = 0.8 + 0.4 * (double)k / (double)(m - 1);   /* real effects, 0.8x .. 1.2x */
            gen(r, base, sigma, tick, n, a);
            gen(r, base * truth[k], sigma, tick, n, b);
            pm_compare_test_tick(a, n, b, n, tick, 1, &st[k]);
            ptr[k] = &st[k];
        }
        assert_int_equal(pm_compare_correct(ptr, m, 0.05, 0.02), 0);
        int ok = 1, hok = 1;
        for (size_t k = 0; k < m; k++) {
            ok &= st[k].ci_lo <= truth[k] && truth[k] <= st[k].ci_hi;
            pm_stats_logratio lr = {.ratio = st[k].ratio, .diff = log(st[k].ratio), .se = st[k].se_log,
                                    .df = st[k].df, .p = st[k].p};
            double lo, hi;
            pm_stats_logratio_ci(&lr, pm_stats_holm_level(st[k].p, st[k].p_holm, 0.05), &lo, &hi);
            hok &= lo <= truth[k] && truth[k] <= hi;
        }
        all_in += ok;
        holm_in += hok;
    }
    if (holm_cov)
        *holm_cov = (double)holm_in / trials;
    return (double)all_in / trials;
}

static void test_simultaneous_coverage(void **state)
{
    (void)state;
    rng r = {12345};
    /* the issue measured 0.897 at m = 10 for the Holm-level intervals; the printed ones claim 95% together */
    double holm10;
    double c10 = coverage(&r, 10, 5, 0.05, 0.5, 0, 2000, &holm10);
    double c4 = coverage(&r, 4, 3, 0.1, 0.5, 0, 2000, NULL);
    /* quantised at 0.1 ms around 2 ms (20 ticks): the tick's variance keeps the claim honest */
    double cq = coverage(&r, 10, 5, 0.01, 2e-3, 1e-4, 2000, NULL);
    print_message("familywise coverage of the 95%% simultaneous intervals (2000 families each): m=10 n=5 "
                  "sigma=0.05: %.3f (the Holm-level intervals printed before: %.3f); m=4 n=3 sigma=0.1: %.3f; "
                  "m=10 n=5 sigma=0.01 at 20 ticks: %.3f\n", c10, holm10, c4, cq);
    assert_true(holm10 < 0.94);   /* why they were replaced (the issue measured 0.897) */
    assert_true(c10 >= 0.94);
    assert_true(c4 >= 0.94);
    assert_true(cq >= 0.94);
}

/* ---- the quantised-constant case of the issue ---- */
static void test_quantised_constant(void **state)
{
    (void)state;
    const double a[5] = {4e-4, 4e-4, 4e-4, 4e-4, 4e-4}, b[5] = {5e-4, 5e-4, 5e-4, 5e-4, 5e-4};
    pm_compare_stat st, *p = &st;
    /* 0.4 ms against 0.5 ms, one tick of a 0.1 ms report apart: below resolution, no test */
    pm_compare_test_tick(a, 5, b, 5, 1e-4, 1, &st);
    assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
    assert_int_equal(st.verdict, PM_VERDICT_BELOW_RESOLUTION);
    assert_string_equal(pm_compare_verdict_name(st.verdict), "below resolution");
    assert_true(isnan(st.p) && isnan(st.t) && isnan(st.ci_lo));
    assert_int_equal(st.family_m, 0);
    /* ten times longer (40 and 50 ticks), still constant: tested with the rounding's variance, an interval of
     * honest width around 1.25, p > 0 */
    const double a2[5] = {4e-3, 4e-3, 4e-3, 4e-3, 4e-3}, b2[5] = {5e-3, 5e-3, 5e-3, 5e-3, 5e-3};
    pm_compare_test_tick(a2, 5, b2, 5, 1e-4, 1, &st);
    assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
    assert_true(st.ci_lo < 1.25 && 1.25 < st.ci_hi && st.p > 0 && isfinite(st.t));
    assert_int_equal(st.verdict, PM_VERDICT_SLOWER);
    /* the JSON never says t: null with p: 0 */
    pm_compare_config cfg = {.key = "k", .key_a = "k/a", .key_b = "k/b", .regime = "-", .wall = st};
    pm_compare_result res = {.a = {.path = "a", .variant = ""}, .b = {.path = "b", .variant = ""},
                             .configs = &cfg, .n_configs = 1, .geomean_ratio = NAN, .geomean_ci_lo = NAN,
                             .geomean_ci_hi = NAN};
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {   /* and the below-resolution row */
            pm_compare_test_tick(a, 5, b, 5, 1e-4, 1, &cfg.wall);
            assert_int_equal(pm_compare_correct((pm_compare_stat *[]){&cfg.wall}, 1, 0.05, 0.02), 0);
        }
        json_t *j = pm_compare_to_json(&res);
        assert_non_null(j);
        json_t *w = json_object_get(json_array_get(json_object_get(j, "configs"), 0), "wall");
        json_t *t = json_object_get(w, "t"), *pv = json_object_get(w, "p");
        assert_false(json_is_null(t) && json_is_number(pv) && json_number_value(pv) == 0);
        assert_false(json_is_number(pv) && json_number_value(pv) == 0);
        json_decref(j);
    }
    /* constant samples without a declared tick: no test (never p = 0 from no scatter) */
    pm_compare_test(a2, 5, b2, 5, &st);
    assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
    assert_int_equal(st.verdict, PM_VERDICT_NA);
    assert_true(isnan(st.p));
}

/* ---- outlier limit: false flags on clean lognormal data ---- */
static double false_flags(rng *r, size_t n, double sigma, int trials)
{
    int flagged = 0, flag[MAX_N];
    double x[MAX_N];
    for (int t = 0; t < trials; t++) {
        gen(r, 1.0, sigma, 0, n, x);
        size_t k = 0;
        pm_stats_log_outliers(x, n, flag, &k);
        flagged += k > 0;
    }
    return (double)flagged / trials;
}

static void test_outlier_false_flag_rate(void **state)
{
    (void)state;
    rng r = {2026};
    enum { T = 20000 };
    double f3 = false_flags(&r, 3, 0.1, T), f5 = false_flags(&r, 5, 0.1, T), f10 = false_flags(&r, 10, 0.1, T);
    double f5w = false_flags(&r, 5, 0.5, T);   /* on log times the rate does not depend on the spread */
    /* the old limit, 3.5 on the raw times */
    int old = 0, flag[5];
    for (int t = 0; t < T; t++) {
        double x[5];
        size_t k;
        gen(&r, 1.0, 0.1, 0, 5, x);
        pm_stats_mad_outliers(x, 5, 3.5, flag, &k);
        old += k > 0;
    }
    print_message("outlier false flags on clean lognormal samples (%d each, limit %.1f on log times): n=3 %.3f, "
                  "n=5 %.3f (sigma 0.5: %.3f), n=10 %.4f; the old 3.5 at n=5: %.3f\n", T, PM_STATS_OUTLIER_LIMIT,
                  f3, f5, f5w, f10, (double)old / T);
    assert_true(f5 <= 0.05);
    assert_true(f5w <= 0.05);
    assert_true(f10 <= 0.05);
    assert_true((double)old / T > 0.15);   /* what the issue found (21%) */
    /* a real outlier is still flagged: one run 3x the others */
    const double x[5] = {1.00, 1.02, 0.99, 1.01, 3.0};
    size_t k;
    assert_int_equal(pm_stats_log_outliers(x, 5, flag, &k), PM_STATS_OK);
    assert_int_equal(k, 1);
    assert_true(flag[4]);
}

/* ---- the repeats estimate settles what it says it settles ---- */
static void test_repeats_estimate(void **state)
{
    (void)state;
    rng r = {77};
    double a[3], b[3];
    pm_compare_stat st, *p = &st;
    /* a true 10% gain at 8% noise, 3 runs: undecided */
    do {
        gen(&r, 1.0, 0.08, 0, 3, a);
        gen(&r, 0.9, 0.08, 0, 3, b);
        pm_compare_test(a, 3, b, 3, &st);
        assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
    } while (st.verdict != PM_VERDICT_UNDECIDED || !isfinite(st.repeats_needed));
    size_t n = (size_t)st.repeats_needed;
    assert_true(n >= 3);
    /* at the estimated repeats, new samples of the same machine decide in most trials */
    double *xa = malloc(n * sizeof *xa), *xb = malloc(n * sizeof *xb);
    assert_true(xa && xb);
    int decided = 0;
    for (int t = 0; t < 200; t++) {
        gen(&r, 1.0, 0.08, 0, n, xa);
        gen(&r, 0.9, 0.08, 0, n, xb);
        pm_compare_test(xa, n, xb, n, &st);
        assert_int_equal(pm_compare_correct(&p, 1, 0.05, 0.02), 0);
        decided += st.verdict == PM_VERDICT_FASTER;
    }
    print_message("repeats estimate: %zu runs/side; at that n, 200 new A/Bs read faster %d times\n", n, decided);
    free(xa);
    free(xb);
    assert_true(decided >= 50);
    /* the estimate itself */
    assert_true(isnan(pm_stats_repeats_to_decide(log1p(-0.02), 0.01, 0.05, 0.02)));   /* on a boundary */
    double n_far = pm_stats_repeats_to_decide(log(0.5), 0.01, 0.05, 0.02);
    double n_near = pm_stats_repeats_to_decide(log(0.95), 0.01, 0.05, 0.02);
    assert_true(n_far >= 3 && n_near > n_far);
}

/* ---- each report format declares its tick ---- */
static void test_format_ticks(void **state)
{
    (void)state;
    assert_true(pm_format_tick_s(PM_FMT_MLIR_TEXT) == 1e-4);
    assert_true(pm_format_tick_s(PM_FMT_LLVM_TEXT) == 1e-4);
    assert_true(pm_format_tick_s(PM_FMT_MLIR_JSON) == 1e-4);
    assert_true(pm_format_tick_s(PM_FMT_CHROME_TRACE) == 1e-6);
    assert_true(pm_format_tick_s(PM_FMT_NPU_LOG) == 1e-4);
    assert_true(pm_format_tick_s(PM_FMT__COUNT) == 0);
    /* every format that yields pass times declares a tick (a new row of the format table needs one) */
    for (int f = PM_FMT_AUTO + 1; f < PM_FMT__COUNT; f++) {
        if (f == PM_FMT_LLVM_JSON || f == PM_FMT_NPU_SCHEDULE || f == PM_FMT_NPU_STRATEGY ||
            f == PM_FMT_NPU_TASK_STATS)
            continue;   /* metrics only (llvm-json: LLVM 22 has none) */
        if (!(pm_format_tick_s((pm_format)f) > 0))
            fail_msg("format %s declares no tick", pm_format_name((pm_format)f));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_verdict_follows_the_rule),
        cmocka_unit_test(test_simultaneous_coverage),
        cmocka_unit_test(test_quantised_constant),
        cmocka_unit_test(test_outlier_false_flag_rate),
        cmocka_unit_test(test_repeats_estimate),
        cmocka_unit_test(test_format_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
