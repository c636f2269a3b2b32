/* pm_compare's loading: a side's sweep, variant and configs, and a matched config's runs (compare_internal.h). */
#include "compare_internal.h"

#include <math.h>

#include "meter.h"
#include "parse.h"
#include "run.h"
#include "store_query.h"

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
    for (size_t i = 0; i < n; i++)
        pm_free_all(s[i].tool, s[i].pass, s[i].orig, s[i].v);
    free(s);
}

static void free_side_cfg(side_cfg *c)
{
    pm_cfg_clear(&c->cfg);
    pm_free_all(c->base, c->value, c->run_ids, c->scale, c->wall, c->user, c->sys, c->ins);
    free_series(c->steps, c->n_steps);
    free_series(c->passes, c->n_passes);
}

void compare_free_side(side *s)
{
    for (size_t i = 0; i < s->n_cfgs; i++)
        free_side_cfg(&s->cfgs[i]);
    free(s->cfgs);
    pm_contention_sweep_free(&s->cont);
    pm_store_side_cursor_close(s->q);
    pm_store_close(s->st);
    memset(s, 0, sizeof *s);
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
        arr[n - 1].v[ri] += row.value * c->scale[ri]; /* an instrumented run's share of its twin's wall */
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

int compare_load_cfg(pm_store_side_cursor *q, side_cfg *c, int walls_only, const char *mode, int max_repeats,
                     const pm_passalias *aliases, pm_err *err)
{
    size_t cap = 0, cap_w = 0;
    pm_side_row row;
    int rc, more;
    /* max_repeats cuts the runs; steps and passes follow run_ids */
    if ((rc = pm_store_side_cursor_start(q, PM_SIDE_RUNS, c->id, mode, max_repeats, err)) != PM_OK)
        goto cleanup;
    while ((rc = pm_store_side_cursor_next(q, &row, &more, err)) == PM_OK && more) {
        size_t cap_r = cap;
        if (grow(&c->run_ids, &cap, c->n_runs, sizeof *c->run_ids) != 0 || (cap != cap_r && resize(&c->scale, cap))) {
            rc = nomem(err);
            goto cleanup;
        }
        c->scale[c->n_runs] = row.scale;
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

int compare_load_side(const char *path, const char *sweep, const char *variant, const char *label, side *sd,
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
    /* the timing flags' cost of this side's configs only (an A/B inside one sweep: each side its own builds) */
    pm_sq_sweeps one = {.ids = &sweep_id, .n = 1};
    int64_t *ids = malloc((n_all ? n_all : 1) * sizeof *ids);
    if (!ids) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < n_all; i++)
        ids[i] = all[i].id;
    rc = pm_flagcost_read_cfgs(pm_store_db(sd->st), &one, ids, n_all, &info->flagcost, err);
    free(ids);
    if (rc != PM_OK)
        goto cleanup;
    if (info->flagcost.n && !(info->timing_flags = pm_flagcost_words(&info->flagcost))) {
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