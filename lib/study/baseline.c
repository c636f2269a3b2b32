/* pm_baseline: write a sweep's baseline file, and read one back into a store for the gate (see baseline.h). */
#include "baseline.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- writing ---- */

/* One series of a config: a value per run (NaN: not recorded in that run). */
typedef struct bseries {
    char *tool, *pass, *format;
    double tick, reads;
    double *v;
} bseries;

typedef struct bcfg {
    int64_t id;
    char *key, *variant;
} bcfg;

typedef struct bcfgs {
    bcfg *v;
    size_t n, cap;
    pm_err *err;
} bcfgs;

static int gather_cfg(void *user, int64_t id, const char *key, const char *variant)
{
    bcfgs *g = user;
    bcfg *c = pm_grow(g->v, &g->cap, g->n, sizeof *c, 16);
    if (!c)
        return nomem(g->err);
    g->v = c;
    c = &g->v[g->n++];
    *c = (bcfg){.id = id, .key = strdup(key ? key : ""), .variant = variant ? strdup(variant) : NULL};
    return !c->key || (variant && !c->variant) ? nomem(g->err) : 0;
}

/* A field written as it is: a tab or line break in it would split the line, so it is refused with its name. */
static int field_ok(const char *s, const char *what, const char *key, pm_err *err)
{
    if (s && strpbrk(s, "\t\r\n"))
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "config %s: its %s '%s' has a tab or line break, which a "
                          "baseline line cannot hold; rename it", key, what, s);
    return PM_OK;
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* Writes s with \, newline and tab escaped (or "-" when absent). */
static void put_escaped(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputc('-', f);
        return;
    }
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else
            fputc(*s, f);
    }
}

static void put_num(FILE *f, double v)
{
    if (isnan(v))
        fputc('-', f);
    else
        fprintf(f, "%.15g", v);
}

static void put_series(FILE *f, const char *key, const char *scope, const char *tool, const char *pass,
                       const char *metric, const char *unit, const char *format, double tick, double reads,
                       const double *v, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    size_t k = 0;
    for (size_t i = 0; x && i < n; i++)
        if (!isnan(v[i]))
            x[k++] = v[i];
    pm_stats_summary s = {.mean = NAN, .sd = NAN};
    if (x && k)
        pm_stats_summarize(x, k, &s);
    free(x);
    fprintf(f, "series\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", key, scope, or_dash(tool), or_dash(pass), metric, unit,
            or_dash(format));
    put_num(f, tick > 0 ? tick : NAN);
    fprintf(f, "\t%.0f\t%zu\t", reads > 0 ? reads : 1, k);
    put_num(f, s.mean);
    fputc('\t', f);
    put_num(f, s.sd);
    fputc('\t', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        put_num(f, v[i]);
    }
    if (!n)
        fputc('-', f);
    fputc('\n', f);
}

static void free_bseries(bseries *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].tool);
        free(s[i].pass);
        free(s[i].format);
        free(s[i].v);
    }
    free(s);
}

/* Whether compare's own-sweep comparison kept (tool, pass) in the config's pass family. */
static int in_family(const pm_compare_config *c, const char *tool, const char *pass)
{
    for (size_t i = 0; i < c->n_passes; i++)
        if (!pm_util_strcmp_null(c->passes[i].tool, tool) && !pm_util_strcmp_null(c->passes[i].pass, pass))
            return c->passes[i].st.tested != PM_VERDICT_OUTSIDE;
    return 0;
}

static size_t run_index(const int64_t *ids, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return n;
}

