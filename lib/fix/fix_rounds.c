/* The A/B rounds: each round's cost, its runs (a sweep of the fix variants), and the comparison that settles
 * each job or asks for more repeats. */
#include "fix_internal.h"

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
        pm_fix_base_key(spec->configs[i].key, spec->configs[i].variant, base, sizeof base);
        double wall = 0;
        for (size_t k = 0; k < x->n_ev; k++) {
            char eb[600];
            pm_fix_ev_base(x, k, eb, sizeof eb);
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
            cfgs[n] = pm_fix_ev_config(x, jobs[j]->cfg[i]), vars[n++] = jobs[j]->a;
            cfgs[n] = pm_fix_ev_config(x, jobs[j]->cfg[i]), vars[n++] = jobs[j]->b;
        }
    if ((rc = x->fx->round(x->src_spec, cfgs, vars, n, repeats, x->fix_sweep, &spec, err))) {
        pm_err_wrap(err, "the A/B spec of a round");
        goto cleanup;
    }
    double cost;
    if ((rc = round_cost(x, spec, repeats, &cost, err)))
        goto cleanup;
    if (x->budget_s > 0 && cost > 0 && pm_fix_elapsed(x) + cost > x->budget_s) {
        pm_fix_note(x, "budget: a round of %d repeats needs ~%.0f s more, %.0f s left: not run", repeats, cost,
             x->budget_s - pm_fix_elapsed(x));
        x->budget_hit = 1;
        goto cleanup;
    }
    /* every run is in: judged as it is, with no sweep started after the deadline */
    if (cost <= 0 && pm_fix_past_deadline(x)) {
        *ran = 1;
        goto cleanup;
    }
    if (cost > 0)
        pm_fix_note(x, "round: %d (config, variant) pairs to %d repeats (~%.0f s left to run)", spec->n_configs, repeats,
             cost);
    /* the estimate may be short (a loaded machine, a slow config): the deadline stops the round's runs too */
    pm_sweep_opts so = {.db_path = x->o->db_path, .self_exe = x->self, .warm = 0, .meter = x->o->meter,
                        .jobs = x->o->jobs,
                        .progress = x->o->progress, .progress_user = x->o->user, .stop = x->o->stop,
                        .notice = x->o->note, .notice_user = x->o->user,
                        .deadline = x->budget_s > 0 ? x->t0 + x->budget_s : 0};
    pm_sweep_summary sum;
    if ((rc = pm_sweep_run(spec, &so, &sum, err)))
        goto cleanup;
    if (sum.interrupted) {
        rc = pm_err_set(err, PM_ERR_CHILD, "interrupted (rerun `passmap fix` to resume)");
        goto cleanup;
    }
    if (sum.deadline_hit) {
        x->budget_hit = 1;
        pm_fix_note(x, "budget: the round stopped at the deadline after %d of its %d runs", sum.ran, sum.planned);
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

json_t *pm_fix_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Measures a job from the store with compare's numbers and judges it, on the runs of repeats below `repeats`
 * only: stock's runs are shared, and a later round for another fix (or a resumed search) must not change what
 * this round's verdict saw, or a rerun would not reproduce the first one. */
int pm_fix_measure_job(fix_ctx *x, job *jb, int repeats, int at_limit, pm_err *err)
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
    /* compare's summary estimate: every tested config, not the decided ones only (those select larger effects) */
    pm_fix_measure m = {.n_configs = 0, .min_n = INT_MAX, .ratio = r.pooled_ratio,
                        .lo = r.pooled_ci_lo, .hi = r.pooled_ci_hi, .faster = r.faster, .slower = r.slower,
                        .same = r.same, .undecided = r.undecided, .untested = r.untested, .repeats_needed = NAN,
                        .n_contended = r.n_contended, .allow_contended = x->o->allow_contended};
    /* a count is untouched by contention (decide.h): compare decided its configs anyway, and so does the fix */
    if (pm_decide_row_of((pm_decide_metric)r.decided_on)->count)
        m.n_contended = 0;
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
            const pm_compare_stat *st = pm_compare_decider(&r, &r.configs[i]);
            /* a summary obeys the rule: decided configs only, the others counted */
            int decided = st->verdict == PM_VERDICT_FASTER || st->verdict == PM_VERDICT_SLOWER ||
                          st->verdict == PM_VERDICT_SAME;
            for (size_t q = 0; q < x->n_ev; q++) {
                char eb[600];
                pm_fix_ev_base(x, q, eb, sizeof eb);
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
                                                     "of", all, "geomean_ratio", pm_fix_num(cnt ? exp(sum / cnt) : NAN)));
    }
    double seen = 0;
    int n_seen = 0;
    jb->seen_lo = jb->seen_hi = NAN;
    for (size_t i = 0; i < r.n_configs; i++) {
        const pm_compare_stat *st = pm_compare_decider(&r, &r.configs[i]);   /* the deciding metric's (decide.h) */
        if (st->ratio > 0 && isfinite(st->ratio)) {
            seen += log(st->ratio);
            jb->seen_lo = n_seen ? NAN : st->ci_lo;
            jb->seen_hi = n_seen ? NAN : st->ci_hi;
            n_seen++;
        }
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
    jb->seen_ratio = n_seen ? exp(seen / n_seen) : NAN;
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
int pm_fix_settle(fix_ctx *x, job **jobs, size_t n_jobs, pm_err *err)
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
            if ((rc = pm_fix_measure_job(x, pending[j], r, ran && r == x->max_r, &merr))) {
                /* The budget refused this round and the job never ran a round before (a combination the greedy
                 * search reached as the budget ran out): nothing to measure, which is "not run", not an error. */
                if (!ran && rc == PM_ERR_USAGE && pending[j]->repeats == 0) {
                    pending[j]->verdict = PM_FIX_NOT_RUN;
                    pm_fix_note(x, "%s vs %s: not run (budget)", pending[j]->b, pending[j]->a);
                    rc = PM_OK;
                    continue;
                }
                *err = merr;
                goto cleanup;
            }
            if (ran)
                pending[j]->repeats = r;
            if (pending[j]->verdict != PM_FIX_UNDECIDED)
                pm_fix_note(x, "%s vs %s: %s (%.3fx on %zu configs, n>=%d)", pending[j]->b, pending[j]->a,
                     pm_fix_verdict_name(pending[j]->verdict), pending[j]->m.ratio, pending[j]->m.n_configs,
                     pending[j]->m.min_n);
        }
        if (!ran || x->budget_hit)
            break;
    }
cleanup:
    free(pending);
    return rc;
}
