/* passmap fix: propose, run and prove fixes (see fix.h). */
#include "fix.h"
#include "decide.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analysis.h"
#include "backend.h"
#include "compare.h"
#include "contention.h"
#include "fixplan.h"
#include "spec.h"
#include "stagemap.h"
#include "store.h"
#include "store_sweeps.h"
#include "util.h"

#define FIX_SWEEP_SUFFIX "-fix"

/* One A/B: variant b against variant a on a set of study configs. */
typedef struct job {
    char a[64], b[64];
    size_t *cfg;              /* evidence indexes */
    size_t n_cfg;
    long fix;                 /* catalogue row describing b (single or combination), -1 when none */
    pm_fix_verdict verdict;
    pm_fix_measure m;
    int repeats;              /* repeats asked in the last round that ran */
    char output[160];         /* outcome of the output check */
    int same;                 /* 1: the check found the outputs equal */
    int check_gave_no_answer; /* the check timed out or was interrupted: never combined, never shipped */
    json_t *detail;           /* regimes, cheaper/dearer passes */
    const char *note;
    int from_study;           /* b is the back end's warm path: the study's warm runs against its cold runs */
    json_t *ledger;           /* the program side (measure_program): {"run": {...}, "size": {...}}, or NULL */
    int tradeoff;             /* the compiled program measured slower than stock's (compare's rule) */
} job;

typedef struct check_ref {    /* stock's side of a config's output check, built once */
    size_t cfg;
    char path[PATH_MAX];
    char error[256];
} check_ref;

typedef struct fix_ctx {
    const pm_fix_opts *o;
    pm_store *store;
    pm_spec *src_spec;
    pm_analysis *an;
    const pm_backend_fix_ops *fx;    /* the study's back end's fix row */
    pm_fix_catalogue cat;
    pm_fix_evidence *ev;
    const pm_spec_config **ev_cfg;   /* the study spec's config of each evidence row */
    const pm_an_config **ev_an;
    char **heavy_names;              /* backing store of the evidence's heavy lists */
    size_t n_ev;
    const char **superlinear;
    size_t n_superlinear;
    char study[128], fix_sweep[160], backend[32];
    double t0, budget_s;
    int budget_hit;
    int min_r, max_r;
    double threshold;
    job *jobs;
    size_t n_jobs;
    check_ref *refs;
    size_t n_refs;
    char self[PATH_MAX];             /* passmap itself, resolved once: a rebuild during a long run replaces it */
    int an_borrowed;                 /* an is the caller's (pm_fix_propose): not freed here */
    int exclude_contended;           /* the report's proposals: no fix from a contended config */
    const char *none_why;            /* why no config is evidence (pm_fix_propose says it instead of failing) */
} fix_ctx;

static void note(fix_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(fix_ctx *x, const char *fmt, ...)
{
    if (!x->o->note)
        return;
    va_list ap;
    va_start(ap, fmt);
    pm_util_vnotify(x->o->note, x->o->user, fmt, ap);
    va_end(ap);
}

static double elapsed(const fix_ctx *x)
{
    return pm_util_now() - x->t0;
}

static int is_fix_sweep(const char *name)
{
    size_t n = strlen(name), k = strlen(FIX_SWEEP_SUFFIX);
    return n > k && !strcmp(name + n - k, FIX_SWEEP_SUFFIX);
}

/* A study config is a stock config: no fix token in its variant. */
static int is_stock(const char *variant)
{
    return !variant || !*variant || !strcmp(variant, "stock");
}

static int load_study(fix_ctx *x, pm_err *err)
{
    pm_store_sweep_row *rows = NULL;
    size_t n = 0;
    int rc = pm_store_list_sweeps(x->store, &rows, &n, err);
    if (rc)
        return rc;
    long pick = -1;
    for (size_t i = 0; i < n; i++) {
        if (x->o->sweep ? !strcmp(rows[i].name, x->o->sweep) : !is_fix_sweep(rows[i].name) && !rows[i].superseded)
            pick = (long)i;
    }
    if (pick < 0) {
        rc = x->o->sweep ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no sweep named '%s'", x->o->db_path, x->o->sweep)
                         : pm_err_set(err, PM_ERR_NOTFOUND, "%s: no study sweep (run `passmap sweep` first)",
                                      x->o->db_path);
        goto cleanup;
    }
    snprintf(x->study, sizeof x->study, "%s", rows[pick].name);
    snprintf(x->backend, sizeof x->backend, "%s", rows[pick].backend);
    snprintf(x->fix_sweep, sizeof x->fix_sweep, "%s%s", x->study, FIX_SWEEP_SUFFIX);
    const pm_backend_ops *be = pm_backend_find(x->backend);
    if (!be || !be->fix) {
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "sweep '%s' uses the %s back end, which runs no fixes (its row in "
                        "the back-end table has no fix ops)", x->study, x->backend);
        goto cleanup;
    }
    x->fx = be->fix;
    /* Read the stored spec as if from its folder, so file axes and {spec_dir} mean what they meant. */
    char path[PATH_MAX + 160];
    json_t *meta = rows[pick].meta_json ? json_loads(rows[pick].meta_json, 0, NULL) : NULL;
    const char *dir = json_string_value(json_object_get(meta, "spec_dir"));
    if (dir && snprintf(path, sizeof path, "%s/%s.ini", dir, x->study) < (int)sizeof path)
        ;
    else
        snprintf(path, sizeof path, "%s", x->study);
    json_decref(meta);
    if ((rc = pm_spec_parse_as(rows[pick].spec_text, path, x->backend, &x->src_spec, err)))
        pm_err_wrap(err, "the spec stored with sweep '%s'", x->study);
cleanup:
    pm_store_sweep_rows_free(rows, n);
    return rc;
}

/* A config is evidence for a fix only when its timing report was read (pass rows: a wall alone says nothing about
 * where the time goes) and, for the report's proposals, when its runs were not contended. */
static int fix_evidence_usable(const fix_ctx *x, const pm_an_config *c, size_t *n_unread, size_t *n_contended)
{
    if (c->n_passes == 0) {
        (*n_unread)++;
        return 0;
    }
    if (x->exclude_contended && c->contended) {
        (*n_contended)++;
        return 0;
    }
    return 1;
}

static int no_evidence(fix_ctx *x, size_t n_unread, size_t n_contended, pm_err *err)
{
    if (n_unread && !n_contended)
        x->none_why = "no stock config has a readable timing report (no pass rows): no fix is proposed from a "
                      "wall alone";
    else if (n_contended)
        x->none_why = "every stock config with pass rows was contended: no conclusion (rerun on a quieter machine, "
                      "or --allow-contended)";
    else
        x->none_why = "no stock config with a successful cold run";
    return pm_err_set(err, PM_ERR_NOTFOUND, "sweep '%s': %s", x->study, x->none_why);
}

static int build_evidence(fix_ctx *x, pm_err *err)
{
    if (!x->an) {
        pm_stagemap *map = pm_stagemap_new();
        if (!map)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        int rc = pm_stagemap_load_default(map, err);
        if (rc == PM_OK) {
            pm_an_opts ao = {.sweep = x->study, .map = map, .fit_sizes_of = pm_backend_fit_sizes_of};
            rc = pm_analysis_run(pm_store_db(x->store), &ao, &x->an, err);
        }
        pm_stagemap_free(map);
        if (rc)
            return rc;
    }
    size_t n_unread = 0, n_contended = 0;
    const pm_analysis *a = x->an;
    x->ev = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev);
    x->ev_cfg = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev_cfg);
    x->ev_an = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev_an);
    x->heavy_names = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->heavy_names);
    x->superlinear = calloc(a->fits.n ? a->fits.n : 1, sizeof *x->superlinear);
    if (!x->ev || !x->ev_cfg || !x->ev_an || !x->heavy_names || !x->superlinear)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < a->fits.n; i++)
        if (a->fits.rows[i].superlinear)
            x->superlinear[x->n_superlinear++] = a->fits.rows[i].name;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!is_stock(c->variant) || c->n_cold == 0 || c->dominant_stage < 0)
            continue;
        if (!fix_evidence_usable(x, c, &n_unread, &n_contended))
            continue;
        const pm_spec_config *sc = NULL;
        for (int k = 0; k < x->src_spec->n_configs && !sc; k++)
            if (!strcmp(x->src_spec->configs[k].key, c->key))
                sc = &x->src_spec->configs[k];
        if (!sc)
            continue;   /* a config the stored spec no longer makes cannot be re-run */
        size_t nh = 0;
        for (size_t p = 0; p < c->n_passes; p++)
            nh += c->passes[p].share >= PM_FIX_HEAVY_SHARE;
        const char **heavy = calloc(nh ? nh : 1, sizeof *heavy);
        if (!heavy)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        nh = 0;
        for (size_t p = 0; p < c->n_passes; p++)
            if (c->passes[p].share >= PM_FIX_HEAVY_SHARE)
                heavy[nh++] = c->passes[p].name;
        size_t k = x->n_ev++;
        const pm_kind *kr = pm_kind_find(sc->kind);
        pm_workload w = pm_spec_workload(sc);
        x->heavy_names[k] = (char *)heavy;
        x->ev_cfg[k] = sc;
        x->ev_an[k] = c;
        x->ev[k] = (pm_fix_evidence){.key = c->key, .regime = a->stages[c->dominant_stage], .heavy = heavy,
                                     .n_heavy = nh, .window = w.window ? w.window : NAN,
                                     /* a workload's decoder layers (an LLM's; a CNN has blocks) */
                                     .layers = kr && pm_kind_list_has(kr->axes, "layers") ? w.layers : NAN,
                                     .tile = pm_cfg_param_num(&sc->cfg, "tile"), .ops = c->ir_ops,
                                     .llvm_ops = c->llvm_ops, .wall_s = c->wall.mean, .params = sc->params,
                                     .n_params = (size_t)sc->n_params};
    }
    if (x->n_ev == 0)
        return no_evidence(x, n_unread, n_contended, err);
    return PM_OK;
}

