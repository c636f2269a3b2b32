/* Sweep spec reading: the INI dialect into entries with their line numbers (what spec.c and the back ends expand
 * afterwards), the value parsers every section's keys use, "did you mean" for a mistyped key. */
#include "spec_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

void pm_spec_entries_free(pm_spec_entries *es)
{
    for (int i = 0; i < es->n; i++)
        pm_free_all(es->items[i].section, es->items[i].name, es->items[i].value);
    free(es->items);
}

static char *dup_range(const char *a, const char *b)
{
    while (a < b && isspace((unsigned char)*a))
        a++;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    char *d = malloc((size_t)(b - a) + 1);
    if (d) {
        memcpy(d, a, (size_t)(b - a));
        d[b - a] = '\0';
    }
    return d;
}

/* The INI dialect of the specs: [section], KEY = VALUE (':' is no separator: it is in model names), comments from ';' or '#' at the start of
 * a line or from " ;" inside one. An indented line continues the previous key's value (a long list wrapped over
 * lines: the parts are joined with a space, so every line's items count). A key given twice in one section is an
 * error naming both lines; lines may be any length. Errors carry the line number. */
int pm_spec_ini_read(const char *text, const char *path, entries *es, pm_err *err)
{
    char *section = strdup("");
    int rc = PM_OK, lineno = 0;
    if (!section)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) /* UTF-8 byte order mark */
        text += 3;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *next = eol ? eol + 1 : end;
        lineno++;
        /* inline comment: ';' after white space */
        const char *stop = end;
        for (const char *q = p + 1; q < end; q++)
            if (*q == ';' && isspace((unsigned char)q[-1])) {
                stop = q;
                break;
            }
        const char *a = p;
        while (a < stop && isspace((unsigned char)*a))
            a++;
        int indented = a > p;
        if (a == stop || *a == ';' || *a == '#') {
            p = next;
            continue;
        }
        if (*a == '[') {
            const char *close = memchr(a, ']', (size_t)(stop - a));
            if (!close) {
                rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: section header without ']'", path, lineno);
                goto done;
            }
            free(section);
            if (!(section = dup_range(a + 1, close))) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto done;
            }
            p = next;
            continue;
        }
        entry *last = es->n ? &es->items[es->n - 1] : NULL;
        if (indented && last && !strcmp(last->section, section)) {
            char *part = dup_range(a, stop), *joined = NULL;
            if (!part || asprintf(&joined, "%s %s", last->value, part) < 0) {
                free(part);
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto done;
            }
            free(part);
            free(last->value);
            last->value = joined;
            p = next;
            continue;
        }
        const char *eq = a;
        while (eq < stop && *eq != '=')
            eq++;
        if (eq == stop || eq == a) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: expected KEY = VALUE%s", path, lineno,
                            indented ? " (an indented line continues a key only after one)" : "");
            goto done;
        }
        if (es->n == es->cap) {
            int ncap = es->cap ? es->cap * 2 : 32;
            entry *ni = realloc(es->items, (size_t)ncap * sizeof *ni);
            if (!ni) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto done;
            }
            es->items = ni;
            es->cap = ncap;
        }
        entry *e = &es->items[es->n];
        memset(e, 0, sizeof *e);
        e->section = strdup(section);
        e->name = dup_range(a, eq);
        e->value = dup_range(eq + 1, stop);
        e->line = lineno;
        if (!e->section || !e->name || !e->value) {
            free(e->section);
            free(e->name);
            free(e->value);
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto done;
        }
        es->n++;
        for (int i = 0; i < es->n - 1; i++)
            if (!strcmp(es->items[i].section, e->section) && !strcmp(es->items[i].name, e->name)) {
                rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: [%s] %s given twice (first on line %d)", path, lineno,
                                e->section, e->name, es->items[i].line);
                goto done;
            }
        p = next;
    }
done:
    free(section);
    return rc;
}

int pm_spec_entries_parse(const char *text, pm_spec_entries *es, pm_err *err)
{
    memset(es, 0, sizeof *es);
    return pm_spec_ini_read(text, "preset", es, err);
}

static size_t count_keys(const char *const *k)
{
    size_t n = 0;
    while (k[n])
        n++;
    return n;
}

/* "; did you mean 'x'?" when word is close to one of cands (n of them), else "". */
const char *pm_spec_did_you_mean(char *buf, size_t len, const char *word, const char *const *cands, size_t n)
{
    const char *near = pm_util_closest(word, cands, n);
    if (!near)
        return "";
    snprintf(buf, len, "; did you mean '%s'?", near);
    return buf;
}

int pm_spec_unknown_key(const pm_spec_entry *e, const char *what, const char *const *keys, pm_err *err)
{
    char dym[96] = "";
    return pm_err_set(err, PM_ERR_USAGE, "%s: unknown key%s", what,
                      keys ? pm_spec_did_you_mean(dym, sizeof dym, e->name, keys, count_keys(keys)) : "");
}

const char *pm_spec_entry_what(pm_spec_entry *e, char *what, size_t cap)
{
    snprintf(what, cap, "line %d: [%s] %s", e->line, e->section, e->name);
    e->used = 1;
    return what;
}

static int parse_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not an integer in [%d, %d]", what, v, lo, hi);
    *out = (int)x;
    return PM_OK;
}

static int parse_bool(const char *v, int *out, pm_err *err, const char *what)
{
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on"))
        *out = 1;
    else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "off"))
        *out = 0;
    else
        return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not true/false", what, v);
    return PM_OK;
}

static int copy_str(char *dst, size_t cap, const char *v, pm_err *err, const char *what)
{
    if (strlen(v) >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "%s: value too long (max %zu)", what, cap - 1);
    memcpy(dst, v, strlen(v) + 1);
    return PM_OK;
}

int pm_spec_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what)
{
    return parse_int(v, lo, hi, out, err, what);
}

int pm_spec_bool(const char *v, int *out, pm_err *err, const char *what)
{
    return parse_bool(v, out, err, what);
}

int pm_spec_str(char *dst, size_t cap, const char *v, pm_err *err, const char *what)
{
    return copy_str(dst, cap, v, err, what);
}

int pm_spec_section_is(const char *section, const char *kind, const char **name)
{
    size_t n = strlen(kind);
    if (strncmp(section, kind, n) || (section[n] != '\0' && section[n] != ' '))
        return 0;
    if (name) {
        const char *p = section + n;
        while (*p == ' ')
            p++;
        *name = p;
    }
    return 1;
}

int pm_spec_entry_opens_section(const pm_spec_entries *es, int i)
{
    for (int j = 0; j < i; j++)
        if (!strcmp(es->items[j].section, es->items[i].section))
            return 0;
    return 1;
}
