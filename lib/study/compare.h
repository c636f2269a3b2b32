/* pm_compare: A/B comparison of two result sets (two databases, or two variants in one).
 *
 * Configs are matched on their key without the trailing variant component, or, given an axis, on all
 * their parameters but that axis ("llm/qwen2/0.5b/w256/int8/L1"
 * from ".../L1/stock"), so a fix run as another variant lines up with the stock run. Only runs with
 * mode 'cold' and status 'ok' count. For every matched config: whole-compile wall (run.wall_s), per step
 * tool (step.wall_s summed per run and tool) and per pass (counted pass wall summed per run and
 * (tool, pass name), so a pass that runs several times compares by its run total).
 *
 * The one verdict rule (every verdict, count and interval printed follows from it; docs/statistics.md gives each
 * part its reason):
 *   - ratio = geometric mean B / geometric mean A; Welch's t-test on the log times (n >= 3 on both sides,
 *     else no test: "n=2, no interval", and no claim). Each side's variance includes its timer's quantisation
 *     (tick^2/12 per reading), so constant or quantised samples never give a zero-width interval or p = 0; a
 *     flat side (every run (nearly) the same printed value) carries its rounding as a bias common to the runs,
 *     +-tick/2 per reading, that widens the interval whatever n (pm_stats_welch_log_tick);
 *   - below resolution: a row whose larger side's mean is under PM_COMPARE_RESOLUTION_TICKS ticks of its
 *     timer (the report format's tick for a pass, the runner's clock for walls and steps, a meter's floor) is
 *     not tested; a tested row whose rounding bound alone keeps it from every verdict reads so too;
 *   - families: the configs' compile walls, the step rows, the pass rows (by default only the passes that
 *     matter: PM_COMPARE_FAMILY_SHARE of the config's wall, the top PM_COMPARE_FAMILY_TOP per step;
 *     all_passes widens it). Within a family of m tests, p is Holm-adjusted and each row's interval is at
 *     alpha / m (Bonferroni), so all intervals of the family hold together with 95% probability;
 *   - the verdict comes from that interval and the threshold t (2% by default, --threshold), one function
 *     (pm_compare_decide): faster when its upper end < 1 - t, slower when its lower end > 1 + t, same when it
 *     lies wholly within [1 - t, 1 + t], otherwise undecided, with the fewest runs per side that would settle
 *     it (a monotone search, pm_stats_runs_to_decide) and that number's range;
 *   - no conclusion from contended runs: a config whose A or B runs are contended (contention.h, the rule the
 *     report's noise flags use) keeps its numbers, and its tested rows (wall, steps, passes) take part in the
 *     family as tested, but their verdict is withheld: "no conclusion (contended)". allow_contended
 *     (--allow-contended) keeps the verdict, marked contended. An untested row stays "n/a";
 *   - the summary's estimate (the geomean over configs) pools every tested, uncontended config, decided or not,
 *     and says how many of how many and how many decided; the decided-only mean is shown labelled so, and the
 *     per-regime table's is labelled "decided" (pm_compare_summary_text).
 * Δ = arithmetic mean B − mean A is shown for the seconds saved; it carries no claim. */
#ifndef PM_COMPARE_H
#define PM_COMPARE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "error.h"
#include "flagcost.h"
#include "passalias.h"

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
    int all_passes;                    /* 1: every pass row is in the pass family, not only the top ones */
    /* 1: configs match on their whole key, no variant split off (both sides one spec: the gate, a baseline, a
     * history, a bisection); a command config's key ends with an axis, which would otherwise read as its variant */
    int whole_key;
    /* Non-NULL: pass rows are matched on the names this table gives them (two builds of one compiler that
     * renamed a pass: passalias.h); a row so matched keeps the printed name in pm_compare_row.alias. */
    const pm_passalias *aliases;
} pm_compare_opts;

#define PM_COMPARE_THRESHOLD 0.02
#define PM_COMPARE_ALPHA 0.05
/* Below this many ticks of its timer (the larger side's mean), a row is below resolution: a tick is then more
 * than 10% of the value, five times the 2% threshold, and one reading's rounding alone (+-5%) exceeds it. */
#define PM_COMPARE_RESOLUTION_TICKS 10
/* The default pass family: passes with at least this share of the config's compile wall (either side), at
 * most the top PM_COMPARE_FAMILY_TOP of each step tool by time. Tens of thousands of per-function rows would
 * leave no interval narrow enough to decide anything. */
#define PM_COMPARE_FAMILY_SHARE 0.01
#define PM_COMPARE_FAMILY_TOP 10
/* A matched pass is the same pass. A pass run more than once prints " #N" from its second instance on, so a build
 * that adds an instance renumbers the rest (LLVM 16 put the AMX tile allocator, "Greedy Register Allocator",
 * before the general one, now "... #2"; LLVM 14's general one has no suffix). Where the two sides run a pass name
 * (after the alias table) a different number of times, or under other instance numbers, the instances are lined
 * up in order at every offset, and an offset fits when each pair's means are within this factor of each other;
 * the one offset that fits pairs them, or of several the closest (summed |log ratio|) when it is closer than the
 * next by more than 2x. Otherwise the pairs are by instance number and each is PM_VERDICT_AMBIGUOUS. One pass on one input moves less than 8x between builds of one compiler far more often
 * than a renumbered instance lands within 8x of its namesake (the AMX allocator is 1/40 to 1/90 of the general
 * one, tests/fixtures/llvm/greedy). Where both sides run the same instances, the match is by name. */
