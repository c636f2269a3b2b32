/* Shard plans and their progress, and the one-writer lock a sweep holds on its database. */
#include "store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The SQL as it reads, one clause a line. plain: a sweep with timing twins (its meta's timing_twins, sweep.c)
 * plans one plain run per cold one. */
/* clang-format off */
#define PER_CONFIG_CTE \
    "WITH per_config AS (\n" \
    "  SELECT sh.sweep_id, sh.shard_k, sh.shard_n, sh.config_key, sh.cold, sh.cache_miss, sh.warm, c.id AS config_id,\n" \
    "    (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.mode = 'cold') AS n_cold,\n" \
    "    (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.mode = 'cache-miss') AS n_miss,\n" \
    "    (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.mode = 'warm') AS n_warm,\n" \
    "    (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.status <> 'ok') AS n_failed,\n" \
    "    (SELECT count(*) FROM run r WHERE r.config_id = c.id AND r.mode = 'plain') AS n_plain,\n" \
    "    CASE WHEN (SELECT json_valid(w.meta_json) AND json_extract(w.meta_json, '$.timing_twins')\n" \
    "      FROM sweep w WHERE w.id = sh.sweep_id) THEN sh.cold ELSE 0 END AS plain\n" \
    "  FROM shard sh LEFT JOIN config c ON c.sweep_id = sh.sweep_id AND c.key = sh.config_key)\n"
#define PLANNED_OF(p) p ".cold + " p ".cache_miss + " p ".warm + " p ".plain"
#define DONE_OF(p) \
    "min(coalesce(" p ".n_cold, 0), " p ".cold) + min(coalesce(" p ".n_miss, 0), " p ".cache_miss)\n" \
    "      + min(coalesce(" p ".n_warm, 0), " p ".warm) + min(coalesce(" p ".n_plain, 0), " p ".plain)"

static const char plan_configs_sql[] =
    PER_CONFIG_CTE
    "SELECT sw.name, p.shard_k, p.shard_n, p.config_key, " PLANNED_OF("p") ", " DONE_OF("p") "\n"
    "FROM per_config p JOIN sweep sw ON sw.id = p.sweep_id ORDER BY sw.name, p.config_key";

static const char status_sql[] =
    PER_CONFIG_CTE
    "SELECT sw.name, p.shard_k, p.shard_n, count(*), sum(" PLANNED_OF("p") "),\n"
    "  sum(" DONE_OF("p") "),\n"
    "  sum(coalesce(p.n_failed, 0)),\n"
    "  (SELECT group_concat(name, ',') FROM (SELECT DISTINCT h.name FROM per_config q\n"
    "     JOIN run r ON r.config_id = q.config_id JOIN host h ON h.id = r.host_id\n"
    "     WHERE q.sweep_id = p.sweep_id AND q.shard_n = p.shard_n AND q.shard_k = p.shard_k ORDER BY h.name))\n"
    "FROM per_config p JOIN sweep sw ON sw.id = p.sweep_id\n"
    "GROUP BY p.sweep_id, p.shard_n, p.shard_k ORDER BY sw.name, p.shard_n, p.shard_k";
/* clang-format on */

static char *dup_text(const unsigned char *t)
{
    return t ? strdup((const char *)t) : NULL;
}

void pm_shard_status_free(pm_shard_status *rows, int n_rows)
{
    for (int i = 0; rows && i < n_rows; i++)
        pm_free_all(rows[i].sweep, rows[i].hosts);
    free(rows);
}

int pm_store_shard_status(pm_store *st, pm_shard_status **rows, int *n_rows, pm_err *err)
{
    *rows = NULL;
    *n_rows = 0;
    if (pm_store_schema_version(st) < PM_STORE_VERSION_HOSTS)
        return PM_OK; /* written before shard plans existed: nothing planned is known */
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, cap = 0, step;
    if (sqlite3_prepare_v2(db, status_sql, -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "%s: shard status: %s", pm_store_path(st), sqlite3_errmsg(db));
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n_rows == cap) {
            int ncap = cap ? cap * 2 : 8;
            pm_shard_status *n = realloc(*rows, (size_t)ncap * sizeof *n);
            if (!n) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
            *rows = n;
            cap = ncap;
        }
        pm_shard_status *r = &(*rows)[(*n_rows)++];
        memset(r, 0, sizeof *r);
        r->sweep = dup_text(sqlite3_column_text(s, 0));
        r->shard_k = sqlite3_column_int(s, 1);
        r->shard_n = sqlite3_column_int(s, 2);
        r->configs = sqlite3_column_int(s, 3);
        r->planned = sqlite3_column_int(s, 4);
        r->done = sqlite3_column_int(s, 5);
        r->failed = sqlite3_column_int(s, 6);
        r->hosts = dup_text(sqlite3_column_text(s, 7));
        if (!r->sweep) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    if (step != SQLITE_DONE)
        rc = pm_err_set(err, PM_ERR_DB, "%s: shard status: %s", pm_store_path(st), sqlite3_errmsg(db));
cleanup:
    sqlite3_finalize(s);
    if (rc != PM_OK) {
        pm_shard_status_free(*rows, *n_rows);
        *rows = NULL;
        *n_rows = 0;
    }
    return rc;
}

