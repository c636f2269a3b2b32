/* pm_gate: a CI gate on compile time. A sweep (a store) is compared with a baseline (a store, or a baseline file:
 * baseline.h) by the one verdict rule (pm_compare_run; docs/statistics.md), and the outcome is one of three,
 * each a stable exit status of `passmap gate` (docs/regressions.md):
 *   PM_GATE_PASS         nothing slower past the threshold (and, with fail_on_win, nothing faster);
 *   PM_GATE_FAIL         a config's deciding metric, a step or a pass is slower by the rule (or, with
 *                        fail_on_win, faster: a baseline that is not kept current hides the next regression);
 *   PM_GATE_INCONCLUSIVE nothing failed, but some config cannot be concluded on: undecided, no test (n < 3,
 *                        below resolution), contended, present on one side only, or its steps changed (the
 *                        config fingerprints differ other than in their tool lines: merge's rule for "the
 *                        same config", less the compiler build, which is what a gate compares).
 * A failure wins over an inconclusive config: it is a conclusion. Pass and step rows only ever add findings;
 * whether a config is concluded on is its deciding metric's verdict. The compiler builds of both sides (the tools
 * each sweep recorded) are named: a different build is what a gate compares. */
#ifndef PM_GATE_H
#define PM_GATE_H

#include <stddef.h>
#include "compare.h"
#include "error.h"

typedef enum pm_gate_outcome {
    PM_GATE_PASS = 0,
    PM_GATE_FAIL = 1,
    PM_GATE_INCONCLUSIVE = 3
} pm_gate_outcome;

typedef struct pm_gate_opts {
    const char *baseline;          /* a store, or a baseline file (`passmap baseline`) */
    const char *baseline_sweep;    /* NULL: the store's one sweep; ignored for a baseline file */
    const char *path;              /* the sweep's store */
    const char *sweep;             /* NULL: the store's one sweep */
    double threshold;              /* 0: PM_COMPARE_THRESHOLD */
    int fail_on_win;
    int allow_contended;           /* compare's --allow-contended: verdicts of contended configs kept, marked */
} pm_gate_opts;

typedef enum pm_gate_kind {
    PM_GATE_REGRESSION = 0,        /* slower by the rule */
    PM_GATE_WIN,                   /* faster by the rule */
    PM_GATE_UNSETTLED              /* no conclusion on the config (why says which) */
} pm_gate_kind;

typedef struct pm_gate_finding {
    pm_gate_kind kind;
    char *config;                  /* the matching key */
    char *tool, *pass;             /* NULL, NULL: the whole compile on the deciding metric; tool only: a step */
    const pm_compare_stat *st;     /* into the result's comparison; NULL for a config on one side only */
    char *why;                     /* one line: "slower 1.050x [1.038, 1.062]", "undecided ...", "missing ..." */
} pm_gate_finding;

typedef struct pm_gate_build {     /* one compiler tool a side's sweep recorded */
    const char *side;              /* "baseline" or "sweep" (a literal) */
    char *tool, *invoked, *version, *hash;
} pm_gate_build;

typedef struct pm_gate_result {
    pm_compare_result cmp;
    int baseline_is_file;
    char *meter;                   /* the baseline file's meter; NULL for a store */
    pm_gate_finding *findings;     /* regressions, then wins, then unsettled configs; by config within each */
    size_t n_findings;
    size_t n_regressions, n_wins, n_unsettled, n_concluded;   /* n_concluded: configs with a decided verdict */
    pm_gate_build *builds;
    size_t n_builds;
    int fail_on_win;
    pm_gate_outcome outcome;
} pm_gate_result;

/* Loads both sides, compares, classifies. Errors (PM_ERR_*) are for what could not be read; the outcome is in
 * out->outcome. */
int pm_gate_run(const pm_gate_opts *opts, pm_gate_result *out, pm_err *err);
void pm_gate_free(pm_gate_result *r);
/* "pass", "fail", "inconclusive" */
const char *pm_gate_outcome_name(pm_gate_outcome o);
/* "regression", "win", "unsettled" */
const char *pm_gate_kind_name(pm_gate_kind k);

#endif
