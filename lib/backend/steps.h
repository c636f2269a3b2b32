/* pm_step_tmpl: steps as data. A [step NAME] section (or a back end's built-in preset written the same way)
 * is a template: argv split into words before substitution, placeholders {name} filled per config and run.
 *
 *   [step NAME]
 *   argv = clang-22 -O{opt} -c {input} -o {out}/obj.o -ftime-trace
 *   report = {out}/obj.json      stderr (default), stdout, or a file that must appear
 *   format = auto                or a parser name (mlir-text, llvm-text, chrome-trace, ...)
 *   outputs = {out}/obj.o        declared outputs (the warm path caches them)
 *   inputs = {input}             optional: inputs whose content keys the cache (default: the cache's own rule)
 *   tool = clang                 label stored with the step (default: argv[0]'s basename without version suffix)
 *   ir.NAME = KIND SOURCE [ARG]  an IR-size metric (backend.h: size, lines, count, json, mlir-ops, llvm-insts)
 *   null_argv = clang-22 -c -x c /dev/null -o {out}/null.o   the same program on a null input: its start-up,
 *                                measured once per sweep (no null_argv: that tool's start-up is not measured)
 *   timing_flag = -ftime-trace   the argv words that make the report (each one of argv's words as written): the
 *                                sweep also runs the step without them, paired with each cold repeat, so walls
 *                                and the flag's own cost come from runs it did not slow (docs/spec.md)
 *
 * A placeholder is {identifier}; anything else in braces ({tile-size=4}) is literal, "{{" is a literal "{".
 * A word that is one placeholder whose value is empty is dropped (optional flags). Nothing passes through a
 * shell. */
#ifndef PM_STEPS_H
#define PM_STEPS_H

#include "backend.h"
#include "error.h"
#include "spec.h"

typedef struct pm_step_tmpl {
    char *name;
    int line;                 /* line of the section's first key */
    char **argv;              /* words before substitution */
    char *report;             /* "stderr", "stdout" or a path template */
    pm_format format;
    char **outputs, **inputs; /* path templates, NULL-terminated or NULL */
    char *tool;               /* NULL: from argv[0] */
    pm_step_metric *metrics;  /* source/arg are templates */
    int n_metrics;
    char **null_argv;         /* words before substitution, or NULL */
    char **timing_flag;       /* argv words left out of the uninstrumented run, or NULL */
    int null_line;            /* its line */
} pm_step_tmpl;

typedef struct pm_step_tmpls {
    pm_step_tmpl *items;
    int n;
} pm_step_tmpls;

/* Whether a placeholder name is known; on no, writes why (e.g. "not an axis of [matrix c]"). */
typedef int (*pm_placeholder_known_fn)(const char *name, void *user, char *why, size_t cap);
/* Value of a placeholder, NULL when unknown. */
typedef const char *(*pm_placeholder_fn)(const char *name, void *user);

/* Reads every [step NAME] section of es, in file order; errors name path:line. */
int pm_step_tmpls_parse(pm_spec_entries *es, const char *path, pm_placeholder_known_fn known, void *user,
                        pm_step_tmpls *out, pm_err *err);
/* Expands all templates for one run inside cwd. */
int pm_step_tmpls_expand(const pm_step_tmpls *t, pm_placeholder_fn value, void *user, const char *cwd,
                         pm_steps *out, pm_err *err);
/* The start-up steps: one per distinct tool label among the templates with a null_argv (the label the real
 * step records: `tool`, else argv[0]'s, else null_argv[0]'s), in file order. *not_measured (heap, or NULL):
 * "LABEL: [step NAME] has no null_argv" for each tool no template covers, joined by "; ". */
int pm_step_tmpls_expand_null(const pm_step_tmpls *t, pm_placeholder_fn value, void *user, const char *cwd,
                              pm_steps *out, char **not_measured, pm_err *err);
void pm_step_tmpls_free(pm_step_tmpls *t);
/* Substitutes placeholders in one string (heap result in *out). */
int pm_subst(const char *tmpl, pm_placeholder_fn value, void *user, char **out, pm_err *err);
/* Calls fn for each placeholder name in tmpl; stops at the first non-zero return and returns it. */
int pm_placeholders_each(const char *tmpl, int (*fn)(const char *name, void *user), void *user);

#endif
