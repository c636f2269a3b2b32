/* Per-format parsers behind pm_parse_buffer. Each appends to out and returns a pm_status. */
#ifndef PM_PARSE_INTERNAL_H
#define PM_PARSE_INTERNAL_H

#include "parse.h"

typedef int (*pm_parse_fn)(const char *buf, size_t len, pm_report *out, pm_err *err);

int pm_parse_mlir_text(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_mlir.c */
int pm_parse_mlir_json(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_mlir.c */
int pm_parse_llvm_text(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_llvm.c */
int pm_parse_llvm_json(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_llvm.c */
int pm_parse_chrome_trace(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_chrome.c */
int pm_parse_npu_log(const char *buf, size_t len, pm_report *out, pm_err *err);       /* parse_npu.c */
int pm_parse_npu_schedule(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_npu.c */
int pm_parse_npu_strategy(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_npu.c */
int pm_parse_npu_task_stats(const char *buf, size_t len, pm_report *out, pm_err *err);/* parse_npu.c */
int pm_parse_gcc_text(const char *buf, size_t len, pm_report *out, pm_err *err);      /* parse_gcc.c */

/* Every time taken from a report is range-checked: finite, >= 0 and at most PM_TIME_MAX_S seconds (about 30
 * years; anything larger is a corrupt report, and unchecked it overflows integer conversions downstream). */
#define PM_TIME_MAX_S 1e9
int pm_time_ok(double seconds);                                                       /* parse.c */

/* Sniffers: non-zero when buf looks like the format (cheap, prefix-based). */
int pm_sniff_npu(const char *buf, size_t len, pm_format *fmt);                         /* parse_npu.c */
int pm_sniff_gcc(const char *buf, size_t len);                                         /* parse_gcc.c */

#endif