/* A config's key without its variant part (what compare matches on: pm_cfg_split_key), cut to cap. */
static void base_key(const char *key, const char *variant, char *out, size_t cap)
{
    char *base = NULL;
    (void)pm_cfg_split_key(key, variant ? variant : "", &base, NULL);   /* out of memory: base NULL, the whole key */
    snprintf(out, cap, "%s", base ? base : key);
    free(base);
}

static void ev_base(const fix_ctx *x, size_t k, char *out, size_t cap)
{
    base_key(x->ev[k].key, x->ev_cfg[k]->variant, out, cap);
}

static int ev_config(const fix_ctx *x, size_t k)
{
    return (int)(x->ev_cfg[k] - x->src_spec->configs);
}

/* Estimated seconds for the runs a round still misses (each at the study's stock wall of its config). */
static int round_cost(fix_ctx *x, const pm_spec *spec, int repeats, double *cost, pm_err *err)
{
    *cost = 0;
    for (int i = 0; i < spec->n_configs; i++) {
        int done;
        int rc = pm_store_count_runs(x->store, x->fix_sweep, spec->configs[i].key, "cold", &done, err);
        if (rc)
            return rc;
        char base[600];
        base_key(spec->configs[i].key, spec->configs[i].variant, base, sizeof base);
        double wall = 0;
        for (size_t k = 0; k < x->n_ev; k++) {
            char eb[600];
            ev_base(x, k, eb, sizeof eb);
            if (!strcmp(eb, base))
                wall = x->ev[k].wall_s;
        }
        if (done < repeats)
            *cost += (repeats - done) * wall;
    }
    return PM_OK;
}

/* Runs the round's missing runs when they fit the budget. *ran: 0 when the budget refused it. */
static int run_round(fix_ctx *x, job *const *jobs, size_t n_jobs, int repeats, int *ran, pm_err *err)
{
    *ran = 0;
    size_t n = 0;
    for (size_t j = 0; j < n_jobs; j++)
        n += 2 * jobs[j]->n_cfg;
    int *cfgs = malloc((n ? n : 1) * sizeof *cfgs);
    const char **vars = malloc((n ? n : 1) * sizeof *vars);
    pm_spec *spec = NULL;
    int rc = PM_OK;
    if (!cfgs || !vars) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    n = 0;
    for (size_t j = 0; j < n_jobs; j++)
        for (size_t i = 0; i < jobs[j]->n_cfg; i++) {
            cfgs[n] = ev_config(x, jobs[j]->cfg[i]), vars[n++] = jobs[j]->a;
            cfgs[n] = ev_config(x, jobs[j]->cfg[i]), vars[n++] = jobs[j]->b;
        }
    if ((rc = x->fx->round(x->src_spec, cfgs, vars, n, repeats, x->fix_sweep, &spec, err))) {
        pm_err_wrap(err, "the A/B spec of a round");
        goto cleanup;
    }
    double cost;
    if ((rc = round_cost(x, spec, repeats, &cost, err)))
        goto cleanup;
    if (x->budget_s > 0 && elapsed(x) + cost > x->budget_s) {
        note(x, "budget: a round of %d repeats needs ~%.0f s more, %.0f s left: not run", repeats, cost,
             x->budget_s - elapsed(x));
        x->budget_hit = 1;
        goto cleanup;
    }
    if (cost > 0)
        note(x, "round: %d (config, variant) pairs to %d repeats (~%.0f s left to run)", spec->n_configs, repeats,
             cost);
    pm_sweep_opts so = {.db_path = x->o->db_path, .self_exe = x->self, .warm = 0, .meter = x->o->meter,
                        .progress = x->o->progress, .progress_user = x->o->user, .stop = x->o->stop,
                        .notice = x->o->note, .notice_user = x->o->user};
    pm_sweep_summary sum;
    if ((rc = pm_sweep_run(spec, &so, &sum, err)))
        goto cleanup;
    if (sum.interrupted) {
        rc = pm_err_set(err, PM_ERR_CHILD, "interrupted (rerun `passmap fix` to resume)");
        goto cleanup;
    }
    *ran = 1;
cleanup:
    pm_spec_free(spec);
    free(cfgs);
    free(vars);
    return rc;
}

