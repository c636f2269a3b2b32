/* pm_meter: how a step is measured, one row per meter (meter_rows.h). Every meter records wall, CPU time and
 * RSS through the runner; a counting meter also records the user-space instructions of the step's whole
 * process tree, which compare, the report's A/B, passmap fix and the adaptive stop then decide on
 * (decide.h). Consumers iterate the rows and read their fields; none compares a meter's name.
 *
 *   wall      the runner as it is: wall, CPU, RSS (no count)
 *   counters  the same plus perf_event_open's instructions:u of the process tree (where the PMU exists)
 *   valgrind  the step run under Valgrind (passmap's pmcount tool with its timer wrapper where built, else
 *             cachegrind --cache-sim=no: instruction counts only, exact), children followed; each process's count
 *             file goes to a private folder, summed, and removed. Its wall and CPU time are the instrumented
 *             run's, not the compile's.
 *   callgrind the valgrind meter's count with passmap's timer wrapper preloaded (under pmcount where built, else
 *             callgrind), so that each timed pass of the step's report also gets its instruction count (per_pass;
 *             docs/meters.md). */
#ifndef PM_METER_H
#define PM_METER_H

#include <stddef.h>
#include "error.h"
#include "run.h"

typedef struct pm_meter {
    const char *name;
    const char *about;        /* one line: what it records (help, docs, doctor) */
    int counts;               /* 1: records instruction counts: a count decides, and compiles may run in parallel */
    int slows;                /* 1: the step runs under an instrumenting tool: its wall is not the compile's */
    int per_pass;             /* 1: exec leaves the step's callgrind files in scratch/PM_METER_PROFILE_DIR (a
                                 non-NULL scratch) for per-pass counts; the caller reads and removes them */
    double slowdown_guess;    /* its slowdown against a native run before one is measured (timeouts, --dry-run) */
    /* 0 when this machine can use it, else non-zero with why (one line, what to do) */
    int (*usable)(char *why, size_t n);
    /* what this machine gives the meter beyond usable (doctor, after about), into buf; NULL: nothing to add */
    void (*detail)(char *buf, size_t n);
    /* Runs argv as pm_run_exec does, measured this way: res->instructions is the process tree's count (-1: not
     * counted). scratch: a folder for the meter's own files (NULL: $TMPDIR), which it leaves as it found it. */
    int (*exec)(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                pm_err *err);
} pm_meter;

/* Where a per_pass meter leaves its files: scratch/PM_METER_PROFILE_DIR/PM_METER_PROFILE_PREFIX<pid>, one per
 * process of the step. */
#define PM_METER_PROFILE_DIR "callgrind"
#define PM_METER_PROFILE_PREFIX "callgrind.out."

size_t pm_meter_count(void);
const pm_meter *pm_meter_at(size_t i);
/* The row named name; NULL when none ("auto" is no row: pm_meter_resolve). */
const pm_meter *pm_meter_find(const char *name);
/* "auto, wall, counters, valgrind": what --meter and [sweep] meter take. */
const char *pm_meter_names(void);
/* name (NULL or "auto": the first counting row this machine can use without slowing the step, else the first
 * row, wall) to its row; an unknown name or a meter this machine cannot use is an error saying why. */
int pm_meter_resolve(const char *name, const pm_meter **out, pm_err *err);
/* Whether m lets jobs compiles run at once: above one only a meter that counts decides (sweep --jobs, fix --jobs);
 * a time would be contended every time. PM_ERR_USAGE saying so otherwise. */
int pm_meter_check_jobs(const pm_meter *m, int jobs, pm_err *err);

/* The timeout a step gets under m: timeout_s times the meter's slowdown (the larger of the measured one and the
 * row's slowdown_guess). */
/* passmap's Valgrind timer wrapper (src/vgwrap; $PASSMAP_VGWRAP, else beside passmap's binary, else the
 * install's lib/passmap), NULL when not found: the per_pass meter then counts exported entry points only. */
const char *pm_meter_vgwrap(void);

double pm_meter_timeout(const pm_meter *m, double timeout_s, double slowdown);

#endif
