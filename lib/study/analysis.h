/* pm_analysis: turns a sweep's results database into the study: stage shares, regimes, handoff, cost
 * fits against IR size, precision, parallelism and the fix table. Everything derives from measured rows;
 * the pass -> stage map and the fix rules are data files. */
#ifndef PM_ANALYSIS_H
#define PM_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "flagcost.h"
#include <jansson.h>
#include "error.h"
#include "stagemap.h"
#include "compare.h"
#include "config.h"
#include "contention.h"
#include "store.h"

typedef struct pm_analysis pm_analysis;

typedef struct pm_an_opts {
    const char *sweep;            /* sweep name; NULL: the latest sweep */
    const pm_stagemap *map;       /* pass -> stage; used during the call only */
    /* Axes of the regime map for configs with parameters (any back end): the size axis (columns) and the
     * workload axis (rows). NULL: the spec's [report] size / workload, else "opt"/"input"-like defaults. */
    const char *size_axis, *workload_axis;
    /* For a store whose sweep recorded no fit-size rules (made before they were): back end NAME's rules of
     * today, NULL when there is no such back end (passmap passes pm_backend_fit_sizes_of; the study itself
     * reaches no back end, so it links without them). NULL here, or a NULL answer: the rules every back end
     * had then, picked by tool name. Either way pm_analysis.fits.x_note says which. */
    const pm_fit_size *(*fit_sizes_of)(const char *backend);
    /* The store's path: with it the ab and builds sections run (compare's rule on the store: the in-sweep A/B,
     * allow_contended as compare's --allow-contended, and the between-builds comparison); NULL: they are empty. */
    const char *db_path;
    int allow_contended;
    /* pm_study_run only: what the measuring half adds to the study after the sections (passmap report's: the
     * proven-fix ledger and the proposed fixes, which the study cannot reach itself); NULL: nothing. */
    int (*add_fixes)(pm_analysis *a, const char *db_path, int allow_contended, void *user, pm_err *err);
    void *add_fixes_user;
} pm_an_opts;

/* 95% interval across repeats. Times: mean is the geometric mean and lo..hi the t-interval of the log times
 * (never below zero); shares: arithmetic mean, t-interval clipped to [0, 1]. n < 3: lo = hi = NaN, no
 * interval and no claim. */
typedef struct pm_ci { double mean, lo, hi; int n; } pm_ci;

typedef struct pm_an_pass {       /* one pass of one config, over its cold repeats */
    const char *tool, *name;      /* owned by the analysis */
    int stage;
    int id;                       /* index of the (tool, pass) pair in the analysis */
    double mean_s, share;         /* share of compile wall, 0..1 */
    double user_wall;             /* NAN: no user time in the report */
} pm_an_pass;

