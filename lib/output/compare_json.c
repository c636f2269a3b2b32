/* compare's JSON (its text tables are compare_out.c): every stat of every row, the sides and the summary. */
#include "compare_out.h"

#include <math.h>

#include "decide.h"

static json_t *jnum(double v)
{
    return v == v && !isinf(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Adds the stat fields to obj. */
static void json_stat(json_t *o, const pm_compare_stat *st)
{
    json_object_set_new(o, "n_a", json_integer((json_int_t)st->n_a));
    json_object_set_new(o, "n_b", json_integer((json_int_t)st->n_b));
    json_object_set_new(o, "mean_a", jnum(st->mean_a));
    json_object_set_new(o, "mean_b", jnum(st->mean_b));
    json_object_set_new(o, "sd_a", jnum(st->sd_a));
    json_object_set_new(o, "sd_b", jnum(st->sd_b));
    json_object_set_new(o, "ratio", jnum(st->ratio));
    json_object_set_new(o, "ci_lo", jnum(st->ci_lo));
    json_object_set_new(o, "ci_hi", jnum(st->ci_hi));
    json_object_set_new(o, "t", jnum(st->t));
    json_object_set_new(o, "df", jnum(st->df));
    json_object_set_new(o, "p", jnum(st->p));
    json_object_set_new(o, "gmean_a", jnum(st->gmean_a));
    json_object_set_new(o, "gmean_b", jnum(st->gmean_b));
    json_object_set_new(o, "gmean_a_lo", jnum(st->lo_a));
    json_object_set_new(o, "gmean_a_hi", jnum(st->hi_a));
    json_object_set_new(o, "gmean_b_lo", jnum(st->lo_b));
    json_object_set_new(o, "gmean_b_hi", jnum(st->hi_b));
    json_object_set_new(o, "p_holm", jnum(st->p_holm));
    json_object_set_new(o, "ci_level", jnum(isnan(st->level) ? NAN : 1 - st->level));
    /* the interval is simultaneous over its family: every row at 0.05 / family_m (Bonferroni) */
    json_object_set_new(o, "ci_kind", isnan(st->level) ? json_null() : json_string("simultaneous (Bonferroni)"));
    json_object_set_new(o, "family_m", json_integer((json_int_t)st->family_m));
    json_object_set_new(o, "tick_s", jnum(st->tick > 0 ? st->tick : NAN));
    json_object_set_new(o, "repeats_needed", jnum(st->repeats_needed));
    json_object_set_new(o, "repeats_needed_lo", jnum(st->repeats_needed_lo));
    json_object_set_new(o, "repeats_needed_hi", jnum(isinf(st->repeats_needed_hi) ? NAN : st->repeats_needed_hi));
    json_object_set_new(o, "rounding_bound_log", jnum(st->bias_log));
    json_object_set_new(o, "var_log_a", jnum(st->var_a));   /* per-run log variances, rounding included: what the */
    json_object_set_new(o, "var_log_b", jnum(st->var_b));   /* runs-to-settle search takes */
    json_object_set_new(o, "verdict", json_string(pm_compare_verdict_name(st->verdict)));
    json_object_set_new(o, "rule_verdict", json_string(pm_compare_verdict_name(st->tested)));
    json_object_set_new(o, "contended", json_boolean(st->contended));
    json_object_set_new(o, "delta", jnum(st->delta));
    json_object_set_new(o, "significant",
                        st->significant == PM_COMPARE_NA ? json_null() : json_boolean(st->significant));
}

static const char *presence_name(pm_compare_presence p)
{
    return p == PM_COMPARE_ADDED ? "added" : p == PM_COMPARE_REMOVED ? "removed" : "both";
}

static json_t *json_rows(const pm_compare_row *rows, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "tool", jstr(rows[i].tool));
        if (rows[i].pass)
            json_object_set_new(o, "pass", jstr(rows[i].pass));
        if (rows[i].alias)   /* the name one build printed, matched through the alias table */
            json_object_set_new(o, "printed_as", jstr(rows[i].alias));
        json_object_set_new(o, "presence", json_string(presence_name(rows[i].presence)));
        json_stat(o, &rows[i].st);
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *json_side(const pm_compare_side *s)
{
    json_t *o = json_pack("{s:s, s:s?, s:s, s:s?, s:b}", "db", s->path, "sweep", s->sweep, "variant",
                          s->variant ? s->variant : "", "meter", s->meter, "walls_slowed", s->walls_slowed);
    if (o && s->timing_flags)   /* only with twin runs: other comparisons write what they wrote before */
        json_object_set_new(o, "timing_flags", json_string(s->timing_flags));
    return o;
}

static json_t *json_strs(char *const *v, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        json_array_append_new(arr, json_string(v[i]));
    return arr;
}

json_t *pm_compare_to_json(const pm_compare_result *r)
{
    json_t *root = json_object(), *configs = json_array(), *passes = json_array(), *summary = json_object(),
           *regimes = json_array(), *regimes_old = json_array();
    if (!root || !configs || !passes || !summary || !regimes || !regimes_old) {
        json_decref(root), json_decref(configs), json_decref(passes), json_decref(summary), json_decref(regimes);
        json_decref(regimes_old);
        return NULL;
    }
    json_object_set_new(root, "a", json_side(&r->a));
    json_object_set_new(root, "b", json_side(&r->b));
    json_object_set_new(root, "cross_host_configs", json_integer((json_int_t)r->n_cross_host));
    json_object_set_new(root, "host_warning", r->host_warning ? json_string(r->host_warning) : json_null());
    char differ[512];
    int fc = pm_flagcost_differ(&r->a.flagcost, &r->b.flagcost, r->threshold, differ, sizeof differ);
    if (fc)   /* only with twin runs on both sides: other comparisons write what they wrote before */
        json_object_set_new(root, fc == PM_FLAGCOST_DIFFER ? "timing_flags_differ" : "timing_flags_undecided",
                            json_string(differ));
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        json_t *o = json_object(), *wall = json_object();
        json_object_set_new(o, "key", json_string(c->key));
        json_object_set_new(o, "key_a", json_string(c->key_a));
        json_object_set_new(o, "key_b", json_string(c->key_b));
        /* the step tool that dominates the config's compile; "regime" (the report's word for the dominant stage)
         * is its old name, kept for one release (docs/json.md) */
        json_object_set_new(o, "dominant_tool", json_string(c->regime));
        json_object_set_new(o, "regime", json_string(c->regime));
        json_object_set_new(o, "contended", json_pack("{s:o, s:o}", "a", jstr(c->contended_a), "b",
                                                      jstr(c->contended_b)));
        json_stat(wall, &c->wall);
        json_object_set_new(o, "wall", wall);
        if (r->decided_on != PM_DECIDE_WALL) {   /* the stat the config's verdict came from */
            json_t *m = json_object();
            json_stat(m, &c->metric);
            json_object_set_new(o, "metric", m);
        }
        json_object_set_new(o, "steps", json_rows(c->steps, c->n_steps));
        json_object_set_new(o, "passes", json_rows(c->passes, c->n_passes));
        json_array_append_new(configs, o);
    }
    for (size_t i = 0; i < r->n_passes; i++) {
        const pm_compare_pass_total *p = &r->passes[i];
        json_array_append_new(passes, json_pack("{s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I}",
            "tool", jstr(p->tool), "pass", jstr(p->pass), "n_configs", (json_int_t)p->n_configs,
            "total_a", jnum(p->total_a), "total_b", jnum(p->total_b), "delta", jnum(p->delta),
            "saved", jnum(-p->delta), "faster", (json_int_t)p->faster, "slower", (json_int_t)p->slower,
            "added", (json_int_t)p->added, "removed", (json_int_t)p->removed));
    }
    for (size_t i = 0; i < r->n_regimes; i++) {
        const pm_compare_regime *g = &r->regimes[i];
        json_t *row = json_pack("{s:s, s:I, s:I, s:o, s:I, s:I}", "dominant_tool", g->regime, "n_configs",
            (json_int_t)g->n_configs, "n_all", (json_int_t)g->n_all, "geomean_ratio", jnum(g->geomean_ratio),
            "faster", (json_int_t)g->faster, "slower", (json_int_t)g->slower);
        json_t *old = json_deep_copy(row);   /* by_regime: the same rows under their old key, for one release */
        if (old) {
            json_object_set_new(old, "regime", json_string(g->regime));
            json_object_del(old, "dominant_tool");
        }
        json_array_append_new(regimes, row);
        json_array_append_new(regimes_old, old);
    }
    json_object_set_new(summary, "threshold", jnum(r->threshold));
    json_object_set_new(summary, "decided_on", json_string(pm_decide_name((pm_decide_metric)r->decided_on)));
    json_object_set_new(summary, "geomean_ratio", jnum(r->geomean_ratio));
    json_object_set_new(summary, "ci_lo", jnum(r->geomean_ci_lo));
    json_object_set_new(summary, "ci_hi", jnum(r->geomean_ci_hi));
    json_object_set_new(summary, "n_configs", json_integer((json_int_t)r->n_configs));
    json_object_set_new(summary, "n_ratios", json_integer((json_int_t)r->n_ratios));
    /* the estimate over every tested, uncontended config (geomean_ratio above: the decided ones only, biased) */
    json_object_set_new(summary, "pooled_ratio", jnum(r->pooled_ratio));
    json_object_set_new(summary, "pooled_ci_lo", jnum(r->pooled_ci_lo));
    json_object_set_new(summary, "pooled_ci_hi", jnum(r->pooled_ci_hi));
    json_object_set_new(summary, "n_pooled", json_integer((json_int_t)r->n_pooled));
    json_object_set_new(summary, "faster", json_integer((json_int_t)r->faster));
    json_object_set_new(summary, "slower", json_integer((json_int_t)r->slower));
    json_object_set_new(summary, "same", json_integer((json_int_t)r->same));
    json_object_set_new(summary, "undecided", json_integer((json_int_t)r->undecided));
    json_object_set_new(summary, "untested", json_integer((json_int_t)r->untested));
    char line[1024];
    pm_compare_summary_text(r, line, sizeof line);
    json_object_set_new(summary, "text", json_string(line));
    json_object_set_new(summary, "contended", json_integer((json_int_t)r->n_contended));
    json_object_set_new(summary, "allow_contended", json_boolean(r->allow_contended));
    json_object_set_new(summary, "by_dominant_tool", regimes);
    json_object_set_new(summary, "by_regime", regimes_old);
    json_object_set_new(root, "configs", configs);
    json_object_set_new(root, "passes", passes);
    json_object_set_new(root, "summary", summary);
    json_object_set_new(root, "only_a", json_strs(r->only_a, r->n_only_a));
    json_object_set_new(root, "only_b", json_strs(r->only_b, r->n_only_b));
    return root;
}
