/* A config's cold samples and run passes, and the aggregates the writers keep (store_query.h). */
#include "store_query_internal.h"

int pm_sq_cold_walls(sqlite3 *db, int64_t config_id, double **walls, size_t *n, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    *walls = NULL;
    *n = 0;
    int rc = pm_sq_prepare(db,
                     "SELECT wall_s FROM run WHERE config_id=?1 AND mode='cold' AND status='ok' AND "
                     "wall_s IS NOT NULL ORDER BY id",
                     &st, err);
    if (!rc)
        sqlite3_bind_int64(st, 1, config_id);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        double *p = pm_grow(*walls, &cap, *n, sizeof *p, 16);
        if (!p) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        *walls = p;
        (*walls)[(*n)++] = sqlite3_column_double(st, 0);
    }
    if ((rc = pm_sq_scan_done(db, st, rc, step, err))) {
        free(*walls);
        *walls = NULL;
        *n = 0;
    }
    return rc;
}

void pm_sq_samples_free(pm_sq_samples *s)
{
    pm_free_all(s->wall, s->user, s->sys, s->instructions);
    memset(s, 0, sizeof *s);
}

int pm_sq_cold_samples(sqlite3 *db, int64_t config_id, pm_sq_samples *out, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    int rc = pm_sq_prepare(db,
                     "SELECT r.wall_s, coalesce(r.user_s, -1), coalesce(r.sys_s, -1), (SELECT CASE WHEN "
                     "count(*) > 0 AND count(*) = count(s.instructions) THEN sum(s.instructions) ELSE -1 "
                     "END FROM step s WHERE s.run_id = r.id) FROM run r WHERE r.config_id=?1 AND "
                     "r.mode='cold' AND r.status='ok' AND r.wall_s IS NOT NULL ORDER BY r.id",
                     &st, err);
    if (!rc)
        sqlite3_bind_int64(st, 1, config_id);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            double *w = realloc(out->wall, cap * sizeof *w);
            out->wall = w ? w : out->wall;
            double *u = w ? realloc(out->user, cap * sizeof *u) : NULL;
            out->user = u ? u : out->user;
            double *y = u ? realloc(out->sys, cap * sizeof *y) : NULL;
            out->sys = y ? y : out->sys;
            double *i = y ? realloc(out->instructions, cap * sizeof *i) : NULL;
            out->instructions = i ? i : out->instructions;
            if (!i) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
        }
        out->wall[out->n] = sqlite3_column_double(st, 0);
        out->user[out->n] = sqlite3_column_double(st, 1);
        out->sys[out->n] = sqlite3_column_double(st, 2);
        out->instructions[out->n++] = sqlite3_column_double(st, 3);
    }
    if ((rc = pm_sq_scan_done(db, st, rc, step, err)))
        pm_sq_samples_free(out);
    return rc;
}

int pm_sq_cold_run_passes(sqlite3 *db, int64_t config_id, int (*fn)(void *, const pm_sq_run_pass_row *), void *ctx,
                          pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare(db,
                     "SELECT r.id, r.wall_s, s.tool, n.name, p.wall_s FROM run r JOIN step s ON "
                     "s.run_id = r.id JOIN pass_time p ON p.step_id = s.id JOIN pass_name n ON "
                     "n.id = p.name_id WHERE r.config_id = ?1 AND r.mode = 'cold' AND r.status = 'ok' "
                     "AND r.wall_s IS NOT NULL AND p.counted ORDER BY r.id, s.id, p.idx",
                     &st, err);
    if (!rc)
        sqlite3_bind_int64(st, 1, config_id);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_run_pass_row r = {.run_id = sqlite3_column_int64(st, 0), .run_wall_s = sqlite3_column_double(st, 1),
                                .tool = pm_sq_text_or(st, 2, ""), .name = pm_sq_text_or(st, 3, ""),
                                .wall_s = sqlite3_column_double(st, 4)};
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_tools_cpu_wall(sqlite3 *db, int64_t sweep_id, double *max, double *min, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    double *v = NULL, m;
    size_t n = 0, cap = 0;
    char tool[256] = "";
    *max = *min = NAN;
    int rc = pm_sq_prepare(db,
                     "SELECT tool, (user_s + sys_s) / wall_s FROM startup WHERE sweep_id=?1 AND "
                     "status='ok' AND wall_s > 0 AND user_s >= 0 AND sys_s >= 0 ORDER BY tool",
                     &st, err);
    if (!rc)
        sqlite3_bind_int64(st, 1, sweep_id);
    int step = SQLITE_DONE;
    for (;;) {
        step = rc ? SQLITE_DONE : sqlite3_step(st);
        const char *t = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (n && (!t || strcmp(t, tool))) {   /* a tool's rows end: its median */
            if (pm_stats_quantile(v, n, 0.5, &m) == 0) {
                if (isnan(*max) || m > *max)
                    *max = m;
                if (isnan(*min) || m < *min)
                    *min = m;
            }
            n = 0;
        }
        if (!t)
            break;
        snprintf(tool, sizeof tool, "%s", t);
        double *p = pm_grow(v, &cap, n, sizeof *p, 8);
        if (!p) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            continue;
        }
        v = p;
        v[n++] = sqlite3_column_double(st, 1);
    }
    rc = pm_sq_scan_done(db, st, rc, step, err);
    free(v);
    return rc;
}

