/* The `command` back end's spec: its [matrix NAME] sections into configs, its [step NAME] templates, the
 * placeholders they may use, and a config's steps with a variant's fixes applied (command.c says the keys). */
#include "command_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char *const builtins[] = {"out", "bindir", "spec_dir", "stock_out", NULL};

static void cmd_spec_free(void *data)
{
    cmd_spec *cs = data;
    if (!cs)
        return;
    for (int i = 0; i < cs->n_m; i++) {
        for (int a = 0; a < cs->m[i].n_axes; a++) {
            cmd_axis *ax = &cs->m[i].axes[a];
            for (int k = 0; k < ax->n; k++) {
                free(ax->values[k]);
                if (ax->paths)
                    free(ax->paths[k]);
            }
            pm_free_all(ax->values, ax->paths, ax->name);
        }
        pm_free_all(cs->m[i].axes, cs->m[i].name);
    }
    free(cs->m);
    pm_step_tmpls_free(&cs->steps);
    for (int i = 0; i < cs->n_fixes; i++) {
        cmd_fix *f = &cs->fixes[i];
        pm_free_all(f->name, f->variant, f->regime, f->pass, f->superlinear, f->size, f->why, f->step);
        pm_argv_free(f->add), pm_argv_free(f->drop), pm_argv_free(f->replace);
    }
    pm_free_all(cs->fixes, cs->decls);
    pm_argv_free(cs->check);
    pm_argv_free(cs->run);
    pm_argv_free(cs->run_size);
    free(cs);
}

