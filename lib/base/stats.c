/* pm_stats on GSL. Inputs are checked before GSL sees them: GSL's default error handler aborts, and a
 * library must not replace that process-wide handler. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Whole degrees of freedom up to this many at 95% are remembered: a report asks for the same few quantiles (one
 * per repeat count) tens of thousands of times, and GSL's inversion is an iterative incomplete-beta solve. */
#define PM_T_CRIT_CACHE 256

double pm_stats_t_crit(double df, double conf)
{
    if (!(df > 0) || !(conf > 0 && conf < 1))
        return NAN;
    if (conf == 0.95 && df < PM_T_CRIT_CACHE && df == (double)(int)df) {
        static _Thread_local double known[PM_T_CRIT_CACHE];   /* 0: not computed yet (a quantile is > 0) */
        int i = (int)df;
        if (!(known[i] > 0))
            known[i] = gsl_cdf_tdist_Pinv(0.5 + conf / 2, df);
        return known[i];
    }
    return gsl_cdf_tdist_Pinv(0.5 + conf / 2, df);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (s) {
        memcpy(s, x, n * sizeof *s);
        gsl_sort(s, 1, n);
    }
    return s;
}

int pm_stats_summarize(const double *x, size_t n, pm_stats_summary *out)
{
    *out = (pm_stats_summary){.n = n, .mean = NAN, .median = NAN, .sd = NAN, .min = NAN, .max = NAN,
                              .ci_lo = NAN, .ci_hi = NAN};
    if (n == 0)
        return PM_STATS_TOO_FEW;
    double *s = sorted_copy(x, n);
    if (!s)
        return PM_STATS_NOMEM;
    out->mean = gsl_stats_mean(s, 1, n);
    out->median = gsl_stats_median_from_sorted_data(s, 1, n);
    out->min = s[0];
    out->max = s[n - 1];
    int rc = PM_STATS_TOO_FEW;
    if (n >= 2) {
        out->sd = gsl_stats_sd_m(s, 1, n, out->mean);
        double half = pm_stats_t_crit((double)(n - 1), 0.95) * out->sd / sqrt((double)n);
        out->ci_lo = out->mean - half;
        out->ci_hi = out->mean + half;
        rc = PM_STATS_OK;
    }
    free(s);
    return rc;
}

int pm_stats_quantile(const double *x, size_t n, double q, double *out)
{
    *out = NAN;
    if (!(q >= 0 && q <= 1))
        return PM_STATS_BAD_INPUT;
    if (n == 0)
        return PM_STATS_TOO_FEW;
    double *s = sorted_copy(x, n);
    if (!s)
        return PM_STATS_NOMEM;
    *out = gsl_stats_quantile_from_sorted_data(s, 1, n, q);
    free(s);
    return PM_STATS_OK;
}

int pm_stats_welch_test(const double *a, size_t na, const double *b, size_t nb, pm_stats_welch *out)
{
    *out = (pm_stats_welch){.mean_diff = NAN, .t = NAN, .df = NAN, .p = NAN};
    if (na == 0 || nb == 0)
        return PM_STATS_TOO_FEW;
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    out->mean_diff = ma - mb;
    if (na < 2 || nb < 2)
        return PM_STATS_TOO_FEW;
    double ua = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
    double ub = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
    if (!(ua + ub > 0))
        return PM_STATS_DEGENERATE;
    out->t = out->mean_diff / sqrt(ua + ub);
    out->df = (ua + ub) * (ua + ub) / (ua * ua / (double)(na - 1) + ub * ub / (double)(nb - 1));
    out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    return PM_STATS_OK;
}

