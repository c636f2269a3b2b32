/* Sweep spec workload sections: each [KIND NAME] section's lists expanded into the config matrix (the product of
 * its lists, checked against the cap first), through the kind row's expander. */
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "util.h"

/* Splits a list value on commas and white space into items (copies owned by the list). */
typedef struct list {
    char *buf;
    char **items;
    int n, cap;
} list;

static void list_free(list *l)
{
    pm_free_all(l->buf, l->items);
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
    return e ? pm_spec_int(e->value, lo, hi, out, err, key_what(what, sizeof what, x->es, x->section, key)) : PM_OK;
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
        if ((rc = pm_spec_check_variant(x->variants.items[v], err, vwhat)))
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
                            pm_spec_did_you_mean(dym, sizeof dym, e->name, cands, nc), names);
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