static json_t *pass_rows(const pm_compare_result *r, int cheaper, double threshold)
{
    json_t *arr = json_array();
    int shown = 0;
    double wall_a = 0;
    for (size_t i = 0; i < r->n_configs; i++)
        if (isfinite(r->configs[i].wall.mean_a))
            wall_a += r->configs[i].wall.mean_a;
    for (size_t i = 0; i < r->n_passes && shown < 3; i++) {
        const pm_compare_pass_total *p = &r->passes[i];
        /* Significant by compare's rule, or gone on one side (a fix that drops a pass shows it) when that is
         * worth the threshold of the compile: short trace events come and go with the timer's granularity. */
        size_t gone = cheaper ? p->removed : p->added;
        if (gone && fabs(p->delta) < threshold * wall_a)
            gone = 0;
        size_t n = (cheaper ? p->faster : p->slower) + gone;
        if (cheaper ? (p->delta >= 0 || n == 0) : (p->delta <= 0 || n == 0))
            continue;
        json_t *row = json_pack("{s:s, s:s, s:f, s:I}", "tool", p->tool ? p->tool : "", "pass",
                                p->pass ? p->pass : "", "delta_s", p->delta, "configs", (json_int_t)n);
        if (gone)
            json_object_set_new(row, cheaper ? "removed" : "added", json_true());
        json_array_append_new(arr, row);
        shown++;
    }
    return arr;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Measures a job from the store with compare's numbers and judges it, on the runs of repeats below `repeats`
 * only: stock's runs are shared, and a later round for another fix (or a resumed search) must not change what
 * this round's verdict saw, or a rerun would not reproduce the first one. */
static int measure(fix_ctx *x, job *jb, int repeats, int at_limit, pm_err *err)
{
    pm_compare_opts co = {.path_a = x->o->db_path, .path_b = x->o->db_path, .sweep_a = x->fix_sweep,
                          .sweep_b = x->fix_sweep, .variant_a = jb->a, .variant_b = jb->b,
                          .threshold = x->threshold, .max_repeats = repeats,
                          .allow_contended = x->o->allow_contended};
    if (jb->from_study) {
        /* The back end's warm path: the study's own stock configs, warm (import) runs against cold runs. */
        const char *v = jb->n_cfg ? x->ev_cfg[jb->cfg[0]]->variant : "";
        co.sweep_a = co.sweep_b = x->study;
        co.variant_a = co.variant_b = v[0] ? v : NULL;
        co.mode_b = "warm";
        co.max_repeats = 0;
    }
    pm_compare_result r;
    int rc = pm_compare_run(&co, &r, err);
    if (rc)
        return rc;
    pm_fix_measure m = {.n_configs = 0, .min_n = INT_MAX, .ratio = r.geomean_ratio,
                        .lo = r.geomean_ci_lo, .hi = r.geomean_ci_hi, .faster = r.faster, .slower = r.slower,
                        .same = r.same, .undecided = r.undecided, .untested = r.untested, .repeats_needed = NAN,
                        .n_contended = r.n_contended, .allow_contended = x->o->allow_contended};
    json_t *regimes = json_array();
    /* Per regime of the study (the config's dominant stage): geometric mean of the config ratios. */
    for (size_t k = 0; k < x->n_ev; k++) {
        const char *reg = x->ev[k].regime;
        int first = 1;
        for (size_t q = 0; q < k && first; q++)
            first = strcmp(x->ev[q].regime, reg) != 0;
        if (!first)
            continue;
        double sum = 0;
        int cnt = 0, all = 0;
        for (size_t i = 0; i < r.n_configs; i++) {
            const pm_compare_stat *st = &r.configs[i].wall;
            /* a summary obeys the rule: decided configs only, the others counted */
            int decided = st->verdict == PM_VERDICT_FASTER || st->verdict == PM_VERDICT_SLOWER ||
                          st->verdict == PM_VERDICT_SAME;
            for (size_t q = 0; q < x->n_ev; q++) {
                char eb[600];
                ev_base(x, q, eb, sizeof eb);
                if (strcmp(eb, r.configs[i].key) || strcmp(x->ev[q].regime, reg))
                    continue;
                all++;
                if (decided && st->ratio > 0 && isfinite(st->ratio)) {
                    sum += log(st->ratio);
                    cnt++;
                }
            }
        }
        if (all)
            json_array_append_new(regimes, json_pack("{s:s, s:i, s:i, s:o}", "regime", reg, "configs", cnt,
                                                     "of", all, "geomean_ratio", num(cnt ? exp(sum / cnt) : NAN)));
    }
    for (size_t i = 0; i < r.n_configs; i++) {
        const pm_compare_stat *st = pm_compare_decider(&r, &r.configs[i]);   /* the deciding metric's (decide.h) */
        int nmin = (int)(st->n_a < st->n_b ? st->n_a : st->n_b);
        if (nmin < m.min_n)
            m.min_n = nmin;
        m.n_configs += st->ratio > 0 && isfinite(st->ratio);   /* configs with a ratio (none: nothing measured) */
        /* compare's one rule per config counted in m (r.faster ...); the repeats the slowest to settle needs */
        if (st->verdict == PM_VERDICT_UNDECIDED && isfinite(st->repeats_needed) &&
            !(st->repeats_needed <= m.repeats_needed))
            m.repeats_needed = st->repeats_needed;
    }
    if (m.min_n == INT_MAX)
        m.min_n = 0;
    jb->m = m;
    jb->verdict = pm_fix_judge(&m, at_limit, x->threshold);
    json_decref(jb->detail);
    jb->detail = json_pack("{s:o, s:o, s:o, s:s}", "regimes", regimes, "cheaper", pass_rows(&r, 1, x->threshold),
                           "dearer", pass_rows(&r, 0, x->threshold), "decided_on",
                           pm_decide_name((pm_decide_metric)r.decided_on));
    pm_compare_free(&r);
    return jb->detail ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

/* Adaptive repeats: every undecided job of the list gets another interleaved round until it is decided, the
 * repeat limit is reached or the budget refuses the round. */
static int settle(fix_ctx *x, job **jobs, size_t n_jobs, pm_err *err)
{
    job **pending = malloc((n_jobs ? n_jobs : 1) * sizeof *pending);
    if (!pending)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK;
    for (int r = x->min_r; r <= x->max_r; r++) {
        size_t np = 0;
        for (size_t j = 0; j < n_jobs; j++)
            if (jobs[j]->verdict == PM_FIX_UNDECIDED && jobs[j]->n_cfg)
                pending[np++] = jobs[j];
        if (!np)
            break;
        int ran;
        if ((rc = run_round(x, pending, np, r, &ran, err)))
            break;
        for (size_t j = 0; j < np; j++) {
            pm_err merr = {0};
            if ((rc = measure(x, pending[j], r, ran && r == x->max_r, &merr))) {
                /* The budget refused this round and the job never ran a round before (a combination the greedy
                 * search reached as the budget ran out): nothing to measure, which is "not run", not an error. */
                if (!ran && rc == PM_ERR_USAGE && pending[j]->repeats == 0) {
                    pending[j]->verdict = PM_FIX_NOT_RUN;
                    note(x, "%s vs %s: not run (budget)", pending[j]->b, pending[j]->a);
                    rc = PM_OK;
                    continue;
                }
                *err = merr;
                goto cleanup;
            }
            if (ran)
                pending[j]->repeats = r;
            if (pending[j]->verdict != PM_FIX_UNDECIDED)
                note(x, "%s vs %s: %s (%.3fx on %zu configs, n>=%d)", pending[j]->b, pending[j]->a,
                     pm_fix_verdict_name(pending[j]->verdict), pending[j]->m.ratio, pending[j]->m.n_configs,
                     pending[j]->m.min_n);
        }
        if (!ran)
            break;
    }
cleanup:
    free(pending);
    return rc;
}

/* The folder of one side of a config's output check: DB.runs/fix-check/<key>/<variant> (absolute: the
 * steps run inside it), created. */
static int check_dir(fix_ctx *x, size_t cfg, const char *variant, char *dir, size_t cap, pm_err *err)
{
    char db_abs[PATH_MAX], safe[200];
    if (!realpath(x->o->db_path, db_abs))
        return pm_err_errno(err, PM_ERR_IO, "cannot resolve %s", x->o->db_path);
    size_t k = 0;
    for (const char *key = x->ev[cfg].key; key[k] && k + 1 < sizeof safe; k++)
        safe[k] = key[k] == '/' ? '_' : key[k];
    safe[k] = '\0';
    if (snprintf(dir, cap, "%s.runs/fix-check/%s/%s", db_abs, safe, variant) >= (int)cap)
        return pm_err_set(err, PM_ERR_USAGE, "check folder path too long");
    return pm_util_mkdir_p(dir, err);
}

/* Builds one side of the check with the back end's op. */
static int check_side(fix_ctx *x, size_t cfg, const char *variant, char *result, size_t cap, pm_err *err)
{
    char dir[PATH_MAX];
    int rc = check_dir(x, cfg, variant, dir, sizeof dir, err);
    if (rc)
        return rc;
    pm_fix_check_opts co = {.reduce_window = x->o->check_window, .reduce_layers = x->o->check_layers,
                            .cancel = x->o->stop};
    return x->fx->check_build(x->src_spec, ev_config(x, cfg), variant, dir, &co, result, cap, err);
}

/* How many times each side's program runs for the ledger: compare's rule needs 3 a side at least. */
#define LEDGER_RUNS_MAX 20

static json_t *ledger_stat(const pm_compare_stat *st, int n, const char *what, int estimated, int contended)
{
    return json_pack("{s:o, s:o, s:o, s:i, s:s, s:o, s:o, s:s, s:b, s:b}", "ratio", num(st->ratio), "ci_lo",
                     num(st->ci_lo), "ci_hi", num(st->ci_hi), "n", n, "verdict", pm_compare_verdict_name(st->verdict),
                     "stock_s", num(st->gmean_a), "fix_s", num(st->gmean_b), "what", what, "estimated", estimated,
                     "contended", contended);
}

/* The other side of the ledger for a fix whose output was checked the same: the compiled program's run time
 * (stock's and the fix's builds run alternately, each through lib/run, judged by compare's rule: Welch on log
 * times, the interval at the corrected level, the threshold; a run below PM_CONTENTION_RATIO CPU/wall is
 * contended, so no conclusion unless --allow-contended) and the size of what was built. A fix whose program
 * measures slower is a trade-off. Failures are stated in the ledger, not fatal: the compile side stands. */
static void measure_program(fix_ctx *x, job *jb, size_t cfg, const char *stock_dir, const char *var_dir)
{
    json_decref(jb->ledger);
    jb->ledger = json_object();
    pm_fix_check_opts co = {.reduce_window = x->o->check_window, .reduce_layers = x->o->check_layers,
                            .cancel = x->o->stop};
    int conf = ev_config(x, cfg);
    pm_err err = {0};
    if (x->fx->program_run) {
        int n = x->min_r + 2 < LEDGER_RUNS_MAX ? x->min_r + 2 : LEDGER_RUNS_MAX, contended = 0, got = 0, rc = PM_OK;
        double a[LEDGER_RUNS_MAX], b[LEDGER_RUNS_MAX], cw;
        char what[160] = "";
        for (int i = 0; i < n && rc == PM_OK; i++) {   /* alternate, so a load change hits both sides alike */
            if ((rc = x->fx->program_run(x->src_spec, conf, stock_dir, &co, &a[i], &cw, what, sizeof what, &err)))
                break;
            contended |= !(cw >= PM_CONTENTION_RATIO);
            if ((rc = x->fx->program_run(x->src_spec, conf, var_dir, &co, &b[i], &cw, what, sizeof what, &err)))
                break;
            contended |= !(cw >= PM_CONTENTION_RATIO);
            got++;
        }
        if (rc) {
            json_object_set_new(jb->ledger, "run", json_pack("{s:s}", "error", err.msg));
        } else {
            pm_compare_stat st;
            pm_compare_test(a, (size_t)got, b, (size_t)got, &st);
            pm_compare_stat *fam[1] = {&st};
            pm_compare_correct(fam, 1, PM_COMPARE_ALPHA, x->threshold);
            pm_compare_withhold(&st, contended, x->o->allow_contended);
            jb->tradeoff = st.verdict == PM_VERDICT_SLOWER;
            json_object_set_new(jb->ledger, "run", ledger_stat(&st, got, what, x->fx->estimated, contended));
            note(x, "program: %s runs %.3fx of stock's (%s, n=%d a side)%s", jb->b, st.ratio,
                 pm_compare_verdict_name(st.verdict), got, jb->tradeoff ? ": a trade-off" : "");
        }
    }
    if (x->fx->program_size) {
        double sa = NAN, sb = NAN;
        char what[96] = "";
        if (x->fx->program_size(x->src_spec, conf, stock_dir, &sa, what, sizeof what, &err) ||
            x->fx->program_size(x->src_spec, conf, var_dir, &sb, what, sizeof what, &err))
            json_object_set_new(jb->ledger, "size", json_pack("{s:s}", "error", err.msg));
        else
            json_object_set_new(jb->ledger, "size", json_pack("{s:o, s:o, s:o, s:s, s:b}", "ratio",
                                                              num(sa > 0 ? sb / sa : NAN), "stock_bytes", num(sa),
                                                              "fix_bytes", num(sb), "what", what, "estimated",
                                                              x->fx->estimated));
    }
}

/* One side of a stored program metric: the per-run sums of m over the ok cold runs of key in the fix sweep,
 * scaled; *count: how many values each run summed (every run of a side must agree: the same partition). */
static int stored_side(fix_ctx *x, const char *key, const pm_fix_program_metric *m, double **v, size_t *n,
                       int *count, pm_err *err)
{
    int *counts = NULL;
    int rc = pm_store_metric_sums(x->store, x->fix_sweep, key, m->name, v, &counts, n, err);
    if (rc)
        return rc;
    *count = *n ? counts[0] : 0;
    for (size_t i = 0; i < *n && rc == PM_OK; i++) {
        if (counts[i] != *count)
            rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "runs of %s print %d and %d values of %s", key, *count,
                            counts[i], m->name);
        (*v)[i] *= m->scale;
    }
    free(counts);
    if (rc) {
        free(*v);
        *v = NULL;
        *n = 0;
    }
    return rc;
}

/* The program side of an estimated back end (fx->run_metrics, size_metrics), read from the round's own compiles
 * of the job's first config: stock's and the fix's values, the run metric judged by compare's rule at the
 * metric's resolution (the estimates are deterministic: the repeats only confirm them, and contention cannot
 * touch them), the size as the ratio of the means. Needs no output check: the numbers come with the compile.
 * A fix whose estimate is slower past the threshold is a trade-off. Failures are stated, not fatal. */
static void measure_stored(fix_ctx *x, job *jb)
{
    json_decref(jb->ledger);
    jb->ledger = json_object();
    jb->tradeoff = 0;
    if (!jb->n_cfg || !jb->ledger)
        return;
    char base[600], ka[700], kb[700];
    ev_base(x, jb->cfg[0], base, sizeof base);
    snprintf(ka, sizeof ka, "%s/stock", base);
    snprintf(kb, sizeof kb, "%s/%s", base, jb->b);
    for (int side = 0; side < 2; side++) {
        const pm_fix_program_metric *list = side ? x->fx->size_metrics : x->fx->run_metrics, *m = NULL;
        if (!list)
            continue;
        double *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        int ca = 0, cb = 0;
        pm_err err = {0};
        char msg[2048] = "", what[200];
        for (const pm_fix_program_metric *p = list; p->name && !m && !msg[0]; p++) {
            free(a);
            a = NULL;
            if (stored_side(x, ka, p, &a, &na, &ca, &err))
                snprintf(msg, sizeof msg, "%s", err.msg);
            else if (na)
                m = p;
        }
        if (!msg[0] && !m)
            snprintf(msg, sizeof msg, "no ok stock compile of %s in %s carries %s%s", base, x->fix_sweep,
                     list[0].name, list[1].name ? " or the others" : "");
        if (!msg[0] && stored_side(x, kb, m, &b, &nb, &cb, &err))
            snprintf(msg, sizeof msg, "%s", err.msg);
        if (!msg[0] && !nb)
            snprintf(msg, sizeof msg, "no ok %s compile of %s carries %s (stock's do)", jb->b, base, m->name);
        if (!msg[0] && ca != cb)
            snprintf(msg, sizeof msg, "stock's compile gives %d values of %s, %s's %d: different partitions, not "
                     "comparable", ca, m->name, jb->b, cb);
        if (msg[0]) {
            json_object_set_new(jb->ledger, side ? "size" : "run", json_pack("{s:s}", "error", msg));
        } else if (!side) {
            if (ca > 1)
                snprintf(what, sizeof what, "%s, sum of %d subgraph estimates", m->what, ca);
            else
                snprintf(what, sizeof what, "%s", m->what);
            pm_compare_stat st;
            pm_compare_test_tick(a, na, b, nb, m->tick, ca, &st);
            pm_compare_stat *fam[1] = {&st};
            pm_compare_correct(fam, 1, PM_COMPARE_ALPHA, x->threshold);
            jb->tradeoff = st.verdict == PM_VERDICT_SLOWER;
            json_object_set_new(jb->ledger, "run",
                                ledger_stat(&st, (int)(na < nb ? na : nb), what, x->fx->estimated, 0));
            note(x, "program: %s's %s is %.3fx of stock's (%s, n=%zu/%zu)%s", jb->b, what, st.ratio,
                 pm_compare_verdict_name(st.verdict), na, nb, jb->tradeoff ? ": a trade-off" : "");
        } else {
            double sa = 0, sb = 0;
            for (size_t i = 0; i < na; i++)
                sa += a[i] / (double)na;
            for (size_t i = 0; i < nb; i++)
                sb += b[i] / (double)nb;
            json_object_set_new(jb->ledger, "size", json_pack("{s:o, s:o, s:o, s:s, s:b}", "ratio",
                                                              num(sa > 0 ? sb / sa : NAN), "stock_bytes", num(sa),
                                                              "fix_bytes", num(sb), "what", m->what, "estimated",
                                                              x->fx->estimated));
        }
        free(a);
        free(b);
    }
}

/* Checks job b's output against stock on its first config. Fills jb->output and jb->same; CHANGES_OUTPUT on a
 * difference, or when the variant does not build or run. */
static void check_job(fix_ctx *x, job *jb)
{
    if ((x->fx->run_metrics || x->fx->size_metrics) && !jb->from_study)
        measure_stored(x, jb);
    if (x->o->no_check) {
        snprintf(jb->output, sizeof jb->output, "unchecked (--no-check)");
        return;
    }
    if (!x->fx->check_build || !x->fx->check_compare) {
        snprintf(jb->output, sizeof jb->output, "unchecked: the %s back end has no output check", x->backend);
        return;
    }
    if (!jb->n_cfg)
        return;
    size_t cfg = jb->cfg[0];
    check_ref *ref = NULL;
    for (size_t i = 0; i < x->n_refs && !ref; i++)
        if (x->refs[i].cfg == cfg)
            ref = &x->refs[i];
    pm_err err = {0};
    if (!ref) {
        check_ref *nr = realloc(x->refs, (x->n_refs + 1) * sizeof *nr);
        if (!nr) {
            snprintf(jb->output, sizeof jb->output, "unchecked: out of memory");
            return;
        }
        x->refs = nr;
        ref = &x->refs[x->n_refs++];
        memset(ref, 0, sizeof *ref);
        ref->cfg = cfg;
        note(x, "check: stock on %s", x->ev[cfg].key);
        int rc = check_side(x, cfg, "stock", ref->path, sizeof ref->path, &err);
        if (rc == PM_ERR_UNSUPPORTED || rc == PM_ERR_TIMEOUT)
            snprintf(ref->error, sizeof ref->error, "unchecked: %.200s", err.msg);
        else if (rc)
            snprintf(ref->error, sizeof ref->error, "unchecked: stock did not build: %.160s", err.msg);
    }
    if (ref->error[0]) {
        snprintf(jb->output, sizeof jb->output, "%.150s", ref->error);
        return;
    }
    char path[PATH_MAX];
    note(x, "check: %s on %s", jb->b, x->ev[cfg].key);
    pm_fix_check_opts co = {.reduce_window = x->o->check_window, .reduce_layers = x->o->check_layers,
                            .cancel = x->o->stop};
    int same = 0, rc;
    if ((rc = check_side(x, cfg, jb->b, path, sizeof path, &err)) ||
        (rc = x->fx->check_compare(x->src_spec, ev_config(x, cfg), ref->path, path, &co, &same, jb->output,
                                   sizeof jb->output, &err))) {
        /* A check that timed out or was interrupted gave no answer: unchecked, never "changes output". A variant
         * whose output cannot be built, run or compared is not proven to compute the same. */
        snprintf(jb->output, sizeof jb->output, "%s: %.140s", rc == PM_ERR_TIMEOUT ? "unchecked" : "differs",
                 err.msg);
        same = 0;
    }
    jb->same = same;
    jb->check_gave_no_answer = rc == PM_ERR_TIMEOUT;
    if (!same && rc != PM_ERR_TIMEOUT)
        jb->verdict = PM_FIX_CHANGES_OUTPUT;
    note(x, "check: %s: %s", jb->b, jb->output);
    if (same && (x->fx->program_run || x->fx->program_size)) {
        char stock_dir[PATH_MAX], var_dir[PATH_MAX];
        if (check_dir(x, cfg, "stock", stock_dir, sizeof stock_dir, &err) == PM_OK &&
            check_dir(x, cfg, jb->b, var_dir, sizeof var_dir, &err) == PM_OK)
            measure_program(x, jb, cfg, stock_dir, var_dir);
    }
}

static job *new_job(fix_ctx *x, const char *a, const char *b, const size_t *cfg, size_t n, long fix, pm_err *err)
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

static char *rule_text(const pm_fix_def *f)
{
    char *s = NULL;
    if (asprintf(&s, "regime %s; heavy pass %s%s; size %s", f->regime, f->pass,
                 f->superlinear ? " (superlinear)" : "", f->size) < 0)
        return NULL;
    return s;
}

/* The program side of a job's ledger onto its row: "run", "size", "tradeoff". */
static void job_ledger_json(const job *jb, json_t *o)
{
    if (jb->ledger)
        json_object_update(o, jb->ledger);
    json_object_set_new(o, "tradeoff", json_boolean(jb->tradeoff));
}

/* A second `passmap fix` on the same study (another catalogue, fewer configs, a budget that ran out sooner) must
 * not erase what the first one proved: every result row of the stored table that this run did not measure is
 * kept, marked "earlier" (the report says so), and a recommendation this run could not make is kept as
 * "earlier_recommended". Rows this run measured replace their earlier selves (the sweep kept their runs, so
 * a rerun reads them again); a row this run did not run (its budget) leaves the earlier measured row in its
 * place. A stored value that is not our JSON is replaced, not merged. */
static int keep_earlier_results(pm_store *st, const char *key, json_t *out, pm_err *err)
{
    char *prev_text = NULL;
    pm_err e2 = {0};
    int rc = pm_store_meta_get(st, key, &prev_text, &e2);
    if (rc == PM_ERR_NOTFOUND)
        return PM_OK;
    if (rc) {
        *err = e2;
        return rc;
    }
    json_t *prev = json_loads(prev_text, 0, NULL);
    free(prev_text);
    json_t *now = json_object_get(out, "results"), *was = json_object_get(prev, "results");
    if (!json_is_array(now) || !json_is_array(was)) {
        json_decref(prev);
        return PM_OK;
    }
    size_t i, j, n_now = json_array_size(now);
    json_t *row;
    json_array_foreach(was, i, row) {
        const char *name = json_string_value(json_object_get(row, "name"));
        if (!name)
            continue;
        long same_name = -1;
        for (j = 0; j < n_now && same_name < 0; j++) {
            const char *n2 = json_string_value(json_object_get(json_array_get(now, j), "name"));
            if (n2 && !strcmp(n2, name))
                same_name = (long)j;
        }
        const char *v_now =
            same_name < 0 ? NULL : json_string_value(json_object_get(json_array_get(now, (size_t)same_name), "verdict"));
        const char *v_was = json_string_value(json_object_get(row, "verdict"));
        int not_run = v_now && !strcmp(v_now, pm_fix_verdict_name(PM_FIX_NOT_RUN)) && v_was &&
                      strcmp(v_was, pm_fix_verdict_name(PM_FIX_NOT_RUN));
        /* measured again: the new row stands; not run now (a smaller budget) but measured before: the earlier
         * row stands in its place */
        if (same_name >= 0 && !not_run)
            continue;
        json_t *kept = json_deep_copy(row);
        if (!kept || json_object_set_new(kept, "earlier", json_true()) ||
            (same_name >= 0 ? json_array_set_new(now, (size_t)same_name, kept) : json_array_append_new(now, kept))) {
            json_decref(prev);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory keeping the earlier fix results of %s", key);
        }
    }
    json_t *rec_now = json_object_get(out, "recommended"), *rec_was = json_object_get(prev, "recommended");
    json_t *earlier = json_object_get(prev, "earlier_recommended");
    if (!json_string_value(json_object_get(rec_now, "variant")) && json_is_object(rec_was) &&
        json_string_value(json_object_get(rec_was, "variant")))
        json_object_set(out, "earlier_recommended", rec_was);
    else if (!json_string_value(json_object_get(rec_now, "variant")) && json_is_object(earlier))
        json_object_set(out, "earlier_recommended", earlier);
    json_decref(prev);
    return PM_OK;
}

static json_t *job_json(fix_ctx *x, const job *jb, const char *name, const pm_fix_def *def)
{
    json_t *keys = json_array();
    for (size_t i = 0; i < jb->n_cfg; i++)
        json_array_append_new(keys, json_string(x->ev[jb->cfg[i]].key));
    char *rule = def ? rule_text(def) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:s, s:o, s:o, s:o, s:I, s:i, s:i, s:s}", "name", name,
                          "variant", jb->b, "against", jb->a, "combination", strchr(jb->b, '+') != NULL,
                          "predicted", rule ? json_string(rule) : json_string("all member rules"), "why",
                          def ? json_string(def->why) : json_null(), "verdict", pm_fix_verdict_name(jb->verdict),
                          "ratio", num(jb->m.ratio), "ci_lo", num(jb->m.lo), "ci_hi", num(jb->m.hi), "n_configs",
                          (json_int_t)jb->m.n_configs, "min_runs", jb->m.min_n, "repeats", jb->repeats, "output",
                          jb->output[0] ? jb->output : "not checked (not faster)");
    free(rule);
    json_object_set_new(o, "configs", keys);
    if (jb->detail)
        json_object_update(o, jb->detail);
    /* The rule said it should matter here and the A/B found nothing: the catalogue row needs a look. */
    if (jb->verdict == PM_FIX_NO_EFFECT || jb->verdict == PM_FIX_WORSE)
        json_object_set_new(o, "rule_measured_nothing", json_true());
    if (jb->note)
        json_object_set_new(o, "note", json_string(jb->note));
    json_object_set_new(o, "contended_configs", json_integer((json_int_t)jb->m.n_contended));
    job_ledger_json(jb, o);
    json_object_set_new(o, "config_verdicts", json_pack("{s:I, s:I, s:I, s:I, s:I}", "faster",
                        (json_int_t)jb->m.faster, "slower", (json_int_t)jb->m.slower, "same", (json_int_t)jb->m.same,
                        "undecided", (json_int_t)jb->m.undecided, "untested", (json_int_t)jb->m.untested));
    json_object_set_new(o, "repeats_needed", num(jb->m.repeats_needed));
    return o;
}

