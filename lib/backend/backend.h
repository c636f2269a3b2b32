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
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include "error.h"
#include "parse.h"
#include "stagemap.h"

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
    /* argv without the step's timing flag (a [step]'s timing_flag: -ftime-report, -time-passes ...), NULL when
     * it names none: what the sweep's uninstrumented twin run ("plain" mode) starts, to measure the flag's cost */
    char **plain_argv;
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
 * is absent; any other error (not a regular file, over PM_PARSE_MAX_BYTES, longer than timeout_s; 0: no
 * limit) leaves the metric missing too. */
int pm_step_metric_eval(const pm_step_metric *m, const char *cwd, const char *stdout_path, const char *stderr_path,
                        double timeout_s, double *value, pm_err *err);
/* Parses "KIND SOURCE [ARG...]" into m (name not set). */
int pm_step_metric_parse(const char *text, pm_step_metric *m, pm_err *err);
void pm_step_metric_free(pm_step_metric *m);
const char *pm_step_metric_kind_name(pm_step_metric_kind k);

/* pm_fit_size (stagemap.h): which run metric sizes a tool's stage, the x axis of the cost fits; a row's
 * fit_sizes lists its rules in order. */

/* What a sweep hands a back end. state is the back end's own (prepare sets it, cleanup frees it). */
typedef struct pm_backend_ctx {
    const struct pm_spec *spec;
    const char *self_exe;      /* passmap itself (for children such as cache exec, ov-compile) */
    const char *cache_dir;     /* the warm path's cache */
    json_t *versions;          /* facts the compiles report (tool versions...), written to the store once */
    const volatile sig_atomic_t *cancel;   /* set on SIGINT: children a back end runs outside the timed steps
                                              (probes, generators) pass it to the runner, so a stop is prompt */
    void *state;
} pm_backend_ctx;

/* What prepare_config produces for one config. */
typedef struct pm_backend_config {
    char input[4096];          /* the config's generated input file, or "" */
    json_t *params;            /* extra facts stored as the config's params_json (owned: sweep decrefs) */
    pm_metric metrics[8];      /* run metrics every run of the config carries (e.g. ir.ops of the generated IR) */
    int n_metrics;
} pm_backend_config;

/* passmap fix, as seen by a back end. A fix is a compile variant (a token in a config's variant; "a+b"
 * combines) plus the rule that says where it should matter, as text in the catalogue's words (regime, pass,
 * superlinear, size, why: fix/fixplan.h reads them). */
typedef struct pm_fix_decl {
    const char *name, *variant, *regime, *pass, *superlinear, *size, *why;   /* NULL: the default */
    int line;                  /* where it is declared (errors name it) */
} pm_fix_decl;

/* What the output check of a variant may use. */
typedef struct pm_fix_check_opts {
    double timeout_s;          /* per process */
    /* Set (e.g. by a SIGINT handler): the running process ends like on a timeout and the op returns
     * PM_ERR_TIMEOUT, as it does on a timeout: the check gave no answer, which is not a difference. */
    const volatile sig_atomic_t *cancel;
    int reduce_window, reduce_layers;   /* embedded: the reduced config the check compiles and runs (0: default) */
    /* For pm_run_opts.on_start: each process's group recorded before it runs (passmap fix: pm_pgroup_record), so
     * what a killed passmap fix's [check] or [run] left running is reaped by the next one; NULL: none. */
    int (*on_start)(void *arg, pid_t pgid, pm_err *err);
    void *on_start_arg;
    /* > 0: a pm_util_now() time after which no process starts (passmap fix's budget): the op returns
     * PM_ERR_TIMEOUT "budget: ...", so the command ends within the budget and one process's timeout. */
    double deadline;
} pm_fix_check_opts;

struct pm_run_opts;
/* Every process a fix op starts (a check build's step, the [check], a program [run]) goes through this first: ro
 * gets o's cancel flag and group recorder; PM_ERR_TIMEOUT naming `what` once o's deadline has come. */
