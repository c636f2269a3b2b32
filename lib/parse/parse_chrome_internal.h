/* What the Chrome trace parser's files share: parse_chrome.c takes the events into spans, parse_chrome_rd.c
 * scans the JSON bytes (the event reader), parse_chrome_emit.c turns the spans into the report's rows. */
#ifndef PM_PARSE_CHROME_INTERNAL_H
#define PM_PARSE_CHROME_INTERNAL_H

#include "parse_internal.h"

#include <stddef.h>

typedef struct span {
    char *name;
    char *detail;   /* args.detail without directories, or NULL */
    double ts, dur; /* µs */
    long long pid, tid;
    size_t order;
    int summary;
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
    /* events that are spans' parts but cannot be read (pm_report.n_skipped): counted, the first named */
    size_t n_skipped;
    long long at, skip_at;       /* the event being taken; the first skipped one */
    const char *skip_why;
} spans;

/* A window over the input: the whole buffer (memory), or a file read in chunks. In a file the window keeps the
 * bytes from the pinned position (the event being scanned), or from the read position, and drops the rest. */
typedef struct rd {
    int fd;                 /* -1: memory */
    char *own;              /* the window's storage (file) */
    const char *p;          /* the window's bytes */
    size_t cap, hi, pos;    /* storage size, bytes held, next byte */
    long long base;         /* input offset of p[0] */
    size_t pin;             /* window index kept while pinned */
    int pinned, eof;
    pm_err *err;
} rd;

long long pm_parse_rd_off(const rd *r);
int pm_parse_rd_fail(rd *r, long long at, const char *what);
/* The error at the read position. */
static inline int pm_parse_rd_fail_here(rd *r, const char *what)
{
    return pm_parse_rd_fail(r, pm_parse_rd_off(r), what);
}
int pm_parse_rd_ws(rd *r);
/* Consumes one expected byte. */
int pm_parse_rd_expect(rd *r, int want, const char *what);
/* A string, from its opening quote (checked as Jansson does). */
int pm_parse_rd_string(rd *r);
/* One value, from the byte at the read position: checked and consumed, not kept. */
int pm_parse_rd_skip(rd *r, int depth);

void pm_parse_spans_free(spans *s);
/* The spans, sorted and nested, into the report. Frees the spans. */
int pm_parse_chrome_emit(spans *in, pm_report *out, pm_err *err);

#endif