/* The step or pass series of one config (rows ordered by tool, pass, run), the passes filtered to the family. */
static int load_bseries(pm_store_side_cursor *q, pm_side_rows which, const pm_compare_config *c, int64_t id,
                        const int64_t *run_ids, size_t n_runs, bseries **out, size_t *n_out, pm_err *err)
{
    bseries *arr = NULL;
    size_t n = 0, cap = 0;
    pm_side_row row;
    int more, rc = pm_store_side_cursor_start(q, which, id, "cold", 0, err);
    while (rc == PM_OK && (rc = pm_store_side_cursor_next(q, &row, &more, err)) == PM_OK && more) {
        size_t ri = run_index(run_ids, n_runs, row.run_id);
        const char *tool = row.tool && *row.tool ? row.tool : NULL;
        if (ri == n_runs || (which == PM_SIDE_PASSES && !in_family(c, tool, row.pass)))
            continue;
        if (!n || pm_util_strcmp_null(arr[n - 1].tool, tool) || pm_util_strcmp_null(arr[n - 1].pass, row.pass)) {
            bseries *g = pm_grow(arr, &cap, n, sizeof *g, 8);
            if (!g) {
                rc = nomem(err);
                break;
            }
            arr = g;
            bseries *s = &arr[n++];
            *s = (bseries){.tool = tool ? strdup(tool) : NULL, .pass = row.pass ? strdup(row.pass) : NULL,
                           .v = calloc(n_runs ? n_runs : 1, sizeof *s->v)};
            if ((tool && !s->tool) || (row.pass && !s->pass) || !s->v) {
                rc = nomem(err);
                break;
            }
        }
        bseries *s = &arr[n - 1];
        s->v[ri] += row.value;
        if (row.format && !s->format && !(s->format = strdup(row.format))) {
            rc = nomem(err);
            break;
        }
        double tick = which == PM_SIDE_STEPS ? PM_RUN_CLOCK_TICK_S
                      : row.format ? pm_format_tick_s(pm_format_from_name(row.format)) : 0;
        s->tick = fmax(s->tick, tick);
        s->reads = fmax(s->reads, (double)row.reads);
    }
    *out = arr;
    *n_out = n;
    return rc;
}

/* "name [fingerprint], ..." (pm_store_config_hosts): the first machine's name and fingerprint. */
static void first_host(const char *hosts, char *name, size_t nn, char *fp, size_t nf)
{
    snprintf(name, nn, "-");
    snprintf(fp, nf, "-");
    if (!hosts)
        return;
    const char *br = strstr(hosts, " [");
    const char *end = br ? strchr(br, ']') : NULL;
    if (!br || !end)
        return;
    snprintf(name, nn, "%.*s", (int)(br - hosts), hosts);
    snprintf(fp, nf, "%.*s", (int)(end - br - 2), br + 2);
}

typedef struct writer {
    pm_store *st;
    pm_store_side_cursor *q;
    bcfgs cfgs;
    pm_config_fp *fps;
    size_t n_fps;
} writer;

static const bcfg *find_cfg(const writer *w, const char *key)
{
    for (size_t i = 0; i < w->cfgs.n; i++)
        if (!strcmp(w->cfgs.v[i].key, key))
            return &w->cfgs.v[i];
    return NULL;
}

static const pm_config_fp *find_fp(const writer *w, const char *key)
{
    for (size_t i = 0; i < w->n_fps; i++)
        if (w->fps[i].key && !strcmp(w->fps[i].key, key))
            return &w->fps[i];
    return NULL;
}

