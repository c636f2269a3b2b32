#include "store_query.h"
#include "store.h"

#include <math.h>
#include "stats.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int db_fail(sqlite3 *db, pm_err *err)
{
    return pm_err_set(err, PM_ERR_DB, "analysis query: %s", sqlite3_errmsg(db));
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, pm_err *err)
{
    return sqlite3_prepare_v2(db, sql, -1, st, NULL) ? db_fail(db, err) : PM_OK;
}

/* Ends a scan and finalizes st: rc when the scan failed on its own, else a last step other than SQLITE_DONE is a
 * database error. */
static int scan_done(sqlite3 *db, sqlite3_stmt *st, int rc, int step, pm_err *err)
{
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(db, err);
    sqlite3_finalize(st);
    return rc;
}

/* A one-row query (rc: its prepare's status): the row's first column into *out, left as it is without a row. */
static int scan_int(sqlite3 *db, sqlite3_stmt *st, int rc, int *out, pm_err *err)
{
    int step = rc ? SQLITE_DONE : sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
        step = SQLITE_DONE;
    }
    return scan_done(db, st, rc, step, err);
}

/* 1: the file has the table; 0: not (a file older than the schema that added it, read as it is); -1: the
 * schema cannot be read. */
static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?1", -1, &st, NULL))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static char *text_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? strdup((const char *)s) : NULL;
}

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? (const char *)s : dflt;
}

static double real_or_neg(sqlite3_stmt *st, int col)
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
        if ((rc = prepare(db, "SELECT id,name,backend,meta_json FROM sweep WHERE name=?", &st, err)))
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
        if ((rc = prepare(db, sql, &st, err)))
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
    free(s->ids);
    free(s->name);
    free(s->backend);
    free(s->meta_json);
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

static int prepare_ids(sqlite3 *db, const char *fmt, const pm_sq_sweeps *s, sqlite3_stmt **st, pm_err *err)
{
    char *sql = sql_with_ids(fmt, s);
    if (!sql)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = prepare(db, sql, st, err);
    free(sql);
    return rc;
}

int pm_sq_configs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_config_row *), void *ctx,
                  pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare_ids(db,
                         /* one name for the command kind: stores before it wrote "cmd" for an import */
                         "SELECT id,key,CASE kind WHEN 'cmd' THEN 'command' ELSE kind END,family,size,window,"
                         "precision,resolution,layers,variant FROM config "
                         "WHERE sweep_id IN (%s) ORDER BY id",
                         s, &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_config_row r = {
            .id = sqlite3_column_int64(st, 0),
            .key = text_or(st, 1, NULL),
            .kind = text_or(st, 2, NULL),
            .workload = {.family = text_or(st, 3, NULL), .size = text_or(st, 4, NULL),
                         .window = sqlite3_column_int(st, 5), .precision = text_or(st, 6, NULL),
                         .resolution = sqlite3_column_int(st, 7)},
            .variant = text_or(st, 9, NULL),
        };
        pm_workload_set_depth(&r.workload, r.kind, sqlite3_column_int(st, 8));
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_config_params(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_param_row *), void *ctx,
                        pm_err *err)
{
    sqlite3_stmt *st = NULL;
    /* a read-only open of a file older than schema 3 has no config_param table */
    int has = has_table(db, "config_param");
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
    int rc = prepare_ids(db, has ? with_table : without, s, &st, err);

    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_param_row r = {sqlite3_column_int64(st, 0), text_or(st, 1, ""), text_or(st, 2, "")};
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_runs(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_run_row *), void *ctx,
               pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare_ids(db,
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
            .mode = text_or(st, 2, NULL),
            .status = text_or(st, 3, NULL),
            .wall_s = sqlite3_column_double(st, 4),
            .user_s = real_or_neg(st, 5),
            .note = text_or(st, 6, NULL),
        };
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_scope_begin(sqlite3 *db, const pm_sq_sweeps *s, pm_err *err)
{
    if (sqlite3_exec(db,
                     "DROP TABLE IF EXISTS temp.pm_an_run;"
                     "CREATE TEMP TABLE pm_an_run(id INTEGER PRIMARY KEY, cfg INTEGER, cold INTEGER);",
                     NULL, NULL, NULL))
        return db_fail(db, err);
    /* runs in id order (CROSS JOIN: the run scan outside), so the temp table's rows are appended in key order */
    char *sql = sql_with_ids("INSERT INTO temp.pm_an_run SELECT r.id, r.config_id, r.mode='cold' FROM run r CROSS "
                             "JOIN config c ON c.id=r.config_id WHERE c.sweep_id IN (%s) AND r.status='ok' AND "
                             "r.mode IN ('cold','warm')",
                             s);
    if (!sql)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL) ? db_fail(db, err) : PM_OK;
    free(sql);
    return rc;
}

void pm_sq_scope_end(sqlite3 *db)
{
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.pm_an_run;", NULL, NULL, NULL);
}

/* One scoped step: where its pass rows go. */
typedef struct sq_step {
    int64_t id, run_id;
    const char *tool;   /* into sq_steps.tools */
    int tool_idx;
} sq_step;

