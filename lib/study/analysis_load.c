/* Section: what the analysis reads from the store — the stages, the sweeps' configs, their runs and the sums of
 * their counted pass rows (from the writers' aggregates, schema 8, when every scoped run has them and their
 * stages agree with this report's map; else from the rows) — and the stages this sweep actually hits. */
#include "analysis_internal.h"
#include "run.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stages: the map's order, then overhead and unmapped. */
static int load_stages(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    const pm_stagemap *map = w->opts->map;
    size_t nms = map ? pm_stagemap_n_stages(map) : 0;
    if (!(a->stages = calloc(nms + 2, sizeof *a->stages)))
        return an_nomem(err);
    for (size_t i = 0; i < nms; i++) {
        const char *s = pm_stagemap_stage(map, i);
        /* copied: the analysis outlives the map */
        if (strcmp(s, PM_STAGE_OVERHEAD) && strcmp(s, PM_STAGE_OTHER) &&
            !(a->stages[a->n_stages++] = an_pool_add(&w->pv->pool, s)))
            return an_nomem(err);
    }
    w->st_over = (int)a->n_stages;
    w->st_other = w->st_over + 1;
    a->stages[a->n_stages++] = PM_STAGE_OVERHEAD;
    a->stages[a->n_stages++] = PM_STAGE_OTHER;
    return PM_OK;
}

static int add_config(void *ctx, const pm_sq_config_row *r)
{
    an_work *w = ctx;
    pm_analysis *a = w->a;
    pm_an_config *p = pm_grow(a->configs, &w->cap_configs, a->n_configs, sizeof *p, 64);
    if (!p)
        return PM_ERR_NOMEM;
    a->configs = p;
    pm_an_config *c = &a->configs[a->n_configs++];
    memset(c, 0, sizeof *c);
    c->id = r->id;
    if (pm_cfg_set(&c->cfg, r->key, r->kind, r->variant))
        return PM_ERR_NOMEM;
    if (pm_workload_copy(&c->workload, &r->workload))
        return PM_ERR_NOMEM;
    c->size_num = pm_an_size_value(c->workload.size);
    c->share = calloc(a->n_stages, sizeof *c->share);
    c->stage_s = calloc(a->n_stages, sizeof *c->stage_s);
    c->dominant_stage = -1;
    c->wall = (pm_ci){NAN, NAN, NAN, 0};
    c->user_wall = c->warm_s = c->cache_ratio = NAN;
    c->ir_ops = c->llvm_ops = c->npu_tasks = c->npu_tiles = NAN;
    c->cv = c->load1 = c->jobs = NAN;
    c->psi_us = c->psi_cgroup_us = c->steal_ms = -1;
    pm_contention_init(&c->contention);
    return !c->key || !c->share || !c->stage_s ? PM_ERR_NOMEM : PM_OK;
}

static int add_param(void *ctx, const pm_sq_param_row *r)
{
    an_work *w = ctx;
    int ci = an_find_cfg(w->a, r->config_id);
    if (ci < 0)
        return PM_OK;
    pm_an_config *c = &w->a->configs[ci];
    return pm_cfg_param_add(&c->cfg, r->name, r->value) ? PM_ERR_NOMEM : PM_OK;
}

static int add_run(void *ctx, const pm_sq_run_row *r)
{
    an_work *w = ctx;
    pm_analysis *a = w->a;
    int ci = an_find_cfg(a, r->config_id);
    if (ci < 0)
        return PM_OK;
    if (!r->status || strcmp(r->status, "ok")) {
        /* a run that compiled but left no readable report did not fail: its own count, its own words */
        if (r->status && !strcmp(r->status, PM_RUN_STATUS_NO_REPORT)) {
            a->configs[ci].n_no_report++;
            a->summary.n_runs_no_report++;
            if (!a->summary.no_report_note && r->note && !(a->summary.no_report_note = strdup(r->note)))
                return PM_ERR_NOMEM;
        } else {
            a->configs[ci].n_failed++;
            a->summary.n_runs_failed++;
        }
        return PM_OK;
    }
    int cold = r->mode && !strcmp(r->mode, "cold");
    if (!cold && !(r->mode && !strcmp(r->mode, "warm")))
        return PM_OK;
    run_row *p = pm_grow(w->runs, &w->cap_runs, w->n_runs, sizeof *p, 256);
    if (!p)
        return PM_ERR_NOMEM;
    w->runs = p;
    w->runs[w->n_runs++] = (run_row){.id = r->id, .cfg = ci, .cold = cold, .wall = r->wall_s, .user = r->user_s};
    a->summary.n_runs_ok++;
    if (cold)
        a->configs[ci].n_cold++;
    else
        a->configs[ci].n_warm++;
    return PM_OK;
}

