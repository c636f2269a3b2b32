/* passmap ov-compile: one cold OpenVINO compile in this process; the sweep runs one per repeat. The compiler's
 * own output goes to stdout as it comes; then one "PASSMAP-OV-RESULT {json}" line, written before OpenVINO
 * tears down (so a crash in teardown cannot lose it). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cmds.h"
#include "ov.h"

enum { O_SCHED = 256, O_SOUT, O_SIN, O_REUSE, O_CACHE, O_PROP, O_WORKDIR, O_EXPORT, O_IMPORT, O_LIB, O_JSON,
       O_LOG, O_WEIGHTS, O_MINRESP, O_PREFILL, O_PYRAMID, O_PLATFORM, O_CACHEMODE, O_TSTATS, O_PATTN, O_GATTN,
       O_SHEAD, O_CTYPE, O_OFFONLY, O_RAMSHARE };
static const cli_opt ov_opts[] = {
    {"model", 'm', 1, "FILE", "OpenVINO IR .xml"},
    {"weights", O_WEIGHTS, 0, "FILE", "its .bin (default: beside the .xml)"},
    {"device", 'd', 1, "NAME", "NPU (default), CPU, GPU"},
    {"window", 'w', 1, "N", "LLM prompt window: NPU_USE_NPUW/NPUW_LLM/NPUW_LLM_MAX_PROMPT_LEN=N, plus\n"
                            "NPUW_LLM_MIN_RESPONSE_LEN, NPUW_LLM_BATCH_DIM=0, NPUW_LLM_SEQ_LEN_DIM=2"},
    {"min-response-len", O_MINRESP, 0, "N", "NPUW_LLM_MIN_RESPONSE_LEN (default 128)"},
    {"prefill-hint", O_PREFILL, 0, "H", "NPUW_LLM_PREFILL_HINT: STATIC compiles the prefill at the window\n"
                                        "(OpenVINO's default DYNAMIC compiles 1024-token chunks)"},
    {"generate-pyramid", O_PYRAMID, 0, "B", "NPUW_LLM_GENERATE_PYRAMID YES|NO (YES: a generate model per 1024*2^k +\n"
                                            "min response below the KV size; its default differs between 2026 copies)"},
    {"prefill-attention-hint", O_PATTN, 0, "H", "NPUW_LLM_PREFILL_ATTENTION_HINT STATIC|DYNAMIC|PYRAMID|HFA (default\n"
                                                "STATIC, pinned from OpenVINO 2026.0, whose defaults move inside 2026.x;\n"
                                                "it changes the partitioning only with a chunked prefill)"},
    {"generate-attention-hint", O_GATTN, 0, "H", "NPUW_LLM_GENERATE_ATTENTION_HINT, likewise"},
    {"shared-head", O_SHEAD, 0, "B", "NPUW_LLM_SHARED_HEAD YES|NO (default YES, pinned likewise)"},
    {"compiler-type", O_CTYPE, 0, "T", "NPU_COMPILER_TYPE PLUGIN|DRIVER|PREFER_PLUGIN (2026; MLIR|DRIVER before);\n"
                                       "default: DRIVER on a device, PLUGIN offline; pinned because the stock\n"
                                       "choice moves between 2026.x minors and SKUs"},
    {"offline-only", O_OFFONLY, 0, NULL, "with --platform: fail on a machine with an NPU instead of compiling on it"},
    {"platform", O_PLATFORM, 0, "P", "NPU_PLATFORM (NPU3720, NPU4000, NPU5010): with no NPU present, compile\n"
                                     "offline (OpenVINO >= 2026.0; no import then)"},
    {"cache-mode", O_CACHEMODE, 0, "M", "CACHE_MODE (default for an exported NPUW blob: OPTIMIZE_SPEED, with weights;\n"
                                        "OPTIMIZE_SIZE exports it weightless, which the C API cannot import)"},
    {"log-level", O_LOG, 0, "L", "LOG_LEVEL (default LOG_INFO: turns the per-pass timing report on)"},
    {"", 0, 0, NULL, "Instrumentation (adds NPU_COMPILATION_MODE_PARAMS; under NPUW its default is kept in front):"},
    {"schedule-trace", O_SCHED, 0, NULL, "enable-schedule-trace=true (compileTimeScheduleTrace.json)"},
    {"strategy-out", O_SOUT, 0, NULL, "write-strategy-to-json=true (strategy_out.json)"},
    {"task-stats", O_TSTATS, 0, NULL, "dump-task-stats=true"},
    {"strategy-in", O_SIN, 0, "FILE", "offer FILE as strategy_in.json, read-strategy-from-json=true"},
    {"reuse-strategy", O_REUSE, 0, NULL, "deterministic strategy replay: offer the cached strategy of the same model\n"
                                         "and options (stored after the first compile); not with --window (NPUW)"},
    {"cache-dir", O_CACHE, 0, "DIR", "strategy cache root (default $PASSMAP_CACHE_DIR, ~/.cache/passmap)"},
    {"prop", O_PROP, 0, "KEY=VALUE", "extra property (repeatable; overrides a built one)"},
    {"workdir", O_WORKDIR, 0, "DIR", "working directory of the compile (trace files land there; default .)"},
    {"export", O_EXPORT, 0, "FILE", "export the blob (default with --import: WORKDIR/model.blob)"},
    {"import", O_IMPORT, 0, NULL, "time ov_core_import_model of the exported blob (the warm path; a failed\n"
                                  "import is reported as import_error, the compile still counts)"},
    {"import-max-ram-share", O_RAMSHARE, 0, "F", "with --import: do not import (and say why) when the weights exceed\n"
                                                 "F of MemTotal (0 < F <= 1; the sweep passes 0.5)"},
    {"lib", O_LIB, 0, "PATH", "libopenvino_c (default $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)"},
    {"json", O_JSON, 0, NULL, "end with the bare JSON object instead of the PASSMAP-OV-RESULT line"},
    {0},
};
static const cli_cmd ov_cmd = {
    .name = "ov-compile",
    .synopsis = "--model X.xml [options]",
    .about = "Compiles (and with --import imports) one OpenVINO model, for the openvino back end's steps.",
    .opts = ov_opts,
    .exit_status = "0 compiled (a failed --import is reported, not an error), 1 the compile failed, 2 bad usage",
};

/* One write(2): the line stays whole even when the compiler's buffered output is flushed around it. */
static void emit_line(const char *json, int bare)
{
    char *line = NULL;
    if (asprintf(&line, "%s%s\n", bare ? "" : PM_OV_RESULT_PREFIX, json) < 0)
        return;
    fflush(stdout);
    size_t n = strlen(line), off = 0;
    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, line + off, n - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(line);
}

