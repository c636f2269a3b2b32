/* The config identity every layer shares (config.h). */
#include "config.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pm_cfg_param(const pm_cfg *c, const char *name)
{
    for (size_t k = 0; name && k < c->n_params; k++)
        if (!strcmp(c->params[k].name, name))
            return c->params[k].value;
    return NULL;
}

double pm_cfg_param_num(const pm_cfg *c, const char *name)
{
    const char *v = pm_cfg_param(c, name);
    if (!v)
        return NAN;
    char *end;
    double d = strtod(v, &end);
    return end != v && !*end ? d : NAN;
}

const char *pm_cfg_axis(const pm_cfg *c, const char *name)
{
    return name && !strcmp(name, "variant") ? c->variant : pm_cfg_param(c, name);
}

int pm_cfg_param_add(pm_cfg *c, const char *name, const char *value)
{
    char *n = strdup(name), *v = strdup(value);
    pm_param *p = n && v ? realloc(c->params, (c->n_params + 1) * sizeof *p) : NULL;
    if (!p) {
        free(n);
        free(v);
        return -1;
    }
    c->params = p;
    p[c->n_params++] = (pm_param){n, v};
    return 0;
}

static int set_str(const char **dst, const char *src)
{
    char *d = NULL;
    if (src && !(d = strdup(src)))
        return -1;
    free(pm_unconst_ptr(*dst));
    *dst = d;
    return 0;
}

int pm_cfg_set(pm_cfg *c, const char *key, const char *kind, const char *variant)
{
    return set_str(&c->key, key) || set_str(&c->kind, kind) || set_str(&c->variant, variant) ? -1 : 0;
}

void pm_params_free(pm_param *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_free_all(p[i].name, p[i].value);
    free(p);
}

void pm_cfg_clear(pm_cfg *c)
{
    free(pm_unconst_ptr(c->key));
    free(pm_unconst_ptr(c->kind));
    free(pm_unconst_ptr(c->variant));
    pm_params_free(c->params, c->n_params);
    *c = (pm_cfg){0};
}

int pm_cfg_split_key(const char *key, const char *variant, char **base, char **var)
{
    const char *slash = strrchr(key, '/');
    size_t base_len = strlen(key);
    const char *v = "";
    if (variant) {
        v = variant;
        if (slash && *variant && !strcmp(slash + 1, variant))
            base_len = (size_t)(slash - key);
    } else if (slash) {
        v = slash + 1;
        base_len = (size_t)(slash - key);
    }
    *base = strndup(key, base_len);
    char *vd = var ? strdup(v) : NULL;
    if (!*base || (var && !vd)) {
        free(*base);
        free(vd);
        *base = NULL;
        if (var)
            *var = NULL;
        return -1;
    }
    if (var)
        *var = vd;
    return 0;
}

/* prefix, then "name=value" for each parameter but `except` ('/'-joined), then "variant=V" when asked. */
static char *join(const char *prefix, const pm_cfg *c, const char *except, int with_variant)
{
    size_t cap = 64 + (prefix ? strlen(prefix) : 0);
    for (size_t i = 0; i < c->n_params; i++)
        cap += strlen(c->params[i].name) + strlen(c->params[i].value) + 2;
    if (with_variant)
        cap += strlen(c->variant) + 10;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t len = (size_t)snprintf(out, cap, "%s", prefix ? prefix : "");
    for (size_t i = 0; i < c->n_params; i++)
        if (!except || strcmp(c->params[i].name, except))
            len += (size_t)snprintf(out + len, cap - len, "%s%s=%s", len ? "/" : "", c->params[i].name,
                                    c->params[i].value);
    if (with_variant)
        snprintf(out + len, cap - len, "%svariant=%s", len ? "/" : "", c->variant);
    return out;
}

char *pm_cfg_key_of(const char *prefix, const pm_cfg *c)
{
    return join(prefix, c, NULL, 0);
}

char *pm_cfg_key_except(const pm_cfg *c, const char *axis)
{
    return join(NULL, c, axis, c->variant && *c->variant && !(axis && !strcmp(axis, "variant")));
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Every axis of `a` but `axis` has the same value in `b`. */
static int covers(const pm_cfg *a, const pm_cfg *b, const char *axis)
{
    for (size_t i = 0; i < a->n_params; i++)
        if ((!axis || strcmp(a->params[i].name, axis)) &&
            !same_str(a->params[i].value, pm_cfg_param(b, a->params[i].name)))
            return 0;
    return 1;
}

int pm_cfg_equal_except(const pm_cfg *a, const pm_cfg *b, const char *axis)
{
    if (!(axis && !strcmp(axis, "variant")) && !same_str(a->variant && *a->variant ? a->variant : NULL,
                                                         b->variant && *b->variant ? b->variant : NULL))
        return 0;
    return covers(a, b, axis) && covers(b, a, axis);
}

/* value + "/" + more, in place of value */
static int value_append(char **value, const char *more)
{
    size_t n = strlen(*value), m = strlen(more);
    char *v = realloc(*value, n + m + 2);
    if (!v)
        return -1;
    v[n] = '/';
    memcpy(v + n + 1, more, m + 1);
    *value = v;
    return 0;
}

int pm_cfg_params_from_key(pm_cfg *c, const char *key, pm_err *err)
{
    size_t first = c->n_params;   /* the parameters this key adds start here */
    char *k = strdup(key);
    int rc = k ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    /* split by hand: strtok would drop empty parts, and a value's "a//b" with them */
    for (char *part = k, *next; rc == PM_OK && part; part = next) {
        char *slash = strchr(part, '/');
        next = slash ? slash + 1 : NULL;
        if (slash)
            *slash = '\0';
        char *eq = strchr(part, '=');
        if (eq == part) {
            rc = pm_err_set(err, PM_ERR_USAGE, "config key '%s': part '%s' has no name before '='", key, part);
        } else if (eq) {
            *eq = '\0';
            if (pm_cfg_param(c, part))
                rc = pm_err_set(err, PM_ERR_USAGE, "config key '%s': axis '%s' given twice", key, part);
            else if (pm_cfg_param_add(c, part, eq + 1))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        } else if (c->n_params > first && value_append(&c->params[c->n_params - 1].value, part)) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
    }
    free(k);
    return rc;
}
