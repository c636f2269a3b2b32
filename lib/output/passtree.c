#include "passtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int hidden_row(const pm_stored_pass *p)
{
    if (p->flags & PM_PASS_SUMMARY)
        return 1;
    /* a top-level breakdown (LLVM "Instruction Selection and Scheduling" rows, MLIR list-display analyses) is
     * time already inside another row: drawn beside it, it would double the timeline */
    return p->parent < 0 && (p->flags & PM_PASS_DETAIL);
}

static double step_extent(const pm_stored_step *st)
{
    if (st->wall_s >= 0)
        return st->wall_s;
    if (st->report_wall_s >= 0)
        return st->report_wall_s;
    double sum = 0;
    for (size_t i = 0; i < st->n_passes; i++)
        if (st->passes[i].counted && st->passes[i].wall_s > 0)
            sum += st->passes[i].wall_s;
    return sum;
}

void pm_passtree_layout(const pm_stored_step *st, pm_span *spans)
{
    double end = step_extent(st), top_cursor = 0;
    double *cursor = calloc(st->n_passes ? st->n_passes : 1, sizeof *cursor);
    for (size_t i = 0; i < st->n_passes; i++) {
        const pm_stored_pass *p = &st->passes[i];
        pm_span *sp = &spans[i];
        memset(sp, 0, sizeof *sp);
        int par = p->parent;
        if (hidden_row(p) || (par >= 0 && !spans[par].shown) || (st->order == PM_ORDER_TIMED && !p->has_start))
            continue;
        double lo = par >= 0 ? spans[par].start_s : 0;
        double hi = par >= 0 ? spans[par].start_s + spans[par].dur_s : end;
        double start = st->order == PM_ORDER_TIMED ? p->start_s : (par >= 0 ? (cursor ? cursor[par] : lo) : top_cursor);
        double dur = p->wall_s > 0 ? p->wall_s : 0;
        if (start < lo)
            start = lo;
        if (start > hi)
            start = hi;
        if (start + dur > hi)
            dur = hi - start;
        sp->start_s = start;
        sp->dur_s = dur;
        sp->shown = 1;
        if (cursor) {
            cursor[i] = start;   /* this row's children start at its start */
            if (par >= 0)
                cursor[par] = start + dur;
        }
        if (par < 0)
            top_cursor = start + dur;
    }
    free(cursor);
}

const char *pm_passtree_placement(pm_pass_order o)
{
    switch (o) {
    case PM_ORDER_TIMED: return "measured start offsets";
    case PM_ORDER_SEQUENCE: return "compiler order; starts not measured (laid out back to back)";
    default: break;
    }
    return "report order (the report sorts passes by time): not execution order; laid out back to back";
}

static const char *row_kind(const pm_stored_pass *p)
{
    if (p->flags & PM_PASS_GROUP)
        return "group";
    if (p->flags & PM_PASS_DETAIL)
        return "detail";
    if (p->flags & PM_PASS_ANALYSIS)
        return "analysis";
    return "pass";
}

static json_t *num_or_null(double v)
{
    return v >= 0 && !isnan(v) && !isinf(v) ? json_real(v) : json_null();
}

static long long us(double s) { return llround(s * 1e6); }

/* The trace's bytes are what json_dumps(JSON_COMPACT | JSON_REAL_PRECISION(9)) gives the whole
 * {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}} object, written one event at a time. */
#define TRACE_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(9))

typedef struct trace_out {
    FILE *f;
    size_t n;          /* events written */
    int oom;           /* an event could not be built */
} trace_out;

/* Writes one event (stolen) after the ones before it. */
static void put_event(trace_out *t, json_t *ev)
{
    if (!ev) {
        t->oom = 1;
        return;
    }
    if (!t->oom && ((t->n++ && fputc(',', t->f) == EOF) || json_dumpf(ev, t->f, TRACE_DUMP_FLAGS)))
        t->oom = 2;   /* a write failed */
    json_decref(ev);
}

