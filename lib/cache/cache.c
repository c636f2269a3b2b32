/* pm_cache: see cache.h for the key, the input rule and the on-disk layout. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zstd.h>

#include "run.h"
#include "util.h"

#define FORMAT_VERSION 1u
#define KEY_VERSION "passmap-cache-key-1"
#define HEADER_SIZE 64
#define ZSTD_LEVEL 1 /* fast: the miss path must stay within a few % of a plain compile */

#define DIR_MAX (PATH_MAX - 512) /* room for the names appended below the cache dir */

struct pm_cache {
    char dir[DIR_MAX];
    uint64_t max_size;
    int stats_fd;
    mode_t file_mode; /* 0666 & ~umask, for restored outputs */
};

/* ---------- small helpers ---------- */

static void hex128(XXH128_hash_t h, char out[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

static int path_join(char *buf, size_t n, const char *a, const char *b, pm_err *err)
{
    if ((size_t)snprintf(buf, n, "%s/%s", a, b) >= n)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %s/%s", a, b);
    return PM_OK;
}

static int write_all(int fd, const void *buf, size_t len)
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

/* Reads a whole file; *buf is malloc'd (NUL-terminated for convenience). */
static int read_file(const char *path, char **buf, size_t *len, struct stat *st_out, pm_err *err)
{
    int rc = PM_OK;
    char *data = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "open %s", path);
    struct stat st;
    if (fstat(fd, &st)) {
        rc = pm_err_errno(err, PM_ERR_IO, "stat %s", path);
        goto cleanup;
    }
    size_t cap = (size_t)st.st_size, n = 0;
    data = malloc(cap + 1);
    if (!data) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    for (;;) {
        if (n == cap) { /* the file grew (or st_size was 0 for a special file) */
            char *bigger = realloc(data, cap * 2 + 4097);
            if (!bigger) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
                goto cleanup;
            }
            data = bigger;
            cap = cap * 2 + 4096;
        }
        ssize_t r = read(fd, data + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "read %s", path);
            goto cleanup;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    data[n] = 0;
    *buf = data;
    *len = n;
    data = NULL;
    if (st_out)
        *st_out = st;
cleanup:
    free(data);
    close(fd);
    return rc;
}

static int hash_file(const char *path, XXH128_hash_t *out, pm_err *err)
{
    int rc = PM_OK;
    XXH3_state_t *s = XXH3_createState();
    char *buf = malloc(1 << 18);
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
        ssize_t r = read(fd, buf, 1 << 18);
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

/* Writes data to a temp file beside path, then rename(2)s it over path. */
static int write_atomic(const char *path, const void *data, size_t len, mode_t mode,
                        const struct timespec *mtime, pm_err *err)
{
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    if ((size_t)snprintf(tmp, sizeof tmp, "%.*s/.pmtmp.XXXXXX", dirlen, dir) >= sizeof tmp)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %s", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, "create temp file for %s", path);
    if (write_all(fd, data, len) || fchmod(fd, mode) ||
        (mtime && futimens(fd, (struct timespec[2]){*mtime, *mtime}))) {
        int rc = pm_err_errno(err, PM_ERR_IO, "write %s", tmp);
        close(fd);
        unlink(tmp);
        return rc;
    }
    if (close(fd) || rename(tmp, path)) {
        int rc = pm_err_errno(err, PM_ERR_IO, "publish %s", path);
        unlink(tmp);
        return rc;
    }
    return PM_OK;
}

/* ---------- stats: one small text file, read-modified-written under flock(2) ---------- */

static const char *const stat_names[] = {"hits", "misses", "corrupt", "evicted", "stores",
                                         "entries", "bytes", "saved_ns"};
enum { ST_HITS, ST_MISSES, ST_CORRUPT, ST_EVICTED, ST_STORES, ST_ENTRIES, ST_BYTES, ST_SAVED_NS, ST_N };

static int stats_lock(pm_cache *c, uint64_t v[ST_N], pm_err *err)
{
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
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
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

static int stats_unlock(pm_cache *c, const uint64_t v[ST_N], pm_err *err)
{
    int rc = PM_OK;
    if (v) {
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

/* ---------- open / dir resolution ---------- */

int pm_cache_open(const char *dir, uint64_t max_size, pm_cache **out, pm_err *err)
{
    char path[PATH_MAX];
    const char *env;
    int rc;
    if (dir && *dir)
        snprintf(path, sizeof path, "%s", dir);
    else if ((env = getenv("PASSMAP_CACHE_DIR")) && *env)
        snprintf(path, sizeof path, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(path, sizeof path, "%s/passmap", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(path, sizeof path, "%s/.cache/passmap", env);
    else
        return pm_err_set(err, PM_ERR_USAGE, "no cache directory: set PASSMAP_CACHE_DIR or HOME");
    if ((rc = pm_util_mkdir_p(path, err)))
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
        return pm_err_set(err, PM_ERR_USAGE, "cache directory path too long: %s", real);
    }
    strcpy(c->dir, real);
    c->max_size = max_size ? max_size : PM_CACHE_DEFAULT_MAX_SIZE;
    mode_t mask = umask(0);
    umask(mask);
    c->file_mode = 0666 & ~mask;
    char sub[PATH_MAX];
    if ((rc = path_join(sub, sizeof sub, c->dir, "manifests", err)) || (rc = pm_util_mkdir_p(sub, err)) ||
        (rc = path_join(sub, sizeof sub, c->dir, "tmp", err)) || (rc = pm_util_mkdir_p(sub, err)) ||
        (rc = path_join(sub, sizeof sub, c->dir, "stats", err)))
        goto fail;
    c->stats_fd = open(sub, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (c->stats_fd < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "open %s", sub);
        goto fail;
    }
    *out = c;
    return PM_OK;
fail:
    free(c);
    return rc;
}

void pm_cache_close(pm_cache *c)
{
    if (!c)
        return;
    close(c->stats_fd);
    free(c);
}

const char *pm_cache_dir(const pm_cache *c) { return c->dir; }

int pm_cache_entry_path(const pm_cache *c, const char *key, char *buf, size_t n)
{
    return (size_t)snprintf(buf, n, "%s/%.2s/%s.entry", c->dir, key, key + 2) >= n ? -1 : 0;
}

/* ---------- compiler identity ---------- */

static int resolve_exe(const char *name, char out[PATH_MAX], pm_err *err)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK))
            return pm_err_errno(err, PM_ERR_NOTFOUND, "compiler %s", name);
        snprintf(out, PATH_MAX, "%s", name);
        return PM_OK;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        struct stat st;
        if ((size_t)snprintf(out, PATH_MAX, "%.*s/%s", (int)len, len ? p : ".", name) < PATH_MAX &&
            !stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
            return PM_OK;
        p += len + (colon ? 1 : 0);
    }
    return pm_err_set(err, PM_ERR_NOTFOUND, "compiler '%s' not found in PATH", name);
}

/* Content hash of the executable, memoised in DIR/compilers by path+size+mtime_ns+inode. */
static int compiler_hash(pm_cache *c, const char *exe, XXH128_hash_t *out, pm_err *err)
{
    struct stat st;
    if (stat(exe, &st))
        return pm_err_errno(err, PM_ERR_NOTFOUND, "compiler %s", exe);
    char memo[PATH_MAX], line[PATH_MAX + 200], want[PATH_MAX + 100];
    int rc = path_join(memo, sizeof memo, c->dir, "compilers", err);
    if (rc)
        return rc;
    snprintf(want, sizeof want, " %lld %lld %llu %s", (long long)st.st_size,
             (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
             (unsigned long long)st.st_ino, exe);
    FILE *f = fopen(memo, "re");
    int found = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            if (strlen(line) > 32 && !strcmp(line + 32, want)) {
                XXH128_canonical_t can;
                for (int i = 0; i < 16; i++) {
                    unsigned b;
                    if (sscanf(line + 2 * i, "%2x", &b) != 1)
                        break;
                    can.digest[i] = (unsigned char)b;
                }
                *out = XXH128_hashFromCanonical(&can);
                found = 1;
            }
        }
        fclose(f);
    }
    if (found)
        return PM_OK;
    if ((rc = hash_file(exe, out, err)))
        return rc;
    char hex[33];
    hex128(*out, hex);
    int len = snprintf(line, sizeof line, "%s%s\n", hex, want);
    int fd = open(memo, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) { /* one O_APPEND write per line: concurrent appenders don't interleave */
        if (write_all(fd, line, (size_t)len)) { /* a lost memo line only costs a rehash */
        }
        close(fd);
    }
    return PM_OK;
}

/* ---------- key ---------- */

typedef struct key_info {
    XXH128_hash_t key, compiler, argv_h, manifest_id;
    char compiler_path[PATH_MAX];
    size_t n_inputs, cap_inputs;
    char **input_paths;          /* as the user wrote them */
    char **input_canon;
    XXH128_hash_t *input_h;
    size_t n_outputs, n_env;
    XXH128_hash_t *env_h;
} key_info;

static void key_info_free(key_info *k)
{
    for (size_t i = 0; i < k->n_inputs; i++) {
        free(k->input_paths[i]);
        free(k->input_canon[i]);
    }
    free(k->input_paths);
    free(k->input_canon);
    free(k->input_h);
    free(k->env_h);
    memset(k, 0, sizeof *k);
}

static void feed(XXH3_state_t *s, char tag, const void *data, size_t len)
{
    uint64_t n = len;
    XXH3_128bits_update(s, &tag, 1);
    XXH3_128bits_update(s, &n, sizeof n);
    XXH3_128bits_update(s, data, len);
}

/* Absolute path: realpath when the file exists, else realpath(parent)/name (outputs not yet written). */
static char *canon_path(const char *p)
{
    char buf[PATH_MAX];
    if (realpath(p, buf))
        return strdup(buf);
    char parent[PATH_MAX];
    const char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - p) : 1, slash ? (slash == p ? "/" : p) : ".");
    if (!realpath(parent, buf))
        return strdup(p);
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, "%s%s", n > 1 ? "/" : "", base);
    return strdup(buf);
}

