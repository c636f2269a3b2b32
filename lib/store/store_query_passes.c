/* The analysis's pass rows, cold metric means, per-step tools and start-up runs (store_query.h). */
#include "store_query_internal.h"

void pm_sq_steps_free(sq_steps *ss)
{
    pm_free_strs(ss->tools, ss->n_tools);
    free(ss->v);
    for (int64_t i = 0; i < ss->n_names; i++)
        free(ss->names[i]);
    free(ss->names);
}

int pm_sq_tool_index(sq_steps *ss, const char *tool)
{
    for (size_t i = 0; i < ss->n_tools; i++)
        if (!strcmp(ss->tools[i], tool))
            return (int)i;
    char **t = realloc(ss->tools, (ss->n_tools + 1) * sizeof *t);
    if (!t)
        return -1;
    ss->tools = t;
    return (t[ss->n_tools] = strdup(tool)) ? (int)ss->n_tools++ : -1;
}

/* The interned pass names (schema 6), by id. Ids are small (one per distinct name, from 1). */
int pm_sq_load_names(sqlite3 *db, sq_steps *ss, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int64_t max_id = 0;
    int rc = pm_sq_prepare(db, "SELECT coalesce(max(id), 0), count(*) FROM pass_name", &st, err);
    if (!rc && sqlite3_step(st) == SQLITE_ROW) {
        max_id = sqlite3_column_int64(st, 0);
        /* sparse ids (a hand-edited file) would make the table long: the bound is the row count, a few times */
        if (max_id < 0 || max_id > 4 * sqlite3_column_int64(st, 1) + 1024)
            rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "pass_name: ids up to %lld for %lld names", (long long)max_id,
                            (long long)sqlite3_column_int64(st, 1));
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc)
        return rc;
    if (!(ss->names = calloc((size_t)max_id + 1, sizeof *ss->names)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ss->n_names = max_id + 1;
    rc = pm_sq_prepare(db, "SELECT id, name FROM pass_name", &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id >= ss->n_names)
            continue;   /* not reached: max(id) bounds them */
        if (!(ss->names[id] = strdup(pm_sq_text_or(st, 1, ""))))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_counted_passes(sqlite3 *db, int (*fn)(void *, const pm_sq_pass_row *), void *ctx, pm_err *err)
{
    /* The scoped steps first (one row per process, in id order), then the pass rows of their id range in the
     * table's own order (step_id, idx), matched to the steps by a merge walk. Joining step to pass_time in SQL
     * cost as much again as reading the pass rows (measured on the 15,000-run bench store: 0.85 s of user time
     * for the join, 0.43 s for the range scan); the per-(tool, pass) hash stays in C. A schema-6 file stores
     * name ids: the row's key is (name id, tool), so the reader hashes each pair once, not each row (an older
     * file, read as it is, gives the text and no key). */
    sq_steps ss = {0};
    sqlite3_stmt *st = NULL;
    int interned = pm_sq_has_table(db, "pass_name") > 0;
    int rc = pm_sq_prepare(db,
                     "SELECT s.id, s.run_id, s.tool FROM temp.pm_an_run r JOIN step s ON s.run_id=r.id "
                     "ORDER BY s.id",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sq_step *v = pm_grow(ss.v, &ss.cap, ss.n, sizeof *v, 1024);
        if (!v) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        ss.v = v;
        int ti = pm_sq_tool_index(&ss, pm_sq_text_or(st, 2, ""));
        if (ti < 0) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        ss.v[ss.n++] = (sq_step){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), ss.tools[ti], ti};
    }
    rc = pm_sq_scan_done(db, st, rc, step, err);
    st = NULL;
    if (rc || !ss.n)
        goto cleanup;
    if (interned && (rc = pm_sq_load_names(db, &ss, err)))
        goto cleanup;
    rc = pm_sq_prepare(db,
                 /* no upper bound: the walk stops past the last step, and the bound cost a key
                  * comparison per row (4% of the scan); every sqlite3_column_* call counts here */
                 interned ? "SELECT step_id, name_id, wall_s, coalesce(user_s, -1.0) FROM pass_time "
                            "WHERE step_id >= ?1 AND counted ORDER BY step_id, idx"
                          : "SELECT step_id, name, wall_s, coalesce(user_s, -1.0) FROM pass_time WHERE "
                            "step_id >= ?1 AND counted ORDER BY step_id, idx",
                 &st, err);
    if (rc)
        goto cleanup;
    sqlite3_bind_int64(st, 1, ss.v[0].id);
    size_t k = 0;
    step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        while (k < ss.n && ss.v[k].id < id)
            k++;
        if (k == ss.n)
            break;   /* past the last scoped step: the rest is out of scope */
        if (ss.v[k].id != id)
            continue;   /* a step of a run outside the scope (another sweep, a failed run) */
        pm_sq_pass_row r = {
            .run_id = ss.v[k].run_id,
            .tool = ss.v[k].tool,
            .wall_s = sqlite3_column_double(st, 2),
            .user_s = sqlite3_column_double(st, 3),   /* NULL (not recorded) is -1 already: one call less a row */
            .key = -1,
        };
        if (interned) {
            int64_t nid = sqlite3_column_int64(st, 1);
            if (nid < 0 || nid >= ss.n_names || !ss.names[nid]) {
                rc = pm_err_set(err, PM_ERR_DB, "pass_time of step %lld names pass id %lld, not in pass_name",
                                (long long)id, (long long)nid);
                break;
            }
            r.name = ss.names[nid];
            r.key = nid * (int64_t)ss.n_tools + ss.v[k].tool_idx;
        } else {
            r.name = pm_sq_text_or(st, 1, "");
        }
        rc = fn(ctx, &r);
    }
    rc = pm_sq_scan_done(db, st, rc, step == SQLITE_ROW ? SQLITE_DONE : step, err);   /* ROW: stopped past the scope */
    st = NULL;
cleanup:
    sqlite3_finalize(st);
    pm_sq_steps_free(&ss);
    return rc;
}

