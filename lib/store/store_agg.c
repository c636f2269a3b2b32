/* The report's aggregates, kept by the writers (schema 9): what the analysis summed from every counted pass row
 * at each report, summed once when the rows are written.
 *
 *   agg_run(run_id, pass_sum)                      every ok cold/warm run: its counted rows' wall, in row order
 *   agg_run_stage(run_id, stage, wall, user, uw)   the same per stage (user and the wall of rows with a user)
 *   agg_pass_stage(tool, name_id, stage)           the stage each (tool, pass) was summed under
 *   agg_cfg_pass(config_id, tool, name_id, ...)    per config and pass over its ok cold runs: wall, user, the wall
 *                                                  of rows with a user, the sum of log(the run's seconds of the
 *                                                  pass) and their count; first_run/first_pos: where the pass
 *                                                  first appears in the config's ok cold/warm runs (the analysis
 *                                                  numbers passes in the order it first meets them)
 *
 * Sums are made in the order the analysis read the rows (run id, step id, idx), one row at a time, so a report
 * read from them is the same to the bit (the global user/wall per stage excepted: it adds per-run subtotals).
 * Stages: a stage map is data the report may replace (--stage-map, an edited data dir), while per-run stage sums
 * need a stage per pass. The writer takes a (tool, pass)'s stage from agg_pass_stage once recorded, else from the
 * data dir's map, so the store's sums are consistent with one assignment; the report maps every recorded pair
 * with its own map and reads the sums only when all agree, else it sums the pass rows as before. Stage sums per
 * pass name (mapped at read) would cost as many rows as the pass rows themselves: no gain. */
#include "util.h"
#include "store.h"
#include "stagemap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A (tool, pass) seen in this call: its stage (index into stages). */
typedef struct agg_key {
    char *tool;
    int64_t name_id;
    int stage;
} agg_key;

/* One config's entry per key. */
typedef struct agg_ent {
    double wall, log_s, user, user_wall;
    int n_log;
    int64_t first_run, first_pos;
    double run_s;       /* the run being read: its seconds of the pass */
    int present;        /* a row exists (loaded or made) */
    int dirty;
} agg_ent;

typedef struct agg_ctx {
    sqlite3 *db;
    const char *path;
    pm_err *err;
    const pm_stagemap *map;
    agg_key *keys;
    size_t n_keys, cap_keys;
    int *slots;         /* open addressing over keys, n_slots a power of two */
    size_t n_slots;
    char **stages;
    size_t n_stages;
    agg_ent *ents;      /* [key] for the config being read */
    size_t cap_ents;
    int *touched;       /* keys with run_s > 0 in the run being read */
    size_t n_touched;
    double *st_wall, *st_user, *st_uw;   /* [stage] of the run being read */
    int *st_hit;
    size_t cap_st;
} agg_ctx;

static int agg_db(agg_ctx *c, const char *what)
{
    return pm_err_set(c->err, PM_ERR_DB, "%s: aggregates: %s: %s", c->path, what, sqlite3_errmsg(c->db));
}

static int agg_nomem(agg_ctx *c)
{
    return pm_err_set(c->err, PM_ERR_NOMEM, "out of memory");
}