/* The stage a pass maps to (an index into the map's stages; other when no rule matches). */
static int pid_stage(an_work *w, const pass_id *id)
{
    const char *stage = w->opts->map ? pm_stagemap_match(w->opts->map, id->tool, id->name) : PM_STAGE_OTHER;
    int s = pm_an_stage_index(w->a, stage);
    return s < 0 ? w->st_other : s;
}

/* Pass keys are pass-name ids times the tools of a scan: a map this long (64 MB) is where a table stops paying. */
#define AN_MAX_PASS_KEY (1 << 24)

/* The cold run being read ends: each pass's total in it joins its config's log sum (the fits' geometric mean). */
static void flush_run(an_work *w)
{
    if (w->cur_run != SIZE_MAX) {
        size_t nc = w->a->n_configs, cfg = (size_t)w->runs[w->cur_run].cfg;
        for (size_t k = 0; k < w->n_touched; k++) {
            size_t pid = (size_t)w->touched[k];
            w->pid_cfg_log[pid * nc + cfg] += log(w->run_pid_s[pid]);
            w->pid_cfg_nlog[pid * nc + cfg]++;
            w->run_pid_s[pid] = 0;
        }
    }
    w->n_touched = 0;
    w->cur_run = SIZE_MAX;
}

/* Room in the [pass id][config] arrays for n pass ids (new rows zeroed). */
static int pid_cfg_room(an_work *w, size_t n_pids)
{
    size_t nc = w->a->n_configs;
    if (n_pids > w->cap_pid_cfg) {
        size_t cap = w->cap_pid_cfg ? 2 * w->cap_pid_cfg : 64;
        if (cap < n_pids)
            cap = n_pids;
        size_t was = w->cap_pid_cfg;
        if (pm_resize(&w->pid_cfg_s, was * nc, cap * nc, sizeof *w->pid_cfg_s) ||
            pm_resize(&w->pid_cfg_u, was * nc, cap * nc, sizeof *w->pid_cfg_u) ||
            pm_resize(&w->pid_cfg_uw, was * nc, cap * nc, sizeof *w->pid_cfg_uw) ||
            pm_resize(&w->pid_cfg_log, was * nc, cap * nc, sizeof *w->pid_cfg_log) ||
            pm_resize(&w->pid_cfg_nlog, was * nc, cap * nc, sizeof *w->pid_cfg_nlog) ||
            pm_resize(&w->run_pid_s, was, cap, sizeof *w->run_pid_s) ||
            pm_resize(&w->touched, was, cap, sizeof *w->touched))
            return PM_ERR_NOMEM;
        w->cap_pid_cfg = cap;
    }
    return PM_OK;
}

/* Grows an id map (*ids, *n) to hold need entries, doubling; new entries -1 (no pass id yet). */
static int ids_room(int **ids, size_t *n, size_t need)
{
    if (need <= *n)
        return 0;
    size_t m = need > 2 * *n ? need : 2 * *n;
    int *p = realloc(*ids, m * sizeof *p);
    if (!p)
        return -1;
    for (size_t i = *n; i < m; i++)
        p[i] = -1;
    *ids = p;
    *n = m;
    return 0;
}

/* The pass id of (tool, name), made at first sight (its stage matched once), with room in the pid_cfg arrays;
 * key: the pair as a small number from the query (-1: none), cached so each pair is hashed once. */
