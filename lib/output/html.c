/* The HTML report: one self-contained file (inline CSS, SVG and a little JavaScript; nothing fetched).
 * Order: headline, table of contents, method, figures, tables, then one section per config (runs, steps
 * with argv, stderr of failures, IR size, pass tree as an icicle chart). */
#include "html.h"
#include "passtree.h"
#include "report_tables.h"
#include "fix_report.h"
#include "npu_report.h"

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

static const char CSS[] =
    ":root{--fg:#1b1c1f;--bg:#fff;--muted:#5f6368;--line:#d9dce1;--head:#f1f3f5;--accent:#0b57d0;--card:#f8f9fb;"
    "--warn:#b3261e}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e3e3e6;--bg:#131417;--muted:#9aa0a6;--line:#3c4046;"
    "--head:#202327;--accent:#8ab4f8;--card:#1b1d21;--warn:#f28b82}}"
    "*{box-sizing:border-box}html{scroll-padding-top:8px}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg)}"
    ".page{display:grid;grid-template-columns:250px minmax(0,1fr);gap:28px;max-width:2400px;margin:0 auto;padding:0 16px}"
    "nav.toc{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:18px 0;font-size:13px}"
    "nav.toc ol{list-style:none;padding-left:0;margin:0}nav.toc ol ol{padding-left:12px}nav.toc li{margin:2px 0}"
    "nav.toc a{color:var(--fg);text-decoration:none}nav.toc a:hover{color:var(--accent)}"
    "nav.toc .cfglist a{font-family:ui-monospace,monospace;font-size:11px;overflow-wrap:anywhere}"
    "main{min-width:0;padding-bottom:60px}a{color:var(--accent)}"
    "h1{font-size:24px;margin:18px 0 4px}h2{font-size:19px;margin:28px 0 8px;padding-top:8px;border-top:1px solid var(--line)}"
    "h3{font-size:16px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}"
    ".sub{color:var(--muted);margin:0 0 12px;max-width:140ch}main>p{max-width:140ch}.note{color:var(--muted);font-style:italic}.warn{color:var(--warn)}"
    ".headline{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 16px;margin:12px 0}"
    ".headline li{margin:4px 0}.headline b{font-weight:600}"
    ".tbl{margin:6px 0 16px}.tw{display:inline-block;vertical-align:top;overflow:auto;max-width:100%;max-height:85vh;border:1px solid var(--line);border-radius:6px}"
    ".tbl input.filter{display:block}"
    "table{border-collapse:collapse;font-size:13px}caption{text-align:left;color:var(--muted);padding:4px 8px}"
    "th,td{padding:3px 9px;border-bottom:1px solid var(--line);white-space:nowrap;text-align:left}"
    "td:not(.n){white-space:normal;overflow-wrap:anywhere;min-width:6em;max-width:42em}"
    "th{white-space:normal;overflow-wrap:anywhere}th.n,td.n{padding:3px 6px}td.n{white-space:normal;min-width:4em}"
    "th{background:var(--head);position:sticky;top:0;cursor:pointer;user-select:none;font-weight:600}"
    "th.n,td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
    "tbody tr:hover{background:var(--card)}"
    "input.filter{font:inherit;padding:3px 8px;margin:0 0 6px;width:320px;max-width:100%;border:1px solid var(--line);"
    "border-radius:4px;background:var(--bg);color:var(--fg)}"
    "figure{margin:14px 0;padding:8px;background:#fff;color:#000;border:1px solid var(--line);border-radius:8px;"
    "max-width:100%;overflow:hidden}figure svg{display:block;width:100%;height:auto;max-height:78vh}"
    "figcaption{font-weight:600;margin:0 0 4px}figure.omitted{background:var(--card);color:var(--fg)}"
    "code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}"
    "pre{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all;max-height:320px}"
    ".argv{display:block;white-space:pre-wrap;word-break:break-all;background:var(--card);padding:4px 6px;"
    "border-radius:4px;margin:2px 0 8px}"
    "section.cfg{border-top:1px dashed var(--line);margin-top:22px}section.cfg:target h3{color:var(--accent)}"
    ".icicle{width:100%;height:auto;display:block;border:1px solid var(--line);border-radius:6px;background:var(--card)}"
    ".icicle text{font:11px system-ui,sans-serif;pointer-events:none}.icicle rect:hover{stroke:var(--fg);stroke-width:1.5}"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:4px 0}"
    ".legend span::before{content:'';display:inline-block;width:10px;height:10px;margin-right:4px;"
    "background:var(--c);border-radius:2px}"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}dl.kv dt{color:var(--muted)}"
    "dl.kv dd{margin:0}"
    "@media (max-width:900px){.page{grid-template-columns:1fr}nav.toc{position:static;max-height:none}}";

