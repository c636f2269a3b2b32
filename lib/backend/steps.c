/* Step templates: parsing [step NAME] sections and expanding them per run (see steps.h). */
#include "steps.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of a placeholder at p ("{name}"), 0 when p does not start one. */
static size_t placeholder_at(const char *p, char *name, size_t cap)
{
    if (p[0] != '{' || !(isalpha((unsigned char)p[1]) || p[1] == '_'))
        return 0;
    size_t k = 1;
    while (isalnum((unsigned char)p[k]) || p[k] == '_')
        k++;
    if (p[k] != '}' || k - 1 >= cap)
        return 0;
    memcpy(name, p + 1, k - 1);
    name[k - 1] = '\0';
    return k + 1;
}

int pm_placeholders_each(const char *tmpl, int (*fn)(const char *name, void *user), void *user)
{
    char name[128];
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            p++;
            continue;
        }
        size_t n = placeholder_at(p, name, sizeof name);
        if (n) {
            int r = fn(name, user);
            if (r)
                return r;
            p += n - 1;
        }
    }
    return 0;
}

int pm_subst(const char *tmpl, pm_placeholder_fn value, void *user, char **out, pm_err *err)
{
    size_t cap = strlen(tmpl) + 64, len = 0;
    char *buf = malloc(cap), name[128];
    if (!buf)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (const char *p = tmpl; *p;) {
        const char *rep = NULL;
        size_t skip = 1, rl = 1;
        size_t n = placeholder_at(p, name, sizeof name);
        if (p[0] == '{' && p[1] == '{') {
            rep = "{", skip = 2;
        } else if (n) {
            if (!(rep = value(name, user))) {
                free(buf);
                return pm_err_set(err, PM_ERR_USAGE, "unknown placeholder {%s}", name);
            }
            skip = n;
        } else {
            rep = p;
        }
        rl = rep == p ? 1 : strlen(rep);
        if (len + rl + 1 > cap) {
            cap = (len + rl + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            }
            buf = nb;
        }
        memcpy(buf + len, rep, rl);
        len += rl;
        p += skip;
    }
    buf[len] = '\0';
    *out = buf;
    return PM_OK;
}

void pm_step_tmpls_free(pm_step_tmpls *t)
{
    for (int i = 0; t && i < t->n; i++) {
        pm_step_tmpl *s = &t->items[i];
        free(s->name);
        pm_argv_free(s->argv);
        free(s->report);
        pm_argv_free(s->outputs);
        pm_argv_free(s->inputs);
        free(s->tool);
        for (int k = 0; k < s->n_metrics; k++)
            pm_step_metric_free(&s->metrics[k]);
        free(s->metrics);
        pm_argv_free(s->null_argv);
        pm_argv_free(s->timing_flag);
    }
    if (t) {
        free(t->items);
        t->items = NULL;
        t->n = 0;
    }
}

typedef struct check_ctx {
    pm_placeholder_known_fn known;
    void *user;
    char why[256];
    char bad[128];
} check_ctx;

static int check_one(const char *name, void *user)
{
    check_ctx *c = user;
    c->why[0] = '\0';
    if (c->known(name, c->user, c->why, sizeof c->why))
        return 0;
    snprintf(c->bad, sizeof c->bad, "%s", name);
    return 1;
}

