/* pm_contention: the one rule for "these runs waited for a CPU", so no conclusion is drawn from them. The
 * analysis (noise flags, the fix table), compare (its verdicts, and so the report's A/B marks) and passmap fix
 * all judge a config's cold runs with pm_contention_judge on evidence built by pm_contention_set_runs; compare
 * and fix get it from pm_contention_load, the analysis from its own load of the same queries
 * (lib/store/store_query.h).
 *
 * Measured (runs that recorded CPU pressure, run metric host.psi_cpu_some_us, or the cgroup's
 * host.psi_cgroup_cpu_some_us, preferred): a config is contended when some task waited for a CPU for more than
 * PM_CONTENTION_PSI_SHARE of its cold runs' wall (PSI "some" delta over the runs' own interval / wall), or when
 * the hypervisor stole more than PM_CONTENTION_STEAL_SHARE of it (host.steal_ms / wall). Nothing else is judged
 * then: the load average and CPU/wall guesses below flagged short I/O-heavy compiles and missed real
 * neighbours.
 *
 * Fallback (no pressure recorded: an older store, a kernel without PSI): a config is contended when
 *   - the mean 1-min load average at its runs' start (run metric host.load1) exceeds the sweep's CPUs, or
 *   - one of its tools' steps ran at a CPU/wall ((user+sys)/wall) below 0.75 x that tool's own serial level:
 *     the median CPU/wall of its null-input runs (the `startup` table, measured once per sweep and machine),
 *     a tool whose null runs were themselves below 0.75 being no serial level, or
 *   - (no serial level for any of its tools: a database older than the start-up runs) its process
 *     user/wall is below 0.75 x the sweep's 90th percentile over configs (3 configs at least).
 * Steal time, where recorded, is judged in both cases. */
#ifndef PM_CONTENTION_H
#define PM_CONTENTION_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "error.h"

/* Below this fraction of the serial level a process waited for a CPU. A tool started on a null input alone
 * keeps a CPU busy for the whole run ((user+sys)/wall 0.97-0.98 measured for mlir-opt, mlir-translate and llc
 * on an idle machine). */
#define PM_CONTENTION_RATIO 0.75
/* Above this share of a run's wall some task waited for a CPU. Calibrated with real busy loops on 2 CPUs
 * (tests/unit/test_contention.c): a serial run with two competitors measures 0.6-1.0, a run alone 0.00-0.02;
 * one competitor on 2 CPUs takes no CPU from it and measures near 0. */
#define PM_CONTENTION_PSI_SHARE 0.10
/* Below this much waiting in all, a run's pressure is scheduler noise (a wake-up, the kernel's own work), not a
 * neighbour: a 48 ms I/O-bound run with 5 ms of it read 10.5% on a quiet machine. */
#define PM_CONTENTION_PSI_FLOOR_S 0.010
/* Above this share of a run's wall (summed over CPUs) the hypervisor ran someone else. */
#define PM_CONTENTION_STEAL_SHARE 0.05

typedef struct pm_contention {   /* the evidence about one config's cold runs */
    double load1;                /* mean load average at the runs' start; NAN: not recorded */
    double cpu_ratio;            /* min over tools of steps' CPU/wall / the tool's serial CPU/wall; NAN: no level */
    const char *starved_tool;    /* the tool of cpu_ratio (the caller's string), or NULL */
    double user_wall;            /* process user/wall over the cold runs (the fallback); NAN: not recorded */
    double psi_share;            /* CPU pressure "some" / wall over the cold runs (the cgroup's where recorded);
                                    NAN: not recorded, then the fallback rule judges */
    double steal_share;          /* steal time / wall over the cold runs; NAN: not recorded */
    double psi_s;                /* the pressure in seconds (the floor's measure); NAN: not given */
    double jobs;                 /* compiles that ran at once (run metric host.jobs, sweep --jobs); NAN: one */
} pm_contention;

enum {                           /* why a config is contended (bits; 0: it is not) */
    PM_CONTENTION_LOAD = 1,      /* load1 above the CPUs */
    PM_CONTENTION_STARVED = 2,   /* a tool below 0.75 x its serial CPU/wall */
    PM_CONTENTION_P90 = 4,       /* fallback: user/wall below 0.75 x the sweep's p90 */
    PM_CONTENTION_PSI = 8,       /* measured: some task waited for a CPU above PM_CONTENTION_PSI_SHARE of the wall */
    PM_CONTENTION_STEAL = 16,    /* measured: steal time above PM_CONTENTION_STEAL_SHARE of the wall */
    PM_CONTENTION_JOBS = 32      /* run beside others of the same sweep by design (sweep --jobs N): a count still
                                    decides, a time does not */
};

