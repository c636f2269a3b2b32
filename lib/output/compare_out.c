#include "compare_out.h"
#include "decide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

void pm_compare_fmt_ratio(char *buf, size_t n, const pm_compare_stat *st)
{
    pm_fmt_ratio(buf, n, st->ratio);
}

void pm_compare_fmt_range(char *buf, size_t n, double lo, double hi)
{
    char l[32], h[32];
    pm_fmt_ratio_num(l, sizeof l, lo);
    pm_fmt_ratio_num(h, sizeof h, hi);
    snprintf(buf, n, "[%s, %s]", l, h);
}

void pm_compare_fmt_ci(char *buf, size_t n, const pm_compare_stat *st, int one_side)
{
    size_t n_min = st->n_a < st->n_b ? st->n_a : st->n_b;
    if (!isnan(st->ci_lo))
        pm_compare_fmt_range(buf, n, st->ci_lo, st->ci_hi);
    else if (!one_side && n_min > 0 && n_min < PM_STATS_MIN_INTERVAL_N)
        snprintf(buf, n, "n=%zu, no interval", n_min);
    else
        snprintf(buf, n, "-");
}

void pm_compare_fmt_p(char *buf, size_t n, const pm_compare_stat *st)
{
    if (isnan(st->p_holm))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3g", st->p_holm);
}

void pm_compare_fmt_verdict(char *buf, size_t n, const pm_compare_stat *st)
{
    if (st->verdict == PM_VERDICT_UNDECIDED && isfinite(st->repeats_needed) && st->repeats_needed < 1e7) {
        /* the range: the same search at the ends of the spread's 80% interval (the spread is an estimate too) */
        double lo = st->repeats_needed_lo, hi = st->repeats_needed_hi;
        if (!(lo < st->repeats_needed || hi > st->repeats_needed))
            snprintf(buf, n, "undecided (~%.0f runs/side)", st->repeats_needed);
        else if (hi < 1e7)
            snprintf(buf, n, "undecided (~%.0f runs/side, %.0f-%.0f)", st->repeats_needed, lo, hi);
        else
            snprintf(buf, n, "undecided (~%.0f runs/side, %.0f or more)", st->repeats_needed, lo);
    } else
        snprintf(buf, n, "%s", pm_compare_verdict_name(st->verdict));
}

void pm_compare_fmt_ci_kind(char *buf, size_t n, size_t m)
{
    snprintf(buf, n, "95%% simultaneous (Bonferroni, m=%zu)", m);
}

/* A time as pm_fmt_time writes it, or a count (instructions) as a whole number */
static void fmt_value(char *buf, size_t n, double v, int sign, int count)
{
    if (!count || isnan(v) || isinf(v))
        pm_fmt_time(buf, n, v, sign);
    else
        snprintf(buf, n, sign ? "%+.0f" : "%.0f", v);
}

static void fmt_side(char *buf, size_t n, const pm_compare_stat *st, int b, int count)
{
    double g = b ? st->gmean_b : st->gmean_a, lo = b ? st->lo_b : st->lo_a, hi = b ? st->hi_b : st->hi_a;
    size_t cnt = b ? st->n_b : st->n_a;
    char v[48];
    fmt_value(v, sizeof v, g, 0, count);
    if (!cnt || isnan(g))
        snprintf(buf, n, "-");
    else if (isnan(lo) && cnt >= PM_STATS_MIN_INTERVAL_N)   /* zero times: no log interval, the value alone */
        snprintf(buf, n, "%s", v);
    else
        pm_fmt_interval_of(buf, n, v, lo, hi, (int)cnt);
}

/* A side's name in the summary line: the value of an axis ("fp16" of "precision=fp16"), else the variant, else
 * (two stores of one variant) the sweep or the store's file name. */
static const char *side_value(const char *v)
{
    const char *eq = v ? strchr(v, '=') : NULL;
    return eq ? eq + 1 : v ? v : "";
}

