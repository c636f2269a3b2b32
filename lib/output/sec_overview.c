/* The report's overview sections (report_sections.h has the order): proven fixes, the sweep's summary, the
 * machines, the headline, the in-sweep A/B, the method, and the text report's closing next step. */
#include "compare_out.h"
#include "meter.h"
#include "report.h"
#include "report_tables.h"
#include "fix_report.h"
#include "compare_out.h"
#include "decide.h"
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define esc pm_html_esc

/* ---- incomplete: merge --partial left configs or shards out; said before anything that lacks them ---- */

static int incomplete_applies(const pm_analysis *a)
{
    return a->incomplete != NULL;
}

static int incomplete_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    fprintf(f, "%s%s\n", PM_MD(x, "**warning**: ", "warning: "), x->a->incomplete);
    return PM_OK;
}

static int incomplete_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    fputs("<p class=note id=incomplete>warning: ", f);
    pm_html_esc(f, x->a->incomplete);
    fputs("</p>\n", f);
    return PM_OK;
}

static int incomplete_json(const pm_report_ctx *x, json_t *root)
{
    /* what the study lacks (null: complete) */
    json_object_set_new(root, "incomplete", pm_report_jstr(x->a->incomplete));
    return PM_OK;
}

const pm_report_section pm_section_incomplete = {.id = "incomplete", .applies = incomplete_applies,
                                                 .text = incomplete_text, .html = incomplete_html,
                                                 .json = incomplete_json};

/* ---- proven fixes: passmap fix's ledger, the combination to ship first ---- */

static int proven_applies(const pm_analysis *a) { return a->fixes.proven_json != NULL; }

static int proven_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    return pm_fix_report_text(f, x->a->fixes.proven_json) ? pm_err_set(err, PM_ERR_IO, "writing the proven fixes") : PM_OK;
}

static int proven_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    return pm_fix_report_html(f, x->a->fixes.proven_json) ? pm_err_set(err, PM_ERR_IO, "writing the proven fixes") : PM_OK;
}

static int proven_json(const pm_report_ctx *x, json_t *root)
{
    json_t *fixes = x->a->fixes.proven_json ? json_loads(x->a->fixes.proven_json, 0, NULL) : NULL;
    if (fixes)
        json_object_set_new(root, "proven_fixes", fixes);
    return PM_OK;
}

const pm_report_section pm_section_proven_fixes = {
    .id = "proven-fixes", .applies = proven_applies, .text = proven_text, .html = proven_html, .json = proven_json};

/* ---- summary: what was measured, and what could not be read ---- */

static int summary_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fprintf(f, "sweep %s (%s): %zu configs, %d ok runs, %d failed, %d without a report, up to %d cold repeats\n",
            a->sweep ? a->sweep : "-", a->backend ? a->backend : "-", a->n_configs, a->summary.n_runs_ok,
            a->summary.n_runs_failed, a->summary.n_runs_no_report, a->summary.max_repeats);
    if (a->summary.n_runs_no_report)   /* no report, no conclusion: say why beside the counts */
        fprintf(f, "%s%d configs have no readable timing report (%d runs): %s; %s. They get no stage, regime or fix.\n",
                PM_MD(x, "\n**warning**: ", "warning: "), a->summary.n_configs_no_report, a->summary.n_runs_no_report,
                a->summary.no_report_note ? a->summary.no_report_note : "the report could not be read", PM_AN_NO_REPORT_HINT);
    if (a->summary.n_trace_runs)
        fprintf(f, "%s%d runs read from Chrome traces: %s.\n", PM_MD(x, "\n**granularity**: ", "granularity: "),
                a->summary.n_trace_runs, PM_AN_TRACE_GRANULARITY);
    return PM_OK;
}

