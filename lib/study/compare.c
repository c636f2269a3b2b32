/* pm_compare: load two sides from results databases, match configs, compare (see compare.h). */
#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "contention.h"
#include "decide.h"
#include "flagcost.h"
#include "meter.h"
#include "parse.h"
#include "run.h"
#include "stats.h"
#include "store.h"
#include "store_compare.h"
#include "store_query.h"
#include "util.h"

/* One measured quantity over the runs of one config side: v[i] belongs to runs[i] (0 when absent in that
 * run but present in another). */
typedef struct series {
    char *tool, *pass;
    char *orig;         /* the name the build printed, when the alias table matched it as pass (else NULL) */
    double *v;
    double tick;        /* its timer's tick, s: the report format's for a pass, the runner's clock for a step */
    double reads;       /* most tick-rounded readings summed into one run's value (a pass run k times: k) */
} series;

typedef struct side_cfg {
    int64_t id;
    PM_CFG_EMBED;       /* key, variant column; params loaded when matching on an axis */
    char *base;         /* the matching key: the key without the variant, or every axis but AXIS */
    char *value;        /* its value on the compared axis: the variant, or AXIS's value */
    size_t n_runs;
    int64_t *run_ids;   /* ascending */
    double *wall;       /* run wall, only runs where it is known */
    double *user, *sys, *ins;   /* beside wall: user, sys (-1: not recorded), instructions (-1: not counted) */
    size_t n_wall;
    series *steps, *passes;   /* sorted by (tool, pass) */
    size_t n_steps, n_passes;
} side_cfg;

/* side.tools_cpu_wall: see decide.h */

typedef struct side {
    int walls_only;     /* skip the pass rows (pm_compare_opts.walls_only) */
    int whole_key;      /* match on the whole key (pm_compare_opts.whole_key) */
    const char *mode;   /* the run mode this side counts ("cold", or "warm": pm_compare_opts.mode_a/mode_b) */
    int max_repeats;
    const char *path;
    pm_store *st;
    pm_contention_sweep cont;   /* the sweep's configs judged by the one contention rule */
    double tools_cpu_wall, tools_cpu_wall_min;   /* max, min over the sweep's tools of their null-input median
                                                    CPU/wall (decide.h) */
    side_cfg *cfgs;     /* sorted by base; their runs are loaded when matched (load_cfg_data) */
    size_t n_cfgs;
    pm_store_side_cursor *q;   /* its queries, prepared once for all its configs (a prepare per config was a
                                  fifth of the report on 1,500 configs) */
    pm_an_flagcost flagcost;   /* its timing flags' cost (analysis_flagcost.c) */
} side;

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "compare: out of memory");
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Grows *arr (element size sz) to hold n + 1 elements. */
static int grow(void *arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*(void **)arr, nc * sz);
    if (!p)
        return -1;
    *(void **)arr = p;
    *cap = nc;
    return 0;
}

/* Resizes *arr to cap doubles (kept on failure). */
static int resize(double **arr, size_t cap)
{
    double *p = realloc(*arr, cap * sizeof *p);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

int pm_compare_split_key(const char *key, const char *variant_column, char **base, char **variant, pm_err *err)
{
    return pm_cfg_split_key(key, variant_column, base, variant) ? nomem(err) : PM_OK;
}

static void free_series(series *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].tool);
        free(s[i].pass);
        free(s[i].orig);
        free(s[i].v);
    }
    free(s);
}

static void free_side_cfg(side_cfg *c)
{
    pm_cfg_clear(&c->cfg);
    free(c->base);
    free(c->value);
    free(c->run_ids);
    free(c->wall);
    free(c->user);
    free(c->sys);
    free(c->ins);
    free_series(c->steps, c->n_steps);
    free_series(c->passes, c->n_passes);
}

static void free_side(side *s)
{
    for (size_t i = 0; i < s->n_cfgs; i++)
        free_side_cfg(&s->cfgs[i]);
    free(s->cfgs);
    pm_contention_sweep_free(&s->cont);
    pm_flagcost_free(&s->flagcost);
    pm_store_side_cursor_close(s->q);
    pm_store_close(s->st);
    memset(s, 0, sizeof *s);
}

/* Same order as SQLite's BINARY collation for the ORDER BY below (NULL first). */
static int cmp_tool_pass(const char *ta, const char *pa, const char *tb, const char *pb)
{
    int c = pm_util_strcmp_null(ta, tb);
    return c ? c : pm_util_strcmp_null(pa, pb);
}

typedef struct sweep_pick {
    const char *want;
    int64_t *id;
    char **name;
    char names[512];
    size_t n, found;
} sweep_pick;

static int pick_sweep(void *user, int64_t id, const char *nm)
{
    sweep_pick *p = user;
    p->n++;
    size_t used = strlen(p->names);
    snprintf(p->names + used, sizeof p->names - used, "%s%s", used ? ", " : "", nm ? nm : "");
    if (!p->want || (nm && strcmp(nm, p->want) == 0)) {
        *p->id = id;
        free(*p->name);
        *p->name = dup_or_null(nm);
        p->found++;
    }
    return PM_OK;
}

/* Resolves the sweep id: by name, or the only one. */
static int resolve_sweep(pm_store *st, const char *path, const char *want, int64_t *id, char **name, pm_err *err)
{
    sweep_pick p = {.want = want, .id = id, .name = name};
    int rc = pm_store_sweep_list(st, pick_sweep, &p, err);
    if (rc != PM_OK)
        return rc;
    if (p.n == 0)
        return pm_err_set(err, PM_ERR_NOTFOUND, "%s: no sweep recorded", path);
    if (want && !p.found)
        return pm_err_set(err, PM_ERR_USAGE, "%s: no sweep '%s' (sweeps: %s)", path, want, p.names);
    if (!want && p.found > 1)
        return pm_err_set(err, PM_ERR_USAGE, "%s holds several sweeps (%s): pick one with --sweep", path, p.names);
    return *name ? PM_OK : nomem(err);
}

