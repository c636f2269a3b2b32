/* Identity (schema 7): the tools a sweep ran, each config's fingerprint, and superseded runs (see store.h). */
#include "store.h"
#include "store_query_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

static char *dup_col(sqlite3_stmt *s, int i, int *oom)
{
    const unsigned char *v = sqlite3_column_text(s, i);
    if (!v)
        return NULL;
    char *d = strdup((const char *)v);
    *oom |= !d;
    return d;
}

static int db_fail(sqlite3 *db, const char *path, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_DB, "%s: %s: %s", path ? path : "store", what, sqlite3_errmsg(db));
}

const char *pm_store_study_sweep_cond(int has_superseded)
{
    /* A fix sweep is named STUDY-fix (lib/fix/fix.c) and sits beside its study. */
    return has_superseded
               ? "s.superseded_by IS NULL AND NOT (s.name LIKE '%-fix' AND EXISTS (SELECT 1 FROM sweep t "
                 "WHERE t.name || '-fix' = s.name))"
               : "NOT (s.name LIKE '%-fix' AND EXISTS (SELECT 1 FROM sweep t WHERE t.name || '-fix' = s.name))";
}

void pm_tool_idents_free(pm_tool_ident *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        pm_free_all(t[i].name, t[i].path, t[i].version_text, t[i].hash, t[i].host, t[i].invoked);
    }
    free(t);
}

int pm_store_record_tools(pm_store *st, int64_t sweep_id, int64_t host_id, const pm_tool_ident *t, size_t n,
                          pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO tool(sweep_id, host_id, name, path, version_text, hash, invoked) "
                           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                           "ON CONFLICT(sweep_id, host_id, name, path, hash) DO UPDATE SET "
                           "version_text = excluded.version_text, invoked = excluded.invoked",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "recording tools");
    for (size_t i = 0; i < n && rc == PM_OK; i++) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, sweep_id);
        if (host_id > 0)
            sqlite3_bind_int64(s, 2, host_id);
        else
            sqlite3_bind_null(s, 2);
        sqlite3_bind_text(s, 3, t[i].name ? t[i].name : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 4, t[i].path ? t[i].path : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 5, t[i].version_text ? t[i].version_text : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 6, t[i].hash ? t[i].hash : "", -1, SQLITE_TRANSIENT);
        if (t[i].invoked)
            sqlite3_bind_text(s, 7, t[i].invoked, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(s, 7);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = db_fail(db, pm_store_path(st), err, "recording tools");
    }
    sqlite3_finalize(s);
    return rc;
}

int pm_store_read_tools(sqlite3 *db, int64_t sweep_id, pm_tool_ident **out, size_t *n, pm_err *err)
{
    *out = NULL;
    *n = 0;
    if (pm_sq_has_table(db, "tool") <= 0)
        return PM_OK;   /* older than schema 7: no identity recorded */
    sqlite3_stmt *s = NULL;
    /* schema 8 names each build by the word that invoked it; a schema-7 file is read as it is (NULL) */
    const char *sql = pm_sq_has_column(db, "tool", "invoked")
        ? "SELECT t.name, min(t.path), t.version_text, t.hash, group_concat(DISTINCT h.name), t.invoked "
          "FROM tool t LEFT JOIN host h ON h.id = t.host_id WHERE t.sweep_id = ?1 "
          "GROUP BY t.name, t.invoked, t.hash, t.version_text ORDER BY t.name, t.invoked, t.hash, t.version_text"
        : "SELECT t.name, min(t.path), t.version_text, t.hash, group_concat(DISTINCT h.name), NULL "
          "FROM tool t LEFT JOIN host h ON h.id = t.host_id WHERE t.sweep_id = ?1 "
          "GROUP BY t.name, t.hash, t.version_text ORDER BY t.name, t.hash, t.version_text";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, NULL, err, "reading tools");
    sqlite3_bind_int64(s, 1, sweep_id);
    int rc = PM_OK, oom = 0, step;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_tool_ident *t = pm_push(out, &cap, n, sizeof *t, 8);
        if (!t) {
            oom = 1;
            break;
        }
        t->name = dup_col(s, 0, &oom);
        t->path = dup_col(s, 1, &oom);
        t->version_text = dup_col(s, 2, &oom);
        t->hash = dup_col(s, 3, &oom);
        t->host = dup_col(s, 4, &oom);
        t->invoked = dup_col(s, 5, &oom);
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, NULL, err, "reading tools");
    sqlite3_finalize(s);
    if (rc) {
        pm_tool_idents_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int pm_store_config_set_fingerprint(pm_store *st, int64_t config_id, const char *hash, const char *text,
                                    pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE config SET fingerprint = ?2, fingerprint_text = ?3 WHERE id = ?1", -1, &s,
                           NULL) != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "config fingerprint");
    sqlite3_bind_int64(s, 1, config_id);
    sqlite3_bind_text(s, 2, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, text, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : db_fail(db, pm_store_path(st), err, "config fingerprint");
    sqlite3_finalize(s);
    return rc;
}

