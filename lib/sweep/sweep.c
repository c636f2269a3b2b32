/* The sweep engine. Each planned run is (config, mode, repeat). A run compiles its config's input through the
 * back end's steps, each step a fresh process measured by pm_run_exec; reports are parsed and the whole run is
 * stored in one transaction, so an interrupted sweep resumes where it stopped. */
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cache.h"
#include "host.h"
#include "identity.h"
#include "parse.h"
#include "pgroup.h"
#include "run.h"
#include "settle.h"
#include "stagemap.h"
#include "decide.h"
#include "stats.h"
#include "store.h"
#include "store_query.h"
#include "store_sweeps.h"
#include "util.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct task {
    int config;      /* index into spec->configs */
    int repeat;
    const char *mode;
} task;

typedef struct config_state {
    int64_t id;
    char dir[PATH_MAX];
    pm_backend_config prep;   /* the back end's per-config input and metrics */
    int stopped_by;           /* repeats = auto: 0 not settled, 1 precision, 2 its answer (settle.h) */
    int probed;               /* probe_config ran (just before the config's first run of this invocation) */
} config_state;

/* snprintf that reports truncation instead of silently cutting a path. */
static int fmt_path(char *out, size_t cap, pm_err *err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fmt_path(char *out, size_t cap, pm_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "path longer than %zu bytes: %.200s...", cap - 1, out);
    return PM_OK;
}

static void safe_name(const char *key, char *out, size_t cap)
{
    size_t i = 0;
    for (; key[i] && i + 1 < cap; i++)
        out[i] = (key[i] == '/' || key[i] == ' ') ? '_' : key[i];
    out[i] = '\0';
}

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
static int wrap_in_cache(pm_step *st, const char *self, const char *cache_dir, const char *outcome)
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

typedef struct sweep_ctx {
    const pm_spec *spec;
    const pm_sweep_opts *opts;
    const pm_backend_ops *be;
    pm_backend_ctx bctx;
    pm_store *store;
    config_state *cs;
    char work[PATH_MAX];
    char cache_dir[PATH_MAX];
    char self[PATH_MAX];
    int *in_shard;      /* per config: 1 when this sweep (shard) runs it */
    int *shard_of;      /* per config: the shard (1..N; 1 when not sharded) that runs it */
    int64_t sweep_id;
    int warm;           /* the sweep measures passmap-cache warm runs */
    int64_t host_id;    /* the machine measuring, recorded with every run */
    int cap_tasks;      /* allocated length of the task list plan() fills */
    pm_pgroup_recorder pgrec; /* the step in flight's process group, recorded beside the database */
    pm_tool_set tools;  /* every step's tool, identified once per sweep */
    size_t n_tools_used; /* tools[0 .. n): the ones this invocation's configs (its shard) run: what is recorded */
    char **fp_text;     /* per config: its fingerprint text and hash (identity.h); NULL in a dry run */
    char (*fp_hash)[48];
    char no_report_note[256];   /* the first no-report run's reason, for the summary */
    pm_stagemap *stages;        /* repeats = auto: the stage map the answer test reads (NULL: precision alone) */
    int startup_done;   /* measure_startup ran in this invocation (after the first run, or at the end) */
    double side_s;      /* seconds of probes and start-up between runs: not the run loop's own time */
} sweep_ctx;

/* Per-step bookkeeping of one run, grown with the back end's step count. */
typedef struct step_slots {
    pm_report *reports;
    pm_run_result *results;
    pm_step_record *recs;
    char **argvs, **tails;
} step_slots;

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