static int pass_pid(an_work *w, int64_t key, const char *tool, const char *name, int *out)
{
    int pid;
    if (key >= 0 && (size_t)key < w->n_key_pid && w->key_pid[key] >= 0) {
        pid = w->key_pid[key];
    } else {
        if ((pid = an_pid_lookup(w->pv, tool, name)) < 0)
            return PM_ERR_NOMEM;
        if (key >= 0 && key < AN_MAX_PASS_KEY) {   /* beyond: the hash lookup above, every time */
            if (ids_room(&w->key_pid, &w->n_key_pid, (size_t)key + 1))
                return PM_ERR_NOMEM;
            w->key_pid[key] = pid;
        }
    }
    pass_id *id = &w->pv->pids[pid];
    if (id->stage < 0)   /* a new pass: its stage once (fnmatch) */
        id->stage = pid_stage(w, id);
    int rc = pid_cfg_room(w, (size_t)pid + 1);
    *out = pid;
    return rc;
}

static int add_pass(void *ctx, const pm_sq_pass_row *r)
{
    an_work *w = ctx;
    size_t ri = w->row_run;
    if (ri >= w->n_runs || w->runs[ri].id != r->run_id) {   /* rows come grouped by run: search only on a change */
        size_t lo = 0, hi = w->n_runs;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (w->runs[mid].id < r->run_id)
                lo = mid + 1;
            else
                hi = mid;
        }
        ri = w->row_run = lo;
        if (ri == w->n_runs || w->runs[ri].id != r->run_id)
            return PM_OK;
    }
    int pid, rc;
    if ((rc = pass_pid(w, r->key, r->tool, r->name, &pid)))
        return rc;
    pass_id *id = &w->pv->pids[pid];
    size_t nc = w->a->n_configs;
    /* the sums an_stages makes of the rows, in row order (the same additions in the same order) */
    run_row *run = &w->runs[ri];
    size_t stg = (size_t)id->stage;
    w->run_stage[ri * w->run_stage_ns + stg] += r->wall_s;
    run->pass_sum += r->wall_s;
    if (r->user_s >= 0) {
        w->run_stage_u[ri * w->run_stage_ns + stg] += r->user_s;
        run->pass_user += r->user_s;
        run->pass_user_wall += r->wall_s;
    }
    if (!run->cold)
        return PM_OK;
    size_t at = (size_t)pid * nc + (size_t)run->cfg;
    w->pid_cfg_s[at] += r->wall_s;
    if (ri != w->cur_run) {   /* a new cold run: the last one's pass totals into the logs */
        flush_run(w);
        w->cur_run = ri;
    }
    if (w->run_pid_s[pid] == 0 && r->wall_s > 0)
        w->touched[w->n_touched++] = pid;
    w->run_pid_s[pid] += r->wall_s;
    if (r->user_s >= 0) {
        w->pid_cfg_u[at] += r->user_s;
        w->pid_cfg_uw[at] += r->wall_s;
        w->stage_u[stg] += r->user_s;
        w->stage_uw[stg] += r->wall_s;
    }
    return PM_OK;
}

static int cmp_cfg_ix(const void *pa, const void *pb)
{
    int64_t a = ((const struct an_cfg_ix *)pa)->id, b = ((const struct an_cfg_ix *)pb)->id;
    return (a > b) - (a < b);
}

/* Callbacks return PM_ERR_NOMEM without a message; give it one. */
static int cb_status(int rc, pm_err *err)
{
    return rc == PM_ERR_NOMEM ? an_nomem(err) : rc;
}