void pm_config_fps_free(pm_config_fp *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        pm_free_all(c[i].key, c[i].hash, c[i].text);
    free(c);
}

int pm_store_config_fps(pm_store *st, const char *sweep, pm_config_fp **out, size_t *n, pm_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT c.key, c.fingerprint, c.fingerprint_text, "
                           "  (SELECT count(*) FROM run r WHERE r.config_id = c.id), "
                           "  (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.status NOT IN ('ok', 'no-report')) "
                           "FROM config c JOIN sweep w ON w.id = c.sweep_id WHERE w.name = ?1 ORDER BY c.id",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "config fingerprints");
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
    int rc = PM_OK, oom = 0, step;
    size_t cap = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        pm_config_fp *c = pm_push(out, &cap, n, sizeof *c, 16);
        if (!c) {
            oom = 1;
            break;
        }
        c->key = dup_col(s, 0, &oom);
        c->hash = dup_col(s, 1, &oom);
        c->text = dup_col(s, 2, &oom);
        c->n_runs = sqlite3_column_int(s, 3);
        c->n_failed = sqlite3_column_int(s, 4);
        oom |= !c->key;
    }
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    else if (step != SQLITE_DONE)
        rc = db_fail(db, pm_store_path(st), err, "config fingerprints");
    sqlite3_finalize(s);
    if (rc) {
        pm_config_fps_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int exec1(sqlite3 *db, const char *path, const char *sql, int64_t a, int64_t b, const char *text,
                 pm_err *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, path, err, what);
    sqlite3_bind_int64(s, 1, a);
    sqlite3_bind_int64(s, 2, b);
    if (text)
        sqlite3_bind_text(s, 3, text, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s) == SQLITE_DONE ? PM_OK : db_fail(db, path, err, what);
    sqlite3_finalize(s);
    return rc;
}

/* A new sweep superseding old_id, named SWEEP~superseded-TIME (then -2, -3 ... when taken): each supersession keeps
 * the spec text its runs were made with. */
