/* The adaptive stop's answer test (see settle.h). */
#include "settle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "store_query.h"
#include "util.h"

typedef struct cell { size_t run, stage; double wall_s; } cell;

typedef struct collect {
    const pm_stagemap *map;
    const char **stages;     /* distinct stage names met, index = stage; [0] is process-overhead */
    size_t n_stages, cap_stages;
    cell *cells;
    size_t n_cells, cap_cells;
    double *run_wall;
    size_t n_runs, cap_runs;
    int64_t last_run;
    int oom;
} collect;

static long stage_index(collect *c, const char *stage)
{
    for (size_t i = 0; i < c->n_stages; i++)
        if (!strcmp(c->stages[i], stage))
            return (long)i;
    const char **v = pm_grow(c->stages, &c->cap_stages, c->n_stages, sizeof *v, 16);
    if (!v)
        return -1;
    c->stages = v;
    c->stages[c->n_stages] = stage;
    return (long)c->n_stages++;
}

static int on_row(void *ctx, const pm_sq_run_pass_row *r)
{
    collect *c = ctx;
    if (c->n_runs == 0 || r->run_id != c->last_run) {
        double *v = pm_grow(c->run_wall, &c->cap_runs, c->n_runs, sizeof *v, 16);
        if (!v)
            goto oom;
        c->run_wall = v;
        c->run_wall[c->n_runs++] = r->run_wall_s;
        c->last_run = r->run_id;
    }
    long s = stage_index(c, pm_stagemap_match(c->map, r->tool, r->name));
    if (s < 0)
        goto oom;
    cell *v = pm_grow(c->cells, &c->cap_cells, c->n_cells, sizeof *v, 256);
    if (!v)
        goto oom;
    c->cells = v;
    c->cells[c->n_cells++] = (cell){c->n_runs - 1, (size_t)s, r->wall_s > 0 ? r->wall_s : 0};
    return PM_OK;
oom:
    c->oom = 1;
    return PM_ERR_NOMEM;
}

double pm_settle_alpha(size_t min_n, size_t max_n)
{
    size_t first = min_n > PM_STATS_MIN_INTERVAL_N ? min_n : PM_STATS_MIN_INTERVAL_N;
    size_t looks = max_n > first ? max_n - first : 1;
    return 0.05 / (double)looks;
}

int pm_settle_lead(const double *share, size_t n, size_t ns, size_t min_n, size_t max_n, pm_settle_stage *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->second = ns;
    out->diff_mean = out->diff_lo = NAN;
    if (n == 0 || ns == 0)
        return 0;
    double *diff = calloc(n, sizeof *diff);
    if (!diff)
        return PM_STATS_NOMEM;
    size_t lead = 0, second = ns;
    double mean[2] = {0, 0};
    for (size_t s = 0; s < ns; s++) {
        double m = 0;
        for (size_t r = 0; r < n; r++)
            m += share[r * ns + s];
        m /= (double)n;
        if (s == 0 || m > mean[0]) {
            if (s > 0) {
                second = lead;
                mean[1] = mean[0];
            }
            lead = s;
            mean[0] = m;
        } else if (second == ns || m > mean[1]) {
            second = s;
            mean[1] = m;
        }
    }
    out->lead = lead;
    out->second = second;
    for (size_t r = 0; r < n; r++)
        diff[r] = share[r * ns + lead] - (second < ns ? share[r * ns + second] : 0);
    pm_stats_summary sm;
    pm_stats_summarize(diff, n, &sm);
    out->diff_mean = sm.mean;
    /* the lower end of the two-sided interval at the level a look may spend (pm_settle_alpha) */
    out->diff_lo = n >= 2 ? sm.mean - pm_stats_t_crit((double)(n - 1), 1 - pm_settle_alpha(min_n, max_n)) * sm.sd /
                                          sqrt((double)n)
                          : NAN;
    out->known = n >= (min_n > PM_STATS_MIN_INTERVAL_N ? min_n : PM_STATS_MIN_INTERVAL_N) && out->diff_lo > 0;
    free(diff);
    return 0;
}

int pm_settle_stage_known(sqlite3 *db, int64_t config_id, const pm_stagemap *map, size_t min_n, size_t max_n,
                          pm_settle_stage *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    collect c = {.map = map};
    double *share = NULL;
    int rc = stage_index(&c, PM_STAGE_OVERHEAD) < 0 ? PM_ERR_NOMEM : PM_OK;
    if (!rc)
        rc = pm_sq_cold_run_passes(db, config_id, on_row, &c, err);
    if (c.oom || rc == PM_ERR_NOMEM) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (rc)
        goto cleanup;
    size_t n = c.n_runs, ns = c.n_stages;
    out->n = n;
    if (n == 0)
        goto cleanup;
    share = calloc(n * ns, sizeof *share);
    if (!share) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < c.n_cells; i++)
        share[c.cells[i].run * ns + c.cells[i].stage] += c.cells[i].wall_s;
    for (size_t r = 0; r < n; r++) {   /* as analysis_stages.c: overhead = wall - passes, normalised */
        double *row = &share[r * ns], passes = 0;
        for (size_t s = 1; s < ns; s++)
            passes += row[s];
        double over = c.run_wall[r] - passes;
        row[0] = over > 0 ? over : 0;
        double denom = passes + row[0];
        for (size_t s = 0; s < ns; s++)
            row[s] = denom > 0 ? row[s] / denom : 0;
    }
    if (pm_settle_lead(share, n, ns, min_n, max_n, out)) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    snprintf(out->dominant, sizeof out->dominant, "%s", c.stages[out->lead]);
    if (out->second < ns)
        snprintf(out->runner_up, sizeof out->runner_up, "%s", c.stages[out->second]);
cleanup:
    pm_free_all(share, c.stages, c.cells, c.run_wall);
    return rc;
}
