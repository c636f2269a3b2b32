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
        if (!wins || !precs || !in) {
            free(wins); free(precs); free(in);
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
            a->prec_window = an_most_common_int(wins, nw);
        a->prec_base = an_most_common(precs, np, "int8");
        a->n_prec = nw ? np : 0;
        a->prec_time = calloc(np + 1, sizeof *a->prec_time);
        a->prec_ratio = calloc(np + 1, sizeof *a->prec_ratio);
        if (!a->prec_time || !a->prec_ratio) {
            free(wins); free(precs); free(in);
            AN_NOMEM();
        }
        for (size_t k = 0; k < a->n_prec; k++) {
            pm_an_series *t = &a->prec_time[k], *r = &a->prec_ratio[k];
            t->label = r->label = precs[k] ? precs[k] : "-";
            t->x = calloc(a->n_configs + 1, sizeof *t->x);
            t->y = calloc(a->n_configs + 1, sizeof *t->y);
            t->xlabel = calloc(a->n_configs + 1, sizeof *t->xlabel);
            r->x = calloc(a->n_configs + 1, sizeof *r->x);
            r->y = calloc(a->n_configs + 1, sizeof *r->y);
            r->xlabel = calloc(a->n_configs + 1, sizeof *r->xlabel);
            if (!t->x || !t->y || !t->xlabel || !r->x || !r->y || !r->xlabel) {
                free(wins); free(precs); free(in);
                AN_NOMEM();
            }
            /* sizes in config order (sorted numerically) */
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (!in[ci] || !an_same(c->workload.precision, precs[k]))
                    continue;
                if (c->workload.window == a->prec_window) {
                    size_t j;
                    for (j = 0; j < t->n && !an_same(t->xlabel[j], c->workload.size); j++)
                        ;
                    if (j == t->n) {
                        t->xlabel[j] = c->workload.size;
                        t->x[j] = c->size_num;
                        t->y[j] = 0;
                        t->n++;
                    }
                    t->y[j] += c->wall.mean;   /* summed, divided by family count below */
                    r->y[j] += 0;
                }
            }
            /* average over families at one size */
            for (size_t j = 0; j < t->n; j++) {
                int cnt = 0;
                for (size_t ci = 0; ci < a->n_configs; ci++) {
                    const pm_workload *cw = &a->configs[ci].workload;
                    cnt += in[ci] && an_same(cw->precision, precs[k]) && cw->window == a->prec_window &&
                           an_same(cw->size, t->xlabel[j]);
                }
                if (cnt)
                    t->y[j] /= cnt;
            }
            /* ratio to base per size: median over (family, window) pairs that both precisions have */
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (!in[ci] || !an_same(c->workload.precision, precs[k]))
                    continue;
                size_t j;
                for (j = 0; j < r->n && !an_same(r->xlabel[j], c->workload.size); j++)
                    ;
                if (j < r->n)
                    continue;
                int n = 0;
                for (size_t cj = 0; cj < a->n_configs; cj++) {
                    const pm_an_config *c2 = &a->configs[cj];
                    const pm_workload *w2 = &c2->workload;
                    if (!in[cj] || !an_same(w2->size, c->workload.size) || !an_same(w2->precision, precs[k]))
                        continue;
                    for (size_t cb = 0; cb < a->n_configs; cb++) {
                        const pm_an_config *b = &a->configs[cb];
                        const pm_workload *wb = &b->workload;
                        if (in[cb] && an_same(wb->family, w2->family) && an_same(wb->size, w2->size) &&
                            wb->window == w2->window && an_same(wb->precision, a->prec_base) && b->wall.mean > 0)
                            tmp[n++] = c2->wall.mean / b->wall.mean;
                    }
                }
                if (n) {
                    r->xlabel[r->n] = c->workload.size;
                    r->x[r->n] = c->size_num;
                    r->y[r->n++] = an_median(tmp, (size_t)n);
                }
            }
            /* Series were filled in config order (family-major): put them in size order first. */
            an_sort_series(t);
            an_sort_series(r);
            /* Crossovers: ratio crosses 1 between consecutive sizes. */
            for (size_t j = 1; j < r->n; j++) {
                double d0 = r->y[j - 1] - 1, d1 = r->y[j] - 1;
                if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) {
                    char text[256];
                    snprintf(text, sizeof text, "%s becomes %s than %s between %s (x%.2f) and %s (x%.2f)",
                             r->label, d1 > 0 ? "slower" : "faster", a->prec_base, r->xlabel[j - 1], r->y[j - 1],
                             r->xlabel[j], r->y[j]);
                    if (an_strlist_add(&a->crossovers, &a->n_crossovers, text)) {
                        free(wins); free(precs); free(in);
                        AN_NOMEM();
                    }
                }
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
        a->prec_window_size = ns ? an_most_common(sizes, ns, NULL) : NULL;
        free(wins);
        free(precs);
        free(in);
    }
cleanup:
    return rc;
}
