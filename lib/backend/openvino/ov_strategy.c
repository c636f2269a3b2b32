/* Deterministic strategy replay: the key of a model and its options, the cache of strategy files. */
#include "ov_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

int copy_file(const char *from, const char *to, pm_err *err)
{
    char *data = NULL;
    size_t size = 0;
    int rc = pm_util_read_file(from, &data, &size, err);
    if (rc)
        return rc;
    FILE *f = fopen(to, "wb");
    if (!f) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot create %s", to);
    } else {
        if (fwrite(data, 1, size, f) != size)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", to);
        if (fclose(f) != 0 && !rc)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", to);
    }
    free(data);
    return rc;
}

static int hash_file(XXH3_state_t *s, const char *path, pm_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pm_err_errno(err, PM_ERR_IO, "cannot open %s", path);
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        XXH3_128bits_update(s, buf, n);
    int bad = ferror(f);
    fclose(f);
    return bad ? pm_err_errno(err, PM_ERR_IO, "cannot read %s", path) : PM_OK;
}

/* The switches that only ask for files (not what the compiler decides) stay out of the key. */
static int mode_word_shapes_strategy(const char *w, size_t n)
{
    static const char *const skip[] = {"enable-schedule-trace", "write-strategy-to-json", "read-strategy-from-json",
                                       "schedule-trace-file-name", "dump-task-stats", NULL};
    for (int i = 0; skip[i]; i++) {
        size_t k = strlen(skip[i]);
        if (n >= k && !strncmp(w, skip[i], k) && (n == k || w[k] == '='))
            return 0;
    }
    return 1;
}

int pm_ov_strategy_key(const pm_ov_opts *o, char key[33], pm_err *err)
{
    int rc = PM_OK;
    char *bin = NULL;
    XXH3_state_t *s = XXH3_createState();
    if (!s)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    XXH3_128bits_reset(s);
    if (!o->model_xml) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no model given");
        goto cleanup;
    }
    if ((rc = hash_file(s, o->model_xml, err)))
        goto cleanup;
    const char *bin_path = o->model_bin;
    if (!bin_path) { /* OpenVINO's own default: the .bin beside the .xml */
        size_t n = strlen(o->model_xml);
        if (n > 4 && !strcmp(o->model_xml + n - 4, ".xml") && (bin = strdup(o->model_xml))) {
            memcpy(bin + n - 4, ".bin", 4);
            if (access(bin, R_OK) == 0)
                bin_path = bin;
        }
    }
    XXH3_128bits_update(s, "\0bin\0", 5);
    if (bin_path && (rc = hash_file(s, bin_path, err)))
        goto cleanup;
    char opt[128];
    int n = snprintf(opt, sizeof opt, "\ndevice=%s\nwindow=%d\nplatform=%s\n", o->device ? o->device : "NPU",
                     o->window, o->platform ? o->platform : "");
    XXH3_128bits_update(s, opt, (size_t)n);
    for (const char *const *e = o->extra; e && *e; e++) {
        if (!strncmp(*e, "LOG_LEVEL=", 10) || !strncmp(*e, "CACHE_DIR=", 10) ||
            !strncmp(*e, "NPU_BYPASS_UMD_CACHING=", 23))
            continue;
        if (!strncmp(*e, "NPU_COMPILATION_MODE_PARAMS=", 28)) {
            for (const char *w = *e + 28; *w;) {
                while (*w == ' ')
                    w++;
                size_t wl = strcspn(w, " ");
                if (wl && mode_word_shapes_strategy(w, wl)) {
                    XXH3_128bits_update(s, w, wl);
                    XXH3_128bits_update(s, "\n", 1);
                }
                w += wl;
            }
            continue;
        }
        XXH3_128bits_update(s, *e, strlen(*e));
        XXH3_128bits_update(s, "\n", 1);
    }
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
    for (int i = 0; i < 16; i++)
        snprintf(key + 2 * i, 3, "%02x", c.digest[i]);
cleanup:
    free(bin);
    XXH3_freeState(s);
    return rc;
}

static int cache_root(const char *cache_dir, char *out, size_t size, pm_err *err)
{
    const char *env;
    if (cache_dir && *cache_dir)
        snprintf(out, size, "%s", cache_dir);
    else if ((env = getenv("PASSMAP_CACHE_DIR")) && *env)
        snprintf(out, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(out, size, "%s/passmap", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(out, size, "%s/.cache/passmap", env);
    else
        return pm_err_set(err, PM_ERR_NOTFOUND, "no cache directory (set PASSMAP_CACHE_DIR)");
    return PM_OK;
}

static int valid_key(const char *key)
{
    if (strlen(key) != 32)
        return 0;
    return strspn(key, "0123456789abcdef") == 32;
}

int pm_ov_strategy_store(const char *cache_dir, const char *key, const char *strategy_out_json, pm_err *err)
{
    char dir[4096], tmp[4200], dest[4200];
    int rc;
    if (!valid_key(key))
        return pm_err_set(err, PM_ERR_USAGE, "bad strategy key '%s'", key);
    if ((rc = cache_root(cache_dir, dir, sizeof dir - 16, err)))
        return rc;
    size_t dl = strlen(dir);
    snprintf(dir + dl, sizeof dir - dl, "/strategy"); /* cache_root left room for it */
    if ((rc = pm_util_mkdir_p(dir, err)))
        return rc;
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, key, (long)getpid());
    snprintf(dest, sizeof dest, "%s/%s.json", dir, key);
    /* Written aside then renamed: a concurrent fetch never sees half a file. */
    if ((rc = copy_file(strategy_out_json, tmp, err))) {
        unlink(tmp);
        return rc;
    }
    return pm_util_publish(tmp, dest, err); /* never replaces a non-regular file */
}

int pm_ov_strategy_fetch(const char *cache_dir, const char *key, char **path, pm_err *err)
{
    char dir[4096];
    int rc;
    *path = NULL;
    if (!valid_key(key))
        return pm_err_set(err, PM_ERR_USAGE, "bad strategy key '%s'", key);
    if ((rc = cache_root(cache_dir, dir, sizeof dir, err)))
        return rc;
    if (asprintf(path, "%s/strategy/%s.json", dir, key) < 0) {
        *path = NULL;
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (access(*path, R_OK) != 0) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "no cached strategy %s", key);
        free(*path);
        *path = NULL;
    }
    return rc;
}