static void side_names(const pm_compare_result *r, const char **a, const char **b)
{
    *a = side_value(r->a.variant);
    *b = side_value(r->b.variant);
    if (strcmp(*a, *b))
        return;
    if (r->a.sweep && r->b.sweep && strcmp(r->a.sweep, r->b.sweep)) {
        *a = r->a.sweep, *b = r->b.sweep;
        return;
    }
    const char *pa = r->a.path ? r->a.path : "A", *pb = r->b.path ? r->b.path : "B";
    *a = strrchr(pa, '/') ? strrchr(pa, '/') + 1 : pa;
    *b = strrchr(pb, '/') ? strrchr(pb, '/') + 1 : pb;
}

char *pm_compare_oneline(const pm_compare_result *r)
{
    const char *na, *nb, *metric = pm_decide_name((pm_decide_metric)r->decided_on);
    side_names(r, &na, &nb);
    size_t decided = r->faster + r->slower + r->same, held = 0, n_min = 0;
    double settle = NAN;   /* the most repeats per side an undecided config needs */
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_stat *d = pm_compare_decider(r, &r->configs[i]);
        held += d->verdict == PM_VERDICT_CONTENDED;
        size_t m = d->n_a < d->n_b ? d->n_a : d->n_b;
        n_min = !i || m < n_min ? m : n_min;
        if (d->verdict == PM_VERDICT_UNDECIDED && isfinite(d->repeats_needed) && d->repeats_needed < 1e7 &&
            !(settle >= d->repeats_needed))
            settle = d->repeats_needed;
    }
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "%s vs %s: ", nb, na);
    char x[32], iv[80];
    /* the summary's estimate (pooled over every tested, uncontended config: compare.h) and its interval */
    double est = r->pooled_ratio, lo = r->pooled_ci_lo, hi = r->pooled_ci_hi;
    if (isfinite(est) && isfinite(lo) && isfinite(hi)) {
        /* the summary's interval read by the rule's own function, as every row's is */
        pm_compare_verdict v = pm_compare_decide(lo, hi, r->threshold);
        int faster = v == PM_VERDICT_FASTER;   /* "1.19x faster" reads as hyperfine's: A/B, its interval turned */
        pm_fmt_ratio(x, sizeof x, faster ? 1 / est : est);
        pm_compare_fmt_range(iv, sizeof iv, faster ? 1 / hi : lo, faster ? 1 / lo : hi);
        if (v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER)
            pm_sbuf_add(&b, "%s %s %s on %s", x, pm_compare_verdict_name(v), iv, metric);
        else
            pm_sbuf_add(&b, "%s, %s %s on %s", pm_compare_verdict_name(v), x, iv, metric);
    } else if (isfinite(est)) {
        pm_fmt_ratio(x, sizeof x, est);
        pm_sbuf_add(&b, "%s on %s (B/A; no interval below %d tested configs)", x, metric, PM_STATS_MIN_INTERVAL_N);
    } else if (r->undecided) {
        pm_sbuf_add(&b, "undecided on %s", metric);
    } else if (held) {
        pm_sbuf_add(&b, "no conclusion on %s: %zu of %zu config%s contended", metric, held, r->n_configs,
                    r->n_configs == 1 ? "" : "s");
    } else if (r->n_configs && n_min < PM_STATS_MIN_INTERVAL_N) {
        pm_sbuf_add(&b, "no test on %s: %zu run%s a side, %d needed", metric, n_min, n_min == 1 ? "" : "s",
                    PM_STATS_MIN_INTERVAL_N);
    } else {
        pm_sbuf_add(&b, "no test on %s", metric);
    }
    if (isfinite(settle))
        pm_sbuf_add(&b, ": ~%.0f runs/side would settle it", settle);
    pm_sbuf_add(&b, ", %zu of %zu config%s decided", decided, r->n_configs, r->n_configs == 1 ? "" : "s");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

void pm_compare_fmt_metric_side(char *buf, size_t n, const pm_compare_stat *st, int b, int metric)
{
    fmt_side(buf, n, st, b, pm_decide_row_of((pm_decide_metric)metric)->count);   /* the metric's row says how */
}

void pm_compare_fmt_side(char *buf, size_t n, const pm_compare_stat *st, int b)
{
    fmt_side(buf, n, st, b, 0);
}

