/* pm_cache entries: one file per key, a checksummed header and a zstd payload (layout in cache.h). */
#include "cache_internal.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#define FORMAT_VERSION 2u
#define HEADER_SIZE 64
#define ZSTD_LEVEL 1 /* fast: the miss path must stay within a few % of a plain compile */

static XXH128_hash_t entry_checksum(const unsigned char *header, const void *payload, size_t len)
{
    XXH3_state_t s;
    XXH3_INITSTATE(&s);
    XXH3_128bits_reset(&s);
    XXH3_128bits_update(&s, header, 48);
    XXH3_128bits_update(&s, payload, len);
    return XXH3_128bits_digest(&s);
}

/* Room for `more` bytes after len. */
static int raw_reserve(pc_raw *r, size_t more)
{
    if (more <= r->cap - r->len)
        return 0;
    size_t cap = r->cap ? r->cap : 4096;
    while (cap - r->len < more)
        cap = cap * 2 > cap ? cap * 2 : r->len + more;
    char *b = realloc(r->buf, cap);
    if (!b)
        return -1;
    r->buf = b;
    r->cap = cap;
    return 0;
}

static int raw_put(pc_raw *r, const void *src, size_t n)
{
    if (raw_reserve(r, n))
        return -1;
    memcpy(r->buf + r->len, src, n);
    r->len += n;
    return 0;
}

int pc_raw_head(pc_raw *r, double wall_s, int32_t exit_code, uint32_t n_outputs, const char *out, uint64_t out_len,
                const char *err, uint64_t err_len)
{
    return raw_reserve(r, 8 + 4 + 4 + 8 + out_len + 8 + err_len) || raw_put(r, &wall_s, 8) ||
           raw_put(r, &exit_code, 4) || raw_put(r, &n_outputs, 4) || raw_put(r, &out_len, 8) ||
           raw_put(r, out, out_len) || raw_put(r, &err_len, 8) || raw_put(r, err, err_len) ? -1 : 0;
}

int pc_raw_file(pc_raw *r, const char *path, size_t *n, struct stat *st_out, pm_err *err)
{
    size_t at = r->len;
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "open %s", path);
    struct stat st;
    int rc = PM_OK;
    if (fstat(fd, &st)) {
        rc = pm_err_errno(err, PM_ERR_IO, "stat %s", path);
        goto cleanup;
    }
    /* the size stat gives and one byte more, so the read that finds EOF needs no bigger buffer */
    if (raw_reserve(r, (size_t)st.st_size + 1)) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    for (;;) {
        if (r->len == r->cap && raw_reserve(r, 4096)) { /* the file grew (or st_size was 0 for a special file) */
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
            goto cleanup;
        }
        ssize_t got = read(fd, r->buf + r->len, r->cap - r->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "read %s", path);
            goto cleanup;
        }
        if (got == 0)
            break;
        r->len += (size_t)got;
    }
    *n = r->len - at;
    if (st_out)
        *st_out = st;
cleanup:
    if (rc)
        r->len = at; /* nothing of this file stays */
    close(fd);
    return rc;
}

int pc_raw_output_file(pc_raw *r, uint32_t index, const char *path, pm_err *err)
{
    size_t at = r->len, n;
    uint64_t len = 0;
    if (raw_put(r, &index, 4) || raw_put(r, &len, 8)) {
        r->len = at;
        pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
        return -1;
    }
    if (pc_raw_file(r, path, &n, NULL, err)) {
        r->len = at; /* nothing of this output stays */
        return -1;
    }
    len = n;
    memcpy(r->buf + at + 4, &len, 8);
    return 0;
}

int pc_raw_deps(pc_raw *r, uint32_t n, const char *const *path, const uint32_t *path_len, const XXH128_hash_t *h)
{
    if (raw_put(r, &n, 4))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        XXH128_canonical_t can;
        XXH128_canonicalFromHash(&can, h[i]);
        if (raw_put(r, &path_len[i], 4) || raw_put(r, path[i], path_len[i]) || raw_put(r, can.digest, 16))
            return -1;
    }
    return 0;
}

