/* pm_samples: a sweep's samples per config, step and top pass, loaded from a store (see samples.h). */
#include "samples.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "decide.h"
#include "parse.h"
#include "run.h"
#include "stats.h"
#include "store.h"
#include "store_compare.h"
#include "store_query.h"
#include "store_runs.h"
#include "util.h"

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

const char *pm_sample_scope_name(pm_sample_scope s)
{
    static const char *const names[] = {"run", "step", "pass"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

int pm_sample_scope_from_name(const char *name)
{
    for (int s = PM_SAMPLE_RUN; s <= PM_SAMPLE_PASS; s++)
        if (name && !strcmp(name, pm_sample_scope_name((pm_sample_scope)s)))
            return s;
    return -1;
}

void pm_sample_stats(const pm_sample_series *s, size_t n_runs, size_t *n, double *mean, double *sd)
{
    double sum = 0, sq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n_runs; i++)
        if (!isnan(s->v[i]))
            sum += s->v[i], k++;
    *n = k;
    *mean = k ? sum / (double)k : NAN;
    for (size_t i = 0; k && i < n_runs; i++)
        if (!isnan(s->v[i]))
            sq += (s->v[i] - *mean) * (s->v[i] - *mean);
    *sd = k >= 2 ? sqrt(sq / (double)(k - 1)) : NAN;
}

void pm_samples_identity(const pm_samples *s, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_tools && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s %s", i ? "; " : "", s->tools[i].name,
                                 s->tools[i].version ? s->tools[i].version : "");
}

static void free_series(pm_sample_series *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        pm_free_all(s[i].tool, s[i].pass, s[i].metric, s[i].unit, s[i].format, s[i].v);
    free(s);
}

void pm_samples_free(pm_samples *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_configs; i++) {
        pm_sample_config *c = &s->configs[i];
        pm_free_all(c->key, c->variant, c->fp_hash, c->fp_text, c->host, c->host_fp, c->contended);
        free_series(c->series, c->n_series);
    }
    free(s->configs);
    for (size_t i = 0; i < s->n_tools; i++)
        free(s->tools[i].name), free(s->tools[i].invoked), free(s->tools[i].hash), free(s->tools[i].version);
    pm_free_all(s->tools, s->sweep, s->meter, s->decides);
    memset(s, 0, sizeof *s);
}

/* ---- loading ---- */

typedef struct cfg_id {
    int64_t id;
    char *key, *variant;
} cfg_id;

typedef struct cfg_ids {
    cfg_id *v;
    size_t n, cap;
    pm_err *err;
} cfg_ids;

static int gather_cfg(void *user, int64_t id, const char *key, const char *variant)
{
    cfg_ids *g = user;
    cfg_id *c = pm_grow(g->v, &g->cap, g->n, sizeof *c, 16);
    if (!c)
        return nomem(g->err);
    g->v = c;
    c = &g->v[g->n++];
    int oom = 0;
    *c = (cfg_id){.id = id, .key = pm_util_strdup_opt(key ? key : "", &oom), .variant = pm_util_strdup_opt(variant, &oom)};
    return oom ? nomem(g->err) : 0;
}

typedef struct loader {
    pm_store *st;
    pm_store_side_cursor *q;
    cfg_ids cfgs;
    pm_config_fp *fps;
    size_t n_fps;
} loader;

/* Whether compare's comparison of the sweep with itself kept (tool, pass) in the config's pass family. */
static int in_family(const pm_compare_config *c, const char *tool, const char *pass)
{
    /* compare reads a trace's "NAME (self)" row as NAME (compare.c, alias_series) */
    size_t n = pass ? strlen(pass) : 0, k = strlen(" (self)");
    if (n > k && !strcmp(pass + n - k, " (self)"))
        n -= k;
    for (size_t i = 0; i < c->n_passes; i++) {
        const char *q = c->passes[i].pass;
        if (!pm_util_strcmp_null(c->passes[i].tool, tool) &&
            (!pm_util_strcmp_null(q, pass) || (q && pass && strlen(q) == n && !strncmp(q, pass, n))))
            return c->passes[i].st.tested != PM_VERDICT_OUTSIDE;
    }
    return 0;
}

