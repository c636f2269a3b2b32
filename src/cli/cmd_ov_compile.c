/* passmap ov-compile: one cold OpenVINO compile in this process; the sweep runs one per repeat. The compiler's
 * own output goes to stdout as it comes; then one "PASSMAP-OV-RESULT {json}" line, written before OpenVINO
 * tears down (so a crash in teardown cannot lose it). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "ov.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: passmap ov-compile --model X.xml [options]\n"
            "  --model FILE          OpenVINO IR .xml\n"
            "  --weights FILE        its .bin (default: beside the .xml)\n"
            "  --device NAME         NPU (default), CPU, GPU\n"
            "  --window N            LLM prompt window: NPU_USE_NPUW/NPUW_LLM/NPUW_LLM_MAX_PROMPT_LEN=N, plus\n"
            "                        NPUW_LLM_MIN_RESPONSE_LEN, NPUW_LLM_BATCH_DIM=0, NPUW_LLM_SEQ_LEN_DIM=2\n"
            "  --min-response-len N  NPUW_LLM_MIN_RESPONSE_LEN (default 128)\n"
            "  --prefill-hint H      NPUW_LLM_PREFILL_HINT: STATIC compiles the prefill at the window\n"
            "                        (OpenVINO's default DYNAMIC compiles 1024-token chunks)\n"
            "  --generate-pyramid B  NPUW_LLM_GENERATE_PYRAMID YES|NO (YES: one generate model per 1K step)\n"
            "  --prefill-attention-hint H, --generate-attention-hint H\n"
            "                        NPUW_LLM_{PREFILL,GENERATE}_ATTENTION_HINT STATIC|DYNAMIC|PYRAMID (default\n"
            "                        STATIC, pinned from OpenVINO 2026.0, whose defaults move inside 2026.x)\n"
            "  --shared-head B       NPUW_LLM_SHARED_HEAD YES|NO (default YES, pinned likewise)\n"
            "  --compiler-type T     NPU_COMPILER_TYPE (default: DRIVER on a device, PLUGIN offline; pinned because\n"
            "                        the stock choice moves between 2026.x minors and SKUs)\n"
            "  --offline-only        with --platform: fail on a machine with an NPU instead of compiling on it\n"
            "  --platform P          NPU_PLATFORM (NPU3720, NPU4000, NPU5010): with no NPU present, compile\n"
            "                        offline (OpenVINO >= 2026.0; no import then)\n"
            "  --cache-mode M        CACHE_MODE (default for an exported NPUW blob: OPTIMIZE_SPEED, with weights;\n"
            "                        OPTIMIZE_SIZE exports it weightless, which the C API cannot import)\n"
            "  --log-level L         LOG_LEVEL (default LOG_INFO: turns the per-pass timing report on)\n"
            "Instrumentation (adds NPU_COMPILATION_MODE_PARAMS; under NPUW its default is kept in front):\n"
            "  --schedule-trace      enable-schedule-trace=true (compileTimeScheduleTrace.json)\n"
            "  --strategy-out        write-strategy-to-json=true (strategy_out.json)\n"
            "  --task-stats          dump-task-stats=true\n"
            "  --strategy-in FILE    offer FILE as strategy_in.json, read-strategy-from-json=true\n"
            "  --reuse-strategy      deterministic strategy replay: offer the cached strategy of the same model\n"
            "                        and options (stored after the first compile); not with --window (NPUW)\n"
            "  --cache-dir DIR       strategy cache root (default $PASSMAP_CACHE_DIR, ~/.cache/passmap)\n"
            "  --prop KEY=VALUE      extra property (repeatable; overrides a built one)\n"
            "  --workdir DIR         working directory of the compile (trace files land there; default .)\n"
            "  --export FILE         export the blob (default with --import: WORKDIR/model.blob)\n"
            "  --import              time ov_core_import_model of the exported blob (the warm path; a failed\n"
            "                        import is reported as import_error, the compile still counts)\n"
            "  --lib PATH            libopenvino_c (default $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)\n"
            "  --json                end with the bare JSON object instead of the PASSMAP-OV-RESULT line\n");
    cli_help_tail(out, "ov-compile", "0 compiled (a failed --import is reported, not an error), 1 the compile failed, 2 bad usage");
}

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
    enum { O_SCHED = 256, O_SOUT, O_SIN, O_REUSE, O_CACHE, O_PROP, O_WORKDIR, O_EXPORT, O_IMPORT, O_LIB, O_JSON,
           O_LOG, O_WEIGHTS, O_MINRESP, O_PREFILL, O_PYRAMID, O_PLATFORM, O_CACHEMODE, O_TSTATS, O_PATTN, O_GATTN,
           O_SHEAD, O_CTYPE, O_OFFONLY };
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},       {"weights", required_argument, 0, O_WEIGHTS},
        {"device", required_argument, 0, 'd'},      {"window", required_argument, 0, 'w'},
        {"log-level", required_argument, 0, O_LOG}, {"schedule-trace", no_argument, 0, O_SCHED},
        {"strategy-out", no_argument, 0, O_SOUT},   {"strategy-in", required_argument, 0, O_SIN},
        {"reuse-strategy", no_argument, 0, O_REUSE}, {"cache-dir", required_argument, 0, O_CACHE},
        {"prop", required_argument, 0, O_PROP},     {"workdir", required_argument, 0, O_WORKDIR},
        {"export", required_argument, 0, O_EXPORT}, {"import", no_argument, 0, O_IMPORT},
        {"lib", required_argument, 0, O_LIB},       {"json", no_argument, 0, O_JSON},
        {"min-response-len", required_argument, 0, O_MINRESP},
        {"prefill-hint", required_argument, 0, O_PREFILL},
        {"generate-pyramid", required_argument, 0, O_PYRAMID},
        {"platform", required_argument, 0, O_PLATFORM},
        {"cache-mode", required_argument, 0, O_CACHEMODE},
        {"task-stats", no_argument, 0, O_TSTATS},
        {"prefill-attention-hint", required_argument, 0, O_PATTN},
        {"generate-attention-hint", required_argument, 0, O_GATTN},
        {"shared-head", required_argument, 0, O_SHEAD},
        {"compiler-type", required_argument, 0, O_CTYPE},
        {"offline-only", no_argument, 0, O_OFFONLY},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
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
    while ((c = getopt_long(argc, argv, "m:d:w:h", longopts, NULL)) != -1) {
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
            if (strcmp(optarg, "STATIC") && strcmp(optarg, "DYNAMIC") && strcmp(optarg, "PYRAMID")) {
                fprintf(stderr, "passmap ov-compile: --%s-attention-hint is STATIC, DYNAMIC or PYRAMID, not '%s'\n",
                        c == O_PATTN ? "prefill" : "generate", optarg);
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
        case O_CTYPE: o.compiler_type = optarg; break;
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
        case 'h': usage(stdout); rc = PM_EXIT_OK; goto cleanup;
        default:
            fprintf(stderr, "passmap ov-compile: see 'passmap ov-compile --help'\n");
            rc = PM_EXIT_USAGE;
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
    fprintf(stderr, "; OpenVINO %s, compiler %s%s\n", *r.ov_version ? r.ov_version : "?",
            *r.compiler_type_resolved ? r.compiler_type_resolved : "unresolved",
            r.strategy_reused ? ", strategy reused" : "");
    rc = PM_EXIT_OK;
cleanup:
    pm_ov_result_free(&r);
    free(json_text);
    free(cached);
    free(extra);
    return rc;
}