static int run_task(sweep_ctx *x, const task *t, const char **status_out, double *wall_out, pm_err *err)
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
        if (la && fscanf(la, "%lf", &load1) == 1 && push_metric(&metrics, &n_metrics, "host.load1", load1)) {
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
        pm_run_opts ro = {.timeout_s = x->spec->timeout_s, .mem_limit_bytes = is_self ? 0 : x->spec->mem_limit,
                          .cwd = st->cwd ? st->cwd : dir, .stdout_path = out_path, .stderr_path = err_path,
                          .count_instructions = 1, .cancel = x->opts->stop};
        /* The step's process group is on record while it runs: what it leaves behind if passmap is killed is
         * found and killed by the next sweep on this database (pm_pgroup_reap). */
        char what[PATH_MAX];
        snprintf(what, sizeof what, "config %s, %s r%d, step %s", x->spec->configs[t->config].key, t->mode,
                 t->repeat, st->tool);
        x->pgrec.what = what;
        ro.on_start = pm_pgroup_record;
        ro.on_start_arg = &x->pgrec;
        pm_report_init(&sl.reports[i]);
        memset(&sl.results[i], 0, sizeof sl.results[i]);
        n_done = i + 1;
        rc = pm_run_exec((const char *const *)st->argv, &ro, &sl.results[i], err);
        pm_pgroup_unrecord(&x->pgrec);
        x->pgrec.what = NULL;
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

/* Null-input runs per tool: enough for a median, few enough to cost a second or two per sweep. */
#define PM_STARTUP_REPEATS 5

static int startup_row_add(pm_startup_row **rows, int *n, pm_startup_row r)
{
    pm_startup_row *g = realloc(*rows, (size_t)(*n + 1) * sizeof *g);
    if (!g)
        return PM_ERR_NOMEM;
    *rows = g;
    g[(*n)++] = r;
    return PM_OK;
}

/* Start-up, once per sweep and machine (a resumed sweep finds it recorded): each tool the back end runs,
 * started PM_STARTUP_REPEATS times on a null input through the runner, outside every timed run. The rows land
 * in one transaction; a tool the back end cannot start on a null input gets a "not-measured" row saying why.
 * The report splits process-overhead into this start-up and the time outside passes, and takes each tool's
 * serial CPU/wall from these runs. */
static int measure_startup(sweep_ctx *x, int64_t sweep_id, pm_sweep_summary *sum, pm_err *err)
{
    int done = 0, rc, n_rows = 0;
    x->startup_done = 1;
    if ((rc = pm_store_startup_done(x->store, sweep_id, x->host_id, &done, err)) || done)
        return rc;
    char dir[PATH_MAX];
    pm_steps steps = {0};
    pm_startup_row *rows = NULL;
    pm_run_result *res = NULL;
    char **argvs = NULL, *missing = NULL, *note_buf = NULL;
    if ((rc = fmt_path(dir, sizeof dir, err, "%s/startup", x->work)))
        return rc;
    pm_util_remove_tree(dir);
    if ((rc = pm_util_mkdir_p(dir, err)))
        return rc;
    if (!x->be->null_steps) {
        if (asprintf(&note_buf, "the %s back end has no null input", x->spec->backend) < 0) {
            note_buf = NULL;
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        if (startup_row_add(&rows, &n_rows, (pm_startup_row){.tool = "*", .status = "not-measured", .wall_s = -1,
                                                             .user_s = -1, .sys_s = -1, .note = note_buf}))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    } else if (!(rc = x->be->null_steps(&x->bctx, dir, &steps, &missing, err))) {
        int n = steps.n * PM_STARTUP_REPEATS;
        res = calloc((size_t)n + 1, sizeof *res);
        argvs = calloc((size_t)n + 1, sizeof *argvs);
        if (!res || !argvs)
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        for (int r = 0; !rc && r < PM_STARTUP_REPEATS; r++)
            for (int i = 0; !rc && i < steps.n; i++) {
                pm_step *st = &steps.items[i];
                int k = r * steps.n + i;
                char out_path[PATH_MAX + 64], err_path[PATH_MAX + 64];
                snprintf(out_path, sizeof out_path, "%s/%s.stdout", dir, st->tool);
                snprintf(err_path, sizeof err_path, "%s/%s.stderr", dir, st->tool);
                /* as in run_task: no RLIMIT_AS on passmap's own children */
                int is_self = !strcmp(st->argv[0], x->self);
                pm_run_opts ro = {.timeout_s = x->spec->timeout_s, .mem_limit_bytes = is_self ? 0 : x->spec->mem_limit,
                                  .cwd = st->cwd ? st->cwd : dir, .stdout_path = out_path, .stderr_path = err_path,
                                  .cancel = x->opts->stop};
                if ((rc = pm_run_exec((const char *const *)st->argv, &ro, &res[k], err)))
                    break;
                if (x->opts->stop && *x->opts->stop) {   /* not a measurement: nothing recorded, measured on resume */
                    sum->interrupted = 1;
                    goto cleanup;
                }
                argvs[k] = pm_argv_join(st->argv);
                pm_run_result *o = &res[k];
                if (startup_row_add(&rows, &n_rows,
                                    (pm_startup_row){.tool = st->tool, .repeat = r, .status = pm_run_status_name(o->status),
                                                     .argv = argvs[k], .wall_s = o->wall_s, .user_s = o->user_s,
                                                     .sys_s = o->sys_s,
                                                     .note = o->spawn_error[0] ? o->spawn_error : NULL}))
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                else if (o->status == PM_RUN_OK)
                    sum->startup_runs++;
            }
        /* "tool: why; tool: why" -> one not-measured row per tool */
        for (char *save = NULL, *part = missing ? strtok_r(missing, ";", &save) : NULL; !rc && part;
             part = strtok_r(NULL, ";", &save)) {
            while (*part == ' ')
                part++;
            char *colon = strchr(part, ':');
            if (!colon)
                continue;
            *colon = '\0';
            const char *why = colon + 1;
            while (*why == ' ')
                why++;
            if (startup_row_add(&rows, &n_rows, (pm_startup_row){.tool = part, .status = "not-measured",
                                                                 .wall_s = -1, .user_s = -1, .sys_s = -1,
                                                                 .note = why}))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
    }
    if (!rc && n_rows)
        rc = pm_store_record_startup(x->store, sweep_id, x->host_id, rows, n_rows, err);
    if (rc)
        pm_err_wrap(err, "measuring start-up");
cleanup:
    for (int k = 0; argvs && k < steps.n * PM_STARTUP_REPEATS; k++)
        free(argvs[k]);
    free(argvs);
    free(res);
    free(rows);
    free(missing);
    free(note_buf);
    pm_steps_free(&steps);
    if (!x->opts->keep_outputs)
        pm_util_remove_tree(dir);
    return rc;
}

/* Warm sweeps: names, once per tool, each step the cache can never serve a hit (no output known, or an argument
 * naming the run folder, new for every run), so the user learns it before the warm runs fail one by one. */
static int name_uncacheable(sweep_ctx *x, pm_err *err)
{
    char named[16][64];
    int n_named = 0, rc = PM_OK;
    if (!x->opts->notice)
        return PM_OK;
    for (int c = 0; c < x->spec->n_configs && rc == PM_OK; c++) {
        if (!x->in_shard[c])
            continue;
        char dir[PATH_MAX];
        pm_steps steps = {0};
        if ((rc = fmt_path(dir, sizeof dir, err, "%s/warm-r0", x->cs[c].dir)) ||
            (rc = x->be->steps(&x->bctx, c, x->cs[c].prep.input, dir, &steps, err))) {
            pm_steps_free(&steps);
            break;
        }
        for (int i = 0; i < steps.n; i++) {
            const pm_step *st = &steps.items[i];
            const char *ins[] = {st->input, NULL};
            const char *outs[66] = {st->output};
            int n_out = st->output ? 1 : 0;
            for (char **o = st->more_outputs; o && *o && n_out < 64; o++)
                outs[n_out++] = *o;
            outs[n_out] = NULL;
            pm_cache_request req = {.argv = st->argv, .inputs = ins, .outputs = outs};
            char why[400];
            int seen = 0;
            for (int k = 0; k < n_named && !seen; k++)
                seen = !strcmp(named[k], st->tool);
            if (seen || !pm_cache_why_uncacheable(&req, dir, why, sizeof why))
                continue;
            char line[640];
            snprintf(line, sizeof line, "warm: step %s (config %s) cannot be cached: %s; its warm runs will be "
                     "recorded as failed, not as hits", st->tool, x->spec->configs[c].key, why);
            x->opts->notice(x->opts->notice_user, line);
            if (n_named < 16)
                snprintf(named[n_named++], sizeof named[0], "%s", st->tool);
        }
        pm_steps_free(&steps);
    }
    return rc;
}

/* Deterministic shuffle (xorshift) so an interleaved order is reproducible from the spec's seed. */
static void shuffle(int *idx, int n, unsigned *state)
{
    for (int i = n - 1; i > 0; i--) {
        *state ^= *state << 13;
        *state ^= *state >> 17;
        *state ^= *state << 5;
        int j = (int)(*state % (unsigned)(i + 1));
        int tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
    }
}

/* A dry run's view of one task: each step's argv as the real run would start it (nothing is created). */
static int dry_steps_text(sweep_ctx *x, const task *t, char **out, pm_err *err)
{
    const config_state *cs = &x->cs[t->config];
    char dir[PATH_MAX];
    pm_steps steps = {0};
    int rc;
    *out = NULL;
    if ((rc = fmt_path(dir, sizeof dir, err, "%s/%s-r%d", cs->dir, t->mode, t->repeat)) ||
        (rc = x->be->steps(&x->bctx, t->config, cs->prep.input, dir, &steps, err)))
        return rc;
    size_t len = 0, cap = 0;
    char *text = NULL;
    for (int i = 0; i < steps.n && rc == PM_OK; i++) {
        char outcome[PATH_MAX + 64];
        if (strcmp(t->mode, "cold") &&
            ((rc = fmt_path(outcome, sizeof outcome, err, "%s/.cache-outcome-%d", dir, i)) ||
             (rc = wrap_in_cache(&steps.items[i], x->self, x->cache_dir, outcome))))
            break;
        char *joined = pm_argv_join(steps.items[i].argv);
        size_t need = len + strlen(steps.items[i].tool) + (joined ? strlen(joined) : 0) + 8;
        if (need > cap) {
            cap = need * 2;
            char *bigger = realloc(text, cap);
            if (!bigger) {
                free(joined);
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            text = bigger;
        }
        len += (size_t)snprintf(text + len, cap - len, "  %s: %s\n", steps.items[i].tool, joined ? joined : "?");
        free(joined);
    }
    pm_steps_free(&steps);
    if (rc)
        free(text);
    else
        *out = text;
    return rc;
}

static int plan(sweep_ctx *x, const char *mode, int repeats, task **tasks, int *n_tasks, int *already, pm_err *err)
{
    const pm_spec *s = x->spec;
    unsigned char *have = NULL;
    int *order = malloc((size_t)s->n_configs * sizeof *order);
    int rc = PM_OK;
    if (!order) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* have[c * repeats + r]: repeat r of config c is recorded (any status). A set, not a count: a failed run
     * moved aside by --retry-failed leaves a gap that is planned again. */
    have = calloc((size_t)s->n_configs * (size_t)(repeats > 0 ? repeats : 1), 1);
    if (!have) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int c = 0; c < s->n_configs; c++) {
        unsigned char *h = have + (size_t)c * (size_t)repeats;
        int max_r;
        if (!x->in_shard[c]) {
            memset(h, 1, (size_t)repeats); /* another shard's: nothing to plan here */
            continue;
        }
        if (x->store && x->cs[c].id && /* dry run: not recorded yet */
            (rc = pm_store_repeats(x->store, x->cs[c].id, mode, h, repeats, &max_r, err)))
            goto cleanup;
        for (int r = 0; r < repeats; r++)
            *already += h[r];
    }
    unsigned state = s->seed ? s->seed : 1;
    for (int r = 0; r < repeats; r++) {
        for (int c = 0; c < s->n_configs; c++)
            order[c] = c;
        if (s->interleaved)
            shuffle(order, s->n_configs, &state);
        for (int k = 0; k < s->n_configs; k++) {
            /* sequential: config-major; interleaved: repeat-major, configs shuffled per round */
            int c = s->interleaved ? order[k] : (r * s->n_configs + k) / repeats;
            int rep = s->interleaved ? r : (r * s->n_configs + k) % repeats;
            if (have[(size_t)c * (size_t)repeats + (size_t)rep])
                continue;
            if (*n_tasks == x->cap_tasks) { /* doubling: planning stays linear in the number of runs */
                int ncap = x->cap_tasks ? x->cap_tasks * 2 : 256;
                task *nt = realloc(*tasks, (size_t)ncap * sizeof *nt);
                if (!nt) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    goto cleanup;
                }
                *tasks = nt;
                x->cap_tasks = ncap;
            }
            (*tasks)[(*n_tasks)++] = (task){.config = c, .repeat = rep, .mode = mode};
        }
    }
cleanup:
    free(have);
    free(order);
    return rc;
}

/* Adaptive repeats (repeats = auto): the next round holds one more cold run of each config that has not settled
 * (pm_stats_settled on its ok cold runs' deciding metric, decide.h: instructions, CPU time of serial tools, or
 * wall; at most max_repeats runs of any status), shuffled like any interleaved round. Reads the store, so a
 * resumed sweep continues where it stopped. */
static int settled_on_decider(sweep_ctx *x, int c, const double tools_cpu_wall[2], int *settled, pm_err *err)
{
    const pm_spec *s = x->spec;
    pm_sq_samples sm;
    int rc = pm_sq_cold_samples(pm_store_db(x->store), x->cs[c].id, &sm, err);
    if (rc)
        return rc;
    pm_decide_evidence ev;
    pm_decide_init(&ev);
    ev.tools_cpu_wall = tools_cpu_wall[0];
    ev.tools_cpu_wall_min = tools_cpu_wall[1];
    double cw = 0, w = 0;
    for (size_t i = 0; i < sm.n; i++) {
        pm_decide_add_run(&ev, sm.wall[i], sm.user[i], sm.sys[i], sm.instructions[i]);
        if (sm.user[i] >= 0 && sm.sys[i] >= 0) {
            cw += sm.user[i] + sm.sys[i];
            w += sm.wall[i];
        }
    }
    pm_decide_add_side(&ev, w > 0 ? cw / w : NAN);
    pm_decide_metric m = pm_decide(&ev);
    size_t k = 0;
    for (size_t i = 0; i < sm.n; i++) {   /* reuses wall[]: every run has the decided metric (pm_decide) */
        double v = pm_decide_sample(m, sm.wall[i], sm.user[i], sm.sys[i], sm.instructions[i]);
        if (!isnan(v))
            sm.wall[k++] = v;
    }
    *settled = pm_stats_settled(sm.wall, k, (size_t)s->min_repeats, 0, s->precision);
    pm_sq_samples_free(&sm);
    if (*settled) {
        x->cs[c].stopped_by = 1;
        return PM_OK;
    }
    /* Or the config's answer is known: its dominant stage leads the next one in every sense the runs allow
     * (settle.h). The time's interval may still be wide; the report prints it as it is. */
    if (!x->stages || k < (size_t)s->min_repeats)
        return PM_OK;
    pm_settle_stage ss;
    rc = pm_settle_stage_known(pm_store_db(x->store), x->cs[c].id, x->stages, (size_t)s->min_repeats, &ss, err);
    if (rc == PM_OK && ss.known) {
        *settled = 1;
        x->cs[c].stopped_by = 2;
    }
    return rc;
}

static int plan_round(sweep_ctx *x, unsigned *state, task **tasks, int *n_tasks, pm_err *err)
{
    const pm_spec *s = x->spec;
    int rc = PM_OK;
    *n_tasks = 0;
    task *t = calloc((size_t)s->n_configs + 1, sizeof *t);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    double tools_cpu_wall[2] = {NAN, NAN};   /* max, min */
    rc = pm_sq_tools_cpu_wall(pm_store_db(x->store), x->sweep_id, &tools_cpu_wall[0], &tools_cpu_wall[1], err);
    for (int c = 0; c < s->n_configs && !rc; c++) {
        int done = 0, settled = 0;
        unsigned char none;
        int max_r = -1;
        if (!x->in_shard[c])
            continue;
        if ((rc = pm_store_runs_done(x->store, x->cs[c].id, "cold", &done, err)) ||
            (rc = pm_store_repeats(x->store, x->cs[c].id, "cold", &none, 0, &max_r, err)) ||
            (rc = settled_on_decider(x, c, tools_cpu_wall, &settled, err)))
            break;
        /* the next repeat follows the largest recorded: runs moved aside by --retry-failed leave gaps */
        if (done < s->max_repeats && !settled)
            t[(*n_tasks)++] = (task){.config = c, .repeat = max_r + 1 > done ? max_r + 1 : done, .mode = "cold"};
        else if (done < s->max_repeats && x->sweep_id)
            /* settled early: the plan owes no more cold runs of it (status counts against this) */
            rc = pm_store_shard_plan(x->store, x->sweep_id, x->opts->shard.n ? x->shard_of[c] : 1,
                                     x->opts->shard.n ? x->opts->shard.n : 1, s->configs[c].key, done,
                                     x->warm ? 1 : 0, x->warm ? s->warm_repeats : 0, err);
    }
    if (!rc && s->interleaved && *n_tasks > 1) {
        int *order = malloc((size_t)*n_tasks * sizeof *order);
        task *shuffled = malloc((size_t)*n_tasks * sizeof *shuffled);
        if (!order || !shuffled) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        } else {
            for (int k = 0; k < *n_tasks; k++)
                order[k] = k;
            shuffle(order, *n_tasks, state);
            for (int k = 0; k < *n_tasks; k++)
                shuffled[k] = t[order[k]];
            memcpy(t, shuffled, (size_t)*n_tasks * sizeof *t);
        }
        free(order);
        free(shuffled);
    }
    if (rc) {
        free(t);
        *n_tasks = 0;
        return rc;
    }
    free(*tasks);
    *tasks = t;
    return PM_OK;
}

static char *sweep_meta(sweep_ctx *x)
{
    struct utsname u;
    uname(&u);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s}", "host", host, "kernel", u.release, "machine", u.machine,
                          "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN), "backend", x->spec->backend);
    if (x->be->describe)
        x->be->describe(&x->bctx, o);
    /* which metric sizes each tool's stages: the fits' x axis, the back end's rule (not guessed from names) */
    json_object_set_new(o, "fit_sizes", pm_backend_fit_sizes_json(x->be));
    /* the spec's folder: what its relative paths meant (passmap fix reads the stored spec again from there) */
    json_object_set_new(o, "spec_dir", json_string(x->spec->dir));
    /* the axes the report maps ([report] size / workload) */
    if (x->spec->report_size[0])
        json_object_set_new(o, "report_size", json_string(x->spec->report_size));
    if (x->spec->report_workload[0])
        json_object_set_new(o, "report_workload", json_string(x->spec->report_workload));
    if (x->spec->repeats_auto) {
        json_object_set_new(o, "repeats", json_string("auto"));
        json_object_set_new(o, "min_repeats", json_integer(x->spec->min_repeats));
        json_object_set_new(o, "max_repeats", json_integer(x->spec->max_repeats));
        json_object_set_new(o, "precision", json_real(x->spec->precision));
    } else {
        json_object_set_new(o, "repeats", json_integer(x->spec->repeats));
    }
    json_object_set_new(o, "timeout_s", json_real(x->spec->timeout_s));
    json_object_set_new(o, "mem_limit_bytes", json_integer((json_int_t)x->spec->mem_limit));
    json_object_set_new(o, "cold", json_string("each repeat is a fresh process per step; no compiler cache; "
                                               "inputs regenerated per config; OS file cache not dropped"));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

typedef struct batch_state {
    double t0;
    int done;        /* runs finished (or planned, dry run) in this invocation */
    int already;     /* found in the store at start */
    int capped;      /* opts->max_runs reached */
    /* measured seconds per (config, mode) of this invocation's runs, for the ETA: runs differ by 100x across
     * configs and modes, so elapsed/done x left was off by minutes (NULL: out of memory, the plain average) */
    double *took;
    int *n_took;
    double took_all;
    int n_all;
} batch_state;

enum { ETA_MODES = 3 };
static int eta_mode(const char *mode)
{
    return !strcmp(mode, "warm") ? 2 : !strcmp(mode, "cache-miss") ? 1 : 0;
}

/* Seconds a task is expected to take: its config and mode's mean so far, else its mode's mean over the
 * configs measured, else every run's mean. */
static double eta_task(const batch_state *bs, int n_configs, const task *t)
{
    double all = bs->n_all ? bs->took_all / bs->n_all : 0;
    if (!bs->took)
        return all;
    int m = eta_mode(t->mode);
    size_t k = (size_t)t->config * ETA_MODES + (size_t)m;
    if (bs->n_took[k])
        return bs->took[k] / bs->n_took[k];
    double sum = 0;
    int n = 0;
    for (int c = 0; c < n_configs; c++) {
        sum += bs->took[(size_t)c * ETA_MODES + (size_t)m];
        n += bs->n_took[(size_t)c * ETA_MODES + (size_t)m];
    }
    return n ? sum / n : all;
}

/* ETA of what is left after task i: each remaining task by eta_task, the `after` runs not yet planned at the
 * mean of every run. */
static double eta_left(const batch_state *bs, int n_configs, const task *tasks, int n_tasks, int i, int after)
{
    double left = after * (bs->n_all ? bs->took_all / bs->n_all : 0);
    for (int j = i + 1; j < n_tasks; j++)
        left += eta_task(bs, n_configs, &tasks[j]);
    return left;
}

/* Runs one batch of tasks. Progress counts what is left: this batch's remaining runs plus `after` runs known
 * to follow (adaptive rounds add to it as they are planned). */
static int run_batch(sweep_ctx *x, const task *tasks, int n_tasks, int after, batch_state *bs, pm_sweep_summary *sum,
                     pm_err *err)
{
    const pm_sweep_opts *opts = x->opts;
    for (int i = 0; i < n_tasks; i++) {
        const char *status = "planned";
        double wall = 0;
        if (opts->stop && *opts->stop) {
            sum->interrupted = 1;
            break;
        }
        if (opts->max_runs > 0 && bs->done >= opts->max_runs) {
            bs->capped = 1;
            break;
        }
        if (!opts->dry_run) {
            /* Nothing but the measured runs before the first of them: start-up's null runs come after the first
             * run, a config's probes (a compile each) after its own first run, both between runs and never
             * beside one, so no measured run shares a core with them (sweep.c runs one process at a time). */
            config_state *cs = &x->cs[tasks[i].config];
            double t_side = pm_util_now();
            int rc = PM_OK;
            if (bs->n_all && !x->startup_done && (rc = measure_startup(x, x->sweep_id, sum, err)))
                return rc;
            if (sum->interrupted)
                break;
            double t_start = pm_util_now();
            x->side_s += t_start - t_side;
            if ((rc = run_task(x, &tasks[i], &status, &wall, err)))
                return rc;
            double took = pm_util_now() - t_start;
            bs->took_all += took;
            bs->n_all++;
            if (bs->took) {
                size_t k = (size_t)tasks[i].config * ETA_MODES + (size_t)eta_mode(tasks[i].mode);
                bs->took[k] += took;
                bs->n_took[k]++;
            }
            if (!strcmp(status, "interrupted")) {
                sum->interrupted = 1;
                break;
            }
            /* the config's probes, once: what they measure joins the runs recorded so far and every later one */
            if (!cs->probed && x->be->probe_config) {
                int n0 = cs->prep.n_metrics, added;
                cs->probed = 1;
                rc = x->be->probe_config(&x->bctx, tasks[i].config, cs->dir, &cs->prep, err);
                for (int k = n0; !rc && k < cs->prep.n_metrics; k++)
                    rc = pm_store_add_config_metric(x->store, x->spec->name, x->spec->configs[tasks[i].config].key,
                                                    cs->prep.metrics[k].name, cs->prep.metrics[k].value, &added, err);
                x->side_s += pm_util_now() - t_start - took;
                if (rc)
                    return rc;
            }
            sum->ran++;
            if (!strcmp(status, "ok"))
                sum->ok++;
            else if (!strcmp(status, PM_RUN_STATUS_NO_REPORT))
                sum->no_report++;
            else
                sum->failed++;
        }
        bs->done++;
        char *steps_text = NULL;
        int rc = opts->dry_run && opts->progress ? dry_steps_text(x, &tasks[i], &steps_text, err) : PM_OK;
        if (rc)
            return rc;
        if (opts->progress) {
            double el = pm_util_now() - bs->t0;
            int left = n_tasks - i - 1 + after;
            pm_sweep_progress p = {.done = bs->done, .total = bs->done + left, .already_done = bs->already,
                                   .failed = sum->failed, .elapsed_s = el,
                                   .eta_s = opts->dry_run ? el / bs->done * left
                                            : eta_left(bs, x->spec->n_configs, tasks, n_tasks, i, after),
                                   .config_key = x->spec->configs[tasks[i].config].key, .mode = tasks[i].mode,
                                   .repeat = tasks[i].repeat, .status = status, .wall_s = wall,
                                   .steps_text = steps_text};
            opts->progress(opts->progress_user, &p);
        }
        free(steps_text);
    }
    return PM_OK;
}

static void notice(const sweep_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(const sweep_ctx *x, const char *fmt, ...)
{
    if (!x->opts->notice)
        return;
    va_list ap;
    va_start(ap, fmt);
    pm_util_vnotify(x->opts->notice, x->opts->notice_user, fmt, ap);
    va_end(ap);
}

/* Each config's fingerprint (identity.h): its steps expanded with placeholders for the paths that differ per
 * run and machine, with every step's tool identified once. */
static int fingerprint_configs(sweep_ctx *x, pm_err *err)
{
    const pm_spec *spec = x->spec;
    char dir[PATH_MAX];
    int rc;
    if ((rc = fmt_path(dir, sizeof dir, err, "%s/identity", x->work)) || (rc = pm_util_mkdir_p(dir, err)))
        return rc;
    x->fp_text = calloc((size_t)spec->n_configs + 1, sizeof *x->fp_text);
    x->fp_hash = calloc((size_t)spec->n_configs + 1, sizeof *x->fp_hash);
    if (!x->fp_text || !x->fp_hash)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    /* longest first, so a work folder inside the spec folder becomes {work} */
    const char *subst[8] = {x->work, "{work}", spec->dir, "{spec_dir}", x->self, "{passmap}", NULL, NULL};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (strlen(subst[2 * j]) < strlen(subst[2 * j + 2])) {
                const char *a = subst[2 * j], *b = subst[2 * j + 1];
                subst[2 * j] = subst[2 * j + 2], subst[2 * j + 1] = subst[2 * j + 3];
                subst[2 * j + 2] = a, subst[2 * j + 3] = b;
            }
    if (!strcmp(spec->dir, ".")) /* parsed from text: no folder to replace */
        for (int i = 0; i < 6; i += 2)
            if (subst[i] == spec->dir)
                subst[i] = "";
    /* the --version probe: short, whatever the spec allows a compile */
    double timeout = spec->timeout_s > 0 && spec->timeout_s < 30 ? spec->timeout_s : 30;
    /* this shard's configs first: the tools identified until then are the ones it runs, and only those are
     * recorded (a shard of a builds axis that never runs llc-22 does not claim a build of it) */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (int c = 0; c < spec->n_configs && !rc; c++) {
            if (x->in_shard[c] != !pass)
                continue;
            pm_steps steps = {0};
            if (!(rc = x->be->steps(&x->bctx, c, "{input}", "{out}", &steps, err)))
                rc = pm_fingerprint_steps(&steps, subst, x->self, &x->tools, dir, timeout, &x->fp_text[c],
                                          x->fp_hash[c], err);
            pm_steps_free(&steps);
        }
        if (!pass)
            x->n_tools_used = x->tools.n;
    }
    if (!x->opts->keep_outputs)
        pm_util_remove_tree(dir);
    return rc;
}

static int spec_config_index(const pm_spec *spec, const char *key)
{
    for (int c = 0; c < spec->n_configs; c++)
        if (!strcmp(spec->configs[c].key, key))
            return c;
    return -1;
}

/* A spec is a contract: the runs recorded for a config were made with its fingerprint. A config whose steps
 * changed is refused, or with --force superseded (moved to a sweep of its own,
 * never read as the study); failed runs are moved aside the same way with --retry-failed, so their repeats run
 * again. Configs recorded before fingerprints existed take the current one. */
#define PM_CONTRACT_LINES 20
static int check_contract(sweep_ctx *x, pm_err *err)
{
    const pm_spec *spec = x->spec;
    pm_config_fp *old = NULL;
    size_t n_old = 0, n_changed = 0, n_failed_runs = 0, n_retry = 0;
    const char **keys = NULL, **retry = NULL;
    char first[700] = "";
    int rc = pm_store_config_fps(x->store, spec->name, &old, &n_old, err);
    if (rc)
        return rc;
    keys = calloc(n_old + 1, sizeof *keys);
    retry = calloc(n_old + 1, sizeof *retry);
    if (!keys || !retry) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n_old; i++) {
        int c = spec_config_index(spec, old[i].key);
        char line[700];
        /* a config the spec no longer lists keeps its runs, all of one fingerprint (passmap fix's rounds sweep
         * subsets of one sweep's configs) */
        if (c < 0)
            continue;
        if (old[i].hash && strcmp(old[i].hash, x->fp_hash[c])) {
            char diff[480];
            pm_fp_diff(old[i].text, x->fp_text[c], diff, sizeof diff);
            snprintf(line, sizeof line, "config %s: %s", old[i].key, diff);
        } else {
            if (old[i].n_failed && x->in_shard[c]) {
                n_failed_runs += (size_t)old[i].n_failed;
                retry[n_retry++] = old[i].key;
            }
            continue;
        }
        keys[n_changed++] = old[i].key;
        if (!first[0])
            snprintf(first, sizeof first, "%s", line);
        if (!x->opts->force && n_changed <= PM_CONTRACT_LINES)
            notice(x, "%s", line);
    }
    if (n_changed && !x->opts->force) {
        if (n_changed > PM_CONTRACT_LINES)
            notice(x, "... and %zu more changed configs", n_changed - PM_CONTRACT_LINES);
        rc = pm_err_set(err, PM_ERR_USAGE,
                        "%s: sweep '%s': the steps of %zu recorded config%s changed since their runs (%s%s); their "
                        "runs would mix two measurements: sweep under a new name (--name NAME or [sweep] name) or "
                        "--force to supersede their runs (kept aside, never in the report)",
                        x->opts->db_path, spec->name, n_changed, n_changed == 1 ? "" : "s", first,
                        n_changed > 1 ? "; all listed above" : "");
        goto cleanup;
    }
    if (n_changed) {
        char name[PM_SPEC_KEY_MAX + 64];
        int moved = 0;
        if ((rc = pm_store_supersede(x->store, spec->name, keys, n_changed, 0, name, sizeof name, &moved, err)))
            goto cleanup;
        notice(x, "--force: %zu changed config%s superseded (%d run%s kept in sweep '%s', never read as '%s')",
               n_changed, n_changed == 1 ? "" : "s", moved, moved == 1 ? "" : "s", name[0] ? name : "-", spec->name);
    }
    int killed = 0, kept = 0;   /* no measurement, unless it keeps happening (PM_SWEEP_KILLED_RETRIES) */
    if (!x->opts->retry_failed &&
        (rc = pm_store_retry_killed(x->store, spec->name, PM_SWEEP_KILLED_RETRIES, &killed, &kept, err)))
        goto cleanup;
    if (killed)
        notice(x, "%d run%s killed from outside (a signal passmap did not send) run%s again (retry %d at most)",
               killed, killed == 1 ? "" : "s", killed == 1 ? "s" : "", PM_SWEEP_KILLED_RETRIES);
    n_failed_runs -= (size_t)killed < n_failed_runs ? (size_t)killed : n_failed_runs;
    if (n_retry && x->opts->retry_failed) {
        char name[PM_SPEC_KEY_MAX + 64];
        int moved = 0;
        if ((rc = pm_store_supersede(x->store, spec->name, retry, n_retry, 1, name, sizeof name, &moved, err)))
            goto cleanup;
        notice(x, "--retry-failed: %d failed run%s moved to sweep '%s'; their repeats run again", moved,
               moved == 1 ? "" : "s", name[0] ? name : "-");
    } else if (n_failed_runs) {
        notice(x, "%zu failed run%s of %zu config%s count as done (--retry-failed runs them again)", n_failed_runs,
               n_failed_runs == 1 ? "" : "s", n_retry, n_retry == 1 ? "" : "s");
    }
cleanup:
    free(keys);
    free(retry);
    pm_config_fps_free(old, n_old);
    return rc;
}

