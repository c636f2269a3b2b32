/* Section: the precision study (LLM configs of the reference variant). */
#include "analysis_internal.h"
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The precision study is a kind row's (kinds.c: precision_study): its configs carry family, size, window. */
static int prec_kind(const pm_an_config *c)
{
    const pm_kind *k = pm_kind_find(c->kind);
    return k && k->precision_study;
}

static const pm_an_regime *prec_regime(const pm_analysis *a)
{
    for (int i = 0; pm_kind_at(i); i++)
        if (pm_kind_at(i)->precision_study)
            return pm_an_regime_of(a, pm_kind_at(i)->name);
    return pm_an_regime_of(a, NULL);
}

/* Ids of the precision slice's configs, so the loops over sizes and pairs find their configs without scanning
 * all of them (they were n^2 and n^3 in the configs, whose sizes grow with the study). */
typedef struct prec_index {
    int *size, *family, *prec;   /* [config]: id of its size / family (an_same classes), index into precs (-1) */
    size_t n_sizes;
    size_t *by_size, *by_size_at;   /* the slice's configs grouped by size id, config order within: [at[s], at[s+1]) */
    size_t *base, n_base;   /* the base precision's configs with a wall, by (family, size, window, config) */
    int *slot, *cnt;        /* [size id] scratch per precision */
} prec_index;

static void prec_index_free(prec_index *ix)
{
    pm_free_all(ix->size, ix->family, ix->prec, ix->by_size, ix->by_size_at, ix->base, ix->slot, ix->cnt);
    memset(ix, 0, sizeof *ix);
}

/* ids[i] for the slice's configs: equal strings (an_same), equal ids; returns the number of ids, or -1 */
static long class_ids(const pm_analysis *a, const char *in, const char *(*field)(const pm_an_config *), int *ids)
{
    an_str_at *t = malloc((a->n_configs + 1) * sizeof *t);
    if (!t)
        return -1;
    size_t n = 0;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        if (in[ci])
            t[n++] = (an_str_at){field(&a->configs[ci]), ci};
    qsort(t, n, sizeof *t, an_cmp_str_at);
    long id = -1;
    for (size_t q = 0; q < n; q++) {
        if (q == 0 || !an_same(t[q - 1].s, t[q].s))
            id++;
        ids[t[q].i] = (int)id;
    }
    free(t);
    return id + 1;
}

static const char *f_size(const pm_an_config *c) { return c->workload.size; }
static const char *f_family(const pm_an_config *c) { return c->workload.family; }

/* (family, size, window) of configs i and j, then i's position (for the sort; the search compares keys) */
static int base_key_cmp(const prec_index *ix, const pm_analysis *a, size_t i, size_t j)
{
    if (ix->family[i] != ix->family[j])
        return ix->family[i] < ix->family[j] ? -1 : 1;
    if (ix->size[i] != ix->size[j])
        return ix->size[i] < ix->size[j] ? -1 : 1;
    int wi = a->configs[i].workload.window, wj = a->configs[j].workload.window;
    return (wi > wj) - (wi < wj);
}

typedef struct base_sort {
    const prec_index *ix;
    const pm_analysis *a;
} base_sort;

static int cmp_base(const void *pa, const void *pb, void *ctx)
{
    const base_sort *bs = ctx;
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    int c = base_key_cmp(bs->ix, bs->a, i, j);
    return c ? c : (i > j) - (i < j);
}