int pm_trace_write(const pm_stored_run *run, FILE *f, pm_err *err)
{
    trace_out t = {.f = f};
    json_t *other = NULL;
    if (fputs("{\"traceEvents\":[", f) == EOF)
        goto io;
    double run_wall = run->wall_s > 0 ? run->wall_s : 0;
    if (run_wall <= 0)
        for (size_t k = 0; k < run->n_steps; k++)
            run_wall += step_extent(&run->steps[k]);
    long long t0 = 0;
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        int pid = (int)k + 1;
        char pname[256];
        snprintf(pname, sizeof pname, "step %d: %s", st->seq, st->tool ? st->tool : "?");
        put_event(&t, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "process_name", "ph", "M", "pid", pid, "tid", 1,
                                "args", "name", pname));
        put_event(&t, json_pack("{s:s,s:s,s:i,s:i,s:{s:i}}", "name", "process_sort_index", "ph", "M", "pid", pid,
                                "tid", 1, "args", "sort_index", pid));
        long long step_us = us(step_extent(st));
        json_t *args = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s}", "argv", st->argv ? json_string(st->argv) : json_null(),
                                 "status", st->status ? json_string(st->status) : json_null(), "wall_s",
                                 num_or_null(st->wall_s), "user_s", num_or_null(st->user_s), "max_rss_kb",
                                 st->maxrss_kb >= 0 ? json_integer(st->maxrss_kb) : json_null(), "report_format",
                                 st->report_format ? json_string(st->report_format) : json_null(), "exit_code",
                                 json_integer(st->exit_code), "pass_order", pm_pass_order_name(st->order),
                                 "placement", run->order_recorded ? pm_passtree_placement(st->order)
                                                                  : "order not recorded (older database): report order, laid out back to back");
        if (!args)
            goto nomem;
        if (st->stderr_tail)
            json_object_set_new(args, "stderr_tail", json_string(st->stderr_tail));
        put_event(&t, json_pack("{s:s,s:s,s:s,s:I,s:I,s:i,s:i,s:o}", "name", st->tool ? st->tool : "step", "cat",
                                "step", "ph", "X", "ts", (json_int_t)t0, "dur", (json_int_t)step_us, "pid", pid,
                                "tid", 1, "args", args));
        pm_span *spans = calloc(st->n_passes ? st->n_passes : 1, sizeof *spans);
        long long *ts = calloc(st->n_passes ? st->n_passes : 1, sizeof *ts), *te = calloc(st->n_passes ? st->n_passes : 1, sizeof *te);
        if (!spans || !ts || !te) {
            free(spans);
            free(ts);
            free(te);
            goto nomem;
        }
        pm_passtree_layout(st, spans);
        for (size_t i = 0; i < st->n_passes; i++) {
            const pm_stored_pass *p = &st->passes[i];
            if (!spans[i].shown)
                continue;
            /* whole µs, clamped into the parent's whole-µs span, so containment survives the rounding */
            long long lo = p->parent >= 0 ? ts[p->parent] : t0, hi = p->parent >= 0 ? te[p->parent] : t0 + step_us;
            long long a = t0 + us(spans[i].start_s), b = t0 + us(spans[i].start_s + spans[i].dur_s);
            a = a < lo ? lo : a > hi ? hi : a;
            b = b < a ? a : b > hi ? hi : b;
            ts[i] = a;
            te[i] = b;
            json_t *pa = json_pack("{s:o,s:o,s:o,s:s,s:i}", "wall_s", num_or_null(p->wall_s), "user_s",
                                   num_or_null(p->user_s), "share_of_run",
                                   num_or_null(run_wall > 0 && p->wall_s >= 0 ? p->wall_s / run_wall : -1), "kind",
                                   row_kind(p), "report_row", (int)i);
            if (p->section)
                json_object_set_new(pa, "section", json_string(p->section));
            put_event(&t, json_pack("{s:s,s:s,s:s,s:I,s:I,s:i,s:i,s:o}", "name", p->name ? p->name : "?", "cat",
                                    row_kind(p), "ph", "X", "ts", (json_int_t)a, "dur", (json_int_t)(b - a), "pid", pid,
                                    "tid", 1, "args", pa));
        }
        free(spans);
        free(ts);
        free(te);
        t0 += step_us;
        if (t.oom)
            break;
    }
    if (t.oom == 2)
        goto io;
    if (t.oom)
        goto nomem;
    other = json_pack("{s:i,s:s,s:o,s:o,s:I,s:o,s:i,s:o,s:o,s:{s:s,s:s,s:s,s:s}}", "schema", PM_TRACE_SCHEMA,
                              "producer", "passmap trace", "sweep", run->sweep ? json_string(run->sweep) : json_null(),
                              "config", run->config_key ? json_string(run->config_key) : json_null(), "run_id",
                              (json_int_t)run->id, "mode", run->mode ? json_string(run->mode) : json_null(), "repeat",
                              run->repeat, "status", run->status ? json_string(run->status) : json_null(), "wall_s",
                              num_or_null(run->wall_s), "units", "ts", "us", "dur", "us", "wall_s", "s", "share_of_run",
                              "fraction of the run's wall (0..1)");
    if (!other)
        goto nomem;
    if (fputs("],\"displayTimeUnit\":\"ms\",\"otherData\":", f) == EOF || json_dumpf(other, f, TRACE_DUMP_FLAGS) ||
        fputs("}\n", f) == EOF)
        goto io;
    json_decref(other);
    return PM_OK;