typedef struct pm_an_config {
    int64_t id;
    PM_CFG_EMBED;                 /* key, kind, variant and the config's axes (config_param), config.h */
    pm_workload workload;         /* the model fields (kinds.h; owned), as the store's columns hold them */
    double size_num;              /* workload.size: "1.5b" -> 1.5e9; NAN when not numeric */
    int n_cold, n_warm, n_failed;
    int n_no_report;              /* runs without a readable timing report (not in n_failed) */
    pm_ci wall;                   /* cold compile wall, s (geometric mean, log-t interval); with wall_untimed, of the
                                     runs' uninstrumented twins (analysis_flagcost.c) */
    int wall_untimed;
    double user_wall;             /* process user/wall over cold runs; NAN when absent */
    pm_ci *share;                 /* [n_stages], 0..1, sums to 1 */
    pm_ci *phase_share;           /* [n_phases]: the stage shares summed by phase (per run, then the interval) */
    /* [n_phases]: the same of the compile's user CPU time, when every cold run's tool is serial (user <= 1.1 x
     * wall) and every counted pass reports its user time (clang -ftime-report, LLVM -time-passes); the time
     * outside the passes goes to process-overhead's phase. phase_on_cpu 0: not so, phase_cpu all NaN. Under load
     * a wall share moves with the waiting (0.44 -> 0.56 between repeats) while the user split holds. */
    pm_ci *phase_cpu;
    int phase_on_cpu;
    int dominant_phase;           /* -1 when no cold run */
    double *stage_s;              /* [n_stages], mean s */
    int dominant_stage;           /* -1 when no cold run */
    pm_an_pass *passes;           /* sorted by mean_s, largest first */
    size_t n_passes;
    double warm_s, cache_ratio;   /* warm geometric-mean wall, cold/warm; NAN without warm runs */
    double ir_ops, llvm_ops, npu_tasks, npu_tiles;   /* means of run metrics; NAN when absent */
    double *stage_ir;             /* [n_stages] IR ops at the entry of each stage (ir.stage.<stage>); NAN: absent */
    /* noise diagnostics over the cold repeats */
    double cv;                    /* sd / mean of cold wall; NAN: n < 2 */
    int n_outliers;               /* MAD outliers of the log walls (pm_stats_log_outliers: modified z above
                                     PM_STATS_OUTLIER_LIMIT), n >= 3 */
    /* the contention evidence's inputs, means over the cold runs: host.load1 (NAN: not recorded),
       host.psi_cpu_some_us, host.psi_cgroup_cpu_some_us (µs) and host.steal_ms (-1: not recorded) */
    double load1;
    double psi_us, psi_cgroup_us, steal_ms;
    double jobs;                  /* compiles its runs ran beside (run metric host.jobs, sweep --jobs); NAN: one */
    pm_contention contention;     /* the evidence (contention.h), built as compare's is; its cpu_ratio: min over its
                                     tools of the steps' CPU/wall / that tool's serial baseline (starved_tool) */
    int contended;                /* pm_contention_judge found a reason (compare's rule, so the two agree) */
    /* process-overhead = start-up + outside passes (shares of the cold wall, and seconds); NAN: start-up not
       measured for any tool of the config. start-up per run = sum over its steps of the tool's median null-run
       wall, at most the run's process-overhead. */
    double startup_share, outside_share, startup_s, outside_s;
    struct pm_an_metric { char *name; double mean; } *metrics;   /* every run metric's mean (any back end's) */
    size_t n_metrics;
    int instrumented;             /* NPU: compiled with instrumentation switches (analysis_npu.c) */
    int host;                     /* index into pm_analysis.machines.rows of the machine of its cold runs;
                                     -1: none recorded, -2: several machines */
} pm_an_config;

typedef struct pm_an_startup {   /* one tool started on a null input (once per sweep and machine) */
    char *tool;
    int n_ok, n_failed;           /* null runs */
    double wall_s, user_s, sys_s; /* medians over the ok runs; NAN: none */
    double cpu_wall;              /* its serial baseline: median (user+sys)/wall of the ok runs; NAN: none */
    int contended;                /* cpu_wall below PM_AN_STARTUP_MIN_CPU_WALL: measured on a busy machine, so
                                     neither a serial baseline nor a start-up to conclude from */
    char *note;                   /* not measured: why (NULL otherwise) */
} pm_an_startup;
/* A tool's null runs below this CPU/wall waited for a CPU themselves (contention.h). */
#define PM_AN_STARTUP_MIN_CPU_WALL PM_CONTENTION_RATIO

typedef struct pm_an_host {       /* a machine that measured cold runs of the study */
    char *name, *fingerprint, *cpu_model, *kernel, *compiler;
    int cores;
    int n_configs, n_runs;        /* configs it measured (all their cold runs, or some), cold runs */
    double wall_geomean;          /* geometric mean of the cold walls of the configs only it measured; NAN: none */
} pm_an_host;

typedef struct pm_an_cell {       /* one cell of a regime map */
    const char *row;              /* size (LLM) or family (CNN) */
    double row_num;
    int col;                      /* window (LLM) or resolution (CNN) */
    int stage;                    /* dominant stage */
    double share;
    int n_configs;
} pm_an_cell;

typedef struct pm_an_regime {
    const char *kind;             /* a kind row's name, or "command" for the map of every kind without a row */
    int others;                   /* 1: the map over parameters of the kinds without a row */
    const char *figure;           /* the figure that draws it ("regime-map", "cnn-regime-map") */
    const char *row_label, *col_label; /* axis labels of the figure */
    const char *row_axis, *col_axis;   /* the parameter names mapped (rows: workload, columns: size) */
    const char *precision, *variant;   /* the slice mapped (most common) */
    pm_an_cell *cells;
    size_t n_cells;
    char **boundaries;            /* sentences */
    size_t n_boundaries;
} pm_an_regime;