/* Each kept stage's phase (the maps' fourth column), and the phases that have a stage, in pm_stage_phases order. */
static int set_phases(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    const pm_stagemap *map = w->opts->map;
    /* each stage's phase (the maps' fourth column), and the phases that have a stage, in pm_stage_phases order */
    size_t np = 0;
    while (pm_stage_phases[np])
        np++;
    if (!(a->stage_phase = calloc(a->n_stages, sizeof *a->stage_phase)) ||
        !(a->phases = calloc(np + 1, sizeof *a->phases)))
        return an_nomem(err);
    for (size_t k = 0; k < np; k++)
        for (size_t s = 0; s < a->n_stages; s++)
            if (!strcmp(pm_stagemap_phase(map, a->stages[s]), pm_stage_phases[k])) {
                a->phases[a->n_phases++] = pm_stage_phases[k];
                break;
            }
    for (size_t s = 0; s < a->n_stages; s++) {
        const char *ph = pm_stagemap_phase(map, a->stages[s]);
        for (size_t k = 0; k < a->n_phases; k++)
            if (!strcmp(a->phases[k], ph))
                a->stage_phase[s] = (int)k;
    }
    for (size_t ci = 0; ci < a->n_configs; ci++)
        if (!(a->configs[ci].phase_share = calloc(a->n_phases + 1, sizeof *a->configs[ci].phase_share)) ||
            !(a->configs[ci].phase_cpu = calloc(a->n_phases + 1, sizeof *a->configs[ci].phase_cpu)))
            return an_nomem(err);
    return PM_OK;
}

/* Keep only the stages this sweep's passes hit (the map may cover other back ends), plus overhead. The stage
 * of each distinct pass is matched once (fnmatch). */
static int prune_stages(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    struct pm_an_priv *pv = w->pv;
    size_t ns = a->n_stages;
    for (size_t k = 0; k < pv->n_pids; k++)   /* (each pass got its stage when first read) */
        if (pv->pids[k].stage < 0)
            pv->pids[k].stage = pid_stage(w, &pv->pids[k]);
    int *hit = calloc(ns + 1, sizeof *hit), *remap = calloc(ns + 1, sizeof *remap);
    if (!hit || !remap) {
        free(hit);
        free(remap);
        return an_nomem(err);
    }
    for (size_t k = 0; k < pv->n_pids; k++)
        hit[pv->pids[k].stage] = 1;
    hit[w->st_over] = 1;
    size_t kept = 0;
    for (size_t s = 0; s < ns; s++) {
        remap[s] = hit[s] ? (int)kept : -1;
        if (hit[s])
            a->stages[kept++] = a->stages[s];
    }
    for (size_t k = 0; k < pv->n_pids; k++)
        pv->pids[k].stage = remap[pv->pids[k].stage];
    w->st_over = remap[w->st_over];
    w->st_other = remap[w->st_other];
    a->n_stages = kept;
    /* the sums move to the kept stages' columns (a stage not hit has none) */
    double *rs = calloc(w->n_runs * kept + 1, sizeof *rs), *su = calloc(kept + 1, sizeof *su),
           *suw = calloc(kept + 1, sizeof *suw), *rsu = calloc(w->n_runs * kept + 1, sizeof *rsu);
    if (!rs || !su || !suw || !rsu) {
        pm_free_all(rsu, rs, su, suw, hit, remap);
        return an_nomem(err);
    }
    for (size_t s = 0; s < ns; s++) {
        if (remap[s] < 0)
            continue;
        for (size_t i = 0; i < w->n_runs; i++) {
            rs[i * kept + (size_t)remap[s]] = w->run_stage[i * ns + s];
            rsu[i * kept + (size_t)remap[s]] = w->run_stage_u[i * ns + s];
        }
        su[remap[s]] = w->stage_u[s];
        suw[remap[s]] = w->stage_uw[s];
    }
    pm_free_all(w->run_stage, w->run_stage_u, w->stage_u, w->stage_uw);
    w->run_stage = rs;
    w->run_stage_u = rsu;
    w->run_stage_ns = kept;
    w->stage_u = su;
    w->stage_uw = suw;
    free(hit);
    free(remap);
    return PM_OK;
}

/* The aggregates' path (store_agg.c): the same sums, summed when the rows were written. */
typedef struct agg_check {
    an_work *w;
    int agree;
    size_t n;   /* recorded (tool, pass) pairs: at least the pairs of the scoped sums */
} agg_check;

/* A recorded pass's stage against this report's map: any difference, and the stored stage sums do not apply. */
static int agg_stage_agrees(void *ctx, const char *tool, const char *name, const char *stage)
{
    agg_check *c = ctx;
    const pm_stagemap *map = c->w->opts->map;
    c->n++;
    if (strcmp(map ? pm_stagemap_match(map, tool, name) : PM_STAGE_OTHER, stage))
        c->agree = 0;
    return PM_OK;
}

