/* Opening and closing a store: the journal mode for the filesystem it is on, a foreign or newer file refused
 * before anything is written to it, read-only opens of read-only folders. */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

/* A WAL database can not be opened read-only the usual way when its folder is read-only: SQLite must create the
 * -shm file. With no -wal content left (every writer finished and checkpointed) nothing can change the file
 * (no writer can create its -wal there either), so it is opened as immutable. NULL: open normally. */
static char *immutable_uri(const char *path)
{
    char dir[PATH_MAX], wal[PATH_MAX + 8];
    const char *slash = strrchr(path, '/');
    size_t dn = slash ? (size_t)(slash - path) : 1;
    if (dn == 0)
        dn = 1; /* "/x.db" */
    if (dn >= sizeof dir || strlen(path) >= PATH_MAX)
        return NULL;
    memcpy(dir, slash ? path : ".", dn);
    dir[dn] = '\0';
    if (access(dir, W_OK) == 0)
        return NULL;
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0)
        return NULL;
    /* file: URI, percent-encoding what a URI would read as syntax */
    size_t n = strlen(path);
    size_t cap = 3 * n + 32;
    char *uri = malloc(cap), *o = uri;
    if (!uri)
        return NULL;
    o += snprintf(o, cap, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            o += snprintf(o, cap - (size_t)(o - uri), "%%%02X", *p);
        else
            *o++ = (char)*p;
    }
    snprintf(o, cap - (size_t)(o - uri), "?immutable=1");
    return uri;
}

/* A file of another application (application_id, or tables without passmap's schema), of a newer passmap, or
 * (unless may_be_empty: a writer creating it) empty: refused with PM_ERR_UNSUPPORTED before anything is
 * changed in it (a writer's journal_mode = WAL would already rewrite its header). */
static int refuse_foreign(sqlite3 *db, const char *path, int may_be_empty, pm_err *err)
{
    int version = -1, app_id = -1, n_objects = -1, rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM "
                               "pragma_application_id), (SELECT count(*) FROM sqlite_schema)", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        version = sqlite3_column_int(s, 0);
        app_id = sqlite3_column_int(s, 1);
        n_objects = sqlite3_column_int(s, 2);
    }
    if (version < 0)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (%s)", path, sqlite3_errmsg(db));
    else if (app_id != 0 && app_id != PM_STORE_APPLICATION_ID)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (application_id %d)", path, app_id);
    else if (version > pm_store_schema_latest())
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: database schema version %d is newer than this passmap "
                        "supports (%d); use a newer passmap", path, version, pm_store_schema_latest());
    else if (app_id == 0 && version == 0 && (n_objects || !may_be_empty))
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: not a passmap database (%s)", path,
                        n_objects ? "no passmap schema" : "empty");
    else
        rc = PM_OK;
    sqlite3_finalize(s);
    if (rc && !may_be_empty && app_id == 0 && version == 0 && n_objects > 0) {
        /* a reader still reads a passmap store whose pragmas were lost (an .dump reloaded): its tables say so */
        int tables = 0;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('run', "
                                   "'pass_time', 'config', 'sweep')", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            tables = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
        if (tables == 4) {
            if (err)
                pm_err_clear(err);
            rc = PM_OK;
        }
    }
    return rc;
}

/* SQLite's WAL keeps its index in shared memory (-shm), which only processes on one host share: on a network
 * filesystem a reader elsewhere can see a torn database, so a store there uses the rollback journal (one file,
 * fcntl locks) instead. PASSMAP_JOURNAL=wal or =delete overrides the detection (a filesystem it does not know). */
static const struct network_fs {
    unsigned long magic;
    const char *name;
} network_fs[] = {
    {0x6969, "NFS"},         {0x517B, "SMB"},        {0xFF534D42, "CIFS"},  {0xFE534D42, "SMB2"},
    {0x0BD00BD0, "Lustre"},  {0x47504653, "GPFS"},   {0x19830326, "BeeGFS"}, {0x00C36400, "CephFS"},
    {0xAAD7AAEA, "PanFS"},   {0x6B414653, "AFS"},    {0x5346414F, "OpenAFS"},
};

/* Every FUSE filesystem has this one statfs magic; the mount's type ("fuse.sshfs") tells them apart. */
#define PM_FUSE_MAGIC 0x65735546UL
/* FUSE filesystems whose files live on another host (the mount type's part after "fuse."). */
static const char *const network_fuse[] = {
    "sshfs", "s3fs", "gcsfuse", "rclone", "glusterfs", "ceph-fuse", "juicefs", "goofys", "blobfuse", "blobfuse2",
    "smbnetfs", "curlftpfs", "moosefs", "mfs", "lizardfs",
};