static size_t run_index(const int64_t *ids, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return n;
}

/* Appends a series of n_runs values (all NaN until set). */
static int add_series(pm_sample_config *o, size_t *cap, pm_sample_scope scope, const char *tool, const char *pass,
                      const char *metric, const char *unit, double tick, pm_sample_series **out)
{
    pm_sample_series *g = pm_grow(o->series, cap, o->n_series, sizeof *g, 8);
    if (!g)
        return -1;
    o->series = g;
    pm_sample_series *s = &g[o->n_series++];
    int oom = 0;
    *s = (pm_sample_series){.scope = scope, .tool = pm_util_strdup_opt(tool, &oom), .pass = pm_util_strdup_opt(pass, &oom),
                            .metric = pm_util_strdup_opt(metric, &oom), .unit = pm_util_strdup_opt(unit, &oom), .tick = tick, .reads = 1,
                            .v = malloc((o->n_runs ? o->n_runs : 1) * sizeof *s->v)};
    for (size_t i = 0; s->v && i < o->n_runs; i++)
        s->v[i] = scope == PM_SAMPLE_RUN ? NAN : 0;   /* a step or pass absent from a run took no time in it */
    *out = s;
    return oom || !s->v ? -1 : 0;
}

/* The step or pass series of one config (rows ordered by tool, pass, run), the passes filtered to the family. */
static int load_rows(pm_store_side_cursor *q, pm_side_rows which, const pm_compare_config *c, int64_t id,
                     const int64_t *run_ids, pm_sample_config *o, size_t *cap, pm_err *err)
{
    pm_side_row row;
    pm_sample_series *cur = NULL;
    int more, rc = pm_store_side_cursor_start(q, which, id, "cold", 0, err);
    while (rc == PM_OK && (rc = pm_store_side_cursor_next(q, &row, &more, err)) == PM_OK && more) {
        size_t ri = run_index(run_ids, o->n_runs, row.run_id);
        const char *tool = row.tool && *row.tool ? row.tool : NULL;
        if (ri == o->n_runs || (which == PM_SIDE_PASSES && !in_family(c, tool, row.pass)))
            continue;
        if (!cur || pm_util_strcmp_null(cur->tool, tool) || pm_util_strcmp_null(cur->pass, row.pass)) {
            if (add_series(o, cap, which == PM_SIDE_STEPS ? PM_SAMPLE_STEP : PM_SAMPLE_PASS, tool, row.pass,
                           "wall", "s", NAN, &cur)) {
                rc = nomem(err);
                break;
            }
        }
        cur->v[ri] += row.value;
        int oom = 0;
        if (row.format && !cur->format && !(cur->format = pm_util_strdup_opt(row.format, &oom))) {
            rc = nomem(err);
            break;
        }
        /* a step's time is the runner's clock; a pass's its report's (compare's ticks) */
        double tick = which == PM_SIDE_STEPS ? PM_RUN_CLOCK_TICK_S
                      : row.format ? pm_format_tick_s(pm_format_from_name(row.format)) : 0;
        if (tick > 0 && !(cur->tick >= tick))
            cur->tick = tick;
        cur->reads = fmax(cur->reads, (double)row.reads);
    }
    return rc;
}

/* "name [fingerprint], ..." (pm_store_config_hosts): the first machine's name and fingerprint. */
static int first_host(const char *hosts, pm_sample_config *o)
{
    const char *br = hosts ? strstr(hosts, " [") : NULL;
    const char *end = br ? strchr(br, ']') : NULL;
    if (!end)
        return 0;
    o->host = strndup(hosts, (size_t)(br - hosts));
    o->host_fp = strndup(br + 2, (size_t)(end - br - 2));
    return !o->host || !o->host_fp ? -1 : 0;
}

static const cfg_id *find_cfg(const loader *l, const char *key)
{
    for (size_t i = 0; i < l->cfgs.n; i++)
        if (!strcmp(l->cfgs.v[i].key, key))
            return &l->cfgs.v[i];
    return NULL;
}

