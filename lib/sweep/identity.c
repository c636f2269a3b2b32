/* Compiler identity and config fingerprints (see identity.h). */
#include "identity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "parse.h"
#include "spec.h"
#include "run.h"
#include "util.h"

/* What changes a compile without showing in its argv: include and library search paths, driver overrides,
 * preloaded code, thread counts, reproducible-build dates, the C library's allocator settings (a resume under
 * GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0 ran clang 9x slower). A name ending in '*' is a prefix. PATH is
 * not here: the tool identity covers what it selects. */
const char *const pm_fp_env_names[] = {
    "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "LIBRARY_PATH", "COMPILER_PATH",
    "GCC_EXEC_PREFIX", "GCC_COMPARE_DEBUG", "CCC_OVERRIDE_OPTIONS", "CLANG_CONFIG_FILE_SYSTEM_DIR",
    "CLANG_CONFIG_FILE_USER_DIR", "SDKROOT", "LD_PRELOAD", "LD_LIBRARY_PATH", "OMP_NUM_THREADS",
    "SOURCE_DATE_EPOCH", "GLIBC_TUNABLES", "MALLOC_*", NULL};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends "env NAME=VALUE" for every variable of the environment that a pm_fp_env_names entry names, a prefix's
 * in name order (the environment's order is the caller's). */
static int add_env(pm_sbuf *b)
{
    size_t n_env = 0;
    for (char **e = environ; e && *e; e++)
        n_env++;
    const char **hit = malloc((n_env + 1) * sizeof *hit);
    if (!hit)
        return PM_ERR_NOMEM;
    for (const char *const *name = pm_fp_env_names; *name; name++) {
        size_t len = strlen(*name);
        if (len && (*name)[len - 1] != '*') {
            const char *v = getenv(*name);
            if (v)
                pm_sbuf_add(b, "env %s=%s\n", *name, v);
            continue;
        }
        size_t n = 0;
        for (char **e = environ; e && *e; e++)
            if (!strncmp(*e, *name, len - 1) && strchr(*e, '='))
                hit[n++] = *e;
        qsort(hit, n, sizeof *hit, cmp_str);
        for (size_t i = 0; i < n; i++)
            pm_sbuf_add(b, "env %s\n", hit[i]);
    }
    free(hit);
    return PM_OK;
}

/* The --version text kept per tool: enough for every compiler's banner; a longer one says it was cut. */
#define VERSION_TEXT_MAX 4096

void pm_tool_set_free(pm_tool_set *set)
{
    pm_tool_idents_free(set->items, set->n);
    memset(set, 0, sizeof *set);
}