/* A pass of the aggregates, in the order the rows first meet it: its pass id (so the ids are the rows' order), and
 * which row of the slot-ordered sums is that pass's. */
static int add_agg_key(void *ctx, const char *tool, const char *name, int64_t key, size_t slot)
{
    an_work *w = ctx;
    int pid, rc;
    if ((rc = pass_pid(w, key, tool, name, &pid)))
        return rc;
    if (slot < w->n_agg_slot)
        w->agg_slot_pid[slot] = pid;
    return PM_OK;
}

/* A config's sums of one pass, into row `slot` of the [pass][config] arrays: the passes' ids come after the scan
 * (add_agg_key), and load_aggregates moves each row to its id's. */
static int add_agg_pass(void *ctx, const pm_sq_agg_pass_row *r)
{
    an_work *w = ctx;
    int ci = w->agg_cfg >= 0 && w->agg_cfg_id == r->config_id ? w->agg_cfg : an_find_cfg(w->a, r->config_id);
    if (ci < 0)
        return PM_OK;
    w->agg_cfg = ci;   /* rows come by config: one search per config */
    w->agg_cfg_id = r->config_id;
    if (ids_room(&w->agg_slot_pid, &w->n_agg_slot, (size_t)r->slot + 1))
        return PM_ERR_NOMEM;
    if (pid_cfg_room(w, r->slot + 1))
        return PM_ERR_NOMEM;
    size_t at = r->slot * w->a->n_configs + (size_t)ci;
    w->pid_cfg_s[at] = r->wall_s;
    w->pid_cfg_u[at] = r->user_s;
    w->pid_cfg_uw[at] = r->user_wall_s;
    w->pid_cfg_log[at] = r->log_s;
    w->pid_cfg_nlog[at] = r->n_log;
    return PM_OK;
}

/* Moves rows of one [pass][config] array from slots to pass ids (to: slot -> id; the ids are 0..n-1 in some
 * order), in place along the permutation's cycles with two rows of scratch. */
static void permute_rows(void *base, size_t row_bytes, const int *to, size_t n, unsigned char *done,
                         unsigned char *scratch)
{
    unsigned char *b = base;
    memset(done, 0, n);
    for (size_t start = 0; start < n; start++) {
        if (done[start])
            continue;
        unsigned char *carry = scratch, *spare = scratch + row_bytes;
        memcpy(carry, b + start * row_bytes, row_bytes);
        size_t at = start;
        do {   /* the carried row (slot at's) goes to its id's row, whose row is carried on */
            size_t dst = (size_t)to[at];
            memcpy(spare, b + dst * row_bytes, row_bytes);
            memcpy(b + dst * row_bytes, carry, row_bytes);
            unsigned char *t = carry;
            carry = spare;
            spare = t;
            done[at] = 1;
            at = dst;
        } while (at != start);
    }
}

/* The sums were read into rows by slot; each row moves to its pass id's row. */
static int agg_rows_to_pids(an_work *w, size_t n_slots)
{
    size_t nc = w->a->n_configs;
    if (n_slots == 0)
        return PM_OK;
    /* every slot got its id, and the ids are exactly 0..n_slots-1 (no pass was known before the aggregates) */
    unsigned char *done = calloc(n_slots, 1);
    if (!done)
        return PM_ERR_NOMEM;
    for (size_t i = 0; i < n_slots; i++) {
        int p = w->agg_slot_pid[i];
        if (p < 0 || (size_t)p >= n_slots || done[p]) {
            free(done);
            return PM_ERR_DB;
        }
        done[p] = 1;
    }
    unsigned char *scratch = malloc(2 * nc * sizeof(double) + 1);
    if (!scratch) {
        free(done);
        return PM_ERR_NOMEM;
    }
    const int *to = w->agg_slot_pid;
    permute_rows(w->pid_cfg_s, nc * sizeof(double), to, n_slots, done, scratch);
    permute_rows(w->pid_cfg_u, nc * sizeof(double), to, n_slots, done, scratch);
    permute_rows(w->pid_cfg_uw, nc * sizeof(double), to, n_slots, done, scratch);
    permute_rows(w->pid_cfg_log, nc * sizeof(double), to, n_slots, done, scratch);
    permute_rows(w->pid_cfg_nlog, nc * sizeof(int), to, n_slots, done, scratch);
    free(scratch);
    free(done);
    return PM_OK;
}

