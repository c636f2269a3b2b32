/* pm_sq_cold_hosts: which machine measured the analysed runs (store_query.h). */
#include "store_query.h"

int pm_sq_cold_hosts(sqlite3 *db, int (*fn)(void *, const pm_sq_host_row *), void *ctx, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    /* A database written before hosts were recorded (schema 1, opened read-only) has no host table. */
    int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'host'", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "hosts: %s", sqlite3_errmsg(db));
    int has_hosts = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!has_hosts)
        return PM_OK;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.cfg, h.name, h.fingerprint, h.cpu_model, h.cores, h.kernel, h.compiler, count(*)\n"
                           "FROM temp.pm_an_run r JOIN run x ON x.id = r.id JOIN host h ON h.id = x.host_id\n"
                           "WHERE r.cold GROUP BY r.cfg, h.id ORDER BY r.cfg, h.name, h.fingerprint",
                           -1, &st, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "hosts: %s", sqlite3_errmsg(db));
    rc = PM_OK;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
#define TXT(i) (sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "")
        pm_sq_host_row row = {.config_id = sqlite3_column_int64(st, 0), .name = TXT(1), .fingerprint = TXT(2),
                              .cpu_model = TXT(3), .cores = sqlite3_column_int(st, 4), .kernel = TXT(5),
                              .compiler = TXT(6), .n_runs = sqlite3_column_int(st, 7)};
#undef TXT
        if ((rc = fn(ctx, &row)) != PM_OK)
            break;
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = pm_err_set(err, PM_ERR_DB, "hosts: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}