static size_t key_hash(const char *tool, int64_t name_id)
{
    size_t h = (size_t)name_id * 0x9E3779B97F4A7C15ull;
    for (const char *p = tool; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
    return h;
}

static int stage_index(agg_ctx *c, const char *stage)
{
    for (size_t i = 0; i < c->n_stages; i++)
        if (!strcmp(c->stages[i], stage))
            return (int)i;
    char **s = realloc(c->stages, (c->n_stages + 1) * sizeof *s);
    if (!s)
        return -1;
    c->stages = s;
    if (!(s[c->n_stages] = strdup(stage)))
        return -1;
    if (c->n_stages + 1 > c->cap_st) {
        size_t cap = c->cap_st ? 2 * c->cap_st : 16;
        if (pm_resize(&c->st_wall, c->cap_st, cap, sizeof *c->st_wall) ||
            pm_resize(&c->st_user, c->cap_st, cap, sizeof *c->st_user) ||
            pm_resize(&c->st_uw, c->cap_st, cap, sizeof *c->st_uw) ||
            pm_resize(&c->st_hit, c->cap_st, cap, sizeof *c->st_hit))
            return -1;
        c->cap_st = cap;
    }
    return (int)c->n_stages++;
}

/* The stage of (tool, name_id): recorded, else the map's (and recorded). */
static int pass_stage(agg_ctx *c, const char *tool, int64_t name_id, int *stage)
{
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    char *name = NULL, *recorded = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT stage FROM agg_pass_stage WHERE tool = ?1 AND name_id = ?2", -1, &s,
                           NULL) != SQLITE_OK)
        return agg_db(c, "pass stage");
    sqlite3_bind_text(s, 1, tool, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, name_id);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW && !(recorded = strdup((const char *)sqlite3_column_text(s, 0))))
        rc = agg_nomem(c);
    else if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = agg_db(c, "pass stage");
    sqlite3_finalize(s);
    s = NULL;
    if (rc == PM_OK && !recorded) {
        if (sqlite3_prepare_v2(c->db, "SELECT name FROM pass_name WHERE id = ?1", -1, &s, NULL) != SQLITE_OK) {
            rc = agg_db(c, "pass name");
            goto cleanup;
        }
        sqlite3_bind_int64(s, 1, name_id);
        if (sqlite3_step(s) == SQLITE_ROW)
            name = strdup((const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        s = NULL;
        if (!name) {
            rc = pm_err_set(c->err, PM_ERR_DB, "%s: pass name id %lld not in pass_name", c->path, (long long)name_id);
            goto cleanup;
        }
        if (!(recorded = strdup(pm_stagemap_match(c->map, tool, name)))) {
            rc = agg_nomem(c);
            goto cleanup;
        }
        if (sqlite3_prepare_v2(c->db, "INSERT INTO agg_pass_stage(tool, name_id, stage) VALUES(?1, ?2, ?3)", -1, &s,
                               NULL) != SQLITE_OK) {
            rc = agg_db(c, "pass stage");
            goto cleanup;
        }
        sqlite3_bind_text(s, 1, tool, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, name_id);
        sqlite3_bind_text(s, 3, recorded, -1, SQLITE_STATIC);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = agg_db(c, "pass stage");
    }
    if (rc == PM_OK && (*stage = stage_index(c, recorded)) < 0)
        rc = agg_nomem(c);
cleanup:
    sqlite3_finalize(s);
    free(name);
    free(recorded);
    return rc;
}

/* The slot of (tool, name_id): its key's, or the empty one where it goes (room for one more made first). */
static int key_slot(agg_ctx *c, const char *tool, int64_t name_id, size_t *slot)
{
    if ((c->n_keys + 1) * 2 > c->n_slots) {
        size_t ns = c->n_slots ? 2 * c->n_slots : 512;
        int *sl = malloc(ns * sizeof *sl);
        if (!sl)
            return agg_nomem(c);
        for (size_t i = 0; i < ns; i++)
            sl[i] = -1;
        for (size_t k = 0; k < c->n_keys; k++) {
            size_t h = key_hash(c->keys[k].tool, c->keys[k].name_id) & (ns - 1);
            while (sl[h] >= 0)
                h = (h + 1) & (ns - 1);
            sl[h] = (int)k;
        }
        free(c->slots);
        c->slots = sl;
        c->n_slots = ns;
    }
    size_t h = key_hash(tool, name_id) & (c->n_slots - 1);
    while (c->slots[h] >= 0) {
        const agg_key *k = &c->keys[c->slots[h]];
        if (k->name_id == name_id && !strcmp(k->tool, tool))
            break;
        h = (h + 1) & (c->n_slots - 1);
    }
    *slot = h;
    return PM_OK;
}

/* A new key in slot h, with its stage (an index into stages). */
static int key_add(agg_ctx *c, size_t h, const char *tool, int64_t name_id, int stage, int *out)
{
    if (c->n_keys == c->cap_keys) {
        size_t cap = c->cap_keys ? 2 * c->cap_keys : 256;
        agg_key *k = realloc(c->keys, cap * sizeof *k);
        agg_ent *e = k ? realloc(c->ents, cap * sizeof *e) : NULL;
        if (k)
            c->keys = k;
        if (e)
            c->ents = e;
        int *t = e ? realloc(c->touched, cap * sizeof *t) : NULL;
        if (!t)
            return agg_nomem(c);
        c->touched = t;
        memset(c->ents + c->cap_keys, 0, (cap - c->cap_keys) * sizeof *c->ents);
        c->cap_keys = c->cap_ents = cap;
    }
    agg_key *k = &c->keys[c->n_keys];
    if (!(k->tool = strdup(tool)))
        return agg_nomem(c);
    k->name_id = name_id;
    k->stage = stage;
    c->slots[h] = (int)c->n_keys;
    *out = (int)c->n_keys++;
    return PM_OK;
}

/* The key of (tool, name_id), made (with its stage) at first sight. */
static int key_of(agg_ctx *c, const char *tool, int64_t name_id, int *out)
{
    size_t h = 0;
    int rc = key_slot(c, tool, name_id, &h), stage = 0;
    if (rc)
        return rc;
    if (c->slots[h] >= 0) {
        *out = c->slots[h];
        return PM_OK;
    }
    if ((rc = pass_stage(c, tool, name_id, &stage)))
        return rc;
    return key_add(c, h, tool, name_id, stage, out);
}

/* The recorded stages, in one query (a sweep records one run per call: a look-up per pass would cost more). */
static int preload_keys(agg_ctx *c)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT tool, name_id, stage FROM agg_pass_stage", -1, &s, NULL) != SQLITE_OK)
        return agg_db(c, "pass stages");
    int rc = PM_OK, step = SQLITE_DONE;
    while (rc == PM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *tool = (const char *)sqlite3_column_text(s, 0), *stage = (const char *)sqlite3_column_text(s, 2);
        int64_t name_id = sqlite3_column_int64(s, 1);
        size_t h = 0;
        int st, k;
        if ((rc = key_slot(c, tool ? tool : "", name_id, &h)) || c->slots[h] >= 0)
            continue;
        if ((st = stage_index(c, stage ? stage : PM_STAGE_OTHER)) < 0)
            rc = agg_nomem(c);
        else
            rc = key_add(c, h, tool ? tool : "", name_id, st, &k);
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = agg_db(c, "pass stages");
    sqlite3_finalize(s);
    return rc;
}

/* The config's recorded entries (a config may get runs over several calls: a sweep records one at a time). */
static int load_config(agg_ctx *c, int64_t config_id)
{
    if (c->ents)
        memset(c->ents, 0, c->cap_ents * sizeof *c->ents);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT tool, name_id, wall_s, log_s, n_log, user_s, user_wall_s, first_run, first_pos "
                           "FROM agg_cfg_pass WHERE config_id = ?1",
                           -1, &s, NULL) != SQLITE_OK)
        return agg_db(c, "config passes");
    sqlite3_bind_int64(s, 1, config_id);
    int rc = PM_OK, step = SQLITE_DONE, k = 0;
    while (rc == PM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if ((rc = key_of(c, (const char *)sqlite3_column_text(s, 0), sqlite3_column_int64(s, 1), &k)))
            break;
        agg_ent *e = &c->ents[k];
        e->wall = sqlite3_column_double(s, 2);
        e->log_s = sqlite3_column_double(s, 3);
        e->n_log = sqlite3_column_int(s, 4);
        e->user = sqlite3_column_double(s, 5);
        e->user_wall = sqlite3_column_double(s, 6);
        e->first_run = sqlite3_column_int64(s, 7);
        e->first_pos = sqlite3_column_int64(s, 8);
        e->present = 1;
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = agg_db(c, "config passes");
    sqlite3_finalize(s);
    return rc;
}

