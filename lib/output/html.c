#include "html.h"
#include "npu_report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static void num(FILE *f, const char *fmt, double v)
{
    if (isnan(v))
        fputs("&ndash;", f);
    else
        fprintf(f, fmt, v);
}

static void td_s(FILE *f, const char *s)
{
    fputs("<td>", f);
    esc(f, s ? s : "-");
    fputs("</td>", f);
}

static void td_n(FILE *f, const char *fmt, double v)
{
    fputs("<td class=n>", f);
    num(f, fmt, v);
    fputs("</td>", f);
}

/* The SVG as gnuplot wrote it, minus the XML prolog and DOCTYPE that are invalid inside HTML. */
static void inline_svg(FILE *f, const char *svg)
{
    const char *p = strstr(svg, "<svg");
    fputs(p ? p : svg, f);
}

int pm_html_write(const pm_analysis *a, const pm_figures *figs, FILE *f, pm_err *err)
{
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>passmap report: ", f);
    esc(f, a->sweep);
    fputs("</title>\n<style>body{font-family:sans-serif;max-width:1150px;margin:1em auto;color:#222}"
          "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
          "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}"
          "figure svg{max-width:100%;height:auto}.note{color:#a33;font-style:italic}</style></head><body>\n", f);
    fputs("<h1>What dominates the compile: ", f);
    esc(f, a->sweep);
    fputs("</h1>\n", f);

    fputs("<h2 id=method>Method</h2><ul>", f);
    fprintf(f, "<li>back end: ");
    esc(f, a->backend ? a->backend : "-");
    fprintf(f, "</li><li>configs: %zu; up to %d cold repeats each; %d successful runs, %d failed</li>", a->n_configs,
            a->max_repeats, a->n_runs_ok, a->n_runs_failed);
    fputs("<li>cold = a fresh compiler process per run with no compile cache (warm runs, when present, recompile "
          "with the cache and give the cache-hit ratio); shares are of the whole process wall, time outside every "
          "pass counted as <i>process-overhead</i>; 95% confidence intervals are Student-t across repeats.</li>", f);
    fputs("</ul>\n", f);
    /* The sweep's metadata (compiler, versions, machine, pipeline), one row per key. */
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    if (json_is_object(meta)) {
        fputs("<table class=meta><tr><th>recorded</th><th>value</th></tr>", f);
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
        fputs("</table>\n", f);
    } else {
        fputs("<p>sweep metadata: none recorded</p>\n", f);
    }
    json_decref(meta);

    if (a->n_hosts > 1 || a->n_host_warnings) {
        /* The study was measured on several machines: one row per machine, then what crosses them. */
        fputs("<h2 id=machines>Machines</h2>\n<table><tr><th>host</th><th>fingerprint</th><th>configs</th>"
              "<th>cold runs</th><th>geomean wall (s)</th><th>CPU</th><th>cores</th><th>kernel</th><th>compiler</th>"
              "</tr>", f);
        for (size_t i = 0; i < a->n_hosts; i++) {
            const pm_an_host *h = &a->hosts[i];
            fputs("<tr>", f);
            td_s(f, h->name);
            td_s(f, h->fingerprint);
            td_n(f, "%.0f", h->n_configs);
            td_n(f, "%.0f", h->n_runs);
            td_n(f, "%.4f", h->wall_geomean);
            td_s(f, h->cpu_model);
            td_n(f, "%.0f", h->cores);
            td_s(f, h->kernel);
            td_s(f, h->compiler);
            fputs("</tr>", f);
        }
        fputs("</table>\n", f);
        for (size_t i = 0; i < a->n_host_warnings; i++) {
            fputs("<p class=note>warning: ", f);
            esc(f, a->host_warnings[i]);
            fputs("</p>\n", f);
        }
    }

    fputs("<h2 id=figures>Figures</h2>\n", f);
    for (size_t i = 0; figs && i < figs->n; i++) {
        const pm_figure *g = &figs->fig[i];
        fprintf(f, "<figure id=\"fig-%s\" data-figure=\"%s\"><figcaption><b>", g->name, g->name);
        esc(f, g->title);
        fputs("</b></figcaption>", f);
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
    const pm_an_regime *rs[3] = {&a->regime_llm, &a->regime_cnn, &a->regime_cmd};
    for (int r = 0; r < 3; r++)
        for (size_t i = 0; i < rs[r]->n_boundaries; i++) {
            fputs("<li>", f);
            esc(f, rs[r]->kind);
            fputs(": ", f);
            esc(f, rs[r]->boundaries[i]);
            fputs("</li>", f);
        }
    fputs("</ul>\n", f);

    fputs("<h2 id=fixes>Fix table</h2>\n<table><tr><th>regime (dominant stage)</th><th>configs</th><th>dominant pass"
          "</th><th>share</th><th>exponent</th><th>exp. lower 95%</th><th>user/wall</th><th>cold/warm</th><th>fix</th></tr>\n", f);
    for (size_t i = 0; i < a->n_fixes; i++) {
        const pm_an_fix *x = &a->fixes[i];
        fputs("<tr>", f);
        td_s(f, a->stages[x->stage]);
        fprintf(f, "<td class=n>%d</td>", x->n_configs);
        td_s(f, x->pass ? x->pass : "(outside passes)");
        td_n(f, "%.1f%%", x->share * 100);
        td_n(f, "%.2f", x->exponent);
        td_n(f, "%.2f", x->exponent_lo);
        td_n(f, "%.2f", x->user_wall);
        td_n(f, "%.1f", x->cache_ratio);
        td_s(f, x->fix ? x->fix : "no rule matched");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);

    fputs("<h2 id=fits>Cost = f(IR size)</h2>\n<table><tr><th>pass</th><th>tool</th><th>stage</th><th>x</th><th>n</th>"
          "<th>exponent</th><th>95% CI</th><th>R&sup2;</th><th>max share</th><th>user/wall</th><th>superlinear</th></tr>\n", f);
    for (size_t i = 0; i < a->n_fits; i++) {
        const pm_an_fit *x = &a->fits[i];
        fputs("<tr>", f);
        td_s(f, x->name);
        td_s(f, x->tool);
        td_s(f, a->stages[x->stage]);
        td_s(f, x->x_metric);
        fprintf(f, "<td class=n>%d</td>", x->n);
        td_n(f, "%.3f", x->exponent);
        fputs("<td class=n>", f);
        num(f, "%.3f", x->lo);
        fputs(" &ndash; ", f);
        num(f, "%.3f", x->hi);
        fputs("</td>", f);
        td_n(f, "%.3f", x->r2);
        td_n(f, "%.1f%%", x->max_share * 100);
        td_n(f, "%.2f", x->user_wall);
        td_s(f, x->superlinear ? "yes" : "no");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);

    fputs("<h2 id=handoff>Handoff</h2><p>Mean Jensen&ndash;Shannon distance between families' stage breakdowns at "
          "equal cold compile time (0 = identical handoff): ", f);
    num(f, "%.3f", a->family_jsd);
    fprintf(f, " over %d family pairs.</p>\n", a->family_jsd_pairs);

    fputs("<h2 id=precision>Precision</h2><ul>", f);
    for (size_t i = 0; i < a->n_crossovers; i++) {
        fputs("<li>", f);
        esc(f, a->crossovers[i]);
        fputs("</li>", f);
    }
    if (!a->n_crossovers)
        fputs("<li>no crossover between precisions in this sweep</li>", f);
    fputs("</ul>\n", f);

    fputs("<h2 id=parallelism>Parallelism (user/wall; serial &asymp; 1.0)</h2>\n<table><tr><th>process</th><th>user/wall</th></tr>", f);
    for (size_t i = 0; i < a->n_tools; i++) {
        fputs("<tr>", f);
        td_s(f, a->tools[i]);
        td_n(f, "%.2f", a->tool_user_wall[i]);
        fputs("</tr>", f);
    }
    fputs("</table><table><tr><th>stage</th><th>user/wall (passes with user time)</th></tr>", f);
    for (size_t s = 0; s < a->n_stages; s++)
        if (!isnan(a->stage_user_wall[s])) {
            fputs("<tr>", f);
            td_s(f, a->stages[s]);
            td_n(f, "%.2f", a->stage_user_wall[s]);
            fputs("</tr>", f);
        }
    fputs("</table>\n", f);

    fputs("<h2 id=configs>Stage breakdown per config</h2>\n<table><tr><th>config</th><th>cold wall (s, geometric mean)</th><th>95% CI (log-t)"
          "</th><th>dominant stage</th><th>share</th><th>dominant pass</th><th>cold/warm</th>", f);
    for (size_t s = 0; s < a->n_stages; s++) {
        fputs("<th>", f);
        esc(f, a->stages[s]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        fputs("<tr>", f);
        td_s(f, c->key);
        td_n(f, "%.4f", c->wall.mean);
        fputs("<td class=n>", f);
        if (isnan(c->wall.lo) && c->wall.n > 0) {   /* n < 3: no interval, no claim */
            fprintf(f, "n=%d, no interval", c->wall.n);
        } else {
            num(f, "%.4f", c->wall.lo);
            fputs(" &ndash; ", f);
            num(f, "%.4f", c->wall.hi);
        }
        fputs("</td>", f);
        td_s(f, c->dominant_stage >= 0 ? a->stages[c->dominant_stage] : "-");
        td_n(f, "%.1f%%", c->dominant_stage >= 0 ? c->share[c->dominant_stage].mean * 100 : NAN);
        td_s(f, c->n_passes ? c->passes[0].name : "-");
        td_n(f, "%.1f", c->cache_ratio);
        for (size_t s = 0; s < a->n_stages; s++)
            td_n(f, "%.1f%%", c->n_cold ? c->share[s].mean * 100 : NAN);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    pm_npu_report_html(a, f); /* NPU back end only: see npu_report.h */
    fputs("</body></html>\n", f);
    if (ferror(f))
        return pm_err_errno(err, PM_ERR_IO, "writing HTML");
    return PM_OK;
}
