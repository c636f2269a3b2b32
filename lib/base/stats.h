/* pm_stats: the statistics passmap reports, on GSL. Values must be finite. Every function returns a
 * PM_STATS_* status; fields that cannot be computed are NaN (never a crash on n = 0 or 1). */
#ifndef PM_STATS_H
#define PM_STATS_H

#include <stddef.h>

enum {
    PM_STATS_OK = 0,
    PM_STATS_TOO_FEW = 1,     /* too few values for some fields (those are NaN) */
    PM_STATS_DEGENERATE = 2,  /* zero variance / zero denominator / no mass: the affected fields are NaN */
    PM_STATS_NOMEM = 3,
    PM_STATS_BAD_INPUT = 4,   /* negative probabilities, quantile outside [0,1] */
};

typedef struct pm_stats_summary {
    size_t n;
    double mean, median, sd;  /* sd: sample (n-1); NaN when n < 2 */
    double min, max;
    double ci_lo, ci_hi;      /* 95% CI of the mean, t with n-1 df; NaN when n < 2 */
} pm_stats_summary;

/* n = 0: TOO_FEW, all NaN. n = 1: TOO_FEW, mean/median/min/max set. */
int pm_stats_summarize(const double *x, size_t n, pm_stats_summary *out);

/* Quantile q in [0,1] with linear interpolation between order statistics (GSL; numpy's default). */
int pm_stats_quantile(const double *x, size_t n, double q, double *out);

/* Two-sided critical value of Student's t for confidence conf (0.95) and df degrees of freedom. */
double pm_stats_t_crit(double df, double conf);

typedef struct pm_stats_welch {
    double mean_diff; /* mean(a) - mean(b) */
    double t, df, p;  /* df: Welch-Satterthwaite; p: two-sided */
} pm_stats_welch;

/* Needs na, nb >= 2 (else TOO_FEW); both variances zero: DEGENERATE. */
int pm_stats_welch_test(const double *a, size_t na, const double *b, size_t nb, pm_stats_welch *out);

typedef struct pm_stats_ratio {
    double ratio;         /* mean(a) / mean(b) */
    double se;            /* delta method: ratio * sqrt(va/(na ma^2) + vb/(nb mb^2)) */
    double df;            /* Welch-Satterthwaite over the two relative-variance terms */
    double ci_lo, ci_hi;  /* ratio -/+ t(0.975, df) * se; NaN when na or nb < 2 */
} pm_stats_ratio;

/* Ratio of means of independent samples, 95% CI by the delta method (first-order; fine while the
 * denominator's CV is small, say < 0.1 — the regime of repeated compile times). mean(b) = 0: DEGENERATE. */
int pm_stats_ratio_of_means(const double *a, size_t na, const double *b, size_t nb, pm_stats_ratio *out);

/* exp(mean(log x)); any x <= 0: BAD_INPUT, NaN. n = 0: TOO_FEW. */
int pm_stats_geomean(const double *x, size_t n, double *out);

typedef struct pm_stats_powerlaw {
    double a, b;          /* y = a * x^b, least squares on (ln x, ln y) */
    double b_se;          /* from the residual scatter (n-2 df); NaN when n < 3 */
    double b_ci_lo, b_ci_hi; /* 95%, t with n-2 df */
    double r2;            /* of the log-log fit */
    size_t n;             /* points used */
    size_t n_skipped;     /* points dropped for x <= 0 or y <= 0 */
} pm_stats_powerlaw;

/* n < 2 used points or all x equal: TOO_FEW / DEGENERATE with NaN. n = 2: a, b set, b_se NaN, TOO_FEW. */
int pm_stats_powerlaw_fit(const double *x, const double *y, size_t n, pm_stats_powerlaw *out);

/* Jensen-Shannon distance (sqrt of the base-2 divergence, in [0,1]) between two discrete distributions
 * over the same n bins; each is normalised to sum 1 first. Negative entries: BAD_INPUT; a zero-sum
 * distribution: DEGENERATE. */
