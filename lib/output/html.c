/* The HTML report's last section, one per config (runs, steps with argv, stderr of failures, IR size, pass
 * tree as an icicle chart); the page around the sections is html_page.c. */
#include "html.h"
#include "builds_out.h"
#include "passtree.h"
#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define esc pm_html_esc

/* tab20, the figures' palette, so a stage has one colour across the report */
static const char *const COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                     "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
                                     "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};
#define NCOLORS (sizeof COLORS / sizeof COLORS[0])

static const char *stage_color(const pm_analysis *a, const char *stage)
{
    int i = stage ? pm_an_stage_index(a, stage) : -1;
    return i < 0 ? "#9aa0a6" : COLORS[(size_t)i % NCOLORS];
}

static void fmt_time(char *buf, size_t n, double s)
{
    if (s < 0 || isnan(s))
        snprintf(buf, n, "-");
    else if (s >= 1)
        snprintf(buf, n, "%.3f s", s);
    else
        snprintf(buf, n, "%.1f ms", s * 1e3);
}

/* One box of the icicle: its span at full view in data-x/data-w (what the click-to-zoom script rescales), its
 * name in data-n (the label the script cuts to a zoomed width); hidden: narrower than half a unit at full view. */
static void ice_box_open(FILE *f, double x, double w, const char *name, int step, int hidden)
{
    fprintf(f, "<g data-x=\"%.6f\" data-w=\"%.6f\" data-n=\"", x, w);
    esc(f, name ? name : "?");
    fprintf(f, "\"%s>", step && hidden ? " class=\"st hid\"" : step ? " class=st" : hidden ? " class=hid" : "");
}

/* A label cut to the box's width (about 6.2 units a character at 11 px), as the zoom script cuts it. */
static void ice_label(FILE *f, const char *name, double x, double y, double w, const char *fill)
{
    size_t len = strlen(name ? name : ""), fit = (size_t)((w - 6) / 6.2);
    fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" fill=\"%s\">", x + 3, y, fill);
    if (fit >= len) {
        esc(f, name);
    } else {
        char cut[256];
        snprintf(cut, sizeof cut, "%.*s", (int)(fit > 2 ? fit - 1 : 1), name);
        esc(f, cut);
        fputs("\u2026", f);
    }
    fputs("</text>", f);
}

/* The pass tree of one run as an icicle chart: x = time through the compile (steps one after another),
 * y = nesting; every box has a <title> (name, time, share) that browsers show on hover. A click on a box zooms
 * the x axis to it (the script in JS), so passes narrower than a pixel at full view are drawn once their
 * parent is zoomed: they are written hidden, not left out. */
