#include "sweep_ov.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "backends.h"
#include "embedded.h"
#include "ov.h"
#include "run.h"

/* The longest model path a config's template expands to (with the terminator): longer is an error naming it. */
#define OV_MODEL_MAX 512

int pm_sweep_ov_steps(const pm_spec *spec, const pm_spec_config *c, const char *self_exe, const char *cache_dir,
                      pm_steps *out, pm_err *err)
{
    const pm_ov_spec *ov = pm_ov_spec_of(spec);
    char model_xml[OV_MODEL_MAX];
    int mrc = pm_sweep_ov_model(spec, c, model_xml, sizeof model_xml, err);
    if (mrc)
        return mrc;
    /* [openvino] props = "K=V K=V": split into the NULL-terminated list ov-compile takes. */
    char buf[sizeof ov->props];
    const char *extra[PM_OV_MAX_PROPS + 1];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", ov->props);
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == PM_OV_MAX_PROPS)
            return pm_err_set(err, PM_ERR_USAGE, "[openvino] props: more than %d properties", PM_OV_MAX_PROPS);
        if (!strchr(t, '='))
            return pm_err_set(err, PM_ERR_USAGE, "[openvino] props: '%s' is not KEY=VALUE", t);
        extra[n++] = t;
    }
    extra[n] = NULL;
    int reuse = ov->reuse_strategy || pm_spec_variant_has(c, "reuse-strategy");
    const pm_kind *k = pm_kind_find(c->kind);
    int npuw = k && k->npuw;   /* an LLM: compiled through NPUW */
    if (reuse && npuw) /* also reached with --backend openvino over a spec written for another back end */
        return pm_err_set(err, PM_ERR_USAGE, "%s: reuse-strategy is off under NPUW (LLM configs)", c->key);
    /* The child runs in its own folder: hand it absolute paths (a missing model keeps its name for the error). */
    char model_abs[PATH_MAX], lib_abs[PATH_MAX];
    const char *model = realpath(model_xml, model_abs) ? model_abs : model_xml;
    const char *lib = ov->lib[0] ? ov->lib : NULL;
    if (lib && strchr(lib, '/') && realpath(lib, lib_abs))
        lib = lib_abs;
    /* Stock runs send no compilation-mode params (each one replaces NPUW's default and changes the pipeline);
     * the instrumented variant turns on the switches the spec names, all three when it names none. Its blob
     * is exported weightless and not imported: it measures the blob size without weights. */
    int inst = pm_spec_variant_has(c, "instrumented");
    int any = ov->schedule_trace || ov->strategy_json || ov->task_stats;
    pm_ov_opts o = {.lib = lib, .model_xml = model, .device = ov->device, .log_level = ov->log_level,
                    .window = npuw ? pm_spec_workload(c).window : 0,
                    .min_response_len = ov->min_response_len,
                    .prefill_hint = ov->prefill_hint[0] ? ov->prefill_hint : NULL,
                    .generate_pyramid = ov->generate_pyramid[0] ? ov->generate_pyramid : NULL,
                    .prefill_attention_hint = ov->prefill_attention_hint[0] ? ov->prefill_attention_hint : NULL,
                    .generate_attention_hint = ov->generate_attention_hint[0] ? ov->generate_attention_hint : NULL,
                    .shared_head = ov->shared_head[0] ? ov->shared_head : NULL,
                    .compiler_type = ov->compiler_type[0] ? ov->compiler_type : NULL,
                    /* a study with a platform is an offline study: never on-device runs in it */
                    .offline_only = ov->platform[0] != '\0',
                    .platform = ov->platform[0] ? ov->platform : NULL,
                    .schedule_trace = inst && (ov->schedule_trace || !any),
                    .strategy_out = (inst && (ov->strategy_json || !any)) || reuse,
                    .task_stats = inst && (ov->task_stats || !any),
                    .extra = extra, .do_import = !inst,
                    .import_max_ram_share = ov->import_max_ram_share,
                    .export_path = inst ? "model.blob" : NULL,
                    .cache_mode = inst && npuw ? "OPTIMIZE_SIZE" : NULL};
    return pm_ov_add_step(self_exe, &o, reuse, cache_dir, out, err);
}