int pm_stats_ratio_of_means(const double *a, size_t na, const double *b, size_t nb, pm_stats_ratio *out)
{
    *out = (pm_stats_ratio){.ratio = NAN, .se = NAN, .df = NAN, .ci_lo = NAN, .ci_hi = NAN};
    if (na == 0 || nb == 0)
        return PM_STATS_TOO_FEW;
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    if (mb == 0)
        return PM_STATS_DEGENERATE;
    out->ratio = ma / mb;
    if (na < 2 || nb < 2)
        return PM_STATS_TOO_FEW;
    if (ma == 0)
        return PM_STATS_DEGENERATE; /* relative variance of a undefined */
    /* Relative variances of the two means; var(ratio) ~ ratio^2 * (ra + rb). */
    double ra = gsl_stats_variance_m(a, 1, na, ma) / ((double)na * ma * ma);
    double rb = gsl_stats_variance_m(b, 1, nb, mb) / ((double)nb * mb * mb);
    out->se = fabs(out->ratio) * sqrt(ra + rb);
    if (!(ra + rb > 0)) {
        out->ci_lo = out->ci_hi = out->ratio; /* no scatter: the CI collapses */
        return PM_STATS_DEGENERATE;
    }
    out->df = (ra + rb) * (ra + rb) / (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
    double half = pm_stats_t_crit(out->df, 0.95) * out->se;
    out->ci_lo = out->ratio - half;
    out->ci_hi = out->ratio + half;
    return PM_STATS_OK;
}

int pm_stats_geomean(const double *x, size_t n, double *out)
{
    *out = NAN;
    if (n == 0)
        return PM_STATS_TOO_FEW;
    double *l = malloc(n * sizeof *l);
    if (!l)
        return PM_STATS_NOMEM;
    int rc = PM_STATS_OK;
    for (size_t i = 0; i < n && rc == PM_STATS_OK; i++) {
        if (!(x[i] > 0))
            rc = PM_STATS_BAD_INPUT;
        else
            l[i] = log(x[i]);
    }
    if (rc == PM_STATS_OK)
        *out = exp(gsl_stats_mean(l, 1, n));
    free(l);
    return rc;
}

int pm_stats_powerlaw_fit(const double *x, const double *y, size_t n, pm_stats_powerlaw *out)
{
    *out = (pm_stats_powerlaw){.a = NAN, .b = NAN, .b_se = NAN, .b_ci_lo = NAN, .b_ci_hi = NAN, .r2 = NAN};
    double *lx = malloc((n ? n : 1) * sizeof *lx), *ly = malloc((n ? n : 1) * sizeof *ly);
    int rc = PM_STATS_OK;
    if (!lx || !ly) {
        rc = PM_STATS_NOMEM;
        goto cleanup;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] > 0 && y[i] > 0) {
            lx[m] = log(x[i]);
            ly[m] = log(y[i]);
            m++;
        }
    }
    out->n = m;
    out->n_skipped = n - m;
    if (m < 2) {
        rc = PM_STATS_TOO_FEW;
        goto cleanup;
    }
    if (gsl_stats_variance(lx, 1, m) == 0) {
        rc = PM_STATS_DEGENERATE;
        goto cleanup;
    }
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(lx, 1, ly, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    out->a = exp(c0);
    out->b = c1;
    double tss = gsl_stats_tss(ly, 1, m);
    out->r2 = tss > 0 ? 1 - sumsq / tss : 1.0; /* constant y: the flat line fits exactly */
    if (m < 3) {
        rc = PM_STATS_TOO_FEW;
        goto cleanup;
    }
    /* GSL estimates cov11 from the residual scatter, sumsq / (m - 2). */
    out->b_se = sqrt(cov11);
    double half = pm_stats_t_crit((double)(m - 2), 0.95) * out->b_se;
    out->b_ci_lo = out->b - half;
    out->b_ci_hi = out->b + half;
cleanup:
    free(lx);
    free(ly);
    return rc;
}

int pm_stats_js_distance(const double *p, const double *q, size_t n, double *out)
{
    *out = NAN;
    double sp = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= 0) || !(q[i] >= 0))
            return PM_STATS_BAD_INPUT;
        sp += p[i];
        sq += q[i];
    }
    if (!(sp > 0) || !(sq > 0))
        return PM_STATS_DEGENERATE;
    /* 0 log 0 = 0; where pi > 0, mi >= pi/2 > 0 so the logs are finite. */
    double jsd = 0;
    for (size_t i = 0; i < n; i++) {
        double pi = p[i] / sp, qi = q[i] / sq, mi = (pi + qi) / 2;
        if (pi > 0)
            jsd += 0.5 * pi * log2(pi / mi);
        if (qi > 0)
            jsd += 0.5 * qi * log2(qi / mi);
    }
    *out = sqrt(jsd < 0 ? 0 : jsd > 1 ? 1 : jsd); /* clamp rounding */
    return PM_STATS_OK;
}