static int find_run(const side_cfg *c, int64_t run_id, size_t *idx)
{
    size_t lo = 0, hi = c->n_runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->run_ids[mid] == run_id) {
            *idx = mid;
            return 1;
        }
        if (c->run_ids[mid] < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Fills series from the side's step or pass rows (run, tool, pass, value) ordered by tool, pass, in run mode
 * `mode`. */
static int load_series(pm_store_side_cursor *q, pm_side_rows which, const char *mode, double runner_tick,
                       side_cfg *c, series **out, size_t *n_out, pm_err *err)
{
    series *arr = NULL;
    size_t n = 0, cap = 0;
    pm_side_row row;
    int rc, more;
    if ((rc = pm_store_side_cursor_start(q, which, c->id, mode, 0, err)) != PM_OK)
        return rc;
    while ((rc = pm_store_side_cursor_next(q, &row, &more, err)) == PM_OK && more) {
        size_t ri;
        if (!find_run(c, row.run_id, &ri))
            continue;
        const char *tool = row.tool;
        const char *pass = row.pass;
        if (n == 0 || cmp_tool_pass(arr[n - 1].tool, arr[n - 1].pass, tool, pass) != 0) {
            if (grow(&arr, &cap, n, sizeof *arr) != 0) {
                rc = nomem(err);
                goto cleanup;
            }
            series *se = &arr[n++];
            *se = (series){.tool = dup_or_null(tool), .pass = dup_or_null(pass),
                           .v = calloc(c->n_runs ? c->n_runs : 1, sizeof(double))};
            if ((tool && !se->tool) || (pass && !se->pass) || !se->v) {
                rc = nomem(err);
                goto cleanup;
            }
        }
        arr[n - 1].v[ri] += row.value;
        /* a step's time is the runner's (runner_tick); a pass's is its report's, rounded once per reading (an
         * unknown or unrecorded format declares none: 0) */
        const char *fmt = row.format;
        double tick = runner_tick > 0 ? runner_tick : fmt ? pm_format_tick_s(pm_format_from_name(fmt)) : 0;
        double reads = (double)row.reads;
        if (tick > arr[n - 1].tick)
            arr[n - 1].tick = tick;
        if (reads > arr[n - 1].reads)
            arr[n - 1].reads = reads;
    }
cleanup:
    if (rc != PM_OK) {
        free_series(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return PM_OK;
}

static int cmp_series(const void *x, const void *y)
{
    const series *a = x, *b = y;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

/* Pass rows under the names the alias table matches them on (passalias.h): a renamed pass keeps the name it
 * was printed as in orig; two rows of one run that map to one name add up, as a pass run twice does. A trace's
 * "NAME (self)" row is NAME's own time (its span had children: analyses, or in another run none, when they fell
 * under the granularity), so it counts as NAME. */
static int alias_series(const pm_passalias *al, size_t n_runs, series *arr, size_t *n)
{
    static const char self[] = " (self)";
    const size_t k_self = sizeof self - 1;
    int renamed = 0;
    for (size_t i = 0; i < *n; i++) {
        const char *pass = arr[i].pass;
        size_t len = pass ? strlen(pass) : 0;
        char *base = NULL;
        if (len > k_self && !strcmp(pass + len - k_self, self)) {
            if (!(base = strndup(pass, len - k_self)))
                return -1;
            pass = base;
        }
        const char *canon = al ? pm_passalias_canon(al, arr[i].tool, pass) : pass;
        if (canon == arr[i].pass)
            continue;
        char *d = canon == base ? base : strdup(canon);
        if (d != base)
            free(base);
        if (!d)
            return -1;
        if (d == base)   /* only "(self)" dropped: the pass's own name, not a rename to show */
            free(arr[i].pass);
        else
            arr[i].orig = arr[i].pass;
        arr[i].pass = d;
        renamed = 1;
    }
    if (!renamed)
        return 0;
    qsort(arr, *n, sizeof *arr, cmp_series);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k && !cmp_series(&arr[k - 1], &arr[i])) {
            for (size_t r = 0; r < n_runs; r++)
                arr[k - 1].v[r] += arr[i].v[r];
            arr[k - 1].tick = fmax(arr[k - 1].tick, arr[i].tick);
            arr[k - 1].reads += arr[i].reads;
            if (!arr[k - 1].orig) {
                arr[k - 1].orig = arr[i].orig;
                arr[i].orig = NULL;
            }
            free(arr[i].tool), free(arr[i].pass), free(arr[i].orig), free(arr[i].v);
            continue;
        }
        arr[k++] = arr[i];
    }
    *n = k;
    return 0;
}

static int load_cfg_data(pm_store_side_cursor *q, side_cfg *c, int walls_only, const char *mode, int max_repeats,
                         const pm_passalias *aliases, pm_err *err)
{
    size_t cap = 0, cap_w = 0;
    pm_side_row row;
    int rc, more;
    /* max_repeats cuts the runs; steps and passes follow run_ids */
    if ((rc = pm_store_side_cursor_start(q, PM_SIDE_RUNS, c->id, mode, max_repeats, err)) != PM_OK)
        goto cleanup;
    while ((rc = pm_store_side_cursor_next(q, &row, &more, err)) == PM_OK && more) {
        if (grow(&c->run_ids, &cap, c->n_runs, sizeof *c->run_ids) != 0) {
            rc = nomem(err);
            goto cleanup;
        }
        c->run_ids[c->n_runs++] = row.run_id;
        if (row.has_wall) {
            size_t cap_x = cap_w;
            if (grow(&c->wall, &cap_w, c->n_wall, sizeof *c->wall) != 0 ||
                (cap_w != cap_x && (resize(&c->user, cap_w) || resize(&c->sys, cap_w) || resize(&c->ins, cap_w)))) {
                rc = nomem(err);
                goto cleanup;
            }
            c->user[c->n_wall] = row.user;
            c->sys[c->n_wall] = row.sys;
            c->ins[c->n_wall] = row.ins;
            c->wall[c->n_wall++] = row.wall;
        }
    }
cleanup:
    if (rc == PM_OK)
        rc = load_series(q, PM_SIDE_STEPS, mode, PM_RUN_CLOCK_TICK_S, c, &c->steps, &c->n_steps, err);
    if (rc == PM_OK && !walls_only)
        rc = load_series(q, PM_SIDE_PASSES, mode, 0, c, &c->passes, &c->n_passes, err);
    if (rc == PM_OK && !walls_only && alias_series(aliases, c->n_runs, c->passes, &c->n_passes))
        rc = nomem(err);
    if (rc != PM_OK)
        pm_err_wrap(err, "config %s", c->key);
    return rc;
}

static int cmp_cfg_base(const void *a, const void *b)
{
    return strcmp(((const side_cfg *)a)->base, ((const side_cfg *)b)->base);
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --a AXIS=V naming an axis no config has: the axes the configs do have, and the nearest ("prec": precision). */
static int no_axis(const side_cfg *cfgs, size_t n, const char *path, const char *axis, pm_err *err)
{
    const char **names = NULL;
    size_t nn = 0, cap = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < cfgs[i].cfg.n_params; k++) {
            const char *p = cfgs[i].cfg.params[k].name;
            size_t j = 0;
            while (j < nn && strcmp(names[j], p))
                j++;
            if (j < nn)
                continue;
            const char **grown = pm_grow(names, &cap, nn, sizeof *names, 16);
            if (!grown) {
                free(names);
                return nomem(err);
            }
            names = grown;
            names[nn++] = p;
        }
    char list[512] = "";
    for (size_t j = 0; j < nn; j++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "", names[j]);
    const char *near = pm_util_closest(axis, names, nn);
    int rc = pm_err_set(err, PM_ERR_USAGE, "%s: no config has an axis '%s'%s%s%s (its axes: %s, variant)", path, axis,
                        near ? "; did you mean " : "", near ? near : "", near ? "?" : "", nn ? list : "none");
    free(names);
    return rc;
}

/* Picks the variant: the one asked for, or the only one. Lists the choices when ambiguous. */
static int resolve_variant(side_cfg *cfgs, size_t n, const char *path, const char *label, const char *want,
                           const char *axis, char **chosen, pm_err *err)
{
    char **vars = malloc((n ? n : 1) * sizeof *vars);
    size_t nv = 0;
    int rc = PM_OK;
    if (!vars)
        return nomem(err);
    for (size_t i = 0; i < n; i++)
        vars[nv++] = cfgs[i].value;
    qsort(vars, nv, sizeof *vars, cmp_strp);
    size_t nd = 0;
    for (size_t i = 0; i < nv; i++)
        if (i == 0 || strcmp(vars[i], vars[nd - 1]) != 0)
            vars[nd++] = vars[i];
    char list[512] = "";
    for (size_t i = 0; i < nd; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", *vars[i] ? vars[i] : "(none)");
    }
    const char *pick = NULL;
    if (want) {
        for (size_t i = 0; i < nd && !pick; i++)
            if (strcmp(vars[i], want) == 0)
                pick = vars[i];
        if (!pick && axis && (!nd || (nd == 1 && !*vars[0])))   /* no config has that axis: name the axes */
            rc = no_axis(cfgs, n, path, axis, err);
        else if (!pick)
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: no %s '%s' on side %s (%s: %s)", path, axis ? axis : "variant",
                            want, label, axis ? "values" : "variants", nd ? list : "none");
    } else if (nd > 1) {
        rc = pm_err_set(err, PM_ERR_USAGE, "%s holds several variants (%s): pick one with --%s-variant", path,
                        list, label);
    } else if (nd == 1) {
        pick = vars[0];
    } else {
        pick = "";
    }
    if (rc == PM_OK && !(*chosen = strdup(pick)))
        rc = nomem(err);
    free(vars);
    return rc;
}

/* Matching on an axis (--a AXIS=V --b AXIS=W): a config's "variant" is its value of AXIS and its matching
 * key is every other parameter (and the variant column), so configs equal on all other axes line up. */
static int split_on_axis(pm_store *st, side_cfg *c, const char *axis, pm_err *err)
{
    int rc = pm_store_config_params(st, c->id, &c->cfg, err);
    if (rc != PM_OK)
        return rc;
    const char *val = pm_cfg_axis(&c->cfg, axis);
    c->base = pm_cfg_key_except(&c->cfg, axis);
    c->value = strdup(val ? val : "");
    return c->base && c->value ? PM_OK : nomem(err);
}

/* pm_store_configs_of_sweep's callback: each config of the side with its matching key and compared value. */
typedef struct cfg_gather {
    pm_store *st;
    const char *axis;
    int whole_key;
    side_cfg *all;
    size_t n, cap;
    pm_err *err;
} cfg_gather;

static int gather_cfg(void *user, int64_t id, const char *key, const char *variant)
{
    cfg_gather *g = user;
    if (grow(&g->all, &g->cap, g->n, sizeof *g->all) != 0)
        return nomem(g->err);
    side_cfg *c = &g->all[g->n++];
    *c = (side_cfg){.id = id};
    if (pm_cfg_set(&c->cfg, key ? key : "", NULL, variant))
        return nomem(g->err);
    if (g->axis)
        return split_on_axis(g->st, c, g->axis, g->err);
    /* a variant "" splits nothing off: the whole key matches */
    return pm_compare_split_key(c->key, g->whole_key ? "" : c->variant, &c->base, &c->value, g->err);
}

/* The meter the side's sweep recorded (meter.h), so its walls are not shown as compile times when a meter slowed
 * them. */
static int side_meter(pm_store *st, pm_compare_side *info, pm_err *err)
{
    pm_sq_sweeps sw = {0};
    int rc = pm_sq_sweeps_find(pm_store_db(st), info->sweep, &sw, err);
    json_t *m = rc == PM_OK && sw.meta_json ? json_loads(sw.meta_json, 0, NULL) : NULL;
    const char *name = json_string_value(json_object_get(m, "meter"));
    const pm_meter *row = pm_meter_find(name);
    if (name && !(info->meter = strdup(name)))
        rc = nomem(err);
    info->walls_slowed = row && row->slows;
    json_decref(m);
    pm_sq_sweeps_free(&sw);
    return rc;
}

static int load_side(const char *path, const char *sweep, const char *variant, const char *label, side *sd,
                     pm_compare_side *info, const char *axis, int max_repeats, pm_err *err)
{
    int rc = pm_store_open_readonly(path, &sd->st, err);
    if (rc != PM_OK)
        return rc;
    int64_t sweep_id = 0;
    if (!(info->path = strdup(path)))
        return nomem(err);
    if ((rc = resolve_sweep(sd->st, path, sweep, &sweep_id, &info->sweep, err)) != PM_OK ||
        (rc = side_meter(sd->st, info, err)) != PM_OK)
        return rc;
    cfg_gather g = {.st = sd->st, .axis = axis, .whole_key = sd->whole_key, .err = err};
    rc = pm_store_configs_of_sweep(sd->st, sweep_id, gather_cfg, &g, err);
    side_cfg *all = g.all;
    size_t n_all = g.n;
    if (rc != PM_OK)
        goto cleanup;
    if (n_all == 0) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: sweep '%s' has no configs: nothing was recorded in it", path,
                        info->sweep ? info->sweep : "?");
        goto cleanup;
    }
    if ((rc = resolve_variant(all, n_all, path, label, variant, axis, &info->variant, err)) != PM_OK)
        goto cleanup;
    /* Keep the chosen variant's configs, then load their runs. */
    size_t kept = 0;
    for (size_t i = 0; i < n_all; i++) {
        if (strcmp(all[i].value, info->variant) == 0)
            all[kept++] = all[i];
        else
            free_side_cfg(&all[i]);
    }
    n_all = kept;
    if (axis) {
        /* the side is named by its selector, "opt=0" */
        char *label_sel = NULL;
        if (asprintf(&label_sel, "%s=%s", axis, info->variant) < 0) {
            rc = nomem(err);
            goto cleanup;
        }
        free(info->variant);
        info->variant = label_sel;
    }
    qsort(all, n_all, sizeof *all, cmp_cfg_base);
    for (size_t i = 1; i < n_all; i++)
        if (strcmp(all[i].base, all[i - 1].base) == 0) {
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: configs %s and %s both match as %s", path, all[i - 1].key,
                            all[i].key, all[i].base);
            goto cleanup;
        }
    /* after the checks above, which refuse a side in no time: these read every run of the sweep (the report's
     * A/B section at 15,000 runs spent 13% of its time here before being refused) */
    if ((rc = pm_sq_tools_cpu_wall(pm_store_db(sd->st), sweep_id, &sd->tools_cpu_wall, &sd->tools_cpu_wall_min,
                                   err)) != PM_OK)
        goto cleanup;
    /* over the sweep's cold ok runs (all of them, as the report judges them, also under max_repeats) */
    if ((rc = pm_contention_load(pm_store_db(sd->st), info->sweep, &sd->cont, err)) != PM_OK) {
        pm_err_wrap(err, "%s: contention", path);
        goto cleanup;
    }
    pm_sq_sweeps one = {.ids = &sweep_id, .n = 1};
    if ((rc = pm_flagcost_read(pm_store_db(sd->st), &one, &sd->flagcost, err)) != PM_OK)
        goto cleanup;
    if (sd->flagcost.n && !(info->timing_flags = pm_flagcost_words(&sd->flagcost))) {
        rc = nomem(err);
        goto cleanup;
    }
    /* the runs of a config are read when it is matched with the other side's (pm_compare_run) */
    sd->path = path;
    sd->max_repeats = max_repeats;
    rc = pm_store_side_cursor_open(sd->st, sd->walls_only, &sd->q, err);
