/* Parsers for what the Intel NPU compiler (through OpenVINO) leaves behind: its LOG_INFO log, the schedule
 * trace, the strategy JSON and the statistics blocks.
 *
 * INFERRED, NOT CAPTURED: no NPU exists where passmap is developed. Every format here was read from the
 * sources of openvinotoolkit/openvino (src/plugins/intel_npu, NPUW) and openvinotoolkit/npu_compiler (the
 * facts are summarised in docs/npu.md). The parsers are tolerant: unknown lines are skipped, absent fields
 * are simply not reported, and metric lines are matched by phrase anywhere in a line.
 *
 * Each format's parser is in its own file (parse_npu_log.c, parse_npu_trace.c, parse_npu_strategy.c,
 * parse_npu_stats.c, sharing parse_npu_internal.h); this one holds their helpers and the sniffer.
 *
 * Metrics (pm_report_add_metric), by parser:
 *   npu-log (pm_parse_npu_log)
 *     npu.vmpeak_delta_kb             max of "Compilation memory usage: Peak N KB" (2025+, the plugin): VmPeak at
 *                                     the end minus at the start of a compile (virtual memory, neither
 *                                     resident nor a peak); the run's memory is the child's max RSS, recorded
 *                                     by the runner
 *     npu.vmpeak_kb                   max of "End of compilation memory usage: Peak N KB" (2024, the compiler):
 *                                     VmPeak itself at the end of the compile
 *     npu.compile_net_ms              "Compile net time: X ms" summed per source ([VCL], [vpux-compiler] or no
 *                                     logger); newest builds print it from two loggers for the same compile,
 *                                     so the largest source sum is taken, never their total
 *     npu.elf_export_ms               npu.compile_net_ms minus the report blocks' Total (the report is printed
 *                                     before the ELF export); only when not negative
 *     npu.vcl.get_compiled_network_ms sum of VCL "getCompiledNetwork time: X ms"
 *     npu.vcl.export_ms               sum of VCL "exportNetwork time: X ms"
 *     npu.estimated_latency_us        first "Estimated inference latency: Xus" ([inference-execution-analysis]);
 *     npu.estimated_latency_us.<k>      later ones (NPUW subgraphs) keyed by order, k = 1, 2, ...
 *     npu.logger_time_ms.<logger>     last minus first timestamp of "[LEVEL] HH:MM:SS.mmm [logger]" lines
 *                                     (a span, not a measured duration; wraps at midnight). The plugin's logger
 *                                     does not zero-pad milliseconds: ".5" is 5 ms, not 500
 *     npu.log.lines.<logger>          number of such lines per logger
 *     npu.submodel.<m>.blocks         timing blocks attributed to NPUW submodel m (prefill, generate, lm_head,
 *     npu.submodel.<m>.total_s          unattributed) and the sum of their Totals: a block belongs to the last
 *                                     submodel an NPUW line ("[ NPUW:INFO ] ", OPENVINO_NPUW_LOG_LEVEL)
 *                                     named before it, by NPUW's own names <model>_prefill,
 *                                     <model>_kv<digits>, <model>_lm_head; without one, unattributed
 *     npu.log.lines.NPUW              number of "[ NPUW:<LEVEL> ] " lines
 *     plus every metric of npu-task-stats found in the log.
 *     Timing report blocks ("... Execution time report ...") go to pm_parse_mlir_text, one block at a time,
 *     with report_index = block order (0..N-1): NPUW compiles every unique subgraph of every submodel
 *     separately, each with its own report.
 *   npu-schedule-trace (pm_parse_npu_schedule, compileTimeScheduleTrace.json)
 *     npu.tasks                       number of "ph":"X" events, without the per-variant copies of DPU tasks
 *                                     (thread "DPU / Variants", names ".../variant_i")
 *     npu.tasks.DMA/DPU/SW/M2I        the same by "cat" (always the four; other categories as seen)
 *     npu.tasks.dpu_variants          the per-variant events left out
 *     npu.task_dur_us                 sum of "dur" of the counted events
 *     npu.schedule_span_us            max(ts+dur) - min(ts)
 *     npu.task_stats.<key>            numeric fields of "taskStatistics" (flat, microseconds; one level of
 *                                     nesting joined by '.' is tolerated)
 *     npu.workpoint_freq_mhz          "workpoint":{"freq"}
 *   npu-strategy (pm_parse_npu_strategy, strategy_out.json)
 *     npu.strategy.ops                ops (top-level keys whose value is an object)
 *     npu.tiles                       tiles: N*C*H*W of "tilingStrategy" ("NONE"/absent = 1 tile) per op, except
 *                                     that the ops of one vertical-fusion region carry the region's tiling and
 *                                     count once per "verticalFusionHash"
 *     npu.strategy.tiled_ops          ops with more than one tile
 *     npu.strategy.mc.<Strategy>      histogram of "multiClusterStrategy" ("NONE" when unset)
 *     npu.vf.ops                      ops with "verticalFusion" true ("True"/"true"/true)
 *     npu.vf.subgraphs                distinct "verticalFusionHash" among those ("Null" is none)
 *   npu-task-stats (pm_parse_npu_task_stats)
 *     npu.vpuip.<kind>                "<kind> - N ops" rows of the dump-task-stats tree (spaces -> '_')
 *     npu.vpuip.total                 the root "VPUIP Tasks - N ops", else the sum of the first nesting level
 *                                     (the "Weights statistics" and "Const swizzling statistics" parts that
 *                                     follow are not tasks)
 *     npu.ie_ops.<Op>                 "IE.<Op> - N (p%)" rows of DumpStatisticsOfIeOps; the statistics are
 *     npu.ie_ops.total                  hierarchical (IE -> Non-computational/Computational -> IE.Op -> type
 *                                     conversions): only IE. rows count
 */
