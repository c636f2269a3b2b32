/* pm_sq_flagcost_steps (store_flagcost.h). */
#include "store_flagcost.h"

static int fail(sqlite3 *db, pm_err *err)
{
    return pm_err_set(err, PM_ERR_DB, "timing flags query: %s", sqlite3_errmsg(db));
}

int pm_sq_flagcost_steps(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_flagcost_row *), void *ctx,
                         pm_err *err)
{
    sqlite3_stmt *has = NULL, *st = NULL;
    int rc = PM_OK;
    /* run_key (config_id, mode, repeat) answers this per config without reading the runs */
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM config c WHERE c.sweep_id = ?1 AND EXISTS (SELECT 1 FROM run r WHERE "
                           "r.config_id = c.id AND r.mode = 'plain') LIMIT 1",
                           -1, &has, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT r.config_id, s.seq, r.repeat, r.mode = 'plain', s.tool, s.argv, s.wall_s,\n"
                           "  CASE WHEN s.user_s IS NULL OR s.sys_s IS NULL THEN -1 ELSE s.user_s + s.sys_s END\n"
                           "FROM config c JOIN run r ON r.config_id = c.id JOIN step s ON s.run_id = r.id\n"
                           "WHERE c.sweep_id = ?1 AND r.mode IN ('cold', 'plain') AND r.status = 'ok'\n"
                           "  AND s.status = 'ok' AND s.wall_s IS NOT NULL AND s.tool IS NOT NULL\n"
                           "  AND EXISTS (SELECT 1 FROM run p WHERE p.config_id = c.id AND p.mode = 'plain')\n"
                           "ORDER BY s.tool, r.config_id, s.seq, r.repeat, r.mode",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = fail(db, err);
        goto cleanup;
    }
    for (size_t i = 0; i < s->n && !rc; i++) {
        sqlite3_reset(has);
        sqlite3_bind_int64(has, 1, s->ids[i]);
        int step = sqlite3_step(has);
        if (step == SQLITE_DONE)
            continue;
        if (step != SQLITE_ROW) {
            rc = fail(db, err);
            break;
        }
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, s->ids[i]);
        while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
            pm_sq_flagcost_row r = {
                .config_id = sqlite3_column_int64(st, 0),
                .seq = sqlite3_column_int(st, 1),
                .repeat = sqlite3_column_int(st, 2),
                .plain = sqlite3_column_int(st, 3),
                .tool = (const char *)sqlite3_column_text(st, 4),
                .argv = sqlite3_column_text(st, 5) ? (const char *)sqlite3_column_text(st, 5) : "",
                .wall_s = sqlite3_column_double(st, 6),
                .cpu_s = sqlite3_column_double(st, 7),
            };
            rc = fn(ctx, &r);
        }
        if (!rc && step != SQLITE_DONE)
            rc = fail(db, err);
    }
cleanup:
    sqlite3_finalize(has);
    sqlite3_finalize(st);
    return rc;
}
