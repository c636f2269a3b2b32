/* Parsers for what the Intel NPU compiler (through OpenVINO) leaves behind: its LOG_INFO log, the schedule
 * trace, the strategy JSON and the statistics blocks.
 *
 * INFERRED, NOT CAPTURED: no NPU exists where passmap is developed. Every format here was read from the
 * sources of openvinotoolkit/openvino (src/plugins/intel_npu, NPUW) and openvinotoolkit/npu_compiler (the
 * facts are summarised in docs/npu.md). The parsers are tolerant: unknown lines are skipped, absent fields
 * are simply not reported, and metric lines are matched by phrase anywhere in a line.
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
#include "parse_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static int sbuf_add(sbuf *b, const char *p, size_t n)
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
static char *strip_ansi(const char *buf, size_t len, size_t *out_len)
{
    char *o = malloc(len + 1);
    if (!o)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\033') {
            if (i + 1 < len && buf[i + 1] == '[') {
                size_t k = i + 2;
                while (k < len && !((unsigned char)buf[k] >= 0x40 && (unsigned char)buf[k] <= 0x7e))
                    k++;
                i = k; /* skip the final byte too */
            }
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

static int starts_with(const char *s, const char *p)
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

static int add_metric2(pm_report *r, const char *prefix, const char *name, double v)
{
    char clean[200], full[256];
    snprintf(clean, sizeof clean, "%s", name);
    sanitize(clean);
    snprintf(full, sizeof full, "%s%s", prefix, clean);
    return pm_report_add_metric(r, full, v);
}

/* name -> value accumulator, linear (a log has a few dozen distinct names). */
typedef struct counter {
    char *name;
    double value, first_ms, last_ms;
} counter;

typedef struct counters {
    counter *items;
    size_t n, cap;
} counters;

static counter *counter_get(counters *c, const char *name, size_t name_len)
{
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->items[i].name) == name_len && !memcmp(c->items[i].name, name, name_len))
            return &c->items[i];
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        counter *ni = realloc(c->items, ncap * sizeof *ni);
        if (!ni)
            return NULL;
        c->items = ni;
        c->cap = ncap;
    }
    counter *e = &c->items[c->n];
    e->name = strndup(name, name_len);
    if (!e->name)
        return NULL;
    e->value = 0;
    e->first_ms = e->last_ms = -1;
    c->n++;
    return e;
}

static counter *counter_find(counters *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i].name, name))
            return &c->items[i];
    return NULL;
}

static void counters_free(counters *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i].name);
    free(c->items);
    memset(c, 0, sizeof *c);
}

/* ---- logger prefix: "[INFO] HH:MM:SS.mmm [logger] " + 2 spaces per nesting level ------------------------ */

typedef struct log_line {
    const char *logger; /* NULL when the line has no logger prefix */
    size_t logger_len;
    double time_ms;     /* < 0: absent */
    const char *msg;    /* the message (after the prefix), or the whole line */
    int indent;         /* leading spaces of msg */
} log_line;

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

static void split_log_line(const char *line, log_line *ll)
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

/* ---- statistics blocks (shared by the log parser and pm_parse_npu_task_stats) ---------------------------- */

enum { STATS_NONE, STATS_VPUIP, STATS_IE };

typedef struct stats_state {
    int block;          /* STATS_* */
    int base_indent;    /* indent of the block's first entry: deeper entries are breakdowns */
    counters vpuip, ie;
    double vpuip_total, vpuip_root, ie_total;
    int seen_vpuip, seen_vpuip_root, seen_ie;
} stats_state;

/* "<name> - <N> ops" or "<name> - <N> (<p>%)": returns 1 and fills name span and count. */
static int parse_count_row(const char *msg, const char **name, size_t *name_len, double *count, int *is_pct)
{
    const char *dash = strstr(msg, " - ");
    if (!dash || dash == msg)
        return 0;
    char *end;
    double v = strtod(dash + 3, &end);
    if (end == dash + 3 || !isfinite(v))
        return 0;
    while (*end == ' ')
        end++;
    if (starts_with(end, "ops"))
        *is_pct = 0;
    else if (*end == '(' && strchr(end, '%'))
        *is_pct = 1;
    else
        return 0;
    *name = msg;
    *name_len = (size_t)(dash - msg);
    *count = v;
    return 1;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !strncmp(s + len - n, suffix, n);
}

