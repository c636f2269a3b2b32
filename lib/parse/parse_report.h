/* pm_report: the container every parser fills (passes, metrics, totals) and the one counting rule; apart from
 * the format table (parse.h) so the parsers depend on it and parse.c on them, never back. */
#ifndef PM_PARSE_REPORT_H
#define PM_PARSE_REPORT_H

#include <stddef.h>
#include "error.h"

typedef enum pm_format {
    PM_FMT_AUTO = 0,        /* not known yet: sniff */
#define PM_FORMAT(id, row) PM_FMT_##id,
#include "parse_formats.h"
#undef PM_FORMAT
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
    PM_PASS_PIPELINE = 1u << 4, /* counted time a pass manager holds itself (-ftime-trace: "PassManager<Function>
                                   (self)", or its whole span when no pass inside it was recorded): a pipeline row,
                                   not a pass; compare never tests it as one */
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
    /* Rows that look like report rows but could not be read (gcc: a table line whose values do not parse or are
     * out of range; Chrome: an X event without a numeric dur, an E without its B): left out, counted, and the
     * first named, so a reader can warn instead of dropping them silently. */
    size_t n_skipped;
    char skipped_first[160];
} pm_report;
/* Counts a row left out; the first one's description (a line number, an event) is kept. */
void pm_report_skip(pm_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void pm_report_init(pm_report *r);
void pm_report_free(pm_report *r);
/* Appends (names are copied). Return PM_OK or PM_ERR_NOMEM. */
int pm_report_add_pass(pm_report *r, const pm_pass *p);
/* pm_report_add_pass without copying: on success the report owns p->name (heap) and p->section (heap or NULL);
 * on failure they stay the caller's. For a parser whose rows are as many as its input's events. */
int pm_report_take_pass(pm_report *r, const pm_pass *p);
int pm_report_add_metric(pm_report *r, const char *name, double value);

/* Whether a row's time is its own work (not a group, summary or breakdown): the one rule every total uses. */
int pm_pass_counted(const pm_pass *p);
/* Sum of wall time over counted passes: no double counting. */
double pm_report_pass_wall(const pm_report *r);

const char *pm_pass_order_name(pm_pass_order o);      /* "none", "sequence", "timed" */
pm_pass_order pm_pass_order_from_name(const char *name);   /* NULL or unknown: PM_ORDER_NONE */

/* Every time taken from a report is range-checked: finite, >= 0 and at most PM_TIME_MAX_S seconds (about 30
 * years; anything larger is a corrupt report, and unchecked it overflows integer conversions downstream). */
#define PM_TIME_MAX_S 1e9
int pm_time_ok(double seconds);

#endif