int pm_fix_check_start(const pm_fix_check_opts *o, const char *what, struct pm_run_opts *ro, pm_err *err);

/* One number of the program side that the round's own compiles store as a run metric (an estimated back end:
 * the compiler prints its estimate with every compile; every run exports its blob). A metric NAME.<k> (one per
 * NPUW subgraph compile) is summed with NAME. */
typedef struct pm_fix_program_metric {
    const char *name;          /* run metric ("npu.estimated_latency_us"); NULL ends a list */
    double scale;              /* to the ledger's unit: seconds for run, bytes for size */
    double tick;               /* the metric's resolution in that unit (compare's quantisation; 0: none) */
    const char *what;          /* what the number is, for the table */
} pm_fix_program_metric;

typedef struct pm_backend_fix_ops {
    /* The catalogue: a file in data/ ("fixes-embedded.tsv"), or NULL when the spec declares the fixes. */
    const char *catalogue_file;
    /* The fixes the study's spec declares (NULL op or *n == 0: none). The array lives in the spec. */
    void (*declared)(const struct pm_spec *study, const pm_fix_decl **out, int *n);
    /* The spec of one A/B round, named `name`: study config configs[i] with variants[i] (several entries may
     * name one config), every pair at `repeats`, interleaved. A config keeps its study key with the variant
     * as its last part, so compare lines the variants of a config up. */
    int (*round)(const struct pm_spec *study, const int *configs, const char *const *variants, size_t n,
                 int repeats, const char *name, struct pm_spec **out, pm_err *err);
    /* The output check, in two halves so stock's side is built once per config. build: compiles (and runs,
     * where the back end can) `variant` of study config `config` inside dir (absolute, created by the caller);
     * result receives what compare takes (a file or a folder). PM_ERR_UNSUPPORTED: this study cannot be
     * checked (why in err); any other error: the variant did not build or run. */
    int (*check_build)(const struct pm_spec *study, int config, const char *variant, const char *dir,
                       const pm_fix_check_opts *o, char *result, size_t cap, pm_err *err);
    /* compare: *same = 1 when the variant's result equals stock's (outcome: "bit-exact (N values)",
     * "same (check exits 0)"), 0 when it differs (outcome says how). An error: the comparison itself failed
     * (PM_ERR_TIMEOUT: it timed out or was cancelled). */
    int (*check_compare)(const struct pm_spec *study, int config, const char *stock_result, const char *result,
                         const pm_fix_check_opts *o, int *same, char *outcome, size_t cap, pm_err *err);
    /* The float tolerance "same" allows (0: exact only), stated in the fix table. */
    double tolerance;
    /* The other side of the ledger: the compiled program's own cost, in the folder check_build built `dir`
     * (NULL: not measured). program_run runs the program once through lib/run and gives its run time (*run_s)
     * and CPU/wall (*cpu_wall, for the contention rule); program_size gives the size of what it built (*bytes)
     * and names it (what: ".text of out.o"). `what` of program_run names what is timed. estimated: the numbers
     * are the compiler's estimate, not a measurement. */
    int (*program_run)(const struct pm_spec *study, int config, const char *dir, const pm_fix_check_opts *o,
                       double *run_s, double *cpu_wall, char *what, size_t cap, pm_err *err);
    int (*program_size)(const struct pm_spec *study, int config, const char *dir, double *bytes, char *what,
                        size_t cap, pm_err *err);
    int estimated;
    /* The program side from the round's stored runs instead of a build (no output check needed: the numbers
     * come with the compile itself): lists tried in order, the first that stock's runs of the config carry is
     * used and the fix's runs must carry it too. NULL: none. Set with estimated = 1. */
    const pm_fix_program_metric *run_metrics, *size_metrics;
    /* A catalogue variant measured from the study's own runs instead of an A/B round: the study's warm runs
     * (the back end's warm path, step_done's warm_s) against its cold runs of the same stock configs, by
     * compare's rule ("warm": a blob import against a recompile). It costs no run, is never combined with
     * another fix (a warm start compiles nothing) and its output check is asked of variant `warm_variant`.
     * NULL: none. */
    const char *warm_variant;
    /* Whether `variant` may run on study config `config`; 0 with why (one phrase) when upstream refuses it
     * there (e.g. under NPUW). The plan drops such configs and says why. NULL: every config. */
    int (*runnable)(const struct pm_spec *study, int config, const char *variant, char *why, size_t cap);
} pm_backend_fix_ops;

