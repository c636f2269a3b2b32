/* What passmap fix's files share: its context and its A/B jobs (fix.c drives; fix_evidence.c reads the study,
 * fix_rounds.c measures the rounds, fix_checks.c checks outputs and the compiled program, fix_combos.c combines
 * fixes, fix_ledger.c writes the ledger's JSON). Not for use outside lib/fix. */
#ifndef PM_FIX_INTERNAL_H
#define PM_FIX_INTERNAL_H

#include "fix.h"
#include "decide.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analysis.h"
#include "backend.h"
#include "compare.h"
#include "contention.h"
#include "pgroup.h"
#include "fixplan.h"
#include "spec.h"
#include "stagemap.h"
#include "store.h"
#include "store_sweeps.h"
#include "util.h"

#define FIX_SWEEP_SUFFIX "-fix"

/* One A/B: variant b against variant a on a set of study configs. */
typedef struct job {
    char a[64], b[64];
    size_t *cfg;              /* evidence indexes */
    size_t n_cfg;
    long fix;                 /* catalogue row describing b (single or combination), -1 when none */
    pm_fix_verdict verdict;
    pm_fix_measure m;
    int repeats;              /* repeats asked in the last round that ran */
    char output[160];         /* outcome of the output check */
    int same;                 /* 1: the check found the outputs equal */
    int check_gave_no_answer; /* the check timed out or was interrupted: never combined, never shipped */
    json_t *detail;           /* regimes, cheaper/dearer passes */
    const char *note;
    int from_study;           /* b is the back end's warm path: the study's warm runs against its cold runs */
    json_t *ledger;           /* the program side (measure_program): {"run": {...}, "size": {...}}, or NULL */
    int tradeoff;             /* the compiled program measured slower than stock's (compare's rule) */
    double seen_ratio, seen_lo, seen_hi;   /* what the runs so far say, every config with a ratio (undecided
                                              too): geometric mean, the interval of a single config; shown when
                                              the budget ends it undecided (m.ratio holds decided configs only) */
} job;

typedef struct check_ref {    /* stock's side of a config's output check, built once */
    size_t cfg;
    char path[PATH_MAX];
    char error[256];
    int no_answer;            /* the build timed out, was interrupted or the budget's deadline stopped it */
} check_ref;

typedef struct fix_ctx {
    const pm_fix_opts *o;
    pm_store *store;
    pm_spec *src_spec;
    pm_analysis *an;
    const pm_backend_fix_ops *fx;    /* the study's back end's fix row */
    pm_fix_catalogue cat;
    pm_fix_evidence *ev;
    const pm_spec_config **ev_cfg;   /* the study spec's config of each evidence row */
    const pm_an_config **ev_an;
    char **heavy_names;              /* backing store of the evidence's heavy lists */
    size_t n_ev;
    const char **superlinear;
    size_t n_superlinear;
    char study[128], fix_sweep[160], backend[32];
    double t0, budget_s;
    int budget_hit;
    int min_r, max_r;
    double threshold;
    job *jobs;
    size_t n_jobs;
    check_ref *refs;
    size_t n_refs;
    char self[PATH_MAX];             /* passmap itself, resolved once: a rebuild during a long run replaces it */
    int an_borrowed;                 /* an is the caller's (pm_fix_propose): not freed here */
    int exclude_contended;           /* the report's proposals: no fix from a contended config */
    const char *none_why;            /* why no config is evidence (pm_fix_propose says it instead of failing) */
    pm_pgroup_recorder pgrec;        /* the [check]/[run] processes' groups, recorded while they run (pgroup.h) */
    int have_pgrec;
} fix_ctx;

/* Greedy: pm_fix_try_combo runs combination vs its base on the best fix's configs where every member's rule holds. */
typedef struct greedy_ctx {
    fix_ctx *x;
    const pm_fix_selection *sel;
    pm_err *err;
    int rc;
} greedy_ctx;

double pm_fix_elapsed(const fix_ctx *x);
/* The budget's deadline has come (--budget): budget_hit is set. Every part of `passmap fix` that starts work asks
 * first, so the command ends within the budget and one step's time. */
int pm_fix_past_deadline(fix_ctx *x);
/* A job still undecided when the budget ended its rounds: "undecided (budget)" with what it measured when it ran
 * (its ratio, interval and runs are kept), else "not run". */
void pm_fix_budget_ended(job *jb);
int pm_fix_is_fix_sweep(const char *name);
int pm_fix_is_stock(const char *variant);
int pm_fix_load_study(fix_ctx *x, pm_err *err);
int pm_fix_build_evidence(fix_ctx *x, pm_err *err);
void pm_fix_base_key(const char *key, const char *variant, char *out, size_t cap);
void pm_fix_ev_base(const fix_ctx *x, size_t k, char *out, size_t cap);
int pm_fix_ev_config(const fix_ctx *x, size_t k);
json_t *pm_fix_num(double v);
int pm_fix_measure_job(fix_ctx *x, job *jb, int repeats, int at_limit, pm_err *err);
int pm_fix_settle(fix_ctx *x, job **jobs, size_t n_jobs, pm_err *err);
void pm_fix_check_job(fix_ctx *x, job *jb);
job *pm_fix_new_job(fix_ctx *x, const char *a, const char *b, const size_t *cfg, size_t n, long fix, pm_err *err);
void pm_fix_job_ledger_json(const job *jb, json_t *o);
int pm_fix_keep_earlier_results(pm_store *st, const char *key, json_t *out, pm_err *err);
json_t *pm_fix_job_json(fix_ctx *x, const job *jb, const char *name, const pm_fix_def *def);
const pm_fix_pick *pm_fix_pick_of(const pm_fix_selection *sel, size_t fix);
pm_fix_verdict pm_fix_try_combo(void *user, const size_t *combo, size_t n, const size_t *base, size_t nb);
json_t *pm_fix_plan_json(fix_ctx *x, const pm_fix_selection *sel, double cost);
int pm_fix_runnable(void *user, size_t fix, size_t ev, char *why, size_t cap);
int pm_fix_cmp_ratio(const void *a, const void *b, void *ctx);
json_t *pm_fix_frontier_json(const fix_ctx *x, const json_t *rec_variant);
void pm_fix_note(fix_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