static int check_tmpl(check_ctx *c, const char *tmpl, const char *path, const pm_spec_entry *e, pm_err *err)
{
    /* Literal braces stay literal (MLIR pass options: tile{size=4}), but three shapes are typos that would
     * reach the command as literal words: {NAME with no '}' before the word ends, an empty {}, and {{NAME}}
     * (the literal "{NAME}}": {{ is a literal '{'). */
    char name[128];
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            if (placeholder_at(p + 1, name, sizeof name) && p[1 + strlen(name) + 2] == '}')
                return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: {{%s}} is not a placeholder (write {%s}; {{ "
                                  "is a literal '{')", e->line, e->section, e->name, name, name);
            p++;
            continue;
        }
        if (p[0] != '{' || placeholder_at(p, name, sizeof name))
            continue;
        size_t k = 1;
        while (isalnum((unsigned char)p[k]) || p[k] == '_')
            k++;
        if (p[1] == '}' || (k > 1 && (!p[k] || isspace((unsigned char)p[k]) || p[k] == '\'' || p[k] == '"')))
            return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: '%.*s' is not a placeholder {NAME} (write {{ for "
                              "a literal '{')", e->line, e->section, e->name, p[1] == '}' ? 2 : (int)k, p);
    }
    if (pm_placeholders_each(tmpl, check_one, c))
        return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: unknown placeholder {%s}%s%s", e->line,
                          e->section, e->name, c->bad, c->why[0] ? ": " : "", c->why);
    return PM_OK;
}

static int is_argv_word(char **argv, const char *word)
{
    for (char **w = argv; w && *w; w++)
        if (!strcmp(*w, word))
            return 1;
    return 0;
}

static int parse_one(pm_spec_entries *es, const char *section, const char *path, check_ctx *cc, pm_step_tmpl *t,
                     pm_err *err)
{
    int rc = PM_OK;
    t->format = PM_FMT_AUTO;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        pm_spec_entry *e = &es->items[i];
        if (strcmp(e->section, section))
            continue;
        e->used = 1;
        if (!t->line)
            t->line = e->line;
        const char *n = e->name, *v = e->value;
        if (!strcmp(n, "argv") || !strcmp(n, "outputs") || !strcmp(n, "inputs") || !strcmp(n, "null_argv") ||
            !strcmp(n, "timing_flag")) {
            char ***dst = !strcmp(n, "argv") ? &t->argv
                : !strcmp(n, "outputs")      ? &t->outputs
                : !strcmp(n, "inputs")       ? &t->inputs
                : !strcmp(n, "timing_flag")  ? &t->timing_flag
                                             : &t->null_argv;
            if (dst == &t->null_argv)
                t->null_line = e->line;
            pm_argv_free(*dst);
            if ((rc = pm_split_words(v, dst, err))) {
                pm_err_wrap(err, "line %d: [%s] %s", e->line, section, n);
                break;
            }
            for (char **w = *dst; *w && rc == PM_OK; w++)
                rc = check_tmpl(cc, *w, path, e, err);
            if (rc == PM_OK && (!strcmp(n, "argv") || !strcmp(n, "null_argv") || !strcmp(n, "timing_flag")) &&
                !(*dst)[0])
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s is empty", e->line, section, n);
        } else if (!strcmp(n, "report")) {
            free(t->report);
            if (!(t->report = strdup(v)))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            else if (!*v)
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] report is empty (stderr, stdout or a file)",
                                e->line, section);
            else
                rc = check_tmpl(cc, v, path, e, err);
        } else if (!strcmp(n, "format")) {
            if (!strcmp(v, "auto"))
                t->format = PM_FMT_AUTO;
            else if ((t->format = pm_format_from_name(v)) == PM_FMT__COUNT)
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] format: unknown parser '%s'", e->line, section,
                                v);
        } else if (!strcmp(n, "tool")) {
            free(t->tool);
            if (!(t->tool = strdup(v)))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            else if (!*v || strchr(v, '/'))
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] tool: '%s' is not a label", e->line, section, v);
        } else if (!strncmp(n, "ir.", 3) && n[3]) {
            pm_step_metric m;
            pm_step_metric *nm = realloc(t->metrics, (size_t)(t->n_metrics + 1) * sizeof *nm);
            if (!nm) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            t->metrics = nm;
            if ((rc = pm_step_metric_parse(v, &m, err))) {
                pm_err_wrap(err, "line %d: [%s] %s", e->line, section, n);
                break;
            }
            if (!(m.name = strdup(n))) {
                pm_step_metric_free(&m);
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            t->metrics[t->n_metrics++] = m;
            if ((rc = check_tmpl(cc, m.source, path, e, err)) == PM_OK && m.arg)
                rc = check_tmpl(cc, m.arg, path, e, err);
        } else {
            static const char *const keys[] = {"argv",   "report", "format",    "outputs",
                                               "inputs", "tool",   "null_argv", "timing_flag"};
            const char *near = pm_util_closest(n, keys, sizeof keys / sizeof keys[0]);
            rc = pm_err_set(err, PM_ERR_USAGE,
                            "line %d: [%s]: unknown key '%s'%s%s%s (argv, report, format, outputs, inputs, tool, "
                            "ir.NAME, null_argv, timing_flag)",
                            e->line, section, n, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
    }
    if (rc == PM_OK && !t->argv)
        rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] has no argv", t->line, section);
    for (char **f = t->timing_flag; rc == PM_OK && f && *f; f++)
        if (!is_argv_word(t->argv, *f))
            rc = pm_err_set(err, PM_ERR_USAGE,
                            "line %d: [%s] timing_flag: '%s' is not one of argv's words (the run "
                            "without it leaves out argv's words as written)",
                            t->line, section, *f);
    return rc;
}