static int is_identifier(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int push_value(cmd_axis *ax, const char *value, const char *path)
{
    char **nv = realloc(ax->values, (size_t)(ax->n + 1) * sizeof *nv);
    if (!nv)
        return PM_ERR_NOMEM;
    ax->values = nv;
    char **np = realloc(ax->paths, (size_t)(ax->n + 1) * sizeof *np);
    if (!np)
        return PM_ERR_NOMEM;
    ax->paths = np;
    nv[ax->n] = strdup(value);
    np[ax->n] = path ? strdup(path) : NULL;
    ax->n++;
    return nv[ax->n - 1] && (!path || np[ax->n - 1]) ? PM_OK : PM_ERR_NOMEM;
}

/* Expands one file pattern relative to the spec folder; the shown value drops the pattern's fixed folder. */
static int expand_glob(const pm_spec *s, cmd_axis *ax, const char *pattern, const pm_spec_entry *e, pm_err *err)
{
    char full[PATH_MAX];
    int n = pattern[0] == '/' ? snprintf(full, sizeof full, "%s", pattern)
                              : snprintf(full, sizeof full, "%s/%s", s->dir, pattern);
    if (n < 0 || (size_t)n >= sizeof full)
        return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: path too long", e->line, e->section, e->name);
    /* the fixed folder: everything up to the last '/' before the first wildcard */
    size_t wild = strcspn(full, "*?[");
    size_t fixed = 0;
    for (size_t i = 0; i < wild && full[i]; i++)
        if (full[i] == '/')
            fixed = i + 1;
    if (!full[wild]) {
        /* a plain file: shown by its name */
        const char *slash = strrchr(full, '/');
        fixed = slash ? (size_t)(slash - full) + 1 : 0;
    }
    glob_t g;
    int gr = glob(full, 0, NULL, &g);
    int rc = PM_OK;
    if (gr == GLOB_NOMATCH || (gr == 0 && g.gl_pathc == 0)) {
        rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: '%s' matches no file", e->line, e->section, e->name,
                        pattern);
    } else if (gr != 0) {
        rc = pm_err_set(err, PM_ERR_IO, "line %d: [%s] %s: cannot expand '%s'", e->line, e->section, e->name, pattern);
    } else {
        for (size_t i = 0; i < g.gl_pathc && rc == PM_OK; i++) {
            char abs[PATH_MAX];
            const char *p = g.gl_pathv[i];
            if (access(p, R_OK) || !realpath(p, abs)) {
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: cannot read '%s'", e->line, e->section, e->name, p);
                break;
            }
            if (push_value(ax, p + fixed, abs))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
    }
    if (gr == 0 || gr == GLOB_NOMATCH)
        globfree(&g);
    return rc;
}

static int parse_matrix(pm_spec *s, pm_spec_entries *es, const char *section, const char *name, cmd_matrix *m,
                        pm_err *err)
{
    int rc = PM_OK;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        pm_spec_entry *e = &es->items[i];
        if (strcmp(e->section, section))
            continue;
        e->used = 1;
        if (!m->line)
            m->line = e->line;
        if (!is_identifier(e->name))
            return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: axis name '%s' is not an identifier (letters, digits, _)",
                              e->line, section, e->name);
        for (const char *const *b = builtins; *b; b++)
            if (!strcmp(*b, e->name))
                return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: '%s' is a built-in placeholder, not an axis name",
                                  e->line, section, e->name);
        for (int a = 0; a < m->n_axes; a++)
            if (!strcmp(m->axes[a].name, e->name))
                return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: axis '%s' given twice", e->line, section, e->name);
        cmd_axis *na = realloc(m->axes, (size_t)(m->n_axes + 1) * sizeof *na);
        if (!na)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        m->axes = na;
        cmd_axis *ax = &na[m->n_axes++];
        memset(ax, 0, sizeof *ax);
        if (!(ax->name = strdup(e->name)))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        char **words = NULL;
        char *list = strdup(e->value);
        if (!list)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        for (char *p = list; *p; p++)
            if (*p == ',')
                *p = ' ';
        rc = pm_split_words(list, &words, err);
        free(list);
        if (rc)
            return pm_err_wrap(err, "line %d: [%s] %s", e->line, section, e->name);
        int is_file = !strcmp(e->name, "input");
        for (char **w = words; *w; w++)
            if (strpbrk(*w, "*?["))
                is_file = 1;
        for (char **w = words; *w && rc == PM_OK; w++) {
            if (is_file)
                rc = expand_glob(s, ax, *w, e, err);
            else if (strchr(*w, '/') || strchr(*w, '='))
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: value '%s' has '/' or '=' (keys use them)",
                                e->line, section, e->name, *w);
            else if (push_value(ax, *w, NULL))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        pm_argv_free(words);
        if (rc == PM_OK && ax->n == 0)
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: no values", e->line, section, e->name);
        if (rc == PM_OK && !is_file) {
            free(ax->paths);
            ax->paths = NULL;
        }
    }
    if (rc == PM_OK && m->n_axes == 0)
        rc = pm_err_set(err, PM_ERR_USAGE, "[matrix %s] has no axes", name);
    return rc;
}

static int add_configs(pm_spec *s, const cmd_matrix *m, int mi, pm_err *err)
{
    /* the one config cap, before anything is expanded */
    size_t *lens = calloc((size_t)m->n_axes + 1, sizeof *lens);
    if (!lens)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int a = 0; a < m->n_axes; a++)
        lens[a] = (size_t)m->axes[a].n;
    char section[160];
    snprintf(section, sizeof section, "matrix %s", m->name);
    int rc = pm_spec_check_configs(s, section, lens, m->n_axes, err);
    free(lens);
    if (rc)
        return rc;
    int *idx = calloc((size_t)m->n_axes, sizeof *idx);
    if (!idx)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (;;) {
        pm_spec_config c;
        memset(&c, 0, sizeof c);
        c.matrix = mi;
        const char *variant = "";
        for (int a = 0; a < m->n_axes && rc == PM_OK; a++) {
            const cmd_axis *ax = &m->axes[a];
            const char *v = ax->values[idx[a]];
            if (pm_spec_config_param(&c, ax->name, v, ax->paths ? ax->paths[idx[a]] : NULL))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            if (!strcmp(ax->name, "variant") && rc == PM_OK) {
                if (strlen(v) >= PM_SPEC_VARIANT_MAX)
                    rc = pm_err_set(err, PM_ERR_USAGE, "[matrix %s] variant: '%.60s...' is longer than %d characters",
                                    m->name, v, PM_SPEC_VARIANT_MAX - 1);
                else
                    variant = v;
            }
        }
        /* the key names every axis: "c/input=a.c/opt=2" */
        char *key = rc == PM_OK ? pm_cfg_key_of(m->name, &c.cfg) : NULL;
        if (rc == PM_OK && !key)
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        if (rc == PM_OK && strlen(key) >= PM_SPEC_KEY_MAX)
            rc = pm_err_set(err, PM_ERR_USAGE, "[matrix %s]: a config key is longer than %d characters: %.80s...",
                            m->name, PM_SPEC_KEY_MAX - 1, key);
        if (rc == PM_OK && pm_cfg_set(&c.cfg, key, "command", variant))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        free(key);
        if (rc == PM_OK)
            rc = pm_spec_add_config(s, &c, err);
        else
            pm_spec_config_clear(&c);
        if (rc)
            break;
        int a = m->n_axes - 1;
        while (a >= 0 && ++idx[a] == m->axes[a].n)
            idx[a--] = 0;
        if (a < 0)
            break;
    }
    free(idx);
    return rc;
}

