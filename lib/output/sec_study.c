/* The report's study sections (report_sections.h has the order): figures, regimes, cost fits, handoff,
 * precision. */
#include "report.h"
#include "report_tables.h"

#include <stdlib.h>
#include <string.h>

#define esc pm_html_esc
#define num pm_report_jnum
#define str pm_report_jstr

/* ---- figures (HTML; the data behind the fingerprints in JSON) ---- */

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

static void figures_toc(const pm_report_ctx *x, FILE *f)
{
    fputs("<ol>", f);
    for (size_t i = 0; x->figs && i < x->figs->n; i++) {
        fprintf(f, "<li><a href=\"#fig-%s\">", x->figs->fig[i].name);
        esc(f, x->figs->fig[i].title);
        fputs("</a></li>", f);
    }
    fputs("</ol>", f);
}

static int figures_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    fputs("<h2 id=figures>Figures</h2>\n<p class=note>Click a figure to see it larger (click again, or Esc, to "
          "return).</p>\n", f);
    for (size_t i = 0; x->figs && i < x->figs->n; i++) {
        const pm_figure *g = &x->figs->fig[i];
        fprintf(f, "<figure id=\"fig-%s\" data-figure=\"%s\"%s><figcaption>", g->name, g->name, g->svg ? "" : " class=omitted");
        esc(f, g->title);
        if (g->binned)   /* too many points, bars or rows to draw one by one */
            fputs(" <span class=note>(drawn from binned summaries: the figure's title says how)</span>", f);
        fputs("</figcaption>", f);
        if (g->svg && g->finding) {   /* what the figure shows, before the picture */
            fputs("<p class=finding>", f);
            esc(f, g->finding);
            fputs("</p>", f);
        }
        if (g->svg)
            inline_svg(f, g->svg);
        else {
            fputs("<p class=note>omitted: ", f);
            esc(f, g->note ? g->note : "no data");
            fputs("</p>", f);
        }
        fputs("</figure>\n", f);
    }
    return PM_OK;
}

static int figures_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *fps = json_array();
    for (size_t i = 0; i < a->figures.n_fingerprints; i++) {
        const pm_an_fingerprint *fp = &a->figures.fingerprints[i];
        json_t *bars = json_array();
        for (size_t k = 0; k < fp->n; k++)
            json_array_append_new(bars, json_pack("{s:s,s:s}", "label", fp->labels[k], "config",
                                                  a->configs[fp->configs[k]].key));
        json_array_append_new(fps, json_pack("{s:o,s:s,s:o,s:o,s:o}", "kind", str(fp->kind), "figure", fp->figure,
                                             "bar_axes", str(fp->bar_axes), "held", str(fp->held), "bars", bars));
    }
    json_object_set_new(root, "fingerprints", fps);
    return PM_OK;
}

const pm_report_section pm_section_figures = {.id = "figures", .toc = "Figures", .html = figures_html,
                                              .toc_sub = figures_toc, .json = figures_json};

/* ---- regimes: which stage dominates where, and the boundaries in words ---- */

static int regimes_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fputs(x->markdown ? "\n## Regimes\n\n" : "\nregimes\n", f);
    size_t cells = 0;
    for (size_t r = 0; r < a->regimes.n; r++) {
        cells += a->regimes.rows[r].n_cells;
        for (size_t i = 0; i < a->regimes.rows[r].n_boundaries; i++)
            fprintf(f, "%s%s: %s\n", PM_MD(x, "- ", "  "), a->regimes.rows[r].kind, a->regimes.rows[r].boundaries[i]);
    }
    if (!cells)   /* say why instead of an empty section */
        fprintf(f, "%snot applicable: no LLM (size x window), CNN (family x resolution) or two-axis configs "
                   "(--x SIZE-AXIS --y WORKLOAD-AXIS, or [report] size/workload in the spec)\n", PM_MD(x, "- ", "  "));
    return PM_OK;
}

static int regimes_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fputs("<h2 id=regimes>Regimes</h2>\n<ul>", f);
    int any = 0;
    for (size_t r = 0; r < a->regimes.n; r++)
        for (size_t i = 0; i < a->regimes.rows[r].n_boundaries; i++, any = 1) {
            fputs("<li>", f);
            esc(f, a->regimes.rows[r].kind);
            fputs(": ", f);
            esc(f, a->regimes.rows[r].boundaries[i]);
            fputs("</li>", f);
        }
    if (!any)
        fputs("<li>no regime boundaries in this sweep</li>", f);
    fputs("</ul>\n", f);
    return PM_OK;
}

