/* The sweep's OpenVINO back end: each repeat runs `passmap ov-compile` (which dlopens libopenvino_c) in the
 * run's own folder, so the compiler's trace files land there. */
#ifndef PM_SWEEP_OV_H
#define PM_SWEEP_OV_H

#include "backend.h"
#include "parse.h"
#include "spec.h"
#include <jansson.h>

int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *cache_dir,
                      pm_steps *out, pm_err *err);
/* Reads the ov-compile result line from the step's stdout: adds compile/export/import seconds, blob bytes
 * (ov.blob_bytes with weights, ov.blob_bytes_weightless without), ov.instrumented, ov.offline and the NPUW
 * window settings to report as metrics, puts the reported OpenVINO/compiler/driver versions into versions (a
 * JSON object, the latest run's win), and returns the import time (the warm path: a blob load) in *import_s
 * (< 0 when none) and, when the import failed, its reason in import_error (a failed warm measurement). */
void pm_sweep_ov_result(const char *stdout_path, json_t *versions, pm_report *report, double *import_s,
                        char *import_error, size_t import_error_size);

#endif