/* What shapes an NPUW compile, as numbers the report can group by: the compiled model's value (NPUW rounds
 * and defaults), with the sent one beside it (".sent") where they differ. truth: the word that reads as 1. */
static const struct {
    const char *key, *metric, *truth;
} npuw_metrics[] = {
    {"NPUW_LLM_MAX_PROMPT_LEN", "ov.npuw.max_prompt_len", NULL},
    {"NPUW_LLM_MIN_RESPONSE_LEN", "ov.npuw.min_response_len", NULL},
    {"NPUW_LLM_PREFILL_CHUNK_SIZE", "ov.npuw.prefill_chunk_size", NULL},
    {"NPUW_LLM_PREFILL_HINT", "ov.npuw.prefill_static", "STATIC"},
    {"NPUW_LLM_GENERATE_PYRAMID", "ov.npuw.generate_pyramid", "YES"},
    {"NPUW_LLM_SHARED_HEAD", "ov.npuw.shared_head", "YES"},
};

static double npuw_number(const char *v, const char *truth)
{
    if (!truth)
        return atof(v);
    return !strcasecmp(v, truth) || (!strcmp(truth, "YES") && (!strcasecmp(v, "true") || !strcmp(v, "1")));
}

static const char *sent_value(const pm_ov_result *r, const char *key)
{
    for (int i = 0; i < r->props.n; i++)
        if (!strcmp(r->props.items[i].key, key))
            return r->props.items[i].value;
    return NULL;
}

/* NPUW runs: the count of NPUW's own log lines (0 too: a build that prints none cannot name the submodels),
 * the effective settings, and, where no line named a submodel, the split inferred from the compile order. */
static void npuw_metrics_add(const pm_ov_result *r, pm_report *report)
{
    int has_lines = 0, named = 0;
    for (size_t i = 0; i < report->n_metrics; i++) {
        has_lines |= !strcmp(report->metrics[i].name, "npu.log.lines.NPUW");
        named |= !strncmp(report->metrics[i].name, "npu.submodel.", 13) &&
                 strncmp(report->metrics[i].name, "npu.submodel.unattributed.", 26);
    }
    if (!has_lines)
        pm_report_add_metric(report, "npu.log.lines.NPUW", 0);
    int any_effective = 0;
    for (size_t k = 0; k < sizeof npuw_metrics / sizeof *npuw_metrics; k++) {
        int eff = 0;
        const char *v = pm_ov_npuw_value(r, npuw_metrics[k].key, &eff), *sent = sent_value(r, npuw_metrics[k].key);
        if (!v)
            continue;
        any_effective |= eff;
        double value = npuw_number(v, npuw_metrics[k].truth);
        pm_report_add_metric(report, npuw_metrics[k].metric, value);
        char name[96];
        snprintf(name, sizeof name, "%s.sent", npuw_metrics[k].metric);
        if (eff && sent && npuw_number(sent, npuw_metrics[k].truth) != value)
            pm_report_add_metric(report, name, npuw_number(sent, npuw_metrics[k].truth));
    }
    pm_report_add_metric(report, "ov.npuw.read_back", any_effective);
    pm_ov_split sp;
    char why[200];
    if (!named && pm_ov_infer_report(report, r, &sp, why, sizeof why) == PM_OK) {
        static const char *const names[] = {"generate", "prefill", "lm_head"};
        for (int k = 0; k < 3; k++) {
            char name[96];
            if (!sp.blocks[k])
                continue;
            snprintf(name, sizeof name, "npu.submodel.inferred.%s.blocks", names[k]);
            pm_report_add_metric(report, name, sp.blocks[k]);
            snprintf(name, sizeof name, "npu.submodel.inferred.%s.total_s", names[k]);
            pm_report_add_metric(report, name, sp.total_s[k]);
        }
    }
}