static int prec_index_build(prec_index *ix, const pm_analysis *a, const char *in, const char **precs, size_t np)
{
    size_t nc = a->n_configs;
    ix->size = calloc(nc + 1, sizeof *ix->size);
    ix->family = calloc(nc + 1, sizeof *ix->family);
    ix->prec = calloc(nc + 1, sizeof *ix->prec);
    ix->by_size = calloc(nc + 1, sizeof *ix->by_size);
    ix->base = calloc(nc + 1, sizeof *ix->base);
    if (!ix->size || !ix->family || !ix->prec || !ix->by_size || !ix->base)
        return -1;
    long ns = class_ids(a, in, f_size, ix->size);
    if (ns < 0 || class_ids(a, in, f_family, ix->family) < 0)
        return -1;
    ix->n_sizes = (size_t)ns;
    ix->by_size_at = calloc(ix->n_sizes + 2, sizeof *ix->by_size_at);
    ix->slot = calloc(ix->n_sizes + 1, sizeof *ix->slot);
    ix->cnt = calloc(nc + 1, sizeof *ix->cnt);
    if (!ix->by_size_at || !ix->slot || !ix->cnt)
        return -1;
    for (size_t ci = 0; ci < nc; ci++) {
        ix->prec[ci] = -1;
        for (size_t k = 0; in[ci] && k < np; k++)
            if (an_same(a->configs[ci].workload.precision, precs[k])) {
                ix->prec[ci] = (int)k;
                break;
            }
        if (in[ci])
            ix->by_size_at[ix->size[ci] + 2]++;
    }
    for (size_t s = 0; s < ix->n_sizes; s++)   /* counts at [s+2] become starts at [s+1], then fill moves them */
        ix->by_size_at[s + 2] += ix->by_size_at[s + 1];
    for (size_t ci = 0; ci < nc; ci++)
        if (in[ci])
            ix->by_size[ix->by_size_at[ix->size[ci] + 1]++] = ci;
    for (size_t ci = 0; ci < nc; ci++)
        if (in[ci] && an_same(a->configs[ci].workload.precision, a->precision.base) && a->configs[ci].wall.mean > 0)
            ix->base[ix->n_base++] = ci;
    base_sort bs = {ix, a};
    qsort_r(ix->base, ix->n_base, sizeof *ix->base, cmp_base, &bs);
    return 0;
}

/* The ratio series of precision k: per size (first seen in config order), the median over the (family, window)
 * pairs both precisions have of wall / base wall; the base configs of a (family, size, window) are a range of
 * ix->base (config order within it). */
static void prec_ratios(const pm_analysis *a, prec_index *ix, const char *in, size_t k, pm_an_series *r,
                        double *tmp)
{
    for (size_t i = 0; i < ix->n_sizes; i++)
        ix->slot[i] = -1;
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        const pm_an_config *c = &a->configs[ci];
        if (!in[ci] || ix->prec[ci] != (int)k || ix->slot[ix->size[ci]] >= 0)
            continue;
        int sid = ix->size[ci];
        ix->slot[sid] = 1;
        int n = 0;
        for (size_t q = ix->by_size_at[sid]; q < ix->by_size_at[sid + 1]; q++) {
            size_t cj = ix->by_size[q];
            const pm_an_config *c2 = &a->configs[cj];
            if (ix->prec[cj] != (int)k)
                continue;
            size_t lo = 0, hi = ix->n_base;
            while (lo < hi) {   /* the first base config of (family, size, window) */
                size_t mid = (lo + hi) / 2;
                if (base_key_cmp(ix, a, ix->base[mid], cj) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < ix->n_base && base_key_cmp(ix, a, ix->base[lo], cj) == 0; lo++)
                tmp[n++] = c2->wall.mean / a->configs[ix->base[lo]].wall.mean;
        }
        if (n) {
            r->xlabel[r->n] = c->workload.size;
            r->x[r->n] = c->size_num;
            r->y[r->n++] = an_median(tmp, (size_t)n);
        }
    }
}

/* Crossovers: where a precision's ratio crosses 1 between consecutive sizes. Nonzero: out of memory. */
static int prec_crossovers(pm_analysis *a, const pm_an_series *r)
{
    for (size_t j = 1; j < r->n; j++) {
        double d0 = r->y[j - 1] - 1, d1 = r->y[j] - 1;
        if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) {
            char text[256];
            snprintf(text, sizeof text, "%s becomes %s than %s between %s (x%.2f) and %s (x%.2f)", r->label,
                     d1 > 0 ? "slower" : "faster", a->precision.base, r->xlabel[j - 1], r->y[j - 1], r->xlabel[j],
                     r->y[j]);
            if (an_strlist_add(&a->precision.crossovers, &a->precision.n_crossovers, text))
                return -1;
        }
    }
    return 0;
}

