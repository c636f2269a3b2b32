/* pm_stagemap: pass -> stage maps kept as data files (data/stages-*.tsv).
 * Line format: tool<TAB>pattern<TAB>stage[<TAB>phase], fnmatch globs on tool and pass name, first match wins,
 * '#' starts a comment, blank lines ignored. */
#ifndef PM_STAGEMAP_H
#define PM_STAGEMAP_H

#include <stddef.h>
#include "error.h"

typedef struct pm_stagemap pm_stagemap;

/* Stage given to time inside a process not covered by any pass (start-up, parsing, output). */
#define PM_STAGE_OVERHEAD "process-overhead"
/* Stage of a pass no rule matches. */
#define PM_STAGE_OTHER "other"

pm_stagemap *pm_stagemap_new(void);
void pm_stagemap_free(pm_stagemap *m);
/* Appends the rules of one file (several files may be loaded; earlier rules win). */
int pm_stagemap_load(pm_stagemap *m, const char *path, pm_err *err);
/* The data directory's table format, shared by the stage maps and the pass alias table: each line three
 * tab-separated non-empty fields (trimmed), '#' to the end of a line a comment, blank lines skipped. fn gets each
 * row with its origin and line number; a malformed line is PM_ERR_PARSE "ORIGIN:LINE: expected EXPECTED". The
 * first error (a malformed line, or fn's) stops the walk. */
typedef int (*pm_tsv3_fn)(void *ctx, const char *const f[3], const char *origin, int lineno, pm_err *err);
int pm_tsv3_each(const char *text, const char *origin, const char *expected, pm_tsv3_fn fn, void *ctx, pm_err *err);
/* Parses rules from a NUL-terminated buffer; origin names it in error messages. */
int pm_stagemap_load_text(pm_stagemap *m, const char *text, const char *origin, pm_err *err);
/* Loads every data/stages-*.tsv of the data dir (pm_data_dir). Finding none is PM_ERR_NOTFOUND naming the
 * folders searched: every pass mapped to PM_STAGE_OTHER would be a confident, wrong study. */
int pm_stagemap_load_default(pm_stagemap *m, pm_err *err);
/* Stage of (tool, pass): the first matching rule's stage, else PM_STAGE_OTHER. Never NULL. A "NAME (self)" row
 * (a trace group's own time) is matched as NAME. */
const char *pm_stagemap_match(const pm_stagemap *m, const char *tool, const char *pass);
size_t pm_stagemap_rules(const pm_stagemap *m);
/* Stages in first-seen rule order (index < count). */
size_t pm_stagemap_n_stages(const pm_stagemap *m);
const char *pm_stagemap_stage(const pm_stagemap *m, size_t i);

/* Phases: the compile's coarse split a compiler engineer reads first (clang prints front end / optimizer /
 * machine code generation). A rule's optional fourth field names its stage's phase; a stage has one phase across
 * every map (loading another is an error naming the line). pm_stage_phases lists them in report order, NULL
 * ended. */
extern const char *const pm_stage_phases[];
int pm_stagemap_is_phase(const char *phase);
/* The phase of `stage`: its declared phase; "process" for PM_STAGE_OVERHEAD; "other" for a stage no rule gives a
 * phase (a map of three columns) or no map (m may be NULL) has. Never NULL. */
const char *pm_stagemap_phase(const pm_stagemap *m, const char *stage);

/* Which run metric sizes the IR that stage `stage` of tool `tool` works on: the x axis of the cost fits of that
 * stage's passes. A back end (backend.h) lists its rules in order (the first whose patterns match wins; a list
 * ends with a NULL metric); the sweep records them in its metadata ("fit_sizes") and the study reads them from
 * there. Here, below both, so the study needs no back-end header.
 * tool and stage are fnmatch patterns (NULL: any). In metric, "{stage}" stands for the stage's name, and such a
 * rule applies only where the store has that size (a probe that failed gives no fit, never another size);
 * "ir.*" is the first declared ir.* metric in name order, and applies only when no config carries ir.ops (the
 * generated input's size, which is no stand-in for a stage's IR). */
typedef struct pm_fit_size {
    const char *tool, *stage, *metric;
} pm_fit_size;

/* The data dir (stage maps, fix rules, study presets): $PASSMAP_DATA_DIR when set and non-empty; else
 * BINDIR/../share/passmap when that exists next to the running binary (make install, even when moved);
 * else the source tree's data/ it was built from (PM_DATA_DIR). */
const char *pm_data_dir(void);
/* The folder(s) pm_data_dir looked at and why, for error messages ("DIR (from $PASSMAP_DATA_DIR)"). */
void pm_data_dir_searched(char *buf, size_t n);

#endif