/* Greedy: try_combo runs combination vs its base on the best fix's configs where every member's rule holds. */
typedef struct greedy_ctx {
    fix_ctx *x;
    const pm_fix_selection *sel;
    pm_err *err;
    int rc;
} greedy_ctx;

static const pm_fix_pick *pick_of(const pm_fix_selection *sel, size_t fix)
{
    for (size_t i = 0; i < sel->n; i++)
        if (sel->picks[i].fix == fix)
            return &sel->picks[i];
    return NULL;
}

static pm_fix_verdict try_combo(void *user, const size_t *combo, size_t n, const size_t *base, size_t nb)
{
    greedy_ctx *g = user;
    fix_ctx *x = g->x;
    if (g->rc)
        return PM_FIX_NOT_RUN;
    char vb[64], va[64];
    if ((g->rc = pm_fix_combo_variant(&x->cat, combo, n, vb, sizeof vb, g->err)) ||
        (g->rc = pm_fix_combo_variant(&x->cat, base, nb, va, sizeof va, g->err)))
        return PM_FIX_NOT_RUN;
    const pm_fix_pick *p = pick_of(g->sel, combo[0]);
    for (size_t k = 0; k < n && x->fx->warm_variant; k++)
        if (!strcmp(x->cat.items[combo[k]].variant, x->fx->warm_variant)) {
            /* a warm start compiles nothing: no compile fix adds to it, and no round can run it */
            job *jb = new_job(x, va, vb, NULL, 0, -1, g->err);
            if (!jb) {
                g->rc = PM_ERR_NOMEM;
                return PM_FIX_NOT_RUN;
            }
            jb->verdict = PM_FIX_NOT_RUN;
            jb->note = "not combined: the warm path compiles nothing, so no compile fix adds to it";
            return PM_FIX_NO_EFFECT;
        }
    size_t cfg[64], nc = 0;
    for (size_t i = 0; p && i < p->n_configs && nc < 64; i++) {
        int all = 1;
        for (size_t k = 0; k < n && all; k++)
            all = pm_fix_rule_matches(&x->cat.items[combo[k]], &x->ev[p->configs[i]], x->superlinear,
                                      x->n_superlinear);
        if (all)
            cfg[nc++] = p->configs[i];
    }
    job *jb = new_job(x, va, vb, cfg, nc, pm_fix_catalogue_find_variant(&x->cat, vb), g->err);
    if (!jb) {
        g->rc = PM_ERR_NOMEM;
        return PM_FIX_NOT_RUN;
    }
    size_t idx = x->n_jobs - 1;
    if (!nc) {
        x->jobs[idx].verdict = PM_FIX_NOT_RUN;
        x->jobs[idx].note = "the members' rules hold together on none of the configs";
        note(x, "%s: not tried (%s)", vb, x->jobs[idx].note);
        return PM_FIX_NO_EFFECT;
    }
    note(x, "greedy: %s against %s on %zu configs", vb, va, nc);
    job *one = &x->jobs[idx];
    if ((g->rc = settle(x, &one, 1, g->err)))
        return PM_FIX_NOT_RUN;
    one = &x->jobs[idx];
    if (one->verdict == PM_FIX_UNDECIDED) {
        one->verdict = PM_FIX_NOT_RUN;
        one->note = "budget spent before it was decided";
        return PM_FIX_NOT_RUN;
    }
    if (one->verdict == PM_FIX_BETTER)
        check_job(x, one);
    if (one->verdict == PM_FIX_BETTER && one->tradeoff && !x->o->accept_slower_code)
        return PM_FIX_NO_EFFECT;   /* faster to compile, slower to run: not added unless accepted */
    return one->verdict;
}