typedef struct emit_ctx {
    int json, reuse, done;
    const char *cache_dir, *workdir;
    const char *cached;
    const char *key;
    int status;
    pm_err err;
} emit_ctx;

/* Runs inside pm_ov_compile before teardown: stores a fresh strategy, then writes the result line. */
static void on_result(pm_ov_result *r, int status, const char *error, void *vctx)
{
    emit_ctx *c = vctx;
    c->done = 1;
    c->status = status;
    if (error)
        pm_err_set(&c->err, status, "%s", error);
    if (*c->key) {
        snprintf(r->strategy_key, sizeof r->strategy_key, "%s", c->key);
        r->strategy_reused = c->cached != NULL;
        if (status == PM_OK && !c->cached) {
            char path[4200];
            snprintf(path, sizeof path, "%s/strategy_out.json", c->workdir ? c->workdir : ".");
            /* The compiler may not write it (e.g. a CPU compile): replay is then simply not offered later. */
            if (access(path, R_OK) == 0)
                c->status = pm_ov_strategy_store(c->cache_dir, c->key, path, &c->err);
        }
    }
    char *json_text = pm_ov_result_json(r, c->status == PM_OK, c->status == PM_OK ? NULL : c->err.msg);
    if (json_text)
        emit_line(json_text, c->json);
    free(json_text);
}

/* Before the import: the compile's result as it stands (the final line, after the import, replaces it). */
static void on_compiled(pm_ov_result *r, void *vctx)
{
    emit_ctx *c = vctx;
    char *json_text = pm_ov_result_json(r, 1, NULL);
    if (json_text)
        emit_line(json_text, c->json);
    free(json_text);
}