static int save_config(agg_ctx *c, int64_t config_id)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "INSERT OR REPLACE INTO agg_cfg_pass(config_id, tool, name_id, wall_s, log_s, n_log, "
                           "user_s, user_wall_s, first_run, first_pos) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, &s, NULL) != SQLITE_OK)
        return agg_db(c, "config passes");
    int rc = PM_OK;
    for (size_t k = 0; k < c->n_keys && rc == PM_OK; k++) {
        agg_ent *e = &c->ents[k];
        if (!e->dirty)
            continue;
        sqlite3_bind_int64(s, 1, config_id);
        sqlite3_bind_text(s, 2, c->keys[k].tool, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, c->keys[k].name_id);
        sqlite3_bind_double(s, 4, e->wall);
        sqlite3_bind_double(s, 5, e->log_s);
        sqlite3_bind_int(s, 6, e->n_log);
        sqlite3_bind_double(s, 7, e->user);
        sqlite3_bind_double(s, 8, e->user_wall);
        sqlite3_bind_int64(s, 9, e->first_run);
        sqlite3_bind_int64(s, 10, e->first_pos);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = agg_db(c, "config passes");
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

/* The run read ends: its totals into its rows, each touched pass's seconds into the config's log sum. */
static int flush_run(agg_ctx *c, int64_t run_id, double pass_sum, sqlite3_stmt *ins_run, sqlite3_stmt *ins_stage)
{
    for (size_t i = 0; i < c->n_touched; i++) {
        agg_ent *e = &c->ents[c->touched[i]];
        e->log_s += log(e->run_s);
        e->n_log++;
        e->run_s = 0;
    }
    c->n_touched = 0;
    int rc = PM_OK;
    sqlite3_bind_int64(ins_run, 1, run_id);
    sqlite3_bind_double(ins_run, 2, pass_sum);
    if (sqlite3_step(ins_run) != SQLITE_DONE)
        rc = agg_db(c, "run");
    sqlite3_reset(ins_run);
    for (size_t st = 0; st < c->n_stages; st++) {
        if (c->st_hit[st] && rc == PM_OK) {
            sqlite3_bind_int64(ins_stage, 1, run_id);
            sqlite3_bind_text(ins_stage, 2, c->stages[st], -1, SQLITE_STATIC);
            sqlite3_bind_double(ins_stage, 3, c->st_wall[st]);
            sqlite3_bind_double(ins_stage, 4, c->st_user[st]);
            sqlite3_bind_double(ins_stage, 5, c->st_uw[st]);
            if (sqlite3_step(ins_stage) != SQLITE_DONE)
                rc = agg_db(c, "run stage");
            sqlite3_reset(ins_stage);
        }
        c->st_wall[st] = c->st_user[st] = c->st_uw[st] = 0;
        c->st_hit[st] = 0;
    }
    return rc;
}

/* One config's runs after after_run, in id order, row by row in the analysis's order. */
static int add_config(agg_ctx *c, int64_t config_id, int64_t after_run, sqlite3_stmt *ins_run,
                      sqlite3_stmt *ins_stage)
{
    int rc = load_config(c, config_id);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT r.id, r.mode = 'cold', s.tool, p.name_id, p.wall_s, coalesce(p.user_s, -1.0) "
                           "FROM run r JOIN step s ON s.run_id = r.id JOIN pass_time p ON p.step_id = s.id "
                           "WHERE r.config_id = ?1 AND r.id > ?2 AND r.status = 'ok' AND r.mode IN ('cold', 'warm') "
                           "AND p.counted ORDER BY r.id, s.id, p.idx",
                           -1, &s, NULL) != SQLITE_OK)
        return agg_db(c, "pass rows");
    sqlite3_bind_int64(s, 1, config_id);
    sqlite3_bind_int64(s, 2, after_run);
    int64_t run = -1, pos = 0;
    double pass_sum = 0;
    int step = SQLITE_DONE, k = 0;
    while (rc == PM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        if (id != run) {
            if (run >= 0 && (rc = flush_run(c, run, pass_sum, ins_run, ins_stage)))
                break;
            run = id;
            pos = 0;
            pass_sum = 0;
        }
        int cold = sqlite3_column_int(s, 1);
        const char *tool = (const char *)sqlite3_column_text(s, 2);
        if ((rc = key_of(c, tool ? tool : "", sqlite3_column_int64(s, 3), &k)))
            break;
        double wall = sqlite3_column_double(s, 4), user = sqlite3_column_double(s, 5);
        agg_ent *e = &c->ents[k];
        if (!e->present) {
            e->present = 1;
            e->first_run = run;
            e->first_pos = pos;
        }
        e->dirty = 1;
        pos++;
        int st = c->keys[k].stage;
        c->st_hit[st] = 1;
        c->st_wall[st] += wall;
        pass_sum += wall;
        if (!cold)
            continue;
        e->wall += wall;
        if (e->run_s == 0 && wall > 0)
            c->touched[c->n_touched++] = k;
        e->run_s += wall;
        if (user >= 0) {
            e->user += user;
            e->user_wall += wall;
            c->st_user[st] += user;
            c->st_uw[st] += wall;
        }
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = agg_db(c, "pass rows");
    sqlite3_finalize(s);
    if (rc == PM_OK && run >= 0)
        rc = flush_run(c, run, pass_sum, ins_run, ins_stage);
    return rc ? rc : save_config(c, config_id);
}

