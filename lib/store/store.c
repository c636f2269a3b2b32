/* pm_store: the SQLite results database (see store.h for the layout).
 *
 * Durability: WAL with synchronous=NORMAL survives a killed process (only a power loss can drop the last
 * commits), and pm_store_record_run writes a run with everything below it in one BEGIN IMMEDIATE
 * transaction, so a reader never sees a run without its steps. */
#include "store_internal.h"
#include "store_passcount.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <xxhash.h>

/* Prepared lazily: a read-only store never compiles the writes. */
static const char *const stmt_sql[S__COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_SWEEP] = "INSERT INTO sweep(name, backend, spec_text, meta_json) VALUES(?1, ?2, ?3, ?4)\n"
                "ON CONFLICT(name) DO UPDATE SET\n"
                "  backend = coalesce(sweep.backend, excluded.backend),\n"
                "  spec_text = coalesce(excluded.spec_text, sweep.spec_text),\n"
                "  meta_json = coalesce(excluded.meta_json, sweep.meta_json)\n"
                "RETURNING id",
    /* The no-op update makes RETURNING yield the existing id in one atomic statement. */
    [S_CONFIG] = "INSERT INTO config(sweep_id, key, kind, family, size, window, precision, resolution,\n"
                 "  layers, variant, params_json) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)\n"
                 "ON CONFLICT(sweep_id, key) DO UPDATE SET key = excluded.key\n"
                 "RETURNING id",
    [S_RUNS_DONE] = "SELECT count(*) FROM run WHERE config_id = ?1 AND mode = ?2",
    [S_RUN] = "INSERT INTO run(config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb,\n"
              "  started_at, note, host_id)\n"
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,\n"
              "  strftime('%Y-%m-%dT%H:%M:%fZ', julianday('now') - coalesce(?5, 0) / 86400.0), ?9, ?10)",
    [S_STEP] = "INSERT INTO step(run_id, seq, tool, argv, status, wall_s, user_s, sys_s, maxrss_kb,\n"
               "  instructions, exit_code, term_signal, report_format, report_wall_s, stderr_tail, pass_order)\n"
               "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [S_PASS] = "INSERT INTO pass_time(step_id, idx, name_id, section, parent_idx, depth, wall_s, user_s,\n"
               "  flags, report_index, counted, start_s) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [S_METRIC] = "INSERT INTO metric(run_id, step_id, name, value) VALUES(?1, ?2, ?3, ?4)",
    [S_META_SET] = "INSERT INTO meta(key, value) VALUES(?1, ?2)\n"
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [S_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [S_HOST] = "INSERT INTO host(name, fingerprint, cpu_model, cores, kernel, machine, compiler)\n"
               "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)\n"
               "ON CONFLICT(name, fingerprint) DO UPDATE SET name = excluded.name\n"
               "RETURNING id",
    [S_SHARD] = "INSERT INTO shard(sweep_id, shard_k, shard_n, config_key, cold, cache_miss, warm)\n"
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)\n"
                "ON CONFLICT(sweep_id, shard_n, config_key) DO UPDATE SET shard_k = excluded.shard_k,\n"
                "  cold = excluded.cold, cache_miss = excluded.cache_miss, warm = excluded.warm",
    /* insert-or-get: the no-op update makes RETURNING yield an existing name's id */
    [S_PASS_NAME] = "INSERT INTO pass_name(name) VALUES(?1) ON CONFLICT(name) DO UPDATE SET name = excluded.name\n"
                    "RETURNING id",
    [S_CONFIG_PARAMS] = "SELECT name, value FROM config_param WHERE config_id = ?1 ORDER BY name",
    [S_CONFIG_PARAM] = "INSERT INTO config_param(config_id, name, value) VALUES(?1, ?2, ?3)\n"
                       "ON CONFLICT(config_id, name) DO UPDATE SET value = excluded.value",
};

void pm_store_name_cache_clear(name_cache *c)
{
    pm_free_strs(c->names, c->cap);
    free(c->ids);
    memset(c, 0, sizeof *c);
}

/* The slot of name: its own, or the empty one where it would go. */
static size_t name_cache_slot(const name_cache *c, const char *name)
{
    size_t h = (size_t)XXH3_64bits(name, strlen(name)) & (c->cap - 1);
    while (c->names[h] && strcmp(c->names[h], name))
        h = (h + 1) & (c->cap - 1);
    return h;
}

