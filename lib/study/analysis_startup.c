/* Section: process start-up. The sweep starts each tool it runs on a null input a few times, once per sweep and
 * machine (sweep.c, measure_startup). A tool's median null-run wall is the start-up each of its steps pays: it
 * splits process-overhead into start-up and time outside passes (analysis_stages.c). Its median CPU/wall
 * ((user+sys)/wall) is the tool's own serial level, against which a config's steps of that tool are judged
 * contended (analysis_noise.c). CPU, not user alone: a null run spends a third of its time in the kernel
 * (exec, page faults), so its user/wall is no serial level for a compile, while its CPU/wall is ~1 alone. */
#include "analysis_internal.h"
#include "contention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct su_ctx {
    pm_analysis *a;
    double *wall, *user, *sys, *ratio;   /* the current tool's ok runs */
    size_t n, cap;
} su_ctx;

static double median_of(double *v, size_t n)
{
    return n ? an_median(v, n) : NAN;
}

/* Closes the current tool: medians over its ok runs. */
static void su_finish(su_ctx *x)
{
    if (!x->a->overhead.n)
        return;
    pm_an_startup *t = &x->a->overhead.rows[x->a->overhead.n - 1];
    t->wall_s = median_of(x->wall, x->n);
    t->user_s = median_of(x->user, x->n);
    t->sys_s = median_of(x->sys, x->n);
    t->cpu_wall = pm_contention_serial(x->ratio, x->n, &t->contended);   /* the rule compare uses too */
    x->a->overhead.contended |= t->contended;
    x->n = 0;
}

static int take_startup(void *ctx, const pm_sq_startup_row *r)
{
    su_ctx *x = ctx;
    pm_analysis *a = x->a;
    pm_an_startup *t = a->overhead.n ? &a->overhead.rows[a->overhead.n - 1] : NULL;
    if (!t || strcmp(t->tool, r->tool)) {   /* rows come by tool */
        su_finish(x);
        pm_an_startup *g = realloc(a->overhead.rows, (a->overhead.n + 1) * sizeof *g);
        if (!g)
            return PM_ERR_NOMEM;
        a->overhead.rows = g;
        t = &g[a->overhead.n++];
        memset(t, 0, sizeof *t);
        t->wall_s = t->user_s = t->sys_s = t->cpu_wall = NAN;
        if (!(t->tool = strdup(r->tool)))
            return PM_ERR_NOMEM;
    }
    if (!strcmp(r->status, "not-measured")) {
        if (!t->note && r->note && !(t->note = strdup(r->note)))
            return PM_ERR_NOMEM;
        return PM_OK;
    }
    if (strcmp(r->status, "ok") || r->wall_s <= 0 || r->user_s < 0 || r->sys_s < 0) {
        t->n_failed++;
        return PM_OK;
    }
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        double *w = realloc(x->wall, cap * sizeof *w);
        if (w) x->wall = w;
        double *u = w ? realloc(x->user, cap * sizeof *u) : NULL;
        if (u) x->user = u;
        double *s = u ? realloc(x->sys, cap * sizeof *s) : NULL;
        if (s) x->sys = s;
        double *q = s ? realloc(x->ratio, cap * sizeof *q) : NULL;
        if (q) x->ratio = q;
        if (!q)
            return PM_ERR_NOMEM;
        x->cap = cap;
    }
    x->wall[x->n] = r->wall_s;
    x->user[x->n] = r->user_s;
    x->sys[x->n] = r->sys_s;
    x->ratio[x->n++] = (r->user_s + r->sys_s) / r->wall_s;
    t->n_ok++;
    a->overhead.measured = 1;
    return PM_OK;
}

static const pm_an_startup *find_tool(const pm_analysis *a, const char *tool)
{
    for (size_t i = 0; i < a->overhead.n; i++)
        if (!strcmp(a->overhead.rows[i].tool, tool))
            return a->overhead.rows[i].n_ok ? &a->overhead.rows[i] : NULL;
    return NULL;
}

static int take_config_tool(void *ctx, const pm_sq_config_tool_row *r)
{
    an_work *w = ctx;
    pm_analysis *a = w->a;
    int ci = an_find_cfg(a, r->config_id);
    const pm_an_startup *t = ci >= 0 ? find_tool(a, r->tool) : NULL;
    if (!t)
        return PM_OK;
    pm_an_config *c = &a->configs[ci];
    if (c->n_cold > 0) {
        if (isnan(w->cfg_startup[ci]))
            w->cfg_startup[ci] = 0;
        w->cfg_startup[ci] += t->wall_s * r->n_steps / c->n_cold;   /* start-up x steps of that tool per run */
    }
    pm_contention_add_tool(&c->contention, t->tool, r->wall_s, r->user_s, r->sys_s, t->cpu_wall, t->contended);
    return PM_OK;
}

int an_startup(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    su_ctx x = {.a = a};
    if (!(w->cfg_startup = malloc((a->n_configs + 1) * sizeof *w->cfg_startup)))
        return an_nomem(err);
    for (size_t i = 0; i < a->n_configs; i++) {
        pm_an_config *c = &a->configs[i];
        w->cfg_startup[i] = NAN;
        c->startup_share = c->outside_share = c->startup_s = c->outside_s = NAN;
    }
    int rc = pm_sq_startup(w->db, &w->sweeps, take_startup, &x, &a->overhead.table, err);
    if (!rc)
        su_finish(&x);
    pm_free_all(x.wall, x.user, x.sys, x.ratio);
    if (!rc && a->overhead.measured)
        rc = pm_sq_cold_config_tools(w->db, take_config_tool, w, err);
    return rc == PM_ERR_NOMEM ? an_nomem(err) : rc;
}

void an_startup_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->overhead.n; i++)
        pm_free_all(a->overhead.rows[i].tool, a->overhead.rows[i].note);
    free(a->overhead.rows);
}
