/* Sweep spec configs: a config's parameters and variant tokens, appending and the duplicate-key check, the
 * adaptive rounds' config lists. */
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "util.h"

/* Every '+'-joined token of a variant is one the back ends know; what a token does is the back end's that
 * runs it (pm_spec_variant_has, pm_spec_variant_tile). */
int pm_spec_check_variant(const char *v, pm_err *err, const char *what)
{
    char buf[PM_SPEC_VARIANT_MAX];
    if (strlen(v) >= sizeof buf)
        return pm_err_set(err, PM_ERR_USAGE, "%s: variant '%s' too long", what, v);
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
        if (!strcmp(t, "stock") || !strcmp(t, "no-rollback") || !strcmp(t, "per-layer") ||
            !strcmp(t, "reuse-strategy") || !strcmp(t, "instrumented"))
            continue;
        else if (!strncmp(t, "tile-", 5)) {
            char tw[PM_SPEC_VARIANT_MAX + 256];   /* what is "line N: [SECTION] variants" */
            int tile;
            snprintf(tw, sizeof tw, "%s: variant %s", what, t);
            if (pm_spec_int(t + 5, 1, 1 << 16, &tile, err, tw))
                return err->code;
        } else
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown variant '%s' (stock, no-rollback, per-layer, tile-N, reuse-strategy, instrumented)", what, t);
    }
    return PM_OK;
}

int pm_spec_config_param(pm_spec_config *c, const char *name, const char *value, const char *path)
{
    char **pp = realloc(c->paths, (c->n_params + 1) * sizeof *pp);
    if (!pp)
        return PM_ERR_NOMEM;
    c->paths = pp;
    if (!(pp[c->n_params] = path ? strdup(path) : NULL) && path)
        return PM_ERR_NOMEM;
    if (pm_cfg_param_add(&c->cfg, name, value)) {
        free(pp[c->n_params]);
        return PM_ERR_NOMEM;
    }
    return PM_OK;
}

void pm_spec_config_clear(pm_spec_config *c)
{
    pm_free_strs(c->paths, c->n_params);
    c->paths = NULL;
    pm_cfg_clear(&c->cfg);
}

/* Appends; capacity doubles (planning stays linear). Duplicate keys are found once, after expansion. */
int pm_spec_add_config(pm_spec *s, pm_spec_config *c, pm_err *err)
{
    if (s->n_configs >= PM_SPEC_MAX_CONFIGS) {
        pm_spec_config_clear(c);
        return pm_err_set(err, PM_ERR_USAGE, "over the limit of %d configs per spec", PM_SPEC_MAX_CONFIGS);
    }
    if (s->n_configs == s->cap_configs) {
        int ncap = s->cap_configs ? s->cap_configs * 2 : 64;
        pm_spec_config *nc = realloc(s->configs, (size_t)ncap * sizeof *nc);
        if (!nc) {
            pm_spec_config_clear(c);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        s->configs = nc;
        s->cap_configs = ncap;
    }
    s->configs[s->n_configs++] = *c;
    c->cfg = (pm_cfg){0};
    c->paths = NULL;
    return PM_OK;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const pm_spec_config *const *)a)->key, (*(const pm_spec_config *const *)b)->key);
}

int pm_spec_check_unique_keys(const pm_spec *s, pm_err *err)
{
    if (s->n_configs < 2)
        return PM_OK;
    const pm_spec_config **v = malloc((size_t)s->n_configs * sizeof *v);
    if (!v)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < s->n_configs; i++)
        v[i] = &s->configs[i];
    qsort(v, (size_t)s->n_configs, sizeof *v, by_key);
    int rc = PM_OK;
    for (int i = 1; i < s->n_configs && !rc; i++)
        if (!strcmp(v[i]->key, v[i - 1]->key))
            rc = pm_err_set(err, PM_ERR_USAGE, "config %s appears twice in the matrix", v[i]->key);
    free(v);
    return rc;
}

pm_workload pm_spec_workload(const pm_spec_config *c)
{
    pm_workload w = pm_workload_of(&c->cfg);
    w.func_per_layer = pm_spec_variant_has(c, "per-layer");
    return w;
}

/* The variant's tokens one by one: fn(token, len, user) until it returns non-zero (that value). */
static int each_token(const char *variant, int (*fn)(const char *t, size_t n, void *user), void *user)
{
    for (const char *p = variant; p && *p;) {
        const char *end = strchr(p, '+');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int r = fn(p, n, user);
        if (r)
            return r;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static int token_is(const char *t, size_t n, void *user)
{
    const char *want = user;
    return strlen(want) == n && !strncmp(t, want, n);
}

static int token_tile(const char *t, size_t n, void *user)
{
    (void)user;
    if (n <= 5 || strncmp(t, "tile-", 5))
        return 0;
    long v = strtol(t + 5, NULL, 10);   /* checked when the spec was read: 1 .. 65536 */
    return v > 0 && v <= 1 << 16 ? (int)v : 0;
}

int pm_spec_variant_has(const pm_spec_config *c, const char *token)
{
    return each_token(c->variant, token_is, pm_unconst_ptr(token));
}

int pm_spec_variant_tile(const pm_spec_config *c)
{
    return each_token(c->variant, token_tile, NULL);
}

void pm_spec_round_reset(pm_spec *s, const char *name, int repeats)
{
    snprintf(s->name, sizeof s->name, "%s", name);
    s->repeats = repeats;
    s->repeats_auto = 0;
    s->interleaved = 1;
    s->warm = 0;
    for (int i = 0; i < s->n_configs; i++)
        pm_spec_config_clear(&s->configs[i]);
    s->n_configs = 0;
}

int pm_spec_round_pair(const int *configs, const char *const *variants, size_t i, int n_configs, int *dup,
                       pm_err *err)
{
    *dup = 0;
    for (size_t j = 0; j < i && !*dup; j++)
        *dup = configs[j] == configs[i] && !strcmp(variants[j], variants[i]);
    if (*dup)
        return PM_OK;
    if (configs[i] < 0 || configs[i] >= n_configs)
        return pm_err_set(err, PM_ERR_USAGE, "round: config %d is not in the study", configs[i]);
    return PM_OK;
}

int pm_spec_config_copy(const pm_spec_config *src, const char *key, const char *variant, pm_spec_config *out,
                        pm_err *err)
{
    *out = *src;
    out->cfg = (pm_cfg){0}, out->paths = NULL;
    int rc = PM_OK;
    for (size_t k = 0; k < src->n_params && rc == PM_OK; k++)
        if (pm_spec_config_param(out, src->params[k].name, src->params[k].value, src->paths ? src->paths[k] : NULL))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc == PM_OK && pm_cfg_set(&out->cfg, key, src->kind, variant))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc)
        pm_spec_config_clear(out);
    return rc;
}
