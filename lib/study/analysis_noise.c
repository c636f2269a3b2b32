/* Section: noise diagnostics per config — coefficient of variation and MAD outliers of the cold wall, the load
 * average at the runs' start, each tool's steps against that tool's own serial baseline (its null-input runs,
 * analysis_startup.c) — and which configs are contended (their shares and fixes are not conclusions). */
#include "analysis_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int an_noise(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    double *v = w->tmp;   /* n_runs + n_configs + 16 */
    int *flag = calloc(w->n_runs + 1, sizeof *flag);
    if (!flag)
        return an_nomem(err);
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    json_t *cpus = meta ? json_object_get(meta, "cpus") : NULL;
    a->cpus = json_is_integer(cpus) ? (int)json_integer_value(cpus) : 0;
    json_decref(meta);
    size_t nu = 0;
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
        size_t n_out = 0;
        pm_stats_mad_outliers(v, n, 3.5, flag, &n_out);
        c->n_outliers = (int)n_out;
        a->n_noisy += (c->cv > 0.10) || n_out > 0;
        if (!isnan(c->user_wall))
            nu++;
    }
    free(first);
    free(order);
    /* The uncontended user/wall: what most configs reach (90th percentile over configs). */
    a->user_wall_baseline = NAN;
    nu = 0;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        if (!isnan(a->configs[ci].user_wall))
            v[nu++] = a->configs[ci].user_wall;
    if (nu >= 3)
        pm_stats_quantile(v, nu, 0.9, &a->user_wall_baseline);
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        pm_an_config *c = &a->configs[ci];
        int busy = a->cpus > 0 && !isnan(c->load1) && c->load1 > a->cpus;
        /* A tool's steps below 0.75 of its own serial CPU/wall waited for a CPU. Without a baseline for any of
           its tools (a database older than the start-up runs), the sweep's p90 user/wall stands in for it. */
        int starved;
        if (!isnan(c->cpu_ratio)) {
            starved = c->cpu_ratio < 0.75;
        } else {
            starved = !isnan(a->user_wall_baseline) && !isnan(c->user_wall) &&
                      c->user_wall < 0.75 * a->user_wall_baseline;
            a->n_baseline_p90 += c->n_cold > 0;
        }
        c->contended = busy || starved;
        a->n_contended += c->contended;
    }
    free(flag);
    return PM_OK;
}
