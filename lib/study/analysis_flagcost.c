/* Section: what the timing flags cost (flagcost.c reads it; the report's "timing flags" section shows it). A
 * config whose cold runs have uninstrumented twins is timed by them: its compile wall (the configs table, the
 * headline) is theirs, and its stage and pass seconds are the instrumented reports' shares of that wall. Runs after
 * the stages, the noise and the fits (which judge the instrumented runs themselves) and before the compare-based
 * sections: those read their walls from the store (compare's twin rule), and "between builds" reads the stage
 * seconds scaled here. */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>

static void time_by_twins(pm_analysis *a, const struct pm_flagcost_cfg *t)
{
    for (size_t i = 0; i < a->n_configs; i++) {
        pm_an_config *c = &a->configs[i];
        if (c->id != t->config_id || !t->n || !c->n_cold)
            continue;
        double sum = 0, old = 0;
        for (size_t k = 0; k < a->n_stages; k++)
            old += c->stage_s[k];   /* the shares of the instrumented mean wall: they sum to it */
        for (size_t k = 0; k < t->n; k++)
            sum += t->walls[k];
        double amean = sum / (double)t->n, scale = old > 0 ? amean / old : NAN;
        c->wall = an_time_ci(t->walls, (int)t->n);
        c->wall_untimed = 1;
        for (size_t k = 0; k < a->n_stages && !isnan(scale); k++)
            c->stage_s[k] *= scale;
        for (size_t k = 0; k < c->n_passes && !isnan(scale); k++)   /* the order (heaviest first) holds */
            c->passes[k].mean_s *= scale;
        if (!isnan(scale) && !isnan(c->startup_s)) {
            c->startup_s *= scale;
            c->outside_s *= scale;
        }
        if (c->warm_s > 0)
            c->cache_ratio = c->wall.mean / c->warm_s;
    }
}

int an_flagcost(an_work *w, pm_err *err)
{
    int rc = pm_flagcost_read(w->db, &w->sweeps, &w->a->flagcost, err);
    for (size_t k = 0; !rc && k < w->a->flagcost.n_cfgs; k++)
        time_by_twins(w->a, &w->a->flagcost.cfgs[k]);
    return rc;
}

void an_flagcost_free(pm_analysis *a)
{
    pm_flagcost_free(&a->flagcost);
}