static void agg_free(agg_ctx *c)
{
    for (size_t k = 0; k < c->n_keys; k++)
        free(c->keys[k].tool);
    pm_free_all(c->keys, c->slots);
    for (size_t i = 0; i < c->n_stages; i++)
        free(c->stages[i]);
    pm_free_all(c->stages, c->ents, c->touched, c->st_wall, c->st_user, c->st_uw, c->st_hit);
}

int pm_store_agg_add(sqlite3 *db, const char *path, const pm_stagemap *map, int64_t after_run, pm_err *err)
{
    agg_ctx c = {.db = db, .path = path, .err = err, .map = map};
    sqlite3_stmt *cfgs = NULL, *ins_run = NULL, *ins_stage = NULL;
    int rc = PM_OK;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO agg_run(run_id, pass_sum) VALUES(?1, ?2)", -1, &ins_run,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO agg_run_stage(run_id, stage, wall_s, user_s, user_wall_s) "
                           "VALUES(?1, ?2, ?3, ?4, ?5)",
                           -1, &ins_stage, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT DISTINCT config_id FROM run WHERE id > ?1 AND status = 'ok' AND mode IN "
                           "('cold', 'warm') ORDER BY config_id",
                           -1, &cfgs, NULL) != SQLITE_OK) {
        rc = agg_db(&c, "prepare");
        goto cleanup;
    }
    sqlite3_bind_int64(cfgs, 1, after_run);
    int step = SQLITE_DONE;
    if ((rc = preload_keys(&c)))
        goto cleanup;
    while (rc == PM_OK && (step = sqlite3_step(cfgs)) == SQLITE_ROW)
        rc = add_config(&c, sqlite3_column_int64(cfgs, 0), after_run, ins_run, ins_stage);
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = agg_db(&c, "configs");
    if (rc == PM_OK) {
        /* runs without a counted row: a total of 0, so every run in scope has its row */
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(db,
                               "INSERT OR IGNORE INTO agg_run(run_id, pass_sum) SELECT id, 0 FROM run WHERE id > ?1 "
                               "AND status = 'ok' AND mode IN ('cold', 'warm')",
                               -1, &s, NULL) != SQLITE_OK)
            rc = agg_db(&c, "runs");
        else {
            sqlite3_bind_int64(s, 1, after_run);
            if (sqlite3_step(s) != SQLITE_DONE)
                rc = agg_db(&c, "runs");
        }
        sqlite3_finalize(s);
    }
