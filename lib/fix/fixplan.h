/* pm_fixplan: the fix catalogue (data/fixes-BACKEND.tsv, or [fix NAME] sections of a spec), its rules
 * evaluated against a study's evidence, the choice of configs where each fix should matter most, the
 * budget that bounds the A/B, and the greedy combination. Pure logic: no process, no database, so every
 * decision `passmap fix` takes is unit-tested. */
#ifndef PM_FIXPLAN_H
#define PM_FIXPLAN_H

#include <stddef.h>
#include "backend.h"
#include "error.h"
#include "config.h"

/* A pass is "heavy" in a config when it takes at least this share of the compile wall. */
#define PM_FIX_HEAVY_SHARE 0.05

typedef struct pm_fix_def {
    char *name;          /* "no-rollback" */
    char *variant;       /* the compile variant ("no-rollback", "tile-512", "a+b"); "-": none in this back end */
    char *regime;        /* comma-separated globs on the dominant stage */
    char *pass;          /* comma-separated globs on a heavy pass */
    int superlinear;     /* 1: a pass matching `pass` must have a superlinear fit; 0: not needed */
    char *size;          /* NAME OP NUMBER terms joined by '&', or "*" */
    char *why;
    int line;
} pm_fix_def;

typedef struct pm_fix_catalogue {
    pm_fix_def *items;
    size_t n;
} pm_fix_catalogue;

/* TSV rows name<TAB>variant<TAB>regime<TAB>pass<TAB>superlinear<TAB>size<TAB>why; '#' comments. Every size
 * condition is validated here, so matching never fails later. `name` labels errors (the file path). */
int pm_fix_catalogue_parse(const char *text, const char *name, pm_fix_catalogue *cat, pm_err *err);
int pm_fix_catalogue_load(const char *path, pm_fix_catalogue *cat, pm_err *err);
/* The fixes a spec declares (the back end read their [fix NAME] sections: backend.h pm_fix_decl): the rule
 * words are validated like a catalogue row, and a size term may also name an axis of the study (axes:
 * NULL-terminated, or NULL); errors name `name` (the spec) and the fix's line. */
int pm_fix_catalogue_from_decls(const pm_fix_decl *decls, int n, const char *const *axes, const char *name,
                                pm_fix_catalogue *cat, pm_err *err);
void pm_fix_catalogue_free(pm_fix_catalogue *cat);
/* Index of the fix whose variant is the same set of '+'-joined tokens as `variant`, or -1. */
long pm_fix_catalogue_find_variant(const pm_fix_catalogue *cat, const char *variant);
/* 1 when the fix is a combination (its variant joins several tokens). */
int pm_fix_is_combination(const pm_fix_def *f);

/* What the study says about one stock config. Numbers are NAN when not measured. */
typedef struct pm_fix_evidence {
    const char *key;                   /* the config's key in the study */
    const char *regime;                /* its dominant stage */
    const char *const *heavy;          /* passes >= PM_FIX_HEAVY_SHARE of its wall */
    size_t n_heavy;
    double window, layers, tile, ops, llvm_ops, wall_s;
    const pm_param *params;            /* the config's axes (a size term may name one; a number, else false) */
    size_t n_params;
} pm_fix_evidence;

/* 1 when the fix's rule holds for the config; superlinear: the names of passes the study fits as superlinear. */
int pm_fix_rule_matches(const pm_fix_def *f, const pm_fix_evidence *e, const char *const *superlinear,
                        size_t n_superlinear);

/* The configs each single fix is measured on: where its rule holds, at most per_fix of them, one per regime in
 * turn (regimes ordered by their slowest config), the slowest first within a regime. */
typedef struct pm_fix_pick {
    size_t fix;                        /* index in the catalogue */
    size_t *configs;                   /* indexes into the evidence */
    size_t n_configs;
    const char *why_not;               /* NULL, or why it is not measured ("no config matches its rule", ...) */
    char note[192];                    /* "WHY (N configs)" when the back end refused some configs, or "" */
    int from_study;                    /* measured from the study's own runs: no run, no budget, all configs */
} pm_fix_pick;

typedef struct pm_fix_selection {
    pm_fix_pick *picks;                /* one per single fix of the catalogue, in catalogue order */
    size_t n;
} pm_fix_selection;

int pm_fix_select(const pm_fix_catalogue *cat, const pm_fix_evidence *ev, size_t n_ev, const char *const *superlinear,
                  size_t n_superlinear, int per_fix, pm_fix_selection *out, pm_err *err);
void pm_fix_selection_free(pm_fix_selection *sel);
/* pm_fix_select with the back end's say: a fix whose variant is from_study_variant is measured from the study's
 * own runs (pick.from_study: every matching config, no cost); runnable (NULL: always) may refuse a (fix,
 * config) pair with why (a phrase: "not runnable for ..."): such configs are skipped, and the pick's note (its
 * why_not when none is left) says "WHY (N configs)". */
