/* Section: handoff between stages as the compile grows, how alike the series are, and the fingerprints.
 * Everything is keyed on the configs' axes (name=value parameters): which axis is the growth measure and
 * which axes make a series come from the kind table (lib/workload/kinds.c) or, for a kind without a row,
 * from the spec ([report] size / workload, report --x / --y) and the axes that vary. */
#include "analysis_internal.h"
#include "kinds.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>

/* A population: the configs of one kind row, or (row NULL) of every kind without a row. */
static int member(const pm_an_config *c, const pm_kind *row)
{
    return row ? c->kind && !strcmp(c->kind, row->name) : !pm_kind_find(c->kind);
}

static int has_population(const pm_analysis *a, const pm_kind *row)
{
    for (size_t i = 0; i < a->n_configs; i++)
        if (member(&a->configs[i], row) && a->configs[i].n_cold)
            return 1;
    return 0;
}

/* pm_sbuf_add, returning PM_ERR_NOMEM once an append failed. */
#define SB(b, ...) (pm_sbuf_add((b), __VA_ARGS__), (b)->oom ? PM_ERR_NOMEM : PM_OK)

static int numeric(const char *v, double *out)
{
    char *end;
    if (!v || !*v)
        return 0;
    double d = strtod(v, &end);
    if (*end || !isfinite(d))
        return 0;
    if (out)
        *out = d;
    return 1;
}

/* The spec's chosen axes: asked for (report --x / --y), else the spec's [report] (the sweep's metadata). */
static int spec_axes(an_work *w, const char **size, const char **workload, pm_err *err)
{
    *size = w->opts ? w->opts->size_axis : NULL;
    *workload = w->opts ? w->opts->workload_axis : NULL;
    json_t *meta = w->a->meta_json ? json_loads(w->a->meta_json, 0, NULL) : NULL;
    const char *ms = json_string_value(json_object_get(meta, "report_size"));
    const char *mw = json_string_value(json_object_get(meta, "report_workload"));
    int rc = PM_OK;
    if ((!*size && ms && !(*size = an_pool_add(&w->pv->pool, ms))) ||
        (!*workload && mw && !(*workload = an_pool_add(&w->pv->pool, mw))))
        rc = an_nomem(err);
    json_decref(meta);
    return rc;
}

/* The value of axis `name` for a config: a parameter, or the pseudo-axis "variant". */
static const char *axis_value(const pm_an_config *c, const char *name)
{
    return pm_cfg_axis(&c->cfg, name);
}

/* The axes of a population that take two or more values, in name order (parameters are loaded sorted),
 * then "variant" when it varies. Appended to a comma list. */
static int varying_axes(const pm_analysis *a, const pm_kind *row, const char *skip1, const char *skip2,
                        pm_sbuf *out)
{
    size_t n = 0;
    /* an axis found constant over the population is constant seen from any config: checked once (the check
     * over every config was quadratic, a tenth of the report on 1,500 configs) */
    pm_sbuf same = {0};
    int rc = SB(&same, "%s", "");
    for (size_t i = 0; i < a->n_configs && !rc; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!member(c, row) || !c->n_cold)
            continue;
        for (size_t k = 0; k <= c->n_params && !rc; k++) {
            const char *name = k < c->n_params ? c->params[k].name : "variant";
            if ((skip1 && !strcmp(name, skip1)) || (skip2 && !strcmp(name, skip2)) ||
                pm_kind_list_has(out->s, name) || pm_kind_list_has(same.s, name))
                continue;
            const char *v0 = axis_value(c, name);
            int varies = 0;
            for (size_t j = 0; j < a->n_configs && !varies; j++)
                if (member(&a->configs[j], row) && a->configs[j].n_cold)
                    varies = !an_same(axis_value(&a->configs[j], name), v0);
            rc = varies ? SB(out, "%s%s", n++ ? "," : "", name) : SB(&same, "%s%s", *same.s ? "," : "", name);
        }
    }
    free(same.s);
    return rc;
}

/* A label from the values of a comma list of axes: a non-numeric value stands for itself ("qwen2", "a.c"),
 * a number says which axis it is ("opt=2"). */
