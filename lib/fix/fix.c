/* passmap fix: propose, run and prove fixes (see fix.h). */
#include "fix_internal.h"
#include "meter.h"

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

static void fix_ctx_free(fix_ctx *x)
{
    for (size_t i = 0; i < x->n_jobs; i++) {
        free(x->jobs[i].cfg);
        json_decref(x->jobs[i].detail);
        json_decref(x->jobs[i].ledger);
    }
    pm_free_all(x->jobs, x->refs);
    for (size_t i = 0; i < x->n_ev; i++)
        free(x->heavy_names[i]);
    pm_free_all(x->heavy_names, x->ev, x->ev_cfg, x->ev_an, x->superlinear);
    pm_fix_catalogue_free(&x->cat);
    if (!x->an_borrowed)
        pm_analysis_free(x->an);
    pm_spec_free(x->src_spec);
    pm_store_close(x->store);
}

/* pm_fix_run's state, handed from phase to phase. */
typedef struct {
    fix_ctx x;
    pm_fix_selection sel;
    json_t *plan, *out, *rec;
    size_t *ranked, *best;
    size_t first_single, n_single, n_best;
    int stopped;
} fix_run;

/* Repeats that allow a conclusion, and passmap's own executable (the rounds run it). */
static int fix_run_check(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    if (x->min_r < 3)
        return pm_err_set(err, PM_ERR_USAGE, "min repeats %d: no conclusion from fewer than 3 runs", x->min_r);
    if (x->max_r < x->min_r)
        return pm_err_set(err, PM_ERR_USAGE, "max repeats %d below min repeats %d", x->max_r, x->min_r);
    if (o->jobs > 1) { /* refused before anything runs, as sweep --jobs is (its rounds are sweeps) */
        const pm_meter *m;
        int rc = pm_meter_resolve(o->meter, &m, err);
        if (rc || (rc = pm_meter_check_jobs(m, o->jobs, err)))
            return rc;
    }
    if (o->self_exe)
        snprintf(x->self, sizeof x->self, "%s", o->self_exe);
    else if (!realpath("/proc/self/exe", x->self))
        return pm_err_errno(err, PM_ERR_IO, "cannot find passmap's own executable");
    return PM_OK;
}

/* The store, the study, its evidence and the catalogue of fixes. */
static int fix_run_setup(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    int rc;
    /* a dry run writes nothing: read-only, so an older store is not migrated in place either */
    if ((rc = (o->dry_run ? pm_store_open_readonly : pm_store_open)(o->db_path, &x->store, err)) ||
        (rc = pm_fix_load_study(x, err)) || (rc = pm_fix_build_evidence(x, err)))
        return rc;
    return load_catalogue(x, err);
}

