/* pm_cache eviction: least recently used entries (mtime) go until the total is within max_size. */
#include "cache_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int pc_is_fanout(const char *name)
{
    return strlen(name) == 2 && strchr("0123456789abcdef", name[0]) && strchr("0123456789abcdef", name[1]);
}

/* Lists every entry; also removes temp files abandoned over an hour ago (a crashed writer). */
int pc_scan_entries(pm_cache *c, scanned **out, size_t *n_out, pm_err *err)
{
    size_t n = 0, cap = 0;
    scanned *v = NULL;
    DIR *top = opendir(c->dir);
    if (!top)
        return pm_err_errno(err, PM_ERR_IO, "open %s", c->dir);
    time_t now = time(NULL);
    struct dirent *d;
    while ((d = readdir(top))) {
        if (!pc_is_fanout(d->d_name))
            continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", c->dir, d->d_name);
        DIR *dd = opendir(sub);
        if (!dd)
            continue;
        struct dirent *f;
        while ((f = readdir(dd))) {
            char path[PATH_MAX];
            struct stat st;
            if (f->d_name[0] == '.' && strncmp(f->d_name, ".pmtmp.", 7))
                continue;
            if ((size_t)snprintf(path, sizeof path, "%s/%s", sub, f->d_name) >= sizeof path || stat(path, &st))
                continue;
            if (f->d_name[0] == '.') {
                if (now - st.st_mtime > 3600)
                    unlink(path);
                continue;
            }
            if (!S_ISREG(st.st_mode)) /* junk (a directory where an entry belongs): not counted */
                continue;
            size_t l = strlen(f->d_name);
            if (l < 6 || strcmp(f->d_name + l - 6, ".entry"))
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                scanned *bigger = realloc(v, cap * sizeof *v);
                if (!bigger) {
                    free(v);
                    closedir(dd);
                    closedir(top);
                    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                }
                v = bigger;
            }
            snprintf(v[n].path, sizeof v[n].path, "%s", path);
            v[n].mtime = st.st_mtim;
            v[n].size = (uint64_t)st.st_size;
            n++;
        }
        closedir(dd);
    }
    closedir(top);
    *out = v;
    *n_out = n;
    return PM_OK;
}

static int by_mtime(const void *a, const void *b)
{
    const scanned *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->path, y->path);
}

int pc_evict_locked(pm_cache *c, uint64_t v[ST_N], pm_err *err)
{
    scanned *e = NULL;
    size_t n = 0;
    int rc = pc_scan_entries(c, &e, &n, err);
    if (rc)
        return rc;
    if (n)
        qsort(e, n, sizeof *e, by_mtime);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += e[i].size;
    size_t left = n;
    for (size_t i = 0; i < n && total > c->max_size; i++)
        if (!unlink(e[i].path)) {
            total -= e[i].size;
            v[ST_EVICTED]++;
            left--;
        }
    v[ST_BYTES] = total; /* the scan also corrects any drift */
    v[ST_ENTRIES] = left;
    free(e);
    return PM_OK;
}