static int new_superseding_sweep(sqlite3 *db, const char *path, const char *sweep, int64_t old_id, char *new_name,
                                 size_t cap, int64_t *new_id, pm_err *err)
{
    int rc = PM_OK;
    sqlite3_stmt *s = NULL;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    for (int k = 1; !*new_id && k < 1000; k++) {
        int w = k == 1 ? snprintf(new_name, cap, "%s~superseded-%s", sweep, stamp)
                       : snprintf(new_name, cap, "%s~superseded-%s-%d", sweep, stamp, k);
        if (w < 0 || (size_t)w >= cap)
            return pm_err_set(err, PM_ERR_USAGE, "%s: sweep name too long to supersede: %s", path, sweep);
        if (sqlite3_prepare_v2(db,
                               "INSERT INTO sweep(name, backend, spec_text, meta_json, superseded_by) "
                               "SELECT ?2, backend, spec_text, meta_json, name FROM sweep WHERE id = ?1 "
                               "AND NOT EXISTS (SELECT 1 FROM sweep WHERE name = ?2) RETURNING id",
                               -1, &s, NULL) != SQLITE_OK)
            return db_fail(db, path, err, "supersede: new sweep");
        sqlite3_bind_int64(s, 1, old_id);
        sqlite3_bind_text(s, 2, new_name, -1, SQLITE_TRANSIENT);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW)
            *new_id = sqlite3_column_int64(s, 0);
        else if (step != SQLITE_DONE)
            rc = db_fail(db, path, err, "supersede: new sweep");
        sqlite3_finalize(s);
        if (rc)
            return rc;
    }
    if (!*new_id)
        return pm_err_set(err, PM_ERR_USAGE, "%s: no free name to supersede sweep %s", path, sweep);
    return PM_OK;
}

/* only_failed 2: the runs killed from outside whose slot (mode, repeat) was not yet killed max_retries times
 * (the killed runs already moved aside, in the sweeps superseding SWEEP, are the count). */
static int supersede(pm_store *st, const char *sweep, const char *const *keys, size_t n_keys, int only_failed,
                     int max_retries, char *new_name, size_t cap, int *moved, pm_err *err)
{
    char moving[700], copy_sql[1400], move_sql[1000];
    if (only_failed == 2)
        snprintf(moving, sizeof moving,
                 "status = 'killed' AND (SELECT count(*) FROM run k JOIN config kc ON kc.id = k.config_id "
                 "JOIN sweep ks ON ks.id = kc.sweep_id WHERE ks.superseded_by = (SELECT name FROM sweep WHERE id = ?1) "
                 "AND kc.key = ?3 AND k.mode = run.mode AND k.repeat = run.repeat AND k.status = 'killed') < %d",
                 max_retries);
    else
        snprintf(moving, sizeof moving, "status NOT IN ('ok', 'no-report')");
    snprintf(copy_sql, sizeof copy_sql,
             "INSERT INTO config(sweep_id, key, kind, family, size, window, precision, resolution, layers, "
             "variant, params_json, fingerprint, fingerprint_text) "
             "SELECT ?2, key, kind, family, size, window, precision, resolution, layers, variant, "
             "params_json, fingerprint, fingerprint_text FROM config WHERE sweep_id = ?1 AND key = ?3 "
             "AND config.id IN (SELECT config_id FROM run WHERE %s)", moving);
    snprintf(move_sql, sizeof move_sql,
             "UPDATE run SET config_id = (SELECT id FROM config WHERE sweep_id = ?2 AND key = ?3) "
             "WHERE %s AND config_id = (SELECT id FROM config WHERE sweep_id = ?1 AND key = ?3)", moving);
    sqlite3 *db = pm_store_db(st);
    const char *path = pm_store_path(st);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK;
    int64_t old_id = 0, new_id = 0;
    *moved = 0;
    if (cap)
        new_name[0] = '\0';
    if (!n_keys)
        return PM_OK;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(db, path, err, "supersede: begin");
    if (sqlite3_prepare_v2(db, "SELECT id FROM sweep WHERE name = ?1", -1, &s, NULL) != SQLITE_OK) {
        rc = db_fail(db, path, err, "supersede");
        goto cleanup;
    }
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW)
        old_id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    s = NULL;
    if (!old_id)
        goto cleanup;   /* nothing recorded: nothing to move */
    if ((rc = new_superseding_sweep(db, path, sweep, old_id, new_name, cap, &new_id, err)))
        goto cleanup;
    for (size_t i = 0; i < n_keys && !rc; i++) {
        int before = sqlite3_total_changes(db);
        if (!only_failed) {
            /* the whole config (its runs, parameters and fingerprint follow the row) */
            if ((rc = exec1(db, path,
                            "UPDATE config SET sweep_id = ?2 WHERE sweep_id = ?1 AND key = ?3", old_id, new_id,
                            keys[i], err, "supersede: config")))
                break;
            if (sqlite3_total_changes(db) == before)
                continue;
            sqlite3_stmt *q = NULL;
            if (sqlite3_prepare_v2(db, "SELECT count(*) FROM run r JOIN config c ON c.id = r.config_id "
                                       "WHERE c.sweep_id = ?1 AND c.key = ?2", -1, &q, NULL) == SQLITE_OK) {
                sqlite3_bind_int64(q, 1, new_id);
                sqlite3_bind_text(q, 2, keys[i], -1, SQLITE_TRANSIENT);
                if (sqlite3_step(q) == SQLITE_ROW)
                    *moved += sqlite3_column_int(q, 0);
            }
            sqlite3_finalize(q);
            continue;
        }
        /* only the failed runs: a copy of the config row in the new sweep receives them */
        if ((rc = exec1(db, path, copy_sql, old_id, new_id, keys[i], err, "supersede: config copy")))
            break;
        if (sqlite3_total_changes(db) == before)
            continue;
        if ((rc = exec1(db, path,
                        "INSERT INTO config_param(config_id, name, value) SELECT n.id, p.name, p.value "
                        "FROM config o JOIN config n ON n.sweep_id = ?2 AND n.key = o.key "
                        "JOIN config_param p ON p.config_id = o.id WHERE o.sweep_id = ?1 AND o.key = ?3",
                        old_id, new_id, keys[i], err, "supersede: config parameters")))
            break;
        int runs_before = sqlite3_total_changes(db);
        if ((rc = exec1(db, path, move_sql, old_id, new_id, keys[i], err, "supersede: runs")))
            break;
        *moved += sqlite3_total_changes(db) - runs_before;
    }
