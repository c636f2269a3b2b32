#include "report_tables.h"
#include "decide.h"
#include "compare_out.h"
#include "kinds.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void link_cfg(pm_table *t, long r, const char *prefix, size_t i, const char *key)
{
    if (!prefix)
        return;
    char href[64], tip[600];
    snprintf(href, sizeof href, "%s%zu", prefix, i);
    snprintf(tip, sizeof tip, "runs, steps, stderr and pass tree of %s", key);
    pm_table_link(t, (size_t)r, 0, href, tip);
}

static void ratio_text(char *buf, size_t n, double v)
{
    pm_fmt_ratio(buf, n, v);
}

pm_table *pm_rt_configs(const pm_analysis *a, const char *link_prefix)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},
        {"wall_s", "cold wall (95% CI)", "s"},
        {"dominant_stage", "dominant stage", NULL},
        {"dominant_share", "share", "fraction"},
        {"dominant_pass", "dominant pass", NULL},
        {"cache_ratio", "recompile \u00f7 hit", "ratio"},
        {"user_wall", "user/wall", "ratio"},
        {"cold_runs", "cold runs", "count"},
        {"failed_runs", "failed", "count"},
    };
    pm_table *t = pm_table_new("t-configs", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    for (size_t i = 0; t && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        char buf[128];
        pm_table_set(t, (size_t)r, 0, c->key, NAN);
        link_cfg(t, r, link_prefix, i, c->key);
        if (c->n_cold) {
            pm_fmt_interval(buf, sizeof buf, c->wall.mean, c->wall.lo, c->wall.hi, c->wall.n);
            pm_table_set(t, (size_t)r, 1, buf, c->wall.mean);
        } else {
            pm_table_set(t, (size_t)r, 1, "no successful run", NAN);
        }
        int d = c->dominant_stage;
        if (d >= 0 && d == pm_an_stage_index(a, PM_STAGE_OVERHEAD)) {   /* start-up is no regime: said, and the
                                                                             stage next to it */
            int next = pm_rt_second_stage(a, c, d);
            pm_table_setf(t, (size_t)r, 2, NAN, "too small to tell (start-up; then %s)", next >= 0 ? a->stages[next] : "-");
        } else {
            pm_table_set(t, (size_t)r, 2, d >= 0 ? a->stages[d] : "-", NAN);
        }
        double sh = d >= 0 ? c->share[d].mean : NAN;
        pm_fmt_share(buf, sizeof buf, sh);
        pm_table_set(t, (size_t)r, 3, buf, sh);
        pm_table_set(t, (size_t)r, 4, c->n_passes ? c->passes[0].name : "-", NAN);
        ratio_text(buf, sizeof buf, c->cache_ratio);
        pm_table_set(t, (size_t)r, 5, buf, c->cache_ratio);
        if (isnan(c->user_wall))
            pm_table_set(t, (size_t)r, 6, "-", NAN);
        else
            pm_table_setf(t, (size_t)r, 6, c->user_wall, "%.2f", c->user_wall);
        pm_table_setf(t, (size_t)r, 7, c->n_cold, "%d", c->n_cold);
        pm_table_setf(t, (size_t)r, 8, c->n_failed, "%d", c->n_failed);
    }
    return t;
}

/* A phase's column title: upper case, apart from the stages' (a stage "other" and the phase OTHER differ). */
static const char *phase_title(const char *phase)
{
    static const char *const titles[][2] = {{"frontend", "FRONTEND"}, {"optimizer", "OPTIMIZER"},
                                            {"codegen", "CODEGEN"},   {"link", "LINK"},
                                            {"process", "PROCESS"},   {"other", "OTHER"}};
    for (size_t i = 0; i < sizeof titles / sizeof *titles; i++)
        if (!strcmp(titles[i][0], phase))
            return titles[i][1];
    return phase;
}

