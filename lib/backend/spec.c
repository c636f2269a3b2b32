/* Sweep spec loading: ini_read reads the INI into a list of entries (with line numbers); expansion into the config matrix happens
 * afterwards so key order inside a section does not matter and every error can name its line's section. */
#include "spec.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "gen.h"
#include "meter.h"
#include "run.h"
#include "util.h"

typedef pm_spec_entry entry;
typedef pm_spec_entries entries;

void pm_spec_entries_free(pm_spec_entries *es)
{
    for (int i = 0; i < es->n; i++) {
        free(es->items[i].section);
        free(es->items[i].name);
        free(es->items[i].value);
    }
    free(es->items);
}

static void entries_free(entries *es)
{
    pm_spec_entries_free(es);
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
static int ini_read(const char *text, const char *path, entries *es, pm_err *err)
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
    return ini_read(text, "preset", es, err);
}

/* Splits a list value on commas and white space into items (copies owned by the list). */
typedef struct list {
    char *buf;
    char **items;
    int n, cap;
} list;

static void list_free(list *l)
{
    free(l->buf);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static int split_list(const char *value, list *l, pm_err *err, const char *what)
{
    list_free(l);
    if (!(l->buf = strdup(value)))
        return pm_err_set(err, PM_ERR_NOMEM, "%s: out of memory", what);
    for (char *save = NULL, *tok = strtok_r(l->buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        if (l->n == l->cap) {
            int ncap = l->cap ? l->cap * 2 : 16;
            char **ni = realloc(l->items, (size_t)ncap * sizeof *ni);
            if (!ni)
                return pm_err_set(err, PM_ERR_NOMEM, "%s: out of memory", what);
            l->items = ni;
            l->cap = ncap;
        }
        l->items[l->n++] = tok;
    }
    return PM_OK;
}

/* The keys [sweep] and [report] read (kept beside apply_sweep_scalar, which reads them),
 * for "did you mean" on a mistyped key. */
static const char *const sweep_keys[] = {"name", "backend", "repeats", "min_repeats", "max_repeats", "precision",
                                         "stop", "warm_repeats", "seed", "order", "timeout", "mem_limit", "warm", "bindir",
                                         "meter", NULL};
static const char *const report_keys[] = {"size", "workload", NULL};

static size_t count_keys(const char *const *k)
{
    size_t n = 0;
    while (k[n])
        n++;
    return n;
}

/* "; did you mean 'x'?" when word is close to one of cands (n of them), else "". */
static const char *did_you_mean(char *buf, size_t len, const char *word, const char *const *cands, size_t n)
{
    const char *near = pm_util_closest(word, cands, n);
    if (!near)
        return "";
    snprintf(buf, len, "; did you mean '%s'?", near);
    return buf;
}

/* A back end's sections text with "[KIND NAME]" written out as every kind row's section ("[embedded],
 * [llm NAME], [cnn NAME]"), so a new kind row is listed without its back ends naming it. */
static void backend_sections(const char *sections, char *out, size_t cap)
{
    const char *at = sections ? strstr(sections, "[KIND NAME]") : NULL;
    if (!at) {
        snprintf(out, cap, "%s", sections ? sections : "");
        return;
    }
    snprintf(out, cap, "%.*s", (int)(at - sections), sections);
    for (int k = 0; pm_kind_at(k); k++)
        snprintf(out + strlen(out), cap - strlen(out), "%s[%s NAME]", k ? ", " : "", pm_kind_at(k)->name);
    snprintf(out + strlen(out), cap - strlen(out), "%s", at + strlen("[KIND NAME]"));
}

/* "; did you mean [step cc]?" for a section whose first word is close to a section spec.c or the back end
 * reads (its sections text: "[matrix NAME], [step NAME], ..."), else "". */
static const char *section_did_you_mean(char *buf, size_t len, const char *section, const char *sections)
{
    char names[16][32];
    const char *cands[18] = {"sweep", "report"};
    size_t n = 2;
    for (const char *p = sections ? strchr(sections, '[') : NULL; p && n < sizeof cands / sizeof cands[0];
         p = strchr(p + 1, '[')) {
        size_t w = strcspn(p + 1, " ]");
        if (w && w < sizeof names[0]) {
            snprintf(names[n - 2], sizeof names[0], "%.*s", (int)w, p + 1);
            cands[n] = names[n - 2];
            n++;
        }
    }
    size_t w = strcspn(section, " ");
    char word[64];
    if (w >= sizeof word)
        return "";
    snprintf(word, sizeof word, "%.*s", (int)w, section);
    const char *near = pm_util_closest(word, cands, n);
    if (!near || !strcmp(near, word))
        return "";
    snprintf(buf, len, "; did you mean [%s%s]?", near, section + w);
    return buf;
}

int pm_spec_unknown_key(const pm_spec_entry *e, const char *what, const char *const *keys, pm_err *err)
{
    char dym[96] = "";
    return pm_err_set(err, PM_ERR_USAGE, "%s: unknown key%s", what,
                      keys ? did_you_mean(dym, sizeof dym, e->name, keys, count_keys(keys)) : "");
}

static int unknown_scalar(const entry *e, const char *what, pm_err *err)
{
    return pm_spec_unknown_key(e, what, !strcmp(e->section, "sweep") ? sweep_keys : report_keys, err);
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

/* Every '+'-joined token of a variant is one the back ends know; what a token does is the back end's that
 * runs it (pm_spec_variant_has, pm_spec_variant_tile). */
static int check_variant(const char *v, pm_err *err, const char *what)
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
            if (parse_int(t + 5, 1, 1 << 16, &tile, err, tw))
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
    for (size_t i = 0; i < c->n_params; i++)
        free(c->paths[i]);
    free(c->paths);
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

static int check_unique_keys(const pm_spec *s, pm_err *err)
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

/* The parameters of a workload config (the shared config model): its kind row's axes from the workload
 * (pm_workload_axis names the fields), then the back end's pipeline keys (the embedded pipeline's tile, unroll). */
static int workload_params(pm_spec_config *c, const pm_workload *w, const pm_spec_pipe *pipe, const int *vals,
                           pm_err *err)
{
    const pm_kind *k = pm_kind_find(c->kind);
    char axes[256], num[32];
    snprintf(axes, sizeof axes, "%s", k ? k->axes : "");
    int rc = PM_OK;
    for (char *save = NULL, *t = strtok_r(axes, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        const char *v = pm_workload_axis(w, t, num, sizeof num);
        if (!v) {   /* a row naming an axis pm_workload has no field for: the row and kinds.c's field map disagree */
            rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "kind %s: no model field for axis '%s'", c->kind, t);
            pm_spec_config_clear(c);
            return rc;
        }
        rc = pm_spec_config_param(c, t, v, NULL);
    }
    for (int i = 0; i < pipe->n && !rc; i++) {
        snprintf(num, sizeof num, "%d", vals[i]);
        rc = pm_spec_config_param(c, pipe->keys[i].key, num, NULL);
    }
    if (rc) {
        pm_spec_config_clear(c);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    return PM_OK;
}

static int add_config(pm_spec *s, pm_spec_config *c, const pm_workload *w, const char *key, const char *kind,
                      const char *variant, const pm_spec_pipe *pipe, const int *vals, pm_err *err)
{
    if (pm_cfg_set(&c->cfg, key, kind, variant)) {
        pm_spec_config_clear(c);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    int rc = workload_params(c, w, pipe, vals, err);
    return rc ? rc : pm_spec_add_config(s, c, err);
}

int pm_spec_check_configs(const pm_spec *s, const char *section, const size_t *list_lens, int n_lists, pm_err *err)
{
    long long product = 1, room = PM_SPEC_MAX_CONFIGS - s->n_configs;
    int over = 0; /* the product does not even fit in 64 bits */
    for (int i = 0; i < n_lists && !over; i++)
        over = __builtin_mul_overflow(product, (long long)list_lens[i], &product);
    if (over)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] makes more than 9e18 configs: over the limit of %d configs per spec",
                          section, PM_SPEC_MAX_CONFIGS);
    if (product > room)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] makes %lld configs, %d already planned: over the limit of %d "
                          "configs per spec", section, product, s->n_configs, PM_SPEC_MAX_CONFIGS);
    return PM_OK;
}

/* "line N: [SECTION] KEY" for an error about one value of a list key (0 lines: the key is absent). */
static const char *key_what(char *buf, size_t n, entries *es, const char *section, const char *key)
{
    int line = 0;
    for (int i = 0; i < es->n && !line; i++)
        if (!strcmp(es->items[i].section, section) && !strcmp(es->items[i].name, key))
            line = es->items[i].line;
    if (line)
        snprintf(buf, n, "line %d: [%s] %s", line, section, key);
    else
        snprintf(buf, n, "[%s] %s", section, key);
    return buf;
}

/* Configs one matrix section adds (the product of its lists), checked against the cap before any is made. */
static int check_matrix_size(const pm_spec *s, const char *section, long long product, pm_err *err)
{
    size_t len = product > 0 ? (size_t)product : 0;
    return pm_spec_check_configs(s, section, &len, 1, err);
}

/* One [KIND NAME] section being expanded: what its kind row's reader sees, and what the spec adds around each
 * workload (the section's variants and pipeline). */
typedef struct section_ctx {
    pm_spec *s;
    const pm_spec_pipe *pipe;
    entries *es;
    const char *section;
    const pm_kind *kind;
    list lists[8];      /* the lists the row asked for, kept until the section is done */
    int n_lists;
    list variants;
    int pipe_vals[PM_SPEC_PIPE_MAX];   /* the section's values of the pipeline keys */
} section_ctx;

static const entry *section_entry(const section_ctx *x, const char *key)
{
    for (int i = 0; i < x->es->n; i++)
        if (!strcmp(x->es->items[i].section, x->section) && !strcmp(x->es->items[i].name, key))
            return &x->es->items[i];
    return NULL;
}

static const char *const *reader_list(void *user, const char *key, int *n, char *what, size_t cap)
{
    section_ctx *x = user;
    key_what(what, cap, x->es, x->section, key);
    const entry *e = section_entry(x, key);
    *n = 0;
    if (!e)
        return NULL;
    pm_err err = {0};
    if (x->n_lists == (int)(sizeof x->lists / sizeof x->lists[0]) ||
        split_list(e->value, &x->lists[x->n_lists], &err, what)) {
        *n = -1;
        return NULL;
    }
    list *l = &x->lists[x->n_lists++];
    *n = l->n;
    return (const char *const *)l->items;
}

static int reader_number(void *user, const char *key, int lo, int hi, int def, int *out, pm_err *err)
{
    section_ctx *x = user;
    const entry *e = section_entry(x, key);
    char what[192];
    *out = def;
    return e ? parse_int(e->value, lo, hi, out, err, key_what(what, sizeof what, x->es, x->section, key)) : PM_OK;
}

static int reader_check_size(void *user, long long product, pm_err *err)
{
    section_ctx *x = user;
    return check_matrix_size(x->s, x->section, product * x->variants.n, err);
}

/* A workload of the section, once per variant: its key (STEM[/<tag><value>...]/VARIANT: the pipeline's part
 * when a value differs from the back end's default, "/T512U16") and its parameters, the model fields among them
 * (add_config). */
static int reader_add(void *user, const pm_workload *w, const char *stem, pm_err *err)
{
    section_ctx *x = user;
    char vwhat[192], pipe[32 * PM_SPEC_PIPE_MAX] = "";
    key_what(vwhat, sizeof vwhat, x->es, x->section, "variants");
    int differs = 0;
    for (int i = 0; i < x->pipe->n; i++)
        differs |= x->pipe_vals[i] != x->pipe->keys[i].def;
    for (int i = 0; differs && i < x->pipe->n; i++)
        snprintf(pipe + strlen(pipe), sizeof pipe - strlen(pipe), "%s%s%d", i ? "" : "/", x->pipe->keys[i].tag,
                 x->pipe_vals[i]);
    for (int v = 0; v < x->variants.n; v++) {
        pm_spec_config c = {0};
        int rc;
        if ((rc = check_variant(x->variants.items[v], err, vwhat)))
            return rc;
        char key[PM_SPEC_KEY_MAX];
        snprintf(key, sizeof key, "%s%s/%s", stem, pipe, x->variants.items[v]);
        if ((rc = add_config(x->s, &c, w, key, x->kind->name, x->variants.items[v], x->pipe, x->pipe_vals, err)))
            return rc;
    }
    return PM_OK;
}

/* The section's keys must be ones its row lists or the back end's pipeline keys (a mistyped one: "did you
 * mean"); variants (default stock) and the pipeline keys are the spec's; the rest the row's expand reads. */
static int expand_section(pm_spec *s, const pm_kind *k, const pm_spec_pipe *pipe, entries *es, const char *section,
                          pm_err *err)
{
    section_ctx x = {.s = s, .pipe = pipe, .es = es, .section = section, .kind = k};
    char keys[256], names[256] = "", dym[96] = "";
    const char *cands[16];
    size_t nc = 0;
    snprintf(keys, sizeof keys, "%s", k->section_keys);
    for (char *save = NULL, *t = strtok_r(keys, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nc ? ", " : "", t);
        if (nc < sizeof cands / sizeof cands[0])
            cands[nc++] = t;
    }
    for (int i = 0; i < pipe->n; i++) {
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nc ? ", " : "", pipe->keys[i].key);
        if (nc < sizeof cands / sizeof cands[0])
            cands[nc++] = pipe->keys[i].key;
    }
    int rc = PM_OK;
    for (int i = 0; i < es->n && !rc; i++) {
        entry *e = &es->items[i];
        if (strcmp(e->section, section))
            continue;
        e->used = 1;
        int known = pm_kind_list_has(k->section_keys, e->name);
        for (int j = 0; j < pipe->n && !known; j++)
            known = !strcmp(e->name, pipe->keys[j].key);
        if (!known)
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: unknown key '%s'%s (%s)", e->line, section, e->name,
                            did_you_mean(dym, sizeof dym, e->name, cands, nc), names);
    }
    const entry *ve = section_entry(&x, "variants");
    if (!rc)
        rc = split_list(ve ? ve->value : "stock", &x.variants, err, "variants");
    for (int i = 0; i < pipe->n && !rc; i++)
        rc = reader_number(&x, pipe->keys[i].key, pipe->keys[i].lo, pipe->keys[i].hi, pipe->keys[i].def,
                           &x.pipe_vals[i], err);
    pm_kind_reader r = {.section = section, .user = &x, .list = reader_list, .number = reader_number,
                        .check_size = reader_check_size, .add = reader_add};
    if (!rc)
        rc = k->expand(&r, err);
    for (int i = 0; i < x.n_lists; i++)
        list_free(&x.lists[i]);
    list_free(&x.variants);
    return rc;
}

