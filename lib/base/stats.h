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
    double t, p;               /* two-sided Welch test of diff = 0 on the log times */
    double var_a, var_b;       /* per-run log variance of each side, quantisation term included (NaN: n < 3) */
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

/* The ratio's interval from the same computation, exp(diff -/+ t(1 - alpha/2, df) * se): it excludes 1
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

/* Repeats per side that would make an interval of the observed log-scale spread decide under the equivalence
 * rule (compare.h): the interval exp(diff -/+ t * sqrt(var_sum / n)) must fall wholly below log(1 - threshold),
 * wholly above log(1 + threshold), or wholly inside them, with diff where it was observed. var_sum = per-run
 * log variance of A plus that of B (each including its quantisation term); alpha the two-sided level of the
 * interval (Bonferroni's alpha / m). NaN when no n would do it (diff on a boundary, var_sum unknown). */
double pm_stats_repeats_to_decide(double diff, double var_sum, double alpha, double threshold);

/* Adaptive repeats: a config has settled once n >= max_n, or n >= max(min_n, 3) and the relative
 * precision of its log times (pm_stats_log_precision at 95%) is within `precision`. */
int pm_stats_settled(const double *x, size_t n, size_t min_n, size_t max_n, double precision);

#endif
