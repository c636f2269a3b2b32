/* The plan: which runs are left, in a shuffled order; the adaptive rounds of repeats = auto and their stop;
 * the dry run's text; the ETA from the runs measured so far. */
#include "sweep_internal.h"

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
int pm_sweep_dry_steps_text(sweep_ctx *x, const task *t, char **out, pm_err *err)
{
    const config_state *cs = &x->cs[t->config];
    char dir[PATH_MAX];
    pm_steps steps = {0};
    int rc;
    *out = NULL;
    if ((rc = pm_sweep_fmt_path(dir, sizeof dir, err, "%s/%s-r%d", cs->dir, t->mode, t->repeat)) ||
        (rc = x->be->steps(&x->bctx, t->config, cs->prep.input, dir, &steps, err)))
        return rc;
    if (!strcmp(t->mode, PM_RUN_MODE_PLAIN) && pm_sweep_use_plain_argv(&steps, x->be))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    size_t len = 0, cap = 0;
    char *text = NULL;
    for (int i = 0; i < steps.n && rc == PM_OK; i++) {
        char outcome[PATH_MAX + 64];
        if (!pm_sweep_mode_runs_steps_as_they_are(t->mode) &&
            ((rc = pm_sweep_fmt_path(outcome, sizeof outcome, err, "%s/.cache-outcome-%d", dir, i)) ||
             (rc = pm_sweep_wrap_in_cache(&steps.items[i], x->self, x->cache_dir, outcome))))
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

int pm_sweep_plan(sweep_ctx *x, const char *mode, int repeats, task **tasks, int *n_tasks, int *already, pm_err *err)
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

int pm_sweep_plan_plain_orphans(sweep_ctx *x, int repeats, task **tasks, int *n_tasks, int *already, pm_err *err)
{
    if (!x->spec->timing_pairs)
        return PM_OK;
    /* the plain repeats whose cold twin is already recorded (a sweep stopped between the two) */
    int n0 = *n_tasks, rc = pm_sweep_plan(x, PM_RUN_MODE_PLAIN, repeats, tasks, n_tasks, already, err);
    int keep = n0;
    for (int i = n0; i < *n_tasks && !rc; i++) {
        int paired = 0;
        for (int k = 0; k < n0 && !paired; k++)
            paired = (*tasks)[k].config == (*tasks)[i].config && (*tasks)[k].repeat == (*tasks)[i].repeat &&
                !strcmp((*tasks)[k].mode, PM_RUN_MODE_PLAIN);
        if (!paired)
            (*tasks)[keep++] = (*tasks)[i];
    }
    if (!rc)
        *n_tasks = keep;
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
    pm_decide_add_config(&ev, sm.wall, sm.user, sm.sys, sm.instructions, sm.n);
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
    rc = pm_settle_stage_known(pm_store_db(x->store), x->cs[c].id, x->stages, (size_t)s->min_repeats,
                               (size_t)s->max_repeats, &ss, err);
    if (rc == PM_OK && ss.known) {
        *settled = 1;
        x->cs[c].stopped_by = 2;
    }
    return rc;
}

int pm_sweep_plan_round(sweep_ctx *x, unsigned *state, task **tasks, int *n_tasks, pm_err *err)
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
    if (!rc)
        rc = pm_sweep_pair_plain(x, &t, n_tasks, NULL, err);
    if (rc) {
        free(t);
        *n_tasks = 0;
        return rc;
    }
    free(*tasks);
    *tasks = t;
    return PM_OK;
}

int pm_sweep_eta_mode(const char *mode)
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
    int m = pm_sweep_eta_mode(t->mode);
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
double pm_sweep_eta_left(const batch_state *bs, int n_configs, const task *tasks, int n_tasks, int i, int after)
{
    double left = after * (bs->n_all ? bs->took_all / bs->n_all : 0);
    for (int j = i + 1; j < n_tasks; j++)
        left += eta_task(bs, n_configs, &tasks[j]);
    return left;
}