static json_t *regime(const pm_analysis *a, const pm_an_regime *r)
{
    json_t *cells = json_array(), *b = json_array();
    for (size_t i = 0; i < r->n_cells; i++)
        json_array_append_new(cells, json_pack("{s:s,s:i,s:s,s:o,s:i}", "row", r->cells[i].row, "col", r->cells[i].col,
                                               "stage", a->stages[r->cells[i].stage], "share", num(r->cells[i].share),
                                               "configs", r->cells[i].n_configs));
    for (size_t i = 0; i < r->n_boundaries; i++)
        json_array_append_new(b, json_string(r->boundaries[i]));
    return json_pack("{s:o,s:o,s:o,s:o}", "precision", str(r->precision), "variant",
                     json_string(r->variant ? r->variant : ""), "cells", cells, "boundaries", b);
}

static int regimes_json(const pm_report_ctx *x, json_t *root)
{
    json_t *regimes = json_object();   /* keyed by kind ("llm", "cnn"; "command": the map over parameters) */
    for (size_t i = 0; i < x->a->regimes.n; i++) {
        const pm_an_regime *rg = &x->a->regimes.rows[i];
        json_t *o = regime(x->a, rg);
        if (rg->others) {
            json_object_set_new(o, "rows", str(rg->row_axis));
            json_object_set_new(o, "cols", str(rg->col_axis));
        }
        json_object_set_new(regimes, rg->kind, o);
    }
    json_object_set_new(root, "regimes", regimes);
    return PM_OK;
}

const pm_report_section pm_section_regimes = {.id = "regimes", .toc = "Regimes", .text = regimes_text,
                                              .html = regimes_html, .json = regimes_json};

/* ---- cost fits: heavy passes against the IR size they process ---- */

static int fits_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    if (x->a->fits.n) {
        int rc = pm_report_text_table(x, f, pm_rt_fits(x->a), "cost = a * size^k (heavy passes)", err);
        if (rc)
            return rc;
    }
    if (pm_rt_fits_note(x->a))
        fprintf(f, "%sfits: %s\n", PM_MD(x, "- ", ""), pm_rt_fits_note(x->a));
    return PM_OK;
}

static int fits_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=fits>Cost = a\u00b7size<sup>k</sup>: heavy passes against the IR size they process</h2>"
          "<p class=sub>k above 1 with its lower 95% bound above 1 is superlinear: the pass gets costlier per op as IR "
          "grows.</p>\n", f);
    int rc = pm_report_html_table(f, pm_rt_fits(x->a), 1, err);
    if (rc)
        return rc;
    if (pm_rt_fits_note(x->a)) {   /* no stage-entry sizes: what to rerun, not a fit against the input size */
        fputs("<p>", f);
        esc(f, pm_rt_fits_note(x->a));
        fputs("</p>\n", f);
    }
    return PM_OK;
}

static int fits_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *fits = json_array();
    for (size_t i = 0; i < a->fits.n; i++) {
        const pm_an_fit *fi = &a->fits.rows[i];
        json_t *fo = json_pack("{s:s,s:s,s:s,s:o,s:i,s:o,s:o,s:o,s:o,s:b,s:o,s:o}", "tool", fi->tool, "pass", fi->name,
                               "stage", a->stages[fi->stage], "x_metric", str(fi->x_metric), "n", fi->n, "exponent",
                               num(fi->exponent), "lo", num(fi->lo), "hi", num(fi->hi), "r2", num(fi->r2),
                               "superlinear", fi->superlinear, "max_share", num(fi->max_share), "user_wall",
                               num(fi->user_wall));
        if (fo) {   /* the points' variant, and why there is no fit (no stage-entry sizes: what to rerun) */
            json_object_set_new(fo, "variant", str(fi->variant));
            json_object_set_new(fo, "group", str(fi->group));   /* pipeline axes' values (opt=2), or null */
            json_object_set_new(fo, "reference", json_boolean(fi->reference));
            json_object_set_new(fo, "no_fit", str(fi->no_fit));
            json_object_set_new(fo, "npuw_left_out", json_integer(fi->npuw_left_out));
        }
        json_array_append_new(fits, fo);
    }
    json_object_set_new(root, "fits", fits);
    if (a->fits.x_note)   /* the x axes follow a fallback, not the rules the sweep recorded */
        json_object_set_new(root, "fits_x_note", json_string(a->fits.x_note));
    return PM_OK;
}

const pm_report_section pm_section_fits = {.id = "fits", .toc = "Cost vs IR size", .text = fits_text,
                                           .html = fits_html, .json = fits_json};

/* ---- handoff: how the stage shares move as the compile grows ---- */

static int handoff_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    char *handoff = pm_rt_handoff_text(x->a);
    if (!handoff)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fprintf(f, "\nhandoff: %s\n", handoff);
    free(handoff);
    return PM_OK;
}

