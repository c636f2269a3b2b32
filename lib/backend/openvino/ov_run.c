/* passmap run --backend openvino: the row's run options and the ov-compile child each measured run executes. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "ov.h"

/* --window's value: a positive whole number of tokens; the others take any. */
static int valid_option(const char *name, const char *value, pm_err *err)
{
    if (strcmp(name, "window"))
        return PM_OK;
    char *end;
    long w = strtol(value, &end, 10);
    if (!*value || *value == '-' || *value == '+' || *end || w < 1 || w > 1 << 20)
        return pm_err_set(err, PM_ERR_USAGE, "wants a positive whole number, not '%s'", value);
    return PM_OK;
}

static int ov_run_step(const char *self, const char *const *names, const char *const *values, int n, pm_steps *out,
                       pm_err *err)
{
    pm_ov_opts o = {.do_import = 1};
    char model_abs[PATH_MAX], lib_abs[PATH_MAX];
    for (int i = 0; i < n; i++) {
        if (!strcmp(names[i], "model"))
            o.model_xml = values[i];
        else if (!strcmp(names[i], "device"))
            o.device = values[i];
        else if (!strcmp(names[i], "window"))
            o.window = atoi(values[i]);
        else if (!strcmp(names[i], "ov-lib"))
            o.lib = values[i];
        else if (!strcmp(names[i], "schedule-trace"))
            o.schedule_trace = 1;
        else if (!strcmp(names[i], "strategy-out"))
            o.strategy_out = 1;
    }
    if (!o.model_xml)
        return pm_err_set(err, PM_ERR_USAGE, "--backend openvino needs --model X.xml");
    /* Each run has its own cwd: paths given relative to ours must not change meaning there. */
    if (realpath(o.model_xml, model_abs))
        o.model_xml = model_abs;
    if (o.lib && strchr(o.lib, '/') && realpath(o.lib, lib_abs))
        o.lib = lib_abs;
    return pm_ov_add_step(self, &o, 0, NULL, out, err);   /* the step holds its own copies of the paths */
}

static const pm_backend_option ov_run_options[] = {
    {"model", "X.xml", "OpenVINO IR to compile"},
    {"device", "NAME", "NPU, CPU or GPU (default NPU)"},
    {"window", "W", "LLM prompt window (NPUW_LLM_MAX_PROMPT_LEN)"},
    {"ov-lib", "PATH", "libopenvino_c (default: $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)"},
    {"schedule-trace", NULL, "ask the NPU compiler for its schedule trace"},
    {"strategy-out", NULL, "ask the NPU compiler for its strategy file"},
    {0},
};

const pm_backend_run pm_ov_run = {
    .options = ov_run_options,
    .heading = "OpenVINO back end (each run is a `passmap ov-compile` child in its own folder RUN_DIR/i, cold):",
    .valid = valid_option,
    .step = ov_run_step,
};