#include "util.h"
#include "parse_npu_internal.h"
#include "parse_text.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------------------------------- */

int sbuf_add(sbuf *b, const char *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 4096;
        while (ncap < b->n + n + 1)
            ncap *= 2;
        char *ns = realloc(b->s, ncap);
        if (!ns)
            return PM_ERR_NOMEM;
        b->s = ns;
        b->cap = ncap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = '\0';
    return PM_OK;
}

/* Removes ANSI CSI sequences (ESC '[' params final-byte) and carriage returns: the plugin's logger always
 * colours its output, the compiler's only on a TTY. */
char *strip_ansi(const char *buf, size_t len, size_t *out_len)
{
    char *o = malloc(len + 1);
    if (!o)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\033') {
            i = pm_text_escape_end(buf, i, len);   /* the loop steps past its final byte */
            continue;
        }
        if (buf[i] == '\r')
            continue;
        o[j++] = buf[i];
    }
    o[j] = '\0';
    *out_len = j;
    return o;
}

int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Metric names keep [A-Za-z0-9_.-]; anything else becomes '_'. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
            *s = '_';
}

int add_metric2(pm_report *r, const char *prefix, const char *name, double v)
{
    char clean[200], full[256];
    snprintf(clean, sizeof clean, "%s", name);
    sanitize(clean);
    snprintf(full, sizeof full, "%s%s", prefix, clean);
    return pm_report_add_metric(r, full, v);
}

/* name -> value accumulator, linear (a log has a few dozen distinct names). */
counter *counter_get(counters *c, const char *name, size_t name_len)
{
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->items[i].name) == name_len && !memcmp(c->items[i].name, name, name_len))
            return &c->items[i];
    counter *ni = pm_grow(c->items, &c->cap, c->n, sizeof *ni, 16);
    if (!ni)
        return NULL;
    c->items = ni;
    counter *e = &c->items[c->n];
    e->name = strndup(name, name_len);
    if (!e->name)
        return NULL;
    e->value = 0;
    e->first_ms = e->last_ms = -1;
    c->n++;
    return e;
}

counter *counter_find(counters *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i].name, name))
            return &c->items[i];
    return NULL;
}

void counters_free(counters *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i].name);
    free(c->items);
    memset(c, 0, sizeof *c);
}

/* ---- logger prefix: "[INFO] HH:MM:SS.mmm [logger] " + 2 spaces per nesting level ------------------------ */

/* "HH:MM:SS.mmm". The fraction is milliseconds as an integer: the plugin's logger prints it unpadded
 * ("10:15:00.5" is 5 ms), the compiler's padded ("10:15:00.005"); both read the same way. Longer fractions
 * (not seen in either logger) are read as decimal seconds. */
static int parse_clock(const char *p, double *ms, const char *(*end))
{
    int h, m, s, n = 0;
    if (sscanf(p, "%2d:%2d:%2d%n", &h, &m, &s, &n) != 3 || n < 5)
        return 0;
    p += n;
    double frac_ms = 0;
    if (*p == '.') {
        p++;
        int digits = 0;
        double v = 0;
        while (isdigit((unsigned char)*p)) {
            v = v * 10 + (*p - '0');
            p++;
            digits++;
        }
        if (digits > 9) /* a run of digits no logger prints: not a clock (and 1e400 digits are no number) */
            return 0;
        if (digits <= 3)
            frac_ms = v;
        else
            frac_ms = v / pow(10, digits - 3);
    }
    *ms = ((h * 60.0 + m) * 60.0 + s) * 1000.0 + frac_ms;
    *end = p;
    return 1;
}