pm_table *pm_rt_stage_shares(const pm_analysis *a, const char *link_prefix)
{
    /* the phase split first (its headers upper case: FRONTEND, OPTIMIZER, ...), then the stages */
    size_t NP = a->n_phases, NS = a->n_stages;
    pm_col *cols = calloc(NP + NS + 2, sizeof *cols);
    if (!cols)
        return NULL;
    cols[0] = (pm_col){"config", "config", NULL};
    for (size_t p = 0; p < NP; p++)
        cols[p + 1] = (pm_col){a->phases[p], phase_title(a->phases[p]), "fraction"};
    cols[NP + 1] = (pm_col){"phases_of", "phases of", NULL};   /* which time the phase split is a share of */
    for (size_t s = 0; s < NS; s++)
        cols[NP + s + 2] = (pm_col){a->stages[s], a->stages[s], "fraction"};
    pm_table *t = pm_table_new("t-stage-shares", NULL, cols, NP + NS + 2);
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    free(cols);
    for (size_t i = 0; t && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->n_cold)
            continue;
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        pm_table_set(t, (size_t)r, 0, c->key, NAN);
        link_cfg(t, r, link_prefix, i, c->key);
        char buf[32];
        const pm_ci *split = c->phase_on_cpu ? c->phase_cpu : c->phase_share;
        for (size_t p = 0; p < NP; p++) {
            pm_fmt_share(buf, sizeof buf, split[p].mean);
            pm_table_set(t, (size_t)r, p + 1, buf, split[p].mean);
        }
        pm_table_set(t, (size_t)r, NP + 1, c->phase_on_cpu ? "user CPU" : "wall", NAN);
        for (size_t s = 0; s < NS; s++) {
            pm_fmt_share(buf, sizeof buf, c->share[s].mean);
            pm_table_set(t, (size_t)r, NP + s + 2, buf, c->share[s].mean);
        }
    }
    return t;
}

static void set_num(pm_table *t, long r, size_t k, int prec, double v)
{
    if (isnan(v) || isinf(v))
        pm_table_set(t, (size_t)r, k, "-", NAN);
    else
        pm_table_setf(t, (size_t)r, k, v, "%.*f", prec, v);
}

pm_table *pm_rt_overhead(const pm_analysis *a, const char *link_prefix)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},
        {"process_overhead", "process-overhead", "fraction"},
        {"startup", "start-up", "fraction"},
        {"outside_passes", "outside passes", "fraction"},
        {"startup_s", "start-up s", "s"},
        {"outside_passes_s", "outside passes s", "s"},
    };
    pm_table *t = pm_table_new("t-overhead", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD);
    for (size_t i = 0; t && over >= 0 && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->n_cold)
            continue;
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        char buf[32];
        pm_table_set(t, (size_t)r, 0, c->key, NAN);
        link_cfg(t, r, link_prefix, i, c->key);
        pm_fmt_share(buf, sizeof buf, c->share[over].mean);
        pm_table_set(t, (size_t)r, 1, buf, c->share[over].mean);
        if (isnan(c->startup_share)) {
            pm_table_set(t, (size_t)r, 2, "not measured", NAN);
            pm_table_set(t, (size_t)r, 3, "-", NAN);
        } else {
            pm_fmt_share(buf, sizeof buf, c->startup_share);
            pm_table_set(t, (size_t)r, 2, buf, c->startup_share);
            pm_fmt_share(buf, sizeof buf, c->outside_share);
            pm_table_set(t, (size_t)r, 3, buf, c->outside_share);
        }
        set_num(t, r, 4, 4, c->startup_s);
        set_num(t, r, 5, 4, c->outside_s);
    }
    return t;
}

