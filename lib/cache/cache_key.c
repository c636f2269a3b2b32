/* pm_cache key: the compiler identity, the inputs found in argv, and the key over both (see cache.h). */
#include "util.h"
#include "cache_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_VERSION "passmap-cache-key-2"

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
    int rc = pc_path_join(memo, sizeof memo, c->dir, "compilers", err);
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
    if ((rc = pc_hash_file(exe, out, err)))
        return rc;
    char hex[33];
    pc_hex128(*out, hex);
    int len = snprintf(line, sizeof line, "%s%s\n", hex, want);
    int fd = open(memo, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) { /* one O_APPEND write per line: concurrent appenders don't interleave */
        if (pc_write_all(fd, line, (size_t)len)) { /* a lost memo line only costs a rehash */
        }
        close(fd);
    }
    return PM_OK;
}

void pc_key_info_free(key_info *k)
{
    for (size_t i = 0; i < k->n_inputs; i++)
        pm_free_all(k->input_paths[i], k->input_canon[i]);
    for (size_t i = 0; i < k->n_outputs; i++)
        free(k->out_paths[i]);
    pm_free_all(k->out_paths, k->input_paths, k->input_canon, k->input_h, k->env_h, k->user_depfile);
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
char *pc_canon_path(const char *p)
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

/* Placeholder for one argv text if it names an input or output ("@IN3"), or NULL. May add an input.
 * out_refs counts the argv elements naming each output (two: the output is also read, in place). */
static int classify(key_info *k, char **out_canon, size_t *out_refs, const char *text, char ph[32], pm_err *err)
{
    ph[0] = 0;
    if (!*text)
        return PM_OK;
    struct stat st;
    int exists = !stat(text, &st);
    char *canon = pc_canon_path(text);
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
    char *canon = pc_canon_path(path);
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

/* The command line's hash, each path in it replaced by its placeholder (classify). */
static int hash_argv(key_info *k, const pm_cache_request *req, char **out_canon, size_t *out_refs, XXH3_state_t *s,
                     pm_err *err)
{
    int rc;
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
            return rc;
        const char *eq = strchr(a_i, '=');
        if (!ph[0] && eq && eq != a_i) {
            if ((rc = classify(k, out_canon, out_refs, eq + 1, ph, err)))
                return rc;
            if (ph[0]) {
                snprintf(buf, sizeof buf, "%.*s=%s", (int)(eq - a_i), a_i, ph);
                feed(s, 'a', buf, strlen(buf));
                continue;
            }
        }
        feed(s, 'a', ph[0] ? ph : a_i, strlen(ph[0] ? ph : a_i));
    }
    k->argv_h = XXH3_128bits_digest(s);
    return PM_OK;
}

/* The key from its parts, and the manifest id explain groups runs by. */
static void digest_key(key_info *k, char **out_canon, size_t n_env, XXH3_state_t *s)
{
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
}

int pc_compute_key(pm_cache *c, const pm_cache_request *req, key_info *k, pm_err *err)
{
    int rc = PM_OK;
    analysis *a = calloc(1, sizeof *a);
    size_t n_decl = pc_count_list(req->outputs), n_max = n_decl + 64;
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
    pc_analyse(req, a);
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
        char *canon = pc_canon_path(req->inputs[i]);
        for (size_t j = 0; canon && j < k->n_outputs; j++)
            if (!strcmp(canon, out_canon[j]) && !k->why[0])
                snprintf(k->why, sizeof k->why, "%s is both an input and an output", req->inputs[i]);
        if ((rc = add_input(k, req->inputs[i], canon, err)))
            goto cleanup;
    }
    if (a->extra_input && (rc = add_input(k, a->extra_input, pc_canon_path(a->extra_input), err)))
        goto cleanup;

    /* argv with paths replaced by placeholders */
    if ((rc = hash_argv(k, req, out_canon, out_refs, s, err)))
        goto cleanup;
    for (size_t i = 0; i < k->n_outputs; i++)
        if (out_refs[i] > 1 && !k->why[0])
            snprintf(k->why, sizeof k->why, "%s is both an input and an output", k->out_paths[i]);

    k->input_h = calloc(k->n_inputs + 1, sizeof *k->input_h);
    size_t n_env = pc_count_list(req->env_names);
    k->env_h = calloc(n_env + 1, sizeof *k->env_h);
    if (!k->input_h || !k->env_h) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < k->n_inputs; i++)
        if ((rc = pc_hash_file(k->input_paths[i], &k->input_h[i], err)))
            goto cleanup;
    k->n_env = n_env;
    for (size_t i = 0; i < n_env; i++) {
        const char *val = getenv(req->env_names[i]);
        XXH3_128bits_reset(s);
        feed(s, 'N', req->env_names[i], strlen(req->env_names[i]));
        feed(s, val ? 'S' : 'U', val ? val : "", val ? strlen(val) : 0);
        k->env_h[i] = XXH3_128bits_digest(s);
    }

    digest_key(k, out_canon, n_env, s);
cleanup:
    if (rc)
        pc_key_info_free(k);
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
    int rc = pc_compute_key(c, req, &k, err);
    if (rc)
        return rc;
    pc_hex128(k.key, key);
    pc_key_info_free(&k);
    return PM_OK;
}
