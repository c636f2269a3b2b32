#include "analysis.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>   /* the handoff trend is a plain linear fit, which pm_stats has not */

#include <xxhash.h>

#include "stats.h"

/* ---- statistics: thin adapters onto pm_stats_ (lib/stats.h) ---- */

static pm_ci ci95(const double *v, int n)
{
    pm_stats_summary sm;
    pm_ci c = {NAN, NAN, NAN, n};
    if (n <= 0)
        return c;
    pm_stats_summarize(v, (size_t)n, &sm);
    c.mean = sm.mean;
    /* one repeat: no spread to speak of; the interval collapses onto the value */
    c.lo = n > 1 ? sm.ci_lo : sm.mean;
    c.hi = n > 1 ? sm.ci_hi : sm.mean;
    return c;
}

/* y = pref * x^expo with the exponent's 95% CI and R^2 of the log-log fit; -1 when it cannot be fitted. */
static int powerlaw_fit(const double *x, const double *y, int n, double *expo, double *lo, double *hi,
                        double *r2, double *pref)
{
    pm_stats_powerlaw pl;
    if (n < 3 || pm_stats_powerlaw_fit(x, y, (size_t)n, &pl) != PM_STATS_OK || pl.n < 3)
        return -1;
    *expo = pl.b;
    *lo = pl.b_ci_lo;
    *hi = pl.b_ci_hi;
    *r2 = pl.r2;
    *pref = pl.a;
    return 0;
}

static double js_distance(const double *p, const double *q, size_t n)
{
    double d = NAN;
    return pm_stats_js_distance(p, q, n, &d) == PM_STATS_OK ? d : NAN;
}

static double median(double *v, size_t n)
{
    double m = NAN;
    return pm_stats_quantile(v, n, 0.5, &m) == PM_STATS_OK ? m : NAN;
}

/* ---- helpers ---- */

double pm_an_size_value(const char *size)
{
    if (!size || !*size)
        return NAN;
    char *end;
    double v = strtod(size, &end);
    if (end == size)
        return NAN;
    switch (tolower((unsigned char)*end)) {
    case 'k': v *= 1e3; break;
    case 'm': v *= 1e6; break;
    case 'b': case 'g': v *= 1e9; break;
    case 't': v *= 1e12; break;
    case 0: break;
    default: return NAN;
    }
    return v;
}

static char *dup_or_null(const unsigned char *s)
{
    return s ? strdup((const char *)s) : NULL;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int pm_an_stage_index(const pm_analysis *a, const char *stage)
{
    for (size_t i = 0; i < a->n_stages; i++)
        if (!strcmp(a->stages[i], stage))
            return (int)i;
    return -1;
}

const pm_an_config *pm_an_find_config(const pm_analysis *a, const char *key)
{
    for (size_t i = 0; i < a->n_configs; i++)
        if (!strcmp(a->configs[i].key, key))
            return &a->configs[i];
    return NULL;
}

static int cmp_nullstr(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_size(const char *a, double an, const char *b, double bn)
{
    if (!isnan(an) && !isnan(bn) && an != bn)
        return an < bn ? -1 : 1;
    return cmp_nullstr(a, b);
}

static int cmp_config(const void *pa, const void *pb)
{
    const pm_an_config *a = pa, *b = pb;
    int c;
    if ((c = cmp_nullstr(a->kind, b->kind)) || (c = cmp_nullstr(a->family, b->family)) ||
        (c = cmp_size(a->size, a->size_num, b->size, b->size_num)))
        return c;
    if (a->window != b->window)
        return a->window < b->window ? -1 : 1;
    if ((c = cmp_nullstr(a->precision, b->precision)))
        return c;
    if (a->resolution != b->resolution)
        return a->resolution < b->resolution ? -1 : 1;
    if ((c = cmp_nullstr(a->variant, b->variant)))
        return c;
    return cmp_nullstr(a->key, b->key);
}

static int cmp_pass(const void *pa, const void *pb)
{
    const pm_an_pass *a = pa, *b = pb;
    if (a->mean_s != b->mean_s)
        return a->mean_s > b->mean_s ? -1 : 1;
    return strcmp(a->name, b->name);
}

#define DB_TRY(expr)                                                                                  \
    do {                                                                                              \
        if ((expr) != SQLITE_OK) {                                                                    \
            rc = pm_err_set(err, PM_ERR_DB, "analysis query: %s", sqlite3_errmsg(db));               \
            goto cleanup;                                                                             \
        }                                                                                             \
    } while (0)
#define NOMEM()                                                                                       \
    do {                                                                                              \
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");                                        \
        goto cleanup;                                                                                 \
    } while (0)

/* Interned strings of pass names and tools (freed with the analysis). */
typedef struct strpool { char **s; size_t n, cap; } strpool;

static const char *pool_add(strpool *p, const char *s)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        char **q = realloc(p->s, cap * sizeof *q);
        if (!q)
            return NULL;
        p->s = q;
        p->cap = cap;
    }
    char *d = strdup(s ? s : "");
    if (!d)
        return NULL;
    p->s[p->n++] = d;
    return d;
}

typedef struct pass_id { const char *tool, *name; int stage; } pass_id;

typedef struct run_row { int64_t id; int cfg; int cold; double wall, user; double pass_sum; } run_row;

typedef struct pass_row { int run, pid; double wall, user; } pass_row;

struct pm_an_priv {
    strpool pool;
    pass_id *pids;
    size_t n_pids, cap_pids;
    int *slots;          /* open addressing over pids, -1 empty */
    size_t n_slots;
};

static uint64_t pid_hash(const char *tool, const char *name)
{
    return XXH3_64bits_withSeed(name, strlen(name), XXH3_64bits(tool, strlen(tool)));
}

/* Index of (tool, name), added when new; -1 when out of memory. */
static int pid_lookup(struct pm_an_priv *pv, const char *tool, const char *name)
{
    if (pv->n_pids * 2 >= pv->n_slots) {
        size_t ns = pv->n_slots ? pv->n_slots * 2 : 1024;
        int *sl = malloc(ns * sizeof *sl);
        if (!sl)
            return -1;
        for (size_t i = 0; i < ns; i++)
            sl[i] = -1;
        for (size_t k = 0; k < pv->n_pids; k++) {
            size_t h = pid_hash(pv->pids[k].tool, pv->pids[k].name) & (ns - 1);
            while (sl[h] >= 0)
                h = (h + 1) & (ns - 1);
            sl[h] = (int)k;
        }
        free(pv->slots);
        pv->slots = sl;
        pv->n_slots = ns;
    }
    size_t h = pid_hash(tool, name) & (pv->n_slots - 1);
    for (; pv->slots[h] >= 0; h = (h + 1) & (pv->n_slots - 1)) {
        const pass_id *id = &pv->pids[pv->slots[h]];
        if (!strcmp(id->name, name) && !strcmp(id->tool, tool))
            return pv->slots[h];
    }
    if (pv->n_pids == pv->cap_pids) {
        size_t cap = pv->cap_pids ? pv->cap_pids * 2 : 256;
        pass_id *p = realloc(pv->pids, cap * sizeof *p);
        if (!p)
            return -1;
        pv->pids = p;
        pv->cap_pids = cap;
    }
    pass_id *id = &pv->pids[pv->n_pids];
    id->tool = pool_add(&pv->pool, tool);
    id->name = pool_add(&pv->pool, name);
    id->stage = -1;
    if (!id->tool || !id->name)
        return -1;
    pv->slots[h] = (int)pv->n_pids;
    return (int)pv->n_pids++;
}

/* Kept beside the public struct so pm_analysis_free can release the pool. */
typedef struct analysis_full {
    pm_analysis pub;
    struct pm_an_priv priv;
} analysis_full;

static int find_cfg(const pm_analysis *a, int64_t id)
{
    for (size_t i = 0; i < a->n_configs; i++)   /* configs are few (hundreds): linear is fine */
        if (a->configs[i].id == id)
            return (int)i;
    return -1;
}

static const char *most_common(const char **v, size_t n, const char *prefer)
{
    const char *best = NULL;
    size_t best_n = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefer && v[i] && !strcmp(v[i], prefer))
            return v[i];
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += same(v[i], v[j]);
        if (c > best_n) {
            best_n = c;
            best = v[i];
        }
    }
    return best;
}