static char *axes_label(const pm_an_config *c, const char *axes)
{
    pm_sbuf b = {0};
    int n = 0, bad = 0;
    for (const char *p = axes; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[256];
        if (len >= sizeof name) {   /* axis names are checked by the spec reader; a longer one is not cut */
            bad = 1;
            break;
        }
        memcpy(name, p, len);
        name[len] = 0;
        const char *v = axis_value(c, name);
        bad |= numeric(v, NULL) ? SB(&b, "%s%s=%s", n ? " " : "", name, v)
                                : SB(&b, "%s%s", n ? " " : "", v ? v : "-");
        n++;
        p = end ? end + 1 : NULL;
    }
    if (!bad && !n)
        bad = SB(&b, "all");
    if (bad) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The growth measure of a config; NAN when it has none. */
static double x_of(const pm_analysis *a, const pm_an_handoff *h, const pm_an_config *c)
{
    if (!strcmp(h->x, "wall"))
        return c->wall.mean;
    if (h->x_param) {
        double d;
        return numeric(pm_cfg_param(&c->cfg, h->x), &d) ? d : NAN;
    }
    return an_config_metric(a, c, h->x);
}

/* Which measure grows the compile: the spec's size axis when the population has it (a numeric parameter or a
 * metric), else the kind row's, else the first IR-size metric (ir.*) the back end declared that every config
 * has, else the cold compile wall. */
static void pick_x(an_work *w, const pm_kind *row, const char *spec_size, pm_an_handoff *h)
{
    pm_analysis *a = w->a;
    const char *cands[3] = {spec_size, row ? row->handoff_x : NULL, NULL};
    for (size_t k = 0; !cands[2] && k < w->n_metric_names; k++) {
        const char *m = w->metric_names[k];
        int all = !strncmp(m, "ir.", 3);
        for (size_t i = 0; all && i < a->n_configs; i++)
            if (member(&a->configs[i], row) && a->configs[i].n_cold)
                all = !isnan(an_config_metric(a, &a->configs[i], m));
        if (all)
            cands[2] = m;
    }
    for (int k = 0; k < 3 && !h->x; k++) {
        if (!cands[k])
            continue;
        int is_param = 0, all_num = 1, any = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            const pm_an_config *c = &a->configs[i];
            if (!member(c, row) || !c->n_cold)
                continue;
            const char *v = pm_cfg_param(&c->cfg, cands[k]);
            is_param |= v != NULL;
            all_num &= numeric(v, NULL);
            any |= !isnan(an_config_metric(a, c, cands[k])) || !strcmp(cands[k], "wall");
        }
        if (is_param && all_num)
            h->x = cands[k], h->x_param = 1;
        else if (!is_param && any)
            h->x = cands[k];
    }
    if (!h->x)
        h->x = "wall";
}

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return x < y ? -1 : x > y;
}

/* Series compared at equal x: a quarter decade of x on the log scale, else equal x. The mean Jensen-Shannon
 * distance of every pair of series over the bins both have. */
static int series_distance(pm_analysis *a, pm_an_handoff *h)
{
    size_t NS = a->n_stages, np = h->n_points;
    double *pa = calloc(NS + 1, sizeof *pa), *pb = calloc(NS + 1, sizeof *pb);
    double *bin = calloc(np + 1, sizeof *bin), *bins = calloc(np + 1, sizeof *bins);
    int rc = PM_OK;
    if (!pa || !pb || !bin || !bins) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    size_t nb = 0;
    for (size_t p = 0; p < np; p++) {
        bin[p] = h->log_x ? floor(log10(h->points[p].x) * 4) : h->points[p].x;
        bins[nb++] = bin[p];
    }
    qsort(bins, nb, sizeof *bins, cmp_double);
    double total = 0;
    int pairs = 0;
    for (size_t s1 = 0; s1 < h->n_series; s1++)
        for (size_t s2 = s1 + 1; s2 < h->n_series; s2++) {
            double dsum = 0;
            int nd = 0;
            for (size_t b = 0; b < nb; b++) {
                if (b && bins[b] == bins[b - 1])
                    continue;
                memset(pa, 0, NS * sizeof *pa);
                memset(pb, 0, NS * sizeof *pb);
                int na = 0, nb2 = 0;
                for (size_t p = 0; p < np; p++) {
                    const pm_an_hpoint *pt = &h->points[p];
                    if (bin[p] != bins[b] || (pt->series != (int)s1 && pt->series != (int)s2))
                        continue;
                    double *dst = pt->series == (int)s1 ? pa : pb;
                    na += dst == pa;
                    nb2 += dst == pb;
                    for (size_t s = 0; s < NS; s++)
                        dst[s] += a->configs[pt->config].share[s].mean;
                }
                if (na && nb2) {
                    double d = an_js_distance(pa, pb, NS);
                    if (!isnan(d)) {
                        dsum += d;
                        nd++;
                    }
                }
            }
            if (nd) {
                total += dsum / nd;
                pairs++;
            }
        }
    if (pairs) {
        h->series_jsd = total / pairs;
        h->series_pairs = pairs;
    }
cleanup:
    free(pa), free(pb), free(bin), free(bins);
    return rc;
}

