/* MLIR -mlir-timing reports: text (tree and list display) and --mlir-output-format=json.
 *
 * Counting rule (times in both displays are inclusive: a timer's time contains its children's):
 *  - Total, Rest, root → SUMMARY. Parser and Output are counted (real work inside Total).
 *  - A row named "... Pipeline" or "Pipeline Collection : [...]" → GROUP; in tree display any row with a
 *    non-analysis child is a GROUP too (its time is the sum of its children plus overhead).
 *  - "(A) X" → ANALYSIS, name "X". MLIR starts an analysis timer nested in the pass that asked for it, so the
 *    pass's time already contains it: an analysis under a counted pass (tree) and every analysis in list display
 *    (which merges all timers by name) is also DETAIL. An analysis directly under a group or at top is counted.
 *  So the counted rows are the tree's leaves (with analyses folded into their pass): their sum is
 *  Total − Rest up to rounding and pipeline overhead, in both displays. */
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* JSON timer trees nest by recursion: deeper input is an error, not a stack overflow */
#define MAX_DEPTH 64

static int is_summary_name(const char *n)
{
    return strcmp(n, "Total") == 0 || strcmp(n, "Rest") == 0 || strcmp(n, "root") == 0;
}

static int is_group_name(const char *n)
{
    size_t l = strlen(n);
    return (l >= 8 && strcmp(n + l - 8, "Pipeline") == 0) || strncmp(n, "Pipeline Collection", 19) == 0;
}

/* Appends one timer row; name is the display name (with any "(A) " prefix). */
static int add_row(pm_report *out, const char *name, double wall, double user, int depth, int parent,
                   int report_index)
{
    pm_pass p = {0};
    p.flags = 0;
    if (strncmp(name, "(A) ", 4) == 0) {
        name += 4;
        p.flags |= PM_PASS_ANALYSIS;
    } else if (depth == 0 && is_summary_name(name)) {
        p.flags |= PM_PASS_SUMMARY;
    } else if (is_group_name(name)) {
        p.flags |= PM_PASS_GROUP;
    }
    p.name = pm_unconst(name); /* copied by pm_report_add_pass */
    p.wall_s = wall;
    p.user_s = user;
    p.depth = depth;
    p.parent = parent;
    p.report_index = report_index;
    return pm_report_add_pass(out, &p);
}

/* Applies the tree rules of the file comment to rows [first, out->n_passes) of one block. */
static void finish_block(pm_report *out, size_t first)
{
    int list_display = 0;
    for (size_t i = first; i < out->n_passes; i++) {
        pm_pass *p = &out->passes[i];
        if (p->depth == 0 && strcmp(p->name, "root") == 0)
            list_display = 1;
        if (p->parent >= 0 && !(p->flags & PM_PASS_ANALYSIS))
            out->passes[p->parent].flags |= PM_PASS_GROUP;
    }
    for (size_t i = first; i < out->n_passes; i++) {
        pm_pass *p = &out->passes[i];
        if (!(p->flags & PM_PASS_ANALYSIS))
            continue;
        if (list_display || (p->parent >= 0 && !(out->passes[p->parent].flags & (PM_PASS_GROUP | PM_PASS_SUMMARY))))
            p->flags |= PM_PASS_DETAIL;
    }
    /* the tree display prints timers in execution order; the list display sorts them by time */
    if (list_display)
        out->pass_order = PM_ORDER_NONE;
    else if (first == 0)
        out->pass_order = PM_ORDER_SEQUENCE;
    for (size_t i = first; i < out->n_passes; i++) {
        pm_pass *p = &out->passes[i];
        if ((p->flags & PM_PASS_SUMMARY) && strcmp(p->name, "Total") == 0 && p->user_s >= 0)
            out->total_user_s = (out->total_user_s < 0 ? 0 : out->total_user_s) + p->user_s;
    }
}

static void add_total(pm_report *out, double wall)
{
    out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + wall;
}

int pm_parse_mlir_text(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    pm_lines L;
    if (pm_lines_split(buf, len, &L))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory splitting input");
    int rc = PM_OK;
    pm_timing_cols cols = {0, -1, -1};
    int in_block = 0, report_index = -1;
    size_t first = 0;
    /* a row is at most one level below the previous one, so nesting is never deeper than the line count */
    int *stack = malloc((L.n + 1) * sizeof *stack);
    if (!stack) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t li = 0; li < L.n; li++) {
        const char *line = L.line[li];
        if (strstr(line, "Execution time report")) {
            if (in_block)
                finish_block(out, first);
            in_block = 1;
            cols.ncols = 0;
            first = out->n_passes;
            report_index = out->n_reports++;
            continue;
        }
        if (!in_block)
            continue;
        const char *t = strstr(line, "Total Execution Time:");
        if (t) {
            char *e;
            double v = strtod(t + 21, &e);
            if (e != t + 21 && pm_time_ok(v))
                add_total(out, v);
            continue;
        }
        double vals[PM_TIMING_MAX_COLS];
        const char *rest;
        if (!pm_timing_line(line, &cols, vals, &rest))
            continue; /* interleaved log line or blank */
        /* two separator spaces, then two per tree level */
        size_t sp = strspn(rest, " ");
        if (sp < 2 || rest[sp] == '\0')
            continue;
        /* a junk line between parent and child can not raise depth by more than one level */
        size_t want = (sp - 2) / 2;
        int top_depth = out->n_passes > first ? out->passes[out->n_passes - 1].depth : -1;
        int depth = want > (size_t)(top_depth + 1) ? top_depth + 1 : (int)want;
        char *name = pm_trim_dup(rest);
        if (!name) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        int parent = depth > 0 ? stack[depth - 1] : -1;
        rc = add_row(out, name, vals[cols.wall_col], cols.user_col >= 0 ? vals[cols.user_col] : -1, depth, parent, report_index);
        int is_total = strcmp(name, "Total") == 0 && depth == 0;
        free(name);
        if (rc) {
            pm_err_set(err, rc, "out of memory");
            goto cleanup;
        }
        stack[depth] = (int)out->n_passes - 1;
        if (is_total) { /* the block ends; lines up to the next title are not ours */
            finish_block(out, first);
            in_block = 0;
        }
    }
    if (in_block)
        finish_block(out, first);
