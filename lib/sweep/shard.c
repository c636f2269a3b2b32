#include "shard.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "store.h"

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

/* Mean wall of the ok cold runs per config key, from an earlier study. */
static int measured(const char *costs_db, const pm_spec *spec, double *wall, pm_err *err)
{
    pm_store *st = NULL;
    int rc = pm_store_open_readonly(costs_db, &st, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "--costs");
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT avg(r.wall_s) FROM run r JOIN config c ON c.id = r.config_id JOIN sweep sw\n"
                           "  ON sw.id = c.sweep_id WHERE c.key = ?1 AND sw.name = ?2 AND r.mode = 'cold'\n"
                           "  AND r.status = 'ok'", -1, &s, NULL) != SQLITE_OK) {
        rc = pm_err_set(err, PM_ERR_DB, "--costs %s: %s", costs_db, sqlite3_errmsg(db));
        goto cleanup;
    }
    for (int i = 0; i < spec->n_configs; i++) {
        sqlite3_bind_text(s, 1, spec->configs[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, spec->name, -1, SQLITE_STATIC);
        wall[i] = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL
                      ? sqlite3_column_double(s, 0) : -1;
        sqlite3_reset(s);
    }
cleanup:
    sqlite3_finalize(s);
    pm_store_close(st);
    return rc;
}

int pm_shard_costs(const pm_spec *spec, const char *costs_db, double *cost, pm_err *err)
{
    int n = spec->n_configs, rc = PM_OK;
    double *wall = malloc((size_t)(n > 0 ? n : 1) * sizeof *wall);
    if (!wall)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        cost[i] = estimate(spec, i);
        wall[i] = -1;
    }
    if (costs_db && (rc = measured(costs_db, spec, wall, err)) != PM_OK)
        goto cleanup;
    /* Seconds per estimated byte, from the configs that have both; applied to the ones never measured. */
    double sum_wall = 0, sum_est = 0;
    int n_known = 0;
    for (int i = 0; i < n; i++)
        if (wall[i] >= 0) {
            n_known++;
            if (cost[i] > 0) {
                sum_wall += wall[i];
                sum_est += cost[i];
            }
        }
    if (n_known == 0)
        goto cleanup;
    double scale = sum_est > 0 ? sum_wall / sum_est : 0;
    for (int i = 0; i < n; i++)
        cost[i] = wall[i] >= 0 ? wall[i] : cost[i] * scale;
cleanup:
    free(wall);
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
