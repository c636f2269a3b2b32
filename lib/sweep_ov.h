/* The sweep's OpenVINO back end: each repeat runs `passmap ov-compile` (which dlopens libopenvino_c) in the
 * run's own folder, so the compiler's trace files land there. */
#ifndef PM_SWEEP_OV_H
#define PM_SWEEP_OV_H

#include "backend.h"
#include "parse.h"
#include "spec.h"

int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *dir,
                      pm_steps *out, pm_err *err);
/* Adds the ov-compile result line's figures (compile, export, import seconds, blob bytes) to report. */
void pm_sweep_ov_metrics(const char *stdout_path, pm_report *report);

#endif