/* [sweep] and [report]: read here, whatever the back end. */
static int apply_sweep_scalar(pm_spec *s, entry *e, pm_err *err)
{
    char what[160];
    snprintf(what, sizeof what, "line %d: [%s] %s", e->line, e->section, e->name);
    const char *n = e->name, *v = e->value;
    e->used = 1;
    if (!strcmp(e->section, "sweep")) {
        if (!strcmp(n, "name")) {
            /* the name becomes NAME.db and NAME.db.runs/: a path in it would write elsewhere */
            if (!*v || strchr(v, '/') || strstr(v, "..") || *v == '.' || *v == '-')
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not a plain name (no '/', no '..', not starting "
                                  "with '.' or '-')", what, v);
            for (const char *q = v; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    return pm_err_set(err, PM_ERR_USAGE, "%s: control character in the name", what);
            return copy_str(s->name, sizeof s->name, v, err, what);
        }
        if (!strcmp(n, "backend")) {
            if (!pm_backend_find(v))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (%s)", what, v, pm_backend_names());
            return copy_str(s->backend, sizeof s->backend, v, err, what);
        }
        if (!strcmp(n, "repeats")) {
            s->repeats_auto = !strcmp(v, "auto");
            return s->repeats_auto ? PM_OK : parse_int(v, 1, 1000, &s->repeats, err, what);
        }
        if (!strcmp(n, "min_repeats")) return parse_int(v, 1, 1000, &s->min_repeats, err, what);
        if (!strcmp(n, "max_repeats")) return parse_int(v, 1, 1000, &s->max_repeats, err, what);
        if (!strcmp(n, "precision")) {   /* "3%" or "0.03" */
            char *end;
            double x = strtod(v, &end);
            if (end != v && *end == '%' && !end[1])
                x /= 100, end++;
            if (end == v || *end || !(x > 0 && x < 1))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (a fraction or percentage in (0, 100%%), e.g. 3%%)",
                                  what, v);
            s->precision = x;
            return PM_OK;
        }
        if (!strcmp(n, "stop")) {   /* what settles a config under repeats = auto (docs/statistics.md) */
            if (strcmp(v, "answer") && strcmp(v, "precision"))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (answer: its dominant stage known or the precision "
                                  "met; precision: the precision only)", what, v);
            s->stop_on_precision = !strcmp(v, "precision");
            return PM_OK;
        }
        if (!strcmp(n, "warm_repeats")) return parse_int(v, 1, 1000, &s->warm_repeats, err, what);
        if (!strcmp(n, "seed")) {
            int seed;
            int rc = parse_int(v, 0, 1 << 30, &seed, err, what);
            s->seed = (unsigned)seed;
            return rc;
        }
        if (!strcmp(n, "order")) {
            if (strcmp(v, "interleaved") && strcmp(v, "sequential"))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (interleaved, sequential)", what, v);
            s->interleaved = !strcmp(v, "interleaved");
            return PM_OK;
        }
        if (!strcmp(n, "timeout")) {
            if (pm_run_parse_duration(v, &s->timeout_s, err))
                return pm_err_wrap(err, "%s", what);
            /* the runner reads 0 as "no limit": a step or [check] that hangs would hold the sweep forever */
            if (!(s->timeout_s > 0))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' must be more than 0 (passmap runs no process "
                                  "without a time limit; write e.g. 24h for a long one)", what, v);
            return PM_OK;
        }
        if (!strcmp(n, "mem_limit")) return pm_run_parse_size(v, &s->mem_limit, err) ? pm_err_wrap(err, "%s", what) : PM_OK;
        if (!strcmp(n, "warm")) return parse_bool(v, &s->warm, err, what);
        if (!strcmp(n, "bindir")) return copy_str(s->sweep_bindir, sizeof s->sweep_bindir, v, err, what);
        if (!strcmp(n, "meter")) {   /* a row of the meter table (meter.h), or auto; usable here or not: the sweep asks */
            if (strcmp(v, "auto") && !pm_meter_find(v))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (%s)", what, v, pm_meter_names());
            return copy_str(s->meter, sizeof s->meter, v, err, what);
        }
    } else if (!strcmp(e->section, "report")) {
        if (!strcmp(n, "size")) return copy_str(s->report_size, sizeof s->report_size, v, err, what);
        if (!strcmp(n, "workload")) return copy_str(s->report_workload, sizeof s->report_workload, v, err, what);
    }
    return unknown_scalar(e, what, err);
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

