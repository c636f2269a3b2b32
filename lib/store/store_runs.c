/* Reading one run back (see store_runs.h). */
#include "store_runs.h"
#include "store.h"
#include "store_query_internal.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static int db_fail(sqlite3 *db, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s", what, sqlite3_errmsg(db));
}

int pm_store_open_sqlite_readonly(const char *path, sqlite3 **db, pm_err *err)
{
    *db = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no such database", path)
                               : pm_err_errno(err, PM_ERR_IO, "%s", path);
    if (!S_ISREG(sb.st_mode))
        return pm_err_set(err, PM_ERR_USAGE, "%s: not a regular file", path);
    int rc = pm_store_open_db_readonly(path, db, err);   /* also in a read-only folder */
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    int ok = sqlite3_prepare_v2(*db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'pass_time'", -1, &s,
                                NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!ok) {
        sqlite3_close(*db);
        *db = NULL;
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database", path);
    }
    return PM_OK;
}

void pm_store_db_close(sqlite3 *db)
{
    sqlite3_close(db);
}

static char *col_str(sqlite3_stmt *s, int i, int *oom)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    if (!t)
        return NULL;
    char *d = strdup((const char *)t);
    if (!d)
        *oom = 1;
    return d;
}

static double col_real(sqlite3_stmt *s, int i)   /* NULL: -1 (absent) */
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_double(s, i);
}

static int64_t col_int(sqlite3_stmt *s, int i, int64_t absent)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? absent : sqlite3_column_int64(s, i);
}

static int load_passes(sqlite3 *db, int64_t step_id, int with_start, int interned, pm_stored_step *st,
                       pm_err *err)
{
    char sql[512];
    /* interned (schema 6): the name is pass_name's text for the row's name_id */
    snprintf(sql, sizeof sql,
             "SELECT p.idx, %s, p.section, p.parent_idx, p.depth, p.wall_s, p.user_s, p.flags, p.counted, "
             "p.report_index, %s FROM pass_time p%s WHERE p.step_id = ?1 ORDER BY p.idx",
             interned ? "n.name" : "p.name", with_start ? "p.start_s" : "NULL",
             interned ? " JOIN pass_name n ON n.id = p.name_id" : "");
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "passes");
    sqlite3_bind_int64(s, 1, step_id);
    int rc = PM_OK, oom = 0, step;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_stored_pass *p = pm_push(&st->passes, &cap, &st->n_passes, sizeof *p, 64);
        if (!p) {
            oom = 1;
            break;
        }
        /* idx is dense from 0 (pm_store_record_run writes it so): parent_idx is an index into passes */
        p->name = col_str(s, 1, &oom);
        p->section = col_str(s, 2, &oom);
        p->parent = (int)col_int(s, 3, -1);
        p->depth = sqlite3_column_int(s, 4);
        p->wall_s = col_real(s, 5);
        p->user_s = col_real(s, 6);
        p->flags = (unsigned)sqlite3_column_int(s, 7);
        p->counted = sqlite3_column_int(s, 8);
        p->report_index = sqlite3_column_int(s, 9);
        p->has_start = sqlite3_column_type(s, 10) != SQLITE_NULL;
        p->start_s = p->has_start ? sqlite3_column_double(s, 10) : 0;
        if (p->parent >= (int)st->n_passes - 1)   /* a parent always precedes its children */
            p->parent = -1;
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading passes");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, err, "passes");
    sqlite3_finalize(s);
    return rc;
}

void pm_stored_run_free(pm_stored_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_steps; i++) {
        pm_stored_step *st = &r->steps[i];
        for (size_t k = 0; k < st->n_passes; k++)
            pm_free_all(st->passes[k].name, st->passes[k].section);
        pm_free_all(st->passes, st->tool, st->argv, st->status, st->report_format, st->stderr_tail);
    }
    for (size_t i = 0; i < r->n_metrics; i++)
        free(r->metrics[i].name);
    pm_free_all(r->steps, r->metrics, r->sweep, r->config_key, r->mode, r->status, r->note, r->started_at);
    memset(r, 0, sizeof *r);
}