static json_t *plan_json(fix_ctx *x, const pm_fix_selection *sel, double cost)
{
    json_t *fixes = json_array();
    for (size_t f = 0; f < x->cat.n; f++) {
        const pm_fix_def *d = &x->cat.items[f];
        const pm_fix_pick *p = pick_of(sel, f);
        char *rule = rule_text(d);
        json_t *keys = json_array();
        for (size_t i = 0; p && i < p->n_configs; i++)
            json_array_append_new(keys, json_string(x->ev[p->configs[i]].key));
        json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:s, s:o}", "name", d->name, "variant", d->variant,
                              "combination", pm_fix_is_combination(d), "predicted", rule ? rule : "", "why", d->why,
                              "configs", keys);
        free(rule);
        if (pm_fix_is_combination(d))
            json_object_set_new(o, "plan", json_string("measured if the greedy search reaches it"));
        else if (p && p->why_not && !p->n_configs)
            json_object_set_new(o, "plan", json_string(p->why_not));
        else if (p && p->from_study)
            json_object_set_new(o, "plan", json_string("measured from the study: its warm runs against its cold "
                                                       "runs (no new runs)"));
        else
            json_object_set_new(o, "plan", json_string("A/B against stock"));
        if (p && p->note[0] && p->n_configs)
            json_object_set_new(o, "note", json_string(p->note));
        json_array_append_new(fixes, o);
    }
    return json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:o, s:f, s:i, s:b, s:o}", "schema", 1, "study",
                     x->study,
                     "fix_sweep", x->fix_sweep, "backend", x->backend, "study_configs", (int)x->n_ev, "min_repeats",
                     x->min_r, "max_repeats", x->max_r, "threshold", x->threshold, "budget_s",
                     x->budget_s > 0 ? json_real(x->budget_s) : json_null(), "first_round_s", cost,
                     "configs_per_fix", x->o->configs_per_fix > 0 ? x->o->configs_per_fix : 3, "allow_contended",
                     x->o->allow_contended, "fixes", fixes);
}