cleanup:
    sd->cfgs = all;
    sd->n_cfgs = n_all;
    return rc;
}

static int make_row(const char *tool, const char *pass, const char *alias, pm_compare_presence pr, const double *a,
                    size_t na, const double *b, size_t nb, double tick, double reads, pm_compare_row *row)
{
    *row = (pm_compare_row){.tool = dup_or_null(tool), .pass = dup_or_null(pass), .alias = dup_or_null(alias),
                            .presence = pr};
    if ((tool && !row->tool) || (pass && !row->pass) || (alias && !row->alias))
        return -1;
    /* Present on one side only: the other side's time is truly zero, not unknown. */
    pm_compare_test_tick(a, na, b, nb, tick, reads, &row->st);
    if (pr != PM_COMPARE_BOTH) {
        row->st.mean_a = pr == PM_COMPARE_ADDED ? 0 : row->st.mean_a;
        row->st.mean_b = pr == PM_COMPARE_REMOVED ? 0 : row->st.mean_b;
        row->st.delta = row->st.mean_b - row->st.mean_a;
    }
    return 0;
}

/* The instance a pass row names: "Greedy Register Allocator #2" is instance 2 of "Greedy Register Allocator"
 * (*base_len its length), a name without the suffix instance 1. */
static long pass_instance(const char *name, size_t *base_len)
{
    size_t n = name ? strlen(name) : 0, d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d < n && n - d < 9 && d >= 3 && name[d - 1] == '#' && name[d - 2] == ' ') {
        *base_len = d - 2;
        return strtol(name + d, NULL, 10);
    }
    *base_len = n;
    return 1;
}

