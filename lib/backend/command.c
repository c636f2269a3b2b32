/* The `command` back end: any compiler, described in the spec.
 *
 *   [matrix NAME]          any number; each is its own cartesian product of its axes
 *   input = src/<glob>.c       an axis whose values are files: globs relative to the spec file, sorted
 *   opt = 0, 1, 2, 3       any other axis: a list
 *   [step NAME]            steps run in file order (steps.h for the keys)
 *   [fix NAME]             any number: a compile variant for `passmap fix` (keys below)
 *   [check]                argv: the command that says whether a fix computes what stock computes
 *   [run]                  argv: runs what the steps built (timed: the program side of passmap fix's ledger);
 *                          size = PATH (optional): the file whose size is the output's size
 *
 * [fix NAME] keys: step = NAME[, NAME] (the steps it changes; default every step); argv_add = WORDS (appended),
 * argv_drop = WORDS (each removed where it is a word of the step's argv template, before substitution; a word
 * the step does not have is an error), or argv = WORDS (the whole argv replaced; not with add/drop); the same
 * {placeholders} as [step]. variant = TOKEN (default NAME; "a+b" joins fixes). The rule, read by passmap fix in
 * the catalogue's words (data/fixes-embedded.tsv): regime, pass, superlinear, size, why (default: always).
 * [check] argv = WORDS, with {out} (the fix's build folder), {stock_out} (stock's) and every [step]
 * placeholder; exit 0 means the outputs are the same. [run] argv and size take the [step] placeholders ({out}: the
 * folder the check built the variant in); [run] must exit 0. A study's configs run stock (a `variant` axis stays a
 * label); variants apply only in the A/B sweep passmap fix writes.
 *
 * A config's key names every axis: "c/input=a.c/opt=2" (a file's name relative to its glob's fixed folder).
 * {axis} stands for the value (a file axis: its absolute path); {out} for the run folder, {bindir} for
 * [sweep] bindir (else the newest LLVM), {spec_dir} for the spec's folder. */
#include "backend.h"
#include "backends.h"

#include <dirent.h>
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>

#include "fixrule.h"
#include "run.h"
#include "spec.h"
#include "steps.h"
#include "util.h"

static const char *const builtins[] = {"out", "bindir", "spec_dir", "stock_out", NULL};

typedef struct cmd_axis {
    char *name;
    char **values;        /* as shown in keys */
    char **paths;         /* file axes: absolute paths, else NULL */
    int n;
} cmd_axis;

typedef struct cmd_matrix {
    char *name;
    int line;
    cmd_axis *axes;
    int n_axes;
} cmd_matrix;

typedef struct cmd_fix {
    char *name, *variant, *regime, *pass, *superlinear, *size, *why;
    int line;
    unsigned char *step;      /* per step of the spec: 1 when this fix changes it */
    char **add, **drop, **replace;   /* word templates, NULL-terminated or NULL */
} cmd_fix;

typedef struct cmd_spec {
    cmd_matrix *m;
    int n_m;
    pm_step_tmpls steps;
    int uses_bindir;
    cmd_fix *fixes;
    int n_fixes;
    pm_fix_decl *decls;       /* the fixes' rules for passmap fix (strings owned by fixes) */
    char **check;             /* [check] argv, or NULL */
    char **run;               /* [run] argv, or NULL */
    char **run_size;          /* [run] size: one word, or NULL */
    int fix_round;            /* a round passmap fix wrote: every config's variant names fixes to apply */
} cmd_spec;

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
            free(ax->values);
            free(ax->paths);
            free(ax->name);
        }
        free(cs->m[i].axes);
        free(cs->m[i].name);
    }
    free(cs->m);
    pm_step_tmpls_free(&cs->steps);
    for (int i = 0; i < cs->n_fixes; i++) {
        cmd_fix *f = &cs->fixes[i];
        free(f->name), free(f->variant), free(f->regime), free(f->pass), free(f->superlinear), free(f->size);
        free(f->why), free(f->step);
        pm_argv_free(f->add), pm_argv_free(f->drop), pm_argv_free(f->replace);
    }
    free(cs->fixes);
    free(cs->decls);
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

static int split_checked(const cmd_spec *cs, const pm_spec_entry *e, int check, char ***out, pm_err *err)
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