/* Sorting (click a header; numbers by data-v) and filtering (rows containing the text). */
static const char JS[] =
    "(function(){"
    "function key(td,num){if(!td)return num?NaN:'';var v=td.getAttribute('data-v');"
    "return num?(v===null||v===''?NaN:+v):(v!==null?v:td.textContent).toLowerCase();}"
    "function sortBy(t,i,th){var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "num=th.getAttribute('data-num')==='1',asc=th.getAttribute('aria-sort')!=='ascending';"
    "Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h){h.removeAttribute('aria-sort');});"
    "th.setAttribute('aria-sort',asc?'ascending':'descending');"
    "rows.sort(function(a,b){var x=key(a.cells[i],num),y=key(b.cells[i],num);"
    "if(num){if(isNaN(x))return isNaN(y)?0:1;if(isNaN(y))return -1;return asc?x-y:y-x;}"
    "return asc?x.localeCompare(y):y.localeCompare(x);});"
    "rows.forEach(function(r){tb.appendChild(r);});}"
    "Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){"
    "if(!t.tHead)return;Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){th.tabIndex=0;"
    "th.addEventListener('click',function(){sortBy(t,i,th);});"
    "th.addEventListener('keydown',function(e){if(e.key==='Enter')sortBy(t,i,th);});});});"
    "Array.prototype.forEach.call(document.querySelectorAll('input.filter'),function(inp){"
    "inp.addEventListener('input',function(){var t=document.getElementById(inp.getAttribute('data-for')),"
    "q=inp.value.toLowerCase();Array.prototype.forEach.call(t.tBodies[0].rows,function(r){"
    "r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});});});"
    "})();";

static void num(FILE *f, int prec, double v);

static void td_s(FILE *f, const char *s)
{
    fputs("<td>", f);
    esc(f, s ? s : "-");
    fputs("</td>", f);
}

static void td_n(FILE *f, int prec, double v)
{
    fputs("<td class=n>", f);
    num(f, prec, v);
    fputs("</td>", f);
}

static void num(FILE *f, int prec, double v)
{
    if (isnan(v))
        fputs("&ndash;", f);
    else
        fprintf(f, "%.*f", prec, v);
}

/* The SVG as gnuplot wrote it, minus the XML prolog and DOCTYPE that are invalid inside HTML; drawn at most
 * at its own size (a small figure is not blown up to the page width). */
static void inline_svg(FILE *f, const char *svg)
{
    const char *p = strstr(svg, "<svg");
    if (!p) {
        fputs(svg, f);
        return;
    }
    const char *vb = strstr(p, "viewBox=\"");
    double x, y, w = 0, hgt;
    if (vb && sscanf(vb + 9, "%lf %lf %lf %lf", &x, &y, &w, &hgt) == 4 && w > 0)
        fprintf(f, "<svg style=\"max-width:%.0fpx\"", w);
    else
        fputs("<svg", f);
    fputs(p + 4, f);
}

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

