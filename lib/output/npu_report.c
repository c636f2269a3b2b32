/* The NPU back end's report section (text, Markdown, HTML, JSON): which configs ran instrumented or offline
 * (never compared with stock silently), the split of a compile into NPUW's prefill / generate / LM head, and
 * the ELF export time; one table (npu_table) rendered in every format. Shows only when the analysis has NPU
 * configs. */
#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *mode_of(const pm_an_npu_config *n)
{
    return n->instrumented ? (n->offline ? "instrumented, offline" : "instrumented")
                           : (n->offline ? "stock, offline" : "stock");
}

#define NOTE_MAX 1024

/* One config's compiled NPUW settings that differ from the sent ones ("MAX_PROMPT_LEN 1024 (sent 1000), ..."),
 * "" when none differ. */
static void setting_diffs(const pm_an_npu_config *c, char *out, size_t size)
{
    out[0] = '\0';
    for (int k = 0; k < PM_AN_NPUW_SETTINGS; k++) {
        if (isnan(c->setting[k]) || isnan(c->setting_sent[k]))
            continue;
        size_t n = strlen(out);
        char ct[32], st[32];
        pm_an_npuw_setting_text(k, c->setting[k], ct, sizeof ct);
        pm_an_npuw_setting_text(k, c->setting_sent[k], st, sizeof st);
        snprintf(out + n, size - n, "%s%s %s (sent %s)", n ? ", " : "", pm_an_npuw_settings[k].label, ct, st);
    }
}

/* The sentences both formats print: what the reader must know before comparing numbers, *n of them, in an
 * array the caller frees (room for 8 + a->npu.n: one per config at most for the per-config sentences); NULL
 * when out of memory. */
static char (*notes(const pm_analysis *a, int *n))[NOTE_MAX]
{
    char(*lines)[NOTE_MAX] = calloc(8 + a->npu.n, sizeof *lines);
    *n = 0;
    if (!lines)
        return NULL;
    int stock = (int)a->npu.n - a->npu.n_instrumented;
    snprintf(lines[(*n)++], NOTE_MAX,
             "%d stock and %d instrumented config(s). Instrumented runs (schedule trace, strategy JSON, task "
             "statistics) compile with extra compilation-mode switches: their times are not stock times. They are "
             "listed per config and left out of the fix table and handoff when stock configs exist (passmap "
             "compare --a-variant stock --b-variant instrumented measures the difference).",
             stock, a->npu.n_instrumented);
    if (a->npu.n_instrumented && stock)
        snprintf(lines[(*n)++], NOTE_MAX,
                 "Cost fits against npu.tasks / npu.tiles use instrumented configs only: only they record the "
                 "schedule trace and strategy file.");
    /* Where the numbers come from: the run metadata holds the compiler used (pinned) and the platform. */
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    const char *ct = json_string_value(json_object_get(meta, "ov.compiler_type"));
    const char *plat = json_string_value(json_object_get(meta, "ov.platform"));
    if (a->npu.n_offline)
        snprintf(lines[(*n)++], NOTE_MAX,
                 "Numbers from offline compiles (%d config(s); NPU_PLATFORM %s, no device): the plugin's compiler "
                 "with its fixed tile table and none of NPUW's device defaults -- not the compile an NPU runs, never "
                 "pooled with on-device runs; no blob import, so no warm runs.",
                 a->npu.n_offline, plat && *plat ? plat : "?");
    if ((int)a->npu.n > a->npu.n_offline)
        snprintf(lines[(*n)++], NOTE_MAX, "Numbers from on-device compiles, compiler %s (NPU_COMPILER_TYPE).",
                 ct && *ct ? ct : "unknown");
    json_decref(meta);
    snprintf(lines[(*n)++], NOTE_MAX,
             "Submodel times are the timing-report Totals of the blocks the log attributed to NPUW's prefill, "
             "generate and LM-head models (unattributed: no log line named the submodel). ELF export = Compile "
             "net time minus the report Totals (the report is printed before the export).");
    /* A build that prints no NPUW line cannot name the submodels: say so, and which split is inferred. */
    int silent = 0, inferred = 0;
    for (size_t i = 0; i < a->npu.n; i++) {
        silent += a->npu.rows[i].npuw_lines == 0;
        inferred += a->npu.rows[i].split_inferred;
    }
    if (silent)
        snprintf(lines[(*n)++], NOTE_MAX,
                 "%d config(s) logged no \"[ NPUW:\" line (column NPUW lines = 0): submodel split unavailable on this "
                 "build (its NPUW logging is compiled out; try OPENVINO_NPUW_LOG_LEVEL=INFO with "
                 "OPENVINO_NPUW_COMPILE_TRACE=1, or a developer build). %d of them show a split inferred from NPUW's "
                 "compile order (every generate variant, then the prefill, then the LM head), marked inferred: not "
                 "measured by name.", silent, inferred);
    /* What was compiled, not what was sent: NPUW rounds the lengths to 64 and defaults what it is not told. */
    int read_back = 0;
    for (size_t i = 0; i < a->npu.n; i++)
        read_back += a->npu.rows[i].read_back;
    if (read_back)
        snprintf(lines[(*n)++], NOTE_MAX,
                 "NPUW settings are the compiled model's own (read back after the compile) for %d config(s); where "
                 "they differ from what passmap sent:", read_back);
    for (size_t i = 0; i < a->npu.n; i++) {
        char diffs[600];
        setting_diffs(&a->npu.rows[i], diffs, sizeof diffs);
        if (*diffs)
            snprintf(lines[(*n)++], NOTE_MAX, "%s: compiled %s.", a->configs[a->npu.rows[i].config].key, diffs);
    }
    return lines;
}