static void icicle(FILE *f, const pm_analysis *a, const pm_html_opts *o, const pm_stored_run *run)
{
    const double W = 1080, ROW = 30;   /* a row tall enough to read its label (was 18: a 74 px chart) */
    double total = 0;
    int maxdepth = 0;
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        total += st->wall_s > 0 ? st->wall_s : 0;
        for (size_t i = 0; i < st->n_passes; i++)
            if (st->passes[i].depth > maxdepth)
                maxdepth = st->passes[i].depth;
    }
    if (total <= 0) {
        fputs("<p class=note>no timed steps in this run</p>", f);
        return;
    }
    double H = (maxdepth + 2) * ROW + 2, x0 = 0;
    size_t tiny = 0, untimed = 0;
    fprintf(f, "<svg class=icicle viewBox=\"0 0 %.0f %.0f\" data-w=\"%.0f\" role=img aria-label=\"pass tree: click a "
               "box to zoom in, click it again to zoom out\">", W, H, W);
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        double sw = st->wall_s > 0 ? st->wall_s : 0, scale = W / total;
        char t[32], label[300];
        fmt_time(t, sizeof t, sw);
        snprintf(label, sizeof label, "%s %s", st->tool ? st->tool : "?", t);
        ice_box_open(f, x0 * scale, sw * scale, label, 1, sw * scale < 0.5);
        fprintf(f, "<title>step %d: %s \u2014 %s \u2014 %.1f%% of the compile (%s)</title>", st->seq,
                st->tool ? st->tool : "?", t, 100 * sw / total, run->order_recorded ? pm_passtree_placement(st->order)
                                                                            : "order not recorded (older database)");
        fprintf(f, "<rect x=\"%.2f\" y=\"1\" width=\"%.2f\" height=\"%.0f\" fill=\"#44474e\"/>", x0 * scale,
                sw * scale > 1 ? sw * scale - 1 : sw * scale, ROW - 2);
        if (sw * scale > 60)
            ice_label(f, label, x0 * scale, 13, sw * scale, "#fff");
        fputs("</g>", f);
        pm_span *sp = calloc(st->n_passes ? st->n_passes : 1, sizeof *sp);
        if (!sp)
            return;
        pm_passtree_layout(st, sp);
        for (size_t i = 0; i < st->n_passes; i++) {
            const pm_stored_pass *p = &st->passes[i];
            if (!sp[i].shown)
                continue;
            double x = (x0 + sp[i].start_s) * scale, w = sp[i].dur_s * scale;
            if (w <= 0) {   /* no measured time: no box at any zoom */
                untimed++;
                continue;
            }
            tiny += w < 0.5;   /* narrower than a pixel can neither be seen nor hovered until zoomed */
            const char *stage = o->map ? pm_stagemap_match(o->map, st->tool, p->name ? p->name : "") : NULL;
            int grp = (p->flags & PM_PASS_GROUP) != 0;
            fmt_time(t, sizeof t, p->wall_s);
            ice_box_open(f, x, w, p->name, 0, w < 0.5);
            fputs("<title>", f);
            esc(f, p->name);
            fprintf(f, " \u2014 %s \u2014 %.1f%% of the compile", t, p->wall_s > 0 ? 100 * p->wall_s / total : 0);
            if (stage && !grp) {
                fputs(" \u2014 stage ", f);
                esc(f, stage);
            }
            fprintf(f, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"%s/>", x,
                    (p->depth + 1) * ROW + 1, w > 1 ? w - 0.5 : w, ROW - 2, grp ? "#c4c7cc" : stage_color(a, stage),
                    grp ? "" : " fill-opacity=\"0.85\"");
            if (w > 36)
                ice_label(f, p->name ? p->name : "", x, (p->depth + 1) * ROW + 13, w, "#111");
            fputs("</g>", f);
        }
        free(sp);
        x0 += sw;
    }
    fputs("</svg>", f);
    if (tiny || untimed) {
        fputs("<p class=note>", f);
        if (tiny)
            fprintf(f, "%zu passes are narrower than a pixel at full view: click a box to zoom in and draw them. ",
                    tiny);
        if (untimed)
            fprintf(f, "%zu passes with no measured time have no box. ", untimed);
        fputs("passmap show and passmap trace list them all.</p>", f);
    }
}

static void kv_time(FILE *f, const char *k, double s)
{
    char t[32];
    fmt_time(t, sizeof t, s);
    fprintf(f, "<dt>%s</dt><dd>%s</dd>", k, t);
}

/* One config's section: runs, the representative run's steps (argv), failures (stderr), IR size, pass tree;
 * !full: its one-line summary and where the rest is (a sweep above DRILL_ALL configs, see drill_pick). */
/* The store in a command the page prints, copyable as it stands: its path as the user gave it, single-quoted when
 * a shell would split or expand it. */
static void db_arg(FILE *f, const pm_html_opts *o)
{
    const char *p = o && o->db_label ? o->db_label : "DB";
    int plain = *p != '\0';
    for (const char *c = p; *c; c++)
        plain &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_./+-,=:@", *c);
    if (plain) {
        pm_html_esc(f, p);
        return;
    }
    fputc('\'', f);
    for (const char *c = p; *c; c++) {
        char one[2] = {*c, 0};
        pm_html_esc(f, *c == '\'' ? "'\\''" : one);
    }
    fputc('\'', f);
}

