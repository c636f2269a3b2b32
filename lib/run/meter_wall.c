/* The wall meter: the runner as it is (wall, CPU time, RSS), no count. */
#include "meter.h"

static int wall_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                     pm_err *err)
{
    (void)scratch;
    pm_run_opts o = *opts;
    o.count_instructions = 0;
    return pm_run_exec(argv, &o, res, err);
}

const pm_meter pm_meter_wall = {.name = "wall", .about = "wall, CPU time and RSS of the step (no count)",
                                .slowdown_guess = 1, .exec = wall_exec};
