/* The `command` back end: any compiler, described in the spec.
 *
 *   [matrix NAME]          any number; each is its own cartesian product of its axes
 *   input = src/<glob>.c       an axis whose values are files: globs relative to the spec file, sorted
 *   opt = 0, 1, 2, 3       any other axis: a list
 *   [step NAME]            steps run in file order (steps.h for the keys)
 *
 * A config's key names every axis: "c/input=a.c/opt=2" (a file's name relative to its glob's fixed folder).
 * {axis} stands for the value (a file axis: its absolute path); {out} for the run folder, {bindir} for
 * [sweep] bindir (else the newest LLVM), {spec_dir} for the spec's folder. */
#include "backend.h"

#include <dirent.h>
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "steps.h"

static const char *const builtins[] = {"out", "bindir", "spec_dir", NULL};

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

typedef struct cmd_spec {
    cmd_matrix *m;
    int n_m;
    pm_step_tmpls steps;
    int uses_bindir;
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
    int *idx = calloc((size_t)m->n_axes, sizeof *idx);
    if (!idx)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK;
    for (;;) {
        pm_spec_config c;
        memset(&c, 0, sizeof c);
        c.matrix = mi;
        strcpy(c.kind, "command");
        size_t len = (size_t)snprintf(c.key, sizeof c.key, "%s", m->name);
        for (int a = 0; a < m->n_axes && rc == PM_OK; a++) {
            const cmd_axis *ax = &m->axes[a];
            const char *v = ax->values[idx[a]];
            if (len < sizeof c.key)
                len += (size_t)snprintf(c.key + len, sizeof c.key - len, "/%s=%s", ax->name, v);
            if (pm_spec_config_param(&c, ax->name, v, ax->paths ? ax->paths[idx[a]] : NULL))
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            if (!strcmp(ax->name, "variant") && rc == PM_OK) {
                if (strlen(v) >= sizeof c.variant)
                    rc = pm_err_set(err, PM_ERR_USAGE, "[matrix %s] variant: '%.60s...' is longer than %zu characters",
                                    m->name, v, sizeof c.variant - 1);
                else
                    strcpy(c.variant, v);
            }
        }
        if (rc == PM_OK && len >= sizeof c.key)
            rc = pm_err_set(err, PM_ERR_USAGE, "[matrix %s]: a config key is longer than %zu characters: %.80s...",
                            m->name, sizeof c.key - 1, c.key);
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
        int first = 1;
        for (int j = 0; j < i; j++)
            if (!strcmp(es->items[j].section, sec))
                first = 0;
        if (!first)
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
    for (int i = 0; i < cs->steps.n; i++)
        for (char **w = cs->steps.items[i].argv; *w; w++)
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
    for (int i = 0; i < l->c->n_params; i++)
        if (!strcmp(l->c->params[i].name, name))
            return l->c->paths[i] ? l->c->paths[i] : l->c->params[i].value;
    return NULL;
}

static int command_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir,
                         pm_steps *out, pm_err *err)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    lookup_ctx l = {.spec = ctx->spec, .c = &ctx->spec->configs[config], .st = ctx->state, .run_dir = run_dir};
    return pm_step_tmpls_expand(&cs->steps, lookup, &l, run_dir, out, err);
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

const pm_backend_ops pm_backend_command = {
    .name = "command",
    .sections = "[matrix NAME], [step NAME]",
    .parse_spec = command_parse_spec,
    .prepare = command_prepare,
    .steps = command_steps,
    .describe = command_describe,
    .cleanup = command_cleanup,
};
