/* The one verdict rule of every comparison (compare.h states it; docs/statistics.md gives its reasons): the test
 * of one row, the decision on its interval, the family's correction, the withholding of contended rows, and the
 * rule's own text. Loading the sides and building the rows is compare.c's. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contention.h"
#include "stats.h"

static int all_positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0))
            return 0;
    return 1;
}

void pm_compare_test(const double *a, size_t na, const double *b, size_t nb, pm_compare_stat *o)
{
    pm_compare_test_tick(a, na, b, nb, 0, 1, o);
}

void pm_compare_test_tick(const double *a, size_t na, const double *b, size_t nb, double tick, double reads,
                          pm_compare_stat *o)
{
    *o = (pm_compare_stat){.n_a = na, .n_b = nb, .mean_a = NAN, .mean_b = NAN, .sd_a = NAN, .sd_b = NAN,
                           .gmean_a = NAN, .gmean_b = NAN, .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN, .t = NAN,
                           .df = NAN, .se_log = NAN, .var_log = NAN, .p = NAN, .p_holm = NAN, .level = NAN,
                           .delta = NAN, .verdict = PM_VERDICT_NA, .significant = PM_COMPARE_NA, .lo_a = NAN,
                           .hi_a = NAN, .lo_b = NAN, .hi_b = NAN, .tick = tick > 0 ? tick : 0,
                           .repeats_needed = NAN, .repeats_needed_lo = NAN, .repeats_needed_hi = NAN,
                           .var_a = NAN, .var_b = NAN};
    pm_stats_summary sa, sb;
    pm_stats_summarize(a, na, &sa);
    pm_stats_summarize(b, nb, &sb);
    o->mean_a = sa.mean;
    o->mean_b = sb.mean;
    o->sd_a = sa.sd;
    o->sd_b = sb.sd;
    if (na > 0 && nb > 0)
        o->delta = sb.mean - sa.mean;
    pm_stats_geomean(a, na, &o->gmean_a);
    pm_stats_geomean(b, nb, &o->gmean_b);
    /* each side's own interval, as the report shows a wall (NaN below 3 repeats or with a zero time) */
    pm_stats_logci ia, ib;
    if (na && all_positive(a, na) && pm_stats_log_interval(a, na, 1 - PM_COMPARE_ALPHA, &ia) == PM_STATS_OK)
        o->lo_a = ia.lo, o->hi_a = ia.hi;
    if (nb && all_positive(b, nb) && pm_stats_log_interval(b, nb, 1 - PM_COMPARE_ALPHA, &ib) == PM_STATS_OK)
        o->lo_b = ib.lo, o->hi_b = ib.hi;
    /* A zero time (a pass absent from some runs) has no logarithm: such a row gets no test. */
    if (!na || !nb || !all_positive(a, na) || !all_positive(b, nb))
        return;
    if (o->tick > 0 && fmax(sa.mean, sb.mean) < PM_COMPARE_RESOLUTION_TICKS * o->tick) {
        o->ratio = o->gmean_b / o->gmean_a;   /* shown, but no test and no claim */
        o->verdict = o->tested = PM_VERDICT_BELOW_RESOLUTION;
        return;
    }
    /* the rounding per run where values scatter over ticks, as a bias common to the runs where a side is flat */
    pm_stats_logratio r;
    pm_stats_welch_log_tick(b, nb, a, na, o->tick, reads, &r);
    o->ratio = r.ratio;
    o->t = r.t;
    o->df = r.df;
    o->se_log = r.se;
    o->var_log = r.var_a + r.var_b;
    o->var_a = r.var_a;
    o->var_b = r.var_b;
    o->bias_log = r.bias;
    o->p = r.p;   /* NaN when n < 3 on a side, or both sides constant without a tick: not tested */
}

const char *pm_compare_verdict_name(pm_compare_verdict v)
{
    switch (v) {
    case PM_VERDICT_FASTER: return "faster";
    case PM_VERDICT_SLOWER: return "slower";
    case PM_VERDICT_SAME: return "same";
    case PM_VERDICT_CONTENDED: return "no conclusion (contended)";
    case PM_VERDICT_UNDECIDED: return "undecided";
    case PM_VERDICT_BELOW_RESOLUTION: return "below resolution";
    case PM_VERDICT_OUTSIDE: return "not tested (outside the family)";
    case PM_VERDICT_AMBIGUOUS: return "ambiguous match (not tested)";
    default: return "n/a";
    }
}

pm_compare_verdict pm_compare_decide(double lo, double hi, double threshold)
{
    if (isnan(lo) || isnan(hi))
        return PM_VERDICT_NA;
    if (hi < 1 - threshold)
        return PM_VERDICT_FASTER;
    if (lo > 1 + threshold)
        return PM_VERDICT_SLOWER;
    if (lo >= 1 - threshold && hi <= 1 + threshold)
        return PM_VERDICT_SAME;
    return PM_VERDICT_UNDECIDED;
}

static int untestable(pm_compare_verdict v)
{
    return v == PM_VERDICT_NA || v == PM_VERDICT_BELOW_RESOLUTION || v == PM_VERDICT_OUTSIDE ||
           v == PM_VERDICT_AMBIGUOUS;
}