pm_table *pm_rt_startup(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"tool", "tool", NULL},
        {"null_runs", "null runs ok", "count"},
        {"failed", "failed", "count"},
        {"wall_s", "start-up (median wall)", "s"},
        {"user_s", "user", "s"},
        {"sys_s", "sys", "s"},
        {"cpu_wall", "serial CPU/wall", "ratio"},
        {"note", "note", NULL},
    };
    pm_table *t = pm_table_new("t-startup", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    for (size_t i = 0; t && i < a->overhead.n; i++) {
        const pm_an_startup *x = &a->overhead.rows[i];
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        pm_table_set(t, (size_t)r, 0, x->tool, NAN);
        pm_table_setf(t, (size_t)r, 1, x->n_ok, "%d", x->n_ok);
        pm_table_setf(t, (size_t)r, 2, x->n_failed, "%d", x->n_failed);
        set_num(t, r, 3, 4, x->wall_s);
        set_num(t, r, 4, 4, x->user_s);
        set_num(t, r, 5, 4, x->sys_s);
        set_num(t, r, 6, 2, x->cpu_wall);
        pm_table_set(t, (size_t)r, 7, x->note ? x->note : !x->n_ok ? "no ok null run"
                                      : x->contended ? "contended: not a serial baseline" : "", NAN);
    }
    return t;
}

void pm_rt_key_legend(const pm_analysis *a, int all, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; pm_kind_at(i); i++) {
        const pm_kind *k = pm_kind_at(i);
        int present = all;
        for (size_t c = 0; !present && c < a->n_configs; c++)
            present = a->configs[c].kind && !strcmp(a->configs[c].kind, k->name);
        if (present && k->key_legend && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s keys %s", n ? "; " : "", k->label, k->key_legend);
    }
}

void pm_rt_overhead_note(const pm_analysis *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!a->overhead.table)
        snprintf(buf, cap, "process-overhead not split: start-up not measured (older database)");
    else if (!a->overhead.measured)
        snprintf(buf, cap, "process-overhead not split: start-up not measured (%s)",
                 a->overhead.n && a->overhead.rows[0].note ? a->overhead.rows[0].note : "no tool ran on a null input");
}

void pm_rt_startup_contended_text(const pm_analysis *a, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->overhead.n && n < cap; i++)
        if (a->overhead.rows[i].contended)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s %.2f", n ? ", " : "start-up measured on a busy machine "
                                  "(CPU/wall of the null runs: ", a->overhead.rows[i].tool, a->overhead.rows[i].cpu_wall);
    if (n && n < cap)
        snprintf(buf + n, cap - n, "; alone it is ~1): shown, but neither a serial baseline nor a start-up share the "
                                   "fix table concludes from");
}

void pm_rt_noise_text(const pm_analysis *a, char *buf, size_t cap)
{
    char rule[512];
    pm_contention_rule_text(rule, sizeof rule, 0);
    size_t n = (size_t)snprintf(buf, cap, "%d of %zu configs noisy (CV > 10%% or a MAD outlier), %d contended (%s)",
                                a->noise.n_noisy, a->n_configs, a->noise.n_contended, rule);
    if (!a->noise.n_baseline_p90 || n >= cap)
        return;
    n += (size_t)snprintf(buf + n, cap - n, "; %d config%s without a serial baseline for any of %s tools (%s): ",
                          a->noise.n_baseline_p90, a->noise.n_baseline_p90 == 1 ? "" : "s", a->noise.n_baseline_p90 == 1 ? "its" : "their",
                          !a->overhead.table      ? "a database older than the start-up runs"
                          : a->overhead.contended ? "start-up measured contended"
                                                 : "start-up not measured");
    if (n < cap && isnan(a->noise.user_wall_baseline))
        snprintf(buf + n, cap - n, "fewer than 3 configs for the sweep's 90th percentile of user/wall, so only the "
                                   "load average judges them");
    else if (n < cap)
        snprintf(buf + n, cap - n, "user/wall below 0.75 x the sweep's 90th percentile %.2f instead",
                 a->noise.user_wall_baseline);
}

