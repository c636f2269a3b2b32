#include "shard.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <jansson.h>

#include "backend.h"
#include "store.h"
#include "util.h"

int pm_shard_parse(const char *text, pm_shard *out, pm_err *err)
{
    char *end;
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return pm_err_set(err, PM_ERR_USAGE, "--shard needs K/N (e.g. 2/5)");
    errno = 0;
    long k = strtol(text, &end, 10);
    if (end == text || *end != '/' || errno)
        return pm_err_set(err, PM_ERR_USAGE, "--shard '%s': expected K/N, e.g. 2/5", text);
    const char *ns = end + 1;
    long n = strtol(ns, &end, 10);
    if (end == ns || *end || errno)
        return pm_err_set(err, PM_ERR_USAGE, "--shard '%s': expected K/N, e.g. 2/5", text);
    if (n < 1 || n > 100000)
        return pm_err_set(err, PM_ERR_USAGE, "--shard '%s': N must be between 1 and 100000", text);
    if (k < 1 || k > n)
        return pm_err_set(err, PM_ERR_USAGE, "--shard '%s': K must be between 1 and N=%ld (shards are numbered "
                          "from 1)", text, n);
    out->k = (int)k;
    out->n = (int)n;
    return PM_OK;
}

typedef struct item {
    const char *key;
    double cost;
    int index;
} item;

static int by_cost_desc(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return strcmp(x->key, y->key);
}

int pm_shard_assign(const char *const *keys, const double *cost, int n_items, int n_shards, int *shard_of,
                    pm_err *err)
{
    if (n_shards < 1)
        return pm_err_set(err, PM_ERR_USAGE, "shards: need at least one shard");
    item *items = malloc((size_t)(n_items > 0 ? n_items : 1) * sizeof *items);
    double *load = calloc((size_t)n_shards, sizeof *load);
    if (!items || !load) {
        free(items);
        free(load);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n_items; i++)
        items[i] = (item){.key = keys[i], .cost = cost[i] > 0 && isfinite(cost[i]) ? cost[i] : 0, .index = i};
    qsort(items, (size_t)n_items, sizeof *items, by_cost_desc);
    for (int i = 0; i < n_items; i++) {
        int best = 0;
        for (int s = 1; s < n_shards; s++)
            if (load[s] < load[best])
                best = s;
        /* A zero-cost item still takes a turn, so unknown costs spread round-robin rather than pile up. */
        load[best] += items[i].cost > 0 ? items[i].cost : 1e-9;
        shard_of[items[i].index] = best + 1;
    }
    free(items);
    free(load);
    return PM_OK;
}

/* The back end's own estimate (its row's shard_cost; 0: unknown, spread round-robin). */
static double estimate(const pm_spec *spec, int config)
{
    const pm_backend_ops *be = pm_backend_find(spec->backend);
    return be && be->shard_cost ? be->shard_cost(spec, config) : 0;
}

static int costs_model(const pm_spec *spec, const char *costs_db, pm_cost_model kind, double *cost, int *seconds,
                       char *model, size_t cap, pm_err *err);

/* What the costs store knows per config: mean cold wall and the stage-size probe's IR sizes (-1: unknown). */
static int from_store(const char *costs_db, const pm_spec *spec, double *wall, double *probe, pm_err *err)
{
    pm_store *st = NULL;
    int rc = pm_store_open_readonly(costs_db, &st, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "--costs");
    for (int i = 0; i < spec->n_configs && !rc; i++)
        rc = pm_store_config_costs(st, spec->name, spec->configs[i].key, &wall[i], &probe[i], err);
    pm_store_close(st);
    return rc;
}

/* The stage-size probe now (--cost-model probe), for the configs the costs store has no sizes of: each config is
 * prepared as a sweep prepares it (its input generated, its IR counted at each stage's entry by one extra
 * compile) in a scratch folder removed after. Back ends without a probe leave the sizes unknown. */
