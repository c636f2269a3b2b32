/* Timing-flag pairs. A spec whose steps name a timing_flag (-ftime-report, -time-passes ...) gets, beside each
 * cold repeat, the same run without the flag: a "plain" run. The flag's timers cost time of their own (clang-22
 * -ftime-report: +44% on a large file, nearly all of it in code generation), so the walls come from the plain
 * runs, the shares from the cold run's report, and the pair's difference is the instrument's own cost (the
 * report's "timing flags" table). The two runs of a pair are adjacent, the plain one first on odd repeats, so a
 * drift in the machine's speed falls on both alike. */
#include "sweep_internal.h"

int pm_sweep_mode_runs_steps_as_they_are(const char *mode)
{
    return !strcmp(mode, "cold") || !strcmp(mode, PM_RUN_MODE_PLAIN);
}

/* 1 when the store has the plain repeat of (config c, repeat r) (any status): resume plans it no more. */
static int plain_recorded(sweep_ctx *x, int c, int r, pm_err *err, int *rc)
{
    if (!x->store || !x->cs[c].id)   /* dry run before the config is recorded */
        return 0;
    unsigned char *have = calloc((size_t)r + 1, 1);
    int max_r = -1, yes = 0;
    if (!have) {
        *rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (!(*rc = pm_store_repeats(x->store, x->cs[c].id, PM_RUN_MODE_PLAIN, have, r + 1, &max_r, err)))
        yes = have[r];
    free(have);
    return yes;
}

int pm_sweep_pair_plain(sweep_ctx *x, task **tasks, int *n_tasks, int *cap, pm_err *err)
{
    if (!x->spec->timing_pairs)
        return PM_OK;
    int n = *n_tasks, n_out = 0, rc = PM_OK;
    task *out = malloc(((size_t)n * 2 + 1) * sizeof *out);
    if (!out)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        task t = (*tasks)[i];
        int twin = !strcmp(t.mode, "cold") && !plain_recorded(x, t.config, t.repeat, err, &rc);
        task p = {.config = t.config, .repeat = t.repeat, .mode = PM_RUN_MODE_PLAIN};
        if (twin && t.repeat % 2)
            out[n_out++] = p;
        out[n_out++] = t;
        if (twin && !(t.repeat % 2))
            out[n_out++] = p;
    }
    if (rc) {
        free(out);
        return rc;
    }
    free(*tasks);
    *tasks = out;
    *n_tasks = n_out;
    if (cap)
        *cap = n * 2 + 1;
    return PM_OK;
}

/* The row's timing option in argv set to its off value ("--log-level LOG_INFO" -> "--log-level LOG_NONE", or
 * "--log-level=LOG_INFO"): 1 when argv had it, 0 when not, -1 out of memory. */
static int option_off(char **argv, const pm_backend_timing_flag *f)
{
    size_t n = strlen(f->option);
    for (int k = 0; argv[k]; k++) {
        char *v = NULL;
        if (!strcmp(argv[k], f->option) && argv[k + 1]) {
            if (!(v = strdup(f->off)))
                return -1;
            free(argv[k + 1]);
            argv[k + 1] = v;
            return 1;
        }
        if (!strncmp(argv[k], f->option, n) && argv[k][n] == '=') {
            if (asprintf(&v, "%s=%s", f->option, f->off) < 0)
                return -1;
            free(argv[k]);
            argv[k] = v;
            return 1;
        }
    }
    return 0;
}

int pm_sweep_use_plain_argv(pm_steps *steps, const pm_backend_ops *be)
{
    for (int i = 0; i < steps->n; i++) {
        pm_step *st = &steps->items[i];
        if (st->plain_argv) {
            pm_argv_free(st->argv);
            st->argv = st->plain_argv;
            st->plain_argv = NULL;
        } else {
            int had = be && be->timing_flag ? option_off(st->argv, be->timing_flag) : 0;
            if (had < 0)
                return PM_ERR_NOMEM;
            if (!had)
                continue;
        }
        /* the step's report is the flag's: without it there is none to wait for */
        free(st->report_path);
        st->report_path = NULL;
        st->report_stream = PM_STREAM_NONE;
    }
    return PM_OK;
}
