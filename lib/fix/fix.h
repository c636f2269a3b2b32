/* pm_fix: from a study's store to proven fixes. Reads the study (pm_analysis), evaluates the back end's fix
 * catalogue (pm_fixplan) on it, picks the configs where each fix should matter most, and runs an A/B sweep
 * named "<study>-fix" into the same store: stock against each fix at min_repeats, more repeats (interleaved
 * rounds, up to max_repeats) only while a fix's answer is not known, then greedy combinations of the fixes
 * that measured faster. Each faster variant's output is checked against stock where the back end can
 * (embedded: pm_embedded_check). Every A/B is judged with compare's numbers (pm_compare_run) and one verdict
 * rule (pm_fix_judge). The whole answer is a JSON object, also stored in the store's meta table under
 * "fix:<study>" so `report` can show it. Rerunning resumes: the plan is a function of the study alone, and
 * the sweep keeps every finished run. */
#ifndef PM_FIX_H
#define PM_FIX_H

#include <signal.h>
#include <jansson.h>
#include "error.h"
#include "sweep.h"

typedef void (*pm_fix_note_fn)(void *user, const char *line);
typedef void (*pm_fix_plan_fn)(void *user, const json_t *plan);

typedef struct pm_fix_opts {
    const char *db_path;
    const char *sweep;            /* the study; NULL: the latest sweep that is not itself a fix sweep */
    const char *catalogue_path;   /* NULL: $data_dir/fixes-<backend>.tsv */
    double budget_s;              /* wall clock for the whole command; <= 0: none */
    int configs_per_fix;          /* 0: 3 */
    int min_repeats, max_repeats; /* 0: 3 and 10 */
    double threshold;             /* practical threshold on |ratio - 1|; 0: compare's (PM_COMPARE_THRESHOLD) */
    int allow_contended;          /* judge A/Bs whose runs were contended (marked), instead of no conclusion */
    int dry_run;                  /* plan only */
    int no_check;                 /* skip the output check (the table then says "unchecked") */
    int accept_slower_code;       /* a fix whose compiled program runs slower (a trade-off) may be recommended */
    int check_window, check_layers; /* the reduced config the output check runs; 0: 128 and 2 */
    const char *self_exe;
    volatile sig_atomic_t *stop;
    pm_fix_note_fn note;          /* one line per event (round started, verdict, check) */
    pm_fix_plan_fn plan;          /* the plan, before anything runs */
    pm_sweep_progress_fn progress;/* per run of the A/B sweep */
    const char *meter;            /* how the rounds' steps are measured (meter.h); NULL: auto */
    int jobs;                     /* compiles at once in a round (sweep --jobs); 0/1: one; needs a count meter */
    void *user;
} pm_fix_opts;

/* The JSON key under which the store keeps the result of `passmap fix` on a study. */
#define PM_FIX_META_PREFIX "fix:"

int pm_fix_run(const pm_fix_opts *opts, json_t **result, pm_err *err);

struct pm_analysis;
/* The report's proposals: the plan `passmap fix --dry-run` makes (the same catalogue, evidence and rule matching,
 * no budget), from the caller's analysis of one sweep of the store at db_path (read only). Each fix of the plan
 * also lists "matches": every config its rule holds on, with its regime. Configs without pass rows are no
 * evidence, nor contended ones unless allow_contended. No usable config: a plan with no fixes and "none" saying
 * why (PM_OK). */
int pm_fix_propose(const char *db_path, struct pm_analysis *an, int allow_contended, json_t **plan, pm_err *err);

#endif