typedef struct pm_an_fit {        /* pass time = a * x^exponent */
    const char *tool, *name;
    int stage;
    const char *x_metric;         /* the size at the entry of the pass's own stage: "ir.stage.<stage>" (embedded
                                     mlir-opt stages), "ir.llvm_ops" (llc, mlir-translate), "npu.tiles" / "npu.tasks"
                                     (NPU), a command back end's declared "ir.*"; NULL: the stage's entry was not
                                     measured, so no fit (never the input size instead): no_fit says what to do */
    const char *no_fit;           /* why there is no fit and how to get one (a static sentence), or NULL */
    const char *variant;          /* the variant whose configs are the points (NULL: the configs have none) */
    const char *group;            /* the points' values of the axes that change the pipeline, not the size
                                     ("opt=2": configs that differ only there have one x), or NULL: a fit never
                                     pools -O levels */
    int reference;                /* the reference fit (stock, else the first variant; the first group): the fix
                                     table uses it */
    int n;                        /* points: one per config, its geometric mean over its cold runs */
    double exponent, lo, hi, r2, prefactor;
    int superlinear;              /* lower CI bound > 1 */
    double *x, *y;                /* [n] points (per config geometric means) */
    double max_share, user_wall;
    int npuw_left_out;            /* NPU configs left out: NPUW LLM compiles, whose trace/strategy file is the
                                     last subgraph's (the LM head) while the pass time is the whole compile's */
} pm_an_fit;

typedef struct pm_an_trend { int stage; double slope, intercept; int n; } pm_an_trend; /* share vs log10 x (or x) */

/* The configs one handoff or fingerprint describes: those of one workload kind (a row of the kind table,
 * lib/workload/kinds.c), or, for `kind` NULL, every config whose kind has no row (a command back end's). */

/* Handoff: how the stage shares move as the compile grows. x is the growth measure, one value per config:
 * the cold compile wall ("wall"), a run metric the back end declares (e.g. "ir.lines"), or a numeric parameter
 * (the spec's [report] size, or report --x). Configs that differ only along x form a series. */
typedef struct pm_an_hpoint { int config, series; double x; } pm_an_hpoint;

typedef struct pm_an_handoff {
    const char *kind;             /* the population (see above); meaningless when x is NULL */
    const char *x;                /* "wall", a metric or a parameter name; NULL: no handoff in this study */
    int x_param;                  /* x is a parameter (its values are the axis) */
    int log_x;                    /* trends against log10(x) (every x > 0), else against x */
    char *series_axes;            /* comma list of the axes a series holds fixed ("family", "opt"); "": one series */
    char **series;                /* labels ("qwen2", "opt=2"), in config order of first appearance */
    size_t n_series;
    pm_an_hpoint *points;         /* configs with cold runs, in config order */
    size_t n_points;
    pm_an_trend *trends;          /* [n_stages] share vs log10(x) (or x), over every point */
    double series_jsd;            /* mean Jensen-Shannon distance between series' breakdowns at equal x (NAN: <2) */
    int series_pairs;
} pm_an_handoff;

/* Fingerprint: the stage breakdown per workload, one bar per combination of the bar axes, every other axis
 * held at one value. One per population (kind row, then the kinds without a row). */
typedef struct pm_an_fingerprint {
    const char *kind;             /* the population */
    const char *label;            /* the kind row's label ("LLM"); NULL for kinds without a row */
    const char *figure;           /* the figure that draws it ("fingerprint", "cnn-fingerprint") */
    char *bar_axes;               /* comma list ("family,size"; "input,opt") */
    char *held;                   /* the axes held and their values ("precision=int8 window=512"); "" */
    int *configs;                 /* [n] bars, config indices in config order */
    char **labels;                /* [n] bar labels */
    size_t n;
} pm_an_fingerprint;

typedef struct pm_an_series { const char *label; size_t n; double *x, *y; const char **xlabel; } pm_an_series;