/* The back end's catalogue (a data file, or the fixes the study's spec declares). */
static int load_catalogue(fix_ctx *x, pm_err *err)
{
    int rc;
    if (x->o->catalogue_path || x->fx->catalogue_file) {
        char def[PATH_MAX];
        if (!x->o->catalogue_path)
            snprintf(def, sizeof def, "%s/%s", pm_data_dir(), x->fx->catalogue_file);
        rc = pm_fix_catalogue_load(x->o->catalogue_path ? x->o->catalogue_path : def, &x->cat, err);
    } else {
        const pm_fix_decl *decls = NULL;
        int nd = 0;
        if (x->fx->declared)
            x->fx->declared(x->src_spec, &decls, &nd);
        /* a declared rule's size terms may name the study's axes */
        size_t na = 0, cap = 1;
        for (int i = 0; i < x->src_spec->n_configs; i++)
            cap += (size_t)x->src_spec->configs[i].n_params;
        const char **axes = calloc(cap, sizeof *axes);
        if (!axes) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            return rc;
        }
        for (int i = 0; i < x->src_spec->n_configs; i++)
            for (size_t k = 0; k < x->src_spec->configs[i].n_params; k++) {
                const char *a = x->src_spec->configs[i].params[k].name;
                int seen = 0;
                for (size_t j = 0; j < na && !seen; j++)
                    seen = !strcmp(axes[j], a);
                if (!seen)
                    axes[na++] = a;
            }
        rc = pm_fix_catalogue_from_decls(decls, nd, axes, x->study, &x->cat, err);
        free(axes);
    }
    return rc;
}

/* pm_fix_select_opts.runnable: the back end's say on one (fix, config) pair. */
static int runnable(void *user, size_t fix, size_t ev, char *why, size_t cap)
{
    fix_ctx *x = user;
    return x->fx->runnable(x->src_spec, ev_config(x, ev), x->cat.items[fix].variant, why, cap);
}

static int cmp_ratio(const void *a, const void *b, void *ctx)
{
    const fix_ctx *x = ctx;
    (void)x;
    double ra = ((const job *)a)->m.ratio, rb = ((const job *)b)->m.ratio;
    return (ra > rb) - (ra < rb);
}

/* The Pareto set of compile time against run time, both as ratios to stock: stock itself, every fix and
 * combination measured against stock that is faster to compile with its output checked the same and its program
 * timed. A point is on the frontier when no other is at most as slow on both and faster on one. The recommended
 * point is the shipped variant (rec_variant), else none; the reason is stated. */