int cmd_ov_compile(int argc, char **argv)
{
    pm_ov_opts o = {0};
    pm_ov_result r;
    pm_err err;
    int json = 0, reuse = 0, rc = PM_EXIT_FAIL;
    const char *cache_dir = NULL;
    const char **extra = calloc((size_t)argc + 1, sizeof *extra);
    int n_extra = 0;
    char *cached = NULL, *json_text = NULL, key[33] = "";
    emit_ctx ec = {0};
    if (!extra)
        return PM_EXIT_FAIL;
    pm_err_clear(&err);
    memset(&r, 0, sizeof r);
    optind = 1;
    int c;
    while ((c = cli_getopt(&ov_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'm': o.model_xml = optarg; break;
        case O_WEIGHTS: o.model_bin = optarg; break;
        case 'd': o.device = optarg; break;
        case 'w': {
            char *end;
            long w = strtol(optarg, &end, 10);
            if (*end || w < 0 || w > 1 << 24) {
                fprintf(stderr, "passmap ov-compile: --window wants a non-negative integer, got '%s'\n", optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.window = (int)w;
            break;
        }
        case O_LOG: o.log_level = optarg; break;
        case O_MINRESP: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v <= 0 || v > 1 << 24) {
                fprintf(stderr, "passmap ov-compile: --min-response-len wants a positive integer, got '%s'\n", optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.min_response_len = (int)v;
            break;
        }
        case O_PREFILL:
            if (strcmp(optarg, "STATIC") && strcmp(optarg, "DYNAMIC")) {
                fprintf(stderr, "passmap ov-compile: --prefill-hint is STATIC or DYNAMIC, not '%s'\n", optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.prefill_hint = optarg;
            break;
        case O_PYRAMID:
            if (strcmp(optarg, "YES") && strcmp(optarg, "NO")) {
                fprintf(stderr, "passmap ov-compile: --generate-pyramid is YES or NO, not '%s'\n", optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.generate_pyramid = optarg;
            break;
        case O_PATTN:
        case O_GATTN:
            if (strcmp(optarg, "STATIC") && strcmp(optarg, "DYNAMIC") && strcmp(optarg, "PYRAMID") &&
                strcmp(optarg, "HFA")) {
                fprintf(stderr, "passmap ov-compile: --%s-attention-hint is one of %s, not '%s'\n",
                        c == O_PATTN ? "prefill" : "generate", PM_OV_ATTENTION_HINTS, optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            *(c == O_PATTN ? &o.prefill_attention_hint : &o.generate_attention_hint) = optarg;
            break;
        case O_SHEAD:
            if (strcmp(optarg, "YES") && strcmp(optarg, "NO")) {
                fprintf(stderr, "passmap ov-compile: --shared-head is YES or NO, not '%s'\n", optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.shared_head = optarg;
            break;
        case O_CTYPE:
            if (strcmp(optarg, "PLUGIN") && strcmp(optarg, "DRIVER") && strcmp(optarg, "PREFER_PLUGIN") &&
                strcmp(optarg, "MLIR")) {
                fprintf(stderr, "passmap ov-compile: --compiler-type is one of %s, not '%s'\n", PM_OV_COMPILER_TYPES,
                        optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.compiler_type = optarg;
            break;
        case O_RAMSHARE: {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v > 0 && v <= 1)) {
                fprintf(stderr, "passmap ov-compile: --import-max-ram-share wants a share in (0, 1], got '%s'\n",
                        optarg);
                rc = PM_EXIT_USAGE;
                goto cleanup;
            }
            o.import_max_ram_share = v;
            break;
        }
        case O_OFFONLY: o.offline_only = 1; break;
        case O_PLATFORM: o.platform = optarg; break;
        case O_CACHEMODE: o.cache_mode = optarg; break;
        case O_TSTATS: o.task_stats = 1; break;
        case O_SCHED: o.schedule_trace = 1; break;
        case O_SOUT: o.strategy_out = 1; break;
        case O_SIN: o.strategy_in = optarg; break;
        case O_REUSE: reuse = 1; break;
        case O_CACHE: cache_dir = optarg; break;
        case O_PROP: extra[n_extra++] = optarg; break;
        case O_WORKDIR: o.workdir = optarg; break;
        case O_EXPORT: o.export_path = optarg; break;
        case O_IMPORT: o.do_import = 1; break;
        case O_LIB: o.lib = optarg; break;
        case O_JSON: json = 1; break;
        case CLI_HELP: cli_usage(stdout, &ov_cmd); rc = PM_EXIT_OK; goto cleanup;
        default:
            rc = cli_try_help(&ov_cmd);
            goto cleanup;
        }
    }
    if (optind < argc || !o.model_xml) {
        fprintf(stderr, "passmap ov-compile: %s (see --help)\n",
                optind < argc ? "unexpected argument" : "--model is required");
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    if (reuse && o.window > 0) {
        /* Under NPUW every subgraph compile overwrites strategy_out.json: only the last one's could be replayed. */
        fprintf(stderr, "passmap ov-compile: --reuse-strategy is off under NPUW (--window): only the last "
                        "subgraph's strategy file survives a compile\n");
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    o.extra = extra;

    int status = PM_OK;
    if (reuse && !o.strategy_in) {
        if ((status = pm_ov_strategy_key(&o, key, &err)) != PM_OK)
            goto report;
        int f = pm_ov_strategy_fetch(cache_dir, key, &cached, &err);
        if (f == PM_OK) {
            o.strategy_in = cached;
        } else if (f == PM_ERR_NOTFOUND) {
            o.strategy_out = 1;
            pm_err_clear(&err);
        } else {
            status = f;
            goto report;
        }
    }
    ec.json = json;
    ec.cache_dir = cache_dir;
    ec.workdir = o.workdir;
    ec.cached = cached;
    ec.key = key;
    pm_err_clear(&ec.err);
    o.on_result = on_result;
    o.on_result_ctx = &ec;
    if (!json) /* --json ends with one bare object: no interim line there */
        o.on_compiled = on_compiled;
    status = pm_ov_compile(&o, &r, &err);
    if (ec.done) {
        status = ec.status;
        if (status != PM_OK)
            err = ec.err;
    }
report:
    if (!ec.done) {
        json_text = pm_ov_result_json(&r, status == PM_OK, status == PM_OK ? NULL : err.msg);
        if (json_text)
            emit_line(json_text, json);
    }
    if (status != PM_OK) {
        /* The key a 2026 plugin refused is the first thing to know: it is not in the selected compiler's list. */
        if (*r.refused_property)
            fprintf(stderr, "passmap ov-compile: refused property %s (not supported by the selected compiler or "
                            "this release; drop it or pin another NPU_COMPILER_TYPE)\n", r.refused_property);
        fprintf(stderr, "passmap ov-compile: %s\n", err.msg);
        goto cleanup;
    }
    fprintf(stderr, "ov-compile: %s compile %.3f s", r.device, r.compile_s);
    if (r.export_s >= 0)
        fprintf(stderr, ", export %.3f s (%lld bytes)", r.export_s, r.blob_bytes);
    if (r.import_s >= 0)
        fprintf(stderr, ", import %.3f s", r.import_s);
    else if (*r.import_error)
        fprintf(stderr, ", import FAILED (%s)", r.import_error);
    else if (*r.import_skipped)
        fprintf(stderr, ", no import (%s)", r.import_skipped);
    if (r.offline)
        fprintf(stderr, ", offline for %s", r.platform);
    fprintf(stderr, "; OpenVINO %s, compiler %s%s%s%s%s%s\n", *r.ov_version ? r.ov_version : "?",
            *r.compiler_type_resolved ? r.compiler_type_resolved : "unresolved",
            *r.compiler_version_decoded ? " " : "", r.compiler_version_decoded,
            *r.compiler_version_source ? " (version from the " : "", r.compiler_version_source,
            *r.compiler_version_source ? ")" : "");
    if (r.strategy_reused)
        fprintf(stderr, "ov-compile: strategy reused\n");
    /* What NPUW compiled where it differs from what was sent (it rounds and defaults). */
    for (int i = 0; i < r.effective.n; i++) {
        const char *k = r.effective.items[i].key, *v = r.effective.items[i].value, *sent = NULL;
        for (int j = 0; j < r.props.n; j++)
            if (!strcmp(r.props.items[j].key, k))
                sent = r.props.items[j].value;
        if (sent && strcmp(sent, v))
            fprintf(stderr, "ov-compile: %s compiled as %s (sent %s)\n", k, v, sent);
    }
    rc = PM_EXIT_OK;
cleanup:
    pm_ov_result_free(&r);
    free(json_text);
    free(cached);
    free(extra);
    return rc;
}
