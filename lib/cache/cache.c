/* pm_cache: see cache.h for the key, the input rule and the on-disk layout. */
#include "cache.h"

#include <ctype.h>
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
#include <sys/mman.h>
#include <sys/statvfs.h>
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

#define FORMAT_VERSION 2u
#define KEY_VERSION "passmap-cache-key-2"
#define HEADER_SIZE 64
#define ZSTD_LEVEL 1 /* fast: the miss path must stay within a few % of a plain compile */

#define DIR_MAX (PATH_MAX - 512) /* room for the names appended below the cache dir */

struct pm_cache {
    char dir[DIR_MAX];
    uint64_t max_size;
    int stats_fd;     /* -1: no stats file (a read-only cache that never had one) */
    int stats_ro;     /* opened read-only: the counters cannot be updated */
    mode_t file_mode; /* 0666 & ~umask, for restored outputs */
};

/* Below this much free space in the cache's file system a miss runs uncached (the store would fail). */
#define MIN_FREE_BYTES (1u << 20)

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

/* ---------- stats: one small text file, read-modified-written under flock(2) ---------- */

static const char *const stat_names[] = {"hits", "misses", "corrupt", "evicted", "stores",
                                         "entries", "bytes", "saved_ns"};
enum { ST_HITS, ST_MISSES, ST_CORRUPT, ST_EVICTED, ST_STORES, ST_ENTRIES, ST_BYTES, ST_SAVED_NS, ST_N };

static int stats_lock(pm_cache *c, uint64_t v[ST_N], pm_err *err)
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

static int stats_unlock(pm_cache *c, const uint64_t v[ST_N], pm_err *err)
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

/* ---------- open / dir resolution ---------- */

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
    if (!path_join(sub, sizeof sub, c->dir, "manifests", &ignored))
        pm_util_mkdir_p(sub, &ignored);
    if (!path_join(sub, sizeof sub, c->dir, "tmp", &ignored))
        pm_util_mkdir_p(sub, &ignored);
    if ((rc = path_join(sub, sizeof sub, c->dir, "stats", err))) {
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
    char **out_paths;            /* declared, then inferred */
    XXH128_hash_t *env_h;
    int stdout_output;           /* the product is stdout (no file outputs needed) */
    int deps;                    /* C/C++: the compiler's dependency list is checked on every hit */
    char *user_depfile;          /* -MF FILE of the user (else passmap adds its own) */
    char why[320];               /* non-empty: run uncached, because of this */
} key_info;

static void key_info_free(key_info *k)
{
    for (size_t i = 0; i < k->n_inputs; i++) {
        free(k->input_paths[i]);
        free(k->input_canon[i]);
    }
    for (size_t i = 0; i < k->n_outputs; i++)
        free(k->out_paths[i]);
    free(k->out_paths);
    free(k->input_paths);
    free(k->input_canon);
    free(k->input_h);
    free(k->env_h);
    free(k->user_depfile);
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

/* ---------- what the command reads and writes ---------- */

/* Tools whose outputs passmap infers from argv (a version suffix and a target prefix are allowed). */
typedef enum { TOOL_OTHER, TOOL_CC, TOOL_LLVM, TOOL_OV } tool_kind;

static int name_is(const char *name, size_t len, const char *want, int allow_prefix)
{
    size_t w = strlen(want);
    if (len == w)
        return !memcmp(name, want, w);
    return allow_prefix && len > w && name[len - w - 1] == '-' && !memcmp(name + len - w, want, w);
}

/* Which tool argv runs; *first: index of its first own argument. */
static tool_kind tool_of(char *const *argv, size_t *first)
{
    const char *slash = strrchr(argv[0], '/');
    const char *name = slash ? slash + 1 : argv[0];
    size_t len = strlen(name);
    *first = 1;
    /* strip version suffixes: gcc-12, clang-22, clang++-22, llc-22.1 */
    for (;;) {
        size_t i = len;
        while (i > 0 && (isdigit((unsigned char)name[i - 1]) || name[i - 1] == '.'))
            i--;
        if (i == len || i == 0 || name[i - 1] != '-')
            break;
        len = i - 1;
    }
    static const char *const cc[] = {"gcc", "g++", "cc", "c++", "clang", "clang++"};
    static const char *const llvm[] = {"llc", "opt", "mlir-opt", "mlir-translate"};
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++)
        if (name_is(name, len, cc[i], 1))
            return TOOL_CC;
    for (size_t i = 0; i < sizeof llvm / sizeof *llvm; i++)
        if (name_is(name, len, llvm[i], 0))
            return TOOL_LLVM;
    if (name_is(name, len, "ov-compile", 0))
        return TOOL_OV;
    if (name_is(name, len, "passmap", 0) && argv[1] && !strcmp(argv[1], "ov-compile")) {
        *first = 2;
        return TOOL_OV;
    }
    return TOOL_OTHER;
}

typedef struct analysis {
    tool_kind tool;
    const char *out[64];     /* inferred outputs (pointers into argv or into names[]) */
    int out_arg[64];         /* argv index naming it (-1: none) */
    size_t n_out;
    int stdout_output;       /* the tool's product is its stdout (replayed on a hit) */
    const char *extra_input; /* ov: the .bin beside the .xml */
    const char *user_depfile;/* cc: -MF FILE given by the user (also an output) */
    int deps;                /* cc: dependencies from the compiler (-MD -MF) go in the key */
    char names[4][PATH_MAX]; /* storage for inferred names not in argv */
    size_t n_names;
    char why[320];           /* non-empty: not cacheable, and why */
} analysis;

