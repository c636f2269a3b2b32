/* npu-log: the compile's stdout (LOG_INFO), timing blocks one at a time, NPUW's submodels, the log's metrics. */
#include "parse_npu_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the log --------------------------------------------------------------------------------------------- */

/* A timing row: optional "user (pct%)", then "wall (pct%)", then the name. Split on whitespace, since
 * values >= 10000 s overflow the printf width. Returns the name (trimmed) or NULL. */
static const char *timing_row_name(const char *line)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    const char *last = NULL;
    for (const char *q = strstr(p, "%)"); q; q = strstr(q + 2, "%)"))
        last = q;
    if (!last)
        return NULL;
    last += 2;
    while (*last == ' ')
        last++;
    return last;
}

static int is_report_furniture(const char *line)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    return *p == '\0' || starts_with(p, "===-") || strstr(p, "Execution time report") ||
           starts_with(p, "Total Execution Time:") || starts_with(p, "----");
}

enum { SUB_UNATTRIBUTED, SUB_PREFILL, SUB_GENERATE, SUB_LM_HEAD, SUB_N };
static const char *const submodel_names[SUB_N] = {"unattributed", "prefill", "generate", "lm_head"};

typedef struct log_state {
    counters loggers;
    counters net_by_source;  /* "Compile net time" sums by logger ("" = none) */
    double peak_kb, end_peak_kb, vcl_get, vcl_export;
    int seen_peak, seen_end_peak, seen_vcl_get, seen_vcl_export, n_latency;
    int submodel;                           /* SUB_*: the last one a log line named */
    int npuw_lines;                         /* "[ NPUW:<LEVEL> ] " lines */
    double sub_total_s[SUB_N];
    int sub_blocks[SUB_N];
    stats_state stats;
} log_state;

/* NPUW's own names for its submodels (llm_compiled_model.cpp): <model>_prefill, <model>_kv<size> (generate),
 * <model>_lm_head. Release builds print them only on NPUW's own lines, "[ NPUW:<LEVEL> ] " (logging.hpp), when
 * OPENVINO_NPUW_LOG_LEVEL is set (ov-compile sets INFO). A word like "generated" or "prefill" in any other
 * logger's line says nothing about which model is compiling: only those names on those lines count. */
static int npuw_line(const char *line)
{
    while (*line == ' ')
        line++;
    return starts_with(line, "[ NPUW:");
}

static int submodel_named(const char *line)
{
    if (!npuw_line(line))
        return -1;
    for (const char *q = strchr(line, '_'); q; q = strchr(q + 1, '_')) {
        if (starts_with(q, "_lm_head"))
            return SUB_LM_HEAD;
        if (starts_with(q, "_prefill"))
            return SUB_PREFILL;
        if (starts_with(q, "_kv") && isdigit((unsigned char)q[3]))
            return SUB_GENERATE;
    }
    return -1;
}

static double number_after(const char *line, const char *phrase, int *found)
{
    const char *p = strstr(line, phrase);
    if (!p)
        return 0;
    p += strlen(phrase);
    char *end;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v))
        return 0;
    *found = 1;
    return v;
}

