/* Report container and format dispatch; the formats live in parse_*.c. */
#include "parse_internal.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[PM_FMT__COUNT] = {
    [PM_FMT_AUTO] = "auto",
    [PM_FMT_MLIR_TEXT] = "mlir-text",
    [PM_FMT_MLIR_JSON] = "mlir-json",
    [PM_FMT_LLVM_TEXT] = "llvm-text",
    [PM_FMT_LLVM_JSON] = "llvm-json",
    [PM_FMT_CHROME_TRACE] = "chrome-trace",
    [PM_FMT_NPU_LOG] = "npu-log",
    [PM_FMT_NPU_SCHEDULE] = "npu-schedule-trace",
    [PM_FMT_NPU_STRATEGY] = "npu-strategy",
    [PM_FMT_NPU_TASK_STATS] = "npu-task-stats",
    [PM_FMT_GCC_TEXT] = "gcc-text",
};

static const pm_parse_fn parsers[PM_FMT__COUNT] = {
    [PM_FMT_MLIR_TEXT] = pm_parse_mlir_text,
    [PM_FMT_MLIR_JSON] = pm_parse_mlir_json,
    [PM_FMT_LLVM_TEXT] = pm_parse_llvm_text,
    [PM_FMT_LLVM_JSON] = pm_parse_llvm_json,
    [PM_FMT_CHROME_TRACE] = pm_parse_chrome_trace,
    [PM_FMT_NPU_LOG] = pm_parse_npu_log,
    [PM_FMT_NPU_SCHEDULE] = pm_parse_npu_schedule,
    [PM_FMT_NPU_STRATEGY] = pm_parse_npu_strategy,
    [PM_FMT_NPU_TASK_STATS] = pm_parse_npu_task_stats,
    [PM_FMT_GCC_TEXT] = pm_parse_gcc_text,
};

/* A column of the format table: each format's tick (pm_format_tick_s). */
static const double format_tick_s[PM_FMT__COUNT] = {
    [PM_FMT_MLIR_TEXT] = 1e-4,    /* "    0.0012 ( 57.9%)  Parser": seconds, 4 decimals */
    [PM_FMT_MLIR_JSON] = 1e-4,    /* "duration":   0.0011 */
    [PM_FMT_LLVM_TEXT] = 1e-4,    /* "   0.0024 ( 89.0%)   0.0024 ( 89.0%)   0.0123 ( 97.7%)  Name" */
    [PM_FMT_CHROME_TRACE] = 1e-6, /* "dur" in whole µs */
    [PM_FMT_NPU_LOG] = 1e-4,      /* its pass times are mlir-text blocks */
    [PM_FMT_GCC_TEXT] = 1e-2,     /* "   0.02 (  1%)": seconds, 2 decimals (gcc-12 -ftime-report) */
};

double pm_format_tick_s(pm_format f)
{
    return (f > PM_FMT_AUTO && f < PM_FMT__COUNT) ? format_tick_s[f] : 0;
}

const char *pm_format_name(pm_format f)
{
    return (f >= 0 && f < PM_FMT__COUNT) ? format_names[f] : "unknown";
}

static const char *const order_names[] = {"none", "sequence", "timed"};

const char *pm_pass_order_name(pm_pass_order o)
{
    return (o >= PM_ORDER_NONE && o <= PM_ORDER_TIMED) ? order_names[o] : "none";
}

pm_pass_order pm_pass_order_from_name(const char *name)
{
    for (int o = PM_ORDER_NONE; o <= PM_ORDER_TIMED; o++)
        if (name && strcmp(name, order_names[o]) == 0)
            return (pm_pass_order)o;
    return PM_ORDER_NONE;
}

pm_format pm_format_from_name(const char *name)
{
    for (int f = 0; f < PM_FMT__COUNT; f++)
        if (name && strcmp(name, format_names[f]) == 0)
            return (pm_format)f;
    return PM_FMT__COUNT;
}

void pm_report_init(pm_report *r)
{
    memset(r, 0, sizeof *r);
    r->total_wall_s = -1;
    r->total_user_s = -1;
}

void pm_report_free(pm_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_passes; i++) {
        free(r->passes[i].name);
        free(r->passes[i].section);
    }
    for (size_t i = 0; i < r->n_metrics; i++)
        free(r->metrics[i].name);
    free(r->passes);
    free(r->metrics);
    pm_report_init(r);
}

static int grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return PM_OK;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*items, ncap * size);
    if (!p)
        return PM_ERR_NOMEM;
    *items = p;
    *cap = ncap;
    return PM_OK;
}

int pm_report_add_pass(pm_report *r, const pm_pass *p)
{
    if (grow((void **)&r->passes, &r->cap_passes, r->n_passes + 1, sizeof *r->passes))
        return PM_ERR_NOMEM;
    pm_pass *d = &r->passes[r->n_passes];
    *d = *p;
    d->name = strdup(p->name ? p->name : "");
    d->section = p->section ? strdup(p->section) : NULL;
    if (!d->name || (p->section && !d->section)) {
        free(d->name);
        free(d->section);
        return PM_ERR_NOMEM;
    }
    r->n_passes++;
    return PM_OK;
}

