/* Per-format parsers and sniffers behind parse.c's format table. Each parser appends to out (parse_report.h)
 * and returns a pm_status. */
#ifndef PM_PARSE_INTERNAL_H
#define PM_PARSE_INTERNAL_H

#include "parse_report.h"

typedef int (*pm_parse_fn)(const char *buf, size_t len, pm_report *out, pm_err *err);

int pm_parse_mlir_text(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_mlir.c */
int pm_parse_mlir_json(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_mlir.c */
int pm_parse_llvm_text(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_llvm.c */
int pm_parse_llvm_json(const char *buf, size_t len, pm_report *out, pm_err *err);     /* parse_llvm.c */
int pm_parse_chrome_trace(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_chrome.c */
/* The same read from an open file in chunks (parse_chrome.c: memory bounded by the spans, not the bytes). */
int pm_parse_chrome_trace_fd(int fd, pm_report *out, pm_err *err);
int pm_parse_npu_log(const char *buf, size_t len, pm_report *out, pm_err *err);       /* parse_npu_log.c */
int pm_parse_npu_schedule(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_npu_trace.c */
int pm_parse_npu_strategy(const char *buf, size_t len, pm_report *out, pm_err *err);  /* parse_npu_strategy.c */
int pm_parse_npu_task_stats(const char *buf, size_t len, pm_report *out, pm_err *err);/* parse_npu_stats.c */
int pm_parse_gcc_text(const char *buf, size_t len, pm_report *out, pm_err *err);      /* parse_gcc.c */

/* What a sniffer looks at: a buffer (head = buf), or an open file (fd >= 0) of which only the first bytes are
 * held in head; pm_text_has then scans the file in chunks for a needle (each call from the start, stopping at
 * the first hit), so a sniff of a large file holds no more than a chunk. */
typedef struct pm_text {
    const char *head;
    size_t head_len;
    const char *buf;   /* the whole text, or NULL (file) */
    size_t len;
    int fd;            /* -1: a buffer */
} pm_text;
/* how much of a file a sniffer reads at once (pm_text_has's chunk) */
#define PM_PARSE_SNIFF_CHUNK ((size_t)64 << 10)
int pm_text_has(const pm_text *t, const char *needle);                                 /* parse_text.c */

/* Sniffers: non-zero when buf looks like the format (cheap, prefix-based). */
int pm_sniff_npu(const char *buf, size_t len, pm_format *fmt);                         /* parse_npu.c */
int pm_sniff_npu_text(const pm_text *t, pm_format *fmt);                               /* parse_npu.c */
int pm_sniff_gcc(const char *buf, size_t len);                                         /* parse_gcc.c */

/* One format's row of the format table (parse_formats.h lists them; parse.c reads them). */
typedef struct pm_format_row {
    const char *name;      /* "mlir-text": --format, the store, messages */
    pm_parse_fn parse;
    int (*sniff)(const char *buf, size_t len);   /* non-zero: buf looks like this format */
    int sniff_order;       /* sniffers run in this order (1 first) and the first match wins: a JSON file is a
                              Chrome trace before it is MLIR's JSON, and that before LLVM's */
    const char *tool;      /* the compiler that prints it, for an import without --tool; NULL: none implied */
    double tick_s;         /* the resolution of its pass times (pm_format_tick_s); 0: no pass times */
    int listed;            /* named in "formats tried" and the short lists (0: only when asked for by name) */
} pm_format_row;

#define PM_FORMAT(id, row) extern const pm_format_row pm_format_##row;
#include "parse_formats.h"
#undef PM_FORMAT

#endif