/* Which fixes run on which configs; the plan goes to the caller before anything runs. */
static int fix_run_plan(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    int rc;
    int per_fix = o->configs_per_fix > 0 ? o->configs_per_fix : 3;
    pm_fix_select_opts so = {.per_fix = per_fix, .from_study_variant = x->fx->warm_variant,
                             .runnable = x->fx->runnable ? pm_fix_runnable : NULL, .user = x};
    if ((rc = pm_fix_select_ex(&x->cat, x->ev, x->n_ev, x->superlinear, x->n_superlinear, &so, &r->sel, err)))
        return rc;
    /* The single-fix round at min repeats gets half the budget; the rest pays for repeats and combinations. */
    pm_fix_fit_budget(&r->sel, x->ev, x->min_r, x->budget_s > 0 ? x->budget_s / 2 : 0);
    double cost = pm_fix_plan_cost(&r->sel, x->ev, x->min_r);
    if (!(r->plan = pm_fix_plan_json(x, &r->sel, cost)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (o->plan)
        o->plan(o->user, r->plan);
    return PM_OK;
}

/* Each fix alone against stock, settled, and its output checked when faster. */
static int fix_run_singles(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    int rc;
    /* What a killed passmap fix's [check] or [run] left running (recorded like a sweep's steps) is reaped before
     * anything is measured: a CPU-bound leftover would load the machine the rounds time. */
    if ((rc = pm_pgroup_recorder_init(&x->pgrec, o->db_path, err)) ||
        (rc = pm_pgroup_reap(o->db_path, o->note, o->user, err)))
        return rc;
    x->have_pgrec = 1;

    /* Singles against stock. */
    size_t first_single = x->n_jobs;
    for (size_t i = 0; i < r->sel.n; i++) {
        const pm_fix_pick *p = &r->sel.picks[i];
        job *jb = pm_fix_new_job(x, "stock", x->cat.items[p->fix].variant, p->configs, p->n_configs, (long)p->fix, err);
        if (!jb)
            return PM_ERR_NOMEM;
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
            if ((rc = pm_fix_measure_job(x, jb, 0, 1, err)))
                return rc;
            jb->repeats = x->src_spec->repeats;
            if (!jb->m.n_configs) {
                /* nothing to judge: say why rather than list the compile's passes as "removed" */
                jb->verdict = PM_FIX_NOT_RUN;
                jb->note = "the study has no ok warm runs on these configs (offline compiles import nothing; a "
                           "failed import is a failed warm run)";
                json_decref(jb->detail);
                jb->detail = NULL;
            }
            if (jb->m.n_configs)
                pm_fix_note(x, "%s: %s from the study's warm runs against its cold runs (%.3gx on %zu configs, n>=%d)",
                     jb->b, pm_fix_verdict_name(jb->verdict), jb->m.ratio, jb->m.n_configs, jb->m.min_n);
            else
                pm_fix_note(x, "%s: not run: %s", jb->b, jb->note);
        }
    }
    size_t n_single = x->n_jobs - first_single;
    r->first_single = first_single;
    r->n_single = n_single;
    job **singles = malloc((n_single ? n_single : 1) * sizeof *singles);
    if (!singles)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_single; i++)
        singles[i] = &x->jobs[first_single + i];
    rc = pm_fix_settle(x, singles, n_single, err);
    free(singles);
    if (rc)
        return rc;
    for (size_t i = first_single; i < first_single + n_single; i++) {
        if (x->jobs[i].verdict == PM_FIX_UNDECIDED)
            pm_fix_budget_ended(&x->jobs[i]);
        if (x->jobs[i].verdict == PM_FIX_BETTER)
            pm_fix_check_job(x, &x->jobs[i]);
    }
    return PM_OK;
}

