#include "store_query_internal.h"

int pm_sq_db_fail(sqlite3 *db, pm_err *err)
{
    return pm_err_set(err, PM_ERR_DB, "analysis query: %s", sqlite3_errmsg(db));
}

int pm_sq_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, pm_err *err)
{
    return sqlite3_prepare_v2(db, sql, -1, st, NULL) ? pm_sq_db_fail(db, err) : PM_OK;
}

/* Ends a scan and finalizes st: rc when the scan failed on its own, else a last step other than SQLITE_DONE is a
 * database error. */
int pm_sq_scan_done(sqlite3 *db, sqlite3_stmt *st, int rc, int step, pm_err *err)
{
    if (!rc && step != SQLITE_DONE)
        rc = pm_sq_db_fail(db, err);
    sqlite3_finalize(st);
    return rc;
}

/* A one-row query (rc: its prepare's status): the row's first column into *out, left as it is without a row. */
int pm_sq_scan_int(sqlite3 *db, sqlite3_stmt *st, int rc, int *out, pm_err *err)
{
    int step = rc ? SQLITE_DONE : sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
        step = SQLITE_DONE;
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

static char *text_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? strdup((const char *)s) : NULL;
}

const char *pm_sq_text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? (const char *)s : dflt;
}

double pm_sq_real_or_neg(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_double(st, col);
}

