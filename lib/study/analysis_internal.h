/* Private to the analysis_*.c files: the working state of one pm_analysis_run and the helpers its sections
 * share. Each report section is one function in its own file; analysis.c is the driver. */
#ifndef PM_ANALYSIS_INTERNAL_H
#define PM_ANALYSIS_INTERNAL_H

#include "util.h"
#include "analysis.h"
#include "store_query.h"

/* Interned strings of pass names and tools (freed with the analysis). */
typedef struct strpool { char **s; size_t n, cap; } strpool;

typedef struct pass_id { const char *tool, *name; int stage; } pass_id;

typedef struct an_stage_name_ix an_stage_name_ix;

/* pass_user: the user seconds of its counted passes that report one, pass_user_wall the wall of those passes */
typedef struct run_row {
    int64_t id;
    int cfg;
    int cold;
    double wall, user;
    double pass_sum, pass_user, pass_user_wall;
} run_row;


struct pm_an_priv {
    strpool pool;
    pass_id *pids;
    size_t n_pids, cap_pids;
    int *slots;          /* open addressing over pids, -1 empty */
    size_t n_slots;
    struct an_cfg_ix { int64_t id; int i; } *cfg_ix;   /* configs by id (an_find_cfg), once they are sorted */
    size_t n_cfg_ix;
};

/* Kept beside the public struct so pm_analysis_free can release the pool. */
typedef struct analysis_full {
    pm_analysis pub;
    struct pm_an_priv priv;
} analysis_full;

/* What the sections pass along while one analysis is built. */
typedef struct an_work {
    sqlite3 *db;
    const pm_an_opts *opts;
    pm_analysis *a;
    struct pm_an_priv *pv;
    pm_sq_sweeps sweeps;
    size_t cap_configs;
    run_row *runs;            /* ok cold/warm runs, by id */
    size_t n_runs, cap_runs;
    /* The counted pass rows of those runs are summed as they are read (analysis_load.c), in row order, into what
     * an_stages needs; stage indices are the map's until prune_stages keeps the stages hit. */
    double *run_stage;        /* [run][stage] pass seconds */
    double *run_stage_u;      /* [run][stage] pass user seconds (of the passes that report one) */
    size_t run_stage_ns;      /* stages per run in run_stage */
    double *stage_u, *stage_uw;   /* [stage] cold user seconds, and the wall of those rows */
    double *pid_cfg_s, *pid_cfg_u, *pid_cfg_uw;   /* [pass id][config] cold wall, user, wall where user known */
    double *pid_cfg_log;      /* [pass id][config] sum over cold runs of log(the run's seconds of the pass) */
    int *pid_cfg_nlog;        /* [pass id][config] cold runs in pid_cfg_log: a config's geometric mean (fits) */
    double *run_pid_s;        /* [pass id] seconds of the pass in the cold run being read (cur_run) */
    int *touched;             /* pass ids with run_pid_s > 0, n_touched of them (cap_pid_cfg room) */
    size_t n_touched, cur_run;   /* cur_run: index of that run, SIZE_MAX none */
    size_t cap_pid_cfg;       /* pass ids with room in pid_cfg_* */
    size_t row_run;           /* index of the run of the last pass row (rows come grouped by run) */
    int *key_pid;             /* pm_sq_pass_row.key -> pass id, -1 not yet seen: one hash lookup per pair */
    size_t n_key_pid;
    pm_sq_metric_row *mrows;  /* an_metric_means: the query's rows (names in the pool), read once */
    size_t n_mrows;
    int mrows_read;
    int st_over, st_other;    /* stage indices of process-overhead and other */
    struct an_stage_name_ix { const char *name; int stage; } *agg_stage;   /* stage names met in the run
                                                                             * aggregates (analysis_load.c) */
    size_t n_agg_stage, agg_stage_next;
    int *agg_slot_pid;        /* [slot] pass id of the aggregates' slot (-1: none yet; analysis_load.c) */
    size_t n_agg_slot;
    int agg_cfg;              /* config index of the last aggregate row, -1 none, and its id */
    int64_t agg_cfg_id;
    double *tmp;              /* scratch: n_runs + n_configs + 16 */
    double *fit_r2;           /* [n_fixes] R^2 of the fix's pass fit, for the rules */
    const char **metric_names;/* distinct run-metric names over the configs (fit candidates) */
    size_t n_metric_names;
    double *cfg_startup;      /* [n_configs] start-up s per cold run (analysis_startup.c); NAN: not measured */
} an_work;