static int handoff_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    char *handoff = pm_rt_handoff_text(x->a);
    if (!handoff)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fputs("<h2 id=handoff>Handoff</h2><p>How the stage shares move as the compile grows; the Jensen&ndash;Shannon "
          "distance compares the series' breakdowns at equal size (0 = identical handoff): ", f);
    esc(f, handoff);
    fputs(".</p>\n", f);
    free(handoff);
    return PM_OK;
}

static int handoff_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    const pm_an_handoff *ho = &a->handoff;
    json_t *tr = json_array(), *ser = json_array(), *pts = json_array();
    for (size_t s = 0; ho->trends && s < a->n_stages; s++)
        json_array_append_new(tr, json_pack("{s:s,s:o,s:o,s:i}", "stage", a->stages[s], "slope", num(ho->trends[s].slope),
                                            "intercept", num(ho->trends[s].intercept), "n", ho->trends[s].n));
    for (size_t k = 0; k < ho->n_series; k++)
        json_array_append_new(ser, json_string(ho->series[k]));
    for (size_t p = 0; p < ho->n_points; p++)
        json_array_append_new(pts, json_pack("{s:s,s:s,s:o}", "config", a->configs[ho->points[p].config].key, "series",
                                             ho->series[ho->points[p].series], "x", num(ho->points[p].x)));
    json_object_set_new(root, "handoff",
                        json_pack("{s:o,s:o,s:b,s:b,s:o,s:o,s:o,s:o,s:o,s:i}", "kind", str(ho->kind), "x", str(ho->x),
                                  "x_is_axis", ho->x_param, "log_x", ho->log_x, "series_axes", str(ho->series_axes),
                                  "series", ser, "points", pts, "trends", tr, "series_js_distance",
                                  num(ho->series_jsd), "series_pairs", ho->series_pairs));
    return PM_OK;
}

const pm_report_section pm_section_handoff = {.id = "handoff", .toc = "Handoff", .text = handoff_text,
                                              .html = handoff_html, .json = handoff_json};

/* ---- precision: crossovers between precisions (medians, not tests: the A/B table has the marks) ---- */

static int precision_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    for (size_t i = 0; i < a->precision.n_crossovers; i++)
        fprintf(f, "precision: %s\n", a->precision.crossovers[i]);
    if (a->precision.n_crossovers)   /* a median carries no mark: the tested comparison is the A/B table's */
        fprintf(f, "precision: crossovers are medians of wall ratios over families and windows, not tests; the marks "
                   "per config are in the A/B table (precision=...)\n");
    if (!a->precision.n)
        fprintf(f, "precision: not applicable: no LLM configs over several precisions in this sweep\n");
    return PM_OK;
}

static int precision_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fputs("<h2 id=precision>Precision</h2><ul>", f);
    for (size_t i = 0; i < a->precision.n_crossovers; i++) {
        fputs("<li>", f);
        esc(f, a->precision.crossovers[i]);
        fputs("</li>", f);
    }
    if (!a->precision.n_crossovers)
        fputs("<li>no crossover between precisions in this sweep</li>", f);
    fputs("</ul>\n", f);
    if (a->precision.n_crossovers)   /* a median carries no mark: the tested comparison is the A/B table's */
        fputs("<p class=sub>Crossovers are medians of wall ratios over families and windows, not tests; the marks per "
              "config are in the <a href=\"#ab\">A/B table</a> (precision=&hellip;).</p>\n", f);
    return PM_OK;
}

static json_t *series(const pm_an_series *s, size_t n, const char *yname)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < n; k++) {
        json_t *pts = json_array();
        for (size_t i = 0; i < s[k].n; i++)
            json_array_append_new(pts, json_pack("{s:o,s:o}", "size", str(s[k].xlabel[i]), yname, num(s[k].y[i])));
        json_array_append_new(arr, json_pack("{s:s,s:o}", "precision", s[k].label, "points", pts));
    }
    return arr;
}

static int precision_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *cx = json_array();
    for (size_t i = 0; i < a->precision.n_crossovers; i++)
        json_array_append_new(cx, json_string(a->precision.crossovers[i]));
    json_object_set_new(root, "precision",
                        json_pack("{s:i,s:o,s:o,s:o,s:o}", "window", a->precision.window, "base", str(a->precision.base), "time",
                                  series(a->precision.time, a->precision.n, "wall_s"), "ratio",
                                  series(a->precision.ratio, a->precision.n, "ratio"), "crossovers", cx));
    return PM_OK;
}

const pm_report_section pm_section_precision = {.id = "precision", .toc = "Precision", .text = precision_text,
                                                .html = precision_html, .json = precision_json};