static int placeholder_known(const char *name, void *user, char *why, size_t cap)
{
    const cmd_spec *cs = user;
    if (!strcmp(name, "stock_out")) {
        snprintf(why, cap, "{stock_out} is for the [check] command only");
        return 0;
    }
    for (const char *const *b = builtins; *b; b++)
        if (!strcmp(*b, name))
            return 1;
    for (int i = 0; i < cs->n_m; i++) {
        int found = 0;
        for (int a = 0; a < cs->m[i].n_axes; a++)
            found |= !strcmp(cs->m[i].axes[a].name, name);
        if (!found) {
            snprintf(why, cap, "not an axis of [matrix %s] (nor out, bindir, spec_dir)", cs->m[i].name);
            return 0;
        }
    }
    return 1;
}

static int note_bindir(const char *name, void *user)
{
    if (!strcmp(name, "bindir"))
        ((cmd_spec *)user)->uses_bindir = 1;
    return 0;
}

static int not_builtin(const char *name, void *user)
{
    for (const char *const *b = builtins; *b; b++)   /* {stock_out} belongs to [check] only */
        if (!strcmp(*b, name) && strcmp(name, "stock_out"))
            return 0;
    snprintf(user, 128, "%s", name);
    return 1;
}

/* Placeholders of one template word; known: the [step] ones (check: also {stock_out}). */
typedef struct ph_check {
    const cmd_spec *cs;
    int check;
    char bad[128], why[256];
} ph_check;

static int ph_one(const char *name, void *user)
{
    ph_check *p = user;
    if ((p->check && !strcmp(name, "stock_out")) || placeholder_known(name, pm_unconst_ptr(p->cs), p->why, sizeof p->why))
        return 0;
    snprintf(p->bad, sizeof p->bad, "%s", name);
    return 1;
}

int pm_command_split_checked(const cmd_spec *cs, const pm_spec_entry *e, int check, char ***out, pm_err *err)
{
    pm_argv_free(*out);
    *out = NULL;
    int rc = pm_split_words(e->value, out, err);
    if (rc)
        return pm_err_wrap(err, "line %d: [%s] %s", e->line, e->section, e->name);
    if (!(*out)[0])
        return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s is empty", e->line, e->section, e->name);
    ph_check p = {.cs = cs, .check = check};
    for (char **w = *out; *w; w++)
        if (pm_placeholders_each(*w, ph_one, &p))
            return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] %s: unknown placeholder {%s}%s%s", e->line,
                              e->section, e->name, p.bad, p.why[0] ? ": " : "", p.why);
    return PM_OK;
}