/* One series in the order the instances are lined up in: (tool, base name, instance). */
typedef struct inst_ref {
    const series *s;
    size_t idx, base_len;
    long inst;
    double mean;
} inst_ref;

static int cmp_group(const inst_ref *a, const inst_ref *b)
{
    int c = pm_util_strcmp_null(a->s->tool, b->s->tool);
    if (c)
        return c;
    const char *pa = a->s->pass ? a->s->pass : "", *pb = b->s->pass ? b->s->pass : "";
    c = memcmp(pa, pb, a->base_len < b->base_len ? a->base_len : b->base_len);
    return c ? c : (a->base_len > b->base_len) - (a->base_len < b->base_len);
}

static int cmp_inst_ref(const void *x, const void *y)
{
    const inst_ref *a = x, *b = y;
    int c = cmp_group(a, b);
    return c ? c : (a->inst > b->inst) - (a->inst < b->inst);
}

static inst_ref *inst_refs(const series *s, size_t n, size_t n_runs)
{
    inst_ref *r = malloc((n ? n : 1) * sizeof *r);
    for (size_t i = 0; r && i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < n_runs; k++)
            sum += s[i].v[k];
        r[i] = (inst_ref){.s = &s[i], .idx = i, .mean = n_runs ? sum / (double)n_runs : 0};
        r[i].inst = pass_instance(s[i].pass, &r[i].base_len);
    }
    if (r)
        qsort(r, n, sizeof *r, cmp_inst_ref);
    return r;
}

static int same_magnitude(double a, double b)
{
    return a > 0 && b > 0 && a <= b * PM_COMPARE_SAME_PASS_FACTOR && b <= a * PM_COMPARE_SAME_PASS_FACTOR;
}

/* Pairs one group's instances (a[0..m), b[0..n), each in instance order): pa[a's index] = b's index, amb set on
 * the pairs that may not be the same pass (PM_COMPARE_SAME_PASS_FACTOR). */
static void pair_group(const inst_ref *a, size_t m, const inst_ref *b, size_t n, long *pa, unsigned char *amb)
{
    int same_numbers = m == n;
    for (size_t i = 0; same_numbers && i < m; i++)
        same_numbers = a[i].inst == b[i].inst;
    /* Of the offsets where every pair is of the same magnitude, the closest (least summed |log ratio|); when two
     * fit, the closest must be clearly closer (by a factor of 2 over the pairs) or the match is in doubt: a
     * tiny pass's time is noise, and on a busy machine it can reach the magnitude of another instance's. */
    size_t small = m < n ? m : n, offsets = (m > n ? m - n : n - m) + 1, fit = 0, fits = 0;
    double best = INFINITY, second = INFINITY;
    for (size_t k = 0; !same_numbers && k < offsets; k++) {
        int all = 1;
        double dist = 0;
        for (size_t i = 0; all && i < small; i++) {
            double x = m <= n ? a[i].mean : a[i + k].mean, y = m <= n ? b[i + k].mean : b[i].mean;
            all = same_magnitude(x, y);
            dist += all ? fabs(log(x / y)) : 0;
        }
        if (!all)
            continue;
        fits++;
        if (dist < best)
            second = best, best = dist, fit = k;
        else if (dist < second)
            second = dist;
    }
    int doubt = !same_numbers && (fits == 0 || (fits > 1 && second - best < log(2.0)));
    size_t k = same_numbers || doubt ? 0 : fit;
    for (size_t i = 0; i < small; i++) {
        size_t ia = m <= n ? i : i + k, ib = m <= n ? i + k : i;
        pa[a[ia].idx] = (long)b[ib].idx;
        amb[a[ia].idx] = (unsigned char)doubt;
    }
}

/* Which B series each A series is the same pass as (-1: none), instance by instance (pair_group). */
static int pair_series(const series *sa, size_t na, size_t runs_a, const series *sb, size_t nb, size_t runs_b,
                       long *pa, unsigned char *amb)
{
    inst_ref *ra = inst_refs(sa, na, runs_a), *rb = inst_refs(sb, nb, runs_b);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return -1;
    }
    for (size_t i = 0; i < na; i++)
        pa[i] = -1, amb[i] = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int c = cmp_group(&ra[i], &rb[j]);
        size_t ei = i, ej = j;
        while (ei < na && !cmp_group(&ra[i], &ra[ei]))
            ei++;
        while (ej < nb && !cmp_group(&rb[j], &rb[ej]))
            ej++;
        if (c == 0)
            pair_group(&ra[i], ei - i, &rb[j], ej - j, pa, amb);
        if (c <= 0)
            i = ei;
        if (c >= 0)
            j = ej;
    }
    free(ra);
    free(rb);
    return 0;
}

/* The name a build printed, when the row goes by another: the alias table's, or B's instance. */
static const char *printed_alias(const series *a, const series *b)
{
    if (a->orig)
        return a->orig;
    if (pm_util_strcmp_null(a->pass, b->pass))
        return a->pass;
    return b->orig;
}

/* Comparison rows of two series lists (sorted by tool, pass): the pairs pair_series finds, then A's unpaired
 * (removed), then B's (added); the caller orders them. */