static json_t *frontier_json(const fix_ctx *x, const json_t *rec_variant)
{
    typedef struct { const char *v; double c, r, clo, chi, rlo, rhi; int slower; } pt;
    pt *p = calloc(x->n_jobs + 1, sizeof *p);
    json_t *pts = json_array();
    if (!p || !pts) {
        free(p);
        json_decref(pts);
        return json_null();
    }
    size_t n = 0;
    p[n++] = (pt){.v = "stock", .c = 1, .r = 1, .clo = NAN, .chi = NAN, .rlo = NAN, .rhi = NAN};
    for (size_t i = 0; i < x->n_jobs; i++) {
        const job *jb = &x->jobs[i];
        const json_t *run = json_object_get(jb->ledger, "run");
        if (strcmp(jb->a, "stock") || jb->verdict != PM_FIX_BETTER || !jb->same ||
            !json_is_number(json_object_get(run, "ratio")))
            continue;
        int dup = 0;
        for (size_t k = 1; k < n && !dup; k++)
            dup = !strcmp(p[k].v, jb->b);
        if (dup)
            continue;
        p[n++] = (pt){.v = jb->b, .c = jb->m.ratio, .r = json_real_value(json_object_get(run, "ratio")),
                      .clo = jb->m.lo, .chi = jb->m.hi, .rlo = json_number_value(json_object_get(run, "ci_lo")),
                      .rhi = json_number_value(json_object_get(run, "ci_hi")), .slower = jb->tradeoff};
    }
    const char *rv = json_string_value(rec_variant);
    for (size_t i = 0; i < n; i++) {
        int dominated = 0;
        for (size_t k = 0; k < n && !dominated; k++)
            dominated = k != i && p[k].c <= p[i].c && p[k].r <= p[i].r && (p[k].c < p[i].c || p[k].r < p[i].r);
        if (dominated)
            continue;
        const char *why = NULL;
        if (rv && !strcmp(rv, p[i].v))
            why = p[i].slower ? "recommended: the fastest compile measured, its slower program accepted "
                                "(--accept-slower-code)"
                              : "recommended: the fastest compile of the greedy search whose output is the same and "
                                "whose program is not slower";
        else if (!strcmp(p[i].v, "stock"))
            why = "the reference";
        else if (p[i].slower)
            why = "trade-off: compiles faster, runs slower (not recommended without --accept-slower-code)";
        else
            why = "on the frontier, not the greedy search's pick";
        json_array_append_new(pts, json_pack("{s:s, s:f, s:o, s:o, s:f, s:o, s:o, s:b, s:s}", "variant", p[i].v,
                                             "compile_ratio", p[i].c, "compile_ci_lo", num(p[i].clo), "compile_ci_hi",
                                             num(p[i].chi), "run_ratio", p[i].r, "run_ci_lo", num(p[i].rlo),
                                             "run_ci_hi", num(p[i].rhi), "tradeoff", p[i].slower, "why", why));
    }
    free(p);
    return pts;
}

static void fix_ctx_free(fix_ctx *x)
{
    for (size_t i = 0; i < x->n_jobs; i++) {
        free(x->jobs[i].cfg);
        json_decref(x->jobs[i].detail);
        json_decref(x->jobs[i].ledger);
    }
    free(x->jobs);
    free(x->refs);
    for (size_t i = 0; i < x->n_ev; i++)
        free(x->heavy_names[i]);
    free(x->heavy_names);
    free(x->ev);
    free(x->ev_cfg);
    free(x->ev_an);
    free(x->superlinear);
    pm_fix_catalogue_free(&x->cat);
    if (!x->an_borrowed)
        pm_analysis_free(x->an);
    pm_spec_free(x->src_spec);
    pm_store_close(x->store);
}

