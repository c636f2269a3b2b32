/* pm_contention: the one contention rule (see contention.h). */
#include "contention.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "store_query.h"
#include "util.h"

static const char *const METRIC_NAME[PM_CONTENTION_M__COUNT] = {
    [PM_CONTENTION_M_PSI] = "host.psi_cpu_some_us",
    [PM_CONTENTION_M_PSI_CGROUP] = "host.psi_cgroup_cpu_some_us",
    [PM_CONTENTION_M_STEAL] = "host.steal_ms",
};

int pm_contention_metric_of(const char *name)
{
    for (int m = 0; m < PM_CONTENTION_M__COUNT; m++)
        if (name && !strcmp(name, METRIC_NAME[m]))
            return m;
    return -1;
}

void pm_contention_rule_text(char *buf, size_t n, int brief)
{
    if (brief) {
        snprintf(buf, n, "CPU pressure over %.0f%% or steal over %.0f%% of their wall; the load average where no "
                 "pressure was recorded", PM_CONTENTION_PSI_SHARE * 100, PM_CONTENTION_STEAL_SHARE * 100);
        return;
    }
    snprintf(buf, n, "CPU pressure (the cgroup's where recorded, else the system's) over %.0f%% of the runs' wall and "
             "at least %.0f ms, or steal time over %.0f%% of it; where no pressure was recorded, the load average "
             "above the sweep's CPUs, or a tool's steps below %.2fx its serial CPU/wall from its null-input runs "
             "(without those, user/wall below %.2fx the sweep's 90th percentile)", PM_CONTENTION_PSI_SHARE * 100,
             PM_CONTENTION_PSI_FLOOR_S * 1e3, PM_CONTENTION_STEAL_SHARE * 100, PM_CONTENTION_RATIO,
             PM_CONTENTION_RATIO);
}

void pm_contention_init(pm_contention *c)
{
    *c = (pm_contention){.load1 = NAN, .jobs = NAN, .cpu_ratio = NAN, .starved_tool = NULL, .user_wall = NAN, .psi_share = NAN,
                         .steal_share = NAN, .psi_s = NAN};
}

void pm_contention_set_runs(pm_contention *c, double load1, double jobs, double user_wall, double psi_us,
                            double psi_cgroup_us, double steal_ms, double wall_s)
{
    c->load1 = load1 >= 0 ? load1 : NAN;
    c->jobs = jobs > 0 ? jobs : NAN;
    c->user_wall = user_wall >= 0 ? user_wall : NAN;
    c->psi_share = c->psi_s = c->steal_share = NAN;
    if (!(wall_s > 0))
        return;
    /* the cgroup's pressure counts only the waits of its own tasks (the child's): closer to the run than the
     * system's, which counts any task's */
    double psi = psi_cgroup_us >= 0 ? psi_cgroup_us : psi_us;
    c->psi_share = psi >= 0 ? psi * 1e-6 / wall_s : NAN;
    c->psi_s = psi >= 0 ? psi * 1e-6 : NAN;
    c->steal_share = steal_ms >= 0 ? steal_ms * 1e-3 / wall_s : NAN;
}

double pm_contention_serial(const double *v, size_t n, int *busy)
{
    double m = NAN;
    if (n)
        pm_stats_quantile(v, n, 0.5, &m);
    *busy = m < PM_CONTENTION_RATIO;   /* NaN: not busy, and no level either */
    return m;
}

void pm_contention_add_tool(pm_contention *c, const char *tool, double wall_s, double user_s, double sys_s,
                            double serial_cpu_wall, int serial_busy)
{
    if (!(wall_s > 0) || !(serial_cpu_wall > 0) || serial_busy || user_s < 0 || sys_s < 0)
        return;
    double q = (user_s + sys_s) / wall_s / serial_cpu_wall;
    if (isnan(c->cpu_ratio) || q < c->cpu_ratio) {
        c->cpu_ratio = q;
        c->starved_tool = tool;
    }
}

