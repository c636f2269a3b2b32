/* pm_analysis_run: the driver. Each section is one row of analysis_sections.h, its fill and free functions in its
 * own file (analysis_*.c), run in order over one shared working state; the SQL lives in lib/store/store_query.c. */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pm_analysis_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err)
{
    static int (*const sections[])(an_work *, pm_err *) = {
#define AN_SECTION(name) an_##name,
#include "analysis_sections.h"
#undef AN_SECTION
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
    free(w.run_stage_u);
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

void pm_analysis_free(pm_analysis *a)
{
    if (!a)
        return;
    analysis_full *full = (analysis_full *)a;
#define AN_SECTION(name) an_##name##_free(a);
#include "analysis_sections.h"
#undef AN_SECTION
    /* filled by the caller after the run (it has the store's path) */
    pm_an_ab_free(&a->ab);
    pm_an_builds_free(&a->between);
    for (size_t i = 0; i < full->priv.pool.n; i++)
        free(full->priv.pool.s[i]);
    free(full->priv.pool.s);
    free(full->priv.pids);
    free(full->priv.slots);
    free(full->priv.cfg_ix);
    free(full);
}