/* ---- log scale ---- */

static int logs_of(const double *x, size_t n, double **out)
{
    *out = NULL;
    double *l = malloc((n ? n : 1) * sizeof *l);
    if (!l)
        return PM_STATS_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0) || !isfinite(x[i])) {
            free(l);
            return PM_STATS_BAD_INPUT;
        }
        l[i] = log(x[i]);
    }
    *out = l;
    return PM_STATS_OK;
}

int pm_stats_log_interval(const double *x, size_t n, double conf, pm_stats_logci *out)
{
    *out = (pm_stats_logci){.n = n, .gmean = NAN, .sd_log = NAN, .half_log = NAN, .lo = NAN, .hi = NAN};
    if (n == 0)
        return PM_STATS_TOO_FEW;
    double *l;
    int rc = logs_of(x, n, &l);
    if (rc)
        return rc;
    double m = gsl_stats_mean(l, 1, n);
    out->gmean = exp(m);
    if (n >= 2)
        out->sd_log = gsl_stats_sd_m(l, 1, n, m);
    rc = PM_STATS_TOO_FEW;
    if (n >= PM_STATS_MIN_INTERVAL_N) {
        out->half_log = pm_stats_t_crit((double)(n - 1), conf) * out->sd_log / sqrt((double)n);
        out->lo = exp(m - out->half_log);
        out->hi = exp(m + out->half_log);
        rc = PM_STATS_OK;
    }
    free(l);
    return rc;
}

double pm_stats_log_precision(const pm_stats_logci *c)
{
    return isnan(c->half_log) ? NAN : expm1(c->half_log);
}

int pm_stats_welch_log(const double *b, size_t nb, const double *a, size_t na, pm_stats_logratio *out)
{
    return pm_stats_welch_log_q(b, nb, 0, a, na, 0, out);
}

int pm_stats_welch_log_q(const double *b, size_t nb, double qvar_b, const double *a, size_t na, double qvar_a,
                         pm_stats_logratio *out)
{
    *out = (pm_stats_logratio){.n_a = na, .n_b = nb, .ratio = NAN, .diff = NAN, .se = NAN, .df = NAN, .t = NAN,
                               .p = NAN, .var_a = NAN, .var_b = NAN, .bias = 0};
    if (!na || !nb)
        return PM_STATS_TOO_FEW;
    double *la = NULL, *lb = NULL;
    int rc = logs_of(a, na, &la);
    if (!rc)
        rc = logs_of(b, nb, &lb);
    if (rc)
        goto cleanup;
    double ma = gsl_stats_mean(la, 1, na), mb = gsl_stats_mean(lb, 1, nb);
    out->diff = mb - ma;
    out->ratio = exp(out->diff);
    if (na < PM_STATS_MIN_INTERVAL_N || nb < PM_STATS_MIN_INTERVAL_N) {
        rc = PM_STATS_TOO_FEW;
        goto cleanup;
    }
    /* the quantisation variance of one reading, on the log scale at the side's geometric mean */
    out->var_a = gsl_stats_variance_m(la, 1, na, ma) + (qvar_a > 0 ? qvar_a / exp(2 * ma) : 0);
    out->var_b = gsl_stats_variance_m(lb, 1, nb, mb) + (qvar_b > 0 ? qvar_b / exp(2 * mb) : 0);
    double va = out->var_a / (double)na, vb = out->var_b / (double)nb;
    out->se = sqrt(va + vb);
    if (out->se == 0) {   /* constant samples and no tick: nothing to judge a difference by */
        rc = PM_STATS_DEGENERATE;
        goto cleanup;
    }
    out->df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    out->t = out->diff / out->se;
    out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
cleanup:
    free(la);
    free(lb);
    return rc;
}

