/* Exports of a sweep's samples (samples.h) to the dashboards compiler teams run, one row per format:
 *   lnt  LNT's JSON report, format version 2, as LLVM's LNT documents it ("LNT Report File Format",
 *        docs/importing_data.rst of llvm-lnt: format_version "2", machine {name, info...}, run {order field,
 *        info...}, tests [{name, metric: number or list of numbers}]), for the NTS test suite: each config's
 *        whole compile, steps and top passes as tests with their compile_time samples in seconds; the run's
 *        order field llvm_project_revision (--order, else the compiler's identity) and the compiler, sweep,
 *        meter and deciding metric as run info. NTS has no instruction metric: only walls are exported.
 *   bmf  Bencher Metric Format, as bencher.dev documents it (docs/reference/bencher-metric-format: an object of
 *        benchmarks, each an object of measures, each {value, lower_value?, upper_value?}): measure "latency"
 *        (Bencher's built-in latency, nanoseconds) from each wall series' geometric mean with its 95% log-t
 *        interval (n >= 3), and "instructions" (a count) where runs counted them. BMF has no field for the
 *        compiler: give it to `bencher run --hash/--branch`.
 *   csv  one row per sample (RFC 4180): the sweep, config, scope, tool, pass, metric, unit, run index, value,
 *        and the compiler, meter and machine, so any tool reads every number back.
 * A config whose runs were contended has no samples (samples.h) and is left out of every format.
 * The schemas the tests check LNT's and BMF's output against are in tests/schemas/. */
#ifndef PM_EXPORT_H
#define PM_EXPORT_H

#include <stdio.h>
#include "error.h"
#include "samples.h"

typedef struct pm_export_opts {
    const char *machine;       /* LNT's machine name; NULL: the first config's machine, else "unknown" */
    const char *order;         /* LNT's llvm_project_revision; NULL: the compiler's identity */
} pm_export_opts;

typedef struct pm_export_format {
    const char *name;
    const char *about;         /* one line for --help */
    int (*write)(FILE *out, const pm_samples *s, const pm_export_opts *o, pm_err *err);
} pm_export_format;

/* The row named name, or NULL. */
const pm_export_format *pm_export_find(const char *name);
/* The rows, *n of them (help and errors list them). */
const pm_export_format *pm_export_rows(size_t *n);

#endif