/* One digest of every tool build the sweep ran: the host fingerprint's compiler part, so machines that ran
 * other builds are other machine kinds in the report. */
static void tools_digest(const pm_tool_set *t, char *out, size_t cap)
{
    XXH3_state_t *s = XXH3_createState();
    out[0] = '\0';
    if (!s || !t->n) {
        XXH3_freeState(s);
        return;
    }
    XXH3_64bits_reset(s);
    /* order-independent: sorted copies of the (name, hash, version) lines */
    char **lines = calloc(t->n, sizeof *lines);
    for (size_t i = 0; lines && i < t->n; i++)
        if (asprintf(&lines[i], "%s\t%s\t%s", t->items[i].name, t->items[i].hash, t->items[i].version_text) < 0)
            lines[i] = NULL;
    for (size_t i = 0; lines && i < t->n; i++)
        for (size_t j = i + 1; j < t->n; j++)
            if (lines[i] && lines[j] && strcmp(lines[i], lines[j]) > 0) {
                char *tmp = lines[i];
                lines[i] = lines[j];
                lines[j] = tmp;
            }
    for (size_t i = 0; lines && i < t->n; i++) {
        if (lines[i])
            XXH3_64bits_update(s, lines[i], strlen(lines[i]) + 1);
        free(lines[i]);
    }
    free(lines);
    snprintf(out, cap, "tools %016llx", (unsigned long long)XXH3_64bits_digest(s));
    XXH3_freeState(s);
}