static void not_cacheable(analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void not_cacheable(analysis *a, const char *fmt, ...)
{
    if (a->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
}

static void add_out(analysis *a, const char *path, int arg)
{
    if (!path)   /* add_name failed and said why (not cacheable) */
        return;
    if (!strcmp(path, "-")) {
        a->stdout_output = 1;
        return;
    }
    if (a->n_out == sizeof a->out / sizeof *a->out) {
        not_cacheable(a, "more than %zu outputs", sizeof a->out / sizeof *a->out);
        return;
    }
    a->out[a->n_out] = path;
    a->out_arg[a->n_out++] = arg;
}

static const char *add_name(analysis *a, const char *dir, const char *file)
{
    if (a->n_names == sizeof a->names / sizeof *a->names) {
        not_cacheable(a, "more than %zu inferred output names", sizeof a->names / sizeof *a->names);
        return NULL;
    }
    char *n = a->names[a->n_names++];
    if (snprintf(n, PATH_MAX, "%s/%s", dir, file) >= PATH_MAX) {   /* a cut path would cache another file */
        not_cacheable(a, "output path longer than %d bytes", PATH_MAX - 1);
        return NULL;
    }
    return n;
}

/* Options after which a separate argument follows that names no output. */
static int cc_takes_arg(const char *o)
{
    static const char *const with_arg[] = {"-MT", "-MQ", "-I", "-D", "-U", "-include", "-imacros", "-isystem",
                                           "-iquote", "-idirafter", "-x", "-Xlinker", "-Xassembler",
                                           "-Xpreprocessor", "-Xclang", "-target", "--target", "-arch",
                                           "-L", "-l", "-aux-info", "-dumpbase", "-dumpdir", NULL};
    for (int i = 0; with_arg[i]; i++)
        if (!strcmp(o, with_arg[i]))
            return 1;
    return 0;
}

static void analyse_cc(char *const *argv, size_t first, analysis *a)
{
    int compile = 0, md = 0, have_o = 0;
    const char *mf = NULL;
    int mf_arg = -1;
    static const char *const side_files[] = {"-save-temps", "-ftime-trace", "-gsplit-dwarf", "-fdump-",
                                             "-fstack-usage", "-fcallgraph-info", "-fopt-info=", "-ftest-coverage",
                                             "--coverage", "-fsave-optimization-record", "-fprofile-arcs",
                                             "-fmodules", "-fmodule-output", "-Wp,-M", NULL};
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-o") || !strcmp(s, "--output")) {
            if (!argv[i + 1])
                break;
            add_out(a, argv[i + 1], (int)i + 1);
            have_o = 1;
            i++;
        } else if (!strncmp(s, "--output=", 9)) {
            add_out(a, s + 9, -1);
            have_o = 1;
        } else if (!strncmp(s, "-o", 2) && strncmp(s, "-objc", 5)) { /* -oF (gcc: -o=F names "=F") */
            add_out(a, s + 2, -1);
            have_o = 1;
        } else if (!strcmp(s, "-c") || !strcmp(s, "-S") || !strcmp(s, "-E")) {
            compile |= s[1] == 'E' ? 2 : 1;
        } else if (!strcmp(s, "-M") || !strcmp(s, "-MM")) {
            not_cacheable(a, "%s writes dependencies instead of compiling", s);
        } else if (!strcmp(s, "-MD") || !strcmp(s, "-MMD")) {
            md = 1;
        } else if (!strcmp(s, "-MF")) {
            if (!argv[i + 1])
                break;
            mf = argv[i + 1];
            mf_arg = (int)i + 1;
            i++;
        } else if (!strncmp(s, "-MF", 3)) {
            mf = s + 3;
        } else if (cc_takes_arg(s)) {
            if (argv[i + 1])
                i++;
        } else if (s[0] == '@') {
            not_cacheable(a, "response file %s (its options are not analysed)", s);
        } else {
            for (int k = 0; side_files[k]; k++)
                if (!strncmp(s, side_files[k], strlen(side_files[k])))
                    not_cacheable(a, "%s writes files that are not inferred", s);
        }
    }
    if (!compile)
        not_cacheable(a, "a link step (no -c, -S or -E): libraries are not in the key");
    if (mf && !md)
        not_cacheable(a, "-MF without -MD/-MMD");
    if (md && !mf)
        not_cacheable(a, "-MD/-MMD without -MF (add -MF FILE)");
    if (mf) {
        add_out(a, mf, mf_arg);
        a->user_depfile = mf;
    }
    if (!have_o) {
        if (compile & 2)
            a->stdout_output = 1; /* -E writes to stdout */
        else
            not_cacheable(a, "no -o (add -o FILE)");
    }
    a->deps = 1;
}

static void analyse_llvm(char *const *argv, size_t first, analysis *a)
{
    const char *slash = strrchr(argv[0], '/');
    int is_llc = !strncmp(slash ? slash + 1 : argv[0], "llc", 3);
    int have_o = 0;
    static const char *const side_files[] = {"time-trace", "stats-file", "save-stats", "remarks-output",
                                             "print-ir-tree-dir", "log-actions-to", "save-temps", NULL};
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-o") || !strcmp(s, "--o") || !strcmp(s, "--output")) {
            if (!argv[i + 1])
                break;
            add_out(a, argv[i + 1], (int)i + 1);
            have_o = 1;
            i++;
        } else if (!strncmp(s, "-o=", 3) || !strncmp(s, "--o=", 4) || !strncmp(s, "--output=", 9)) {
            add_out(a, strchr(s, '=') + 1, -1);
            have_o = 1;
        } else {
            for (int k = 0; side_files[k]; k++)
                if (strstr(s, side_files[k]))
                    not_cacheable(a, "%s writes files that are not inferred", s);
        }
    }
    if (!have_o) {
        if (is_llc)
            not_cacheable(a, "llc without -o names its output after the input (add -o FILE)");
        else
            a->stdout_output = 1; /* opt, mlir-opt, mlir-translate default to stdout */
    }
}

static void analyse_ov(char *const *argv, size_t first, analysis *a)
{
    const char *model = NULL, *weights = NULL, *workdir = ".";
    int do_import = 0, exported = 0;
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i], *val = NULL;
        const char *eq = strchr(s, '=');
        size_t nlen = eq ? (size_t)(eq - s) : strlen(s);
#define OPT_IS(name) (nlen == strlen(name) && !strncmp(s, name, nlen))
        int takes = OPT_IS("--model") || OPT_IS("-m") || OPT_IS("--weights") || OPT_IS("--export") ||
                    OPT_IS("--workdir");
        if (takes) {
            if (eq) {
                val = eq + 1;
            } else if (argv[i + 1]) {
                val = argv[++i];
            } else {
                break;
            }
        }
        if (OPT_IS("--model") || OPT_IS("-m"))
            model = val;
        else if (OPT_IS("--weights"))
            weights = val;
        else if (OPT_IS("--workdir"))
            workdir = val;
        else if (OPT_IS("--export")) {
            add_out(a, val, eq ? -1 : (int)i);
            exported = 1;
        } else if (OPT_IS("--import"))
            do_import = 1;
        else if (OPT_IS("--schedule-trace"))
            add_out(a, add_name(a, workdir, "compileTimeScheduleTrace.json"), -1);
        else if (OPT_IS("--strategy-out"))
            add_out(a, add_name(a, workdir, "strategy_out.json"), -1);
