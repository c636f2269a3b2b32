/* pm_compare: the driver: load two sides, match their configs, decide, correct, summarize (see compare.h; the
 * loading is compare_load.c, one pair's rows compare_rows.c). */
#include "compare.h"
#include "compare_internal.h"

#include <math.h>

#include "decide.h"
#include "stats.h"

static int cmp_rowp_name(const void *x, const void *y)
{
    const pm_compare_row *a = *(const pm_compare_row *const *)x, *b = *(const pm_compare_row *const *)y;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static int cmp_total_delta(const void *x, const void *y)
{
    const pm_compare_pass_total *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db)
        return da < db ? 1 : -1;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

/* Folds every config's pass rows by (tool, pass). */
static int total_passes(pm_compare_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_configs; i++)
        n += r->configs[i].n_passes;
    const pm_compare_row **rows = malloc((n ? n : 1) * sizeof *rows);
    r->passes = calloc(n ? n : 1, sizeof *r->passes);
    if (!rows || !r->passes) {
        free(rows);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n_configs; i++)
        for (size_t j = 0; j < r->configs[i].n_passes; j++)
            rows[k++] = &r->configs[i].passes[j];
    qsort(rows, n, sizeof *rows, cmp_rowp_name);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const pm_compare_row *row = rows[i];
        pm_compare_pass_total *t = r->n_passes ? &r->passes[r->n_passes - 1] : NULL;
        if (!t || cmp_tool_pass(t->tool, t->pass, row->tool, row->pass) != 0) {
            t = &r->passes[r->n_passes++];
            t->tool = dup_or_null(row->tool);
            t->pass = dup_or_null(row->pass);
            if ((row->tool && !t->tool) || (row->pass && !t->pass))
                rc = -1;
        }
        t->n_configs++;
        t->total_a += finite_or_zero(row->st.mean_a);
        t->total_b += finite_or_zero(row->st.mean_b);
        t->delta = t->total_b - t->total_a;
        t->added += row->presence == PM_COMPARE_ADDED;
        t->removed += row->presence == PM_COMPARE_REMOVED;
        t->faster += row->st.verdict == PM_VERDICT_FASTER;
        t->slower += row->st.verdict == PM_VERDICT_SLOWER;
    }
    free(rows);
    qsort(r->passes, r->n_passes, sizeof *r->passes, cmp_total_delta);
    return rc;
}

/* A config the summaries count: its wall decided (faster, slower, same; a contended one only when its verdict was
 * kept by allow_contended), with a usable ratio. Undecided, untested and withheld configs are left out and
 * counted, and the summary line says so (pm_compare_summary_text). */
static int in_summary(const pm_compare_stat *d)
{
    pm_compare_verdict v = d->verdict;
    return (v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER || v == PM_VERDICT_SAME) && d->ratio > 0 &&
           isfinite(d->ratio);
}

/* A config the summary's estimate pools: tested (its decider has a p, so n >= 3 a side and above resolution), with a
 * usable ratio, its verdict not withheld as contended — decided or not. Deciding selects the larger effects: the
 * mean over the decided configs alone is biased away from 1 (issue 35: 2.744x from 4 decided configs against
 * 2.186x over all 9), so it is only shown labelled "decided only". */
static int in_pool(const pm_compare_stat *d)
{
    return !isnan(d->p) && d->ratio > 0 && isfinite(d->ratio) && d->verdict != PM_VERDICT_CONTENDED;
}

static int cmp_regime(const void *x, const void *y)
{
    return strcmp(((const pm_compare_regime *)x)->regime, ((const pm_compare_regime *)y)->regime);
}

/* The summary's estimate: the geometric mean of the pooled configs' ratios, each config weighing alike, with a t
 * interval over them. Its spread is the configs' own, between-config differences included (a random-effects
 * interval with equal weights), so it holds the mean effect over configs like these, not only these. logs: room
 * for n_configs values. */