/* Flat: the sd of the values under sqrt(reads) ticks, where a reading's rounding is far from independent of the
 * next one's (it is once the scatter passes about half a tick). */
static double rounding_bias(const double *x, size_t n, double tick, double reads)
{
    double m = gsl_stats_mean(x, 1, n), sd = n > 1 ? gsl_stats_sd_m(x, 1, n, m) : 0;
    if (!(sd < sqrt(reads) * tick))
        return 0;
    double gm;
    pm_stats_geomean(x, n, &gm);
    double half = reads * tick / 2 / gm;
    return half < 1 ? -log1p(-half) : INFINITY;
}

int pm_stats_welch_log_tick(const double *b, size_t nb, const double *a, size_t na, double tick, double reads,
                            pm_stats_logratio *out)
{
    if (!(tick > 0))
        return pm_stats_welch_log_q(b, nb, 0, a, na, 0, out);
    if (!(reads >= 1))
        reads = 1;
    double q = reads * tick * tick / 12;
    int rc = pm_stats_welch_log_q(b, nb, q, a, na, q, out);
    if (rc != PM_STATS_OK)
        return rc;
    out->bias = rounding_bias(a, na, tick, reads) + rounding_bias(b, nb, tick, reads);
    if (out->bias > 0) {   /* the test of what lies beyond the bound: p < alpha exactly when the interval clears 1 */
        double beyond = fabs(out->diff) - out->bias;
        out->t = beyond > 0 ? copysign(beyond / out->se, out->diff) : 0;
        out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    }
    return rc;
}

void pm_stats_logratio_ci(const pm_stats_logratio *r, double alpha, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (isnan(r->p) || !(r->se > 0) || !(alpha > 0 && alpha < 1))
        return;   /* no test, or no spread: no interval (never a zero-width one) */
    double h = pm_stats_t_crit(r->df, 1 - alpha) * r->se + (r->bias > 0 ? r->bias : 0);
    *lo = exp(r->diff - h);
    *hi = exp(r->diff + h);
}

typedef struct p_idx { double p; size_t i; } p_idx;