#undef OPT_IS
    }
    if (do_import && !exported)
        add_out(a, add_name(a, workdir, "model.blob"), -1);
    if (!a->n_out)
        not_cacheable(a, "ov-compile without --export or --import exports no blob");
    /* the weights are an input: --weights, else the .bin beside the .xml */
    size_t ml = model ? strlen(model) : 0;
    if (!weights && ml > 4 && !strcmp(model + ml - 4, ".xml")) {
        char *bin = a->names[sizeof a->names / sizeof *a->names - 1];
        if (snprintf(bin, PATH_MAX, "%.*s.bin", (int)(ml - 4), model) >= PATH_MAX)
            not_cacheable(a, "weights path longer than %d bytes", PATH_MAX - 1);
        else if (!access(bin, F_OK))
            a->extra_input = bin;
    }
}

/* Fills a from argv: inferred outputs, extra inputs, dependency mode, or why the command is not cacheable. */
static void analyse(const pm_cache_request *req, analysis *a)
{
    memset(a, 0, sizeof *a);
    size_t first;
    a->tool = tool_of(req->argv, &first);
    if (a->tool == TOOL_CC)
        analyse_cc(req->argv, first, a);
    else if (a->tool == TOOL_LLVM)
        analyse_llvm(req->argv, first, a);
    else if (a->tool == TOOL_OV)
        analyse_ov(req->argv, first, a);
    for (size_t i = 0; i < a->n_out; i++)
        if (!a->out[i] || !a->out[i][0])
            not_cacheable(a, "an empty output name");
    if (!a->n_out && !a->stdout_output && !count_list(req->outputs))
        not_cacheable(a, "no output declared (--output) or inferred");
}


/* w is x, or ends in it (-oFILE, --output=FILE name the file too) */
static int names(const char *w, const char *x)
{
    size_t nw = strlen(w), nx = x ? strlen(x) : 0;
    return nx && nw >= nx && !strcmp(w + nw - nx, x);
}

static int in_list(const char *const *l, const char *s)
{
    for (; l && *l; l++)
        if (names(s, *l))
            return 1;
    return 0;
}

int pm_cache_why_uncacheable(const pm_cache_request *req, const char *run_dir, char *why, size_t cap)
{
    analysis *a = calloc(1, sizeof *a);
    if (!a || !req->argv || !req->argv[0]) {
        free(a);
        return 0; /* nothing to say: exec reports it */
    }
    analyse(req, a);
    int no = a->why[0] != 0;
    if (no)
        snprintf(why, cap, "%s", a->why);
    size_t n_dir = run_dir ? strlen(run_dir) : 0;
    for (size_t i = 1; !no && n_dir && req->argv[i]; i++) {
        const char *w = req->argv[i], *at = strstr(w, run_dir);
        /* the folder itself, not a longer name (warm-r0 in warm-r01) */
        int longer = at && (isalnum((unsigned char)at[n_dir]) || strchr("._-", at[n_dir]) != NULL) && at[n_dir];
        if (!at || longer || in_list(req->inputs, w) || in_list(req->outputs, w))
            continue;
        int inferred = 0;
        for (size_t k = 0; k < a->n_out && !inferred; k++)
            inferred = names(w, a->out[k]);
        if (!inferred) {
            no = 1;
            snprintf(why, cap, "argument '%.200s' names the run folder, which is new for every run", w);
        }
    }
    free(a);
    return no;
}

/* Placeholder for one argv text if it names an input or output ("@IN3"), or NULL. May add an input.
 * out_refs counts the argv elements naming each output (two: the output is also read, in place). */