#define PM_COMPARE_SAME_PASS_FACTOR 8.0

enum { PM_COMPARE_NA = -1 };           /* significant: no test (n < 3 on a side, one side only, zero times) */

typedef enum pm_compare_verdict {
    PM_VERDICT_NA = 0,                 /* no test: no claim */
    PM_VERDICT_SAME,                   /* the interval lies wholly within [1 - threshold, 1 + threshold] */
    PM_VERDICT_FASTER,                 /* B faster than A: the interval's upper end < 1 - threshold */
    PM_VERDICT_SLOWER,                 /* the interval's lower end > 1 + threshold */
    PM_VERDICT_CONTENDED,              /* tested, but the A or B runs were contended: no conclusion */
    PM_VERDICT_UNDECIDED,              /* tested, the interval straddles a threshold: more repeats would tell */
    PM_VERDICT_BELOW_RESOLUTION,       /* within a few ticks of its timer: no test */
    PM_VERDICT_OUTSIDE,                /* a pass outside the default family (all_passes tests it): no test */
    PM_VERDICT_AMBIGUOUS               /* a pass matched across builds whose instance or magnitude disagrees:
                                          maybe not the same pass; shown, no test (PM_COMPARE_SAME_PASS_FACTOR) */
} pm_compare_verdict;

typedef struct pm_compare_stat {
    size_t n_a, n_b;
    double mean_a, mean_b, sd_a, sd_b; /* arithmetic, for the seconds saved; NaN where not computable */
    double gmean_a, gmean_b;           /* geometric means */
    double lo_a, hi_a, lo_b, hi_b;     /* each side's 95% log-t interval of its gmean (uncorrected); NaN: n < 3 */
    double ratio, ci_lo, ci_hi;        /* gmean B / gmean A; its interval, simultaneous at 95% over the family
                                          (Bonferroni: level = alpha / m) */
    double t, df, p;                   /* Welch on log B − log A; p raw */
    double se_log;                     /* standard error of log B − log A, quantisation included */
    double var_log;                    /* per-run log variance of A plus that of B */
    double var_a, var_b;               /* each side's per-run log variance, its rounding's variance included (the
                                          runs-to-settle search) */
    double bias_log;                   /* the rounding bound common to every run (a flat side: reads * tick / 2 of
                                          it, pm_stats_welch_log_tick), on the log scale; ci_lo..ci_hi are widened
                                          by it and p tests what lies beyond it. 0: none */
    double p_holm, level;              /* Holm-adjusted p within the row's family; the alpha of ci_lo..ci_hi */
    size_t family_m;                   /* tests in the row's family (the Bonferroni m) */
    double tick;                       /* the timer's tick of this row, s (0: none declared) */
    double repeats_needed;             /* undecided: the fewest runs per side at which the rule would decide at the
                                          observed spread and ratio (pm_stats_runs_to_decide; NaN: none would) */
    double repeats_needed_lo, repeats_needed_hi;   /* the same at the ends of the spread's 80% interval (hi
                                          INFINITY: the spread's upper end would never decide) */
    double delta;                      /* mean B − mean A, s */
    pm_compare_verdict verdict;
    pm_compare_verdict tested;         /* what the rule says of the numbers (verdict before withholding) */
    int contended;                     /* the A or B runs of its config were contended */
    int significant;                   /* 1 (faster/slower), 0 (same), or PM_COMPARE_NA (no test, no claim) */
} pm_compare_stat;

/* The rule, as library functions (the fix study reuses them). pm_compare_test fills st from the samples
 * (times > 0; a zero makes it untestable) without correction; pm_compare_correct applies Holm to the p-values
 * of one family and Bonferroni to its intervals, and sets each verdict with pm_compare_decide. The samples
 * may be of any metric (wall, CPU time, instructions): the rule only needs positive values of one timer. */
void pm_compare_test(const double *a, size_t na, const double *b, size_t nb, pm_compare_stat *st);
/* The same with the timer's tick (s; 0: none) and how many tick-rounded readings make one value (a pass that
 * runs k times per compile is summed from k readings): the quantisation variance reads * tick^2 / 12, a flat
 * side's bias bound reads * tick / 2, and the resolution rule (PM_COMPARE_RESOLUTION_TICKS). A deterministic
 * meter (instruction counts) passes its floor as the tick: constant counts then test with a finite p. */
void pm_compare_test_tick(const double *a, size_t na, const double *b, size_t nb, double tick, double reads,
                          pm_compare_stat *st);
int pm_compare_correct(pm_compare_stat *const *family, size_t m, double alpha, double threshold);
/* The one verdict function: an interval [lo, hi] of a ratio B/A against the practical threshold.
 * faster: hi < 1 - threshold; slower: lo > 1 + threshold; same: 1 - threshold <= lo and hi <= 1 + threshold;
 * undecided otherwise; n/a when the interval is missing (NaN). */
