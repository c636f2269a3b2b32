/* pm_parse: per-pass timing reports and compiler metrics, from files or buffers; the format table. The
 * report container the parsers fill is parse_report.h's. */
#ifndef PM_PARSE_H
#define PM_PARSE_H

#include <stddef.h>
#include "error.h"
#include "parse_report.h"

/* Parses buf (need not be NUL-terminated). AUTO sniffs the format. Appends to out (so several inputs,
 * e.g. stderr of mlir-opt plus a schedule trace, can share one report). Input with no report block is
 * not an error: n_reports stays 0. Malformed input is PM_ERR_PARSE with a line number in the message. */
int pm_parse_buffer(const char *buf, size_t len, pm_format fmt, pm_report *out, pm_err *err);
/* A file must be a regular file of at most PM_PARSE_MAX_BYTES (a Chrome trace, named or sniffed:
 * PM_PARSE_MAX_STREAM_BYTES) and hold at least one pass or metric: one that holds neither is PM_ERR_NOTFOUND,
 * "no timing report in F; formats tried: ...". Errors name the file (and, in a Chrome trace, the byte offset). */
#define PM_PARSE_MAX_BYTES ((size_t)512 << 20)
/* A Chrome trace is read streaming, its memory bounded by its spans (parse_chrome.c), not its bytes: its own
 * limit is larger. */
#define PM_PARSE_MAX_STREAM_BYTES ((size_t)16 << 30)
int pm_parse_file(const char *path, pm_format fmt, pm_report *out, pm_err *err);

/* The format table (parse.c: one row per format: name, parser, sniffer, default tool, tick). */
pm_format pm_parse_sniff(const char *buf, size_t len);
const char *pm_format_name(pm_format f);                 /* "mlir-text", "llvm-text", "npu-log" ... */
pm_format pm_format_from_name(const char *name);      /* PM_FMT__COUNT when unknown */
/* The resolution of a format's pass times, s: the step its printed times take. mlir-text, mlir-json and
 * llvm-text print seconds with 4 decimals (0.1 ms; the npu-log's timing blocks are mlir-text); Chrome traces
 * count whole µs. 0: the format carries no pass times (npu-schedule/strategy/task-stats: metrics only), or is
 * unknown. compare models the rounding (tick^2/12) and calls rows within a few ticks below resolution. */
double pm_format_tick_s(pm_format f);
/* The tool that prints a format's reports ("mlir-opt", "llc", "ov-compile", "gcc"), or NULL when none is
 * implied (Chrome traces come from several compilers). */
const char *pm_format_default_tool(pm_format f);
/* Whether the short lists name format f (its row's listed: "formats tried", --help); 0 for one only named
 * explicitly (llvm-json) or unknown. */
int pm_format_listed(pm_format f);
/* The formats' names, ", "-separated in table order, into buf (all: also the ones only named explicitly, as
 * llvm-json). Returns buf. */
const char *pm_format_list(int all, char *buf, size_t cap);

#endif