static void pool(pm_compare_result *r, double *logs)
{
    r->n_pooled = 0;
    r->pooled_ratio = r->pooled_ci_lo = r->pooled_ci_hi = NAN;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_stat *d = pm_compare_decider(r, &r->configs[i]);
        if (in_pool(d))
            logs[r->n_pooled++] = log(d->ratio);
    }
    pm_stats_summary ls = {.ci_lo = NAN};
    if (r->n_pooled && pm_stats_summarize(logs, r->n_pooled, &ls) != PM_STATS_NOMEM)
        r->pooled_ratio = exp(ls.mean);
    if (r->n_pooled >= PM_STATS_MIN_INTERVAL_N && !isnan(ls.ci_lo)) {
        r->pooled_ci_lo = exp(ls.ci_lo);
        r->pooled_ci_hi = exp(ls.ci_hi);
    }
}

static int summarize(pm_compare_result *r)
{
    double *logs = malloc((r->n_configs ? r->n_configs : 1) * sizeof *logs);
    double *ratios = malloc((r->n_configs ? r->n_configs : 1) * sizeof *ratios);
    r->regimes = calloc(r->n_configs ? r->n_configs : 1, sizeof *r->regimes);
    int rc = 0;
    if (!logs || !ratios || !r->regimes) {
        rc = -1;
        goto cleanup;
    }
    r->geomean_ratio = r->geomean_ci_lo = r->geomean_ci_hi = NAN;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        const pm_compare_stat *d = pm_compare_decider(r, c);
        pm_compare_verdict v = d->verdict;
        r->faster += v == PM_VERDICT_FASTER;
        r->slower += v == PM_VERDICT_SLOWER;
        r->same += v == PM_VERDICT_SAME;
        r->undecided += v == PM_VERDICT_UNDECIDED;
        r->untested += v == PM_VERDICT_NA || v == PM_VERDICT_BELOW_RESOLUTION;
        if (in_summary(d)) {   /* the summary is of the metric that decided (decided_on) */
            ratios[r->n_ratios] = d->ratio;
            logs[r->n_ratios++] = log(d->ratio);
        }
    }
    if (r->n_ratios)
        pm_stats_geomean(ratios, r->n_ratios, &r->geomean_ratio);
    pm_stats_summary ls;
    if (r->n_ratios >= PM_STATS_MIN_INTERVAL_N && pm_stats_summarize(logs, r->n_ratios, &ls) == PM_STATS_OK &&
        ls.ci_lo == ls.ci_lo) {
        r->geomean_ci_lo = exp(ls.ci_lo);
        r->geomean_ci_hi = exp(ls.ci_hi);
    }
    pool(r, logs);
    /* Regimes: distinct names in order, each with its geomean. */
    for (size_t i = 0; i < r->n_configs; i++) {
        const char *name = r->configs[i].regime;
        size_t g = 0;
        while (g < r->n_regimes && strcmp(r->regimes[g].regime, name) != 0)
            g++;
        if (g == r->n_regimes) {
            if (!(r->regimes[g].regime = strdup(name))) {
                rc = -1;
                goto cleanup;
            }
            r->n_regimes++;
        }
    }
    for (size_t g = 0; g < r->n_regimes; g++) {
        pm_compare_regime *rg = &r->regimes[g];
        size_t n = 0;
        for (size_t i = 0; i < r->n_configs; i++) {
            const pm_compare_config *c = &r->configs[i];
            if (strcmp(c->regime, rg->regime) != 0)
                continue;
            const pm_compare_stat *d = pm_compare_decider(r, c);
            rg->n_all++;
            rg->faster += d->verdict == PM_VERDICT_FASTER;
            rg->slower += d->verdict == PM_VERDICT_SLOWER;
            if (in_summary(d))
                ratios[n++] = d->ratio;
        }
        rg->n_configs = n;
        rg->geomean_ratio = NAN;
        if (n)
            pm_stats_geomean(ratios, n, &rg->geomean_ratio);
    }
    qsort(r->regimes, r->n_regimes, sizeof *r->regimes, cmp_regime);
cleanup:
    free(logs);
    free(ratios);
    return rc;
}