int pm_spec_parse_workloads(pm_spec *s, entries *es, const pm_spec_pipe *pipe, pm_err *err)
{
    int rc = PM_OK;
    if (pipe->n < 0 || pipe->n > PM_SPEC_PIPE_MAX)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "%d pipeline keys: at most %d", pipe->n, PM_SPEC_PIPE_MAX);
    for (int i = 0; i < es->n; i++) {
        const char *sec = es->items[i].section;
        if (!pm_spec_entry_opens_section(es, i))
            continue;
        /* each workload kind's row expands its own section */
        for (int k = 0; pm_kind_at(k) && !rc; k++)
            if (pm_kind_at(k)->expand && pm_spec_section_is(sec, pm_kind_at(k)->name, NULL))
                rc = expand_section(s, pm_kind_at(k), pipe, es, sec, err);
        if (rc)
            return rc;
    }
    if (s->n_configs == 0) {   /* "add an [llm NAME] or [cnn NAME] section": the kind table's sections */
        char secs[256] = "";
        for (int k = 0; pm_kind_at(k); k++)
            snprintf(secs + strlen(secs), sizeof secs - strlen(secs), "%s[%s NAME]", !k ? "" : pm_kind_at(k + 1) ?
                     ", " : " or ", pm_kind_at(k)->name);
        return pm_err_set(err, PM_ERR_USAGE, "no configs: add an %s section", secs);
    }
    return PM_OK;
}