static int name_cache_put(name_cache *c, const char *name, int64_t id)
{
    if ((c->n + 1) * 2 > c->cap) {
        name_cache old = *c, grown = {.cap = c->cap ? c->cap * 2 : 256};
        if (!(grown.names = calloc(grown.cap, sizeof *grown.names)) ||
            !(grown.ids = calloc(grown.cap, sizeof *grown.ids))) {
            free(grown.names);
            return PM_ERR_NOMEM;
        }
        for (size_t i = 0; i < old.cap; i++)
            if (old.names[i]) {
                size_t h = name_cache_slot(&grown, old.names[i]);
                grown.names[h] = old.names[i];
                grown.ids[h] = old.ids[i];
            }
        grown.n = old.n;
        free(old.names);
        free(old.ids);
        *c = grown;
    }
    size_t h = name_cache_slot(c, name);
    if (!c->names[h]) {
        if (!(c->names[h] = strdup(name)))
            return PM_ERR_NOMEM;
        c->n++;
    }
    c->ids[h] = id;
    return PM_OK;
}

int pm_store_db_err(pm_store *st, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int get_stmt(pm_store *st, int which, sqlite3_stmt **out, pm_err *err)
{
    if (!st->stmt[which] &&
        sqlite3_prepare_v3(st->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[which], NULL)
            != SQLITE_OK)
        return pm_store_db_err(st, err, "prepare");
    *out = st->stmt[which];
    return PM_OK;
}

static void done_stmt(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* Steps a statement that returns no rows. */
int pm_store_exec_stmt(pm_store *st, int which, pm_err *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, which, &s, err);
    if (rc != PM_OK)
        return rc;
    rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : pm_store_db_err(st, err, what);
    done_stmt(s);
    return rc;
}

int pm_store_exec_sql(pm_store *st, const char *sql, pm_err *err, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        pm_err_set(err, PM_ERR_DB, "%s: %s: %s", st->path, what, msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return PM_ERR_DB;
    }
    return PM_OK;
}

/* Binding helpers; each returns an SQLite result code, collected with |= (SQLITE_OK is 0). */
static int bind_text(sqlite3_stmt *s, int i, const char *v)
{
    return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int bind_real_nonneg(sqlite3_stmt *s, int i, double v)   /* < 0 (absent) or NaN: NULL */
{
    return v >= 0 ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}

static int bind_int_nonzero(sqlite3_stmt *s, int i, int64_t v)  /* 0 (not applicable): NULL */
{
    return v ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
}

static int bind_int_nonneg(sqlite3_stmt *s, int i, int64_t v)   /* < 0 (unavailable): NULL */
{
    return v >= 0 ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
}

/* Steps an INSERT ... RETURNING id. */
static int step_returning_id(pm_store *st, sqlite3_stmt *s, int64_t *id, pm_err *err, const char *what)
{
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW)
        *id = sqlite3_column_int64(s, 0);
    else
        rc = pm_store_db_err(st, err, what);
    if (rc == PM_OK && sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, what);
    done_stmt(s);
    return rc;
}

int pm_store_sweep(pm_store *st, const char *name, const char *backend, const char *spec_text,
                   const char *meta_json, int64_t *sweep_id, pm_err *err)
{
    if (!name || !*name)
        return pm_err_set(err, PM_ERR_USAGE, "store: sweep needs a name");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_SWEEP, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, name) | bind_text(s, 2, backend) | bind_text(s, 3, spec_text) |
         bind_text(s, 4, meta_json)) != SQLITE_OK) {
        rc = pm_store_db_err(st, err, "sweep: bind");
        done_stmt(s);
        return rc;
    }
    return step_returning_id(st, s, sweep_id, err, "sweep");
}