/* {bindir}: [sweep] bindir, $PASSMAP_LLVM_BINDIR, else the newest /usr/lib/llvm-N/bin. */
int pm_command_find_bindir(const pm_spec *s, char *out, size_t cap)
{
    const char *given = s->sweep_bindir[0] ? s->sweep_bindir : getenv("PASSMAP_LLVM_BINDIR");
    if (given && *given)
        return snprintf(out, cap, "%s", given) < (int)cap;
    DIR *d = opendir("/usr/lib");
    long best = -1;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char *end, dir[300];
        if (strncmp(de->d_name, "llvm-", 5))
            continue;
        long v = strtol(de->d_name + 5, &end, 10);
        snprintf(dir, sizeof dir, "/usr/lib/%s/bin", de->d_name);
        if (end != de->d_name + 5 && !*end && v > best && access(dir, X_OK) == 0) {
            best = v;
            snprintf(out, cap, "%s", dir);
        }
    }
    if (d)
        closedir(d);
    return best >= 0;
}

const char *pm_command_lookup(const char *name, void *user)
{
    const lookup_ctx *l = user;
    if (!strcmp(name, "out"))
        return l->run_dir;
    if (!strcmp(name, "bindir"))
        return l->st->bindir;
    if (!strcmp(name, "spec_dir"))
        return l->spec->dir;
    for (size_t i = 0; i < l->c->n_params; i++)
        if (!strcmp(l->c->params[i].name, name))
            return l->c->paths[i] ? l->c->paths[i] : l->c->params[i].value;
    return NULL;
}

static const cmd_fix *fix_by_variant(const cmd_spec *cs, const char *token, size_t len)
{
    for (int i = 0; i < cs->n_fixes; i++)
        if (strlen(cs->fixes[i].variant) == len && !strncmp(cs->fixes[i].variant, token, len))
            return &cs->fixes[i];
    return NULL;
}

/* The fixes a variant names ("a+b"; "stock" or "": none), in the spec's order. */
int pm_command_variant_fixes(const cmd_spec *cs, const char *variant, unsigned char *on, pm_err *err)
{
    memset(on, 0, (size_t)cs->n_fixes);
    if (!*variant || !strcmp(variant, "stock"))
        return PM_OK;
    for (const char *t = variant; *t;) {
        size_t len = strcspn(t, "+");
        const cmd_fix *f = fix_by_variant(cs, t, len);
        if (!f)
            return pm_err_set(err, PM_ERR_USAGE, "variant '%s': '%.*s' is no [fix] of the spec", variant, (int)len, t);
        on[f - cs->fixes] = 1;
        t += len + (t[len] == '+');
    }
    return PM_OK;
}

static int push_all(char ***argv, char *const *words)
{
    for (; words && *words; words++)
        if (pm_argv_push(argv, *words))
            return PM_ERR_NOMEM;
    return PM_OK;
}

/* The steps of `variant` (fixes applied to the argv templates, then expanded like any run). */
int pm_command_expand_variant(const cmd_spec *cs, const char *variant, pm_placeholder_fn value, void *user,
                              const char *run_dir, pm_steps *out, pm_err *err)
{
    unsigned char *on = calloc((size_t)cs->n_fixes + 1, 1);
    pm_step_tmpls t = {.items = calloc((size_t)cs->steps.n + 1, sizeof *t.items), .n = cs->steps.n};
    int rc = PM_OK;
    if (!on || !t.items) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = pm_command_variant_fixes(cs, variant, on, err)))
        goto cleanup;
    for (int k = 0; k < cs->steps.n; k++) {
        t.items[k] = cs->steps.items[k];   /* shallow: only argv is replaced below */
        t.items[k].argv = NULL;
        char **cur = NULL;
        if (push_all(&cur, cs->steps.items[k].argv)) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        for (int i = 0; i < cs->n_fixes; i++) {
            const cmd_fix *f = &cs->fixes[i];
            if (!on[i] || !f->step[k])
                continue;
            char **next = calloc(1, sizeof *next);
            int bad = !next;
            if (!bad && f->replace)
                bad = push_all(&next, f->replace);
            for (char **w = cur; !bad && !f->replace && *w; w++) {
                int dropped = 0;
                for (char **d = f->drop; d && *d && !dropped; d++)
                    dropped = !strcmp(*w, *d);
                if (!dropped)
                    bad = pm_argv_push(&next, *w);
            }
            if (!bad && !f->replace)
                bad = push_all(&next, f->add);
            pm_argv_free(cur);
            cur = next;
            if (bad) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                t.items[k].argv = cur;
                goto cleanup;
            }
        }
        t.items[k].argv = cur;
    }
    rc = pm_step_tmpls_expand(&t, value, user, run_dir, out, err);