io:
    json_decref(other);
    return pm_err_errno(err, PM_ERR_IO, "writing the trace");
nomem:
    json_decref(other);
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory building the trace");
}

/* ---- terminal view ---- */

static const char *const STAGE_COLORS[] = {"34", "33", "32", "31", "35", "36", "94", "93", "92", "91", "95", "96"};

static void put_time(char *buf, size_t n, double s)
{
    if (s < 0)
        snprintf(buf, n, "-");
    else if (s >= 1)
        snprintf(buf, n, "%.3f s", s);
    else
        snprintf(buf, n, "%.1f ms", s * 1e3);
}

/* Display width of a UTF-8 string (one column per code point: pass names are ASCII in practice). */
static int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Prints s in exactly w columns: padded, or cut with a '~' mark so a cut name never passes for whole. */
static void put_cell(FILE *out, const char *s, int w)
{
    int tw = text_width(s);
    if (tw <= w) {
        fputs(s, out);
        for (int i = tw; i < w; i++)
            fputc(' ', out);
        return;
    }
    int cols = 0;
    for (const char *p = s; *p && cols < w - 1; p++) {
        fputc(*p, out);
        if ((((unsigned char)p[1]) & 0xC0) != 0x80)
            cols++;
    }
    fputc('~', out);
}

void pm_show_bar(FILE *out, double frac, int width, int unicode)
{
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int eighths = (int)lround(frac * width * 8);
    static const char *const part[] = {"", "\u258F", "\u258E", "\u258D", "\u258C", "\u258B", "\u258A", "\u2589"};
    for (int i = 0; i < eighths / 8; i++)
        fputs(unicode ? "\u2588" : "#", out);
    if (eighths % 8)
        fputs(unicode ? part[eighths % 8] : (eighths % 8 >= 4 ? "#" : ""), out);
}

/* The columns of `show`: name | time 10 | share 7 | stage (with a map) | bar; the escapes when coloured. */
typedef struct show_cols {
    int width, name_w, stage_w, bar_w, unicode;
    double run_wall, scale;   /* the run's wall; the bars' full length (the largest single row) */
    const char *b, *dim, *rst;
} show_cols;

/* How wide a pass's name cell is: its indent, name and " (A)". */
static int pass_name_width(const pm_stored_pass *p)
{
    return 2 * p->depth + 2 + text_width(p->name ? p->name : "?") + ((p->flags & PM_PASS_ANALYSIS) ? 4 : 0);
}