pm_compare_verdict pm_compare_decide(double lo, double hi, double threshold);
/* After the correction: a row of contended runs gets "no conclusion (contended)" (unless allow; an untested
 * row stays n/a); its numbers are untouched. */
void pm_compare_withhold(pm_compare_stat *st, int contended, int allow);
/* "faster", "slower", "same", "undecided", "below resolution", "n/a", "not tested (outside the family)",
 * "no conclusion (contended)", "ambiguous match (not tested)" */
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
    char *alias;                       /* the name a build printed when it differs from pass (the alias table renamed it,
                                          or its instances were lined up with B's: PM_COMPARE_SAME_PASS_FACTOR);
                                          else NULL */
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
    size_t n_all;                      /* matched configs of this regime */
    size_t n_configs;                  /* of them decided, uncontended, with a usable wall ratio */
    double geomean_ratio;
    size_t faster, slower;
} pm_compare_regime;

typedef struct pm_compare_side {
    char *path, *sweep, *variant;
    char *meter;                       /* the meter row its sweep was measured with (meter.h); NULL: not recorded */
    int walls_slowed;                  /* its walls are an instrumented run's (valgrind), not compile times */
    /* its timing flags' cost against their uninstrumented twins ("clang-22 -ftime-report +44%"), whose walls
     * its compile-wall rows are (pass and step rows stay the instrumented runs'); NULL: no twins */
    char *timing_flags;
    pm_an_flagcost flagcost;           /* the rows behind it (flagcost.h): pm_flagcost_differ between the sides */
} pm_compare_side;

typedef struct pm_compare_result {
    pm_compare_side a, b;
    pm_compare_config *configs;        /* sorted by key */
    size_t n_configs;
    char **only_a, **only_b;           /* unmatched full keys */
    size_t n_only_a, n_only_b;
    pm_compare_pass_total *passes;     /* sorted by |delta| descending */
    size_t n_passes;
    /* The summary's estimate, over every tested config not withheld as contended (decided or not: deciding
     * selects the larger effects, so a mean of the decided ones is biased): n_pooled of n_configs, the geometric
     * mean of their ratios (each config alike) and its t interval over them (NaN below 3 configs), which holds
     * the between-config spread (random effects, equal weights). pm_compare_summary_text's number. */
    size_t n_pooled;
    double pooled_ratio, pooled_ci_lo, pooled_ci_hi;
    /* The decided only (faster, slower, same), uncontended configs with a usable ratio: n_ratios of n_configs
     * (contended ones count with --allow-contended, marked). Biased away from 1; shown only labelled so. */
    size_t n_ratios;
    double geomean_ratio;              /* NaN when no config is decided */
    double geomean_ci_lo, geomean_ci_hi; /* t interval on their log ratios; NaN if fewer than 3 */
    size_t faster, slower;             /* configs faster / slower in B by the rule */
    size_t same, undecided, untested;  /* configs same / undecided / without a verdict (n/a, below resolution) */
    size_t n_contended;                /* configs whose deciding metric's verdict met contended runs (a count
                                          never does: decide.h) */
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
/* Instructions are not time: when a count decided c and its verdict and the wall's (a decided wall, not withheld)
 * differ (a memory- or I/O-bound change, a parallel tool), 1 and buf says so ("instructions same, wall slower");
 * else 0 and buf "". */
int pm_compare_disagree(const pm_compare_result *r, const pm_compare_config *c, char *buf, size_t n);

/* Loads both sides and compares. PM_ERR_USAGE for an ambiguous or unknown sweep/variant (the message
 * lists the choices); errors from opening the databases as pm_store_open_readonly gives them. No config
 * matched is not an error here (n_configs == 0). */
int pm_compare_run(const pm_compare_opts *opts, pm_compare_result *out, pm_err *err);
void pm_compare_free(pm_compare_result *r);

/* Fills the summary fields (counts, the pooled estimate, the decided-only mean, the regimes; r->regimes must be
 * NULL) from r->configs after their verdicts are set, as pm_compare_run does. -1: out of memory. */
int pm_compare_summarize(pm_compare_result *r);

/* The summary in one line, every withholding said on it: "0.849× [0.765, 0.942] (95% over configs) from 3 of 4
 * configs, 2 decided (decided only: 0.801×) (1 contended withheld left out); 2 faster, 0 slower, 0 same, 1
 * undecided" — the pooled estimate first — or, when no config was tested, "no summary: ..." with the reasons. */
void pm_compare_summary_text(const pm_compare_result *r, char *buf, size_t n);

/* The human tables (text, Markdown) and the JSON are in lib/output/compare_out.h; the verdict rule's functions
 * above are defined in verdict.c. */

/* Splits a config key into its matching key and variant: the variant is the given column value when it
 * is the key's last '/'-component (or, with a NULL column, that last component); the base is the key
 * without it. Both malloc'd. */
int pm_compare_split_key(const char *key, const char *variant_column, char **base, char **variant, pm_err *err);

#endif