/* The pass tree of one run as an icicle chart: x = time through the compile (steps one after another),
 * y = nesting; every box has a <title> (name, time, share) that browsers show on hover. */
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
    size_t tiny = 0;
    fprintf(f, "<svg class=icicle viewBox=\"0 0 %.0f %.0f\" role=img aria-label=\"pass tree\">", W, H);
    for (size_t k = 0; k < run->n_steps; k++) {
        const pm_stored_step *st = &run->steps[k];
        double sw = st->wall_s > 0 ? st->wall_s : 0, scale = W / total;
        char t[32];
        fmt_time(t, sizeof t, sw);
        fprintf(f, "<g><title>step %d: %s \u2014 %s \u2014 %.1f%% of the compile (%s)</title>", st->seq,
                st->tool ? st->tool : "?", t, 100 * sw / total, run->order_recorded ? pm_passtree_placement(st->order)
                                                                            : "order not recorded (older database)");
        fprintf(f, "<rect x=\"%.2f\" y=\"1\" width=\"%.2f\" height=\"%.0f\" fill=\"#44474e\"/>", x0 * scale,
                sw * scale > 1 ? sw * scale - 1 : sw * scale, ROW - 2);
        if (sw * scale > 60) {
            fprintf(f, "<text x=\"%.2f\" y=\"13\" fill=\"#fff\">", x0 * scale + 4);
            esc(f, st->tool ? st->tool : "?");
            fprintf(f, " %s</text>", t);
        }
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
            if (w < 0.5) {   /* narrower than a pixel can neither be seen nor hovered */
                tiny++;
                continue;
            }
            const char *stage = o->map ? pm_stagemap_match(o->map, st->tool, p->name ? p->name : "") : NULL;
            int grp = (p->flags & PM_PASS_GROUP) != 0;
            fmt_time(t, sizeof t, p->wall_s);
            fputs("<g><title>", f);
            esc(f, p->name);
            fprintf(f, " \u2014 %s \u2014 %.1f%% of the compile", t, p->wall_s > 0 ? 100 * p->wall_s / total : 0);
            if (stage && !grp) {
                fputs(" \u2014 stage ", f);
                esc(f, stage);
            }
            fprintf(f, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"%s/>", x,
                    (p->depth + 1) * ROW + 1, w > 1 ? w - 0.5 : w, ROW - 2, grp ? "#c4c7cc" : stage_color(a, stage),
                    grp ? "" : " fill-opacity=\"0.85\"");
            size_t len = strlen(p->name ? p->name : "");
            if (w > 36) {
                size_t fit = (size_t)((w - 6) / 6.2);
                fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" fill=\"#111\">", x + 3, (p->depth + 1) * ROW + 13);
                if (fit >= len) {
                    esc(f, p->name);
                } else {
                    char cut[256];
                    snprintf(cut, sizeof cut, "%.*s", (int)(fit > 2 ? fit - 1 : 1), p->name);
                    esc(f, cut);
                    fputs("\u2026", f);
                }
                fputs("</text>", f);
            }
            fputs("</g>", f);
        }
        free(sp);
        x0 += sw;
    }
    fputs("</svg>", f);
    if (tiny)
        fprintf(f, "<p class=note>%zu passes narrower than a pixel are not drawn (passmap show or passmap trace list "
                   "them all).</p>", tiny);
}

static void kv_time(FILE *f, const char *k, double s)
{
    char t[32];
    fmt_time(t, sizeof t, s);
    fprintf(f, "<dt>%s</dt><dd>%s</dd>", k, t);
}