/* The one NPU table: every format renders it (text, Markdown, HTML). NULL when out of memory. */
static pm_table *npu_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},           {"runs", "runs", NULL},
        {"prefill_s", "prefill (s)", "s"},    {"generate_s", "generate (s)", "s"},
        {"lm_head_s", "LM head (s)", "s"},    {"unattributed_s", "unattributed (s)", "s"},
        {"compile_net_s", "Compile net time (s)", "s"}, {"elf_export_s", "ELF export (s)", "s"},
        {"blob_mb", "blob with weights (MB)", "MB"},     {"blob_weightless_mb", "blob without weights (MB)", "MB"},
        {"import_s", "blob import (s)", "s"},
        {"split", "split", NULL},             {"npuw_lines", "NPUW lines", NULL},
    };
    pm_table *t = pm_table_new("t-npu", NULL, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; t && i < a->npu.n; i++) {
        const pm_an_npu_config *c = &a->npu.rows[i];
        const double v[] = {c->prefill_s, c->generate_s, c->lm_head_s, c->unattributed_s, c->compile_net_ms * 1e-3,
                            c->elf_export_ms * 1e-3, c->blob_bytes * 1e-6, c->blob_weightless_bytes * 1e-6,
                            c->import_s};
        long r = pm_table_add_row(t);
        if (r >= 0 && c->instrumented)   /* styled apart in HTML, as its mode column says in text */
            pm_table_row_class(t, (size_t)r, "instrumented");
        int rc = r < 0 || pm_table_set(t, (size_t)r, 0, a->configs[c->config].key, NAN) ||
                 pm_table_set(t, (size_t)r, 1, mode_of(c), NAN);
        for (size_t k = 0; !rc && k < sizeof v / sizeof v[0]; k++)
            if (!isnan(v[k]))   /* no value: the renderers' "-" */
                rc = pm_table_setf(t, (size_t)r, k + 2, v[k], "%.*f", k == 6 || k == 7 ? 3 : 4, v[k]);
        if (!rc)   /* named by the log, inferred from the compile order, or none */
            rc = pm_table_set(t, (size_t)r, 2 + sizeof v / sizeof v[0],
                              c->split_inferred ? "inferred"
                              : !isnan(c->prefill_s) || !isnan(c->generate_s) ? "named" : "-", NAN);
        if (!rc && !isnan(c->npuw_lines))
            rc = pm_table_setf(t, (size_t)r, 3 + sizeof v / sizeof v[0], c->npuw_lines, "%.0f", c->npuw_lines);
        if (rc) {
            pm_table_free(t);
            return NULL;
        }
    }
    return t;
}

static int npu_applies(const pm_analysis *a) { return a->npu.n > 0; }

static int npu_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int n;
    char(*lines)[NOTE_MAX] = notes(x->a, &n);
    if (!lines)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fputs(x->markdown ? "\n## NPU (OpenVINO) runs\n\n" : "\nNPU (OpenVINO) runs\n", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s\n", PM_MD(x, "- ", "  "), lines[i]);
    free(lines);
    pm_table *t = npu_table(x->a);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    int rc = x->markdown ? (fputc('\n', f), pm_table_markdown(t, f)) : pm_table_text(t, f, x->width);
    pm_table_free(t);
    return rc ? pm_err_set(err, PM_ERR_IO, "writing the report") : PM_OK;
}

static int npu_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int n;
    char(*lines)[NOTE_MAX] = notes(x->a, &n);
    if (!lines)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    fputs("<h2 id=npu>NPU (OpenVINO) runs</h2>\n<ul>", f);
    for (int i = 0; i < n; i++) {
        fputs("<li>", f);
        pm_html_esc(f, lines[i]);
        fputs("</li>", f);
    }
    free(lines);
    fputs("</ul>\n", f);
    return pm_report_html_table(f, npu_table(x->a), 0, err);
}

static json_t *jnum(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *npu_report_json(const pm_analysis *a)
{
    if (!a->npu.n)
        return NULL;
    json_t *arr = json_array();
    for (size_t i = 0; i < a->npu.n; i++) {
        const pm_an_npu_config *c = &a->npu.rows[i];
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
        json_object_set_new(o, "split_inferred", json_boolean(c->split_inferred));
        json_object_set_new(o, "npuw_lines", jnum(c->npuw_lines));
        json_object_set_new(o, "settings_read_back", json_boolean(c->read_back));
        json_t *set = json_object();
        for (int k = 0; k < PM_AN_NPUW_SETTINGS; k++)
            if (!isnan(c->setting[k]))
                json_object_set_new(set, pm_an_npuw_settings[k].label,
                                    json_pack("{s:o,s:o}", "compiled", jnum(c->setting[k]), "sent",
                                              jnum(isnan(c->setting_sent[k]) ? c->setting[k] : c->setting_sent[k])));
        json_object_set_new(o, "npuw_settings", set);
        json_array_append_new(arr, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "instrumented_configs", json_integer(a->npu.n_instrumented));
    json_object_set_new(root, "stock_configs", json_integer((json_int_t)a->npu.n - a->npu.n_instrumented));
    json_object_set_new(root, "offline_configs", json_integer(a->npu.n_offline));
    json_object_set_new(root, "configs", arr);
    return root;
}

static int npu_json(const pm_report_ctx *x, json_t *root)
{
    json_t *npu = npu_report_json(x->a);   /* NULL: no NPU configs, no key */
    if (npu)
        json_object_set_new(root, "npu", npu);
    return PM_OK;
}

const pm_report_section pm_section_npu = {.id = "npu", .applies = npu_applies, .text = npu_text, .html = npu_html,
                                          .json = npu_json};
