/* pm_compare: A/B comparison of two result sets (two databases, or two variants in one).
 *
 * Configs are matched on their key without the trailing variant component, or, given an axis, on all
 * their parameters but that axis ("llm/qwen2/0.5b/w256/int8/L1"
 * from ".../L1/stock"), so a fix run as another variant lines up with the stock run. Only runs with
 * mode 'cold' and status 'ok' count. For every matched config: whole-compile wall (run.wall_s), per step
 * tool (step.wall_s summed per run and tool) and per pass (counted pass wall summed per run and
 * (tool, pass name), so a pass that runs several times compares by its run total).
 *
 * The one significance rule (every verdict, count and interval printed follows from it):
 *   - ratio = geometric mean B / geometric mean A; Welch's t-test on the log times (n >= 3 on both sides,
 *     else no test: "n=2, no interval", and no claim);
 *   - Holm's correction across the tests of one family of one comparison: the configs' compile walls are
 *     one family, the step rows another, the pass rows a third;
 *   - the ratio's 95% interval comes from the same computation at the Holm-corrected level, so it excludes 1
 *     exactly when the Holm-adjusted p is below 0.05;
 *   - a row is faster / slower only when that corrected interval excludes 1 AND |ratio - 1| >= the practical
 *     threshold (2% by default, --threshold), as criterion.rs does with its noise threshold; otherwise "same";
 *   - no conclusion from contended runs: a config whose A or B runs are contended (contention.h, the rule the
 *     report's noise flags use) keeps its numbers, and its tested rows (wall, steps, passes) take part in Holm's
 *     correction as tested, but their verdict is withheld: "no conclusion (contended)". allow_contended
 *     (--allow-contended) keeps the verdict, marked contended. An untested row stays "n/a".
 * Δ = arithmetic mean B − mean A is shown for the seconds saved; it carries no claim. */
#ifndef PM_COMPARE_H
#define PM_COMPARE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "error.h"

typedef struct pm_compare_opts {
    const char *path_a, *path_b;       /* the same path is allowed: then pick two variants */
    const char *sweep_a, *sweep_b;     /* NULL: the database must hold exactly one sweep */
    const char *variant_a, *variant_b; /* NULL: the side must hold exactly one variant */
    /* Non-NULL: match on this axis instead of the variant: variant_a/variant_b are its two values and
     * configs pair up when all their other parameters are equal (--a AXIS=V --b AXIS=W). */
    const char *axis;
    double threshold;                  /* practical threshold on |ratio - 1|; 0: PM_COMPARE_THRESHOLD */
    /* 1: no pass rows (the report's A/B shows walls only). Holm works within each family, so the walls and
     * steps get the very numbers and marks of a full comparison; loading the pass rows is most of the cost. */
    int walls_only;
    int allow_contended;               /* 1: keep the verdicts of contended configs (marked), not withhold them */
    /* The run mode each side counts (NULL: "cold"). "warm" on B against "cold" on A with one sweep and variant
     * on both sides: a back end's warm path (the NPU's blob import) against the recompile, by the same rule;
     * contention is still judged on the config's cold runs (the import runs in the compile's process). */
    const char *mode_a, *mode_b;
    int max_repeats;                   /* > 0: only cold runs with repeat < max_repeats (what a sweep had run at
                                          that repeat count, so a resumed adaptive search sees the same data) */
} pm_compare_opts;

#define PM_COMPARE_THRESHOLD 0.02
#define PM_COMPARE_ALPHA 0.05

enum { PM_COMPARE_NA = -1 };           /* significant: no test (n < 3 on a side, one side only, zero times) */

typedef enum pm_compare_verdict {
    PM_VERDICT_NA = 0,                 /* no test: no claim */
    PM_VERDICT_SAME,                   /* tested: corrected CI holds 1, or the change is below the threshold */
    PM_VERDICT_FASTER,                 /* B faster than A */
    PM_VERDICT_SLOWER,
    PM_VERDICT_CONTENDED               /* tested, but the A or B runs were contended: no conclusion */
} pm_compare_verdict;

typedef struct pm_compare_stat {
    size_t n_a, n_b;
    double mean_a, mean_b, sd_a, sd_b; /* arithmetic, for the seconds saved; NaN where not computable */
    double gmean_a, gmean_b;           /* geometric means */
    double lo_a, hi_a, lo_b, hi_b;     /* each side's 95% log-t interval of its gmean (uncorrected); NaN: n < 3 */
    double ratio, ci_lo, ci_hi;        /* gmean B / gmean A; 95% interval at the Holm-corrected level */
    double t, df, p;                   /* Welch on log B − log A; p raw */
    double se_log;                     /* standard error of log B − log A (0: both sides constant) */
    double p_holm, level;              /* Holm-adjusted p within the row's family; the alpha of ci_lo..ci_hi */
    double delta;                      /* mean B − mean A, s */
    pm_compare_verdict verdict;
    pm_compare_verdict tested;         /* what the rule says of the numbers (verdict before withholding) */
    int contended;                     /* the A or B runs of its config were contended */
    int significant;                   /* 1 (faster/slower), 0 (same), or PM_COMPARE_NA (no test, no claim) */
} pm_compare_stat;

/* The rule, as library functions (the fix study reuses them). pm_compare_test fills st from the samples
 * (times > 0; a zero makes it untestable) without correction; pm_compare_correct applies Holm over one
 * family, sets each interval and verdict. */
