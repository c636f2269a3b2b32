/* pm_shard: a deterministic partition of a sweep's configs over N machines.
 *
 * The unit is the config: all repeats of a config run on one machine, so a config's spread is never a mix of
 * machines. Configs are assigned longest-expected-first to the least loaded shard (ties: the config key, then the
 * lower shard), which depends only on the spec (and on the costs database, when one is given): every machine
 * computes the same shards. */
#ifndef PM_SHARD_H
#define PM_SHARD_H

#include "error.h"
#include "spec.h"
#include "store.h"

typedef struct pm_shard {
    int k, n;    /* shard k of n, 1 <= k <= n; n == 0: not sharded */
} pm_shard;

/* "K/N" with 1 <= K <= N. */
int pm_shard_parse(const char *text, pm_shard *out, pm_err *err);

/* Expected cost of each config (PM_COST_AUTO below): the mean wall of its ok cold runs in costs_db (a database of
 * an earlier sweep of the same configs, by config key) where known, else the probe's stage sizes recorded there
 * (every config) or an IR-size estimate (the generated input's size, grown with window / tile for LLMs and
 * resolution for CNNs; the model files' size for OpenVINO) scaled to seconds by the configs that have both.
 * costs_db NULL: estimates only. */
int pm_shard_costs(const pm_spec *spec, const char *costs_db, double *cost, pm_err *err);

/* Assigns n_items items to n_shards shards (shard_of[i] in 1..n_shards), balanced by cost. */
int pm_shard_assign(const char *const *keys, const double *cost, int n_items, int n_shards, int *shard_of,
                    pm_err *err);

/* shard_of[c] = the shard (1..n_shards) config c of the spec belongs to; all 1 when n_shards == 0. */
int pm_shard_of(const pm_spec *spec, int n_shards, const char *costs_db, int *shard_of, pm_err *err);

/* in_shard[c] = 1 when config c of the spec belongs to shard s (all 1 when s->n == 0). */
int pm_shard_select(const pm_spec *spec, const pm_shard *s, const char *costs_db, int *in_shard, pm_err *err);

/* A shard plan fixed once (at submit) and read by every shard task: the spec's configs, each with its shard and
 * expected cost, for one spec text and N. Recomputing shards in each task lets a changed --costs store (or
 * spec) hand a resubmitted task another set of configs; a plan file cannot change. Its hash ("plan:" + 16 hex
 * digits of XXH3-64 over the file's text) is recorded by every shard store (meta "shard_plan:SWEEP"), so merge
 * and status can tell two plans apart. */
typedef struct pm_shard_plan {
    int n;                 /* shards (0: not sharded; every config in shard 1) */
    int n_configs;         /* the spec's */
    int *shard_of;         /* per spec config: 1..n */
    double *cost;          /* per spec config: expected cost (seconds when model_seconds, else relative) */
    int model_seconds;     /* 1: costs are seconds (measured walls, or estimates scaled by them) */
    char model[64];        /* how the costs were made: "measured walls", "IR size", ... */
    char *text;            /* the plan file's text */
    char hash[32];         /* "plan:XXXXXXXXXXXXXXXX" */
} pm_shard_plan;

/* Where a plan's costs come from. AUTO: measured walls (costs store) where known, the rest from the probe's IR
 * sizes when the costs store has them for every config, else from the IR-size estimate, scaled to the walls.
 * IR: the IR-size estimate only. PROBE: the stage-size probe's IR sizes only (summed over stages): from the costs
 * store where recorded, run now for the other configs (one extra compile each: the embedded back end's probe). */
typedef enum pm_cost_model { PM_COST_AUTO, PM_COST_IR, PM_COST_PROBE } pm_cost_model;
/* "auto", "ir", "probe". */
int pm_cost_model_parse(const char *text, pm_cost_model *out, pm_err *err);

/* Computes the plan of the spec over n shards. */
int pm_shard_plan_make(const pm_spec *spec, int n, const char *costs_db, pm_cost_model kind, pm_shard_plan *p,
                       pm_err *err);
/* Reads a plan file and checks it is the spec's (same sweep name and spec text, every config once, nothing else)
 * and, n > 0, made for n shards. */
int pm_shard_plan_read(const char *path, const pm_spec *spec, int n, pm_shard_plan *p, pm_err *err);
/* Writes the plan's text to path (a temp file renamed over it). */
int pm_shard_plan_write(const pm_shard_plan *p, const char *path, pm_err *err);
void pm_shard_plan_free(pm_shard_plan *p);
/* Per shard k (load[k-1], k = 1..n): the summed expected cost; returns max shard / even split (1 = perfect;
 * NAN when no cost is known: the balance is then unknown, not 0). */
double pm_shard_plan_balance(const pm_shard_plan *p, double *load);

/* Records the plan's hash in a shard store, or refuses (PM_ERR_USAGE) when the store's sweep was started under
 * another plan: its runs were chosen by that plan, and this task's share is another set of configs. */
int pm_shard_plan_record(pm_store *st, const char *sweep, const pm_shard_plan *p, pm_err *err);

/* Coverage of a study over several stores (a merge's output and inputs, or a status): per sweep, every config
 * of the recorded plans against the runs of all the stores together. */
typedef struct pm_coverage_sweep {
    char *sweep;
    int configs, unfinished;   /* configs planned; of them, with runs still owed in every store */
    int mixed;                 /* 1: stores of different plans or shard counts (message says which) */
    char *message;             /* one line: what is missing or mixed; NULL when complete */
} pm_coverage_sweep;
typedef struct pm_coverage {
    pm_coverage_sweep *sweeps;
    int n;
    int incomplete, mixed;     /* sweeps with unfinished configs / with mixed plans */
} pm_coverage;
/* Stores that do not exist or are empty are skipped (a merge's output before the first merge). */
int pm_shard_coverage(const char *const *dbs, int n_dbs, pm_coverage *cov, pm_err *err);
void pm_coverage_free(pm_coverage *cov);

#endif