int pm_stats_js_distance(const double *p, const double *q, size_t n, double *out);

/* ---- Times and ratios on the log scale. Compile times are positive and right-skewed: their summaries are
 * geometric means with t-intervals of the log times, which never reach zero. An interval needs n >= 3. */
#define PM_STATS_MIN_INTERVAL_N 3

typedef struct pm_stats_logci {
    size_t n;
    double gmean;              /* exp(mean ln x); set for n >= 1 */
    double sd_log;             /* sample sd of ln x; NaN when n < 2 */
    double half_log;           /* t(conf, n-1) * sd_log / sqrt(n): the CI half-width on the log scale */
    double lo, hi;             /* exp(mean ln x -/+ half_log); NaN when n < 3 */
} pm_stats_logci;

/* conf e.g. 0.95. n < 3: TOO_FEW (gmean set when n >= 1, no interval); any x <= 0: BAD_INPUT, all NaN. */
int pm_stats_log_interval(const double *x, size_t n, double conf, pm_stats_logci *out);

/* Relative precision reached: exp(half_log) - 1 (0.03 = the interval is within about +-3%); NaN: n < 3. */
double pm_stats_log_precision(const pm_stats_logci *c);

typedef struct pm_stats_logratio {
    size_t n_a, n_b;
    double ratio;              /* gmean(b) / gmean(a) */
    double diff;               /* mean ln b - mean ln a */
    double se, df;             /* Welch: se of diff, Welch-Satterthwaite df (NaN when se = 0) */
    double t, p;               /* two-sided Welch test on the log times of |diff| beyond bias (diff = 0 when
                                  bias is 0); t carries diff's sign */
    double var_a, var_b;       /* per-run log variance of each side, quantisation term included (NaN: n < 3) */
    double bias;               /* log-scale bound on an error common to every run (the timer rounding of a flat
                                  side: pm_stats_welch_log_tick); the interval is widened by it, n cannot shrink
                                  it. 0: none */
} pm_stats_logratio;

/* Welch's t-test on log times, b against a. Either n < 3: TOO_FEW with only ratio/diff set (no claim).
 * Both samples constant: DEGENERATE with se = 0 and t, df, p NaN: no scatter to judge by is no test (never p = 0
 * from constant samples). Any x <= 0: BAD_INPUT. */
int pm_stats_welch_log(const double *b, size_t nb, const double *a, size_t na, pm_stats_logratio *out);

/* The same test with each side's timer quantisation modelled: qvar_b / qvar_a (s^2, on the linear scale; a
 * reading rounded to a tick of width w carries w^2/12) are added to that side's variance, converted to the log
 * scale by the delta method (qvar / gmean^2). A tick > 0 makes se > 0: quantised or constant samples give a
 * finite t and an interval of honest width, never p = 0. qvar 0: pm_stats_welch_log. */
int pm_stats_welch_log_q(const double *b, size_t nb, double qvar_b, const double *a, size_t na, double qvar_a,
                         pm_stats_logratio *out);

/* The test of values read off a timer (or a meter with a floor) of width `tick`, `reads` rounded readings summed
 * into one value. Rounding acts two ways, and both are modelled:
 *   - where a side's values scatter over a tick or more, each run's rounding is its own: reads * tick^2 / 12 is
 *     added to its variance (pm_stats_welch_log_q), which shrinks with n as the scatter does;
 *   - where a side is flat — its sd under sqrt(reads) ticks, (nearly) every run the same printed value — the
 *     rounding error is the same in every run: a bias of at most reads * tick / 2 that no n averages away. Its
 *     log bound, -ln(1 - reads * tick / (2 * gmean)) per flat side, goes into out->bias.
 * tick 0: pm_stats_welch_log. Deterministic counts (spread 0) with a floor as tick give se > 0 and a finite p. */
int pm_stats_welch_log_tick(const double *b, size_t nb, const double *a, size_t na, double tick, double reads,
                            pm_stats_logratio *out);

/* The ratio's interval from the same computation, exp(diff -/+ (t(1 - alpha/2, df) * se + bias)): it excludes 1
 * exactly when p < alpha. NaN when the test was not computable. */
