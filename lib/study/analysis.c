/* pm_analysis_run: the driver. Each section is one row of analysis_sections.h, its fill and free functions in its
 * own file (analysis_*.c), run in order over one shared working state; the SQL lives in lib/store/store_query.c. */
#include "util.h"
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
    pm_free_all(w.runs, w.run_stage, w.run_stage_u, w.stage_u, w.stage_uw, w.pid_cfg_s, w.pid_cfg_log, w.pid_cfg_nlog,
                w.run_pid_s, w.touched, w.pid_cfg_u, w.pid_cfg_uw, w.key_pid, w.agg_stage, w.agg_slot_pid, w.mrows,
                w.tmp, w.metric_names, w.cfg_startup);
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
    for (size_t i = 0; i < full->priv.pool.n; i++)
        free(full->priv.pool.s[i]);
    pm_free_all(full->priv.pool.s, full->priv.pids, full->priv.slots, full->priv.cfg_ix, full);
}

int pm_study_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err)
{
    pm_analysis *a = NULL;
    int rc = pm_analysis_run(db, opts, &a, err);
    if (rc) {
        pm_err_wrap(err, "%s", opts->db_path ? opts->db_path : "-");   /* an SQL error alone does not say which file */
        return rc;
    }
    /* a header of dashes and a headline would be a false study */
    if (!an_has_runs(a)) {
        const char *path = opts->db_path ? opts->db_path : "-";
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: sweep '%s' has no runs yet (passmap sweep SPEC.ini --db %s "
                        "measures it)", path, a->sweep ? a->sweep : "-", path);
    } else if (opts->add_fixes) {
        rc = opts->add_fixes(a, opts->db_path, opts->allow_contended, opts->add_fixes_user, err);
    }
    if (rc) {
        pm_analysis_free(a);
        a = NULL;
    }
    *out = a;
    return rc;
}
