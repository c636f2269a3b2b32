/* pm_history: a store's series of sweeps of one spec (one per compiler build, each named by `sweep --name`, its
 * label: a commit, a date, a version) as a series per config: the whole compile on the deciding metric, each step
 * tool, each stage (the stage maps over its passes), with the change points the one verdict rule finds between
 * consecutive sweeps: each pair compared by pm_compare_run, so a change point is exactly what `passmap compare
 * DB --a-sweep X --b-sweep Y` says (docs/regressions.md). A stage is a sum of passes and has no test of its own:
 * its change point is a pass of it slower or faster by the rule in that pair (the pass named). */
#ifndef PM_HISTORY_H
#define PM_HISTORY_H

#include <stddef.h>
#include "compare.h"
#include "error.h"

typedef enum pm_history_kind {
    PM_HISTORY_COMPILE = 0,    /* the whole compile, on the deciding metric */
    PM_HISTORY_STEP,           /* a step tool's wall */
    PM_HISTORY_STAGE           /* a stage: the sum of its passes' means */
} pm_history_kind;

typedef struct pm_history_point {
    double value;              /* geometric mean (compile, step) or sum of pass means (stage), s (or a count);
                                  NaN: not measured in that sweep */
    pm_compare_verdict change; /* against the sweep before: PM_VERDICT_SLOWER / FASTER mark a change point;
                                  anything else is none (the first point: PM_VERDICT_NA) */
    double ratio, ci_lo, ci_hi;   /* the change's ratio and interval (a stage: its pass that moved most) */
    double delta;              /* mean after - mean before of what changed, s (a stage: that pass's) */
    char *why;                 /* a stage's change: "pass isel: SelectionDAGISel 1.21x"; else NULL */
} pm_history_point;

typedef struct pm_history_row {
    pm_history_kind kind;
    char *name;                /* "wall"/"cpu"/"instructions", the step tool, the stage */
    pm_history_point *points;  /* one per sweep */
} pm_history_row;

typedef struct pm_history_config {
    char *key;                 /* the config's key (matched whole: compare's whole_key) */
    pm_history_row *rows;      /* compile first, then steps, then stages, by name */
    size_t n_rows, cap_rows;
} pm_history_config;

typedef struct pm_history_sweep {
    char *name;                /* the sweep's name (sweep --name) */
    char *label;               /* sweep --label: a commit, a date (NULL when none was given) */
    char *compiler;            /* the tools' --version lines, "; "-joined ("" when not recorded); along an axis,
                                  the tools whose program word names the value (llc-14 for llvm=14) */
} pm_history_sweep;

typedef struct pm_history {
    char *path;
    pm_history_sweep *sweeps;  /* in series order */
    size_t n_sweeps;
    pm_history_config *configs;   /* by key */
    size_t n_configs;
    size_t n_changes;          /* change points over every row */
    double threshold;
    char *axis;                /* the series is this axis's values (a point's name: "AXIS=V"); NULL: sweeps */
} pm_history;

typedef struct pm_history_opts {
    const char *path;
    const char *const *sweeps; /* the series, in order; NULL: every sweep of the store not superseded, oldest first */
    size_t n_sweeps;
    double threshold;          /* 0: compare's */
    int allow_contended;
    /* The series along an axis of one sweep instead (`llvm = 14, 16, 19, 22` with `argv = llc-{llvm}`): its
     * values in order, each pair compared as `compare DB DB --a AXIS=V --b AXIS=W`; configs match on every other
     * axis. sweeps then names at most one sweep (NULL: the store's only one). */
    const char *axis;
    const char *const *values;
    size_t n_values;
} pm_history_opts;

int pm_history_run(const pm_history_opts *o, pm_history *h, pm_err *err);
void pm_history_free(pm_history *h);
const char *pm_history_kind_name(pm_history_kind k);   /* "compile", "step", "stage" */

#endif