void split_log_line(const char *line, log_line *ll)
{
    memset(ll, 0, sizeof *ll);
    ll->time_ms = -1;
    ll->msg = line;
    const char *p = line;
    while (*p == ' ')
        p++;
    static const char *const levels[] = {"[INFO]", "[DEBUG]", "[TRACE]", "[WARNING]", "[WARN]", "[ERROR]", NULL};
    for (int i = 0; levels[i]; i++) {
        if (!starts_with(p, levels[i]))
            continue;
        const char *q = p + strlen(levels[i]);
        while (*q == ' ')
            q++;
        double t;
        const char *after;
        if (parse_clock(q, &t, &after)) {
            ll->time_ms = t;
            q = after;
            while (*q == ' ')
                q++;
        }
        if (*q == '[') {
            const char *close = strchr(q, ']');
            if (close) {
                ll->logger = q + 1;
                ll->logger_len = (size_t)(close - q - 1);
                q = close + 1;
                if (*q == ' ')
                    q++; /* the one separator space; the rest is nesting */
            }
        }
        ll->msg = q;
        break;
    }
    while (ll->msg[ll->indent] == ' ')
        ll->indent++;
}

/* ---- JSON artifacts ------------------------------------------------------------------------------------- */

json_t *load_json(const char *buf, size_t len, const char *what, pm_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root)
        pm_err_set(err, PM_ERR_PARSE, "%s: line %d: %s", what, je.line, je.text);
    else if (!json_is_object(root)) {
        pm_err_set(err, PM_ERR_PARSE, "%s: line 1: top level is not an object", what);
        json_decref(root);
        root = NULL;
    }
    return root;
}

double json_num(const json_t *v, int *ok)
{
    *ok = 1;
    if (json_is_number(v) && isfinite(json_number_value(v)))
        return json_number_value(v);
    if (json_is_string(v)) { /* some emitters quote numbers */
        char *end;
        double d = strtod(json_string_value(v), &end);
        if (end != json_string_value(v) && *end == '\0' && isfinite(d))
            return d;
    }
    *ok = 0;
    return 0;
}

/* ---- sniffing ------------------------------------------------------------------------------------------- */

int pm_sniff_npu(const char *buf, size_t len, pm_format *fmt)
{
    pm_text t = {.head = buf, .head_len = len, .buf = buf, .len = len, .fd = -1};
    return pm_sniff_npu_text(&t, fmt);
}

int pm_sniff_npu_text(const pm_text *t, pm_format *fmt)
{
    size_t i = 0;
    while (i < t->head_len && isspace((unsigned char)t->head[i]))
        i++;
    if (i < t->head_len && t->head[i] == '{') {
        if (pm_text_has(t, "\"traceEvents\"") &&
            (pm_text_has(t, "\"taskStatistics\"") || pm_text_has(t, "\"workpoint\"") ||
             pm_text_has(t, "\"cat\":\"DPU\"") || pm_text_has(t, "\"cat\": \"DPU\""))) {
            *fmt = PM_FMT_NPU_SCHEDULE;
            return 1;
        }
        if (pm_text_has(t, "\"multiClusterStrategy\"") || pm_text_has(t, "\"tilingStrategy\"")) {
            *fmt = PM_FMT_NPU_STRATEGY;
            return 1;
        }
        return 0;
    }
    /* Markers only the NPU plugin/compiler prints; plain mlir-opt output has none of them. "Compile network"
     * alone is not one, nor a "[vpux-compiler]" logger line (the parser reads its lines; sniffing needs more): MLIR reports interleaved with other logs may carry it (see test_parse_mlir.c). */
    static const char *const log_markers[] = {
        "IE to VPUIP", "Build compilation pipeline", "memory usage: Peak", "Estimated inference latency:",
        "Compile net time:", "getCompiledNetwork time:", "[NPUPlugin]", "[NPUW", "[ NPUW:", "[VCL]",
        "[inference-execution-analysis]", NULL};
    for (int k = 0; log_markers[k]; k++)
        if (pm_text_has(t, log_markers[k])) {
            *fmt = PM_FMT_NPU_LOG;
            return 1;
        }
    if (pm_text_has(t, " tasks statistics:") || pm_text_has(t, "IE dialect statistics:") ||
        pm_text_has(t, "VPUIP Tasks - ")) {
        *fmt = PM_FMT_NPU_TASK_STATS;
        return 1;
    }
    return 0;
}

/* ---- the format rows (each in its parser's file): the NPU sniffer goes first (its files hold JSON and timing
 * blocks) ---- */

int npu_is(const char *buf, size_t len, pm_format want)
{
    pm_format f;
    return pm_sniff_npu(buf, len, &f) && f == want;
}