static int merge_rows(const side_cfg *ca, const series *sa, size_t na, const side_cfg *cb, const series *sb,
                      size_t nb, pm_compare_row **out, size_t *n_out)
{
    pm_compare_row *rows = calloc(na + nb + 1, sizeof *rows);
    long *pa = malloc((na ? na : 1) * sizeof *pa);
    unsigned char *amb = malloc(na ? na : 1), *used = calloc(nb ? nb : 1, 1);
    size_t n = 0;
    int bad = !rows || !pa || !amb || !used || pair_series(sa, na, ca->n_runs, sb, nb, cb->n_runs, pa, amb);
    for (size_t i = 0; !bad && i < na; i++) {
        if (pa[i] >= 0) {
            const series *b = &sb[pa[i]];
            used[pa[i]] = 1;
            bad = make_row(b->tool, b->pass, printed_alias(&sa[i], b), PM_COMPARE_BOTH, sa[i].v, ca->n_runs, b->v,
                           cb->n_runs, fmax(sa[i].tick, b->tick), fmax(sa[i].reads, b->reads), &rows[n]);
            if (!bad && amb[i]) {   /* shown with its numbers; no test, no claim */
                pm_compare_stat *st = &rows[n].st;
                st->p = st->t = st->df = st->se_log = NAN;
                st->verdict = st->tested = PM_VERDICT_AMBIGUOUS;
            }
        } else {
            bad = make_row(sa[i].tool, sa[i].pass, sa[i].orig, PM_COMPARE_REMOVED, sa[i].v, ca->n_runs, NULL, 0,
                           sa[i].tick, sa[i].reads, &rows[n]);
        }
        n++;
    }
    for (size_t j = 0; !bad && j < nb; j++) {
        if (used[j])
            continue;
        bad = make_row(sb[j].tool, sb[j].pass, sb[j].orig, PM_COMPARE_ADDED, NULL, 0, sb[j].v, cb->n_runs,
                       sb[j].tick, sb[j].reads, &rows[n]);
        n++;
    }
    free(pa);
    free(amb);
    free(used);
    *out = rows;
    *n_out = n;
    return bad ? -1 : 0;
}