static void mark(char *buf, size_t n, const pm_compare_row *row, const pm_compare_stat *st)
{
    if (row && row->presence != PM_COMPARE_BOTH)
        snprintf(buf, n, "%s", row->presence == PM_COMPARE_ADDED ? "added" : "removed");
    else
        pm_compare_fmt_verdict(buf, n, st);
}

/* count: the row is of a count (instructions), not a time */
static int stat_row(pm_table *t, const char *label, const pm_compare_row *row, const pm_compare_stat *st, int count)
{
    long r = pm_table_add_row(t);
    if (r < 0)
        return PM_ERR_NOMEM;
    size_t i = (size_t)r;
    int one_side = row && row->presence != PM_COMPARE_BOTH;
    char b[128];
    int rc = pm_table_set(t, i, 0, label, NAN);
    if (row && row->presence == PM_COMPARE_ADDED)
        rc |= pm_table_set(t, i, 1, "-", NAN);
    else
        rc |= pm_table_setf(t, i, 1, (double)st->n_a, "%zu", st->n_a);
    if (row && row->presence == PM_COMPARE_REMOVED)
        rc |= pm_table_set(t, i, 2, "-", NAN);
    else
        rc |= pm_table_setf(t, i, 2, (double)st->n_b, "%zu", st->n_b);
    fmt_side(b, sizeof b, st, 0, count);
    rc |= pm_table_set(t, i, 3, b, st->gmean_a);
    fmt_side(b, sizeof b, st, 1, count);
    rc |= pm_table_set(t, i, 4, b, st->gmean_b);
    if (one_side)
        snprintf(b, sizeof b, "-");
    else
        pm_compare_fmt_ratio(b, sizeof b, st);
    rc |= pm_table_set(t, i, 5, b, one_side ? NAN : st->ratio);
    pm_compare_fmt_ci(b, sizeof b, st, one_side);
    rc |= pm_table_set(t, i, 6, b, NAN);
    fmt_value(b, sizeof b, st->delta, 1, count);
    rc |= pm_table_set(t, i, 7, b, st->delta);
    if (isnan(st->t) || isinf(st->t))
        rc |= pm_table_set(t, i, 8, "-", NAN);
    else
        rc |= pm_table_setf(t, i, 8, st->t, "%.2f", st->t);
    if (isnan(st->df) || isinf(st->df))
        rc |= pm_table_set(t, i, 9, "-", NAN);
    else
        rc |= pm_table_setf(t, i, 9, st->df, "%.1f", st->df);
    pm_compare_fmt_p(b, sizeof b, st);
    rc |= pm_table_set(t, i, 10, b, st->p_holm);
    mark(b, sizeof b, row, st);
    rc |= pm_table_set(t, i, 11, b, NAN);
    return rc ? PM_ERR_NOMEM : PM_OK;
}

static void heading(FILE *out, pm_compare_format fmt, const char *text)
{
    if (fmt == PM_COMPARE_MARKDOWN)
        fprintf(out, "\n### %s\n\n", text);
    else
        fprintf(out, "\n%s\n", text);
}

static int emit(FILE *out, pm_table *t, pm_compare_format fmt, int width)
{
    if (!t)
        return PM_ERR_NOMEM;
    int rc = fmt == PM_COMPARE_MARKDOWN ? pm_table_markdown(t, out) : pm_table_text(t, out, width);
    pm_table_free(t);
    return rc;
}