static int most_common_int(const int *v, size_t n)
{
    int best = 0;
    size_t best_n = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += v[i] == v[j];
        if (c > best_n || (c == best_n && v[i] > best)) {
            best_n = c;
            best = v[i];
        }
    }
    return best;
}

static int strlist_add(char ***list, size_t *n, const char *text)
{
    char **p = realloc(*list, (*n + 1) * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    *list = p;
    if (!(p[*n] = strdup(text)))
        return PM_ERR_NOMEM;
    (*n)++;
    return PM_OK;
}

static const char *stage_name(const pm_analysis *a, int s)
{
    return s >= 0 && (size_t)s < a->n_stages ? a->stages[s] : "none";
}

/* Orders a series by x (insertion sort: a series has one point per model size). */
static void sort_series(pm_an_series *sr)
{
    for (size_t i = 1; i < sr->n; i++)
        for (size_t j = i; j > 0 && sr->x[j] < sr->x[j - 1]; j--) {
            double tx = sr->x[j], ty = sr->y[j];
            const char *tl = sr->xlabel[j];
            sr->x[j] = sr->x[j - 1], sr->y[j] = sr->y[j - 1], sr->xlabel[j] = sr->xlabel[j - 1];
            sr->x[j - 1] = tx, sr->y[j - 1] = ty, sr->xlabel[j - 1] = tl;
        }
}

/* Regime map over configs of one kind, a slice of precision + variant. */
static int build_regime(pm_analysis *a, const char *kind, pm_an_regime *rg)
{
    rg->kind = kind;
    const char **precs = calloc(a->n_configs + 1, sizeof *precs), **vars = calloc(a->n_configs + 1, sizeof *vars);
    size_t n = 0;
    int rc = PM_OK;
    if (!precs || !vars) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].kind && !strcmp(a->configs[i].kind, kind) && a->configs[i].n_cold) {
            precs[n] = a->configs[i].precision;
            vars[n++] = a->configs[i].variant;
        }
    if (!n)
        goto cleanup;
    rg->precision = most_common(precs, n, "int8");
    rg->variant = most_common(vars, n, "stock");
    int is_llm = !strcmp(kind, "llm");
    rg->cells = calloc(a->n_configs, sizeof *rg->cells);
    double *sum = calloc(a->n_configs * a->n_stages, sizeof *sum);
    if (!rg->cells || !sum) {
        free(sum);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->kind || strcmp(c->kind, kind) || !c->n_cold || !same(c->precision, rg->precision) ||
            !same(c->variant, rg->variant))
            continue;
        const char *row = is_llm ? c->size : c->family;
        int col = is_llm ? c->window : c->resolution;
        size_t k;
        for (k = 0; k < rg->n_cells; k++)
            if (same(rg->cells[k].row, row) && rg->cells[k].col == col)
                break;
        if (k == rg->n_cells) {
            rg->cells[k].row = row ? row : "-";
            rg->cells[k].row_num = is_llm ? c->size_num : NAN;
            rg->cells[k].col = col;
            rg->n_cells++;
        }
        rg->cells[k].n_configs++;
        for (size_t s = 0; s < a->n_stages; s++)
            sum[k * a->n_stages + s] += c->share[s].mean;
    }
    for (size_t k = 0; k < rg->n_cells; k++) {
        int best = 0;
        for (size_t s = 1; s < a->n_stages; s++)
            if (sum[k * a->n_stages + s] > sum[k * a->n_stages + best])
                best = (int)s;
        rg->cells[k].stage = best;
        rg->cells[k].share = sum[k * a->n_stages + best] / rg->cells[k].n_configs;
    }
    free(sum);
    /* Boundaries: walk each row along the column axis and say where the dominant stage changes. */
    for (size_t k = 0; k < rg->n_cells; k++) {
        const pm_an_cell *here = &rg->cells[k];
        const pm_an_cell *next = NULL;
        for (size_t j = 0; j < rg->n_cells; j++)
            if (!strcmp(rg->cells[j].row, here->row) && rg->cells[j].col > here->col &&
                (!next || rg->cells[j].col < next->col))
                next = &rg->cells[j];
        if (next && next->stage != here->stage) {
            char text[512];
            snprintf(text, sizeof text, "%s %s: %s dominates at %s %d, %s from %s %d", is_llm ? "size" : "family",
                     here->row, stage_name(a, here->stage), is_llm ? "window" : "resolution", here->col,
                     stage_name(a, next->stage), is_llm ? "window" : "resolution", next->col);
            if ((rc = strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
                goto cleanup;
        }
    }
    for (size_t k = 0; k < rg->n_cells; k++) {
        /* and down each column: the next larger size (LLM rows are sizes: numeric order across families);
         * CNN rows are families, taken in sorted config order */
        const pm_an_cell *here = &rg->cells[k], *next = NULL;
        if (is_llm && !isnan(here->row_num)) {
            for (size_t j = 0; j < rg->n_cells; j++)
                if (rg->cells[j].col == here->col && rg->cells[j].row_num > here->row_num &&
                    (!next || rg->cells[j].row_num < next->row_num))
                    next = &rg->cells[j];
        } else {
            for (size_t j = k + 1; j < rg->n_cells && !next; j++)
                if (rg->cells[j].col == here->col && strcmp(rg->cells[j].row, here->row))
                    next = &rg->cells[j];
        }
        if (next && next->stage != here->stage) {
            char text[512];
            snprintf(text, sizeof text, "%s %d: %s dominates at %s %s, %s from %s %s", is_llm ? "window" : "resolution",
                     here->col, stage_name(a, here->stage), is_llm ? "size" : "family", here->row,
                     stage_name(a, next->stage), is_llm ? "size" : "family", next->row);
            if ((rc = strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
                goto cleanup;
        }
    }
    if (!rg->n_boundaries && rg->n_cells) {
        char text[256];
        snprintf(text, sizeof text, "%s dominates every %s cell mapped (no boundary in this sweep)",
                 stage_name(a, rg->cells[0].stage), kind);
        int uniform = 1;
        for (size_t k = 1; k < rg->n_cells; k++)
            uniform &= rg->cells[k].stage == rg->cells[0].stage;
        if (uniform && (rc = strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
            goto cleanup;
    }
cleanup:
    free(precs);
    free(vars);
    return rc;
}

/* ---- fix rules ---- */

static double evidence(const pm_an_fix *f, const char *name)
{
    if (!strcmp(name, "exponent")) return f->exponent;
    if (!strcmp(name, "exponent_lo")) return f->exponent_lo;
    if (!strcmp(name, "share")) return f->share;
    if (!strcmp(name, "user_wall")) return f->user_wall;
    if (!strcmp(name, "cache_ratio")) return f->cache_ratio;
    return NAN;
}

static int cond_holds(const pm_an_fix *f, const char *cond, const char *r2_name, double r2)
{
    if (!strcmp(cond, "*"))
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", cond);
    char *save = NULL;
    for (char *term = strtok_r(buf, "&", &save); term; term = strtok_r(NULL, "&", &save)) {
        while (*term == ' ')
            term++;
        char *op = strpbrk(term, "<>");
        if (!op)
            return 0;
        char name[64];
        size_t len = (size_t)(op - term);
        if (len >= sizeof name)
            return 0;
        memcpy(name, term, len);
        name[len] = 0;
        while (len && name[len - 1] == ' ')
            name[--len] = 0;
        int ge = op[1] == '=';
        double lim = strtod(op + 1 + ge, NULL);
        double v = !strcmp(name, r2_name) ? r2 : evidence(f, name);
        if (isnan(v))
            return 0;
        int okv = *op == '<' ? (ge ? v <= lim : v < lim) : (ge ? v >= lim : v > lim);
        if (!okv)
            return 0;
    }
    return 1;
}

static int choose_fixes(pm_analysis *a, const char *path, double *fit_r2, pm_err *err)
{
    char def[4096];
    if (!path) {
        snprintf(def, sizeof def, "%s/fixes.tsv", pm_data_dir());
        path = def;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return PM_OK;   /* no rules: the table still shows the evidence */
    char line[2048];
    int lineno = 0, rc = PM_OK;
    char *rules[256][4];
    int nr = 0;
    while (fgets(line, sizeof line, f) && nr < 256) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *fld[4] = {0};
        char *p = line;
        for (int i = 0; i < 4 && p; i++) {
            fld[i] = p;
            char *t = i < 3 ? strchr(p, '\t') : NULL;
            if (t)
                *t = 0;
            p = t ? t + 1 : NULL;
        }
        if (!fld[3]) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: expected stage<TAB>pass<TAB>condition<TAB>fix", path, lineno);
            break;
        }
        for (int i = 0; i < 4; i++)
            rules[nr][i] = strdup(fld[i]);
        nr++;
    }
    fclose(f);
    for (size_t i = 0; rc == PM_OK && i < a->n_fixes; i++) {
        pm_an_fix *x = &a->fixes[i];
        for (int r = 0; r < nr; r++) {
            if (fnmatch(rules[r][0], stage_name(a, x->stage), 0) ||
                fnmatch(rules[r][1], x->pass ? x->pass : "", 0))
                continue;
            if (cond_holds(x, rules[r][2], "r2", fit_r2[i])) {
                x->fix = strdup(rules[r][3]);
                break;
            }
        }
    }
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < 4; i++)
            free(rules[r][i]);
    return rc;
}

/* ---- the analysis ---- */

static const char *x_metric_for(const char *tool, const char *stage)
{
    if (tool && !strncmp(tool, "ov-", 3))
        return stage && strstr(stage, "tiling") ? "npu.tiles" : "npu.tasks";
    if (tool && (!strcmp(tool, "llc") || !strcmp(tool, "mlir-translate")))
        return "ir.llvm_ops";
    return "ir.ops";
}

static double config_metric(const pm_an_config *c, const char *m)
{
    if (!strcmp(m, "ir.ops")) return c->ir_ops;
    if (!strcmp(m, "ir.llvm_ops")) return isnan(c->llvm_ops) ? c->ir_ops : c->llvm_ops;
    if (!strcmp(m, "npu.tasks")) return c->npu_tasks;
    if (!strcmp(m, "npu.tiles")) return isnan(c->npu_tiles) ? c->npu_tasks : c->npu_tiles;
    return NAN;
}


int pm_analysis_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err)
{
    int rc = PM_OK;
    sqlite3_stmt *st = NULL;
    run_row *runs = NULL;
    size_t n_runs = 0;
    double *tmp = NULL, *fit_r2 = NULL;
    pass_row *rows = NULL;
    size_t n_rows = 0;
    int *pid_cfg_n = NULL;
    char sql[2048];
    analysis_full *full = calloc(1, sizeof *full);
    if (!full)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_analysis *a = &full->pub;
    struct pm_an_priv *pv = &full->priv;
    a->family_jsd = NAN;

    /* Stages: the map's order, then overhead and unmapped. */
    size_t nms = opts->map ? pm_stagemap_n_stages(opts->map) : 0;
    a->stages = calloc(nms + 2, sizeof *a->stages);
    if (!a->stages)
        NOMEM();
    for (size_t i = 0; i < nms; i++)
        if (strcmp(pm_stagemap_stage(opts->map, i), PM_STAGE_OVERHEAD) && strcmp(pm_stagemap_stage(opts->map, i), PM_STAGE_OTHER))
            /* copied: the analysis outlives the map */
            if (!(a->stages[a->n_stages++] = pool_add(&pv->pool, pm_stagemap_stage(opts->map, i))))
                NOMEM();
    int st_over = (int)a->n_stages, st_other = st_over + 1;
    a->stages[a->n_stages++] = PM_STAGE_OVERHEAD;
    a->stages[a->n_stages++] = PM_STAGE_OTHER;
    size_t NS = a->n_stages;

    /* Sweeps: one by name, several as "a,b" (e.g. the LLM and CNN studies in one database), or the latest. */
    char sweep_ids[512] = "";
    if (opts->sweep) {
        char names[512];
        snprintf(names, sizeof names, "%s", opts->sweep);
        DB_TRY(sqlite3_prepare_v2(db, "SELECT id,name,backend,meta_json FROM sweep WHERE name=?", -1, &st, NULL));
        for (char *save = NULL, *nm = strtok_r(names, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
            sqlite3_reset(st);
            sqlite3_bind_text(st, 1, nm, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(st) != SQLITE_ROW) {
                rc = pm_err_set(err, PM_ERR_NOTFOUND, "no sweep named '%s' in the database", nm);
                goto cleanup;
            }
            size_t used = strlen(sweep_ids);
            snprintf(sweep_ids + used, sizeof sweep_ids - used, "%s%lld", used ? "," : "",
                     (long long)sqlite3_column_int64(st, 0));
            if (!a->backend) { /* back end and method from the first sweep named */
                a->backend = dup_or_null(sqlite3_column_text(st, 2));
                a->meta_json = dup_or_null(sqlite3_column_text(st, 3));
            }
        }
        if (!(a->sweep = strdup(opts->sweep)))
            NOMEM();
    } else {
        DB_TRY(sqlite3_prepare_v2(db, "SELECT id,name,backend,meta_json FROM sweep ORDER BY id DESC LIMIT 1", -1, &st,
                                  NULL));
        if (sqlite3_step(st) != SQLITE_ROW) {
            rc = pm_err_set(err, PM_ERR_NOTFOUND, "the database has no sweep");
            goto cleanup;
        }
        snprintf(sweep_ids, sizeof sweep_ids, "%lld", (long long)sqlite3_column_int64(st, 0));
        a->sweep = dup_or_null(sqlite3_column_text(st, 1));
        a->backend = dup_or_null(sqlite3_column_text(st, 2));
        a->meta_json = dup_or_null(sqlite3_column_text(st, 3));
    }
    sqlite3_finalize(st);
    st = NULL;

    /* Configs */
    snprintf(sql, sizeof sql,
             "SELECT id,key,kind,family,size,window,precision,resolution,layers,variant FROM config "
             "WHERE sweep_id IN (%s) ORDER BY id", sweep_ids);
    DB_TRY(sqlite3_prepare_v2(db, sql, -1, &st, NULL));
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (a->n_configs == cap) {
            cap = cap ? cap * 2 : 64;
            pm_an_config *p = realloc(a->configs, cap * sizeof *p);
            if (!p)
                NOMEM();
            a->configs = p;
        }
        pm_an_config *c = &a->configs[a->n_configs++];
        memset(c, 0, sizeof *c);
        c->id = sqlite3_column_int64(st, 0);
        c->key = dup_or_null(sqlite3_column_text(st, 1));
        c->kind = dup_or_null(sqlite3_column_text(st, 2));
        c->family = dup_or_null(sqlite3_column_text(st, 3));
        c->size = dup_or_null(sqlite3_column_text(st, 4));
        c->window = sqlite3_column_int(st, 5);
        c->precision = dup_or_null(sqlite3_column_text(st, 6));
        c->resolution = sqlite3_column_int(st, 7);
        c->layers = sqlite3_column_int(st, 8);
        c->variant = dup_or_null(sqlite3_column_text(st, 9));
        c->size_num = pm_an_size_value(c->size);
        c->share = calloc(NS, sizeof *c->share);
        c->stage_s = calloc(NS, sizeof *c->stage_s);
        if (!c->key || !c->share || !c->stage_s)
            NOMEM();
        c->dominant_stage = -1;
        c->wall = (pm_ci){NAN, NAN, NAN, 0};
        c->user_wall = c->warm_s = c->cache_ratio = NAN;
        c->ir_ops = c->llvm_ops = c->npu_tasks = c->npu_tiles = NAN;
    }
    if (rc != SQLITE_DONE)
        DB_TRY(rc);
    rc = PM_OK;
    sqlite3_finalize(st);
    st = NULL;
    qsort(a->configs, a->n_configs, sizeof *a->configs, cmp_config);

    /* Runs of the sweep; a temp table lets the pass aggregation below join on it. */
    DB_TRY(sqlite3_exec(db, "DROP TABLE IF EXISTS temp.pm_an_run;"
                            "CREATE TEMP TABLE pm_an_run(id INTEGER PRIMARY KEY, cfg INTEGER, cold INTEGER);",
                        NULL, NULL, NULL));
    snprintf(sql, sizeof sql,
             "INSERT INTO temp.pm_an_run SELECT r.id, r.config_id, r.mode='cold' FROM run r JOIN config c ON "
             "c.id=r.config_id WHERE c.sweep_id IN (%s) AND r.status='ok' AND r.mode IN ('cold','warm')",
             sweep_ids);
    DB_TRY(sqlite3_exec(db, sql, NULL, NULL, NULL));
    snprintf(sql, sizeof sql,
             "SELECT r.id, r.config_id, r.mode, r.status, r.wall_s, r.user_s FROM run r "
             "JOIN config c ON c.id=r.config_id WHERE c.sweep_id IN (%s) ORDER BY r.id", sweep_ids);
    DB_TRY(sqlite3_prepare_v2(db, sql, -1, &st, NULL));
    cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ci = find_cfg(a, sqlite3_column_int64(st, 1));
        const char *mode = (const char *)sqlite3_column_text(st, 2);
        const char *status = (const char *)sqlite3_column_text(st, 3);
        if (ci < 0)
            continue;
        if (!status || strcmp(status, "ok")) {
            a->configs[ci].n_failed++;
            a->n_runs_failed++;
            continue;
        }
        int cold = mode && !strcmp(mode, "cold");
        if (!cold && !(mode && !strcmp(mode, "warm")))
            continue;
        if (n_runs == cap) {
            cap = cap ? cap * 2 : 256;
            run_row *p = realloc(runs, cap * sizeof *p);
            if (!p)
                NOMEM();
            runs = p;
        }
        run_row *r = &runs[n_runs++];
        r->id = sqlite3_column_int64(st, 0);
        r->cfg = ci;
        r->cold = cold;
        r->wall = sqlite3_column_double(st, 4);
        r->user = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 5);
        r->pass_sum = 0;
        a->n_runs_ok++;
        if (cold)
            a->configs[ci].n_cold++;
        else
            a->configs[ci].n_warm++;
    }
    if (rc != SQLITE_DONE)
        DB_TRY(rc);
    rc = PM_OK;
    sqlite3_finalize(st);
    st = NULL;

    /* One scan of the sweep's counted pass rows, driven from its runs. Measured on the 1,500-run benchmark:
       this scan plus a hash of (tool, pass) in C takes ~0.13 s, where a GROUP BY joined on the pass names
       took ~0.6 s and a SELECT DISTINCT of them another ~0.4 s. The stage of each distinct pass is matched
       once (fnmatch). */
    snprintf(sql, sizeof sql,
             "SELECT s.run_id, s.tool, p.name, p.wall_s, p.user_s FROM temp.pm_an_run r JOIN step s ON "
             "s.run_id=r.id JOIN pass_time p ON p.step_id=s.id WHERE p.counted");
    DB_TRY(sqlite3_prepare_v2(db, sql, -1, &st, NULL));
    cap = 0;
    size_t ri = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        if (ri >= n_runs || runs[ri].id != rid) {   /* rows come grouped by run: search only on a change */
            size_t lo = 0, hi = n_runs;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (runs[mid].id < rid)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            ri = lo;
            if (ri == n_runs || runs[ri].id != rid)
                continue;
        }
        const char *tool = (const char *)sqlite3_column_text(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 2);
        int pid = pid_lookup(pv, tool ? tool : "", name ? name : "");
        if (pid < 0)
            NOMEM();
        if (n_rows == cap) {
            cap = cap ? cap * 2 : 4096;
            pass_row *p = realloc(rows, cap * sizeof *p);
            if (!p)
                NOMEM();
            rows = p;
        }
        pass_row *pr = &rows[n_rows++];
        pr->run = (int)ri;
        pr->pid = pid;
        pr->wall = sqlite3_column_double(st, 3);
        pr->user = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 4);
    }
    if (rc != SQLITE_DONE)
        DB_TRY(rc);
    rc = PM_OK;
    sqlite3_finalize(st);
    st = NULL;
    for (size_t k = 0; k < pv->n_pids; k++) {
        pass_id *id = &pv->pids[k];
        const char *stage = opts->map ? pm_stagemap_match(opts->map, id->tool, id->name) : PM_STAGE_OTHER;
        id->stage = pm_an_stage_index(a, stage);
        if (id->stage < 0)
            id->stage = st_other;
    }
    {
        /* Keep only the stages this sweep's passes hit (the map may cover other back ends), plus overhead. */
        int remap[256];
        size_t kept = 0;
        int *hit = calloc(NS + 1, sizeof *hit);
        if (!hit)
            NOMEM();
        for (size_t k = 0; k < pv->n_pids; k++)
            hit[pv->pids[k].stage] = 1;
        hit[st_over] = 1;
        for (size_t s2 = 0; s2 < NS && s2 < 256; s2++) {
            remap[s2] = hit[s2] ? (int)kept : -1;
            if (hit[s2])
                a->stages[kept++] = a->stages[s2];
        }
        free(hit);
        for (size_t k = 0; k < pv->n_pids; k++)
            pv->pids[k].stage = remap[pv->pids[k].stage];
        st_over = remap[st_over];
        a->n_stages = NS = kept;
    }

    /* Per (run, stage) and per (config, pass) sums. */
    size_t NP = pv->n_pids;
    double *run_stage = calloc(n_runs * NS + 1, sizeof *run_stage);   /* [run][stage] seconds */
    double *cfg_pass_s = calloc(a->n_configs * NP + 1, sizeof *cfg_pass_s);
    double *cfg_pass_u = calloc(a->n_configs * NP + 1, sizeof *cfg_pass_u);
    double *cfg_pass_uw = calloc(a->n_configs * NP + 1, sizeof *cfg_pass_uw);  /* wall where user known */
    double *stage_u = calloc(NS, sizeof *stage_u), *stage_uw = calloc(NS, sizeof *stage_uw);
    tmp = calloc(n_runs + a->n_configs + 16, sizeof *tmp);
    if (!run_stage || !cfg_pass_s || !cfg_pass_u || !cfg_pass_uw || !stage_u || !stage_uw || !tmp) {
        free(run_stage); free(cfg_pass_s); free(cfg_pass_u); free(cfg_pass_uw); free(stage_u); free(stage_uw);
        NOMEM();
    }
    for (size_t k = 0; k < n_rows; k++) {
        const pass_row *pr = &rows[k];
        int stg = pv->pids[pr->pid].stage;
        run_stage[(size_t)pr->run * NS + (size_t)stg] += pr->wall;
        runs[pr->run].pass_sum += pr->wall;
        if (!runs[pr->run].cold)
            continue;
        size_t at = (size_t)runs[pr->run].cfg * NP + (size_t)pr->pid;
        cfg_pass_s[at] += pr->wall;
        if (pr->user >= 0) {
            cfg_pass_u[at] += pr->user;
            cfg_pass_uw[at] += pr->wall;
            stage_u[stg] += pr->user;
            stage_uw[stg] += pr->wall;
        }
    }
    free(rows);
    rows = NULL;

    /* Overhead and shares per run; per config mean + CI over cold repeats. */
    for (size_t i = 0; i < n_runs; i++) {
        double *rs = &run_stage[i * NS];
        double over = runs[i].wall - runs[i].pass_sum;
        rs[st_over] = over > 0 ? over : 0;
        /* Threaded pass timers can sum past the process wall: normalise by the larger of the two. */
        double denom = runs[i].pass_sum + rs[st_over];
        for (size_t s = 0; s < NS; s++)
            rs[s] = denom > 0 ? rs[s] / denom : 0;
    }
    for (size_t ci = 0; ci < a->n_configs; ci++) {
        pm_an_config *c = &a->configs[ci];
        int n = 0;
        for (size_t i = 0; i < n_runs; i++)
            if (runs[i].cfg == (int)ci && runs[i].cold)
                tmp[n++] = runs[i].wall;
        c->wall = ci95(tmp, n);
        for (size_t s = 0; s < NS; s++) {
            n = 0;
            for (size_t i = 0; i < n_runs; i++)
                if (runs[i].cfg == (int)ci && runs[i].cold)
                    tmp[n++] = run_stage[i * NS + s];
            c->share[s] = ci95(tmp, n);
            if (n == 0)
                c->share[s].mean = 0;
            c->stage_s[s] = c->share[s].mean * (isnan(c->wall.mean) ? 0 : c->wall.mean);
        }
        double u = 0, w = 0, ws = 0;
        int nw = 0;
        for (size_t i = 0; i < n_runs; i++) {
            if (runs[i].cfg != (int)ci)
                continue;
            if (runs[i].cold && runs[i].user >= 0) {
                u += runs[i].user;
                w += runs[i].wall;
            }
            if (!runs[i].cold) {
                ws += runs[i].wall;
                nw++;
            }
        }
        if (w > 0)
            c->user_wall = u / w;
        if (nw) {
            c->warm_s = ws / nw;
            if (c->warm_s > 0 && c->n_cold)
                c->cache_ratio = c->wall.mean / c->warm_s;
        }
        if (c->n_cold) {
            int best = 0;
            for (size_t s = 1; s < NS; s++)
                if (c->share[s].mean > c->share[best].mean)
                    best = (int)s;
            c->dominant_stage = best;
        }
        if (c->n_cold > a->max_repeats)
            a->max_repeats = c->n_cold;
        size_t np = 0;
        for (size_t p = 0; p < NP; p++)
            np += cfg_pass_s[ci * NP + p] > 0;
        c->passes = calloc(np + 1, sizeof *c->passes);
        if (!c->passes) {
            free(run_stage); free(cfg_pass_s); free(cfg_pass_u); free(cfg_pass_uw); free(stage_u); free(stage_uw);
            NOMEM();
        }
        /* Same denominator as the stage shares: threaded timers can sum past the process wall. */
        double pass_sum = 0;
        for (size_t p = 0; p < NP; p++)
            if (cfg_pass_s[ci * NP + p] > 0)
                pass_sum += cfg_pass_s[ci * NP + p] / c->n_cold;
        double denom = c->wall.mean > pass_sum ? c->wall.mean : pass_sum;
        for (size_t p = 0; p < NP; p++) {
            double s = cfg_pass_s[ci * NP + p];
            if (s <= 0)
                continue;
            pm_an_pass *ps = &c->passes[c->n_passes++];
            ps->tool = pv->pids[p].tool;
            ps->name = pv->pids[p].name;
            ps->stage = pv->pids[p].stage;
            ps->id = (int)p;
            ps->mean_s = s / c->n_cold;
            ps->share = denom > 0 ? ps->mean_s / denom : NAN;
            double uw = cfg_pass_uw[ci * NP + p];
            ps->user_wall = uw > 0 ? cfg_pass_u[ci * NP + p] / uw : NAN;
        }
        qsort(c->passes, c->n_passes, sizeof *c->passes, cmp_pass);
    }
    a->stage_user_wall = calloc(NS, sizeof *a->stage_user_wall);
    if (a->stage_user_wall)
        for (size_t s = 0; s < NS; s++)
            a->stage_user_wall[s] = stage_uw[s] > 0 ? stage_u[s] / stage_uw[s] : NAN;
    free(run_stage); free(cfg_pass_s); free(cfg_pass_u); free(cfg_pass_uw); free(stage_u); free(stage_uw);
    if (!a->stage_user_wall)
        NOMEM();

    /* Run metrics (IR size) per config. */
    DB_TRY(sqlite3_prepare_v2(db, "SELECT r.cfg, m.name, AVG(m.value) FROM metric m JOIN temp.pm_an_run r ON "
                                  "r.id=m.run_id WHERE r.cold AND m.name IN ('ir.ops','ir.llvm_ops','npu.tasks',"
                                  "'npu.tiles') GROUP BY r.cfg, m.name", -1, &st, NULL));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int ci = find_cfg(a, sqlite3_column_int64(st, 0));
        const char *m = (const char *)sqlite3_column_text(st, 1);
        double v = sqlite3_column_double(st, 2);
        if (ci < 0 || !m)
            continue;
        pm_an_config *c = &a->configs[ci];
        if (!strcmp(m, "ir.ops")) c->ir_ops = v;
        else if (!strcmp(m, "ir.llvm_ops")) c->llvm_ops = v;
        else if (!strcmp(m, "npu.tasks")) c->npu_tasks = v;
        else c->npu_tiles = v;
    }
    if (rc != SQLITE_DONE)
        DB_TRY(rc);
    rc = PM_OK;
    sqlite3_finalize(st);
    st = NULL;

    /* Process user/wall per tool. */
    DB_TRY(sqlite3_prepare_v2(db, "SELECT s.tool, SUM(CASE WHEN s.user_s>=0 THEN s.user_s END), "
                                  "SUM(CASE WHEN s.user_s>=0 THEN s.wall_s END) FROM step s JOIN temp.pm_an_run r "
                                  "ON r.id=s.run_id WHERE r.cold GROUP BY s.tool ORDER BY MIN(s.seq), s.tool",
                              -1, &st, NULL));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **t = realloc(a->tools, (a->n_tools + 1) * sizeof *t);
        double *uw = realloc(a->tool_user_wall, (a->n_tools + 1) * sizeof *uw);
        if (t) a->tools = t;
        if (uw) a->tool_user_wall = uw;
        if (!t || !uw)
            NOMEM();
        a->tools[a->n_tools] = dup_or_null(sqlite3_column_text(st, 0));
        double w = sqlite3_column_double(st, 2);
        a->tool_user_wall[a->n_tools++] = w > 0 ? sqlite3_column_double(st, 1) / w : NAN;
    }
    if (rc != SQLITE_DONE)
        DB_TRY(rc);
    rc = PM_OK;
    sqlite3_finalize(st);
    st = NULL;

    /* Regimes */
    if ((rc = build_regime(a, "llm", &a->regime_llm)) || (rc = build_regime(a, "cnn", &a->regime_cnn))) {
        pm_err_set(err, rc, "out of memory");
        goto cleanup;
    }

    /* Heavy passes: largest share anywhere >= 5%, top 8 by that share; fit time against IR size. */
    double *pid_max = calloc(NP + 1, sizeof *pid_max);
    if (!pid_max)
        NOMEM();
    for (size_t ci = 0; ci < a->n_configs; ci++)
        for (size_t p = 0; p < a->configs[ci].n_passes; p++) {
            const pm_an_pass *ps = &a->configs[ci].passes[p];
            if (ps->share > pid_max[ps->id])
                pid_max[ps->id] = ps->share;
        }
    a->fits = calloc(8, sizeof *a->fits);
    if (!a->fits) {
        free(pid_max);
        NOMEM();
    }
    for (int round = 0; round < 8; round++) {
        size_t best = NP;
        for (size_t k = 0; k < NP; k++)
            if (pid_max[k] >= 0.05 && (best == NP || pid_max[k] > pid_max[best]))
                best = k;
        if (best == NP)
            break;
        double mshare = pid_max[best];
        pid_max[best] = -1;
        pm_an_fit *f = &a->fits[a->n_fits];
        f->tool = pv->pids[best].tool;
        f->name = pv->pids[best].name;
        f->stage = pv->pids[best].stage;
        /* Which IR size a pass processes is not known up front: of the sizes the back end records, keep
           the one that explains its time best (highest R^2). */
        const char *cands[2];
        int ncand = 0;
        if (f->tool && !strncmp(f->tool, "ov-", 3)) {
            cands[ncand++] = "npu.tasks";
            cands[ncand++] = "npu.tiles";
        } else {
            cands[ncand++] = "ir.ops";
            cands[ncand++] = "ir.llvm_ops";
        }
        f->x_metric = x_metric_for(f->tool, stage_name(a, f->stage));
        double best_r2 = -1;
        for (int ci2 = 0; ci2 < ncand; ci2++) {
            double xs_[4096], ys_[4096];
            int m = 0;
            for (size_t ci = 0; ci < a->n_configs && m < 4096; ci++) {
                const pm_an_config *c = &a->configs[ci];
                double xv = config_metric(c, cands[ci2]);
                for (size_t p = 0; p < c->n_passes; p++)
                    if (c->passes[p].id == (int)best) {
                        if (xv > 0 && c->passes[p].mean_s > 0) {
                            xs_[m] = xv;
                            ys_[m++] = c->passes[p].mean_s;
                        }
                        break;
                    }
            }
            double e1, l1, h1, r21, p1;
            int distinct = 0;
            for (int i = 0; i < m; i++)
                distinct += i == 0 || xs_[i] != xs_[0];
            if (distinct >= 3 && !powerlaw_fit(xs_, ys_, m, &e1, &l1, &h1, &r21, &p1) && r21 > best_r2) {
                best_r2 = r21;
                f->x_metric = cands[ci2];
            }
        }
        f->max_share = mshare;
        f->x = calloc(a->n_configs + 1, sizeof *f->x);
        f->y = calloc(a->n_configs + 1, sizeof *f->y);
        if (!f->x || !f->y) {
            free(f->x); free(f->y);
            free(pid_max);
            NOMEM();
        }
        double u = 0, uw = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            double x = config_metric(c, f->x_metric);
            for (size_t p = 0; p < c->n_passes; p++)
                if (c->passes[p].name == f->name) {
                    if (x > 0 && c->passes[p].mean_s > 0) {
                        f->x[f->n] = x;
                        f->y[f->n++] = c->passes[p].mean_s;
                    }
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
            powerlaw_fit(f->x, f->y, f->n, &f->exponent, &f->lo, &f->hi, &f->r2, &f->prefactor);
        f->superlinear = !isnan(f->lo) && f->lo > 1;
        a->n_fits++;
    }
    free(pid_max);

    /* Handoff: stage share vs log10 cold wall over LLM configs (all families); similarity of families. */
    a->trends = calloc(NS, sizeof *a->trends);
    double *hx = calloc(a->n_configs + 1, sizeof *hx), *hy = calloc(a->n_configs + 1, sizeof *hy);
    if (!a->trends || !hx || !hy) {
        free(hx); free(hy);
        NOMEM();
    }
    for (size_t s = 0; s < NS; s++) {
        int n = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (c->kind && !strcmp(c->kind, "llm") && c->n_cold && c->wall.mean > 0) {
                hx[n] = log10(c->wall.mean);
                hy[n++] = c->share[s].mean;
            }
        }
        a->trends[s] = (pm_an_trend){(int)s, NAN, NAN, n};
        double c0, c1, c00, c01, c11, ss;
        int distinct = 0;
        for (int i = 0; i < n; i++)
            distinct += i == 0 || hx[i] != hx[0];
        if (distinct >= 2) {
            gsl_fit_linear(hx, 1, hy, 1, (size_t)n, &c0, &c1, &c00, &c01, &c11, &ss);
            a->trends[s].slope = c1;
            a->trends[s].intercept = c0;
        }
    }
    free(hx);
    free(hy);
    {
        /* Families compared at equal cold compile time: bins of a quarter decade. */
        const char *fams[64];
        size_t nf = 0;
        for (size_t ci = 0; ci < a->n_configs && nf < 64; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (!c->kind || strcmp(c->kind, "llm") || !c->family || !c->n_cold)
                continue;
            size_t k;
            for (k = 0; k < nf && strcmp(fams[k], c->family); k++)
                ;
            if (k == nf)
                fams[nf++] = c->family;
        }
        double *pa = calloc(NS, sizeof *pa), *pb = calloc(NS, sizeof *pb);
        double total = 0;
        int pairs = 0;
        for (size_t f1 = 0; pa && pb && f1 < nf; f1++)
            for (size_t f2 = f1 + 1; f2 < nf; f2++) {
                double dsum = 0;
                int nb = 0;
                for (int bin = -40; bin < 40; bin++) {
                    memset(pa, 0, NS * sizeof *pa);
                    memset(pb, 0, NS * sizeof *pb);
                    int na = 0, nb2 = 0;
                    for (size_t ci = 0; ci < a->n_configs; ci++) {
                        const pm_an_config *c = &a->configs[ci];
                        if (!c->kind || strcmp(c->kind, "llm") || !c->family || !c->n_cold || !(c->wall.mean > 0))
                            continue;
                        if ((int)floor(log10(c->wall.mean) * 4) != bin)
                            continue;
                        double *dst = !strcmp(c->family, fams[f1]) ? pa : !strcmp(c->family, fams[f2]) ? pb : NULL;
                        if (!dst)
                            continue;
                        if (dst == pa)
                            na++;
                        else
                            nb2++;
                        for (size_t s = 0; s < NS; s++)
                            dst[s] += c->share[s].mean;
                    }
                    if (na && nb2) {
                        double d = js_distance(pa, pb, NS);
                        if (!isnan(d)) {
                            dsum += d;
                            nb++;
                        }
                    }
                }
                if (nb) {
                    total += dsum / nb;
                    pairs++;
                }
            }
        free(pa);
        free(pb);
        if (pairs) {
            a->family_jsd = total / pairs;
            a->family_jsd_pairs = pairs;
        }
    }

    /* Precision: LLM configs of the reference variant. */
    {
        const char *variant = a->regime_llm.variant;
        int *wins = calloc(a->n_configs + 1, sizeof *wins);
        const char **precs = calloc(a->n_configs + 1, sizeof *precs);
        if (!wins || !precs) {
            free(wins); free(precs);
            NOMEM();
        }
        size_t nw = 0, np = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (!c->kind || strcmp(c->kind, "llm") || !c->n_cold || !same(c->variant, variant))
                continue;
            wins[nw++] = c->window;
            size_t k;
            for (k = 0; k < np && !same(precs[k], c->precision); k++)
                ;
            if (k == np)
                precs[np++] = c->precision;
        }
        if (nw) {
            a->prec_window = most_common_int(wins, nw);
            a->fingerprint_window = a->prec_window;
        }
        a->prec_base = most_common(precs, np, "int8");
        a->n_prec = nw ? np : 0;
        a->prec_time = calloc(np + 1, sizeof *a->prec_time);
        a->prec_ratio = calloc(np + 1, sizeof *a->prec_ratio);
        if (!a->prec_time || !a->prec_ratio) {
            free(wins); free(precs);
            NOMEM();
        }
        for (size_t k = 0; k < a->n_prec; k++) {
            pm_an_series *t = &a->prec_time[k], *r = &a->prec_ratio[k];
            t->label = r->label = precs[k] ? precs[k] : "-";
            t->x = calloc(a->n_configs + 1, sizeof *t->x);
            t->y = calloc(a->n_configs + 1, sizeof *t->y);
            t->xlabel = calloc(a->n_configs + 1, sizeof *t->xlabel);
            r->x = calloc(a->n_configs + 1, sizeof *r->x);
            r->y = calloc(a->n_configs + 1, sizeof *r->y);
            r->xlabel = calloc(a->n_configs + 1, sizeof *r->xlabel);
            if (!t->x || !t->y || !t->xlabel || !r->x || !r->y || !r->xlabel) {
                free(wins); free(precs);
                NOMEM();
            }
            /* sizes in config order (sorted numerically) */
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (!c->kind || strcmp(c->kind, "llm") || !c->n_cold || !same(c->variant, variant) ||
                    !same(c->precision, precs[k]))
                    continue;
                if (c->window == a->prec_window) {
                    size_t j;
                    for (j = 0; j < t->n && !same(t->xlabel[j], c->size); j++)
                        ;
                    if (j == t->n) {
                        t->xlabel[j] = c->size;
                        t->x[j] = c->size_num;
                        t->y[j] = 0;
                        t->n++;
                    }
                    t->y[j] += c->wall.mean;   /* summed, divided by family count below */
                    r->y[j] += 0;
                }
            }
            /* average over families at one size */
            for (size_t j = 0; j < t->n; j++) {
                int cnt = 0;
                for (size_t ci = 0; ci < a->n_configs; ci++) {
                    const pm_an_config *c = &a->configs[ci];
                    cnt += c->kind && !strcmp(c->kind, "llm") && c->n_cold && same(c->variant, variant) &&
                           same(c->precision, precs[k]) && c->window == a->prec_window && same(c->size, t->xlabel[j]);
                }
                if (cnt)
                    t->y[j] /= cnt;
            }
            /* ratio to base per size: median over (family, window) pairs that both precisions have */
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (!c->kind || strcmp(c->kind, "llm") || !c->n_cold || !same(c->variant, variant) ||
                    !same(c->precision, precs[k]))
                    continue;
                size_t j;
                for (j = 0; j < r->n && !same(r->xlabel[j], c->size); j++)
                    ;
                if (j < r->n)
                    continue;
                int n = 0;
                for (size_t cj = 0; cj < a->n_configs; cj++) {
                    const pm_an_config *c2 = &a->configs[cj];
                    if (!c2->kind || strcmp(c2->kind, "llm") || !same(c2->size, c->size) || !c2->n_cold ||
                        !same(c2->variant, variant) || !same(c2->precision, precs[k]))
                        continue;
                    for (size_t cb = 0; cb < a->n_configs; cb++) {
                        const pm_an_config *b = &a->configs[cb];
                        if (b->kind && !strcmp(b->kind, "llm") && same(b->family, c2->family) &&
                            same(b->size, c2->size) && b->window == c2->window && same(b->variant, variant) &&
                            same(b->precision, a->prec_base) && b->n_cold && b->wall.mean > 0)
                            tmp[n++] = c2->wall.mean / b->wall.mean;
                    }
                }
                if (n) {
                    r->xlabel[r->n] = c->size;
                    r->x[r->n] = c->size_num;
                    r->y[r->n++] = median(tmp, (size_t)n);
                }
            }
            /* Series were filled in config order (family-major): put them in size order first. */
            sort_series(t);
            sort_series(r);
            /* Crossovers: ratio crosses 1 between consecutive sizes. */
            for (size_t j = 1; j < r->n; j++) {
                double d0 = r->y[j - 1] - 1, d1 = r->y[j] - 1;
                if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) {
                    char text[256];
                    snprintf(text, sizeof text, "%s becomes %s than %s between %s (x%.2f) and %s (x%.2f)",
                             r->label, d1 > 0 ? "slower" : "faster", a->prec_base, r->xlabel[j - 1], r->y[j - 1],
                             r->xlabel[j], r->y[j]);
                    if (strlist_add(&a->crossovers, &a->n_crossovers, text)) {
                        free(wins); free(precs);
                        NOMEM();
                    }
                }
            }
        }
        /* Precision x window figure: the size with the most configs of this slice. */
        const char **sizes = precs;   /* reuse the buffer */
        size_t ns = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++) {
            const pm_an_config *c = &a->configs[ci];
            if (c->kind && !strcmp(c->kind, "llm") && c->n_cold && same(c->variant, variant))
                sizes[ns++] = c->size;
        }
        a->prec_window_size = ns ? most_common(sizes, ns, NULL) : NULL;
        /* CNN fingerprint resolution */
        nw = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++)
            if (a->configs[ci].kind && !strcmp(a->configs[ci].kind, "cnn") && a->configs[ci].n_cold)
                wins[nw++] = a->configs[ci].resolution;
        a->cnn_resolution = nw ? most_common_int(wins, nw) : 0;
        free(wins);
        free(precs);
    }

    /* Fix table: one row per regime (dominant stage among configs). */
    a->fixes = calloc(NS, sizeof *a->fixes);
    fit_r2 = calloc(NS, sizeof *fit_r2);
    if (!a->fixes || !fit_r2)
        NOMEM();
    for (size_t s = 0; s < NS; s++) {
        int n = 0;
        double share_sum = 0;
        int nr = 0;
        for (size_t ci = 0; ci < a->n_configs; ci++)
            if (a->configs[ci].dominant_stage == (int)s) {
                n++;
                share_sum += a->configs[ci].share[s].mean;
                if (!isnan(a->configs[ci].cache_ratio))
                    tmp[nr++] = a->configs[ci].cache_ratio;
            }
        if (!n)
            continue;
        pm_an_fix *x = &a->fixes[a->n_fixes];
        x->stage = (int)s;
        x->n_configs = n;
        x->exponent = x->exponent_lo = x->user_wall = NAN;
        x->cache_ratio = nr ? median(tmp, (size_t)nr) : NAN;
        x->share = share_sum / n;
        fit_r2[a->n_fixes] = NAN;
        if ((int)s != st_over) {
            /* the pass of this stage with the largest summed share over the regime's configs */
            const char *bt = NULL, *bn = NULL;
            double bsum = 0;
            double *sum = calloc(NP + 1, sizeof *sum), *uwn = calloc(NP + 1, sizeof *uwn),
                   *uwd = calloc(NP + 1, sizeof *uwd);
            if (!sum || !uwn || !uwd) {
                free(sum); free(uwn); free(uwd);
                NOMEM();
            }
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (c->dominant_stage != (int)s)
                    continue;
                for (size_t p = 0; p < c->n_passes; p++) {
                    const pm_an_pass *ps = &c->passes[p];
                    if (ps->stage != (int)s)
                        continue;
                    sum[ps->id] += ps->share;
                    if (!isnan(ps->user_wall)) {
                        uwn[ps->id] += ps->user_wall * ps->mean_s;
                        uwd[ps->id] += ps->mean_s;
                    }
                }
            }
            for (size_t k = 0; k < NP; k++)
                if (sum[k] > bsum) {
                    bsum = sum[k];
                    bt = pv->pids[k].tool;
                    bn = pv->pids[k].name;
                    x->user_wall = uwd[k] > 0 ? uwn[k] / uwd[k] : NAN;
                }
            free(sum); free(uwn); free(uwd);
            x->tool = bt;
            x->pass = bn;
            if (bn)
                x->share = bsum / n;
            for (size_t k = 0; bn && k < a->n_fits; k++)
                if (a->fits[k].name == bn && a->fits[k].tool == bt) {
                    x->exponent = a->fits[k].exponent;
                    x->exponent_lo = a->fits[k].lo;
                    fit_r2[a->n_fixes] = a->fits[k].r2;
                }
        } else {
            /* start-up is a single-threaded process phase */
            double u = 0, w = 0;
            for (size_t ci = 0; ci < a->n_configs; ci++)
                if (a->configs[ci].dominant_stage == (int)s && !isnan(a->configs[ci].user_wall)) {
                    u += a->configs[ci].user_wall;
                    w += 1;
                }
            x->user_wall = w > 0 ? u / w : NAN;
        }
        a->n_fixes++;
    }
    if ((rc = choose_fixes(a, opts->fixes_path, fit_r2, err)))
        goto cleanup;