/* A section the spec itself ([sweep], [report]) or the back end reads: its first word is one of theirs. */
static int section_read(const char *section, const char *sections)
{
    size_t w = strcspn(section, " ");
    if ((w == 5 && !strncmp(section, "sweep", 5)) || (w == 6 && !strncmp(section, "report", 6)))
        return 1;
    for (const char *p = sections ? strchr(sections, '[') : NULL; p; p = strchr(p + 1, '['))
        if (strcspn(p + 1, " ]") == w && !strncmp(p + 1, section, w))
            return 1;
    return 0;
}

/* Unknown sections first, with their line: a misspelt [swep] or [matrx c] is the mistake to name, not the
 * "name is required" or "no configs" it causes. Here a section no back end reads; one another back end reads
 * (an [openvino] section in an embedded spec) is left to the back end's own check after parsing. */
static int check_sections(const entries *es, const char *backend, pm_err *err)
{
    const char *name = backend;
    for (int i = 0; !name && i < es->n; i++)
        if (!strcmp(es->items[i].section, "sweep") && !strcmp(es->items[i].name, "backend"))
            name = es->items[i].value;
    const pm_backend_ops *be = pm_backend_find(name ? name : "embedded");
    if (!be)
        return PM_OK;   /* an unknown back end: the check that names the back ends says so */
    char all[1024] = "", one[512], dym[160] = "";
    const char *names = pm_backend_names();
    for (const char *p = names; *p;) {   /* every back end's sections, for "known" and the near match */
        size_t w = strcspn(p, ", ");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)(w < sizeof nm ? w : sizeof nm - 1), p);
        const pm_backend_ops *b = pm_backend_find(nm);
        if (b) {
            backend_sections(b->sections, one, sizeof one);
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? ", " : "", one);
        }
        p += w;
        p += strspn(p, ", ");
    }
    for (int i = 0; i < es->n; i++)
        if (!section_read(es->items[i].section, all)) {
            backend_sections(be->sections, one, sizeof one);
            /* the near match among this back end's sections first ([swep]: [sweep], not command's [step]) */
            if (!*section_did_you_mean(dym, sizeof dym, es->items[i].section, one))
                section_did_you_mean(dym, sizeof dym, es->items[i].section, all);
            return pm_err_set(err, PM_ERR_USAGE, "line %d: section [%s] is read by no back end%s (back end %s reads %s)",
                              es->items[i].line, es->items[i].section, dym, be->name, one);
        }
    return PM_OK;
}

