/* Small helpers every part of passmap fix uses (below fix.c and the files it drives). */
#include "fix_internal.h"

void pm_fix_note(fix_ctx *x, const char *fmt, ...)
{
    if (!x->o->note)
        return;
    va_list ap;
    va_start(ap, fmt);
    pm_util_vnotify(x->o->note, x->o->user, fmt, ap);
    va_end(ap);
}

double pm_fix_elapsed(const fix_ctx *x)
{
    return pm_util_now() - x->t0;
}

int pm_fix_past_deadline(fix_ctx *x)
{
    if (x->budget_s > 0 && pm_fix_elapsed(x) >= x->budget_s)
        x->budget_hit = 1;
    return x->budget_s > 0 && pm_fix_elapsed(x) >= x->budget_s;
}

void pm_fix_budget_ended(job *jb)
{
    if (jb->repeats > 0 && jb->m.n_configs > 0) {
        jb->verdict = PM_FIX_UNDECIDED_BUDGET;
        jb->note = "the budget ended its rounds before it was decided: the ratio, interval and runs so far";
        if (isnan(jb->m.ratio)) {   /* no config decided: what the runs so far say, not a summary by the rule */
            jb->m.ratio = jb->seen_ratio;
            jb->m.lo = jb->seen_lo;
            jb->m.hi = jb->seen_hi;
        }
    } else {
        jb->verdict = PM_FIX_NOT_RUN;
        jb->note = "budget spent before it was decided";
    }
}

int pm_fix_is_fix_sweep(const char *name)
{
    size_t n = strlen(name), k = strlen(FIX_SWEEP_SUFFIX);
    return n > k && !strcmp(name + n - k, FIX_SWEEP_SUFFIX);
}

/* A study config is a stock config: no fix token in its variant. */
int pm_fix_is_stock(const char *variant)
{
    return !variant || !*variant || !strcmp(variant, "stock");
}

job *pm_fix_new_job(fix_ctx *x, const char *a, const char *b, const size_t *cfg, size_t n, long fix, pm_err *err)
{
    job *nj = realloc(x->jobs, (x->n_jobs + 1) * sizeof *nj);
    if (!nj) {
        pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    x->jobs = nj;
    job *jb = &x->jobs[x->n_jobs];
    memset(jb, 0, sizeof *jb);
    snprintf(jb->a, sizeof jb->a, "%s", a);
    snprintf(jb->b, sizeof jb->b, "%s", b);
    jb->fix = fix;
    jb->m.ratio = jb->m.lo = jb->m.hi = NAN;
    if (n && !(jb->cfg = malloc(n * sizeof *jb->cfg))) {
        pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (n)
        memcpy(jb->cfg, cfg, n * sizeof *cfg);
    jb->n_cfg = n;
    x->n_jobs++;
    return jb;
}