int pm_step_tmpls_parse(pm_spec_entries *es, const char *path, pm_placeholder_known_fn known, void *user,
                        pm_step_tmpls *out, pm_err *err)
{
    check_ctx cc = {.known = known, .user = user};
    out->items = NULL;
    out->n = 0;
    int rc = PM_OK;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        const char *sec = es->items[i].section, *name;
        if (!pm_spec_section_is(sec, "step", &name))
            continue;
        if (!pm_spec_entry_opens_section(es, i))
            continue;
        if (!*name) {
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [step] needs a name: [step NAME]", es->items[i].line);
            break;
        }
        pm_step_tmpl *ni = realloc(out->items, (size_t)(out->n + 1) * sizeof *ni);
        if (!ni) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        out->items = ni;
        pm_step_tmpl *t = &ni[out->n++];
        memset(t, 0, sizeof *t);
        if (!(t->name = strdup(name)))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else
            rc = parse_one(es, sec, path, &cc, t, err);
    }
    if (rc)
        pm_step_tmpls_free(out);
    return rc;
}

static char *abs_in(const char *cwd, const char *p)
{
    char *s = NULL;
    if (p[0] == '/' || !cwd)
        return strdup(p);
    return asprintf(&s, "%s/%s", cwd, p) < 0 ? NULL : s;
}