static int ids_add(pm_sq_sweeps *s, int64_t id)
{
    int64_t *p = realloc(s->ids, (s->n + 1) * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    s->ids = p;
    s->ids[s->n++] = id;
    return PM_OK;
}

int pm_sq_sweeps_find(sqlite3 *db, const char *names, pm_sq_sweeps *out, pm_err *err)
{
    int rc = PM_OK;
    sqlite3_stmt *st = NULL;
    char *list = NULL;
    memset(out, 0, sizeof *out);
    if (names) {
        if (!(list = strdup(names)) || !(out->name = strdup(names))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        if ((rc = pm_sq_prepare(db, "SELECT id,name,backend,meta_json FROM sweep WHERE name=?", &st, err)))
            goto cleanup;
        for (char *save = NULL, *nm = strtok_r(list, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
            sqlite3_reset(st);
            sqlite3_bind_text(st, 1, nm, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(st) != SQLITE_ROW) {
                rc = pm_err_set(err, PM_ERR_NOTFOUND, "no sweep named '%s' in the database", nm);
                goto cleanup;
            }
            if (ids_add(out, sqlite3_column_int64(st, 0))) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
            if (out->n == 1) { /* back end and method from the first sweep named */
                out->backend = text_dup(st, 2);
                out->meta_json = text_dup(st, 3);
            }
        }
        if (!out->n) {
            rc = pm_err_set(err, PM_ERR_USAGE, "no sweep name in '%s'", names);
            goto cleanup;
        }
    } else {
        /* the latest study: not a fix sweep beside its study, not a superseded one (store.h) */
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT id,name,backend,meta_json FROM sweep s ORDER BY (%s) DESC, id DESC LIMIT 1",
                 pm_store_study_sweep_cond(pm_store_has_superseded(db)));
        if ((rc = pm_sq_prepare(db, sql, &st, err)))
            goto cleanup;
        if (sqlite3_step(st) != SQLITE_ROW) {
            rc = pm_err_set(err, PM_ERR_NOTFOUND, "the database has no sweep");
            goto cleanup;
        }
        if (ids_add(out, sqlite3_column_int64(st, 0))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        out->name = text_dup(st, 1);
        out->backend = text_dup(st, 2);
        out->meta_json = text_dup(st, 3);
    }
cleanup:
    sqlite3_finalize(st);
    free(list);
    if (rc)
        pm_sq_sweeps_free(out);
    return rc;
}

void pm_sq_sweeps_free(pm_sq_sweeps *s)
{
    if (!s)
        return;
    pm_free_all(s->ids, s->name, s->backend, s->meta_json);
    memset(s, 0, sizeof *s);
}

/* "SELECT ... IN (1,2,3) ..." from a template with one %s (spliced by hand: the template is no printf format
 * for the compiler to check); malloc'd, NULL when out of memory. */
static char *sql_with_ids(const char *fmt, const pm_sq_sweeps *s)
{
    size_t cap = s->n * 24 + 1, used = 0;
    char *ids = malloc(cap);
    if (!ids)
        return NULL;
    ids[0] = 0;
    for (size_t i = 0; i < s->n; i++)
        used += (size_t)snprintf(ids + used, cap - used, "%s%lld", i ? "," : "", (long long)s->ids[i]);
    const char *hole = strstr(fmt, "%s");
    size_t head = hole ? (size_t)(hole - fmt) : strlen(fmt), tail_len = hole ? strlen(hole + 2) : 0;
    size_t len = head + used + tail_len + 1;
    char *sql = malloc(len);
    if (sql) {
        memcpy(sql, fmt, head);
        memcpy(sql + head, ids, used);
        memcpy(sql + head + used, hole ? hole + 2 : "", tail_len);
        sql[len - 1] = '\0';
    }
    free(ids);
    return sql;
}

int pm_sq_prepare_ids(sqlite3 *db, const char *fmt, const pm_sq_sweeps *s, sqlite3_stmt **st, pm_err *err)
{
    char *sql = sql_with_ids(fmt, s);
    if (!sql)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = pm_sq_prepare(db, sql, st, err);
    free(sql);
    return rc;
}

int pm_sq_configs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_config_row *), void *ctx,
                  pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare_ids(db,
                         /* one name for the command kind: stores before it wrote "cmd" for an import */
                         "SELECT id,key,CASE kind WHEN 'cmd' THEN 'command' ELSE kind END,family,size,window,"
                         "precision,resolution,layers,variant FROM config "
                         "WHERE sweep_id IN (%s) ORDER BY id",
                         s, &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_config_row r = {
            .id = sqlite3_column_int64(st, 0),
            .key = pm_sq_text_or(st, 1, NULL),
            .kind = pm_sq_text_or(st, 2, NULL),
            .workload = {.family = pm_sq_text_or(st, 3, NULL), .size = pm_sq_text_or(st, 4, NULL),
                         .window = sqlite3_column_int(st, 5), .precision = pm_sq_text_or(st, 6, NULL),
                         .resolution = sqlite3_column_int(st, 7)},
            .variant = pm_sq_text_or(st, 9, NULL),
        };
        pm_workload_set_depth(&r.workload, r.kind, sqlite3_column_int(st, 8));
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_config_params(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_param_row *), void *ctx,
                        pm_err *err)
{
    sqlite3_stmt *st = NULL;
    /* a read-only open of a file older than schema 3 has no config_param table */
    int has = pm_sq_has_table(db, "config_param");
    if (has < 0)
        return pm_err_set(err, PM_ERR_DB, "config parameters: %s", sqlite3_errmsg(db));
    /* The workload columns as parameters too, named as migration v4 names them, for configs that lack them
     * (a file older than v4 opened read-only, a config stored without its axes): the analysis keys its
     * figures on parameters only. */
#define DERIVED                                                                                              \
    "(SELECT id, sweep_id, 'family' AS name, family AS value FROM config UNION ALL "                         \
    "SELECT id, sweep_id, 'size', size FROM config UNION ALL "                                               \
    "SELECT id, sweep_id, 'window', CAST(window AS TEXT) FROM config UNION ALL "                             \
    "SELECT id, sweep_id, 'resolution', CAST(resolution AS TEXT) FROM config UNION ALL "                     \
    "SELECT id, sweep_id, 'precision', precision FROM config UNION ALL "                                     \
    "SELECT id, sweep_id, CASE kind WHEN 'cnn' THEN 'blocks' ELSE 'layers' END, CAST(layers AS TEXT) FROM config)"
    static const char with_table[] =
        "SELECT id, name, value FROM (SELECT p.config_id AS id, c.sweep_id AS sweep_id, p.name AS name, "
        "p.value AS value FROM config_param p JOIN config c ON c.id = p.config_id UNION ALL "
        "SELECT dv.id, dv.sweep_id, dv.name, dv.value FROM " DERIVED " dv WHERE NOT EXISTS "
        "(SELECT 1 FROM config_param q WHERE q.config_id = dv.id AND q.name = dv.name)) "
        "WHERE value IS NOT NULL AND sweep_id IN (%s) ORDER BY 1, 2";
    static const char without[] =
        "SELECT id, name, value FROM " DERIVED " WHERE value IS NOT NULL AND sweep_id IN (%s) ORDER BY 1, 2";
#undef DERIVED
    int rc = pm_sq_prepare_ids(db, has ? with_table : without, s, &st, err);

    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_param_row r = {sqlite3_column_int64(st, 0), pm_sq_text_or(st, 1, ""), pm_sq_text_or(st, 2, "")};
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_runs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_run_row *), void *ctx,
               pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare_ids(db,
                         /* the runs scanned in id order, each config looked up (CROSS JOIN keeps the order):
                          * no sort for the ORDER BY, which cost half the query */
                         "SELECT r.id, r.config_id, r.mode, r.status, r.wall_s, r.user_s, r.note FROM run r "
                         "CROSS JOIN config c ON c.id=r.config_id WHERE c.sweep_id IN (%s) ORDER BY r.id",
                         s, &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_run_row r = {
            .id = sqlite3_column_int64(st, 0),
            .config_id = sqlite3_column_int64(st, 1),
            .mode = pm_sq_text_or(st, 2, NULL),
            .status = pm_sq_text_or(st, 3, NULL),
            .wall_s = sqlite3_column_double(st, 4),
            .user_s = pm_sq_real_or_neg(st, 5),
            .note = pm_sq_text_or(st, 6, NULL),
        };
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_scope_begin(sqlite3 *db, const pm_sq_sweeps *s, pm_err *err)
{
    if (sqlite3_exec(db,
                     "DROP TABLE IF EXISTS temp.pm_an_run;"
                     "CREATE TEMP TABLE pm_an_run(id INTEGER PRIMARY KEY, cfg INTEGER, cold INTEGER);",
                     NULL, NULL, NULL))
        return pm_sq_db_fail(db, err);
    /* runs in id order (CROSS JOIN: the run scan outside), so the temp table's rows are appended in key order */
    char *sql = sql_with_ids("INSERT INTO temp.pm_an_run SELECT r.id, r.config_id, r.mode='cold' FROM run r CROSS "
                             "JOIN config c ON c.id=r.config_id WHERE c.sweep_id IN (%s) AND r.status='ok' AND "
                             "r.mode IN ('cold','warm')",
                             s);
    if (!sql)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL) ? pm_sq_db_fail(db, err) : PM_OK;
    free(sql);
    return rc;
}

void pm_sq_scope_end(sqlite3 *db)
{
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.pm_an_run;", NULL, NULL, NULL);
}

int pm_sq_incomplete(sqlite3 *db, int64_t sweep_id, char **note, int *unfinished, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    *note = NULL;
    *unfinished = 0;
    int rc = pm_sq_prepare(db, "SELECT m.value, m.key = 'merging:' || s.name FROM meta m JOIN sweep s "
                         "ON m.key IN ('incomplete:' || s.name, 'merging:' || s.name) "
                         "WHERE s.id = ?1 AND m.value <> '' ORDER BY 2 DESC LIMIT 1", &st, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, sweep_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW && !(*note = strdup((const char *)sqlite3_column_text(st, 0))))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (step == SQLITE_ROW)
        *unfinished = sqlite3_column_int(st, 1);
    return pm_sq_scan_done(db, st, rc, step == SQLITE_ROW ? SQLITE_DONE : step, err);
}