void pm_stats_logratio_ci(const pm_stats_logratio *r, double alpha, double *lo, double *hi);

/* Holm's step-down adjustment of m p-values (NaN entries are not tests: they stay NaN and do not count in
 * m). adj may alias p. NOMEM on allocation failure. */
int pm_stats_holm(const double *p, size_t m, double *adj);

/* Per-test level that makes a test's interval agree with its Holm-adjusted p-value: a test with raw p and
 * adjusted p_adj uses alpha * p / p_adj (alpha / rank-multiplier when p_adj = multiplier * p), so its
 * interval at 1 - level excludes the null exactly when p_adj < alpha. */
double pm_stats_holm_level(double p, double p_adj, double alpha);

/* Outliers by the median absolute deviation (modified z-score, Iglewicz & Hoaglin):
 * z_i = 0.6745 (x_i - median) / MAD; flag[i] = |z_i| > limit. MAD = 0: only values different from the median
 * are flagged. Returns the count through *n_out. n < 3: TOO_FEW, none flagged. */
int pm_stats_mad_outliers(const double *x, size_t n, double limit, int *flag, size_t *n_out);

/* The limit passmap uses, on log times (there the modified z-score of lognormal data does not depend on its
 * spread). Iglewicz & Hoaglin's 3.5 assumes large n: on clean lognormal samples it flags 21% of samples at n = 5
 * and 29% at n = 3, because the MAD of a few values is itself noisy. 10 flags 3.2% at n = 5 (<= 5%, the target),
 * 0.2% at n = 10 and 11% at n = 3 (the simulation in tests/unit/test_verdict.c measures and states it);
 * hyperfine's 14.826 is in the same range. */
#define PM_STATS_OUTLIER_LIMIT 10.0

/* pm_stats_mad_outliers on ln x at PM_STATS_OUTLIER_LIMIT. Any x <= 0: BAD_INPUT, none flagged. */
int pm_stats_log_outliers(const double *x, size_t n, int *flag, size_t *n_out);

/* Runs per side at which the verdict rule (compare.h) would decide a row of the observed log-scale spread: the
 * smallest n >= 3 whose interval exp(diff -/+ (t(1 - alpha/2, df_n) * sqrt((var_a + var_b) / n) + bias)) falls
 * wholly below log(1 - threshold), wholly above log(1 + threshold), or wholly inside them, with diff where it was
 * observed; df_n is Welch's for n runs a side, (n - 1)(var_a + var_b)^2 / (var_a^2 + var_b^2), the df the rule
 * would use. The half-width falls strictly with n, so the search (doubling, then bisection) is monotone and
 * returns the minimum. The uncertainty: lo and hi are the same search at the ends of the 80% chi-square interval
 * of the spread (df_seen, the Welch df of the observed runs), diff held. var_*: per-run log variances with their
 * quantisation terms; bias: the rounding bound (pm_stats_logratio.bias); alpha: the interval's two-sided level
 * (Bonferroni's alpha / m). n is NaN when no n decides: diff on a boundary, or the rounding bound alone as wide
 * as the margin (more runs cannot help), or the inputs unknown; hi is INFINITY when the spread's upper end
 * cannot decide. */
typedef struct pm_stats_runs {
    double n, lo, hi;
} pm_stats_runs;

void pm_stats_runs_to_decide(double diff, double var_a, double var_b, double bias, double df_seen, double alpha,
                             double threshold, pm_stats_runs *out);

/* The point of pm_stats_runs_to_decide with var_sum split evenly between the sides (df 2n - 2), no bias. */
double pm_stats_repeats_to_decide(double diff, double var_sum, double alpha, double threshold);

/* Adaptive repeats: a config has settled once n >= max_n, or n >= max(min_n, 3) and the relative
 * precision of its log times (pm_stats_log_precision at 95%) is within `precision`. */
int pm_stats_settled(const double *x, size_t n, size_t min_n, size_t max_n, double precision);

#endif