double pm_contention_p90(const double *user_wall, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v), p = NAN;
    size_t k = 0;
    if (!v)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isnan(user_wall[i]))
            v[k++] = user_wall[i];
    if (k >= 3)
        pm_stats_quantile(v, k, 0.9, &p);
    free(v);
    return p;
}

int pm_contention_cpus(const char *meta_json)
{
    json_t *meta = meta_json ? json_loads(meta_json, 0, NULL) : NULL;
    json_t *cpus = meta ? json_object_get(meta, "cpus") : NULL;
    int n = json_is_integer(cpus) ? (int)json_integer_value(cpus) : 0;
    json_decref(meta);
    return n;
}

int pm_contention_judge(const pm_contention *c, int cpus, double p90, int *on_p90)
{
    int why = c->jobs > 1 ? PM_CONTENTION_JOBS : 0;
    if (!isnan(c->steal_share) && c->steal_share > PM_CONTENTION_STEAL_SHARE)
        why |= PM_CONTENTION_STEAL;
    if (!isnan(c->psi_share)) {   /* measured: no guess beside it */
        if (c->psi_share > PM_CONTENTION_PSI_SHARE && !(c->psi_s < PM_CONTENTION_PSI_FLOOR_S))
            why |= PM_CONTENTION_PSI;
        if (on_p90)
            *on_p90 = 0;
        return why;
    }
    if (cpus > 0 && !isnan(c->load1) && c->load1 > cpus)
        why |= PM_CONTENTION_LOAD;
    if (!isnan(c->cpu_ratio)) {
        if (c->cpu_ratio < PM_CONTENTION_RATIO)
            why |= PM_CONTENTION_STARVED;
    } else if (!isnan(p90) && !isnan(c->user_wall) && c->user_wall < PM_CONTENTION_RATIO * p90) {
        why |= PM_CONTENTION_P90;
    }
    if (on_p90)
        *on_p90 = isnan(c->cpu_ratio);
    return why;
}

void pm_contention_text(int why, const pm_contention *c, int cpus, double p90, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
#define ADD(...) \
    do { \
        if (k < n) \
            k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__); \
    } while (0)
    if (why & PM_CONTENTION_LOAD)
        ADD("load %.1f > %d CPUs", c->load1, cpus);
    if (why & PM_CONTENTION_STARVED)
        ADD("%s%s at %.2f of its serial CPU/wall", k ? "; " : "", c->starved_tool ? c->starved_tool : "a tool",
            c->cpu_ratio);
    if (why & PM_CONTENTION_P90)
        ADD("%suser/wall %.2f < 0.75 x the sweep's p90 %.2f", k ? "; " : "", c->user_wall, p90);
    if (why & PM_CONTENTION_PSI)
        ADD("%sCPU pressure %.0f%% of its wall > %.0f%%", k ? "; " : "", c->psi_share * 100,
            PM_CONTENTION_PSI_SHARE * 100);
    if (why & PM_CONTENTION_STEAL)
        ADD("%ssteal %.0f%% of its wall > %.0f%%", k ? "; " : "", c->steal_share * 100,
            PM_CONTENTION_STEAL_SHARE * 100);
    if (why & PM_CONTENTION_JOBS)
        ADD("%s%.0f compiles at once (sweep --jobs)", k ? "; " : "", c->jobs);
#undef ADD
}

/* ---- a sweep of a store ---- */

typedef struct tool_level { const char *tool; double *v; size_t n, cap; double serial; int busy; } tool_level;

/* the measured metrics by their ids (contention.h), then the load average */
enum { PR_PSI = PM_CONTENTION_M_PSI, PR_PSI_CG = PM_CONTENTION_M_PSI_CGROUP, PR_STEAL = PM_CONTENTION_M_STEAL,
       PR_LOAD = PM_CONTENTION_M__COUNT, PR_JOBS, PR_N };