static int cmp_row_name(const void *x, const void *y)
{
    const pm_compare_row *a = x, *b = y;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static double abs_delta(double d)
{
    return d == d ? fabs(d) : -1;
}

static int cmp_row_delta(const void *x, const void *y)
{
    const pm_compare_row *a = x, *b = y;
    double da = abs_delta(a->st.delta), db = abs_delta(b->st.delta);
    if (da != db)
        return da < db ? 1 : -1;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static double finite_or_zero(double v)
{
    return v == v ? v : 0;
}

static double row_time(const pm_compare_row *r)
{
    return fmax(finite_or_zero(r->st.mean_a), finite_or_zero(r->st.mean_b));
}

static int cmp_row_tool_time(const void *x, const void *y)
{
    const pm_compare_row *a = *(const pm_compare_row *const *)x, *b = *(const pm_compare_row *const *)y;
    int c = pm_util_strcmp_null(a->tool, b->tool);
    if (c)
        return c;
    double ta = row_time(a), tb = row_time(b);
    return ta != tb ? (ta < tb ? 1 : -1) : pm_util_strcmp_null(a->pass, b->pass);
}

/* The default pass family (compare.h): a tested pass row stays in it when it takes PM_COMPARE_FAMILY_SHARE of the
 * config's compile wall on either side and is among the top PM_COMPARE_FAMILY_TOP of its step tool by time; the
 * others lose their test (their numbers stay) and read "not tested (outside the family)". */
static int pass_family(pm_compare_config *o)
{
    pm_compare_row **v = malloc((o->n_passes ? o->n_passes : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t k = 0; k < o->n_passes; k++)
        if (!isnan(o->passes[k].st.p))
            v[n++] = &o->passes[k];
    qsort(v, n, sizeof *v, cmp_row_tool_time);
    double wall = fmax(finite_or_zero(o->wall.mean_a), finite_or_zero(o->wall.mean_b));
    size_t rank = 0;
    for (size_t k = 0; k < n; k++) {
        rank = k && !pm_util_strcmp_null(v[k]->tool, v[k - 1]->tool) ? rank + 1 : 0;
        if (rank < PM_COMPARE_FAMILY_TOP && (!(wall > 0) || row_time(v[k]) >= PM_COMPARE_FAMILY_SHARE * wall))
            continue;
        pm_compare_stat *st = &v[k]->st;
        st->p = st->t = st->df = st->se_log = NAN;
        st->verdict = st->tested = PM_VERDICT_OUTSIDE;
    }
    free(v);
    return 0;
}

static int compare_cfg(const side_cfg *ca, const side_cfg *cb, int all_passes, pm_compare_config *o)
{
    o->key = strdup(ca->base);
    o->key_a = strdup(ca->key);
    o->key_b = strdup(cb->key);
    if (!o->key || !o->key_a || !o->key_b)
        return -1;
    pm_compare_test_tick(ca->wall, ca->n_wall, cb->wall, cb->n_wall, PM_RUN_CLOCK_TICK_S, 1, &o->wall);
    const char *regime = "-";
    double best = -1;
    for (size_t i = 0; i < ca->n_steps; i++) {
        double sum = 0;
        for (size_t k = 0; k < ca->n_runs; k++)
            sum += ca->steps[i].v[k];
        if (ca->n_runs && sum / (double)ca->n_runs > best) {
            best = sum / (double)ca->n_runs;
            regime = ca->steps[i].tool;
        }
    }
    if (!(o->regime = strdup(regime)))
        return -1;
    if (merge_rows(ca, ca->steps, ca->n_steps, cb, cb->steps, cb->n_steps, &o->steps, &o->n_steps) != 0 ||
        merge_rows(ca, ca->passes, ca->n_passes, cb, cb->passes, cb->n_passes, &o->passes, &o->n_passes) != 0)
        return -1;
    qsort(o->steps, o->n_steps, sizeof *o->steps, cmp_row_name);
    if (!all_passes && pass_family(o) != 0)
        return -1;
    qsort(o->passes, o->n_passes, sizeof *o->passes, cmp_row_delta);
    return 0;
}

static int cmp_rowp_name(const void *x, const void *y)
{
    const pm_compare_row *a = *(const pm_compare_row *const *)x, *b = *(const pm_compare_row *const *)y;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static int cmp_total_delta(const void *x, const void *y)
{
    const pm_compare_pass_total *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db)
        return da < db ? 1 : -1;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

/* Folds every config's pass rows by (tool, pass). */
static int total_passes(pm_compare_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_configs; i++)
        n += r->configs[i].n_passes;
    const pm_compare_row **rows = malloc((n ? n : 1) * sizeof *rows);
    r->passes = calloc(n ? n : 1, sizeof *r->passes);
    if (!rows || !r->passes) {
        free(rows);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n_configs; i++)
        for (size_t j = 0; j < r->configs[i].n_passes; j++)
            rows[k++] = &r->configs[i].passes[j];
    qsort(rows, n, sizeof *rows, cmp_rowp_name);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const pm_compare_row *row = rows[i];
        pm_compare_pass_total *t = r->n_passes ? &r->passes[r->n_passes - 1] : NULL;
        if (!t || cmp_tool_pass(t->tool, t->pass, row->tool, row->pass) != 0) {
            t = &r->passes[r->n_passes++];
            t->tool = dup_or_null(row->tool);
            t->pass = dup_or_null(row->pass);
            if ((row->tool && !t->tool) || (row->pass && !t->pass))
                rc = -1;
        }
        t->n_configs++;
        t->total_a += finite_or_zero(row->st.mean_a);
        t->total_b += finite_or_zero(row->st.mean_b);
        t->delta = t->total_b - t->total_a;
        t->added += row->presence == PM_COMPARE_ADDED;
        t->removed += row->presence == PM_COMPARE_REMOVED;
        t->faster += row->st.verdict == PM_VERDICT_FASTER;
        t->slower += row->st.verdict == PM_VERDICT_SLOWER;
    }
    free(rows);
    qsort(r->passes, r->n_passes, sizeof *r->passes, cmp_total_delta);
    return rc;
}

/* A config the summaries count: its wall decided (faster, slower, same; a contended one only when its verdict was
 * kept by allow_contended), with a usable ratio. Undecided, untested and withheld configs are left out and
 * counted, and the summary line says so (pm_compare_summary_text). */
static int in_summary(const pm_compare_stat *d)
{
    pm_compare_verdict v = d->verdict;
    return (v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER || v == PM_VERDICT_SAME) && d->ratio > 0 &&
           isfinite(d->ratio);
}

/* A config the summary's estimate pools: tested (its decider has a p, so n >= 3 a side and above resolution), with a
 * usable ratio, its verdict not withheld as contended — decided or not. Deciding selects the larger effects: the
 * mean over the decided configs alone is biased away from 1 (issue 35: 2.744x from 4 decided configs against
 * 2.186x over all 9), so it is only shown labelled "decided only". */
static int in_pool(const pm_compare_stat *d)
{
    return !isnan(d->p) && d->ratio > 0 && isfinite(d->ratio) && d->verdict != PM_VERDICT_CONTENDED;
}

static int cmp_regime(const void *x, const void *y)
{
    return strcmp(((const pm_compare_regime *)x)->regime, ((const pm_compare_regime *)y)->regime);
}

/* The summary's estimate: the geometric mean of the pooled configs' ratios, each config weighing alike, with a t
 * interval over them. Its spread is the configs' own, between-config differences included (a random-effects
 * interval with equal weights), so it holds the mean effect over configs like these, not only these. logs: room
 * for n_configs values. */
static void pool(pm_compare_result *r, double *logs)
{
    r->n_pooled = 0;
    r->pooled_ratio = r->pooled_ci_lo = r->pooled_ci_hi = NAN;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_stat *d = pm_compare_decider(r, &r->configs[i]);
        if (in_pool(d))
            logs[r->n_pooled++] = log(d->ratio);
    }
    pm_stats_summary ls = {.ci_lo = NAN};
    if (r->n_pooled && pm_stats_summarize(logs, r->n_pooled, &ls) != PM_STATS_NOMEM)
        r->pooled_ratio = exp(ls.mean);
    if (r->n_pooled >= PM_STATS_MIN_INTERVAL_N && !isnan(ls.ci_lo)) {
        r->pooled_ci_lo = exp(ls.ci_lo);
        r->pooled_ci_hi = exp(ls.ci_hi);
    }
}

static int summarize(pm_compare_result *r)
{
    double *logs = malloc((r->n_configs ? r->n_configs : 1) * sizeof *logs);
    double *ratios = malloc((r->n_configs ? r->n_configs : 1) * sizeof *ratios);
    r->regimes = calloc(r->n_configs ? r->n_configs : 1, sizeof *r->regimes);
    int rc = 0;
    if (!logs || !ratios || !r->regimes) {
        rc = -1;
        goto cleanup;
    }
    r->geomean_ratio = r->geomean_ci_lo = r->geomean_ci_hi = NAN;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        const pm_compare_stat *d = pm_compare_decider(r, c);
        pm_compare_verdict v = d->verdict;
        r->faster += v == PM_VERDICT_FASTER;
        r->slower += v == PM_VERDICT_SLOWER;
        r->same += v == PM_VERDICT_SAME;
        r->undecided += v == PM_VERDICT_UNDECIDED;
        r->untested += v == PM_VERDICT_NA || v == PM_VERDICT_BELOW_RESOLUTION;
        if (in_summary(d)) {   /* the summary is of the metric that decided (decided_on) */
            ratios[r->n_ratios] = d->ratio;
            logs[r->n_ratios++] = log(d->ratio);
        }
    }
    if (r->n_ratios)
        pm_stats_geomean(ratios, r->n_ratios, &r->geomean_ratio);
    pm_stats_summary ls;
    if (r->n_ratios >= PM_STATS_MIN_INTERVAL_N && pm_stats_summarize(logs, r->n_ratios, &ls) == PM_STATS_OK &&
        ls.ci_lo == ls.ci_lo) {
        r->geomean_ci_lo = exp(ls.ci_lo);
        r->geomean_ci_hi = exp(ls.ci_hi);
    }
    pool(r, logs);
    /* Regimes: distinct names in order, each with its geomean. */
    for (size_t i = 0; i < r->n_configs; i++) {
        const char *name = r->configs[i].regime;
        size_t g = 0;
        while (g < r->n_regimes && strcmp(r->regimes[g].regime, name) != 0)
            g++;
        if (g == r->n_regimes) {
            if (!(r->regimes[g].regime = strdup(name))) {
                rc = -1;
                goto cleanup;
            }
            r->n_regimes++;
        }
    }
    for (size_t g = 0; g < r->n_regimes; g++) {
        pm_compare_regime *rg = &r->regimes[g];
        size_t n = 0;
        for (size_t i = 0; i < r->n_configs; i++) {
            const pm_compare_config *c = &r->configs[i];
            if (strcmp(c->regime, rg->regime) != 0)
                continue;
            const pm_compare_stat *d = pm_compare_decider(r, c);
            rg->n_all++;
            rg->faster += d->verdict == PM_VERDICT_FASTER;
            rg->slower += d->verdict == PM_VERDICT_SLOWER;
            if (in_summary(d))
                ratios[n++] = d->ratio;
        }
        rg->n_configs = n;
        rg->geomean_ratio = NAN;
        if (n)
            pm_stats_geomean(ratios, n, &rg->geomean_ratio);
    }
    qsort(r->regimes, r->n_regimes, sizeof *r->regimes, cmp_regime);
cleanup:
    free(logs);
    free(ratios);
    return rc;
}

int pm_compare_summarize(pm_compare_result *r)
{
    return summarize(r);
}

/* Holm within each family of this comparison: the configs' walls, the step rows, the pass rows. */
static int correct_families(pm_compare_result *r)
{
    size_t n_steps = 0, n_passes = 0;
    for (size_t i = 0; i < r->n_configs; i++) {
        n_steps += r->configs[i].n_steps;
        n_passes += r->configs[i].n_passes;
    }
    size_t cap = r->n_configs + n_steps + n_passes + 1;
    pm_compare_stat **fam = malloc(cap * sizeof *fam);
    if (!fam)
        return -1;
    int rc = 0;
    /* family 3: the shown walls when another metric decided (corrected apart, so they change no verdict's m) */
    for (int which = 0; which < 4 && !rc; which++) {
        size_t m = 0;
        if (which == 3 && r->decided_on == PM_DECIDE_WALL)
            break;
        for (size_t i = 0; i < r->n_configs; i++) {
            pm_compare_config *c = &r->configs[i];
            if (which == 0)
                fam[m++] = pm_unconst_ptr(pm_compare_decider(r, c)); /* r is ours to correct */
            if (which == 3)
                fam[m++] = &c->wall;
            for (size_t k = 0; which == 1 && k < c->n_steps; k++)
                fam[m++] = &c->steps[k].st;
            for (size_t k = 0; which == 2 && k < c->n_passes; k++)
                fam[m++] = &c->passes[k].st;
        }
        rc = pm_compare_correct(fam, m, PM_COMPARE_ALPHA, r->threshold);
    }
    free(fam);
    return rc;
}

