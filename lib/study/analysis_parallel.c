/* Section: IR sizes per config (run metrics) and process user/wall per tool. */
#include "analysis_internal.h"
#include "contention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int take_metric(void *ctx, const pm_sq_metric_row *r)
{
    pm_analysis *a = ctx;
    int ci = an_find_cfg(a, r->config_id);
    if (ci < 0)
        return PM_OK;
    pm_an_config *c = &a->configs[ci];
    if (!strncmp(r->name, "ir.stage.", 9)) {
        int s = pm_an_stage_index(a, r->name + 9);
        if (s >= 0)
            c->stage_ir[s] = r->mean;
        return PM_OK;
    }
    if (!strcmp(r->name, "host.load1")) {
        c->load1 = r->mean;
        return PM_OK;
    }
    if (!strcmp(r->name, "host.jobs")) {   /* contention evidence: sweep --jobs */
        c->jobs = r->mean;
        return PM_OK;
    }
    int ev = pm_contention_metric_of(r->name);
    if (ev >= 0) {   /* contention evidence (analysis_noise.c), not a size */
        double *slot[PM_CONTENTION_M__COUNT] = {[PM_CONTENTION_M_PSI] = &c->psi_us,
                                                [PM_CONTENTION_M_PSI_CGROUP] = &c->psi_cgroup_us,
                                                [PM_CONTENTION_M_STEAL] = &c->steal_ms};
        *slot[ev] = r->mean;
        return PM_OK;
    }
    if (!strcmp(r->name, "ir.ops")) c->ir_ops = r->mean;
    else if (!strcmp(r->name, "ir.llvm_ops")) c->llvm_ops = r->mean;
    else if (!strcmp(r->name, "npu.tasks")) c->npu_tasks = r->mean;
    else if (!strcmp(r->name, "npu.tiles")) c->npu_tiles = r->mean;
    /* every metric, so the fits can use whatever IR sizes a back end's steps declare */
    struct pm_an_metric *m = realloc(c->metrics, (c->n_metrics + 1) * sizeof *m);
    if (!m)
        return PM_ERR_NOMEM;
    c->metrics = m;
    if (!(m[c->n_metrics].name = strdup(r->name)))
        return PM_ERR_NOMEM;
    m[c->n_metrics++].mean = r->mean;
    return PM_OK;
}

int an_take_tool(void *ctx, const pm_sq_tool_row *r)
{
    pm_analysis *a = ctx;
    char **t = realloc(a->parallelism.tools, (a->parallelism.n_tools + 1) * sizeof *t);
    if (t)
        a->parallelism.tools = t;
    double *uw = t ? realloc(a->parallelism.tool_user_wall, (a->parallelism.n_tools + 1) * sizeof *uw) : NULL;
    if (uw)
        a->parallelism.tool_user_wall = uw;
    if (!t || !uw)
        return PM_ERR_NOMEM;
    a->parallelism.tools[a->parallelism.n_tools] = r->tool ? strdup(r->tool) : NULL;
    if (r->tool && !a->parallelism.tools[a->parallelism.n_tools])
        return PM_ERR_NOMEM;
    a->parallelism.tool_user_wall[a->parallelism.n_tools++] = r->wall_s > 0 ? r->user_s / r->wall_s : NAN;
    return PM_OK;
}

static int keep_metric(void *ctx, const pm_sq_metric_row *r)
{
    an_work *w = ctx;
    pm_sq_metric_row *p = w->mrows;
    if (w->n_mrows >= 16 && !(w->n_mrows & (w->n_mrows - 1))) {   /* full at 16, 32, 64...: double */
        if (!(p = realloc(w->mrows, 2 * w->n_mrows * sizeof *p)))
            return PM_ERR_NOMEM;
    } else if (!p && !(p = malloc(16 * sizeof *p))) {
        return PM_ERR_NOMEM;
    }
    w->mrows = p;
    p[w->n_mrows] = *r;
    if (!(p[w->n_mrows].name = an_pool_add(&w->pv->pool, r->name)))
        return PM_ERR_NOMEM;
    w->n_mrows++;
    return PM_OK;
}

int an_metric_means(an_work *w, int (*fn)(void *, const pm_sq_metric_row *), void *ctx, pm_err *err)
{
    int rc;
    if (!w->mrows_read) {
        if ((rc = pm_sq_cold_metric_means(w->db, keep_metric, w, err)))
            return rc;
        w->mrows_read = 1;
    }
    for (size_t i = 0; i < w->n_mrows; i++)
        if ((rc = fn(ctx, &w->mrows[i])))
            return rc;
    return PM_OK;
}

int an_parallel(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    for (size_t i = 0; i < a->n_configs; i++) {
        if (!(a->configs[i].stage_ir = malloc((a->n_stages + 1) * sizeof *a->configs[i].stage_ir)))
            return an_nomem(err);
        for (size_t s = 0; s <= a->n_stages; s++)
            a->configs[i].stage_ir[s] = NAN;
    }
    int rc = an_metric_means(w, take_metric, w->a, err);   /* (the tools' user/wall: an_load's step scan) */
    return rc == PM_ERR_NOMEM ? an_nomem(err) : rc;
}

void an_parallel_free(pm_analysis *a)
{
    pm_free_strs(a->parallelism.tools, a->parallelism.n_tools);
    free(a->parallelism.tool_user_wall);
}