static int classify(key_info *k, char **out_canon, size_t *out_refs, const char *text, char ph[32], pm_err *err)
{
    ph[0] = 0;
    if (!*text)
        return PM_OK;
    struct stat st;
    int exists = !stat(text, &st);
    char *canon = canon_path(text);
    if (!canon)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < k->n_outputs; i++)
        if (!strcmp(canon, out_canon[i])) {
            snprintf(ph, 32, "@OUT%zu", i);
            if (out_refs && exists)
                out_refs[i]++;
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

static int add_output(key_info *k, char **out_canon, const char *path, pm_err *err)
{
    char *canon = canon_path(path);
    if (!canon)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < k->n_outputs; i++)
        if (!strcmp(canon, out_canon[i])) { /* declared and inferred: one output */
            free(canon);
            return PM_OK;
        }
    if (!(k->out_paths[k->n_outputs] = strdup(path))) {
        free(canon);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    out_canon[k->n_outputs++] = canon;
    return PM_OK;
}

static int compute_key(pm_cache *c, const pm_cache_request *req, key_info *k, pm_err *err)
{
    int rc = PM_OK;
    analysis *a = calloc(1, sizeof *a);
    size_t n_decl = count_list(req->outputs), n_max = n_decl + 64;
    char **out_canon = calloc(n_max + 1, sizeof *out_canon);
    size_t *out_refs = calloc(n_max + 1, sizeof *out_refs);
    XXH3_state_t *s = XXH3_createState();
    memset(k, 0, sizeof *k);
    k->out_paths = calloc(n_max + 1, sizeof *k->out_paths);
    if (!out_canon || !out_refs || !s || !a || !k->out_paths) {
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
    analyse(req, a);
    snprintf(k->why, sizeof k->why, "%s", a->why);
    k->stdout_output = a->stdout_output;
    k->deps = a->deps && !a->why[0];
    if (a->user_depfile && !(k->user_depfile = strdup(a->user_depfile))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n_decl; i++)
        if ((rc = add_output(k, out_canon, req->outputs[i], err)))
            goto cleanup;
    for (size_t i = 0; i < a->n_out; i++)
        if ((rc = add_output(k, out_canon, a->out[i], err)))
            goto cleanup;
    for (size_t i = 0; req->inputs && req->inputs[i]; i++) {
        if (access(req->inputs[i], R_OK)) {
            rc = pm_err_errno(err, PM_ERR_NOTFOUND, "input %s", req->inputs[i]);
            goto cleanup;
        }
        char *canon = canon_path(req->inputs[i]);
        for (size_t j = 0; canon && j < k->n_outputs; j++)
            if (!strcmp(canon, out_canon[j]) && !k->why[0])
                snprintf(k->why, sizeof k->why, "%s is both an input and an output", req->inputs[i]);
        if ((rc = add_input(k, req->inputs[i], canon, err)))
            goto cleanup;
    }
    if (a->extra_input && (rc = add_input(k, a->extra_input, canon_path(a->extra_input), err)))
        goto cleanup;

    /* argv with paths replaced by placeholders */
    XXH3_128bits_reset(s);
    size_t argc = 0;
    while (req->argv[argc])
        argc++;
    feed(s, 'n', &argc, sizeof argc);
    for (size_t i = 1; i < argc; i++) {
        const char *a_i = req->argv[i];
        /* a make target name (-MT x.o) names the output without reading it */
        int is_name = i > 1 && (!strcmp(req->argv[i - 1], "-MT") || !strcmp(req->argv[i - 1], "-MQ"));
        char ph[32], buf[PATH_MAX + 64];
        if ((rc = classify(k, out_canon, is_name ? NULL : out_refs, a_i, ph, err)))
            goto cleanup;
        const char *eq = strchr(a_i, '=');
        if (!ph[0] && eq && eq != a_i) {
            if ((rc = classify(k, out_canon, out_refs, eq + 1, ph, err)))
                goto cleanup;
            if (ph[0]) {
                snprintf(buf, sizeof buf, "%.*s=%s", (int)(eq - a_i), a_i, ph);
                feed(s, 'a', buf, strlen(buf));
                continue;
            }
        }
        feed(s, 'a', ph[0] ? ph : a_i, strlen(ph[0] ? ph : a_i));
    }
    k->argv_h = XXH3_128bits_digest(s);
    for (size_t i = 0; i < k->n_outputs; i++)
        if (out_refs[i] > 1 && !k->why[0])
            snprintf(k->why, sizeof k->why, "%s is both an input and an output", k->out_paths[i]);

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
    feed(s, 'O', &k->n_outputs, sizeof k->n_outputs);
    feed(s, 'S', &k->stdout_output, sizeof k->stdout_output);
    feed(s, 'D', &k->deps, sizeof k->deps);
    /* the user's -MF file names the outputs as written (its make target): they are content, not paths */
    for (size_t i = 0; k->user_depfile && i < k->n_outputs; i++)
        feed(s, 'm', k->out_paths[i], strlen(k->out_paths[i]));
    feed(s, 'E', &n_env, sizeof n_env);
    for (size_t i = 0; i < n_env; i++)
        feed(s, 'e', &k->env_h[i], sizeof k->env_h[i]);
    k->key = XXH3_128bits_digest(s);

    /* "the same command line" for explain: what it produces, else what it says */
    XXH3_128bits_reset(s);
    if (k->n_outputs)
        feed(s, 'o', out_canon[0], strlen(out_canon[0]));
    else {
        feed(s, 'c', k->compiler_path, strlen(k->compiler_path));
        feed(s, 'A', &k->argv_h, sizeof k->argv_h);
    }
    k->manifest_id = XXH3_128bits_digest(s);
cleanup:
    if (rc)
        key_info_free(k);
    for (size_t i = 0; out_canon && i < n_max; i++)
        free(out_canon[i]);
    free(out_canon);
    free(out_refs);
    free(a);
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
    uint32_t n_deps;     /* C/C++: every file the compiler read, as it named them, with its content hash */
    const char **dep_path;
    uint32_t *dep_len;
    XXH128_hash_t *dep_h;
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
    raw_len += 4;
    for (uint32_t i = 0; i < e->n_deps; i++)
        raw_len += 4 + e->dep_len[i] + 16;
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
    put(&p, &e->n_deps, 4);
    for (uint32_t i = 0; i < e->n_deps; i++) {
        XXH128_canonical_t can;
        XXH128_canonicalFromHash(&can, e->dep_h[i]);
        put(&p, &e->dep_len[i], 4);
        put(&p, e->dep_path[i], e->dep_len[i]);
        put(&p, can.digest, 16);
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
    free(e->data);
    free(e->len);
    free(e->dep_path);
    free(e->dep_len);
    free(e->dep_h);
    free(raw);
    memset(e, 0, sizeof *e);
    return pm_err_set(err, PM_ERR_CORRUPT, "entry payload malformed");
}

static void entry_free_arrays(entry *e)
{
    free(e->data);
    free(e->len);
    free(e->dep_path);
    free(e->dep_len);
    free(e->dep_h);
}

int pm_cache_entry_check(const void *data, size_t len, pm_err *err)
{
    char *raw = NULL;
    entry e;
    int rc = entry_decode(data, len, NULL, &raw, &e, err);
    if (!rc)
        entry_free_arrays(&e);
    free(raw);
    return rc;
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

static int evict_locked(pm_cache *c, uint64_t v[ST_N], pm_err *err)
{
    scanned *e = NULL;
    size_t n = 0;
    int rc = scan_entries(c, &e, &n, err);
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
        rc = pm_util_write_file_atomic(path, buf, len, c->file_mode, NULL, err);
    free(old);
    free(buf);
    return rc;
}

/* ---------- exec ---------- */

/* The first problem only: the CLI prints one warning line per run. */
static void warn(pm_cache_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(pm_cache_result *res, const char *fmt, ...)
{
    if (res->warning[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->warning, sizeof res->warning, fmt, ap);
    va_end(ap);
}

/* An entry is a regular file; anything else at its path is junk (PM_ERR_CORRUPT with *junk set). */
static int load_entry(const char *path, const XXH128_hash_t *key, char **file, char **raw, entry *e,
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

/* ---- dependencies (C/C++: what the compiler read, from -MD -MF) ---- */

typedef struct dep_list {
    size_t n, cap;
    char **path;
    XXH128_hash_t *h;
    int *ok;         /* hashed (the file was readable) */
} dep_list;

static void dep_list_free(dep_list *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->path[i]);
    free(d->path);
    free(d->h);
    free(d->ok);
    memset(d, 0, sizeof *d);
}

static int dep_list_add(dep_list *d, const char *path, size_t len, pm_err *err)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        char **p = realloc(d->path, cap * sizeof *p);
        if (p)
            d->path = p;
        XXH128_hash_t *h = realloc(d->h, cap * sizeof *h);
        if (h)
            d->h = h;
        int *ok = realloc(d->ok, cap * sizeof *ok);
        if (ok)
            d->ok = ok;
        if (!p || !h || !ok)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        d->cap = cap;
    }
    if (!(d->path[d->n] = strndup(path, len)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_err ignored;
    d->ok[d->n] = !hash_file(d->path[d->n], &d->h[d->n], &ignored);
    d->n++;
    return PM_OK;
}

/* Hashes the entry's dependencies now (into now); *changed: index of the first that differs, else -1. */
static int deps_check(const entry *e, dep_list *now, long *changed, pm_err *err)
{
    *changed = -1;
    for (uint32_t i = 0; i < e->n_deps; i++) {
        int rc = dep_list_add(now, e->dep_path[i], e->dep_len[i], err);
        if (rc)
            return rc;
        if (*changed < 0 && (!now->ok[i] || !XXH128_isEqual(now->h[i], e->dep_h[i])))
            *changed = (long)i;
    }
    return PM_OK;
}

/* The prerequisites of the first rule of a make fragment written by -MD -MF (escapes: "\ ", "\#", "$$";
 * a backslash-newline continues the line). */
static int parse_depfile(const char *text, size_t len, dep_list *out, pm_err *err)
{
    const char *p = text, *end = text + len;
    /* the target ends at the first ':' followed by white space or the end */
    while (p < end && !(*p == ':' && (p + 1 == end || p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r')))
        p++;
    if (p == end)
        return pm_err_set(err, PM_ERR_PARSE, "dependency file has no rule");
    p++;
    char *tok = malloc(len + 1);
    if (!tok)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    size_t n = 0;
    int rc = PM_OK;
    for (;;) {
        int flush = 0, stop = 0;
        if (p >= end) {
            flush = stop = 1;
        } else if (*p == '\\' && p + 1 < end && (p[1] == '\n' || (p[1] == '\r' && p + 2 < end && p[2] == '\n'))) {
            p += p[1] == '\n' ? 2 : 3;
            flush = 1;
        } else if (*p == '\\' && p + 1 < end && (p[1] == ' ' || p[1] == '#')) {
            tok[n++] = p[1];
            p += 2;
        } else if (*p == '$' && p + 1 < end && p[1] == '$') {
            tok[n++] = '$';
            p += 2;
        } else if (*p == '\n') {
            flush = stop = 1;
        } else if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
            flush = 1;
        } else {
            tok[n++] = *p++;
        }
        if (flush && n) {
            if ((rc = dep_list_add(out, tok, n, err)))
                break;
            n = 0;
        }
        if (stop)
            break;
    }
    free(tok);
    return rc;
}

/* ---- running CMD ---- */

/* Captures live in memory (memfd, reopened by the runner through /proc): a full or read-only disk costs
 * nothing; without /proc, a file in the cache's tmp folder, else in $TMPDIR. */
typedef struct capture {
    int fd;
    int on_disk;
    char path[PATH_MAX];
} capture;

static int capture_open(pm_cache *c, capture *cap, pm_err *err)
{
    cap->on_disk = 0;
    cap->fd = memfd_create("passmap-cache-capture", MFD_CLOEXEC);
    if (cap->fd >= 0) {
        snprintf(cap->path, sizeof cap->path, "/proc/self/fd/%d", cap->fd);
        if (!access(cap->path, W_OK))
            return PM_OK;
        close(cap->fd);
    }
    const char *tmpdir = getenv("TMPDIR");
    for (int i = 0; i < 2; i++) {
        if (i == 0 && !c)
            continue;
        snprintf(cap->path, sizeof cap->path, "%s/%s.XXXXXX", i == 0 ? c->dir : tmpdir && *tmpdir ? tmpdir : P_tmpdir,
                 i == 0 ? "tmp/capture" : "passmap-capture");
        if ((cap->fd = mkstemp(cap->path)) >= 0) {
            cap->on_disk = 1;
            return PM_OK;
        }
    }
    return pm_err_errno(err, PM_ERR_IO, "cannot create a capture file for CMD's output");
}

static void capture_close(capture *cap)
{
    if (cap->fd >= 0)
        close(cap->fd);
    if (cap->on_disk)
        unlink(cap->path);
    cap->fd = -1;
}

static int capture_read(capture *cap, char **buf, size_t *len, pm_err *err)
{
    struct stat st;
    if (fstat(cap->fd, &st))
        return pm_err_errno(err, PM_ERR_IO, "stat capture");
    size_t n = (size_t)st.st_size, got = 0;
    char *data = malloc(n + 1);
    if (!data)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading CMD's output");
    while (got < n) {
        ssize_t r = pread(cap->fd, data + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(data);
            return pm_err_errno(err, PM_ERR_IO, "read capture");
        }
        got += (size_t)r;
    }
    data[n] = 0;
    *buf = data;
    *len = n;
    return PM_OK;
}

/* Runs argv with stdin /dev/null, stdout and stderr captured into res (replacing earlier captures). */
static int run_captured(pm_cache *c, const char *const *argv, const pm_cache_request *req, pm_cache_result *res,
                        int *truncated, pm_err *err)
{
    capture out = {.fd = -1}, errc = {.fd = -1};
    int rc;
    if ((rc = capture_open(c, &out, err)) || (rc = capture_open(c, &errc, err)))
        goto cleanup;
    pm_run_opts opts = {0};
    pm_run_result rr;
    opts.stdout_path = out.path;
    opts.stderr_path = errc.path;
    opts.cancel = req->cancel; /* passmap forwards interrupts to CMD */
    /* A wrapper, like ccache: CMD stays in the caller's group. Under a sweep that is the step's group, which
     * the sweep's timeout kills and its record of the group covers: what CMD starts in the background is
     * reaped after a killed sweep too (in a group of its own it escaped both). */
    opts.same_group = 1;
    if ((rc = pm_run_exec(argv, &opts, &rr, err)))
        goto cleanup;
    if (rr.status == PM_RUN_SPAWN_ERROR) {
        rc = pm_err_set(err, PM_ERR_CHILD, "cannot run %s: %s", argv[0], rr.spawn_error);
        goto cleanup;
    }
    res->exit_code = rr.exit_code;
    res->term_signal = rr.term_signal;
    res->cmd_wall_s = rr.wall_s;
    *truncated = rr.stdout_truncated || rr.stderr_truncated;
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
    res->out_len = res->err_len = 0;
    if (!(rc = capture_read(&out, &res->out, &res->out_len, err)))
        rc = capture_read(&errc, &res->err, &res->err_len, err);
cleanup:
    capture_close(&out);
    capture_close(&errc);
    return rc;
}

static int run_uncached(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err)
{
    int truncated = 0;
    res->uncached = 1;
    return run_captured(c, (const char *const *)req->argv, req, res, &truncated, err);
}

/* ---- storing ---- */

/* Removes whatever is at an entry's path when it is not a regular file (caller holds the stats lock). */
static int remove_junk(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -1;
    if (S_ISREG(st.st_mode))
        return 0;
    if (S_ISDIR(st.st_mode))
        pm_util_remove_tree(path);
    else
        unlink(path);
    return lstat(path, &st) ? 0 : -1;
}

/* Encodes the entry into a temp file beside its path (tmp; "" on failure), outside the stats lock. */
static int prepare_entry(const key_info *k, const char *entry_path, const entry *e, char tmp[PATH_MAX + 16],
                         size_t *flen_out, pm_err *err)
{
    char *file = NULL, sub[PATH_MAX];
    size_t flen = 0;
    int fd = -1, rc;
    tmp[0] = 0;
    snprintf(sub, sizeof sub, "%.*s", (int)(strrchr(entry_path, '/') - entry_path), entry_path);
    if ((rc = entry_encode(e, k->key, &file, &flen, err)))
        goto cleanup;
    struct stat sst;
    if (!lstat(sub, &sst) && !S_ISDIR(sst.st_mode)) /* junk where the fan-out folder belongs */
        unlink(sub);
    if ((rc = pm_util_mkdir_p(sub, err)))
        goto cleanup;
    snprintf(tmp, PATH_MAX + 16, "%s/.pmtmp.XXXXXX", sub);
    if ((fd = mkstemp(tmp)) < 0) {
        tmp[0] = 0;
        rc = pm_err_errno(err, PM_ERR_IO, "create %s/.pmtmp.*", sub);
        goto cleanup;
    }
    struct timespec mtime;
    clock_gettime(CLOCK_REALTIME, &mtime);
    /* no fsync: a crash may lose the entry; the checksum catches any partial file */
    int bad = write_all(fd, file, flen) || fchmod(fd, 0644) || futimens(fd, (struct timespec[2]){mtime, mtime});
    if (close(fd) || bad) {
        rc = pm_err_errno(err, PM_ERR_IO, "write %s", tmp);
        goto cleanup;
    }
    *flen_out = flen;
cleanup:
    if (rc && tmp[0]) {
        unlink(tmp);
        tmp[0] = 0;
    }
    free(file);
    return rc;
}

/* Publishes a prepared entry and counts it: under the stats lock, so bytes/entries stay exact with
 * concurrent writers. tmp is consumed. */
static int publish_entry(pm_cache *c, const char *entry_path, char tmp[PATH_MAX + 16], size_t flen,
                         uint64_t v[ST_N], int *stored, pm_err *err)
{
    int rc = PM_OK;
    struct stat old;
    if (remove_junk(entry_path)) {
        rc = pm_err_set(err, PM_ERR_IO, "cannot remove junk at %s", entry_path);
        goto cleanup;
    }
    int had = !lstat(entry_path, &old);
    if (rename(tmp, entry_path)) { /* only ever over a regular file: junk was removed above */
        rc = pm_err_errno(err, PM_ERR_IO, "publish %s", entry_path);
        goto cleanup;
    }
    tmp[0] = 0;
    *stored = 1;
    v[ST_STORES]++;
    v[ST_BYTES] += flen - (had ? (uint64_t)old.st_size : 0);
    v[ST_ENTRIES] += had ? 0 : 1;
    if (v[ST_BYTES] > c->max_size)
        rc = evict_locked(c, v, err);
cleanup:
    if (tmp[0])
        unlink(tmp);
    tmp[0] = 0;
    return rc;
}

typedef struct pre_output {
    int exists;          /* kept (a symlink's target): must change */
    dev_t dev;
    ino_t ino;
    struct timespec ctime;
} pre_output;

static int ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Why the result of a successful run cannot be stored ("" when it can); fills odata/olen and deps. */
static int check_run(const key_info *k, const pre_output *pre, struct timespec start,
                     const char *depfile, const dep_list *pre_deps, char **odata, uint64_t *olen, dep_list *deps,
                     char why[400], pm_err *err)
{
    why[0] = 0;
    for (size_t i = 0; i < k->n_outputs; i++) {
        struct stat st;
        size_t l = 0;
        pm_err ignored;
        if (stat(k->out_paths[i], &st) || !S_ISREG(st.st_mode)) {
            snprintf(why, 400, "CMD exited 0 but did not write %s", k->out_paths[i]);
            return PM_OK;
        }
        if (pre[i].exists && ((st.st_dev == pre[i].dev && st.st_ino == pre[i].ino &&
                               !memcmp(&st.st_ctim, &pre[i].ctime, sizeof st.st_ctim)) ||
                              !ts_before(pre[i].ctime, start))) {
            snprintf(why, 400, "CMD exited 0 but did not write %s (or it changed just before the run)",
                     k->out_paths[i]);
            return PM_OK;
        }
        if (read_file(k->out_paths[i], &odata[i], &l, NULL, &ignored)) {
            snprintf(why, 400, "cannot read output %s: %.200s", k->out_paths[i], ignored.msg);
            return PM_OK;
        }
        olen[i] = l;
    }
    /* an input that changed during the run: its output belongs to neither content */
    for (size_t i = 0; i < k->n_inputs; i++) {
        XXH128_hash_t h;
        pm_err ignored;
        if (hash_file(k->input_paths[i], &h, &ignored) || !XXH128_isEqual(h, k->input_h[i])) {
            snprintf(why, 400, "input %s changed during the run", k->input_paths[i]);
            return PM_OK;
        }
    }
    if (!k->deps)
        return PM_OK;
    char *text = NULL;
    size_t len = 0;
    pm_err perr;
    if (read_file(depfile, &text, &len, NULL, &perr) || parse_depfile(text, len, deps, &perr)) {
        free(text);
        if (perr.code == PM_ERR_NOMEM)
            return pm_err_set(err, PM_ERR_NOMEM, "%s", perr.msg);
        snprintf(why, 400, "cannot read the compiler's dependency list: %.300s", perr.msg);
        return PM_OK;
    }
    free(text);
    for (size_t i = 0; i < deps->n; i++) {
        if (!deps->ok[i]) {
            snprintf(why, 400, "cannot read dependency %s", deps->path[i]);
            return PM_OK;
        }
        size_t j = 0;
        while (pre_deps && j < pre_deps->n && strcmp(pre_deps->path[j], deps->path[i]))
            j++;
        if (pre_deps && j < pre_deps->n) { /* hashed before the run too: compare contents */
            if (!pre_deps->ok[j] || !XXH128_isEqual(pre_deps->h[j], deps->h[i])) {
                snprintf(why, 400, "dependency %s changed during the run", deps->path[i]);
                return PM_OK;
            }
            continue;
        }
        /* a direct input (the source) was hashed with the key: compare contents */
        char *canon = canon_path(deps->path[i]);
        if (!canon)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        for (j = 0; j < k->n_inputs && strcmp(canon, k->input_canon[j]); j++)
            ;
        free(canon);
        if (j < k->n_inputs) {
            if (!XXH128_isEqual(k->input_h[j], deps->h[i])) {
                snprintf(why, 400, "input %s changed during the run", deps->path[i]);
                return PM_OK;
            }
            continue;
        }
        /* first seen now: it must not have been touched since the run began (coarse clock, as the kernel's) */
        struct stat st;
        if (stat(deps->path[i], &st) || !ts_before(st.st_ctim, start)) {
            snprintf(why, 400, "dependency %s changed during the run (or just before it)", deps->path[i]);
            return PM_OK;
        }
    }
    return PM_OK;
}

static int run_miss(pm_cache *c, const pm_cache_request *req, const key_info *k, const char *entry_path,
                    const dep_list *pre_deps, pm_cache_result *res, pm_err *err)
{
    int rc = PM_OK, truncated = 0;
    char **odata = calloc(k->n_outputs + 1, sizeof *odata);
    uint64_t *olen = calloc(k->n_outputs + 1, sizeof *olen);
    pre_output *pre = calloc(k->n_outputs + 1, sizeof *pre);
    const char **argv = NULL;
    char depfile[PATH_MAX], why[400], tmp[PATH_MAX + 16];
    size_t flen = 0;
    dep_list deps = {0};
    depfile[0] = tmp[0] = 0;
    int own_depfile = 0;
    if (!odata || !olen || !pre) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* outputs must be written by this run: remove them first (a symlink's target is kept and must change) */
    for (size_t i = 0; i < k->n_outputs; i++) {
        struct stat st;
        const char *o = k->out_paths[i];
        if (lstat(o, &st))
            continue;
        if (S_ISLNK(st.st_mode) && stat(o, &st))
            continue; /* a dangling link: the run creates its target */
        if (!S_ISREG(st.st_mode)) {
            warn(res, "not cached: output %s is not a regular file", o);
            rc = run_uncached(c, req, res, err);
            goto cleanup;
        }
        if (lstat(o, &st) || !S_ISREG(st.st_mode) || unlink(o)) {
            stat(o, &st);
            pre[i].exists = 1;
            pre[i].dev = st.st_dev;
            pre[i].ino = st.st_ino;
            pre[i].ctime = st.st_ctim;
        }
    }
    struct statvfs fs;
    if (!statvfs(c->dir, &fs) && (uint64_t)fs.f_bavail * fs.f_frsize < MIN_FREE_BYTES) {
        warn(res, "cache file system full (%s): ran uncached", c->dir);
        rc = run_uncached(c, req, res, err);
        goto cleanup;
    }
    size_t argc = 0;
    while (req->argv[argc])
        argc++;
    if (!(argv = calloc(argc + 4, sizeof *argv))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(argv, req->argv, argc * sizeof *argv);
    if (k->deps && k->user_depfile) {
        snprintf(depfile, sizeof depfile, "%s", k->user_depfile);
    } else if (k->deps) {
        snprintf(depfile, sizeof depfile, "%s/tmp/deps.XXXXXX", c->dir);
        int fd = mkstemp(depfile);
        if (fd < 0) {
            warn(res, "cannot create a temporary file in %s/tmp (%s): ran uncached", c->dir, strerror(errno));
            rc = run_uncached(c, req, res, err);
            goto cleanup;
        }
        close(fd);
        own_depfile = 1;
        argv[argc++] = "-MD"; /* depend mode (as ccache's): the compiler lists every file it read */
        argv[argc++] = "-MF";
        argv[argc++] = depfile;
    }
    struct timespec start;
    clock_gettime(CLOCK_REALTIME_COARSE, &start); /* the clock file times come from */
    if ((rc = run_captured(c, argv, req, res, &truncated, err)))
        goto cleanup;
    if (own_depfile && (res->exit_code || res->term_signal) && !(req->cancel && *req->cancel) &&
        res->err && strstr(res->err, depfile)) { /* our dependency file failed the compile (a full disk) */
        warn(res, "the compiler could not write its dependency list to %s: ran uncached", depfile);
        rc = run_uncached(c, req, res, err);
        goto cleanup;
    }
    int store = res->exit_code == 0 && res->term_signal == 0 && !truncated && !(req->cancel && *req->cancel);
    why[0] = 0;
    if (store && (rc = check_run(k, pre, start, depfile, pre_deps, odata, olen, &deps, why, err)))
        goto cleanup;
    if (why[0]) {
        warn(res, "not cached: %s", why);
        store = 0;
    }
    pm_err serr;
    if (store) {
        entry e = {.wall_s = res->cmd_wall_s, .exit_code = 0, .out = res->out, .err = res->err,
                   .out_len = res->out_len, .err_len = res->err_len, .n_outputs = (uint32_t)k->n_outputs,
                   .data = pm_unconst_ptr(odata), /* char ** as const char **: only read */ .len = olen, .n_deps = (uint32_t)deps.n};
        uint32_t *dl = calloc(deps.n + 1, sizeof *dl);
        if (!dl) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        for (size_t i = 0; i < deps.n; i++)
            dl[i] = (uint32_t)strlen(deps.path[i]);
        e.dep_path = pm_unconst_ptr(deps.path);
        e.dep_len = dl;
        e.dep_h = deps.h;
        if (prepare_entry(k, entry_path, &e, tmp, &flen, &serr))
            warn(res, "result not cached: %s", serr.msg);
        free(dl);
    }
    uint64_t v[ST_N];
    if (stats_lock(c, v, &serr)) {
        warn(res, "cache not updated: %s", serr.msg);
        goto cleanup;
    }
    v[ST_MISSES]++;
    if (res->corrupt)
        v[ST_CORRUPT]++;
    if (tmp[0] && publish_entry(c, entry_path, tmp, flen, v, &res->stored, &serr))
        warn(res, "result not cached: %s", serr.msg);
    if (stats_unlock(c, v, &serr))
        warn(res, "cache not updated: %s", serr.msg);
cleanup:
    if (tmp[0])
        unlink(tmp);
    if (own_depfile)
        unlink(depfile);
    for (size_t i = 0; odata && i < k->n_outputs; i++)
        free(odata[i]);
    free(odata);
    free(olen);
    free(pre);
    free(pm_unconst_ptr(argv));
    dep_list_free(&deps);
    return rc;
}

/* Drops a corrupt entry or junk at its path (if no writer replaced it meanwhile) and recounts the
 * totals from the files, so bytes and entries stay exact whatever the damage did to the size. */
static int drop_entry(pm_cache *c, const char *path, const struct stat *seen, int junk, pm_err *err)
{
    uint64_t v[ST_N];
    struct stat now_st;
    int rc = stats_lock(c, v, err);
    if (rc)
        return rc;
    if (!lstat(path, &now_st) && now_st.st_ino == seen->st_ino && now_st.st_dev == seen->st_dev) {
        if (junk ? remove_junk(path) : unlink(path))
            rc = pm_err_errno(err, PM_ERR_IO, "cannot remove the damaged entry %s", path);
    }
    if (!rc)
        rc = evict_locked(c, v, err);
    int rc2 = stats_unlock(c, v, err);
    return rc ? rc : rc2;
}

int pm_cache_exec(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err)
{
    double t0 = pm_util_now();
    key_info k;
    memset(res, 0, sizeof *res);
    int rc;
    if (!c) { /* no usable cache: the caller has said why */
        rc = run_uncached(NULL, req, res, err);
        goto done;
    }
    if ((rc = compute_key(c, req, &k, err)))
        return rc;
    hex128(k.key, res->key);
    if (k.why[0]) {
        warn(res, "not cached: %s", k.why);
        rc = run_uncached(c, req, res, err);
        key_info_free(&k);
        goto done;
    }
    char path[PATH_MAX];
    pm_cache_entry_path(c, res->key, path, sizeof path);

    char *file = NULL, *raw = NULL;
    entry e;
    struct stat st;
    pm_err lerr;
    dep_list now_deps = {0};
    int junk = 0, lrc = load_entry(path, &k.key, &file, &raw, &e, &st, &junk, &lerr);
    if (lrc == PM_OK && e.n_outputs != k.n_outputs) /* same key, other output count: a damaged format */
        lrc = PM_ERR_CORRUPT;
    long changed = -1;
    if (lrc == PM_OK && (rc = deps_check(&e, &now_deps, &changed, err)))
        goto loaded;
    if (lrc == PM_OK && changed < 0) {
        for (uint32_t i = 0; i < e.n_outputs; i++) {
            pm_err werr;
            if (pm_util_write_file_atomic(k.out_paths[i], e.data[i], e.len[i], c->file_mode, NULL, &werr)) {
                warn(res, "cannot restore %s (%s): ran CMD uncached", k.out_paths[i], werr.msg);
                rc = run_uncached(c, req, res, err);
                goto loaded;
            }
        }
        if ((rc = dup_bytes(e.out, e.out_len, &res->out, &res->out_len, err)) ||
            (rc = dup_bytes(e.err, e.err_len, &res->err, &res->err_len, err)))
            goto loaded;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        utimensat(AT_FDCWD, path, (struct timespec[2]){now, now}, 0); /* LRU "last used" (read-only: kept) */
        res->hit = 1;
        res->wall_s = pm_util_now() - t0;
        res->saved_s = e.wall_s > res->wall_s ? e.wall_s - res->wall_s : 0;
        uint64_t v[ST_N];
        pm_err serr;
        if (stats_lock(c, v, &serr)) {
            warn(res, "cache stats not updated: %s", serr.msg);
        } else {
            v[ST_HITS]++;
            v[ST_SAVED_NS] += (uint64_t)(res->saved_s * 1e9);
            if (stats_unlock(c, v, &serr))
                warn(res, "%s", serr.msg);
        }
    }
loaded:
    if (lrc == PM_OK || (lrc == PM_ERR_CORRUPT && file)) {
        entry_free_arrays(&e);
        free(raw);
        free(file);
    }
    if (rc || res->hit || res->uncached)
        goto finish;
    if (lrc == PM_ERR_CORRUPT) {
        res->corrupt = 1;
        pm_err derr;
        if (drop_entry(c, path, &st, junk, &derr)) {
            warn(res, "cache entry unusable (%s): ran uncached", derr.msg);
            rc = run_uncached(c, req, res, err);
            goto finish;
        }
    } else if (lrc != PM_OK && lrc != PM_ERR_NOTFOUND) {
        warn(res, "cannot read the cache entry (%s): ran uncached", lerr.msg);
        rc = run_uncached(c, req, res, err);
        goto finish;
    }
    rc = run_miss(c, req, &k, path, lrc == PM_OK ? &now_deps : NULL, res, err);
finish:
    if (!rc && !res->uncached) {
        pm_err merr;
        if (write_manifest(c, &k, req, &merr))
            warn(res, "cache manifest not written: %s", merr.msg);
    }
    dep_list_free(&now_deps);
    key_info_free(&k);
done:
    res->wall_s = pm_util_now() - t0;
    if (rc)
        pm_cache_result_free(res);
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
    int rc = stats_lock(c, v, err);
    if (rc)
        return rc;
    char failed[PATH_MAX] = "", sub[PATH_MAX];
    DIR *top = opendir(c->dir);
    if (top) {
        struct dirent *d;
        struct stat st;
        while ((d = readdir(top)))
            if (is_fanout(d->d_name) && (size_t)snprintf(sub, sizeof sub, "%s/%s", c->dir, d->d_name) < sizeof sub) {
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
    rc = stats_unlock(c, v, err);
    if (failed[0])
        return pm_err_errno(err, PM_ERR_IO, "cannot remove %s", failed);
    return rc;
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
        if (load_entry(e[i].path, NULL, &file, &raw, &en, NULL, NULL, &ignored) == PM_OK) {
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
    int deps_changed = 0;
    if (k.why[0] && (rc = add_change(ex, err, "not cached: %s", k.why)))
        goto cleanup;
    if (!k.why[0] && load_entry(path, &k.key, &file, &raw, &e, NULL, NULL, &ignored) == PM_OK) {
        dep_list now = {0};
        long changed = -1;
        rc = e.n_outputs == k.n_outputs ? deps_check(&e, &now, &changed, err) : PM_OK;
        ex->would_hit = !rc && changed < 0 && e.n_outputs == k.n_outputs;
        deps_changed = changed >= 0;
        /* every changed dependency, by the name the compiler used */
        for (size_t i = 0; !rc && changed >= 0 && i < now.n; i++)
            if (!now.ok[i])
                rc = add_change(ex, err, "dependency %s is gone", now.path[i]);
            else if (!XXH128_isEqual(now.h[i], e.dep_h[i]))
                rc = add_change(ex, err, "dependency %s content changed", now.path[i]);
        dep_list_free(&now);
        entry_free_arrays(&e);
        free(raw);
        free(file);
        if (rc)
            goto cleanup;
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
    if (!rc && !ex->would_hit && !deps_changed && !strcmp(ex->key, ex->previous_key))
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