int pm_compare_summarize(pm_compare_result *r)
{
    return summarize(r);
}

/* Holm within each family of this comparison: the configs' walls, the step rows, the pass rows. */
static int correct_families(pm_compare_result *r)
{
    size_t n_steps = 0, n_passes = 0;
    for (size_t i = 0; i < r->n_configs; i++) {
        n_steps += r->configs[i].n_steps;
        n_passes += r->configs[i].n_passes;
    }
    size_t cap = r->n_configs + n_steps + n_passes + 1;
    pm_compare_stat **fam = malloc(cap * sizeof *fam);
    if (!fam)
        return -1;
    int rc = 0;
    /* family 3: the shown walls when another metric decided (corrected apart, so they change no verdict's m) */
    for (int which = 0; which < 4 && !rc; which++) {
        size_t m = 0;
        if (which == 3 && r->decided_on == PM_DECIDE_WALL)
            break;
        for (size_t i = 0; i < r->n_configs; i++) {
            pm_compare_config *c = &r->configs[i];
            if (which == 0)
                fam[m++] = pm_unconst_ptr(pm_compare_decider(r, c)); /* r is ours to correct */
            if (which == 3)
                fam[m++] = &c->wall;
            for (size_t k = 0; which == 1 && k < c->n_steps; k++)
                fam[m++] = &c->steps[k].st;
            for (size_t k = 0; which == 2 && k < c->n_passes; k++)
                fam[m++] = &c->passes[k].st;
        }
        rc = pm_compare_correct(fam, m, PM_COMPARE_ALPHA, r->threshold);
    }
    free(fam);
    return rc;
}

/* *why: the reasons a side's config is contended, or NULL; -1 when out of memory. */
static int side_contention(const side *s, const side_cfg *c, char **why)
{
    const pm_contention *ev = NULL;
    int bits = pm_contention_of(&s->cont, c->id, &ev);
    if (!bits)
        return 0;
    char buf[256];
    pm_contention_text(bits, ev, s->cont.cpus, s->cont.p90, buf, sizeof buf);
    return (*why = strdup(buf)) ? 0 : -1;
}

/* A config whose A runs and B runs were measured on different machines: counted, the first one named. */
static int cross_host(side *a, const side_cfg *ca, side *b, const side_cfg *cb, pm_compare_result *out, pm_err *err)
{
    char *ha = NULL, *hb = NULL;
    int rc = pm_store_config_hosts(a->st, ca->id, &ha, err);
    if (rc == PM_OK)
        rc = pm_store_config_hosts(b->st, cb->id, &hb, err);
    if (rc == PM_OK && ha && hb && strcmp(ha, hb)) {
        if (out->n_cross_host++ == 0) {
            size_t n = strlen(ca->base) + strlen(ha) + strlen(hb) + 160;
            if (!(out->host_warning = malloc(n)))
                rc = nomem(err);
            else
                snprintf(out->host_warning, n, "comparison crosses machines: %s was measured on %s in A and on %s in "
                         "B, so its ratio includes the machines' difference", ca->base, ha, hb);
        }
    }
    free(ha);
    free(hb);
    return rc;
}

/* A side's samples of the metric m (every run has it: pm_decide asked them all); -1 when out of memory. */
static int decide_samples(pm_decide_metric m, const side_cfg *c, double **v, size_t *n)
{
    *n = 0;
    if (!(*v = malloc((c->n_wall ? c->n_wall : 1) * sizeof **v)))
        return -1;
    for (size_t i = 0; i < c->n_wall; i++) {
        double x = pm_decide_sample(m, c->wall[i], c->user[i], c->sys[i], c->ins[i]);
        if (!isnan(x))
            (*v)[(*n)++] = x;
    }
    return 0;
}

const pm_compare_stat *pm_compare_decider(const pm_compare_result *r, const pm_compare_config *c)
{
    return r->decided_on != PM_DECIDE_WALL ? &c->metric : &c->wall;
}

static int decisive(pm_compare_verdict v)
{
    return v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER || v == PM_VERDICT_SAME;
}