int pm_store_config(pm_store *st, int64_t sweep_id, const pm_config *cfg, int64_t *config_id, pm_err *err)
{
    if (!cfg || !cfg->key || !*cfg->key || !cfg->kind)
        return pm_err_set(err, PM_ERR_USAGE, "store: config needs a key and a kind");
    sqlite3_stmt *s = NULL;
    const pm_workload *w = &cfg->workload;
    int rc = get_stmt(st, S_CONFIG, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((sqlite3_bind_int64(s, 1, sweep_id) | bind_text(s, 2, cfg->key) | bind_text(s, 3, cfg->kind) |
         bind_text(s, 4, w->family) | bind_text(s, 5, w->size) | bind_int_nonzero(s, 6, w->window) |
         bind_text(s, 7, w->precision) | bind_int_nonzero(s, 8, w->resolution) |
         bind_int_nonzero(s, 9, pm_workload_depth(w, cfg->kind)) | bind_text(s, 10, cfg->variant) |
         bind_text(s, 11, cfg->params_json)) != SQLITE_OK) {
        rc = pm_store_db_err(st, err, "config: bind");
        done_stmt(s);
        return rc;
    }
    rc = step_returning_id(st, s, config_id, err, "config");
    if (rc != PM_OK)
        return pm_err_wrap(err, "config %s", cfg->key);
    for (size_t i = 0; i < cfg->n_params && rc == PM_OK; i++) {
        if ((rc = get_stmt(st, S_CONFIG_PARAM, &s, err)) != PM_OK)
            break;
        sqlite3_bind_int64(s, 1, *config_id);
        bind_text(s, 2, cfg->params[i].name);
        bind_text(s, 3, cfg->params[i].value);
        rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : pm_store_db_err(st, err, "config parameter");
        done_stmt(s);
    }
    return rc;
}

int pm_store_runs_done(pm_store *st, int64_t config_id, const char *mode, int *n, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_RUNS_DONE, &s, err);
    if (rc != PM_OK)
        return rc;
    sqlite3_bind_int64(s, 1, config_id);
    bind_text(s, 2, mode ? mode : "");
    if (sqlite3_step(s) == SQLITE_ROW)
        *n = sqlite3_column_int(s, 0);
    else
        rc = pm_store_db_err(st, err, "runs done");
    done_stmt(s);
    return rc;
}

int pm_store_config_find(pm_store *st, const char *sweep, const char *key, int64_t *config_id, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    *config_id = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT c.id FROM config c JOIN sweep w ON c.sweep_id = w.id "
                                   "WHERE w.name = ?1 AND c.key = ?2", -1, &s, NULL) != SQLITE_OK)
        return pm_store_db_err(st, err, "find config");
    bind_text(s, 1, sweep);
    bind_text(s, 2, key);
    int rc = PM_OK, step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *config_id = sqlite3_column_int64(s, 0);
    else if (step != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "find config");
    sqlite3_finalize(s);
    return rc;
}

static const char *run_status_text(pm_run_status s)
{
    return pm_run_status_name(s); /* one name map, the runner's */
}

static int insert_metric(pm_store *st, int64_t run_id, int64_t step_id, const pm_metric *m, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_METRIC, &s, err);
    if (rc != PM_OK)
        return rc;
    int brc = sqlite3_bind_int64(s, 1, run_id) |
              (step_id > 0 ? sqlite3_bind_int64(s, 2, step_id) : sqlite3_bind_null(s, 2)) |
              bind_text(s, 3, m->name ? m->name : "") |
              (m->value == m->value ? sqlite3_bind_double(s, 4, m->value) : sqlite3_bind_null(s, 4));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "metric");
    done_stmt(s);
    return rc;
}

/* pass_name.id of name, inserted when new (inside the caller's transaction). */
static int pass_name_id(pm_store *st, const char *name, int64_t *id, pm_err *err)
{
    if (st->names.cap) {
        size_t h = name_cache_slot(&st->names, name);
        if (st->names.names[h]) {
            *id = st->names.ids[h];
            return PM_OK;
        }
    }
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_PASS_NAME, &s, err);
    if (rc != PM_OK)
        return rc;
    if (bind_text(s, 1, name) != SQLITE_OK) {
        rc = pm_store_db_err(st, err, "pass name: bind");
        done_stmt(s);
        return rc;
    }
    if ((rc = step_returning_id(st, s, id, err, "pass name")) != PM_OK)
        return rc;
    return name_cache_put(&st->names, name, *id) ? pm_err_set(err, PM_ERR_NOMEM, "store: out of memory") : PM_OK;
}

static int insert_passes(pm_store *st, int64_t step_id, const pm_report *r, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    for (size_t i = 0; i < r->n_passes && rc == PM_OK; i++) {
        const pm_pass *p = &r->passes[i];
        int64_t name_id = 0;
        if ((rc = pass_name_id(st, p->name ? p->name : "", &name_id, err)) != PM_OK ||
            (rc = get_stmt(st, S_PASS, &s, err)) != PM_OK)
            break;
        int brc = sqlite3_bind_int64(s, 1, step_id) | sqlite3_bind_int64(s, 2, (int64_t)i) |
                  sqlite3_bind_int64(s, 3, name_id) | bind_text(s, 4, p->section) |
                  bind_int_nonneg(s, 5, p->parent) | sqlite3_bind_int(s, 6, p->depth) |
                  bind_real_nonneg(s, 7, p->wall_s) | bind_real_nonneg(s, 8, p->user_s) |
                  sqlite3_bind_int64(s, 9, p->flags) | sqlite3_bind_int(s, 10, p->report_index) |
                  sqlite3_bind_int(s, 11, pm_pass_counted(p)) |
                  (p->has_start ? sqlite3_bind_double(s, 12, p->start_s) : sqlite3_bind_null(s, 12));
        if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
            rc = pm_store_db_err(st, err, "pass");
        done_stmt(s);
    }
    return rc;
}

