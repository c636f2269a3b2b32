/* The sweep's OpenVINO back end: each repeat runs `passmap ov-compile` (which dlopens libopenvino_c) in the
 * run's own folder, so the compiler's trace files land there. */
#ifndef PM_SWEEP_OV_H
#define PM_SWEEP_OV_H

#include "backend.h"
#include "parse.h"
#include "spec.h"
#include <jansson.h>

/* The [openvino] section, the openvino back end's own (device NPU, log_level LOG_INFO when absent). */
typedef struct pm_ov_spec {
    char device[32], lib[512], log_level[32], props[1024], model_template[512];
    int schedule_trace, strategy_json, reuse_strategy, task_stats, min_response_len;
    char platform[32], prefill_hint[16], generate_pyramid[8];
    char prefill_attention_hint[16], generate_attention_hint[16], shared_head[8];   /* "": the pins */
    char compiler_type[16];   /* NPU_COMPILER_TYPE; "": DRIVER on a device, PLUGIN offline */
    double import_max_ram_share;   /* the import is skipped (stated) when the weights exceed it of MemTotal */
    int timing_twins;         /* timing_twins = yes: each cold compile gets a twin at LOG_NONE (the row's flag) */
} pm_ov_spec;

/* Reads the [openvino] entries of es into *out (marking them used): errors name the line. */
int pm_ov_spec_parse(pm_spec_entries *es, pm_ov_spec *out, pm_err *err);
/* The same, only checking (the embedded back end accepts a spec written for both). */
int pm_ov_spec_check(pm_spec_entries *es, pm_err *err);
/* The [openvino] settings of a spec the openvino back end parsed. */
pm_ov_spec *pm_ov_spec_of(const pm_spec *s);

/* The model a config compiles: [openvino] model with the config's workload filled in, relative to the spec's
 * folder (the spec config keeps no path: the back end derives it when it needs it). */
int pm_sweep_ov_model(const pm_spec *s, const pm_spec_config *c, char *out, size_t cap, pm_err *err);
int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *cache_dir,
                      pm_steps *out, pm_err *err);
/* Reads the ov-compile result line from the step's stdout: adds compile/export/import seconds, blob bytes
 * (ov.blob_bytes with weights, ov.blob_bytes_weightless without), ov.instrumented, ov.offline and the NPUW
 * window settings to report as metrics, puts the reported OpenVINO/compiler/driver versions into versions (a
 * JSON object, the latest run's win), and returns the import time (the warm path: a blob load) in *import_s
 * (< 0 when none) and, when the import failed, its reason in import_error (a failed warm measurement). */
void pm_sweep_ov_result(const char *stdout_path, json_t *versions, pm_report *report, double *import_s,
                        char *import_error, size_t import_error_size);
/* The same, with death: why the process died in the import (the interim result line was its last), which
 * becomes the failed warm run's reason; NULL: not known. */
void pm_sweep_ov_result_of(const char *stdout_path, const char *death, json_t *versions, pm_report *report,
                           double *import_s, char *import_error, size_t import_error_size);

#endif