int pm_fix_run(const pm_fix_opts *o, json_t **result, pm_err *err)
{
    *result = NULL;
    fix_ctx x = {.o = o, .t0 = pm_util_now(), .budget_s = o->budget_s,
                 .min_r = o->min_repeats > 0 ? o->min_repeats : 3, .max_r = o->max_repeats > 0 ? o->max_repeats : 10,
                 .threshold = o->threshold > 0 ? o->threshold : PM_COMPARE_THRESHOLD};
    pm_fix_selection sel = {0};
    json_t *plan = NULL, *out = NULL;
    size_t *ranked = NULL, *best = NULL;
    int rc;
    if (x.min_r < 3)
        return pm_err_set(err, PM_ERR_USAGE, "min repeats %d: no conclusion from fewer than 3 runs", x.min_r);
    if (x.max_r < x.min_r)
        return pm_err_set(err, PM_ERR_USAGE, "max repeats %d below min repeats %d", x.max_r, x.min_r);
    if (o->self_exe)
        snprintf(x.self, sizeof x.self, "%s", o->self_exe);
    else if (!realpath("/proc/self/exe", x.self))
        return pm_err_errno(err, PM_ERR_IO, "cannot find passmap's own executable");
    if ((rc = pm_store_open(o->db_path, &x.store, err)) || (rc = load_study(&x, err)) ||
        (rc = build_evidence(&x, err)))
        goto cleanup;
    if ((rc = load_catalogue(&x, err)))
        goto cleanup;
    int per_fix = o->configs_per_fix > 0 ? o->configs_per_fix : 3;
    pm_fix_select_opts so = {.per_fix = per_fix, .from_study_variant = x.fx->warm_variant,
                             .runnable = x.fx->runnable ? runnable : NULL, .user = &x};
    if ((rc = pm_fix_select_ex(&x.cat, x.ev, x.n_ev, x.superlinear, x.n_superlinear, &so, &sel, err)))
        goto cleanup;
    /* The single-fix round at min repeats gets half the budget; the rest pays for repeats and combinations. */
    pm_fix_fit_budget(&sel, x.ev, x.min_r, x.budget_s > 0 ? x.budget_s / 2 : 0);
    double cost = pm_fix_plan_cost(&sel, x.ev, x.min_r);
    if (!(plan = plan_json(&x, &sel, cost))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (o->plan)
        o->plan(o->user, plan);
    if (o->dry_run) {
        out = json_incref(plan);
        goto done;
    }

    /* Singles against stock. */
    size_t first_single = x.n_jobs;
    for (size_t i = 0; i < sel.n; i++) {
        const pm_fix_pick *p = &sel.picks[i];
        job *jb = new_job(&x, "stock", x.cat.items[p->fix].variant, p->configs, p->n_configs, (long)p->fix, err);
        if (!jb) {
            rc = PM_ERR_NOMEM;
            goto cleanup;
        }
        if (!p->n_configs) {
            jb->verdict = PM_FIX_NOT_RUN;
            jb->note = p->why_not;
        } else if (p->note[0]) {
            jb->note = p->note;
        }
        if ((jb->from_study = p->from_study) && p->n_configs) {
            if (!jb->note)
                jb->note = "measured from the study: its warm runs (the back end's warm path) against its cold "
                           "runs of the same configs";
            /* no round: the study already holds both sides; judged once, at the repeats it has */
            if ((rc = measure(&x, jb, 0, 1, err)))
                goto cleanup;
            jb->repeats = x.src_spec->repeats;
            if (!jb->m.n_configs) {
                /* nothing to judge: say why rather than list the compile's passes as "removed" */
                jb->verdict = PM_FIX_NOT_RUN;
                jb->note = "the study has no ok warm runs on these configs (offline compiles import nothing; a "
                           "failed import is a failed warm run)";
                json_decref(jb->detail);
                jb->detail = NULL;
            }
            if (jb->m.n_configs)
                note(&x, "%s: %s from the study's warm runs against its cold runs (%.3gx on %zu configs, n>=%d)",
                     jb->b, pm_fix_verdict_name(jb->verdict), jb->m.ratio, jb->m.n_configs, jb->m.min_n);
            else
                note(&x, "%s: not run: %s", jb->b, jb->note);
        }
    }
    size_t n_single = x.n_jobs - first_single;
    job **singles = malloc((n_single ? n_single : 1) * sizeof *singles);
    if (!singles) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n_single; i++)
        singles[i] = &x.jobs[first_single + i];
    rc = settle(&x, singles, n_single, err);
    free(singles);
    if (rc)
        goto cleanup;
    for (size_t i = first_single; i < first_single + n_single; i++) {
        if (x.jobs[i].verdict == PM_FIX_UNDECIDED) {
            x.jobs[i].verdict = PM_FIX_NOT_RUN;
            x.jobs[i].note = "budget spent before it was decided";
        }
        if (x.jobs[i].verdict == PM_FIX_BETTER)
            check_job(&x, &x.jobs[i]);
    }

    /* Greedy combination of the singles that are faster and compute the same, best first. */
    ranked = malloc((n_single ? n_single : 1) * sizeof *ranked);
    best = malloc((n_single ? n_single : 1) * sizeof *best);
    job *sorted = malloc((n_single ? n_single : 1) * sizeof *sorted);
    if (!ranked || !best || !sorted) {
        free(sorted);
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    size_t n_ranked = 0;
    for (size_t i = first_single; i < first_single + n_single; i++)
        if (x.jobs[i].verdict == PM_FIX_BETTER && !x.jobs[i].check_gave_no_answer &&
            (!x.jobs[i].tradeoff || o->accept_slower_code))
            sorted[n_ranked++] = x.jobs[i];
    qsort_r(sorted, n_ranked, sizeof *sorted, cmp_ratio, &x);
    for (size_t i = 0; i < n_ranked; i++)
        ranked[i] = (size_t)sorted[i].fix;
    free(sorted);
    size_t n_best = 0;
    int stopped = 0;
    greedy_ctx g = {.x = &x, .sel = &sel, .err = err};
    if ((rc = pm_fix_greedy(ranked, n_ranked, try_combo, &g, best, &n_best, &stopped)) || (rc = g.rc))
        goto cleanup;

    /* The combination to ship, against stock on its configs. */
    json_t *rec = json_null();
    if (n_best) {
        char vb[64];
        if ((rc = pm_fix_combo_variant(&x.cat, best, n_best, vb, sizeof vb, err)))
            goto cleanup;
        job *head = NULL;
        for (size_t i = 0; i < x.n_jobs && !head; i++)
            if (!strcmp(x.jobs[i].a, "stock") && !strcmp(x.jobs[i].b, vb))
                head = &x.jobs[i];
        if (!head) {
            /* its configs: those of the last accepted greedy step */
            const job *src = NULL;
            for (size_t i = 0; i < x.n_jobs; i++)
                if (!strcmp(x.jobs[i].b, vb))
                    src = &x.jobs[i];
            if (!src || !(head = new_job(&x, "stock", vb, src->cfg, src->n_cfg,
                                         pm_fix_catalogue_find_variant(&x.cat, vb), err))) {
                rc = src ? PM_ERR_NOMEM : pm_err_set(err, PM_ERR_UNSUPPORTED, "combination %s has no runs", vb);
                goto cleanup;
            }
            size_t hi = x.n_jobs - 1;
            job *one = &x.jobs[hi];
            if ((rc = settle(&x, &one, 1, err)))
                goto cleanup;
            head = &x.jobs[hi];
            for (size_t i = 0; i < x.n_jobs; i++)
                if (i != hi && !strcmp(x.jobs[i].b, vb) && x.jobs[i].output[0]) {
                    snprintf(head->output, sizeof head->output, "%s", x.jobs[i].output);
                    head->same = x.jobs[i].same;
                    /* the program side was measured against stock's build: it holds for the head too */
                    json_decref(head->ledger);
                    head->ledger = x.jobs[i].ledger ? json_deep_copy(x.jobs[i].ledger) : NULL;
                    head->tradeoff = x.jobs[i].tradeoff;
                }
        }
        /* Shipped only when proven faster and its output was checked equal (or the user waived the check). */
        int ships = head->verdict == PM_FIX_BETTER &&
                    (head->same || (o->no_check && !strncmp(head->output, "unchecked", 9))) &&
                    (!head->tradeoff || o->accept_slower_code);
        rec = json_pack("{s:s, s:o, s:o, s:o, s:I, s:i, s:s, s:s, s:b, s:I}", "variant", vb, "ratio",
                        num(head->m.ratio),
                        "ci_lo", num(head->m.lo), "ci_hi", num(head->m.hi), "n_configs",
                        (json_int_t)head->m.n_configs, "min_runs", head->m.min_n, "verdict",
                        pm_fix_verdict_name(head->verdict), "output", head->output[0] ? head->output : "unchecked",
                        "ship", ships, "contended_configs", (json_int_t)head->m.n_contended);
        job_ledger_json(head, rec);
        json_object_set_new(rec, "config_verdicts", json_pack("{s:I, s:I, s:I, s:I, s:I}", "faster",
                            (json_int_t)head->m.faster, "slower", (json_int_t)head->m.slower, "same",
                            (json_int_t)head->m.same, "undecided", (json_int_t)head->m.undecided, "untested",
                            (json_int_t)head->m.untested));
        json_object_set_new(rec, "repeats_needed", num(head->m.repeats_needed));
    }

    json_t *table = json_array();
    for (size_t i = 0; i < x.n_jobs; i++) {
        const job *jb = &x.jobs[i];
        const pm_fix_def *d = jb->fix >= 0 ? &x.cat.items[jb->fix] : NULL;
        char name[160];
        if (strcmp(jb->a, "stock"))
            snprintf(name, sizeof name, "%s (vs %s)", d ? d->name : jb->b, jb->a);
        else
            snprintf(name, sizeof name, "%s", d ? d->name : jb->b);
        json_array_append_new(table, job_json(&x, jb, name, d));
    }
    out = json_deep_copy(plan);
    json_object_set_new(out, "recommended", rec);
    json_object_set_new(out, "results", table);
    json_object_set_new(out, "frontier", frontier_json(&x, json_object_get(rec, "variant")));
    json_object_set_new(out, "accept_slower_code", json_boolean(o->accept_slower_code));
    json_object_set_new(out, "check_tolerance", json_real(x.fx->tolerance));
    json_object_set_new(out, "spent_s", json_real(elapsed(&x)));
    json_object_set_new(out, "budget_exhausted", json_boolean(x.budget_hit || stopped));
    char key[200];
    snprintf(key, sizeof key, "%s%s", PM_FIX_META_PREFIX, x.study);
    if ((rc = keep_earlier_results(x.store, key, out, err)))
        goto cleanup;
    char *text = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
    rc = text ? pm_store_meta_set(x.store, key, text, err) : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    free(text);
    if (rc)
        goto cleanup;
done:
    *result = out;
    out = NULL;
cleanup:
    json_decref(out);
    json_decref(plan);
    free(ranked);
    free(best);
    pm_fix_selection_free(&sel);
    fix_ctx_free(&x);
    return rc;
}

int pm_fix_propose(const char *db_path, pm_analysis *an, int allow_contended, json_t **plan, pm_err *err)
{
    *plan = NULL;
    pm_fix_opts o = {.db_path = db_path, .sweep = an ? an->sweep : NULL, .allow_contended = allow_contended,
                     .dry_run = 1};
    fix_ctx x = {.o = &o, .an = an, .an_borrowed = 1, .exclude_contended = !allow_contended, .min_r = 3,
                 .max_r = 10, .threshold = PM_COMPARE_THRESHOLD};
    pm_fix_selection sel = {0};
    int rc;
    if (!an || !an->sweep || strchr(an->sweep, ','))
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "fixes are proposed for one sweep at a time");
    if ((rc = pm_store_open_readonly(db_path, &x.store, err)) || (rc = load_study(&x, err)))
        goto cleanup;
    if ((rc = build_evidence(&x, err))) {
        if (x.none_why) {   /* nothing to propose from: an answer, not a failure */
            *plan = json_pack("{s:s, s:s, s:[], s:s}", "study", x.study, "backend", x.backend, "fixes", "none",
                              x.none_why);
            rc = *plan ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        goto cleanup;
    }
    if ((rc = load_catalogue(&x, err)))
        goto cleanup;
    pm_fix_select_opts so = {.per_fix = 3, .from_study_variant = x.fx->warm_variant,
                             .runnable = x.fx->runnable ? runnable : NULL, .user = &x};
    if ((rc = pm_fix_select_ex(&x.cat, x.ev, x.n_ev, x.superlinear, x.n_superlinear, &so, &sel, err)))
        goto cleanup;
    if (!(*plan = plan_json(&x, &sel, pm_fix_plan_cost(&sel, x.ev, x.min_r)))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* the evidence that selected each proposal: every config its rule holds on, with its regime */
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(*plan, "fixes"), i, f) {
        json_t *ev = json_array();
        for (size_t k = 0; k < x.n_ev; k++)
            if (pm_fix_rule_matches(&x.cat.items[i], &x.ev[k], x.superlinear, x.n_superlinear))
                json_array_append_new(ev, json_pack("{s:s, s:s}", "key", x.ev[k].key, "regime", x.ev[k].regime));
        json_object_set_new(f, "matches", ev);
    }
cleanup:
    pm_fix_selection_free(&sel);
    fix_ctx_free(&x);
    return rc;
}
