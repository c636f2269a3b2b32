/* The reads of `passmap compare` and the report's connection (see store_compare.h). */
#include "store_compare.h"

#include <limits.h>
#include <stdlib.h>

#include "parse_report.h"
#include "store_runs.h"

static int db_fail(sqlite3 *db, const char *path, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}

int pm_store_sweep_list(pm_store *st, int (*fn)(void *user, int64_t id, const char *name), void *user,
                        pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, name FROM sweep ORDER BY name", -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "list sweeps");
    int rc = PM_OK, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if ((rc = fn(user, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1))) != PM_OK)
            break;
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = db_fail(db, pm_store_path(st), err, "list sweeps");
    sqlite3_finalize(s);
    return rc;
}

int pm_store_configs_of_sweep(pm_store *st, int64_t sweep_id,
                              int (*fn)(void *user, int64_t id, const char *key, const char *variant), void *user,
                              pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, key, variant FROM config WHERE sweep_id = ?1", -1, &s, NULL)
        != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "list configs");
    sqlite3_bind_int64(s, 1, sweep_id);
    int rc = PM_OK, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        if ((rc = fn(user, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
                     (const char *)sqlite3_column_text(s, 2))) != PM_OK)
            break;
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = db_fail(db, pm_store_path(st), err, "list configs");
    sqlite3_finalize(s);
    return rc;
}

/* A cold run with an uninstrumented twin (run mode "plain": its steps without their timing_flag) is measured by
 * the twin: the timers' own cost is no part of a wall verdict. Its passes and steps are the cold run's shares
 * (the twin reads no report), keyed by the cold run's id and scaled to the twin's wall by the last column: the
 * twin's wall over the cold run's (1 without a twin). */
static const char *const runs_sql =
    "SELECT r.id, CASE WHEN p.id IS NULL THEN r.wall_s ELSE p.wall_s END,\n"
    "  coalesce(CASE WHEN p.id IS NULL THEN r.user_s ELSE p.user_s END, -1),\n"
    "  coalesce(CASE WHEN p.id IS NULL THEN r.sys_s ELSE p.sys_s END, -1), (SELECT CASE WHEN count(*) > 0 AND "
    "count(*) = count(s.instructions) THEN sum(s.instructions) ELSE -1 END FROM step s WHERE s.run_id = "
    "coalesce(p.id, r.id)),\n"
    "  CASE WHEN p.wall_s > 0 AND r.wall_s > 0 THEN p.wall_s / r.wall_s ELSE 1.0 END\n"
    "FROM run r LEFT JOIN run p ON p.id = (SELECT t.id FROM run t WHERE r.mode = 'cold' AND t.config_id = "
    "r.config_id AND t.mode = 'plain' AND t.repeat = r.repeat AND t.status = 'ok' ORDER BY t.id DESC LIMIT 1)\n"
    "WHERE r.config_id = ?1 AND r.mode = ?3 AND r.status = 'ok' AND r.repeat < ?2 ORDER BY r.id";
/* coalesce(tool, '') keeps the BINARY order the caller merges rows by free of NULLs. */
/* Columns: run, tool, pass, time, the report format the time was read from (NULL: the runner's clock), readings. */
static const char *const steps_sql =
    "SELECT s.run_id, coalesce(s.tool, ''), NULL, sum(s.wall_s), NULL, 1 FROM step s JOIN run r ON r.id = s.run_id\n"
    "WHERE r.config_id = ?1 AND r.mode = ?2 AND r.status = 'ok' AND s.wall_s IS NOT NULL\n"
    "GROUP BY s.run_id, coalesce(s.tool, '') ORDER BY 2, 1";
/* A pass manager's own time (PM_PASS_PIPELINE) is counted in the compile but is no pass: no row of its own. */
_Static_assert(PM_PASS_PIPELINE == 16, "passes_sql names the pipeline flag's bit");
static const char *const passes_sql =
    "SELECT p.run_id, coalesce(p.tool, ''), p.pass, sum(p.wall_s), max(s.report_format), count(*)\n"
    "FROM v_pass p JOIN step s ON s.id = p.step_id\n"
    "WHERE p.config_id = ?1 AND p.mode = ?2 AND p.run_status = 'ok' AND p.counted AND p.wall_s IS NOT NULL\n"
    "  AND (p.flags & 16) = 0\n"
    "GROUP BY p.run_id, coalesce(p.tool, ''), p.pass ORDER BY 2, 3, 1";

