/* Section: stage shares per run and the per-config summaries (cold wall, shares, passes, cache ratio). */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cold run whose phase split can be of CPU time: a serial tool (user <= 1.1 x wall: a parallel one's user
 * time is no share of its wall) whose counted passes all report user time. */
static int run_on_cpu(const run_row *r)
{
    return r->cold && r->user > 0 && r->user <= 1.1 * r->wall && r->pass_sum > 0 &&
           fabs(r->pass_user_wall - r->pass_sum) <= 1e-6 + 1e-4 * r->pass_sum;
}

/* The config's phase split of user CPU time (pm_an_config.phase_cpu), over its cold runs [from, to) of order,
 * when every one is run_on_cpu; tmp has room for them. */
static void phase_cpu(an_work *w, pm_an_config *c, size_t from, size_t to, const size_t *order, double *tmp)
{
    pm_analysis *a = w->a;
    const run_row *runs = w->runs;
    size_t NS = a->n_stages;
    int all = c->n_cold > 0;
    for (size_t q = from; all && q < to; q++)
        all = !runs[order[q]].cold || run_on_cpu(&runs[order[q]]);
    c->phase_on_cpu = all;
    for (size_t ph = 0; ph < a->n_phases; ph++) {
        if (!all) {
            c->phase_cpu[ph] = (pm_ci){NAN, NAN, NAN, 0};
            continue;
        }
        int n = 0;
        for (size_t q = from; q < to; q++) {
            const run_row *r = &runs[order[q]];
            if (!r->cold)
                continue;
            double over = r->user - r->pass_user > 0 ? r->user - r->pass_user : 0, sum = 0;
            for (size_t s = 0; s < NS; s++)
                sum += a->stage_phase[s] == (int)ph ? w->run_stage_u[order[q] * NS + s] : 0;
            sum += a->stage_phase[w->st_over] == (int)ph ? over : 0;
            tmp[n++] = r->pass_user + over > 0 ? sum / (r->pass_user + over) : 0;
        }
        c->phase_cpu[ph] = an_share_ci(tmp, n);
    }
}

/* Each run's stage seconds as shares of its wall (run_stage, in place; overhead in st_over), and its start-up
 * share (run_su; NAN: unknown). */
static void run_shares(an_work *w, double *run_stage, double *run_su)
{
    const run_row *runs = w->runs;
    size_t NS = w->a->n_stages;
    int st_over = w->st_over;
    for (size_t i = 0; i < w->n_runs; i++) {
        double *rs = &run_stage[i * NS];
        double over = runs[i].wall - runs[i].pass_sum;
        rs[st_over] = over > 0 ? over : 0;
        /* Threaded pass timers can sum past the process wall: normalise by the larger of the two. */
        double denom = runs[i].pass_sum + rs[st_over];
        /* process-overhead = start-up + outside passes: start-up is what the run's steps pay to start (the tools'
           median null-run walls), at most the run's overhead; the rest is time outside passes. */
        double su = w->cfg_startup ? w->cfg_startup[runs[i].cfg] : NAN;
        run_su[i] = isnan(su) ? NAN : denom > 0 ? (su < rs[st_over] ? su : rs[st_over]) / denom : 0;
        for (size_t s = 0; s < NS; s++)
            rs[s] = denom > 0 ? rs[s] / denom : 0;
    }
}

/* The runs of each config, in id order (a counting sort): config ci's are order[first[ci] .. first[ci + 1]). The
 * loops below visit only their own runs instead of every run per config and stage, which made the analysis
 * quadratic in the store's size. -1: out of memory. */
static int runs_by_config(const an_work *w, size_t **first_out, size_t **order_out)
{
    const run_row *runs = w->runs;
    size_t n_runs = w->n_runs, NC = w->a->n_configs;
    size_t *first = calloc(NC + 2, sizeof *first), *order = calloc(n_runs + 1, sizeof *order);
    size_t *fill = calloc(NC + 1, sizeof *fill);
    *first_out = first;
    *order_out = order;
    if (!first || !order || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < n_runs; i++)
        first[runs[i].cfg + 1]++;
    for (size_t ci = 0; ci < NC; ci++)
        first[ci + 1] += first[ci];
    for (size_t i = 0; i < n_runs; i++)
        order[first[runs[i].cfg] + fill[runs[i].cfg]++] = i;
    free(fill);
    return 0;
}

