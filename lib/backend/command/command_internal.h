/* What the `command` back end's files share (command.c the row, command_spec.c its sections and steps,
 * command_fix.c its side of passmap fix): the spec as the back end reads it, and the calls between the files
 * (command.c -> both, command_fix.c -> command_spec.c, never back). */
#ifndef PM_COMMAND_INTERNAL_H
#define PM_COMMAND_INTERNAL_H

#include <limits.h>

#include "backend.h"
#include "spec.h"
#include "steps.h"

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

typedef struct cmd_state {
    char bindir[PATH_MAX];
} cmd_state;

typedef struct lookup_ctx {
    const pm_spec *spec;
    const pm_spec_config *c;
    const cmd_state *st;
    const char *run_dir;
    const char *stock_out;    /* the [check] command's {stock_out} */
} lookup_ctx;

/* command_spec.c: the [matrix NAME] and [step NAME] sections into *cs (s->backend_data, freed with s) */
int pm_command_spec_read(pm_spec *s, pm_spec_entries *es, cmd_spec **cs, pm_err *err);
/* marks cs->uses_bindir when a template (steps, fixes, [check], [run]) says {bindir} */
void pm_command_note_bindir(cmd_spec *cs);
/* a template's words, each placeholder one the [step] sections know (check: also {stock_out}) */
int pm_command_split_checked(const cmd_spec *cs, const pm_spec_entry *e, int check, char ***out, pm_err *err);
int pm_command_find_bindir(const pm_spec *s, char *out, size_t cap);
/* a placeholder's value in a run (user: a lookup_ctx) */
const char *pm_command_lookup(const char *name, void *user);
int pm_command_variant_fixes(const cmd_spec *cs, const char *variant, unsigned char *on, pm_err *err);
int pm_command_expand_variant(const cmd_spec *cs, const char *variant, pm_placeholder_fn value, void *user,
                              const char *run_dir, pm_steps *out, pm_err *err);

/* command_fix.c: the [fix NAME], [check] and [run] sections, and the fix ops */
int pm_command_fixes_read(cmd_spec *cs, pm_spec_entries *es, pm_err *err);
extern const pm_backend_fix_ops pm_command_fix_ops;

#endif