static int summary_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_object_set_new(root, "repeats", json_integer(a->summary.max_repeats));
    json_object_set_new(root, "runs_ok", json_integer(a->summary.n_runs_ok));
    json_object_set_new(root, "runs_failed", json_integer(a->summary.n_runs_failed));
    if (a->summary.n_trace_runs)
        json_object_set_new(root, "trace_granularity",
                            json_pack("{s:i, s:s}", "runs", a->summary.n_trace_runs, "note", PM_AN_TRACE_GRANULARITY));
    /* runs that exited 0 without a readable timing report (not in runs_failed): no stage, regime or fix */
    json_object_set_new(root, "no_report",
                        json_pack("{s:i, s:i, s:s?, s:s}", "runs", a->summary.n_runs_no_report, "configs",
                                  a->summary.n_configs_no_report, "reason", a->summary.no_report_note, "hint", PM_AN_NO_REPORT_HINT));
    json_t *stages = json_array();
    for (size_t s = 0; s < a->n_stages; s++)
        json_array_append_new(stages, json_string(a->stages[s]));
    json_object_set_new(root, "stages", stages);
    return PM_OK;
}

/* HTML: the page's title line says the counts (html.c); the text report's two lines beside them are here: no
 * report, no conclusion; what a trace's granularity drops. */
static int summary_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    if (a->summary.n_runs_no_report) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%d configs have no readable timing report (%d runs): %s; %s. They get no stage, "
                 "regime or fix.", a->summary.n_configs_no_report, a->summary.n_runs_no_report,
                 a->summary.no_report_note ? a->summary.no_report_note : "the report could not be read", PM_AN_NO_REPORT_HINT);
        fputs("<p class=warn id=no-report><b>warning</b>: ", f);
        pm_html_esc(f, buf);
        fputs("</p>\n", f);
    }
    if (a->summary.n_trace_runs) {
        fprintf(f, "<p class=sub id=granularity><b>granularity</b>: %d runs read from Chrome traces: ", a->summary.n_trace_runs);
        pm_html_esc(f, PM_AN_TRACE_GRANULARITY);
        fputs(".</p>\n", f);
    }
    return PM_OK;
}

const pm_report_section pm_section_summary = {.id = "summary", .text = summary_text, .html = summary_html,
                                              .json = summary_json};

/* ---- machines: a study measured on several machines, one row per machine (the stratification) ---- */

static int machines_applies(const pm_analysis *a) { return a->machines.n > 1 || a->machines.n_warnings; }

static int machines_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fprintf(f, "machines (%zu, %d kind%s)\n  %-20s %-16s %7s %6s %10s  %s\n", a->machines.n, a->machines.n_kinds,
            a->machines.n_kinds == 1 ? "" : "s", "host", "fingerprint", "configs", "runs", "geomean", "machine");
    for (size_t i = 0; i < a->machines.n; i++) {
        const pm_an_host *h = &a->machines.rows[i];
        char gm[32] = "-";
        if (!isnan(h->wall_geomean))
            snprintf(gm, sizeof gm, "%.4fs", h->wall_geomean);
        fprintf(f, "  %-20s %-16s %7d %6d %10s  %s, %d cores, kernel %s, %s\n", h->name, h->fingerprint, h->n_configs,
                h->n_runs, gm, h->cpu_model, h->cores, h->kernel, h->compiler);
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].host >= 0 && a->machines.n > 1)
            fprintf(f, "  %-44s on %s\n", a->configs[i].key, a->machines.rows[a->configs[i].host].name);
    for (size_t i = 0; i < a->machines.n_warnings; i++)
        fprintf(f, "warning: %s\n", a->machines.warnings[i]);
    fputc('\n', f);
    return PM_OK;
}

static void td_s(FILE *f, const char *s)
{
    fputs("<td>", f);
    esc(f, s ? s : "-");
    fputs("</td>", f);
}

static void td_n(FILE *f, int prec, double v)
{
    fputs("<td class=n>", f);
    if (isnan(v))
        fputs("&ndash;", f);
    else
        fprintf(f, "%.*f", prec, v);
    fputs("</td>", f);
}

static int machines_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fputs("<h2 id=machines>Machines</h2>\n<div class=tw><table><tr><th>host</th><th>fingerprint</th><th>configs</th>"
          "<th>cold runs</th><th>geomean wall (s)</th><th>CPU</th><th>cores</th><th>kernel</th><th>compiler</th>"
          "</tr>", f);
    for (size_t i = 0; i < a->machines.n; i++) {
        const pm_an_host *hs = &a->machines.rows[i];
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
    for (size_t i = 0; i < a->machines.n_warnings; i++) {
        fputs("<p class=note>warning: ", f);
        esc(f, a->machines.warnings[i]);
        fputs("</p>\n", f);
    }
    return PM_OK;
}