typedef struct pm_an_fix {
    int stage;                    /* the regime */
    int n_configs;
    int n_contended;              /* of them contended: then no fix is chosen (no conclusion) */
    const char *tool, *pass;      /* the regime's heaviest pass by share, any stage; NULL for process-overhead */
    int pass_stage;               /* the stage of that pass; -1: none */
    double share, exponent, exponent_lo, user_wall, cache_ratio;  /* NAN when not measured */
    double startup_share, outside_share;   /* mean over the regime's configs; NAN: start-up not measured for all */
    char *fix;                    /* set by pm_analysis_fix_words (proven and predicted fixes); NULL before */
} pm_an_fix;

/* The NPUW settings a compile records (the compiled model's value, else the sent one) and, where the compiled
 * value differs, the sent one beside it (metric NAME.sent). label: the NPUW_LLM_ key they come from. */
#define PM_AN_NPUW_SETTINGS 6
extern const struct pm_an_npuw_setting {
    const char *metric, *label;
    int boolean;                  /* 1: the value is 1/0 (shown YES/NO) */
} pm_an_npuw_settings[PM_AN_NPUW_SETTINGS];
/* Setting k's value v as text: YES/NO for a boolean, else the number. */
void pm_an_npuw_setting_text(int k, double v, char *buf, size_t size);

typedef struct pm_an_npu_config {  /* the NPU back end's view of one config (means over cold ok runs) */
    int config;                   /* index into configs */
    int instrumented, offline;    /* instrumented: schedule trace / strategy JSON / task stats were on */
    double prefill_s, generate_s, lm_head_s, unattributed_s;  /* report Totals per NPUW submodel; NAN: none */
    int split_inferred;           /* 1: no log line named a submodel: the split above is inferred from NPUW's
                                     compile order (generate variants, prefill, LM head), never measured by name */
    double npuw_lines;            /* "[ NPUW:" lines per run (0: this build prints none); NAN: not NPUW */
    double compile_net_ms, elf_export_ms;   /* Compile net time, and it minus the report Totals; NAN: none */
    double blob_bytes, blob_weightless_bytes, import_s;          /* NAN: not recorded */
    double setting[PM_AN_NPUW_SETTINGS], setting_sent[PM_AN_NPUW_SETTINGS];   /* NAN: none / not different */
    int read_back;                /* 1: the settings are the compiled model's (else what was sent) */
} pm_an_npu_config;

/* An in-sweep A/B: one variant (B) against the reference variant (A) over the configs that differ only by
 * variant, computed by compare itself (pm_compare_run on this store), so every ratio, interval and mark is
 * the one `passmap compare DB --a-variant A --b-variant B` prints. */
typedef struct pm_an_ab {
    char *variant, *against;      /* B, A: variants, or values of `axis` */
    const char *axis;             /* NULL: variants; "precision": the precision study's pairs */
    pm_compare_result cmp;        /* empty when error is set */
    char *error;                  /* why the comparison could not be made (e.g. configs that match twice) */
} pm_an_ab;

/* Between builds (analysis_builds.c): a study whose axis picks the compiler build (configs equal on every other
 * axis ran other tool builds, by their fingerprints) compares each build with the next (and the first with the
 * last when there are more than two) by pm_compare_run on that axis, passes matched by name through the alias
 * table (data/pass-aliases.tsv), so every ratio and verdict is compare's. */
typedef struct pm_an_builds_pair {
    char *a, *b;                  /* the axis's values: A (the earlier build), B */
    pm_compare_result cmp;        /* empty when error is set */
    char *error;                  /* why the pair could not be compared */
    int stage;                    /* index into pm_analysis.stages of the stage whose time moved most (largest
                                     |B - A| summed over the matched configs); -1: none */
    double stage_a_s, stage_b_s;  /* that stage's mean time summed over the matched configs, A and B */
} pm_an_builds_pair;

typedef struct pm_an_builds {
    char *axis;                   /* NULL: the study has no builds axis (then nothing else is set) */
    char **values;                /* its values, numeric ones ascending */
    size_t n_values;
    char **invoked;               /* per value: the program word(s) its configs ran ("llc-14"), or NULL */
    pm_an_builds_pair *pairs;
    size_t n_pairs;
    size_t n_aliases;             /* rows of the alias table used */
    char *alias_error;            /* the alias table could not be read (passes then match by printed name) */
} pm_an_builds;

