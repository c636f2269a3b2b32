/* Section: the heavy passes and their cost fits against IR size. */
#include "util.h"
#include "analysis_internal.h"

#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a store without stage-entry sizes says instead of a fit. */
static const char no_sizes[] =
    "no fit: this store has no stage-entry sizes (ir.stage.*), and the input size is no stand-in for the IR a "
    "stage works on; `passmap probe DB` measures them for the sweep's configs (or rerun the sweep: the embedded "
    "back end measures them before its runs)";

/* The rules that say which metric sizes a tool's stage (stagemap.h pm_fit_size), as the sweep recorded them in
 * its metadata ("fit_sizes"). A store made before they were recorded takes its back end's rules of today (asked
 * through pm_an_opts.fit_sizes_of: the study reaches no back end itself), and a store of no back end (an
 * import) the rules every back end had then, picked by tool name; either way pm_analysis.fits.x_note says so. */
static const pm_fit_size by_tool_name[] = {
    {"ov-*", "*tiling*", "npu.tiles"}, {"ov-*", NULL, "npu.tasks"}, {"llc", NULL, "ir.llvm_ops"},
    {"mlir-translate", NULL, "ir.llvm_ops"}, {NULL, NULL, "ir.stage.{stage}"}, {NULL, NULL, "ir.*"}, {0}};

static const char no_rules_row[] =
    "this store records no fit-size rules (a sweep made before they were recorded, or runs of `passmap run "
    "--db`): each fit's x axis follows the rules of its back end today";
static const char no_rules_name[] =
    "this store records no fit-size rules and has no back end to ask (an import): each fit's x axis is picked by "
    "tool name (ov-*: npu.tiles/tasks, llc and mlir-translate: ir.llvm_ops, else the stage's own ir.stage.*)";

typedef struct fit_rules {
    pm_fit_size *r;    /* strings point into meta (or are static) */
    size_t n;
    json_t *meta;
    const char *note;  /* the fallback's statement, NULL: the recorded rules */
} fit_rules;

static int load_rules(an_work *w, fit_rules *fr)
{
    pm_analysis *a = w->a;
    memset(fr, 0, sizeof *fr);
    fr->meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    json_t *arr = json_object_get(fr->meta, "fit_sizes");
    const pm_fit_size *stat = NULL;
    if (json_is_array(arr)) {
        size_t n = json_array_size(arr);
        if (!(fr->r = calloc(n + 1, sizeof *fr->r)))
            return PM_ERR_NOMEM;
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_array_get(arr, i);
            const char *m = json_string_value(json_object_get(o, "metric"));
            if (!m)
                continue;   /* not a rule this version reads */
            fr->r[fr->n++] = (pm_fit_size){json_string_value(json_object_get(o, "tool")),
                                           json_string_value(json_object_get(o, "stage")), m};
        }
        return PM_OK;
    }
    const pm_fit_size *today = w->opts && w->opts->fit_sizes_of ? w->opts->fit_sizes_of(a->backend) : NULL;
    if (today) {
        stat = today;
        fr->note = no_rules_row;
    } else {
        stat = by_tool_name;
        fr->note = no_rules_name;
    }
    size_t n = 0;
    while (stat && stat[n].metric)
        n++;
    if (!(fr->r = calloc(n + 1, sizeof *fr->r)))
        return PM_ERR_NOMEM;
    memcpy(fr->r, stat, n * sizeof *fr->r);
    fr->n = n;
    return PM_OK;
}

static void free_rules(fit_rules *fr)
{
    free(fr->r);
    json_decref(fr->meta);
}

static int pattern_matches(const char *pattern, const char *text)
{
    return !pattern || !strcmp(pattern, "*") || (text && fnmatch(pattern, text, 0) == 0);
}

/* The size a pass works on is the IR at the entry of its own stage: fixed by the stage, never chosen by how
 * well it fits. *out NULL: not measured (no fit). PM_ERR_NOMEM when out of memory. */