typedef struct load_ctx {
    pm_contention_sweep *s;
    double *u, *uw;               /* per config: user and wall sums of the cold runs with user time */
    double *w, *nw;               /* per config: wall sum and count of the cold runs */
    double *pr;                   /* per config: [PR_N] means of the load and pressure metrics, -1: not recorded */
    tool_level *lv;
    size_t n_lv;
} load_ctx;

static long find_id(const pm_contention_sweep *s, int64_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ids[mid] == id)
            return (long)mid;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int take_config(void *ctx, const pm_sq_config_row *r)
{
    pm_contention_sweep *s = ctx;
    int64_t *ids = realloc(s->ids, (s->n + 1) * sizeof *ids);
    if (!ids)
        return PM_ERR_NOMEM;
    s->ids = ids;
    s->ids[s->n++] = r->id;
    return PM_OK;
}

static int take_run(void *ctx, const pm_sq_run_row *r)
{
    load_ctx *x = ctx;
    long i = find_id(x->s, r->config_id);
    /* the analysis's user/wall: the ok cold runs that recorded user time */
    if (i >= 0 && r->status && !strcmp(r->status, "ok") && r->mode && !strcmp(r->mode, "cold") && r->user_s >= 0) {
        x->u[i] += r->user_s;
        x->uw[i] += r->wall_s;
    }
    if (i >= 0 && r->status && !strcmp(r->status, "ok") && r->mode && !strcmp(r->mode, "cold")) {
        x->w[i] += r->wall_s;
        x->nw[i]++;
    }
    return PM_OK;
}

static int take_metric(void *ctx, const pm_sq_metric_row *r)
{
    load_ctx *x = ctx;
    long i = find_id(x->s, r->config_id);
    if (i < 0)
        return PM_OK;
    int m = pm_contention_metric_of(r->name);
    if (!strcmp(r->name, "host.load1"))
        x->pr[(size_t)i * PR_N + PR_LOAD] = r->mean;
    else if (!strcmp(r->name, "host.jobs"))
        x->pr[(size_t)i * PR_N + PR_JOBS] = r->mean;
    else if (m >= 0)
        x->pr[(size_t)i * PR_N + (size_t)m] = r->mean;
    return PM_OK;
}

static int take_startup(void *ctx, const pm_sq_startup_row *r)
{
    load_ctx *x = ctx;
    if (strcmp(r->status, "ok") || r->wall_s <= 0 || r->user_s < 0 || r->sys_s < 0)
        return PM_OK;
    tool_level *t = x->n_lv ? &x->lv[x->n_lv - 1] : NULL;
    if (!t || strcmp(t->tool, r->tool)) {   /* rows come by tool */
        pm_contention_sweep *s = x->s;
        char **names = realloc(s->tools, (s->n_tools + 1) * sizeof *names);
        if (!names)
            return PM_ERR_NOMEM;
        s->tools = names;
        if (!(names[s->n_tools] = strdup(r->tool)))
            return PM_ERR_NOMEM;
        tool_level *lv = realloc(x->lv, (x->n_lv + 1) * sizeof *lv);
        if (!lv)
            return PM_ERR_NOMEM;
        x->lv = lv;
        t = &lv[x->n_lv++];
        *t = (tool_level){.tool = names[s->n_tools++]};
    }
    double *v = pm_grow(t->v, &t->cap, t->n, sizeof *v, 8);
    if (!v)
        return PM_ERR_NOMEM;
    t->v = v;
    t->v[t->n++] = (r->user_s + r->sys_s) / r->wall_s;
    return PM_OK;
}

static int take_config_tool(void *ctx, const pm_sq_config_tool_row *r)
{
    load_ctx *x = ctx;
    long i = find_id(x->s, r->config_id);
    for (size_t k = 0; i >= 0 && k < x->n_lv; k++)
        if (!strcmp(x->lv[k].tool, r->tool))
            pm_contention_add_tool(&x->s->c[i], x->lv[k].tool, r->wall_s, r->user_s, r->sys_s, x->lv[k].serial,
                                   x->lv[k].busy);
    return PM_OK;
}

