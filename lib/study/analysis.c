/* pm_analysis_run: the driver. Each report section is one function in its own file (analysis_*.c, declared in
 * analysis_internal.h), run in order over one shared working state; the SQL lives in lib/store/store_query.c. */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pm_analysis_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err)
{
    static int (*const sections[])(an_work *, pm_err *) = {
        an_load, an_startup, an_stages, an_hosts, an_parallel, an_npu, an_noise, an_regimes, an_fits, an_handoff, an_precision,
        an_fixes,
    };
    int rc = PM_OK;
    analysis_full *full = calloc(1, sizeof *full);
    if (!full)
        return an_nomem(err);
    an_work w = {.db = db, .opts = opts, .a = &full->pub, .pv = &full->priv};
    for (size_t i = 0; !rc && i < sizeof sections / sizeof *sections; i++)
        rc = sections[i](&w, err);
    pm_sq_scope_end(db);
    pm_sq_sweeps_free(&w.sweeps);
    free(w.runs);
    free(w.run_stage);
    free(w.stage_u);
    free(w.stage_uw);
    free(w.pid_cfg_s);
    free(w.pid_cfg_log);
    free(w.pid_cfg_nlog);
    free(w.run_pid_s);
    free(w.touched);
    free(w.pid_cfg_u);
    free(w.pid_cfg_uw);
    free(w.key_pid);
    free(w.agg_stage);
    free(w.agg_slot_pid);
    free(w.mrows);
    free(w.tmp);
    free(w.metric_names);
    free(w.cfg_startup);
    if (rc) {
        pm_analysis_free(w.a);
        w.a = NULL;
    }
    *out = w.a;
    return rc;
}

static void free_series(pm_an_series *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].x);
        free(s[i].y);
        free(s[i].xlabel);
    }
    free(s);
}

static void free_regime(pm_an_regime *r)
{
    free(r->cells);
    for (size_t i = 0; i < r->n_boundaries; i++)
        free(r->boundaries[i]);
    free(r->boundaries);
}

void pm_analysis_free(pm_analysis *a)
{
    if (!a)
        return;
    analysis_full *full = (analysis_full *)a;
    free(a->fixes.proven_json);
    free(a->fixes.headline);
    for (size_t i = 0; i < a->n_configs; i++) {
        pm_an_config *c = &a->configs[i];
        pm_cfg_clear(&c->cfg);
        pm_workload_clear(&c->workload);
        free(c->share); free(c->stage_s); free(c->passes); free(c->stage_ir);
        for (size_t k = 0; k < c->n_metrics; k++)
            free(c->metrics[k].name);
        free(c->metrics);
    }
    free(a->configs);
    for (size_t i = 0; i < a->regimes.n; i++)
        free_regime(&a->regimes.rows[i]);
    free(a->regimes.rows);
    for (size_t i = 0; i < a->fits.n; i++) {
        free(a->fits.rows[i].x);
        free(a->fits.rows[i].y);
    }
    free(a->fits.rows);
    free(a->handoff.trends);
    free(a->handoff.points);
    free(a->handoff.series_axes);
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
    /* prec_time / prec_ratio are allocated with n_prec+1 entries; free what was filled */
    size_t np = a->precision.n;
    free_series(a->precision.time, np + 1);
    free_series(a->precision.ratio, np + 1);
    for (size_t i = 0; i < a->precision.n_crossovers; i++)
        free(a->precision.crossovers[i]);
    free(a->precision.crossovers);
    for (size_t i = 0; i < a->parallelism.n_tools; i++)
        free(a->parallelism.tools[i]);
    free(a->parallelism.tools);
    free(a->parallelism.tool_user_wall);
    free(a->parallelism.stage_user_wall);
    for (size_t i = 0; i < a->fixes.n; i++)
        free(a->fixes.rows[i].fix);
    free(a->fixes.rows);
    free(a->npu.rows);
    for (size_t i = 0; i < a->machines.n; i++) {
        pm_an_host *h = &a->machines.rows[i];
        free(h->name); free(h->fingerprint); free(h->cpu_model); free(h->kernel); free(h->compiler);
    }
    free(a->machines.rows);
    for (size_t i = 0; i < a->overhead.n; i++) {
        free(a->overhead.rows[i].tool);
        free(a->overhead.rows[i].note);
    }
    free(a->overhead.rows);
    pm_tool_idents_free(a->method.tools, a->method.n_tools);
    for (size_t i = 0; i < a->machines.n_warnings; i++)
        free(a->machines.warnings[i]);
    free(a->machines.warnings);
    free(a->incomplete);
    for (size_t i = 0; i < a->ab.n; i++) {
        free(a->ab.rows[i].variant);
        free(a->ab.rows[i].against);
        free(a->ab.rows[i].error);
        pm_compare_free(&a->ab.rows[i].cmp);
    }
    free(a->ab.rows);
    pm_an_builds_free(&a->between);
    free(a->stages);
    free(a->sweep); free(a->backend); free(a->meta_json); free(a->summary.no_report_note);
    for (size_t i = 0; i < full->priv.pool.n; i++)
        free(full->priv.pool.s[i]);
    free(full->priv.pool.s);
    free(full->priv.pids);
    free(full->priv.slots);
    free(full->priv.cfg_ix);
    free(full);
}