cleanup:
    if (st)
        sqlite3_finalize(st);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.pm_an_run;", NULL, NULL, NULL);
    free(runs);
    free(rows);
    free(tmp);
    free(fit_r2);
    free(pid_cfg_n);
    if (rc) {
        pm_analysis_free(a);
        a = NULL;
    }
    *out = a;
    return rc;
}

static void free_series(pm_an_series *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].x);
        free(s[i].y);
        free(s[i].xlabel);
    }
    free(s);
}

static void free_regime(pm_an_regime *r)
{
    free(r->cells);
    for (size_t i = 0; i < r->n_boundaries; i++)
        free(r->boundaries[i]);
    free(r->boundaries);
}

void pm_analysis_free(pm_analysis *a)
{
    if (!a)
        return;
    analysis_full *full = (analysis_full *)a;
    free(a->fix_json);
    for (size_t i = 0; i < a->n_configs; i++) {
        pm_an_config *c = &a->configs[i];
        free(c->key); free(c->kind); free(c->family); free(c->size); free(c->precision); free(c->variant);
        free(c->share); free(c->stage_s); free(c->passes);
    }
    free(a->configs);
    free_regime(&a->regime_llm);
    free_regime(&a->regime_cnn);
    for (size_t i = 0; i < a->n_fits; i++) {
        free(a->fits[i].x);
        free(a->fits[i].y);
    }
    free(a->fits);
    free(a->trends);
    /* prec_time / prec_ratio are allocated with n_prec+1 entries; free what was filled */
    size_t np = a->n_prec;
    free_series(a->prec_time, np + 1);
    free_series(a->prec_ratio, np + 1);
    for (size_t i = 0; i < a->n_crossovers; i++)
        free(a->crossovers[i]);
    free(a->crossovers);
    for (size_t i = 0; i < a->n_tools; i++)
        free(a->tools[i]);
    free(a->tools);
    free(a->tool_user_wall);
    free(a->stage_user_wall);
    for (size_t i = 0; i < a->n_fixes; i++)
        free(a->fixes[i].fix);
    free(a->fixes);
    free(a->stages);
    free(a->sweep); free(a->backend); free(a->meta_json);
    for (size_t i = 0; i < full->priv.pool.n; i++)
        free(full->priv.pool.s[i]);
    free(full->priv.pool.s);
    free(full->priv.pids);
    free(full->priv.slots);
    free(full);
}
