/* pm_cache explain: a manifest per command line (what its last run hashed) and what changed since. */
#include "cache_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---------- manifests (for explain) ---------- */

static void manifest_path(pm_cache *c, const key_info *k, char buf[PATH_MAX])
{
    char hex[33];
    pc_hex128(k->manifest_id, hex);
    snprintf(buf, PATH_MAX, "%s/manifests/%s", c->dir, hex);
}

int pc_write_manifest(pm_cache *c, const key_info *k, const pm_cache_request *req, pm_err *err)
{
    char path[PATH_MAX], hex[33];
    manifest_path(c, k, path);
    size_t cap = 4096 + (k->n_inputs + k->n_env) * (PATH_MAX + 64), len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pc_hex128(k->key, hex);
    len += (size_t)snprintf(buf + len, cap - len, "key %s\n", hex);
    pc_hex128(k->compiler, hex);
    len += (size_t)snprintf(buf + len, cap - len, "compiler %s %s\n", hex, k->compiler_path);
    pc_hex128(k->argv_h, hex);
    len += (size_t)snprintf(buf + len, cap - len, "argv %s\noutputs %zu\n", hex, k->n_outputs);
    for (size_t i = 0; i < k->n_inputs; i++) {
        pc_hex128(k->input_h[i], hex);
        len += (size_t)snprintf(buf + len, cap - len, "input %s %s\n", hex, k->input_paths[i]);
    }
    for (size_t i = 0; i < k->n_env; i++) {
        pc_hex128(k->env_h[i], hex);
        len += (size_t)snprintf(buf + len, cap - len, "env %s %s\n", hex, req->env_names[i]);
    }
    char *old = NULL;
    size_t old_len = 0;
    int rc = PM_OK;
    pm_err ignored;
    if (pc_read_file(path, &old, &old_len, NULL, &ignored) || old_len != len || memcmp(old, buf, len))
        rc = pm_util_write_file_atomic(path, buf, len, c->file_mode, NULL, err);
    free(old);
    free(buf);
    return rc;
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
    int rc = pc_compute_key(c, req, &k, err);
    if (rc)
        return rc;
    pc_hex128(k.key, ex->key);
    char path[PATH_MAX], *file = NULL, *raw = NULL, *man = NULL;
    size_t man_len;
    entry e;
    pm_err ignored;
    pm_cache_entry_path(c, ex->key, path, sizeof path);
    int deps_changed = 0;
    if (k.why[0] && (rc = add_change(ex, err, "not cached: %s", k.why)))
        goto cleanup;
    if (!k.why[0] && pc_load_entry(path, &k.key, &file, &raw, &e, NULL, NULL, &ignored) == PM_OK) {
        dep_list now = {0};
        long changed = -1;
        rc = e.n_outputs == k.n_outputs ? pc_deps_check(&e, &now, &changed, err) : PM_OK;
        ex->would_hit = !rc && changed < 0 && e.n_outputs == k.n_outputs;
        deps_changed = changed >= 0;
        /* every changed dependency, by the name the compiler used */
        for (size_t i = 0; !rc && changed >= 0 && i < now.n; i++)
            if (!now.ok[i])
                rc = add_change(ex, err, "dependency %s is gone", now.path[i]);
            else if (!XXH128_isEqual(now.h[i], e.dep_h[i]))
                rc = add_change(ex, err, "dependency %s content changed", now.path[i]);
        pc_dep_list_free(&now);
        pc_entry_free_arrays(&e);
        free(raw);
        free(file);
        if (rc)
            goto cleanup;
    }
    manifest_path(c, &k, path);
    if (pc_read_file(path, &man, &man_len, NULL, &ignored))
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
            pc_hex128(k.compiler, hex);
            if (strcmp(hex, prev))
                rc = add_change(ex, err, "compiler binary changed (%s)", k.compiler_path);
        } else if (!strcmp(tag, "argv")) {
            pc_hex128(k.argv_h, hex);
            argv_changed = strcmp(hex, prev) != 0;
        } else if (!strcmp(tag, "outputs")) {
            prev_outputs = strtoull(prev, NULL, 10);
        } else if (!strcmp(tag, "input")) {
            if (in_i < k.n_inputs) {
                pc_hex128(k.input_h[in_i], hex);
                if (strcmp(hex, prev))
                    rc = add_change(ex, err, "input %zu (%s) content changed", in_i, k.input_paths[in_i]);
            }
            in_i++;
        } else if (!strcmp(tag, "env")) {
            if (env_i < k.n_env) {
                pc_hex128(k.env_h[env_i], hex);
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
    pc_key_info_free(&k);
    if (rc)
        pm_cache_explain_free(ex);
    return rc;
}

void pm_cache_explain_free(pm_cache_explain *ex)
{
    if (!ex)
        return;
    pm_free_strs(ex->changes, ex->n_changes);
    ex->changes = NULL;
    ex->n_changes = 0;
}
