/* Section: noise diagnostics per config — coefficient of variation and MAD outliers of the cold wall, the load
 * average at the runs' start, each tool's steps against that tool's own serial baseline (its null-input runs,
 * analysis_startup.c) — and which configs are contended (their shares and fixes are not conclusions). */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "stats.h"

int an_noise(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    double *v = w->tmp;   /* n_runs + n_configs + 16 */
    int *flag = calloc(w->n_runs + 1, sizeof *flag);
    if (!flag)
        return an_nomem(err);
    a->cpus = pm_contention_cpus(a->meta_json);
    /* each config's cold runs in run order, bucketed once (a scan of every run per config was quadratic) */
    size_t *first = calloc(a->n_configs + 2, sizeof *first), *order = calloc(w->n_runs + 1, sizeof *order);
    if (!first || !order) {
        free(first);
        free(order);
        free(flag);
        return an_nomem(err);
    }
    for (size_t i = 0; i < w->n_runs; i++)
        if (w->runs[i].cold)
            first[w->runs[i].cfg + 1]++;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        first[ci + 1] += first[ci];
    for (size_t i = 0, *fill = first; i < w->n_runs; i++)   /* fill[cfg] advances through the bucket */
        if (w->runs[i].cold)
            order[fill[w->runs[i].cfg]++] = i;
    for (size_t ci = a->n_configs; ci > 0; ci--)   /* undo the advance: first[ci] is the bucket start again */
        first[ci] = first[ci - 1];
    first[0] = 0;
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        pm_an_config *c = &a->configs[ci];
        size_t n = 0;
        for (size_t k = first[ci]; k < first[ci + 1]; k++)
            v[n++] = w->runs[order[k]].wall;
        pm_stats_summary sm;
        if (pm_stats_summarize(v, n, &sm) == PM_STATS_OK && sm.mean > 0)
            c->cv = sm.sd / sm.mean;
        /* the evidence from the same means over the mean cold wall, by the constructor pm_contention_load uses */
        double sum = 0;
        for (size_t k = 0; k < n; k++)
            sum += v[k];
        pm_contention_set_runs(&c->contention, c->load1, c->jobs, c->user_wall, c->psi_us, c->psi_cgroup_us,
                               c->steal_ms, n ? sum / (double)n : NAN);
        size_t n_out = 0;
        pm_stats_log_outliers(v, n, flag, &n_out);   /* calibrated limit: stats.h PM_STATS_OUTLIER_LIMIT */
        c->n_outliers = (int)n_out;
        a->noise.n_noisy += (c->cv > 0.10) || n_out > 0;
    }
    free(first);
    free(order);
    /* The fallback level (no serial level for any tool of a config): the sweep's p90 user/wall. */
    for (size_t ci = 0; ci < a->n_configs; ci++)
        v[ci] = a->configs[ci].user_wall;
    a->noise.user_wall_baseline = pm_contention_p90(v, a->n_configs);
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        pm_an_config *c = &a->configs[ci];
        /* compare and passmap fix judge with the same function (contention.h) */
        int on_p90 = 0;
        c->contended = pm_contention_judge(&c->contention, a->cpus, a->noise.user_wall_baseline, &on_p90) != 0;
        a->noise.n_baseline_p90 += on_p90 && c->n_cold > 0;
        a->noise.n_contended += c->contended;
    }
    free(flag);
    return PM_OK;
}

void an_noise_free(pm_analysis *a)
{
    (void)a;   /* counts and a level only */
}
