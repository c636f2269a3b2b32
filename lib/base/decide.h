/* pm_decide: which measured quantity decides an A/B or stops an adaptive sweep — the steadiest one the machine
 * offers. One function, used by compare (and so the report's A/B and passmap fix) and by the sweep's
 * `repeats = auto`. Every quantity stays stored and shown; only the decision is made on one.
 *
 *   - wall whenever the compared runs are parallel (some config side's (user+sys)/wall above
 *     PM_DECIDE_SERIAL_MAX): a fix that changes parallelism trades CPU time for wall, so only wall tells;
 *   - else user-space instructions where every run counted them (perf counters work);
 *   - else the process tree's CPU time (user+sys) when every run recorded it and every tool is serial and
 *     CPU-bound by its null-input runs (their median CPU/wall between PM_DECIDE_CPU_BOUND_MIN and
 *     PM_DECIDE_SERIAL_MAX: under load they read below 1, never above; a threaded tool reads above; a tool that
 *     waits on a device or sleeps reads far below);
 *   - else wall (no start-up runs recorded: `run --db` stores, older sweeps). */
#ifndef PM_DECIDE_H
#define PM_DECIDE_H

#include <stddef.h>

typedef enum pm_decide_metric {
    PM_DECIDE_WALL = 0,
    PM_DECIDE_CPU,            /* user + sys of the process tree */
    PM_DECIDE_INSTRUCTIONS    /* user-space instructions of the process tree */
} pm_decide_metric;

/* A metric as a row: its name, a run's sample of it, and whether it is a count (instructions: exact up to the
 * spread of its repeats, which is its resolution, and untouched by contention, so a contended run's count still
 * decides; a time's verdict on contended runs is withheld). */
typedef struct pm_decide_row {
    const char *name;
    double (*sample)(double wall, double user, double sys, double instructions);   /* NAN: not recorded */
    int count;
} pm_decide_row;
const pm_decide_row *pm_decide_row_of(pm_decide_metric m);

/* Above this CPU/wall a run (or a tool's null-input run) used more than one CPU. */
#define PM_DECIDE_SERIAL_MAX 1.10
/* Below this a tool's null-input CPU/wall says it mostly waits (on a device, a sleep, I/O): its CPU time is not
 * what it costs. Loaded machines read 0.54-0.63 for CPU-bound tools (issue 18), so the bound stays below. */
#define PM_DECIDE_CPU_BOUND_MIN 0.50

typedef struct pm_decide_evidence {
    int instructions;         /* every counted run has its instructions */
    int cpu;                  /* every counted run has user + sys > 0 */
    double tools_cpu_wall;    /* max over the tools of their null-input runs' median CPU/wall; NAN: not measured */
    double tools_cpu_wall_min;   /* min over the tools of the same; NAN: not measured */
    double runs_cpu_wall;     /* max over the config sides of their runs' mean CPU/wall; NAN: unknown */
} pm_decide_evidence;

/* The evidence before any run: instructions and cpu true, nothing measured (fold runs in with
 * pm_decide_add_run). */
void pm_decide_init(pm_decide_evidence *e);
/* Folds one counted run in (user or sys < 0, instructions < 0: not recorded). */
void pm_decide_add_run(pm_decide_evidence *e, double wall, double user, double sys, double instructions);
/* Folds a config side's mean CPU/wall in (NAN: nothing). */
void pm_decide_add_side(pm_decide_evidence *e, double cpu_wall);
/* Folds one config side's n runs in, each with pm_decide_add_run, and its CPU/wall over the runs that recorded
 * user and sys with pm_decide_add_side: the one way compare (each side of a matched config) and the adaptive stop
 * (a config's cold runs) build the evidence. */
void pm_decide_add_config(pm_decide_evidence *e, const double *wall, const double *user, const double *sys,
                          const double *instructions, size_t n);
pm_decide_metric pm_decide(const pm_decide_evidence *e);
/* "wall", "cpu time (user+sys)", "instructions (user space)" */
const char *pm_decide_name(pm_decide_metric m);
/* The line every table with a decision prints: "decided on: cpu time (user+sys); wall shown". */
void pm_decide_text(pm_decide_metric m, char *buf, size_t n);
/* A run's sample of the metric; NAN when the run did not record it. */
double pm_decide_sample(pm_decide_metric m, double wall, double user, double sys, double instructions);

/* The resolution of m's samples v[0..n) folded into floor (the comparison's, starting at 0): for a count, at
 * least one count and at least the spread (max - min) of the repeats; a time's is its timer's tick, which the
 * caller adds (floor returned unchanged). Compare passes it as the rule's tick (pm_compare_test_tick). */
double pm_decide_floor(pm_decide_metric m, const double *v, size_t n, double floor);

#endif