/* argv0 as execvpe finds it: a name with a slash as is, else the first executable PATH entry. */
static int resolve(const char *argv0, char *out, size_t cap)
{
    if (strchr(argv0, '/'))
        return snprintf(out, cap, "%s", argv0) < (int)cap && access(out, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        struct stat sb;
        if ((size_t)snprintf(out, cap, "%.*s/%s", (int)len, len ? p : ".", argv0) < cap && access(out, X_OK) == 0 &&
            stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
            return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

static int hash_file(const char *path, char *out, size_t cap)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return -1;
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    XXH3_state_t *s = XXH3_createState();
    char *buf = malloc(1 << 18);
    int rc = s && buf ? 0 : -1;
    if (!rc)
        XXH3_128bits_reset(s);
    while (!rc) {
        ssize_t r = read(fd, buf, 1 << 18);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = -1;
        if (r <= 0)
            break;
        XXH3_128bits_update(s, buf, (size_t)r);
    }
    if (!rc) {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
        size_t k = (size_t)snprintf(out, cap, "xxh3-128:");
        for (int i = 0; i < 16 && k + 2 < cap; i++, k += 2)
            snprintf(out + k, cap - k, "%02x", c.digest[i]);
    }
    close(fd);
    free(buf);
    XXH3_freeState(s);
    return rc;
}

/* Appends up to VERSION_TEXT_MAX bytes of a file, trailing blanks dropped; says when it cut. */
static void add_file(pm_sbuf *b, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char buf[VERSION_TEXT_MAX + 1];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    int cut = n > VERSION_TEXT_MAX;
    if (cut)
        n = VERSION_TEXT_MAX;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r' || buf[n - 1] == '\t'))
        n--;
    if (!n)
        return;
    pm_sbuf_add(b, "%s%.*s%s", b->len ? "\n" : "", (int)n, buf, cut ? "\n[cut at 4096 bytes]" : "");
}

int pm_tool_identify(pm_tool_set *set, const char *argv0, const char *label, const char *invoked, const char *dir,
                     double timeout_s, const pm_tool_ident **out, pm_err *err)
{
    if (!invoked)
        invoked = argv0;
    char path[PATH_MAX];
    int found = resolve(argv0, path, sizeof path);
    if (!found)
        snprintf(path, sizeof path, "%s", argv0);
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->items[i].path, path) && !strcmp(set->items[i].name, label) &&
            !strcmp(set->items[i].invoked, invoked)) {
            *out = &set->items[i];
            return PM_OK;
        }
    pm_tool_ident *g = pm_grow(set->items, &set->cap, set->n, sizeof *g, 8);
    if (!g)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    set->items = g;
    pm_tool_ident *t = &set->items[set->n];
    memset(t, 0, sizeof *t);
    char hash[64] = "";
    pm_sbuf ver = {0};
    int rc = PM_OK;
    if (!found) {
        pm_sbuf_add(&ver, "(not found in PATH)");
    } else {
        if (hash_file(path, hash, sizeof hash))
            hash[0] = '\0';
        char so[PATH_MAX + 32], se[PATH_MAX + 32];
        if (snprintf(so, sizeof so, "%s/version.stdout", dir) >= (int)sizeof so ||
            snprintf(se, sizeof se, "%s/version.stderr", dir) >= (int)sizeof se)
            return pm_err_set(err, PM_ERR_USAGE, "path too long: %s", dir);
        const char *argv[] = {path, "--version", NULL};
        pm_run_opts ro = {.timeout_s = timeout_s, .cwd = dir, .stdout_path = so, .stderr_path = se};
        pm_run_result res;
        memset(&res, 0, sizeof res);
        if ((rc = pm_run_exec(argv, &ro, &res, err)))
            return pm_err_wrap(err, "%s --version", path);
        add_file(&ver, so);
        add_file(&ver, se);
        if (res.status != PM_RUN_OK)
            pm_sbuf_add(&ver, "%s(--version: %s%s%s)", ver.len ? "\n" : "", pm_run_status_name(res.status),
                        res.spawn_error[0] ? ": " : "", res.spawn_error);
        unlink(so);
        unlink(se);
    }
    if (ver.oom || !(t->name = strdup(label)) || !(t->path = strdup(path)) ||
        !(t->version_text = strdup(ver.s ? ver.s : "")) || !(t->hash = strdup(hash)) ||
        !(t->invoked = strdup(invoked))) {
        free(ver.s);
        free(t->name), free(t->path), free(t->version_text), free(t->hash);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    free(ver.s);
    set->n++;
    *out = t;
    return PM_OK;
}

/* s with every occurrence of each subst pair's first string replaced by its second (heap). */
static char *normalize(const char *s, const char *const *subst)
{
    pm_sbuf b = {0};
    while (*s) {
        const char *const *p = subst;
        for (; p && p[0]; p += 2)
            if (p[0][0] && !strncmp(s, p[0], strlen(p[0])))
                break;
        if (p && p[0]) {
            pm_sbuf_add(&b, "%s", p[1]);
            s += strlen(p[0]);
        } else {
            pm_sbuf_add(&b, "%c", *s++);
        }
    }
    return pm_sbuf_take(&b);
}

static void text_hash(const char *text, size_t len, char hash[48])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(text, len));
    size_t k = (size_t)snprintf(hash, 48, "xxh3-128:");
    for (int i = 0; i < 16; i++, k += 2)
        snprintf(hash + k, 48 - k, "%02x", c.digest[i]);
}

int pm_fingerprint_add_inputs(char **text, char hash[48], const pm_param *params, char *const *paths, size_t n,
                              pm_err *err)
{
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "%s", *text ? *text : "");
    for (size_t i = 0; paths && i < n; i++) {
        if (!paths[i])
            continue;
        char h[64];
        if (hash_file(paths[i], h, sizeof h))
            snprintf(h, sizeof h, "(unreadable)");
        pm_sbuf_add(&b, "input %s: %s\n", params[i].name, h);
    }
    if (b.oom) {
        free(b.s);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    free(*text);
    *text = b.s;
    text_hash(b.s, b.len, hash);
    return PM_OK;
}