static int probe_now(const pm_spec *spec, double *probe, pm_err *err)
{
    const pm_backend_ops *be = pm_backend_find(spec->backend);
    char dir[PATH_MAX], self[PATH_MAX], cache[PATH_MAX + 16], sub[PATH_MAX + 32];
    const char *tmp = getenv("TMPDIR");
    int rc = PM_OK;
    if (!be || !be->prepare_config)
        return PM_OK;
    if (!realpath("/proc/self/exe", self))
        return pm_err_errno(err, PM_ERR_IO, "cannot find passmap's own executable");
    if (snprintf(dir, sizeof dir, "%s/passmap-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir ||
        !mkdtemp(dir))
        return pm_err_errno(err, PM_ERR_IO, "cannot make a scratch folder for the stage-size probe in %s",
                            tmp && *tmp ? tmp : "/tmp");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    pm_backend_ctx ctx = {.spec = spec, .self_exe = self, .cache_dir = cache, .versions = json_object()};
    if (!ctx.versions)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (!rc && be->prepare)
        rc = be->prepare(&ctx, err);
    for (int i = 0; i < spec->n_configs && !rc; i++) {
        if (probe[i] >= 0)
            continue;
        pm_backend_config out = {0};
        snprintf(sub, sizeof sub, "%s/c%d", dir, i);
        if ((rc = pm_util_mkdir_p(sub, err)) || (rc = be->prepare_config(&ctx, i, sub, &out, err)))
            break;
        double sum = 0;
        int n = 0;
        for (int m = 0; m < out.n_metrics; m++)
            if (!strncmp(out.metrics[m].name, "ir.stage.", 9)) {
                sum += out.metrics[m].value;
                n++;
            }
        probe[i] = n ? sum : -1;
        json_decref(out.params);
        pm_util_remove_tree(sub);
    }
    if (be->cleanup)
        be->cleanup(&ctx);
    json_decref(ctx.versions);
    pm_util_remove_tree(dir);
    return rc;
}

int pm_shard_costs(const pm_spec *spec, const char *costs_db, double *cost, pm_err *err)
{
    int seconds;
    char model[80];
    return costs_model(spec, costs_db, PM_COST_AUTO, cost, &seconds, model, sizeof model, err);
}

/* A basis per config (the probe's IR sizes when every config has them, else the IR-size estimate), turned into
 * seconds by the measured walls where a costs store has them: a measured config costs its wall, the others their
 * basis times the seconds per unit of the configs that have both. */
static int costs_model(const pm_spec *spec, const char *costs_db, pm_cost_model kind, double *cost, int *seconds,
                       char *model, size_t cap, pm_err *err)
{
    int n = spec->n_configs, rc = PM_OK;
    double *wall = malloc((size_t)(n > 0 ? n : 1) * sizeof *wall);
    double *probe = malloc((size_t)(n > 0 ? n : 1) * sizeof *probe);
    if (!wall || !probe) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++)
        wall[i] = probe[i] = -1;
    if (costs_db && (rc = from_store(costs_db, spec, wall, probe, err)) != PM_OK)
        goto cleanup;
    if (kind == PM_COST_PROBE && (rc = probe_now(spec, probe, err)))
        goto cleanup;
    int all_probed = n > 0 && kind != PM_COST_IR;
    for (int i = 0; i < n && all_probed; i++)
        all_probed = probe[i] > 0;
    if (kind == PM_COST_PROBE && !all_probed) {
        rc = pm_err_set(err, PM_ERR_USAGE, "--cost-model probe: back end %s measures no stage sizes for every "
                        "config (a failed probe, or none): use --cost-model ir or a --costs store", spec->backend);
        goto cleanup;
    }
    for (int i = 0; i < n; i++)
        cost[i] = all_probed ? probe[i] : estimate(spec, i);
    if (kind != PM_COST_AUTO)   /* ir, probe: that basis alone, never the walls */
        for (int i = 0; i < n; i++)
            wall[i] = -1;
    double sum_wall = 0, sum_basis = 0;
    int n_known = 0;
    for (int i = 0; i < n; i++)
        if (wall[i] >= 0) {
            n_known++;
            if (cost[i] > 0) {
                sum_wall += wall[i];
                sum_basis += cost[i];
            }
        }
    const char *basis = all_probed ? "stage-size probe" : "IR size";
    *seconds = n_known > 0;
    if (n_known == 0)
        snprintf(model, cap, "%s, relative", basis);
    else if (n_known == n)
        snprintf(model, cap, "measured walls, seconds");
    else
        snprintf(model, cap, "measured walls and %s scaled to them, seconds", basis);
    double scale = sum_basis > 0 ? sum_wall / sum_basis : 0;
    for (int i = 0; i < n && n_known; i++)
        cost[i] = wall[i] >= 0 ? wall[i] : cost[i] * scale;
cleanup:
    free(wall);
    free(probe);
    return rc;
}

