/* npu-task-stats: the dump-task-stats tree and DumpStatisticsOfIeOps blocks (also read inside the log). */
#include "parse_npu_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statistics blocks (shared by the log parser and pm_parse_npu_task_stats) ---------------------------- */

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

int stats_line(stats_state *st, const log_line *ll)
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

int stats_emit(stats_state *st, pm_report *out)
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

void stats_free(stats_state *st)
{
    counters_free(&st->vpuip);
    counters_free(&st->ie);
}

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

static int sniff_npu_task_stats(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_TASK_STATS); }
const pm_format_row pm_format_npu_task_stats = {"npu-task-stats", pm_parse_npu_task_stats, sniff_npu_task_stats, 4,
                                                "ov-compile", 0, 1};