static int build_handoff(an_work *w, const pm_kind *row, pm_err *err)
{
    pm_analysis *a = w->a;
    pm_an_handoff *h = &a->handoff;
    const char *spec_size, *spec_workload;
    int rc = spec_axes(w, &spec_size, &spec_workload, err);
    if (rc)
        return rc;
    h->kind = row ? row->name : NULL;
    pick_x(w, row, spec_size, h);
    h->log_x = 1;
    /* Series: the row's axes; else every axis that varies except x and, when x measures the workload (a wall
     * or a metric), the workload axis itself (the spec's, else "input"). */
    pm_sbuf axes = {0};
    if (SB(&axes, "%s", "")) {
        free(axes.s);
        return an_nomem(err);
    }
    if (row)
        rc = SB(&axes, "%s", row->series);
    else
        rc = varying_axes(a, row, h->x_param ? h->x : NULL,
                          h->x_param ? NULL : spec_workload ? spec_workload : "input", &axes);
    h->series_axes = axes.s;
    h->trends = calloc(a->n_stages + 1, sizeof *h->trends);
    h->points = calloc(a->n_configs + 1, sizeof *h->points);
    h->series = calloc(a->n_configs + 1, sizeof *h->series);
    double *hx = calloc(a->n_configs + 1, sizeof *hx), *hy = calloc(a->n_configs + 1, sizeof *hy);
    if (rc || !h->trends || !h->points || !h->series || !hx || !hy)
        AN_NOMEM();
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        const pm_an_config *c = &a->configs[ci];
        double x = NAN;
        if (!member(c, row) || !c->n_cold || !(c->wall.mean > 0) || !an_compared(a, c) || isnan(x = x_of(a, h, c)))
            continue;
        char *label = axes_label(c, h->series_axes);
        if (!label)
            AN_NOMEM();
        size_t k;
        for (k = 0; k < h->n_series && strcmp(h->series[k], label); k++)
            ;
        if (k == h->n_series)
            h->series[h->n_series++] = label;
        else
            free(label);
        h->points[h->n_points++] = (pm_an_hpoint){(int)ci, (int)k, x};
        h->log_x &= x > 0;
    }
    for (size_t s = 0; s < a->n_stages; s++) {
        size_t n = h->n_points;
        for (size_t p = 0; p < n; p++) {
            hx[p] = h->log_x ? log10(h->points[p].x) : h->points[p].x;
            hy[p] = a->configs[h->points[p].config].share[s].mean;
        }
        h->trends[s] = (pm_an_trend){(int)s, NAN, NAN, (int)n};
        int distinct = 0;
        for (size_t i = 0; i < n; i++)
            distinct += i == 0 || hx[i] != hx[0];
        if (distinct >= 2) {
            double c0, c1, c00, c01, c11, ss;
            gsl_fit_linear(hx, 1, hy, 1, n, &c0, &c1, &c00, &c01, &c11, &ss);
            h->trends[s].slope = c1;
            h->trends[s].intercept = c0;
        }
    }
    if (series_distance(a, h))
        AN_NOMEM();
cleanup:
    free(hx);
    free(hy);
    return rc;
}

/* A tie between two values a held axis takes goes to the larger number. */
static int larger_number(const char *later, const char *best)
{
    double dv, db;
    return numeric(later, &dv) && numeric(best, &db) && dv > db;
}

/* The value a held axis takes: the row's preferred value when present, else the most common among the
 * population's configs (in); a tie goes to the larger number, else to the first in config order. v: room for
 * n_configs values. */
static const char *held_value(const pm_analysis *a, const char *name, const char *prefer, const char *const *in,
                              const char **v)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_configs; i++)
        if (in[i] && axis_value(&a->configs[i], name))
            v[n++] = axis_value(&a->configs[i], name);
    return an_most_common_tie(v, n, prefer, larger_number);
}

/* The regime map over parameters (of the kinds without a row), or NULL. */
static const pm_an_regime *others_map(const pm_analysis *a)
{
    for (size_t i = 0; i < a->regimes.n; i++)
        if (a->regimes.rows[i].others)
            return &a->regimes.rows[i];
    return NULL;
}

