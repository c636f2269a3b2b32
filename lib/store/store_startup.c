/* The start-up table (schema 5): what the sweep measures once per sweep and machine by starting each tool on a
 * null input. Read back by the analysis through store_query.c. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

static int fail(pm_store *st, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s: %s", pm_store_path(st), what, sqlite3_errmsg(pm_store_db(st)));
}

int pm_store_startup_done(pm_store *st, int64_t sweep_id, int64_t host_id, int *done, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    *done = 0;
    if (sqlite3_prepare_v2(pm_store_db(st),
                           "SELECT count(*) FROM startup WHERE sweep_id = ?1 AND host_id IS ?2", -1, &s, NULL))
        return fail(st, err, "start-up done");
    sqlite3_bind_int64(s, 1, sweep_id);
    if (host_id > 0)
        sqlite3_bind_int64(s, 2, host_id);
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW)
        *done = sqlite3_column_int(s, 0) > 0;
    else
        rc = fail(st, err, "start-up done");
    sqlite3_finalize(s);
    return rc;
}

static int bind_time(sqlite3_stmt *s, int i, double v)
{
    return v >= 0 ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}

int pm_store_record_startup(pm_store *st, int64_t sweep_id, int64_t host_id, const pm_startup_row *rows, int n,
                            pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
        return fail(st, err, "start-up: begin");
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO startup(sweep_id, host_id, tool, repeat, status, argv, wall_s, user_s, sys_s, "
                           "note) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, &s, NULL)) {
        rc = fail(st, err, "start-up: prepare");
        goto cleanup;
    }
    for (int i = 0; i < n && rc == PM_OK; i++) {
        const pm_startup_row *r = &rows[i];
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        int b = sqlite3_bind_int64(s, 1, sweep_id) |
                (host_id > 0 ? sqlite3_bind_int64(s, 2, host_id) : sqlite3_bind_null(s, 2)) |
                sqlite3_bind_text(s, 3, r->tool ? r->tool : "", -1, SQLITE_TRANSIENT) |
                sqlite3_bind_int(s, 4, r->repeat) |
                sqlite3_bind_text(s, 5, r->status ? r->status : "failed", -1, SQLITE_TRANSIENT) |
                (r->argv ? sqlite3_bind_text(s, 6, r->argv, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, 6)) |
                bind_time(s, 7, r->wall_s) | bind_time(s, 8, r->user_s) | bind_time(s, 9, r->sys_s) |
                (r->note ? sqlite3_bind_text(s, 10, r->note, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, 10));
        if (b != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
            rc = fail(st, err, "start-up row");
    }
cleanup:
    sqlite3_finalize(s);
    if (rc == PM_OK && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
        rc = fail(st, err, "start-up: commit");
    if (rc != PM_OK && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