static int set_str(char **dst, const char *v, pm_err *err)
{
    free(*dst);
    return (*dst = strdup(v)) ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

/* A variant token: what a config's variant names ('+' joins, '/' and '=' belong to keys). */
static int is_token(const char *s)
{
    if (!*s || !strcmp(s, "stock"))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return 0;
    return 1;
}

static int parse_fix(cmd_spec *cs, pm_spec_entries *es, const char *sec, const char *name, int line, cmd_fix *f,
                     pm_err *err)
{
    int rc = PM_OK, step_line = 0;
    char *step_list = NULL;
    f->line = line;
    if (!is_token(name))
        return pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: the fix needs a name (letters, digits, _ - .; not stock)",
                          line, sec);
    if ((rc = set_str(&f->name, name, err)))
        return rc;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        pm_spec_entry *e = &es->items[i];
        if (strcmp(e->section, sec))
            continue;
        e->used = 1;
        const char *k = e->name, *v = e->value;
        if (!strcmp(k, "step"))
            step_line = e->line, rc = set_str(&step_list, v, err);
        else if (!strcmp(k, "argv_add"))
            rc = split_checked(cs, e, 0, &f->add, err);
        else if (!strcmp(k, "argv_drop"))
            rc = split_checked(cs, e, 0, &f->drop, err);
        else if (!strcmp(k, "argv"))
            rc = split_checked(cs, e, 0, &f->replace, err);
        else if (!strcmp(k, "variant")) {
            if (!is_token(v))
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] variant '%s' is not a token (letters, digits, _ - .; "
                                "not stock)", e->line, sec, v);
            else
                rc = set_str(&f->variant, v, err);
        } else if (!strcmp(k, "regime") || !strcmp(k, "pass") || !strcmp(k, "superlinear") || !strcmp(k, "size") ||
                   !strcmp(k, "why")) {
            char **dst = !strcmp(k, "regime") ? &f->regime : !strcmp(k, "pass") ? &f->pass
                         : !strcmp(k, "superlinear") ? &f->superlinear : !strcmp(k, "size") ? &f->size : &f->why;
            rc = set_str(dst, v, err);
        } else {
            static const char *const keys[] = {"step",   "argv_add", "argv_drop",   "argv", "variant",
                                               "regime", "pass",     "superlinear", "size", "why"};
            const char *near = pm_util_closest(k, keys, sizeof keys / sizeof keys[0]);
            rc = pm_err_set(err, PM_ERR_USAGE,
                            "line %d: [%s]: unknown key '%s'%s%s%s (step, argv_add, argv_drop, argv, variant, regime, "
                            "pass, superlinear, size, why)", e->line, sec, k, near ? "; did you mean '" : "",
                            near ? near : "", near ? "'?" : "");
        }
    }
    if (rc == PM_OK && !f->add && !f->drop && !f->replace)
        rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] changes no argv (argv_add, argv_drop or argv)", line, sec);
    if (rc == PM_OK && f->replace && (f->add || f->drop))
        rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: argv replaces the whole argv; argv_add/argv_drop go "
                        "without it", line, sec);
    if (rc == PM_OK && f->replace && !step_list && cs->steps.n > 1)
        rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: argv replaces one step's argv: name it (step = NAME)",
                        line, sec);
    if (rc == PM_OK && !f->variant)
        rc = set_str(&f->variant, name, err);
    if (rc == PM_OK && !(f->step = calloc((size_t)cs->steps.n, 1)))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc == PM_OK && !step_list)
        memset(f->step, 1, (size_t)cs->steps.n);
    if (rc == PM_OK && step_list) {
        char **names = NULL;
        for (char *c = step_list; *c; c++)
            if (*c == ',')
                *c = ' ';
        if ((rc = pm_split_words(step_list, &names, err)) == PM_OK && !names[0])
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] step is empty", step_line, sec);
        for (char **w = names; rc == PM_OK && *w; w++) {
            int found = -1;
            for (int k = 0; k < cs->steps.n && found < 0; k++)
                if (!strcmp(cs->steps.items[k].name, *w))
                    found = k;
            if (found < 0) {
                char list[256] = "";
                for (int k = 0; k < cs->steps.n; k++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                             cs->steps.items[k].name);
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] step: no [step %s] in the spec (steps: %s)",
                                step_line, sec, *w, list);
            } else {
                f->step[found] = 1;
            }
        }
        pm_argv_free(names);
    }
    /* A dropped word the step does not have is a typo: the fix would measure nothing. */
    for (int k = 0; rc == PM_OK && f->drop && k < cs->steps.n; k++) {
        if (!f->step[k])
            continue;
        for (char **d = f->drop; rc == PM_OK && *d; d++) {
            int has = 0;
            for (char **w = cs->steps.items[k].argv; *w && !has; w++)
                has = !strcmp(*w, *d);
            if (!has)
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s] argv_drop: '%s' is no word of [step %s]'s argv",
                                line, sec, *d, cs->steps.items[k].name);
        }
    }
    free(step_list);
    return rc;
}