/* The widest name among the rows show prints (shown by the layout, at or above --min-share). -1: no memory. */
static int show_name_need(const pm_stored_run *run, const pm_show_opts *o, double run_wall)
{
    int need = 0;
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        pm_span *spans = calloc(st->n_passes ? st->n_passes : 1, sizeof *spans);
        if (!spans)
            return -1;
        pm_passtree_layout(st, spans);
        for (size_t i = 0; i < st->n_passes; i++) {
            const pm_stored_pass *p = &st->passes[i];
            double share = run_wall > 0 && p->wall_s > 0 ? p->wall_s / run_wall : 0;
            if (spans[i].shown && share >= o->min_share && pass_name_width(p) > need)
                need = pass_name_width(p);
        }
        free(spans);
    }
    return need;
}

/* A narrow terminal gives way by priority, as far as the widest pass name needs (need): the bar narrows to 8,
 * the stage column to 12 (its names cut, ending in '~'), then the bar goes, then the stage column goes. The name
 * keeps at least 28 columns; the columns go for at most 36 of it (a longer name is cut, ending in '~'), and what
 * was dropped is said once. */
static void show_columns(FILE *out, const pm_show_opts *o, int need, show_cols *c)
{
    int width = c->width;
    int stage_w = 0;
    for (size_t s = 0; o->map && s < pm_stagemap_n_stages(o->map); s++)
        if (text_width(pm_stagemap_stage(o->map, s)) > stage_w)
            stage_w = text_width(pm_stagemap_stage(o->map, s));
    if (o->map && stage_w < (int)strlen(PM_STAGE_OVERHEAD))
        stage_w = (int)strlen(PM_STAGE_OVERHEAD);
    enum { NAME_MIN = 28, NAME_KEEP = 36, BAR_MIN = 8, STAGE_MIN = 12 };
    int stage_full = stage_w;
    int fixed = 1 + 10 + 1 + 7 + 1;   /* " time share " around the name */
    int bar_w = width / 5 < 10 ? 10 : width / 5;
    int name_w = width - fixed - (stage_w ? stage_w + 1 : 0) - bar_w;
    const char *dropped = NULL;
    if (need < NAME_MIN)
        need = NAME_MIN;
    int keep = need < NAME_KEEP ? need : NAME_KEEP;   /* what a column is dropped for */
    if (name_w < need) {   /* the bar narrows first, then the stage column */
        int give = need - name_w < bar_w - BAR_MIN ? need - name_w : bar_w - BAR_MIN;
        bar_w -= give, name_w += give;
    }
    if (name_w < need && stage_w > STAGE_MIN) {
        int give = need - name_w < stage_w - STAGE_MIN ? need - name_w : stage_w - STAGE_MIN;
        stage_w -= give, name_w += give;
    }
    if (name_w < keep) {
        name_w += bar_w;
        bar_w = 0;
        dropped = "bar";
    }
    if (name_w < keep && stage_w) {
        name_w += stage_w + 1;
        stage_w = 0;
        dropped = "bar and stage";
    }
    if (name_w < 12)
        name_w = 12;
    if (dropped)
        fprintf(out, "%s(%s column%s dropped; COLUMNS=%d shows all)%s\n", c->dim, dropped,
                stage_w || !o->map ? "" : "s", fixed + keep + (stage_full ? STAGE_MIN + 1 : 0) + BAR_MIN, c->rst);
    c->name_w = name_w, c->stage_w = stage_w, c->bar_w = bar_w;
}

/* Bars are scaled to the largest single row (pass or time outside passes), so small runs still read. */
static double show_scale(const pm_stored_run *run, double run_wall)
{
    double scale = 0;
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        double counted = 0;
        for (size_t i = 0; i < st->n_passes; i++) {
            const pm_stored_pass *p = &st->passes[i];
            if (p->counted && p->wall_s > 0) {
                counted += p->wall_s;
                if (p->wall_s > scale)
                    scale = p->wall_s;
            }
        }
        if (step_extent(st) - counted > scale)
            scale = step_extent(st) - counted;
    }
    if (scale <= 0)
        scale = run_wall > 0 ? run_wall : 1;
    return scale;
}