/* One config's lines. */
static int write_config(FILE *f, writer *w, const pm_compare_config *c, pm_baseline_info *info, pm_err *err)
{
    const bcfg *bc = find_cfg(w, c->key_a);
    if (!bc)
        return pm_err_set(err, PM_ERR_NOTFOUND, "config %s: not found again in its store", c->key_a);
    const pm_config_fp *fp = find_fp(w, c->key_a);
    int64_t *ids = NULL;
    double *m[4] = {NULL, NULL, NULL, NULL};   /* wall, user, sys, instructions per run */
    size_t n_runs = 0, cap = 0, n_steps = 0, n_passes = 0;
    bseries *steps = NULL, *passes = NULL;
    char *hosts = NULL, hname[256], hfp[64];
    pm_side_row row;
    int more, rc;
    if ((rc = field_ok(c->key_a, "key", c->key_a, err)) != PM_OK ||
        (rc = field_ok(bc->variant, "variant", c->key_a, err)) != PM_OK ||
        (rc = pm_store_config_hosts(w->st, bc->id, &hosts, err)) != PM_OK ||
        (rc = pm_store_side_cursor_start(w->q, PM_SIDE_RUNS, bc->id, "cold", 0, err)) != PM_OK)
        goto cleanup;
    while ((rc = pm_store_side_cursor_next(w->q, &row, &more, err)) == PM_OK && more) {
        size_t was = cap;
        int64_t *g = pm_grow(ids, &cap, n_runs, sizeof *g, 8);
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
        ids[n_runs] = row.run_id;
        m[0][n_runs] = row.has_wall ? row.wall : NAN;
        m[1][n_runs] = row.has_wall && row.user >= 0 ? row.user : NAN;
        m[2][n_runs] = row.has_wall && row.sys >= 0 ? row.sys : NAN;
        m[3][n_runs] = row.has_wall && row.ins >= 0 ? row.ins : NAN;
        n_runs++;
    }
    if (rc != PM_OK)
        goto cleanup;
    first_host(hosts, hname, sizeof hname, hfp, sizeof hfp);
    fprintf(f, "config\t%s\t%s\t%s\t", c->key_a, or_dash(bc->variant), or_dash(fp ? fp->hash : NULL));
    put_escaped(f, fp ? fp->text : NULL);
    fprintf(f, "\t%s\t%s\t%s\t%zu\n", hname, hfp, or_dash(c->contended_a), c->contended_a ? (size_t)0 : n_runs);
    info->n_configs++;
    if (c->contended_a) {   /* no samples: a baseline from contended runs would decide nothing (baseline.h) */
        pm_baseline_note *g = realloc(info->contended, (info->n_contended + 1) * sizeof *g);
        if (!g) {
            rc = nomem(err);
            goto cleanup;
        }
        info->contended = g;
        pm_baseline_note *nt = &info->contended[info->n_contended++];
        *nt = (pm_baseline_note){strdup(c->key_a), strdup(c->contended_a)};
        if (!nt->key || !nt->reason)
            rc = nomem(err);
        goto cleanup;
    }
    static const char *const run_metric[4] = {"wall", "user", "sys", "instructions"};
    static const char *const run_unit[4] = {"s", "s", "s", "count"};
    for (int k = 0; k < 4; k++) {
        size_t have = 0;
        for (size_t i = 0; i < n_runs; i++)
            have += !isnan(m[k][i]);
        if (have || k == 0) {
            put_series(f, c->key_a, "run", NULL, NULL, run_metric[k], run_unit[k], NULL,
                       k == 0 ? PM_RUN_CLOCK_TICK_S : 0, 1, m[k], n_runs);
            info->n_series++;
        }
    }
    if ((rc = load_bseries(w->q, PM_SIDE_STEPS, c, bc->id, ids, n_runs, &steps, &n_steps, err)) != PM_OK ||
        (rc = load_bseries(w->q, PM_SIDE_PASSES, c, bc->id, ids, n_runs, &passes, &n_passes, err)) != PM_OK)
        goto cleanup;
    for (size_t i = 0; i < n_steps; i++) {
        if ((rc = field_ok(steps[i].tool, "tool", c->key_a, err)) != PM_OK)
            goto cleanup;
        put_series(f, c->key_a, "step", steps[i].tool, NULL, "wall", "s", NULL, steps[i].tick, 1, steps[i].v,
                   n_runs);
    }
    for (size_t i = 0; i < n_passes; i++) {
        if ((rc = field_ok(passes[i].pass, "pass name", c->key_a, err)) != PM_OK)
            goto cleanup;
        put_series(f, c->key_a, "pass", passes[i].tool, passes[i].pass, "wall", "s", passes[i].format,
                   passes[i].tick, passes[i].reads, passes[i].v, n_runs);
    }
    info->n_series += n_steps + n_passes;
cleanup:
    free(ids);
    for (int k = 0; k < 4; k++)
        free(m[k]);
    free_bseries(steps, n_steps);
    free_bseries(passes, n_passes);
    free(hosts);
    if (rc != PM_OK)
        pm_err_wrap(err, "config %s", c->key_a);
    return rc;
}