/* Why an import that had started never finished: the process died in it (the interim line is its last). */
static void import_death(const pm_run_result *run, const pm_ov_result *r, char *out, size_t size)
{
    char how[48], weights[32] = "unknown", mem[32] = "unknown";
    if (run->term_signal)
        snprintf(how, sizeof how, "killed by SIG%s", sigabbrev_np(run->term_signal) ? sigabbrev_np(run->term_signal) : "?");
    else if (run->status == PM_RUN_TIMEOUT)
        snprintf(how, sizeof how, "timed out");
    else
        snprintf(how, sizeof how, "exited %d", run->exit_code);
    if (r->weights_bytes >= 0)
        snprintf(weights, sizeof weights, "%.1f MB", (double)r->weights_bytes / 1e6);
    if (r->mem_total_bytes > 0)
        snprintf(mem, sizeof mem, "%.1f MB", (double)r->mem_total_bytes / 1e6);
    snprintf(out, size,
             "the import died: ov-compile %s in ov_core_import_model; peak RSS %.1f MB at death; weights %s; "
             "MemTotal %s (the import reads the whole weights bank back)",
             how, run->maxrss_kb > 0 ? (double)run->maxrss_kb / 1024 : 0.0, weights, mem);
}

void pm_sweep_ov_result(const char *stdout_path, json_t *versions, pm_report *report, double *import_s,
                        char *import_error, size_t import_error_size)
{
    pm_sweep_ov_result_of(stdout_path, NULL, versions, report, import_s, import_error, import_error_size);
}

void pm_sweep_ov_result_of(const char *stdout_path, const char *death, json_t *versions, pm_report *report,
                           double *import_s, char *import_error, size_t import_error_size)
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
        if (sent_value(&r, "NPUW_LLM"))
            npuw_metrics_add(&r, report);
        *import_s = r.import_s;
        /* Every import asked for is a warm run: timed, failed with OpenVINO's reason, skipped for the RAM with
         * the stated rule, or died with how (the interim line was the process's last). */
        if (import_error_size && r.import_error[0])
            snprintf(import_error, import_error_size, "%s", r.import_error);
        else if (import_error_size && r.import_skipped_ram)
            snprintf(import_error, import_error_size, "import %s", r.import_skipped);
        else if (import_error_size && r.import_pending)
            snprintf(import_error, import_error_size, "%s", death && *death ? death : "the import never finished");
        char unresolved[96];
        snprintf(unresolved, sizeof unresolved, "unresolved (the plugin's default: %s)",
                 *r.compiler_type ? r.compiler_type : "?");
        const char *keys[][2] = {{"ov.version", r.ov_version},
                                 {"ov.compiler_type", *r.compiler_type_resolved ? r.compiler_type_resolved : unresolved},
                                 {"ov.compiler_type_set", r.compiler_type_set},
                                 {"ov.compiler_type_source", r.compiler_type_source},
                                 {"ov.compiler_version", r.compiler_version},
                                 {"ov.compiler_version_source", r.compiler_version_source},
                                 {"ov.compiler_version_decoded", r.compiler_version_decoded},
                                 {"ov.driver_version", r.driver_version},
                                 {"ov.device_architecture", r.device_arch}, {"ov.device", r.device},
                                 {"ov.platform", r.platform}, {"ov.offline", r.offline ? "yes" : ""},
                                 {"ov.npuw.pins", r.npuw_pins}, {"ov.npuw.prefill_attention_hint", ""},
                                 {"ov.npuw.generate_attention_hint", ""}, {"ov.npuw.shared_head", ""}};
        /* What the compile used for the NPUW keys whose defaults move inside 2026.x: read back, else pinned. */
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
            char key[64];
            if (strncmp(keys[j][0], "ov.npuw.", 8) || !strcmp(keys[j][0], "ov.npuw.pins"))
                continue;
            snprintf(key, sizeof key, "NPUW_LLM_%s", keys[j][0] + 8);
            for (char *c = key + 9; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            const char *v = pm_ov_npuw_value(&r, key, NULL);
            if (v)
                keys[j][1] = v;
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
    pm_ov_spec *ov = calloc(1, sizeof *ov);
    if (!ov)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    s->backend_data = ov;
    s->backend_free = free;
    /* [embedded]'s tile and unroll are the matrix sections' pipeline keys here too (they are in the config keys) */
    pm_embedded_spec emb;
    int rc = pm_embedded_spec_parse(es, &emb, err);
    if (rc == PM_OK)
        rc = pm_ov_spec_parse(es, ov, err);
    pm_spec_pipe pipe = pm_embedded_pipe(&emb);
    if (rc == PM_OK)
        rc = pm_spec_parse_workloads(s, es, &pipe, err);
    /* a config compiles the model its workload names (an LLM's or a CNN's IR): each path fits */
    char model_xml[OV_MODEL_MAX];
    for (int i = 0; rc == PM_OK && ov->model_template[0] && i < s->n_configs; i++)
        rc = pm_sweep_ov_model(s, &s->configs[i], model_xml, sizeof model_xml, err);
    if (rc == PM_OK && !ov->model_template[0])
        rc = pm_err_set(err, PM_ERR_USAGE, "[openvino] model is required for backend openvino");
    s->timing_pairs = ov->timing_twins;   /* the twin's argv: the row's timing_flag */
    for (int i = 0; rc == PM_OK && i < s->n_configs; i++)
        if (pm_kind_find(s->configs[i].kind) && pm_kind_find(s->configs[i].kind)->npuw &&
            (pm_spec_variant_has(&s->configs[i], "reuse-strategy") || ov->reuse_strategy))
            /* LLM configs compile through NPUW, where each subgraph overwrites the strategy file. */
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: reuse-strategy is off under NPUW (LLM configs): only the last "
                            "subgraph's strategy file survives a compile", s->configs[i].key);
    return rc;
}