void pc_raw_free(pc_raw *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int pc_entry_seal(const pc_raw *r, XXH128_hash_t key, char **buf, size_t *len, pm_err *err)
{
    size_t bound = ZSTD_compressBound(r->len);
    char *file = malloc(HEADER_SIZE + bound);
    if (!file)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory encoding a cache entry");
    size_t clen = ZSTD_compress(file + HEADER_SIZE, bound, r->buf, r->len, ZSTD_LEVEL);
    if (ZSTD_isError(clen)) {
        free(file);
        return pm_err_set(err, PM_ERR_IO, "zstd: %s", ZSTD_getErrorName(clen));
    }
    unsigned char *h = (unsigned char *)file;
    uint32_t version = FORMAT_VERSION, reserved = 0;
    uint64_t plen = clen, rlen = r->len;
    XXH128_canonical_t can;
    memcpy(h, "PMCACHE", 8);
    memcpy(h + 8, &version, 4);
    memcpy(h + 12, &reserved, 4);
    memcpy(h + 16, &plen, 8);
    memcpy(h + 24, &rlen, 8);
    XXH128_canonicalFromHash(&can, key);
    memcpy(h + 32, can.digest, 16);
    XXH128_canonicalFromHash(&can, entry_checksum(h, file + HEADER_SIZE, clen));
    memcpy(h + 48, can.digest, 16);
    *buf = file;
    *len = HEADER_SIZE + clen;
    return PM_OK;
}

static int take(const char **p, const char *end, void *dst, size_t n)
{
    if ((size_t)(end - *p) < n)
        return -1;
    memcpy(dst, *p, n);
    *p += n;
    return 0;
}

/* Verifies file (its key, lengths and checksum) and decompresses it into *raw; e points into *raw. */
static int entry_decode(const char *file, size_t len, const XXH128_hash_t *key, char **raw_out, entry *e,
                        pm_err *err)
{
    const unsigned char *h = (const unsigned char *)file;
    uint32_t version;
    uint64_t plen, rlen;
    XXH128_canonical_t can;
    if (len < HEADER_SIZE || memcmp(h, "PMCACHE", 8))
        return pm_err_set(err, PM_ERR_CORRUPT, "not a cache entry (bad magic or truncated header)");
    memcpy(&version, h + 8, 4);
    memcpy(&plen, h + 16, 8);
    memcpy(&rlen, h + 24, 8);
    if (version != FORMAT_VERSION)
        return pm_err_set(err, PM_ERR_CORRUPT, "entry format version %u, expected %u", version,
                          FORMAT_VERSION);
    if (plen != len - HEADER_SIZE)
        return pm_err_set(err, PM_ERR_CORRUPT, "entry truncated or padded (%zu payload bytes, header says %llu)",
                          len - HEADER_SIZE, (unsigned long long)plen);
    XXH128_canonicalFromHash(&can, entry_checksum(h, file + HEADER_SIZE, plen));
    if (memcmp(can.digest, h + 48, 16))
        return pm_err_set(err, PM_ERR_CORRUPT, "entry checksum mismatch");
    if (key) {
        XXH128_canonicalFromHash(&can, *key);
        if (memcmp(can.digest, h + 32, 16))
            return pm_err_set(err, PM_ERR_CORRUPT, "entry holds another key");
    }
    unsigned long long framed = ZSTD_getFrameContentSize(file + HEADER_SIZE, plen);
    if (rlen > ((uint64_t)1 << 40) || framed != rlen) /* before the allocation: the frame must agree */
        return pm_err_set(err, PM_ERR_CORRUPT, "entry size implausible");
    char *raw = malloc(rlen ? rlen : 1);
    if (!raw)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory decoding a cache entry");
    size_t got = ZSTD_decompress(raw, rlen, file + HEADER_SIZE, plen);
    if (ZSTD_isError(got) || got != rlen) {
        free(raw);
        return pm_err_set(err, PM_ERR_CORRUPT, "entry payload does not decompress");
    }
    const char *p = raw, *end = raw + rlen;
    memset(e, 0, sizeof *e);
    if (take(&p, end, &e->wall_s, 8) || take(&p, end, &e->exit_code, 4) ||
        take(&p, end, &e->n_outputs, 4) || take(&p, end, &e->out_len, 8) ||
        (uint64_t)(end - p) < e->out_len)
        goto bad;
    e->out = p;
    p += e->out_len;
    if (take(&p, end, &e->err_len, 8) || (uint64_t)(end - p) < e->err_len)
        goto bad;
    e->err = p;
    p += e->err_len;
    if (e->n_outputs > (uint64_t)(end - p) / 12)
        goto bad;
    e->data = calloc(e->n_outputs + 1, sizeof *e->data);
    e->len = calloc(e->n_outputs + 1, sizeof *e->len);
    if (!e->data || !e->len)
        goto bad;
    for (uint32_t i = 0; i < e->n_outputs; i++) {
        uint32_t idx;
        if (take(&p, end, &idx, 4) || idx != i || take(&p, end, &e->len[i], 8) ||
            (uint64_t)(end - p) < e->len[i])
            goto bad;
        e->data[i] = p;
        p += e->len[i];
    }
    if (take(&p, end, &e->n_deps, 4) || e->n_deps > (uint64_t)(end - p) / 20)
        goto bad;
    e->dep_path = calloc(e->n_deps + 1, sizeof *e->dep_path);
    e->dep_len = calloc(e->n_deps + 1, sizeof *e->dep_len);
    e->dep_h = calloc(e->n_deps + 1, sizeof *e->dep_h);
    if (!e->dep_path || !e->dep_len || !e->dep_h)
        goto bad;
    for (uint32_t i = 0; i < e->n_deps; i++) {
        XXH128_canonical_t dcan;
        if (take(&p, end, &e->dep_len[i], 4) || !e->dep_len[i] || (uint64_t)(end - p) < (uint64_t)e->dep_len[i] + 16 ||
            memchr(p, 0, e->dep_len[i]))
            goto bad;
        e->dep_path[i] = p;
        p += e->dep_len[i];
        take(&p, end, dcan.digest, 16);
        e->dep_h[i] = XXH128_hashFromCanonical(&dcan);
    }
    if (p != end)
        goto bad;
    *raw_out = raw;
    return PM_OK;
bad:
    pm_free_all(e->data, e->len, e->dep_path, e->dep_len, e->dep_h, raw);
    memset(e, 0, sizeof *e);
    return pm_err_set(err, PM_ERR_CORRUPT, "entry payload malformed");
}

void pc_entry_free_arrays(entry *e)
{
    pm_free_all(e->data, e->len, e->dep_path, e->dep_len, e->dep_h);
}

int pm_cache_entry_check(const void *data, size_t len, pm_err *err)
{
    char *raw = NULL;
    entry e;
    int rc = entry_decode(data, len, NULL, &raw, &e, err);
    if (!rc)
        pc_entry_free_arrays(&e);
    free(raw);
    return rc;
}

/* An entry is a regular file; anything else at its path is junk (PM_ERR_CORRUPT with *junk set). */
int pc_load_entry(const char *path, const XXH128_hash_t *key, char **file, char **raw, entry *e,
                  struct stat *st, int *junk, pm_err *err)
{
    size_t len;
    struct stat lst;
    *file = *raw = NULL;
    if (junk)
        *junk = 0;
    if (lstat(path, &lst))
        return pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "stat %s", path);
    if (!S_ISREG(lst.st_mode)) {
        if (junk)
            *junk = 1;
        if (st)
            *st = lst;
        return pm_err_set(err, PM_ERR_CORRUPT, "%s is not a regular file", path);
    }
    int rc = pc_read_file(path, file, &len, st, err);
    if (rc)
        return rc;
    rc = entry_decode(*file, len, key, raw, e, err);
    if (rc) {
        free(*file);
        *file = NULL;
    }
    return rc;
}

/* Reads a whole file; *buf is malloc'd (NUL-terminated for convenience). */
int pc_read_file(const char *path, char **buf, size_t *len, struct stat *st_out, pm_err *err)
{
    pc_raw r = {0};
    int rc = pc_raw_file(&r, path, len, st_out, err);
    if (rc) {
        pc_raw_free(&r);
        return rc;
    }
    r.buf[*len] = 0;   /* pc_raw_file leaves room for it */
    *buf = r.buf;
    return PM_OK;
}