static int add_input(key_info *k, const char *path, char *canon, pm_err *err)
{
    if (k->n_inputs == k->cap_inputs) {
        size_t cap = k->cap_inputs ? k->cap_inputs * 2 : 8;
        char **p = realloc(k->input_paths, cap * sizeof *p);
        if (p)
            k->input_paths = p;
        char **q = realloc(k->input_canon, cap * sizeof *q);
        if (q)
            k->input_canon = q;
        if (!p || !q) {
            free(canon);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        k->cap_inputs = cap;
    }
    k->input_paths[k->n_inputs] = strdup(path);
    k->input_canon[k->n_inputs] = canon;
    if (!k->input_paths[k->n_inputs] || !canon) {
        free(k->input_paths[k->n_inputs]);
        free(canon);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    k->n_inputs++;
    return PM_OK;
}

static size_t count_list(const char *const *l)
{
    size_t n = 0;
    while (l && l[n])
        n++;
    return n;
}

/* Placeholder for one argv text if it names an input or output ("@IN3"), or NULL. May add an input. */
static int classify(key_info *k, char **out_canon, size_t n_out, const char *text, char ph[32],
                    pm_err *err)
{
    ph[0] = 0;
    if (!*text)
        return PM_OK;
    struct stat st;
    int exists = !stat(text, &st);
    char *canon = canon_path(text);
    if (!canon)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_out; i++)
        if (!strcmp(canon, out_canon[i])) {
            snprintf(ph, 32, "@OUT%zu", i);
            free(canon);
            return PM_OK;
        }
    if (!exists || !S_ISREG(st.st_mode)) {
        free(canon);
        return PM_OK;
    }
    for (size_t i = 0; i < k->n_inputs; i++)
        if (!strcmp(canon, k->input_canon[i])) {
            snprintf(ph, 32, "@IN%zu", i);
            free(canon);
            return PM_OK;
        }
    snprintf(ph, 32, "@IN%zu", k->n_inputs);
    return add_input(k, text, canon, err);
}

static int compute_key(pm_cache *c, const pm_cache_request *req, key_info *k, pm_err *err)
{
    int rc = PM_OK;
    size_t n_out = count_list(req->outputs);
    char **out_canon = calloc(n_out + 1, sizeof *out_canon);
    XXH3_state_t *s = XXH3_createState();
    memset(k, 0, sizeof *k);
    if (!out_canon || !s) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (!req->argv || !req->argv[0]) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no command given");
        goto cleanup;
    }
    if ((rc = resolve_exe(req->argv[0], k->compiler_path, err)) ||
        (rc = compiler_hash(c, k->compiler_path, &k->compiler, err)))
        goto cleanup;
    for (size_t i = 0; i < n_out; i++)
        if (!(out_canon[i] = canon_path(req->outputs[i]))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    k->n_outputs = n_out;
    for (size_t i = 0; req->inputs && req->inputs[i]; i++) {
        if (access(req->inputs[i], R_OK)) {
            rc = pm_err_errno(err, PM_ERR_NOTFOUND, "input %s", req->inputs[i]);
            goto cleanup;
        }
        if ((rc = add_input(k, req->inputs[i], canon_path(req->inputs[i]), err)))
            goto cleanup;
    }

    /* argv with paths replaced by placeholders */
    XXH3_128bits_reset(s);
    size_t argc = 0;
    while (req->argv[argc])
        argc++;
    feed(s, 'n', &argc, sizeof argc);
    for (size_t i = 1; i < argc; i++) {
        const char *a = req->argv[i];
        char ph[32], buf[PATH_MAX + 64];
        if ((rc = classify(k, out_canon, n_out, a, ph, err)))
            goto cleanup;
        const char *eq = strchr(a, '=');
        if (!ph[0] && eq && eq != a) {
            if ((rc = classify(k, out_canon, n_out, eq + 1, ph, err)))
                goto cleanup;
            if (ph[0]) {
                snprintf(buf, sizeof buf, "%.*s=%s", (int)(eq - a), a, ph);
                feed(s, 'a', buf, strlen(buf));
                continue;
            }
        }
        feed(s, 'a', ph[0] ? ph : a, strlen(ph[0] ? ph : a));
    }
    k->argv_h = XXH3_128bits_digest(s);

    k->input_h = calloc(k->n_inputs + 1, sizeof *k->input_h);
    size_t n_env = count_list(req->env_names);
    k->env_h = calloc(n_env + 1, sizeof *k->env_h);
    if (!k->input_h || !k->env_h) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < k->n_inputs; i++)
        if ((rc = hash_file(k->input_paths[i], &k->input_h[i], err)))
            goto cleanup;
    k->n_env = n_env;
    for (size_t i = 0; i < n_env; i++) {
        const char *val = getenv(req->env_names[i]);
        XXH3_128bits_reset(s);
        feed(s, 'N', req->env_names[i], strlen(req->env_names[i]));
        feed(s, val ? 'S' : 'U', val ? val : "", val ? strlen(val) : 0);
        k->env_h[i] = XXH3_128bits_digest(s);
    }

    XXH3_128bits_reset(s);
    feed(s, 'V', KEY_VERSION, strlen(KEY_VERSION));
    feed(s, 'C', &k->compiler, sizeof k->compiler);
    feed(s, 'A', &k->argv_h, sizeof k->argv_h);
    feed(s, 'I', &k->n_inputs, sizeof k->n_inputs);
    for (size_t i = 0; i < k->n_inputs; i++)
        feed(s, 'i', &k->input_h[i], sizeof k->input_h[i]);
    feed(s, 'O', &n_out, sizeof n_out);
    feed(s, 'E', &n_env, sizeof n_env);
    for (size_t i = 0; i < n_env; i++)
        feed(s, 'e', &k->env_h[i], sizeof k->env_h[i]);
    k->key = XXH3_128bits_digest(s);

    /* "the same command line" for explain: what it produces, else what it says */
    XXH3_128bits_reset(s);
    if (n_out)
        feed(s, 'o', out_canon[0], strlen(out_canon[0]));
    else {
        feed(s, 'c', k->compiler_path, strlen(k->compiler_path));
        feed(s, 'A', &k->argv_h, sizeof k->argv_h);
    }
    k->manifest_id = XXH3_128bits_digest(s);
cleanup:
    if (rc)
        key_info_free(k);
    for (size_t i = 0; out_canon && i < n_out; i++)
        free(out_canon[i]);
    free(out_canon);
    XXH3_freeState(s);
    return rc;
}

