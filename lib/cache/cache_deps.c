/* pm_cache dependencies (C/C++, depend mode): what the compiler read, from its -MD -MF file, hashed. */
#include "cache_internal.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void pc_dep_list_free(dep_list *d)
{
    pm_free_strs(d->path, d->n);
    pm_free_all(d->h, d->ok);
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
    d->ok[d->n] = !pc_hash_file(d->path[d->n], &d->h[d->n], &ignored);
    d->n++;
    return PM_OK;
}

/* Hashes the entry's dependencies now (into now); *changed: index of the first that differs, else -1. */
int pc_deps_check(const entry *e, dep_list *now, long *changed, pm_err *err)
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
int pc_parse_depfile(const char *text, size_t len, dep_list *out, pm_err *err)
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
