/* Process start-up: each step's tool started on a null input, outside every timed run, so the report can
 * tell the compiler's work from the cost of starting it. */
#include "sweep_internal.h"

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
int pm_sweep_measure_startup(sweep_ctx *x, int64_t sweep_id, pm_sweep_summary *sum, pm_err *err)
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
    if ((rc = pm_sweep_fmt_path(dir, sizeof dir, err, "%s/startup", x->work)))
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
                if (pm_sweep_past_deadline(x))   /* not measured whole: nothing recorded, measured by a later sweep */
                    goto cleanup;
                char out_path[PATH_MAX + 64], err_path[PATH_MAX + 64];
                snprintf(out_path, sizeof out_path, "%s/%s.stdout", dir, st->tool);
                snprintf(err_path, sizeof err_path, "%s/%s.stderr", dir, st->tool);
                /* as in pm_sweep_run_task: no RLIMIT_AS on passmap's own children */
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
    pm_free_all(argvs, res, rows, missing, note_buf);
    pm_steps_free(&steps);
    if (!x->opts->keep_outputs)
        pm_util_remove_tree(dir);
    return rc;
}

/* One tool's slowdown (metered / native wall) into x->slowdown_json (a tool run by several steps: the largest)
 * and x->slowdown. */
static void slowdown_note(sweep_ctx *x, const char *tool, double native, double metered)
{
    if (!(native > 0 && metered > 0))
        return;
    double f = metered / native;
    json_t *was = json_object_get(x->slowdown_json, tool);
    if (!was || json_number_value(was) < f)
        json_object_set_new(x->slowdown_json, tool, json_real(round(f * 10) / 10));
    x->slowdown = fmax(x->slowdown, f);
}

void pm_sweep_slowdown_from_run(sweep_ctx *x, int c, const pm_steps *steps, const pm_run_result *results, int n_done)
{
    if (c != x->slowdown_config || !x->native_walls || !x->slowdown_json || n_done < steps->n)
        return;
    for (int i = 0; i < steps->n; i++)
        if (results[i].status != PM_RUN_OK)
            return;
    for (int i = 0; i < steps->n && i < x->n_native_walls; i++)
        slowdown_note(x, steps->items[i].tool, x->native_walls[i], results[i].wall_s);
    x->slowdown_config = -1;   /* once */
}

/* The slowing meter's cost (meter.h): config c's steps once natively (the wall meter) and once under the meter,
 * one at a time, outside every timed run. With --jobs the metered half is the config's first run in the pool
 * (pm_sweep_slowdown_from_run), not a serial run of its own: under a count meter that run decides nothing by its
 * wall, and a second metered compile before the pool would cost the sweep one compile's time alone. Per tool,
 * metered wall / native wall into x->slowdown_json, the largest into x->slowdown (the steps' timeouts scale by it;
 * the sweep's metadata and the report's Method say it). A step that fails either way leaves its tool out. */
int pm_sweep_measure_slowdown(sweep_ctx *x, int c, pm_err *err)
{
    const pm_meter *native = pm_meter_find("wall");
    char dir[PATH_MAX];
    pm_steps steps = {0};
    int rc;
    double *walls = NULL;
    x->slowdown_json = json_object();
    if (!x->slowdown_json || !native)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int n_halves = x->jobs > 1 ? 1 : 2;
    for (int m = 0; m < n_halves; m++) {
        const pm_meter *meter = m ? x->meter : native;
        if ((rc = pm_sweep_fmt_path(dir, sizeof dir, err, "%s/meter-slowdown/%s", x->work, meter->name)))
            goto cleanup;
        pm_util_remove_tree(dir);
        if ((rc = pm_util_mkdir_p(dir, err)) ||
            (rc = x->be->steps(&x->bctx, c, x->cs[c].prep.input, dir, &steps, err)))
            goto cleanup;
        if (!walls && !(walls = calloc(2 * (size_t)(steps.n > 0 ? steps.n : 1), sizeof *walls))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        for (int i = 0; i < steps.n && !(x->opts->stop && *x->opts->stop) && !pm_sweep_past_deadline(x); i++) {
            pm_step *st = &steps.items[i];
            pm_run_opts ro = {.timeout_s = pm_meter_timeout(meter, x->spec->timeout_s, 0), .cwd = st->cwd ? st->cwd : dir,
                              .cancel = x->opts->stop};
            pm_run_result r;
            if ((rc = meter->exec((const char *const *)st->argv, &ro, dir, &r, err)))
                goto cleanup;
            walls[2 * i + m] = r.status == PM_RUN_OK ? r.wall_s : -1;
        }
        if (m == 1)
            for (int i = 0; i < steps.n; i++)
                slowdown_note(x, steps.items[i].tool, walls[2 * i], walls[2 * i + 1]);
        if (n_halves == 1) {   /* --jobs: the native walls wait for the config's first metered run */
            free(x->native_walls);
            if (!(x->native_walls = calloc((size_t)(steps.n > 0 ? steps.n : 1), sizeof *x->native_walls))) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
            for (int i = 0; i < steps.n; i++)
                x->native_walls[i] = walls[2 * i];
            x->n_native_walls = steps.n;
            x->slowdown_config = c;
        }
        pm_steps_free(&steps);
        memset(&steps, 0, sizeof steps);
        pm_util_remove_tree(dir);
    }
cleanup:
    pm_steps_free(&steps);
    free(walls);
    if (pm_sweep_fmt_path(dir, sizeof dir, NULL, "%s/meter-slowdown", x->work) == PM_OK)
        pm_util_remove_tree(dir);
    return rc;
}