void pm_compare_test(const double *a, size_t na, const double *b, size_t nb, pm_compare_stat *st);
int pm_compare_correct(pm_compare_stat *const *family, size_t m, double alpha, double threshold);
/* After the correction: a row of contended runs gets "no conclusion (contended)" (unless allow; an untested
 * row stays n/a); its numbers are untouched. */
void pm_compare_withhold(pm_compare_stat *st, int contended, int allow);
/* "faster", "slower", "same", "n/a", "no conclusion (contended)" */
const char *pm_compare_verdict_name(pm_compare_verdict v);
/* The rule in one sentence: the legend every table with a mark prints (compare's header, the report). */
void pm_compare_rule_text(char *buf, size_t n, double threshold, int allow_contended);

typedef enum pm_compare_presence {
    PM_COMPARE_BOTH = 0,
    PM_COMPARE_ADDED,                  /* only in B */
    PM_COMPARE_REMOVED                 /* only in A */
} pm_compare_presence;

typedef struct pm_compare_row {
    char *tool;                        /* step tool ("mlir-opt", "llc" ...) */
    char *pass;                        /* pass name; NULL in step rows */
    pm_compare_presence presence;
    pm_compare_stat st;
} pm_compare_row;

typedef struct pm_compare_config {
    char *key;                         /* the matching key (no variant) */
    char *key_a, *key_b;               /* full keys */
    char *regime;                      /* step tool with the largest mean wall on side A, or "-" */
    char *contended_a, *contended_b;   /* why that side's runs were contended ("load 5.2 > 2 CPUs"); NULL: not */
    pm_compare_stat wall;
    /* The whole compile on the deciding metric (decide.h; pm_compare_result.decided_on) when that is not wall:
     * its test is the config's verdict, in the configs' Holm family; wall is then shown, corrected as a family
     * of its own, and decides nothing. Untested (n 0) when wall decides. pm_compare_decider picks. */
    pm_compare_stat metric;
    pm_compare_row *steps;             /* sorted by tool */
    size_t n_steps;
    pm_compare_row *passes;            /* sorted by |Δ| descending */
    size_t n_passes;
} pm_compare_config;

/* One pass over all matched configs: sums of the per-config means. */
typedef struct pm_compare_pass_total {
    char *tool, *pass;
    size_t n_configs;                  /* configs where it appears on either side */
    double total_a, total_b, delta;    /* delta = total_b − total_a; saved time = −delta */
    size_t faster, slower;             /* configs where it is significantly faster / slower in B */
    size_t added, removed;             /* configs where it is only in B / only in A */
} pm_compare_pass_total;

typedef struct pm_compare_regime {
    char *regime;
    size_t n_configs;                  /* with a usable wall ratio */
    double geomean_ratio;
    size_t faster, slower;
} pm_compare_regime;

typedef struct pm_compare_side {
    char *path, *sweep, *variant;
} pm_compare_side;

typedef struct pm_compare_result {
    pm_compare_side a, b;
    pm_compare_config *configs;        /* sorted by key */
    size_t n_configs;
    char **only_a, **only_b;           /* unmatched full keys */
    size_t n_only_a, n_only_b;
    pm_compare_pass_total *passes;     /* sorted by |delta| descending */
    size_t n_passes;
    /* Summary over configs with a usable wall ratio (n_ratios of n_configs). */
    size_t n_ratios;
    double geomean_ratio;
    double geomean_ci_lo, geomean_ci_hi; /* t interval on the log ratios across configs; NaN if n < 3 */
    size_t faster, slower;             /* configs faster / slower in B by the rule */
    size_t n_contended;                /* configs whose A or B runs were contended */
    int allow_contended;               /* their verdicts were kept (marked), not withheld */
    double threshold;                  /* the practical threshold used */
    pm_compare_regime *regimes;        /* sorted by name */
    size_t n_regimes;
    /* Matched configs whose A and B runs come from different machines (their ratios include the machines'
     * difference): how many, and a sentence naming the first; NULL when none. */
    size_t n_cross_host;
    char *host_warning;
    int decided_on;                    /* pm_decide_metric: what the configs' verdicts were decided on */
} pm_compare_result;

/* The stat a config's verdict is drawn from: metric when another metric than wall decided, else wall. */
const pm_compare_stat *pm_compare_decider(const pm_compare_result *r, const pm_compare_config *c);

/* Loads both sides and compares. PM_ERR_USAGE for an ambiguous or unknown sweep/variant (the message
 * lists the choices); errors from opening the databases as pm_store_open_readonly gives them. No config
 * matched is not an error here (n_configs == 0). */
int pm_compare_run(const pm_compare_opts *opts, pm_compare_result *out, pm_err *err);
void pm_compare_free(pm_compare_result *r);

/* The human tables (text, Markdown) are in lib/output/compare_out.h. */
/* Everything as JSON (NaN as null); NULL when out of memory. */
json_t *pm_compare_to_json(const pm_compare_result *r);

/* Splits a config key into its matching key and variant: the variant is the given column value when it
 * is the key's last '/'-component (or, with a NULL column, that last component); the base is the key
 * without it. Both malloc'd. */
int pm_compare_split_key(const char *key, const char *variant_column, char **base, char **variant, pm_err *err);

#endif