int pm_report_add_metric(pm_report *r, const char *name, double value)
{
    if (grow((void **)&r->metrics, &r->cap_metrics, r->n_metrics + 1, sizeof *r->metrics))
        return PM_ERR_NOMEM;
    char *n = strdup(name);
    if (!n)
        return PM_ERR_NOMEM;
    r->metrics[r->n_metrics].name = n;
    r->metrics[r->n_metrics].value = value;
    r->n_metrics++;
    return PM_OK;
}

int pm_time_ok(double seconds)
{
    return isfinite(seconds) && seconds >= 0 && seconds <= PM_TIME_MAX_S;
}

int pm_pass_counted(const pm_pass *p)
{
    return !(p->flags & (PM_PASS_GROUP | PM_PASS_SUMMARY | PM_PASS_DETAIL));
}

double pm_report_pass_wall(const pm_report *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->n_passes; i++)
        if (pm_pass_counted(&r->passes[i]))
            sum += r->passes[i].wall_s;
    return sum;
}

static int contains(const char *buf, size_t len, const char *needle)
{
    return memmem(buf, len, needle, strlen(needle)) != NULL;
}

/* '[' or '{' then what JSON allows next: a log line such as "[INFO] ..." is not JSON. */
static int looks_like_json(const char *p, size_t len)
{
    size_t i = 1;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
        i++;
    if (i >= len)
        return 0;
    if (p[0] == '{')
        return p[i] == '"' || p[i] == '}';
    return p[i] == '{' || p[i] == '[' || p[i] == ']' || p[i] == '"' || p[i] == '-' || (p[i] >= '0' && p[i] <= '9');
}

pm_format pm_parse_sniff(const char *buf, size_t len)
{
    pm_format f;
    if (pm_sniff_npu(buf, len, &f))
        return f;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '[') && looks_like_json(buf + i, len - i)) {
        if (contains(buf, len, "\"traceEvents\"") || contains(buf, len, "\"ph\""))
            return PM_FMT_CHROME_TRACE;
        if (contains(buf, len, "\"wall\""))
            return PM_FMT_MLIR_JSON;
        return PM_FMT_LLVM_JSON;
    }
    if (contains(buf, len, "Pass execution timing report") ||
        contains(buf, len, "Analysis execution timing report") || contains(buf, len, "LLVM IR Parsing") ||
        contains(buf, len, "Instruction Selection and Scheduling") ||
        contains(buf, len, "DWARF Emission") || contains(buf, len, "Register Allocation"))
        return PM_FMT_LLVM_TEXT;
    if (contains(buf, len, "Execution time report"))
        return PM_FMT_MLIR_TEXT;
    if (pm_sniff_gcc(buf, len))
        return PM_FMT_GCC_TEXT;
    return PM_FMT_AUTO;
}

int pm_parse_buffer(const char *buf, size_t len, pm_format fmt, pm_report *out, pm_err *err)
{
    if (fmt == PM_FMT_AUTO) {
        fmt = pm_parse_sniff(buf, len);
        if (fmt == PM_FMT_AUTO) /* nothing recognisable: no report, not an error */
            return PM_OK;
    }
    if (fmt <= PM_FMT_AUTO || fmt >= PM_FMT__COUNT || !parsers[fmt])
        return pm_err_set(err, PM_ERR_USAGE, "unknown report format %d", (int)fmt);
    if (out->format == PM_FMT_AUTO)
        out->format = fmt;
    return parsers[fmt](buf, len, out, err);
}

/* "mlir-text, mlir-json, ..." for the message when nothing was found. */
static void formats_tried(pm_format fmt, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int f = PM_FMT_AUTO + 1; f < PM_FMT__COUNT; f++) {
        if ((fmt != PM_FMT_AUTO && f != (int)fmt) || !parsers[f] || f == PM_FMT_LLVM_JSON)
            continue;
        int w = snprintf(out + n, size - n, "%s%s", n ? ", " : "", format_names[f]);
        if (w < 0 || (size_t)w >= size - n)
            break;
        n += (size_t)w;
    }
    if (fmt == PM_FMT_LLVM_JSON)
        snprintf(out, size, "%s", format_names[fmt]);
}

int pm_parse_file(const char *path, pm_format fmt, pm_report *out, pm_err *err)
{
    char *buf;
    size_t len;
    int rc = pm_util_read_file_max(path, PM_PARSE_MAX_BYTES, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    size_t passes_before = out->n_passes, metrics_before = out->n_metrics;
    double total_before = out->total_wall_s;
    rc = pm_parse_buffer(buf, len, fmt, out, err);
    double new_wall = 0;
    for (size_t i = passes_before; rc == PM_OK && i < out->n_passes; i++)
        new_wall += pm_pass_counted(&out->passes[i]) && out->passes[i].wall_s > 0 ? out->passes[i].wall_s : 0;
    pm_format seen = fmt != PM_FMT_AUTO ? pm_parse_sniff(buf, len) : PM_FMT_AUTO;
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
