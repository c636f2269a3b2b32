/* One command measured outside a sweep, each run recorded with its parsed report (single_run.h). */
#include "single_run.h"
#include "identity.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"
#include "util.h"

/* The label a program name gives must fit what the stage maps match on (pm_tool_label). */
enum { LABEL_MAX = 256 };

/* A private folder for the stream the report is on when the caller keeps none: its file is the report. */
static int make_stream_dir(pm_single_run *sr, int want_out, int want_err, pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    if (asprintf(&sr->tmpdir, "%s/passmap-run-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
        sr->tmpdir = NULL;
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (!mkdtemp(sr->tmpdir)) {
        int rc = pm_err_errno(err, PM_ERR_IO, "cannot create %s", sr->tmpdir);
        free(sr->tmpdir);
        sr->tmpdir = NULL;
        return rc;
    }
    if ((want_out && asprintf(&sr->stdout_base, "%s/stdout", sr->tmpdir) < 0) ||
        (want_err && asprintf(&sr->stderr_base, "%s/stderr", sr->tmpdir) < 0))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    return PM_OK;
}

/* The compiler identity, as a sweep records it (identity.h): the measured command's path, --version and hash. */
static int record_tool(pm_single_run *sr, int64_t sweep_id, const char *argv0, pm_err *err)
{
    char dir[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    if (snprintf(dir, sizeof dir, "%s/passmap-version.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir)
        return pm_err_set(err, PM_ERR_USAGE, "$TMPDIR is longer than %zu bytes", sizeof dir - 32);
    if (!mkdtemp(dir))
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s for %s --version (set TMPDIR to a writable folder)",
                            dir, argv0);
    pm_tool_set set = {0};
    const pm_tool_ident *t = NULL;
    int rc = pm_tool_identify(&set, argv0, sr->tool, NULL, dir, 30, &t, err);
    if (!rc)
        rc = pm_store_record_tools(sr->st, sweep_id, 0, t, 1, err);
    pm_tool_set_free(&set);
    pm_util_remove_tree(dir);
    return rc;
}

int pm_single_run_open(pm_single_run *sr, const pm_single_run_opts *o, char *const cmd[], pm_err *err)
{
    memset(sr, 0, sizeof *sr);
    sr->report = o->report ? o->report : "stderr";
    sr->fmt = o->fmt;
    pm_config c = {.key = o->key, .kind = "command"};
    char label[LABEL_MAX];
    int64_t sweep_id;
    int rc = PM_OK;
    /* the key and the label first: a bad one creates no database */
    if ((rc = pm_cfg_params_from_key(&c.cfg, o->key, err)))
        goto cleanup;
    if (!o->tool && pm_tool_label(cmd[0], label, sizeof label)) {
        rc = pm_err_set(err, PM_ERR_USAGE, "program name longer than %d characters: give --tool LABEL",
                        LABEL_MAX - 1);
        goto cleanup;
    }
    sr->tool = strdup(o->tool ? o->tool : label);
    sr->argv = pm_argv_join(cmd);
    if (!sr->tool || !sr->argv) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* how the runs were measured, as a sweep records it (meter.h) */
    char meta[128] = "";
    if (o->meter)
        snprintf(meta, sizeof meta, "{\"meter\":\"%.60s\"}", o->meter);
    if ((rc = pm_store_open(o->db, &sr->st, err)) ||
        (rc = pm_store_sweep(sr->st, o->sweep ? o->sweep : "runs", "command", NULL, meta[0] ? meta : NULL, &sweep_id,
                             err)) ||
        (rc = pm_store_config(sr->st, sweep_id, &c, &sr->config_id, err)) ||
        (rc = pm_store_runs_done(sr->st, sr->config_id, "cold", &sr->first_repeat, err)) ||
        (rc = record_tool(sr, sweep_id, cmd[0], err)))
        goto cleanup;
    int want_out = !strcmp(sr->report, "stdout") && !o->keeps_stdout;
    int want_err = !strcmp(sr->report, "stderr") && !o->keeps_stderr;
    if (want_out || want_err)
        rc = make_stream_dir(sr, want_out, want_err, err);
cleanup:
    pm_params_free(c.params, c.n_params);
    if (rc)
        pm_single_run_close(sr);
    return rc;
}

int pm_single_run_record(pm_single_run *sr, const pm_run_result *r, int index, const char *stdout_path,
                         const char *stderr_path, pm_err *err)
{
    pm_report rep;
    pm_report_init(&rep);
    const char *status = pm_run_status_name(r->status);
    char note[600] = "";
    int parsed = 0;
    if (r->status == PM_RUN_OK) {
        int is_file = strcmp(sr->report, "stdout") && strcmp(sr->report, "stderr");
        const char *path = !strcmp(sr->report, "stdout") ? stdout_path : !strcmp(sr->report, "stderr") ? stderr_path
                                                                                                       : sr->report;
        pm_err perr = {0};
        if (is_file && access(path, F_OK) != 0) {
            status = "failed";
            snprintf(note, sizeof note, "report %.500s never appeared", path);
        } else if (path && pm_parse_file(path, sr->fmt, &rep, &perr) == PM_OK) {
            parsed = 1;
            int counted = 0;
            for (size_t k = 0; k < rep.n_passes && !counted; k++)
                counted = pm_pass_counted(&rep.passes[k]);
            if (!counted && rep.n_metrics == 0) {
                status = PM_RUN_STATUS_NO_REPORT;
                snprintf(note, sizeof note, "report on %s has no timing rows (no counted pass)", sr->report);
            }
        } else {
            status = PM_RUN_STATUS_NO_REPORT;
            snprintf(note, sizeof note, "report: %.500s", path ? perr.msg : "the stream was not kept");
        }
    } else if (r->status == PM_RUN_SPAWN_ERROR) {
        snprintf(note, sizeof note, "%.500s", r->spawn_error);
    }
    pm_step_record step = {.tool = sr->tool, .argv = sr->argv, .result = r, .report = parsed ? &rep : NULL};
    pm_run_pressure pr;   /* what others wanted of the CPU during the run, as a sweep records it */
    pm_run_pressure_init(&pr);
    pm_run_pressure_add(&pr, r);
    pm_metric metrics[PM_RUN_PRESSURE_METRICS];
    int n_metrics = 0;
    for (int k = 0; k < PM_RUN_PRESSURE_METRICS; k++)
        if (pr.value[k] >= 0)
            metrics[n_metrics++] = (pm_metric){.name = pm_unconst(pm_run_pressure_name(k)), .value = pr.value[k]};
    pm_run_record rec = {.metrics = metrics, .n_metrics = n_metrics, .config_id = sr->config_id, .repeat = sr->first_repeat + index, .mode = "cold",
                         .status = status, .wall_s = r->wall_s, .user_s = r->user_s, .sys_s = r->sys_s,
                         .maxrss_kb = r->maxrss_kb, .note = note[0] ? note : NULL, .steps = &step, .n_steps = 1};
    int64_t run_id;
    int rc = pm_store_record_run(sr->st, &rec, &run_id, err);
    pm_report_free(&rep);
    return rc;
}

void pm_single_run_close(pm_single_run *sr)
{
    pm_store_close(sr->st);
    if (sr->tmpdir)
        pm_util_remove_tree(sr->tmpdir);
    pm_free_all(sr->tmpdir, sr->stdout_base, sr->stderr_base, sr->tool, sr->argv);
    memset(sr, 0, sizeof *sr);
}