int pm_sq_agg_ready(sqlite3 *db, int *ready, pm_err *err)
{
    *ready = 0;
    if (pm_sq_has_table(db, "agg_run") <= 0 || pm_sq_has_table(db, "agg_cfg_pass") <= 0 || pm_sq_has_table(db, "pass_name") <= 0)
        return PM_OK;   /* a file older than schema 8, read as it is */
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare(db,
                     "SELECT NOT EXISTS (SELECT 1 FROM temp.pm_an_run r WHERE NOT EXISTS "
                     "(SELECT 1 FROM agg_run a WHERE a.run_id = r.id))",
                     &st, err);
    return pm_sq_scan_int(db, st, rc, ready, err);
}

int pm_sq_agg_pass_stages(sqlite3 *db, int (*fn)(void *, const char *, const char *, const char *), void *ctx,
                          pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare(db, "SELECT a.tool, n.name, a.stage FROM agg_pass_stage a JOIN pass_name n ON n.id = a.name_id",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = fn(ctx, pm_sq_text_or(st, 0, ""), pm_sq_text_or(st, 1, ""), pm_sq_text_or(st, 2, ""));
    return pm_sq_scan_done(db, st, rc, step, err);
}

/* A (tool, pass) of the scoped configs' sums and where it first appears (agg_cfg_pass.first_run/first_pos). */
typedef struct sq_first {
    int64_t nid, run, pos;
    int ti, next;   /* next: the pass id's next tool (a chain from first[nid]) */
    size_t slot;    /* its place in scan order (the rows' pm_sq_agg_pass_row.slot) */
} sq_first;

static int cmp_first(const void *pa, const void *pb)
{
    const sq_first *a = pa, *b = pb;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

#define SQ_AGG_SCOPE "FROM agg_cfg_pass a WHERE a.config_id IN (SELECT DISTINCT cfg FROM temp.pm_an_run)"

int pm_sq_agg_cfg_passes(sqlite3 *db, int (*key_fn)(void *, const char *, const char *, int64_t, size_t),
                         int (*fn)(void *, const pm_sq_agg_pass_row *), void *ctx, pm_err *err)
{
    sq_steps ss = {0};   /* for its tool list and names by id */
    sqlite3_stmt *st = NULL;
    sq_first *v = NULL;
    int *head = NULL;
    size_t n = 0, cap = 0;
    int rc = pm_sq_load_names(db, &ss, err), step = SQLITE_DONE;
    if (rc)
        goto cleanup;
    if (!(head = malloc(((size_t)ss.n_names + 1) * sizeof *head))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int64_t i = 0; i <= ss.n_names; i++)
        head[i] = -1;
    /* One scan: the sums, each with its pass's slot (the distinct passes in scan order), and each pass's earliest
     * (first_run, first_pos) over the configs, sorted here afterwards, as SQLite's ORDER BY over every (config,
     * pass) row cost half the report (and spilled to disk at 150,000 runs); a second scan for the order alone
     * cost a third of it. */
    rc = pm_sq_prepare(db,
                 "SELECT a.config_id, a.tool, a.name_id, a.wall_s, a.log_s, a.n_log, a.user_s, a.user_wall_s, "
                 "a.first_run, a.first_pos " SQ_AGG_SCOPE,
                 &st, err);
    const char *last_tool = NULL;   /* the tool text of the last row and its index: rows come by tool */
    size_t last_tool_len = 0;
    int last_ti = -1;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t nid = sqlite3_column_int64(st, 2), run = sqlite3_column_int64(st, 8),
                pos = sqlite3_column_int64(st, 9);
        const char *tool = pm_sq_text_or(st, 1, "");
        size_t tool_len = (size_t)sqlite3_column_bytes(st, 1);
        int ti = last_ti;
        if (ti < 0 || tool_len != last_tool_len || memcmp(tool, last_tool, tool_len)) {
            if ((ti = pm_sq_tool_index(&ss, tool)) < 0) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            last_ti = ti;
            last_tool = ss.tools[ti];
            last_tool_len = strlen(last_tool);
        }
        if (nid < 0 || nid >= ss.n_names || !ss.names[nid]) {
            rc = pm_err_set(err, PM_ERR_DB, "agg_cfg_pass names pass id %lld, not in pass_name", (long long)nid);
            break;
        }
        int e = head[nid];
        while (e >= 0 && v[e].ti != ti)
            e = v[e].next;
        if (e >= 0) {
            if (run < v[e].run || (run == v[e].run && pos < v[e].pos))
                v[e].run = run, v[e].pos = pos;
        } else {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                sq_first *p = realloc(v, cap * sizeof *p);
                if (!p) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    break;
                }
                v = p;
            }
            v[n] = (sq_first){nid, run, pos, ti, head[nid], n};
            e = head[nid] = (int)n++;
        }
        pm_sq_agg_pass_row r = {
            .config_id = sqlite3_column_int64(st, 0),
            .tool = ss.tools[ti],
            .name = ss.names[nid],
            .slot = (size_t)e,
            .wall_s = sqlite3_column_double(st, 3),
            .log_s = sqlite3_column_double(st, 4),
            .n_log = sqlite3_column_int(st, 5),
            .user_s = sqlite3_column_double(st, 6),
            .user_wall_s = sqlite3_column_double(st, 7),
        };
        rc = fn(ctx, &r);
    }
    rc = pm_sq_scan_done(db, st, rc, step, err);
    st = NULL;
    if (rc)
        goto cleanup;
    if (n)   /* qsort of a NULL array is undefined even for 0 elements */
        qsort(v, n, sizeof *v, cmp_first);
    /* tools are few; beyond 64 the caller hashes the pair */
    for (size_t i = 0; i < n && !rc; i++)
        rc = key_fn(ctx, ss.tools[v[i].ti], ss.names[v[i].nid], v[i].ti < 64 ? v[i].nid * 64 + v[i].ti : -1,
                    v[i].slot);
