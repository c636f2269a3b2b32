/* The callgrind meter: the valgrind meter's exact count of the process tree, plus per-pass counts. The step
 * runs with passmap's timer wrapper preloaded (src/vgwrap, docs/meters.md), which has the counting tool end a
 * part of the count at every start and stop of a timer of the compiler's own timing report, so each timed pass's
 * instructions can be matched to its report row. The tool is passmap's pmcount where it was built (a part costs
 * nothing), else callgrind (each dump walks every block seen so far: a compile dumping 20,000 times spends most
 * of its time there). The files stay in scratch/callgrind (meter.h: profile) for the sweep, which reads them with
 * the step's report (pm_passcount_dir) and removes them. Without the wrapper (not built: Valgrind's headers
 * missing) callgrind runs alone, and the passes whose entry points the library exports are still counted
 * (data/pass-symbols.tsv). */
#include "meter.h"
#include "meter_vg.h"

#include <stdio.h>

/* Per tool: which passes get a count (docs/meters.md "What each tool allows") */
static void callgrind_detail(char *buf, size_t n)
{
    const char *w = pm_meter_vgwrap();
    const char *t = w ? pm_meter_vgtool() : NULL;
    if (w)
        snprintf(
            buf, n,
            "; timer wrapper %s, counted by %s: every pass timer of llc, opt, clang (-time-passes, -ftime-report) but "
            "llc's Parse IR (inlined start), every mlir-opt --mlir-timing row (one thread: "
            "--mlir-disable-threading, or one function)",
            w, t ? "passmap's tool pmcount" : "callgrind (pmcount not built: slow dumps)");
    else
        snprintf(buf, n,
                 "; timer wrapper passmap-vgwrap.so not found (beside passmap, or $PASSMAP_VGWRAP; built "
                 "where Valgrind's headers are): only passes whose entry points the library exports are counted "
                 "(data/pass-symbols.tsv)");
}

static const char *const callgrind_args[] = {"--tool=callgrind", "--combine-dumps=yes", NULL};
static const char *const pmcount_args[] = {"--tool=pmcount", NULL};

/* With the wrapper and passmap's counting tool, the tool: callgrind's dumps walk every block seen so far, and a
 * compile dumps 20,000 times (docs/meters.md); without the wrapper, callgrind for its function costs. */
static int callgrind_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                          pm_err *err)
{
    const char *tool = pm_meter_vgwrap() ? pm_meter_vgtool() : NULL;
    pm_vg_tool t = {.args = tool ? pmcount_args : callgrind_args,
                    .out_opt = tool ? "--pmcount-out-file" : "--callgrind-out-file",
                    .out_prefix = PM_METER_PROFILE_PREFIX,
                    .preload = pm_meter_vgwrap(),
                    .tool_dir = tool,
                    .keep = PM_METER_PROFILE_DIR};
    return pm_meter_vg_exec(&t, argv, opts, scratch, res, err);
}

const pm_meter pm_meter_callgrind = {
    .name = "callgrind",
    .about = "the valgrind meter's count plus the instructions "
             "of each timed pass, beside its wall (passmap's timer wrapper, counted by its pmcount tool, else "
             "callgrind): ~20-100x slower, callgrind 100-1000x; wall and CPU are the instrumented run's",
    .counts = 1,
    .slows = 1,
    .slowdown_guess = 200,
    .per_pass = 1,
    .detail = callgrind_detail,
    .usable = pm_meter_vg_usable,
    .exec = callgrind_exec};
