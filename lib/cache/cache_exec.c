/* pm_cache exec: compute the key, serve a hit (outputs restored, streams replayed), else run the miss. */
#include "cache_internal.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

/* ---------- exec ---------- */

static int dup_bytes(const char *src, size_t n, char **dst, size_t *dst_len, pm_err *err)
{
    *dst = malloc(n + 1);
    if (!*dst)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    memcpy(*dst, src, n);
    (*dst)[n] = 0;
    *dst_len = n;
    return PM_OK;
}

/* Drops a corrupt entry or junk at its path (if no writer replaced it meanwhile) and recounts the
 * totals from the files, so bytes and entries stay exact whatever the damage did to the size. */
static int drop_entry(pm_cache *c, const char *path, const struct stat *seen, int junk, pm_err *err)
{
    uint64_t v[ST_N];
    struct stat now_st;
    int rc = pc_stats_lock(c, v, err);
    if (rc)
        return rc;
    if (!lstat(path, &now_st) && now_st.st_ino == seen->st_ino && now_st.st_dev == seen->st_dev) {
        if (junk ? pc_remove_junk(path) : unlink(path))
            rc = pm_err_errno(err, PM_ERR_IO, "cannot remove the damaged entry %s", path);
    }
    if (!rc)
        rc = pc_evict_locked(c, v, err);
    int rc2 = pc_stats_unlock(c, v, err);
    return rc ? rc : rc2;
}

int pm_cache_exec(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err)
{
    double t0 = pm_util_now();
    key_info k;
    memset(res, 0, sizeof *res);
    int rc;
    if (!c) { /* no usable cache: the caller has said why */
        rc = pc_run_uncached(NULL, req, res, err);
        goto done;
    }
    if ((rc = pc_compute_key(c, req, &k, err)))
        return rc;
    double t_key = pm_util_now();
    res->key_s = t_key - t0;
    pc_hex128(k.key, res->key);
    if (k.why[0]) {
        pc_warn(res, "not cached: %s", k.why);
        rc = pc_run_uncached(c, req, res, err);
        pc_key_info_free(&k);
        goto done;
    }
    char path[PATH_MAX];
    pm_cache_entry_path(c, res->key, path, sizeof path);

    char *file = NULL, *raw = NULL;
    entry e;
    struct stat st;
    pm_err lerr;
    dep_list now_deps = {0};
    int junk = 0, lrc = pc_load_entry(path, &k.key, &file, &raw, &e, &st, &junk, &lerr);
    if (lrc == PM_OK && e.n_outputs != k.n_outputs) /* same key, other output count: a damaged format */
        lrc = PM_ERR_CORRUPT;
    long changed = -1;
    if (lrc == PM_OK && (rc = pc_deps_check(&e, &now_deps, &changed, err)))
        goto loaded;
    double t_lookup = pm_util_now();
    res->lookup_s = t_lookup - t_key;
    if (lrc == PM_OK && changed < 0) {
        for (uint32_t i = 0; i < e.n_outputs; i++) {
            pm_err werr;
            /* A regular file there goes first: renaming over it makes ext4 (auto_da_alloc) write the new data
             * out at once, 5-8 ms of a 3 ms hit; into a free name the rename is only a rename. The output still
             * never exists half written (the old one, none, then the new one); a symlink is written through. */
            struct stat ost;
            if (!lstat(k.out_paths[i], &ost) && S_ISREG(ost.st_mode))
                unlink(k.out_paths[i]);
            if (pm_util_write_file_atomic(k.out_paths[i], e.data[i], e.len[i], c->file_mode, NULL, &werr)) {
                pc_warn(res, "cannot restore %s (%s): ran CMD uncached", k.out_paths[i], werr.msg);
                rc = pc_run_uncached(c, req, res, err);
                goto loaded;
            }
        }
        if ((rc = dup_bytes(e.out, e.out_len, &res->out, &res->out_len, err)) ||
            (rc = dup_bytes(e.err, e.err_len, &res->err, &res->err_len, err)))
            goto loaded;
        res->restore_s = pm_util_now() - t_lookup;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        utimensat(AT_FDCWD, path, (struct timespec[2]){now, now}, 0); /* LRU "last used" (read-only: kept) */
        res->hit = 1;
        res->wall_s = pm_util_now() - t0;
        res->saved_s = e.wall_s > res->wall_s ? e.wall_s - res->wall_s : 0;
        uint64_t v[ST_N];
        pm_err serr;
        if (pc_stats_lock(c, v, &serr)) {
            pc_warn(res, "cache stats not updated: %s", serr.msg);
        } else {
            v[ST_HITS]++;
            v[ST_SAVED_NS] += (uint64_t)(res->saved_s * 1e9);
            if (pc_stats_unlock(c, v, &serr))
                pc_warn(res, "%s", serr.msg);
        }
    }
loaded:
    if (lrc == PM_OK || (lrc == PM_ERR_CORRUPT && file)) {
        pc_entry_free_arrays(&e);
        free(raw);
        free(file);
    }
    if (rc || res->hit || res->uncached)
        goto finish;
    if (lrc == PM_ERR_CORRUPT) {
        res->corrupt = 1;
        pm_err derr;
        if (drop_entry(c, path, &st, junk, &derr)) {
            pc_warn(res, "cache entry unusable (%s): ran uncached", derr.msg);
            rc = pc_run_uncached(c, req, res, err);
            goto finish;
        }
    } else if (lrc != PM_OK && lrc != PM_ERR_NOTFOUND) {
        pc_warn(res, "cannot read the cache entry (%s): ran uncached", lerr.msg);
        rc = pc_run_uncached(c, req, res, err);
        goto finish;
    }
    rc = pc_run_miss(c, req, &k, path, lrc == PM_OK ? &now_deps : NULL, res, err);
finish:
    if (!rc && !res->uncached) {
        pm_err merr;
        if (pc_write_manifest(c, &k, req, &merr))
            pc_warn(res, "cache manifest not written: %s", merr.msg);
    }
    pc_dep_list_free(&now_deps);
    pc_key_info_free(&k);
done:
    res->wall_s = pm_util_now() - t0;
    if (res->hit)
        res->book_s = res->wall_s - res->key_s - res->lookup_s - res->restore_s;
    if (rc)
        pm_cache_result_free(res);
    return rc;
}

void pm_cache_result_free(pm_cache_result *res)
{
    if (!res)
        return;
    pm_free_all(res->out, res->err);
    res->out = res->err = NULL;
}