int pm_shard_of(const pm_spec *spec, int n_shards, const char *costs_db, int *shard_of, pm_err *err)
{
    int n = spec->n_configs, rc;
    if (n_shards == 0) {
        for (int i = 0; i < n; i++)
            shard_of[i] = 1;
        return PM_OK;
    }
    double *cost = malloc((size_t)(n > 0 ? n : 1) * sizeof *cost);
    const char **keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
    if (!cost || !keys) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++)
        keys[i] = spec->configs[i].key;
    rc = pm_shard_costs(spec, costs_db, cost, err);
    if (!rc)
        rc = pm_shard_assign(keys, cost, n, n_shards, shard_of, err);
cleanup:
    free(cost);
    free(keys);
    return rc;
}

int pm_shard_select(const pm_spec *spec, const pm_shard *s, const char *costs_db, int *in_shard, pm_err *err)
{
    int n = spec->n_configs;
    int *shard_of = malloc((size_t)(n > 0 ? n : 1) * sizeof *shard_of);
    if (!shard_of)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = pm_shard_of(spec, s->n, costs_db, shard_of, err);
    for (int i = 0; !rc && i < n; i++)
        in_shard[i] = s->n == 0 || shard_of[i] == s->k;
    free(shard_of);
    return rc;
}

/* ---- The plan fixed at submit ---- */

void pm_shard_plan_free(pm_shard_plan *p)
{
    pm_free_all(p->shard_of, p->cost, p->text);
    memset(p, 0, sizeof *p);
}