cleanup:
    for (int k = 0; t.items && k < t.n; k++)
        pm_argv_free(t.items[k].argv);
    free(t.items);
    free(on);
    return rc;
}

int pm_command_spec_read(pm_spec *s, pm_spec_entries *es, cmd_spec **out, pm_err *err)
{
    cmd_spec *cs = calloc(1, sizeof *cs);
    if (!cs)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    s->backend_data = cs;
    s->backend_free = cmd_spec_free;
    *out = cs;
    int rc = PM_OK;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        const char *sec = es->items[i].section, *name;
        if (!pm_spec_section_is(sec, "matrix", &name))
            continue;
        if (!pm_spec_entry_opens_section(es, i))
            continue;
        if (!is_identifier(name))
            return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: the matrix needs a name (letters, digits, _)",
                              es->items[i].line, sec);
        cmd_matrix *nm = realloc(cs->m, (size_t)(cs->n_m + 1) * sizeof *nm);
        if (!nm)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        cs->m = nm;
        cmd_matrix *m = &nm[cs->n_m++];
        memset(m, 0, sizeof *m);
        if (!(m->name = strdup(name)))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        if ((rc = parse_matrix(s, es, sec, name, m, err)) || (rc = add_configs(s, m, cs->n_m - 1, err)))
            return rc;
    }
    if (cs->n_m == 0)
        return pm_err_set(err, PM_ERR_USAGE, "backend command needs a [matrix NAME] section");
    if ((rc = pm_step_tmpls_parse(es, s->path, placeholder_known, cs, &cs->steps, err)))
        return rc;
    if (cs->steps.n == 0)
        return pm_err_set(err, PM_ERR_USAGE, "backend command needs a [step NAME] section with an argv");
    for (int i = 0; i < cs->steps.n; i++) {
        const pm_step_tmpl *t = &cs->steps.items[i];
        s->timing_pairs |= t->timing_flag != NULL;
        for (char **w = t->argv; *w; w++)
            pm_placeholders_each(*w, note_bindir, cs);
        /* a null run belongs to no config: only the built-in placeholders mean something in it */
        char bad[128] = "";
        for (char **w = t->null_argv; w && *w && !bad[0]; w++) {
            pm_placeholders_each(*w, note_bindir, cs);
            pm_placeholders_each(*w, not_builtin, bad);
        }
        if (bad[0])
            return pm_err_set(err, PM_ERR_USAGE,
                              "line %d: [step %s] null_argv: {%s} is not out, bindir or spec_dir (a null run has "
                              "no config)", t->null_line, t->name, bad);
    }
    return PM_OK;
}

void pm_command_note_bindir(cmd_spec *cs)
{
    for (int i = 0; i < cs->steps.n; i++)
        for (char **w = cs->steps.items[i].argv; *w; w++)
            pm_placeholders_each(*w, note_bindir, cs);
    for (int i = 0; i < cs->n_fixes; i++) {
        for (char **w = cs->fixes[i].add; w && *w; w++)
            pm_placeholders_each(*w, note_bindir, cs);
        for (char **w = cs->fixes[i].replace; w && *w; w++)
            pm_placeholders_each(*w, note_bindir, cs);
    }
    for (char **w = cs->check; w && *w; w++)
        pm_placeholders_each(*w, note_bindir, cs);
    for (char **w = cs->run; w && *w; w++)
        pm_placeholders_each(*w, note_bindir, cs);
}