/* *why: the reasons a side's config is contended, or NULL; -1 when out of memory. */
static int side_contention(const side *s, const side_cfg *c, char **why)
{
    const pm_contention *ev = NULL;
    int bits = pm_contention_of(&s->cont, c->id, &ev);
    if (!bits)
        return 0;
    char buf[256];
    pm_contention_text(bits, ev, s->cont.cpus, s->cont.p90, buf, sizeof buf);
    return (*why = strdup(buf)) ? 0 : -1;
}

/* A config whose A runs and B runs were measured on different machines: counted, the first one named. */
static int cross_host(side *a, const side_cfg *ca, side *b, const side_cfg *cb, pm_compare_result *out, pm_err *err)
{
    char *ha = NULL, *hb = NULL;
    int rc = pm_store_config_hosts(a->st, ca->id, &ha, err);
    if (rc == PM_OK)
        rc = pm_store_config_hosts(b->st, cb->id, &hb, err);
    if (rc == PM_OK && ha && hb && strcmp(ha, hb)) {
        if (out->n_cross_host++ == 0) {
            size_t n = strlen(ca->base) + strlen(ha) + strlen(hb) + 160;
            if (!(out->host_warning = malloc(n)))
                rc = nomem(err);
            else
                snprintf(out->host_warning, n, "comparison crosses machines: %s was measured on %s in A and on %s in "
                         "B, so its ratio includes the machines' difference", ca->base, ha, hb);
        }
    }
    free(ha);
    free(hb);
    return rc;
}

/* A side's samples of the metric m (every run has it: pm_decide asked them all); -1 when out of memory. */
static int decide_samples(pm_decide_metric m, const side_cfg *c, double **v, size_t *n)
{
    *n = 0;
    if (!(*v = malloc((c->n_wall ? c->n_wall : 1) * sizeof **v)))
        return -1;
    for (size_t i = 0; i < c->n_wall; i++) {
        double x = pm_decide_sample(m, c->wall[i], c->user[i], c->sys[i], c->ins[i]);
        if (!isnan(x))
            (*v)[(*n)++] = x;
    }
    return 0;
}

const pm_compare_stat *pm_compare_decider(const pm_compare_result *r, const pm_compare_config *c)
{
    return r->decided_on != PM_DECIDE_WALL ? &c->metric : &c->wall;
}

static int decisive(pm_compare_verdict v)
{
    return v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER || v == PM_VERDICT_SAME;
}

int pm_compare_disagree(const pm_compare_result *r, const pm_compare_config *c, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    if (r->decided_on == PM_DECIDE_WALL || !pm_decide_row_of((pm_decide_metric)r->decided_on)->count ||
        !decisive(c->metric.verdict) || !decisive(c->wall.verdict) || c->metric.verdict == c->wall.verdict)
        return 0;
    snprintf(buf, n, "instructions %s, %swall %s", pm_compare_verdict_name(c->metric.verdict),
             r->a.walls_slowed || r->b.walls_slowed ? "instrumented " : "", pm_compare_verdict_name(c->wall.verdict));
    return 1;
}

int pm_compare_run(const pm_compare_opts *opts, pm_compare_result *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    side a = {0}, b = {0};
    side_cfg **pairs = NULL;
    pm_decide_evidence ev;
    int rc;
    if (!opts || !opts->path_a || !opts->path_b)
        return pm_err_set(err, PM_ERR_USAGE, "compare: two databases needed");
    a.walls_only = b.walls_only = opts->walls_only;
    a.whole_key = b.whole_key = opts->whole_key;
    a.mode = opts->mode_a ? opts->mode_a : "cold";
    b.mode = opts->mode_b ? opts->mode_b : "cold";
    if ((rc = load_side(opts->path_a, opts->sweep_a, opts->variant_a, "a", &a, &out->a, opts->axis,
                        opts->max_repeats, err)) != PM_OK ||
        (rc = load_side(opts->path_b, opts->sweep_b, opts->variant_b, "b", &b, &out->b, opts->axis,
                        opts->max_repeats, err)) != PM_OK)
        goto cleanup;
    size_t cap = a.n_cfgs < b.n_cfgs ? a.n_cfgs : b.n_cfgs;
    out->configs = calloc(cap ? cap : 1, sizeof *out->configs);
    /* the matched configs' two sides, for the deciding metric's test once all are in */
    pairs = calloc(2 * cap + 2, sizeof *pairs);
    if (!pairs) {
        rc = nomem(err);
        goto cleanup;
    }
    pm_decide_init(&ev);
    /* the tools of both sides: the larger null-input CPU/wall (NaN when a side measured none: then no CPU) */
    ev.tools_cpu_wall = isnan(a.tools_cpu_wall) || isnan(b.tools_cpu_wall) ? NAN
                        : fmax(a.tools_cpu_wall, b.tools_cpu_wall);
    ev.tools_cpu_wall_min = isnan(a.tools_cpu_wall_min) || isnan(b.tools_cpu_wall_min)
                            ? NAN : fmin(a.tools_cpu_wall_min, b.tools_cpu_wall_min);
    out->only_a = calloc(a.n_cfgs ? a.n_cfgs : 1, sizeof *out->only_a);
    out->only_b = calloc(b.n_cfgs ? b.n_cfgs : 1, sizeof *out->only_b);
    if (!out->configs || !out->only_a || !out->only_b) {
        rc = nomem(err);
        goto cleanup;
    }
    size_t i = 0, j = 0;
    while (i < a.n_cfgs || j < b.n_cfgs) {
        int c = i >= a.n_cfgs ? 1 : j >= b.n_cfgs ? -1 : strcmp(a.cfgs[i].base, b.cfgs[j].base);
        int bad = 0;
        if (c == 0) {
            if ((rc = load_cfg_data(a.q, &a.cfgs[i], a.walls_only, a.mode, a.max_repeats, opts->aliases,
                                    err)) != PM_OK ||
                (rc = load_cfg_data(b.q, &b.cfgs[j], b.walls_only, b.mode, b.max_repeats, opts->aliases,
                                    err)) != PM_OK ||
                (rc = cross_host(&a, &a.cfgs[i], &b, &b.cfgs[j], out, err)) != PM_OK)
                goto cleanup;
            pairs[2 * out->n_configs] = &a.cfgs[i];
            pairs[2 * out->n_configs + 1] = &b.cfgs[j];
            const side_cfg *ca = &a.cfgs[i], *cb = &b.cfgs[j];
            pm_decide_add_config(&ev, ca->wall, ca->user, ca->sys, ca->ins, ca->n_wall);
            pm_decide_add_config(&ev, cb->wall, cb->user, cb->sys, cb->ins, cb->n_wall);
            pm_compare_config *cc = &out->configs[out->n_configs++];
            bad = compare_cfg(&a.cfgs[i], &b.cfgs[j], opts->all_passes, cc) || side_contention(&a, &a.cfgs[i], &cc->contended_a) ||
                  side_contention(&b, &b.cfgs[j], &cc->contended_b);
            i++, j++;
        } else if (c < 0) {
            bad = !(out->only_a[out->n_only_a++] = strdup(a.cfgs[i++].key));
        } else {
            bad = !(out->only_b[out->n_only_b++] = strdup(b.cfgs[j++].key));
        }
        if (bad) {
            rc = nomem(err);
            goto cleanup;
        }
    }
    /* the whole compile is decided on the steadiest metric all matched runs offer (decide.h) */
    out->decided_on = out->n_configs ? pm_decide(&ev) : PM_DECIDE_WALL;
    /* A count's resolution, its tick in the rule, is the largest spread of any side's repeated counts, at least
     * one count (decide.h), so identical constant counts are "same", not a zero-width division. */
    double floor = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; out->decided_on != PM_DECIDE_WALL && k < out->n_configs; k++) {
            double *va = NULL, *vb = NULL;
            size_t na = 0, nb = 0;
            int bad = decide_samples(out->decided_on, pairs[2 * k], &va, &na) ||
                      decide_samples(out->decided_on, pairs[2 * k + 1], &vb, &nb);
            if (!bad && !pass)
                floor = pm_decide_floor(out->decided_on, vb, nb, pm_decide_floor(out->decided_on, va, na, floor));
            else if (!bad)
                pm_compare_test_tick(va, na, vb, nb, floor, 1, &out->configs[k].metric);
            free(va);
            free(vb);
            if (bad) {
                rc = nomem(err);
                goto cleanup;
            }
        }
    out->threshold = opts->threshold > 0 ? opts->threshold : PM_COMPARE_THRESHOLD;
    out->allow_contended = opts->allow_contended;
    if (correct_families(out) != 0) {
        rc = nomem(err);
        goto cleanup;
    }
    /* Contended rows were tested (they count in Holm's m, which only makes the others' correction stricter);
     * their verdict is withheld afterwards. */
    for (size_t k = 0; k < out->n_configs; k++) {
        pm_compare_config *c = &out->configs[k];
        int cont = c->contended_a || c->contended_b;
        out->n_contended += cont;
        pm_compare_withhold(&c->wall, cont, opts->allow_contended);
        /* contention moves a time, never a count: a count's verdict stands (the times beside it are withheld) */
        if (out->decided_on != PM_DECIDE_WALL)
            pm_compare_withhold(&c->metric, cont && !pm_decide_row_of(out->decided_on)->count,
                                opts->allow_contended);
        for (size_t q = 0; q < c->n_steps; q++)
            pm_compare_withhold(&c->steps[q].st, cont, opts->allow_contended);
        for (size_t q = 0; q < c->n_passes; q++)
            pm_compare_withhold(&c->passes[q].st, cont, opts->allow_contended);
    }
    if (total_passes(out) != 0 || summarize(out) != 0)
        rc = nomem(err);
    char differ[512];
    if (rc == PM_OK && pm_flagcost_differ(&a.flagcost, &b.flagcost, out->threshold, differ, sizeof differ) &&
        !(out->timing_flags_differ = strdup(differ)))
        rc = nomem(err);