/* A stage name of the run aggregates as this report's stage index (-1: not in the map). Every run lists its stages
 * in the same order (the table's key), so the name after the last one found is tried first: one comparison a
 * row instead of a search of the stages. */
static int agg_stage(an_work *w, const char *name, int *stage)
{
    size_t n = w->n_agg_stage, k = w->agg_stage_next < n ? w->agg_stage_next : 0;
    for (size_t i = 0; i < n; i++, k = k + 1 < n ? k + 1 : 0) {
        if (!strcmp(w->agg_stage[k].name, name)) {
            w->agg_stage_next = k + 1;
            *stage = w->agg_stage[k].stage;
            return PM_OK;
        }
    }
    an_stage_name_ix *p = realloc(w->agg_stage, (n + 1) * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    w->agg_stage = p;
    if (!(p[n].name = an_pool_add(&w->pv->pool, name)))
        return PM_ERR_NOMEM;
    p[n].stage = *stage = pm_an_stage_index(w->a, name);
    w->n_agg_stage = n + 1;
    w->agg_stage_next = n + 1;
    return PM_OK;
}

static int add_agg_run(void *ctx, const pm_sq_agg_run_row *r)
{
    an_work *w = ctx;
    size_t ri = w->row_run;
    if (ri >= w->n_runs || w->runs[ri].id != r->run_id) {   /* rows come by run id, as the runs */
        while (ri < w->n_runs && w->runs[ri].id < r->run_id)
            ri++;
        if (ri >= w->n_runs || w->runs[ri].id != r->run_id) {
            ri = 0;
            while (ri < w->n_runs && w->runs[ri].id != r->run_id)
                ri++;
            if (ri == w->n_runs)
                return PM_OK;
        }
        w->row_run = ri;
    }
    run_row *run = &w->runs[ri];
    run->pass_sum = r->pass_sum;
    if (!r->stage)
        return PM_OK;
    int s;
    if (agg_stage(w, r->stage, &s))
        return PM_ERR_NOMEM;
    size_t stg = (size_t)(s < 0 ? w->st_other : s);
    w->run_stage[ri * w->run_stage_ns + stg] += r->wall_s;
    w->run_stage_u[ri * w->run_stage_ns + stg] += r->user_s;
    run->pass_user += r->user_s;
    run->pass_user_wall += r->user_wall_s;
    if (run->cold) {
        w->stage_u[stg] += r->user_s;
        w->stage_uw[stg] += r->user_wall_s;
    }
    return PM_OK;
}

/* 1: the sums were read from the aggregates; 0: they are not there for every scoped run, or were made under
 * stages this report's map assigns otherwise (then the caller sums the pass rows). */
static int load_aggregates(an_work *w, int *used, pm_err *err)
{
    int ready = 0, rc;
    *used = 0;
    if ((rc = pm_sq_agg_ready(w->db, &ready, err)) || !ready)
        return rc;
    agg_check c = {w, 1, 0};
    if ((rc = pm_sq_agg_pass_stages(w->db, agg_stage_agrees, &c, err)) || !c.agree)
        return rc;
    /* the [pass][config] arrays sized once for every pair the store records (doubling from 64 made 512 rows for
     * 258 passes: 150 MB zeroed for nothing at 15,000 configs) */
    if (pid_cfg_room(w, c.n))
        return an_nomem(err);
    /* no pass is known yet (the stage checks make none), so the ids add_agg_key makes are 0.. in the passes'
     * order, and agg_rows_to_pids checks it */
    w->agg_cfg = -1;
    size_t n_before = w->pv->n_pids;
    if ((rc = cb_status(pm_sq_agg_cfg_passes(w->db, add_agg_key, add_agg_pass, w, err), err)))
        return rc;
    if ((rc = agg_rows_to_pids(w, w->pv->n_pids - n_before)) == PM_ERR_DB)
        return pm_err_set(err, PM_ERR_DB, "the report aggregates name a pass twice");
    if (rc)
        return an_nomem(err);
    w->row_run = 0;
    if ((rc = cb_status(pm_sq_agg_runs(w->db, add_agg_run, w, err), err)))
        return rc;
    *used = 1;
    return PM_OK;
}

int an_load(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc;
    if ((rc = load_stages(w, err)) || (rc = pm_sq_sweeps_find(w->db, w->opts->sweep, &w->sweeps, err)))
        return rc;
    if ((w->sweeps.name && !(a->sweep = strdup(w->sweeps.name))) ||
        (w->sweeps.backend && !(a->backend = strdup(w->sweeps.backend))) ||
        (w->sweeps.meta_json && !(a->meta_json = strdup(w->sweeps.meta_json))))
        return an_nomem(err);
    if ((rc = cb_status(pm_sq_configs(w->db, &w->sweeps, add_config, w, err), err)))
        return rc;
    if (a->n_configs == 0) /* a failed import or a sweep stopped before its first run: nothing to analyse */
        return pm_err_set(err, PM_ERR_NOTFOUND, "sweep '%s' has no configs: nothing was recorded in it",
                          a->sweep ? a->sweep : "?");
    qsort(a->configs, a->n_configs, sizeof *a->configs, an_cmp_config);
    if (!(w->pv->cfg_ix = malloc(a->n_configs * sizeof *w->pv->cfg_ix)))
        return an_nomem(err);
    for (size_t i = 0; i < a->n_configs; i++)
        w->pv->cfg_ix[i] = (struct an_cfg_ix){a->configs[i].id, (int)i};
    qsort(w->pv->cfg_ix, a->n_configs, sizeof *w->pv->cfg_ix, cmp_cfg_ix);
    w->pv->n_cfg_ix = a->n_configs;
    if ((rc = cb_status(pm_sq_config_params(w->db, &w->sweeps, add_param, w, err), err)))
        return rc;
    /* The scope (a temp table of the ok runs) lets the pass, metric and tool queries join on it. */
    if ((rc = pm_sq_scope_begin(w->db, &w->sweeps, err)) ||
        (rc = cb_status(pm_sq_runs(w->db, &w->sweeps, add_run, w, err), err)))
        return rc;
    if ((rc = cb_status(pm_sq_steps_scan(w->db, &w->sweeps, &a->summary.n_trace_runs, an_take_tool, a, err), err)))
        return rc;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        a->summary.n_configs_no_report += a->configs[ci].n_no_report > 0 && a->configs[ci].n_cold == 0;
    w->run_stage_ns = a->n_stages;
    if (!(w->run_stage = calloc(w->n_runs * a->n_stages + 1, sizeof *w->run_stage)) ||
        !(w->run_stage_u = calloc(w->n_runs * a->n_stages + 1, sizeof *w->run_stage_u)) ||
        !(w->stage_u = calloc(a->n_stages + 1, sizeof *w->stage_u)) ||
        !(w->stage_uw = calloc(a->n_stages + 1, sizeof *w->stage_uw)))
        return an_nomem(err);
    w->cur_run = SIZE_MAX;
    int from_agg = 0;
    if ((rc = load_aggregates(w, &from_agg, err)))
        return rc;
    if (!from_agg) {
        if ((rc = cb_status(pm_sq_counted_passes(w->db, add_pass, w, err), err)))
            return rc;
        flush_run(w);
    }
    if ((rc = prune_stages(w, err)))
        return rc;
    return set_phases(w, err);
}

void an_load_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->n_configs; i++) {
        pm_an_config *c = &a->configs[i];
        pm_cfg_clear(&c->cfg);
        pm_workload_clear(&c->workload);
        free(c->share); free(c->phase_share); free(c->phase_cpu); free(c->stage_s); free(c->passes); free(c->stage_ir);
        for (size_t k = 0; k < c->n_metrics; k++)
            free(c->metrics[k].name);
        free(c->metrics);
    }
    pm_free_all(a->configs, a->stages, a->phases, a->stage_phase);
    free(a->sweep); free(a->backend); free(a->meta_json); free(a->summary.no_report_note);
}