int pm_compare_disagree(const pm_compare_result *r, const pm_compare_config *c, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    if (r->decided_on == PM_DECIDE_WALL || !pm_decide_row_of((pm_decide_metric)r->decided_on)->count ||
        !decisive(c->metric.verdict) || !decisive(c->wall.verdict) || c->metric.verdict == c->wall.verdict)
        return 0;
    snprintf(buf, n, "instructions %s, %swall %s", pm_compare_verdict_name(c->metric.verdict),
             r->a.walls_slowed || r->b.walls_slowed ? "instrumented " : "", pm_compare_verdict_name(c->wall.verdict));
    return 1;
}

int pm_compare_run(const pm_compare_opts *opts, pm_compare_result *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    side a = {0}, b = {0};
    side_cfg **pairs = NULL;
    pm_decide_evidence ev;
    int rc;
    if (!opts || !opts->path_a || !opts->path_b)
        return pm_err_set(err, PM_ERR_USAGE, "compare: two databases needed");
    a.walls_only = b.walls_only = opts->walls_only;
    a.whole_key = b.whole_key = opts->whole_key;
    a.mode = opts->mode_a ? opts->mode_a : "cold";
    b.mode = opts->mode_b ? opts->mode_b : "cold";
    if ((rc = compare_load_side(opts->path_a, opts->sweep_a, opts->variant_a, "a", &a, &out->a, opts->axis,
                                opts->max_repeats, err)) != PM_OK ||
        (rc = compare_load_side(opts->path_b, opts->sweep_b, opts->variant_b, "b", &b, &out->b, opts->axis,
                                opts->max_repeats, err)) != PM_OK)
        goto cleanup;
    size_t cap = a.n_cfgs < b.n_cfgs ? a.n_cfgs : b.n_cfgs;
    out->configs = calloc(cap ? cap : 1, sizeof *out->configs);
    /* the matched configs' two sides, for the deciding metric's test once all are in */
    pairs = calloc(2 * cap + 2, sizeof *pairs);
    if (!pairs) {
        rc = nomem(err);
        goto cleanup;
    }
    pm_decide_init(&ev);
    /* the tools of both sides: the larger null-input CPU/wall (NaN when a side measured none: then no CPU) */
    ev.tools_cpu_wall = isnan(a.tools_cpu_wall) || isnan(b.tools_cpu_wall) ? NAN
                        : fmax(a.tools_cpu_wall, b.tools_cpu_wall);
    ev.tools_cpu_wall_min = isnan(a.tools_cpu_wall_min) || isnan(b.tools_cpu_wall_min)
                            ? NAN : fmin(a.tools_cpu_wall_min, b.tools_cpu_wall_min);
    out->only_a = calloc(a.n_cfgs ? a.n_cfgs : 1, sizeof *out->only_a);
    out->only_b = calloc(b.n_cfgs ? b.n_cfgs : 1, sizeof *out->only_b);
    if (!out->configs || !out->only_a || !out->only_b) {
        rc = nomem(err);
        goto cleanup;
    }
    size_t i = 0, j = 0;
    while (i < a.n_cfgs || j < b.n_cfgs) {
        int c = i >= a.n_cfgs ? 1 : j >= b.n_cfgs ? -1 : strcmp(a.cfgs[i].base, b.cfgs[j].base);
        int bad = 0;
        if (c == 0) {
            if ((rc = compare_load_cfg(a.q, &a.cfgs[i], a.walls_only, a.mode, a.max_repeats, opts->aliases,
                                       err)) != PM_OK ||
                (rc = compare_load_cfg(b.q, &b.cfgs[j], b.walls_only, b.mode, b.max_repeats, opts->aliases,
                                       err)) != PM_OK ||
                (rc = cross_host(&a, &a.cfgs[i], &b, &b.cfgs[j], out, err)) != PM_OK)
                goto cleanup;
            pairs[2 * out->n_configs] = &a.cfgs[i];
            pairs[2 * out->n_configs + 1] = &b.cfgs[j];
            const side_cfg *ca = &a.cfgs[i], *cb = &b.cfgs[j];
            pm_decide_add_config(&ev, ca->wall, ca->user, ca->sys, ca->ins, ca->n_wall);
            pm_decide_add_config(&ev, cb->wall, cb->user, cb->sys, cb->ins, cb->n_wall);
            pm_compare_config *cc = &out->configs[out->n_configs++];
            bad = compare_cfg(&a.cfgs[i], &b.cfgs[j], opts->all_passes, cc) || side_contention(&a, &a.cfgs[i], &cc->contended_a) ||
                  side_contention(&b, &b.cfgs[j], &cc->contended_b);
            i++, j++;
        } else if (c < 0) {
            bad = !(out->only_a[out->n_only_a++] = strdup(a.cfgs[i++].key));
        } else {
            bad = !(out->only_b[out->n_only_b++] = strdup(b.cfgs[j++].key));
        }
        if (bad) {
            rc = nomem(err);
            goto cleanup;
        }
    }
    /* the whole compile is decided on the steadiest metric all matched runs offer (decide.h) */
    out->decided_on = out->n_configs ? pm_decide(&ev) : PM_DECIDE_WALL;
    /* A count's resolution, its tick in the rule, is the largest spread of any side's repeated counts, at least
     * one count (decide.h), so identical constant counts are "same", not a zero-width division. */
    double floor = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; out->decided_on != PM_DECIDE_WALL && k < out->n_configs; k++) {
            double *va = NULL, *vb = NULL;
            size_t na = 0, nb = 0;
            int bad = decide_samples(out->decided_on, pairs[2 * k], &va, &na) ||
                      decide_samples(out->decided_on, pairs[2 * k + 1], &vb, &nb);
            if (!bad && !pass)
                floor = pm_decide_floor(out->decided_on, vb, nb, pm_decide_floor(out->decided_on, va, na, floor));
            else if (!bad)
                pm_compare_test_tick(va, na, vb, nb, floor, 1, &out->configs[k].metric);
            free(va);
            free(vb);
            if (bad) {
                rc = nomem(err);
                goto cleanup;
            }
        }
    out->threshold = opts->threshold > 0 ? opts->threshold : PM_COMPARE_THRESHOLD;
    out->allow_contended = opts->allow_contended;
    if (correct_families(out) != 0) {
        rc = nomem(err);
        goto cleanup;
    }
    /* Contended rows were tested (they count in Holm's m, which only makes the others' correction stricter);
     * their verdict is withheld afterwards. */
    for (size_t k = 0; k < out->n_configs; k++) {
        pm_compare_config *c = &out->configs[k];
        int cont = c->contended_a || c->contended_b;
        pm_compare_withhold(&c->wall, cont, opts->allow_contended);
        /* contention moves a time, never a count: a count's verdict stands (the times beside it are withheld) */
        if (out->decided_on != PM_DECIDE_WALL)
            pm_compare_withhold(&c->metric, cont && !pm_decide_row_of(out->decided_on)->count,
                                opts->allow_contended);
        for (size_t q = 0; q < c->n_steps; q++)
            pm_compare_withhold(&c->steps[q].st, cont, opts->allow_contended);
        for (size_t q = 0; q < c->n_passes; q++)
            pm_compare_withhold(&c->passes[q].st, cont, opts->allow_contended);
        out->n_contended += pm_compare_decider(out, c)->contended;   /* by the decider's verdict: a count's stands */
    }
    if (total_passes(out) != 0 || summarize(out) != 0)
        rc = nomem(err);