/* A config's runs, as runs_by_config orders them, and the per-run shares. */
typedef struct cfg_runs {
    const size_t *order;
    size_t from, to;
    const double *run_stage, *run_su;
    double *tmp;
} cfg_runs;

/* The config's cold wall, its stage and phase shares with their intervals, its dominant phase; returns the
 * arithmetic mean cold wall (shares and seconds per stage are parts of a sum: they use it). */
static double config_shares(an_work *w, pm_an_config *c, const cfg_runs *cr)
{
    pm_analysis *a = w->a;
    const run_row *runs = w->runs;
    const size_t *order = cr->order;
    size_t NS = a->n_stages;
    double *tmp = cr->tmp;
    int n = 0;
    double wall_sum = 0;
    for (size_t q = cr->from; q < cr->to; q++)
        if (runs[order[q]].cold)
            wall_sum += tmp[n++] = runs[order[q]].wall;
    c->wall = an_time_ci(tmp, n);
    double wall_amean = n ? wall_sum / n : 0;
    for (size_t s = 0; s < NS; s++) {
        n = 0;
        for (size_t q = cr->from; q < cr->to; q++)
            if (runs[order[q]].cold)
                tmp[n++] = cr->run_stage[order[q] * NS + s];
        c->share[s] = an_share_ci(tmp, n);
        if (n == 0)
            c->share[s].mean = 0;
        c->stage_s[s] = c->share[s].mean * wall_amean;
    }
    /* phases: each run's stage shares summed by phase, then the interval over the runs, as for a stage */
    for (size_t ph = 0; ph < a->n_phases; ph++) {
        n = 0;
        for (size_t q = cr->from; q < cr->to; q++) {
            if (!runs[order[q]].cold)
                continue;
            double sum = 0;
            for (size_t s = 0; s < NS; s++)
                sum += a->stage_phase[s] == (int)ph ? cr->run_stage[order[q] * NS + s] : 0;
            tmp[n++] = sum;
        }
        c->phase_share[ph] = an_share_ci(tmp, n);
        if (n == 0)
            c->phase_share[ph].mean = 0;
    }
    phase_cpu(w, c, cr->from, cr->to, order, tmp);
    c->dominant_phase = -1;   /* on the basis the split is shown on: CPU where it can be */
    const pm_ci *split = c->phase_on_cpu ? c->phase_cpu : c->phase_share;
    for (size_t ph = 0; c->n_cold && ph < a->n_phases; ph++)
        if (c->dominant_phase < 0 || split[ph].mean > split[c->dominant_phase].mean)
            c->dominant_phase = (int)ph;
    return wall_amean;
}

/* The overhead's two parts (start-up, outside passes), the user/wall ratio, the warm wall and cache ratio, the
 * dominant stage. */
static void config_overhead_warm(an_work *w, pm_an_config *c, const cfg_runs *cr, double wall_amean)
{
    pm_analysis *a = w->a;
    const run_row *runs = w->runs;
    const size_t *order = cr->order;
    double su = 0;
    int nsu = 0, known = 1;
    for (size_t q = cr->from; q < cr->to; q++)
        if (runs[order[q]].cold) {
            known &= !isnan(cr->run_su[order[q]]);
            su += cr->run_su[order[q]];
            nsu++;
        }
    if (nsu && known) {   /* the two parts are means over the same runs: they sum to the overhead share */
        c->startup_share = su / nsu;
        c->outside_share = c->share[w->st_over].mean - c->startup_share;
        if (c->outside_share < 0)   /* rounding only: each run's start-up is at most its overhead */
            c->outside_share = 0;
        c->startup_s = c->startup_share * wall_amean;
        c->outside_s = c->outside_share * wall_amean;
    }
    double u = 0, uwall = 0, ws = 0;
    int nw = 0;
    for (size_t q = cr->from; q < cr->to; q++) {
        size_t i = order[q];
        if (runs[i].cold && runs[i].user >= 0) {
            u += runs[i].user;
            uwall += runs[i].wall;
        }
        if (!runs[i].cold) {
            ws += log(runs[i].wall > 0 ? runs[i].wall : 1e-9);
            nw++;
        }
    }
    if (uwall > 0)
        c->user_wall = u / uwall;
    if (nw) {
        c->warm_s = exp(ws / nw);   /* geometric mean, like the cold wall */
        if (c->warm_s > 0 && c->n_cold)
            c->cache_ratio = c->wall.mean / c->warm_s;
    }
    if (c->n_cold) {
        int best = 0;
        for (size_t s = 1; s < a->n_stages; s++)
            if (c->share[s].mean > c->share[best].mean)
                best = (int)s;
        c->dominant_stage = best;
    }
}

