/* Helpers the analysis sections share: statistics adapters onto pm_stats_, ordering, interning. */
#include "analysis_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "stats.h"
#include "util.h"

/* ---- statistics: thin adapters onto pm_stats_ (lib/stats.h) ---- */

pm_ci an_time_ci(const double *v, int n)
{
    pm_stats_logci lc;
    pm_ci c = {NAN, NAN, NAN, n};
    if (n <= 0)
        return c;
    /* geometric mean, t-interval of the log times; n < 3: the value alone (lo/hi NaN) */
    pm_stats_log_interval(v, (size_t)n, 0.95, &lc);
    c.mean = lc.gmean;
    c.lo = lc.lo;
    c.hi = lc.hi;
    return c;
}

pm_ci an_share_ci(const double *v, int n)
{
    pm_stats_summary sm;
    pm_ci c = {NAN, NAN, NAN, n};
    if (n <= 0)
        return c;
    pm_stats_summarize(v, (size_t)n, &sm);
    c.mean = sm.mean;
    if (n >= PM_STATS_MIN_INTERVAL_N) {
        /* a share is a fraction: its t-interval is clipped to [0, 1] */
        c.lo = sm.ci_lo < 0 ? 0 : sm.ci_lo;
        c.hi = sm.ci_hi > 1 ? 1 : sm.ci_hi;
    }
    return c;
}

/* y = pref * x^expo with the exponent's 95% CI and R^2 of the log-log fit; -1 when it cannot be fitted. */
int an_powerlaw_fit(const double *x, const double *y, int n, double *expo, double *lo, double *hi,
                        double *r2, double *pref)
{
    pm_stats_powerlaw pl;
    if (n < 3 || pm_stats_powerlaw_fit(x, y, (size_t)n, &pl) != PM_STATS_OK || pl.n < 3)
        return -1;
    *expo = pl.b;
    *lo = pl.b_ci_lo;
    *hi = pl.b_ci_hi;
    *r2 = pl.r2;
    *pref = pl.a;
    return 0;
}

double an_js_distance(const double *p, const double *q, size_t n)
{
    double d = NAN;
    return pm_stats_js_distance(p, q, n, &d) == PM_STATS_OK ? d : NAN;
}

double an_median(double *v, size_t n)
{
    double m = NAN;
    return pm_stats_quantile(v, n, 0.5, &m) == PM_STATS_OK ? m : NAN;
}

/* ---- helpers ---- */

double pm_an_size_value(const char *size)
{
    if (!size || !*size)
        return NAN;
    char *end;
    double v = strtod(size, &end);
    if (end == size)
        return NAN;
    switch (tolower((unsigned char)*end)) {
    case 'k': v *= 1e3; break;
    case 'm': v *= 1e6; break;
    case 'b': case 'g': v *= 1e9; break;
    case 't': v *= 1e12; break;
    case 0: break;
    default: return NAN;
    }
    return v;
}

int an_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int pm_an_stage_index(const pm_analysis *a, const char *stage)
{
    for (size_t i = 0; i < a->n_stages; i++)
        if (!strcmp(a->stages[i], stage))
            return (int)i;
    return -1;
}

const pm_an_config *pm_an_find_config(const pm_analysis *a, const char *key)
{
    for (size_t i = 0; i < a->n_configs; i++)
        if (!strcmp(a->configs[i].key, key))
            return &a->configs[i];
    return NULL;
}

