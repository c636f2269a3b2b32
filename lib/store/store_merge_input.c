/* The input of a merge (store_merge.c): whether it is the output itself, and an input of an older schema merged
 * from an upgraded copy beside the output, never upgraded in place. */
#include "store.h"
#include "store_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int pm_store_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* An input of an older schema is merged from an upgraded copy beside the output (the sqlite backup of it, so
 * a -wal's content comes along), never upgraded in place: inputs may be read-only, or another passmap's.
 * copy[0] == 0: the input is current and is read as it is. */
int pm_store_merge_input_copy(const char *in_path, const char *out_path, int want_version, char *copy, size_t cap,
                              pm_err *err)
{
    pm_store *in = NULL;
    copy[0] = '\0';
    int rc = pm_store_open_readonly(in_path, &in, err);
    if (rc != PM_OK)
        return rc;
    int version = pm_store_schema_version(in);
    pm_store_close(in);
    if (version >= want_version)
        return PM_OK;
    if ((size_t)snprintf(copy, cap, "%s.upgrade-XXXXXX", out_path) >= cap) {
        copy[0] = '\0';
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", out_path);
    }
    int fd = mkstemp(copy);
    if (fd < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot create a copy of %s beside %s", in_path, out_path);
        copy[0] = '\0';
        return rc;
    }
    close(fd);
    sqlite3 *src = NULL, *dst = NULL;
    if (sqlite3_open_v2(in_path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_open_v2(copy, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        rc = pm_err_set(err, PM_ERR_DB, "copying %s: %s", in_path, sqlite3_errmsg(dst ? dst : src));
    } else {
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
        if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE)
            rc = pm_err_set(err, PM_ERR_DB, "copying %s: %s", in_path, sqlite3_errmsg(dst));
        sqlite3_backup_finish(b);
    }
    sqlite3_close(src);
    sqlite3_close(dst);
    if (rc != PM_OK)
        return rc;
    if ((rc = pm_store_open(copy, &in, err)) != PM_OK)
        return pm_err_wrap(err, "upgrading a copy of %s to schema version %d", in_path, want_version);
    pm_store_close(in);
    return PM_OK;
}

void pm_store_merge_remove_copy(const char *copy)
{
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; copy[0] && i < sizeof sides / sizeof sides[0]; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", copy, sides[i]);
        unlink(p);
    }
}