typedef struct pm_fix_select_opts {
    int per_fix;
    const char *from_study_variant;
    int (*runnable)(void *user, size_t fix, size_t ev, char *why, size_t cap);
    void *user;
} pm_fix_select_opts;
int pm_fix_select_ex(const pm_fix_catalogue *cat, const pm_fix_evidence *ev, size_t n_ev,
                     const char *const *superlinear, size_t n_superlinear, const pm_fix_select_opts *so,
                     pm_fix_selection *out, pm_err *err);

/* Estimated cost of the single-fix A/B at `repeats` runs per (config, variant): the stock runs of a config are
 * shared by every fix measured on it; each run costs the config's study wall (a fix is assumed no faster). */
double pm_fix_plan_cost(const pm_fix_selection *sel, const pm_fix_evidence *ev, int repeats);
/* Trims the selection until its cost fits `budget_s` (<= 0: no budget): drops the last config of the fix with
 * the most configs, keeping one per fix as long as possible, then whole fixes, the dearest first (their
 * why_not says "budget"). Returns the number of (fix, config) pairs dropped. */
size_t pm_fix_fit_budget(pm_fix_selection *sel, const pm_fix_evidence *ev, int repeats, double budget_s);

/* How one A/B came out (B = fix, A = its base), judged with compare's numbers. */
typedef enum pm_fix_verdict {
    PM_FIX_UNDECIDED = 0,  /* neither side of the threshold yet: more repeats would tell */
    PM_FIX_BETTER,         /* faster: CI below 1 and past the threshold */
    PM_FIX_WORSE,          /* slower: CI above 1 and past the threshold */
    PM_FIX_NO_EFFECT,      /* undecided at the repeat limit */
    PM_FIX_CHANGES_OUTPUT, /* the compiled code computes something else: never recommended */
    PM_FIX_NOT_RUN,        /* not measured (no config, budget, no variant) */
    PM_FIX_CONTENDED,      /* at the repeat limit with contended A or B runs: no conclusion (contention.h) */
    PM_FIX_UNSETTLED,      /* at the repeat limit, some config still undecided ("undecided"; repeats_needed says
                              how many more would settle it) */
    PM_FIX_UNDECIDED_BUDGET   /* its rounds ran, undecided, when the budget ended them ("undecided (budget)"): its
                                 ratio, interval and runs so far are reported */
} pm_fix_verdict;

const char *pm_fix_verdict_name(pm_fix_verdict v);

typedef struct pm_fix_measure {
    size_t n_configs;      /* configs with a ratio (0: nothing was measured, e.g. no ok runs on a side) */
    int min_n;             /* fewest ok cold runs on either side of any of them */
    double ratio;          /* compare's summary estimate: geometric mean B/A over the tested, uncontended
                              configs (pm_compare_result.pooled_ratio) */
    double lo, hi;         /* its 95% CI across those configs (NAN with fewer than 3) */
    /* compare's own per-config verdicts on the compile wall (one rule, pm_compare_decide on intervals
     * simultaneous over the configs): */
    size_t faster, slower, same, undecided, untested;
    double repeats_needed; /* most repeats per side an undecided config needs (NaN: none or not estimable) */
    size_t n_contended;    /* configs whose A or B runs were contended (compare's n_contended) */
    int allow_contended;   /* judge them anyway (--allow-contended) */
} pm_fix_measure;

/* The verdict, from compare's per-config verdicts: no conclusion from fewer than 3 runs a side, nor from
 * contended runs (unless allow_contended: UNDECIDED while repeats remain, since later rounds may run on a
 * quieter machine, CONTENDED at the limit). WORSE as soon as any config is slower; otherwise, while any config
 * is undecided or untested, UNDECIDED (more repeats) and UNSETTLED at the limit; with every config decided,
 * BETTER when at least one is faster (none slower), NO_EFFECT when all are the same. A fix ships only BETTER. */
pm_fix_verdict pm_fix_judge(const pm_fix_measure *m, int at_limit, double threshold);

/* Greedy combination: ranked = fixes that measured BETTER alone, best first. Starting from the best, each next
 * fix is added when try_combo(combination + fix, against the combination) says BETTER; a NOT_RUN answer (budget
 * spent) stops the search. best/n_best receive the combination to ship (caller's array, room for n_ranked). */
typedef pm_fix_verdict (*pm_fix_try_fn)(void *user, const size_t *combo, size_t n_combo, const size_t *base,
                                        size_t n_base);
int pm_fix_greedy(const size_t *ranked, size_t n_ranked, pm_fix_try_fn try_combo, void *user, size_t *best,
                  size_t *n_best, int *stopped_by_budget);

/* The variant of a combination of catalogue fixes: their variant tokens, '+'-joined in catalogue order. */
int pm_fix_combo_variant(const pm_fix_catalogue *cat, const size_t *combo, size_t n, char *out, size_t cap,
                         pm_err *err);

#endif