static const pm_config_fp *find_fp(const loader *l, const char *key)
{
    for (size_t i = 0; i < l->n_fps; i++)
        if (l->fps[i].key && !strcmp(l->fps[i].key, key))
            return &l->fps[i];
    return NULL;
}

static int load_config(loader *l, const pm_compare_result *r, const pm_compare_config *c, pm_sample_config *o,
                       pm_err *err)
{
    static const char *const run_metric[4] = {"wall", "user", "sys", "instructions"};
    static const char *const run_unit[4] = {"s", "s", "s", "count"};
    const cfg_id *id = find_cfg(l, c->key_a);
    if (!id)
        return pm_err_set(err, PM_ERR_NOTFOUND, "config %s: not found again in its store", c->key_a);
    const pm_config_fp *fp = find_fp(l, c->key_a);
    int64_t *ids = NULL;
    double *m[4] = {NULL, NULL, NULL, NULL};
    size_t cap = 0, cap_series = 0;
    char *hosts = NULL;
    pm_side_row row;
    int more, oom = 0, rc;
    o->key = pm_util_strdup_opt(c->key_a, &oom);
    o->variant = pm_util_strdup_opt(id->variant, &oom);
    o->fp_hash = pm_util_strdup_opt(fp ? fp->hash : NULL, &oom);
    o->fp_text = pm_util_strdup_opt(fp ? fp->text : NULL, &oom);
    o->contended = pm_util_strdup_opt(c->contended_a, &oom);
    if (oom)
        return nomem(err);
    if ((rc = pm_store_config_hosts(l->st, id->id, &hosts, err)) != PM_OK)
        goto cleanup;
    if (first_host(hosts, o)) {
        rc = nomem(err);
        goto cleanup;
    }
    /* no samples where the rule withholds the config's verdict (contended runs on a timer): a baseline from them
     * would decide nothing; a count (a counting meter) is kept, contended or not, as compare keeps its verdict */
    if (c->contended_a && pm_compare_decider(r, c)->verdict == PM_VERDICT_CONTENDED)
        goto cleanup;
    if ((rc = pm_store_side_cursor_start(l->q, PM_SIDE_RUNS, id->id, "cold", 0, err)) != PM_OK)
        goto cleanup;
    while ((rc = pm_store_side_cursor_next(l->q, &row, &more, err)) == PM_OK && more) {
        size_t was = cap;
        int64_t *g = pm_grow(ids, &cap, o->n_runs, sizeof *g, 8);
        if (g)
            ids = g;
        for (int k = 0; g && k < 4 && cap != was; k++) {
            double *d = realloc(m[k], cap * sizeof *d);
            if (!d)
                g = NULL;
            else
                m[k] = d;
        }
        if (!g) {
            rc = nomem(err);
            goto cleanup;
        }
        ids[o->n_runs] = row.run_id;
        m[0][o->n_runs] = row.has_wall ? row.wall : NAN;
        m[1][o->n_runs] = row.has_wall && row.user >= 0 ? row.user : NAN;
        m[2][o->n_runs] = row.has_wall && row.sys >= 0 ? row.sys : NAN;
        m[3][o->n_runs] = row.has_wall && row.ins >= 0 ? row.ins : NAN;
        o->n_runs++;
    }
    if (rc != PM_OK)
        goto cleanup;
    for (int k = 0; k < 4; k++) {
        size_t have = 0;
        for (size_t i = 0; i < o->n_runs; i++)
            have += !isnan(m[k][i]);
        if (!have && k)   /* a metric no run recorded is left out; wall always stays */
            continue;
        pm_sample_series *s;
        if (add_series(o, &cap_series, PM_SAMPLE_RUN, NULL, NULL, run_metric[k], run_unit[k],
                       k == 0 ? PM_RUN_CLOCK_TICK_S : NAN, &s)) {
            rc = nomem(err);
            goto cleanup;
        }
        if (o->n_runs)
            memcpy(s->v, m[k], o->n_runs * sizeof *s->v);
    }
    if ((rc = load_rows(l->q, PM_SIDE_STEPS, c, id->id, ids, o, &cap_series, err)) == PM_OK)
        rc = load_rows(l->q, PM_SIDE_PASSES, c, id->id, ids, o, &cap_series, err);
cleanup:
    free(ids);
    for (int k = 0; k < 4; k++)
        free(m[k]);
    free(hosts);
    if (rc != PM_OK)
        pm_err_wrap(err, "config %s", c->key_a);
    return rc;
}

