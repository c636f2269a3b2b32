#include "sweep_ov.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends.h"
#include "ov.h"

int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *cache_dir,
                      pm_steps *out, pm_err *err)
{
    /* [openvino] props = "K=V K=V": split into the NULL-terminated list ov-compile takes. */
    char buf[sizeof spec->ov_props];
    const char *extra[PM_OV_MAX_PROPS + 1];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", spec->ov_props);
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == PM_OV_MAX_PROPS)
            return pm_err_set(err, PM_ERR_USAGE, "[openvino] props: more than %d properties", PM_OV_MAX_PROPS);
        if (!strchr(t, '='))
            return pm_err_set(err, PM_ERR_USAGE, "[openvino] props: '%s' is not KEY=VALUE", t);
        extra[n++] = t;
    }
    extra[n] = NULL;
    int reuse = spec->ov_reuse_strategy || c->reuse_strategy;
    const pm_kind *k = pm_kind_find(c->kind);
    int npuw = k && k->npuw;   /* an LLM: compiled through NPUW */
    if (reuse && npuw) /* also reached with --backend openvino over a spec written for another back end */
        return pm_err_set(err, PM_ERR_USAGE, "%s: reuse-strategy is off under NPUW (LLM configs)", c->key);
    /* The child runs in its own folder: hand it absolute paths (a missing model keeps its name for the error). */
    char model_abs[PATH_MAX], lib_abs[PATH_MAX];
    const char *model = realpath(c->model_xml, model_abs) ? model_abs : c->model_xml;
    const char *lib = spec->ov_lib[0] ? spec->ov_lib : NULL;
    if (lib && strchr(lib, '/') && realpath(lib, lib_abs))
        lib = lib_abs;
    /* Stock runs send no compilation-mode params (each one replaces NPUW's default and changes the pipeline);
     * the instrumented variant turns on the switches the spec names, all three when it names none. Its blob
     * is exported weightless and not imported: it measures the blob size without weights. */
    int inst = c->instrumented, any = spec->ov_schedule_trace || spec->ov_strategy_json || spec->ov_task_stats;
    pm_ov_opts o = {.lib = lib, .model_xml = model, .device = spec->ov_device, .log_level = spec->ov_log_level,
                    .window = npuw ? c->window : 0,
                    .min_response_len = spec->ov_min_response_len,
                    .prefill_hint = spec->ov_prefill_hint[0] ? spec->ov_prefill_hint : NULL,
                    .generate_pyramid = spec->ov_generate_pyramid[0] ? spec->ov_generate_pyramid : NULL,
                    .prefill_attention_hint = spec->ov_prefill_attention_hint[0] ? spec->ov_prefill_attention_hint : NULL,
                    .generate_attention_hint = spec->ov_generate_attention_hint[0] ? spec->ov_generate_attention_hint : NULL,
                    .shared_head = spec->ov_shared_head[0] ? spec->ov_shared_head : NULL,
                    .compiler_type = spec->ov_compiler_type[0] ? spec->ov_compiler_type : NULL,
                    /* a study with a platform is an offline study: never on-device runs in it */
                    .offline_only = spec->ov_platform[0] != '\0',
                    .platform = spec->ov_platform[0] ? spec->ov_platform : NULL,
                    .schedule_trace = inst && (spec->ov_schedule_trace || !any),
                    .strategy_out = (inst && (spec->ov_strategy_json || !any)) || reuse,
                    .task_stats = inst && (spec->ov_task_stats || !any),
                    .extra = extra, .do_import = !inst,
                    .export_path = inst ? "model.blob" : NULL,
                    .cache_mode = inst && npuw ? "OPTIMIZE_SIZE" : NULL};
    return pm_ov_add_step(self_exe, &o, reuse, cache_dir, out, err);
}