/* One pass's row: indented name, time, share, stage, bar. */
static void show_pass(FILE *out, const pm_stored_step *st, const pm_stored_pass *p, double share,
                      const pm_show_opts *o, const show_cols *c)
{
    char name[1024], t[32];   /* as wide as pass_name_width */
    snprintf(name, sizeof name, "%*s%s%s", 2 * p->depth + 2, "", p->name ? p->name : "?",
             (p->flags & PM_PASS_ANALYSIS) ? " (A)" : "");
    int grp = (p->flags & PM_PASS_GROUP) != 0;
    if (grp)
        fputs(c->b, out);
    put_cell(out, name, c->name_w);
    if (grp)
        fputs(c->rst, out);
    put_time(t, sizeof t, p->wall_s);
    fprintf(out, " %10s %6.1f%% ", t, share * 100);
    const char *stage = c->stage_w ? pm_stagemap_match(o->map, st->tool, p->name ? p->name : "") : NULL;
    int si = 0;
    if (stage) {
        for (size_t s = 0; s < pm_stagemap_n_stages(o->map); s++)
            if (!strcmp(pm_stagemap_stage(o->map, s), stage))
                si = (int)s;
        put_cell(out, grp ? "" : stage, c->stage_w);
        fputc(' ', out);
    }
    if (o->color && c->bar_w)
        fprintf(out, "\033[%sm", grp ? "2" : STAGE_COLORS[(size_t)si % (sizeof STAGE_COLORS / sizeof *STAGE_COLORS)]);
    pm_show_bar(out, p->wall_s > 0 ? p->wall_s / c->scale : 0, c->bar_w, c->unicode);
    fprintf(out, "%s\n", c->bar_w ? c->rst : "");
}

/* One step: its header, its passes above --min-share, the time outside passes, and what was folded or hidden. */
static int show_step(FILE *out, const pm_stored_run *run, const pm_stored_step *st, const pm_show_opts *o,
                     const show_cols *c, pm_err *err)
{
    const char *b = c->b, *dim = c->dim, *rst = c->rst;
    double run_wall = c->run_wall;
    int width = c->width;
    char t[32], head[1400];
    pm_span *spans = calloc(st->n_passes ? st->n_passes : 1, sizeof *spans);
    if (!spans)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_passtree_layout(st, spans);
    double ext = step_extent(st), counted = 0;
    for (size_t i = 0; i < st->n_passes; i++)
        if (st->passes[i].counted && st->passes[i].wall_s > 0)
            counted += st->passes[i].wall_s;
    put_time(t, sizeof t, ext);
    const char *order = !run->order_recorded ? "(order not recorded: older database)"
                        : st->order == PM_ORDER_NONE ? "(rows by time, not execution order)"
                        : st->order == PM_ORDER_TIMED ? "(execution order, measured starts)"
                                                      : "(execution order)";
    snprintf(head, sizeof head, "step %d  %s  %s  %.1f%% of the run  ", st->seq, st->tool ? st->tool : "?", t,
             run_wall > 0 ? 100 * ext / run_wall : 0);
    int fits = text_width(head) + text_width(order) <= width;   /* else the note goes on its own line */
    fprintf(out, "\n%sstep %d  %s%s  %s  %.1f%% of the run%s%s%s%s\n", b, st->seq, st->tool ? st->tool : "?", rst, t,
            run_wall > 0 ? 100 * ext / run_wall : 0, fits ? "  " : "\n  ", dim, order, rst);
    if (st->status && strcmp(st->status, "ok"))
        fprintf(out, "  status %s, exit %d%s\n", st->status, st->exit_code, st->stderr_tail ? ", stderr tail:" : "");
    if (st->status && strcmp(st->status, "ok") && st->stderr_tail)
        fprintf(out, "%s%s%s\n", dim, st->stderr_tail, rst);
    size_t folded = 0;
    double folded_s = 0;
    size_t hidden = 0;
    for (size_t i = 0; i < st->n_passes; i++) {
        const pm_stored_pass *p = &st->passes[i];
        if (!spans[i].shown) {
            hidden += !(p->flags & PM_PASS_SUMMARY);
            continue;
        }
        double share = run_wall > 0 && p->wall_s > 0 ? p->wall_s / run_wall : 0;
        if (share < o->min_share) {
            if (p->counted) {
                folded++;
                folded_s += p->wall_s > 0 ? p->wall_s : 0;
            }
            continue;
        }
        show_pass(out, st, p, share, o, c);
    }
    double outside = ext - counted;
    if (outside > 0 && st->n_passes) {
        char name[128];
        snprintf(name, sizeof name, "  (outside passes: start-up, I/O)");
        put_cell(out, name, c->name_w);
        put_time(t, sizeof t, outside);
        fprintf(out, " %10s %6.1f%% ", t, run_wall > 0 ? 100 * outside / run_wall : 0);
        if (c->stage_w) {
            put_cell(out, "process-overhead", c->stage_w);
            fputc(' ', out);
        }
        pm_show_bar(out, outside / c->scale, c->bar_w, c->unicode);
        fputc('\n', out);
    }
    if (!st->n_passes)
        fprintf(out, "  (no timing report parsed for this step)\n");
    if (folded) {
        put_time(t, sizeof t, folded_s);
        snprintf(head, sizeof head, "  %zu more passes below %.1f%% each (%s together); ", folded,
                 o->min_share * 100, t);
        fprintf(out, "%s%s%s--min-share 0 shows them%s\n", dim, head,
                text_width(head) + 24 <= width ? "" : "\n  ", rst);   /* two lines rather than a wrap */
    }
    if (hidden)
        fprintf(out, "%s  %zu breakdown rows not shown%s(their time is inside other rows)%s\n", dim, hidden,
                62 <= width ? " " : "\n  ", rst);
    free(spans);
    return PM_OK;
}