static int sq_same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static size_t sq_group_hash(int64_t cfg, int name)
{
    uint64_t h = (uint64_t)cfg * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(unsigned)name * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 31));
}

/* Interned names of one scan (few: metric names, tools), NULL a name of its own; found by a comparison with the
 * last one met first, as rows come in runs of the same few names. */
typedef struct sq_names {
    char **s;
    size_t n, cap, last;
} sq_names;

/* The index of name (NULL included) in *nm, added at first sight; -1: out of memory. */
static int sq_name_ix(sq_names *nm, const char *name)
{
    if (nm->last < nm->n && sq_same_text(nm->s[nm->last], name))
        return (int)nm->last;
    for (size_t i = 0; i < nm->n; i++)
        if (sq_same_text(nm->s[i], name))
            return (int)(nm->last = i);
    char **p = pm_grow(nm->s, &nm->cap, nm->n, sizeof *p, 8);
    if (!p)
        return -1;
    nm->s = p;
    if (name && !(p[nm->n] = strdup(name)))
        return -1;
    if (!name)
        p[nm->n] = NULL;
    return (int)(nm->last = nm->n++);
}

static void sq_names_free(sq_names *nm)
{
    pm_free_strs(nm->s, nm->n);
}

/* One (config, metric) group of pm_sq_cold_metric_means: AVG's sum and count, summed in scan order. */
typedef struct sq_mgroup {
    int64_t cfg;
    int name;
    double sum;
    int64_t n;
} sq_mgroup;

/* by config, then name in SQLite's order of text (pm_util_strcmp_null; ctx: the names) */
static int cmp_mgroup(const void *pa, const void *pb, void *ctx)
{
    const sq_mgroup *a = pa, *b = pb;
    const sq_names *names = ctx;
    if (a->cfg != b->cfg)
        return a->cfg < b->cfg ? -1 : 1;
    return pm_util_strcmp_null(names->s[a->name], names->s[b->name]);
}

