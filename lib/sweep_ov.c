/* STUB until the OpenVINO back end lands. */
#include "sweep_ov.h"

int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *dir,
                      pm_steps *out, pm_err *err)
{
    return pm_err_set(err, PM_ERR_UNSUPPORTED, "openvino back end not built");
}

void pm_sweep_ov_metrics(const char *stdout_path, pm_report *report) {}