static int ov_prepare_config(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out, pm_err *err)
{
    const pm_spec_config *c = &ctx->spec->configs[config];
    char model_xml[OV_MODEL_MAX];
    int rc = pm_sweep_ov_model(ctx->spec, c, model_xml, sizeof model_xml, err);
    if (rc)
        return rc;
    out->params = json_pack("{s:i, s:i, s:i, s:s}", "blocks", pm_spec_workload(c).blocks, "tile",
                            pm_embedded_config_tile(c), "unroll", pm_embedded_config_unroll(c), "model", model_xml);
    return out->params ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

static int ov_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir, pm_steps *out,
                    pm_err *err)
{
    return pm_sweep_ov_steps(ctx->spec, &ctx->spec->configs[config], ctx->self_exe, ctx->cache_dir, out, err);
}

/* The back end's state over a sweep: how the last step's import died, from step_outcome (which sees the
 * process's end) for step_done (which stores the warm run). */
typedef struct ov_state {
    char death[512];
    char said[256];   /* the last failure reason the sweep printed: each is said once, not once per run */
} ov_state;

static int ov_prepare(pm_backend_ctx *ctx, pm_err *err)
{
    if (!(ctx->state = calloc(1, sizeof(ov_state))))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    return PM_OK;
}

static void ov_cleanup(pm_backend_ctx *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
}

static int ov_step_done(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_report *report,
                        double *warm_s, char *warm_error, size_t error_cap)
{
    /* The NPU's warm path is a blob import: the sweep stores it as a warm run so recompile / load is measured. */
    ov_state *state = ctx->state;
    pm_sweep_ov_result_of(stdout_path, state ? state->death : NULL, ctx->versions, report, warm_s, warm_error,
                          error_cap);
    if (state)
        state->death[0] = '\0';
    return 1;
}

/* ov-compile writes its result line before OpenVINO tears down: an ok line is the compile's result even when
 * the process then crashed or hung in teardown (TBB / Level Zero threads; oneTBB #977). */
static int ov_step_outcome(pm_backend_ctx *ctx, const pm_step *st, const char *stdout_path, pm_step_outcome *out)
{
    (void)st;
    pm_ov_result r;
    memset(&r, 0, sizeof r);
    pm_err err = {0};
    int got = pm_ov_read_result_file(stdout_path, &r, &err) == PM_OK;
    ov_state *state = ctx->state;
    if (!got && r.refused_property[0]) { /* the first thing a failed first run must say */
        snprintf(out->reason, sizeof out->reason, "refused property %s (the selected compiler or this OpenVINO "
                 "does not list it)", r.refused_property);
        out->say = state && strcmp(state->said, out->reason);
        if (out->say)
            snprintf(state->said, sizeof state->said, "%s", out->reason);
    }
    if (got) {
        out->completed = 1;
        /* The cold run is the compile phase: not the process start, the model read, the export (the whole
         * weights bank with OPTIMIZE_SPEED) or the import, which are measured on their own. */
        out->wall_s = r.compile_s;
        out->user_s = r.compile_user_s;
        out->sys_s = r.compile_sys_s;
        out->maxrss_kb = r.compile_maxrss_kb;
    }
    if (state)
        state->death[0] = '\0';
    if (got && r.import_pending && state && out->run && out->run->status != PM_RUN_OK)
        import_death(out->run, &r, state->death, sizeof state->death);
    pm_ov_result_free(&r);
    return got;
}