void pm_sweep_ov_result(const char *stdout_path, json_t *versions, pm_report *report, double *import_s,
                        char *import_error, size_t import_error_size)
{
    *import_s = -1;
    if (import_error_size)
        import_error[0] = '\0';
    pm_ov_result r;
    memset(&r, 0, sizeof r);
    pm_err err = {0};
    if (pm_ov_read_result_file(stdout_path, &r, &err) == PM_OK) {
        if (r.read_s >= 0) pm_report_add_metric(report, "ov.read_s", r.read_s);
        if (r.compile_s >= 0) pm_report_add_metric(report, "ov.compile_s", r.compile_s);
        if (r.export_s >= 0) pm_report_add_metric(report, "ov.export_s", r.export_s);
        if (r.import_s >= 0) pm_report_add_metric(report, "ov.import_s", r.import_s);
        /* The blob size is recorded under what it holds: with weights (importable) or without. */
        if (r.blob_bytes >= 0)
            pm_report_add_metric(report, r.blob_weightless ? "ov.blob_bytes_weightless" : "ov.blob_bytes",
                                 (double)r.blob_bytes);
        if (r.weights_bytes >= 0) pm_report_add_metric(report, "ov.weights_bytes", (double)r.weights_bytes);
        /* Peak RSS so far at the end of the export and of the import (the compile's is the run's maxrss). */
        if (r.export_maxrss_kb > 0) pm_report_add_metric(report, "ov.export_peak_rss_kb", (double)r.export_maxrss_kb);
        if (r.import_maxrss_kb > 0) pm_report_add_metric(report, "ov.import_peak_rss_kb", (double)r.import_maxrss_kb);
        pm_report_add_metric(report, "ov.strategy_reused", r.strategy_reused);
        pm_report_add_metric(report, "ov.instrumented", r.instrumented);
        pm_report_add_metric(report, "ov.offline", r.offline);
        /* What shapes an NPUW compile, as numbers the report can group by. */
        for (int i = 0; i < r.props.n; i++) {
            const char *k = r.props.items[i].key, *v = r.props.items[i].value;
            if (!strcmp(k, "NPUW_LLM_MAX_PROMPT_LEN")) pm_report_add_metric(report, "ov.npuw.max_prompt_len", atof(v));
            else if (!strcmp(k, "NPUW_LLM_MIN_RESPONSE_LEN")) pm_report_add_metric(report, "ov.npuw.min_response_len", atof(v));
            else if (!strcmp(k, "NPUW_LLM_PREFILL_HINT")) pm_report_add_metric(report, "ov.npuw.prefill_static", !strcmp(v, "STATIC"));
            else if (!strcmp(k, "NPUW_LLM_GENERATE_PYRAMID")) pm_report_add_metric(report, "ov.npuw.generate_pyramid", !strcmp(v, "YES"));
        }
        *import_s = r.import_s;
        if (import_error_size && r.import_error[0])
            snprintf(import_error, import_error_size, "%s", r.import_error);
        char unresolved[96];
        snprintf(unresolved, sizeof unresolved, "unresolved (the plugin's default: %s)",
                 *r.compiler_type ? r.compiler_type : "?");
        const char *keys[][2] = {{"ov.version", r.ov_version},
                                 {"ov.compiler_type", *r.compiler_type_resolved ? r.compiler_type_resolved : unresolved},
                                 {"ov.compiler_type_set", r.compiler_type_set},
                                 {"ov.compiler_type_source", r.compiler_type_source},
                                 {"ov.compiler_version", r.compiler_version},
                                 {"ov.compiler_version_decoded", r.compiler_version_decoded},
                                 {"ov.driver_version", r.driver_version},
                                 {"ov.device_architecture", r.device_arch}, {"ov.device", r.device},
                                 {"ov.platform", r.platform}, {"ov.offline", r.offline ? "yes" : ""},
                                 {"ov.npuw.pins", r.npuw_pins}, {"ov.npuw.prefill_attention_hint", ""},
                                 {"ov.npuw.generate_attention_hint", ""}, {"ov.npuw.shared_head", ""}};
        /* What the compile was pinned to (the NPUW keys whose defaults move inside 2026.x). */
        for (int i = 0; i < r.props.n; i++) {
            const char *k = r.props.items[i].key;
            for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
                if (!strncmp(k, "NPUW_LLM_", 9) && !strncmp(keys[j][0], "ov.npuw.", 8) &&
                    !strcasecmp(k + 9, keys[j][0] + 8))
                    keys[j][1] = r.props.items[i].value;
        }
        for (size_t i = 0; versions && i < sizeof keys / sizeof keys[0]; i++)
            if (keys[i][1][0])
                json_object_set_new(versions, keys[i][0], json_string(keys[i][1]));
    }
    pm_ov_result_free(&r);
}