/* What `passmap run --backend NAME` measures, N cold runs of one process (the row's own field, so the CLI
 * never compares a back end's name). */
typedef enum pm_backend_run_one {
    PM_RUN_ONE_NONE = 0,       /* not offered by passmap run (a sweep only) */
    PM_RUN_ONE_CMD,            /* the command given after `--`; --db records its runs with their pass times */
    PM_RUN_ONE_OV_COMPILE,     /* an `ov-compile` child of --model per run, each in its own folder (no CMD) */
} pm_backend_run_one;

/* What a back end reads from a finished step's own output, whatever the process's exit (step_outcome). */
typedef struct pm_step_outcome {
    int completed;     /* 1: the step's result, written before its teardown, says the work was done: the run
                          counts though the process then died or hung (teardown is not the measurement) */
    double wall_s;     /* >= 0: the measured phase's wall, which the run records instead of the process's */
    double user_s, sys_s;  /* >= 0: that phase's CPU times */
    long maxrss_kb;    /* > 0: that phase's peak resident memory */
    const struct pm_run_result *run;   /* in: how the step's process ended (signal, its own peak RSS) */
    char reason[256];  /* out: why a failed step failed, in the back end's words ("refused property X"); "" */
    int say;           /* out: 1: the sweep prints the run's note now (a reason not said before in this sweep) */
} pm_step_outcome;

/* A command-line option a back end owns (pm_backend_ops.sweep_options, pm_backend_doctor.options): "--NAME ARG
 * HELP" in the help. */
typedef struct pm_backend_option {
    const char *name;   /* without the dashes */
    const char *arg;    /* the argument's name ("NAME"); NULL: a flag */
    const char *help;
} pm_backend_option;

/* What passmap doctor hands a back end's checks (pm_backend_doctor.check). */
typedef struct pm_backend_doctor_ctx {
    const char *self;       /* passmap's own executable: a check may run one of its commands, as a sweep does */
    const char *keep_dir;   /* absolute and made: the checks' files go there and stay; NULL: a temporary folder */
    const char *const *names, *const *values;   /* the row's doctor options given (names without dashes) */
    int n_given;
    int asked;              /* 1: `doctor --backend NAME` named this back end */
    FILE *text;             /* the checks' lines go here, or with json NULL... */
    json_t *json;           /* ...they are members of this object */
} pm_backend_doctor_ctx;

/* passmap run --backend NAME's own options, listed under heading after --backend NAME, and the step each
 * measured run executes, made from the ones given (names without dashes, a flag's value "1", in command-line
 * order; PM_ERR_USAGE: they make no step). */
typedef struct pm_backend_run {
    const pm_backend_option *options;
    const char *heading;
    /* PM_OK when value is one option `name` takes, else PM_ERR_USAGE saying why ("wants a ..."): the command
     * line is refused at once. NULL: any value. */
    int (*valid)(const char *name, const char *value, pm_err *err);
    int (*step)(const char *self, const char *const *names, const char *const *values, int n, pm_steps *out,
                pm_err *err);
} pm_backend_run;