/* The config's runs, one row each (id, mode, repeat, status, wall, user/wall, max RSS, note). */
static void runs_table(FILE *f, size_t ci, const pm_run_summary *runs, size_t n_runs)
{
    static const pm_col cols[] = {{"run", "run id", "id"},         {"mode", "mode", NULL},
                                  {"repeat", "repeat", "count"},    {"status", "status", NULL},
                                  {"wall_s", "wall", "s"},          {"user_wall", "user/wall", "ratio"},
                                  {"maxrss_kb", "max RSS", "MB"},   {"note", "note", NULL}};
    char id[48];
    snprintf(id, sizeof id, "runs-%zu", ci);
    pm_table *t = pm_table_new(id, NULL, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; t && i < n_runs; i++) {
        const pm_run_summary *r = &runs[i];
        long row = pm_table_add_row(t);
        if (row < 0)
            break;
        char buf[64];
        pm_table_setf(t, (size_t)row, 0, (double)r->id, "%lld", (long long)r->id);
        pm_table_set(t, (size_t)row, 1, r->mode, NAN);
        pm_table_setf(t, (size_t)row, 2, r->repeat, "%d", r->repeat);
        pm_table_set(t, (size_t)row, 3, r->status, NAN);
        pm_fmt_seconds(buf, sizeof buf, r->wall_s);
        pm_table_set(t, (size_t)row, 4, buf, r->wall_s >= 0 ? r->wall_s : NAN);
        if (r->wall_s > 0 && r->user_s >= 0)
            pm_table_setf(t, (size_t)row, 5, r->user_s / r->wall_s, "%.2f", r->user_s / r->wall_s);
        if (r->maxrss_kb >= 0)
            pm_table_setf(t, (size_t)row, 6, r->maxrss_kb / 1024.0, "%.0f MB", r->maxrss_kb / 1024.0);
        pm_table_set(t, (size_t)row, 7, r->note, NAN);
    }
    fputs("<h4>Runs</h4>", f);
    if (t)
        pm_table_html(t, f, 0);
    pm_table_free(t);
}

/* Failures: the stderr tail of every failed step of the config's runs. */
static int failed_runs(FILE *f, const pm_html_opts *o, const pm_run_summary *runs, size_t n_runs, pm_err *err)
{
    int rc;
    for (size_t i = 0; i < n_runs; i++) {
        if (!runs[i].status || !strcmp(runs[i].status, "ok"))
            continue;
        pm_stored_run fr;
        if ((rc = pm_store_load_run(o->db, runs[i].id, 0, &fr, err)))
            return rc;
        fprintf(f, "<h4 class=warn>Failed: %s run #%d (run id %lld): ", runs[i].mode, runs[i].repeat,
                (long long)runs[i].id);
        esc(f, runs[i].status);
        if (runs[i].note) {
            fputs(" \u2014 ", f);
            esc(f, runs[i].note);
        }
        fputs("</h4>", f);
        for (size_t k = 0; k < fr.n_steps; k++) {
            const pm_stored_step *st = &fr.steps[k];
            if (st->status && !strcmp(st->status, "ok"))
                continue;
            fprintf(f, "<p>step %d <b>", st->seq);
            esc(f, st->tool);
            fprintf(f, "</b>: %s, exit %d%s</p><code class=argv>", st->status ? st->status : "?", st->exit_code,
                    st->term_signal ? " (signal)" : "");
            esc(f, st->argv);
            fputs("</code>", f);
            if (st->stderr_tail) {
                fputs("<pre>", f);
                esc(f, st->stderr_tail);
                fputs("</pre>", f);
            } else {
                fputs("<p class=note>no stderr captured</p>", f);
            }
        }
        pm_stored_run_free(&fr);
    }
    return PM_OK;
}