int pm_store_plan_configs(pm_store *st, pm_plan_config_fn fn, void *user, pm_err *err)
{
    if (pm_store_schema_version(st) < PM_STORE_VERSION_HOSTS)
        return PM_OK;
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, step;
    if (sqlite3_prepare_v2(db, plan_configs_sql, -1, &s, NULL) != SQLITE_OK)
        return pm_err_set(err, PM_ERR_DB, "%s: shard plan: %s", pm_store_path(st), sqlite3_errmsg(db));
    while ((step = sqlite3_step(s)) == SQLITE_ROW && rc == PM_OK)
        rc = fn(user, (const char *)sqlite3_column_text(s, 0), sqlite3_column_int(s, 1), sqlite3_column_int(s, 2),
                (const char *)sqlite3_column_text(s, 3), sqlite3_column_int(s, 4), sqlite3_column_int(s, 5));
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = pm_err_set(err, PM_ERR_DB, "%s: shard plan: %s", pm_store_path(st), sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return rc;
}

int pm_store_config_costs(pm_store *st, const char *sweep, const char *key, double *wall, double *probe,
                          pm_err *err)
{
    static const char sql[] =
        "SELECT (SELECT avg(r.wall_s) FROM run r WHERE r.config_id = c.id AND r.mode = 'cold' AND r.status = 'ok'),\n"
        "  (SELECT sum(v) FROM (SELECT avg(m.value) AS v FROM metric m JOIN run r ON r.id = m.run_id\n"
        "     WHERE r.config_id = c.id AND m.step_id IS NULL AND m.name LIKE 'ir.stage.%' GROUP BY m.name))\n"
        "FROM config c JOIN sweep sw ON sw.id = c.sweep_id WHERE c.key = ?1 AND sw.name = ?2";
    sqlite3_stmt *s = NULL;
    int rc = pm_store_cached(st, sql, &s, err);
    *wall = *probe = -1;
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, sweep, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        if (sqlite3_column_type(s, 0) != SQLITE_NULL)
            *wall = sqlite3_column_double(s, 0);
        if (sqlite3_column_type(s, 1) != SQLITE_NULL)
            *probe = sqlite3_column_double(s, 1);
    } else if (step != SQLITE_DONE) {
        rc = pm_err_set(err, PM_ERR_DB, "%s: costs of %s: %s", pm_store_path(st), key,
                        sqlite3_errmsg(pm_store_db(st)));
    }
    sqlite3_reset(s);
    return rc;
}

static int lock_path(const char *db_path, char *out, size_t cap, pm_err *err)
{
    int n = snprintf(out, cap, "%s.lock", db_path);
    if (n < 0 || (size_t)n >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "database path too long: %.200s", db_path);
    return PM_OK;
}

/* The lock file's first line (who: "pid N on HOST") and second (the passmap command holding it: "sweep",
 * "merge", "probe"; a file written before the second line: "sweep"). */
static void read_holder(int fd, char *out, size_t cap, char *cmd, size_t cmd_cap)
{
    ssize_t n = pread(fd, out, cap - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    size_t nl = strcspn(out, "\n");
    snprintf(cmd, cmd_cap, "%s", out[nl] ? out + nl + 1 : "");
    cmd[strcspn(cmd, "\n")] = '\0';
    if (!cmd[0])
        snprintf(cmd, cmd_cap, "sweep");
    out[nl] = '\0';
}

int pm_store_writer_lock(const char *db_path, const char *cmd, int *fd_out, pm_err *err)
{
    char path[4096], holder[256], other[32];
    int rc;
    *fd_out = -1;
    if ((rc = lock_path(db_path, path, sizeof path, err)))
        return rc;
    /* O_NOFOLLOW: never write through a link someone put there; the lock file is ours. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot open lock file %s", path);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return pm_err_set(err, PM_ERR_IO, "%s is not a regular file", path);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        read_holder(fd, holder, sizeof holder, other, sizeof other);
        close(fd);
        if (e == EWOULDBLOCK)
            return pm_err_set(err, PM_ERR_USAGE, "%s is being written by %s %s (%s)", db_path,
                              strcmp(other, cmd) ? "a running passmap" : "another", other,
                              holder[0] ? holder : "holder unknown");
        errno = e;
        return pm_err_errno(err, PM_ERR_IO, "cannot lock %s", path);
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int n = snprintf(holder, sizeof holder, "pid %ld on %s\n%s\n", (long)getpid(), host, cmd);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, holder, (size_t)n, 0) != n) {
        close(fd);
        return pm_err_errno(err, PM_ERR_IO, "cannot write lock file %s", path);
    }
    *fd_out = fd;
    return PM_OK;
}

void pm_store_writer_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock; the file stays (removing it would race a new holder) */
}

int pm_store_writer_check(const char *db_path, pm_err *err)
{
    char path[4096], holder[256], other[32];
    int rc;
    if ((rc = lock_path(db_path, path, sizeof path, err)))
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? PM_OK : pm_err_errno(err, PM_ERR_IO, "cannot open lock file %s", path);
    rc = PM_OK;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            read_holder(fd, holder, sizeof holder, other, sizeof other);
            rc = pm_err_set(err, PM_ERR_USAGE, "%s is still being written by a running %s (%s)", db_path, other,
                            holder[0] ? holder : "holder unknown");
        } else {
            rc = pm_err_errno(err, PM_ERR_IO, "cannot check lock %s", path);
        }
    }
    close(fd);
    return rc;
}
