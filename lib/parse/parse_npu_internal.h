/* What the NPU parsers share (parse_npu.c: helpers, JSON loading, sniffing; parse_npu_log.c, parse_npu_trace.c,
 * parse_npu_strategy.c, parse_npu_stats.c: one format each). Other files use parse_internal.h. */
#ifndef PM_PARSE_NPU_INTERNAL_H
#define PM_PARSE_NPU_INTERNAL_H

#include "parse_internal.h"

#include <jansson.h>
#include <stddef.h>

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

typedef struct counter {
    char *name;
    double value, first_ms, last_ms;
} counter;

typedef struct counters {
    counter *items;
    size_t n, cap;
} counters;

typedef struct log_line {
    const char *logger; /* NULL when the line has no logger prefix */
    size_t logger_len;
    double time_ms;     /* < 0: absent */
    const char *msg;    /* the message (after the prefix), or the whole line */
    int indent;         /* leading spaces of msg */
} log_line;

enum { STATS_NONE, STATS_VPUIP, STATS_IE };

typedef struct stats_state {
    int block;          /* STATS_* */
    int base_indent;    /* indent of the block's first entry: deeper entries are breakdowns */
    counters vpuip, ie;
    double vpuip_total, vpuip_root, ie_total;
    int seen_vpuip, seen_vpuip_root, seen_ie;
} stats_state;

/* Calls fn on each NUL-terminated line of a (modifiable) buffer. */
#define FOR_EACH_LINE(text, len, line)                                                      \
    for (char *line = (text), *line##_next = NULL; line < (text) + (len); line = line##_next) \
        if ((line##_next = strchr(line, '\n')) ? (*line##_next++ = '\0', 1)                   \
                                               : ((line##_next = (text) + (len)), 1))

int sbuf_add(sbuf *b, const char *p, size_t n);
char *strip_ansi(const char *buf, size_t len, size_t *out_len);
int starts_with(const char *s, const char *p);
int add_metric2(pm_report *r, const char *prefix, const char *name, double v);
counter *counter_get(counters *c, const char *name, size_t name_len);
counter *counter_find(counters *c, const char *name);
void counters_free(counters *c);
void split_log_line(const char *line, log_line *ll);
json_t *load_json(const char *buf, size_t len, const char *what, pm_err *err);
double json_num(const json_t *v, int *ok);
int stats_line(stats_state *st, const log_line *ll);
void stats_free(stats_state *st);
int stats_emit(stats_state *st, pm_report *out);
/* 1 when buf sniffs as format want (each format row's sniffer). */
int npu_is(const char *buf, size_t len, pm_format want);

#endif