/* [fix NAME] sections (after the steps: a fix names them) and [check]. */
static int parse_fixes(cmd_spec *cs, pm_spec_entries *es, pm_err *err)
{
    int rc = PM_OK;
    for (int i = 0; i < es->n && rc == PM_OK; i++) {
        pm_spec_entry *e = &es->items[i];
        const char *sec = e->section, *name;
        if (!strcmp(sec, "check")) {
            e->used = 1;
            if (strcmp(e->name, "argv"))
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [check]: unknown key '%s'%s (argv)", e->line, e->name,
                                pm_util_closest(e->name, (const char *const[]){"argv"}, 1) ? "; did you mean 'argv'?" : "");
            else
                rc = split_checked(cs, e, 1, &cs->check, err);
            continue;
        }
        if (!strcmp(sec, "run")) {
            e->used = 1;
            if (!strcmp(e->name, "argv"))
                rc = split_checked(cs, e, 0, &cs->run, err);
            else if (!strcmp(e->name, "size")) {
                rc = split_checked(cs, e, 0, &cs->run_size, err);
                if (rc == PM_OK && cs->run_size[1])
                    rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [run] size: one path, not %s words", e->line,
                                    "several");
            } else {
                const char *near = pm_util_closest(e->name, (const char *const[]){"argv", "size"}, 2);
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [run]: unknown key '%s'%s%s%s (argv, size)", e->line,
                                e->name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            }
            continue;
        }
        if (!pm_spec_section_is(sec, "fix", &name))
            continue;
        if (!pm_spec_entry_opens_section(es, i))
            continue;
        cmd_fix *nf = realloc(cs->fixes, (size_t)(cs->n_fixes + 1) * sizeof *nf);
        if (!nf)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        cs->fixes = nf;
        cmd_fix *f = &nf[cs->n_fixes++];
        memset(f, 0, sizeof *f);
        if ((rc = parse_fix(cs, es, sec, name, e->line, f, err)))
            break;
        for (int k = 0; k + 1 < cs->n_fixes && rc == PM_OK; k++)
            if (!strcmp(cs->fixes[k].variant, f->variant))
                rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: variant '%s' is also [fix %s]'s (line %d)",
                                f->line, sec, f->variant, cs->fixes[k].name, cs->fixes[k].line);
    }
    if (rc == PM_OK && cs->n_fixes && !(cs->decls = calloc((size_t)cs->n_fixes, sizeof *cs->decls)))
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int i = 0; rc == PM_OK && i < cs->n_fixes; i++) {
        const cmd_fix *f = &cs->fixes[i];
        cs->decls[i] = (pm_fix_decl){.name = f->name, .variant = f->variant, .regime = f->regime, .pass = f->pass,
                                     .superlinear = f->superlinear, .size = f->size, .why = f->why, .line = f->line};
    }
    return rc;
}