static int stats_line(stats_state *st, const log_line *ll)
{
    const char *msg = ll->msg + ll->indent;
    size_t mlen = strlen(msg);
    while (mlen && (msg[mlen - 1] == ' ' || msg[mlen - 1] == '\n'))
        mlen--;
    if (ends_with(msg, mlen, " tasks statistics:")) {
        st->block = STATS_VPUIP;
        st->base_indent = -1;
        st->seen_vpuip = 1;
        return PM_OK;
    }
    if (ends_with(msg, mlen, "IE dialect statistics:")) {
        st->block = STATS_IE;
        st->base_indent = -1;
        st->seen_ie = 1;
        return PM_OK;
    }
    /* dump-task-stats ends its tree with weights and swizzling parts: those rows are not tasks. */
    if (ends_with(msg, mlen, "statistics:") || ends_with(msg, mlen, "statistics")) {
        st->block = STATS_NONE;
        return PM_OK;
    }
    const char *name;
    size_t nlen;
    double v;
    int is_pct;
    if (!parse_count_row(msg, &name, &nlen, &v, &is_pct))
        return PM_OK; /* interleaved output from elsewhere does not end the block */
    if (!is_pct && nlen == 11 && !strncmp(name, "VPUIP Tasks", 11)) { /* the root of the dump-task-stats tree */
        st->block = STATS_VPUIP;
        st->base_indent = -1;
        st->seen_vpuip = st->seen_vpuip_root = 1;
        st->vpuip_root += v;
        return PM_OK;
    }
    if (is_pct && nlen == 2 && !strncmp(name, "IE", 2)) { /* the root of DumpStatisticsOfIeOps */
        st->block = STATS_IE;
        st->seen_ie = 1;
        return PM_OK;
    }
    if (st->block == STATS_NONE)
        return PM_OK;
    if (st->base_indent < 0)
        st->base_indent = ll->indent;
    if (st->block == STATS_VPUIP && !is_pct) {
        counter *c = counter_get(&st->vpuip, name, nlen);
        if (!c)
            return PM_ERR_NOMEM;
        c->value += v;
        if (ll->indent <= st->base_indent)
            st->vpuip_total += v;
    } else if (st->block == STATS_IE && is_pct && nlen > 3 && !strncmp(name, "IE.", 3)) {
        /* Only IE.<Op> rows: the group rows and the type-conversion children are breakdowns. */
        counter *c = counter_get(&st->ie, name + 3, nlen - 3);
        if (!c)
            return PM_ERR_NOMEM;
        c->value += v;
        st->ie_total += v;
    }
    return PM_OK;
}

static int stats_emit(stats_state *st, pm_report *out)
{
    int rc = PM_OK;
    for (size_t i = 0; i < st->vpuip.n && !rc; i++)
        rc = add_metric2(out, "npu.vpuip.", st->vpuip.items[i].name, st->vpuip.items[i].value);
    if (!rc && st->seen_vpuip)
        rc = pm_report_add_metric(out, "npu.vpuip.total", st->seen_vpuip_root ? st->vpuip_root : st->vpuip_total);
    for (size_t i = 0; i < st->ie.n && !rc; i++)
        rc = add_metric2(out, "npu.ie_ops.", st->ie.items[i].name, st->ie.items[i].value);
    if (!rc && st->seen_ie)
        rc = pm_report_add_metric(out, "npu.ie_ops.total", st->ie_total);
    return rc;
}

static void stats_free(stats_state *st)
{
    counters_free(&st->vpuip);
    counters_free(&st->ie);
}