pm_table *pm_rt_fixes(const pm_analysis *a)
{
    /* the regime and its fix first (the recommendation itself), then the evidence behind it */
    enum { C_REGIME, C_FIX, C_CONFIGS, C_PASS, C_SHARE, C_K, C_K_LO, C_USER_WALL, C_CACHE };
    static const pm_col cols[] = {
        [C_REGIME] = {"stage", "regime (largest stage)", NULL},
        [C_FIX] = {"fix", "fix", NULL},
        [C_CONFIGS] = {"configs", "configs", "count"},
        [C_PASS] = {"pass", "heaviest pass (its stage)", NULL},
        [C_SHARE] = {"share", "share", "fraction"},
        [C_K] = {"exponent", "k (cost ~ size^k)", "exponent"},
        [C_K_LO] = {"exponent_lo", "k lower 95%", "exponent"},
        [C_USER_WALL] = {"user_wall", "user/wall", "ratio"},
        [C_CACHE] = {"cache_ratio", "recompile \u00f7 hit", "ratio"},
    };
    pm_table *t = pm_table_new("t-fixes", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = C_FIX + 1;
    for (size_t i = 0; t && i < a->fixes.n; i++) {
        const pm_an_fix *x = &a->fixes.rows[i];
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        char buf[64];
        pm_table_set(t, (size_t)r, C_REGIME, a->stages[x->stage], NAN);
        pm_table_setf(t, (size_t)r, C_CONFIGS, x->n_configs, "%d", x->n_configs);
        if (x->pass && x->pass_stage >= 0 && x->pass_stage != x->stage) {
            char ps[256];
            snprintf(ps, sizeof ps, "%s (%s)", x->pass, a->stages[x->pass_stage]);
            pm_table_set(t, (size_t)r, C_PASS, ps, NAN);
        } else if (x->pass)
            pm_table_set(t, (size_t)r, C_PASS, x->pass, NAN);
        else if (a->overhead.contended)
            pm_table_set(t, (size_t)r, C_PASS, "(outside passes; start-up measured contended)", NAN);
        else if (!isnan(x->startup_share)) {   /* process-overhead, in its two parts */
            char part[96];
            snprintf(part, sizeof part, "(start-up %.0f%%, outside passes %.0f%%)", x->startup_share * 100,
                     x->outside_share * 100);
            pm_table_set(t, (size_t)r, C_PASS, part, NAN);
        } else
            pm_table_set(t, (size_t)r, C_PASS, "(outside passes; start-up not measured)", NAN);
        pm_fmt_share(buf, sizeof buf, x->share);
        pm_table_set(t, (size_t)r, C_SHARE, buf, x->share);
        set_num(t, r, C_K, 2, x->exponent);
        set_num(t, r, C_K_LO, 2, x->exponent_lo);
        set_num(t, r, C_USER_WALL, 2, x->user_wall);
        ratio_text(buf, sizeof buf, x->cache_ratio);
        pm_table_set(t, (size_t)r, C_CACHE, buf, x->cache_ratio);
        /* the words (pm_analysis_fix_words) already leave contended configs out of the proposals; a proven row was
           judged by passmap fix's own A/B, with its own contention rule */
        if (x->fix)
            pm_table_set(t, (size_t)r, C_FIX, x->fix, NAN);
        else if (x->n_contended) {   /* the fix table never concludes from contended data */
            snprintf(buf, sizeof buf, "no conclusion: %d of %d configs contended", x->n_contended, x->n_configs);
            pm_table_set(t, (size_t)r, C_FIX, buf, NAN);
        } else
            pm_table_set(t, (size_t)r, C_FIX, "-", NAN);
    }
    return t;
}

const char *pm_rt_fits_note(const pm_analysis *a)
{
    for (size_t i = 0; i < a->fits.n; i++)
        if (a->fits.rows[i].no_fit)
            return a->fits.rows[i].no_fit;
    return a->fits.x_note;   /* the fits' x axes follow a fallback (an older store): said, not silent */
}

pm_table *pm_rt_fits(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"pass", "pass", NULL},
        {"tool", "tool", NULL},
        {"stage", "stage", NULL},
        {"x_metric", "IR size x", NULL},
        {"n", "n", "count"},
        {"exponent", "k", "exponent"},
        {"ci", "k 95% CI", NULL},
        {"r2", "R\u00b2", "fraction"},
        {"max_share", "max share", "fraction"},
        {"user_wall", "user/wall", "ratio"},
        {"superlinear", "superlinear", NULL},
        {"variant", "variant (points: its configs; a pipeline axis's value, e.g. opt=2, its own fit)", NULL},
    };
    pm_table *t = pm_table_new("t-fits", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    int multi = 0;   /* several variants: each its own fits, the reference marked */
    for (size_t i = 0; i < a->fits.n; i++)
        multi |= !a->fits.rows[i].reference;
    for (size_t i = 0; t && i < a->fits.n; i++) {
        const pm_an_fit *x = &a->fits.rows[i];
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        char buf[64];
        pm_table_set(t, (size_t)r, 0, x->name, NAN);
        pm_table_set(t, (size_t)r, 1, x->tool, NAN);
        pm_table_set(t, (size_t)r, 2, a->stages[x->stage], NAN);
        if (!x->x_metric)
            pm_table_set(t, (size_t)r, 3, "not measured: no fit", NAN);
        else if (x->npuw_left_out)
            pm_table_setf(t, (size_t)r, 3, NAN, "%s (%d NPUW LLM config(s) left out: the trace is the LM head's only)",
                          x->x_metric, x->npuw_left_out);
        else
            pm_table_set(t, (size_t)r, 3, x->x_metric, NAN);
        pm_table_setf(t, (size_t)r, 4, x->n, "%d", x->n);
        set_num(t, r, 5, 3, x->exponent);
        if (!x->x_metric)
            pm_table_set(t, (size_t)r, 6, "no fit", NAN);
        else if (isnan(x->lo) || isnan(x->hi))
            pm_table_set(t, (size_t)r, 6, "too few sizes", NAN);
        else
            pm_table_setf(t, (size_t)r, 6, NAN, "%.3f \u2013 %.3f", x->lo, x->hi);
        set_num(t, r, 7, 3, x->r2);
        pm_fmt_share(buf, sizeof buf, x->max_share);
        pm_table_set(t, (size_t)r, 8, buf, x->max_share);
        set_num(t, r, 9, 2, x->user_wall);
        pm_table_set(t, (size_t)r, 10, x->superlinear ? "yes" : "no", NAN);
        pm_table_setf(t, (size_t)r, 11, NAN, "%s%s%s%s", x->variant && *x->variant ? x->variant : "-",
                      x->group ? ", " : "", x->group ? x->group : "", x->reference && multi ? " (reference)" : "");
    }
    return t;
}