static int cmp_nullstr(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_size(const char *a, double an, const char *b, double bn)
{
    if (!isnan(an) && !isnan(bn) && an != bn)
        return an < bn ? -1 : 1;
    return cmp_nullstr(a, b);
}

int an_cmp_config(const void *pa, const void *pb)
{
    const pm_an_config *a = pa, *b = pb;
    int c;
    if ((c = cmp_nullstr(a->kind, b->kind)) || (c = cmp_nullstr(a->workload.family, b->workload.family)) ||
        (c = cmp_size(a->workload.size, a->size_num, b->workload.size, b->size_num)))
        return c;
    if (a->workload.window != b->workload.window)
        return a->workload.window < b->workload.window ? -1 : 1;
    if ((c = cmp_nullstr(a->workload.precision, b->workload.precision)))
        return c;
    if (a->workload.resolution != b->workload.resolution)
        return a->workload.resolution < b->workload.resolution ? -1 : 1;
    if ((c = cmp_nullstr(a->variant, b->variant)))
        return c;
    return cmp_nullstr(a->key, b->key);
}

int an_cmp_pass(const void *pa, const void *pb)
{
    const pm_an_pass *a = pa, *b = pb;
    if (a->mean_s != b->mean_s)
        return a->mean_s > b->mean_s ? -1 : 1;
    return strcmp(a->name, b->name);
}


const char *an_pool_add(strpool *p, const char *s)
{
    char **q = pm_grow(p->s, &p->cap, p->n, sizeof *q, 256);
    if (!q)
        return NULL;
    p->s = q;
    char *d = strdup(s ? s : "");
    if (!d)
        return NULL;
    p->s[p->n++] = d;
    return d;
}

static uint64_t pid_hash(const char *tool, const char *name)
{
    return XXH3_64bits_withSeed(name, strlen(name), XXH3_64bits(tool, strlen(tool)));
}

/* Index of (tool, name), added when new; -1 when out of memory. */
int an_pid_lookup(struct pm_an_priv *pv, const char *tool, const char *name)
{
    if (pv->n_pids * 2 >= pv->n_slots) {
        size_t ns = pv->n_slots ? pv->n_slots * 2 : 1024;
        int *sl = malloc(ns * sizeof *sl);
        if (!sl)
            return -1;
        for (size_t i = 0; i < ns; i++)
            sl[i] = -1;
        for (size_t k = 0; k < pv->n_pids; k++) {
            size_t h = pid_hash(pv->pids[k].tool, pv->pids[k].name) & (ns - 1);
            while (sl[h] >= 0)
                h = (h + 1) & (ns - 1);
            sl[h] = (int)k;
        }
        free(pv->slots);
        pv->slots = sl;
        pv->n_slots = ns;
    }
    size_t h = pid_hash(tool, name) & (pv->n_slots - 1);
    for (; pv->slots[h] >= 0; h = (h + 1) & (pv->n_slots - 1)) {
        const pass_id *id = &pv->pids[pv->slots[h]];
        if (!strcmp(id->name, name) && !strcmp(id->tool, tool))
            return pv->slots[h];
    }
    pass_id *p = pm_grow(pv->pids, &pv->cap_pids, pv->n_pids, sizeof *p, 256);
    if (!p)
        return -1;
    pv->pids = p;
    pass_id *id = &pv->pids[pv->n_pids];
    id->tool = an_pool_add(&pv->pool, tool);
    id->name = an_pool_add(&pv->pool, name);
    id->stage = -1;
    if (!id->tool || !id->name)
        return -1;
    pv->slots[h] = (int)pv->n_pids;
    return (int)pv->n_pids++;
}

int an_find_cfg(const pm_analysis *a, int64_t id)
{
    /* by the id index an_load builds once the configs are sorted (callbacks ask it per run and metric row:
     * a linear search was 2% of the report on 1,500 configs); linear before that */
    const struct pm_an_priv *pv = &((const analysis_full *)a)->priv;
    if (pv->cfg_ix && pv->n_cfg_ix == a->n_configs) {
        size_t lo = 0, hi = pv->n_cfg_ix;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pv->cfg_ix[mid].id < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < pv->n_cfg_ix && pv->cfg_ix[lo].id == id ? pv->cfg_ix[lo].i : -1;
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].id == id)
            return (int)i;
    return -1;
}

int an_cmp_at(const void *pa, const void *pb)
{
    size_t a = ((const an_str_at *)pa)->i, b = ((const an_str_at *)pb)->i;
    return (a > b) - (a < b);
}

int an_cmp_str_at(const void *pa, const void *pb)
{
    const an_str_at *a = pa, *b = pb;
    int c = pm_util_strcmp_null(a->s, b->s);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The most frequent value (an_same); prefer wins when present. Values are met in first-seen order and a tie goes
 * to the one met first, unless later_wins(later, best) (NULL: never). By sorting, not by counting each value
 * against all (n^2: seconds at 15,000 configs). */
const char *an_most_common_tie(const char **v, size_t n, const char *prefer,
                               int (*later_wins)(const char *later, const char *best))
{
    for (size_t i = 0; prefer && i < n; i++)
        if (v[i] && !strcmp(v[i], prefer))
            return v[i];
    an_str_at *t = malloc((n + 1) * sizeof *t);
    size_t *count = malloc((n + 1) * sizeof *count);   /* [first position of a value]: its count */
    const char *best = NULL;
    size_t best_n = 0;
    if (!t || !count) {   /* no memory: the counting way, which needs none (a value met again changes nothing) */
        free(t), free(count);
        for (size_t i = 0; i < n; i++) {
            size_t c = 0;
            for (size_t j = 0; j < n; j++)
                c += an_same(v[i], v[j]);
            if (c > best_n || (c == best_n && later_wins && later_wins(v[i], best))) {
                best_n = c;
                best = v[i];
            }
        }
        return best;
    }
    for (size_t i = 0; i < n; i++)
        t[i] = (an_str_at){v[i], i};
    qsort(t, n, sizeof *t, an_cmp_str_at);
    size_t n_dist = 0;
    for (size_t lo = 0, hi; lo < n; lo = hi) {   /* each distinct value once, at its first position */
        for (hi = lo + 1; hi < n && an_same(t[lo].s, t[hi].s); hi++)
            ;
        count[t[lo].i] = hi - lo;
        t[n_dist++] = t[lo];
    }
    qsort(t, n_dist, sizeof *t, an_cmp_at);
    for (size_t k = 0; k < n_dist; k++) {
        size_t c = count[t[k].i];
        if (c > best_n || (c == best_n && later_wins && later_wins(t[k].s, best))) {
            best_n = c;
            best = t[k].s;
        }
    }
    free(t), free(count);
    return best;
}

const char *an_most_common(const char **v, size_t n, const char *prefer)
{
    return an_most_common_tie(v, n, prefer, NULL);
}

int an_strlist_take(char ***list, size_t *n, char **text)
{
    char **p = *text ? realloc(*list, (*n + 1) * sizeof *p) : NULL;
    if (!p) {
        free(*text);
        *text = NULL;
        return PM_ERR_NOMEM;
    }
    *list = p;
    p[(*n)++] = *text;
    *text = NULL;
    return PM_OK;
}

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* The most frequent value, the largest among ties (sorted, not counted against all: n^2) */
int an_most_common_int(const int *v, size_t n)
{
    int best = 0;
    size_t best_n = 0;
    int *t = malloc((n + 1) * sizeof *t);
    if (!t) {   /* no memory: the counting way */
        for (size_t i = 0; i < n; i++) {
            size_t c = 0;
            for (size_t j = 0; j < n; j++)
                c += v[i] == v[j];
            if (c > best_n || (c == best_n && v[i] > best)) {
                best_n = c;
                best = v[i];
            }
        }
        return best;
    }
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_int);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && t[b] == t[a]; b++)
            ;
        if (b - a > best_n || (b - a == best_n && t[a] > best)) {
            best_n = b - a;
            best = t[a];
        }
    }
    free(t);
    return best;
}