/* passmap doctor's checks of a back end, after the default path's (pm_backend_ops.doctor). */
typedef struct pm_backend_doctor {
    const pm_backend_option *options;   /* doctor's options of this back end ({0}-terminated; NULL: none) */
    const char *heading;                /* the line above its checks in the text */
    int (*valid)(const char *name, const char *value, pm_err *err);   /* as pm_backend_run's */
    /* Runs the checks into ctx->text or ctx->json. *ready: 1 when the back end can be used here. *asked: 1 when
     * the user asked for it (ctx->asked, its options, its environment): then not ready fails the doctor, else it
     * is only said. An error (said by the caller) means not ready. */
    int (*check)(const pm_backend_doctor_ctx *ctx, int *ready, int *asked, pm_err *err);
} pm_backend_doctor;

/* A back end's timing option (pm_backend_ops.timing_flag): "--log-level" and its off value, "LOG_NONE" (the NPU
 * compiler's timers print at LOG_INFO only). */
typedef struct pm_backend_timing_flag {
    const char *option, *off;
} pm_backend_timing_flag;

typedef struct pm_backend_ops {
    const char *name;          /* [sweep] backend = NAME */
    pm_backend_run_one run_one;   /* passmap run --backend NAME: what one measured run is */
    const char *sections;      /* the sections it reads, for help and errors ("[KIND NAME]": the workload
                                * sections of every kind row, pm_spec_parse_workloads) */
    /* Reads the back end's own sections into spec->configs (marks the entries it used). */
    int (*parse_spec)(struct pm_spec *spec, struct pm_spec_entries *es, pm_err *err);
    /* Once per sweep, before anything runs: find tools, set ctx->state. NULL: nothing to do. */
    int (*prepare)(pm_backend_ctx *ctx, pm_err *err);
    /* Once per config: make its input inside dir. NULL: nothing to do. */
    int (*prepare_config)(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out, pm_err *err);
    /* Once per config, what costs a compile to learn (e.g. the IR size at each stage): adds to out->metrics. The
     * sweep calls it right after the config's first measured run of this invocation (adding the metrics to the
     * runs already recorded), never while one runs, so the first run starts at once and a config with nothing
     * left to run costs nothing. A failure only leaves the metrics out. NULL: nothing to probe. */
    int (*probe_config)(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out, pm_err *err);
    /* The steps of one run of a config, run inside run_dir (absolute). */
    int (*steps)(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir, pm_steps *out,
                 pm_err *err);
    /* After a step ran ok: may add metrics to its report and report the back end's own warm path (e.g. a
     * blob import): its time in *warm_s (< 0: none), or why it failed in warm_error (""). Returns 1 when the
     * report must be stored even if no timing report parsed. NULL: nothing to do. */
    int (*step_done)(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_report *report,
                     double *warm_s, char *warm_error, size_t error_cap);
    /* After a step ended, whatever its status: fills out (initialised to "nothing": completed 0, times -1,
     * rss 0) from the step's own result. Returns 1 when it read one. NULL: the process's status and times. */
    int (*step_outcome)(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_step_outcome *out);
    /* Start-up, once per sweep: steps that start each distinct tool of the back end on a null input (an empty
     * module, an empty .ll), run in order inside dir (absolute; the hook writes its null inputs there). Their
     * tool labels are the ones the real steps record. *not_measured (heap, or NULL): "tool: why" for each tool
     * it cannot start on a null input, joined by "; ". NULL hook: start-up is not measured. */
    int (*null_steps)(pm_backend_ctx *ctx, const char *dir, pm_steps *out, char **not_measured, pm_err *err);
    /* Method facts for the sweep's metadata (compiler, version, pipeline...). NULL: none. */
    void (*describe)(pm_backend_ctx *ctx, json_t *meta);
    void (*cleanup)(pm_backend_ctx *ctx);
    /* 1: step_done reports the back end's own warm path with every cold run (the NPU's blob import), stored as
     * the config's warm runs; `warm = true` then adds no `passmap cache` runs, whose replayed hits would be
     * stored as warm runs beside the imports and mix two different measurements. */
    int own_warm_path;
    /* passmap fix: the back end's fixes, A/B rounds and output check. NULL: `passmap fix` refuses its studies. */
    const pm_backend_fix_ops *fix;
    /* The shard planner's estimate of config `config`'s cold compile cost, in units comparable within the spec
     * (bytes of IR, of model files...: --costs scales them to seconds); 0: unknown (such configs spread
     * round-robin). NULL: every config unknown. */
    double (*shard_cost)(const struct pm_spec *spec, int config);
    /* The command-line options of passmap sweep and passmap run that belong to this back end, without the
     * dashes (NULL-terminated; NULL: none). An option some row lists is an error with any back end whose row does
     * not (pm_backend_option_check): never silently ignored. */
    const char *const *options;
    /* passmap sweep: applies one of `options` (e.g. --device) to a parsed spec. NULL: no sweep option. */
    int (*set_option)(struct pm_spec *spec, const char *name, const char *value, pm_err *err);
    /* passmap sweep's options of this back end, each with its help ({0}-terminated; NULL: none): the CLI takes
     * them from here, lists them under help_heading in `sweep --backend NAME --help` and hands each to
     * set_option; accepted like `options`. */
    const pm_backend_option *sweep_options;
    const char *help_heading;   /* e.g. "OpenVINO back end:" */
    /* passmap run --backend NAME when its runs are not a CMD given (run_one PM_RUN_ONE_OV_COMPILE): its options
     * and the step each run executes. NULL: none. */
    const struct pm_backend_run *run;
    /* passmap doctor's checks of this back end and their options. NULL: the default path's checks are its. */
    const pm_backend_doctor *doctor;
    /* The fits' x axis per tool and stage (see pm_fit_size). NULL: no fits have an x axis. */
    const pm_fit_size *fit_sizes;
    /* The step option that turns the timing report on, as the back end's own steps write it: a spec with timing
     * twins (its back end's timing_twins = yes) runs each cold repeat's twin with that option's value set to off
     * (pm_sweep_use_plain_argv, lib/sweep/sweep_pair.c). NULL: the spec names its flags ([step] timing_flag, the
     * embedded preset). */
    const pm_backend_timing_flag *timing_flag;
} pm_backend_ops;