/* pm_analysis: the facts every section shares (the store's and the spec's, the stages, the configs) at the top,
 * then one sub-structure per report section (lib/output/report_sections.h), named after the section's id and
 * filled by its analysis file (lib/study/analysis_*.c): a section's rows read their own. A new section adds its
 * sub-structure here, its type beside it. */
typedef struct pm_an_summary {    /* summary: the runs, and why some have no readable report */
    int max_repeats, n_runs_ok, n_runs_failed;
    int n_runs_no_report;         /* exited 0 without a readable timing report (not in n_runs_failed) */
    int n_configs_no_report;      /* configs with no ok run and a no-report run: no stage, regime or fix */
    char *no_report_note;         /* the first no-report run's note (why), or NULL */
    int n_trace_runs;             /* ok runs read from a Chrome trace: its spans have a granularity (below) */
} pm_an_summary;
#define PM_AN_TRACE_GRANULARITY "clang -ftime-trace drops spans shorter than -ftime-trace-granularity (500 us by " \
                                "default; -ftime-trace-granularity=0 records all); passmap restores each optimizer " \
                                "pass's total from clang's Total events, other dropped spans stay in their parent"
#define PM_AN_NO_REPORT_HINT "add -ftime-report or -ftime-trace (clang), -time-passes (opt, llc), -ftime-report (gcc) " \
                             "or --mlir-timing (mlir-opt) to the step and check its report = line"

typedef struct pm_an_machines {   /* machines (analysis_hosts.c): stratified when the study mixes them */
    pm_an_host *rows;
    size_t n;
    int n_kinds;                  /* distinct fingerprints (CPU, cores, kernel, compiler build) */
    char **warnings;              /* sentences: comparisons that cross machines (or compiler builds) */
    size_t n_warnings;
} pm_an_machines;

/* method: the compiler identity (schema 7, analysis_hosts.c): each tool build the sweep ran (name, path,
 * --version, hash, hosts), by name; n_tools 0: an older file. mixed_builds: some tool has more than one build
 * (a forced merge): the report then never says "same build" */
typedef struct pm_an_method {
    pm_tool_ident *tools;
    size_t n_tools;
    int mixed_builds;
} pm_an_method;

typedef struct pm_an_figures {    /* figures: the fingerprints' bars (analysis_handoff.c) */
    pm_an_fingerprint *fingerprints;
    size_t n_fingerprints;
} pm_an_figures;

typedef struct pm_an_ab_sec {     /* ab: in-sweep A/B (pm_analysis_ab, set by the caller that has the store's path) */
    pm_an_ab *rows;
    size_t n;                     /* 0: one variant */
    int allow_contended;          /* the A/B kept contended configs' verdicts (marked): --allow-contended */
} pm_an_ab_sec;

typedef struct pm_an_regimes {    /* regimes (analysis_regime.c) */
    pm_an_regime *rows;           /* one per kind row (table order, empty when the study has none), then the
                                     map over two parameters of the kinds without a row */
    size_t n;
} pm_an_regimes;

typedef struct pm_an_fits {       /* fits: cost vs IR size (analysis_fits.c) */
    pm_an_fit *rows;
    size_t n;
    const char *x_note;           /* the fits' x axes follow a fallback, not the rules the sweep recorded (an older
                                     store, an import): which, as a static sentence; NULL otherwise */
} pm_an_fits;

typedef struct pm_an_precision {  /* precision study (LLM, reference variant; analysis_precision.c) */
    int window;                   /* fixed window of the "cold time vs size" panel; 0: no data */
    pm_an_series *time;           /* per precision: x size_num, y cold wall */
    size_t n;
    const char *base;             /* "int8" or the first precision */
    pm_an_series *ratio;          /* per precision: median over windows of wall / base wall per size */
    char **crossovers;
    size_t n_crossovers;
    const char *window_size;      /* size of the precision x window figure */
} pm_an_precision;