/* machines: one entry per host that measured cold runs; configs name theirs ("several": mixed) */
static int machines_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *hosts = json_array(), *hw = json_array(), *by_cfg = json_object();
    for (size_t i = 0; i < a->machines.n; i++) {
        const pm_an_host *h = &a->machines.rows[i];
        json_array_append_new(hosts, json_pack("{s:s,s:s,s:s,s:i,s:s,s:s,s:i,s:i,s:o}", "name", h->name, "fingerprint",
                                               h->fingerprint, "cpu_model", h->cpu_model, "cores", h->cores, "kernel",
                                               h->kernel, "compiler", h->compiler, "configs", h->n_configs, "runs",
                                               h->n_runs, "wall_geomean_s", pm_report_jnum(h->wall_geomean)));
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].host != -1)
            json_object_set_new(by_cfg, a->configs[i].key,
                                json_string(a->configs[i].host >= 0 ? a->machines.rows[a->configs[i].host].name : "several"));
    for (size_t i = 0; i < a->machines.n_warnings; i++)
        json_array_append_new(hw, json_string(a->machines.warnings[i]));
    json_object_set_new(root, "hosts", json_pack("{s:o,s:i,s:o,s:o}", "machines", hosts, "kinds", a->machines.n_kinds,
                                                 "config_host", by_cfg, "warnings", hw));
    return PM_OK;
}

const pm_report_section pm_section_machines = {.id = "machines", .applies = machines_applies, .text = machines_text,
                                               .html = machines_html, .json = machines_json};

/* ---- headline: the answer first, one line per answer (pm_rt_headline_lines) ---- */

/* The headline's lines, allocated (*out); PM_OK or PM_ERR_NOMEM. */
static int headline_lines(const pm_analysis *a, pm_rt_headline *h, pm_rt_hl_line **out, int *n, pm_err *err)
{
    *out = NULL;
    if (pm_rt_headline_build(a, h))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    *n = pm_rt_headline_lines(h, NULL, 0);
    if (!(*out = calloc((size_t)*n + 1, sizeof **out)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_rt_headline_lines(h, *out, (size_t)*n);
    return PM_OK;
}

/* The text headline's longest line (issue 37: an answer readable at 80 columns in at most two rows). */
#define HEADLINE_COLS 120

static int headline_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    pm_rt_headline h;
    pm_rt_hl_line *l;
    int n = 0, rc = headline_lines(x->a, &h, &l, &n, err);
    if (!rc) {
        fputs(x->markdown ? "\n## Headline\n\n" : "\nheadline\n", f);
        for (int i = 0; i < n; i++) {   /* the A/B lines are their own answer: no label before "fp16 vs int8:" */
            char head[96];
            snprintf(head, sizeof head, "%s%s%s", l[i].sub ? PM_MD(x, "  - ", "    ") : PM_MD(x, "- ", "  "),
                     l[i].bare ? "" : l[i].label, l[i].bare ? "" : ": ");
            fputs(head, f);
            if (x->markdown || l[i].bare) {   /* an A/B summary: compare's first line, word for word */
                fprintf(f, "%s\n", l[i].text);
                continue;
            }
            /* at most HEADLINE_COLS columns a line in text: a longer answer (a fix's why from the catalogue)
             * goes on below its label, indented */
            int cols = 0;
            for (const char *p = head; *p; p++)
                cols += ((unsigned char)*p & 0xC0) != 0x80;
            int text_cols = 0;
            for (const char *p = l[i].text; *p; p++)
                text_cols += ((unsigned char)*p & 0xC0) != 0x80;
            const char *cmd = strstr(l[i].text, ": passmap ");
            if (cmd && cols + text_cols > HEADLINE_COLS) {   /* a command to copy goes whole on its own line */
                char *before = strndup(l[i].text, (size_t)(cmd - l[i].text) + 1);
                if (!before) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    break;
                }
                pm_fmt_wrapped(f, before, cols, l[i].sub ? 6 : 4, HEADLINE_COLS);
                fprintf(f, "%*s%s\n", l[i].sub ? 6 : 4, "", cmd + 2);
                free(before);
                continue;
            }
            pm_fmt_wrapped(f, l[i].text, cols, l[i].sub ? 6 : 4, HEADLINE_COLS);
        }
    }
    free(l);
    pm_rt_headline_free(&h);
    return rc;
}