int an_strlist_add(char ***list, size_t *n, const char *text)
{
    char **p = realloc(*list, (*n + 1) * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    *list = p;
    if (!(p[*n] = strdup(text)))
        return PM_ERR_NOMEM;
    (*n)++;
    return PM_OK;
}

const char *an_stage_name(const pm_analysis *a, int s)
{
    return s >= 0 && (size_t)s < a->n_stages ? a->stages[s] : "none";
}

/* Orders a series by x (insertion sort: a series has one point per model size). */
void an_sort_series(pm_an_series *sr)
{
    for (size_t i = 1; i < sr->n; i++)
        for (size_t j = i; j > 0 && sr->x[j] < sr->x[j - 1]; j--) {
            double tx = sr->x[j], ty = sr->y[j];
            const char *tl = sr->xlabel[j];
            sr->x[j] = sr->x[j - 1], sr->y[j] = sr->y[j - 1], sr->xlabel[j] = sr->xlabel[j - 1];
            sr->x[j - 1] = tx, sr->y[j - 1] = ty, sr->xlabel[j - 1] = tl;
        }
}

/* Regime map over configs of one kind, a slice of precision + variant. */

/* A config's value of a size metric (see pm_an_fit.x_metric); NAN when not measured. */
double an_config_metric(const pm_analysis *a, const pm_an_config *c, const char *m)
{
    if (!strncmp(m, "ir.stage.", 9)) {
        int s = pm_an_stage_index(a, m + 9);
        return s >= 0 && c->stage_ir ? c->stage_ir[s] : NAN;
    }
    if (!strcmp(m, "ir.ops")) return c->ir_ops;
    if (!strcmp(m, "ir.llvm_ops")) return isnan(c->llvm_ops) ? c->ir_ops : c->llvm_ops;
    if (!strcmp(m, "npu.tasks")) return c->npu_tasks;
    if (!strcmp(m, "npu.tiles")) return isnan(c->npu_tiles) ? c->npu_tasks : c->npu_tiles;
    for (size_t k = 0; k < c->n_metrics; k++)
        if (!strcmp(c->metrics[k].name, m))
            return c->metrics[k].mean;
    return NAN;
}

int an_nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

const pm_an_fingerprint *pm_an_fingerprint_for(const pm_analysis *a, const char *figure)
{
    for (size_t i = 0; i < a->figures.n_fingerprints; i++)
        if (a->figures.fingerprints[i].figure && !strcmp(a->figures.fingerprints[i].figure, figure))
            return &a->figures.fingerprints[i];
    return NULL;
}

const pm_an_regime *pm_an_regime_of(const pm_analysis *a, const char *kind)
{
    static const pm_an_regime none = {0};
    for (size_t i = 0; i < a->regimes.n; i++)
        if (a->regimes.rows[i].kind && kind && !strcmp(a->regimes.rows[i].kind, kind))
            return &a->regimes.rows[i];
    return &none;
}

const pm_an_regime *pm_an_regime_for(const pm_analysis *a, const char *figure)
{
    for (size_t i = 0; i < a->regimes.n; i++)
        if (a->regimes.rows[i].n_cells && a->regimes.rows[i].figure && !strcmp(a->regimes.rows[i].figure, figure))
            return &a->regimes.rows[i];
    return NULL;
}