int pm_compare_correct(pm_compare_stat *const *family, size_t m, double alpha, double threshold)
{
    double *p = calloc(m ? m : 1, sizeof *p);
    if (!p)
        return -1;
    size_t tests = 0;
    for (size_t i = 0; i < m; i++) {
        p[i] = family[i]->p;
        tests += !isnan(p[i]);
    }
    if (pm_stats_holm(p, m, p) != PM_STATS_OK) {
        free(p);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        pm_compare_stat *st = family[i];
        st->p_holm = p[i];
        st->family_m = isnan(st->p) ? 0 : tests;   /* an untested row is in no family */
        if (isnan(st->p)) {
            if (!untestable(st->verdict))
                st->verdict = PM_VERDICT_NA;
            st->tested = st->verdict;
            st->significant = PM_COMPARE_NA;
            continue;
        }
        /* Bonferroni: every interval of the family at alpha / m, so they hold together at 1 - alpha */
        st->level = alpha / (double)tests;
        pm_stats_logratio r = {.n_a = st->n_a, .n_b = st->n_b, .ratio = st->ratio, .diff = log(st->ratio),
                               .se = st->se_log, .df = st->df, .t = st->t, .p = st->p, .bias = st->bias_log};
        pm_stats_logratio_ci(&r, st->level, &st->ci_lo, &st->ci_hi);
        st->verdict = pm_compare_decide(st->ci_lo, st->ci_hi, threshold);
        if (st->verdict == PM_VERDICT_UNDECIDED) {
            pm_stats_runs need;
            pm_stats_runs_to_decide(r.diff, st->var_a, st->var_b, st->bias_log, st->df, st->level, threshold, &need);
            if (isnan(need.n) && st->bias_log > 0) {
                /* the rounding bound alone reaches past a threshold: the difference is within the ticks, and no
                 * number of runs can move a bias common to them all */
                pm_stats_runs none;
                pm_stats_runs_to_decide(r.diff, st->var_a, st->var_b, 0, 0, st->level, threshold, &none);
                if (!isnan(none.n))
                    st->verdict = PM_VERDICT_BELOW_RESOLUTION;
            }
            /* the search is the rule's at n runs a side; with unequal sides now, Welch's df differs, so an
             * estimate at or below the runs already made means at least one more */
            double have = (double)(st->n_a > st->n_b ? st->n_a : st->n_b);
            st->repeats_needed = need.n <= have ? have + 1 : need.n;
            st->repeats_needed_lo = need.lo <= have ? have + 1 : need.lo;
            st->repeats_needed_hi = need.hi <= have ? have + 1 : need.hi;
            if (st->verdict == PM_VERDICT_BELOW_RESOLUTION)
                st->repeats_needed = st->repeats_needed_lo = st->repeats_needed_hi = NAN;
        }
        st->significant = st->verdict == PM_VERDICT_FASTER || st->verdict == PM_VERDICT_SLOWER;
        st->tested = st->verdict;
    }
    free(p);
    return 0;
}

void pm_compare_withhold(pm_compare_stat *st, int contended, int allow)
{
    st->contended = contended;
    if (!contended || allow || untestable(st->verdict))
        return;
    st->verdict = PM_VERDICT_CONTENDED;
    st->significant = PM_COMPARE_NA;   /* no claim either way */
}


void pm_compare_rule_text(char *buf, size_t n, double threshold, int allow_contended)
{
    double t = threshold > 0 ? threshold : PM_COMPARE_THRESHOLD;
    char contended[256];
    pm_contention_rule_text(contended, sizeof contended, 1);
    snprintf(buf, n, "ratio = geometric mean B / A; Welch t on log times, each side's variance including its timer's "
             "rounding (tick^2/12; a flat side's a +-tick/2 bias) (n >= 3 per side, else n/a); below resolution (no "
             "test): under %d ticks of the row's timer (0.1 ms for MLIR/LLVM reports, 1 us for traces and the "
             "runner's walls), or within the rounding; within one table "
             "(configs, steps, passes; by default the passes with >= %.0f%% of the compile, top %d per step, "
             "--all-passes for all) p is Holm-adjusted and each CI is 95%% simultaneous (Bonferroni, each row at "
             "0.05/m); faster when the CI's upper end < %.4g, slower when its lower end > %.4g, same when it lies "
             "within [%.4g, %.4g], otherwise undecided (with the fewest runs per side that would settle it); n/a: "
             "no test, no claim; %s (%s)%s; runs with mode cold, status ok; reasons: docs/statistics.md",
             PM_COMPARE_RESOLUTION_TICKS, PM_COMPARE_FAMILY_SHARE * 100, PM_COMPARE_FAMILY_TOP, 1 - t, 1 + t, 1 - t,
             1 + t,
             allow_contended ? "contended A or B runs" : "no conclusion (contended) when the A or B runs were contended",
             contended,
             allow_contended ? " keep their verdict, marked contended (--allow-contended): not a conclusion"
                             : ", though tested and counted in the family");
}