/* The representative run's steps (tool, time, user/wall, max RSS, report, argv) and its metrics. */
static void run_steps(FILE *f, const pm_stored_run *run)
{
    fprintf(f, "<h4>Steps of the median cold run (repeat %d, run id %lld)</h4><ol class=steps start=0>", run->repeat,
            (long long)run->id);
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        char tm[32];
        fmt_time(tm, sizeof tm, st->wall_s);
        fputs("<li><b>", f);
        esc(f, st->tool);
        fprintf(f, "</b> %s", tm);
        if (st->wall_s > 0 && st->user_s >= 0)
            fprintf(f, " \u00b7 user/wall %.2f", st->user_s / st->wall_s);
        if (st->maxrss_kb >= 0)
            fprintf(f, " \u00b7 max RSS %.0f MB", st->maxrss_kb / 1024.0);
        if (st->report_format) {
            fputs(" \u00b7 report ", f);
            esc(f, st->report_format);
        }
        fputs("<code class=argv>", f);
        esc(f, st->argv ? st->argv : "");
        fputs("</code></li>", f);
    }
    fputs("</ol>", f);
    if (run->n_metrics) {
        fputs("<h4>IR size and other metrics (this run)</h4><dl class=kv>", f);
        for (size_t i = 0; i < run->n_metrics; i++) {
            const pm_stored_metric *m = &run->metrics[i];
            fputs("<dt>", f);
            esc(f, m->name);
            if (m->step_seq >= 0)
                fprintf(f, " (step %d)", m->step_seq);
            fputs("</dt><dd>", f);
            if (isnan(m->value))
                fputs("&ndash;", f);
            else
                fprintf(f, "%.15g", m->value);
            fputs("</dd>", f);
        }
        fputs("</dl>", f);
    } else {
        fputs("<p class=note>no IR-size metrics recorded for this run</p>", f);
    }
}