/* ---- the back-end row ---- */

static int ov_parse_spec(pm_spec *s, pm_spec_entries *es, pm_err *err)
{
    int rc = pm_spec_parse_workloads(s, es, err);
    if (rc == PM_OK && !s->ov_model_template[0])
        rc = pm_err_set(err, PM_ERR_USAGE, "[openvino] model is required for backend openvino");
    for (int i = 0; rc == PM_OK && i < s->n_configs; i++)
        if (pm_kind_find(s->configs[i].kind) && pm_kind_find(s->configs[i].kind)->npuw &&
            (s->configs[i].reuse_strategy || s->ov_reuse_strategy))
            /* LLM configs compile through NPUW, where each subgraph overwrites the strategy file. */
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: reuse-strategy is off under NPUW (LLM configs): only the last "
                            "subgraph's strategy file survives a compile", s->configs[i].key);
    return rc;
}

static int ov_prepare_config(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out, pm_err *err)
{
    const pm_spec_config *c = &ctx->spec->configs[config];
    out->params = json_pack("{s:i, s:i, s:i, s:s}", "blocks", c->blocks, "tile", c->tile, "unroll", c->unroll,
                            "model", c->model_xml);
    return out->params ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

static int ov_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir, pm_steps *out,
                    pm_err *err)
{
    return pm_sweep_ov_steps(ctx->spec, &ctx->spec->configs[config], ctx->self_exe, ctx->cache_dir, out, err);
}

static int ov_step_done(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_report *report,
                        double *warm_s, char *warm_error, size_t error_cap)
{
    /* The NPU's warm path is a blob import: the sweep stores it as a warm run so recompile / load is measured. */
    pm_sweep_ov_result(stdout_path, ctx->versions, report, warm_s, warm_error, error_cap);
    return 1;
}

/* ov-compile writes its result line before OpenVINO tears down: an ok line is the compile's result even when
 * the process then crashed or hung in teardown (TBB / Level Zero threads; oneTBB #977). */
static int ov_step_outcome(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_step_outcome *out)
{
    (void)ctx;
    (void)st;
    pm_ov_result r;
    memset(&r, 0, sizeof r);
    pm_err err = {0};
    int got = pm_ov_read_result_file(stdout_path, &r, &err) == PM_OK;
    if (got) {
        out->completed = 1;
        /* The cold run is the compile phase: not the process start, the model read, the export (the whole
         * weights bank with OPTIMIZE_SPEED) or the import, which are measured on their own. */
        out->wall_s = r.compile_s;
        out->user_s = r.compile_user_s;
        out->sys_s = r.compile_sys_s;
        out->maxrss_kb = r.compile_maxrss_kb;
    }
    pm_ov_result_free(&r);
    return got;
}

static void ov_describe(pm_backend_ctx *ctx, json_t *meta)
{
    json_object_set_new(meta, "device", json_string(ctx->spec->ov_device));
}

const pm_backend_ops pm_backend_openvino = {
    .name = "openvino",
    .run_one = PM_RUN_ONE_OV_COMPILE,
    .sections = "[openvino], [llm NAME], [cnn NAME]",
    .parse_spec = ov_parse_spec,
    .prepare_config = ov_prepare_config,
    .steps = ov_steps,
    .step_done = ov_step_done,
    .step_outcome = ov_step_outcome,
    .describe = ov_describe,
    .own_warm_path = 1,   /* ov_step_done: every stock compile's blob import is its warm run */
    .fix = &pm_ov_fix,
};
