/* Back ends as a table. A back end (embedded MLIR/LLVM, OpenVINO, any command) is one pm_backend_ops row in
 * the registry (backend.c): it reads its own spec sections into configs, prepares each config's input,
 * expands a config into pm_steps (one process each), declares the IR-size metrics each step records, adds
 * its method facts, and cleans up. The sweep runs each step with pm_run_exec and parses its report; it never
 * compares a back end's name.
 *
 * The stage map a step's passes go through is picked by the step's tool label (data/stages-*.tsv rules are
 * keyed by tool), so a back end picks its map by naming its tools. */
#ifndef PM_BACKEND_H
#define PM_BACKEND_H

#include <jansson.h>
#include "error.h"
#include "parse.h"

struct pm_spec;
struct pm_spec_entries;

enum { PM_STREAM_NONE = 0, PM_STREAM_STDOUT = 1, PM_STREAM_STDERR = 2 };

#define PM_STEP_MAX_ARTIFACTS 4

/* An IR-size metric a step declares (the x axis of the why-costly fits for any compiler). Read after the
 * step ran successfully and stored as a run metric "ir.NAME". */
typedef enum pm_step_metric_kind {
    PM_SM_SIZE,          /* size FILE: bytes */
    PM_SM_LINES,         /* lines FILE|stdout|stderr: line count */
    PM_SM_COUNT,         /* count FILE|stdout|stderr REGEX: matches of the POSIX extended regex (per line) */
    PM_SM_JSON,          /* json FILE PATH: the number at a dotted path (a.b.0.c; numbers index arrays) */
    PM_SM_MLIR_OPS,      /* mlir-ops FILE: operations in MLIR text (statements whose op name is dialect.op) */
    PM_SM_LLVM_INSTS,    /* llvm-insts FILE: instructions inside LLVM IR function bodies */
    PM_SM__COUNT
} pm_step_metric_kind;

typedef struct pm_step_metric {
    char *name;          /* stored as "ir.<name>" unless it already has a dot */
    pm_step_metric_kind kind;
    char *source;        /* file path, or "stdout" / "stderr" */
    char *arg;           /* regex or JSON path, else NULL */
} pm_step_metric;

typedef struct pm_step {
    char *tool;                /* label stored with the run: "mlir-opt", "mlir-translate", "llc", "ov-compile" */
    char **argv;               /* NULL-terminated, heap-owned */
    char *cwd;                 /* NULL: the sweep's run folder */
    int report_stream;         /* PM_STREAM_*: where the timing report is printed */
    pm_format report_format;   /* PM_FMT_AUTO to sniff */
    char *output;              /* main output file the step produces (for the cache), or NULL */
    char *input;               /* main input file, or NULL */
    char **more_outputs;       /* further declared outputs (NULL-terminated) or NULL */
    char *report_path;         /* the timing report is this file (report_stream PM_STREAM_NONE); it must appear */
    pm_step_metric *metrics;   /* declared IR-size metrics */
    int n_metrics;
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
/* Appends a zeroed step; *out points at it (valid until the next push). */
int pm_steps_push(pm_steps *s, pm_step **out);

/* Evaluates a declared metric; stdout/stderr paths hold the step's streams. PM_ERR_NOTFOUND when its file
 * is absent. */
int pm_step_metric_eval(const pm_step_metric *m, const char *cwd, const char *stdout_path, const char *stderr_path,
                        double *value, pm_err *err);
/* Parses "KIND SOURCE [ARG...]" into m (name not set). */
int pm_step_metric_parse(const char *text, pm_step_metric *m, pm_err *err);
void pm_step_metric_free(pm_step_metric *m);
const char *pm_step_metric_kind_name(pm_step_metric_kind k);

/* What a sweep hands a back end. state is the back end's own (prepare sets it, cleanup frees it). */
typedef struct pm_backend_ctx {
    const struct pm_spec *spec;
    const char *self_exe;      /* passmap itself (for children such as cache exec, ov-compile) */
    const char *cache_dir;     /* the warm path's cache */
    json_t *versions;          /* facts the compiles report (tool versions...), written to the store once */
    void *state;
} pm_backend_ctx;

/* What prepare_config produces for one config. */
typedef struct pm_backend_config {
    char input[4096];          /* the config's generated input file, or "" */
    json_t *params;            /* extra facts stored as the config's params_json (owned: sweep decrefs) */
    pm_metric metrics[8];      /* run metrics every run of the config carries (e.g. ir.ops of the generated IR) */
    int n_metrics;
} pm_backend_config;

typedef struct pm_backend_ops {
    const char *name;          /* [sweep] backend = NAME */
    const char *sections;      /* the sections it reads, for help and errors */
    /* Reads the back end's own sections into spec->configs (marks the entries it used). */
    int (*parse_spec)(struct pm_spec *spec, struct pm_spec_entries *es, pm_err *err);
    /* Once per sweep, before anything runs: find tools, set ctx->state. NULL: nothing to do. */
    int (*prepare)(pm_backend_ctx *ctx, pm_err *err);
    /* Once per config: make its input inside dir. NULL: nothing to do. */
    int (*prepare_config)(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out, pm_err *err);
    /* The steps of one run of a config, run inside run_dir (absolute). */
    int (*steps)(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir, pm_steps *out,
                 pm_err *err);
    /* After a step ran ok: may add metrics to its report and report the back end's own warm path (e.g. a
     * blob import): its time in *warm_s (< 0: none), or why it failed in warm_error (""). Returns 1 when the
     * report must be stored even if no timing report parsed. NULL: nothing to do. */
    int (*step_done)(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_report *report,
                     double *warm_s, char *warm_error, size_t error_cap);
    /* Method facts for the sweep's metadata (compiler, version, pipeline...). NULL: none. */
    void (*describe)(pm_backend_ctx *ctx, json_t *meta);
    void (*cleanup)(pm_backend_ctx *ctx);
} pm_backend_ops;

/* The registry: NULL when no back end has that name. */
const pm_backend_ops *pm_backend_find(const char *name);
/* "embedded, openvino, command": the names, for error messages. */
const char *pm_backend_names(void);

/* The tool label of a command: argv[0]'s basename without a version suffix ("clang-22" -> "clang"). */
int pm_tool_label(const char *argv0, char *out, size_t cap);   /* PM_ERR_USAGE: longer than cap - 1 */
/* Splits a command line into words like a shell would without expanding anything: blanks separate words,
 * '...' and "..." group (quotes removed), backslash escapes one character. */
int pm_split_words(const char *line, char ***words, pm_err *err);
/* argv helpers: build a heap NULL-terminated vector. */
char **pm_argv_new(const char *first, ...);               /* NULL-terminated varargs */
int pm_argv_push(char ***argv, const char *arg);          /* PM_OK / PM_ERR_NOMEM */
void pm_argv_free(char **argv);
/* Renders argv shell-quoted into a heap string (for storing and printing). */
char *pm_argv_join(char *const argv[]);

#endif