/* The run's metrics (per step, or the run's own: step_seq -1), in the order show prints them. */
static int load_metrics(sqlite3 *db, int64_t run_id, pm_stored_run *out, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, oom = 0, step;
    size_t cap = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.name, m.value, s.seq FROM metric m LEFT JOIN step s ON s.id = m.step_id"
                           " WHERE m.run_id = ?1 ORDER BY coalesce(s.seq, -1), m.name",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "metrics");
    sqlite3_bind_int64(s, 1, run_id);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_stored_metric *m = pm_push(&out->metrics, &cap, &out->n_metrics, sizeof *m, 16);
        if (!m) {
            oom = 1;
            break;
        }
        m->name = col_str(s, 0, &oom);
        m->value = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 1);
        m->step_seq = (int)col_int(s, 2, -1);
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading metrics");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, err, "metrics");
    sqlite3_finalize(s);
    return rc;
}

int pm_store_load_run(sqlite3 *db, int64_t run_id, int with_passes, pm_stored_run *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, oom = 0, step;
    int64_t *step_ids = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.id, r.config_id, sw.name, c.key, r.mode, r.status, r.note, r.started_at, r.repeat,"
                           " r.wall_s, r.user_s, r.sys_s, r.maxrss_kb FROM run r JOIN config c ON c.id = r.config_id"
                           " JOIN sweep sw ON sw.id = c.sweep_id WHERE r.id = ?1",
                           -1, &s, NULL) != SQLITE_OK) {
        rc = db_fail(db, err, "run");
        goto cleanup;
    }
    sqlite3_bind_int64(s, 1, run_id);
    step = sqlite3_step(s);
    if (step == SQLITE_DONE) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
        goto cleanup;
    }
    if (step != SQLITE_ROW) {
        rc = db_fail(db, err, "run");
        goto cleanup;
    }
    out->id = sqlite3_column_int64(s, 0);
    out->config_id = sqlite3_column_int64(s, 1);
    out->sweep = col_str(s, 2, &oom);
    out->config_key = col_str(s, 3, &oom);
    out->mode = col_str(s, 4, &oom);
    out->status = col_str(s, 5, &oom);
    out->note = col_str(s, 6, &oom);
    out->started_at = col_str(s, 7, &oom);
    out->repeat = sqlite3_column_int(s, 8);
    out->wall_s = col_real(s, 9);
    out->user_s = col_real(s, 10);
    out->sys_s = col_real(s, 11);
    out->maxrss_kb = (long)col_int(s, 12, -1);
    sqlite3_finalize(s);
    s = NULL;

    int v2 = pm_sq_has_column(db, "step", "pass_order");
    out->order_recorded = v2;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT id, seq, tool, argv, status, report_format, stderr_tail, %s, wall_s, user_s, sys_s, report_wall_s,"
             " maxrss_kb, instructions, exit_code, term_signal FROM step WHERE run_id = ?1 ORDER BY seq",
             v2 ? "pass_order" : "NULL");
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        rc = db_fail(db, err, "steps");
        goto cleanup;
    }
    sqlite3_bind_int64(s, 1, run_id);
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (out->n_steps == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            pm_stored_step *p = realloc(out->steps, ncap * sizeof *p);
            int64_t *ids = realloc(step_ids, ncap * sizeof *ids);
            if (p)
                out->steps = p;
            if (ids)
                step_ids = ids;
            if (!p || !ids) {
                oom = 1;
                break;
            }
            cap = ncap;
        }
        step_ids[out->n_steps] = sqlite3_column_int64(s, 0);
        pm_stored_step *st = &out->steps[out->n_steps++];
        memset(st, 0, sizeof *st);
        st->seq = sqlite3_column_int(s, 1);
        st->tool = col_str(s, 2, &oom);
        st->argv = col_str(s, 3, &oom);
        st->status = col_str(s, 4, &oom);
        st->report_format = col_str(s, 5, &oom);
        st->stderr_tail = col_str(s, 6, &oom);
        st->order = pm_pass_order_from_name((const char *)sqlite3_column_text(s, 7));
        st->wall_s = col_real(s, 8);
        st->user_s = col_real(s, 9);
        st->sys_s = col_real(s, 10);
        st->report_wall_s = col_real(s, 11);
        st->maxrss_kb = (long)col_int(s, 12, -1);
        st->instructions = col_int(s, 13, -1);
        st->exit_code = (int)col_int(s, 14, 0);
        st->term_signal = (int)col_int(s, 15, 0);
    }
    if (oom) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading steps");
        goto cleanup;
    }
    if (step != SQLITE_DONE) {
        rc = db_fail(db, err, "steps");
        goto cleanup;
    }
    sqlite3_finalize(s);
    s = NULL;
    int with_start = pm_sq_has_column(db, "pass_time", "start_s"),
        interned = pm_sq_has_column(db, "pass_time", "name_id");
    for (size_t i = 0; with_passes && i < out->n_steps && rc == PM_OK; i++)
        rc = load_passes(db, step_ids[i], with_start, interned, &out->steps[i], err);
    if (rc)
        goto cleanup;

    rc = load_metrics(db, run_id, out, err);