pm_table *pm_rt_tools(const pm_analysis *a)
{
    static const pm_col cols[] = {{"process", "process", NULL}, {"user_wall", "user/wall (serial \u2248 1)", "ratio"}};
    pm_table *t = pm_table_new("t-parallelism", NULL, cols, N_OF(cols));
    if (t)
        t->n_lead = 1;   /* the row's name: what the reader looks up */
    for (size_t i = 0; t && i < a->parallelism.n_tools; i++) {
        long r = pm_table_add_row(t);
        if (r < 0)
            break;
        pm_table_set(t, (size_t)r, 0, a->parallelism.tools[i] ? a->parallelism.tools[i] : "-", NAN);
        set_num(t, r, 1, 2, a->parallelism.tool_user_wall[i]);
    }
    return t;
}

void pm_rt_sig_legend(char *buf, size_t n, const pm_analysis *a)
{
    char rule[1536];
    pm_compare_rule_text(rule, sizeof rule, a->ab.n && !a->ab.rows[0].error ? a->ab.rows[0].cmp.threshold : 0,
                         a->ab.n && !a->ab.rows[0].error ? a->ab.rows[0].cmp.allow_contended : a->ab.allow_contended);
    int w = snprintf(buf, n, "marks (faster / slower / same / undecided / below resolution / n/a / no conclusion "
                     "(contended)) follow passmap compare's rule: %s; the m of each pair's intervals:", rule);
    for (size_t i = 0; w > 0 && (size_t)w < n && i < a->ab.n; i++) {
        const pm_an_ab *x = &a->ab.rows[i];
        size_t m = 0;
        for (size_t k = 0; !x->error && k < x->cmp.n_configs; k++)
            m = x->cmp.configs[k].wall.family_m > m ? x->cmp.configs[k].wall.family_m : m;
        int add = snprintf(buf + w, n - (size_t)w, "%s %s vs %s m=%zu", i ? "," : "", x->variant, x->against, m);
        w = add < 0 ? -1 : w + add;
    }
    /* walls a slowing meter measured (valgrind) are the instrumented runs', not compile times */
    for (size_t i = 0; w > 0 && (size_t)w < n && i < a->ab.n; i++)
        if (!a->ab.rows[i].error && (a->ab.rows[i].cmp.a.walls_slowed || a->ab.rows[i].cmp.b.walls_slowed)) {
            int add = snprintf(buf + w, n - (size_t)w, "; the cold walls were measured under the %s meter: the "
                               "instrumented runs', not compile times", a->ab.rows[i].cmp.a.walls_slowed
                               ? a->ab.rows[i].cmp.a.meter : a->ab.rows[i].cmp.b.meter);
            w = add < 0 ? -1 : w + add;
            break;
        }
    /* which metric each A/B decided on (decide.h): the B/A, interval, p and mark columns are of it */
    int first = 1;
    for (size_t i = 0; w > 0 && (size_t)w < n && i < a->ab.n; i++) {
        if (a->ab.rows[i].error)
            continue;
        char d[96];
        pm_decide_text((pm_decide_metric)a->ab.rows[i].cmp.decided_on, d, sizeof d);
        if (first || a->ab.rows[i].cmp.decided_on != a->ab.rows[0].cmp.decided_on) {
            int add = snprintf(buf + w, n - (size_t)w, "; %s %s: %s", a->ab.rows[i].axis ? a->ab.rows[i].axis : "variant",
                               a->ab.rows[i].variant, d);
            w = add < 0 ? -1 : w + add;
        }
        first = 0;
    }
}