int pm_samples_load(const char *db, const char *sweep, pm_samples *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    pm_compare_result r;
    loader l = {.cfgs = {.err = err}};
    pm_tool_ident *tools = NULL;
    size_t n_tools = 0;
    /* the sweep against itself: compare's own choice of each config's pass family, contention and decider */
    pm_compare_opts co = {.path_a = db, .path_b = db, .sweep_a = sweep, .sweep_b = sweep, .whole_key = 1};
    int rc = pm_compare_run(&co, &r, err);
    if (rc != PM_OK)
        return rc;
    int64_t sweep_id = 0;
    out->startup_cpu_wall_max = out->startup_cpu_wall_min = NAN;
    if ((rc = pm_store_open_readonly(db, &l.st, err)) != PM_OK ||
        (rc = pm_store_pick_sweep(pm_store_db(l.st), r.a.sweep, &sweep_id, err)) != PM_OK ||
        (rc = pm_store_configs_of_sweep(l.st, sweep_id, gather_cfg, &l.cfgs, err)) != PM_OK ||
        (rc = pm_store_config_fps(l.st, r.a.sweep, &l.fps, &l.n_fps, err)) != PM_OK ||
        (rc = pm_store_read_tools(pm_store_db(l.st), sweep_id, &tools, &n_tools, err)) != PM_OK ||
        (rc = pm_sq_tools_cpu_wall(pm_store_db(l.st), sweep_id, &out->startup_cpu_wall_max,
                                   &out->startup_cpu_wall_min, err)) != PM_OK ||
        (rc = pm_store_side_cursor_open(l.st, 0, &l.q, err)) != PM_OK)
        goto cleanup;
    const char *decides = pm_decide_name(r.decided_on);
    int oom = 0;
    out->sweep = pm_util_strdup_opt(r.a.sweep, &oom);
    out->meter = pm_util_strdup_opt(r.a.meter ? r.a.meter : "wall", &oom);
    /* the metric by its short name, the first word of pm_decide_name (wall, cpu, instructions) */
    out->decides = oom ? NULL : strndup(decides, strcspn(decides, " "));
    out->tools = calloc(n_tools ? n_tools : 1, sizeof *out->tools);
    out->configs = calloc(r.n_configs ? r.n_configs : 1, sizeof *out->configs);
    if (oom || !out->decides || !out->tools || !out->configs) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < n_tools; i++) {
        char line[256];
        pm_version_line(tools[i].version_text ? tools[i].version_text : "", line, sizeof line);
        pm_sample_tool *t = &out->tools[out->n_tools++];
        *t = (pm_sample_tool){.name = pm_util_strdup_opt(tools[i].name ? tools[i].name : "", &oom),
                              .invoked = pm_util_strdup_opt(tools[i].invoked, &oom),
                              .hash = pm_util_strdup_opt(tools[i].hash && *tools[i].hash ? tools[i].hash : NULL, &oom),
                              .version = pm_util_strdup_opt(line, &oom)};
    }
    if (oom) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < r.n_configs; i++)
        if ((rc = load_config(&l, &r, &r.configs[i], &out->configs[out->n_configs++], err)) != PM_OK)
            goto cleanup;
cleanup:
    pm_tool_idents_free(tools, n_tools);
    pm_config_fps_free(l.fps, l.n_fps);
    for (size_t i = 0; i < l.cfgs.n; i++)
        free(l.cfgs.v[i].key), free(l.cfgs.v[i].variant);
    free(l.cfgs.v);
    pm_store_side_cursor_close(l.q);
    pm_store_close(l.st);
    pm_compare_free(&r);
    if (rc != PM_OK)
        pm_samples_free(out);
    return rc;
}
