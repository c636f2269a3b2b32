/* The fix ledger's JSON: each job's verdict, ratio, checks and rule, the plan, and earlier results kept. */
#include "fix_internal.h"

static char *rule_text(const pm_fix_def *f)
{
    char *s = NULL;
    if (asprintf(&s, "regime %s; heavy pass %s%s; size %s", f->regime, f->pass,
                 f->superlinear ? " (superlinear)" : "", f->size) < 0)
        return NULL;
    return s;
}

/* The program side of a job's ledger onto its row: "run", "size", "tradeoff". */
void pm_fix_job_ledger_json(const job *jb, json_t *o)
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
int pm_fix_keep_earlier_results(pm_store *st, const char *key, json_t *out, pm_err *err)
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

json_t *pm_fix_job_json(fix_ctx *x, const job *jb, const char *name, const pm_fix_def *def)
{
    json_t *keys = json_array();
    for (size_t i = 0; i < jb->n_cfg; i++)
        json_array_append_new(keys, json_string(x->ev[jb->cfg[i]].key));
    char *rule = def ? rule_text(def) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:s, s:o, s:o, s:o, s:I, s:i, s:i, s:s}", "name", name,
                          "variant", jb->b, "against", jb->a, "combination", strchr(jb->b, '+') != NULL,
                          "predicted", rule ? json_string(rule) : json_string("all member rules"), "why",
                          def ? json_string(def->why) : json_null(), "verdict", pm_fix_verdict_name(jb->verdict),
                          "ratio", pm_fix_num(jb->m.ratio), "ci_lo", pm_fix_num(jb->m.lo), "ci_hi", pm_fix_num(jb->m.hi), "n_configs",
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
    pm_fix_job_ledger_json(jb, o);
    json_object_set_new(o, "config_verdicts", json_pack("{s:I, s:I, s:I, s:I, s:I}", "faster",
                        (json_int_t)jb->m.faster, "slower", (json_int_t)jb->m.slower, "same", (json_int_t)jb->m.same,
                        "undecided", (json_int_t)jb->m.undecided, "untested", (json_int_t)jb->m.untested));
    json_object_set_new(o, "repeats_needed", pm_fix_num(jb->m.repeats_needed));
    return o;
}

json_t *pm_fix_plan_json(fix_ctx *x, const pm_fix_selection *sel, double cost)
{
    json_t *fixes = json_array();
    for (size_t f = 0; f < x->cat.n; f++) {
        const pm_fix_def *d = &x->cat.items[f];
        const pm_fix_pick *p = pm_fix_pick_of(sel, f);
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
