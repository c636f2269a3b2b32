/* Section: handoff between stages as compile time grows, and how alike the families are. */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>

int an_handoff(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    size_t NS = a->n_stages;
    /* Handoff: stage share vs log10 cold wall over LLM configs (all families); similarity of families. */
    a->trends = calloc(NS, sizeof *a->trends);
    double *hx = calloc(a->n_configs + 1, sizeof *hx), *hy = calloc(a->n_configs + 1, sizeof *hy);
    if (!a->trends || !hx || !hy) {
        free(hx); free(hy);
        AN_NOMEM();
    }
    for (size_t s = 0; s < NS; s++) {
        int n = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (c->kind && !strcmp(c->kind, "llm") && c->n_cold && c->wall.mean > 0 && an_compared(a, c)) {
                hx[n] = log10(c->wall.mean);
                hy[n++] = c->share[s].mean;
            }
        }
        a->trends[s] = (pm_an_trend){(int)s, NAN, NAN, n};
        double c0, c1, c00, c01, c11, ss;
        int distinct = 0;
        for (int i = 0; i < n; i++)
            distinct += i == 0 || hx[i] != hx[0];
        if (distinct >= 2) {
            gsl_fit_linear(hx, 1, hy, 1, (size_t)n, &c0, &c1, &c00, &c01, &c11, &ss);
            a->trends[s].slope = c1;
            a->trends[s].intercept = c0;
        }
    }
    free(hx);
    free(hy);
    {
        /* Families compared at equal cold compile time: bins of a quarter decade. */
        const char *fams[64];
        size_t nf = 0;
        for (size_t ci = 0; ci < a->n_configs && nf < 64; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (!c->kind || strcmp(c->kind, "llm") || !c->family || !c->n_cold || !an_compared(a, c))
                continue;
            size_t k;
            for (k = 0; k < nf && strcmp(fams[k], c->family); k++)
                ;
            if (k == nf)
                fams[nf++] = c->family;
        }
        double *pa = calloc(NS, sizeof *pa), *pb = calloc(NS, sizeof *pb);
        double total = 0;
        int pairs = 0;
        for (size_t f1 = 0; pa && pb && f1 < nf; f1++)
            for (size_t f2 = f1 + 1; f2 < nf; f2++) {
                double dsum = 0;
                int nb = 0;
                for (int bin = -40; bin < 40; bin++) {
                    memset(pa, 0, NS * sizeof *pa);
                    memset(pb, 0, NS * sizeof *pb);
                    int na = 0, nb2 = 0;
                    for (size_t ci = 0; ci < a->n_configs; ci++) {
                        const pm_an_config *c = &a->configs[ci];
                        if (!c->kind || strcmp(c->kind, "llm") || !c->family || !c->n_cold || !(c->wall.mean > 0) ||
                            !an_compared(a, c))
                            continue;
                        if ((int)floor(log10(c->wall.mean) * 4) != bin)
                            continue;
                        double *dst = !strcmp(c->family, fams[f1]) ? pa : !strcmp(c->family, fams[f2]) ? pb : NULL;
                        if (!dst)
                            continue;
                        if (dst == pa)
                            na++;
                        else
                            nb2++;
                        for (size_t s = 0; s < NS; s++)
                            dst[s] += c->share[s].mean;
                    }
                    if (na && nb2) {
                        double d = an_js_distance(pa, pb, NS);
                        if (!isnan(d)) {
                            dsum += d;
                            nb++;
                        }
                    }
                }
                if (nb) {
                    total += dsum / nb;
                    pairs++;
                }
            }
        free(pa);
        free(pb);
        if (pairs) {
            a->family_jsd = total / pairs;
            a->family_jsd_pairs = pairs;
        }
    }
cleanup:
    return rc;
}