static int without_inputs(const char *text, char hash[48])
{
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "%s", "");
    for (const char *p = text ? text : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, "input ", 6))
            pm_sbuf_add(&b, "%.*s%s", (int)n, p, p[n] ? "\n" : "");
        p += n + (p[n] == '\n');
    }
    if (b.oom) {
        free(b.s);
        return -1;
    }
    text_hash(b.s, b.len, hash);
    free(b.s);
    return 0;
}

int pm_fingerprint_same(const char *old_hash, const char *old_text, const char *text, const char *hash)
{
    if (!strcmp(old_hash, hash))
        return 1;
    if (!old_text || !strncmp(old_text, "input ", 6) || strstr(old_text, "\ninput "))
        return 0;
    char h[48];
    if (without_inputs(text, h))
        return -1;
    return !strcmp(old_hash, h);
}

int pm_fingerprint_config(const pm_backend_ops *be, pm_backend_ctx *bctx, int c, const char *const *subst,
                          const char *self, pm_tool_set *tools, const char *dir, double timeout_s, char **text,
                          char hash[48], pm_err *err)
{
    pm_steps steps = {0};
    const pm_spec_config *cfg = &bctx->spec->configs[c];
    int rc = be->steps(bctx, c, "{input}", "{out}", &steps, err);
    if (!rc)
        rc = pm_fingerprint_steps(&steps, subst, self, tools, dir, timeout_s, text, hash, err);
    if (!rc)
        rc = pm_fingerprint_add_inputs(text, hash, cfg->params, cfg->paths, cfg->n_params, err);
    pm_steps_free(&steps);
    return rc;
}

void pm_fp_subst(const char *work, const char *spec_dir, const char *self, const char *out[8])
{
    const char *s[8] = {work, "{work}", spec_dir, "{spec_dir}", self, "{passmap}", NULL, NULL};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (strlen(s[2 * j]) < strlen(s[2 * j + 2])) {
                const char *a = s[2 * j], *b = s[2 * j + 1];
                s[2 * j] = s[2 * j + 2], s[2 * j + 1] = s[2 * j + 3];
                s[2 * j + 2] = a, s[2 * j + 3] = b;
            }
    if (!strcmp(spec_dir, "."))   /* parsed from text: no folder to replace */
        for (int i = 0; i < 6; i += 2)
            if (s[i] == spec_dir)
                s[i] = "";
    memcpy(out, s, sizeof s);
}

int pm_fingerprint_steps(const pm_steps *steps, const char *const *subst, const char *self, pm_tool_set *tools,
                         const char *dir, double timeout_s, char **text, char hash[48], pm_err *err)
{
    pm_sbuf b = {0};
    int rc = PM_OK;
    *text = NULL;
    for (int i = 0; i < steps->n && !rc; i++) {
        const pm_step *st = &steps->items[i];
        char *joined = pm_argv_join(st->argv);
        char *argv = joined ? normalize(joined, subst) : NULL;
        free(joined);
        if (!argv) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        const char *stream = st->report_path ? "file" : st->report_stream == PM_STREAM_STDOUT ? "stdout"
                             : st->report_stream == PM_STREAM_STDERR ? "stderr" : "none";
        char *rpath = st->report_path ? normalize(st->report_path, subst) : NULL;
        pm_sbuf_add(&b, "step %d %s: %s\n  report: %s%s%s, format %s\n", i + 1, st->tool, argv, stream,
                    rpath ? " " : "", rpath ? rpath : "", pm_format_name(st->report_format));
        free(argv);
        free(rpath);
        if (self && !strcmp(st->argv[0], self)) {
            pm_sbuf_add(&b, "  tool: passmap\n");
            continue;
        }
        const pm_tool_ident *t = NULL;
        char *invoked = normalize(st->argv[0], subst);
        if (!invoked) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        rc = pm_tool_identify(tools, st->argv[0], st->tool, invoked, dir, timeout_s, &t, err);
        free(invoked);
        if (rc)
            break;
        char vl[200];
        pm_sbuf_add(&b, "  tool: %s %s\n", t->hash[0] ? t->hash : "(unreadable)",
                    pm_version_line(t->version_text, vl, sizeof vl));
    }
    if (!rc && add_env(&b))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (!rc && b.oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc) {
        free(b.s);
        return rc;
    }
    if (!b.s)
        pm_sbuf_add(&b, "%s", "");
    text_hash(b.s, b.len, hash);
    *text = b.s;
    return PM_OK;
}
