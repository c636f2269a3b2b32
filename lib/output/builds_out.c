/* The "between builds" section (see builds_out.h). */
#include "builds_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_out.h"
#include "decide.h"

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

/* A row the rule did not test: outside the family, below its timer's resolution, or no test at all (the
 * counts say how many; compare's JSON under "pairs" keeps every row). An ambiguous match is listed: its numbers
 * are shown beside its mark, never tested. */
static int untested(pm_compare_verdict v)
{
    return v == PM_VERDICT_OUTSIDE || v == PM_VERDICT_NA || v == PM_VERDICT_BELOW_RESOLUTION;
}

pm_table *pm_builds_pass_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"pair", "builds (A -> B)", NULL}, {"config", "config (A side)", NULL}, {"tool", "tool", NULL},
        {"pass", "pass", NULL},            {"printed_as", "renamed from", NULL}, {"a_s", "A", "s"},
        {"b_s", "B", "s"},                 {"ratio", "B/A", "ratio"},
        {"ci", "95% simultaneous CI (Bonferroni)", "ratio"}, {"verdict", "mark", NULL},
    };
    const pm_an_builds *bw = &a->between;
    pm_table *t = pm_table_new("t-builds", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t p = 0; t && !rc && p < bw->n_pairs; p++) {
        const pm_compare_result *r = &bw->pairs[p].cmp;
        for (size_t c = 0; !rc && c < r->n_configs; c++) {
            const pm_compare_config *cc = &r->configs[c];
            for (size_t k = 0; !rc && k < cc->n_passes; k++) {
                const pm_compare_row *row = &cc->passes[k];
                if (row->presence != PM_COMPARE_BOTH || untested(row->st.tested))
                    continue;
                long ri = pm_table_add_row(t);
                if (ri < 0) {
                    rc = PM_ERR_NOMEM;
                    break;
                }
                size_t i = (size_t)ri;
                char buf[160];
                rc |= pm_table_setf(t, i, 0, NAN, "%s=%s -> %s", bw->axis, bw->pairs[p].a, bw->pairs[p].b);
                rc |= pm_table_set(t, i, 1, cc->key_a ? cc->key_a : cc->key, NAN);
                rc |= pm_table_set(t, i, 2, row->tool, NAN);
                rc |= pm_table_set(t, i, 3, row->pass, NAN);
                rc |= pm_table_set(t, i, 4, row->alias ? row->alias : "", NAN);
                pm_compare_fmt_side(buf, sizeof buf, &row->st, 0);
                rc |= pm_table_set(t, i, 5, buf, row->st.gmean_a);
                pm_compare_fmt_side(buf, sizeof buf, &row->st, 1);
                rc |= pm_table_set(t, i, 6, buf, row->st.gmean_b);
                pm_compare_fmt_ratio(buf, sizeof buf, &row->st);
                rc |= pm_table_set(t, i, 7, buf, row->st.ratio);
                pm_compare_fmt_ci(buf, sizeof buf, &row->st, 0);
                rc |= pm_table_set(t, i, 8, buf, NAN);
                pm_compare_fmt_verdict(buf, sizeof buf, &row->st);
                rc |= pm_table_set(t, i, 9, buf, NAN);
            }
        }
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

pm_table *pm_builds_only_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"pair", "builds (A -> B)", NULL}, {"tool", "tool", NULL}, {"pass", "pass", NULL},
        {"build", "only in", NULL},        {"s", "time (sum over configs)", "s"}, {"configs", "configs", "count"},
    };
    const pm_an_builds *bw = &a->between;
    pm_table *t = pm_table_new("t-builds-only", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t p = 0; t && !rc && p < bw->n_pairs; p++) {
        const pm_compare_result *r = &bw->pairs[p].cmp;
        for (size_t k = 0; !rc && k < r->n_passes; k++) {
            const pm_compare_pass_total *x = &r->passes[k];
            /* one build only: every config where it appears has it on one side */
            int only_a = x->removed && x->removed == x->n_configs, only_b = x->added && x->added == x->n_configs;
            if (!x->pass || (!only_a && !only_b))
                continue;
            long ri = pm_table_add_row(t);
            if (ri < 0) {
                rc = PM_ERR_NOMEM;
                break;
            }
            size_t i = (size_t)ri;
            char buf[64];
            rc |= pm_table_setf(t, i, 0, NAN, "%s=%s -> %s", bw->axis, bw->pairs[p].a, bw->pairs[p].b);
            rc |= pm_table_set(t, i, 1, x->tool, NAN);
            rc |= pm_table_set(t, i, 2, x->pass, NAN);
            rc |= pm_table_setf(t, i, 3, NAN, "%s=%s", bw->axis, only_a ? bw->pairs[p].a : bw->pairs[p].b);
            double s = only_a ? x->total_a : x->total_b;
            pm_fmt_time(buf, sizeof buf, s, 0);
            rc |= pm_table_set(t, i, 4, buf, s);
            rc |= pm_table_setf(t, i, 5, (double)x->n_configs, "%zu", x->n_configs);
        }
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

/* Counts of a pair's matched pass rows by what the rule said of them. */
typedef struct pair_counts {
    size_t tested, faster, slower, same, undecided, contended, below, outside, ambiguous, renamed, only_a, only_b;
} pair_counts;

static pair_counts count_pair(const pm_compare_result *r)
{
    pair_counts n = {0};
    for (size_t c = 0; c < r->n_configs; c++)
        for (size_t k = 0; k < r->configs[c].n_passes; k++) {
            const pm_compare_row *row = &r->configs[c].passes[k];
            n.renamed += row->alias != NULL && row->presence == PM_COMPARE_BOTH;
            if (row->presence != PM_COMPARE_BOTH)
                continue;
            switch (row->st.verdict) {
            case PM_VERDICT_FASTER: n.faster++, n.tested++; break;
            case PM_VERDICT_SLOWER: n.slower++, n.tested++; break;
            case PM_VERDICT_SAME: n.same++, n.tested++; break;
            case PM_VERDICT_UNDECIDED: n.undecided++, n.tested++; break;
            case PM_VERDICT_CONTENDED: n.contended++, n.tested++; break;
            case PM_VERDICT_BELOW_RESOLUTION: n.below++; break;
            case PM_VERDICT_AMBIGUOUS: n.ambiguous++; break;
            default: n.outside++; break;
            }
        }
    for (size_t k = 0; k < r->n_passes; k++) {
        const pm_compare_pass_total *x = &r->passes[k];
        n.only_a += x->pass && x->removed && x->removed == x->n_configs;
        n.only_b += x->pass && x->added && x->added == x->n_configs;
    }
    return n;
}

/* One line per pair: the compile's ratio (compare's summary), the pass rows' marks, the stage that moved most. */
static void pair_line(const pm_analysis *a, const pm_an_builds_pair *p, char *buf, size_t cap)
{
    const pm_an_builds *bw = &a->between;
    if (p->error) {
        snprintf(buf, cap, "%s=%s -> %s: not compared: %s", bw->axis, p->a, p->b, p->error);
        return;
    }
    char sum[1024], stage[256] = "no stage time in both builds";
    pm_compare_summary_text(&p->cmp, sum, sizeof sum);
    pair_counts n = count_pair(&p->cmp);
    if (p->stage >= 0) {
        char ta[32], tb[32], d[32];
        pm_fmt_time(ta, sizeof ta, p->stage_a_s, 0);
        pm_fmt_time(tb, sizeof tb, p->stage_b_s, 0);
        pm_fmt_time(d, sizeof d, p->stage_b_s - p->stage_a_s, 1);
        char ratio[32] = "", r[24];   /* no ratio from a stage one build lacks */
        if (p->stage_a_s > 0) {
            pm_fmt_ratio(r, sizeof r, p->stage_b_s / p->stage_a_s);
            snprintf(ratio, sizeof ratio, ", %s", r);
        }
        snprintf(stage, sizeof stage, "the stage that moved most: %s %s -> %s (%s%s; a sum of means, no test)",
                 a->stages[p->stage], ta, tb, d, ratio);
    }
    snprintf(buf, cap, "%s=%s -> %s: compile (decided on %s) %s; passes in both builds: %zu tested (%zu faster, "
             "%zu slower, %zu same, %zu undecided%s), %zu below timer resolution, %zu outside the family, %zu "
             "ambiguous matches (maybe not the same pass: not tested); %zu matched through the alias table or "
             "instance order; %zu only in %s, %zu only in %s; %s",
             bw->axis, p->a, p->b, pm_decide_name((pm_decide_metric)p->cmp.decided_on), sum, n.tested, n.faster,
             n.slower, n.same, n.undecided, n.contended ? ", some contended: no conclusion" : "", n.below,
             n.outside, n.ambiguous, n.renamed, n.only_a, p->a, n.only_b, p->b, stage);
    /* the timers' own cost, where the builds' twin runs measured it (flagcost.h) */
    char fc[512];
    int d = pm_flagcost_differ(&p->cmp.a.flagcost, &p->cmp.b.flagcost, p->cmp.threshold, fc, sizeof fc);
    size_t used = strlen(buf);
    if (d == PM_FLAGCOST_DIFFER && used < cap)
        snprintf(buf + used, cap - used,
                 "; the timers cost the two builds differently (%s): its pass-level "
                 "verdicts are partly about the instrument",
                 fc);
    else if (d == PM_FLAGCOST_UNDECIDED && used < cap)
        snprintf(buf + used, cap - used,
                 "; whether the timers cost the two builds differently is undecided (%s): "
                 "its pass-level verdicts may be partly about the instrument",
                 fc);
}

static void intro(const pm_analysis *a, char *buf, size_t cap)
{
    const pm_an_builds *bw = &a->between;
    size_t used = (size_t)snprintf(buf, cap, "Axis %s picks the compiler build (configs equal on every other axis "
                                   "ran other tool builds):", bw->axis);
    for (size_t k = 0; k < bw->n_values && used < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s %s=%s (%s)", k ? "," : "", bw->axis, bw->values[k],
                                 bw->invoked && bw->invoked[k] ? bw->invoked[k] : "-");
    if (used < cap) {
        if (bw->alias_error)
            snprintf(buf + used, cap - used, ". Passes match by printed name only: %s", bw->alias_error);
        else
            snprintf(buf + used, cap - used, ". Each build is compared with the next%s by passmap compare on %s; passes "
                     "match by name, renamed ones through the alias table (%zu rows, pass-aliases.tsv)",
                     bw->n_values > 2 ? " and the first with the last" : "", bw->axis, bw->n_aliases);
    }
}

int pm_builds_text(FILE *f, const pm_analysis *a, int markdown, int width)
{
    const pm_an_builds *bw = &a->between;
    if (!bw->axis)
        return PM_OK;
    char buf[4096], legend[2048];
    fprintf(f, markdown ? "\n## Between builds\n\n" : "\nbetween builds\n");
    intro(a, buf, sizeof buf);
    fprintf(f, "%s%s.\n", markdown ? "" : "  ", buf);
    pm_compare_rule_text(legend, sizeof legend, bw->n_pairs && !bw->pairs[0].error ? bw->pairs[0].cmp.threshold : 0,
                         a->ab.allow_contended);
    fprintf(f, "%s%s\n", markdown ? "\n" : "  ", legend);
    for (size_t p = 0; p < bw->n_pairs; p++) {
        pair_line(a, &bw->pairs[p], buf, sizeof buf);
        fprintf(f, "%s%s\n", markdown ? "- " : "  ", buf);
    }
    pm_table *t = pm_builds_pass_table(a);
    if (!t)
        return PM_ERR_NOMEM;
    fprintf(f, markdown ? "\n### Passes in both builds, tested by compare's rule (ambiguous matches shown, not "
                          "tested)\n\n"
                        : "\npasses in both builds, tested by compare's rule (ambiguous matches shown, not tested)\n");
    int rc = markdown ? pm_table_markdown(t, f) : pm_table_text(t, f, width);
    pm_table_free(t);
    if (rc)
        return rc;
    if (!(t = pm_builds_only_table(a)))
        return PM_ERR_NOMEM;
    if (t->n_rows) {
        fprintf(f, markdown ? "\n### Passes in one build only\n\n" : "\npasses in one build only\n");
        rc = markdown ? pm_table_markdown(t, f) : pm_table_text(t, f, width);
    }
    pm_table_free(t);
    return rc;
}

int pm_builds_html(FILE *f, const pm_analysis *a)
{
    const pm_an_builds *bw = &a->between;
    if (!bw->axis)
        return PM_OK;
    char buf[4096], legend[2048];
    fputs("<h2 id=builds>Between builds</h2>\n<p class=sub>", f);
    intro(a, buf, sizeof buf);
    pm_html_esc(f, buf);
    fputs(".</p>\n<p class=sub>", f);
    pm_compare_rule_text(legend, sizeof legend, bw->n_pairs && !bw->pairs[0].error ? bw->pairs[0].cmp.threshold : 0,
                         a->ab.allow_contended);
    pm_html_esc(f, legend);
    fputs("</p>\n<ul>", f);
    for (size_t p = 0; p < bw->n_pairs; p++) {
        pair_line(a, &bw->pairs[p], buf, sizeof buf);
        fputs("<li>", f);
        pm_html_esc(f, buf);
        fputs("</li>", f);
    }
    fputs("</ul>\n<h3>Passes in both builds, tested by compare's rule (ambiguous matches shown, not tested)</h3>\n", f);
    pm_table *t = pm_builds_pass_table(a);
    if (!t)
        return PM_ERR_NOMEM;
    int rc = pm_table_html(t, f, 1);
    pm_table_free(t);
    if (rc)
        return rc;
    if (!(t = pm_builds_only_table(a)))
        return PM_ERR_NOMEM;
    if (t->n_rows) {
        fputs("<h3>Passes in one build only</h3>\n", f);
        rc = pm_table_html(t, f, 1);
    }
    pm_table_free(t);
    return rc;
}

json_t *pm_builds_json(const pm_analysis *a)
{
    const pm_an_builds *bw = &a->between;
    if (!bw->axis)
        return json_null();
    json_t *o = json_object(), *vals = json_array(), *progs = json_array(), *pairs = json_array();
    for (size_t k = 0; k < bw->n_values; k++) {
        json_array_append_new(vals, json_string(bw->values[k]));
        json_array_append_new(progs, bw->invoked && bw->invoked[k] ? json_string(bw->invoked[k]) : json_null());
    }
    for (size_t p = 0; p < bw->n_pairs; p++) {
        const pm_an_builds_pair *x = &bw->pairs[p];
        char line[4096];
        pair_line(a, x, line, sizeof line);
        json_t *po = json_pack("{s:s, s:s, s:s}", "a", x->a, "b", x->b, "summary", line);
        if (x->error) {
            json_object_set_new(po, "error", json_string(x->error));
        } else {
            pair_counts n = count_pair(&x->cmp);
            json_object_set_new(po, "counts", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                "tested", (json_int_t)n.tested, "ambiguous", (json_int_t)n.ambiguous, "faster", (json_int_t)n.faster,
                "slower", (json_int_t)n.slower,
                "same", (json_int_t)n.same, "undecided", (json_int_t)n.undecided, "below_resolution",
                (json_int_t)n.below, "outside_family", (json_int_t)n.outside, "renamed", (json_int_t)n.renamed,
                "only_a", (json_int_t)n.only_a, "only_b", (json_int_t)n.only_b));
            json_object_set_new(po, "decided_on", json_string(pm_decide_name((pm_decide_metric)x->cmp.decided_on)));
            json_object_set_new(po, "stage_moved_most", x->stage < 0 ? json_null() : json_pack("{s:s, s:f, s:f}",
                "stage", a->stages[x->stage], "a_s", x->stage_a_s, "b_s", x->stage_b_s));
            /* compare's own JSON: every pass row of every matched config, untested ones included */
            json_object_set_new(po, "compare", pm_compare_to_json(&x->cmp));
        }
        json_array_append_new(pairs, po);
    }
    json_object_set_new(o, "axis", json_string(bw->axis));
    json_object_set_new(o, "values", vals);
    json_object_set_new(o, "programs", progs);
    json_object_set_new(o, "aliases", json_integer((json_int_t)bw->n_aliases));
    json_object_set_new(o, "alias_error", bw->alias_error ? json_string(bw->alias_error) : json_null());
    json_object_set_new(o, "pairs", pairs);
    pm_table *t = pm_builds_pass_table(a);
    json_object_set_new(o, "passes", t ? pm_table_json(t) : json_null());
    pm_table_free(t);
    t = pm_builds_only_table(a);
    json_object_set_new(o, "one_build_only", t ? pm_table_json(t) : json_null());
    pm_table_free(t);
    return o;
}