static int x_metric_for(an_work *w, const fit_rules *fr, const char *tool, int stage, const char **out)
{
    pm_analysis *a = w->a;
    const char *name = an_stage_name(a, stage);
    *out = NULL;
    for (size_t i = 0; i < fr->n; i++) {
        const pm_fit_size *r = &fr->r[i];
        if (!pattern_matches(r->tool, tool) || !pattern_matches(r->stage, name))
            continue;
        const char *brace = strstr(r->metric, "{stage}");
        if (brace) {   /* the stage's own size, where the store has it */
            int measured = 0;
            for (size_t ci = 0; ci < a->n_configs && !measured; ci++)
                measured = a->configs[ci].stage_ir && !isnan(a->configs[ci].stage_ir[stage]);
            if (!measured)
                continue;
            char m[256];
            snprintf(m, sizeof m, "%.*s%s%s", (int)(brace - r->metric), r->metric, name, brace + 7);
            return (*out = an_pool_add(&w->pv->pool, m)) ? PM_OK : PM_ERR_NOMEM;
        }
        if (!strcmp(r->metric, "ir.*")) {
            /* A command back end: the sizes its steps declare ("ir.*"). Which one is fixed by name (the first in
             * sort order), never by how well it fits; a spec declares one size per study to fit against. */
            int has_ops = 0;
            for (size_t ci = 0; ci < a->n_configs && !has_ops; ci++)
                has_ops = !isnan(an_config_metric(a, &a->configs[ci], "ir.ops"));
            if (has_ops)
                continue;
            for (size_t k = 0; k < w->n_metric_names; k++)
                if (!strncmp(w->metric_names[k], "ir.", 3) && (!*out || strcmp(w->metric_names[k], *out) < 0))
                    *out = w->metric_names[k];
            if (*out)
                return PM_OK;
            continue;
        }
        return (*out = an_pool_add(&w->pv->pool, r->metric)) ? PM_OK : PM_ERR_NOMEM;
    }
    return PM_OK;   /* NULL: the stage's entry was not measured (older stores): no fit */
}

static int same_variant(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* One fit: the pass's per-config geometric means (over each config's cold runs) of the variant's configs
 * against the size at its stage's entry. */
static void fit_variant(an_work *w, pm_an_fit *f, size_t pid, const char *const *group_of)
{
    pm_analysis *a = w->a;
    size_t nc = a->n_configs;
    double u = 0, uw = 0;
    for (size_t ci = 0; ci < nc; ci++) {
        const pm_an_config *c = &a->configs[ci];
        if (!same_variant(c->variant, f->variant) || !same_variant(group_of[ci], f->group))
            continue;
        double x = f->x_metric ? an_config_metric(a, c, f->x_metric) : NAN;
        /* Under NPUW every subgraph compile overwrites the trace and strategy files: x is the LM head's,
         * the pass time the whole compile's. Never fitted against each other. */
        if (f->x_metric && !strncmp(f->x_metric, "npu.", 4) &&
            (an_config_metric(a, c, "npu.submodel.lm_head.blocks") > 0 ||
             an_config_metric(a, c, "ov.npuw.max_prompt_len") > 0)) {
            for (size_t p = 0; p < c->n_passes; p++)
                f->npuw_left_out += c->passes[p].name == f->name;
            continue;
        }
        int nl = w->pid_cfg_nlog ? w->pid_cfg_nlog[pid * nc + ci] : 0;
        double g = nl > 0 ? exp(w->pid_cfg_log[pid * nc + ci] / nl) : NAN;
        if (x > 0 && g > 0) {
            f->x[f->n] = x;
            f->y[f->n++] = g;
        }
        for (size_t p = 0; p < c->n_passes; p++)
            if (c->passes[p].name == f->name && c->passes[p].tool == f->tool) {
                if (!isnan(c->passes[p].user_wall)) {
                    u += c->passes[p].user_wall * c->passes[p].mean_s;
                    uw += c->passes[p].mean_s;
                }
                break;
            }
    }
    f->user_wall = uw > 0 ? u / uw : NAN;
    f->exponent = f->lo = f->hi = f->r2 = f->prefactor = NAN;
    int distinct = 0;
    for (int i = 0; i < f->n; i++)
        distinct += i == 0 || f->x[i] != f->x[0];
    if (distinct >= 3)
        an_powerlaw_fit(f->x, f->y, f->n, &f->exponent, &f->lo, &f->hi, &f->r2, &f->prefactor);
    f->superlinear = !isnan(f->lo) && f->lo > 1;
}

typedef struct axis_point {
    char *rest;    /* the config's key on every other axis */
    const char *value;
    double x;
} axis_point;

static int cmp_axis_point(const void *p, const void *q)
{
    const axis_point *a = p, *b = q;
    return strcmp(a->rest, b->rest);
}

