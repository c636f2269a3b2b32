/* Section: the heavy passes and their cost fits against IR size. */
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The size a pass works on is the IR at the entry of its own stage: fixed by the stage, never chosen by how
 * well it fits. NULL: out of memory. */
static const char *x_metric_for(an_work *w, const char *tool, int stage)
{
    pm_analysis *a = w->a;
    const char *name = an_stage_name(a, stage);
    if (tool && !strncmp(tool, "ov-", 3))
        return strstr(name, "tiling") ? "npu.tiles" : "npu.tasks";
    if (tool && (!strcmp(tool, "llc") || !strcmp(tool, "mlir-translate")))
        return "ir.llvm_ops";   /* the LLVM IR that mlir-translate writes and llc reads */
    for (size_t ci = 0; ci < a->n_configs; ci++)
        if (a->configs[ci].stage_ir && !isnan(a->configs[ci].stage_ir[stage])) {
            char m[160];
            snprintf(m, sizeof m, "ir.stage.%s", name);
            return an_pool_add(&w->pv->pool, m);
        }
    int has_ops = 0;
    for (size_t ci = 0; ci < a->n_configs && !has_ops; ci++)
        has_ops = !isnan(an_config_metric(a, &a->configs[ci], "ir.ops"));
    if (!has_ops) {
        /* A command back end: the sizes its steps declare ("ir.*"). Which one is fixed by name (the first in
         * sort order), never by how well it fits; a spec declares one size per study to fit against. */
        const char *first = NULL;
        for (size_t k = 0; k < w->n_metric_names; k++)
            if (!strncmp(w->metric_names[k], "ir.", 3) && (!first || strcmp(w->metric_names[k], first) < 0))
                first = w->metric_names[k];
        if (first)
            return first;
    }
    return "ir.ops";   /* the stage's entry was not measured (older stores, other back ends): the input size */
}

int an_fits(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    struct pm_an_priv *pv = w->pv;
    size_t NP = pv->n_pids;
    /* the metric names any config carries (pointers into the configs) */
    w->n_metric_names = 0;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        for (size_t k = 0; k < a->configs[ci].n_metrics; k++) {
            const char *nm = a->configs[ci].metrics[k].name;
            size_t j = 0;
            while (j < w->n_metric_names && strcmp(w->metric_names[j], nm))
                j++;
            if (j < w->n_metric_names)
                continue;
            const char **nn = realloc(w->metric_names, (w->n_metric_names + 1) * sizeof *nn);
            if (!nn)
                AN_NOMEM();
            w->metric_names = nn;
            w->metric_names[w->n_metric_names++] = nm;
        }
    /* Heavy passes: largest share anywhere >= 5%, top 8 by that share; fit time against IR size. */
    double *pid_max = calloc(NP + 1, sizeof *pid_max);
    if (!pid_max)
        AN_NOMEM();
    for (size_t ci = 0; ci < a->n_configs; ci++)
        for (size_t p = 0; p < a->configs[ci].n_passes; p++) {
            const pm_an_pass *ps = &a->configs[ci].passes[p];
            if (ps->share > pid_max[ps->id])
                pid_max[ps->id] = ps->share;
        }
    a->fits = calloc(8, sizeof *a->fits);
    if (!a->fits) {
        free(pid_max);
        AN_NOMEM();
    }
    for (int round = 0; round < 8; round++) {
        size_t best = NP;
        for (size_t k = 0; k < NP; k++)
            if (pid_max[k] >= 0.05 && (best == NP || pid_max[k] > pid_max[best]))
                best = k;
        if (best == NP)
            break;
        double mshare = pid_max[best];
        pid_max[best] = -1;
        pm_an_fit *f = &a->fits[a->n_fits];
        f->tool = pv->pids[best].tool;
        f->name = pv->pids[best].name;
        f->stage = pv->pids[best].stage;
        if (!(f->x_metric = x_metric_for(w, f->tool, f->stage))) {
            free(pid_max);
            AN_NOMEM();
        }
        f->max_share = mshare;
        f->x = calloc(a->n_configs + 1, sizeof *f->x);
        f->y = calloc(a->n_configs + 1, sizeof *f->y);
        if (!f->x || !f->y) {
            free(f->x); free(f->y);
            free(pid_max);
            AN_NOMEM();
        }
        double u = 0, uw = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            double x = an_config_metric(a, c, f->x_metric);
            /* Under NPUW every subgraph compile overwrites the trace and strategy files: x is the LM head's,
             * the pass time the whole compile's. Never fitted against each other. */
            if (!strncmp(f->x_metric, "npu.", 4) && (an_config_metric(a, c, "npu.submodel.lm_head.blocks") > 0 ||
                                                     an_config_metric(a, c, "ov.npuw.max_prompt_len") > 0)) {
                for (size_t p = 0; p < c->n_passes; p++)
                    f->npuw_left_out += c->passes[p].name == f->name;
                continue;
            }
            for (size_t p = 0; p < c->n_passes; p++)
                if (c->passes[p].name == f->name) {
                    if (x > 0 && c->passes[p].mean_s > 0) {
                        f->x[f->n] = x;
                        f->y[f->n++] = c->passes[p].mean_s;
                    }
                    if (!isnan(c->passes[p].user_wall)) {
                        u += c->passes[p].user_wall * c->passes[p].mean_s;
                        uw += c->passes[p].mean_s;
                    }
                    break;
                }
        }
        f->user_wall = uw > 0 ? u / uw : NAN;
        f->exponent = f->lo = f->hi = f->r2 = f->prefactor = NAN;
        int distinct = 0;
        for (int i = 0; i < f->n; i++)
            distinct += i == 0 || f->x[i] != f->x[0];
        if (distinct >= 3)
            an_powerlaw_fit(f->x, f->y, f->n, &f->exponent, &f->lo, &f->hi, &f->r2, &f->prefactor);
        f->superlinear = !isnan(f->lo) && f->lo > 1;
        a->n_fits++;
    }
    free(pid_max);
cleanup:
    return rc;
}