int pm_show_run(FILE *out, const pm_stored_run *run, const pm_show_opts *o, pm_err *err)
{
    show_cols c = {.width = o->width < 40 ? 40 : o->width};
    int width = c.width;
    double run_wall = run->wall_s > 0 ? run->wall_s : 0;
    if (run_wall <= 0)
        for (size_t k = 0; k < run->n_steps; k++)
            run_wall += step_extent(&run->steps[k]);
    c.run_wall = run_wall;
    c.b = o->color ? "\033[1m" : "", c.dim = o->color ? "\033[2m" : "", c.rst = o->color ? "\033[0m" : "";
    const char *b = c.b, *rst = c.rst;
    char t[32], head[1400];
    put_time(t, sizeof t, run->wall_s);
    /* the header fits the width: the key alone on its line when the whole does not */
    snprintf(head, sizeof head, "%s  %s #%d  %s  %s  (run %lld)", run->config_key ? run->config_key : "?",
             run->mode ? run->mode : "?", run->repeat, run->status ? run->status : "?", t, (long long)run->id);
    if (text_width(head) <= width)
        fprintf(out, "%s%s%s%s\n", b, head, rst, "");
    else
        fprintf(out, "%s%s%s\n  %s #%d  %s  %s  (run %lld)\n", b, run->config_key ? run->config_key : "?", rst,
                run->mode ? run->mode : "?", run->repeat, run->status ? run->status : "?", t, (long long)run->id);
    int need = show_name_need(run, o, run_wall);
    if (need < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    show_columns(out, o, need, &c);
    c.unicode = o->color || o->unicode;   /* block glyphs on a terminal, coloured or not; '#' in files and pipes */
    c.scale = show_scale(run, run_wall);
    for (size_t k = 0; k < run->n_steps; k++) {
        int rc = show_step(out, run, &run->steps[k], o, &c, err);
        if (rc)
            return rc;
    }
    return ferror(out) ? pm_err_errno(err, PM_ERR_IO, "writing") : PM_OK;
}