static pm_table *config_table(const pm_compare_result *r, const pm_compare_config *c, size_t top, size_t *shown)
{
    static const pm_col cols[] = {
        {"row", "row", NULL},          {"n_a", "nA", "count"},
        {"n_b", "nB", "count"},        {"gmean_a", "A (95% CI)", "s"},
        {"gmean_b", "B (95% CI)", "s"},      {"ratio", "B/A", "ratio"},
        {"ci", "95% simultaneous CI", "ratio"}, {"delta", "delta (mean)", "s"},
        {"t", "t", "t"},               {"df", "df", "df"},
        {"p_holm", "p (Holm)", "p"},   {"verdict", "verdict", NULL},
    };
    pm_table *t = pm_table_new("compare-config", NULL, cols, N_OF(cols));
    if (!t)
        return NULL;
    char buf[1024];
    int rc = PM_OK;
    if (r->decided_on != PM_DECIDE_WALL) {   /* the deciding row first; the wall row after it is shown, its mark
                                                 by its own family, and decides nothing ("decided on:" line) */
        snprintf(buf, sizeof buf, "compile %s", pm_decide_name((pm_decide_metric)r->decided_on));
        rc = stat_row(t, buf, NULL, &c->metric, pm_decide_row_of((pm_decide_metric)r->decided_on)->count);
    }
    if (!rc)
        rc = stat_row(t, "compile wall", NULL, &c->wall, 0);
    for (size_t k = 0; !rc && k < c->n_steps; k++) {
        snprintf(buf, sizeof buf, "step %s", c->steps[k].tool);
        rc = stat_row(t, buf, &c->steps[k], &c->steps[k].st, 0);
    }
    *shown = top && top < c->n_passes ? top : c->n_passes;
    for (size_t k = 0; !rc && k < *shown; k++) {
        /* a pass matched through the alias table says what its build printed */
        snprintf(buf, sizeof buf, "pass %s: %s%s%s%s", c->passes[k].tool, c->passes[k].pass,
                 c->passes[k].alias ? " (printed as \"" : "", c->passes[k].alias ? c->passes[k].alias : "",
                 c->passes[k].alias ? "\")" : "");
        rc = stat_row(t, buf, &c->passes[k], &c->passes[k].st, 0);
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

/* The configs grouped by their dominant step tool (not "regime": the report's word for the dominant stage). */
static pm_table *dominant_tool_table(const pm_compare_result *r)
{
    static const pm_col cols[] = {{"dominant_tool", "dominant step", NULL}, {"n_configs", "configs (decided of all)", "count"},
                                  {"geomean_ratio", "geomean B/A (decided)", "ratio"}, {"faster", "faster", "count"},
                                  {"slower", "slower", "count"}};
    pm_table *t = pm_table_new("compare-dominant-tools", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < r->n_regimes; i++) {
        const pm_compare_regime *g = &r->regimes[i];
        long row = pm_table_add_row(t);
        if (row < 0)
            break;
        char b[48];
        pm_compare_stat s = {.ratio = g->geomean_ratio};
        pm_compare_fmt_ratio(b, sizeof b, &s);
        rc |= pm_table_set(t, (size_t)row, 0, g->regime, NAN);
        rc |= pm_table_setf(t, (size_t)row, 1, (double)g->n_configs, "%zu of %zu", g->n_configs, g->n_all);
        rc |= pm_table_set(t, (size_t)row, 2, b, g->geomean_ratio);
        rc |= pm_table_setf(t, (size_t)row, 3, (double)g->faster, "%zu", g->faster);
        rc |= pm_table_setf(t, (size_t)row, 4, (double)g->slower, "%zu", g->slower);
    }
    if (t && (rc || t->n_rows != r->n_regimes)) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

static pm_table *pass_table(const pm_compare_result *r, size_t shown)
{
    static const pm_col cols[] = {{"pass", "pass", NULL},         {"n_configs", "configs", "count"},
                                  {"total_a", "A total", "s"},    {"total_b", "B total", "s"},
                                  {"saved", "saved", "s"},        {"faster", "faster", "count"},
                                  {"slower", "slower", "count"},  {"note", "note", NULL}};
    pm_table *t = pm_table_new("compare-passes", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < shown; i++) {
        const pm_compare_pass_total *p = &r->passes[i];
        long row = pm_table_add_row(t);
        if (row < 0)
            break;
        size_t k = (size_t)row;
        char b[64];
        rc |= pm_table_setf(t, k, 0, NAN, "%s: %s", p->tool, p->pass);
        rc |= pm_table_setf(t, k, 1, (double)p->n_configs, "%zu", p->n_configs);
        pm_fmt_time(b, sizeof b, p->total_a, 0);
        rc |= pm_table_set(t, k, 2, b, p->total_a);
        pm_fmt_time(b, sizeof b, p->total_b, 0);
        rc |= pm_table_set(t, k, 3, b, p->total_b);
        pm_fmt_time(b, sizeof b, -p->delta, 1);
        rc |= pm_table_set(t, k, 4, b, -p->delta);
        rc |= pm_table_setf(t, k, 5, (double)p->faster, "%zu", p->faster);
        rc |= pm_table_setf(t, k, 6, (double)p->slower, "%zu", p->slower);
        if (p->added || p->removed)
            rc |= pm_table_setf(t, k, 7, NAN, "%zu added, %zu removed", p->added, p->removed);
        else
            rc |= pm_table_set(t, k, 7, "", NAN);
    }
    if (t && (rc || t->n_rows != shown)) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

/* A config's contention, the reason beside the rows it withholds (or marks); nothing when neither side was. */
static void contended_line(FILE *out, const char *li, const pm_compare_result *r, const pm_compare_config *c)
{
    if (!c->contended_a && !c->contended_b)
        return;
    fprintf(out, "%scontended:", li);
    if (c->contended_a)
        fprintf(out, " A (%s)%s", c->contended_a, c->contended_b ? "," : "");
    if (c->contended_b)
        fprintf(out, " B (%s)", c->contended_b);
    fprintf(out, "; %s\n",
            r->allow_contended ? "verdicts kept by --allow-contended: not conclusions"
                               : "no conclusion (contended); --allow-contended shows the verdicts");
}

int pm_compare_write(FILE *out, const pm_compare_result *r, pm_compare_format fmt, size_t top, int width,
                     int explain, pm_err *err)
{
    int md = fmt == PM_COMPARE_MARKDOWN, rc = PM_OK;
    const char *li = md ? "- " : "";
    char buf[2048];
    if (width <= 0)
        width = 1 << 30;
    if (md)
        fputs("## passmap compare\n\n", out);
    char *line = pm_compare_oneline(r);   /* the answer first, hyperfine-grade */
    if (!line)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fprintf(out, "%s%s\n", li, line);
    free(line);
    /* a side picked by an axis is named "opt=0", a variant "variant stock" */
    fprintf(out, "%sA: %s (sweep %s, %s%s)\n", li, r->a.path, r->a.sweep, strchr(r->a.variant, '=') ? "" : "variant ",
            *r->a.variant ? r->a.variant : "(none)");
    fprintf(out, "%sB: %s (sweep %s, %s%s)\n", li, r->b.path, r->b.sweep, strchr(r->b.variant, '=') ? "" : "variant ",
            *r->b.variant ? r->b.variant : "(none)");
    if (explain) {
        pm_compare_rule_text(buf, sizeof buf, r->threshold, r->allow_contended);
        fprintf(out, "%srule: %s\n", li, buf);
    } else {
        fprintf(out, "%srule: passmap compare --explain states it (docs/statistics.md gives its reasons)\n", li);
    }
    /* the m of each family, so the "95% simultaneous" of every interval is checkable */
    size_t m[3] = {0, 0, 0};
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        m[0] = c->wall.family_m > m[0] ? c->wall.family_m : m[0];
        for (size_t k = 0; k < c->n_steps; k++)
            m[1] = c->steps[k].st.family_m > m[1] ? c->steps[k].st.family_m : m[1];
        for (size_t k = 0; k < c->n_passes; k++)
            m[2] = c->passes[k].st.family_m > m[2] ? c->passes[k].st.family_m : m[2];
    }
    char k[3][64];
    for (int f = 0; f < 3; f++) {
        if (m[f])
            pm_compare_fmt_ci_kind(k[f], sizeof k[f], m[f]);
        else
            snprintf(k[f], sizeof k[f], "none (no row tested)");
    }
    fprintf(out, "%sintervals: compile walls %s; steps %s; passes %s\n", li, k[0], k[1], k[2]);
    pm_decide_text((pm_decide_metric)r->decided_on, buf, sizeof buf);
    fprintf(out, "%s%s\n", li, buf);
    if (r->a.walls_slowed || r->b.walls_slowed)   /* a slowing meter's wall is the instrumented run's */
        fprintf(out, "%swalls and steps of %s were measured under the %s meter: the instrumented runs', not compile "
                "times\n", li, r->a.walls_slowed && r->b.walls_slowed ? "A and B" : r->a.walls_slowed ? "A" : "B",
                r->a.walls_slowed ? r->a.meter : r->b.meter);
    if (r->a.timing_flags || r->b.timing_flags) /* the instrument's cost, measured beside it (flagcost.h) */
        fprintf(out,
                "%stiming flags: A %s, B %s: compile walls are the runs without the flags, steps and passes "
                "the instrumented runs'\n",
                li, r->a.timing_flags ? r->a.timing_flags : "no twin runs",
                r->b.timing_flags ? r->b.timing_flags : "no twin runs");
    char differ[512];
    int fc = pm_flagcost_differ(&r->a.flagcost, &r->b.flagcost, r->threshold, differ, sizeof differ);
    if (fc == PM_FLAGCOST_DIFFER)
        fprintf(out,
                "%sthe timers cost A and B differently (%s; more than the %.0f%% threshold apart): pass-level "
                "verdicts are partly about the instrument\n",
                li, differ, 100 * r->threshold);
    else if (fc == PM_FLAGCOST_UNDECIDED)
        fprintf(out,
                "%swhether the timers cost A and B differently is undecided (%s; the %.0f%% threshold): "
                "pass-level verdicts may be partly about the instrument\n",
                li, differ, 100 * r->threshold);
    if (r->host_warning)
        fprintf(out, "%swarning: %s%s\n", li, r->host_warning,
                r->n_cross_host > 1 ? " (and in more configs, see the summary)" : "");
    for (size_t i = 0; !rc && i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        snprintf(buf, sizeof buf, "%s (A: %s, B: %s; dominant step %s)", c->key, c->key_a, c->key_b, c->regime);
        heading(out, fmt, buf);
        contended_line(out, li, r, c);
        char why[96];
        if (pm_compare_disagree(r, c, why, sizeof why))   /* instructions are not time */
            fprintf(out, "%sinstructions and time disagree: %s\n", li, why);
        size_t shown = 0;
        rc = emit(out, config_table(r, c, top, &shown), fmt, width);
        if (!rc && shown < c->n_passes)
            fprintf(out, "(%zu more passes; --all-passes or --top N)\n", c->n_passes - shown);
    }
    if (rc)
        goto done;
    heading(out, fmt, "Summary");
    pm_compare_summary_text(r, buf, sizeof buf);
    fprintf(out, "%s%zu configs matched; compile %s B/A: %s", li, r->n_configs,
            r->decided_on != PM_DECIDE_WALL ? pm_decide_name((pm_decide_metric)r->decided_on) : "wall", buf);
    if (r->n_contended)
        fprintf(out, "; %zu contended (%s)", r->n_contended,
                r->allow_contended ? "verdicts kept by --allow-contended" : "no conclusion");
    fputc('\n', out);
    if (r->n_cross_host)
        fprintf(out, "%swarning: %zu of %zu matched configs were measured on different machines in A and B\n", li,
                r->n_cross_host, r->n_configs);
    if (r->n_regimes) {
        heading(out, fmt, "By dominant step tool (on A)");
        if ((rc = emit(out, dominant_tool_table(r), fmt, width)))
            goto done;
    }
    if (r->n_passes) {
        heading(out, fmt, "Top passes by saved time (sums of means over configs)");
        size_t shown = top && top < r->n_passes ? top : r->n_passes;
        if ((rc = emit(out, pass_table(r, shown), fmt, width)))
            goto done;
        if (shown < r->n_passes)
            fprintf(out, "(%zu more passes)\n", r->n_passes - shown);
    }
    if (r->n_only_a || r->n_only_b)
        heading(out, fmt, "Unmatched configs");
    for (size_t i = 0; i < r->n_only_a; i++)
        fprintf(out, "%sonly in A: %s\n", li, r->only_a[i]);
    for (size_t i = 0; i < r->n_only_b; i++)
        fprintf(out, "%sonly in B: %s\n", li, r->only_b[i]);
done:
    if (rc == PM_ERR_NOMEM)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc || ferror(out))
        return pm_err_set(err, PM_ERR_IO, "compare: write failed");
    return PM_OK;
}