cleanup:
    free(pairs);
    free_side(&a);
    free_side(&b);
    if (rc != PM_OK)
        pm_compare_free(out);
    return rc;
}

static void free_rows(pm_compare_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].tool);
        free(rows[i].pass);
        free(rows[i].alias);
    }
    free(rows);
}

void pm_compare_free(pm_compare_result *r)
{
    if (!r)
        return;
    free(r->a.path), free(r->a.sweep), free(r->a.variant), free(r->a.meter), free(r->a.timing_flags);
    free(r->b.path), free(r->b.sweep), free(r->b.variant), free(r->b.meter), free(r->b.timing_flags);
    free(r->timing_flags_differ);
    for (size_t i = 0; i < r->n_configs; i++) {
        pm_compare_config *c = &r->configs[i];
        free(c->key), free(c->key_a), free(c->key_b), free(c->regime);
        free(c->contended_a), free(c->contended_b);
        free_rows(c->steps, c->n_steps);
        free_rows(c->passes, c->n_passes);
    }
    free(r->configs);
    for (size_t i = 0; i < r->n_only_a; i++)
        free(r->only_a[i]);
    for (size_t i = 0; i < r->n_only_b; i++)
        free(r->only_b[i]);
    free(r->only_a);
    free(r->only_b);
    for (size_t i = 0; i < r->n_passes; i++)
        free(r->passes[i].tool), free(r->passes[i].pass);
    free(r->passes);
    for (size_t i = 0; i < r->n_regimes; i++)
        free(r->regimes[i].regime);
    free(r->regimes);
    free(r->host_warning);
    memset(r, 0, sizeof *r);
}

void pm_compare_summary_text(const pm_compare_result *r, char *buf, size_t n)
{
    size_t held = 0, kept = 0, untested = 0, used = 0;
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_stat *d = pm_compare_decider(r, &r->configs[i]);   /* a count is never contended */
        if (in_pool(d)) {
            kept += d->contended;
            continue;
        }
        held += d->verdict == PM_VERDICT_CONTENDED;
        untested += d->verdict != PM_VERDICT_CONTENDED && isnan(d->p);
    }
    size_t left = r->n_configs - r->n_pooled;
#define PUT(...)                                                                                                  \
    do {                                                                                                          \
        int w_ = snprintf(buf + used, used < n ? n - used : 0, __VA_ARGS__);                                      \
        used += w_ > 0 ? (size_t)w_ : 0;                                                                          \
        if (used >= n)                                                                                            \
            used = n ? n - 1 : 0;                                                                                 \
    } while (0)
    if (n)
        buf[0] = '\0';
    if (r->n_pooled == 0) {   /* none tested, so none decided */
        PUT("no summary: none of %zu config%s decided", r->n_configs, r->n_configs == 1 ? "" : "s");
    } else {
        PUT("%.3f\u00d7", r->pooled_ratio);
        if (!isnan(r->pooled_ci_lo))
            PUT(" [%.3f, %.3f] (95%% over configs)", r->pooled_ci_lo, r->pooled_ci_hi);
        else
            PUT(" (no interval: fewer than %d configs)", PM_STATS_MIN_INTERVAL_N);
        PUT(" from %zu of %zu config%s", r->n_pooled, r->n_configs, r->n_configs == 1 ? "" : "s");
        if (r->n_ratios == r->n_pooled)
            PUT(", all decided");
        else if (r->n_ratios)   /* deciding selects the larger effects: that mean only with its label */
            PUT(", %zu decided (decided only: %.3f\u00d7)", r->n_ratios, r->geomean_ratio);
        else
            PUT(", none decided");
        if (kept)
            PUT(" (%zu contended, kept by --allow-contended)", kept);
    }
    if (left) {   /* what the summary leaves out, on the same line */
        const char *sep = " (";
        if (held) {
            PUT("%s%zu contended withheld", sep, held);
            sep = ", ";
        }
        if (untested) {
            PUT("%s%zu without a test (n < 3, a zero time or below resolution)", sep, untested);
            sep = ", ";
        }
        size_t other = left - held - untested;
        if (other) {
            PUT("%s%zu without a usable ratio", sep, other);
            sep = ", ";
        }
        if (sep[0] == ',')
            PUT(" left out)");
    }
    PUT("; %zu faster, %zu slower, %zu same, %zu undecided by the rule", r->faster, r->slower, r->same, r->undecided);
#undef PUT
}