int pm_cache_key(pm_cache *c, const pm_cache_request *req, char key[33], pm_err *err)
{
    key_info k;
    int rc = compute_key(c, req, &k, err);
    if (rc)
        return rc;
    hex128(k.key, key);
    key_info_free(&k);
    return PM_OK;
}

/* ---------- entries ---------- */

typedef struct entry {
    double wall_s;
    int32_t exit_code;
    const char *out, *err;
    uint64_t out_len, err_len;
    uint32_t n_outputs;
    const char **data;   /* per output index */
    uint64_t *len;
} entry;

static void put(char **p, const void *src, size_t n)
{
    memcpy(*p, src, n);
    *p += n;
}

static XXH128_hash_t entry_checksum(const unsigned char *header, const void *payload, size_t len)
{
    XXH3_state_t s;
    XXH3_INITSTATE(&s);
    XXH3_128bits_reset(&s);
    XXH3_128bits_update(&s, header, 48);
    XXH3_128bits_update(&s, payload, len);
    return XXH3_128bits_digest(&s);
}

/* Builds header + compressed payload in one malloc'd buffer. */
static int entry_encode(const entry *e, XXH128_hash_t key, char **buf, size_t *len, pm_err *err)
{
    size_t raw_len = 8 + 4 + 4 + 8 + e->out_len + 8 + e->err_len;
    for (uint32_t i = 0; i < e->n_outputs; i++)
        raw_len += 4 + 8 + e->len[i];
    char *raw = malloc(raw_len), *p = raw;
    size_t bound = ZSTD_compressBound(raw_len);
    char *file = malloc(HEADER_SIZE + bound);
    if (!raw || !file) {
        free(raw);
        free(file);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory encoding a cache entry");
    }
    put(&p, &e->wall_s, 8);
    put(&p, &e->exit_code, 4);
    put(&p, &e->n_outputs, 4);
    put(&p, &e->out_len, 8);
    put(&p, e->out, e->out_len);
    put(&p, &e->err_len, 8);
    put(&p, e->err, e->err_len);
    for (uint32_t i = 0; i < e->n_outputs; i++) {
        put(&p, &i, 4);
        put(&p, &e->len[i], 8);
        put(&p, e->data[i], e->len[i]);
    }
    size_t clen = ZSTD_compress(file + HEADER_SIZE, bound, raw, raw_len, ZSTD_LEVEL);
    free(raw);
    if (ZSTD_isError(clen)) {
        free(file);
        return pm_err_set(err, PM_ERR_IO, "zstd: %s", ZSTD_getErrorName(clen));
    }
    unsigned char *h = (unsigned char *)file;
    uint32_t version = FORMAT_VERSION, reserved = 0;
    uint64_t plen = clen, rlen = raw_len;
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
    if (rlen > ((uint64_t)1 << 40))
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
    if (p != end)
        goto bad;
    *raw_out = raw;
    return PM_OK;
bad:
    free(e->data);
    free(e->len);
    free(raw);
    memset(e, 0, sizeof *e);
    return pm_err_set(err, PM_ERR_CORRUPT, "entry payload malformed");
}