typedef struct sq_steps {
    sq_step *v;
    size_t n, cap;
    char **tools;       /* distinct tool labels (a handful) */
    size_t n_tools;
    char **names;       /* schema 6: pass_name text by id (NULL: no such id), n_names long */
    int64_t n_names;
} sq_steps;

static void sq_steps_free(sq_steps *ss)
{
    for (size_t i = 0; i < ss->n_tools; i++)
        free(ss->tools[i]);
    free(ss->tools);
    free(ss->v);
    for (int64_t i = 0; i < ss->n_names; i++)
        free(ss->names[i]);
    free(ss->names);
}

static int sq_tool(sq_steps *ss, const char *tool)
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
static int sq_load_names(sqlite3 *db, sq_steps *ss, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int64_t max_id = 0;
    int rc = prepare(db, "SELECT coalesce(max(id), 0), count(*) FROM pass_name", &st, err);
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
    rc = prepare(db, "SELECT id, name FROM pass_name", &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id >= ss->n_names)
            continue;   /* not reached: max(id) bounds them */
        if (!(ss->names[id] = strdup(text_or(st, 1, ""))))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    return scan_done(db, st, rc, step, err);
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
    int interned = has_table(db, "pass_name") > 0;
    int rc = prepare(db,
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
        int ti = sq_tool(&ss, text_or(st, 2, ""));
        if (ti < 0) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        ss.v[ss.n++] = (sq_step){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), ss.tools[ti], ti};
    }
    rc = scan_done(db, st, rc, step, err);
    st = NULL;
    if (rc || !ss.n)
        goto cleanup;
    if (interned && (rc = sq_load_names(db, &ss, err)))
        goto cleanup;
    rc = prepare(db,
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
            r.name = text_or(st, 1, "");
        }
        rc = fn(ctx, &r);
    }
    rc = scan_done(db, st, rc, step == SQLITE_ROW ? SQLITE_DONE : step, err);   /* ROW: stopped past the scope */
    st = NULL;