static void spec_hash(const pm_spec *spec, char out[40])
{
    XXH128_canonical_t c;
    const char *t = spec->text ? spec->text : "";
    XXH128_canonicalFromHash(&c, XXH3_128bits(t, strlen(t)));
    for (size_t i = 0; i < sizeof c.digest; i++)
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

/* The plan's text from its fields; its hash over that text. */
static int plan_render(const pm_spec *spec, pm_shard_plan *p, pm_err *err)
{
    char sh[40];
    spec_hash(spec, sh);
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "# passmap shard plan, fixed at submit: every shard task reads it (passmap sweep --plan FILE)\n"
                    "# config SHARD EXPECTED-COST KEY; costs are %s (%s)\n",
                p->model_seconds ? "seconds" : "relative", p->model);
    pm_sbuf_add(&b, "format 1\nsweep %s\nspec-xxh128 %s\nshards %d\ncost-model %s\n", spec->name, sh, p->n,
                p->model);
    for (int i = 0; i < spec->n_configs; i++)
        pm_sbuf_add(&b, "config %d %.6g %s\n", p->shard_of[i], p->cost[i], spec->configs[i].key);
    if (b.oom) {
        free(b.s);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    free(p->text);
    p->text = b.s;
    snprintf(p->hash, sizeof p->hash, "plan:%016llx", (unsigned long long)XXH3_64bits(b.s, b.len));
    return PM_OK;
}

static int plan_alloc(pm_shard_plan *p, int n_configs, pm_err *err)
{
    p->n_configs = n_configs;
    p->shard_of = calloc((size_t)(n_configs > 0 ? n_configs : 1), sizeof *p->shard_of);
    p->cost = calloc((size_t)(n_configs > 0 ? n_configs : 1), sizeof *p->cost);
    if (!p->shard_of || !p->cost) {
        pm_shard_plan_free(p);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    return PM_OK;
}

int pm_shard_plan_make(const pm_spec *spec, int n, const char *costs_db, pm_cost_model kind, pm_shard_plan *p,
                       pm_err *err)
{
    memset(p, 0, sizeof *p);
    int rc = plan_alloc(p, spec->n_configs, err);
    if (rc)
        return rc;
    p->n = n;
    if (n == 0) {   /* not sharded: nothing to balance, nothing to estimate */
        for (int i = 0; i < spec->n_configs; i++)
            p->shard_of[i] = 1;
        snprintf(p->model, sizeof p->model, "none");
        return PM_OK;
    }
    const char **keys = malloc((size_t)(spec->n_configs > 0 ? spec->n_configs : 1) * sizeof *keys);
    if (!keys) {
        pm_shard_plan_free(p);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < spec->n_configs; i++)
        keys[i] = spec->configs[i].key;
    int seconds = 0;
    rc = costs_model(spec, costs_db, kind, p->cost, &seconds, p->model, sizeof p->model, err);
    p->model_seconds = seconds;
    if (!rc)
        rc = pm_shard_assign(keys, p->cost, spec->n_configs, n, p->shard_of, err);
    free(keys);
    if (!rc)
        rc = plan_render(spec, p, err);
    if (rc)
        pm_shard_plan_free(p);
    return rc;
}

int pm_shard_plan_write(const pm_shard_plan *p, const char *path, pm_err *err)
{
    if (!p->text)
        return pm_err_set(err, PM_ERR_USAGE, "%s: no plan to write (not sharded)", path);
    return pm_util_write_file_atomic(path, p->text, strlen(p->text), 0644, NULL, err);
}

int pm_shard_plan_read(const char *path, const pm_spec *spec, int n, pm_shard_plan *p, pm_err *err)
{
    char *text = NULL, sh[40], *save = NULL;
    size_t len = 0;
    int rc, format = 0, shards = 0, n_seen = 0;
    memset(p, 0, sizeof *p);
    if ((rc = pm_util_read_file_max(path, (size_t)64 << 20, &text, &len, err)))
        return pm_err_wrap(err, "--plan");
    if ((rc = plan_alloc(p, spec->n_configs, err))) {
        free(text);
        return rc;
    }
    spec_hash(spec, sh);
    int lineno = 0;
    for (char *line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char word[32];
        int used = 0;
        if (line[0] == '#' || !line[0])
            continue;
        if (sscanf(line, "%31s %n", word, &used) < 1) {
            rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: cannot read '%.80s'", path, lineno, line);
        } else if (!strcmp(word, "format")) {
            format = atoi(line + used);
        } else if (!strcmp(word, "sweep")) {
            if (strcmp(line + used, spec->name))
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s is the plan of sweep '%s', not of '%s'", path,
                                line + used, spec->name);
        } else if (!strcmp(word, "spec-xxh128")) {
            if (strcmp(line + used, sh))
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s was made for another text of spec '%s' (the spec "
                                "changed since the submit): resubmit the study, or restore the spec it was made for",
                                path, spec->name);
        } else if (!strcmp(word, "shards")) {
            shards = atoi(line + used);
        } else if (!strcmp(word, "cost-model")) {
            snprintf(p->model, sizeof p->model, "%s", line + used);
            p->model_seconds = strstr(p->model, "seconds") != NULL;
        } else if (!strcmp(word, "config")) {
            int k = 0, at = 0;
            double cost = 0;
            if (sscanf(line + used, "%d %lf %n", &k, &cost, &at) < 2 || !line[used + at]) {
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: expected 'config SHARD COST KEY'", path, lineno);
                break;
            }
            const char *key = line + used + at;
            int c = -1;
            for (int i = 0; i < spec->n_configs && c < 0; i++)
                if (!strcmp(spec->configs[i].key, key))
                    c = i;
            if (c < 0)
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: config %s is not in the spec", path, lineno, key);
            else if (p->shard_of[c])
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: config %s listed twice", path, lineno, key);
            else if (k < 1 || (shards && k > shards))
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: shard %d out of 1..%d", path, lineno, k, shards);
            else {
                p->shard_of[c] = k;
                p->cost[c] = cost;
                n_seen++;
            }
        } else {
            rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s:%d: unknown line '%.80s' (a newer passmap's plan?)", path,
                            lineno, line);
        }
    }
    if (!rc && format != 1)
        rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s: not a passmap shard plan of format 1", path);
    else if (!rc && shards < 1)
        rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s: no 'shards N' line", path);
    else if (!rc && n && n != shards)
        rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s splits the study into %d shards, not %d: use --shard K/%d",
                        path, shards, n, shards);
    else if (!rc && n_seen != spec->n_configs)
        for (int i = 0; i < spec->n_configs && !rc; i++)
            if (!p->shard_of[i])
                rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s: config %s of the spec is in no shard (%d of %d "
                                "planned)", path, spec->configs[i].key, n_seen, spec->n_configs);
    /* a config line before the 'shards' line was read before N was known: every shard number checked again */
    for (int i = 0; i < spec->n_configs && !rc; i++)
        if (p->shard_of[i] > shards)
            rc = pm_err_set(err, PM_ERR_USAGE, "--plan %s: config %s in shard %d, out of 1..%d", path,
                            spec->configs[i].key, p->shard_of[i], shards);
    free(text);
    p->n = shards;
    if (!rc)
        rc = plan_render(spec, p, err);   /* the hash of the plan as read, rendered the way it was made */
    if (rc)
        pm_shard_plan_free(p);
    return rc;
}

