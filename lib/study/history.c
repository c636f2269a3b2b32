/* pm_history: a series of sweeps per config and row, with the verdict rule's change points (see history.h). */
#include "history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "stagemap.h"
#include "store.h"
#include "store_runs.h"
#include "store_query.h"
#include "store_sweeps.h"
#include "util.h"

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

const char *pm_history_kind_name(pm_history_kind k)
{
    static const char *const names[] = {"compile", "step", "stage"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static pm_history_config *config_of(pm_history *h, size_t *cap, const char *key)
{
    for (size_t i = 0; i < h->n_configs; i++)
        if (!strcmp(h->configs[i].key, key))
            return &h->configs[i];
    pm_history_config *g = pm_grow(h->configs, cap, h->n_configs, sizeof *g, 16);
    if (!g)
        return NULL;
    h->configs = g;
    pm_history_config *c = &g[h->n_configs];
    *c = (pm_history_config){.key = strdup(key)};
    if (!c->key)
        return NULL;
    h->n_configs++;
    return c;
}

static pm_history_row *row_of(pm_history_config *c, size_t n_sweeps, pm_history_kind kind, const char *name)
{
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].kind == kind && !strcmp(c->rows[i].name, name))
            return &c->rows[i];
    pm_history_row *g = pm_grow(c->rows, &c->cap_rows, c->n_rows, sizeof *g, 8);
    if (!g)
        return NULL;
    c->rows = g;
    pm_history_row *r = &g[c->n_rows];
    *r = (pm_history_row){.kind = kind, .name = strdup(name), .points = calloc(n_sweeps ? n_sweeps : 1,
                                                                                  sizeof *r->points)};
    if (!r->name || !r->points) {
        free(r->name), free(r->points);
        return NULL;
    }
    for (size_t i = 0; i < n_sweeps; i++)
        r->points[i] = (pm_history_point){.value = NAN, .change = PM_VERDICT_NA, .ratio = NAN, .ci_lo = NAN,
                                          .ci_hi = NAN, .delta = 0};
    c->n_rows++;
    return r;
}

/* Sets the two points of a pair (i: the sweep before, i + 1: after) and the change at i + 1. */
static void set_pair(pm_history_row *r, size_t i, double a, double b, const pm_compare_stat *st)
{
    if (isnan(r->points[i].value))
        r->points[i].value = a;
    r->points[i + 1].value = b;
    if (st) {
        r->points[i + 1].change = st->verdict;
        r->points[i + 1].ratio = st->ratio, r->points[i + 1].ci_lo = st->ci_lo, r->points[i + 1].ci_hi = st->ci_hi;
        r->points[i + 1].delta = st->delta;
    }
}

static double finite_or(double v, double dflt)
{
    return isfinite(v) ? v : dflt;
}

/* The stages of one config's pair: each the sum of its passes' means on both sides; its change the pass of it
 * that moved most by the rule (slower or faster). */
static int add_stages(pm_history *h, pm_history_config *hc, size_t i, const pm_compare_config *c,
                      const pm_stagemap *map)
{
    for (size_t k = 0; k < c->n_passes; k++) {
        const pm_compare_row *p = &c->passes[k];
        const char *stage = map ? pm_stagemap_match(map, p->tool, p->pass) : NULL;
        pm_history_row *r = row_of(hc, h->n_sweeps, PM_HISTORY_STAGE, stage ? stage : "unmapped");
        if (!r)
            return -1;
        /* a stage's first pass of this pair starts its sums at this pair's values */
        pm_history_point *pa = &r->points[i], *pb = &r->points[i + 1];
        if (isnan(pb->value)) {
            pa->value = 0;
            pb->value = 0;
        }
        pa->value += finite_or(p->st.mean_a, 0);
        pb->value += finite_or(p->st.mean_b, 0);
        if (p->st.verdict != PM_VERDICT_SLOWER && p->st.verdict != PM_VERDICT_FASTER)
            continue;
        int first = pb->change != PM_VERDICT_SLOWER && pb->change != PM_VERDICT_FASTER;
        if (!first && !(fabs(finite_or(p->st.delta, 0)) > fabs(pb->delta)))
            continue;
        free(pb->why);
        if (asprintf(&pb->why, "pass %s: %s %.3fx [%.3f, %.3f]", p->tool ? p->tool : "-", p->pass, p->st.ratio,
                     p->st.ci_lo, p->st.ci_hi) < 0) {
            pb->why = NULL;
            return -1;
        }
        pb->change = p->st.verdict;
        pb->ratio = p->st.ratio, pb->ci_lo = p->st.ci_lo, pb->ci_hi = p->st.ci_hi;
        pb->delta = finite_or(p->st.delta, 0);
    }
    return 0;
}