/* Sections, in the order the driver runs them (analysis_sections.h): each returns a pm_status and fills err;
 * its free releases what it filled (called on a partly built analysis too: every count starts at 0). */
#define AN_SECTION(name) int an_##name(an_work *w, pm_err *err); void an_##name##_free(pm_analysis *a);
#include "analysis_sections.h"
#undef AN_SECTION

/* 0 for an instrumented NPU config when the sweep also has stock ones: summaries across configs (fix table,
 * handoff) then describe the stock compiler only (analysis_npu.c). */
int an_compared(const pm_analysis *a, const pm_an_config *c);

/* analysis_parallel.c: the scoped cold runs' metric means (pm_sq_cold_metric_means) read once per analysis and
 * handed to fn row by row, in the query's order, at each call (the parallel and NPU sections both read them). */
int an_metric_means(an_work *w, int (*fn)(void *, const pm_sq_metric_row *), void *ctx, pm_err *err);
/* analysis_parallel.c: a tool's user/wall into the analysis (ctx: the pm_analysis), from an_load's one scan of the
 * steps (pm_sq_steps_scan), which also counts the trace runs. */
int an_take_tool(void *ctx, const pm_sq_tool_row *r);

/* analysis_util.c */
pm_ci an_time_ci(const double *v, int n);    /* geometric mean, log-t interval */
pm_ci an_share_ci(const double *v, int n);   /* arithmetic mean, t interval within [0, 1] */
int an_powerlaw_fit(const double *x, const double *y, int n, double *expo, double *lo, double *hi, double *r2,
                    double *pref);
double an_js_distance(const double *p, const double *q, size_t n);
double an_median(double *v, size_t n);
int an_same(const char *a, const char *b);
const char *an_pool_add(strpool *p, const char *s);
int an_pid_lookup(struct pm_an_priv *pv, const char *tool, const char *name);
int an_find_cfg(const pm_analysis *a, int64_t id);
/* (string, position) pairs sorted by an_cmp_str_at: by string (NULL first), then position, so equal strings
 * become runs in their first-seen order (an_most_common, the precision section's class ids). */
typedef struct an_str_at {
    const char *s;
    size_t i;
} an_str_at;
int an_cmp_str_at(const void *pa, const void *pb);
int an_cmp_at(const void *pa, const void *pb);   /* by position alone */
const char *an_most_common(const char **v, size_t n, const char *prefer);
const char *an_most_common_tie(const char **v, size_t n, const char *prefer,
                               int (*later_wins)(const char *later, const char *best));
int an_most_common_int(const int *v, size_t n);
int an_strlist_add(char ***list, size_t *n, const char *text);
/* Appends an allocated sentence (NULL: its allocation failed) and takes it; *text is NULL afterwards. */
int an_strlist_take(char ***list, size_t *n, char **text);
const char *an_stage_name(const pm_analysis *a, int s);
void an_sort_series(pm_an_series *sr);
int an_cmp_config(const void *pa, const void *pb);
int an_cmp_pass(const void *pa, const void *pb);
double an_config_metric(const pm_analysis *a, const pm_an_config *c, const char *m);
int an_nomem(pm_err *err);

/* In a section with `int rc` and a `cleanup:` label. */
#define AN_NOMEM()                                                                                    \
    do {                                                                                              \
        rc = an_nomem(err);                                                                           \
        goto cleanup;                                                                                 \
    } while (0)

/* Whether the sweep has any run at all (ok, failed or without a report): the study and the sections that compare
 * runs (ab, builds) have nothing to say without one. */
static inline int an_has_runs(const pm_analysis *a)
{
    return a->summary.n_runs_ok + a->summary.n_runs_failed + a->summary.n_runs_no_report > 0;
}

#endif