cleanup:
    sqlite3_finalize(s);
    free(step_ids);
    if (rc)
        pm_stored_run_free(out);
    return rc;
}

int pm_store_pick_sweep(sqlite3 *db, const char *name, int64_t *sweep_id, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    /* default: the latest study, not its fix sweep nor a superseded one (store.h) */
    char latest[512];
    snprintf(latest, sizeof latest, "SELECT id FROM sweep s ORDER BY (%s) DESC, id DESC LIMIT 1",
             pm_store_study_sweep_cond(pm_store_has_superseded(db)));
    const char *sql = name ? "SELECT id FROM sweep WHERE name = ?1" : latest;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "sweep");
    if (name)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(s), rc = PM_OK;
    if (step == SQLITE_ROW)
        *sweep_id = sqlite3_column_int64(s, 0);
    else if (step == SQLITE_DONE)
        rc = name ? pm_err_set(err, PM_ERR_NOTFOUND, "no sweep named '%s' in the database", name)
                  : pm_err_set(err, PM_ERR_NOTFOUND, "the database holds no sweep");
    else
        rc = db_fail(db, err, "sweep");
    sqlite3_finalize(s);
    return rc;
}

/* "no config 'K' in this sweep; did you mean 'K2'?": the nearest key of the sweep (a typo, a missing part), and
 * how to list them all. */
static int no_config(sqlite3 *db, int64_t sweep_id, const char *config_key, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    char **keys = NULL;
    size_t n = 0, cap = 0;
    int oom = 0;
    if (sqlite3_prepare_v2(db, "SELECT key FROM config WHERE sweep_id = ?1 ORDER BY key", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, sweep_id);
        while (!oom && sqlite3_step(s) == SQLITE_ROW) {
            char **grown = pm_grow(keys, &cap, n, sizeof *keys, 64);
            const char *k = (const char *)sqlite3_column_text(s, 0);
            if (!grown || !(grown[n] = strdup(k ? k : ""))) {
                keys = grown ? grown : keys;
                oom = 1;
                break;
            }
            keys = grown;
            n++;
        }
    }
    sqlite3_finalize(s);
    const char *near = oom ? NULL : pm_util_closest(config_key, (const char *const *)keys, n);
    const char *db_path = sqlite3_db_filename(db, "main");   /* the store, so the command can be copied */
    int rc = oom ? pm_err_set(err, PM_ERR_NOMEM, "out of memory")
                 : pm_err_set(err, PM_ERR_NOTFOUND, "no config '%s' in this sweep%s%s%s (passmap show %s lists its "
                              "%zu configs)", config_key, near ? "; did you mean '" : "", near ? near : "",
                              near ? "'?" : "", db_path && *db_path ? db_path : "DB", n);
    pm_free_strs(keys, n);
    return rc;
}