static int insert_step(pm_store *st, int64_t run_id, int seq, const pm_step_record *sr, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_STEP, &s, err);
    if (rc != PM_OK)
        return rc;
    const pm_run_result *res = sr->result;
    const pm_report *rep = sr->report;
    int brc = sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int(s, 2, seq) | bind_text(s, 3, sr->tool) |
              bind_text(s, 4, sr->argv) | bind_text(s, 15, sr->stderr_tail);
    if (res)
        brc |= bind_text(s, 5, run_status_text(res->status)) | bind_real_nonneg(s, 6, res->wall_s) |
               bind_real_nonneg(s, 7, res->user_s) | bind_real_nonneg(s, 8, res->sys_s) |
               bind_int_nonneg(s, 9, res->maxrss_kb) | bind_int_nonneg(s, 10, res->instructions) |
               sqlite3_bind_int(s, 11, res->exit_code) | sqlite3_bind_int(s, 12, res->term_signal);
    if (rep)
        brc |= bind_text(s, 13, pm_format_name(rep->format)) | bind_real_nonneg(s, 14, rep->total_wall_s) |
               bind_text(s, 16, rep->pass_order == PM_ORDER_NONE ? NULL : pm_pass_order_name(rep->pass_order));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "step");
    done_stmt(s);
    if (rc != PM_OK)
        return rc;
    int64_t step_id = sqlite3_last_insert_rowid(st->db);
    if (!rep)
        return PM_OK;
    if ((rc = insert_passes(st, step_id, rep, err)) != PM_OK ||
        (sr->counts && (rc = pm_store_record_passcount(st->db, st->path, step_id, sr->counts, err)) != PM_OK))
        return rc;
    for (size_t i = 0; i < rep->n_metrics && rc == PM_OK; i++)
        rc = insert_metric(st, run_id, step_id, &rep->metrics[i], err);
    return rc;
}

int pm_store_record_run(pm_store *st, const pm_run_record *rec, int64_t *run_id, pm_err *err)
{
    if (!rec || !rec->mode || !rec->status || rec->n_steps < 0 || (rec->n_steps > 0 && !rec->steps) ||
        rec->n_metrics < 0 || (rec->n_metrics > 0 && !rec->metrics))
        return pm_err_set(err, PM_ERR_USAGE, "store: incomplete run record");
    int rc = pm_store_exec_stmt(st, S_BEGIN, err, "begin");
    if (rc != PM_OK)
        return rc;
    sqlite3_stmt *s = NULL;
    if ((rc = get_stmt(st, S_RUN, &s, err)) != PM_OK)
        goto cleanup;
    int brc = sqlite3_bind_int64(s, 1, rec->config_id) | sqlite3_bind_int(s, 2, rec->repeat) |
              bind_text(s, 3, rec->mode) | bind_text(s, 4, rec->status) | bind_real_nonneg(s, 5, rec->wall_s) |
              bind_real_nonneg(s, 6, rec->user_s) | bind_real_nonneg(s, 7, rec->sys_s) |
              bind_int_nonneg(s, 8, rec->maxrss_kb) | bind_text(s, 9, rec->note) |
              (rec->host_id > 0 ? sqlite3_bind_int64(s, 10, rec->host_id) : sqlite3_bind_null(s, 10));
    if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "run");
    done_stmt(s);
    if (rc != PM_OK)
        goto cleanup;
    int64_t id = sqlite3_last_insert_rowid(st->db);
    for (int i = 0; i < rec->n_steps && rc == PM_OK; i++)
        rc = insert_step(st, id, i, &rec->steps[i], err);
    for (int i = 0; i < rec->n_metrics && rc == PM_OK; i++)
        rc = insert_metric(st, id, 0, &rec->metrics[i], err);
    /* the run's sums join the aggregates in its own transaction (runs after id - 1: this one) */
    if (rc == PM_OK && !strcmp(rec->status, "ok") && (!strcmp(rec->mode, "cold") || !strcmp(rec->mode, "warm")))
        rc = pm_store_agg_after(st, id - 1, err);
    if (rc == PM_OK && (rc = pm_store_exec_stmt(st, S_COMMIT, err, "commit")) == PM_OK && run_id)
        *run_id = id;