/* A [fix]'s rule is checked here, when a sweep reads the spec, not when passmap fix reads it after the sweep. */
static int check_fix_rules(const cmd_spec *cs, pm_err *err)
{
    size_t n = 1;
    for (int i = 0; i < cs->n_m; i++)
        n += (size_t)cs->m[i].n_axes;
    const char **axes = calloc(n, sizeof *axes);
    if (!axes)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (int i = 0; i < cs->n_m; i++)
        for (int a = 0; a < cs->m[i].n_axes; a++)
            axes[k++] = cs->m[i].axes[a].name;
    int rc = PM_OK, flag;
    char msg[512];
    for (int i = 0; i < cs->n_fixes && rc == PM_OK; i++) {
        const cmd_fix *f = &cs->fixes[i];
        if (f->superlinear && pm_fixrule_superlinear(f->superlinear, &flag))
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [fix %s] superlinear '%s' (yes or -)", f->line, f->name,
                            f->superlinear);
        else if (f->size && pm_fixrule_size(f->size, axes, NULL, NULL, msg, sizeof msg) < 0)
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [fix %s] %s", f->line, f->name, msg);
    }
    free(axes);
    return rc;
}

static int command_parse_spec(pm_spec *s, pm_spec_entries *es, pm_err *err)
{
    cmd_spec *cs = calloc(1, sizeof *cs);
    if (!cs)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    s->backend_data = cs;
    s->backend_free = cmd_spec_free;
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
    if ((rc = parse_fixes(cs, es, err)) || (rc = check_fix_rules(cs, err)))
        return rc;
    if (cs->run_size && !cs->run)
        return pm_err_set(err, PM_ERR_USAGE, "[run] size without [run] argv: say how the program runs");
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
    return PM_OK;
}

typedef struct cmd_state {
    char bindir[PATH_MAX];
} cmd_state;

/* {bindir}: [sweep] bindir, $PASSMAP_LLVM_BINDIR, else the newest /usr/lib/llvm-N/bin. */
static int find_bindir(const pm_spec *s, char *out, size_t cap)
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

static int command_prepare(pm_backend_ctx *ctx, pm_err *err)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    cmd_state *st = calloc(1, sizeof *st);
    if (!st)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ctx->state = st;
    if (!find_bindir(ctx->spec, st->bindir, sizeof st->bindir) && cs->uses_bindir)
        return pm_err_set(err, PM_ERR_NOTFOUND, "{bindir}: no [sweep] bindir, no $PASSMAP_LLVM_BINDIR, no /usr/lib/llvm-N/bin");
    return PM_OK;
}

typedef struct lookup_ctx {
    const pm_spec *spec;
    const pm_spec_config *c;
    const cmd_state *st;
    const char *run_dir;
    const char *stock_out;    /* the [check] command's {stock_out} */
} lookup_ctx;

static const char *lookup(const char *name, void *user)
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

static const char *lookup_check(const char *name, void *user)
{
    const lookup_ctx *l = user;
    return !strcmp(name, "stock_out") ? l->stock_out : lookup(name, user);
}

static const cmd_fix *fix_by_variant(const cmd_spec *cs, const char *token, size_t len)
{
    for (int i = 0; i < cs->n_fixes; i++)
        if (strlen(cs->fixes[i].variant) == len && !strncmp(cs->fixes[i].variant, token, len))
            return &cs->fixes[i];
    return NULL;
}

/* The fixes a variant names ("a+b"; "stock" or "": none), in the spec's order. */
static int variant_fixes(const cmd_spec *cs, const char *variant, unsigned char *on, pm_err *err)
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
static int expand_variant(const cmd_spec *cs, const char *variant, pm_placeholder_fn value, void *user,
                          const char *run_dir, pm_steps *out, pm_err *err)
{
    unsigned char *on = calloc((size_t)cs->n_fixes + 1, 1);
    pm_step_tmpls t = {.items = calloc((size_t)cs->steps.n + 1, sizeof *t.items), .n = cs->steps.n};
    int rc = PM_OK;
    if (!on || !t.items) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = variant_fixes(cs, variant, on, err)))
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

static int command_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir,
                         pm_steps *out, pm_err *err)
{
    (void)config_input;
    const cmd_spec *cs = ctx->spec->backend_data;
    const pm_spec_config *c = &ctx->spec->configs[config];
    lookup_ctx l = {.spec = ctx->spec, .c = c, .st = ctx->state, .run_dir = run_dir};
    /* A study's variant axis is a label; the rounds passmap fix writes apply the fixes their variants name. */
    return expand_variant(cs, cs->fix_round ? c->variant : "", lookup, &l, run_dir, out, err);
}