cleanup:
    sqlite3_finalize(cfgs);
    sqlite3_finalize(ins_run);
    sqlite3_finalize(ins_stage);
    agg_free(&c);
    return rc;
}

/* One value of a query (a count), or -1 on error. */
static int64_t agg_count(sqlite3 *db, const char *sql, int64_t run_off)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_bind_parameter_count(s) > 0)
            sqlite3_bind_int64(s, 1, run_off);
        if (sqlite3_step(s) == SQLITE_ROW)
            v = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return v;
}

/* Merge's copy of an input's aggregates (see store.h): the checks, then three INSERT ... SELECTs. */
int pm_store_agg_copy(sqlite3 *db, const char *path, const pm_stagemap *map, int64_t run_off, int *copied,
                      pm_err *err)
{
    agg_ctx c = {.db = db, .path = path, .err = err, .map = map};
    *copied = 0;
    /* The input's sums are whole: every ok cold/warm run has its total (a writer without a stage map left none). */
    int64_t missing = agg_count(db,
                                "SELECT count(*) FROM src.run r WHERE r.status = 'ok' AND r.mode IN ('cold', 'warm') "
                                "AND NOT EXISTS (SELECT 1 FROM src.agg_run a WHERE a.run_id = r.id)",
                                0);
    /* Each config's sums start from nothing in the output, as summing the merged runs would start them. */
    int64_t taken = agg_count(db,
                              "SELECT count(*) FROM main.agg_cfg_pass a WHERE a.config_id IN "
                              "(SELECT dst FROM temp.pm_config_map)",
                              0);
    if (missing != 0 || taken != 0)
        return PM_OK;   /* (-1: a query failed, e.g. an input without the tables: summed again instead) */
    /* Each pass's stage is the one the output would give it: its recorded stage, else the writer's map's. */
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, agree = 1, step = SQLITE_DONE;
    if (sqlite3_prepare_v2(db,
                           "SELECT ps.tool, n.name, ps.stage, mps.stage FROM src.agg_pass_stage ps "
                           "JOIN src.pass_name n ON n.id = ps.name_id "
                           "LEFT JOIN temp.pm_name_map nm ON nm.src = ps.name_id "
                           "LEFT JOIN main.agg_pass_stage mps ON mps.tool = ps.tool AND mps.name_id = nm.dst",
                           -1, &s, NULL) != SQLITE_OK)
        return agg_db(&c, "input pass stages");
    while (agree && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *tool = (const char *)sqlite3_column_text(s, 0), *name = (const char *)sqlite3_column_text(s, 1),
                   *stage = (const char *)sqlite3_column_text(s, 2), *out = (const char *)sqlite3_column_text(s, 3);
        if (!out)
            out = pm_stagemap_match(map, tool ? tool : "", name ? name : "");
        agree = stage && out && !strcmp(stage, out);
    }
    if (agree && step != SQLITE_DONE)
        rc = agg_db(&c, "input pass stages");
    sqlite3_finalize(s);
    if (rc || !agree)
        return rc;
    static const char *const copy_sql[] = {
        "INSERT INTO main.agg_pass_stage(tool, name_id, stage) SELECT ps.tool, nm.dst, ps.stage "
        "FROM src.agg_pass_stage ps JOIN temp.pm_name_map nm ON nm.src = ps.name_id "
        "WHERE EXISTS (SELECT 1 FROM src.agg_cfg_pass a WHERE a.tool = ps.tool AND a.name_id = ps.name_id) "
        "ON CONFLICT(tool, name_id) DO NOTHING",
        "INSERT INTO main.agg_run(run_id, pass_sum) SELECT a.run_id + ?1, a.pass_sum FROM src.agg_run a "
        "JOIN src.run r ON r.id = a.run_id WHERE r.status = 'ok' AND r.mode IN ('cold', 'warm')",
        "INSERT INTO main.agg_run_stage(run_id, stage, wall_s, user_s, user_wall_s) "
        "SELECT a.run_id + ?1, a.stage, a.wall_s, a.user_s, a.user_wall_s FROM src.agg_run_stage a "
        "JOIN src.run r ON r.id = a.run_id WHERE r.status = 'ok' AND r.mode IN ('cold', 'warm')",
        "INSERT INTO main.agg_cfg_pass(config_id, tool, name_id, wall_s, log_s, n_log, user_s, user_wall_s, "
        "first_run, first_pos) SELECT cm.dst, a.tool, nm.dst, a.wall_s, a.log_s, a.n_log, a.user_s, a.user_wall_s, "
        "a.first_run + ?1, a.first_pos FROM src.agg_cfg_pass a JOIN temp.pm_config_map cm ON cm.src = a.config_id "
        "JOIN temp.pm_name_map nm ON nm.src = a.name_id",
    };
    for (size_t i = 0; i < sizeof copy_sql / sizeof copy_sql[0] && rc == PM_OK; i++) {
        if (sqlite3_prepare_v2(db, copy_sql[i], -1, &s, NULL) != SQLITE_OK)
            return agg_db(&c, "copy");
        if (sqlite3_bind_parameter_count(s) > 0)
            sqlite3_bind_int64(s, 1, run_off);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = agg_db(&c, "copy");
        sqlite3_finalize(s);
    }
    if (rc == PM_OK)
        *copied = 1;
    return rc;
}