struct pm_store_side_cursor {
    sqlite3 *db;
    const char *path;
    sqlite3_stmt *stmt[3];        /* by pm_side_rows; passes NULL when walls only */
    sqlite3_stmt *cur;            /* the scan under way, or NULL */
    pm_side_rows which;
};

void pm_store_side_cursor_close(pm_store_side_cursor *c)
{
    if (!c)
        return;
    for (int i = 0; i < 3; i++)
        sqlite3_finalize(c->stmt[i]);
    free(c);
}

int pm_store_side_cursor_open(pm_store *st, int walls_only, pm_store_side_cursor **out, pm_err *err)
{
    pm_store_side_cursor *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c)
        return pm_err_set(err, PM_ERR_NOMEM, "compare: out of memory");
    c->db = pm_store_db(st);
    c->path = pm_store_path(st);
    int rc = PM_OK;
    if (sqlite3_prepare_v2(c->db, runs_sql, -1, &c->stmt[PM_SIDE_RUNS], NULL) != SQLITE_OK)
        rc = db_fail(c->db, c->path, err, "prepare runs");
    else if (sqlite3_prepare_v2(c->db, steps_sql, -1, &c->stmt[PM_SIDE_STEPS], NULL) != SQLITE_OK ||
             (!walls_only && sqlite3_prepare_v2(c->db, passes_sql, -1, &c->stmt[PM_SIDE_PASSES], NULL) != SQLITE_OK))
        rc = db_fail(c->db, c->path, err, "prepare");
    if (rc != PM_OK) {
        pm_store_side_cursor_close(c);
        return rc;
    }
    *out = c;
    return PM_OK;
}

int pm_store_side_cursor_start(pm_store_side_cursor *c, pm_side_rows which, int64_t config_id, const char *mode,
                               int max_repeats, pm_err *err)
{
    if (c->cur)
        sqlite3_reset(c->cur);
    c->cur = NULL;
    sqlite3_stmt *s = (unsigned)which < 3 ? c->stmt[which] : NULL;
    if (!s)
        return pm_err_set(err, PM_ERR_USAGE, "%s: compare: rows %d were not prepared", c->path, (int)which);
    sqlite3_bind_int64(s, 1, config_id);
    if (which == PM_SIDE_RUNS) {
        sqlite3_bind_int(s, 2, max_repeats > 0 ? max_repeats : INT_MAX);
        sqlite3_bind_text(s, 3, mode, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_text(s, 2, mode, -1, SQLITE_STATIC);
    }
    c->cur = s;
    c->which = which;
    return PM_OK;
}

int pm_store_side_cursor_next(pm_store_side_cursor *c, pm_side_row *row, int *more, pm_err *err)
{
    sqlite3_stmt *s = c->cur;
    *more = 0;
    if (!s)
        return PM_OK;
    int step = sqlite3_step(s);
    if (step != SQLITE_ROW) {
        int rc = step == SQLITE_DONE ? PM_OK
                                     : db_fail(c->db, c->path, err, c->which == PM_SIDE_RUNS ? "query runs" : "query");
        sqlite3_reset(s);
        c->cur = NULL;
        return rc;
    }
    *more = 1;
    row->run_id = sqlite3_column_int64(s, 0);
    if (c->which == PM_SIDE_RUNS) {
        row->has_wall = sqlite3_column_type(s, 1) != SQLITE_NULL;
        if (row->has_wall) {
            row->wall = sqlite3_column_double(s, 1);
            row->user = sqlite3_column_double(s, 2);
            row->sys = sqlite3_column_double(s, 3);
            row->ins = sqlite3_column_double(s, 4);
        }
        row->scale = sqlite3_column_double(s, 5);
        return PM_OK;
    }
    row->tool = (const char *)sqlite3_column_text(s, 1);
    row->pass = (const char *)sqlite3_column_text(s, 2);
    row->value = sqlite3_column_double(s, 3);
    row->format = (const char *)sqlite3_column_text(s, 4);
    row->reads = sqlite3_column_int64(s, 5);
    return PM_OK;
}

int pm_store_open_report(const char *path, sqlite3 **db, pm_err *err)
{
    int rc = pm_store_open_sqlite_readonly(path, db, err);
    if (rc != PM_OK)
        return rc;
    /* mmap reads skip a copy per page on the one big scan; temp tables stay in memory. A refusal (e.g. no mmap
     * on this build) only costs speed. */
    sqlite3_exec(*db, "PRAGMA mmap_size=1073741824; PRAGMA temp_store=MEMORY;", NULL, NULL, NULL);
    return PM_OK;
}
