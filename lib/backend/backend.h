/* pm_step: one process of a compile, as a backend describes it. A backend (embedded MLIR/LLVM, OpenVINO)
 * turns a workload into steps; the sweep runs each step with pm_run_exec and parses its report. */
#ifndef PM_BACKEND_H
#define PM_BACKEND_H

#include "error.h"
#include "parse.h"

enum { PM_STREAM_NONE = 0, PM_STREAM_STDOUT = 1, PM_STREAM_STDERR = 2 };

#define PM_STEP_MAX_ARTIFACTS 4

typedef struct pm_step {
    char *tool;                /* label stored with the run: "mlir-opt", "mlir-translate", "llc", "ov-compile" */
    char **argv;               /* NULL-terminated, heap-owned */
    char *cwd;                 /* NULL: the sweep's run folder */
    int report_stream;         /* PM_STREAM_*: where the timing report is printed */
    pm_format report_format;   /* PM_FMT_AUTO to sniff */
    char *output;              /* main output file the step produces (for the cache), or NULL */
    char *input;               /* main input file, or NULL */
    /* Extra files the step leaves (relative to cwd) and their formats, e.g. compileTimeScheduleTrace.json. */
    char *artifacts[PM_STEP_MAX_ARTIFACTS];
    pm_format artifact_formats[PM_STEP_MAX_ARTIFACTS];
    int n_artifacts;
} pm_step;

typedef struct pm_steps {
    pm_step *items;
    int n;
} pm_steps;

void pm_steps_free(pm_steps *s);
/* argv helpers: build a heap NULL-terminated vector. */
char **pm_argv_new(const char *first, ...);               /* NULL-terminated varargs */
int pm_argv_push(char ***argv, const char *arg);          /* PM_OK / PM_ERR_NOMEM */
void pm_argv_free(char **argv);
/* Renders argv shell-quoted into a heap string (for storing and printing). */
char *pm_argv_join(char *const argv[]);

#endif