int pm_sweep_run(const pm_spec *spec, const pm_sweep_opts *opts, pm_sweep_summary *sum, pm_err *err)
{
    sweep_ctx x = {.spec = spec, .opts = opts, .be = pm_backend_find(spec->backend)};
    pm_shard_plan shard_plan = {0};
    task *tasks = NULL;
    int n_tasks = 0, already = 0, rc = PM_OK, lock_fd = -1;
    int64_t sweep_id = 0;
    char *meta = NULL;
    memset(sum, 0, sizeof *sum);
    if (!(x.in_shard = calloc((size_t)(spec->n_configs > 0 ? spec->n_configs : 1), sizeof *x.in_shard)) ||
        !(x.shard_of = calloc((size_t)(spec->n_configs > 0 ? spec->n_configs : 1), sizeof *x.shard_of))) {
        free(x.in_shard);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if ((rc = opts->plan_path ? pm_shard_plan_read(opts->plan_path, spec, opts->shard.n, &shard_plan, err)
                              : pm_shard_plan_make(spec, opts->shard.n, opts->costs_db, PM_COST_AUTO, &shard_plan, err)))
        goto cleanup;
    memcpy(x.shard_of, shard_plan.shard_of, (size_t)spec->n_configs * sizeof *x.shard_of);
    for (int c = 0; c < spec->n_configs; c++)
        x.in_shard[c] = !opts->shard.n || x.shard_of[c] == opts->shard.k;
    for (int c = 0; c < spec->n_configs; c++)
        sum->configs += x.in_shard[c];

    if (opts->self_exe) {
        if (snprintf(x.self, sizeof x.self, "%s", opts->self_exe) >= (int)sizeof x.self) {
            rc = pm_err_set(err, PM_ERR_USAGE, "passmap's path is longer than %zu bytes", sizeof x.self - 1);
            goto cleanup;
        }
    } else if (!realpath("/proc/self/exe", x.self)) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot find passmap's own executable");
        goto cleanup;
    }
    /* the run folders live here: a cut path would put them somewhere else */
    if ((opts->work_dir ? snprintf(x.work, sizeof x.work, "%s", opts->work_dir)
                        : snprintf(x.work, sizeof x.work, "%s.runs", opts->db_path)) >= (int)sizeof x.work) {
        rc = pm_err_set(err, PM_ERR_USAGE, "work folder path longer than %zu bytes: %.80s...", sizeof x.work - 1,
                        opts->work_dir ? opts->work_dir : opts->db_path);
        goto cleanup;
    }
    if (!x.be) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no back end '%s' (%s)", spec->backend, pm_backend_names());
        goto cleanup;
    }
    x.bctx = (pm_backend_ctx){.spec = spec, .self_exe = x.self, .cache_dir = x.cache_dir, .cancel = opts->stop};
    if (opts->dry_run) {
        /* nothing is created: the paths shown are where a real sweep would put things */
        char cwd[PATH_MAX], rel[PATH_MAX];
        memcpy(rel, x.work, sizeof rel);
        if (rel[0] != '/' && getcwd(cwd, sizeof cwd) && (rc = fmt_path(x.work, sizeof x.work, err, "%s/%s", cwd, rel)))
            goto cleanup;
    } else {
        if ((rc = pm_util_mkdir_p(x.work, err)))
            goto cleanup;
        /* Steps run with the run folder as cwd: every path handed to them must be absolute. */
        char abs[PATH_MAX];
        if (!realpath(x.work, abs)) {
            rc = pm_err_errno(err, PM_ERR_IO, "cannot resolve %s", x.work);
            goto cleanup;
        }
        memcpy(x.work, abs, sizeof abs);
    }
    if (x.be->prepare && (rc = x.be->prepare(&x.bctx, err)))
        goto cleanup;
    if (!(x.bctx.versions = json_object())) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* One sweep writes a database at a time; merge refuses a database while it is held. */
    if (!opts->dry_run && (rc = pm_store_writer_lock(opts->db_path, &lock_fd, err)))
        goto cleanup;
    /* A killed sweep's steps may have left processes running (backgrounded by a step, so PDEATHSIG missed
     * them): they would write into the run folders reused below and compete with the runs measured. */
    if (!opts->dry_run && ((rc = pm_pgroup_recorder_init(&x.pgrec, opts->db_path, err)) ||
                           (rc = pm_pgroup_reap(opts->db_path, opts->notice, opts->notice_user, err))))
        goto cleanup;
    if ((rc = fmt_path(x.cache_dir, sizeof x.cache_dir, err, "%s/cache", x.work)))
        goto cleanup;
    if (opts->dry_run) {
        /* an existing database is read (runs already recorded are left out of the plan), never written */
        if (access(opts->db_path, F_OK) == 0 && (rc = pm_store_open_readonly(opts->db_path, &x.store, err)))
            goto cleanup;
        goto configs;
    }
    if ((rc = pm_store_open(opts->db_path, &x.store, err)) ||
        (opts->shard.n && (rc = pm_shard_plan_record(x.store, spec->name, &shard_plan, err))))
        goto cleanup;
    if ((rc = fingerprint_configs(&x, err)) || (rc = check_contract(&x, err)))
        goto cleanup;
    meta = sweep_meta(&x);
    if ((rc = pm_store_sweep(x.store, spec->name, spec->backend, spec->text, meta, &sweep_id, err)))
        goto cleanup;
    x.sweep_id = sweep_id;
    {
        pm_host host;
        char compiler[256];
        /* the compiler as the back end describes it (sweep metadata): "MLIR/LLVM 22.1.8", "openvino NPU" */
        json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
        const char *name = json_string_value(json_object_get(m, "compiler"));
        const char *ver = json_string_value(json_object_get(m, "compiler_version"));
        const char *dev = json_string_value(json_object_get(m, "device"));
        char digest[64];
        tools_digest(&x.tools, digest, sizeof digest);
        snprintf(compiler, sizeof compiler, "%s%s%s%s%s", name ? name : spec->backend, ver || dev ? " " : "", ver ? ver : dev ? dev : "",
                 digest[0] ? ", " : "", digest);
        json_decref(m);
        if ((rc = pm_host_probe(&host, err)))
            goto cleanup;
        pm_host_set_compiler(&host, compiler);
        if ((rc = pm_store_host(x.store, &host, &x.host_id, err)) ||
            (rc = pm_store_record_tools(x.store, sweep_id, x.host_id, x.tools.items, x.n_tools_used, err)))
            goto cleanup;
    }