int pm_store_find_run(sqlite3 *db, int64_t sweep_id, const char *config_key, const char *mode, int repeat,
                      int64_t *run_id, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    int step;
    if (sqlite3_prepare_v2(db, "SELECT id FROM config WHERE sweep_id = ?1 AND key = ?2", -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "config");
    sqlite3_bind_int64(s, 1, sweep_id);
    sqlite3_bind_text(s, 2, config_key, -1, SQLITE_STATIC);
    step = sqlite3_step(s);
    int64_t config_id = step == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    s = NULL;
    if (step == SQLITE_DONE)
        return no_config(db, sweep_id, config_key, err);
    if (step != SQLITE_ROW)
        return db_fail(db, err, "config");
    return pm_store_config_run(db, config_id, config_key, mode, repeat, run_id, err);
}

int pm_store_config_run(sqlite3 *db, int64_t config_id, const char *config_key, const char *mode, int repeat,
                        int64_t *run_id, pm_err *err)
{
    if (!mode)
        mode = "cold";
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, step;
    /* A repeat asked for: exactly that one. Otherwise the median-wall ok run (lower median). */
    const char *sql = repeat >= 0 ? "SELECT id FROM run WHERE config_id = ?1 AND mode = ?2 AND repeat = ?3 ORDER BY id LIMIT 1"
                                  : "SELECT id FROM run WHERE config_id = ?1 AND mode = ?2 AND status = 'ok'"
                                    " ORDER BY wall_s, id LIMIT 1 OFFSET ((SELECT count(*) FROM run WHERE config_id = ?1"
                                    " AND mode = ?2 AND status = 'ok') - 1) / 2";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "run");
    sqlite3_bind_int64(s, 1, config_id);
    sqlite3_bind_text(s, 2, mode, -1, SQLITE_STATIC);
    if (repeat >= 0)
        sqlite3_bind_int(s, 3, repeat);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *run_id = sqlite3_column_int64(s, 0);
    else if (step != SQLITE_DONE)
        rc = db_fail(db, err, "run");
    sqlite3_finalize(s);
    if (step != SQLITE_DONE)
        return rc;
    /* say what there is instead */
    char have[512] = "";
    size_t used = 0;
    if (sqlite3_prepare_v2(db, "SELECT mode, repeat, status FROM run WHERE config_id = ?1 ORDER BY mode, repeat", -1,
                           &s, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, config_id);
        while (sqlite3_step(s) == SQLITE_ROW && used < sizeof have - 64)
            used += (size_t)snprintf(have + used, sizeof have - used, "%s%s #%d (%s)", used ? ", " : "",
                                     (const char *)sqlite3_column_text(s, 0), sqlite3_column_int(s, 1),
                                     (const char *)sqlite3_column_text(s, 2));
    }
    sqlite3_finalize(s);
    if (repeat >= 0)
        return pm_err_set(err, PM_ERR_NOTFOUND, "config '%s' has no %s run with repeat %d (runs: %s)", config_key, mode,
                          repeat, used ? have : "none");
    return pm_err_set(err, PM_ERR_NOTFOUND, "config '%s' has no successful %s run (runs: %s)", config_key, mode,
                      used ? have : "none");
}

void pm_run_summaries_free(pm_run_summary *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        pm_free_all(r[i].mode, r[i].status, r[i].note);
    free(r);
}

int pm_store_config_runs(sqlite3 *db, int64_t config_id, pm_run_summary **out, size_t *n, pm_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, repeat, mode, status, note, wall_s, user_s, maxrss_kb FROM run WHERE config_id = ?1"
                           " ORDER BY CASE mode WHEN 'cold' THEN 0 WHEN 'cache-miss' THEN 1 WHEN 'warm' THEN 2 ELSE 3 END,"
                           " mode, repeat, id",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "runs");
    sqlite3_bind_int64(s, 1, config_id);
    int oom = 0, step, rc = PM_OK;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_run_summary *r = pm_push(out, &cap, n, sizeof *r, 8);
        if (!r) {
            oom = 1;
            break;
        }
        r->id = sqlite3_column_int64(s, 0);
        r->repeat = sqlite3_column_int(s, 1);
        r->mode = col_str(s, 2, &oom);
        r->status = col_str(s, 3, &oom);
        r->note = col_str(s, 4, &oom);
        r->wall_s = col_real(s, 5);
        r->user_s = col_real(s, 6);
        r->maxrss_kb = (long)col_int(s, 7, -1);
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading runs");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, err, "runs");
    sqlite3_finalize(s);
    if (rc) {
        pm_run_summaries_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int pm_store_config_keys(sqlite3 *db, int64_t sweep_id, char ***keys, size_t *n, pm_err *err)
{
    *keys = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT key FROM config WHERE sweep_id = ?1 ORDER BY key", -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, err, "configs");
    sqlite3_bind_int64(s, 1, sweep_id);
    int oom = 0, step, rc = PM_OK;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        char **p = pm_grow(*keys, &cap, *n, sizeof *p, 16);
        if (!p) {
            oom = 1;
            break;
        }
        *keys = p;
        (*keys)[(*n)++] = col_str(s, 0, &oom);
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading configs");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, err, "configs");
    sqlite3_finalize(s);
    if (rc) {
        for (size_t i = 0; i < *n; i++)
            free((*keys)[i]);
        free(*keys);
        *keys = NULL;
        *n = 0;
    }
    return rc;
}