void pm_rt_ab_caption(const pm_analysis *a, size_t pair, char *buf, size_t n)
{
    /* which B against which A, and what decided, first: a narrow window shows the start of the line */
    const pm_an_ab *x = &a->ab.rows[pair];
    char d[128];
    pm_decide_text((pm_decide_metric)x->cmp.decided_on, d, sizeof d);
    snprintf(buf, n, "%s %s (B) vs %s (A); %s%s; B/A, CI, p, mark, A and B are of the deciding metric, per config "
             "by passmap compare (95%% CI simultaneous, Bonferroni; p Holm)", x->axis ? x->axis : "variant",
             x->variant, x->against, d, x->cmp.decided_on != PM_DECIDE_WALL ? " (wall B/A, A wall, B wall)" : "");
}

/* A row's key saying which A and which B: the A key with the parts B differs in as "a\u2192b"
 * ("llm/gemma2/2b/w128/int8\u2192fp16/L1/stock"); keys of different shapes: "A vs B". */
static void ab_row_key(char *buf, size_t n, const char *ka, const char *kb)
{
    if (!kb || !ka || !strcmp(ka, kb)) {
        snprintf(buf, n, "%s", ka ? ka : kb ? kb : "?");
        return;
    }
    size_t parts_a = 1, parts_b = 1;
    for (const char *p = ka; *p; p++)
        parts_a += *p == '/';
    for (const char *p = kb; *p; p++)
        parts_b += *p == '/';
    if (parts_a != parts_b) {
        snprintf(buf, n, "%s vs %s", ka, kb);
        return;
    }
    pm_sbuf b = {0};
    for (const char *pa = ka, *pb = kb; *pa || *pb;) {
        size_t la = strcspn(pa, "/"), lb = strcspn(pb, "/");
        if (la == lb && !strncmp(pa, pb, la))
            pm_sbuf_add(&b, "%.*s", (int)la, pa);
        else
            pm_sbuf_add(&b, "%.*s\u2192%.*s", (int)la, pa, (int)lb, pb);
        pa += la + (pa[la] == '/'), pb += lb + (pb[lb] == '/');
        if (*pa || *pb)
            pm_sbuf_add(&b, "/");
    }
    snprintf(buf, n, "%s", b.s && !b.oom ? b.s : ka);
    free(b.s);
}

