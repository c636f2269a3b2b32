/* Private to compare*.c: the two sides pm_compare_run loads (compare_load.c), the row matching of one config
 * pair (compare_rows.c), and the helpers they share; compare.c is the driver (see compare.h). */
#ifndef PM_COMPARE_INTERNAL_H
#define PM_COMPARE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "config.h"
#include "contention.h"
#include "store.h"
#include "store_compare.h"
#include "util.h"

/* One measured quantity over the runs of one config side: v[i] belongs to runs[i] (0 when absent in that
 * run but present in another). */
typedef struct series {
    char *tool, *pass;
    char *orig;         /* the name the build printed, when the alias table matched it as pass (else NULL) */
    double *v;
    double tick;        /* its timer's tick, s: the report format's for a pass, the runner's clock for a step */
    double reads;       /* most tick-rounded readings summed into one run's value (a pass run k times: k) */
} series;

typedef struct side_cfg {
    int64_t id;
    PM_CFG_EMBED;       /* key, variant column; params loaded when matching on an axis */
    char *base;         /* the matching key: the key without the variant, or every axis but AXIS */
    char *value;        /* its value on the compared axis: the variant, or AXIS's value */
    size_t n_runs;
    int64_t *run_ids;   /* ascending */
    double *scale;      /* beside run_ids: its twin's wall over its own (pm_side_row.scale; 1: no twin) */
    double *wall;       /* run wall, only runs where it is known */
    double *user, *sys, *ins;   /* beside wall: user, sys (-1: not recorded), instructions (-1: not counted) */
    size_t n_wall;
    series *steps, *passes;   /* sorted by (tool, pass) */
    size_t n_steps, n_passes;
} side_cfg;

/* side.tools_cpu_wall: see decide.h */

typedef struct side {
    int walls_only;     /* skip the pass rows (pm_compare_opts.walls_only) */
    int whole_key;      /* match on the whole key (pm_compare_opts.whole_key) */
    const char *mode;   /* the run mode this side counts ("cold", or "warm": pm_compare_opts.mode_a/mode_b) */
    int max_repeats;
    const char *path;
    pm_store *st;
    pm_contention_sweep cont;   /* the sweep's configs judged by the one contention rule */
    double tools_cpu_wall, tools_cpu_wall_min;   /* max, min over the sweep's tools of their null-input median
                                                    CPU/wall (decide.h) */
    side_cfg *cfgs;     /* sorted by base; their runs are loaded when matched (load_cfg_data) */
    size_t n_cfgs;
    pm_store_side_cursor *q;   /* its queries, prepared once for all its configs (a prepare per config was a
                                  fifth of the report on 1,500 configs) */
} side;
static inline int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "compare: out of memory");
}

static inline char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Same order as SQLite's BINARY collation for the side queries' ORDER BY (NULL first). */
static inline int cmp_tool_pass(const char *ta, const char *pa, const char *tb, const char *pb)
{
    int c = pm_util_strcmp_null(ta, tb);
    return c ? c : pm_util_strcmp_null(pa, pb);
}

static inline double finite_or_zero(double v)
{
    return v == v ? v : 0;
}

/* compare_load.c: opens PATH and reads its sweep's configs (not yet their runs) into sd, named in info. */
int compare_load_side(const char *path, const char *sweep, const char *variant, const char *label, side *sd,
                      pm_compare_side *info, const char *axis, int max_repeats, pm_err *err);
/* Reads one matched config's runs, steps and passes (pass names through the alias table). */
int compare_load_cfg(pm_store_side_cursor *q, side_cfg *c, int walls_only, const char *mode, int max_repeats,
                     const pm_passalias *aliases, pm_err *err);
void compare_free_side(side *s);

/* compare_rows.c: the wall, step and pass rows of one matched pair into o; -1 when out of memory. */
int compare_cfg(const side_cfg *ca, const side_cfg *cb, int all_passes, pm_compare_config *o);

#endif