cleanup:
    sqlite3_finalize(s);
    if (rc == PM_OK && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(db, path, err, "supersede: commit");
    if (rc != PM_OK && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    if (rc == PM_OK && new_id && !*moved) {
        /* nothing moved after all (no failed run): no empty sweep left behind */
        exec1(db, path, "DELETE FROM sweep WHERE id = ?1 AND ?2 = ?2", new_id, 0, NULL, NULL, "supersede: cleanup");
        if (cap)
            new_name[0] = '\0';
    }
    return rc;
}

int pm_store_supersede(pm_store *st, const char *sweep, const char *const *keys, size_t n_keys, int only_failed,
                       char *new_name, size_t cap, int *moved, pm_err *err)
{
    return supersede(st, sweep, keys, n_keys, only_failed ? 1 : 0, 0, new_name, cap, moved, err);
}

int pm_store_retry_killed(pm_store *st, const char *sweep, int max_retries, int *moved, int *kept, pm_err *err)
{
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    char **keys = NULL;
    size_t n = 0, cap = 0;
    int rc = PM_OK, step;
    char name[1024];
    *moved = *kept = 0;
    if (!pm_store_has_superseded(db))
        return PM_OK;   /* older than schema 7: upgraded on a writer's open, so not reached by a sweep */
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT c.key FROM run r JOIN config c ON c.id = r.config_id JOIN sweep s "
                               "ON s.id = c.sweep_id WHERE s.name = ?1 AND r.status = 'killed' ORDER BY c.key",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, pm_store_path(st), err, "killed runs");
    sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        char **bigger = pm_grow(keys, &cap, n, sizeof *bigger, 16);
        if (!bigger) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        keys = bigger;
        if (!(keys[n++] = strdup((const char *)sqlite3_column_text(s, 0)))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    if (step != SQLITE_DONE) {
        rc = db_fail(db, pm_store_path(st), err, "killed runs");
        goto cleanup;
    }
    sqlite3_finalize(s);
    s = NULL;
    if (n && (rc = supersede(st, sweep, (const char *const *)keys, n, 2, max_retries, name, sizeof name, moved, err)))
        goto cleanup;
    /* what is still killed in the sweep is out of retries */
    if (n && sqlite3_prepare_v2(db, "SELECT count(*) FROM run r JOIN config c ON c.id = r.config_id JOIN sweep s "
                                    "ON s.id = c.sweep_id WHERE s.name = ?1 AND r.status = 'killed'",
                                -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, sweep, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(s) == SQLITE_ROW)
            *kept = sqlite3_column_int(s, 0);
    }
cleanup:
    sqlite3_finalize(s);
    pm_free_strs(keys, n);
    return rc;
}

int pm_store_repeats(pm_store *st, int64_t config_id, const char *mode, unsigned char *have, int cap,
                     int *max_repeat, pm_err *err)
{
    sqlite3_stmt *s = NULL;
    static const char sql[] = "SELECT DISTINCT repeat FROM run WHERE config_id = ?1 AND mode = ?2";
    int rc = pm_store_cached(st, sql, &s, err), step;
    if (rc)
        return rc;
    memset(have, 0, (size_t)(cap > 0 ? cap : 0));
    *max_repeat = -1;
    sqlite3_bind_int64(s, 1, config_id);
    sqlite3_bind_text(s, 2, mode ? mode : "", -1, SQLITE_TRANSIENT);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int r = sqlite3_column_int(s, 0);
        if (r >= 0 && r < cap)
            have[r] = 1;
        if (r > *max_repeat)
            *max_repeat = r;
    }
    if (step != SQLITE_DONE)
        rc = db_fail(pm_store_db(st), pm_store_path(st), err, "repeats");
    sqlite3_reset(s);
    return rc;
}