const char *pm_store_journal_for(unsigned long magic, const char *mount_type, const char **fs_name)
{
    if (fs_name)
        *fs_name = NULL;
    for (size_t i = 0; i < sizeof network_fs / sizeof network_fs[0]; i++)
        if (magic == network_fs[i].magic) {
            if (fs_name)
                *fs_name = network_fs[i].name;
            return "DELETE";
        }
    if (magic == PM_FUSE_MAGIC && mount_type && !strncmp(mount_type, "fuse.", 5))
        for (size_t i = 0; i < sizeof network_fuse / sizeof network_fuse[0]; i++)
            if (!strcmp(mount_type + 5, network_fuse[i])) {
                if (fs_name)
                    *fs_name = network_fuse[i];
                return "DELETE";
            }
    return "WAL";
}

int pm_store_mount_type(const char *mountinfo, unsigned major_no, unsigned minor_no, char *out, size_t cap)
{
    /* "36 35 0:45 / /mnt rw,relatime shared:1 - fuse.sshfs host:/ rw,...": field 3 is the device, the word
     * after " - " the type */
    for (const char *p = mountinfo; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        unsigned id, parent, ma, mi;
        int used = 0;
        if (sscanf(p, "%u %u %u:%u%n", &id, &parent, &ma, &mi, &used) == 4 && ma == major_no && mi == minor_no) {
            const char *dash = strstr(p, " - ");
            if (dash && dash < p + len) {
                const char *t = dash + 3;
                size_t n = strcspn(t, " \n");
                if (n >= cap)
                    return -1;
                memcpy(out, t, n);
                out[n] = '\0';
                return 0;
            }
        }
        p = nl ? nl + 1 : p + len;
    }
    return -1;
}