/* Start-up: each step's null_argv ({out} is the start-up folder); a tool without one is not measured. */
static int command_null_steps(pm_backend_ctx *ctx, const char *dir, pm_steps *out, char **not_measured, pm_err *err)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    pm_spec_config none;
    memset(&none, 0, sizeof none);
    lookup_ctx l = {.spec = ctx->spec, .c = &none, .st = ctx->state, .run_dir = dir};
    return pm_step_tmpls_expand_null(&cs->steps, lookup, &l, dir, out, not_measured, err);
}

static void command_describe(pm_backend_ctx *ctx, json_t *meta)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    json_t *steps = json_array();
    for (int i = 0; i < cs->steps.n; i++) {
        char *argv = pm_argv_join(cs->steps.items[i].argv);
        json_array_append_new(steps, json_pack("{s:s, s:s}", "name", cs->steps.items[i].name, "argv", argv ? argv : ""));
        free(argv);
    }
    json_object_set_new(meta, "steps", steps);
    json_object_set_new(meta, "compiler", json_string("command"));
    const cmd_state *st = ctx->state;
    if (cs->uses_bindir && st)
        json_object_set_new(meta, "bindir", json_string(st->bindir));
}

static void command_cleanup(pm_backend_ctx *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
}

/* --- passmap fix --------------------------------------------------------------------------------------- */

static void command_declared(const pm_spec *study, const pm_fix_decl **out, int *n)
{
    const cmd_spec *cs = study->backend_data;
    *out = cs ? cs->decls : NULL;
    *n = cs ? cs->n_fixes : 0;
}

/* A round is the study's own spec read again (same matrices, steps, fixes and folder), keeping only the
 * configs asked, each once per variant, with the variant as the key's last part. */
static int command_round(const pm_spec *study, const int *configs, const char *const *variants, size_t n,
                         int repeats, const char *name, pm_spec **out, pm_err *err)
{
    pm_spec *s = NULL;
    int rc = pm_spec_parse_as(study->text, study->path, study->backend, &s, err);
    if (rc)
        return rc;
    cmd_spec *cs = s->backend_data;
    unsigned char *on = calloc((size_t)cs->n_fixes + 1, 1);
    if (!on) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    cs->fix_round = 1;
    pm_spec_round_reset(s, name, repeats);
    for (size_t i = 0; i < n && rc == PM_OK; i++) {
        int dup;
        if ((rc = pm_spec_round_pair(configs, variants, i, study->n_configs, &dup, err)))
            break;
        if (dup)
            continue;
        if ((rc = variant_fixes(cs, variants[i], on, err)))
            break;
        const pm_spec_config *src = &study->configs[configs[i]];
        char key[PM_SPEC_KEY_MAX];
        if (snprintf(key, sizeof key, "%s/%s", src->key, variants[i]) >= (int)sizeof key ||
            strlen(variants[i]) >= PM_SPEC_VARIANT_MAX) {
            rc = pm_err_set(err, PM_ERR_USAGE, "round: key or variant too long: %s/%s", src->key, variants[i]);
            break;
        }
        pm_spec_config c;
        if ((rc = pm_spec_config_copy(src, key, variants[i], &c, err)) == PM_OK)
            rc = pm_spec_add_config(s, &c, err);
    }
cleanup:
    free(on);
    if (rc) {
        pm_spec_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

/* The last non-empty line of a file, for error messages. */
static void last_line(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line);
        if (n && cap) {   /* cut to fit: it only names the failure */
            n = n < cap ? n : cap - 1;
            memcpy(out, line, n);
            out[n] = '\0';
        }
    }
    if (f)
        fclose(f);
}