configs:
    if (!(x.cs = calloc((size_t)spec->n_configs, sizeof *x.cs))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* a back end with its own warm path measures it with every cold run: no passmap-cache runs beside it */
    int warm = (opts->warm >= 0 ? opts->warm : spec->warm) && !x.be->own_warm_path;
    x.warm = warm;
    for (int c = 0; c < spec->n_configs; c++) {
        const pm_spec_config *cfg = &spec->configs[c];
        config_state *cs = &x.cs[c];
        char safe[PM_SPEC_KEY_MAX];
        if (!x.in_shard[c])
            continue;
        safe_name(cfg->key, safe, sizeof safe);
        if ((rc = fmt_path(cs->dir, sizeof cs->dir, err, "%s/%s", x.work, safe)))
            goto cleanup;
        if (opts->dry_run) {
            if (x.store && (rc = pm_store_config_find(x.store, spec->name, cfg->key, &cs->id, err)))
                goto cleanup;
            continue;
        }
        if ((rc = pm_util_mkdir_p(cs->dir, err)))
            goto cleanup;
        if (opts->stop && *opts->stop) {   /* preparing (generators, probes) can take minutes: stop here too */
            sum->interrupted = 1;
            goto cleanup;
        }
        if (x.be->prepare_config && (rc = x.be->prepare_config(&x.bctx, c, cs->dir, &cs->prep, err)))
            goto cleanup;
        char *params = cs->prep.params ? json_dumps(cs->prep.params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        pm_config pc = {.key = cfg->key, .kind = cfg->kind, .workload = pm_spec_workload(cfg),
                        .variant = cfg->variant[0] ? cfg->variant : NULL, .params_json = params,
                        .params = cfg->params, .n_params = cfg->n_params};
        rc = pm_store_config(x.store, sweep_id, &pc, &cs->id, err);
        free(params);
        if (rc || (rc = pm_store_config_set_fingerprint(x.store, cs->id, x.fp_hash[c], x.fp_text[c], err)))
            goto cleanup;
    }
    /* The whole plan, every shard's configs (1/1 when not sharded): `passmap status` compares it with what is
     * recorded, so a shard that never ran, or a merged store missing one, shows as work left. With repeats =
     * auto a config owes up to max_repeats until the stopping rule settles it (plan_round records that). */
    x.sweep_id = sweep_id;
    for (int c = 0; c < spec->n_configs && !opts->dry_run; c++)
        if ((rc = pm_store_shard_plan(x.store, sweep_id, opts->shard.n ? x.shard_of[c] : 1,
                                      opts->shard.n ? opts->shard.n : 1, spec->configs[c].key,
                                      spec->repeats_auto ? spec->max_repeats : spec->repeats, warm ? 1 : 0,
                                      warm ? spec->warm_repeats : 0, err)))
            goto cleanup;
    if (warm && !opts->dry_run && (rc = name_uncacheable(&x, err)))
        goto cleanup;
    if (opts->notice && pm_run_mem_limit_clamp(spec->mem_limit) != spec->mem_limit) {
        char line[256];
        snprintf(line, sizeof line, "mem_limit %.2f GiB is above the address-space limit this process inherited "
                 "(hard RLIMIT_AS %.2f GiB): compiler steps run under the inherited limit",
                 (double)spec->mem_limit / (1 << 30), (double)pm_run_mem_limit_clamp(spec->mem_limit) / (1 << 30));
        opts->notice(opts->notice_user, line);
    }
    if ((rc = plan(&x, "cold", spec->repeats, &tasks, &n_tasks, &already, err)))
        goto cleanup;
    if (warm) {
        /* One miss fills the cache (recorded as "cache-miss": the cache's own overhead), then timed hits. */
        if ((rc = plan(&x, "cache-miss", 1, &tasks, &n_tasks, &already, err)) ||
            (rc = plan(&x, "warm", spec->warm_repeats, &tasks, &n_tasks, &already, err)))
            goto cleanup;
    }
    if (opts->max_runs > 0 && n_tasks > opts->max_runs)
        n_tasks = opts->max_runs;
    sum->already_done = already;

    double t0 = pm_util_now();
    batch_state bs = {.t0 = t0, .already = already};
    bs.took = calloc((size_t)(spec->n_configs ? spec->n_configs : 1) * ETA_MODES, sizeof *bs.took);
    bs.n_took = calloc((size_t)(spec->n_configs ? spec->n_configs : 1) * ETA_MODES, sizeof *bs.n_took);
    if (!bs.took || !bs.n_took) {   /* the ETA falls back to the plain average; the sweep goes on */
        free(bs.took);
        free(bs.n_took);
        bs.took = NULL;
        bs.n_took = NULL;
    }
    if (!spec->repeats_auto || opts->dry_run) {
        rc = run_batch(&x, tasks, n_tasks, 0, &bs, sum, err);
    } else {
        /* The answer test maps passes to stages as the report does (the data dir's maps); without them the
         * configs stop on the deciding metric's precision alone, and the summary says so. */
        pm_err map_err = {0};
        if (spec->stop_on_precision) {
            snprintf(sum->stop_note, sizeof sum->stop_note, "stop = precision");
        } else if (!(x.stages = pm_stagemap_new()) || pm_stagemap_load_default(x.stages, &map_err)) {
            snprintf(sum->stop_note, sizeof sum->stop_note, "no stage map (%.120s)",
                     x.stages ? map_err.msg : "out of memory");
            pm_stagemap_free(x.stages);
            x.stages = NULL;
        }
        /* The first round(s) up to min_repeats, then rounds of the configs not settled, then the warm runs. */
        int n_cold = 0;
        while (n_cold < n_tasks && !strcmp(tasks[n_cold].mode, "cold"))
            n_cold++;
        int n_rest = n_tasks - n_cold;
        task *rest = tasks + n_cold, *round = NULL;
        unsigned state = spec->seed ? spec->seed + 7919 : 7919;
        rc = run_batch(&x, tasks, n_cold, n_rest, &bs, sum, err);
        int n_round = 0;
        while (!rc && !sum->interrupted && !bs.capped && !(rc = plan_round(&x, &state, &round, &n_round, err)) &&
               n_round > 0)
            rc = run_batch(&x, round, n_round, n_rest, &bs, sum, err);
        free(round);
        if (!rc && !sum->interrupted && !bs.capped)
            rc = run_batch(&x, rest, n_rest, 0, &bs, sum, err);
    }
    sum->planned = spec->repeats_auto ? bs.done : n_tasks;
    for (int c = 0; x.cs && c < spec->n_configs; c++) {
        sum->stop_precision += x.cs[c].stopped_by == 1;
        sum->stop_answer += x.cs[c].stopped_by == 2;
    }
    free(bs.took);
    free(bs.n_took);
    /* no run here (all recorded, or none planned): start-up is still measured once */
    double t_side = pm_util_now();
    if (!rc && !opts->dry_run && !x.startup_done && !sum->interrupted)
        rc = measure_startup(&x, sweep_id, sum, err);
    if (rc)
        goto cleanup;
    sum->wall_s = t_side - t0 - x.side_s;
    snprintf(sum->no_report_note, sizeof sum->no_report_note, "%s", x.no_report_note);
    if (x.bctx.versions && json_object_size(x.bctx.versions)) {
        /* The versions the compiles reported join the store's meta table and the sweep's method metadata. */
        json_t *o = json_loads(meta, 0, NULL);
        const char *key;
        json_t *val;
        json_object_foreach(x.bctx.versions, key, val) {
            if ((rc = pm_store_meta_set(x.store, key, json_string_value(val), err)))
                break;
            if (o)
                json_object_set(o, key, val);
        }
        char *updated = o && rc == PM_OK ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(o);
        if (updated)
            rc = pm_store_sweep(x.store, spec->name, spec->backend, spec->text, updated, &sweep_id, err);
        free(updated);
    }
cleanup:
    for (int c = 0; x.fp_text && c < spec->n_configs; c++)
        free(x.fp_text[c]);
    free(x.fp_text);
    free(x.fp_hash);
    pm_tool_set_free(&x.tools);
    pm_stagemap_free(x.stages);
    json_decref(x.bctx.versions);
    free(tasks);
    for (int c = 0; x.cs && c < spec->n_configs; c++)
        json_decref(x.cs[c].prep.params);
    free(x.cs);
    if (x.be && x.be->cleanup)
        x.be->cleanup(&x.bctx);
    free(x.in_shard);
    free(x.shard_of);
    pm_shard_plan_free(&shard_plan);
    free(meta);
    pm_store_close(x.store);
    pm_store_writer_unlock(lock_fd);
    return rc;
}