/* The config's passes, heaviest first. A config's sums of a pass are read where the load left them,
 * [pass][config]: a copy transposed to [config][pass] cost three arrays of passes x configs (90 MB at 15,000
 * configs) and a cache miss per value, while walking the configs in order reads each pass's row forward.
 * -1: out of memory. */
static int config_passes(an_work *w, pm_an_config *c, size_t ci, double wall_amean)
{
    struct pm_an_priv *pv = w->pv;
    size_t NP = pv->n_pids, NC = w->a->n_configs;   /* NP: distinct (tool, pass) */
    const double *pid_s = w->pid_cfg_s, *pid_u = w->pid_cfg_u, *pid_uw = w->pid_cfg_uw;   /* uw: wall where user
                                                                                             * known */
#define CFG_PASS(arr, ci, p) ((arr)[(p) * NC + (ci)])
    size_t np = 0;
    for (size_t p = 0; p < NP; p++)
        np += CFG_PASS(pid_s, ci, p) > 0;
    c->passes = calloc(np + 1, sizeof *c->passes);
    if (!c->passes)
        return -1;
    /* Same denominator as the stage shares: threaded timers can sum past the process wall. */
    double pass_sum = 0;
    for (size_t p = 0; p < NP; p++)
        if (CFG_PASS(pid_s, ci, p) > 0)
            pass_sum += CFG_PASS(pid_s, ci, p) / c->n_cold;
    double denom = wall_amean > pass_sum ? wall_amean : pass_sum;
    for (size_t p = 0; p < NP; p++) {
        double s = CFG_PASS(pid_s, ci, p);
        if (s <= 0)
            continue;
        pm_an_pass *ps = &c->passes[c->n_passes++];
        ps->tool = pv->pids[p].tool;
        ps->name = pv->pids[p].name;
        ps->stage = pv->pids[p].stage;
        ps->id = (int)p;
        ps->mean_s = s / c->n_cold;
        ps->share = denom > 0 ? ps->mean_s / denom : NAN;
        double uw = CFG_PASS(pid_uw, ci, p);
        ps->user_wall = uw > 0 ? CFG_PASS(pid_u, ci, p) / uw : NAN;
    }
#undef CFG_PASS
    qsort(c->passes, c->n_passes, sizeof *c->passes, an_cmp_pass);
    return 0;
}

int an_stages(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    size_t n_runs = w->n_runs, NS = a->n_stages;
    /* Per (run, stage) sums, summed while the rows were read (analysis_load.c): taken over here */
    double *run_stage = w->run_stage;   /* [run][stage] seconds */
    double *stage_u = w->stage_u, *stage_uw = w->stage_uw;
    w->run_stage = w->stage_u = w->stage_uw = NULL;
    double *tmp = w->tmp = calloc(n_runs + a->n_configs + 16, sizeof *tmp);
    double *run_su = calloc(n_runs + 1, sizeof *run_su);   /* start-up share of each run's wall; NAN: unknown */
    size_t *first = NULL, *order = NULL;
    if (!run_su || !run_stage || !stage_u || !stage_uw || !tmp)
        AN_NOMEM();
    /* Overhead and shares per run; per config mean + CI over cold repeats. */
    run_shares(w, run_stage, run_su);
    if (runs_by_config(w, &first, &order))
        AN_NOMEM();
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        pm_an_config *c = &a->configs[ci];
        cfg_runs cr = {order, first[ci], first[ci + 1], run_stage, run_su, tmp};
        double wall_amean = config_shares(w, c, &cr);
        config_overhead_warm(w, c, &cr, wall_amean);
        if (c->n_cold > a->summary.max_repeats)
            a->summary.max_repeats = c->n_cold;
        if (config_passes(w, c, ci, wall_amean))
            AN_NOMEM();
    }
    a->parallelism.stage_user_wall = calloc(NS, sizeof *a->parallelism.stage_user_wall);
    if (!a->parallelism.stage_user_wall)
        AN_NOMEM();
    for (size_t s = 0; s < NS; s++)
        a->parallelism.stage_user_wall[s] = stage_uw[s] > 0 ? stage_u[s] / stage_uw[s] : NAN;
cleanup:
    pm_free_all(first, order, run_su, run_stage, stage_u, stage_uw);
    return rc;
}

void an_stages_free(pm_analysis *a)
{
    free(a->parallelism.stage_user_wall);
}