static int config_section(FILE *f, const pm_analysis *a, const pm_html_opts *o, size_t ci, int full, pm_err *err)
{
    const pm_an_config *c = &a->configs[ci];
    fprintf(f, "<section class=cfg id=\"cfg-%zu\"><h3>", ci);
    esc(f, c->key);
    fputs("</h3><p class=sub>", f);
    char w[64];
    if (c->n_cold) {
        pm_fmt_interval(w, sizeof w, c->wall.mean, c->wall.lo, c->wall.hi, c->wall.n);
        fprintf(f, "cold wall %s over %d runs", w, c->n_cold);
        if (c->dominant_stage >= 0) {
            fputs(" \u00b7 dominant stage <b>", f);
            esc(f, a->stages[c->dominant_stage]);
            fprintf(f, "</b> %.1f%%", c->share[c->dominant_stage].mean * 100);
        }
        if (c->n_passes) {
            fputs(" \u00b7 top pass <code>", f);
            esc(f, c->passes[0].name);
            fprintf(f, "</code> %.1f%%", c->passes[0].share * 100);
        }
        if (!isnan(c->cache_ratio))
            fprintf(f, " \u00b7 recompile \u00f7 hit %.1f\u00d7", c->cache_ratio);
    } else {
        fprintf(f, "<span class=warn>no successful cold run (%d failed, %d without a report)</span>", c->n_failed,
                c->n_no_report);
    }
    fputs(" \u00b7 <a href=\"#configs\">back to the table</a></p>", f);
    if (!full) {
        fputs("<p class=note>not drawn (<a href=\"#drill-bound\">why</a>): <code>passmap show ", f);
        db_arg(f, o);
        fputs(" --config ", f);
        esc(f, c->key);
        fputs("</code></p></section>\n", f);
        return PM_OK;
    }
    if (!o || !o->db) {
        fputs("</section>\n", f);
        return PM_OK;
    }
    pm_run_summary *runs = NULL;
    size_t n_runs = 0;
    int rc = pm_store_config_runs(o->db, c->id, &runs, &n_runs, err);
    if (rc)
        return rc;
    runs_table(f, ci, runs, n_runs);

    if ((rc = failed_runs(f, o, runs, n_runs, err)))
        goto cleanup;

    /* the representative compile: median-wall successful cold run */
    int64_t rid;
    pm_err quiet = {0};
    pm_stored_run run;
    if (pm_store_config_run(o->db, c->id, c->key, "cold", -1, &rid, &quiet) ||
        pm_store_load_run(o->db, rid, 1, &run, &quiet)) {
        fputs("<p class=note>no successful cold run to show steps and passes for</p></section>\n", f);
        goto cleanup;
    }
    run_steps(f, &run);
    fputs("<h4>Pass tree (hover a box: pass, time, share of the compile; click: zoom in, click again: zoom out)</h4>", f);
    icicle(f, a, o, &run);
    fputs("<dl class=kv>", f);
    kv_time(f, "whole compile", run.wall_s);
    for (size_t k = 0; k < run.n_steps; k++) {
        fprintf(f, "<dt>step %d ", run.steps[k].seq);
        esc(f, run.steps[k].tool);
        fputs("</dt><dd>", f);
        esc(f, run.order_recorded ? pm_passtree_placement(run.steps[k].order) : "order not recorded (older database)");
        fputs("</dd>", f);
    }
    fputs("</dl>", f);
    fputs("<p class=sub>As a timeline: <code>passmap trace ", f);
    db_arg(f, o);
    fprintf(f, " --run %lld -o run.json</code>, then open it in ui.perfetto.dev; in a terminal: <code>passmap show ",
            (long long)run.id);
    db_arg(f, o);
    fprintf(f, " --run %lld</code>.</p>", (long long)run.id);
    pm_stored_run_free(&run);
    fputs("</section>\n", f);
cleanup:
    pm_run_summaries_free(runs, n_runs);
    return rc;
}

static void legend(FILE *f, const pm_analysis *a)
{
    fputs("<div class=legend>", f);
    for (size_t s = 0; s < a->n_stages; s++) {
        fprintf(f, "<span style=\"--c:%s\">", COLORS[s % NCOLORS]);
        esc(f, a->stages[s]);
        fputs("</span>", f);
    }
    fputs("<span style=\"--c:#c4c7cc\">group (pipeline)</span><span style=\"--c:#44474e\">step (process)</span></div>", f);
}

/* ---- per config (HTML only): runs, argv, stderr, IR size, pass tree ---- */

/* A drawn section is ~50 KB (its runs table and ~250 passes' boxes, each with a hover title) and a store query:
 * at 15,000 configs that was a 728 MB page taking 80 s to write, which no reader scrolls. Up to DRILL_ALL
 * configs every one is drawn, as always; above, the DRILL_SLOWEST configs with the slowest mean cold wall and
 * the first DRILL_FAILED with a failed run are drawn in full, and every other config keeps its anchor (the
 * tables link to it) with its one-line summary and the command that shows the rest. The page says so. */
enum { DRILL_ALL = 200, DRILL_SLOWEST = 50, DRILL_FAILED = 50 };

typedef struct {
    double wall;
    size_t i;
} drill_rank;