/* Greedy combination of the singles that are faster and compute the same, best first. */
static int fix_run_combine(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    size_t first_single = r->first_single, n_single = r->n_single;
    int rc;
    r->ranked = malloc((n_single ? n_single : 1) * sizeof *r->ranked);
    r->best = malloc((n_single ? n_single : 1) * sizeof *r->best);
    job *sorted = malloc((n_single ? n_single : 1) * sizeof *sorted);
    if (!r->ranked || !r->best || !sorted) {
        free(sorted);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    size_t n_ranked = 0;
    for (size_t i = first_single; i < first_single + n_single; i++)
        if (x->jobs[i].verdict == PM_FIX_BETTER && !x->jobs[i].check_gave_no_answer &&
            (!x->jobs[i].tradeoff || o->accept_slower_code))
            sorted[n_ranked++] = x->jobs[i];
    qsort_r(sorted, n_ranked, sizeof *sorted, pm_fix_cmp_ratio, x);
    for (size_t i = 0; i < n_ranked; i++)
        r->ranked[i] = (size_t)sorted[i].fix;
    free(sorted);
    r->n_best = 0;
    r->stopped = 0;
    greedy_ctx g = {.x = x, .sel = &r->sel, .err = err};
    if ((rc = pm_fix_greedy(r->ranked, n_ranked, pm_fix_try_combo, &g, r->best, &r->n_best, &r->stopped)) || (rc = g.rc))
        return rc;
    return PM_OK;
}

/* The combination to ship, against stock on its configs. */
static int fix_run_recommend(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    int rc;
    r->rec = json_null();
    if (r->n_best) {
        char vb[64];
        if ((rc = pm_fix_combo_variant(&x->cat, r->best, r->n_best, vb, sizeof vb, err)))
            return rc;
        job *head = NULL;
        for (size_t i = 0; i < x->n_jobs && !head; i++)
            if (!strcmp(x->jobs[i].a, "stock") && !strcmp(x->jobs[i].b, vb))
                head = &x->jobs[i];
        if (!head) {
            /* its configs: those of the last accepted greedy step */
            const job *src = NULL;
            for (size_t i = 0; i < x->n_jobs; i++)
                if (!strcmp(x->jobs[i].b, vb))
                    src = &x->jobs[i];
            if (!src || !(head = pm_fix_new_job(x, "stock", vb, src->cfg, src->n_cfg,
                                         pm_fix_catalogue_find_variant(&x->cat, vb), err)))
                return src ? PM_ERR_NOMEM : pm_err_set(err, PM_ERR_UNSUPPORTED, "combination %s has no runs", vb);
            size_t hi = x->n_jobs - 1;
            job *one = &x->jobs[hi];
            if ((rc = pm_fix_settle(x, &one, 1, err)))
                return rc;
            head = &x->jobs[hi];
            for (size_t i = 0; i < x->n_jobs; i++)
                if (i != hi && !strcmp(x->jobs[i].b, vb) && x->jobs[i].output[0]) {
                    snprintf(head->output, sizeof head->output, "%s", x->jobs[i].output);
                    head->same = x->jobs[i].same;
                    /* the program side was measured against stock's build: it holds for the head too */
                    json_decref(head->ledger);
                    head->ledger = x->jobs[i].ledger ? json_deep_copy(x->jobs[i].ledger) : NULL;
                    head->tradeoff = x->jobs[i].tradeoff;
                }
        }
        /* Shipped only when proven faster and its output was checked equal (or the user waived the check). */
        int ships = head->verdict == PM_FIX_BETTER &&
                    (head->same || (o->no_check && !strncmp(head->output, "unchecked", 9))) &&
                    (!head->tradeoff || o->accept_slower_code);
        r->rec = json_pack("{s:s, s:o, s:o, s:o, s:I, s:i, s:s, s:s, s:b, s:I}", "variant", vb, "ratio",
                           pm_fix_num(head->m.ratio),
                           "ci_lo", pm_fix_num(head->m.lo), "ci_hi", pm_fix_num(head->m.hi), "n_configs",
                           (json_int_t)head->m.n_configs, "min_runs", head->m.min_n, "verdict",
                           pm_fix_verdict_name(head->verdict), "output", head->output[0] ? head->output : "unchecked",
                           "ship", ships, "contended_configs", (json_int_t)head->m.n_contended);
        pm_fix_job_ledger_json(head, r->rec);
        json_object_set_new(r->rec, "config_verdicts", json_pack("{s:I, s:I, s:I, s:I, s:I}", "faster",
                            (json_int_t)head->m.faster, "slower", (json_int_t)head->m.slower, "same",
                            (json_int_t)head->m.same, "undecided", (json_int_t)head->m.undecided, "untested",
                            (json_int_t)head->m.untested));
        json_object_set_new(r->rec, "repeats_needed", pm_fix_num(head->m.repeats_needed));
        /* the metric its ratio is of, as on the results' rows (the head's own measurement) */
        const json_t *on = head->detail ? json_object_get(head->detail, "decided_on") : NULL;
        if (json_is_string(on))
            json_object_set_new(r->rec, "decided_on", json_string(json_string_value(on)));
    }
    return PM_OK;
}

/* Every job's row beside the plan and the recommendation, kept in the store (earlier results kept too). */
static int fix_run_collect(fix_run *r, pm_err *err)
{
    fix_ctx *x = &r->x;
    const pm_fix_opts *o = x->o;
    int rc;
    json_t *table = json_array();
    for (size_t i = 0; i < x->n_jobs; i++) {
        const job *jb = &x->jobs[i];
        const pm_fix_def *d = jb->fix >= 0 ? &x->cat.items[jb->fix] : NULL;
        char name[160];
        if (strcmp(jb->a, "stock"))
            snprintf(name, sizeof name, "%s (vs %s)", d ? d->name : jb->b, jb->a);
        else
            snprintf(name, sizeof name, "%s", d ? d->name : jb->b);
        json_array_append_new(table, pm_fix_job_json(x, jb, name, d));
    }
    r->out = json_deep_copy(r->plan);
    json_object_set_new(r->out, "recommended", r->rec);
    json_object_set_new(r->out, "results", table);
    json_object_set_new(r->out, "frontier", pm_fix_frontier_json(x, json_object_get(r->rec, "variant")));
    json_object_set_new(r->out, "accept_slower_code", json_boolean(o->accept_slower_code));
    json_object_set_new(r->out, "check_tolerance", json_real(x->fx->tolerance));
    json_object_set_new(r->out, "spent_s", json_real(pm_fix_elapsed(x)));
    json_object_set_new(r->out, "budget_exhausted", json_boolean(x->budget_hit || r->stopped));
    char key[200];
    snprintf(key, sizeof key, "%s%s", PM_FIX_META_PREFIX, x->study);
    if ((rc = pm_fix_keep_earlier_results(x->store, key, r->out, err)))
        return rc;
    char *text = json_dumps(r->out, JSON_COMPACT | JSON_SORT_KEYS);
    rc = text ? pm_store_meta_set(x->store, key, text, err) : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    free(text);
    return rc;
}

/* Setup, plan (all a dry run does), then singles, combinations, the recommendation and the stored results. */
int pm_fix_run(const pm_fix_opts *o, json_t **result, pm_err *err)
{
    *result = NULL;
    fix_run r = {.x = {.o = o, .t0 = pm_util_now(), .budget_s = o->budget_s,
                       .min_r = o->min_repeats > 0 ? o->min_repeats : 3,
                       .max_r = o->max_repeats > 0 ? o->max_repeats : 10,
                       .threshold = o->threshold > 0 ? o->threshold : PM_COMPARE_THRESHOLD}};
    int rc;
    if ((rc = fix_run_check(&r, err)))
        return rc;
    if ((rc = fix_run_setup(&r, err)) || (rc = fix_run_plan(&r, err)))
        goto cleanup;
    if (o->dry_run) {
        r.out = json_incref(r.plan);
        goto done;
    }
    if ((rc = fix_run_singles(&r, err)) || (rc = fix_run_combine(&r, err)) || (rc = fix_run_recommend(&r, err)) ||
        (rc = fix_run_collect(&r, err)))
        goto cleanup;
done:
    *result = r.out;
    r.out = NULL;
cleanup:
    json_decref(r.out);
    json_decref(r.plan);
    free(r.ranked);
    free(r.best);
    pm_fix_selection_free(&r.sel);
    fix_ctx_free(&r.x);
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
    if ((rc = pm_store_open_readonly(db_path, &x.store, err)) || (rc = pm_fix_load_study(&x, err)))
        goto cleanup;
    if ((rc = pm_fix_build_evidence(&x, err))) {
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
                             .runnable = x.fx->runnable ? pm_fix_runnable : NULL, .user = &x};
    if ((rc = pm_fix_select_ex(&x.cat, x.ev, x.n_ev, x.superlinear, x.n_superlinear, &so, &sel, err)))
        goto cleanup;
    if (!(*plan = pm_fix_plan_json(&x, &sel, pm_fix_plan_cost(&sel, x.ev, x.min_r)))) {
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