/* Calls fn on each NUL-terminated line of a (modifiable) buffer. */
#define FOR_EACH_LINE(text, len, line)                                                      \
    for (char *line = (text), *line##_next = NULL; line < (text) + (len); line = line##_next) \
        if ((line##_next = strchr(line, '\n')) ? (*line##_next++ = '\0', 1)                   \
                                               : ((line##_next = (text) + (len)), 1))

int pm_parse_npu_task_stats(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK;
    size_t n;
    stats_state st = {0};
    char *text = strip_ansi(buf, len, &n);
    if (!text)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    FOR_EACH_LINE(text, n, line) {
        log_line ll;
        split_log_line(line, &ll);
        if ((rc = stats_line(&st, &ll)))
            goto cleanup;
    }
    rc = stats_emit(&st, out);
cleanup:
    stats_free(&st);
    free(text);
    return rc ? pm_err_set(err, rc, "out of memory") : PM_OK;
}

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

/* ---- JSON artifacts ------------------------------------------------------------------------------------- */

static json_t *load_json(const char *buf, size_t len, const char *what, pm_err *err)
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

static double json_num(const json_t *v, int *ok)
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

int pm_parse_npu_schedule(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK;
    counters cats = {0}, variant_threads = {0};
    json_t *root = load_json(buf, len, "npu-schedule-trace", err);
    if (!root)
        return PM_ERR_PARSE;
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        rc = pm_err_set(err, PM_ERR_PARSE, "npu-schedule-trace: line 1: no traceEvents array");
        goto cleanup;
    }
    static const char *const fixed[] = {"DMA", "DPU", "SW", "M2I"};
    for (int i = 0; i < 4; i++)
        if (!counter_get(&cats, fixed[i], strlen(fixed[i])))
            goto nomem;
    double tasks = 0, dur_sum = 0, t_min = 0, t_max = 0, variants = 0;
    int have_t = 0;
    size_t i;
    json_t *ev;
    /* Threads named "... Variants" carry each DPU task once more per variant: not tasks of their own. */
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *nm = json_string_value(json_object_get(ev, "name"));
        const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        if (ph && !strcmp(ph, "M") && nm && !strcmp(nm, "thread_name") && tn && strstr(tn, "Variants")) {
            char id[64];
            snprintf(id, sizeof id, "%lld/%lld", json_integer_value(json_object_get(ev, "pid")),
                     json_integer_value(json_object_get(ev, "tid")));
            if (!counter_get(&variant_threads, id, strlen(id)))
                goto nomem;
        }
    }
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || strcmp(ph, "X"))
            continue;
        const char *nm = json_string_value(json_object_get(ev, "name"));
        char id[64];
        snprintf(id, sizeof id, "%lld/%lld", json_integer_value(json_object_get(ev, "pid")),
                 json_integer_value(json_object_get(ev, "tid")));
        int on_variant_thread = 0;
        for (size_t k = 0; k < variant_threads.n; k++)
            on_variant_thread |= !strcmp(variant_threads.items[k].name, id);
        if (on_variant_thread || (nm && strstr(nm, "/variant_"))) {
            variants++;
            continue;
        }
        tasks++;
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        if (cat) {
            counter *c = counter_get(&cats, cat, strlen(cat));
            if (!c)
                goto nomem;
            c->value++;
        }
        int ok_ts, ok_dur;
        double ts = json_num(json_object_get(ev, "ts"), &ok_ts);
        double dur = json_num(json_object_get(ev, "dur"), &ok_dur);
        if (ok_dur)
            dur_sum += dur;
        if (ok_ts) {
            double end = ts + (ok_dur ? dur : 0);
            if (!have_t || ts < t_min)
                t_min = ts;
            if (!have_t || end > t_max)
                t_max = end;
            have_t = 1;
        }
    }
    if ((rc = pm_report_add_metric(out, "npu.tasks", tasks)) ||
        (rc = pm_report_add_metric(out, "npu.tasks.dpu_variants", variants)))
        goto nomem;
    for (size_t k = 0; k < cats.n; k++)
        if ((rc = add_metric2(out, "npu.tasks.", cats.items[k].name, cats.items[k].value)))
            goto nomem;
    if ((rc = pm_report_add_metric(out, "npu.task_dur_us", dur_sum)))
        goto nomem;
    if (have_t && (rc = pm_report_add_metric(out, "npu.schedule_span_us", t_max - t_min)))
        goto nomem;
    json_t *stats = json_object_get(root, "taskStatistics");
    const char *key;
    json_t *val;
    json_object_foreach(stats, key, val) {
        int ok;
        double d = json_num(val, &ok);
        char name[200];
        if (ok) {
            snprintf(name, sizeof name, "%s", key);
            if ((rc = add_metric2(out, "npu.task_stats.", name, d)))
                goto nomem;
        } else if (json_is_object(val)) {
            const char *k2;
            json_t *v2;
            json_object_foreach(val, k2, v2) {
                d = json_num(v2, &ok);
                snprintf(name, sizeof name, "%s.%s", key, k2);
                if (ok && (rc = add_metric2(out, "npu.task_stats.", name, d)))
                    goto nomem;
            }
        }
    }
    int ok;
    double freq = json_num(json_object_get(json_object_get(root, "workpoint"), "freq"), &ok);
    if (ok && (rc = pm_report_add_metric(out, "npu.workpoint_freq_mhz", freq)))
        goto nomem;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    counters_free(&variant_threads);
    counters_free(&cats);
    json_decref(root);
    return rc;
}

static int truthy(const json_t *v)
{
    if (json_is_true(v))
        return 1;
    const char *s = json_string_value(v);
    return s && (!strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "TRUE"));
}