static int drill_slower(const void *p, const void *q)
{
    const drill_rank *x = p, *y = q;
    if (x->wall != y->wall)
        return x->wall < y->wall ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* full[i] = 1 for the configs drawn in full (all of them up to DRILL_ALL); *n: how many, *n_slow and *n_failed:
 * how many were picked for their wall and for a failed run (a config can be both). */
static int drill_pick(const pm_analysis *a, unsigned char *full, size_t *n, size_t *n_slow, size_t *n_failed,
                      pm_err *err)
{
    size_t nr = 0;
    *n = *n_slow = *n_failed = 0;
    if (a->n_configs <= DRILL_ALL) {
        memset(full, 1, a->n_configs);
        *n = a->n_configs;
        return PM_OK;
    }
    memset(full, 0, a->n_configs);
    drill_rank *r = malloc(a->n_configs * sizeof *r);
    if (!r)
        return pm_err_set(err, PM_ERR_NOMEM, "per-config section: out of memory for %zu configs", a->n_configs);
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].n_cold && !isnan(a->configs[i].wall.mean))
            r[nr++] = (drill_rank){a->configs[i].wall.mean, i};
    qsort(r, nr, sizeof *r, drill_slower);
    for (size_t k = 0; k < nr && k < DRILL_SLOWEST; k++, ++*n_slow, ++*n)
        full[r[k].i] = 1;
    free(r);
    for (size_t i = 0; i < a->n_configs && *n_failed < DRILL_FAILED; i++)
        if (a->configs[i].n_failed > 0 || a->configs[i].n_no_report > 0) {
            ++*n_failed;
            *n += !full[i];
            full[i] = 1;
        }
    return PM_OK;
}

static void drilldown_toc(const pm_report_ctx *x, FILE *f)
{
    pm_err quiet = {0};
    size_t n = 0, ns, nf;
    unsigned char *full = malloc(x->a->n_configs ? x->a->n_configs : 1);
    if (full && drill_pick(x->a, full, &n, &ns, &nf, &quiet)) {
        free(full);   /* drilldown_html reports it */
        full = NULL;
    }
    fputs("<ol class=cfglist>", f);
    for (size_t i = 0; i < x->a->n_configs; i++) {
        if (full && !full[i])
            continue;
        fprintf(f, "<li><a href=\"#cfg-%zu\">", i);
        esc(f, x->a->configs[i].key);
        fputs("</a></li>", f);
    }
    if (full && n < x->a->n_configs)
        fprintf(f, "<li><a href=\"#drill-bound\">%zu more: the configs table</a></li>", x->a->n_configs - n);
    fputs("</ol>", f);
    free(full);
}

static int drilldown_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    pm_html_opts o = {.db = x->db, .map = x->map, .db_label = x->db_label};
    size_t n, ns, nf;
    unsigned char *full = malloc(x->a->n_configs ? x->a->n_configs : 1);
    if (!full)
        return pm_err_set(err, PM_ERR_NOMEM, "per-config section: out of memory for %zu configs", x->a->n_configs);
    int rc = drill_pick(x->a, full, &n, &ns, &nf, err);
    if (rc) {
        free(full);
        return rc;
    }
    fputs("<h2 id=drilldown>Per config</h2>", f);
    if (n < x->a->n_configs)
        fprintf(f, "<p class=sub id=drill-bound>%zu configs: above %d the page draws %zu in full (runs, steps, "
                   "failures, IR size, pass tree): the %zu with the slowest mean cold wall and %zu with failed runs "
                   "(up to the first %d in config order). The other %zu keep their one-line summary here (the "
                   "<a href=\"#configs\">configs table</a> lists every config); <code>passmap show ",
                x->a->n_configs, DRILL_ALL, n, ns, nf, DRILL_FAILED, x->a->n_configs - n);
    if (n < x->a->n_configs) {
        db_arg(f, &o);
        fputs(" --config KEY</code> prints any config's pass tree and <code>passmap trace</code> its timeline.</p>", f);
    }
    legend(f, x->a);
    for (size_t i = 0; i < x->a->n_configs && rc == PM_OK; i++)
        rc = config_section(f, x->a, &o, i, full[i], err);
    free(full);
    return rc;
}

const pm_report_section pm_section_drilldown = {.id = "drilldown", .toc = "Per config", .html = drilldown_html,
                                                .toc_sub = drilldown_toc};