typedef struct pm_an_noise {      /* noise (analysis_noise.c); the fix table is never drawn from contended configs */
    double user_wall_baseline;    /* 90th percentile of the configs' user/wall: the fallback level where no tool
                                     has a serial baseline (older databases); NAN */
    int n_baseline_p90;           /* configs judged against that fallback */
    int n_contended, n_noisy;     /* noisy: CV > 10% or a MAD outlier */
} pm_an_noise;

typedef struct pm_an_overhead {   /* overhead: start-up (analysis_startup.c), each tool's null-input runs */
    pm_an_startup *rows;
    size_t n;
    int table;                    /* 0: an older database */
    int measured;                 /* some tool has an ok null run */
    int contended;                /* some tool's null runs were contended: the split is shown, never concluded from */
} pm_an_overhead;

typedef struct pm_an_parallelism {   /* parallelism (analysis_parallel.c, analysis_stages.c) */
    size_t n_tools;
    char **tools;
    double *tool_user_wall;       /* per tool process user/wall; NAN when absent */
    double *stage_user_wall;      /* [n_stages] from pass user times; NAN when absent */
} pm_an_parallelism;

/* fixes: the fix table (analysis_fixes.c) and `passmap fix`'s proven rows, which the proven-fixes, headline and
 * next-step sections read */
typedef struct pm_an_fixes {
    pm_an_fix *rows;
    size_t n;
    char *proven_json;            /* `passmap fix`'s result for this sweep (set by the caller), or NULL */
    char *headline;               /* the headline's fix (pm_analysis_fix_words), or NULL */
    char *top_why;                /* the catalogue's why of the headline's fix, or NULL */
} pm_an_fixes;

typedef struct pm_an_npu {        /* npu: the NPU back end (analysis_npu.c); n = 0 when no config has its metrics */
    pm_an_npu_config *rows;
    size_t n;
    int n_instrumented, n_offline;
} pm_an_npu;

typedef struct pm_an_passcount_pass {   /* one (tool, pass) of a config, over its ok cold runs with counts */
    const char *tool, *name;      /* owned by the analysis */
    int stage;                    /* index into pm_analysis.stages; -1: none */
    double instructions;          /* mean per run; -1: not counted (why says why) */
    double wall_s;                /* mean per run of the same report rows' wall */
    int by_timer;                 /* counted at its timer's boundaries (else by an exported entry point) */
    const char *why;              /* not counted: why; NULL otherwise */
} pm_an_passcount_pass;

typedef struct pm_an_passcount_config {
    size_t config;                /* index into pm_analysis.configs */
    int n_runs;                   /* ok cold runs with per-pass counts */
    double process;               /* mean per run: the steps' whole process-tree count */
    double counted, wall, wall_counted;   /* means per run: counted passes' instructions; every row's wall; the
                                             wall of the rows that got a count */
    double *stage_count, *stage_wall;     /* [n_stages] shares of counted instructions / of the rows' wall */
    int dominant_count, dominant_wall;    /* stage index by each; -1: none */
    pm_an_passcount_pass *passes; /* in the order they first ran */
    size_t n_passes;
} pm_an_passcount_config;

typedef struct pm_an_passcount {  /* passcount (analysis_passcount.c); n = 0 when no run has per-pass counts */
    pm_an_passcount_config *rows;
    size_t n;
    int n_agree;                  /* configs whose dominant stage by count is the one by wall */
} pm_an_passcount;

typedef struct pm_analysis {
    char *sweep, *backend, *meta_json;
    const char **stages;          /* stages this sweep hits, in map order, then "process-overhead" ("other" where a pass is unmapped) */
    size_t n_stages;
    const char **phases;          /* the phases of those stages (pm_stage_phases order: frontend, optimizer,
                                     codegen, link, process, other), each stage in one (the maps' 4th column) */
    size_t n_phases;
    int *stage_phase;             /* [n_stages]: index into phases */
    pm_an_config *configs;        /* sorted: kind, family, size (numeric), window, precision, resolution */
    size_t n_configs;
    int cpus;                     /* from the sweep's metadata; 0: unknown */
    char *incomplete;             /* merge --partial: what the study lacks, one sentence (reports put it first);
                                     NULL: complete */
    /* one per report section, in report order */
    pm_an_summary summary;
    pm_an_machines machines;
    pm_an_figures figures;
    pm_an_ab_sec ab;
    pm_an_builds between;         /* builds: between builds (pm_analysis_builds, set by the caller with the store's path) */
    pm_an_overhead overhead;
    pm_an_regimes regimes;
    pm_an_fits fits;
    pm_an_handoff handoff;        /* of the first population: kind rows in table order, then the others */
    pm_an_precision precision;
    pm_an_noise noise;
    pm_an_parallelism parallelism;
    pm_an_fixes fixes;
    pm_an_npu npu;
    pm_an_method method;
    pm_an_flagcost flagcost;
    pm_an_passcount passcount;
} pm_analysis;