double pm_shard_plan_balance(const pm_shard_plan *p, double *load)
{
    double total = 0, max = 0;
    for (int k = 0; k < p->n; k++)
        load[k] = 0;
    for (int i = 0; i < p->n_configs; i++)
        if (p->shard_of[i] >= 1 && p->shard_of[i] <= p->n)
            load[p->shard_of[i] - 1] += p->cost[i];
    for (int k = 0; k < p->n; k++) {
        total += load[k];
        if (load[k] > max)
            max = load[k];
    }
    return total > 0 ? max / (total / p->n) : NAN;
}

int pm_shard_plan_record(pm_store *st, const char *sweep, const pm_shard_plan *p, pm_err *err)
{
    char key[PM_SPEC_KEY_MAX + 32], *was = NULL;
    snprintf(key, sizeof key, "shard_plan:%s", sweep);
    int rc = pm_store_meta_get(st, key, &was, err);
    if (rc == PM_ERR_NOTFOUND) {
        memset(err, 0, sizeof *err);
        rc = PM_OK;
    }
    if (rc)
        return rc;
    if (was && *was && strcmp(was, p->hash)) {
        rc = pm_err_set(err, PM_ERR_USAGE,
                        "%s: sweep '%s' was started under shard plan %s, and this task's plan is %s (another "
                        "--costs store, spec or N gives another set of configs): rerun it with the plan file it was "
                        "submitted with (--plan DB.slurm/plan.txt), or sweep into a new database",
                        pm_store_path(st), sweep, was, p->hash);
        free(was);
        return rc;
    }
    free(was);
    return pm_store_meta_set(st, key, p->hash, err);
}

/* ---- Coverage over several stores ---- */

typedef struct cov_row {
    char *sweep, *key;
    int k, n, planned, done;
} cov_row;

typedef struct cov_ctx {
    cov_row *rows;
    size_t n, cap;
} cov_ctx;

static int cov_add(void *user, const char *sweep, int k, int n, const char *key, int planned, int done)
{
    cov_ctx *c = user;
    cov_row *bigger = pm_grow(c->rows, &c->cap, c->n, sizeof *bigger, 64);
    if (!bigger)
        return PM_ERR_NOMEM;
    c->rows = bigger;
    cov_row *r = &c->rows[c->n];
    *r = (cov_row){.sweep = strdup(sweep ? sweep : ""), .key = strdup(key ? key : ""), .k = k, .n = n,
                   .planned = planned, .done = done};
    if (!r->sweep || !r->key) {
        free(r->sweep);
        free(r->key);
        return PM_ERR_NOMEM;
    }
    c->n++;
    return PM_OK;
}