static int headline_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    pm_rt_headline h;
    pm_rt_hl_line *l;
    int n = 0, rc = headline_lines(x->a, &h, &l, &n, err);
    if (!rc) {
        fputs("<section class=headline id=headline><h2 style=\"border:0;margin-top:0\">Headline</h2><ul>", f);
        for (int i = 0; i < n; i++) {
            fputs(l[i].sub ? "<li class=why><b>" : "<li><b>", f);
            esc(f, l[i].label);
            fputs("</b> \u2014 ", f);
            esc(f, l[i].text);
            fputs("</li>", f);
        }
        fputs("</ul></section>\n", f);
    }
    free(l);
    pm_rt_headline_free(&h);
    return rc;
}

/* the headline as its lines, and the top fix with its why (pm_analysis_fix_words) */
static int headline_json(const pm_report_ctx *x, json_t *root)
{
    pm_rt_headline h;
    pm_rt_hl_line *l;
    pm_err err = {0};
    int n = 0;
    json_t *lines = json_array();
    if (!headline_lines(x->a, &h, &l, &n, &err))
        for (int i = 0; lines && i < n; i++)
            json_array_append_new(lines, json_pack("{s:s,s:s}", "label", l[i].label, "text", l[i].text));
    free(l);
    pm_rt_headline_free(&h);
    json_object_set_new(root, "headline", lines ? lines : json_array());
    json_object_set_new(root, "top_fix", pm_report_jstr(x->a->fixes.headline));
    json_object_set_new(root, "top_fix_why", pm_report_jstr(x->a->fixes.top_why));
    return PM_OK;
}

const pm_report_section pm_section_headline = {.id = "headline", .toc = "<b>Headline</b>", .text = headline_text,
                                               .html = headline_html, .json = headline_json};

/* ---- A/B in this sweep: each variant against the reference, by passmap compare ---- */

static int ab_applies(const pm_analysis *a)
{
    size_t rows = 0;
    for (size_t i = 0; i < a->ab.n; i++)
        rows += a->ab.rows[i].cmp.n_configs;
    return rows > 0;
}

/* one table per pair, its caption naming the pair and the metric that decided */
static int ab_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int rc = PM_OK;
    for (size_t i = 0; !rc && i < x->a->ab.n; i++)
        if (!x->a->ab.rows[i].error && x->a->ab.rows[i].cmp.n_configs)
            rc = pm_report_text_table(x, f, pm_rt_ab(x->a, i), i ? "" : "A/B in this sweep", err);
    return rc;
}

static int ab_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=ab>A/B in this sweep</h2><p class=sub>Each variant against the reference variant on the same "
          "configs, computed by <code>passmap compare</code>; B/A is the ratio of geometric means, of the metric "
          "each table's caption names; the rule behind every mark is in the Method.</p>\n", f);
    int rc = PM_OK;
    for (size_t i = 0; !rc && i < x->a->ab.n; i++)
        if (!x->a->ab.rows[i].error && x->a->ab.rows[i].cmp.n_configs)
            rc = pm_report_html_table(f, pm_rt_ab(x->a, i), 0, err);
    return rc;
}

/* The in-sweep A/B: compare's own JSON (pm_compare_to_json), its summary and per-config wall stats, so the
 * fields and marks mean what they mean in `passmap compare --json`. */
