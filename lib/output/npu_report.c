/* See npu_report.h. */
#include "npu_report.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static const char *mode_of(const pm_an_npu_config *n)
{
    return n->instrumented ? (n->offline ? "instrumented, offline" : "instrumented")
                           : (n->offline ? "stock, offline" : "stock");
}

static void text_num(FILE *f, double v, double scale, int prec)
{
    if (isnan(v))
        fprintf(f, " %11s", "-");
    else
        fprintf(f, " %11.*f", prec, v * scale);
}

/* The sentences both formats print: what the reader must know before comparing numbers. */
static void notes(const pm_analysis *a, char lines[6][512], int *n)
{
    *n = 0;
    int stock = (int)a->n_npu - a->n_npu_instrumented;
    snprintf(lines[(*n)++], 512,
             "%d stock and %d instrumented config(s). Instrumented runs (schedule trace, strategy JSON, task "
             "statistics) compile with extra compilation-mode switches: their times are not stock times. They are "
             "listed per config and left out of the fix table and handoff when stock configs exist (passmap "
             "compare --a-variant stock --b-variant instrumented measures the difference).",
             stock, a->n_npu_instrumented);
    if (a->n_npu_instrumented && stock)
        snprintf(lines[(*n)++], 512,
                 "Cost fits against npu.tasks / npu.tiles use instrumented configs only: only they record the "
                 "schedule trace and strategy file.");
    /* Where the numbers come from: the run metadata holds the compiler used (pinned) and the platform. */
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    const char *ct = json_string_value(json_object_get(meta, "ov.compiler_type"));
    const char *plat = json_string_value(json_object_get(meta, "ov.platform"));
    if (a->n_npu_offline)
        snprintf(lines[(*n)++], 512,
                 "Numbers from offline compiles (%d config(s); NPU_PLATFORM %s, no device): the plugin's compiler "
                 "with its fixed tile table and none of NPUW's device defaults -- not the compile an NPU runs, never "
                 "pooled with on-device runs; no blob import, so no warm runs.",
                 a->n_npu_offline, plat && *plat ? plat : "?");
    if ((int)a->n_npu > a->n_npu_offline)
        snprintf(lines[(*n)++], 512, "Numbers from on-device compiles, compiler %s (NPU_COMPILER_TYPE).",
                 ct && *ct ? ct : "unknown");
    json_decref(meta);
    snprintf(lines[(*n)++], 512,
             "Submodel times are the timing-report Totals of the blocks the log attributed to NPUW's prefill, "
             "generate and LM-head models (unattributed: no log line named the submodel). ELF export = Compile "
             "net time minus the report Totals (the report is printed before the export).");
}

void pm_npu_report_text(const pm_analysis *a, FILE *f)
{
    if (!a->n_npu)
        return;
    char lines[6][512];
    int n;
    notes(a, lines, &n);
    fprintf(f, "\nNPU (OpenVINO) runs\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "  %s\n", lines[i]);
    fprintf(f, "  %-44s %-22s %11s %11s %11s %11s %11s %11s %11s %11s\n", "config", "runs", "prefill s", "generate s",
            "LM head s", "unattrib s", "net s", "ELF exp s", "blob MB", "no-wt MB");
    for (size_t i = 0; i < a->n_npu; i++) {
        const pm_an_npu_config *c = &a->npu[i];
        fprintf(f, "  %-44s %-22s", a->configs[c->config].key, mode_of(c));
        text_num(f, c->prefill_s, 1, 4);
        text_num(f, c->generate_s, 1, 4);
        text_num(f, c->lm_head_s, 1, 4);
        text_num(f, c->unattributed_s, 1, 4);
        text_num(f, c->compile_net_ms, 1e-3, 4);
        text_num(f, c->elf_export_ms, 1e-3, 4);
        text_num(f, c->blob_bytes, 1e-6, 3);
        text_num(f, c->blob_weightless_bytes, 1e-6, 3);
        fputc('\n', f);
    }
}

static void html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

static void html_num(FILE *f, double v, double scale, int prec)
{
    fputs("<td>", f);
    if (isnan(v))
        fputs("&ndash;", f);
    else
        fprintf(f, "%.*f", prec, v * scale);
    fputs("</td>", f);
}

void pm_npu_report_html(const pm_analysis *a, FILE *f)
{
    if (!a->n_npu)
        return;
    char lines[6][512];
    int n;
    notes(a, lines, &n);
    fputs("<h2 id=npu>NPU (OpenVINO) runs</h2>\n<ul>", f);
    for (int i = 0; i < n; i++) {
        fputs("<li>", f);
        html_esc(f, lines[i]);
        fputs("</li>", f);
    }
    fputs("</ul>\n<table><tr><th>config</th><th>runs</th><th>prefill (s)</th><th>generate (s)</th><th>LM head (s)"
          "</th><th>unattributed (s)</th><th>Compile net time (s)</th><th>ELF export (s)</th><th>blob with weights "
          "(MB)</th><th>blob without weights (MB)</th><th>blob import (s)</th></tr>\n",
          f);
    for (size_t i = 0; i < a->n_npu; i++) {
        const pm_an_npu_config *c = &a->npu[i];
        fprintf(f, "<tr%s><td>", c->instrumented ? " class=instrumented" : "");
        html_esc(f, a->configs[c->config].key);
        fputs("</td><td>", f);
        html_esc(f, mode_of(c));
        fputs("</td>", f);
        html_num(f, c->prefill_s, 1, 4);
        html_num(f, c->generate_s, 1, 4);
        html_num(f, c->lm_head_s, 1, 4);
        html_num(f, c->unattributed_s, 1, 4);
        html_num(f, c->compile_net_ms, 1e-3, 4);
        html_num(f, c->elf_export_ms, 1e-3, 4);
        html_num(f, c->blob_bytes, 1e-6, 3);
        html_num(f, c->blob_weightless_bytes, 1e-6, 3);
        html_num(f, c->import_s, 1, 4);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static json_t *jnum(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

json_t *pm_npu_report_json(const pm_analysis *a)
{
    if (!a->n_npu)
        return NULL;
    json_t *arr = json_array();
    for (size_t i = 0; i < a->n_npu; i++) {
        const pm_an_npu_config *c = &a->npu[i];
        json_t *o = json_object();
        json_object_set_new(o, "config", json_string(a->configs[c->config].key));
        json_object_set_new(o, "instrumented", json_boolean(c->instrumented));
        json_object_set_new(o, "offline", json_boolean(c->offline));
        json_object_set_new(o, "prefill_s", jnum(c->prefill_s));
        json_object_set_new(o, "generate_s", jnum(c->generate_s));
        json_object_set_new(o, "lm_head_s", jnum(c->lm_head_s));
        json_object_set_new(o, "unattributed_s", jnum(c->unattributed_s));
        json_object_set_new(o, "compile_net_ms", jnum(c->compile_net_ms));
        json_object_set_new(o, "elf_export_ms", jnum(c->elf_export_ms));
        json_object_set_new(o, "blob_bytes", jnum(c->blob_bytes));
        json_object_set_new(o, "blob_weightless_bytes", jnum(c->blob_weightless_bytes));
        json_object_set_new(o, "import_s", jnum(c->import_s));
        json_array_append_new(arr, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "instrumented_configs", json_integer(a->n_npu_instrumented));
    json_object_set_new(root, "stock_configs", json_integer((json_int_t)a->n_npu - a->n_npu_instrumented));
    json_object_set_new(root, "offline_configs", json_integer(a->n_npu_offline));
    json_object_set_new(root, "configs", arr);
    return root;
}
