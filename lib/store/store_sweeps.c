/* Sweep listing and run counts (see store_sweeps.h). */
#include "util.h"
#include "store_sweeps.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static char *col_dup(sqlite3_stmt *s, int i, int *oom)
{
    const unsigned char *v = sqlite3_column_text(s, i);
    char *d = strdup(v ? (const char *)v : "");
    *oom |= !d;
    return d;
}

void pm_store_sweep_rows_free(pm_store_sweep_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        pm_free_all(rows[i].name, rows[i].backend, rows[i].spec_text, rows[i].meta_json);
    }
    free(rows);
}

int pm_store_list_sweeps(pm_store *st, pm_store_sweep_row **rows, size_t *n, pm_err *err)
{
    *rows = NULL;
    *n = 0;
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    size_t cap = 0;
    int rc = PM_OK, oom = 0, step;
    const char *sql = pm_store_has_superseded(db)
                          ? "SELECT name, backend, spec_text, meta_json, superseded_by IS NOT NULL FROM sweep ORDER BY id"
                          : "SELECT name, backend, spec_text, meta_json, 0 FROM sweep ORDER BY id";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "store: listing sweeps: %s", sqlite3_errmsg(db));
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_store_sweep_row *r = pm_push(rows, &cap, n, sizeof *r, 8);
        if (!r) {
            oom = 1;
            break;
        }
        r->name = col_dup(s, 0, &oom);
        r->backend = col_dup(s, 1, &oom);
        r->spec_text = col_dup(s, 2, &oom);
        r->meta_json = col_dup(s, 3, &oom);
        r->superseded = sqlite3_column_int(s, 4);
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "store: out of memory");
    else if (step != SQLITE_DONE)
        rc = pm_err_set(err, PM_ERR_DB, "store: listing sweeps: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    if (rc) {
        pm_store_sweep_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

int pm_store_count_runs(pm_store *st, const char *sweep, const char *key, const char *mode, int *n, pm_err *err)
{
    *n = 0;
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM run JOIN config ON config.id = run.config_id "
                           "JOIN sweep ON sweep.id = config.sweep_id "
                           "WHERE sweep.name = ?1 AND config.key = ?2 AND run.mode = ?3",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "store: counting runs: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, mode, -1, SQLITE_TRANSIENT);
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW)
        *n = sqlite3_column_int(s, 0);
    else
        rc = pm_err_set(err, PM_ERR_DB, "store: counting runs: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc;
}

int pm_store_add_config_metric(pm_store *st, const char *sweep, const char *key, const char *name, double value,
                               int *added, pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    *added = 0;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO metric(run_id, name, value) SELECT r.id, ?3, ?4 FROM run r JOIN config c ON "
                           "c.id = r.config_id JOIN sweep w ON w.id = c.sweep_id WHERE w.name = ?1 AND c.key = ?2 AND "
                           "NOT EXISTS (SELECT 1 FROM metric m WHERE m.run_id = r.id AND m.step_id IS NULL AND "
                           "m.name = ?3)",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "store: adding metric %s: %s", name, sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 4, value);
    int rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK
                                             : pm_err_set(err, PM_ERR_DB, "store: adding metric %s to %s: %s", name,
                                                          key, sqlite3_errmsg(db));
    if (rc == PM_OK)
        *added = sqlite3_changes(db);
    sqlite3_finalize(s);
    return rc;
}

int pm_store_metric_sums(pm_store *st, const char *sweep, const char *key, const char *name, double **values,
                         int **counts, size_t *n, pm_err *err)
{
    *values = NULL;
    *counts = NULL;
    *n = 0;
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    /* NAME.<digits>: GLOB's '*' only after the literal prefix, compared with substr so a '_' or '%' in NAME
     * is never a wildcard */
    if (sqlite3_prepare_v2(db,
                           "SELECT sum(m.value), count(m.value) FROM run r JOIN config c ON c.id = r.config_id "
                           "JOIN sweep w ON w.id = c.sweep_id JOIN metric m ON m.run_id = r.id "
                           "WHERE w.name = ?1 AND c.key = ?2 AND r.mode = 'cold' AND r.status = 'ok' AND "
                           "(m.name = ?3 OR (substr(m.name, 1, length(?3) + 1) = ?3 || '.' AND "
                           "substr(m.name, length(?3) + 2) GLOB '[0-9]*' AND "
                           "substr(m.name, length(?3) + 2) NOT GLOB '*[^0-9]*')) "
                           "GROUP BY r.id ORDER BY r.repeat, r.id",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "store: reading metric %s: %s", name, sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_TRANSIENT);
    int rc = PM_OK, step;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            double *nv = realloc(*values, nc * sizeof *nv);
            if (nv)
                *values = nv;
            int *nn = realloc(*counts, nc * sizeof *nn);
            if (nn)
                *counts = nn;
            if (!nv || !nn) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            cap = nc;
        }
        (*values)[*n] = sqlite3_column_double(s, 0);
        (*counts)[*n] = sqlite3_column_int(s, 1);
        (*n)++;
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = pm_err_set(err, PM_ERR_DB, "store: reading metric %s of %s: %s", name, key, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    if (rc) {
        free(*values);
        free(*counts);
        *values = NULL;
        *counts = NULL;
        *n = 0;
    }
    return rc;
}
