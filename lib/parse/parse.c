/* The format table and dispatch: one row per format (parse_formats.h: name, parser, sniffer and its place in
 * the sniffing order, default tool, tick), each defined beside its parser in parse_*.c; the parsers fill
 * parse_report.c's container and never call back here. */
#include "parse.h"
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The rows, indexed by format (each defined in its parser's file). */
static const pm_format_row *const FORMATS[PM_FMT__COUNT] = {
#define PM_FORMAT(id, row) [PM_FMT_##id] = &pm_format_##row,
#include "parse_formats.h"
#undef PM_FORMAT
};

static const pm_format_row *row_of(pm_format f)
{
    return f > PM_FMT_AUTO && f < PM_FMT__COUNT ? FORMATS[f] : NULL;
}

double pm_format_tick_s(pm_format f)
{
    return row_of(f) ? row_of(f)->tick_s : 0;
}

const char *pm_format_name(pm_format f)
{
    return f == PM_FMT_AUTO ? "auto" : row_of(f) ? row_of(f)->name : "unknown";
}

const char *pm_format_default_tool(pm_format f)
{
    return row_of(f) ? row_of(f)->tool : NULL;
}

int pm_format_listed(pm_format f)
{
    return row_of(f) ? row_of(f)->listed : 0;
}

const char *pm_format_list(int all, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap)
        buf[0] = '\0';
    for (int f = PM_FMT_AUTO + 1; f < PM_FMT__COUNT && n < cap; f++) {
        if (!all && !FORMATS[f]->listed)
            continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", FORMATS[f]->name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return buf;
}

pm_format pm_format_from_name(const char *name)
{
    for (int f = 0; f < PM_FMT__COUNT; f++)
        if (name && strcmp(name, pm_format_name((pm_format)f)) == 0)
            return (pm_format)f;
    return PM_FMT__COUNT;
}

pm_format pm_parse_sniff(const char *buf, size_t len)
{
    /* ascending sniff_order, whatever numbers the rows chose (a new row's 20 must not be skipped); equal
     * orders in table order */
    int done = 0;
    for (;;) {
        int next = 0;
        for (int f = PM_FMT_AUTO + 1; f < PM_FMT__COUNT; f++) {
            int o = FORMATS[f]->sniff ? FORMATS[f]->sniff_order : 0;
            if (o > done && (!next || o < next))
                next = o;
        }
        if (!next)
            return PM_FMT_AUTO;
        for (int f = PM_FMT_AUTO + 1; f < PM_FMT__COUNT; f++)
            if (FORMATS[f]->sniff && FORMATS[f]->sniff_order == next && FORMATS[f]->sniff(buf, len))
                return (pm_format)f;
        done = next;
    }
}

int pm_parse_buffer(const char *buf, size_t len, pm_format fmt, pm_report *out, pm_err *err)
{
    if (fmt == PM_FMT_AUTO) {
        fmt = pm_parse_sniff(buf, len);
        if (fmt == PM_FMT_AUTO) /* nothing recognisable: no report, not an error */
            return PM_OK;
    }
    if (!row_of(fmt) || !row_of(fmt)->parse)
        return pm_err_set(err, PM_ERR_USAGE, "unknown report format %d", (int)fmt);
    if (out->format == PM_FMT_AUTO)
        out->format = fmt;
    return row_of(fmt)->parse(buf, len, out, err);
}

/* "mlir-text, mlir-json, ..." for the message when nothing was found. */
static void formats_tried(pm_format fmt, char *out, size_t size)
{
    if (fmt != PM_FMT_AUTO)
        snprintf(out, size, "%s", pm_format_name(fmt));
    else
        pm_format_list(0, out, size);
}


/* Whether an open file is a Chrome trace, as the format table's sniffers would decide on the whole text,
 * holding no more than a chunk: the NPU sniffer first (its schedule trace is a Chrome trace with NPU
 * markers anywhere in the file), then the trace's own rule (JSON whose text names traceEvents or "ph"). */
static int file_is_chrome(const pm_text *t)
{
    pm_format f;
    if (pm_sniff_npu_text(t, &f))
        return 0;
    return pm_text_is_json(t->head, t->head_len) && (pm_text_has(t, "\"traceEvents\"") || pm_text_has(t, "\"ph\""));
}

/* A Chrome trace (named, or sniffed from the file's head and needles) is parsed from the open file in chunks,
 * up to PM_PARSE_MAX_STREAM_BYTES. Returns 1 when it was (*rc says how), 0 when the file is to be read whole,
 * -1 when it cannot be opened (*rc, err name the file). */
static int parse_streaming(const char *path, pm_format fmt, pm_report *out, int *rc, pm_err *err)
{
    if (fmt != PM_FMT_AUTO && fmt != PM_FMT_CHROME_TRACE)
        return 0;
    int fd;
    if ((*rc = pm_util_open_regular(path, PM_PARSE_MAX_STREAM_BYTES, &fd, err))) {
        if (err)
            err->code = PM_ERR_IO; /* as pm_util_read_file_max: callers have always seen PM_ERR_IO */
        *rc = PM_ERR_IO;
        return -1;
    }
    if (fmt == PM_FMT_AUTO) {
        char head[PM_PARSE_SNIFF_CHUNK];
        ssize_t n;
        while ((n = pread(fd, head, sizeof head, 0)) < 0 && errno == EINTR)
            ;
        pm_text t = {.head = head, .head_len = n > 0 ? (size_t)n : 0, .fd = fd};
        if (n > 0 && file_is_chrome(&t))
            fmt = PM_FMT_CHROME_TRACE;
    }
    if (fmt != PM_FMT_CHROME_TRACE) {
        close(fd);
        return 0;
    }
    if (out->format == PM_FMT_AUTO)
        out->format = fmt;
    *rc = pm_parse_chrome_trace_fd(fd, out, err);
    close(fd);
    return 1;
}

int pm_parse_file(const char *path, pm_format fmt, pm_report *out, pm_err *err)
{
    char *buf = NULL;
    size_t len;
    size_t passes_before = out->n_passes, metrics_before = out->n_metrics;
    double total_before = out->total_wall_s;
    int rc, streamed = parse_streaming(path, fmt, out, &rc, err);
    if (streamed < 0)
        return rc;
    if (!streamed) {
        if ((rc = pm_util_read_file_max(path, PM_PARSE_MAX_BYTES, &buf, &len, err)) != PM_OK)
            return rc;
        rc = pm_parse_buffer(buf, len, fmt, out, err);
    }
    double new_wall = 0;
    for (size_t i = passes_before; rc == PM_OK && i < out->n_passes; i++)
        new_wall += pm_pass_counted(&out->passes[i]) && out->passes[i].wall_s > 0 ? out->passes[i].wall_s : 0;
    pm_format seen = fmt != PM_FMT_AUTO && buf ? pm_parse_sniff(buf, len) : PM_FMT_AUTO;
    if (rc != PM_OK) {
        pm_err_wrap(err, "%s", path);
    } else if (out->n_metrics == metrics_before && !(new_wall > 0) && out->total_wall_s == total_before &&
               seen != PM_FMT_AUTO && seen != fmt) {
        /* A named format that read only names, no time, from a report of another format (llvm-text over an
         * MLIR report) would become an ok run of 0 s. */
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: the %s parser found no time in it; it looks like a %s report "
                        "(name that format, or let passmap find it)", path, pm_format_name(fmt),
                        pm_format_name(seen));
    } else if (out->n_passes == passes_before && out->n_metrics == metrics_before) {
        char tried[256];
        formats_tried(fmt, tried, sizeof tried);
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "no timing report in %s; formats tried: %s", path, tried);
    }
    free(buf);
    return rc;
}