cleanup:
    free(pairs);
    compare_free_side(&a);
    compare_free_side(&b);
    if (rc != PM_OK)
        pm_compare_free(out);
    return rc;
}

static void free_rows(pm_compare_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].tool);
        free(rows[i].pass);
        free(rows[i].alias);
    }
    free(rows);
}

void pm_compare_free(pm_compare_result *r)
{
    if (!r)
        return;
    free(r->a.path), free(r->a.sweep), free(r->a.variant), free(r->a.meter), free(r->a.timing_flags);
    free(r->b.path), free(r->b.sweep), free(r->b.variant), free(r->b.meter), free(r->b.timing_flags);
    pm_flagcost_free(&r->a.flagcost);
    pm_flagcost_free(&r->b.flagcost);
    for (size_t i = 0; i < r->n_configs; i++) {
        pm_compare_config *c = &r->configs[i];
        free(c->key), free(c->key_a), free(c->key_b), free(c->regime);
        free(c->contended_a), free(c->contended_b);
        free_rows(c->steps, c->n_steps);
        free_rows(c->passes, c->n_passes);
    }
    free(r->configs);
    for (size_t i = 0; i < r->n_only_a; i++)
        free(r->only_a[i]);
    for (size_t i = 0; i < r->n_only_b; i++)
        free(r->only_b[i]);
    free(r->only_a);
    free(r->only_b);
    for (size_t i = 0; i < r->n_passes; i++)
        free(r->passes[i].tool), free(r->passes[i].pass);
    free(r->passes);
    for (size_t i = 0; i < r->n_regimes; i++)
        free(r->regimes[i].regime);
    free(r->regimes);
    free(r->host_warning);
    memset(r, 0, sizeof *r);
}