/* One config's section: runs, the representative run's steps (argv), failures (stderr), IR size, pass tree. */
static int config_section(FILE *f, const pm_analysis *a, const pm_html_opts *o, size_t ci, pm_err *err)
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
        fprintf(f, "<span class=warn>no successful cold run (%d failed)</span>", c->n_failed);
    }
    fputs(" \u00b7 <a href=\"#configs\">back to the table</a></p>", f);
    if (!o || !o->db) {
        fputs("</section>\n", f);
        return PM_OK;
    }
    pm_run_summary *runs = NULL;
    size_t n_runs = 0;
    int rc = pm_store_config_runs(o->db, c->id, &runs, &n_runs, err);
    if (rc)
        return rc;
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

    /* failures: the stderr tail of every failed step */
    for (size_t i = 0; i < n_runs; i++) {
        if (!runs[i].status || !strcmp(runs[i].status, "ok"))
            continue;
        pm_stored_run fr;
        if ((rc = pm_store_load_run(o->db, runs[i].id, 0, &fr, err)))
            goto cleanup;
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

    /* the representative compile: median-wall successful cold run */
    int64_t rid;
    pm_err quiet = {0};
    pm_stored_run run;
    if (pm_store_config_run(o->db, c->id, c->key, "cold", -1, &rid, &quiet) ||
        pm_store_load_run(o->db, rid, 1, &run, &quiet)) {
        fputs("<p class=note>no successful cold run to show steps and passes for</p></section>\n", f);
        goto cleanup;
    }
    fprintf(f, "<h4>Steps of the median cold run (repeat %d, run id %lld)</h4><ol class=steps start=0>", run.repeat,
            (long long)run.id);
    for (size_t k = 0; k < run.n_steps; k++) {
        const pm_stored_step *st = &run.steps[k];
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
    if (run.n_metrics) {
        fputs("<h4>IR size and other metrics (this run)</h4><dl class=kv>", f);
        for (size_t i = 0; i < run.n_metrics; i++) {
            const pm_stored_metric *m = &run.metrics[i];
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
    fputs("<h4>Pass tree (hover a box: pass, time, share of the compile)</h4>", f);
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
    fprintf(f, "<p class=sub>As a timeline: <code>passmap trace DB --run %lld -o run.json</code>, then open it in "
               "ui.perfetto.dev; in a terminal: <code>passmap show DB --run %lld</code>.</p>", (long long)run.id,
            (long long)run.id);
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

static int table_section(FILE *f, pm_table *t, int filter, pm_err *err)
{
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    int rc = pm_table_html(t, f, filter);
    pm_table_free(t);
    return rc ? pm_err_set(err, PM_ERR_IO, "writing HTML table") : PM_OK;
}

int pm_html_write(const pm_analysis *a, const pm_figures *figs, const pm_html_opts *o, FILE *f, pm_err *err)
{
    int rc = PM_OK;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
          "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
          "<meta name=color-scheme content=\"light dark\"><title>passmap report: ", f);
    esc(f, a->sweep);
    fprintf(f, "</title>\n<style>%s</style></head><body><div class=page>\n", CSS);

    /* table of contents */
    size_t ab_rows = 0;
    for (size_t i = 0; i < a->n_ab; i++)
        ab_rows += a->ab[i].cmp.n_configs;
    fputs("<nav class=toc aria-label=contents><ol><li><a href=\"#headline\"><b>Headline</b></a></li>", f);
    if (ab_rows)
        fputs("<li><a href=\"#ab\">A/B in this sweep</a></li>", f);
    fputs("<li><a href=\"#figures\">Figures</a><ol>", f);
    for (size_t i = 0; figs && i < figs->n; i++) {
        fprintf(f, "<li><a href=\"#fig-%s\">", figs->fig[i].name);
        esc(f, figs->fig[i].title);
        fputs("</a></li>", f);
    }
    fputs("</ol></li><li><a href=\"#regimes\">Regimes</a></li><li><a href=\"#fixes\">Fix table</a></li>"
          "<li><a href=\"#fits\">Cost vs IR size</a></li><li><a href=\"#handoff\">Handoff</a></li>"
          "<li><a href=\"#precision\">Precision</a></li><li><a href=\"#parallelism\">Parallelism</a></li>"
          "<li><a href=\"#method\">Method</a></li>"
          "<li><a href=\"#configs\">Configs</a></li><li><a href=\"#shares\">Stage shares</a></li>"
          "<li><a href=\"#overhead\">Process overhead</a></li><li><a href=\"#noise\">Noise</a></li>"
          "<li><a href=\"#drilldown\">Per config</a><ol class=cfglist>", f);
    for (size_t i = 0; i < a->n_configs; i++) {
        fprintf(f, "<li><a href=\"#cfg-%zu\">", i);
        esc(f, a->configs[i].key);
        fputs("</a></li>", f);
    }
    fputs("</ol></li></ol></nav>\n<main>\n", f);

    fputs("<h1>What dominates the compile: ", f);
    esc(f, a->sweep);
    fprintf(f, "</h1><p class=sub>back end %s \u00b7 %zu configs \u00b7 up to %d cold repeats \u00b7 %d runs ok, %d failed"
               "</p>\n", a->backend ? a->backend : "-", a->n_configs, a->max_repeats, a->n_runs_ok, a->n_runs_failed);

    pm_rt_headline h;
    if (pm_rt_headline_build(a, &h)) {
        pm_rt_headline_free(&h);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    fputs("<section class=headline id=headline><h2 style=\"border:0;margin-top:0\">Headline</h2><ul>", f);
    for (int i = 0; i < h.n_dominant; i++) {
        fputs("<li><b>Dominant stage</b> \u2014 ", f);
        esc(f, h.dominant[i]);
        fputs("</li>", f);
    }
    fputs("<li><b>Top fix</b> \u2014 ", f);
    esc(f, h.fix);
    fputs("</li><li><b>Measured A/B</b> \u2014 ", f);
    esc(f, h.ab);
    fputs("</li><li><b>Recompile \u00f7 cache hit</b> \u2014 ", f);
    esc(f, h.cache);
    fputs("</li>", f);
    if (h.slowest) {
        fputs("<li>", f);
        esc(f, h.slowest);
        fputs("</li>", f);
    }
    pm_rt_headline_free(&h);
    fputs("</ul></section>\n", f);
    if (a->n_ab || a->fix_json) {   /* every mark in the report (A/B, proven fixes) follows this one rule */
        char legend[2048];
        pm_rt_sig_legend(legend, sizeof legend, a);
        fputs("<p class=sub id=marks>", f);
        esc(f, legend);
        fputs("</p>\n", f);
    }
    pm_table *ab = pm_rt_ab(a);
    if (!ab)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (ab->n_rows) {
        fputs("<h2 id=ab>A/B in this sweep</h2><p class=sub>Each variant against the reference variant on the same "
              "configs, computed by <code>passmap compare</code>; B/A is the ratio of geometric means.</p>\n", f);
        if ((rc = table_section(f, ab, 1, err)))
            return rc;
    } else {
        pm_table_free(ab);
    }
    if (a->incomplete) {   /* merge --partial: said before anything that lacks the missing configs */
        fputs("<p class=note>warning: ", f);
        esc(f, a->incomplete);
        fputs("</p>\n", f);
    }
    pm_fix_report_html(f, a->fix_json);   /* the combination to ship heads the report */


    if (a->n_hosts > 1 || a->n_host_warnings) {
        /* The study was measured on several machines: one row per machine, then what crosses them. */
        fputs("<h2 id=machines>Machines</h2>\n<div class=tw><table><tr><th>host</th><th>fingerprint</th><th>configs</th>"
              "<th>cold runs</th><th>geomean wall (s)</th><th>CPU</th><th>cores</th><th>kernel</th><th>compiler</th>"
              "</tr>", f);
        for (size_t i = 0; i < a->n_hosts; i++) {
            const pm_an_host *hs = &a->hosts[i];
            fputs("<tr>", f);
            td_s(f, hs->name);
            td_s(f, hs->fingerprint);
            td_n(f, 0, hs->n_configs);
            td_n(f, 0, hs->n_runs);
            td_n(f, 4, hs->wall_geomean);
            td_s(f, hs->cpu_model);
            td_n(f, 0, hs->cores);
            td_s(f, hs->kernel);
            td_s(f, hs->compiler);
            fputs("</tr>", f);
        }
        fputs("</table></div>\n", f);
        for (size_t i = 0; i < a->n_host_warnings; i++) {
            fputs("<p class=note>warning: ", f);
            esc(f, a->host_warnings[i]);
            fputs("</p>\n", f);
        }
    }

    fputs("<h2 id=figures>Figures</h2>\n", f);
    for (size_t i = 0; figs && i < figs->n; i++) {
        const pm_figure *g = &figs->fig[i];
        fprintf(f, "<figure id=\"fig-%s\" data-figure=\"%s\"%s><figcaption>", g->name, g->name, g->svg ? "" : " class=omitted");
        esc(f, g->title);
        fputs("</figcaption>", f);
        if (g->svg)
            inline_svg(f, g->svg);
        else {
            fputs("<p class=note>omitted: ", f);
            esc(f, g->note ? g->note : "no data");
            fputs("</p>", f);
        }
        fputs("</figure>\n", f);
    }

    fputs("<h2 id=regimes>Regimes</h2>\n<ul>", f);
    int any = 0;
    for (size_t r = 0; r < a->n_regimes; r++)
        for (size_t i = 0; i < a->regimes[r].n_boundaries; i++, any = 1) {
            fputs("<li>", f);
            esc(f, a->regimes[r].kind);
            fputs(": ", f);
            esc(f, a->regimes[r].boundaries[i]);
            fputs("</li>", f);
        }
    if (!any)
        fputs("<li>no regime boundaries in this sweep</li>", f);
    fputs("</ul>\n", f);

    fputs("<h2 id=fixes>Fix table</h2><p class=sub>One row per regime (configs sharing their largest stage) with its "
          "heaviest pass by share; its fixes come from passmap fix's catalogue and rules: proven ones first (measured "
          "ratios), then predicted ones whose rule holds on the regime's configs. " PM_RT_OVERHEAD_DEF
          " (<a href=\"#overhead\">split per config</a>).</p>\n", f);
    if ((rc = table_section(f, pm_rt_fixes(a), 0, err)))
        return rc;
    fputs("<h2 id=fits>Cost = a\u00b7size<sup>k</sup>: heavy passes against the IR size they process</h2>"
          "<p class=sub>k above 1 with its lower 95% bound above 1 is superlinear: the pass gets costlier per op as IR "
          "grows.</p>\n", f);
    if ((rc = table_section(f, pm_rt_fits(a), 1, err)))
        return rc;
    if (pm_rt_fits_note(a)) {   /* no stage-entry sizes: what to rerun, not a fit against the input size */
        fputs("<p>", f);
        esc(f, pm_rt_fits_note(a));
        fputs("</p>\n", f);
    }

    char *handoff = pm_rt_handoff_text(a);
    if (!handoff)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fputs("<h2 id=handoff>Handoff</h2><p>How the stage shares move as the compile grows; the Jensen&ndash;Shannon "
          "distance compares the series' breakdowns at equal size (0 = identical handoff): ", f);
    esc(f, handoff);
    fputs(".</p>\n", f);
    free(handoff);

    fputs("<h2 id=precision>Precision</h2><ul>", f);
    for (size_t i = 0; i < a->n_crossovers; i++) {
        fputs("<li>", f);
        esc(f, a->crossovers[i]);
        fputs("</li>", f);
    }
    if (!a->n_crossovers)
        fputs("<li>no crossover between precisions in this sweep</li>", f);
    fputs("</ul>\n", f);
    if (a->n_crossovers)   /* a median carries no mark: the tested comparison is the A/B table's */
        fputs("<p class=sub>Crossovers are medians of wall ratios over families and windows, not tests; the marks per "
              "config are in the <a href=\"#ab\">A/B table</a> (precision=&hellip;).</p>\n", f);

    fputs("<h2 id=parallelism>Parallelism</h2><p class=sub>user/wall of each compiler process (1.0 = serial).</p>", f);
    if ((rc = table_section(f, pm_rt_tools(a), 0, err)))
        return rc;

    /* how to read the tables, after the answer (headline, figures, regimes, fixes) and before the tables */
    fputs("<h2 id=method>Method</h2><ul>", f);
    {
        char keys[768];
        pm_rt_key_legend(a, 1, keys, sizeof keys);
        if (keys[0]) {   /* the kind table's legends; the configs table repeats those of the sweep's kinds */
            fputs("<li><b>config keys</b>: ", f);
            esc(f, keys);
            fputs(".</li>", f);
        }
    }
    fputs("<li><b>cold</b> = a fresh compiler process per run, no compile cache; warm runs (when present) compile "
          "through the cache and give recompile \u00f7 hit.</li><li><b>share</b> = fraction of the whole process wall; "
          "time outside every pass is the stage <i>process-overhead</i>, split into <i>start-up</i> (each tool's "
          "median wall on a null input, measured once per sweep, times its steps) and <i>outside passes</i> (the "
          "rest).</li><li><b>cold wall</b> = geometric mean over "
          "the cold repeats; <b>[-x%, +y%]</b> are the ends of its 95% interval on the log scale (t over log "
          "times), asymmetric as a ratio's are; with fewer than 3 repeats no interval is claimed: (n=2, no interval).</li>"
          "<li><b>statistics</b>: every verdict (faster / slower / same / undecided / below resolution), its "
          "simultaneous interval, the Holm p, the outlier flags and what a summary withholds follow the rules in "
          "passmap's <code>docs/statistics.md</code>, one page with each rule's reason.</li>"
          "<li>Tables sort on a click on their header and filter with the box above them; each config links to its own "
          "section (runs, argv, stderr, IR size, pass tree).</li>", f);
    /* the compiler identity: what "the same compiler" means in this study */
    if (!a->n_builds) {
        fputs("<li><b>tools</b>: no identity recorded (a store written before passmap recorded each tool's path, "
              "--version and hash)</li>", f);
    } else {
        fputs(a->mixed_builds ? "<li><b>tools</b> (more than one build of a tool ran: see the warnings)<ul>"
                              : "<li><b>tools</b> (one build each; resolved path, <code>--version</code>, XXH3-128 of "
                                "the binary)<ul>", f);
        for (size_t i = 0; i < a->n_builds; i++) {
            char v[200];
            fputs("<li><code>", f);
            esc(f, a->builds[i].name);
            fputs("</code> ", f);
            esc(f, a->builds[i].path);
            fputs(": ", f);
            esc(f, pm_version_line(a->builds[i].version_text, v, sizeof v));
            fputs(", <code>", f);
            esc(f, a->builds[i].hash[0] ? a->builds[i].hash : "binary unreadable");
            fputs("</code></li>", f);
        }
        fputs("</ul></li>", f);
    }
    fputs("</ul>\n", f);
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    if (json_is_object(meta)) {
        fputs("<details><summary>Recorded sweep metadata (compiler, versions, machine, pipeline)</summary>"
              "<div class=tw><table><thead><tr><th>recorded</th><th>value</th></tr></thead><tbody>", f);
        const char *key;
        json_t *val;
        json_object_foreach(meta, key, val) {
            char *text = json_is_string(val) ? NULL : json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
            fputs("<tr><td>", f);
            esc(f, key);
            fputs("</td><td><code>", f);
            esc(f, json_is_string(val) ? json_string_value(val) : text ? text : "");
            fputs("</code></td></tr>", f);
            free(text);
        }
        fputs("</tbody></table></div></details>\n", f);
    } else {
        fputs("<p class=note>sweep metadata: none recorded</p>\n", f);
    }
    json_decref(meta);

    fputs("<h2 id=configs>Configs</h2><p class=sub>Click a config for its runs, argv, stderr and pass tree. "
          "Wall: geometric mean [the ends of its 95% interval, relative to it] (log scale).</p>\n", f);
    {
        char keys[768];
        pm_rt_key_legend(a, 0, keys, sizeof keys);
        if (keys[0]) {
            fputs("<p class=sub id=keys>", f);
            esc(f, keys);
            fputs(".</p>\n", f);
        }
        fputs("<p class=sub>" PM_RT_OVERHEAD_DEF " (<a href=\"#overhead\">split per config</a>).</p>\n", f);
    }
    if ((rc = table_section(f, pm_rt_configs(a, "#cfg-"), 1, err)))
        return rc;
    fputs("<h2 id=shares>Stage shares per config</h2><p class=sub>Share of the cold compile wall (mean over repeats)."
          "</p>\n", f);
    if ((rc = table_section(f, pm_rt_stage_shares(a, "#cfg-"), 1, err)))
        return rc;

    {
        char note[512], noise[1024];
        pm_rt_overhead_note(a, note, sizeof note);
        pm_rt_noise_text(a, noise, sizeof noise);
        fputs("<h2 id=overhead>Process overhead: start-up and outside passes</h2><p class=sub>start-up = each tool's "
              "median wall on a null input (once per sweep) times its steps, at most the run's overhead; outside "
              "passes = the rest.</p>\n", f);
        if (note[0]) {
            fputs("<p class=note>", f);
            esc(f, note);
            fputs("</p>\n", f);
        } else if ((rc = table_section(f, pm_rt_overhead(a, "#cfg-"), 1, err)))
            return rc;
        fputs("<h2 id=noise>Noise</h2><p>", f);
        esc(f, noise);
        fputs(": the fix table and the A/B marks (compare's rule) draw no conclusion from contended configs.</p>\n", f);
        if (a->n_startup && (rc = table_section(f, pm_rt_startup(a), 0, err)))
            return rc;
        pm_rt_startup_contended_text(a, noise, sizeof noise);
        if (noise[0]) {
            fputs("<p class=note>", f);
            esc(f, noise);
            fputs("</p>\n", f);
        }
    }

    pm_npu_report_html(a, f); /* NPU back end only: see npu_report.h */

    fputs("<h2 id=drilldown>Per config</h2>", f);
    legend(f, a);
    for (size_t i = 0; i < a->n_configs && rc == PM_OK; i++)
        rc = config_section(f, a, o, i, err);
    if (rc)
        return rc;
    fprintf(f, "</main></div>\n<script>%s</script>\n</body></html>\n", JS);
    if (ferror(f))
        return pm_err_errno(err, PM_ERR_IO, "writing HTML");
    return PM_OK;
}