int pm_parse_npu_strategy(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK;
    counters mc = {0}, hashes = {0};
    json_t *root = load_json(buf, len, "npu-strategy", err);
    if (!root)
        return PM_ERR_PARSE;
    double ops = 0, tiles = 0, tiled_ops = 0, vf_ops = 0;
    const char *loc;
    json_t *op;
    json_object_foreach(root, loc, op) {
        if (!json_is_object(op))
            continue;
        ops++;
        const char *s = json_string_value(json_object_get(op, "multiClusterStrategy"));
        if (s) {
            counter *c = counter_get(&mc, s, strlen(s));
            if (!c)
                goto nomem;
            c->value++;
        }
        double t = 1;
        json_t *ts = json_object_get(op, "tilingStrategy");
        if (json_is_object(ts)) {
            static const char *const dims[] = {"N", "C", "H", "W"};
            for (int d = 0; d < 4; d++) {
                int ok;
                double v = json_num(json_object_get(ts, dims[d]), &ok);
                if (ok && v > 0)
                    t *= v;
            }
        } else if (json_is_array(ts)) { /* tolerate a [N, C, H, W] list */
            size_t k;
            json_t *v;
            json_array_foreach(ts, k, v) {
                int ok;
                double d = json_num(v, &ok);
                if (ok && d > 0)
                    t *= d;
            }
        }
        if (t > 1)
            tiled_ops++;
        const char *h = json_string_value(json_object_get(op, "verticalFusionHash"));
        int vf = truthy(json_object_get(op, "verticalFusion"));
        int region = vf && h && *h && strcmp(h, "Null");
        if (vf)
            vf_ops++;
        if (region) {
            /* Every op of a VF region carries the region's tiling: count it once per region. */
            if (!counter_find(&hashes, h)) {
                if (!counter_get(&hashes, h, strlen(h)))
                    goto nomem;
                tiles += t;
            }
        } else {
            tiles += t;
        }
    }
    if ((rc = pm_report_add_metric(out, "npu.strategy.ops", ops)) ||
        (rc = pm_report_add_metric(out, "npu.tiles", tiles)) ||
        (rc = pm_report_add_metric(out, "npu.strategy.tiled_ops", tiled_ops)))
        goto nomem;
    for (size_t k = 0; k < mc.n; k++)
        if ((rc = add_metric2(out, "npu.strategy.mc.", mc.items[k].name, mc.items[k].value)))
            goto nomem;
    if ((rc = pm_report_add_metric(out, "npu.vf.ops", vf_ops)) ||
        (rc = pm_report_add_metric(out, "npu.vf.subgraphs", (double)hashes.n)))
        goto nomem;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    counters_free(&mc);
    counters_free(&hashes);
    json_decref(root);
    return rc;
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

/* ---- the format rows: the NPU sniffer goes first (its files hold JSON and timing blocks) ---- */

static int npu_is(const char *buf, size_t len, pm_format want)
{
    pm_format f;
    return pm_sniff_npu(buf, len, &f) && f == want;
}
static int sniff_npu_log(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_LOG); }
static int sniff_npu_schedule(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_SCHEDULE); }
static int sniff_npu_strategy(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_STRATEGY); }
static int sniff_npu_task_stats(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_TASK_STATS); }

/* its pass times are mlir-text blocks; the other three carry metrics only */
const pm_format_row pm_format_npu_log = {"npu-log", pm_parse_npu_log, sniff_npu_log, 1, "ov-compile", 1e-4, 1};
const pm_format_row pm_format_npu_schedule = {"npu-schedule-trace", pm_parse_npu_schedule, sniff_npu_schedule, 2,
                                              "ov-compile", 0, 1};
const pm_format_row pm_format_npu_strategy = {"npu-strategy", pm_parse_npu_strategy, sniff_npu_strategy, 3,
                                              "ov-compile", 0, 1};
const pm_format_row pm_format_npu_task_stats = {"npu-task-stats", pm_parse_npu_task_stats, sniff_npu_task_stats, 4,
                                                "ov-compile", 0, 1};
