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
int pm_sweep_wrap_in_cache(pm_step *st, const char *self, const char *cache_dir, const char *outcome)
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
    s->counts = calloc(k, sizeof *s->counts);
    return s->reports && s->results && s->recs && s->argvs && s->tails && s->counts ? PM_OK : PM_ERR_NOMEM;
}

static void slots_free(step_slots *s, int n_done)
{
    for (int i = 0; i < n_done; i++) {
        pm_report_free(&s->reports[i]);
        pm_free_all(s->argvs[i], s->tails[i]);
        if (s->counts)
            pm_passcount_free(&s->counts[i]);
    }
    pm_free_all(s->reports, s->results, s->recs, s->argvs, s->tails, s->counts);
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

/* One task's state, shared by its phases: prepare the run folder and steps, run each step, collect the run's
 * metrics, store the run. */
typedef struct task_run {
    sweep_ctx *x;
    const task *t;
    pm_pgroup_recorder *pg;
    const char **status_out;
    config_state *cs;
    char dir[PATH_MAX];
    pm_steps steps;
    step_slots sl;
    pm_metric *metrics;
    int n_metrics, n_done;
    const char *status;
    double import_s;
    char import_error[1024];
    char note[512];
    double wall, user, sys;
    long rss;
    pm_run_pressure pressure;
    char path[PATH_MAX + 64];
    int n_reported;
    char no_report[512];
    int interrupted;   /* cut short by Ctrl-C or the deadline: nothing is recorded */
} task_run;

/* What one step's phases share: its streams' files and the runner's options. */
typedef struct step_io {
    pm_step *st;
    char out_path[PATH_MAX + 64], err_path[PATH_MAX + 64];
    pm_run_opts ro;
} step_io;

enum { STEP_NEXT, STEP_STOP };

/* The run folder, the host's load, the back end's steps and, for a warm or miss run, the cache around them. */
static int task_prepare(task_run *c, pm_err *err)
{
    sweep_ctx *x = c->x;
    int rc;
    if ((rc = pm_sweep_fmt_path(c->dir, sizeof c->dir, err, "%s/%s-r%d", c->cs->dir, c->t->mode, c->t->repeat)))
        return rc;
    {
        /* How busy the machine is as this run starts: a noise diagnostic (contended configs are flagged). */
        FILE *la = fopen("/proc/loadavg", "r");
        double load1;
        /* --jobs N: the run shared the machine with N - 1 others by design; its wall is contended (contention.h) */
        if ((la && fscanf(la, "%lf", &load1) == 1 && push_metric(&c->metrics, &c->n_metrics, "host.load1", load1)) ||
            (x->jobs > 1 && push_metric(&c->metrics, &c->n_metrics, "host.jobs", x->jobs))) {
            fclose(la);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        if (la)
            fclose(la);
    }
    pm_util_remove_tree(c->dir); /* a leftover from an interrupted run is not a result */
    if ((rc = pm_util_mkdir_p(c->dir, err)) ||
        (rc = x->be->steps(&x->bctx, c->t->config, c->cs->prep.input, c->dir, &c->steps, err)))
        return rc;
    if (slots_alloc(&c->sl, c->steps.n))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (!strcmp(c->t->mode, PM_RUN_MODE_PLAIN) && pm_sweep_use_plain_argv(&c->steps, x->be))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < c->steps.n; i++) {
        if (pm_sweep_mode_runs_steps_as_they_are(c->t->mode))
            continue;
        if ((rc = pm_sweep_fmt_path(c->path, sizeof c->path, err, "%s/.cache-outcome-%d", c->dir, i)) ||
            (rc = pm_sweep_wrap_in_cache(&c->steps.items[i], x->self, x->cache_dir, c->path)))
            return rc;
    }
    return PM_OK;
}

/* Runs step i through the meter and judges its exit; *next says whether the run goes on to read the step. */
static int step_exec(task_run *c, int i, step_io *io, int *next, pm_err *err)
{
    sweep_ctx *x = c->x;
    const task *t = c->t;
    step_slots *sl = &c->sl;
    pm_step *st = io->st;
    int rc;
    *next = STEP_STOP;
    if ((rc = pm_sweep_fmt_path(io->out_path, sizeof io->out_path, err, "%s/%s.stdout", c->dir, st->tool)) ||
        (rc = pm_sweep_fmt_path(io->err_path, sizeof io->err_path, err, "%s/%s.stderr", c->dir, st->tool)))
        return rc;
    /* RLIMIT_AS goes on compiler processes only: passmap's own children (ov-compile maps the NPU driver's
     * memory; a sanitizer build reserves terabytes of shadow) would fail under it for no real reason. */
    int is_self = !strcmp(st->argv[0], x->self);
    io->ro = (pm_run_opts){.timeout_s = pm_meter_timeout(x->meter, x->spec->timeout_s, x->slowdown),
                           .mem_limit_bytes = is_self ? 0 : x->spec->mem_limit,
                           .cwd = st->cwd ? st->cwd : c->dir, .stdout_path = io->out_path,
                           .stderr_path = io->err_path, .cancel = x->opts->stop};
    /* The step's process group is on record while it runs: what it leaves behind if passmap is killed is
     * found and killed by the next sweep on this database (pm_pgroup_reap). */
    char what[PATH_MAX];
    snprintf(what, sizeof what, "config %s, %s r%d, step %s", x->spec->configs[t->config].key, t->mode,
             t->repeat, st->tool);
    c->pg->what = what;
    io->ro.on_start = pm_pgroup_record;
    io->ro.on_start_arg = c->pg;
    pm_report_init(&sl->reports[i]);
    memset(&sl->results[i], 0, sizeof sl->results[i]);
    c->n_done = i + 1;
    /* the meter's own files (Valgrind's count files) go under the run folder, never the step's cwd */
    if (x->lock)   /* --jobs: the other workers go on while this step runs */
        pthread_mutex_unlock(x->lock);
    rc = x->meter->exec((const char *const *)st->argv, &io->ro, c->dir, &sl->results[i], err);
    if (x->lock)
        pthread_mutex_lock(x->lock);
    pm_pgroup_unrecord(c->pg);
    c->pg->what = NULL;
    if (rc)
        return rc;
    sl->argvs[i] = pm_argv_join(st->argv);
    pm_run_result *r = &sl->results[i];
    if (x->opts->stop && *x->opts->stop) {
        /* Cut short by Ctrl-C: not a measurement, so nothing is recorded; the run resumes later. */
        *c->status_out = "interrupted";
        c->interrupted = 1;
        return PM_OK;
    }
    /* The back end may read the step's own result: a result written before the process died (in teardown,
     * or in the NPU's blob import after its interim line) stands,
     * and the run records the measured phase (the step record keeps the process's own figures). */
    pm_step_outcome oc = {.wall_s = -1, .user_s = -1, .sys_s = -1, .run = r};
    int own = x->be->step_outcome && r->status != PM_RUN_SPAWN_ERROR &&
              x->be->step_outcome(&x->bctx, st, io->out_path, &oc);
    c->wall += own && oc.wall_s >= 0 ? oc.wall_s : r->wall_s;
    c->user += own && oc.user_s >= 0 ? oc.user_s : r->user_s;
    c->sys += own && oc.sys_s >= 0 ? oc.sys_s : r->sys_s;
    pm_run_pressure_add(&c->pressure, r);
    long step_rss = own && oc.maxrss_kb > 0 ? oc.maxrss_kb : r->maxrss_kb;
    if (step_rss > c->rss)
        c->rss = step_rss;
    sl->recs[i] = (pm_step_record){.tool = st->tool, .argv = sl->argvs[i], .result = r, .report = NULL};
    if (r->status != PM_RUN_OK && own && oc.completed) {
        snprintf(c->note, sizeof c->note, "%s %s%s%s after writing its result line: the result stands",
                 st->tool, pm_run_status_name(r->status), r->term_signal ? " SIG" : "",
                 r->term_signal && sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "");
    } else if (r->status != PM_RUN_OK) {
        c->status = pm_run_status_name(r->status);
        sl->tails[i] = read_tail(io->err_path, 2048);
        sl->recs[i].stderr_tail = sl->tails[i];
        char signame[32] = "";
        if (r->term_signal) /* which signal: a crash and an outside kill read differently */
            snprintf(signame, sizeof signame, " (SIG%s)", sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "?");
        snprintf(c->note, sizeof c->note, "%s %s%s%s%s%s%.200s", st->tool, c->status, signame,
                 r->spawn_error[0] ? ": " : "", r->spawn_error, oc.reason[0] ? ": " : "", oc.reason);
        if (oc.say && x->opts->notice)   /* a back end's reason, said once: a first run's missing piece */
            x->opts->notice(x->opts->notice_user, c->note);
        return PM_OK;
    }
    *next = STEP_NEXT;
    return PM_OK;
}

/* Reads step i's outcome: the cache's verdict on a warm run, its report and artifacts, its declared metrics;
 * *next says whether the run goes on to the next step. */
static int step_read(task_run *c, int i, step_io *io, int *next, pm_err *err)
{
    sweep_ctx *x = c->x;
    const task *t = c->t;
    step_slots *sl = &c->sl;
    pm_step *st = io->st;
    int rc;
    *next = STEP_STOP;
    if (!strcmp(t->mode, "warm")) {
        /* A warm run is a measurement of a cache hit: the cache says whether it served one. */
        char outcome[600] = "";
        if ((rc = pm_sweep_fmt_path(c->path, sizeof c->path, err, "%s/.cache-outcome-%d", c->dir, i)))
            return rc;
        FILE *of = fopen(c->path, "r");
        if (!of || !fgets(outcome, sizeof outcome, of))
            snprintf(outcome, sizeof outcome, "no outcome recorded");
        if (of)
            fclose(of);
        outcome[strcspn(outcome, "\n")] = 0;
        if (strcmp(outcome, "hit")) {
            c->status = "failed";
            snprintf(c->note, sizeof c->note, "%s: the cache served no hit (%.400s): not a warm measurement",
                     st->tool, outcome);
            return PM_OK;
        }
    }
    /* A warm run is served from the cache, which replays the miss's stderr: its timing report describes
     * that earlier compile, not this run, so it is not parsed. */
    int parse = strcmp(t->mode, "warm") != 0 && strcmp(t->mode, PM_RUN_MODE_PLAIN) != 0;   /* plain: no flag */
    const char *rep_path = !parse ? NULL
                           : st->report_path ? st->report_path
                           : st->report_stream == PM_STREAM_STDOUT ? io->out_path
                           : st->report_stream == PM_STREAM_STDERR ? io->err_path : NULL;
    pm_err perr = {0};
    int parsed = 0;
    if (rep_path && st->report_path && access(rep_path, F_OK) != 0) {
        /* A declared report file that never appeared: the step did not do what the spec says. */
        c->status = "failed";
        snprintf(c->note, sizeof c->note, "%s: report %.400s never appeared", st->tool, rep_path);
        return PM_OK;
    }
    if (rep_path) {
        if (pm_parse_file(rep_path, st->report_format, &sl->reports[i], &perr) == PM_OK)
            parsed = 1;
        else
            snprintf(c->note, sizeof c->note, "%s report: %.400s", st->tool, perr.msg);
    }
    for (int k = 0; rep_path && k < st->n_artifacts; k++) {
        if ((rc = pm_sweep_fmt_path(c->path, sizeof c->path, err, "%s/%s", io->ro.cwd, st->artifacts[k])))
            return rc;
        if (access(c->path, R_OK) == 0 &&
            pm_parse_file(c->path, st->artifact_formats[k], &sl->reports[i], &perr) == PM_OK)
            parsed = 1;
    }
    if (parsed)
        sl->recs[i].report = &sl->reports[i];
    if (parsed && sl->reports[i].n_skipped && !c->note[0])   /* rows left out are said in the run's note */
        snprintf(c->note, sizeof c->note, "%s report: %zu row%s not read (the first: %.300s)", st->tool,
                 sl->reports[i].n_skipped, sl->reports[i].n_skipped == 1 ? "" : "s", sl->reports[i].skipped_first);
    double extra = -1;
    if (x->be->step_done && x->be->step_done(&x->bctx, st, io->out_path, &sl->reports[i], &extra, c->import_error,
                                              sizeof c->import_error))
        sl->recs[i].report = &sl->reports[i];
    /* No report, no conclusion: a declared report that cannot be read or has no counted pass (a spec that
     * forgot -ftime-report, a format passmap does not read) is not a run where all time is start-up. */
    if (rep_path && !strcmp(c->status, "ok")) {
        if (sl->recs[i].report && (has_counted(&sl->reports[i]) || sl->reports[i].n_metrics > 0))
            c->n_reported++;
        else if (!c->no_report[0] && parsed)
            snprintf(c->no_report, sizeof c->no_report, "%s report on %s: no timing rows (no counted pass)", st->tool,
                     st->report_path ? "its file" : st->report_stream == PM_STREAM_STDOUT ? "stdout" : "stderr");
        else if (!c->no_report[0])
            snprintf(c->no_report, sizeof c->no_report, "%s report: %.400s", st->tool, perr.msg);
    }
    if (extra >= 0)
        c->import_s = extra;
    /* The IR-size metrics the step declares (absent files leave the metric out). */
    for (int k = 0; k < st->n_metrics; k++) {
        double v;
        pm_err merr = {0};
        if (pm_step_metric_eval(&st->metrics[k], io->ro.cwd, io->out_path, io->err_path, x->spec->timeout_s, &v,
                                &merr) == PM_OK &&
            push_metric(&c->metrics, &c->n_metrics, st->metrics[k].name, v))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    *next = STEP_NEXT;
    return PM_OK;
}

/* Under a per_pass meter (meter.h), the step's per-pass counts from the callgrind files it left, matched to its
 * parsed report, go beside the report's rows (pass_count); the files are removed. A count that cannot be made is
 * said in the run's note, and the run keeps its walls. */
static int step_passcount(task_run *c, int i, pm_err *err)
{
    step_slots *sl = &c->sl;
    if (!c->x->meter->per_pass)
        return PM_OK;
    int rc = pm_sweep_fmt_path(c->path, sizeof c->path, err, "%s/%s", c->dir, PM_METER_PROFILE_DIR);
    if (rc)
        return rc;
    pm_err perr = {0};
    if (sl->recs[i].report && has_counted(sl->recs[i].report)) {
        if (pm_passcount_dir(c->path, sl->recs[i].report, c->steps.items[i].tool, &sl->counts[i], &perr) == PM_OK)
            sl->recs[i].counts = &sl->counts[i];
        else if (perr.code == PM_ERR_NOMEM)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else if (!c->note[0])
            snprintf(c->note, sizeof c->note, "%s: no per-pass counts: %.400s", c->steps.items[i].tool, perr.msg);
    }
    char kept[PATH_MAX + 128];
    /* --keep: each step's files under its tool's name (the next step's run would empty the folder) */
    if (!c->x->opts->keep_outputs ||
        snprintf(kept, sizeof kept, "%s.%s", c->path, c->steps.items[i].tool) >= (int)sizeof kept ||
        rename(c->path, kept) != 0) /* a folder of the run's own, never over a user's file: not publish's case */
        pm_util_remove_tree(c->path);
    return PM_OK;
}

/* Each step in turn until one fails, the sweep is interrupted or its deadline comes. No report, no conclusion,
 * judged over the whole run: a step with nothing to report (a link after a timed compile) is fine as long as some
 * step of the run gave counted pass time. */
static int task_steps(task_run *c, pm_err *err)
{
    for (int i = 0; i < c->steps.n; i++) {
        step_io io = {.st = &c->steps.items[i]};
        int next, rc;
        if (pm_sweep_past_deadline(c->x)) {   /* the rest resumes later, like an interrupted run */
            *c->status_out = TASK_AT_DEADLINE;
            c->interrupted = 1;
            return PM_OK;
        }
        if ((rc = step_exec(c, i, &io, &next, err)) || c->interrupted)
            return rc;
        if (next == STEP_STOP)
            break;
        if ((rc = step_read(c, i, &io, &next, err)) || (rc = step_passcount(c, i, err)))
            return rc;
        if (next == STEP_STOP)
            break;
    }
    return PM_OK;
}

/* The run's verdict when no step reported, and the metrics of the whole run: the CPU pressure, the input's. */
static int task_collect(task_run *c, pm_err *err)
{
    if (!strcmp(c->status, "ok") && !c->n_reported && c->no_report[0]) {
        c->status = PM_RUN_STATUS_NO_REPORT;
        snprintf(c->note, sizeof c->note, "%s", c->no_report);
        if (!c->x->no_report_note[0])
            snprintf(c->x->no_report_note, sizeof c->x->no_report_note, "%.250s", c->note);
    }

    /* what others wanted of the CPU during the run's steps: contention.h judges the run by it */
    for (int k = 0; k < PM_RUN_PRESSURE_METRICS; k++)
        if (c->pressure.value[k] >= 0 &&
            push_metric(&c->metrics, &c->n_metrics, pm_run_pressure_name(k), c->pressure.value[k]))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < c->cs->prep.n_metrics; k++)
        if (push_metric(&c->metrics, &c->n_metrics, c->cs->prep.metrics[k].name, c->cs->prep.metrics[k].value))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    return PM_OK;
}

/* The run in one transaction, and a back end's own warm path beside a cold one. */
static int task_store(task_run *c, pm_err *err)
{
    sweep_ctx *x = c->x;
    config_state *cs = c->cs;
    const task *t = c->t;
    pm_run_record rec = {.config_id = cs->id, .repeat = t->repeat, .mode = t->mode, .status = c->status,
                         .wall_s = c->wall, .user_s = c->user, .sys_s = c->sys, .maxrss_kb = c->rss,
                         .note = c->note[0] ? c->note : NULL, .steps = c->sl.recs, .n_steps = c->n_done,
                         .metrics = c->metrics, .n_metrics = c->n_metrics, .host_id = x->host_id};
    int64_t run_id;
    int rc = pm_store_record_run(x->store, &rec, &run_id, err);
    /* Only a cold task's import was measured: a cache replay's stdout repeats the miss's import time. */
    if (rc == PM_OK && (c->import_s >= 0 || c->import_error[0]) && !strcmp(c->status, "ok") &&
        !strcmp(t->mode, "cold")) {
        /* A back end's own warm path (the NPU's blob import) is stored as a warm run so recompile / load is
         * measured. A failed one is a failed warm measurement with its reason; the cold compile stays ok. */
        pm_run_record warm = {.config_id = cs->id, .repeat = t->repeat, .mode = "warm",
                              .status = c->import_s >= 0 ? "ok" : "failed",
                              .wall_s = c->import_s >= 0 ? c->import_s : 0,
                              .user_s = -1, .sys_s = -1, .maxrss_kb = 0,
                              .note = c->import_s >= 0 ? "ov_core_import_model of the exported blob" : c->import_error,
                              .host_id = x->host_id};
        rc = pm_store_record_run(x->store, &warm, &run_id, err);
    }
    return rc;
}

int pm_sweep_run_task(sweep_ctx *x, const task *t, pm_pgroup_recorder *pg, const char **status_out, double *wall_out, pm_err *err)
{
    task_run run = {.x = x, .t = t, .pg = pg, .status_out = status_out, .cs = &x->cs[t->config],
                    .status = "ok", .import_s = -1};
    task_run *c = &run;
    pm_run_pressure_init(&c->pressure);
    int rc;
    if ((rc = task_prepare(c, err)) || (rc = task_steps(c, err)) || c->interrupted ||
        (rc = task_collect(c, err)) || (rc = task_store(c, err)))
        goto cleanup;
    if (!strcmp(t->mode, "cold"))
        pm_sweep_slowdown_from_run(x, t->config, &c->steps, c->sl.results, c->n_done);
    *status_out = c->status;
    *wall_out = c->wall;
cleanup:
    slots_free(&c->sl, c->n_done);
    free(c->metrics);
    pm_steps_free(&c->steps);
    if (!x->opts->keep_outputs && (rc != PM_OK || !strcmp(c->status, "ok")))
        pm_util_remove_tree(c->dir);
    return rc;
}