/* The group table grown to twice the groups' room (a power of two), the ng groups placed again. */
static int sq_rehash_groups(int **slot, size_t *nslot, const sq_mgroup *g, size_t ng)
{
    size_t n = *nslot ? 2 * *nslot : 1024;
    while (n < 2 * (ng + 1))
        n *= 2;
    int *p = malloc(n * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    memset(p, 0xff, n * sizeof *p);
    for (size_t i = 0; i < ng; i++) {
        size_t h = sq_group_hash(g[i].cfg, g[i].name) & (n - 1);
        while (p[h] >= 0)
            h = (h + 1) & (n - 1);
        p[h] = (int)i;
    }
    free(*slot);
    *slot = p;
    *nslot = n;
    return PM_OK;
}

/* GROUP BY r.cfg, m.name with AVG(m.value), summed here: SQLite's sorter for the grouping cost two thirds of the
 * query. Each group's values are added in the scan's order, the order the grouping's (stable) sort hands them to
 * AVG, and AVG is the sum over the count, so the means are the same doubles; groups come out as GROUP BY orders
 * them (config, then name). */
int pm_sq_cold_metric_means(sqlite3 *db, int (*fn)(void *, const pm_sq_metric_row *), void *ctx, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    sq_names names = {0};
    sq_mgroup *g = NULL;
    size_t ng = 0, capg = 0, nslot = 0;
    int *slot = NULL;   /* open addressing over g, -1 empty */
    int rc = pm_sq_prepare(db,
                     "SELECT r.cfg, m.name, m.value FROM metric m JOIN temp.pm_an_run r ON r.id=m.run_id "
                     "WHERE r.cold",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t cfg = sqlite3_column_int64(st, 0);
        int name = sq_name_ix(&names, pm_sq_text_or(st, 1, NULL));
        if (name < 0 || (2 * (ng + 1) > nslot && sq_rehash_groups(&slot, &nslot, g, ng))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        size_t mask = nslot - 1, h = sq_group_hash(cfg, name) & mask;
        while (slot[h] >= 0 && !(g[slot[h]].cfg == cfg && g[slot[h]].name == name))
            h = (h + 1) & mask;
        if (slot[h] < 0) {
            sq_mgroup *p = pm_grow(g, &capg, ng, sizeof *p, 256);
            if (!p) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            g = p;
            g[ng] = (sq_mgroup){cfg, name, 0, 0};
            slot[h] = (int)ng++;
        }
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {   /* AVG skips NULLs */
            g[slot[h]].sum += sqlite3_column_double(st, 2);
            g[slot[h]].n++;
        }
    }
    rc = pm_sq_scan_done(db, st, rc, step, err);
    if (!rc && ng) {
        qsort_r(g, ng, sizeof *g, cmp_mgroup, &names);
    }
    for (size_t i = 0; i < ng && !rc; i++) {
        const char *name = names.s[g[i].name];
        if (!name)
            continue;
        /* AVG of no value is NULL, which reads as 0 */
        pm_sq_metric_row r = {.config_id = g[i].cfg, .name = name,
                              .mean = g[i].n ? g[i].sum / (double)g[i].n : 0};
        rc = fn(ctx, &r);
    }
    free(slot);
    free(g);
    sq_names_free(&names);
    return rc;
}

/* One tool of pm_sq_cold_tool_times: its sums (and whether any value was summed: SUM of none is NULL, read as 0)
 * and its first step's position. */
typedef struct sq_tgroup {
    int tool;
    double user_s, wall_s;
    int any_user, any_wall;
    int64_t min_seq;
} sq_tgroup;

/* by first step, then tool in SQLite's order of text (ctx: the names) */
static int cmp_tgroup(const void *pa, const void *pb, void *ctx)
{
    const sq_tgroup *a = pa, *b = pb;
    const sq_names *names = ctx;
    if (a->min_seq != b->min_seq)
        return a->min_seq < b->min_seq ? -1 : 1;
    return pm_util_strcmp_null(names->s[a->tool], names->s[b->tool]);
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Of the runs with a Chrome-trace step (ids, sorted here), how many are ok runs of the sweeps. */
static int sq_count_trace_runs(sqlite3 *db, const pm_sq_sweeps *s, int64_t *ids, size_t n, int *count, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    *count = 0;
    if (!n)
        return PM_OK;
    qsort(ids, n, sizeof *ids, cmp_i64);
    int rc = pm_sq_prepare_ids(db,
                         "SELECT 1 FROM run r JOIN config c ON c.id=r.config_id WHERE r.id=?1 AND c.sweep_id IN "
                         "(%s) AND r.status='ok'",
                         s, &st, err);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i && ids[i] == ids[i - 1])
            continue;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[i]);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            ++*count;
        else if (step != SQLITE_DONE)
            rc = pm_sq_db_fail(db, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* One scan of the step table for two answers (a scan of it is a third of the file at 150,000 runs):
 * GROUP BY s.tool ORDER BY MIN(s.seq), s.tool over the scoped cold runs' steps, summed here as
 * pm_sq_cold_metric_means does (in scan order, the order the grouping hands SUM its values: the same doubles
 * without SQLite's two sorts), and the runs with a Chrome-trace step, counted among the sweeps' ok runs. */
int pm_sq_steps_scan(sqlite3 *db, const pm_sq_sweeps *sw, int *n_trace, int (*fn)(void *, const pm_sq_tool_row *),
                     void *ctx, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    sq_names names = {0};
    sq_tgroup *g = NULL;
    int64_t *trace = NULL;
    size_t cap = 0, n_tr = 0, cap_tr = 0;
    *n_trace = 0;
    int rc = pm_sq_prepare(db,
                     "SELECT s.tool, s.seq, s.user_s, s.wall_s, s.report_format='chrome-trace', s.run_id, "
                     "coalesce(r.cold, 0) FROM step s LEFT JOIN temp.pm_an_run r ON r.id=s.run_id",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int(st, 4)) {   /* a trace step: its run, checked after the scan */
            int64_t *p = pm_grow(trace, &cap_tr, n_tr, sizeof *p, 64);
            if (!p) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            trace = p;
            trace[n_tr++] = sqlite3_column_int64(st, 5);
        }
        if (!sqlite3_column_int(st, 6))   /* not a scoped cold run */
            continue;
        size_t n_before = names.n;
        int t = sq_name_ix(&names, pm_sq_text_or(st, 0, NULL));
        if (t < 0) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        if (names.n > n_before) {   /* a new tool: its group (the groups are the names, in the same order) */
            sq_tgroup *p = pm_grow(g, &cap, (size_t)t, sizeof *p, 8);
            if (!p) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            g = p;
            g[t] = (sq_tgroup){.tool = t, .min_seq = sqlite3_column_int64(st, 1)};
        }
        sq_tgroup *e = &g[t];
        int64_t seq = sqlite3_column_int64(st, 1);
        if (seq < e->min_seq)
            e->min_seq = seq;
        /* SUM(CASE WHEN s.user_s>=0 THEN s.user_s END), SUM(CASE WHEN s.user_s>=0 THEN s.wall_s END) */
        if (sqlite3_column_type(st, 2) != SQLITE_NULL && sqlite3_column_double(st, 2) >= 0) {
            e->user_s += sqlite3_column_double(st, 2);
            e->any_user = 1;
            if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
                e->wall_s += sqlite3_column_double(st, 3);
                e->any_wall = 1;
            }
        }
    }
    rc = pm_sq_scan_done(db, st, rc, step, err);
    if (!rc)
        rc = sq_count_trace_runs(db, sw, trace, n_tr, n_trace, err);
    if (!rc && names.n) {
        qsort_r(g, names.n, sizeof *g, cmp_tgroup, &names);
    }
    for (size_t i = 0; i < names.n && !rc; i++) {
        pm_sq_tool_row r = {.tool = names.s[g[i].tool], .user_s = g[i].any_user ? g[i].user_s : 0,
                            .wall_s = g[i].any_wall ? g[i].wall_s : 0};
        rc = fn(ctx, &r);
    }
    free(trace);
    free(g);
    sq_names_free(&names);
    return rc;
}

int pm_sq_cold_config_tools(sqlite3 *db, int (*fn)(void *, const pm_sq_config_tool_row *), void *ctx, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = pm_sq_prepare(db,
                     "SELECT r.cfg, s.tool, count(*), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.wall_s END), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.user_s END), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.sys_s END) "
                     "FROM step s JOIN temp.pm_an_run r ON r.id=s.run_id WHERE r.cold "
                     "GROUP BY r.cfg, s.tool ORDER BY r.cfg, MIN(s.seq)",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_config_tool_row r = {.config_id = sqlite3_column_int64(st, 0), .tool = pm_sq_text_or(st, 1, ""),
                                   .n_steps = sqlite3_column_int(st, 2), .wall_s = sqlite3_column_double(st, 3),
                                   .user_s = sqlite3_column_double(st, 4), .sys_s = sqlite3_column_double(st, 5)};
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}

int pm_sq_startup(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_startup_row *), void *ctx,
                  int *present, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    /* the report reads the file as it is: one older than schema 5 has no startup table */
    int has = pm_sq_has_table(db, "startup");
    *present = has > 0;
    if (has < 0)
        return pm_sq_db_fail(db, err);
    if (!has)
        return PM_OK;
    int rc = pm_sq_prepare_ids(db,
                         "SELECT tool, status, note, wall_s, user_s, sys_s FROM startup WHERE sweep_id IN (%s) "
                         "ORDER BY tool, repeat, id",
                         s, &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_startup_row r = {.tool = pm_sq_text_or(st, 0, ""), .status = pm_sq_text_or(st, 1, ""), .note = pm_sq_text_or(st, 2, NULL),
                               .wall_s = pm_sq_real_or_neg(st, 3), .user_s = pm_sq_real_or_neg(st, 4),
                               .sys_s = pm_sq_real_or_neg(st, 5)};
        rc = fn(ctx, &r);
    }
    return pm_sq_scan_done(db, st, rc, step, err);
}