static int run_in(char *const *argv, const char *dir, const char *label, double timeout_s,
                  const pm_fix_check_opts *o, pm_run_result *res, pm_err *err)
{
    const volatile sig_atomic_t *cancel = o->cancel;
    char so[PATH_MAX], se[PATH_MAX];
    if (snprintf(so, sizeof so, "%s/%s.stdout", dir, label) >= (int)sizeof so ||
        snprintf(se, sizeof se, "%s/%s.stderr", dir, label) >= (int)sizeof se)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %s", dir);
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = dir, .stdout_path = so, .stderr_path = se, .cancel = cancel,
                      .on_start = o->on_start, .on_start_arg = o->on_start_arg};
    int rc = pm_run_exec((const char *const *)argv, &ro, res, err);
    if (rc == PM_OK && (res->status == PM_RUN_TIMEOUT || (cancel && *cancel)))
        return pm_err_set(err, PM_ERR_TIMEOUT, "%s: %s", label, res->status == PM_RUN_TIMEOUT ?
                          "timed out (the spec's timeout)" : "interrupted");
    if (rc == PM_OK && res->status != PM_RUN_OK && res->status != PM_RUN_FAILED) {
        char tail[200];
        last_line(se, tail, sizeof tail);
        rc = pm_err_set(err, PM_ERR_CHILD, "%s: %s%s%s", label, pm_run_status_name(res->status),
                        tail[0] ? ": " : "", tail);
    }
    return rc;
}

static int command_check_build(const pm_spec *study, int config, const char *variant, const char *dir,
                               const pm_fix_check_opts *o, char *result, size_t cap, pm_err *err)
{
    const cmd_spec *cs = study->backend_data;
    if (!cs->check)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "the spec declares no [check] command");
    cmd_state st = {{0}};
    if (!find_bindir(study, st.bindir, sizeof st.bindir) && cs->uses_bindir)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "{bindir}: no [sweep] bindir, no $PASSMAP_LLVM_BINDIR");
    lookup_ctx l = {.spec = study, .c = &study->configs[config], .st = &st, .run_dir = dir};
    pm_steps steps = {0};
    int rc = expand_variant(cs, variant, lookup, &l, dir, &steps, err);
    for (int i = 0; rc == PM_OK && i < steps.n; i++) {
        pm_run_result res;
        char label[160];
        snprintf(label, sizeof label, "step-%d", i);
        if ((rc = run_in(steps.items[i].argv, dir, label, o->timeout_s > 0 ? o->timeout_s : study->timeout_s,
                         o, &res, err)))
            break;
        if (res.status != PM_RUN_OK) {
            char tail[200], se[PATH_MAX];
            snprintf(se, sizeof se, "%s/%s.stderr", dir, label);
            last_line(se, tail, sizeof tail);
            rc = pm_err_set(err, PM_ERR_CHILD, "[step %s] exits %d%s%s", cs->steps.items[i].name, res.exit_code,
                            tail[0] ? ": " : "", tail);
        }
    }
    pm_steps_free(&steps);
    if (rc == PM_OK && snprintf(result, cap, "%s", dir) >= (int)cap)
        rc = pm_err_set(err, PM_ERR_USAGE, "path too long: %s", dir);
    return rc;
}

static int command_check_compare(const pm_spec *study, int config, const char *stock_result, const char *result,
                                 const pm_fix_check_opts *o, int *same, char *outcome, size_t cap, pm_err *err)
{
    const cmd_spec *cs = study->backend_data;
    cmd_state st = {{0}};
    find_bindir(study, st.bindir, sizeof st.bindir);
    lookup_ctx l = {.spec = study, .c = &study->configs[config], .st = &st, .run_dir = result,
                    .stock_out = stock_result};
    char **argv = calloc(1, sizeof *argv);
    int rc = argv ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (char **w = cs->check; rc == PM_OK && *w; w++) {
        char *v = NULL;
        if ((rc = pm_subst(*w, lookup_check, &l, &v, err)) == PM_OK && pm_argv_push(&argv, v))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        free(v);
    }
    pm_run_result res;
    if (rc == PM_OK && (rc = run_in(argv, result, "check", o->timeout_s > 0 ? o->timeout_s : study->timeout_s,
                                    o, &res, err)) == PM_OK) {
        char tail[160], se[PATH_MAX];
        snprintf(se, sizeof se, "%s/check.stderr", result);
        last_line(se, tail, sizeof tail);
        *same = res.status == PM_RUN_OK;
        if (*same)
            snprintf(outcome, cap, "same ([check] exits 0)");
        else
            snprintf(outcome, cap, "differs ([check] exits %d%s%s)", res.exit_code, tail[0] ? ": " : "", tail);
    } else if (rc) {
        pm_err_wrap(err, "[check]");
    }
    pm_argv_free(argv);
    return rc;
}

