/* The counters meter: the runner with perf_event_open's user-space instructions of the process tree. Cloud VMs
 * and hosted CI runners mostly expose no PMU, so whether it works is asked of the kernel once. */
#include "meter.h"

#include <stdio.h>
#include <string.h>

static int counters_usable(char *why, size_t n)
{
    static int probed, errno_seen;
    if (!probed) {
        const char *argv[] = {"true", NULL};
        pm_run_opts o = {.timeout_s = 10, .count_instructions = 1};
        pm_run_result r;
        pm_err e = {0};
        if (pm_run_exec(argv, &o, &r, &e) != PM_OK)
            errno_seen = -1;
        else
            errno_seen = r.instructions >= 0 ? 0 : r.instructions_errno ? r.instructions_errno : -1;
        probed = 1;
    }
    if (errno_seen)
        snprintf(why, n, "perf_event_open gives no instructions:u counter (%s): no PMU exposed, or "
                 "kernel.perf_event_paranoid too high; use --meter valgrind",
                 errno_seen > 0 ? strerror(errno_seen) : "the probe did not run");
    return errno_seen != 0;
}

static int counters_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                         pm_err *err)
{
    (void)scratch;
    pm_run_opts o = *opts;
    o.count_instructions = 1;
    return pm_run_exec(argv, &o, res, err);
}

const pm_meter pm_meter_counters = {.name = "counters", .about = "the same plus user-space instructions of the "
                                    "process tree through perf_event_open (needs a PMU)",
                                    .counts = 1, .slowdown_guess = 1, .usable = counters_usable,
                                    .exec = counters_exec};
