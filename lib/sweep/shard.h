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

typedef struct pm_shard {
    int k, n;    /* shard k of n, 1 <= k <= n; n == 0: not sharded */
} pm_shard;

/* "K/N" with 1 <= K <= N. */
int pm_shard_parse(const char *text, pm_shard *out, pm_err *err);

/* Expected cost of each config: the mean wall of its ok cold runs in costs_db (a database of an earlier sweep of
 * the same configs, by config key) where known, else an IR-size estimate (the generated input's size, grown with
 * window / tile for LLMs and resolution for CNNs; the model files' size for OpenVINO) scaled to seconds by the
 * configs that have both. costs_db NULL: estimates only. */
int pm_shard_costs(const pm_spec *spec, const char *costs_db, double *cost, pm_err *err);

/* Assigns n_items items to n_shards shards (shard_of[i] in 1..n_shards), balanced by cost. */
int pm_shard_assign(const char *const *keys, const double *cost, int n_items, int n_shards, int *shard_of,
                    pm_err *err);

/* shard_of[c] = the shard (1..n_shards) config c of the spec belongs to; all 1 when n_shards == 0. */
int pm_shard_of(const pm_spec *spec, int n_shards, const char *costs_db, int *shard_of, pm_err *err);

/* in_shard[c] = 1 when config c of the spec belongs to shard s (all 1 when s->n == 0). */
int pm_shard_select(const pm_spec *spec, const pm_shard *s, const char *costs_db, int *in_shard, pm_err *err);

#endif