static int expand_list(char **tmpl, pm_placeholder_fn value, void *user, const char *cwd, char ***out, pm_err *err)
{
    for (char **w = tmpl; w && *w; w++) {
        char *s = NULL, *a = NULL;
        int rc = pm_subst(*w, value, user, &s, err);
        if (rc)
            return rc;
        if (!(a = abs_in(cwd, s)) || pm_argv_push(out, a)) {
            free(s);
            free(a);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        free(s);
        free(a);
    }
    return PM_OK;
}

static int expand_one(const pm_step_tmpl *t, pm_placeholder_fn value, void *user, const char *cwd, pm_step *st,
                      pm_err *err)
{
    int rc;
    char name[128];
    st->argv = calloc(1, sizeof *st->argv);
    if (!st->argv || !(st->cwd = strdup(cwd)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (char **w = t->argv; *w; w++) {
        char *s = NULL;
        if ((rc = pm_subst(*w, value, user, &s, err)))
            return rc;
        /* a word that is one placeholder with an empty value is an optional flag left out */
        int drop = !*s && placeholder_at(*w, name, sizeof name) == strlen(*w);
        rc = drop ? PM_OK : pm_argv_push(&st->argv, s);
        if (!rc && t->timing_flag && !st->plain_argv && !(st->plain_argv = calloc(1, sizeof *st->plain_argv)))
            rc = PM_ERR_NOMEM;
        if (!rc && !drop && t->timing_flag && !is_argv_word(t->timing_flag, *w))
            rc = pm_argv_push(&st->plain_argv, s);
        free(s);
        if (rc)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (!st->argv[0])
        return pm_err_set(err, PM_ERR_USAGE, "[step %s]: argv is empty after substitution", t->name);
    char label[256];
    if (!t->tool && pm_tool_label(st->argv[0], label, sizeof label))
        return pm_err_set(err, PM_ERR_USAGE, "[step %s]: program name longer than %zu characters: set tool = LABEL",
                          t->name, sizeof label - 1);
    if (!(st->tool = strdup(t->tool ? t->tool : label)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    st->report_stream = PM_STREAM_STDERR;
    st->report_format = t->format;
    if (t->report && !strcmp(t->report, "stdout")) {
        st->report_stream = PM_STREAM_STDOUT;
    } else if (t->report && strcmp(t->report, "stderr")) {
        char *s = NULL;
        if ((rc = pm_subst(t->report, value, user, &s, err)))
            return rc;
        st->report_stream = PM_STREAM_NONE;
        st->report_path = abs_in(cwd, s);
        free(s);
        if (!st->report_path)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    char **outs = NULL, **ins = NULL;
    if ((rc = expand_list(t->outputs, value, user, cwd, &outs, err)) ||
        (rc = expand_list(t->inputs, value, user, cwd, &ins, err))) {
        pm_argv_free(outs);
        pm_argv_free(ins);
        return rc;
    }
    if (outs && outs[0]) {
        st->output = outs[0];
        if (outs[1]) {
            st->more_outputs = pm_argv_new(outs[1], (char *)NULL);
            for (char **o = outs + 2; st->more_outputs && *o; o++)
                if (pm_argv_push(&st->more_outputs, *o))
                    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            for (char **o = outs + 1; *o; o++)
                free(*o);
        }
        free(outs);
    } else {
        pm_argv_free(outs);
    }
    if (ins && ins[0]) {
        st->input = ins[0];
        for (char **o = ins + 1; *o; o++)
            free(*o);
        free(ins);
    } else {
        pm_argv_free(ins);
    }
    if (t->n_metrics && !(st->metrics = calloc((size_t)t->n_metrics, sizeof *st->metrics)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < t->n_metrics; k++) {
        pm_step_metric *m = &st->metrics[st->n_metrics++];
        const pm_step_metric *tm = &t->metrics[k];
        m->kind = tm->kind;
        if (!(m->name = strdup(tm->name)))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        if ((rc = pm_subst(tm->source, value, user, &m->source, err)) ||
            (tm->arg && (rc = pm_subst(tm->arg, value, user, &m->arg, err))))
            return rc;
    }
    return PM_OK;
}

int pm_step_tmpls_expand(const pm_step_tmpls *t, pm_placeholder_fn value, void *user, const char *cwd,
                         pm_steps *out, pm_err *err)
{
    out->items = NULL;
    out->n = 0;
    int rc = PM_OK;
    for (int i = 0; i < t->n && rc == PM_OK; i++) {
        pm_step *st;
        if (pm_steps_push(out, &st))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else if ((rc = expand_one(&t->items[i], value, user, cwd, st, err)))
            pm_err_wrap(err, "[step %s]", t->items[i].name);
    }
    if (rc)
        pm_steps_free(out);
    return rc;
}

/* The label the real step records: `tool`, else argv[0]'s as far as it expands without a config (an axis in it:
 * the word as written). */
static void real_label(const pm_step_tmpl *t, pm_placeholder_fn value, void *user, char *out, size_t cap)
{
    char *s = NULL;
    pm_err e = {0};
    if (t->tool) {
        snprintf(out, cap, "%s", t->tool);
        return;
    }
    if (pm_subst(t->argv[0], value, user, &s, &e) == PM_OK) {
        pm_tool_label(s, out, cap);
        free(s);
    } else {
        pm_tool_label(t->argv[0], out, cap);
    }
}

int pm_step_tmpls_expand_null(const pm_step_tmpls *t, pm_placeholder_fn value, void *user, const char *cwd,
                              pm_steps *out, char **not_measured, pm_err *err)
{
    out->items = NULL;
    out->n = 0;
    *not_measured = NULL;
    int rc = PM_OK;
    size_t len = 0;
    char label[128];
    for (int i = 0; i < t->n && rc == PM_OK; i++) {
        const pm_step_tmpl *tp = &t->items[i];
        if (!tp->null_argv)
            continue;
        real_label(tp, value, user, label, sizeof label);
        int seen = 0;
        for (int k = 0; k < out->n && !seen; k++)
            seen = !strcmp(out->items[k].tool, label);
        if (seen)
            continue;
        pm_step_tmpl nt = {.name = tp->name, .argv = tp->null_argv, .tool = label, .format = PM_FMT_AUTO};
        pm_step *st;
        if (pm_steps_push(out, &st))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else if ((rc = expand_one(&nt, value, user, cwd, st, err)))
            pm_err_wrap(err, "line %d: [step %s] null_argv", tp->null_line, tp->name);
    }
    for (int i = 0; i < t->n && rc == PM_OK; i++) {
        const pm_step_tmpl *tp = &t->items[i];
        real_label(tp, value, user, label, sizeof label);
        int seen = 0;
        for (int k = 0; k < out->n && !seen; k++)
            seen = !strcmp(out->items[k].tool, label);
        for (int k = 0; k < i && !seen; k++) {   /* one sentence per tool */
            char other[128];
            real_label(&t->items[k], value, user, other, sizeof other);
            seen = !strcmp(other, label);
        }
        if (seen)
            continue;
        size_t grown_cap = len + strlen(label) + strlen(tp->name) + 40;
        char *grown = realloc(*not_measured, grown_cap);
        if (!grown) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        *not_measured = grown;
        len += (size_t)snprintf(grown + len, grown_cap - len, "%s%s: [step %s] has no null_argv", len ? "; " : "",
                                label, tp->name);
    }
    if (rc) {
        pm_steps_free(out);
        free(*not_measured);
        *not_measured = NULL;
    }
    return rc;
}