/* Whether `axis` changes the pipeline rather than the size: configs equal on every other axis that differ in it
 * all have the same x (clang's -O level against the input's size), and some do. Such an axis is no size axis, so
 * a fit never pools its values (pooled across -O levels, one pass's k came out 41.6 and -16.2). -1: no memory. */
static int pipeline_axis(const pm_analysis *a, const char *axis, const char *x_metric)
{
    axis_point *pt = calloc(a->n_configs + 1, sizeof *pt);
    size_t n = 0;
    int varied = 0, moved = 0, rc = 0;
    if (!pt)
        return -1;
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        const pm_an_config *c = &a->configs[ci];
        const char *v = pm_cfg_param(&c->cfg, axis);
        double x = an_config_metric(a, c, x_metric);
        if (!v || !(x > 0))
            continue;
        if (!(pt[n].rest = pm_cfg_key_except(&c->cfg, axis))) {
            rc = -1;
            goto cleanup;
        }
        pt[n].value = v;
        pt[n++].x = x;
    }
    qsort(pt, n, sizeof *pt, cmp_axis_point);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(pt[i].rest, pt[i - 1].rest) && strcmp(pt[i].value, pt[i - 1].value)) {
            varied = 1;
            moved |= pt[i].x != pt[i - 1].x;
        }
    rc = varied && !moved;
cleanup:
    for (size_t i = 0; i < n; i++)
        free(pt[i].rest);
    free(pt);
    return rc;
}

/* Each config's fit group for x_metric: its values of the pipeline axes ("opt=2"), NULL when there are none. The
 * strings are the pool's. */
static int fit_groups(an_work *w, const char *x_metric, const char **group_of)
{
    pm_analysis *a = w->a;
    char **axes = NULL;
    size_t n_axes = 0;
    int rc = PM_OK;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        group_of[ci] = NULL;
    if (!x_metric || !a->n_configs)
        return PM_OK;
    /* the axes: those of the first config (a study's configs share their axes) */
    const pm_an_config *c0 = &a->configs[0];
    if (!(axes = calloc(c0->n_params + 1, sizeof *axes)))
        return PM_ERR_NOMEM;
    for (size_t k = 0; k < c0->n_params; k++) {
        int p = pipeline_axis(a, c0->params[k].name, x_metric);
        if (p < 0) {
            rc = PM_ERR_NOMEM;
            goto cleanup;
        }
        if (p)
            axes[n_axes++] = c0->params[k].name;
    }
    for (size_t ci = 0; n_axes && ci < a->n_configs; ci++) {
        char buf[512];
        size_t used = 0;
        for (size_t k = 0; k < n_axes && used < sizeof buf; k++) {
            const char *v = pm_cfg_param(&a->configs[ci].cfg, axes[k]);
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s=%s", k ? "/" : "", axes[k], v ? v : "");
        }
        if (used >= sizeof buf) {
            rc = PM_ERR_USAGE;   /* the group label outgrew its buffer: say so, never cut it */
            goto cleanup;
        }
        if (!(group_of[ci] = an_pool_add(&w->pv->pool, buf))) {
            rc = PM_ERR_NOMEM;
            goto cleanup;
        }
    }
cleanup:
    free(axes);
    return rc;
}

/* The metric names any config carries (pointers into the configs); -1: out of memory. */
static int collect_metric_names(an_work *w)
{
    const pm_analysis *a = w->a;
    w->n_metric_names = 0;
    for (size_t ci = 0; ci < a->n_configs; ci++)
        for (size_t k = 0; k < a->configs[ci].n_metrics; k++) {
            const char *nm = a->configs[ci].metrics[k].name;
            size_t j = 0;
            while (j < w->n_metric_names && strcmp(w->metric_names[j], nm))
                j++;
            if (j < w->n_metric_names)
                continue;
            const char **nn = realloc(w->metric_names, (w->n_metric_names + 1) * sizeof *nn);
            if (!nn)
                return -1;
            w->metric_names = nn;
            w->metric_names[w->n_metric_names++] = nm;
        }
    return 0;
}

/* The variants, each its own fits (pooling them mixes the fixes' effects into the exponent): the reference
 * (stock, else the first met) first. NULL: out of memory. */