static int ab_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    char legend[2048];
    pm_rt_sig_legend(legend, sizeof legend, a);
    json_t *list = json_array();
    for (size_t i = 0; list && i < a->ab.n; i++) {
        const pm_an_ab *ab = &a->ab.rows[i];
        json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "variant", ab->variant, "against", ab->against, "axis",
                              pm_report_jstr(ab->axis), "error", pm_report_jstr(ab->error));
        json_t *cj = ab->error ? NULL : pm_compare_to_json(&ab->cmp);
        json_t *cfgs = json_array();
        size_t k;
        json_t *c;
        json_array_foreach(cj ? json_object_get(cj, "configs") : NULL, k, c)
            /* the mark's statistics under "decided": the metric's own (compare's "metric") when another than
             * wall decided, else the wall's; its name beside them */
            json_array_append_new(cfgs, json_pack("{s:O,s:O,s:O,s:O,s:s,s:O}", "key", json_object_get(c, "key"), "key_a",
                                                  json_object_get(c, "key_a"), "key_b", json_object_get(c, "key_b"),
                                                  "wall", json_object_get(c, "wall"), "decided_on",
                                                  pm_decide_name((pm_decide_metric)ab->cmp.decided_on), "decided",
                                                  json_object_get(c, "metric") ? json_object_get(c, "metric")
                                                                               : json_object_get(c, "wall")));
        json_t *sum = cj ? json_incref(json_object_get(cj, "summary")) : json_null();
        json_object_set_new(o, "summary", sum ? sum : json_null());
        char *line = ab->error ? NULL : pm_compare_oneline(&ab->cmp);
        if (line)   /* the headline's line, as compare opens with it */
            json_object_set_new(o, "line", json_string(line));
        free(line);
        json_object_set_new(o, "configs", cfgs);
        json_decref(cj);
        json_array_append_new(list, o);
    }
    json_object_set_new(root, "ab", json_pack("{s:s,s:o}", "rule", legend, "comparisons", list ? list : json_array()));
    return PM_OK;
}

const pm_report_section pm_section_ab = {.id = "ab", .toc = "A/B in this sweep", .applies = ab_applies,
                                         .text = ab_text, .html = ab_html, .json = ab_json};

/* ---- method: how to read the tables, and the compiler identity ("the same compiler" in this study) ---- */

/* The meter the sweep recorded (meter.h) in one sentence, with the slowdown measured at its start; "" when the
 * store says none (measured natively). */
static void meter_sentence(const pm_analysis *a, char *buf, size_t n)
{
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    const pm_meter *m = pm_meter_find(json_string_value(json_object_get(meta, "meter")));
    buf[0] = '\0';
    if (m) {
        size_t w = (size_t)snprintf(buf, n, "meter: %s (%s)%s", m->name, m->about,
                                    m->counts ? "; A/B verdicts decide on its instruction counts" : "");
        json_t *slow = json_object_get(meta, "meter_slowdown");
        const char *tool;
        json_t *v;
        int first = 1;
        json_object_foreach(slow, tool, v) {
            if (w < n)
                w += (size_t)snprintf(buf + w, n - w, "%s%s %.0fx", first ? "; slowdown against a native run, "
                                      "measured at the sweep's start: " : ", ", tool, json_number_value(v));
            first = 0;
        }
        if (m->slows && w < n)
            snprintf(buf + w, n - w, "; its walls are the instrumented runs', not compile times");
    }
    json_decref(meta);
}

static int method_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    if (a->ab.n || a->fixes.proven_json) {   /* every mark in the report (A/B, proven fixes) follows this one rule */
        char legend[2048];
        pm_rt_sig_legend(legend, sizeof legend, a);
        fprintf(f, "\n%s%s\n", PM_MD(x, "- ", ""), legend);
    }
    char meter[1024];
    meter_sentence(a, meter, sizeof meter);
    if (meter[0])
        fprintf(f, "\n%s%s\n", PM_MD(x, "- ", ""), meter);
    if (!a->method.n_tools) {
        fprintf(f, "\n%stools: no identity recorded (a store written before passmap recorded each tool's path, "
                   "--version and hash)\n", PM_MD(x, "- ", ""));
        return PM_OK;
    }
    fprintf(f, "\ntools (resolved path, --version, XXH3-128 of the binary)%s:\n",
            a->method.mixed_builds ? ", more than one build of a tool" : ", one build each");
    for (size_t i = 0; i < a->method.n_tools; i++) {
        char v[200];
        const pm_tool_ident *t = &a->method.tools[i];
        fprintf(f, "%s%-12s %s  %s  %s%s%s\n", PM_MD(x, "- ", "  "), t->name, t->path,
                pm_version_line(t->version_text, v, sizeof v), t->hash[0] ? t->hash : "(binary unreadable)",
                t->host ? "  on " : "", t->host ? t->host : "");
    }
    return PM_OK;
}

