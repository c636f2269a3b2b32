/* The `command` back end's side of passmap fix: its [fix NAME], [check] and [run] sections (command.c says
 * the keys), a round as the study spec read again, and the output check and program run through lib/run. */
#include "command_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixrule.h"
#include "run.h"
#include "util.h"

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
            rc = pm_command_split_checked(cs, e, 0, &f->add, err);
        else if (!strcmp(k, "argv_drop"))
            rc = pm_command_split_checked(cs, e, 0, &f->drop, err);
        else if (!strcmp(k, "argv"))
            rc = pm_command_split_checked(cs, e, 0, &f->replace, err);
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

/* [fix NAME] sections (after the steps: a fix names them), [check] and [run]. */
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
                rc = pm_command_split_checked(cs, e, 1, &cs->check, err);
            continue;
        }
        if (!strcmp(sec, "run")) {
            e->used = 1;
            if (!strcmp(e->name, "argv"))
                rc = pm_command_split_checked(cs, e, 0, &cs->run, err);
            else if (!strcmp(e->name, "size")) {
                rc = pm_command_split_checked(cs, e, 0, &cs->run_size, err);
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

int pm_command_fixes_read(cmd_spec *cs, pm_spec_entries *es, pm_err *err)
{
    int rc = parse_fixes(cs, es, err);
    return rc ? rc : check_fix_rules(cs, err);
}

/* --- passmap fix --------------------------------------------------------------------------------------- */

static const char *lookup_check(const char *name, void *user)
{
    const lookup_ctx *l = user;
    return !strcmp(name, "stock_out") ? l->stock_out : pm_command_lookup(name, user);
}

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
        if ((rc = pm_command_variant_fixes(cs, variants[i], on, err)))
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
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = dir, .stdout_path = so, .stderr_path = se};
    int rc = pm_fix_check_start(o, label, &ro, err);
    if (rc || (rc = pm_run_exec((const char *const *)argv, &ro, res, err)))
        return rc;
    if (res->status == PM_RUN_TIMEOUT || (cancel && *cancel))
        return pm_err_set(err, PM_ERR_TIMEOUT, "%s: %s", label, res->status == PM_RUN_TIMEOUT ?
                          "timed out (the spec's timeout)" : "interrupted");
    if (res->status != PM_RUN_OK && res->status != PM_RUN_FAILED) {
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
    if (!pm_command_find_bindir(study, st.bindir, sizeof st.bindir) && cs->uses_bindir)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "{bindir}: no [sweep] bindir, no $PASSMAP_LLVM_BINDIR");
    lookup_ctx l = {.spec = study, .c = &study->configs[config], .st = &st, .run_dir = dir};
    pm_steps steps = {0};
    int rc = pm_command_expand_variant(cs, variant, pm_command_lookup, &l, dir, &steps, err);
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
    pm_command_find_bindir(study, st.bindir, sizeof st.bindir);
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
    pm_command_find_bindir(study, st.bindir, sizeof st.bindir);
    lookup_ctx l = {.spec = study, .c = &study->configs[config], .st = &st, .run_dir = dir};
    *argv = calloc(1, sizeof **argv);
    int rc = *argv ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (char *const *w = tmpl; rc == PM_OK && *w; w++) {
        char *v = NULL;
        if ((rc = pm_subst(*w, pm_command_lookup, &l, &v, err)) == PM_OK && pm_argv_push(argv, v))
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

const pm_backend_fix_ops pm_command_fix_ops = {
    .program_run = command_program_run,
    .program_size = command_program_size,
    .declared = command_declared,
    .round = command_round,
    .check_build = command_check_build,
    .check_compare = command_check_compare,
};