int pm_baseline_write(const char *db, const char *sweep, const char *out, pm_baseline_info *info_out,
                      pm_err *err)
{
    pm_baseline_info info = {0};
    pm_compare_result r;
    writer w = {.cfgs = {.err = err}};
    pm_tool_ident *tools = NULL;
    size_t n_tools = 0;
    char *text = NULL, *meter = NULL;
    size_t len = 0;
    FILE *f = NULL;
    /* the sweep against itself: compare's own choice of each config's pass family, contention and decider */
    pm_compare_opts co = {.path_a = db, .path_b = db, .sweep_a = sweep, .sweep_b = sweep};
    int rc = pm_compare_run(&co, &r, err);
    if (rc != PM_OK)
        return rc;
    int64_t sweep_id = 0;
    double cw_max = NAN, cw_min = NAN;
    if ((rc = pm_store_open_readonly(db, &w.st, err)) != PM_OK ||
        (rc = pm_store_pick_sweep(pm_store_db(w.st), r.a.sweep, &sweep_id, err)) != PM_OK ||
        (rc = pm_store_configs_of_sweep(w.st, sweep_id, gather_cfg, &w.cfgs, err)) != PM_OK ||
        (rc = pm_store_config_fps(w.st, r.a.sweep, &w.fps, &w.n_fps, err)) != PM_OK ||
        (rc = pm_store_read_tools(pm_store_db(w.st), sweep_id, &tools, &n_tools, err)) != PM_OK ||
        (rc = pm_sq_tools_cpu_wall(pm_store_db(w.st), sweep_id, &cw_max, &cw_min, err)) != PM_OK ||
        (rc = pm_store_side_cursor_open(w.st, 0, &w.q, err)) != PM_OK)
        goto cleanup;
    rc = pm_store_meta_get(w.st, "meter", &meter, err);
    if (rc == PM_ERR_NOTFOUND) {
        memset(err, 0, sizeof *err);
        rc = PM_OK;
    }
    if (rc != PM_OK || (rc = field_ok(r.a.sweep, "sweep name", "-", err)) != PM_OK)
        goto cleanup;
    if (!(info.sweep = strdup(r.a.sweep)) || !(info.meter = strdup(meter ? meter : "runner")) ||
        !(info.decides = strdup(pm_decide_name(r.decided_on))) || !(f = open_memstream(&text, &len))) {
        rc = nomem(err);
        goto cleanup;
    }
    fprintf(f, "# passmap baseline: what `passmap gate` compares a sweep with (docs/regressions.md).\n"
               "# Written by `passmap baseline`; samples in run order; review a change to it as a diff.\n");
    fprintf(f, "passmap-baseline\t%d\nsweep\t%s\nmeter\t%s\n", PM_BASELINE_VERSION, info.sweep, info.meter);
    /* the metric by its short name (the first word of pm_decide_name: wall, cpu, instructions) */
    fprintf(f, "decides\t%.*s\nstartup-cpu-wall\t", (int)strcspn(info.decides, " "), info.decides);
    put_num(f, cw_max);
    fputc('\t', f);
    put_num(f, cw_min);
    fputc('\n', f);
    for (size_t i = 0; i < n_tools; i++) {
        char line[256];
        pm_version_line(tools[i].version_text ? tools[i].version_text : "", line, sizeof line);
        for (char *p = line; *p; p++)
            if (*p == '\t')
                *p = ' ';
        if ((rc = field_ok(tools[i].name, "tool", "-", err)) != PM_OK ||
            (rc = field_ok(tools[i].invoked, "tool invocation", "-", err)) != PM_OK)
            goto cleanup;
        fprintf(f, "tool\t%s\t%s\t%s\t%s\n", or_dash(tools[i].name), or_dash(tools[i].invoked),
                or_dash(tools[i].hash), or_dash(line));
    }
    for (size_t i = 0; i < r.n_configs; i++)
        if ((rc = write_config(f, &w, &r.configs[i], &info, err)) != PM_OK)
            goto cleanup;
    if (fclose(f) != 0) {
        f = NULL;
        rc = nomem(err);
        goto cleanup;
    }
    f = NULL;
    rc = pm_util_write_file_atomic(out, text, len, 0644, NULL, err);
cleanup:
    if (f)
        fclose(f);
    free(text);
    free(meter);
    pm_tool_idents_free(tools, n_tools);
    pm_config_fps_free(w.fps, w.n_fps);
    for (size_t i = 0; i < w.cfgs.n; i++) {
        free(w.cfgs.v[i].key);
        free(w.cfgs.v[i].variant);
    }
    free(w.cfgs.v);
    pm_store_side_cursor_close(w.q);
    pm_store_close(w.st);
    pm_compare_free(&r);
    if (rc == PM_OK && info_out)
        *info_out = info;
    else
        pm_baseline_info_free(&info);
    return rc;
}

/* ---- reading ---- */

int pm_baseline_sniff(const char *path, int *is_file, pm_err *err)
{
    *is_file = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pm_err_set(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "%s: %s", path, strerror(errno));
    char head[64] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    *is_file = !strncmp(head, "# passmap baseline", 18) || !strncmp(head, "passmap-baseline\t", 17);
    return PM_OK;
}