cleanup:
    sqlite3_finalize(st);
    sq_steps_free(&ss);
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
    for (size_t i = 0; i < nm->n; i++)
        free(nm->s[i]);
    free(nm->s);
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
    int rc = prepare(db,
                     "SELECT r.cfg, m.name, m.value FROM metric m JOIN temp.pm_an_run r ON r.id=m.run_id "
                     "WHERE r.cold",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t cfg = sqlite3_column_int64(st, 0);
        int name = sq_name_ix(&names, text_or(st, 1, NULL));
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
    rc = scan_done(db, st, rc, step, err);
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
    int rc = prepare_ids(db,
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
            rc = db_fail(db, err);
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
    int rc = prepare(db,
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
        int t = sq_name_ix(&names, text_or(st, 0, NULL));
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
    rc = scan_done(db, st, rc, step, err);
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
    int rc = prepare(db,
                     "SELECT r.cfg, s.tool, count(*), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.wall_s END), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.user_s END), "
                     "SUM(CASE WHEN s.user_s>=0 AND s.sys_s>=0 THEN s.sys_s END) "
                     "FROM step s JOIN temp.pm_an_run r ON r.id=s.run_id WHERE r.cold "
                     "GROUP BY r.cfg, s.tool ORDER BY r.cfg, MIN(s.seq)",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_config_tool_row r = {.config_id = sqlite3_column_int64(st, 0), .tool = text_or(st, 1, ""),
                                   .n_steps = sqlite3_column_int(st, 2), .wall_s = sqlite3_column_double(st, 3),
                                   .user_s = sqlite3_column_double(st, 4), .sys_s = sqlite3_column_double(st, 5)};
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_startup(sqlite3 *db, const pm_sq_sweeps *s, int (*fn)(void *, const pm_sq_startup_row *), void *ctx,
                  int *present, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    /* the report reads the file as it is: one older than schema 5 has no startup table */
    int has = has_table(db, "startup");
    *present = has > 0;
    if (has < 0)
        return db_fail(db, err);
    if (!has)
        return PM_OK;
    int rc = prepare_ids(db,
                         "SELECT tool, status, note, wall_s, user_s, sys_s FROM startup WHERE sweep_id IN (%s) "
                         "ORDER BY tool, repeat, id",
                         s, &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        pm_sq_startup_row r = {.tool = text_or(st, 0, ""), .status = text_or(st, 1, ""), .note = text_or(st, 2, NULL),
                               .wall_s = real_or_neg(st, 3), .user_s = real_or_neg(st, 4),
                               .sys_s = real_or_neg(st, 5)};
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_cold_walls(sqlite3 *db, int64_t config_id, double **walls, size_t *n, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    *walls = NULL;
    *n = 0;
    int rc = prepare(db,
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
    if ((rc = scan_done(db, st, rc, step, err))) {
        free(*walls);
        *walls = NULL;
        *n = 0;
    }
    return rc;
}

void pm_sq_samples_free(pm_sq_samples *s)
{
    free(s->wall);
    free(s->user);
    free(s->sys);
    free(s->instructions);
    memset(s, 0, sizeof *s);
}

int pm_sq_cold_samples(sqlite3 *db, int64_t config_id, pm_sq_samples *out, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    int rc = prepare(db,
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
    if ((rc = scan_done(db, st, rc, step, err)))
        pm_sq_samples_free(out);
    return rc;
}

int pm_sq_cold_run_passes(sqlite3 *db, int64_t config_id, int (*fn)(void *, const pm_sq_run_pass_row *), void *ctx,
                          pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare(db,
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
                                .tool = text_or(st, 2, ""), .name = text_or(st, 3, ""),
                                .wall_s = sqlite3_column_double(st, 4)};
        rc = fn(ctx, &r);
    }
    return scan_done(db, st, rc, step, err);
}

int pm_sq_tools_cpu_wall(sqlite3 *db, int64_t sweep_id, double *max, double *min, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    double *v = NULL, m;
    size_t n = 0, cap = 0;
    char tool[256] = "";
    *max = *min = NAN;
    int rc = prepare(db,
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
    rc = scan_done(db, st, rc, step, err);
    free(v);
    return rc;
}

int pm_sq_agg_ready(sqlite3 *db, int *ready, pm_err *err)
{
    *ready = 0;
    if (has_table(db, "agg_run") <= 0 || has_table(db, "agg_cfg_pass") <= 0 || has_table(db, "pass_name") <= 0)
        return PM_OK;   /* a file older than schema 8, read as it is */
    sqlite3_stmt *st = NULL;
    int rc = prepare(db,
                     "SELECT NOT EXISTS (SELECT 1 FROM temp.pm_an_run r WHERE NOT EXISTS "
                     "(SELECT 1 FROM agg_run a WHERE a.run_id = r.id))",
                     &st, err);
    return scan_int(db, st, rc, ready, err);
}

int pm_sq_agg_pass_stages(sqlite3 *db, int (*fn)(void *, const char *, const char *, const char *), void *ctx,
                          pm_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare(db, "SELECT a.tool, n.name, a.stage FROM agg_pass_stage a JOIN pass_name n ON n.id = a.name_id",
                     &st, err);
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = fn(ctx, text_or(st, 0, ""), text_or(st, 1, ""), text_or(st, 2, ""));
    return scan_done(db, st, rc, step, err);
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
    int rc = sq_load_names(db, &ss, err), step = SQLITE_DONE;
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
    rc = prepare(db,
                 "SELECT a.config_id, a.tool, a.name_id, a.wall_s, a.log_s, a.n_log, a.user_s, a.user_wall_s, "
                 "a.first_run, a.first_pos " SQ_AGG_SCOPE,
                 &st, err);
    const char *last_tool = NULL;   /* the tool text of the last row and its index: rows come by tool */
    size_t last_tool_len = 0;
    int last_ti = -1;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t nid = sqlite3_column_int64(st, 2), run = sqlite3_column_int64(st, 8),
                pos = sqlite3_column_int64(st, 9);
        const char *tool = text_or(st, 1, "");
        size_t tool_len = (size_t)sqlite3_column_bytes(st, 1);
        int ti = last_ti;
        if (ti < 0 || tool_len != last_tool_len || memcmp(tool, last_tool, tool_len)) {
            if ((ti = sq_tool(&ss, tool)) < 0) {
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
    rc = scan_done(db, st, rc, step, err);
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
    sq_steps_free(&ss);
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
        *rc = db_fail(db, err);
    return step == SQLITE_DONE ? 0 : -1;
}

/* temp.pm_an_run JOIN agg_run LEFT JOIN agg_run_stage ORDER BY run id, as a merge of three scans in key order
 * (the scoped runs, and the two tables over the scope's id range): the same rows in the same order as the join,
 * without a b-tree search per run and per stage row (a quarter of the query). */
int pm_sq_agg_runs(sqlite3 *db, int (*fn)(void *, const pm_sq_agg_run_row *), void *ctx, pm_err *err)
{
    sqlite3_stmt *sr = NULL, *sa = NULL, *ss = NULL;
    int rc = prepare(db, "SELECT id FROM temp.pm_an_run ORDER BY id", &sr, err);
    if (!rc)
        rc = prepare(db,
                     "SELECT run_id, pass_sum FROM agg_run WHERE run_id BETWEEN (SELECT min(id) FROM temp.pm_an_run) "
                     "AND (SELECT max(id) FROM temp.pm_an_run) ORDER BY run_id",
                     &sa, err);
    if (!rc)
        rc = prepare(db,
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
                .stage = text_or(ss, 1, NULL),
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

int pm_sq_incomplete(sqlite3 *db, int64_t sweep_id, char **note, int *unfinished, pm_err *err)
{
    sqlite3_stmt *st = NULL;
    *note = NULL;
    *unfinished = 0;
    int rc = prepare(db, "SELECT m.value, m.key = 'merging:' || s.name FROM meta m JOIN sweep s "
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
    return scan_done(db, st, rc, step == SQLITE_ROW ? SQLITE_DONE : step, err);
}