static int by_sweep_key(const void *a, const void *b)
{
    const cov_row *x = a, *y = b;
    int d = strcmp(x->sweep, y->sweep);
    return d ? d : strcmp(x->key, y->key);
}

void pm_coverage_free(pm_coverage *cov)
{
    for (int i = 0; i < cov->n; i++)
        pm_free_all(cov->sweeps[i].sweep, cov->sweeps[i].message);
    free(cov->sweeps);
    memset(cov, 0, sizeof *cov);
}

/* The plan hashes the stores recorded for a sweep, as "a, b" (distinct, in store order). */
typedef struct plan_seen {
    char sweep[PM_SPEC_KEY_MAX], hash[32];
} plan_seen;

/* Each sweep's shard plan hash in this store (its rows from first on), once per (sweep, hash) in plans. */
static int note_plans(pm_store *st, const cov_ctx *c, size_t first, plan_seen **plans_io, size_t *n_io, pm_err *err)
{
    plan_seen *plans = *plans_io;
    size_t n_plans = *n_io;
    int rc = PM_OK;
    for (size_t i = first; i < c->n && !rc; i++) {
        if (i > first && !strcmp(c->rows[i].sweep, c->rows[i - 1].sweep))
            continue;
        char key[PM_SPEC_KEY_MAX + 32], *hash = NULL;
        pm_err e = {0};
        snprintf(key, sizeof key, "shard_plan:%s", c->rows[i].sweep);
        if (pm_store_meta_get(st, key, &hash, &e) || !hash)
            continue;
        int seen = 0;
        for (size_t j = 0; j < n_plans && !seen; j++)
            seen = !strcmp(plans[j].sweep, c->rows[i].sweep) && !strcmp(plans[j].hash, hash);
        if (!seen) {
            plan_seen *bigger = realloc(plans, (n_plans + 1) * sizeof *bigger);
            if (!bigger) {
                free(hash);
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            plans = bigger;
            snprintf(plans[n_plans].sweep, sizeof plans[n_plans].sweep, "%s", c->rows[i].sweep);
            snprintf(plans[n_plans].hash, sizeof plans[n_plans].hash, "%s", hash);
            n_plans++;
        }
        free(hash);
    }
    *plans_io = plans;
    *n_io = n_plans;
    return rc;
}

int pm_shard_coverage(const char *const *dbs, int n_dbs, pm_coverage *cov, pm_err *err)
{
    cov_ctx c = {0};
    plan_seen *plans = NULL;
    size_t n_plans = 0;
    int rc = PM_OK;
    memset(cov, 0, sizeof *cov);
    for (int d = 0; d < n_dbs && !rc; d++) {
        pm_store *st = NULL;
        struct stat sb;
        /* absent, or empty (created by another reader an instant before merge makes it): nothing planned yet */
        if (stat(dbs[d], &sb) != 0 || sb.st_size == 0)
            continue;
        if ((rc = pm_store_open_readonly(dbs[d], &st, err)))
            break;
        size_t first = c.n;
        rc = pm_store_plan_configs(st, cov_add, &c, err);
        if (rc == PM_ERR_NOMEM && !err->msg[0])
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = note_plans(st, &c, first, &plans, &n_plans, err);
        pm_store_close(st);
    }
    if (rc)
        goto cleanup;
    if (c.n)   /* qsort's array must not be NULL, even for no rows */
        qsort(c.rows, c.n, sizeof *c.rows, by_sweep_key);
    for (size_t i = 0; i < c.n && !rc;) {
        size_t end = i;
        while (end < c.n && !strcmp(c.rows[end].sweep, c.rows[i].sweep))
            end++;
        pm_coverage_sweep cs = {.sweep = strdup(c.rows[i].sweep)};
        int n_first = c.rows[i].n, other_n = 0;
        /* the shards owing work (of the first N seen), each named once, the first 12 by number */
        int owing[12], n_owing = 0, more = 0;
        for (size_t j = i; j < end;) {
            size_t kend = j;
            int planned = 0, done = 0, k = c.rows[j].k;
            while (kend < end && !strcmp(c.rows[kend].key, c.rows[j].key)) {
                if (c.rows[kend].n != n_first)
                    other_n = c.rows[kend].n;
                if (c.rows[kend].planned > planned)
                    planned = c.rows[kend].planned;
                if (c.rows[kend].done > done)
                    done = c.rows[kend].done;
                kend++;
            }
            cs.configs++;
            if (done < planned) {
                int seen = 0;
                cs.unfinished++;
                for (int o = 0; o < n_owing && !seen; o++)
                    seen = owing[o] == k;
                if (!seen && n_owing < 12)
                    owing[n_owing++] = k;
                else if (!seen)
                    more = 1;
            }
            j = kend;
        }
        char hashes[200] = "", shards[200] = "";
        int n_hash = 0;
        for (size_t j = 0; j < n_plans; j++)
            if (!strcmp(plans[j].sweep, cs.sweep)) {
                size_t l = strlen(hashes);
                snprintf(hashes + l, sizeof hashes - l, "%s%s", n_hash ? ", " : "", plans[j].hash);
                n_hash++;
            }
        for (int o = 0; o < n_owing; o++) {
            size_t l = strlen(shards);
            snprintf(shards + l, sizeof shards - l, "%s%d/%d", o ? ", " : "", owing[o], n_first);
        }
        char msg[900];
        const char *redo = "their shards are other sets of configs, so together they neither cover the study once "
                           "nor say what is missing; sweep each shard with the plan it was submitted with (--plan)";
        cs.mixed = other_n || n_hash > 1;
        if (other_n)
            snprintf(msg, sizeof msg, "sweep %s: the stores split it into %d and into %d shards: %s", cs.sweep,
                     n_first < other_n ? n_first : other_n, n_first < other_n ? other_n : n_first, redo);
        else if (n_hash > 1)
            snprintf(msg, sizeof msg, "sweep %s: the stores were swept under different shard plans (%s): %s",
                     cs.sweep, hashes, redo);
        else if (cs.unfinished)
            snprintf(msg, sizeof msg, "sweep %s: incomplete: %d of %d configs owe runs (shard%s %s%s unfinished "
                     "or missing)", cs.sweep, cs.unfinished, cs.configs, n_owing + more == 1 ? "" : "s", shards,
                     more ? " and more" : "");
        if (!cs.sweep || ((cs.mixed || cs.unfinished) && !(cs.message = strdup(msg)))) {
            free(cs.sweep);
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        pm_coverage_sweep *bigger = realloc(cov->sweeps, (size_t)(cov->n + 1) * sizeof *bigger);
        if (!bigger) {
            free(cs.sweep);
            free(cs.message);
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        cov->sweeps = bigger;
        cov->sweeps[cov->n++] = cs;
        cov->mixed += cs.mixed;
        cov->incomplete += !cs.mixed && cs.unfinished > 0;
        i = end;
    }
cleanup:
    for (size_t i = 0; i < c.n; i++) {
        free(c.rows[i].sweep);
        free(c.rows[i].key);
    }
    free(c.rows);
    free(plans);
    if (rc)
        pm_coverage_free(cov);
    return rc;
}

int pm_cost_model_parse(const char *text, pm_cost_model *out, pm_err *err)
{
    static const char *const names[] = {"auto", "ir", "probe"};
    for (int i = 0; i < 3; i++)
        if (text && !strcmp(text, names[i])) {
            *out = (pm_cost_model)i;
            return PM_OK;
        }
    return pm_err_set(err, PM_ERR_USAGE, "--cost-model '%s': one of auto, ir, probe", text ? text : "");
}
