/* pm_parse: per-pass timing reports and compiler metrics, from files or buffers. */
#ifndef PM_PARSE_H
#define PM_PARSE_H

#include <stddef.h>
#include "error.h"

typedef enum pm_format {
    PM_FMT_AUTO = 0,
    PM_FMT_MLIR_TEXT,       /* -mlir-timing, list or tree display */
    PM_FMT_MLIR_JSON,       /* -mlir-timing --mlir-output-format=json */
    PM_FMT_LLVM_TEXT,       /* llc/opt -time-passes */
    PM_FMT_LLVM_JSON,       /* -time-passes-json (where available) */
    PM_FMT_CHROME_TRACE,    /* Chrome trace / -ftime-trace JSON */
    PM_FMT_NPU_LOG,         /* OpenVINO NPU plugin + compiler log (LOG_INFO) */
    PM_FMT_NPU_SCHEDULE,    /* compileTimeScheduleTrace.json */
    PM_FMT_NPU_STRATEGY,    /* strategy_out.json */
    PM_FMT_NPU_TASK_STATS,  /* dump-task-stats / IE op statistics blocks */
    PM_FMT_GCC_TEXT,        /* gcc -ftime-report ("Time variable" table) */
    PM_FMT__COUNT
} pm_format;

enum {
    PM_PASS_GROUP = 1u << 0,    /* pipeline/group row ('func.func' Pipeline, Pass execution timing report
                                   headers, "Compile network"): excluded from per-pass totals */
    PM_PASS_ANALYSIS = 1u << 1, /* (A) rows / analysis passes: counted unless also DETAIL */
    PM_PASS_SUMMARY = 1u << 2,  /* Total, Rest, root, clang "Total X" rows: excluded from totals (MLIR
                                   Parser/Output are counted: they are work inside Total) */
    PM_PASS_DETAIL = 1u << 3,   /* breakdown of time already counted in another row (llc "Instruction Selection
                                   and Scheduling", MLIR analyses nested in a pass): kept, excluded from totals */
};

typedef struct pm_pass {
    char *name;       /* as printed, trimmed; "(A) " prefix removed (flag kept) */
    char *section;    /* report section or group when the format has one (LLVM: "Pass execution timing
                         report" / "Instruction Selection and Scheduling" ...), else NULL */
    double wall_s;
    double user_s;    /* < 0: absent */
    int depth;        /* tree depth; 0 for flat formats */
    int parent;       /* index into passes[], -1 at top */
    unsigned flags;   /* PM_PASS_* */
    int report_index; /* which report block of the input (0..n_reports-1) */
    double start_s;   /* start offset from the report's first span, s; meaningful only when has_start */
    int has_start;    /* 1: the report gave the start (Chrome traces); 0: only order/nesting, or nothing */
} pm_pass;

typedef struct pm_metric {
    char *name;       /* e.g. "npu.tasks", "npu.tasks.DMA", "npu.tiles", "npu.peak_kb", "ops.total" */
    double value;
} pm_metric;

/* What the row order of a report says about execution order (for traces): */
typedef enum pm_pass_order {
    PM_ORDER_NONE = 0,      /* rows are not in execution order (LLVM and MLIR list displays sort by time) */
    PM_ORDER_SEQUENCE,      /* rows and nesting are in the compiler's execution order (MLIR tree display) */
    PM_ORDER_TIMED,         /* every span carries its start offset (Chrome traces) */
} pm_pass_order;

typedef struct pm_report {
    pm_format format;
    pm_pass_order pass_order;
    int n_reports;          /* timing report blocks found */
    double total_wall_s;    /* the report's own Total (summed over blocks); < 0: absent */
    double total_user_s;    /* < 0: absent */
    pm_pass *passes;
    size_t n_passes, cap_passes;
    pm_metric *metrics;
    size_t n_metrics, cap_metrics;
} pm_report;

void pm_report_init(pm_report *r);
void pm_report_free(pm_report *r);
/* Appends (names are copied). Return PM_OK or PM_ERR_NOMEM. */
int pm_report_add_pass(pm_report *r, const pm_pass *p);
int pm_report_add_metric(pm_report *r, const char *name, double value);

/* Whether a row's time is its own work (not a group, summary or breakdown): the one rule every total uses. */
int pm_pass_counted(const pm_pass *p);
/* Sum of wall time over counted passes: no double counting. */
double pm_report_pass_wall(const pm_report *r);

/* Parses buf (need not be NUL-terminated). AUTO sniffs the format. Appends to out (so several inputs,
 * e.g. stderr of mlir-opt plus a schedule trace, can share one report). Input with no report block is
 * not an error: n_reports stays 0. Malformed input is PM_ERR_PARSE with a line number in the message. */
int pm_parse_buffer(const char *buf, size_t len, pm_format fmt, pm_report *out, pm_err *err);
/* A file must be a regular file of at most PM_PARSE_MAX_BYTES and hold at least one pass or metric: one that
 * holds neither is PM_ERR_NOTFOUND, "no timing report in F; formats tried: ...". */
#define PM_PARSE_MAX_BYTES ((size_t)512 << 20)
int pm_parse_file(const char *path, pm_format fmt, pm_report *out, pm_err *err);

pm_format pm_parse_sniff(const char *buf, size_t len);
const char *pm_format_name(pm_format f);
const char *pm_pass_order_name(pm_pass_order o);      /* "none", "sequence", "timed" */
pm_pass_order pm_pass_order_from_name(const char *name);   /* NULL or unknown: PM_ORDER_NONE */              /* "mlir-text", "llvm-text", "npu-log" ... */
pm_format pm_format_from_name(const char *name);      /* PM_FMT__COUNT when unknown */
/* The resolution of a format's pass times, s: the step its printed times take. mlir-text, mlir-json and
 * llvm-text print seconds with 4 decimals (0.1 ms; the npu-log's timing blocks are mlir-text); Chrome traces
 * count whole µs. 0: the format carries no pass times (npu-schedule/strategy/task-stats: metrics only), or is
 * unknown. compare models the rounding (tick^2/12) and calls rows within a few ticks below resolution. */
double pm_format_tick_s(pm_format f);

#endif