static int build_fingerprint(an_work *w, const pm_kind *row, pm_an_fingerprint *fp)
{
    pm_analysis *a = w->a;
    fp->kind = row ? row->name : NULL;
    fp->label = row ? row->label : NULL;
    fp->figure = row ? row->figure : "fingerprint";
    /* in[i]: config i is still in the slice (non-NULL), narrowed one held axis at a time */
    const char **in = calloc(a->n_configs + 1, sizeof *in), **vals = calloc(a->n_configs + 1, sizeof *vals);
    pm_sbuf bars = {0}, held = {0}, all = {0};
    int rc = PM_OK;
    if (!in || !vals || SB(&bars, "%s", "") || SB(&held, "%s", "") || SB(&all, "%s", "")) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    /* bars: the row's axes; else the axes of the regime map over parameters (the spec's), else all that vary */
    if (row)
        rc = SB(&bars, "%s", row->bars);
    else if (others_map(a) && others_map(a)->row_axis)
        rc = SB(&bars, "%s%s%s", others_map(a)->row_axis, others_map(a)->col_axis ? "," : "",
                others_map(a)->col_axis ? others_map(a)->col_axis : "");
    else
        rc = varying_axes(a, row, NULL, NULL, &bars);
    if (rc || (rc = varying_axes(a, row, NULL, NULL, &all)))
        goto cleanup;
    for (size_t i = 0; i < a->n_configs; i++)
        in[i] = member(&a->configs[i], row) && a->configs[i].n_cold ? "" : NULL;
    /* variant first (the stock compiler when it is there), then every other varying axis in name order */
    const char *variant = held_value(a, "variant", "stock", in, vals);
    for (size_t i = 0; i < a->n_configs; i++)
        if (in[i] && !an_same(a->configs[i].variant, variant))
            in[i] = NULL;
    for (const char *p = all.s; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[256];
        if (len < sizeof name) {   /* a longer axis name cannot be a parameter the spec reader accepted */
            memcpy(name, p, len);
            name[len] = 0;
            if (strcmp(name, "variant") && !pm_kind_list_has(bars.s, name)) {
                const char *v = held_value(a, name, pm_kind_prefer(row, name), in, vals);
                for (size_t i = 0; i < a->n_configs; i++)
                    if (in[i] && !an_same(axis_value(&a->configs[i], name), v))
                        in[i] = NULL;
                if ((rc = SB(&held, "%s%s=%s", *held.s ? " " : "", name, v ? v : "-")))
                    goto cleanup;
            }
        }
        p = end ? end + 1 : p + len;
    }
    if (pm_kind_list_has(all.s, "variant") && (rc = SB(&held, "%svariant=%s", *held.s ? " " : "", variant ? variant : "-")))
        goto cleanup;
    fp->configs = calloc(a->n_configs + 1, sizeof *fp->configs);
    fp->labels = calloc(a->n_configs + 1, sizeof *fp->labels);
    if (!fp->configs || !fp->labels) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        if (!in[i])
            continue;
        if (!(fp->labels[fp->n] = axes_label(&a->configs[i], bars.s))) {
            rc = PM_ERR_NOMEM;
            goto cleanup;
        }
        fp->configs[fp->n++] = (int)i;
    }
    fp->bar_axes = bars.s, bars.s = NULL;
    fp->held = held.s, held.s = NULL;
cleanup:
    pm_free_all(in, vals, bars.s, held.s, all.s);
    return rc;
}

int an_handoff(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    a->handoff.series_jsd = NAN;
    /* populations: each kind row present, in table order, then the kinds without a row */
    int nk = 0;
    while (pm_kind_at(nk))
        nk++;
    const pm_kind **pops = calloc((size_t)nk + 2, sizeof *pops);
    if (!pops || !(a->figures.fingerprints = calloc((size_t)nk + 2, sizeof *a->figures.fingerprints))) {
        free(pops);
        return an_nomem(err);
    }
    size_t np = 0;
    int others = has_population(a, NULL), rc = PM_OK;
    for (int i = 0; i < nk; i++)
        if (has_population(a, pm_kind_at(i)))
            pops[np++] = pm_kind_at(i);
    if (np || others)
        rc = build_handoff(w, np ? pops[0] : NULL, err);
    for (size_t k = 0; !rc && k < np + (size_t)others; k++)
        if (build_fingerprint(w, k < np ? pops[k] : NULL, &a->figures.fingerprints[a->figures.n_fingerprints++]))
            rc = an_nomem(err);
    free(pops);
    return rc;
}

void an_handoff_free(pm_analysis *a)
{
    pm_free_all(a->handoff.trends, a->handoff.points, a->handoff.series_axes);
    for (size_t i = 0; a->handoff.series && i < a->handoff.n_series; i++)
        free(a->handoff.series[i]);
    free(a->handoff.series);
    for (size_t i = 0; i < a->figures.n_fingerprints; i++) {
        pm_an_fingerprint *fp = &a->figures.fingerprints[i];
        for (size_t k = 0; fp->labels && k < fp->n; k++)
            free(fp->labels[k]);
        free(fp->labels), free(fp->configs), free(fp->bar_axes), free(fp->held);
    }
    free(a->figures.fingerprints);
}

void pm_an_handoff_extremes(const pm_analysis *a, int *up, int *down)
{
    const pm_an_handoff *h = &a->handoff;
    *up = *down = -1;
    for (size_t s = 0; h->trends && s < a->n_stages; s++) {
        double sl = h->trends[s].slope;
        if (isnan(sl))
            continue;
        if (sl > 0 && (*up < 0 || sl > h->trends[*up].slope))
            *up = (int)s;
        if (sl < 0 && (*down < 0 || sl < h->trends[*down].slope))
            *down = (int)s;
    }
}
