/* Combinations of proven fixes, chosen greedily, and the frontier of compile time against program time. */
#include "fix_internal.h"

const pm_fix_pick *pm_fix_pick_of(const pm_fix_selection *sel, size_t fix)
{
    for (size_t i = 0; i < sel->n; i++)
        if (sel->picks[i].fix == fix)
            return &sel->picks[i];
    return NULL;
}

pm_fix_verdict pm_fix_try_combo(void *user, const size_t *combo, size_t n, const size_t *base, size_t nb)
{
    greedy_ctx *g = user;
    fix_ctx *x = g->x;
    if (g->rc)
        return PM_FIX_NOT_RUN;
    char vb[64], va[64];
    if ((g->rc = pm_fix_combo_variant(&x->cat, combo, n, vb, sizeof vb, g->err)) ||
        (g->rc = pm_fix_combo_variant(&x->cat, base, nb, va, sizeof va, g->err)))
        return PM_FIX_NOT_RUN;
    const pm_fix_pick *p = pm_fix_pick_of(g->sel, combo[0]);
    for (size_t k = 0; k < n && x->fx->warm_variant; k++)
        if (!strcmp(x->cat.items[combo[k]].variant, x->fx->warm_variant)) {
            /* a warm start compiles nothing: no compile fix adds to it, and no round can run it */
            job *jb = pm_fix_new_job(x, va, vb, NULL, 0, -1, g->err);
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
    job *jb = pm_fix_new_job(x, va, vb, cfg, nc, pm_fix_catalogue_find_variant(&x->cat, vb), g->err);
    if (!jb) {
        g->rc = PM_ERR_NOMEM;
        return PM_FIX_NOT_RUN;
    }
    size_t idx = x->n_jobs - 1;
    if (!nc) {
        x->jobs[idx].verdict = PM_FIX_NOT_RUN;
        x->jobs[idx].note = "the members' rules hold together on none of the configs";
        pm_fix_note(x, "%s: not tried (%s)", vb, x->jobs[idx].note);
        return PM_FIX_NO_EFFECT;
    }
    pm_fix_note(x, "greedy: %s against %s on %zu configs", vb, va, nc);
    job *one = &x->jobs[idx];
    if ((g->rc = pm_fix_settle(x, &one, 1, g->err)))
        return PM_FIX_NOT_RUN;
    one = &x->jobs[idx];
    if (one->verdict == PM_FIX_UNDECIDED) {
        pm_fix_budget_ended(one);
        return PM_FIX_NOT_RUN;   /* the greedy search stops here: the budget is spent */
    }
    if (one->verdict == PM_FIX_BETTER)
        pm_fix_check_job(x, one);
    if (one->verdict == PM_FIX_BETTER && one->tradeoff && !x->o->accept_slower_code)
        return PM_FIX_NO_EFFECT;   /* faster to compile, slower to run: not added unless accepted */
    return one->verdict;
}

/* pm_fix_select_opts.runnable: the back end's say on one (fix, config) pair. */
int pm_fix_runnable(void *user, size_t fix, size_t ev, char *why, size_t cap)
{
    fix_ctx *x = user;
    return x->fx->runnable(x->src_spec, pm_fix_ev_config(x, ev), x->cat.items[fix].variant, why, cap);
}

int pm_fix_cmp_ratio(const void *a, const void *b, void *ctx)
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
json_t *pm_fix_frontier_json(const fix_ctx *x, const json_t *rec_variant)
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
                                             "compile_ratio", p[i].c, "compile_ci_lo", pm_fix_num(p[i].clo), "compile_ci_hi",
                                             pm_fix_num(p[i].chi), "run_ratio", p[i].r, "run_ci_lo", pm_fix_num(p[i].rlo),
                                             "run_ci_hi", pm_fix_num(p[i].rhi), "tradeoff", p[i].slower, "why", why));
    }
    free(p);
    return pts;
}