cleanup:
    sqlite3_finalize(st);
    pm_sq_steps_free(&ss);
    free(v);
    free(head);
    return rc;
}

/* A statement's next row: 1 a row, 0 done, -1 an error (rc set). */
static int sq_next(sqlite3 *db, sqlite3_stmt *st, int *rc, pm_err *err)
{
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        return 1;
    if (step != SQLITE_DONE)
        *rc = pm_sq_db_fail(db, err);
    return step == SQLITE_DONE ? 0 : -1;
}

/* temp.pm_an_run JOIN agg_run LEFT JOIN agg_run_stage ORDER BY run id, as a merge of three scans in key order
 * (the scoped runs, and the two tables over the scope's id range): the same rows in the same order as the join,
 * without a b-tree search per run and per stage row (a quarter of the query). */
int pm_sq_agg_runs(sqlite3 *db, int (*fn)(void *, const pm_sq_agg_run_row *), void *ctx, pm_err *err)
{
    sqlite3_stmt *sr = NULL, *sa = NULL, *ss = NULL;
    int rc = pm_sq_prepare(db, "SELECT id FROM temp.pm_an_run ORDER BY id", &sr, err);
    if (!rc)
        rc = pm_sq_prepare(db,
                     "SELECT run_id, pass_sum FROM agg_run WHERE run_id BETWEEN (SELECT min(id) FROM temp.pm_an_run) "
                     "AND (SELECT max(id) FROM temp.pm_an_run) ORDER BY run_id",
                     &sa, err);
    if (!rc)
        rc = pm_sq_prepare(db,
                     "SELECT run_id, stage, wall_s, user_s, user_wall_s FROM agg_run_stage WHERE run_id BETWEEN "
                     "(SELECT min(id) FROM temp.pm_an_run) AND (SELECT max(id) FROM temp.pm_an_run) "
                     "ORDER BY run_id, stage",
                     &ss, err);
    int have_a = rc ? -1 : sq_next(db, sa, &rc, err), have_s = rc ? -1 : sq_next(db, ss, &rc, err);
    while (!rc && sq_next(db, sr, &rc, err) == 1) {
        int64_t id = sqlite3_column_int64(sr, 0);
        while (have_a == 1 && sqlite3_column_int64(sa, 0) < id)
            have_a = sq_next(db, sa, &rc, err);
        if (have_a != 1 || sqlite3_column_int64(sa, 0) != id)
            continue;   /* the inner join: a run without its agg_run row has no row */
        double pass_sum = sqlite3_column_double(sa, 1);
        while (have_s == 1 && sqlite3_column_int64(ss, 0) < id)
            have_s = sq_next(db, ss, &rc, err);
        int any = 0;
        while (!rc && have_s == 1 && sqlite3_column_int64(ss, 0) == id) {
            pm_sq_agg_run_row r = {
                .run_id = id,
                .pass_sum = pass_sum,
                .stage = pm_sq_text_or(ss, 1, NULL),
                .wall_s = sqlite3_column_double(ss, 2),
                .user_s = sqlite3_column_double(ss, 3),
                .user_wall_s = sqlite3_column_double(ss, 4),
            };
            any = 1;
            if ((rc = fn(ctx, &r)))
                break;
            have_s = sq_next(db, ss, &rc, err);
        }
        if (!rc && !any) {   /* the left join: no stage row, one row with none */
            pm_sq_agg_run_row r = {.run_id = id, .pass_sum = pass_sum};
            rc = fn(ctx, &r);
        }
    }
    sqlite3_finalize(sr);
    sqlite3_finalize(sa);
    sqlite3_finalize(ss);
    return rc;
}
