/* Fix rule terms (see fixrule.h). */
#include "fixrule.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const PM_FIXRULE_SIZE_NAMES[] = {"window", "layers", "tile", "ops", "llvm_ops", "wall", NULL};

int pm_fixrule_superlinear(const char *v, int *out)
{
    if (!strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "true"))
        *out = 1;
    else if (!strcmp(v, "-") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "false") ||
             !strcmp(v, "*"))
        *out = 0;
    else
        return -1;
    return 0;
}

static int known_name(const char *name, size_t len, const char *const *axes)
{
    for (const char *const *n = PM_FIXRULE_SIZE_NAMES; *n; n++)
        if (strlen(*n) == len && !strncmp(*n, name, len))
            return 1;
    for (const char *const *n = axes; n && *n; n++)
        if (strlen(*n) == len && !strncmp(*n, name, len))
            return 1;
    return 0;
}

/* "unknown name" message listing what is allowed; a long axis list is cut in the message only. */
static void unknown_msg(char *msg, size_t cap, const char *term, const char *name, const char *const *axes)
{
    int n = snprintf(msg, cap, "size term '%s': unknown name '%s' (", term, name);
    for (const char *const *s = PM_FIXRULE_SIZE_NAMES; *s && n >= 0 && (size_t)n < cap; s++)
        n += snprintf(msg + n, cap - (size_t)n, "%s%s", s == PM_FIXRULE_SIZE_NAMES ? "" : ", ", *s);
    for (const char *const *s = axes; s && *s && n >= 0 && (size_t)n < cap; s++)
        n += snprintf(msg + n, cap - (size_t)n, "%s%s", s == axes ? "; axes, " : ", ", *s);
    if (n >= 0 && (size_t)n < cap)
        snprintf(msg + n, cap - (size_t)n, ")");
}

int pm_fixrule_size(const char *cond, const char *const *axes, pm_fixrule_lookup lookup, const void *ctx, char *msg,
                    size_t msgcap)
{
    while (isspace((unsigned char)*cond))
        cond++;
    if (!strcmp(cond, "*"))
        return 1;
    char *buf = strdup(cond);
    if (!buf) {
        snprintf(msg, msgcap, "out of memory");
        return -1;
    }
    int all = 1, rc = -1;
    for (char *save = NULL, *t = strtok_r(buf, "&", &save); t; t = strtok_r(NULL, "&", &save)) {
        while (isspace((unsigned char)*t))
            t++;
        size_t tl = strlen(t);
        while (tl && isspace((unsigned char)t[tl - 1]))
            t[--tl] = '\0';
        size_t k = 0;
        while (isalnum((unsigned char)t[k]) || t[k] == '_')
            k++;
        if (k == 0) {
            snprintf(msg, msgcap, "size term '%s': no name", t);
            goto cleanup;
        }
        char saved = t[k];
        t[k] = '\0';
        char *name = strdup(t);
        t[k] = saved;
        if (!name) {
            snprintf(msg, msgcap, "out of memory");
            goto cleanup;
        }
        if (!lookup && !known_name(name, k, axes)) {
            unknown_msg(msg, msgcap, t, name, axes);
            free(name);
            goto cleanup;
        }
        const char *p = t + k;
        while (*p == ' ')
            p++;
        int op;
        if (!strncmp(p, "<=", 2)) op = 0, p += 2;
        else if (!strncmp(p, ">=", 2)) op = 1, p += 2;
        else if (*p == '<') op = 2, p++;
        else if (*p == '>') op = 3, p++;
        else {
            snprintf(msg, msgcap, "size term '%s': operator must be < <= > >=", t);
            free(name);
            goto cleanup;
        }
        char *end;
        double v = strtod(p, &end);
        while (*end == ' ')
            end++;
        if (end == p || *end || !isfinite(v)) {
            snprintf(msg, msgcap, "size term '%s': not a number after the operator", t);
            free(name);
            goto cleanup;
        }
        if (lookup) {
            double x = lookup(name, ctx);
            all &= !isnan(x) && (op == 0 ? x <= v : op == 1 ? x >= v : op == 2 ? x < v : x > v);
        }
        free(name);
    }
    rc = all;
cleanup:
    free(buf);
    return rc;
}
