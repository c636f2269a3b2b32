/* The sweep engine. Each planned run is (config, mode, repeat). A run compiles its config's input through the
 * back end's steps, each step a fresh process measured by pm_run_exec; reports are parsed and the whole run is
 * stored in one transaction, so an interrupted sweep resumes where it stopped. */
#include "sweep_internal.h"

static void safe_name(const char *key, char *out, size_t cap)
{
    size_t i = 0;
    for (; key[i] && i + 1 < cap; i++)
        out[i] = (key[i] == '/' || key[i] == ' ') ? '_' : key[i];
    out[i] = '\0';
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
        if ((rc = pm_sweep_fmt_path(dir, sizeof dir, err, "%s/warm-r0", x->cs[c].dir)) ||
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

/* The label a sweep of the spec's name recorded before (a resume without --label keeps it), or NULL. */
static char *recorded_label(sweep_ctx *x)
{
    pm_store_sweep_row *rows = NULL;
    size_t n = 0;
    char *label = NULL;
    pm_err ignored = {0};
    if (!x->store || pm_store_list_sweeps(x->store, &rows, &n, &ignored) != PM_OK)
        return NULL;
    for (size_t i = 0; i < n && !label; i++) {
        json_t *m = strcmp(rows[i].name, x->spec->name) || !rows[i].meta_json ? NULL : json_loads(rows[i].meta_json, 0, NULL);
        const char *l = json_string_value(json_object_get(m, "label"));
        label = l ? strdup(l) : NULL;
        json_decref(m);
    }
    pm_store_sweep_rows_free(rows, n);
    return label;
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
    /* each cold repeat has an uninstrumented twin (sweep_pair.c): sweep --status counts them as planned */
    if (x->spec->timing_pairs)
        json_object_set_new(o, "timing_twins", json_true());
    if (x->spec->repeats_auto) {
        json_object_set_new(o, "repeats", json_string("auto"));
        json_object_set_new(o, "min_repeats", json_integer(x->spec->min_repeats));
        json_object_set_new(o, "max_repeats", json_integer(x->spec->max_repeats));
        json_object_set_new(o, "precision", json_real(x->spec->precision));
    } else {
        json_object_set_new(o, "repeats", json_integer(x->spec->repeats));
    }
    json_object_set_new(o, "timeout_s", json_real(x->spec->timeout_s));
    char *kept = x->opts->label ? NULL : recorded_label(x);
    if (x->opts->label || kept)
        json_object_set_new(o, "label", json_string(x->opts->label ? x->opts->label : kept));
    free(kept);
    /* how the steps were measured: what decides (a count) and whether a wall is the compile's (meter.h) */
    json_object_set_new(o, "meter", json_string(x->meter->name));
    json_object_set_new(o, "meter_counts", json_boolean(x->meter->counts));
    json_object_set_new(o, "meter_slows", json_boolean(x->meter->slows));
    json_object_set_new(o, "mem_limit_bytes", json_integer((json_int_t)x->spec->mem_limit));
    json_object_set_new(o, "cold", json_string("each repeat is a fresh process per step; no compiler cache; "
                                               "inputs regenerated per config; OS file cache not dropped"));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

/* Task i of a batch: run (or, dry, planned), counted, and reported through progress. Called with the pool's
 * lock held when compiles run in parallel (pm_sweep_run_task lets it go while a step runs). An interruption sets
 * sum->interrupted and returns PM_OK. */
static int batch_one(sweep_ctx *x, const task *tasks, int n_tasks, int i, int after, batch_state *bs,
                     pm_sweep_summary *sum, pm_pgroup_recorder *rec, pm_err *err)
{
    const pm_sweep_opts *opts = x->opts;
    const char *status = "planned";
    double wall = 0;
    if (!opts->dry_run) {
        /* Nothing but the measured runs before the first of them: start-up's null runs come after the first
         * run, a config's probes (a compile each) after its own first run, both between runs and never
         * beside one, so no measured run shares a core with them (sweep.c runs one process at a time; with
         * --jobs start-up comes before the pool starts). */
        config_state *cs = &x->cs[tasks[i].config];
        double t_side = pm_util_now();
        int rc = PM_OK;
        if (bs->n_all && !x->startup_done && (rc = pm_sweep_measure_startup(x, x->sweep_id, sum, err)))
            return rc;
        if (sum->interrupted)
            return PM_OK;
        double t_start = pm_util_now();
        x->side_s += t_start - t_side;
        if ((rc = pm_sweep_run_task(x, &tasks[i], rec, &status, &wall, err)))
            return rc;
        double took = pm_util_now() - t_start;
        bs->took_all += took;
        bs->n_all++;
        if (bs->took) {
            size_t k = (size_t)tasks[i].config * ETA_MODES + (size_t)pm_sweep_eta_mode(tasks[i].mode);
            bs->took[k] += took;
            bs->n_took[k]++;
        }
        if (!strcmp(status, "interrupted")) {
            sum->interrupted = 1;
            return PM_OK;
        }
        if (!strcmp(status, TASK_AT_DEADLINE)) {   /* cut short between its steps: nothing recorded */
            bs->capped = sum->deadline_hit = 1;
            return PM_OK;
        }
        /* the config's probes, once: what they measure joins the runs recorded so far and every later one */
        if (!cs->probed && x->be->probe_config && !pm_sweep_past_deadline(x)) {
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
    int rc = opts->dry_run && opts->progress ? pm_sweep_dry_steps_text(x, &tasks[i], &steps_text, err) : PM_OK;
    if (rc)
        return rc;
    if (opts->progress) {
        double el = pm_util_now() - bs->t0;
        int left = n_tasks - i - 1 + after;
        /* N compiles at once finish the rest in about 1/N of the time */
        pm_sweep_progress p = {.done = bs->done, .total = bs->done + left, .already_done = bs->already,
                               .failed = sum->failed, .elapsed_s = el,
                               .eta_s = opts->dry_run ? el / bs->done * left
                                        : pm_sweep_eta_left(bs, x->spec->n_configs, tasks, n_tasks, i, after) /
                                          (x->jobs > 1 ? x->jobs : 1),
                               .config_key = x->spec->configs[tasks[i].config].key, .mode = tasks[i].mode,
                               .repeat = tasks[i].repeat, .status = status, .wall_s = wall,
                               .steps_text = steps_text};
        opts->progress(opts->progress_user, &p);
    }
    free(steps_text);
    return PM_OK;
}

/* Whether the batch stops before its next task: interrupted, --max-runs reached (running: tasks in flight), or the
 * caller's deadline passed (opts.deadline: passmap fix's budget). */
static int batch_stops(sweep_ctx *x, batch_state *bs, pm_sweep_summary *sum, int running)
{
    if (x->opts->stop && *x->opts->stop)
        sum->interrupted = 1;
    else if (x->opts->max_runs > 0 && bs->done + running >= x->opts->max_runs)
        bs->capped = 1;
    else if (pm_sweep_past_deadline(x))
        bs->capped = sum->deadline_hit = 1;
    return sum->interrupted || bs->capped;
}

/* The pool of --jobs workers: each takes the next task under the lock and runs it with batch_one. */
typedef struct job_pool {
    sweep_ctx *x;
    const task *tasks;
    int n_tasks, after, next, running, rc;
    batch_state *bs;
    pm_sweep_summary *sum;
    pthread_mutex_t lock;
    pm_err err;
} job_pool;

typedef struct job_worker {
    job_pool *p;
    pm_pgroup_recorder rec;   /* each worker's step group on record in a file of its own */
    pthread_t thread;
} job_worker;

static void *job_main(void *arg)
{
    job_worker *w = arg;
    job_pool *p = w->p;
    pthread_mutex_lock(&p->lock);
    while (!p->rc && p->next < p->n_tasks && !batch_stops(p->x, p->bs, p->sum, p->running)) {
        int i = p->next++;
        pm_err e = {0};
        p->running++;
        int rc = batch_one(p->x, p->tasks, p->n_tasks, i, p->after, p->bs, p->sum, &w->rec, &e);
        p->running--;
        if (rc && !p->rc) {
            p->rc = rc;
            p->err = e;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Tasks [from, n_tasks) by x->jobs workers at once. */
static int run_pool(sweep_ctx *x, const task *tasks, int from, int n_tasks, int after, batch_state *bs,
                    pm_sweep_summary *sum, pm_err *err)
{
    job_pool p = {.x = x, .tasks = tasks, .n_tasks = n_tasks, .after = after, .next = from, .bs = bs, .sum = sum};
    job_worker *w = calloc((size_t)x->jobs, sizeof *w);
    int started = 0, rc = PM_OK;
    if (!w)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&p.lock, NULL);
    x->lock = &p.lock;
    for (int j = 0; j < x->jobs && rc == PM_OK; j++) {
        w[j].p = &p;
        if ((rc = pm_pgroup_recorder_init_job(&w[j].rec, x->opts->db_path, j + 1, err)) == PM_OK) {
            if (pthread_create(&w[j].thread, NULL, job_main, &w[j]))
                rc = pm_err_errno(err, PM_ERR_NOMEM, "cannot start job %d of %d", j + 1, x->jobs);
            else
                started++;
        }
    }
    if (rc != PM_OK) {   /* no new task is taken; the ones in flight finish */
        pthread_mutex_lock(&p.lock);
        p.rc = p.rc ? p.rc : rc;
        pthread_mutex_unlock(&p.lock);
    }
    for (int j = 0; j < started; j++)
        pthread_join(w[j].thread, NULL);
    x->lock = NULL;
    pthread_mutex_destroy(&p.lock);
    free(w);
    if (p.rc && rc == PM_OK) {
        *err = p.err;
        rc = p.rc;
    }
    return rc;
}

/* Runs one batch of tasks. Progress counts what is left: this batch's remaining runs plus `after` runs known
 * to follow (adaptive rounds add to it as they are planned). With --jobs N, start-up alone, then N at once. */
static int run_batch(sweep_ctx *x, const task *tasks, int n_tasks, int after, batch_state *bs, pm_sweep_summary *sum,
                     pm_err *err)
{
    /* With --jobs (a count decides) start-up is measured first, alone, and every run goes to the pool: a
     * count does not depend on which run came first, and a first run alone would cost the sweep a compile's
     * time on one core. */
    if (x->jobs > 1 && !x->opts->dry_run) {
        int rc = x->startup_done ? PM_OK : pm_sweep_measure_startup(x, x->sweep_id, sum, err);
        return rc || sum->interrupted ? rc : run_pool(x, tasks, 0, n_tasks, after, bs, sum, err);
    }
    for (int i = 0; i < n_tasks; i++) {
        if (batch_stops(x, bs, sum, 0))
            break;
        int rc = batch_one(x, tasks, n_tasks, i, after, bs, sum, &x->pgrec, err);
        if (rc)
            return rc;
        if (sum->interrupted)
            break;
    }
    return PM_OK;
}

/* Dry run: the planned runs' expected time from the mean ok cold run the store holds for the spec's configs, scaled
 * by the meter's slowdown when the store's runs were measured without it. */
static int expected_time(sweep_ctx *x, pm_sweep_summary *sum, pm_err *err)
{
    double total = 0;
    size_t n = 0;
    int rc = PM_OK;
    for (int c = 0; c < x->spec->n_configs && rc == PM_OK; c++) {
        pm_sq_samples sm;
        if (!x->in_shard[c] || x->cs[c].id <= 0 || (rc = pm_sq_cold_samples(pm_store_db(x->store), x->cs[c].id, &sm, err)))
            continue;
        for (size_t i = 0; i < sm.n; i++)
            total += sm.wall[i], n++;
        pm_sq_samples_free(&sm);
    }
    if (rc != PM_OK || !n)
        return rc;
    pm_store_sweep_row *rows = NULL;
    size_t nr = 0;
    int slowed = 0;
    if ((rc = pm_store_list_sweeps(x->store, &rows, &nr, err)))
        return rc;
    for (size_t i = 0; i < nr; i++) {
        json_t *m = strcmp(rows[i].name, x->spec->name) || !rows[i].meta_json ? NULL : json_loads(rows[i].meta_json, 0, NULL);
        const pm_meter *was = pm_meter_find(json_string_value(json_object_get(m, "meter")));
        slowed |= was && was->slows;
        const char *tool;
        json_t *f;
        double most = 0;
        json_object_foreach(json_object_get(m, "meter_slowdown"), tool, f)   /* measured when it ran */
            most = fmax(most, json_number_value(f));
        if (was == x->meter && most > 1)
            sum->meter_slowdown = most;
        json_decref(m);
    }
    pm_store_sweep_rows_free(rows, nr);
    sum->expected_s = total / (double)n * sum->planned / x->jobs * (x->meter->slows && !slowed ? sum->meter_slowdown : 1);
    return PM_OK;
}

/* One sweep's state, shared by its phases: setup, open the store, the configs, plan, run, summary. */
typedef struct sweep_run {
    sweep_ctx x;
    const pm_spec *spec;
    const pm_sweep_opts *opts;
    pm_sweep_summary *sum;
    pm_shard_plan shard_plan;
    task *tasks;
    int n_tasks, already, lock_fd, warm;
    int64_t sweep_id;
    char *meta;
    double t0, t_side;   /* the sweep's start and its side measurements' start: the wall left for the runs */
} sweep_run;

/* The shard's configs, passmap's own path, the work folder, the meter and the back end; the writer's lock
 * and what a killed sweep left running. */
static int sweep_setup(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    const pm_sweep_opts *opts = s->opts;
    pm_sweep_summary *sum = s->sum;
    int rc = PM_OK;
    if ((rc = opts->plan_path ? pm_shard_plan_read(opts->plan_path, spec, opts->shard.n, &s->shard_plan, err)
                              : pm_shard_plan_make(spec, opts->shard.n, opts->costs_db, PM_COST_AUTO, &s->shard_plan, err)))
        return rc;
    memcpy(x->shard_of, s->shard_plan.shard_of, (size_t)spec->n_configs * sizeof *x->shard_of);
    for (int c = 0; c < spec->n_configs; c++)
        x->in_shard[c] = !opts->shard.n || x->shard_of[c] == opts->shard.k;
    for (int c = 0; c < spec->n_configs; c++)
        sum->configs += x->in_shard[c];

    if (opts->self_exe) {
        if (snprintf(x->self, sizeof x->self, "%s", opts->self_exe) >= (int)sizeof x->self) {
            rc = pm_err_set(err, PM_ERR_USAGE, "passmap's path is longer than %zu bytes", sizeof x->self - 1);
            return rc;
        }
    } else if (!realpath("/proc/self/exe", x->self)) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot find passmap's own executable");
        return rc;
    }
    /* the run folders live here: a cut path would put them somewhere else */
    if ((opts->work_dir ? snprintf(x->work, sizeof x->work, "%s", opts->work_dir)
                        : snprintf(x->work, sizeof x->work, "%s.runs", opts->db_path)) >= (int)sizeof x->work) {
        rc = pm_err_set(err, PM_ERR_USAGE, "work folder path longer than %zu bytes: %.80s...", sizeof x->work - 1,
                        opts->work_dir ? opts->work_dir : opts->db_path);
        return rc;
    }
    if (!x->be) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no back end '%s' (%s)", spec->backend, pm_backend_names());
        return rc;
    }
    if ((rc = pm_meter_resolve(opts->meter ? opts->meter : spec->meter[0] ? spec->meter : NULL, &x->meter, err)))
        return rc;
    x->jobs = opts->jobs > 1 ? opts->jobs : 1;
    x->slowdown_config = -1;
    snprintf(sum->meter, sizeof sum->meter, "%s", x->meter->name);
    sum->meter_slowdown = x->meter->slowdown_guess;
    sum->expected_s = -1;
    if ((rc = pm_meter_check_jobs(x->meter, x->jobs, err)))
        return rc;
    x->bctx = (pm_backend_ctx){.spec = spec, .self_exe = x->self, .cache_dir = x->cache_dir, .cancel = opts->stop};
    if (opts->dry_run) {
        /* nothing is created: the paths shown are where a real sweep would put things */
        char cwd[PATH_MAX], rel[PATH_MAX];
        memcpy(rel, x->work, sizeof rel);
        if (rel[0] != '/' && getcwd(cwd, sizeof cwd) && (rc = pm_sweep_fmt_path(x->work, sizeof x->work, err, "%s/%s", cwd, rel)))
            return rc;
    } else {
        if ((rc = pm_util_mkdir_p(x->work, err)))
            return rc;
        /* Steps run with the run folder as cwd: every path handed to them must be absolute. */
        char abs[PATH_MAX];
        if (!realpath(x->work, abs)) {
            rc = pm_err_errno(err, PM_ERR_IO, "cannot resolve %s", x->work);
            return rc;
        }
        memcpy(x->work, abs, sizeof abs);
    }
    if (x->be->prepare && (rc = x->be->prepare(&x->bctx, err)))
        return rc;
    if (!(x->bctx.versions = json_object())) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        return rc;
    }
    /* One sweep writes a database at a time; merge refuses a database while it is held. */
    if (!opts->dry_run && (rc = pm_store_writer_lock(opts->db_path, "sweep", &s->lock_fd, err)))
        return rc;
    /* A killed sweep's steps may have left processes running (backgrounded by a step, so PDEATHSIG missed
     * them): they would write into the run folders reused below and compete with the runs measured. */
    if (!opts->dry_run && ((rc = pm_pgroup_recorder_init(&x->pgrec, opts->db_path, err)) ||
                           (rc = pm_pgroup_reap(opts->db_path, opts->notice, opts->notice_user, err))))
        return rc;
    if ((rc = pm_sweep_fmt_path(x->cache_dir, sizeof x->cache_dir, err, "%s/cache", x->work)))
        return rc;
    return rc;
}

/* The store, the configs' fingerprints and contract, the sweep's row and the host's (a dry run only reads an
 * existing store). */
static int sweep_open(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    const pm_sweep_opts *opts = s->opts;
    int rc = PM_OK;
    if (opts->dry_run) {
        /* an existing database is read (runs already recorded are left out of the plan), never written */
        if (access(opts->db_path, F_OK) == 0 && (rc = pm_store_open_readonly(opts->db_path, &x->store, err)))
            return rc;
        return rc;
    }
    if ((rc = pm_store_open(opts->db_path, &x->store, err)) ||
        (opts->shard.n && (rc = pm_shard_plan_record(x->store, spec->name, &s->shard_plan, err))))
        return rc;
    if ((rc = pm_sweep_fingerprint_configs(x, err)) || (rc = pm_sweep_check_contract(x, err)) || (rc = pm_sweep_check_meter(x, err)))
        return rc;
    s->meta = sweep_meta(x);
    if ((rc = pm_store_sweep(x->store, spec->name, spec->backend, spec->text, s->meta, &s->sweep_id, err)))
        return rc;
    x->sweep_id = s->sweep_id;
    {
        pm_host host;
        char compiler[256];
        /* the compiler as the back end describes it (sweep metadata): "MLIR/LLVM 22.1.8", "openvino NPU" */
        json_t *m = s->meta ? json_loads(s->meta, 0, NULL) : NULL;
        const char *name = json_string_value(json_object_get(m, "compiler"));
        const char *ver = json_string_value(json_object_get(m, "compiler_version"));
        const char *dev = json_string_value(json_object_get(m, "device"));
        char digest[64];
        pm_sweep_tools_digest(&x->tools, digest, sizeof digest);
        snprintf(compiler, sizeof compiler, "%s%s%s%s%s", name ? name : spec->backend, ver || dev ? " " : "", ver ? ver : dev ? dev : "",
                 digest[0] ? ", " : "", digest);
        json_decref(m);
        if ((rc = pm_host_probe(&host, err)))
            return rc;
        pm_host_set_compiler(&host, compiler);
        if ((rc = pm_store_host(x->store, &host, &x->host_id, err)) ||
            (rc = pm_store_record_tools(x->store, s->sweep_id, x->host_id, x->tools.items, x->n_tools_used, err)))
            return rc;
    }
    return rc;
}

/* Each config of the shard: its run folder, the back end's preparation, its row and its share of the plan. */
static int sweep_configs(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    const pm_sweep_opts *opts = s->opts;
    pm_sweep_summary *sum = s->sum;
    int rc = PM_OK;
    if (!(x->cs = calloc((size_t)spec->n_configs, sizeof *x->cs))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        return rc;
    }
    /* a back end with its own warm path measures it with every cold run: no passmap-cache runs beside it */
    s->warm = (opts->warm >= 0 ? opts->warm : spec->warm) && !x->be->own_warm_path;
    x->warm = s->warm;
    for (int c = 0; c < spec->n_configs; c++) {
        const pm_spec_config *cfg = &spec->configs[c];
        config_state *cs = &x->cs[c];
        char safe[PM_SPEC_KEY_MAX];
        if (!x->in_shard[c])
            continue;
        safe_name(cfg->key, safe, sizeof safe);
        if ((rc = pm_sweep_fmt_path(cs->dir, sizeof cs->dir, err, "%s/%s", x->work, safe)))
            return rc;
        if (opts->dry_run) {
            if (x->store && (rc = pm_store_config_find(x->store, spec->name, cfg->key, &cs->id, err)))
                return rc;
            continue;
        }
        if ((rc = pm_util_mkdir_p(cs->dir, err)))
            return rc;
        if (opts->stop && *opts->stop) {   /* preparing (generators, probes) can take minutes: stop here too */
            sum->interrupted = 1;
            return rc;
        }
        if (x->be->prepare_config && (rc = x->be->prepare_config(&x->bctx, c, cs->dir, &cs->prep, err)))
            return rc;
        char *params = cs->prep.params ? json_dumps(cs->prep.params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        pm_config pc = {.key = cfg->key, .kind = cfg->kind, .workload = pm_spec_workload(cfg),
                        .variant = cfg->variant[0] ? cfg->variant : NULL, .params_json = params,
                        .params = cfg->params, .n_params = cfg->n_params};
        rc = pm_store_config(x->store, s->sweep_id, &pc, &cs->id, err);
        free(params);
        if (rc || (rc = pm_store_config_set_fingerprint(x->store, cs->id, x->fp_hash[c], x->fp_text[c], err)))
            return rc;
    }
    /* The whole plan, every shard's configs (1/1 when not sharded): `passmap status` compares it with what is
     * recorded, so a shard that never ran, or a merged store missing one, shows as work left. With repeats =
     * auto a config owes up to max_repeats until the stopping rule settles it (pm_sweep_plan_round records that). */
    x->sweep_id = s->sweep_id;
    for (int c = 0; c < spec->n_configs && !opts->dry_run; c++)
        if ((rc = pm_store_shard_plan(x->store, s->sweep_id, opts->shard.n ? x->shard_of[c] : 1,
                                      opts->shard.n ? opts->shard.n : 1, spec->configs[c].key,
                                      spec->repeats_auto ? spec->max_repeats : spec->repeats, s->warm ? 1 : 0,
                                      s->warm ? spec->warm_repeats : 0, err)))
            return rc;
    if (s->warm && !opts->dry_run && (rc = name_uncacheable(x, err)))
        return rc;
    return rc;
}

/* The tasks owed: cold runs, then a cache miss and warm runs; a slowing meter's cost measured once. */
static int sweep_plan(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    const pm_sweep_opts *opts = s->opts;
    pm_sweep_summary *sum = s->sum;
    int rc = PM_OK;
    if (opts->notice && pm_run_mem_limit_clamp(spec->mem_limit) != spec->mem_limit) {
        char line[256];
        snprintf(line, sizeof line, "mem_limit %.2f GiB is above the address-space limit this process inherited "
                 "(hard RLIMIT_AS %.2f GiB): compiler steps run under the inherited limit",
                 (double)spec->mem_limit / (1 << 30), (double)pm_run_mem_limit_clamp(spec->mem_limit) / (1 << 30));
        opts->notice(opts->notice_user, line);
    }
    if ((rc = pm_sweep_plan(x, "cold", spec->repeats, &s->tasks, &s->n_tasks, &s->already, err)) ||
        (rc = pm_sweep_pair_plain(x, &s->tasks, &s->n_tasks, &x->cap_tasks, err)) ||
        (rc = pm_sweep_plan_plain_orphans(x, spec->repeats, &s->tasks, &s->n_tasks, &s->already, err)))
        return rc;
    if (s->warm) {
        /* One miss fills the cache (recorded as "cache-miss": the cache's own overhead), then timed hits. */
        if ((rc = pm_sweep_plan(x, "cache-miss", 1, &s->tasks, &s->n_tasks, &s->already, err)) ||
            (rc = pm_sweep_plan(x, "warm", spec->warm_repeats, &s->tasks, &s->n_tasks, &s->already, err)))
            return rc;
    }
    if (opts->max_runs > 0 && s->n_tasks > opts->max_runs) {   /* the rest is said, for the next invocation */
        sum->left = spec->repeats_auto ? 0 : s->n_tasks - opts->max_runs;   /* auto: the rounds decide, no count */
        s->n_tasks = opts->max_runs;
    }
    sum->already_done = s->already;
    /* a slowing meter's cost against a native run, per tool, on the first planned config (timeouts, Method) */
    if (x->meter->slows && !opts->dry_run && s->n_tasks > 0) {
        json_t *o = s->meta ? json_loads(s->meta, 0, NULL) : NULL;
        char *updated = NULL;
        /* cut short by the deadline: not stored (no run starts after it either) */
        if (!(rc = pm_sweep_measure_slowdown(x, s->tasks[0].config, err)) && o && !pm_sweep_past_deadline(x) &&
            json_object_size(x->slowdown_json)) {   /* --jobs: stored by sweep_summary, from the pool's run */
            json_object_set(o, "meter_slowdown", x->slowdown_json);
            if ((updated = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS))) {
                free(s->meta);
                s->meta = updated;
                rc = pm_store_sweep(x->store, spec->name, spec->backend, spec->text, s->meta, &s->sweep_id, err);
            }
        }
        json_decref(o);
        if (rc)
            return rc;
    }
    return rc;
}

/* The tasks in batches (rounds until each config settles with repeats = auto), then start-up measured once. */
static int sweep_execute(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    const pm_sweep_opts *opts = s->opts;
    pm_sweep_summary *sum = s->sum;
    int rc = PM_OK;
    s->t0 = pm_util_now();
    batch_state bs = {.t0 = s->t0, .already = s->already};
    bs.took = calloc((size_t)(spec->n_configs ? spec->n_configs : 1) * ETA_MODES, sizeof *bs.took);
    bs.n_took = calloc((size_t)(spec->n_configs ? spec->n_configs : 1) * ETA_MODES, sizeof *bs.n_took);
    if (!bs.took || !bs.n_took) {   /* the ETA falls back to the plain average; the sweep goes on */
        free(bs.took);
        free(bs.n_took);
        bs.took = NULL;
        bs.n_took = NULL;
    }
    if (!spec->repeats_auto || opts->dry_run) {
        rc = run_batch(x, s->tasks, s->n_tasks, 0, &bs, sum, err);
    } else {
        /* The answer test maps passes to stages as the report does (the data dir's maps); without them the
         * configs stop on the deciding metric's precision alone, and the summary says so. */
        pm_err map_err = {0};
        if (spec->stop_on_precision) {
            snprintf(sum->stop_note, sizeof sum->stop_note, "stop = precision");
        } else if (!(x->stages = pm_stagemap_new()) || pm_stagemap_load_default(x->stages, &map_err)) {
            snprintf(sum->stop_note, sizeof sum->stop_note, "no stage map (%.120s)",
                     x->stages ? map_err.msg : "out of memory");
            pm_stagemap_free(x->stages);
            x->stages = NULL;
        }
        /* The first round(s) up to min_repeats, then rounds of the configs not settled, then the warm runs. */
        int n_cold = 0;
        while (n_cold < s->n_tasks && pm_sweep_mode_runs_steps_as_they_are(s->tasks[n_cold].mode))
            n_cold++;
        int n_rest = s->n_tasks - n_cold;
        task *rest = s->tasks + n_cold, *round = NULL;
        unsigned state = spec->seed ? spec->seed + 7919 : 7919;
        rc = run_batch(x, s->tasks, n_cold, n_rest, &bs, sum, err);
        int n_round = 0;
        while (!rc && !sum->interrupted && !bs.capped && !(rc = pm_sweep_plan_round(x, &state, &round, &n_round, err)) &&
               n_round > 0)
            rc = run_batch(x, round, n_round, n_rest, &bs, sum, err);
        free(round);
        if (!rc && !sum->interrupted && !bs.capped)
            rc = run_batch(x, rest, n_rest, 0, &bs, sum, err);
    }
    sum->planned = spec->repeats_auto ? bs.done : s->n_tasks;
    if (x->slowdown > 0)
        sum->meter_slowdown = x->slowdown;
    if (opts->dry_run && x->store && !rc)
        rc = expected_time(x, sum, err);
    for (int c = 0; x->cs && c < spec->n_configs; c++) {
        sum->stop_precision += x->cs[c].stopped_by == 1;
        sum->stop_answer += x->cs[c].stopped_by == 2;
    }
    free(bs.took);
    free(bs.n_took);
    /* no run here (all recorded, or none planned): start-up is still measured once */
    s->t_side = pm_util_now();
    if (!rc && !opts->dry_run && !x->startup_done && !sum->interrupted && !sum->deadline_hit)
        rc = pm_sweep_measure_startup(x, s->sweep_id, sum, err);
    if (rc)
        return rc;
    return rc;
}

/* The summary's last figures, and the versions the compiles reported into the store's metadata. */
static int sweep_summary(sweep_run *s, pm_err *err)
{
    sweep_ctx *x = &s->x;
    const pm_spec *spec = s->spec;
    pm_sweep_summary *sum = s->sum;
    int rc = PM_OK;
    sum->wall_s = s->t_side - s->t0 - x->side_s;
    snprintf(sum->no_report_note, sizeof sum->no_report_note, "%s", x->no_report_note);
    /* with --jobs the slowdown came from the pool's first run of its config, after the plan stored the meta */
    int late_slowdown = x->jobs > 1 && x->slowdown_json && json_object_size(x->slowdown_json);
    if ((x->bctx.versions && json_object_size(x->bctx.versions)) || late_slowdown) {
        /* The versions the compiles reported join the store's meta table and the sweep's method metadata. */
        json_t *o = json_loads(s->meta, 0, NULL);
        const char *key;
        json_t *val;
        json_object_foreach(x->bctx.versions, key, val) {
            if ((rc = pm_store_meta_set(x->store, key, json_string_value(val), err)))
                break;
            if (o)
                json_object_set(o, key, val);
        }
        if (o && late_slowdown)
            json_object_set(o, "meter_slowdown", x->slowdown_json);
        char *updated = o && rc == PM_OK ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(o);
        if (updated)
            rc = pm_store_sweep(x->store, spec->name, spec->backend, spec->text, updated, &s->sweep_id, err);
        free(updated);
    }
    return rc;
}

int pm_sweep_run(const pm_spec *spec, const pm_sweep_opts *opts, pm_sweep_summary *sum, pm_err *err)
{
    sweep_run run = {.x = {.spec = spec, .opts = opts, .be = pm_backend_find(spec->backend)},
                     .spec = spec, .opts = opts, .sum = sum, .lock_fd = -1};
    sweep_run *s = &run;
    sweep_ctx *x = &s->x;
    int rc = PM_OK;
    memset(sum, 0, sizeof *sum);
    if (!(x->in_shard = calloc((size_t)(spec->n_configs > 0 ? spec->n_configs : 1), sizeof *x->in_shard)) ||
        !(x->shard_of = calloc((size_t)(spec->n_configs > 0 ? spec->n_configs : 1), sizeof *x->shard_of))) {
        free(x->in_shard);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    /* the phases in order: the first that fails, or an interruption while preparing, ends the sweep */
    if (!(rc = sweep_setup(s, err)) && !(rc = sweep_open(s, err)) && !(rc = sweep_configs(s, err)) &&
        !sum->interrupted && !(rc = sweep_plan(s, err)) && !(rc = sweep_execute(s, err)))
        rc = sweep_summary(s, err);
    for (int c = 0; x->fp_text && c < spec->n_configs; c++)
        free(x->fp_text[c]);
    free(x->fp_text);
    free(x->fp_hash);
    pm_tool_set_free(&x->tools);
    json_decref(x->slowdown_json);
    free(x->native_walls);
    pm_stagemap_free(x->stages);
    json_decref(x->bctx.versions);
    free(s->tasks);
    for (int c = 0; x->cs && c < spec->n_configs; c++)
        json_decref(x->cs[c].prep.params);
    free(x->cs);
    if (x->be && x->be->cleanup)
        x->be->cleanup(&x->bctx);
    free(x->in_shard);
    free(x->shard_of);
    pm_shard_plan_free(&s->shard_plan);
    free(s->meta);
    pm_store_close(x->store);
    pm_store_writer_unlock(s->lock_fd);
    return rc;
}