cleanup:
    if (rc != PM_OK) {
        /* COMMIT may have failed with the transaction still open: always try to roll back. */
        if (!sqlite3_get_autocommit(st->db))
            pm_store_exec_stmt(st, S_ROLLBACK, NULL, "rollback");
        pm_store_name_cache_clear(&st->names);   /* it may hold names this run inserted */
        pm_err_wrap(err, "recording run of config %lld", (long long)rec->config_id);
    }
    return rc;
}

int pm_store_meta_set(pm_store *st, const char *key, const char *value, pm_err *err)
{
    if (!key || !*key)
        return pm_err_set(err, PM_ERR_USAGE, "store: meta needs a key");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_META_SET, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, key) | bind_text(s, 2, value)) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "meta set");
    done_stmt(s);
    return rc;
}

int pm_store_meta_get(pm_store *st, const char *key, char **value, pm_err *err)
{
    *value = NULL;
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_META_GET, &s, err);
    if (rc != PM_OK)
        return rc;
    bind_text(s, 1, key ? key : "");
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(s, 0);
        if (v && !(*value = strdup((const char *)v)))
            rc = pm_err_set(err, PM_ERR_NOMEM, "store: out of memory");
        else if (!v)
            rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: meta %s is NULL", st->path, key);
    } else if (step == SQLITE_DONE) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: no meta key %s", st->path, key ? key : "");
    } else {
        rc = pm_store_db_err(st, err, "meta get");
    }
    done_stmt(s);
    return rc;
}

int pm_store_host(pm_store *st, const pm_host *h, int64_t *host_id, pm_err *err)
{
    if (!h || !h->name[0] || !h->fingerprint[0])
        return pm_err_set(err, PM_ERR_USAGE, "store: host needs a name and a fingerprint");
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_HOST, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((bind_text(s, 1, h->name) | bind_text(s, 2, h->fingerprint) | bind_text(s, 3, h->cpu_model) |
         sqlite3_bind_int(s, 4, h->cores) | bind_text(s, 5, h->kernel) | bind_text(s, 6, h->machine) |
         bind_text(s, 7, h->compiler)) != SQLITE_OK) {
        rc = pm_store_db_err(st, err, "host: bind");
        done_stmt(s);
        return rc;
    }
    return step_returning_id(st, s, host_id, err, "host");
}

int pm_store_shard_plan(pm_store *st, int64_t sweep_id, int shard_k, int shard_n, const char *config_key,
                        int cold, int cache_miss, int warm, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_SHARD, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((sqlite3_bind_int64(s, 1, sweep_id) | sqlite3_bind_int(s, 2, shard_k) | sqlite3_bind_int(s, 3, shard_n) |
         bind_text(s, 4, config_key) | sqlite3_bind_int(s, 5, cold) | sqlite3_bind_int(s, 6, cache_miss) |
         sqlite3_bind_int(s, 7, warm)) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "shard plan");
    done_stmt(s);
    return rc;
}

int pm_store_config_params(pm_store *st, int64_t config_id, pm_cfg *c, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = get_stmt(st, S_CONFIG_PARAMS, &s, err), step;
    if (rc != PM_OK)
        return rc;
    sqlite3_bind_int64(s, 1, config_id);
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if (pm_cfg_param_add(c, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = pm_store_db_err(st, err, "config parameters");
    done_stmt(s);
    return rc;
}

/* The writer's stage map for the aggregates: the data dir's, loaded once. None (no data dir): no aggregates,
 * and the report sums the pass rows of such runs as before (it reads the aggregates only when every run in
 * scope has them). */
static const pm_stagemap *agg_map(pm_store *st)
{
    if (st->agg_map_state == 0) {
        pm_err e = {0};
        st->agg_map_state = -1;
        if ((st->agg_map = pm_stagemap_new()) && pm_stagemap_load_default(st->agg_map, &e) == PM_OK)
            st->agg_map_state = 1;
        else {
            pm_stagemap_free(st->agg_map);
            st->agg_map = NULL;
        }
        pm_err_clear(&e);
    }
    return st->agg_map_state > 0 ? st->agg_map : NULL;
}

int pm_store_agg_after(pm_store *st, int64_t after_run, pm_err *err)
{
    const pm_stagemap *map = agg_map(st);
    return map ? pm_store_agg_add(st->db, st->path, map, after_run, err) : PM_OK;
}

int pm_store_agg_merge(pm_store *st, int64_t run_off, int *copied, pm_err *err)
{
    const pm_stagemap *map = agg_map(st);
    *copied = 0;
    return map ? pm_store_agg_copy(st->db, st->path, map, run_off, copied, err) : PM_OK;
}