static int add_pair(pm_history *h, size_t *cap, size_t i, const pm_compare_result *r, const pm_stagemap *map)
{
    const char *metric = pm_decide_name((pm_decide_metric)r->decided_on);
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(metric, " "), metric);
    for (size_t k = 0; k < r->n_configs; k++) {
        const pm_compare_config *c = &r->configs[k];
        pm_history_config *hc = config_of(h, cap, c->key);
        pm_history_row *row = hc ? row_of(hc, h->n_sweeps, PM_HISTORY_COMPILE, name) : NULL;
        if (!row)
            return -1;
        const pm_compare_stat *d = pm_compare_decider(r, c);
        set_pair(row, i, d->gmean_a, d->gmean_b, d);
        for (size_t s = 0; s < c->n_steps; s++) {
            const pm_compare_row *st = &c->steps[s];
            if (!(row = row_of(hc, h->n_sweeps, PM_HISTORY_STEP, st->tool ? st->tool : "-")))
                return -1;
            set_pair(row, i, st->presence == PM_COMPARE_ADDED ? NAN : st->st.gmean_a,
                     st->presence == PM_COMPARE_REMOVED ? NAN : st->st.gmean_b, &st->st);
        }
        if (add_stages(h, hc, i, c, map))
            return -1;
    }
    return 0;
}

static void count_changes(pm_history *h)
{
    for (size_t c = 0; c < h->n_configs; c++)
        for (size_t r = 0; r < h->configs[c].n_rows; r++)
            for (size_t i = 0; i < h->n_sweeps; i++) {
                pm_compare_verdict v = h->configs[c].rows[r].points[i].change;
                h->n_changes += v == PM_VERDICT_SLOWER || v == PM_VERDICT_FASTER;
            }
}

static int cmp_row(const void *x, const void *y)
{
    const pm_history_row *a = x, *b = y;
    return a->kind != b->kind ? (int)a->kind - (int)b->kind : strcmp(a->name, b->name);
}

static int cmp_config(const void *x, const void *y)
{
    return strcmp(((const pm_history_config *)x)->key, ((const pm_history_config *)y)->key);
}

