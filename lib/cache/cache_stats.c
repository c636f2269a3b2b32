/* pm_cache stats (one small text file, read-modified-written under flock(2)), clear and verify. */
#include "cache_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static const char *const stat_names[] = {"hits", "misses", "corrupt", "evicted", "stores",
                                         "entries", "bytes", "saved_ns"};

int pc_stats_lock(pm_cache *c, uint64_t v[ST_N], pm_err *err)
{
    if (c->stats_fd < 0) {
        memset(v, 0, sizeof(uint64_t) * ST_N);
        return PM_OK;
    }
    while (flock(c->stats_fd, LOCK_EX))
        if (errno != EINTR)
            return pm_err_errno(err, PM_ERR_IO, "lock %s/stats", c->dir);
    memset(v, 0, sizeof(uint64_t) * ST_N);
    char buf[1024];
    ssize_t n = pread(c->stats_fd, buf, sizeof buf - 1, 0);
    if (n < 0) {
        flock(c->stats_fd, LOCK_UN);
        return pm_err_errno(err, PM_ERR_IO, "read %s/stats", c->dir);
    }
    buf[n] = 0;
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[32];
        unsigned long long val;
        if (sscanf(line, "%31s %llu", name, &val) != 2)
            continue;
        for (int i = 0; i < ST_N; i++)
            if (!strcmp(name, stat_names[i]))
                v[i] = val;
    }
    return PM_OK;
}

int pc_stats_unlock(pm_cache *c, const uint64_t v[ST_N], pm_err *err)
{
    int rc = PM_OK;
    if (c->stats_fd < 0)
        return v ? pm_err_set(err, PM_ERR_IO, "no stats file in %s (read-only cache)", c->dir) : PM_OK;
    if (v && c->stats_ro) {
        rc = pm_err_set(err, PM_ERR_IO, "cache %s is read-only: stats not updated", c->dir);
    } else if (v) {
        char buf[1024];
        size_t len = 0;
        for (int i = 0; i < ST_N; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %llu\n", stat_names[i],
                                    (unsigned long long)v[i]);
        if (pwrite(c->stats_fd, buf, len, 0) != (ssize_t)len || ftruncate(c->stats_fd, (off_t)len))
            rc = pm_err_errno(err, PM_ERR_IO, "write %s/stats", c->dir);
    }
    flock(c->stats_fd, LOCK_UN);
    return rc;
}

/* ---------- stats, clear, verify ---------- */

int pm_cache_stats_get(pm_cache *c, pm_cache_stats *st, pm_err *err)
{
    uint64_t v[ST_N];
    int rc = pc_stats_lock(c, v, err);
    if (rc)
        return rc;
    pc_stats_unlock(c, NULL, err);
    st->hits = v[ST_HITS];
    st->misses = v[ST_MISSES];
    st->corrupt = v[ST_CORRUPT];
    st->evicted = v[ST_EVICTED];
    st->stores = v[ST_STORES];
    st->entries = v[ST_ENTRIES];
    st->bytes = v[ST_BYTES];
    st->max_size = c->max_size;
    st->saved_s = v[ST_SAVED_NS] / 1e9;
    return PM_OK;
}

/* Removes everything below dir (files, junk folders); keeps dir. Returns -1 when something stayed. */
static int empty_folder(const char *dir, char failed[PATH_MAX])
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    struct dirent *f;
    char path[PATH_MAX];
    struct stat st;
    int bad = 0;
    while ((f = readdir(d))) {
        if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, "..") ||
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, f->d_name) >= sizeof path)
            continue;
        if (unlink(path))
            pm_util_remove_tree(path);
        if (!lstat(path, &st) && !bad) {
            bad = 1;
            snprintf(failed, PATH_MAX, "%s", path);
        }
    }
    closedir(d);
    return bad ? -1 : 0;
}

int pm_cache_clear(pm_cache *c, pm_err *err)
{
    uint64_t v[ST_N];
    int rc = pc_stats_lock(c, v, err);
    if (rc)
        return rc;
    char failed[PATH_MAX] = "", sub[PATH_MAX];
    DIR *top = opendir(c->dir);
    if (top) {
        struct dirent *d;
        struct stat st;
        while ((d = readdir(top)))
            if (pc_is_fanout(d->d_name) && (size_t)snprintf(sub, sizeof sub, "%s/%s", c->dir, d->d_name) < sizeof sub) {
                pm_util_remove_tree(sub); /* entries and any junk in them */
                if (!lstat(sub, &st) && !failed[0])
                    snprintf(failed, sizeof failed, "%s", sub);
            }
        closedir(top);
    }
    static const char *const folders[] = {"manifests", "tmp"};
    for (int i = 0; i < 2; i++) {
        char f2[PATH_MAX] = "";
        snprintf(sub, sizeof sub, "%s/%s", c->dir, folders[i]);
        if (empty_folder(sub, f2) && !failed[0])
            snprintf(failed, sizeof failed, "%s", f2[0] ? f2 : sub);
    }
    memset(v, 0, sizeof v);
    rc = pc_stats_unlock(c, v, err);
    if (failed[0])
        return pm_err_errno(err, PM_ERR_IO, "cannot remove %s", failed);
    return rc;
}

int pm_cache_verify(pm_cache *c, uint64_t *n_ok, uint64_t *n_bad, pm_err *err)
{
    scanned *e = NULL;
    size_t n = 0;
    int rc = pc_scan_entries(c, &e, &n, err);
    if (rc)
        return rc;
    *n_ok = *n_bad = 0;
    for (size_t i = 0; i < n; i++) {
        char *file = NULL, *raw = NULL;
        entry en;
        pm_err ignored;
        if (pc_load_entry(e[i].path, NULL, &file, &raw, &en, NULL, NULL, &ignored) == PM_OK) {
            (*n_ok)++;
            pc_entry_free_arrays(&en);
        } else {
            (*n_bad)++;
        }
        free(raw);
        free(file);
    }
    free(e);
    return PM_OK;
}