void pm_compare_summary_text(const pm_compare_result *r, char *buf, size_t n)
{
    size_t held = 0, kept = 0, untested = 0, used = 0;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_stat *d = pm_compare_decider(r, &r->configs[i]);   /* a count is never contended */
        if (in_pool(d)) {
            kept += d->contended;
            continue;
        }
        held += d->verdict == PM_VERDICT_CONTENDED;
        untested += d->verdict != PM_VERDICT_CONTENDED && isnan(d->p);
    }
    size_t left = r->n_configs - r->n_pooled;
#define PUT(...)                                                                                                  \
    do {                                                                                                          \
        int w_ = snprintf(buf + used, used < n ? n - used : 0, __VA_ARGS__);                                      \
        used += w_ > 0 ? (size_t)w_ : 0;                                                                          \
        if (used >= n)                                                                                            \
            used = n ? n - 1 : 0;                                                                                 \
    } while (0)
    if (n)
        buf[0] = '\0';
    if (r->n_pooled == 0) {   /* none tested, so none decided */
        PUT("no summary: none of %zu config%s decided", r->n_configs, r->n_configs == 1 ? "" : "s");
    } else {
        PUT("%.3f\u00d7", r->pooled_ratio);
        if (!isnan(r->pooled_ci_lo))
            PUT(" [%.3f, %.3f] (95%% over configs)", r->pooled_ci_lo, r->pooled_ci_hi);
        else
            PUT(" (no interval: fewer than %d configs)", PM_STATS_MIN_INTERVAL_N);
        PUT(" from %zu of %zu config%s", r->n_pooled, r->n_configs, r->n_configs == 1 ? "" : "s");
        if (r->n_ratios == r->n_pooled)
            PUT(", all decided");
        else if (r->n_ratios)   /* deciding selects the larger effects: that mean only with its label */
            PUT(", %zu decided (decided only: %.3f\u00d7)", r->n_ratios, r->geomean_ratio);
        else
            PUT(", none decided");
        if (kept)
            PUT(" (%zu contended, kept by --allow-contended)", kept);
    }
    if (left) {   /* what the summary leaves out, on the same line */
        const char *sep = " (";
        if (held) {
            PUT("%s%zu contended withheld", sep, held);
            sep = ", ";
        }
        if (untested) {
            PUT("%s%zu without a test (n < 3, a zero time or below resolution)", sep, untested);
            sep = ", ";
        }
        size_t other = left - held - untested;
        if (other) {
            PUT("%s%zu without a usable ratio", sep, other);
            sep = ", ";
        }
        if (sep[0] == ',')
            PUT(" left out)");
    }
    PUT("; %zu faster, %zu slower, %zu same, %zu undecided by the rule", r->faster, r->slower, r->same, r->undecided);
#undef PUT
}