int pm_contention_load(sqlite3 *db, const char *sweep, pm_contention_sweep *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    out->p90 = NAN;
    pm_sq_sweeps sw = {0};
    load_ctx x = {.s = out};
    int present = 0, rc = pm_sq_sweeps_find(db, sweep, &sw, err);
    if (rc)
        goto cleanup;
    out->cpus = pm_contention_cpus(sw.meta_json);
    if ((rc = pm_sq_configs(db, &sw, take_config, out, err)))
        goto cleanup;
    if (out->n)   /* qsort wants a non-NULL base even for 0 elements */
        qsort(out->ids, out->n, sizeof *out->ids, cmp_id);
    out->c = malloc((out->n + 1) * sizeof *out->c);
    out->why = calloc(out->n + 1, sizeof *out->why);
    x.u = calloc(out->n + 1, sizeof *x.u);
    x.uw = calloc(out->n + 1, sizeof *x.uw);
    x.w = calloc(out->n + 1, sizeof *x.w);
    x.nw = calloc(out->n + 1, sizeof *x.nw);
    x.pr = malloc((out->n + 1) * PR_N * sizeof *x.pr);
    if (!out->c || !out->why || !x.u || !x.uw || !x.w || !x.nw || !x.pr) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < out->n; i++)
        pm_contention_init(&out->c[i]);
    for (size_t i = 0; i < out->n * PR_N; i++)
        x.pr[i] = -1;
    if ((rc = pm_sq_scope_begin(db, &sw, err)) || (rc = pm_sq_runs(db, &sw, take_run, &x, err)) ||
        (rc = pm_sq_cold_metric_means(db, take_metric, &x, err)) ||
        (rc = pm_sq_startup(db, &sw, take_startup, &x, &present, err)))
        goto cleanup;
    for (size_t k = 0; k < x.n_lv; k++)
        x.lv[k].serial = pm_contention_serial(x.lv[k].v, x.lv[k].n, &x.lv[k].busy);
    if (x.n_lv && (rc = pm_sq_cold_config_tools(db, take_config_tool, &x, err)))
        goto cleanup;
    for (size_t i = 0; i < out->n; i++) {
        const double *pr = &x.pr[i * PR_N];
        pm_contention_set_runs(&out->c[i], pr[PR_LOAD], pr[PR_JOBS], x.uw[i] > 0 ? x.u[i] / x.uw[i] : NAN, pr[PR_PSI],
                               pr[PR_PSI_CG], pr[PR_STEAL], x.nw[i] > 0 ? x.w[i] / x.nw[i] : NAN);
    }
    double *uw = x.u;   /* reused: the configs' user/wall */
    for (size_t i = 0; i < out->n; i++)
        uw[i] = out->c[i].user_wall;
    out->p90 = pm_contention_p90(uw, out->n);
    for (size_t i = 0; i < out->n; i++)
        out->why[i] = pm_contention_judge(&out->c[i], out->cpus, out->p90, NULL);
cleanup:
    pm_sq_scope_end(db);
    pm_sq_sweeps_free(&sw);
    pm_free_all(x.u, x.uw, x.w, x.nw, x.pr);
    for (size_t k = 0; k < x.n_lv; k++)
        free(x.lv[k].v);
    free(x.lv);
    if (rc == PM_ERR_NOMEM)
        pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc)
        pm_contention_sweep_free(out);
    return rc;
}

int pm_contention_of(const pm_contention_sweep *s, int64_t config_id, const pm_contention **c)
{
    long i = find_id(s, config_id);
    if (c)
        *c = i >= 0 ? &s->c[i] : NULL;
    return i >= 0 ? s->why[i] : 0;
}

void pm_contention_sweep_free(pm_contention_sweep *s)
{
    pm_free_all(s->ids, s->c, s->why);
    pm_free_strs(s->tools, s->n_tools);
    memset(s, 0, sizeof *s);
    s->p90 = NAN;
}