const char *pm_baseline_contended(const pm_baseline_info *info, const char *key)
{
    for (size_t i = 0; info && key && i < info->n_contended; i++)
        if (!strcmp(info->contended[i].key, key))
            return info->contended[i].reason;
    return NULL;
}

void pm_baseline_info_free(pm_baseline_info *info)
{
    if (!info)
        return;
    free(info->sweep);
    free(info->meter);
    free(info->decides);
    for (size_t i = 0; i < info->n_contended; i++) {
        free(info->contended[i].key);
        free(info->contended[i].reason);
    }
    free(info->contended);
    memset(info, 0, sizeof *info);
}

void pm_baseline_remove_store(const char *dir, const char *store_path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[4300];
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(p, sizeof p, "%s%s", store_path, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
}

enum { MAX_FIELDS = 16 };

/* Splits line (modified) at tabs; a field "-" becomes NULL. Returns the count (fields past MAX_FIELDS are
 * counted, not kept). */
static size_t split_line(char *line, char **field)
{
    size_t n = 0;
    for (char *p = line;; n++) {
        char *t = strchr(p, '\t');
        if (t)
            *t = '\0';
        if (n < MAX_FIELDS)
            field[n] = strcmp(p, "-") ? p : NULL;
        if (!t)
            return n + 1;
        p = t + 1;
    }
}

static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* A number field ("-": NaN); 0 when it does not parse. */
static int num_field(const char *s, double *v)
{
    if (!s) {
        *v = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && !errno;
}

/* The comma-separated samples into v (n of them expected). */
static int samples_field(char *s, double *v, size_t n)
{
    size_t k = 0;
    if (!s)
        return n == 0;
    for (char *p = s; k < n; k++) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (!strcmp(p, "-"))
            v[k] = NAN;
        else if (!num_field(p, &v[k]) || !(v[k] >= 0))
            return 0;
        if (!c)
            return k + 1 == n;
        p = c + 1;
    }
    return 0;
}

/* A config read back: its runs' series, then written as runs. */
typedef struct rseries {
    char *tool, *pass, *format;
    double reads;
    double *v;
} rseries;

typedef struct rcfg {
    int64_t id, host_id;
    char *key;
    size_t n_runs;
    double *run[4];               /* wall, user, sys, instructions */
    rseries *steps, *passes;
    size_t n_steps, n_passes, cap_steps, cap_passes;
} rcfg;

static void rcfg_clear(rcfg *c)
{
    for (int k = 0; k < 4; k++)
        free(c->run[k]);
    for (size_t i = 0; i < c->n_steps; i++)
        free(c->steps[i].tool), free(c->steps[i].pass), free(c->steps[i].format), free(c->steps[i].v);
    for (size_t i = 0; i < c->n_passes; i++)
        free(c->passes[i].tool), free(c->passes[i].pass), free(c->passes[i].format), free(c->passes[i].v);
    free(c->steps);
    free(c->passes);
    free(c->key);
    memset(c, 0, sizeof *c);
}

/* Records the config's runs: each a run row (wall, user, sys), one step per step tool (the first carries the run's
 * instructions) with its passes as a report of their format, and a measured CPU pressure of 0: the config was
 * judged uncontended when the baseline was written (a contended one has no runs here). */
static int flush_cfg(pm_store *st, rcfg *c, pm_err *err)
{
    int rc = PM_OK;
    if (c->n_runs && !c->run[0])
        rc = pm_err_set(err, PM_ERR_PARSE, "config %s: %zu runs but no run wall series", c->key, c->n_runs);
    for (size_t r = 0; rc == PM_OK && r < c->n_runs; r++) {
        pm_step_record *steps = calloc(c->n_steps ? c->n_steps : 1, sizeof *steps);
        pm_run_result *res = calloc(c->n_steps ? c->n_steps : 1, sizeof *res);
        pm_report *reps = calloc(c->n_steps ? c->n_steps : 1, sizeof *reps);
        if (!steps || !res || !reps) {
            free(steps), free(res), free(reps);
            return nomem(err);
        }
        double ins = c->run[3] ? c->run[3][r] : NAN;
        for (size_t s = 0; s < c->n_steps; s++) {
            pm_report_init(&reps[s]);
            res[s] = (pm_run_result){.status = PM_RUN_OK, .wall_s = c->steps[s].v[r], .user_s = -1, .sys_s = -1,
                                     .instructions = isnan(ins) ? -1 : s == 0 ? (int64_t)ins : 0,
                                     .psi_cpu_some_us = -1, .psi_cgroup_some_us = -1, .steal_s = -1};
            steps[s] = (pm_step_record){.tool = c->steps[s].tool, .argv = "baseline", .result = &res[s]};
            int any = 0;
            for (size_t p = 0; rc == PM_OK && p < c->n_passes; p++) {
                rseries *ps = &c->passes[p];
                if (pm_util_strcmp_null(ps->tool, c->steps[s].tool) || !(ps->v[r] > 0))
                    continue;
                if (ps->format)
                    reps[s].format = pm_format_from_name(ps->format);
                /* a pass read k times a run: k rows, as the report had them (compare sums them) */
                size_t k = ps->reads >= 1 ? (size_t)ps->reads : 1;
                for (size_t j = 0; rc == PM_OK && j < k; j++) {
                    pm_pass pp = {.name = ps->pass, .wall_s = ps->v[r] / (double)k, .user_s = -1, .parent = -1};
                    if (pm_report_add_pass(&reps[s], &pp) != PM_OK)
                        rc = nomem(err);
                }
                any = 1;
            }
            if (reps[s].format == PM_FMT__COUNT)
                reps[s].format = PM_FMT_AUTO;
            if (any)
                steps[s].report = &reps[s];
        }
        char psi_name[64];
        snprintf(psi_name, sizeof psi_name, "%s", pm_run_pressure_name(0));
        pm_metric psi = {.name = psi_name, .value = 0};
        double wall = c->run[0][r];
        pm_run_record rec = {.config_id = c->id, .repeat = (int)r, .mode = "cold", .status = "ok",
                             .wall_s = isnan(wall) ? -1 : wall,
                             .user_s = c->run[1] && !isnan(c->run[1][r]) ? c->run[1][r] : -1,
                             .sys_s = c->run[2] && !isnan(c->run[2][r]) ? c->run[2][r] : -1,
                             .steps = steps, .n_steps = (int)c->n_steps, .metrics = &psi, .n_metrics = 1,
                             .host_id = c->host_id};
        int64_t run_id;
        if (rc == PM_OK)
            rc = pm_store_record_run(st, &rec, &run_id, err);
        for (size_t s = 0; s < c->n_steps; s++)
            pm_report_free(&reps[s]);
        free(steps), free(res), free(reps);
    }
    rcfg_clear(c);
    return rc;
}

static int add_rseries(rseries **arr, size_t *n, size_t *cap, const char *tool, const char *pass,
                       const char *format, double reads, size_t n_runs, rseries **out)
{
    rseries *g = pm_grow(*arr, cap, *n, sizeof *g, 8);
    if (!g)
        return -1;
    *arr = g;
    rseries *s = &g[(*n)++];
    *s = (rseries){.tool = tool ? strdup(tool) : NULL, .pass = pass ? strdup(pass) : NULL,
                   .format = format ? strdup(format) : NULL, .reads = reads,
                   .v = calloc(n_runs ? n_runs : 1, sizeof *s->v)};
    *out = s;
    return (tool && !s->tool) || (pass && !s->pass) || (format && !s->format) || !s->v ? -1 : 0;
}

typedef struct reader {
    const char *file;
    size_t line_no;
    pm_store *st;
    int64_t sweep_id;
    pm_tool_ident *tools;
    size_t n_tools, cap_tools;
    int have_sweep, have_version;
    rcfg cur;
    pm_baseline_info *info;
    pm_err *err;
} reader;

static int bad_line(reader *rd, const char *what)
{
    return pm_err_set(rd->err, PM_ERR_PARSE, "%s:%zu: %s; write the file again with `passmap baseline`", rd->file,
                      rd->line_no, what);
}

static int read_config(reader *rd, char **fd, size_t n)
{
    double runs;
    if (n != 9 || !fd[1] || !num_field(fd[8], &runs) || !(runs >= 0) || runs != floor(runs))
        return bad_line(rd, "a config line has 9 fields: config KEY VARIANT FINGERPRINT TEXT HOST HOST-FP "
                            "CONTENDED RUNS");
    int rc = flush_cfg(rd->st, &rd->cur, rd->err);
    if (rc != PM_OK)
        return rc;
    if (!rd->have_sweep)
        return bad_line(rd, "a config before the sweep line");
    pm_config cfg = {.key = fd[1], .kind = "command", .variant = fd[2]};
    rd->cur.n_runs = (size_t)runs;
    if (!(rd->cur.key = strdup(fd[1])))
        return nomem(rd->err);
    if ((rc = pm_store_config(rd->st, rd->sweep_id, &cfg, &rd->cur.id, rd->err)) != PM_OK)
        return rc;
    if (fd[3]) {
        if (fd[4])
            unescape(fd[4]);
        if ((rc = pm_store_config_set_fingerprint(rd->st, rd->cur.id, fd[3], fd[4], rd->err)) != PM_OK)
            return rc;
    }
    if (fd[5] && fd[6]) {   /* the machine, so a gate across machines says so as compare does */
        pm_host h = {0};
        snprintf(h.name, sizeof h.name, "%s", fd[5]);
        snprintf(h.fingerprint, sizeof h.fingerprint, "%s", fd[6]);
        if ((rc = pm_store_host(rd->st, &h, &rd->cur.host_id, rd->err)) != PM_OK)
            return rc;
    }
    rd->info->n_configs++;
    if (fd[7]) {
        pm_baseline_note *g = realloc(rd->info->contended, (rd->info->n_contended + 1) * sizeof *g);
        if (!g)
            return nomem(rd->err);
        rd->info->contended = g;
        g[rd->info->n_contended] = (pm_baseline_note){strdup(fd[1]), strdup(fd[7])};
        if (!g[rd->info->n_contended].key || !g[rd->info->n_contended++].reason)
            return nomem(rd->err);
    }
    return PM_OK;
}

static int read_series(reader *rd, char **fd, size_t n)
{
    static const char *const run_metric[4] = {"wall", "user", "sys", "instructions"};
    double reads, count;
    if (n != 14 || !fd[1] || !fd[2] || !fd[5] || !num_field(fd[9], &reads) || !num_field(fd[10], &count))
        return bad_line(rd, "a series line has 14 fields: series KEY SCOPE TOOL PASS METRIC UNIT FORMAT TICK "
                            "READS N MEAN SD SAMPLES");
    rcfg *c = &rd->cur;
    if (!c->key || strcmp(c->key, fd[1]))
        return bad_line(rd, "a series of another config than the config line above it");
    double *v = NULL;
    if (!strcmp(fd[2], "run")) {
        int k = 0;
        while (k < 4 && strcmp(fd[5], run_metric[k]))
            k++;
        if (k == 4)
            return PM_OK;   /* a metric this passmap does not compare (a newer meter's): kept in the file only */
        if (!c->run[k] && !(c->run[k] = calloc(c->n_runs ? c->n_runs : 1, sizeof *c->run[k])))
            return nomem(rd->err);
        v = c->run[k];
    } else if (!strcmp(fd[2], "step") || !strcmp(fd[2], "pass")) {
        int step = fd[2][0] == 's';
        if (strcmp(fd[5], "wall"))
            return PM_OK;   /* compare reads steps and passes on wall */
        if (!step && !fd[4])
            return bad_line(rd, "a pass series without a pass name");
        rseries *s;
        if (step ? add_rseries(&c->steps, &c->n_steps, &c->cap_steps, fd[3], NULL, NULL, 1, c->n_runs, &s)
                 : add_rseries(&c->passes, &c->n_passes, &c->cap_passes, fd[3], fd[4], fd[7], reads, c->n_runs, &s))
            return nomem(rd->err);
        v = s->v;
    } else {
        return bad_line(rd, "a series' scope is run, step or pass");
    }
    if (!samples_field(fd[13], v, c->n_runs))
        return bad_line(rd, "the samples are not one number >= 0 (or -) per run of the config");
    return PM_OK;
}

static int read_tool(reader *rd, char **fd, size_t n)
{
    if (n != 5 || !fd[1])
        return bad_line(rd, "a tool line has 5 fields: tool NAME INVOKED HASH VERSION");
    pm_tool_ident *g = pm_grow(rd->tools, &rd->cap_tools, rd->n_tools, sizeof *g, 8);
    if (!g)
        return nomem(rd->err);
    rd->tools = g;
    pm_tool_ident *t = &g[rd->n_tools++];
    *t = (pm_tool_ident){.name = strdup(fd[1]), .invoked = fd[2] ? strdup(fd[2]) : NULL,
                         .hash = strdup(fd[3] ? fd[3] : ""), .version_text = strdup(fd[4] ? fd[4] : ""),
                         .path = strdup(fd[2] ? fd[2] : fd[1])};
    return !t->name || (fd[2] && !t->invoked) || !t->hash || !t->version_text || !t->path ? nomem(rd->err) : PM_OK;
}

static int read_line(reader *rd, char *line)
{
    char *fd[MAX_FIELDS];
    size_t n = split_line(line, fd);
    if (n > MAX_FIELDS)
        return bad_line(rd, "too many fields");
    const char *what = fd[0] ? fd[0] : "";
    if (!rd->have_version) {
        double v;
        if (strcmp(what, "passmap-baseline") || n != 2 || !num_field(fd[1], &v))
            return bad_line(rd, "not a passmap baseline (its first line is passmap-baseline VERSION)");
        if (v != PM_BASELINE_VERSION)
            return pm_err_set(rd->err, PM_ERR_UNSUPPORTED, "%s: baseline format %s, this passmap reads %d: write "
                              "it again with this passmap's `passmap baseline`", rd->file, fd[1], PM_BASELINE_VERSION);
        rd->have_version = 1;
        return PM_OK;
    }
    if (!strcmp(what, "series"))
        return read_series(rd, fd, n);
    if (!strcmp(what, "config"))
        return read_config(rd, fd, n);
    if (!strcmp(what, "tool"))
        return read_tool(rd, fd, n);
    if (!strcmp(what, "sweep")) {
        if (n != 2 || !fd[1] || rd->have_sweep)
            return bad_line(rd, "one sweep line: sweep NAME");
        rd->have_sweep = 1;
        if (!(rd->info->sweep = strdup(fd[1])))
            return nomem(rd->err);
        return pm_store_sweep(rd->st, fd[1], "baseline", NULL, NULL, &rd->sweep_id, rd->err);
    }
    if (!strcmp(what, "meter") || !strcmp(what, "decides")) {
        char **dst = what[0] == 'm' ? &rd->info->meter : &rd->info->decides;
        if (n != 2 || !fd[1] || *dst)
            return bad_line(rd, "one meter line and one decides line, each with one name");
        return (*dst = strdup(fd[1])) ? PM_OK : nomem(rd->err);
    }
    if (!strcmp(what, "startup-cpu-wall")) {
        double mx, mn;
        if (n != 3 || !num_field(fd[1], &mx) || !num_field(fd[2], &mn))
            return bad_line(rd, "startup-cpu-wall MAX MIN");
        if (!rd->have_sweep)
            return bad_line(rd, "startup-cpu-wall before the sweep line");
        if (isnan(mx) || isnan(mn))
            return PM_OK;
        /* two null-input rows whose medians are the sweep's max and min CPU/wall: what decide reads */
        pm_startup_row rows[2] = {{.tool = "baseline-max", .status = "ok", .wall_s = 1, .user_s = mx, .sys_s = 0},
                                  {.tool = "baseline-min", .status = "ok", .wall_s = 1, .user_s = mn, .sys_s = 0}};
        return pm_store_record_startup(rd->st, rd->sweep_id, 0, rows, 2, rd->err);
    }
    return bad_line(rd, "unknown line");
}

int pm_baseline_to_store(const char *file, const char *store_path, pm_baseline_info *info, pm_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    memset(info, 0, sizeof *info);
    reader rd = {.file = file, .info = info, .err = err};
    int rc = pm_util_read_file(file, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    if ((rc = pm_store_open(store_path, &rd.st, err)) != PM_OK)
        goto cleanup;
    for (char *p = buf, *end = buf + len; rc == PM_OK && p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl)
            *nl = '\0';   /* the last line ends at the buffer's own NUL */
        rd.line_no++;
        if (*p && *p != '#')
            rc = read_line(&rd, p);
        p = nl ? nl + 1 : end;
    }
    if (rc == PM_OK)
        rc = flush_cfg(rd.st, &rd.cur, err);
    if (rc == PM_OK && !rd.have_sweep)
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: no sweep line: not a whole baseline", file);
    if (rc == PM_OK && rd.n_tools)
        rc = pm_store_record_tools(rd.st, rd.sweep_id, 0, rd.tools, rd.n_tools, err);
cleanup:
    rcfg_clear(&rd.cur);
    pm_tool_idents_free(rd.tools, rd.n_tools);
    pm_store_close(rd.st);
    free(buf);
    if (rc != PM_OK)
        pm_baseline_info_free(info);
    return rc;
}