static void entry_free_arrays(entry *e)
{
    free(e->data);
    free(e->len);
}

/* ---------- running CMD on a miss ---------- */

/* ---------- eviction (caller holds the stats lock) ---------- */

typedef struct scanned {
    char path[PATH_MAX];
    struct timespec mtime;
    uint64_t size;
} scanned;

static int is_fanout(const char *name)
{
    return strlen(name) == 2 && strchr("0123456789abcdef", name[0]) && strchr("0123456789abcdef", name[1]);
}

/* Lists every entry; also removes temp files abandoned over an hour ago (a crashed writer). */
static int scan_entries(pm_cache *c, scanned **out, size_t *n_out, pm_err *err)
{
    size_t n = 0, cap = 0;
    scanned *v = NULL;
    DIR *top = opendir(c->dir);
    if (!top)
        return pm_err_errno(err, PM_ERR_IO, "open %s", c->dir);
    time_t now = time(NULL);
    struct dirent *d;
    while ((d = readdir(top))) {
        if (!is_fanout(d->d_name))
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

static int evict_locked(pm_cache *c, uint64_t v[ST_N], pm_err *err)
{
    scanned *e = NULL;
    size_t n = 0;
    int rc = scan_entries(c, &e, &n, err);
    if (rc)
        return rc;
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

/* ---------- manifests (for explain) ---------- */

static void manifest_path(pm_cache *c, const key_info *k, char buf[PATH_MAX])
{
    char hex[33];
    hex128(k->manifest_id, hex);
    snprintf(buf, PATH_MAX, "%s/manifests/%s", c->dir, hex);
}

static int write_manifest(pm_cache *c, const key_info *k, const pm_cache_request *req, pm_err *err)
{
    char path[PATH_MAX], hex[33];
    manifest_path(c, k, path);
    size_t cap = 4096 + (k->n_inputs + k->n_env) * (PATH_MAX + 64), len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    hex128(k->key, hex);
    len += (size_t)snprintf(buf + len, cap - len, "key %s\n", hex);
    hex128(k->compiler, hex);
    len += (size_t)snprintf(buf + len, cap - len, "compiler %s %s\n", hex, k->compiler_path);
    hex128(k->argv_h, hex);
    len += (size_t)snprintf(buf + len, cap - len, "argv %s\noutputs %zu\n", hex, k->n_outputs);
    for (size_t i = 0; i < k->n_inputs; i++) {
        hex128(k->input_h[i], hex);
        len += (size_t)snprintf(buf + len, cap - len, "input %s %s\n", hex, k->input_paths[i]);
    }
    for (size_t i = 0; i < k->n_env; i++) {
        hex128(k->env_h[i], hex);
        len += (size_t)snprintf(buf + len, cap - len, "env %s %s\n", hex, req->env_names[i]);
    }
    char *old = NULL;
    size_t old_len = 0;
    int rc = PM_OK;
    pm_err ignored;
    if (read_file(path, &old, &old_len, NULL, &ignored) || old_len != len || memcmp(old, buf, len))
        rc = write_atomic(path, buf, len, 0666, NULL, err);
    free(old);
    free(buf);
    return rc;
}

/* ---------- exec ---------- */

static int load_entry(const char *path, const XXH128_hash_t *key, char **file, char **raw, entry *e,
                      struct stat *st, pm_err *err)
{
    size_t len;
    *file = *raw = NULL;
    int rc = read_file(path, file, &len, st, err);
    if (rc)
        return rc;
    rc = entry_decode(*file, len, key, raw, e, err);
    if (rc) {
        free(*file);
        *file = NULL;
    }
    return rc;
}

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

static int run_miss(pm_cache *c, const pm_cache_request *req, const key_info *k, const char *entry_path,
                    pm_cache_result *res, double t0, pm_err *err)
{
    char out_path[PATH_MAX], err_path[PATH_MAX];
    int rc = PM_OK, fd;
    char **odata = NULL;
    uint64_t *olen = NULL;
    char *file = NULL;
    snprintf(out_path, sizeof out_path, "%s/tmp/out.XXXXXX", c->dir);
    snprintf(err_path, sizeof err_path, "%s/tmp/err.XXXXXX", c->dir);
    if ((fd = mkstemp(out_path)) < 0)
        return pm_err_errno(err, PM_ERR_IO, "create %s", out_path);
    close(fd);
    if ((fd = mkstemp(err_path)) < 0) {
        unlink(out_path);
        return pm_err_errno(err, PM_ERR_IO, "create %s", err_path);
    }
    close(fd);

    double child_wall = 0;
    int truncated = 0;
    {
        pm_run_opts opts = {0};
        pm_run_result rr;
        opts.stdout_path = out_path;
        opts.stderr_path = err_path;
        opts.cancel = req->cancel; /* CMD runs in its own process group: passmap forwards interrupts */
        rc = pm_run_exec(req->argv, &opts, &rr, err);
        if (!rc && rr.status == PM_RUN_SPAWN_ERROR)
            rc = pm_err_set(err, PM_ERR_CHILD, "cannot run %s: %s", req->argv[0], rr.spawn_error);
        res->exit_code = rr.exit_code;
        res->term_signal = rr.term_signal;
        child_wall = rr.wall_s;
        truncated = rr.stdout_truncated || rr.stderr_truncated;
    }
    res->cmd_wall_s = child_wall;
    if (rc)
        goto cleanup;
    if ((rc = read_file(out_path, &res->out, &res->out_len, NULL, err)) ||
        (rc = read_file(err_path, &res->err, &res->err_len, NULL, err)))
        goto cleanup;

    uint64_t v[ST_N];
    /* a capture the runner had to cut could not be replayed faithfully: run, but don't store */
    int store = res->exit_code == 0 && res->term_signal == 0 && !truncated;
    size_t n_out = k->n_outputs;
    odata = calloc(n_out + 1, sizeof *odata);
    olen = calloc(n_out + 1, sizeof *olen);
    if (!odata || !olen) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; store && i < n_out; i++) {
        size_t l;
        pm_err ignored;
        if (read_file(req->outputs[i], &odata[i], &l, NULL, &ignored))
            store = 0; /* a declared output CMD did not write: nothing consistent to store */
        olen[i] = l;
    }
    size_t flen = 0;
    struct timespec mtime;
    char tmp[PATH_MAX];
    tmp[0] = 0;
    if (store) {
        entry e = {.wall_s = child_wall, .exit_code = 0, .out = res->out, .err = res->err,
                   .out_len = res->out_len, .err_len = res->err_len, .n_outputs = (uint32_t)n_out,
                   .data = (const char **)odata, .len = olen};
        char sub[PATH_MAX - 32];
        snprintf(sub, sizeof sub, "%.*s", (int)(strrchr(entry_path, '/') - entry_path), entry_path);
        if ((rc = entry_encode(&e, k->key, &file, &flen, err)) || (rc = pm_util_mkdir_p(sub, err)))
            goto cleanup;
        snprintf(tmp, sizeof tmp, "%s/.pmtmp.XXXXXX", sub);
        if ((fd = mkstemp(tmp)) < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "create %s", tmp);
            goto cleanup;
        }
        clock_gettime(CLOCK_REALTIME, &mtime);
        /* no fsync: a crash may lose the entry; the checksum catches any partial file */
        if (write_all(fd, file, flen) || fchmod(fd, 0644) ||
            futimens(fd, (struct timespec[2]){mtime, mtime}) || close(fd)) {
            rc = pm_err_errno(err, PM_ERR_IO, "write %s", tmp);
            unlink(tmp);
            goto cleanup;
        }
    }
    /* publish and count under one lock so bytes/entries stay exact with concurrent writers */
    if ((rc = stats_lock(c, v, err))) {
        if (tmp[0])
            unlink(tmp);
        goto cleanup;
    }
    v[ST_MISSES]++;
    if (res->corrupt)
        v[ST_CORRUPT]++;
    if (store) {
        struct stat old;
        int had = !stat(entry_path, &old);
        if (rename(tmp, entry_path)) {
            rc = pm_err_errno(err, PM_ERR_IO, "publish %s", entry_path);
            unlink(tmp);
        } else {
            v[ST_STORES]++;
            v[ST_BYTES] += flen - (had ? (uint64_t)old.st_size : 0);
            v[ST_ENTRIES] += had ? 0 : 1;
            res->stored = 1;
            if (v[ST_BYTES] > c->max_size)
                rc = evict_locked(c, v, err);
        }
    }
    int rc2 = stats_unlock(c, v, err);
    if (!rc)
        rc = rc2;
    (void)t0;
cleanup:
    unlink(out_path);
    unlink(err_path);
    for (size_t i = 0; odata && i < k->n_outputs; i++)
        free(odata[i]);
    free(odata);
    free(olen);
    free(file);
    return rc;
}

int pm_cache_exec(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err)
{
    double t0 = pm_util_now();
    key_info k;
    memset(res, 0, sizeof *res);
    int rc = compute_key(c, req, &k, err);
    if (rc)
        return rc;
    hex128(k.key, res->key);
    char path[PATH_MAX];
    pm_cache_entry_path(c, res->key, path, sizeof path);

    char *file = NULL, *raw = NULL;
    entry e;
    struct stat st;
    pm_err lerr;
    int lrc = load_entry(path, &k.key, &file, &raw, &e, &st, &lerr);
    if (lrc == PM_OK && e.n_outputs == k.n_outputs) {
        for (uint32_t i = 0; i < e.n_outputs && !rc; i++)
            rc = write_atomic(req->outputs[i], e.data[i], e.len[i], c->file_mode, NULL, err);
        if (!rc)
            rc = dup_bytes(e.out, e.out_len, &res->out, &res->out_len, err);
        if (!rc)
            rc = dup_bytes(e.err, e.err_len, &res->err, &res->err_len, err);
        if (!rc) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            utimensat(AT_FDCWD, path, (struct timespec[2]){now, now}, 0); /* LRU "last used" */
            res->hit = 1;
            res->wall_s = pm_util_now() - t0;
            res->saved_s = e.wall_s > res->wall_s ? e.wall_s - res->wall_s : 0;
            uint64_t v[ST_N];
            if (!(rc = stats_lock(c, v, err))) {
                v[ST_HITS]++;
                v[ST_SAVED_NS] += (uint64_t)(res->saved_s * 1e9);
                rc = stats_unlock(c, v, err);
            }
        }
        entry_free_arrays(&e);
        free(raw);
        free(file);
        if (!rc)
            rc = write_manifest(c, &k, req, err);
        key_info_free(&k);
        return rc;
    }
    if (lrc == PM_OK) { /* same key, different output count: cannot happen unless the key format changed */
        entry_free_arrays(&e);
        free(raw);
        free(file);
        lrc = PM_ERR_CORRUPT;
    }
    if (lrc == PM_ERR_CORRUPT) {
        res->corrupt = 1;
        /* drop it now (if no writer replaced it meanwhile), so a failing rerun cannot leave it behind */
        uint64_t v[ST_N];
        struct stat now_st;
        if (!(rc = stats_lock(c, v, err))) {
            if (!stat(path, &now_st) && now_st.st_ino == st.st_ino && now_st.st_dev == st.st_dev &&
                !unlink(path)) {
                v[ST_BYTES] -= v[ST_BYTES] >= (uint64_t)st.st_size ? (uint64_t)st.st_size : v[ST_BYTES];
                v[ST_ENTRIES] -= v[ST_ENTRIES] ? 1 : 0;
            }
            rc = stats_unlock(c, v, err);
        }
    } else if (lrc != PM_ERR_NOTFOUND) {
        rc = pm_err_set(err, lerr.code, "%s", lerr.msg);
    }
    if (!rc)
        rc = run_miss(c, req, &k, path, res, t0, err);
    res->wall_s = pm_util_now() - t0;
    if (!rc)
        rc = write_manifest(c, &k, req, err);
    key_info_free(&k);
    return rc;
}