/* The registry: NULL when no back end has that name. */
const pm_backend_ops *pm_backend_find(const char *name);
/* The i-th row of the table, NULL past the last (for a caller that lists what the rows own). */
const pm_backend_ops *pm_backend_at(size_t i);
/* "embedded, openvino, command": the names, for error messages. */
const char *pm_backend_names(void);
/* passmap run --backend: the default row (the first that measures a CMD), and the names of the rows it offers
 * for its usage error, the default first ("command or openvino"). */
const pm_backend_ops *pm_backend_run_default(void);
const char *pm_backend_run_names(void);

/* PM_OK when back end be accepts option (no dashes) or no back end owns it; else PM_ERR_USAGE naming be and
 * the back ends that accept it. */
int pm_backend_option_check(const pm_backend_ops *be, const char *option, pm_err *err);
/* passmap sweep --OPTION VALUE: checked as above, then applied by be's set_option. */
int pm_backend_set_option(const pm_backend_ops *be, struct pm_spec *spec, const char *option, const char *value,
                          pm_err *err);

/* The row's fit_sizes as the sweep metadata records them: [{"tool", "stage", "metric"}...] ("*": any); a new
 * reference, NULL out of memory. */
json_t *pm_backend_fit_sizes_json(const pm_backend_ops *be);
/* Back end NAME's fit rules of today (an empty list for a row without any), NULL when no row has that name: what
 * the report's analysis asks for a store made before the rules were recorded (pm_an_opts.fit_sizes_of), so the
 * study reaches no back end itself. */
const pm_fit_size *pm_backend_fit_sizes_of(const char *name);

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
