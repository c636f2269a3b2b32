/* Per-pass instruction counts (the callgrind meter, docs/meters.md): one pass_count row per counted row of a
 * step's report, beside its pass_time row (the same step_id, idx), with the count or why there is none.
 *
 *   pass_count(step_id, idx, instructions, how, why)   instructions NULL: not counted (why says why); how: "timer"
 *                                                      (the wrapper's timer dumps) or "symbol" (an exported entry
 *                                                      point's inclusive count)
 *
 * The step's own count (the process tree's, the meter's) stays step.instructions. */
#include "store_passcount.h"
#include "store_query_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

int pm_store_record_passcount(sqlite3 *db, const char *path, int64_t step_id, const pm_passcount *pc, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO pass_count(step_id, idx, instructions, how, why) VALUES(?1, ?2, ?3, ?4, ?5)",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "%s: pass counts: %s", path, sqlite3_errmsg(db));
    int rc = PM_OK;
    for (size_t i = 0; i < pc->n && rc == PM_OK; i++) {
        const pm_pass_count *c = &pc->rows[i];
        sqlite3_reset(s);
        int brc = sqlite3_bind_int64(s, 1, step_id) | sqlite3_bind_int64(s, 2, (int64_t)c->pass) |
            (c->count >= 0 ? sqlite3_bind_int64(s, 3, c->count) : sqlite3_bind_null(s, 3)) |
            (c->how ? sqlite3_bind_text(s, 4, c->how, -1, SQLITE_STATIC) : sqlite3_bind_null(s, 4)) |
            (c->why ? sqlite3_bind_text(s, 5, c->why, -1, SQLITE_STATIC) : sqlite3_bind_null(s, 5));
        if (brc != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
            rc = pm_err_set(err, PM_ERR_DB, "%s: pass count: %s", path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    return rc;
}

void pm_config_passcounts_free(pm_config_passcounts *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        pm_free_all(c->rows[i].tool, c->rows[i].pass, c->rows[i].why);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static char *dup_col(sqlite3_stmt *s, int i, int *oom)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    char *d = t ? strdup((const char *)t) : NULL;
    if (t && !d)
        *oom = 1;
    return d;
}

/* The steps' totals: runs, and the process-tree count of the steps that have pass counts */
static int read_totals(sqlite3 *db, int64_t config_id, pm_config_passcounts *out, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(DISTINCT r.id), coalesce(sum(s.instructions), 0) FROM run r "
                           "JOIN step s ON s.run_id = r.id WHERE r.config_id = ?1 AND r.mode = 'cold' AND "
                           "r.status = 'ok' AND EXISTS (SELECT 1 FROM pass_count c WHERE c.step_id = s.id)",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "pass counts: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, config_id);
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW) {
        out->n_runs = sqlite3_column_int(s, 0);
        out->process = sqlite3_column_double(s, 1);
    } else {
        rc = pm_err_set(err, PM_ERR_DB, "pass counts: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    return rc;
}

int pm_store_config_passcounts(sqlite3 *db, int64_t config_id, pm_config_passcounts *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    if (pm_sq_has_table(db, "pass_count") <= 0)
        return PM_OK; /* a store from before per-pass counts: none */
    int rc = read_totals(db, config_id, out, err);
    if (rc != PM_OK || !out->n_runs)
        return rc;
    /* per (tool, pass name) over the config's ok cold runs: sums of counts and of the same rows' wall, in the
     * order the passes first ran */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.tool, n.name, sum(c.instructions), sum(p.wall_s), count(c.instructions), "
                           "min(c.why), min(c.how) FROM run r JOIN step s ON s.run_id = r.id JOIN pass_count c ON "
                           "c.step_id = s.id JOIN pass_time p ON p.step_id = c.step_id AND p.idx = c.idx JOIN "
                           "pass_name n ON n.id = p.name_id WHERE r.config_id = ?1 AND r.mode = 'cold' AND "
                           "r.status = 'ok' GROUP BY s.tool, n.name ORDER BY min(s.seq), min(c.idx)",
                           -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "pass counts: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, config_id);
    size_t cap = 0;
    int step, oom = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_stored_passcount *r = pm_push(&out->rows, &cap, &out->n, sizeof *r, 32);
        if (!r) {
            oom = 1;
            break;
        }
        int counted = sqlite3_column_int(s, 4);
        *r = (pm_stored_passcount){.tool = dup_col(s, 0, &oom),
                                   .pass = dup_col(s, 1, &oom),
                                   .instructions = counted ? sqlite3_column_double(s, 2) / out->n_runs : -1,
                                   .wall_s = sqlite3_column_double(s, 3) / out->n_runs,
                                   .n_counted = counted,
                                   .why = counted ? NULL : dup_col(s, 5, &oom)};
        const unsigned char *how = sqlite3_column_text(s, 6);
        r->by_timer = how && !strcmp((const char *)how, "timer");
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    else if (step != SQLITE_DONE && step != SQLITE_ROW)
        rc = pm_err_set(err, PM_ERR_DB, "pass counts: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    if (rc != PM_OK)
        pm_config_passcounts_free(out);
    return rc;
}
