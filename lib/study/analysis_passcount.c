/* Section: per-pass instruction counts (the callgrind meter, docs/meters.md), beside per-pass wall. Per config
 * with counted runs: each pass's mean count and wall over its ok cold runs, the stage shares by count and by wall
 * of the same report rows, and the dominant stage by each. Counts never replace the wall: both are shown, and
 * whether the two dominant stages agree is said. The SQL is the store's (store_passcount.c). */
#include "analysis_internal.h"
#include "store_passcount.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The stage of (tool, pass) as the analysis summed it for config c, else the stage map's, else -1 */
static int pass_stage(an_work *w, const pm_an_config *c, const char *tool, const char *name)
{
    for (size_t i = 0; i < c->n_passes; i++)
        if (!strcmp(c->passes[i].tool, tool) && !strcmp(c->passes[i].name, name))
            return c->passes[i].stage;
    const char *stage = w->opts->map ? pm_stagemap_match(w->opts->map, tool, name) : NULL;
    for (size_t s = 0; stage && s < w->a->n_stages; s++)
        if (!strcmp(w->a->stages[s], stage))
            return (int)s;
    return -1;
}

static int argmax(const double *v, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0 && (best < 0 || v[i] > v[best]))
            best = (int)i;
    return best;
}

/* One config's rows from the store into r (names in the analysis's pool). */
static int fill_config(an_work *w, size_t ci, const pm_config_passcounts *st, pm_an_passcount_config *r, pm_err *err)
{
    pm_analysis *a = w->a;
    const pm_an_config *c = &a->configs[ci];
    r->config = ci;
    r->n_runs = st->n_runs;
    r->process = st->process / st->n_runs;
    r->passes = calloc(st->n ? st->n : 1, sizeof *r->passes);
    r->stage_count = calloc(a->n_stages ? a->n_stages : 1, sizeof *r->stage_count);
    r->stage_wall = calloc(a->n_stages ? a->n_stages : 1, sizeof *r->stage_wall);
    if (!r->passes || !r->stage_count || !r->stage_wall)
        return an_nomem(err);
    for (size_t i = 0; i < st->n; i++) {
        const pm_stored_passcount *s = &st->rows[i];
        pm_an_passcount_pass *p = &r->passes[r->n_passes++];
        p->tool = an_pool_add(&w->pv->pool, s->tool ? s->tool : "");
        p->name = an_pool_add(&w->pv->pool, s->pass ? s->pass : "");
        p->why = s->why ? an_pool_add(&w->pv->pool, s->why) : NULL;
        if (!p->tool || !p->name || (s->why && !p->why))
            return an_nomem(err);
        p->instructions = s->instructions;
        p->wall_s = s->wall_s;
        p->by_timer = s->by_timer;
        p->stage = pass_stage(w, c, p->tool, p->name);
        r->wall += p->wall_s;
        if (p->instructions >= 0) {
            r->counted += p->instructions;
            r->wall_counted += p->wall_s;
        }
        if (p->stage >= 0) {
            r->stage_wall[p->stage] += p->wall_s;
            if (p->instructions >= 0)
                r->stage_count[p->stage] += p->instructions;
        }
    }
    for (size_t s = 0; s < a->n_stages; s++) {
        r->stage_count[s] = r->counted > 0 ? r->stage_count[s] / r->counted : NAN;
        r->stage_wall[s] = r->wall > 0 ? r->stage_wall[s] / r->wall : NAN;
    }
    r->dominant_count = argmax(r->stage_count, a->n_stages);
    r->dominant_wall = argmax(r->stage_wall, a->n_stages);
    return PM_OK;
}

int an_passcount(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    pm_an_passcount *pc = &a->passcount;
    int rc = PM_OK;
    for (size_t ci = 0; ci < a->n_configs && rc == PM_OK; ci++) {
        pm_config_passcounts st;
        if ((rc = pm_store_config_passcounts(w->db, a->configs[ci].id, &st, err)) != PM_OK)
            break;
        if (st.n_runs > 0) {
            pm_an_passcount_config *g = realloc(pc->rows, (pc->n + 1) * sizeof *g);
            if (!g) {
                rc = an_nomem(err);
            } else {
                pc->rows = g;
                memset(&pc->rows[pc->n], 0, sizeof *g);
                rc = fill_config(w, ci, &st, &pc->rows[pc->n++], err);
                if (rc == PM_OK && pc->rows[pc->n - 1].dominant_count == pc->rows[pc->n - 1].dominant_wall)
                    pc->n_agree++;
            }
        }
        pm_config_passcounts_free(&st);
    }
    return rc;
}

void an_passcount_free(pm_analysis *a)
{
    pm_an_passcount *pc = &a->passcount;
    for (size_t i = 0; i < pc->n; i++)
        pm_free_all(pc->rows[i].passes, pc->rows[i].stage_count, pc->rows[i].stage_wall);
    free(pc->rows);
    memset(pc, 0, sizeof *pc);
}
