/* pm_compare: A/B comparison of two result sets (two databases, or two variants in one).
 *
 * Configs are matched on their key without the trailing variant component, or, given an axis, on all
 * their parameters but that axis ("llm/qwen2/0.5b/w256/int8/L1"
 * from ".../L1/stock"), so a fix run as another variant lines up with the stock run. Only runs with
 * mode 'cold' and status 'ok' count. For every matched config: whole-compile wall (run.wall_s), per step
 * tool (step.wall_s summed per run and tool) and per pass (counted pass wall summed per run and
 * (tool, pass name), so a pass that runs several times compares by its run total).
 * Ratios are B/A; Δ = mean B − mean A; σ = sqrt(sdA²/nA + sdB²/nB); significant when |Δ| ≥ 3σ, Δ ≠ 0
 * and n ≥ 2 on both sides. */
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
} pm_compare_opts;

enum { PM_COMPARE_NA = -1 };           /* significant: not computable (n < 2 on a side) */

typedef struct pm_compare_stat {
    size_t n_a, n_b;
    double mean_a, mean_b, sd_a, sd_b; /* NaN where not computable */
    double ratio, ci_lo, ci_hi;        /* mean B / mean A, 95% CI (delta method) */
    double t, df, p;                   /* Welch on B − A */
    double delta, sigma;
    int significant;                   /* 1, 0, or PM_COMPARE_NA */
} pm_compare_stat;

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
    pm_compare_stat wall;
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
    double geomean_ci_lo, geomean_ci_hi; /* t interval on the log ratios across configs; NaN if n < 2 */
    size_t faster, slower;             /* configs significantly faster / slower in B */
    pm_compare_regime *regimes;        /* sorted by name */
    size_t n_regimes;
} pm_compare_result;

/* Loads both sides and compares. PM_ERR_USAGE for an ambiguous or unknown sweep/variant (the message
 * lists the choices); errors from opening the databases as pm_store_open_readonly gives them. No config
 * matched is not an error here (n_configs == 0). */
int pm_compare_run(const pm_compare_opts *opts, pm_compare_result *out, pm_err *err);
void pm_compare_free(pm_compare_result *r);

typedef enum pm_compare_format { PM_COMPARE_TEXT = 0, PM_COMPARE_MARKDOWN } pm_compare_format;

/* Human tables. top: per-config pass rows and summary pass rows shown (the largest |Δ|); 0: all. */
int pm_compare_write(FILE *out, const pm_compare_result *r, pm_compare_format fmt, size_t top, pm_err *err);
/* Everything as JSON (NaN as null); NULL when out of memory. */
json_t *pm_compare_to_json(const pm_compare_result *r);

/* Splits a config key into its matching key and variant: the variant is the given column value when it
 * is the key's last '/'-component (or, with a NULL column, that last component); the base is the key
 * without it. Both malloc'd. */
int pm_compare_split_key(const char *key, const char *variant_column, char **base, char **variant, pm_err *err);

#endif