static int log_metric_line(log_state *ls, pm_report *out, const char *line)
{
    if (starts_with(line, "PASSMAP-OV-RESULT ")) /* ov-compile's own result line (lib/ov.h), not the log */
        return PM_OK;
    log_line ll;
    split_log_line(line, &ll);
    if (ll.logger && ll.time_ms >= 0) {
        counter *c = counter_get(&ls->loggers, ll.logger, ll.logger_len);
        if (!c)
            return PM_ERR_NOMEM;
        if (c->first_ms < 0)
            c->first_ms = ll.time_ms;
        double t = ll.time_ms;
        while (t < c->last_ms - 12 * 3600e3) /* crossed midnight */
            t += 24 * 3600e3;
        c->last_ms = t;
        c->value += 1;
    }
    if (npuw_line(line))
        ls->npuw_lines++;
    int sub = submodel_named(line);
    if (sub >= 0)
        ls->submodel = sub;
    int found = 0;
    double v = number_after(line, "memory usage: Peak ", &found);
    if (found) {
        const char *unit = strstr(line, "memory usage: Peak ");
        if (strstr(unit, " MB"))
            v *= 1024;
        else if (strstr(unit, " GB"))
            v *= 1024 * 1024;
        /* 2024's compiler prints VmPeak at the end ("End of compilation ..."); 2025+ the plugin prints the
         * difference of VmPeak over the compile ("Compilation memory usage"): two different quantities. */
        if (strstr(line, "End of compilation memory usage")) {
            if (!ls->seen_end_peak || v > ls->end_peak_kb)
                ls->end_peak_kb = v;
            ls->seen_end_peak = 1;
        } else if (!strstr(line, "Start of compilation memory usage")) {
            if (!ls->seen_peak || v > ls->peak_kb)
                ls->peak_kb = v;
            ls->seen_peak = 1;
        }
    }
    found = 0;
    v = number_after(line, "Compile net time: ", &found);
    if (found) {
        counter *c = counter_get(&ls->net_by_source, ll.logger ? ll.logger : "", ll.logger ? ll.logger_len : 0);
        if (!c)
            return PM_ERR_NOMEM;
        c->value += v;
    }
    found = 0;
    v = number_after(line, "getCompiledNetwork time: ", &found);
    if (found) {
        ls->vcl_get += v;
        ls->seen_vcl_get = 1;
    }
    found = 0;
    v = number_after(line, "exportNetwork time: ", &found);
    if (found) {
        ls->vcl_export += v;
        ls->seen_vcl_export = 1;
    }
    found = 0;
    v = number_after(line, "Estimated inference latency: ", &found);
    if (found) {
        char *u;
        strtod(strstr(line, "Estimated inference latency: ") + strlen("Estimated inference latency: "), &u);
        while (*u == ' ')
            u++;
        if (starts_with(u, "ms"))
            v *= 1e3;
        else if (*u == 's')
            v *= 1e6;
        char name[64];
        if (ls->n_latency == 0)
            snprintf(name, sizeof name, "npu.estimated_latency_us");
        else
            snprintf(name, sizeof name, "npu.estimated_latency_us.%d", ls->n_latency);
        ls->n_latency++;
        if (pm_report_add_metric(out, name, v))
            return PM_ERR_NOMEM;
    }
    return stats_line(&ls->stats, &ll);
}

/* Parses one report block on its own and appends it to out with report_index = idx, parents offset. */
static int add_block(const sbuf *block, int idx, pm_report *out, int *unsupported, log_state *ls, pm_err *err)
{
    pm_report tmp;
    pm_report_init(&tmp);
    int rc = pm_parse_mlir_text(block->s, block->n, &tmp, err);
    if (rc == PM_ERR_UNSUPPORTED) {
        /* The MLIR text parser is not built in: still count the block and keep the log's metrics. */
        *unsupported = 1;
        rc = PM_OK;
    }
    if (rc)
        goto cleanup;
    size_t base = out->n_passes;
    for (size_t i = 0; i < tmp.n_passes; i++) {
        pm_pass p = tmp.passes[i];
        p.report_index = idx;
        if (p.parent >= 0)
            p.parent += (int)base;
        if ((rc = pm_report_add_pass(out, &p))) {
            pm_err_set(err, rc, "out of memory");
            goto cleanup;
        }
    }
    for (size_t i = 0; i < tmp.n_metrics; i++)
        if ((rc = pm_report_add_metric(out, tmp.metrics[i].name, tmp.metrics[i].value))) {
            pm_err_set(err, rc, "out of memory");
            goto cleanup;
        }
    if (tmp.total_wall_s >= 0)
        out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + tmp.total_wall_s;
    ls->sub_blocks[ls->submodel]++;
    if (tmp.total_wall_s >= 0)
        ls->sub_total_s[ls->submodel] += tmp.total_wall_s;
    if (tmp.total_user_s >= 0)
        out->total_user_s = (out->total_user_s < 0 ? 0 : out->total_user_s) + tmp.total_user_s;
cleanup:
    pm_report_free(&tmp);
    return rc;
}