int pm_analysis_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err);
/* A stage "dominates" a config when it takes at least this share of its compile; below it, it "leads". */
#define PM_AN_DOMINATES_SHARE 0.5
/* The words on the fix table and the headline's fix from `passmap fix`'s plan (pm_fix_propose: one source of
 * truth) and a->fixes.proven_json (its proven rows): per regime row, proven fixes first with their measured ratios, then
 * the predicted ones whose rule holds on the row's configs; the headline: the proven combination to ship, else
 * the predicted single fix that holds on most configs. db_label names the store in the hint. */
struct json_t;
int pm_analysis_fix_words(pm_analysis *a, const struct json_t *plan, const char *db_label);
void pm_analysis_free(pm_analysis *a);
/* Fills a->ab.rows: every variant other than the reference (stock when present, else the regime maps' variant: the most common one) against
 * it, then every precision of the precision study against its base (compare's axis matching), with compare's rule (threshold 0: PM_COMPARE_THRESHOLD). A comparison compare refuses is kept with its
 * error, not fatal. db_path: the store the analysis read. allow_contended: compare's --allow-contended. */
int pm_analysis_ab(pm_analysis *a, const char *db_path, double threshold, int allow_contended, pm_err *err);

/* The whole study in one call, what passmap report writes: pm_analysis_run with opts->db_path set (so the A/B and
 * between-builds sections run too), a sweep with no runs refused, then opts->add_fixes. Errors of the analysis name
 * the store's path. */
int pm_study_run(sqlite3 *db, const pm_an_opts *opts, pm_analysis **out, pm_err *err);
/* Fills a->between when a study axis picks the compiler build (pm_an_builds); threshold 0: PM_COMPARE_THRESHOLD.
 * A pair compare refuses is kept with its error, not fatal. db_path: the store the analysis read. Call after
 * pm_analysis_ab (it reads a->ab.allow_contended). */
int pm_analysis_builds(pm_analysis *a, const char *db_path, double threshold, pm_err *err);
void pm_an_builds_free(pm_an_builds *b);
void pm_an_ab_free(pm_an_ab_sec *ab);   /* a->ab (pm_analysis_free calls it) */
/* The whole report as JSON (schema in the function's comment in analysis.c). New reference. */
json_t *pm_analysis_json(const pm_analysis *a);

/* Helpers exposed for tests and the figures. */
double pm_an_size_value(const char *size);       /* "0.5b" -> 5e8, "125m" -> 1.25e8; NAN */
/* The handoff's stages whose share rises fastest (*up) and falls fastest (*down) with its x; -1: none. */
void pm_an_handoff_extremes(const pm_analysis *a, int *up, int *down);
int pm_an_stage_index(const pm_analysis *a, const char *stage);   /* -1 when absent */
const pm_an_config *pm_an_find_config(const pm_analysis *a, const char *key);
/* The regime map of a kind ("command": of the kinds without a row); never NULL (an empty map when absent). */
const pm_an_regime *pm_an_regime_of(const pm_analysis *a, const char *kind);
/* The regime map a figure draws: the first with cells whose figure is this one, or NULL. */
const pm_an_regime *pm_an_regime_for(const pm_analysis *a, const char *figure);
/* The fingerprint a figure draws (pm_an_fingerprint.figure), or NULL. */
const pm_an_fingerprint *pm_an_fingerprint_for(const pm_analysis *a, const char *figure);

#endif