static const char **variants_reference_first(const pm_analysis *a, size_t *n_var)
{
    const char **variants = calloc(a->n_configs + 1, sizeof *variants);
    *n_var = 0;
    if (!variants)
        return NULL;
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        const char *v = a->configs[ci].variant;
        size_t j = 0;
        while (j < *n_var && !same_variant(variants[j], v))
            j++;
        if (j == *n_var)
            variants[(*n_var)++] = v;
        if (v && !strcmp(v, "stock") && j > 0) {   /* stock moves to the front */
            const char *t = variants[0];
            variants[0] = variants[j];
            variants[j] = t;
        }
    }
    return variants;
}

int an_fits(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    struct pm_an_priv *pv = w->pv;
    size_t NP = pv->n_pids;
    const char **variants = NULL, **group_of = NULL, **groups = NULL;
    size_t n_var = 0, cap_rows = 0;
    double *pid_max = NULL;
    fit_rules fr;
    if (load_rules(w, &fr)) {
        free_rules(&fr);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (collect_metric_names(w) || !(variants = variants_reference_first(a, &n_var)))
        AN_NOMEM();
    /* Heavy passes: largest share anywhere >= 5%, top 8 by that share; fit time against IR size. */
    pid_max = calloc(NP + 1, sizeof *pid_max);
    if (!pid_max)
        AN_NOMEM();
    for (size_t ci = 0; ci < a->n_configs; ci++)
        for (size_t p = 0; p < a->configs[ci].n_passes; p++) {
            const pm_an_pass *ps = &a->configs[ci].passes[p];
            if (ps->share > pid_max[ps->id])
                pid_max[ps->id] = ps->share;
        }
    group_of = calloc(a->n_configs + 1, sizeof *group_of);
    groups = calloc(a->n_configs + 1, sizeof *groups);
    if (!group_of || !groups)
        AN_NOMEM();
    for (int round = 0; round < 8; round++) {
        size_t best = NP;
        for (size_t k = 0; k < NP; k++)
            if (pid_max[k] >= 0.05 && (best == NP || pid_max[k] > pid_max[best]))
                best = k;
        if (best == NP)
            break;
        double mshare = pid_max[best];
        pid_max[best] = -1;
        const char *xm = NULL;
        if ((rc = x_metric_for(w, &fr, pv->pids[best].tool, pv->pids[best].stage, &xm)))
            AN_NOMEM();
        if ((rc = fit_groups(w, xm, group_of)) == PM_ERR_USAGE) {
            rc = pm_err_set(err, PM_ERR_USAGE, "fits: a fit group's label is over 511 bytes (too many pipeline axes)");
            goto cleanup;
        }
        if (rc)
            AN_NOMEM();
        /* the groups in the configs' order (NULL: one group) */
        size_t n_grp = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            size_t g = 0;
            while (g < n_grp && !same_variant(groups[g], group_of[ci]))
                g++;
            if (g == n_grp)
                groups[n_grp++] = group_of[ci];
        }
        if (!n_grp)
            groups[n_grp++] = NULL;
        for (size_t fv = 0; fv < n_var * n_grp; fv++) {
            size_t v = fv / n_grp;
            if (a->fits.n == cap_rows) {
                size_t nc = cap_rows ? cap_rows * 2 : 8;
                pm_an_fit *nr = realloc(a->fits.rows, nc * sizeof *nr);
                if (!nr)
                    AN_NOMEM();
                memset(nr + cap_rows, 0, (nc - cap_rows) * sizeof *nr);
                a->fits.rows = nr;
                cap_rows = nc;
            }
            pm_an_fit *f = &a->fits.rows[a->fits.n];
            f->tool = pv->pids[best].tool;
            f->name = pv->pids[best].name;
            f->stage = pv->pids[best].stage;
            f->x_metric = xm;
            f->no_fit = xm ? NULL : no_sizes;
            f->variant = variants[v];
            f->group = groups[fv % n_grp];
            f->reference = fv == 0;
            f->max_share = mshare;
            f->x = calloc(a->n_configs + 1, sizeof *f->x);
            f->y = calloc(a->n_configs + 1, sizeof *f->y);
            if (!f->x || !f->y) {
                free(f->x);
                free(f->y);
                f->x = f->y = NULL;
                AN_NOMEM();
            }
            a->fits.n++;
            fit_variant(w, f, best, group_of);
        }
    }
    if (a->fits.n)
        a->fits.x_note = fr.note;
cleanup:
    free_rules(&fr);
    pm_free_all(pid_max, variants, group_of, groups);
    return rc;
}

void an_fits_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->fits.n; i++)
        pm_free_all(a->fits.rows[i].x, a->fits.rows[i].y);
    free(a->fits.rows);
}