int pm_parse_npu_log(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK, unsupported = 0, in_block = 0, blocks = 0;
    int base_index = out->n_reports;
    size_t n;
    sbuf block = {0};
    log_state ls = {0};
    const char *prev_sep = NULL; /* a "===-" line seen just before a header belongs to the block */
    char *text = strip_ansi(buf, len, &n);
    if (!text)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    FOR_EACH_LINE(text, n, line) {
        const char *trim = line;
        while (*trim == ' ')
            trim++;
        if (strstr(line, "Execution time report")) {
            if (in_block && block.n) { /* a truncated block: close it */
                if ((rc = add_block(&block, base_index + blocks, out, &unsupported, &ls, err)))
                    goto cleanup;
                blocks++;
            }
            block.n = 0;
            in_block = 1;
            if (prev_sep && ((rc = sbuf_add(&block, prev_sep, strlen(prev_sep))) || (rc = sbuf_add(&block, "\n", 1))))
                goto nomem;
        }
        prev_sep = starts_with(trim, "===-") && !in_block ? line : NULL;
        if (in_block) {
            const char *name = timing_row_name(line);
            if (name || is_report_furniture(line)) {
                if ((rc = sbuf_add(&block, line, strlen(line))) || (rc = sbuf_add(&block, "\n", 1)))
                    goto nomem;
                if (name && !strncmp(name, "Total", 5) && (name[5] == '\0' || name[5] == ' ')) {
                    if ((rc = add_block(&block, base_index + blocks, out, &unsupported, &ls, err)))
                        goto cleanup;
                    blocks++;
                    block.n = 0;
                    in_block = 0;
                }
                continue;
            }
        }
        if (prev_sep)
            continue;
        if ((rc = log_metric_line(&ls, out, line)))
            goto nomem;
    }
    if (in_block && block.n) {
        if ((rc = add_block(&block, base_index + blocks, out, &unsupported, &ls, err)))
            goto cleanup;
        blocks++;
    }
    out->n_reports = base_index + blocks;
    if (ls.seen_peak && (rc = pm_report_add_metric(out, "npu.vmpeak_delta_kb", ls.peak_kb)))
        goto nomem;
    if (ls.seen_end_peak && (rc = pm_report_add_metric(out, "npu.vmpeak_kb", ls.end_peak_kb)))
        goto nomem;
    double net = -1;
    for (size_t i = 0; i < ls.net_by_source.n; i++)
        if (ls.net_by_source.items[i].value > net)
            net = ls.net_by_source.items[i].value;
    if (net >= 0 && (rc = pm_report_add_metric(out, "npu.compile_net_ms", net)))
        goto nomem;
    /* The report is printed before the ELF export: what Compile net time has beyond it is the export. */
    double report_s = 0;
    for (int k = 0; k < SUB_N; k++)
        report_s += ls.sub_total_s[k];
    if (net >= 0 && blocks > 0 && net - 1000 * report_s >= 0 &&
        (rc = pm_report_add_metric(out, "npu.elf_export_ms", net - 1000 * report_s)))
        goto nomem;
    if (ls.npuw_lines && (rc = pm_report_add_metric(out, "npu.log.lines.NPUW", ls.npuw_lines)))
        goto nomem;
    for (int k = 0; k < SUB_N && blocks > 0; k++) {
        char name[64];
        if (!ls.sub_blocks[k])
            continue;
        snprintf(name, sizeof name, "npu.submodel.%s.blocks", submodel_names[k]);
        if ((rc = pm_report_add_metric(out, name, ls.sub_blocks[k])))
            goto nomem;
        snprintf(name, sizeof name, "npu.submodel.%s.total_s", submodel_names[k]);
        if ((rc = pm_report_add_metric(out, name, ls.sub_total_s[k])))
            goto nomem;
    }
    if (ls.seen_vcl_get && (rc = pm_report_add_metric(out, "npu.vcl.get_compiled_network_ms", ls.vcl_get)))
        goto nomem;
    if (ls.seen_vcl_export && (rc = pm_report_add_metric(out, "npu.vcl.export_ms", ls.vcl_export)))
        goto nomem;
    for (size_t i = 0; i < ls.loggers.n; i++) {
        counter *c = &ls.loggers.items[i];
        if ((rc = add_metric2(out, "npu.logger_time_ms.", c->name, c->last_ms - c->first_ms)) ||
            (rc = add_metric2(out, "npu.log.lines.", c->name, c->value)))
            goto nomem;
    }
    if ((rc = stats_emit(&ls.stats, out)))
        goto nomem;
    if (unsupported)
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED,
                        "npu-log: %d timing block(s) found but the mlir-text parser is not built", blocks);
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    counters_free(&ls.loggers);
    counters_free(&ls.net_by_source);
    stats_free(&ls.stats);
    free(block.s);
    free(text);
    return rc;
}

static int sniff_npu_log(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_LOG); }
/* its pass times are mlir-text blocks; the other three carry metrics only */
const pm_format_row pm_format_npu_log = {"npu-log", pm_parse_npu_log, sniff_npu_log, 1, "ov-compile", 1e-4, 1};
