/* One task of a sweep: a run of one config in one mode, each step a fresh process measured by the runner, its
 * reports parsed and the whole run stored in one transaction. */
#include "sweep_internal.h"

static char *read_tail(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > (long)max ? size - (long)max : 0;
    fseek(f, from, SEEK_SET);
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Wraps a step's command so it runs through `passmap cache exec` (the warm path). */
int wrap_in_cache(pm_step *st, const char *self, const char *cache_dir, const char *outcome)
{
    char **argv = pm_argv_new(self, "cache", "--dir", cache_dir, "exec", "--outcome", outcome, (char *)NULL);
    if (!argv)
        return PM_ERR_NOMEM;
    int rc = PM_OK;
    if (st->input)
        rc |= pm_argv_push(&argv, "--input") | pm_argv_push(&argv, st->input);
    if (st->output)
        rc |= pm_argv_push(&argv, "--output") | pm_argv_push(&argv, st->output);
    for (char **o = st->more_outputs; o && *o; o++)
        rc |= pm_argv_push(&argv, "--output") | pm_argv_push(&argv, *o);
    rc |= pm_argv_push(&argv, "--");
    for (char **a = st->argv; *a; a++)
        rc |= pm_argv_push(&argv, *a);
    if (rc) {
        pm_argv_free(argv);
        return PM_ERR_NOMEM;
    }
    pm_argv_free(st->argv);
    st->argv = argv;
    return PM_OK;
}

static int slots_alloc(step_slots *s, int n)
{
    size_t k = n > 0 ? (size_t)n : 1;
    s->reports = calloc(k, sizeof *s->reports);
    s->results = calloc(k, sizeof *s->results);
    s->recs = calloc(k, sizeof *s->recs);
    s->argvs = calloc(k, sizeof *s->argvs);
    s->tails = calloc(k, sizeof *s->tails);
    return s->reports && s->results && s->recs && s->argvs && s->tails ? PM_OK : PM_ERR_NOMEM;
}

static void slots_free(step_slots *s, int n_done)
{
    for (int i = 0; i < n_done; i++) {
        pm_report_free(&s->reports[i]);
        free(s->argvs[i]);
        free(s->tails[i]);
    }
    free(s->reports);
    free(s->results);
    free(s->recs);
    free(s->argvs);
    free(s->tails);
}

static int push_metric(pm_metric **m, int *n, const char *name, double value)
{
    pm_metric *nm = realloc(*m, (size_t)(*n + 1) * sizeof *nm);
    if (!nm)
        return PM_ERR_NOMEM;
    *m = nm;
    nm[*n].name = pm_unconst(name); /* borrowed: the caller keeps it alive */
    nm[*n].value = value;
    (*n)++;
    return PM_OK;
}

static int has_counted(const pm_report *r)
{
    for (size_t i = 0; i < r->n_passes; i++)
        if (pm_pass_counted(&r->passes[i]))
            return 1;
    return 0;
}

int run_task(sweep_ctx *x, const task *t, pm_pgroup_recorder *pg, const char **status_out, double *wall_out, pm_err *err)
{
    config_state *cs = &x->cs[t->config];
    char dir[PATH_MAX];
    pm_steps steps = {0};
    step_slots sl = {0};
    pm_metric *metrics = NULL;
    int n_metrics = 0, n_done = 0, rc;
    const char *status = "ok";
    double import_s = -1;
    char import_error[1024] = "";
    char note[512] = "";
    double wall = 0, user = 0, sys = 0;
    long rss = 0;
    pm_run_pressure pressure;
    pm_run_pressure_init(&pressure);
    char path[PATH_MAX + 64];

    if ((rc = fmt_path(dir, sizeof dir, err, "%s/%s-r%d", cs->dir, t->mode, t->repeat)))
        goto cleanup;
    {
        /* How busy the machine is as this run starts: a noise diagnostic (contended configs are flagged). */
        FILE *la = fopen("/proc/loadavg", "r");
        double load1;
        /* --jobs N: the run shared the machine with N - 1 others by design; its wall is contended (contention.h) */
        if ((la && fscanf(la, "%lf", &load1) == 1 && push_metric(&metrics, &n_metrics, "host.load1", load1)) ||
            (x->jobs > 1 && push_metric(&metrics, &n_metrics, "host.jobs", x->jobs))) {
            fclose(la);
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        if (la)
            fclose(la);
    }
    pm_util_remove_tree(dir); /* a leftover from an interrupted run is not a result */
    if ((rc = pm_util_mkdir_p(dir, err)) ||
        (rc = x->be->steps(&x->bctx, t->config, cs->prep.input, dir, &steps, err)))
        goto cleanup;
    if (slots_alloc(&sl, steps.n)) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < steps.n; i++) {
        if (!strcmp(t->mode, "cold"))
            continue;
        if ((rc = fmt_path(path, sizeof path, err, "%s/.cache-outcome-%d", dir, i)) ||
            (rc = wrap_in_cache(&steps.items[i], x->self, x->cache_dir, path)))
            goto cleanup;
    }

    /* No report, no conclusion, judged over the whole run: a step with nothing to report (a link after a timed
     * compile) is fine as long as some step of the run gave counted pass time. */
    int n_reported = 0;
    char no_report[512] = "";
    for (int i = 0; i < steps.n; i++) {
        pm_step *st = &steps.items[i];
        char out_path[PATH_MAX + 64], err_path[PATH_MAX + 64];
        if ((rc = fmt_path(out_path, sizeof out_path, err, "%s/%s.stdout", dir, st->tool)) ||
            (rc = fmt_path(err_path, sizeof err_path, err, "%s/%s.stderr", dir, st->tool)))
            goto cleanup;
        /* RLIMIT_AS goes on compiler processes only: passmap's own children (ov-compile maps the NPU driver's
         * memory; a sanitizer build reserves terabytes of shadow) would fail under it for no real reason. */
        int is_self = !strcmp(st->argv[0], x->self);
        pm_run_opts ro = {.timeout_s = pm_meter_timeout(x->meter, x->spec->timeout_s, x->slowdown),
                          .mem_limit_bytes = is_self ? 0 : x->spec->mem_limit,
                          .cwd = st->cwd ? st->cwd : dir, .stdout_path = out_path, .stderr_path = err_path,
                          .cancel = x->opts->stop};
        /* The step's process group is on record while it runs: what it leaves behind if passmap is killed is
         * found and killed by the next sweep on this database (pm_pgroup_reap). */
        char what[PATH_MAX];
        snprintf(what, sizeof what, "config %s, %s r%d, step %s", x->spec->configs[t->config].key, t->mode,
                 t->repeat, st->tool);
        pg->what = what;
        ro.on_start = pm_pgroup_record;
        ro.on_start_arg = pg;
        pm_report_init(&sl.reports[i]);
        memset(&sl.results[i], 0, sizeof sl.results[i]);
        n_done = i + 1;
        /* the meter's own files (Valgrind's count files) go under the run folder, never the step's cwd */
        if (x->lock)   /* --jobs: the other workers go on while this step runs */
            pthread_mutex_unlock(x->lock);
        rc = x->meter->exec((const char *const *)st->argv, &ro, dir, &sl.results[i], err);
        if (x->lock)
            pthread_mutex_lock(x->lock);
        pm_pgroup_unrecord(pg);
        pg->what = NULL;
        if (rc)
            goto cleanup;
        sl.argvs[i] = pm_argv_join(st->argv);
        pm_run_result *r = &sl.results[i];
        if (x->opts->stop && *x->opts->stop) {
            /* Cut short by Ctrl-C: not a measurement, so nothing is recorded; the run resumes later. */
            *status_out = "interrupted";
            goto cleanup;
        }
        /* The back end may read the step's own result: a result written before the process died (in teardown,
         * or in the NPU's blob import after its interim line) stands,
         * and the run records the measured phase (the step record keeps the process's own figures). */
        pm_step_outcome oc = {.wall_s = -1, .user_s = -1, .sys_s = -1, .run = r};
        int own = x->be->step_outcome && r->status != PM_RUN_SPAWN_ERROR &&
                  x->be->step_outcome(&x->bctx, st, out_path, &oc);
        wall += own && oc.wall_s >= 0 ? oc.wall_s : r->wall_s;
        user += own && oc.user_s >= 0 ? oc.user_s : r->user_s;
        sys += own && oc.sys_s >= 0 ? oc.sys_s : r->sys_s;
        pm_run_pressure_add(&pressure, r);
        long step_rss = own && oc.maxrss_kb > 0 ? oc.maxrss_kb : r->maxrss_kb;
        if (step_rss > rss)
            rss = step_rss;
        sl.recs[i] = (pm_step_record){.tool = st->tool, .argv = sl.argvs[i], .result = r, .report = NULL};
        if (r->status != PM_RUN_OK && own && oc.completed) {
            snprintf(note, sizeof note, "%s %s%s%s after writing its result line: the result stands",
                     st->tool, pm_run_status_name(r->status), r->term_signal ? " SIG" : "",
                     r->term_signal && sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "");
        } else if (r->status != PM_RUN_OK) {
            status = pm_run_status_name(r->status);
            sl.tails[i] = read_tail(err_path, 2048);
            sl.recs[i].stderr_tail = sl.tails[i];
            char signame[32] = "";
            if (r->term_signal) /* which signal: a crash and an outside kill read differently */
                snprintf(signame, sizeof signame, " (SIG%s)", sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "?");
            snprintf(note, sizeof note, "%s %s%s%s%s%s%.200s", st->tool, status, signame, r->spawn_error[0] ? ": " : "",
                     r->spawn_error, oc.reason[0] ? ": " : "", oc.reason);
            if (oc.say && x->opts->notice)   /* a back end's reason, said once: a first run's missing piece */
                x->opts->notice(x->opts->notice_user, note);
            break;
        }
        if (!strcmp(t->mode, "warm")) {
            /* A warm run is a measurement of a cache hit: the cache says whether it served one. */
            char outcome[600] = "";
            if ((rc = fmt_path(path, sizeof path, err, "%s/.cache-outcome-%d", dir, i)))
                goto cleanup;
            FILE *of = fopen(path, "r");
            if (!of || !fgets(outcome, sizeof outcome, of))
                snprintf(outcome, sizeof outcome, "no outcome recorded");
            if (of)
                fclose(of);
            outcome[strcspn(outcome, "\n")] = 0;
            if (strcmp(outcome, "hit")) {
                status = "failed";
                snprintf(note, sizeof note, "%s: the cache served no hit (%.400s): not a warm measurement", st->tool,
                         outcome);
                break;
            }
        }
        /* A warm run is served from the cache, which replays the miss's stderr: its timing report describes
         * that earlier compile, not this run, so it is not parsed. */
        int parse = strcmp(t->mode, "warm") != 0;
        const char *rep_path = !parse ? NULL
                               : st->report_path ? st->report_path
                               : st->report_stream == PM_STREAM_STDOUT ? out_path
                               : st->report_stream == PM_STREAM_STDERR ? err_path : NULL;
        pm_err perr = {0};
        int parsed = 0;
        if (rep_path && st->report_path && access(rep_path, F_OK) != 0) {
            /* A declared report file that never appeared: the step did not do what the spec says. */
            status = "failed";
            snprintf(note, sizeof note, "%s: report %.400s never appeared", st->tool, rep_path);
            break;
        }
        if (rep_path) {
            if (pm_parse_file(rep_path, st->report_format, &sl.reports[i], &perr) == PM_OK)
                parsed = 1;
            else
                snprintf(note, sizeof note, "%s report: %.400s", st->tool, perr.msg);
        }
        for (int k = 0; rep_path && k < st->n_artifacts; k++) {
            if ((rc = fmt_path(path, sizeof path, err, "%s/%s", ro.cwd, st->artifacts[k])))
                goto cleanup;
            if (access(path, R_OK) == 0 &&
                pm_parse_file(path, st->artifact_formats[k], &sl.reports[i], &perr) == PM_OK)
                parsed = 1;
        }
        if (parsed)
            sl.recs[i].report = &sl.reports[i];
        if (parsed && sl.reports[i].n_skipped && !note[0])   /* rows left out are said in the run's note */
            snprintf(note, sizeof note, "%s report: %zu row%s not read (the first: %.300s)", st->tool,
                     sl.reports[i].n_skipped, sl.reports[i].n_skipped == 1 ? "" : "s", sl.reports[i].skipped_first);
        double extra = -1;
        if (x->be->step_done && x->be->step_done(&x->bctx, st, out_path, &sl.reports[i], &extra, import_error,
                                                  sizeof import_error))
            sl.recs[i].report = &sl.reports[i];
        /* No report, no conclusion: a declared report that cannot be read or has no counted pass (a spec that
         * forgot -ftime-report, a format passmap does not read) is not a run where all time is start-up. */
        if (rep_path && !strcmp(status, "ok")) {
            if (sl.recs[i].report && (has_counted(&sl.reports[i]) || sl.reports[i].n_metrics > 0))
                n_reported++;
            else if (!no_report[0] && parsed)
                snprintf(no_report, sizeof no_report, "%s report on %s: no timing rows (no counted pass)", st->tool,
                         st->report_path ? "its file" : st->report_stream == PM_STREAM_STDOUT ? "stdout" : "stderr");
            else if (!no_report[0])
                snprintf(no_report, sizeof no_report, "%s report: %.400s", st->tool, perr.msg);
        }
        if (extra >= 0)
            import_s = extra;
        /* The IR-size metrics the step declares (absent files leave the metric out). */
        for (int k = 0; k < st->n_metrics; k++) {
            double v;
            pm_err merr = {0};
            if (pm_step_metric_eval(&st->metrics[k], ro.cwd, out_path, err_path, x->spec->timeout_s, &v, &merr) == PM_OK &&
                push_metric(&metrics, &n_metrics, st->metrics[k].name, v)) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
        }
    }
    if (!strcmp(status, "ok") && !n_reported && no_report[0]) {
        status = PM_RUN_STATUS_NO_REPORT;
        snprintf(note, sizeof note, "%s", no_report);
        if (!x->no_report_note[0])
            snprintf(x->no_report_note, sizeof x->no_report_note, "%.250s", note);
    }

    /* what others wanted of the CPU during the run's steps: contention.h judges the run by it */
    for (int k = 0; k < PM_RUN_PRESSURE_METRICS; k++)
        if (pressure.value[k] >= 0 && push_metric(&metrics, &n_metrics, pm_run_pressure_name(k), pressure.value[k])) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    for (int k = 0; k < cs->prep.n_metrics; k++)
        if (push_metric(&metrics, &n_metrics, cs->prep.metrics[k].name, cs->prep.metrics[k].value)) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }

    pm_run_record rec = {.config_id = cs->id, .repeat = t->repeat, .mode = t->mode, .status = status,
                         .wall_s = wall, .user_s = user, .sys_s = sys, .maxrss_kb = rss,
                         .note = note[0] ? note : NULL, .steps = sl.recs, .n_steps = n_done,
                         .metrics = metrics, .n_metrics = n_metrics, .host_id = x->host_id};
    int64_t run_id;
    rc = pm_store_record_run(x->store, &rec, &run_id, err);
    /* Only a cold task's import was measured: a cache replay's stdout repeats the miss's import time. */
    if (rc == PM_OK && (import_s >= 0 || import_error[0]) && !strcmp(status, "ok") && !strcmp(t->mode, "cold")) {
        /* A back end's own warm path (the NPU's blob import) is stored as a warm run so recompile / load is
         * measured. A failed one is a failed warm measurement with its reason; the cold compile stays ok. */
        pm_run_record warm = {.config_id = cs->id, .repeat = t->repeat, .mode = "warm",
                              .status = import_s >= 0 ? "ok" : "failed", .wall_s = import_s >= 0 ? import_s : 0,
                              .user_s = -1, .sys_s = -1, .maxrss_kb = 0,
                              .note = import_s >= 0 ? "ov_core_import_model of the exported blob" : import_error,
                              .host_id = x->host_id};
        rc = pm_store_record_run(x->store, &warm, &run_id, err);
    }
    *status_out = status;
    *wall_out = wall;
cleanup:
    slots_free(&sl, n_done);
    free(metrics);
    pm_steps_free(&steps);
    if (!x->opts->keep_outputs && (rc != PM_OK || !strcmp(status, "ok")))
        pm_util_remove_tree(dir);
    return rc;
}