static void method_html_builds(const pm_analysis *a, FILE *f)
{
    if (!a->method.n_tools) {
        fputs("<li><b>tools</b>: no identity recorded (a store written before passmap recorded each tool's path, "
              "--version and hash)</li>", f);
        return;
    }
    fputs(a->method.mixed_builds ? "<li><b>tools</b> (more than one build of a tool ran: see the warnings)<ul>"
                          : "<li><b>tools</b> (one build each; resolved path, <code>--version</code>, XXH3-128 of "
                            "the binary)<ul>", f);
    for (size_t i = 0; i < a->method.n_tools; i++) {
        char v[200];
        fputs("<li><code>", f);
        esc(f, a->method.tools[i].name);
        fputs("</code> ", f);
        esc(f, a->method.tools[i].path);
        fputs(": ", f);
        esc(f, pm_version_line(a->method.tools[i].version_text, v, sizeof v));
        fputs(", <code>", f);
        esc(f, a->method.tools[i].hash[0] ? a->method.tools[i].hash : "binary unreadable");
        fputs("</code></li>", f);
    }
    fputs("</ul></li>", f);
}

static void method_html_meta(const pm_analysis *a, FILE *f)
{
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
}

static int method_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    const pm_analysis *a = x->a;
    fputs("<h2 id=method>Method</h2><ul>", f);
    char keys[768];
    pm_rt_key_legend(a, 1, keys, sizeof keys);
    if (keys[0]) {   /* the kind table's legends; the configs table repeats those of the sweep's kinds */
        fputs("<li><b>config keys</b>: ", f);
        esc(f, keys);
        fputs(".</li>", f);
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
    char meter[1024];
    meter_sentence(a, meter, sizeof meter);
    if (meter[0]) {
        fputs("<li>", f);
        esc(f, meter);
        fputs("</li>", f);
    }
    method_html_builds(a, f);
    fputs("</ul>\n", f);
    if (a->ab.n || a->fixes.proven_json) {   /* every mark in the report (A/B, proven fixes) follows this one rule */
        char legend[2048];
        pm_rt_sig_legend(legend, sizeof legend, a);
        fputs("<details id=marks><summary>The rule behind every mark (faster, slower, same, undecided)</summary>"
              "<p class=sub>", f);
        esc(f, legend);
        fputs("</p></details>\n", f);
    }
    method_html_meta(a, f);
    return PM_OK;
}

/* the compiler identity: each tool build the runs used */
static int method_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *builds = json_array();
    for (size_t i = 0; i < a->method.n_tools; i++)
        json_array_append_new(builds, json_pack("{s:s,s:o,s:s,s:s,s:s,s:o}", "name", a->method.tools[i].name,
                                                "invoked", pm_report_jstr(a->method.tools[i].invoked), "path",
                                                a->method.tools[i].path, "version_text", a->method.tools[i].version_text, "hash",
                                                a->method.tools[i].hash, "hosts", pm_report_jstr(a->method.tools[i].host)));
    json_object_set_new(root, "tools", builds);
    json_object_set_new(root, "mixed_builds", json_boolean(a->method.mixed_builds));
    return PM_OK;
}

const pm_report_section pm_section_method = {.id = "method", .toc = "Method", .text = method_text,
                                             .html = method_html, .json = method_json};

/* ---- next step (text): the proven ledger again beside the evidence, or the one command that measures it ---- */

static int next_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    if (x->a->fixes.proven_json) {
        fputc('\n', f);
        if (pm_fix_report_text(f, x->a->fixes.proven_json))
            return pm_err_set(err, PM_ERR_IO, "writing the proven fixes");
    } else {
        fprintf(f, "\n%sproven fixes: none measured yet. One command measures the predicted fixes (A/B against stock, "
                   "output check, the compiled program's run time and size): passmap fix %s --budget 10m\n",
                PM_MD(x, "- ", ""), x->db_label ? x->db_label : "DB");
    }
    return PM_OK;
}

const pm_report_section pm_section_next_step = {.id = "next-step", .text = next_text};