void pm_cache_result_free(pm_cache_result *res)
{
    if (!res)
        return;
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

/* ---------- stats, clear, verify ---------- */

int pm_cache_stats_get(pm_cache *c, pm_cache_stats *st, pm_err *err)
{
    uint64_t v[ST_N];
    int rc = stats_lock(c, v, err);
    if (rc)
        return rc;
    stats_unlock(c, NULL, err);
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

static void remove_files_in(const char *dir, int rmdir_too)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *f;
    char path[PATH_MAX];
    while ((f = readdir(d)))
        if (strcmp(f->d_name, ".") && strcmp(f->d_name, "..") &&
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, f->d_name) < sizeof path)
            unlink(path);
    closedir(d);
    if (rmdir_too)
        rmdir(dir);
}

int pm_cache_clear(pm_cache *c, pm_err *err)
{
    uint64_t v[ST_N];
    int rc = stats_lock(c, v, err);
    if (rc)
        return rc;
    DIR *top = opendir(c->dir);
    if (top) {
        struct dirent *d;
        char sub[PATH_MAX];
        while ((d = readdir(top)))
            if (is_fanout(d->d_name) && (size_t)snprintf(sub, sizeof sub, "%s/%s", c->dir, d->d_name) < sizeof sub)
                remove_files_in(sub, 1);
        closedir(top);
    }
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/manifests", c->dir);
    remove_files_in(sub, 0);
    memset(v, 0, sizeof v);
    return stats_unlock(c, v, err);
}