int pm_spec_parse_as(const char *text, const char *path, const char *backend, pm_spec **out, pm_err *err)
{
    int rc = PM_OK;
    entries es = {0};
    pm_spec *s = calloc(1, sizeof *s);
    if (!s)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (snprintf(s->path, sizeof s->path, "%s", path ? path : "") >= (int)sizeof s->path) {
        rc = pm_err_set(err, PM_ERR_USAGE, "spec path longer than %zu bytes: %.80s...", sizeof s->path - 1, path);
        goto cleanup;
    }
    {
        /* {spec_dir}: relative paths in a spec are relative to the spec file, not to the caller's cwd */
        char buf[4096];
        const char *slash = path ? strrchr(path, '/') : NULL;
        snprintf(buf, sizeof buf, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");   /* < s->path */
        if (!buf[0])
            snprintf(buf, sizeof buf, "%s", "/");
        char *abs = realpath(buf, NULL);
        int n = snprintf(s->dir, sizeof s->dir, "%s", abs ? abs : buf);
        free(abs);
        if (n < 0 || (size_t)n >= sizeof s->dir) {
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: folder path too long", path);
            goto cleanup;
        }
    }
    s->repeats = 3;
    s->min_repeats = 3;
    s->max_repeats = 10;
    s->precision = 0.03;
    s->interleaved = 1;
    s->seed = 1;
    s->timeout_s = 600;
    s->mem_limit = 16ULL << 30;
    s->warm_repeats = 3;
    snprintf(s->backend, sizeof s->backend, "%s", "embedded");
    if (!(s->text = strdup(text))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = ini_read(text, path ? path : "spec", &es, err)))
        goto cleanup;
    if ((rc = check_sections(&es, backend, err)))
        goto fail;
    for (int i = 0; i < es.n; i++) {
        if (strcmp(es.items[i].section, "sweep") && strcmp(es.items[i].section, "report"))
            continue;
        if ((rc = apply_sweep_scalar(s, &es.items[i], err)))
            goto fail;
    }
    if (!s->name[0]) {
        rc = pm_err_set(err, PM_ERR_USAGE, "[sweep] name is required");
        goto fail;
    }
    if (backend && (!pm_backend_find(backend) || snprintf(s->backend, sizeof s->backend, "%s", backend) < 0)) {
        rc = pm_err_set(err, PM_ERR_USAGE, "back end '%s' (%s)", backend, pm_backend_names());
        goto fail;
    }
    const pm_backend_ops *be = pm_backend_find(s->backend);
    if ((rc = be->parse_spec(s, &es, err)) || (rc = check_unique_keys(s, err)))
        goto fail;
    for (int i = 0; i < es.n; i++) {
        const entry *e = &es.items[i];
        if (e->used)
            continue;
        int known = 0;
        for (int j = 0; j < es.n; j++)
            if (es.items[j].used && !strcmp(es.items[j].section, e->section))
                known = 1;
        if (known) {   /* the section's keys this spec used are keys the back end reads: suggest among them */
            const char **cands = calloc((size_t)es.n, sizeof *cands);
            size_t nc = 0;
            char dym[96] = "";
            for (int j = 0; cands && j < es.n; j++)
                if (es.items[j].used && !strcmp(es.items[j].section, e->section))
                    cands[nc++] = es.items[j].name;
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: unknown key '%s'%s", e->line, e->section, e->name,
                            cands ? did_you_mean(dym, sizeof dym, e->name, cands, nc) : "");
            free(cands);
        }
        else {
            char dym[160] = "", secs[512];
            backend_sections(be->sections, secs, sizeof secs);
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: section [%s] is not read by back end %s%s (%s)", e->line,
                            e->section, be->name, section_did_you_mean(dym, sizeof dym, e->section, secs), secs);
        }
        goto fail;
    }
    /* the adaptive rule's settings without the rule would be read as doing something */
    for (int i = 0; i < es.n && !s->repeats_auto; i++) {
        const pm_spec_entry *e = &es.items[i];
        if (!strcmp(e->section, "sweep") && (!strcmp(e->name, "min_repeats") || !strcmp(e->name, "max_repeats") ||
                                             !strcmp(e->name, "precision") || !strcmp(e->name, "stop"))) {
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [sweep] %s applies only with repeats = auto (repeats is %d "
                            "here)", e->line, e->name, s->repeats);
            goto fail;
        }
    }
    if (s->min_repeats > s->max_repeats) {
        rc = pm_err_set(err, PM_ERR_USAGE, "[sweep] min_repeats %d exceeds max_repeats %d", s->min_repeats,
                        s->max_repeats);
        goto fail;
    }
    if (s->repeats_auto)
        s->repeats = s->min_repeats;   /* the first round; later rounds only for the configs not settled */
    goto cleanup;
fail:
    pm_err_wrap(err, "%s", path);
cleanup:
    entries_free(&es);
    if (rc) {
        pm_spec_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int pm_spec_parse(const char *text, const char *path, pm_spec **out, pm_err *err)
{
    return pm_spec_parse_as(text, path, NULL, out, err);
}

int pm_spec_load_as(const char *path, const char *backend, pm_spec **out, pm_err *err)
{
    *out = NULL;
    char *text;
    size_t len;
    int rc = pm_util_read_file_max(path, PM_SPEC_MAX_BYTES, &text, &len, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "spec");
    if (memchr(text, '\0', len))
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: binary data in spec", path);
    else
        rc = pm_spec_parse_as(text, path, backend, out, err);
    free(text);
    return rc;
}

int pm_spec_load(const char *path, pm_spec **out, pm_err *err)
{
    return pm_spec_load_as(path, NULL, out, err);
}

void pm_spec_free(pm_spec *spec)
{
    if (!spec)
        return;
    for (int i = 0; i < spec->n_configs; i++)
        pm_spec_config_clear(&spec->configs[i]);
    free(spec->configs);
    if (spec->backend_free)
        spec->backend_free(spec->backend_data);
    free(spec->text);
    free(spec);
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