/* /proc/self/mountinfo whole (proc files say size 0: read to the end), or NULL. */
static char *read_mountinfo(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    if (!f)
        return NULL;
    do {
        if (cap - len < 4096) {
            char *g = realloc(buf, cap += 65536);
            if (!g) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static const char *journal_mode(const char *path)
{
    const char *env = getenv("PASSMAP_JOURNAL");
    if (env && !strcmp(env, "wal"))
        return "WAL";
    if (env && !strcmp(env, "delete"))
        return "DELETE";
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t dn = slash ? (size_t)(slash - path) : 1;
    if (dn == 0)
        dn = 1;
    if (dn >= sizeof dir)
        return "WAL";
    memcpy(dir, slash ? path : ".", dn);
    dir[dn] = '\0';
    struct statfs fs;
    if (statfs(dir, &fs) != 0)
        return "WAL";
    /* FUSE: which one, from the mount table (the one way to tell sshfs from a local FUSE filesystem) */
    char type[64] = "", *info = NULL;
    struct stat sb;
    if ((unsigned long)fs.f_type == PM_FUSE_MAGIC && stat(dir, &sb) == 0 && (info = read_mountinfo()) &&
        pm_store_mount_type(info, major(sb.st_dev), minor(sb.st_dev), type, sizeof type) != 0)
        type[0] = '\0';
    free(info);
    return pm_store_journal_for((unsigned long)fs.f_type, type[0] ? type : NULL, NULL);
}

/* A reader's page cache and temporary tables: the report sorts and groups per (config, pass) and per metric, and
 * with SQLite's default 2 MB cache its sorter spilled to temporary files at 15,000 runs. Hints: errors ignored. */
static void reader_pragmas(sqlite3 *db)
{
    sqlite3_exec(db, "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;", NULL, NULL, NULL);
}

static int store_open(const char *path, int readonly, pm_store **out, pm_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return pm_err_set(err, PM_ERR_USAGE, "store: no database path given");
    struct stat sb;
    if (readonly && stat(path, &sb) != 0)
        return errno == ENOENT ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no such database", path)
                               : pm_err_errno(err, PM_ERR_IO, "%s", path);
    pm_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return pm_err_set(err, PM_ERR_NOMEM, "store: out of memory");
    }
    st->readonly = readonly;
    int rc = PM_OK;
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    char *uri = readonly ? immutable_uri(path) : NULL;
    if (uri)
        flags |= SQLITE_OPEN_URI;
    int orc = sqlite3_open_v2(uri ? uri : path, &st->db, flags, NULL);
    free(uri);
    if (orc != SQLITE_OK) {
        rc = st->db ? pm_store_db_err(st, err, "open") : pm_err_set(err, PM_ERR_NOMEM, "%s: open: out of memory", path);
        goto cleanup;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, PM_STORE_BUSY_TIMEOUT_MS);
    if (readonly) {
        int old_version = 0;
        reader_pragmas(st->db);
        if ((rc = pm_store_exec_sql(st, "BEGIN", err, "begin")) != PM_OK)
            goto cleanup;
        rc = pm_store_check_schema(st, 0, &old_version, err);
        pm_store_exec_sql(st, "COMMIT", NULL, "commit");
        if (rc == PM_OK && old_version)
            rc = pm_store_migrate_copy(st, old_version, err);
        goto cleanup;
    }
    /* refused before the journal mode is touched: WAL would rewrite a foreign file's header */
    if ((rc = refuse_foreign(st->db, path, 1, err)) != PM_OK)
        goto cleanup;
    /* journal_mode cannot change inside a transaction; it is persistent once set. */
    char pragmas[160];
    const char *mode = journal_mode(path);
    /* synchronous = FULL with the rollback journal: NORMAL is only as durable as WAL's with WAL */
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = %s; PRAGMA synchronous = %s; PRAGMA foreign_keys = ON;",
             mode, strcmp(mode, "WAL") ? "FULL" : "NORMAL");
    if ((rc = pm_store_exec_sql(st, pragmas, err, "configure")) != PM_OK)
        goto cleanup;
    if ((rc = pm_store_exec_stmt(st, S_BEGIN, err, "begin")) != PM_OK)
        goto cleanup;
    int old_version = 0;
    if ((rc = pm_store_check_schema(st, 1, &old_version, err)) != PM_OK) {
        pm_store_exec_stmt(st, S_ROLLBACK, NULL, "rollback");
        goto cleanup;
    }
    rc = pm_store_exec_stmt(st, S_COMMIT, err, "commit");
cleanup:
    if (rc != PM_OK) {
        pm_store_close(st);
        return rc;
    }
    *out = st;
    return PM_OK;
}

int pm_store_open(const char *path, pm_store **out, pm_err *err)
{
    return store_open(path, 0, out, err);
}

int pm_store_open_readonly(const char *path, pm_store **out, pm_err *err)
{
    return store_open(path, 1, out, err);
}

int pm_store_is_empty(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT;
    if (!S_ISREG(sb.st_mode))
        return 0;
    if (sb.st_size == 0)
        return 1;
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int empty = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version) = 0 AND (SELECT application_id "
                               "FROM pragma_application_id) = 0 AND (SELECT count(*) FROM sqlite_schema) = 0",
                           -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        empty = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return empty;
}

int pm_store_open_db_readonly(const char *path, sqlite3 **db, pm_err *err)
{
    *db = NULL;
    char *uri = immutable_uri(path);
    int rc = sqlite3_open_v2(uri ? uri : path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0),
                             NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        pm_err_set(err, PM_ERR_DB, "cannot open %s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return PM_ERR_DB;
    }
    /* The checks every reader makes before trusting a table (the writers' pm_store_check_schema refuses the same): a
     * file of another application, or of a newer passmap whose tables may mean something else. */
    rc = refuse_foreign(*db, path, 0, err);
    if (rc) {
        sqlite3_close(*db);
        *db = NULL;
    } else
        reader_pragmas(*db);
    return rc;
}

void pm_store_close(pm_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < S__COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    for (size_t i = 0; i < sizeof st->cached / sizeof st->cached[0]; i++)
        sqlite3_finalize(st->cached[i].s);
    pm_store_name_cache_clear(&st->names);
    pm_stagemap_free(st->agg_map);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

int pm_store_cached(pm_store *st, const char *sql, sqlite3_stmt **out, pm_err *err)
{
    size_t i, n = sizeof st->cached / sizeof st->cached[0];
    for (i = 0; i < n && st->cached[i].sql && st->cached[i].sql != sql; i++)
        ;
    if (i < n && st->cached[i].sql) {
        *out = st->cached[i].s;
        sqlite3_reset(*out);
        sqlite3_clear_bindings(*out);
        return PM_OK;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v3(st->db, sql, -1, i < n ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL) != SQLITE_OK)
        return pm_store_db_err(st, err, "prepare");
    if (i == n) {   /* the cache is full: the caller's statement is not kept (not reached: a few callers) */
        sqlite3_finalize(s);
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: store statement cache full", st->path);
    }
    st->cached[i].sql = sql;
    st->cached[i].s = *out = s;
    return PM_OK;
}

sqlite3 *pm_store_db(pm_store *st)
{
    return st ? st->db : NULL;
}

const char *pm_store_path(pm_store *st)
{
    return st ? st->path : NULL;
}

int pm_store_schema_version(const pm_store *st)
{
    return st ? st->version : 0;
}
