/* pm_cache: see cache.h for the key, the input rule and the on-disk layout; cache_internal.h for the files.
 * This one: opening the cache and the small file helpers the others share. */
#include "cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* ---------- small helpers ---------- */

void pc_hex128(XXH128_hash_t h, char out[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

int pc_path_join(char *buf, size_t n, const char *a, const char *b, pm_err *err)
{
    if ((size_t)snprintf(buf, n, "%s/%s", a, b) >= n)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %s/%s", a, b);
    return PM_OK;
}

int pc_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int pc_hash_file(const char *path, XXH128_hash_t *out, pm_err *err)
{
    int rc = PM_OK;
    XXH3_state_t *s = XXH3_createState();
    /* Below malloc's mmap threshold (128 KiB): the heap reuses the buffer from one call to the next, where a
     * fresh 256 KiB mapping per file cost a page fault per 4 KiB read (~60 per input hashed, twice on a miss).
     * 16 KiB, not 64: a hit re-hashes headers of up to ~32 KiB (stdio.h), and each 4 KiB page of buffer a read
     * first touches is a page fault (~25 us on a VM) where one more read is ~1 us. */
    enum { HASH_BUF = 1 << 14 };
    char *buf = malloc(HASH_BUF);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (!s || !buf) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory hashing %s", path);
        goto cleanup;
    }
    if (fd < 0) {
        rc = pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "open %s", path);
        goto cleanup;
    }
    XXH3_128bits_reset(s);
    for (;;) {
        ssize_t r = read(fd, buf, HASH_BUF);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "read %s", path);
            goto cleanup;
        }
        if (r == 0)
            break;
        XXH3_128bits_update(s, buf, (size_t)r);
    }
    *out = XXH3_128bits_digest(s);
cleanup:
    if (fd >= 0)
        close(fd);
    free(buf);
    XXH3_freeState(s);
    return rc;
}

size_t pc_count_list(const char *const *l)
{
    size_t n = 0;
    while (l && l[n])
        n++;
    return n;
}

/* ---------- open / dir resolution ---------- */

/* A folder that is there costs one stat: every hit opens the cache, and mkdir on each component of an existing
 * path takes each parent's lock (concurrent hits queue on them). */
static int ensure_dir(const char *path, pm_err *err)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode) ? PM_OK : pm_util_mkdir_p(path, err);
}

int pm_cache_open(const char *dir, uint64_t max_size, pm_cache **out, pm_err *err)
{
    char path[PATH_MAX];
    const char *env;
    int rc;
    int n;
    if (dir && *dir)
        n = snprintf(path, sizeof path, "%s", dir);
    else if ((env = getenv("PASSMAP_CACHE_DIR")) && *env)
        n = snprintf(path, sizeof path, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        n = snprintf(path, sizeof path, "%s/passmap", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(path, sizeof path, "%s/.cache/passmap", env);
    else
        return pm_err_set(err, PM_ERR_USAGE, "no cache directory: set PASSMAP_CACHE_DIR or HOME");
    if (n < 0 || (size_t)n >= sizeof path)   /* cut, it would name (and create) another folder */
        return pm_err_set(err, PM_ERR_USAGE, "cache directory path longer than %zu bytes: %.80s...", sizeof path - 1,
                          path);
    if ((rc = ensure_dir(path, err)))
        return rc;
    pm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        free(c);
        return pm_err_errno(err, PM_ERR_IO, "resolve %s", path);
    }
    if (strlen(real) >= DIR_MAX) {
        free(c);
        return pm_err_set(err, PM_ERR_USAGE, "cache directory path longer than %d bytes: %s", DIR_MAX - 1, real);
    }
    memcpy(c->dir, real, strlen(real) + 1); /* checked above */
    c->max_size = max_size ? max_size : PM_CACHE_DEFAULT_MAX_SIZE;
    mode_t mask = umask(0);
    umask(mask);
    c->file_mode = 0666 & ~mask;
    /* A read-only cache still serves hits: missing folders and an unwritable stats file are not errors here
     * (each write reports its own failure later, which exec turns into one warning). */
    char sub[PATH_MAX];
    pm_err ignored;
    if (!pc_path_join(sub, sizeof sub, c->dir, "manifests", &ignored))
        ensure_dir(sub, &ignored);
    if (!pc_path_join(sub, sizeof sub, c->dir, "tmp", &ignored))
        ensure_dir(sub, &ignored);
    if ((rc = pc_path_join(sub, sizeof sub, c->dir, "stats", err))) {
        free(c);
        return rc;
    }
    c->stats_fd = open(sub, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (c->stats_fd < 0) {
        c->stats_fd = open(sub, O_RDONLY | O_CLOEXEC);
        c->stats_ro = 1;
    }
    *out = c;
    return PM_OK;
}

void pm_cache_close(pm_cache *c)
{
    if (!c)
        return;
    if (c->stats_fd >= 0)
        close(c->stats_fd);
    free(c);
}

const char *pm_cache_dir(const pm_cache *c) { return c->dir; }

int pm_cache_entry_path(const pm_cache *c, const char *key, char *buf, size_t n)
{
    return (size_t)snprintf(buf, n, "%s/%.2s/%s.entry", c->dir, key, key + 2) >= n ? -1 : 0;
}

/* The first problem only: the CLI prints one warning line per run. */
void pc_warn(pm_cache_result *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pm_util_vfirst(res->warning, sizeof res->warning, fmt, ap);
    va_end(ap);
}