static void ov_describe(pm_backend_ctx *ctx, json_t *meta)
{
    json_object_set_new(meta, "device", json_string(pm_ov_spec_of(ctx->spec)->device));
}

static double file_bytes(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 ? (double)sb.st_size : 0;
}

/* What a compile reads: the model's .xml and its .bin weights. */
static double ov_shard_cost(const pm_spec *spec, int config)
{
    char model_xml[OV_MODEL_MAX], bin[OV_MODEL_MAX + 8];
    pm_err err = {0};
    if (pm_sweep_ov_model(spec, &spec->configs[config], model_xml, sizeof model_xml, &err))
        return 0;
    double xml = file_bytes(model_xml);
    const char *dot = strrchr(model_xml, '.');
    snprintf(bin, sizeof bin, "%.*s.bin", dot ? (int)(dot - model_xml) : (int)strlen(model_xml), model_xml);
    return xml + file_bytes(bin);
}

/* passmap run's --model, --window, --ov-lib, --schedule-trace, --strategy-out, --run-dir describe its one
 * ov-compile; --device is also passmap sweep's override of [openvino] device. */
static const char *const ov_options[] = {"device", "model", "window", "ov-lib", "schedule-trace", "strategy-out",
                                         "run-dir", NULL};

static int ov_set_option(pm_spec *spec, const char *name, const char *value, pm_err *err)
{
    if (strcmp(name, "device"))
        return pm_err_set(err, PM_ERR_USAGE, "--%s: not an option of passmap sweep", name);
    pm_ov_spec *ov = pm_ov_spec_of(spec);
    if (snprintf(ov->device, sizeof ov->device, "%s", value) >= (int)sizeof ov->device)
        return pm_err_set(err, PM_ERR_USAGE, "--device name too long");
    return PM_OK;
}

static const pm_backend_option ov_sweep_options[] = {
    {"device", "NAME", "override [openvino] device (NPU, CPU, GPU ...)"},
    {0},
};

/* The NPU compiler's tiling stage works on tiles, its other stages on tasks (the schedule trace's counts). */
static const pm_fit_size ov_fit_sizes[] = {
    {"ov-*", "*tiling*", "npu.tiles"}, {"ov-*", NULL, "npu.tasks"}, {0}};

/* The NPU compiler prints its per-pass timers at exactly LOG_INFO (the plugin's log level, which the compiler's
 * own NPU_COMPILER_LOG_LEVEL inherits when unset): a twin at LOG_NONE compiles without the timers and the log. */
static const pm_backend_timing_flag ov_timing_flag = {"--log-level", "LOG_NONE"};

const pm_backend_ops pm_backend_openvino = {
    .name = "openvino",
    .run_one = PM_RUN_ONE_OV_COMPILE,
    .sections = "[openvino], [KIND NAME]",
    .parse_spec = ov_parse_spec,
    .prepare_config = ov_prepare_config,
    .steps = ov_steps,
    .prepare = ov_prepare,
    .cleanup = ov_cleanup,
    .step_done = ov_step_done,
    .step_outcome = ov_step_outcome,
    .describe = ov_describe,
    .own_warm_path = 1,   /* ov_step_done: every stock compile's blob import is its warm run */
    .fix = &pm_ov_fix,
    .shard_cost = ov_shard_cost,
    .options = ov_options,
    .set_option = ov_set_option,
    .sweep_options = ov_sweep_options,
    .help_heading = "OpenVINO back end:",
    .run = &pm_ov_run,
    .doctor = &pm_ov_doctor,
    .fit_sizes = ov_fit_sizes,
    .timing_flag = &ov_timing_flag,
};