static int cmp_p_idx(const void *x, const void *y)
{
    const p_idx *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

int pm_stats_holm(const double *p, size_t m, double *adj)
{
    p_idx *v = malloc((m ? m : 1) * sizeof *v);
    if (!v)
        return PM_STATS_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (!isnan(p[i]))
            v[k++] = (p_idx){p[i], i};
    for (size_t i = 0; i < m; i++)
        if (isnan(p[i]))
            adj[i] = NAN;
    qsort(v, k, sizeof *v, cmp_p_idx);
    double run = 0;   /* step-down: adjusted p never decreases along the sorted order */
    for (size_t j = 0; j < k; j++) {
        double q = (double)(k - j) * v[j].p;
        if (q > 1)
            q = 1;
        if (q > run)
            run = q;
        adj[v[j].i] = run;
    }
    free(v);
    return PM_STATS_OK;
}

double pm_stats_holm_level(double p, double p_adj, double alpha)
{
    if (isnan(p) || isnan(p_adj))
        return NAN;
    if (!(p > 0) || !(p_adj > 0))
        return alpha;   /* p = 0: any level rejects; keep the nominal one */
    return alpha * p / p_adj;
}

int pm_stats_mad_outliers(const double *x, size_t n, double limit, int *flag, size_t *n_out)
{
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        flag[i] = 0;
    if (n < 3)
        return PM_STATS_TOO_FEW;
    double *s = sorted_copy(x, n);
    if (!s)
        return PM_STATS_NOMEM;
    double med = gsl_stats_median_from_sorted_data(s, 1, n);
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(x[i] - med);
    gsl_sort(s, 1, n);
    double mad = gsl_stats_median_from_sorted_data(s, 1, n);
    free(s);
    for (size_t i = 0; i < n; i++) {
        int out = mad > 0 ? fabs(0.6745 * (x[i] - med) / mad) > limit : x[i] != med;
        flag[i] = out;
        *n_out += (size_t)out;
    }
    return mad > 0 ? PM_STATS_OK : PM_STATS_DEGENERATE;
}

int pm_stats_settled(const double *x, size_t n, size_t min_n, size_t max_n, double precision)
{
    if (max_n && n >= max_n)
        return 1;
    if (n < min_n || n < PM_STATS_MIN_INTERVAL_N)
        return 0;
    pm_stats_logci c;
    if (pm_stats_log_interval(x, n, 0.95, &c) != PM_STATS_OK)
        return 0;
    return pm_stats_log_precision(&c) <= precision;
}

int pm_stats_log_outliers(const double *x, size_t n, int *flag, size_t *n_out)
{
    double *l;
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        flag[i] = 0;
    int rc = logs_of(x, n, &l);
    if (rc)
        return rc;
    rc = pm_stats_mad_outliers(l, n, PM_STATS_OUTLIER_LIMIT, flag, n_out);
    free(l);
    return rc;
}

/* The margin the interval's half-width must stay under, from the verdict it would reach: the distance to the
 * threshold the point lies beyond, or inside both, to the nearer one. 0: on a boundary. */
static double decide_margin(double diff, double threshold)
{
    double lf = log1p(-threshold), ls = log1p(threshold);
    if (diff < lf)
        return lf - diff;        /* faster once the upper end clears 1 - threshold */
    if (diff > ls)
        return diff - ls;        /* slower once the lower end clears 1 + threshold */
    return fmin(diff - lf, ls - diff);   /* same once both ends are inside */
}

/* Smallest n >= 3 with t(1 - alpha/2, df_n) * sqrt(var_sum / n) + bias < margin; the left side falls strictly
 * with n (t with its df, the root with n), so doubling finds an n that decides and bisection the first. */
static double first_deciding_n(double var_a, double var_b, double bias, double alpha, double margin)
{
    double vs = var_a + var_b, dfk = vs * vs / (var_a * var_a + var_b * var_b);   /* df_n = (n - 1) * dfk */
    if (!(vs > 0) || !(margin - bias > 0))
        return NAN;
#define HALF(n) (pm_stats_t_crit(((n) - 1) * dfk, 1 - alpha) * sqrt(vs / (n)) + bias)
    double lo = PM_STATS_MIN_INTERVAL_N - 1, hi = PM_STATS_MIN_INTERVAL_N;   /* HALF(lo) >= margin: lo fails */
    while (!(HALF(hi) < margin)) {
        lo = hi;
        hi *= 2;
        if (hi > 1e12)
            return INFINITY;   /* a count no one will run */
    }
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (HALF(mid) < margin)
            hi = mid;
        else
            lo = mid;
    }
#undef HALF
    return hi;
}

void pm_stats_runs_to_decide(double diff, double var_a, double var_b, double bias, double df_seen, double alpha,
                             double threshold, pm_stats_runs *out)
{
    *out = (pm_stats_runs){NAN, NAN, NAN};
    if (!isfinite(diff) || !(var_a >= 0) || !(var_b >= 0) || !(var_a + var_b > 0) || !(alpha > 0 && alpha < 1) ||
        !(threshold > 0 && threshold < 1) || !(bias >= 0))
        return;
    double margin = decide_margin(diff, threshold);
    if (!(margin > 0))
        return;
    out->n = first_deciding_n(var_a, var_b, bias, alpha, margin);
    if (isnan(out->n))
        return;
    out->lo = out->hi = out->n;
    if (df_seen > 0 && isfinite(df_seen)) {   /* the spread is itself an estimate on df_seen degrees of freedom */
        double down = df_seen / gsl_cdf_chisq_Pinv(0.90, df_seen), up = df_seen / gsl_cdf_chisq_Pinv(0.10, df_seen);
        out->lo = first_deciding_n(var_a * down, var_b * down, bias, alpha, margin);
        out->hi = first_deciding_n(var_a * up, var_b * up, bias, alpha, margin);
    }
}

double pm_stats_repeats_to_decide(double diff, double var_sum, double alpha, double threshold)
{
    pm_stats_runs r;
    pm_stats_runs_to_decide(diff, var_sum / 2, var_sum / 2, 0, 0, alpha, threshold, &r);
    return r.n;
}