/* One line of a multi-line text, cut for a message (the cut is marked). */
static void put_line(char *out, size_t cap, const char *line, size_t len)
{
    const size_t max = 160;
    if (len > max)
        snprintf(out, cap, "'%.*s...'", (int)max, line);
    else
        snprintf(out, cap, "'%.*s'", (int)len, line);
}

void pm_fp_diff(const char *was, const char *now, char *out, size_t cap)
{
    const char *a = was ? was : "", *b = now ? now : "";
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la)) {
            char x[200], y[200];
            if (*a)
                put_line(x, sizeof x, a, la);
            else
                snprintf(x, sizeof x, "(nothing)");
            if (*b)
                put_line(y, sizeof y, b, lb);
            else
                snprintf(y, sizeof y, "(nothing)");
            snprintf(out, cap, "%s -> %s", x, y);
            return;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    snprintf(out, cap, "same steps");
}

/* The lines pm_version_text_part takes for the machine's: their start, blanks skipped. */
static const char *const host_line_starts[] = {"Host CPU:", "InstalledDir:", NULL};

char *pm_version_text_part(const char *text, int host)
{
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "%s", "");
    for (const char *p = text ? text : ""; *p;) {
        size_t n = strcspn(p, "\n");
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        int is_host = 0;
        for (const char *const *h = host_line_starts; *h && !is_host; h++)
            is_host = !strncmp(q, *h, strlen(*h));
        if (is_host == !!host)
            pm_sbuf_add(&b, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

const char *pm_version_line(const char *text, char *out, size_t cap)
{
    const char *pick = NULL, *p = text ? text : "";
    size_t plen = 0;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *q = p;
        while (n && (*q == ' ' || *q == '\t'))
            q++, n--;
        if (n && !pick)
            pick = q, plen = n;
        if (n && memmem(q, n, "version", 7)) {
            pick = q, plen = n;
            break;
        }
        p = q + n + (q[n] == '\n');
    }
    if (!pick)
        snprintf(out, cap, "(no --version output)");
    else
        snprintf(out, cap, "%.*s", (int)(plen < cap ? plen : cap - 1), pick);
    return out;
}