/* [run] argv (or size) expanded for the folder the check built a variant in. */
static int run_words(const pm_spec *study, int config, char *const *tmpl, const char *dir, char ***argv, pm_err *err)
{
    cmd_state st = {{0}};
    find_bindir(study, st.bindir, sizeof st.bindir);
    lookup_ctx l = {.spec = study, .c = &study->configs[config], .st = &st, .run_dir = dir};
    *argv = calloc(1, sizeof **argv);
    int rc = *argv ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (char *const *w = tmpl; rc == PM_OK && *w; w++) {
        char *v = NULL;
        if ((rc = pm_subst(*w, lookup, &l, &v, err)) == PM_OK && pm_argv_push(argv, v))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        free(v);
    }
    return rc;
}

static int command_program_run(const pm_spec *study, int config, const char *dir, const pm_fix_check_opts *o,
                               double *run_s, double *cpu_wall, char *what, size_t cap, pm_err *err)
{
    const cmd_spec *cs = study->backend_data;
    if (!cs->run)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "the spec declares no [run] command");
    char **argv = NULL;
    int rc = run_words(study, config, cs->run, dir, &argv, err);
    pm_run_result res;
    if (rc == PM_OK && (rc = run_in(argv, dir, "run", o->timeout_s > 0 ? o->timeout_s : study->timeout_s,
                                    o, &res, err)) == PM_OK) {
        if (res.status != PM_RUN_OK) {
            char tail[160], se[PATH_MAX];
            snprintf(se, sizeof se, "%s/run.stderr", dir);
            last_line(se, tail, sizeof tail);
            rc = pm_err_set(err, PM_ERR_CHILD, "[run] exits %d%s%s", res.exit_code, tail[0] ? ": " : "", tail);
        } else {
            *run_s = res.wall_s;
            *cpu_wall = res.wall_s > 0 ? (res.user_s + res.sys_s) / res.wall_s : NAN;
            snprintf(what, cap, "the [run] command's wall");
        }
    }
    pm_argv_free(argv);
    return rc;
}

static int command_program_size(const pm_spec *study, int config, const char *dir, double *bytes, char *what,
                                 size_t cap, pm_err *err)
{
    const cmd_spec *cs = study->backend_data;
    if (!cs->run_size)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "the spec's [run] names no size file");
    char **argv = NULL;
    int rc = run_words(study, config, cs->run_size, dir, &argv, err);
    struct stat sb;
    if (rc == PM_OK && stat(argv[0], &sb) != 0)
        rc = pm_err_errno(err, PM_ERR_IO, "[run] size %s", argv[0]);
    else if (rc == PM_OK) {
        *bytes = (double)sb.st_size;
        const char *base = strrchr(argv[0], '/');
        snprintf(what, cap, "size of %s", base ? base + 1 : argv[0]);
    }
    pm_argv_free(argv);
    return rc;
}

static const pm_backend_fix_ops command_fix = {
    .program_run = command_program_run,
    .program_size = command_program_size,
    .declared = command_declared,
    .round = command_round,
    .check_build = command_check_build,
    .check_compare = command_check_compare,
};

/* passmap run --db records the command's runs as a sweep would (--config, --sweep name them; --report,
 * --format, --tool say where its timing report is and how to read it). */
static const char *const command_options[] = {"db", "config", "sweep", "report", "format", "tool", NULL};

/* A spec's steps declare their sizes: a stage's own (ir.stage.NAME), else the first declared; LLVM IR for the
 * LLVM tools a spec may drive. */
static const pm_fit_size command_fit_sizes[] = {
    {"llc", NULL, "ir.llvm_ops"}, {"mlir-translate", NULL, "ir.llvm_ops"}, {NULL, NULL, "ir.stage.{stage}"},
    {NULL, NULL, "ir.*"}, {0}};

const pm_backend_ops pm_backend_command = {
    .name = "command",
    .run_one = PM_RUN_ONE_CMD,
    .sections = "[matrix NAME], [step NAME], [fix NAME], [check], [run]",
    .parse_spec = command_parse_spec,
    .prepare = command_prepare,
    .steps = command_steps,
    .null_steps = command_null_steps,
    .describe = command_describe,
    .cleanup = command_cleanup,
    .fix = &command_fix,
    .options = command_options,
    .fit_sizes = command_fit_sizes,
};