/* The run metrics that carry the measured evidence, one row each: consumers look a metric's id up here instead of
 * comparing names (the analysis once told the two pressure names apart by one character both have). */
typedef enum pm_contention_metric {
    PM_CONTENTION_M_PSI = 0,     /* host.psi_cpu_some_us: the system's CPU pressure, µs */
    PM_CONTENTION_M_PSI_CGROUP,  /* host.psi_cgroup_cpu_some_us: the cgroup's, µs */
    PM_CONTENTION_M_STEAL,       /* host.steal_ms: steal time, ms */
    PM_CONTENTION_M__COUNT
} pm_contention_metric;

/* The id of a run metric's name, or -1 when it is no contention evidence. */
int pm_contention_metric_of(const char *name);

/* The rule in one sentence, from its own constants: what --help, compare's legend and the report's noise line say
 * "contended" means. brief: the measured part and the fallback's name only (for a legend). */
void pm_contention_rule_text(char *buf, size_t n, int brief);

/* The evidence before anything is known (every field NAN or NULL). */
void pm_contention_init(pm_contention *c);
/* The one constructor of a config's evidence from its cold runs, used by the report's noise flags and by
 * pm_contention_load (compare, fix): the means over its cold runs of host.load1, host.jobs, host.psi_cpu_some_us,
 * host.psi_cgroup_cpu_some_us (µs) and host.steal_ms, their user/wall and mean wall (s); a negative or NaN
 * value is "not recorded". Every argument is positional, so no caller can leave one out (a literal without
 * psi_s once made the report judge no pressure at all). The tools' CPU/wall is folded in with
 * pm_contention_add_tool, before or after. */
void pm_contention_set_runs(pm_contention *c, double load1, double jobs, double user_wall, double psi_us,
                            double psi_cgroup_us, double steal_ms, double wall_s);
/* A tool's serial level from the CPU/wall of its ok null runs: their median (NAN: none). *busy: the null runs
 * themselves waited (median below PM_CONTENTION_RATIO), so it is no serial level. v is not changed. */
double pm_contention_serial(const double *v, size_t n, int *busy);
/* Folds one tool's steps of a config (sums over its cold runs) against the tool's serial level; a busy or
 * unknown level, or no time, adds nothing. */
void pm_contention_add_tool(pm_contention *c, const char *tool, double wall_s, double user_s, double sys_s,
                            double serial_cpu_wall, int serial_busy);
/* The fallback level: 90th percentile of the configs' user/wall (NaN entries skipped); NAN below 3 configs. */
double pm_contention_p90(const double *user_wall, size_t n);
/* The sweep's CPUs from its metadata JSON ({"cpus": N}); 0: unknown (then load is not judged). */
int pm_contention_cpus(const char *meta_json);
/* The rule: the PM_CONTENTION_* reasons that hold (0: not contended). *on_p90 (may be NULL): judged by the
 * fallback (no serial level for any tool of the config). */
int pm_contention_judge(const pm_contention *c, int cpus, double p90, int *on_p90);
/* The reasons as one phrase ("load 5.2 > 2 CPUs; mlir-opt at 0.41 of its serial CPU/wall"). */
void pm_contention_text(int why, const pm_contention *c, int cpus, double p90, char *buf, size_t n);

/* Every config of one sweep of a store, judged. */
typedef struct pm_contention_sweep {
    int cpus;
    double p90;                  /* the fallback level; NAN: fewer than 3 configs with user/wall */
    size_t n;
    int64_t *ids;                /* config ids, ascending */
    pm_contention *c;            /* [n] */
    int *why;                    /* [n] pm_contention_judge's reasons */
    char **tools;                /* the tool names starved_tool points into */
    size_t n_tools;
} pm_contention_sweep;

/* Reads the evidence of the named sweep (the cold ok runs, their load, steps and the start-up rows) with the
 * store's queries and judges each config. */
int pm_contention_load(sqlite3 *db, const char *sweep, pm_contention_sweep *out, pm_err *err);
/* The config's reasons (0: not contended or unknown); *c (may be NULL) its evidence, NULL when unknown. */
int pm_contention_of(const pm_contention_sweep *s, int64_t config_id, const pm_contention **c);
void pm_contention_sweep_free(pm_contention_sweep *s);

#endif