/* Whether the program word names value as a token of its own ("llc-14", "/usr/lib/llvm-14/bin/llc" for 14). */
static int names_value(const char *word, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = word ? strstr(word, value) : NULL; p && n; p = strstr(p + 1, value)) {
        char before = p == word ? '-' : p[-1], after = p[n];
        int alnum_b = (before >= '0' && before <= '9') || (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z');
        int alnum_a = (after >= '0' && after <= '9') || (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z');
        if (!alnum_b && !alnum_a)
            return 1;
    }
    return 0;
}

/* Each sweep's compiler: the tools it recorded, by their --version lines (value: only those naming it). */
static int compiler_of(pm_store *st, const char *sweep, const char *value, char **out, pm_err *err)
{
    int64_t id;
    pm_tool_ident *t = NULL;
    size_t n = 0;
    int rc = pm_store_pick_sweep(pm_store_db(st), sweep, &id, err);
    if (rc == PM_OK)
        rc = pm_store_read_tools(pm_store_db(st), id, &t, &n, err);
    char buf[1024] = "";
    size_t used = 0;
    for (size_t i = 0; rc == PM_OK && i < n && used < sizeof buf; i++) {
        if (value && !names_value(t[i].invoked, value))
            continue;
        char line[256];
        pm_version_line(t[i].version_text ? t[i].version_text : "", line, sizeof line);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s %s", used ? "; " : "", t[i].name, line);
    }
    pm_tool_idents_free(t, n);
    if (rc == PM_OK && !(*out = strdup(buf)))
        rc = nomem(err);
    return rc;
}

/* The sweep's --label from its metadata, or NULL. */
static int label_of(pm_store *st, const char *sweep, char **out, pm_err *err)
{
    pm_sq_sweeps sw = {0};
    int rc = pm_sq_sweeps_find(pm_store_db(st), sweep, &sw, err);
    json_t *m = rc == PM_OK && sw.meta_json ? json_loads(sw.meta_json, 0, NULL) : NULL;
    const char *label = json_string_value(json_object_get(m, "label"));
    if (label && !(*out = strdup(label)))
        rc = nomem(err);
    json_decref(m);
    pm_sq_sweeps_free(&sw);
    return rc;
}

/* One pair through pm_compare_run into the series at i. */
static int run_pair(pm_history *h, const pm_compare_opts *co, size_t *cap, size_t i, const pm_stagemap *map,
                    pm_err *err)
{
    pm_compare_result r;
    int rc = pm_compare_run(co, &r, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "%s against %s", h->sweeps[i + 1].name, h->sweeps[i].name);
    h->threshold = r.threshold;
    if (add_pair(h, cap, i, &r, map))
        rc = nomem(err);
    pm_compare_free(&r);
    return rc;
}

static void finish(pm_history *h)
{
    count_changes(h);
    qsort(h->configs, h->n_configs, sizeof *h->configs, cmp_config);
    for (size_t c = 0; c < h->n_configs; c++)
        qsort(h->configs[c].rows, h->configs[c].n_rows, sizeof *h->configs[c].rows, cmp_row);
}

/* The series along an axis of one sweep (pm_history_opts.axis); takes st and map. */
static int run_axis(const pm_history_opts *o, pm_history *h, pm_store *st, pm_stagemap *map, pm_err *err)
{
    size_t cap = 0;
    const char *sweep = o->sweeps && o->n_sweeps ? o->sweeps[0] : NULL;
    int rc = PM_OK;
    if (o->sweeps && o->n_sweeps > 1)
        rc = pm_err_set(err, PM_ERR_USAGE, "history --axis: one sweep at most (--sweeps names %zu)", o->n_sweeps);
    else if (o->n_values < 2)
        rc = pm_err_set(err, PM_ERR_USAGE, "history --axis %s: two values or more, in series order (%s=A,B,...)",
                        o->axis, o->axis);
    else if (!(h->axis = strdup(o->axis)) || !(h->sweeps = calloc(o->n_values, sizeof *h->sweeps)))
        rc = nomem(err);
    for (size_t i = 0; rc == PM_OK && i < o->n_values; i++) {
        pm_history_sweep *s = &h->sweeps[h->n_sweeps++];
        char *sw = NULL;
        pm_sq_sweeps found = {0};
        if (asprintf(&s->name, "%s=%s", o->axis, o->values[i]) < 0) {
            s->name = NULL;
            rc = nomem(err);
        } else if ((rc = pm_sq_sweeps_find(pm_store_db(st), sweep, &found, err)) == PM_OK) {
            sw = found.name;
            rc = compiler_of(st, sw, o->values[i], &s->compiler, err);
        }
        pm_sq_sweeps_free(&found);
    }
    for (size_t i = 0; rc == PM_OK && i + 1 < h->n_sweeps; i++) {
        pm_compare_opts co = {.path_a = o->path, .path_b = o->path, .sweep_a = sweep, .sweep_b = sweep,
                              .axis = o->axis, .variant_a = o->values[i], .variant_b = o->values[i + 1],
                              .threshold = o->threshold, .allow_contended = o->allow_contended};
        rc = run_pair(h, &co, &cap, i, map, err);
    }
    if (rc == PM_OK)
        finish(h);
    pm_stagemap_free(map);
    pm_store_close(st);
    if (rc != PM_OK)
        pm_history_free(h);
    return rc;
}

int pm_history_run(const pm_history_opts *o, pm_history *h, pm_err *err)
{
    memset(h, 0, sizeof *h);
    pm_store *st = NULL;
    pm_store_sweep_row *rows = NULL;
    size_t n_rows = 0, cap = 0;
    pm_stagemap *map = pm_stagemap_new();
    int rc = map ? pm_store_open_readonly(o->path, &st, err) : nomem(err);
    if (rc != PM_OK)
        goto cleanup;
    pm_err ignored = {0};
    if (pm_stagemap_load_default(map, &ignored) != PM_OK) {   /* no stage maps: every pass "unmapped" */
        pm_stagemap_free(map);
        map = NULL;
    }
    if (!(h->path = strdup(o->path))) {
        rc = nomem(err);
        goto cleanup;
    }
    if (o->axis)
        return run_axis(o, h, st, map, err);
    if (!o->sweeps && (rc = pm_store_list_sweeps(st, &rows, &n_rows, err)) != PM_OK)
        goto cleanup;
    size_t n = o->sweeps ? o->n_sweeps : n_rows;
    if (!(h->sweeps = calloc(n ? n : 1, sizeof *h->sweeps))) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        if (!o->sweeps && rows[i].superseded)
            continue;
        pm_history_sweep *s = &h->sweeps[h->n_sweeps++];
        if (!(s->name = strdup(o->sweeps ? o->sweeps[i] : rows[i].name))) {
            rc = nomem(err);
            goto cleanup;
        }
        if ((rc = compiler_of(st, s->name, NULL, &s->compiler, err)) != PM_OK ||
            (rc = label_of(st, s->name, &s->label, err)) != PM_OK)
            goto cleanup;
    }
    if (h->n_sweeps < 2) {
        rc = pm_err_set(err, PM_ERR_USAGE, "%s: a history needs two sweeps or more (one per compiler build: "
                        "`passmap sweep --name LABEL --db %s SPEC`), it has %zu", o->path, o->path, h->n_sweeps);
        goto cleanup;
    }
    for (size_t i = 0; i + 1 < h->n_sweeps; i++) {
        pm_compare_opts co = {.path_a = o->path, .path_b = o->path, .sweep_a = h->sweeps[i].name,
                              .sweep_b = h->sweeps[i + 1].name, .threshold = o->threshold,
                              .allow_contended = o->allow_contended, .whole_key = 1};
        if ((rc = run_pair(h, &co, &cap, i, map, err)) != PM_OK)
            goto cleanup;
    }
    finish(h);
cleanup:
    pm_store_sweep_rows_free(rows, n_rows);
    pm_stagemap_free(map);
    pm_store_close(st);
    if (rc != PM_OK)
        pm_history_free(h);
    return rc;
}

void pm_history_free(pm_history *h)
{
    if (!h)
        return;
    for (size_t c = 0; c < h->n_configs; c++) {
        pm_history_config *cf = &h->configs[c];
        for (size_t r = 0; r < cf->n_rows; r++) {
            for (size_t i = 0; i < h->n_sweeps; i++)
                free(cf->rows[r].points[i].why);
            pm_free_all(cf->rows[r].points, cf->rows[r].name);
        }
        pm_free_all(cf->rows, cf->key);
    }
    for (size_t i = 0; i < h->n_sweeps; i++)
        pm_free_all(h->sweeps[i].name, h->sweeps[i].compiler, h->sweeps[i].label);
    pm_free_all(h->configs, h->sweeps, h->path, h->axis);
    memset(h, 0, sizeof *h);
}