int pm_cache_verify(pm_cache *c, uint64_t *n_ok, uint64_t *n_bad, pm_err *err)
{
    scanned *e = NULL;
    size_t n = 0;
    int rc = scan_entries(c, &e, &n, err);
    if (rc)
        return rc;
    *n_ok = *n_bad = 0;
    for (size_t i = 0; i < n; i++) {
        char *file = NULL, *raw = NULL;
        entry en;
        pm_err ignored;
        if (load_entry(e[i].path, NULL, &file, &raw, &en, NULL, &ignored) == PM_OK) {
            (*n_ok)++;
            entry_free_arrays(&en);
        } else {
            (*n_bad)++;
        }
        free(raw);
        free(file);
    }
    free(e);
    return PM_OK;
}

/* ---------- explain ---------- */

static int add_change(pm_cache_explain *ex, pm_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_change(pm_cache_explain *ex, pm_err *err, const char *fmt, ...)
{
    char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **bigger = realloc(ex->changes, (ex->n_changes + 1) * sizeof *bigger);
    if (!bigger)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ex->changes = bigger;
    if (!(ex->changes[ex->n_changes] = strdup(buf)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ex->n_changes++;
    return PM_OK;
}

int pm_cache_explain_request(pm_cache *c, const pm_cache_request *req, pm_cache_explain *ex, pm_err *err)
{
    key_info k;
    memset(ex, 0, sizeof *ex);
    int rc = compute_key(c, req, &k, err);
    if (rc)
        return rc;
    hex128(k.key, ex->key);
    char path[PATH_MAX], *file = NULL, *raw = NULL, *man = NULL;
    size_t man_len;
    entry e;
    pm_err ignored;
    pm_cache_entry_path(c, ex->key, path, sizeof path);
    if (load_entry(path, &k.key, &file, &raw, &e, NULL, &ignored) == PM_OK) {
        ex->would_hit = 1;
        entry_free_arrays(&e);
        free(raw);
        free(file);
    }
    manifest_path(c, &k, path);
    if (read_file(path, &man, &man_len, NULL, &ignored))
        goto cleanup; /* no previous run */
    ex->have_previous = 1;
    char hex[33], prev[PATH_MAX], what[PATH_MAX];
    size_t in_i = 0, env_i = 0, prev_outputs = 0;
    int argv_changed = 0;
    for (char *save = NULL, *line = strtok_r(man, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
        char tag[16];
        prev[0] = what[0] = 0;
        if (sscanf(line, "%15s %32s %4095[^\n]", tag, prev, what) < 2)
            continue;
        if (!strcmp(tag, "key")) {
            snprintf(ex->previous_key, sizeof ex->previous_key, "%.32s", prev);
        } else if (!strcmp(tag, "compiler")) {
            hex128(k.compiler, hex);
            if (strcmp(hex, prev))
                rc = add_change(ex, err, "compiler binary changed (%s)", k.compiler_path);
        } else if (!strcmp(tag, "argv")) {
            hex128(k.argv_h, hex);
            argv_changed = strcmp(hex, prev) != 0;
        } else if (!strcmp(tag, "outputs")) {
            prev_outputs = strtoull(prev, NULL, 10);
        } else if (!strcmp(tag, "input")) {
            if (in_i < k.n_inputs) {
                hex128(k.input_h[in_i], hex);
                if (strcmp(hex, prev))
                    rc = add_change(ex, err, "input %zu (%s) content changed", in_i, k.input_paths[in_i]);
            }
            in_i++;
        } else if (!strcmp(tag, "env")) {
            if (env_i < k.n_env) {
                hex128(k.env_h[env_i], hex);
                if (strcmp(what, req->env_names[env_i]))
                    rc = add_change(ex, err, "env %zu name changed (%s -> %s)", env_i, what, req->env_names[env_i]);
                else if (strcmp(hex, prev))
                    rc = add_change(ex, err, "env %s changed", what);
            }
            env_i++;
        }
    }
    if (!rc && argv_changed)
        rc = add_change(ex, err, "argv changed");
    if (!rc && in_i != k.n_inputs)
        rc = add_change(ex, err, "number of inputs changed (%zu -> %zu)", in_i, k.n_inputs);
    if (!rc && prev_outputs != k.n_outputs)
        rc = add_change(ex, err, "number of outputs changed (%zu -> %zu)", prev_outputs, k.n_outputs);
    if (!rc && env_i != k.n_env)
        rc = add_change(ex, err, "number of env variables changed (%zu -> %zu)", env_i, k.n_env);
    if (!rc && !ex->would_hit && !strcmp(ex->key, ex->previous_key))
        rc = add_change(ex, err, "key unchanged but no valid entry (evicted, cleared, corrupt, or the last run failed)");
cleanup:
    free(man);
    key_info_free(&k);
    if (rc)
        pm_cache_explain_free(ex);
    return rc;
}

void pm_cache_explain_free(pm_cache_explain *ex)
{
    if (!ex)
        return;
    for (size_t i = 0; i < ex->n_changes; i++)
        free(ex->changes[i]);
    free(ex->changes);
    ex->changes = NULL;
    ex->n_changes = 0;
}
