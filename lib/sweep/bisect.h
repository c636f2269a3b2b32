/* pm_bisect: the commit behind a compile-time regression, by `git bisect run` in the compiler's source tree
 * (docs/regressions.md). Both ends are built (the user's build command, run by the runner in the tree) and swept
 * (the spec, each revision into its own store WORK/HASH.db) and compared by the one verdict rule (pm_compare_run):
 * the regressed rows are those slower at the bad end, of the finest level that has any (passes, else steps, else
 * the whole compile): the signal the bisection follows. Then for each revision git asks about, the step
 * (pm_bisect_step, run by `git bisect run` as `passmap bisect --step WORK`) builds, sweeps and compares with the
 * good end: a regressed row slower -> bad; every regressed row same or faster -> good; otherwise more repeats
 * (doubling, up to max_repeats), and still undecided -> `git bisect skip`, never a guess; a failed build ->
 * skip. The culprit is the first bad commit git names; the pass that moved most there is the slower pass row with
 * the largest increase between its parent and it, with its stage (the stage maps). Every comparison tests every
 * pass (compare --all-passes): a regressed pass stays tested at every revision, whatever its share of the wall. */
#ifndef PM_BISECT_H
#define PM_BISECT_H

#include <signal.h>
#include "error.h"

typedef struct pm_bisect_opts {
    const char *repo;             /* the compiler's git work tree (clean: bisect checks revisions out) */
    const char *good, *bad;       /* revisions: the good and the bad end */
    const char *build;            /* shell command run in repo for each revision (sh -c) */
    const char *spec;             /* the sweep spec: what to compile and how to read the timing reports */
    const char *work;             /* folder for the stores (one per revision: reused when there), logs, state */
    const char *self_exe;         /* passmap itself, for `git bisect run` (NULL: /proc/self/exe) */
    int repeats;                  /* first round per revision (0: 5) */
    int max_repeats;              /* the most a revision gets before it is skipped (0: 20) */
    double threshold;             /* 0: compare's default */
    int allow_contended;          /* keep contended verdicts (marked): for a machine known to be shared */
    double build_timeout_s;       /* per build (0: 1 h) */
    /* set (by a SIGINT handler): the build or `git bisect run` in progress is stopped as on a timeout, and the
     * tree is reset (`git bisect reset`) before pm_bisect_run returns; NULL: not cancellable */
    const volatile sig_atomic_t *cancel;
    void (*note)(void *user, const char *line);   /* progress lines; NULL: none */
    void *user;
} pm_bisect_opts;

typedef struct pm_bisect_result {
    char culprit[64];             /* the first bad commit; "" when none was named */
    char *subject;                /* its subject line */
    int steps;                    /* revisions the bisection tested (the ends not counted) */
    int skipped;                  /* of them skipped */
    char *level;                  /* what the bisection followed: "pass", "step" or "config" */
    char *pass_tool, *pass_name;  /* the pass that moved most at the culprit (NULL: no pass row slower) */
    char *stage;                  /* its stage by the stage maps (NULL: unmapped) */
    double ratio, ci_lo, ci_hi, delta_s;   /* its change from the culprit's parent to the culprit */
    char *why;                    /* no culprit: why (only skipped commits left, the ends not different) */
} pm_bisect_result;

/* The bisection; a result without a culprit is not an error (why says what stopped it). */
int pm_bisect_run(const pm_bisect_opts *o, pm_bisect_result *r, pm_err *err);
void pm_bisect_result_free(pm_bisect_result *r);
/* One revision, for `git bisect run`: *git_status 0 good, 1 bad, 125 skip; line: what was decided and why. An
 * error (the state unreadable, a store not written) returns its code: the caller exits 128, which stops git. */
int pm_bisect_step(const char *work, int *git_status, char *line, size_t n, pm_err *err);

#endif