cleanup:
    free(stack);
    pm_lines_free(&L);
    return rc;
}

/* One JSON timer object {"wall":{"duration":..}, "user":{..}?, "name":.., "passes":[..]?}; {} entries are
 * padding that the printer emits after every child list. */
static int json_timer(json_t *obj, int depth, int parent, int report_index, pm_report *out, pm_err *err)
{
    if (!json_is_object(obj))
        return pm_err_set(err, PM_ERR_PARSE, "timer entry is not an object");
    json_t *jname = json_object_get(obj, "name");
    if (!jname)
        return PM_OK;
    if (!json_is_string(jname))
        return pm_err_set(err, PM_ERR_PARSE, "timer name is not a string");
    json_t *w = json_object_get(json_object_get(obj, "wall"), "duration");
    json_t *u = json_object_get(json_object_get(obj, "user"), "duration");
    if (!json_is_number(w))
        return pm_err_set(err, PM_ERR_PARSE, "timer '%s' has no wall.duration", json_string_value(jname));
    if (!pm_time_ok(json_number_value(w)) || (json_is_number(u) && !pm_time_ok(json_number_value(u))))
        return pm_err_set(err, PM_ERR_PARSE, "timer '%s': duration out of range (0..%g s)", json_string_value(jname),
                          PM_TIME_MAX_S);
    int rc = add_row(out, json_string_value(jname), json_number_value(w), json_is_number(u) ? json_number_value(u) : -1,
                     depth, parent, report_index);
    if (rc)
        return pm_err_set(err, rc, "out of memory");
    if (depth == 0 && strcmp(json_string_value(jname), "Total") == 0)
        add_total(out, json_number_value(w));
    int self = (int)out->n_passes - 1;
    json_t *kids = json_object_get(obj, "passes");
    if (kids) {
        if (!json_is_array(kids))
            return pm_err_set(err, PM_ERR_PARSE, "timer '%s': passes is not an array", json_string_value(jname));
        if (depth + 1 >= MAX_DEPTH)
            return pm_err_set(err, PM_ERR_PARSE, "timer tree deeper than %d", MAX_DEPTH);
        size_t i;
        json_t *k;
        json_array_foreach(kids, i, k) {
            if ((rc = json_timer(k, depth + 1, self, report_index, out, err)))
                return rc;
        }
    }
    return PM_OK;
}

int pm_parse_mlir_json(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    size_t off = 0;
    /* stderr may hold several reports (and other text) one after another: load each top-level array */
    for (;;) {
        while (off < len && buf[off] != '[')
            off++;
        if (off >= len)
            return PM_OK;
        json_error_t je;
        json_t *root = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
        if (!root)
            return pm_err_set(err, PM_ERR_PARSE, "line %d: %s", je.line, je.text);
        size_t used = (size_t)je.position;
        int rc = PM_OK;
        size_t first = out->n_passes;
        int report_index = out->n_reports++;
        size_t i;
        json_t *t;
        json_array_foreach(root, i, t) {
            if ((rc = json_timer(t, 0, -1, report_index, out, err)))
                break;
        }
        finish_block(out, first);
        json_decref(root);
        if (rc)
            return rc;
        off += used ? used : 1;
    }
}

/* ---- the format rows ---- */

static int sniff_mlir_text(const char *b, size_t n) { return pm_text_contains(b, n, "Execution time report"); }
static int sniff_mlir_json(const char *b, size_t n) { return pm_text_is_json(b, n) && pm_text_contains(b, n, "\"wall\""); }

/* "    0.0012 ( 57.9%)  Parser": seconds, 4 decimals */
const pm_format_row pm_format_mlir_text = {"mlir-text", pm_parse_mlir_text, sniff_mlir_text, 9, "mlir-opt", 1e-4, 1};
/* "duration":   0.0011 */
const pm_format_row pm_format_mlir_json = {"mlir-json", pm_parse_mlir_json, sniff_mlir_json, 6, "mlir-opt", 1e-4, 1};