pm_table *pm_rt_ab(const pm_analysis *a, size_t pair)
{
    /* the answer first (which config, B/A, its mark), then the evidence: the interval and p the mark was read
     * from, and the means B/A divides, all of the deciding metric; the walls beside them when another metric
     * decided; the noise column only when a config was contended */
    enum { C_CFG, C_RATIO, C_MARK, C_CI, C_P, C_A, C_B, C_WALL_RATIO, C_WALL_A, C_WALL_B, C_NOISE, C_N };
    static const pm_col all[] = {
        [C_CFG] = {"config", "config (A\u2192B)", NULL},   [C_RATIO] = {"ratio", "B/A", "ratio"},
        [C_MARK] = {"verdict", "mark", NULL},            [C_CI] = {"ci", "95% CI", "ratio"},
        [C_P] = {"p_holm", "p (Holm)", "p"},             [C_A] = {"a", "A", NULL},
        [C_B] = {"b", "B", NULL},                        [C_WALL_RATIO] = {"wall_ratio", "wall B/A", "ratio"},
        [C_WALL_A] = {"wall_a_s", "A wall", "s"},        [C_WALL_B] = {"wall_b_s", "B wall", "s"},
        [C_NOISE] = {"noise", "noise", NULL},
    };
    const pm_an_ab *x = &a->ab.rows[pair];
    int walls = x->cmp.decided_on != PM_DECIDE_WALL, noise = 0;
    for (size_t k = 0; k < x->cmp.n_configs; k++) {   /* the noise column only when it has something to say */
        char why[96];
        pm_compare_disagree(&x->cmp, &x->cmp.configs[k], why, sizeof why);
        noise |= x->cmp.configs[k].contended_a || x->cmp.configs[k].contended_b || why[0];
    }
    pm_col cols[C_N];
    int at[C_N];   /* each column's index in this table; -1: not shown */
    size_t nc = 0;
    for (int c = 0; c < C_N; c++) {
        int shown = (c < C_WALL_RATIO || (c <= C_WALL_B && walls) || (c == C_NOISE && noise));
        at[c] = shown ? (int)nc : -1;
        if (shown)
            cols[nc++] = all[c];
    }
    char caption[512], id[32];
    pm_rt_ab_caption(a, pair, caption, sizeof caption);
    snprintf(id, sizeof id, "t-ab-%zu", pair + 1);
    pm_table *t = pm_table_new(id, caption, cols, nc);
    if (t)
        t->n_lead = C_MARK + 1;
    int rc = 0;
    for (size_t k = 0; t && !rc && k < x->cmp.n_configs; k++) {
        const pm_compare_config *c = &x->cmp.configs[k];
        const pm_compare_stat *st = pm_compare_decider(&x->cmp, c), *wall = &c->wall;
        long r = pm_table_add_row(t);
        if (r < 0) {
            rc = PM_ERR_NOMEM;
            break;
        }
        size_t row = (size_t)r;
        char buf[128];
        /* the A side's own key, as the configs table names it, with what B changes in it: every row (and every
         * block of a table split at the terminal's width) says which B; compare's matching key spells out every
         * parameter and pushed the table past 120 columns */
        char key[1024];
        ab_row_key(key, sizeof key, c->key_a ? c->key_a : c->key, c->key_b);
        rc |= pm_table_set(t, row, (size_t)at[C_CFG], key, NAN);
        pm_compare_fmt_ratio(buf, sizeof buf, st);
        rc |= pm_table_set(t, row, (size_t)at[C_RATIO], buf, st->ratio);
        pm_compare_fmt_verdict(buf, sizeof buf, st);
        rc |= pm_table_set(t, row, (size_t)at[C_MARK], buf, NAN);
        pm_compare_fmt_ci(buf, sizeof buf, st, 0);
        rc |= pm_table_set(t, row, (size_t)at[C_CI], buf, NAN);
        pm_compare_fmt_p(buf, sizeof buf, st);
        rc |= pm_table_set(t, row, (size_t)at[C_P], buf, st->p_holm);
        pm_compare_fmt_metric_side(buf, sizeof buf, st, 0, x->cmp.decided_on);
        rc |= pm_table_set(t, row, (size_t)at[C_A], buf, st->gmean_a);
        pm_compare_fmt_metric_side(buf, sizeof buf, st, 1, x->cmp.decided_on);
        rc |= pm_table_set(t, row, (size_t)at[C_B], buf, st->gmean_b);
        if (walls) {   /* shown, deciding nothing */
            pm_compare_fmt_ratio(buf, sizeof buf, wall);
            rc |= pm_table_set(t, row, (size_t)at[C_WALL_RATIO], buf, wall->ratio);
            pm_compare_fmt_side(buf, sizeof buf, wall, 0);
            rc |= pm_table_set(t, row, (size_t)at[C_WALL_A], buf, wall->gmean_a);
            pm_compare_fmt_side(buf, sizeof buf, wall, 1);
            rc |= pm_table_set(t, row, (size_t)at[C_WALL_B], buf, wall->gmean_b);
        }
        if (noise) {   /* compare judged contention with the analysis's rule (contention.h): which side */
            int na = c->contended_a != NULL, nb = c->contended_b != NULL;
            /* where the count and the wall disagree, the row says so beside it (instructions are not time) */
            char why[96];
            pm_compare_disagree(&x->cmp, c, why, sizeof why);
            rc |= pm_table_setf(t, row, (size_t)at[C_NOISE], NAN, "%s%s%s",
                                na && nb ? "contended (A, B)" : na ? "contended (A)" : nb ? "contended (B)" : "",
                                (na || nb) && why[0] ? "; " : "", why);
        }
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}


char *pm_rt_handoff_text(const pm_analysis *a)
{
    const pm_an_handoff *h = &a->handoff;
    pm_sbuf b = {0};
    if (!h->x || !h->n_points) {
        pm_sbuf_add(&b, "not applicable: no configs with cold runs");
        return b.oom ? (free(b.s), NULL) : b.s;
    }
    const pm_kind *k = pm_kind_find(h->kind);
    pm_sbuf_add(&b, "%s%sstage share vs %s%s over %zu configs, series by %s (%zu)", k ? k->label : "",
                k ? " " : "", !strcmp(h->x, "wall") ? "cold compile wall" : h->x, h->log_x ? " (log)" : "",
                h->n_points, *h->series_axes ? h->series_axes : "none", h->n_series);
    /* the stages whose share rises and falls fastest: per decade of x on the log scale, else per unit of x */
    int up, down;
    pm_an_handoff_extremes(a, &up, &down);
    const char *per = h->log_x ? "per decade" : "per unit";
    if (up >= 0)
        pm_sbuf_add(&b, "; rising: %s %+.1f points %s", a->stages[up], h->trends[up].slope * 100, per);
    if (down >= 0)
        pm_sbuf_add(&b, "; falling: %s %+.1f points %s", a->stages[down], h->trends[down].slope * 100, per);
    if (up < 0 && down < 0)
        pm_sbuf_add(&b, "; no trend (x takes one value)");
    if (h->series_pairs)
        pm_sbuf_add(&b, "; mean Jensen-Shannon distance between series at equal x %.3f (%d pair%s)", h->series_jsd,
                    h->series_pairs, h->series_pairs == 1 ? "" : "s");
    else
        pm_sbuf_add(&b, "; no two series meet at equal x: no distance between series");
    return b.oom ? (free(b.s), NULL) : b.s;
}
