/* The callgrind meter: the valgrind meter's exact count of the process tree, plus per-pass counts. The step
 * runs under Valgrind's callgrind with passmap's timer wrapper preloaded (src/vgwrap, docs/meters.md): callgrind
 * dumps its counts at every start and stop of a timer of the compiler's own timing report, so each timed
 * pass's instructions can be matched to its report row. The files stay in scratch/callgrind (meter.h:
 * profile) for the sweep, which reads them with the step's report (pm_passcount_dir) and removes them. Without
 * the wrapper (not built: Valgrind's headers missing) the passes whose entry points the library exports are
 * still counted (data/pass-symbols.tsv). Slower than the valgrind meter: callgrind tracks calls, and each dump
 * costs time. */
#include "meter.h"
#include "meter_vg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VGWRAP_NAME "passmap-vgwrap.so"

/* The wrapper: $PASSMAP_VGWRAP, else beside passmap's binary (the build folder; a test binary's parent), else
 * the install's lib/passmap. NULL when none is readable. */
static const char *vgwrap_path(void)
{
    static char found[PATH_MAX];
    static int looked;
    if (looked)
        return found[0] ? found : NULL;
    looked = 1;
    const char *env = getenv("PASSMAP_VGWRAP");
    if (env && env[0]) {
        if (access(env, R_OK) == 0)
            snprintf(found, sizeof found, "%s", env);
        return found[0] ? found : NULL;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    static const char *const where[] = {"/", "/../", "/../lib/passmap/"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        char path[PATH_MAX + 64];
        if (snprintf(path, sizeof path, "%s%s%s", exe, where[i], VGWRAP_NAME) < (int)sizeof path &&
            access(path, R_OK) == 0 && realpath(path, found))
            return found;
    }
    found[0] = 0;
    return NULL;
}

const char *pm_meter_vgwrap(void)
{
    return vgwrap_path();
}

/* Per tool: which passes get a count (docs/meters.md "What each tool allows") */
static void callgrind_detail(char *buf, size_t n)
{
    const char *w = vgwrap_path();
    if (w)
        snprintf(buf, n,
                 "; timer wrapper %s: every pass timer of llc, opt, clang (-time-passes, -ftime-report) but "
                 "llc's Parse IR (inlined start), every mlir-opt --mlir-timing row (one thread: "
                 "--mlir-disable-threading, or one function)",
                 w);
    else
        snprintf(buf, n,
                 "; timer wrapper passmap-vgwrap.so not found (beside passmap, or $PASSMAP_VGWRAP; built "
                 "where Valgrind's headers are): only passes whose entry points the library exports are counted "
                 "(data/pass-symbols.tsv)");
}

static const char *const callgrind_args[] = {"--tool=callgrind", "--combine-dumps=yes", NULL};

static int callgrind_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                          pm_err *err)
{
    pm_vg_tool t = {.args = callgrind_args,
                    .out_opt = "--callgrind-out-file",
                    .out_prefix = PM_METER_PROFILE_PREFIX,
                    .preload = vgwrap_path(),
                    .keep = PM_METER_PROFILE_DIR};
    return pm_meter_vg_exec(&t, argv, opts, scratch, res, err);
}

const pm_meter pm_meter_callgrind = {
    .name = "callgrind",
    .about = "the valgrind meter's count plus the instructions "
             "of each timed pass, beside its wall (callgrind with passmap's timer wrapper): "
             "~100-1000x slower; wall and CPU are the instrumented run's",
    .counts = 1,
    .slows = 1,
    .slowdown_guess = 200,
    .per_pass = 1,
    .detail = callgrind_detail,
    .usable = pm_meter_vg_usable,
    .exec = callgrind_exec};