int an_precision(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    double *tmp = w->tmp;
    /* Precision: LLM configs of the reference variant. */
    {
        const char *variant = prec_regime(a)->variant;
        int *wins = calloc(a->n_configs + 1, sizeof *wins);
        const char **precs = calloc(a->n_configs + 1, sizeof *precs);
        /* in[ci]: config ci is in the slice (its kind studies precision, cold runs, the reference variant);
         * decided once, as the loops below ask it of every pair of configs */
        char *in = calloc(a->n_configs + 1, 1);
        prec_index ix = {0};
        if (!wins || !precs || !in) {
            free(wins); free(precs); free(in); prec_index_free(&ix);
            AN_NOMEM();
        }
        for (size_t ci = 0; ci < a->n_configs; ci++)
            in[ci] = prec_kind(&a->configs[ci]) && a->configs[ci].n_cold && an_same(a->configs[ci].variant, variant);
        size_t nw = 0, np = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (!in[ci])
                continue;
            wins[nw++] = c->workload.window;
            size_t k;
            for (k = 0; k < np && !an_same(precs[k], c->workload.precision); k++)
                ;
            if (k == np)
                precs[np++] = c->workload.precision;
        }
        if (nw)
            a->precision.window = an_most_common_int(wins, nw);
        a->precision.base = an_most_common(precs, np, "int8");
        a->precision.n = nw ? np : 0;
        if (prec_index_build(&ix, a, in, precs, np)) {
            free(wins); free(precs); free(in); prec_index_free(&ix);
            AN_NOMEM();
        }
        a->precision.time = calloc(np + 1, sizeof *a->precision.time);
        a->precision.ratio = calloc(np + 1, sizeof *a->precision.ratio);
        if (!a->precision.time || !a->precision.ratio) {
            free(wins); free(precs); free(in); prec_index_free(&ix);
            AN_NOMEM();
        }
        for (size_t k = 0; k < a->precision.n; k++) {
            pm_an_series *t = &a->precision.time[k], *r = &a->precision.ratio[k];
            t->label = r->label = precs[k] ? precs[k] : "-";
            t->x = calloc(a->n_configs + 1, sizeof *t->x);
            t->y = calloc(a->n_configs + 1, sizeof *t->y);
            t->xlabel = calloc(a->n_configs + 1, sizeof *t->xlabel);
            r->x = calloc(a->n_configs + 1, sizeof *r->x);
            r->y = calloc(a->n_configs + 1, sizeof *r->y);
            r->xlabel = calloc(a->n_configs + 1, sizeof *r->xlabel);
            if (!t->x || !t->y || !t->xlabel || !r->x || !r->y || !r->xlabel) {
                free(wins); free(precs); free(in); prec_index_free(&ix);
                AN_NOMEM();
            }
            /* sizes in config order (sorted numerically); a size's slot by its id, not by a search of the
             * series (sizes grow with the configs: the searches and the per-size scans below were n^2) */
            for (size_t i = 0; i < ix.n_sizes; i++)
                ix.slot[i] = -1, ix.cnt[i] = 0;
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (!in[ci] || ix.prec[ci] != (int)k)
                    continue;
                if (c->workload.window == a->precision.window) {
                    int sid = ix.size[ci];
                    if (ix.slot[sid] < 0) {
                        size_t j = t->n;
                        ix.slot[sid] = (int)j;
                        t->xlabel[j] = c->workload.size;
                        t->x[j] = c->size_num;
                        t->y[j] = 0;
                        t->n++;
                    }
                    size_t j = (size_t)ix.slot[sid];
                    t->y[j] += c->wall.mean;   /* summed, divided by family count below */
                    r->y[j] += 0;
                    ix.cnt[j]++;
                }
            }
            /* average over families at one size */
            for (size_t j = 0; j < t->n; j++)
                if (ix.cnt[j])
                    t->y[j] /= ix.cnt[j];
            prec_ratios(a, &ix, in, k, r, tmp);
            /* Series were filled in config order (family-major): put them in size order first. */
            an_sort_series(t);
            an_sort_series(r);
            if (prec_crossovers(a, r)) {
                free(wins); free(precs); free(in); prec_index_free(&ix);
                AN_NOMEM();
            }
        }
        /* Precision x window figure: the size with the most configs of this slice. */
        const char **sizes = precs;   /* reuse the buffer */
        size_t ns = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (in[ci])
                sizes[ns++] = c->workload.size;
        }
        a->precision.window_size = ns ? an_most_common(sizes, ns, NULL) : NULL;
        free(wins);
        free(precs);
        free(in);
        prec_index_free(&ix);
    }
cleanup:
    return rc;
}

static void free_series(pm_an_series *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        pm_free_all(s[i].x, s[i].y, s[i].xlabel);
    free(s);
}

void an_precision_free(pm_analysis *a)
{
    /* time / ratio are allocated with n+1 entries; free what was filled */
    size_t np = a->precision.n;
    free_series(a->precision.time, np + 1);
    free_series(a->precision.ratio, np + 1);
    pm_free_strs(a->precision.crossovers, a->precision.n_crossovers);
}
