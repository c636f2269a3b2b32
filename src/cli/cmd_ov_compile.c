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

/* What the options say, each row binding its field. */
typedef struct ov_cli {
    pm_ov_opts o;
    int json, reuse;
    const char *cache_dir;
    cli_list extra;   /* --prop KEY=VALUE... */
} ov_cli;

/* --import-max-ram-share: a share in (0, 1]. */
static int ram_share(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0 && v <= 1))
        return cli_refuse(cmd, "--%s wants a share in (0, 1], got '%s'", o->name, arg);
    *(double *)field = v;
    return 0;
}

enum { MAX_TOKENS = 1 << 24 };   /* the largest window or response length taken */

/* clang-format off */
static const cli_opt ov_opts[] = {
    {"model", 'm', 1, "FILE", "OpenVINO IR .xml", CLI_BIND_STR(ov_cli, o.model_xml)},
    {"weights", 0, 0, "FILE", "its .bin (default: beside the .xml)", CLI_BIND_STR(ov_cli, o.model_bin)},
    {"device", 'd', 1, "NAME", "NPU (default), CPU, GPU", CLI_BIND_STR(ov_cli, o.device)},
    {"window", 'w', 1, "N", "LLM prompt window: NPU_USE_NPUW/NPUW_LLM/NPUW_LLM_MAX_PROMPT_LEN=N, plus\n"
                            "NPUW_LLM_MIN_RESPONSE_LEN, NPUW_LLM_BATCH_DIM=0, NPUW_LLM_SEQ_LEN_DIM=2",
                            CLI_BIND_INT(ov_cli, o.window, 0, MAX_TOKENS)},
    {"min-response-len", 0, 0, "N", "NPUW_LLM_MIN_RESPONSE_LEN (default 128)",
                                    CLI_BIND_INT(ov_cli, o.min_response_len, 1, MAX_TOKENS)},
    {"prefill-hint", 0, 0, "H", "NPUW_LLM_PREFILL_HINT: STATIC compiles the prefill at the window\n"
                                "(OpenVINO's default DYNAMIC compiles 1024-token chunks)",
                                CLI_BIND_CHOICE(ov_cli, o.prefill_hint, "STATIC, DYNAMIC")},
    {"generate-pyramid", 0, 0, "B", "NPUW_LLM_GENERATE_PYRAMID YES|NO (YES: a generate model per 1024*2^k +\n"
                                    "min response below the KV size; its default differs between 2026 copies)",
                                    CLI_BIND_CHOICE(ov_cli, o.generate_pyramid, "YES, NO")},
    {"prefill-attention-hint", 0, 0, "H", "NPUW_LLM_PREFILL_ATTENTION_HINT STATIC|DYNAMIC|PYRAMID|HFA (default\n"
                                          "STATIC, pinned from OpenVINO 2026.0, whose defaults move inside 2026.x;\n"
                                          "it changes the partitioning only with a chunked prefill)",
                                          CLI_BIND_CHOICE(ov_cli, o.prefill_attention_hint, PM_OV_ATTENTION_HINTS)},
    {"generate-attention-hint", 0, 0, "H", "NPUW_LLM_GENERATE_ATTENTION_HINT, likewise",
                                           CLI_BIND_CHOICE(ov_cli, o.generate_attention_hint, PM_OV_ATTENTION_HINTS)},
    {"shared-head", 0, 0, "B", "NPUW_LLM_SHARED_HEAD YES|NO (default YES, pinned likewise)",
                               CLI_BIND_CHOICE(ov_cli, o.shared_head, "YES, NO")},
    {"compiler-type", 0, 0, "T", "NPU_COMPILER_TYPE PLUGIN|DRIVER|PREFER_PLUGIN (2026; MLIR|DRIVER before);\n"
                                 "default: DRIVER on a device, PLUGIN offline; pinned because the stock\n"
                                 "choice moves between 2026.x minors and SKUs",
                                 CLI_BIND_CHOICE(ov_cli, o.compiler_type, "PLUGIN, DRIVER, PREFER_PLUGIN, MLIR")},
    {"offline-only", 0, 0, NULL, "with --platform: fail on a machine with an NPU instead of compiling on it",
                                 CLI_BIND_FLAG(ov_cli, o.offline_only)},
    {"platform", 0, 0, "P", "NPU_PLATFORM (NPU3720, NPU4000, NPU5010): with no NPU present, compile\n"
                            "offline (OpenVINO >= 2026.0; no import then)", CLI_BIND_STR(ov_cli, o.platform)},
    {"cache-mode", 0, 0, "M", "CACHE_MODE (default for an exported NPUW blob: OPTIMIZE_SPEED, with weights;\n"
                              "OPTIMIZE_SIZE exports it weightless, which the C API cannot import)",
                              CLI_BIND_STR(ov_cli, o.cache_mode)},
    {"log-level", 0, 0, "L", "LOG_LEVEL (default LOG_INFO: turns the per-pass timing report on)",
                             CLI_BIND_STR(ov_cli, o.log_level)},
    {"", 0, 0, NULL, "Instrumentation (adds NPU_COMPILATION_MODE_PARAMS; under NPUW its default is kept in front):"},
    {"schedule-trace", 0, 0, NULL, "enable-schedule-trace=true (compileTimeScheduleTrace.json)",
                                   CLI_BIND_FLAG(ov_cli, o.schedule_trace)},
    {"strategy-out", 0, 0, NULL, "write-strategy-to-json=true (strategy_out.json)", CLI_BIND_FLAG(ov_cli, o.strategy_out)},
    {"task-stats", 0, 0, NULL, "dump-task-stats=true", CLI_BIND_FLAG(ov_cli, o.task_stats)},
    {"strategy-in", 0, 0, "FILE", "offer FILE as strategy_in.json, read-strategy-from-json=true",
                                  CLI_BIND_STR(ov_cli, o.strategy_in)},
    {"reuse-strategy", 0, 0, NULL, "deterministic strategy replay: offer the cached strategy of the same model\n"
                                   "and options (stored after the first compile); not with --window (NPUW)",
                                   CLI_BIND_FLAG(ov_cli, reuse)},
    {"cache-dir", 0, 0, "DIR", "strategy cache root (default $PASSMAP_CACHE_DIR, ~/.cache/passmap)",
                               CLI_BIND_STR(ov_cli, cache_dir)},
    {"prop", 0, 0, "KEY=VALUE", "extra property (repeatable; overrides a built one)", CLI_BIND_LIST(ov_cli, extra)},
    {"workdir", 0, 0, "DIR", "working directory of the compile (trace files land there; default .)",
                             CLI_BIND_STR(ov_cli, o.workdir)},
    {"export", 0, 0, "FILE", "export the blob (default with --import: WORKDIR/model.blob)",
                             CLI_BIND_STR(ov_cli, o.export_path)},
    {"import", 0, 0, NULL, "time ov_core_import_model of the exported blob (the warm path; a failed\n"
                           "import is reported as import_error, the compile still counts)",
                           CLI_BIND_FLAG(ov_cli, o.do_import)},
    {"import-max-ram-share", 0, 0, "F", "with --import: do not import (and say why) when the weights exceed\n"
                                        "F of MemTotal (0 < F <= 1; the sweep passes 0.5)",
                                        CLI_BIND_FN(ov_cli, o.import_max_ram_share, ram_share)},
    {"lib", 0, 0, "PATH", "libopenvino_c (default $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)",
                          CLI_BIND_STR(ov_cli, o.lib)},
    {"json", 0, 0, NULL, "end with the bare JSON object instead of the PASSMAP-OV-RESULT line",
                         CLI_BIND_FLAG(ov_cli, json)},
    {0},
};
/* clang-format on */
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

/* The compile's summary on stderr: its seconds, what it ran on, and what NPUW changed of what was sent. */
static void print_summary(const pm_ov_result *r)
{
    fprintf(stderr, "ov-compile: %s compile %.3f s", r->device, r->compile_s);
    if (r->export_s >= 0)
        fprintf(stderr, ", export %.3f s (%lld bytes)", r->export_s, r->blob_bytes);
    if (r->import_s >= 0)
        fprintf(stderr, ", import %.3f s", r->import_s);
    else if (*r->import_error)
        fprintf(stderr, ", import FAILED (%s)", r->import_error);
    else if (*r->import_skipped)
        fprintf(stderr, ", no import (%s)", r->import_skipped);
    if (r->offline)
        fprintf(stderr, ", offline for %s", r->platform);
    fprintf(stderr, "; OpenVINO %s, compiler %s%s%s%s%s%s\n", *r->ov_version ? r->ov_version : "?",
            *r->compiler_type_resolved ? r->compiler_type_resolved : "unresolved",
            *r->compiler_version_decoded ? " " : "", r->compiler_version_decoded,
            *r->compiler_version_source ? " (version from the " : "", r->compiler_version_source,
            *r->compiler_version_source ? ")" : "");
    if (r->strategy_reused)
        fprintf(stderr, "ov-compile: strategy reused\n");
    /* What NPUW compiled where it differs from what was sent (it rounds and defaults). */
    for (int i = 0; i < r->effective.n; i++) {
        const char *k = r->effective.items[i].key, *v = r->effective.items[i].value, *sent = NULL;
        for (int j = 0; j < r->props.n; j++)
            if (!strcmp(r->props.items[j].key, k))
                sent = r->props.items[j].value;
        if (sent && strcmp(sent, v))
            fprintf(stderr, "ov-compile: %s compiled as %s (sent %s)\n", k, v, sent);
    }
}

/* --reuse-strategy: the cached strategy of the same model and options offered (*cached, freed by the caller), or
 * when there is none yet, the compile asked to write one (key: where it is stored). */
static int offer_strategy(pm_ov_opts *o, const char *cache_dir, char *key, char **cached, pm_err *err)
{
    int status = pm_ov_strategy_key(o, key, err);
    if (status != PM_OK)
        return status;
    int f = pm_ov_strategy_fetch(cache_dir, key, cached, err);
    if (f == PM_OK) {
        o->strategy_in = *cached;
    } else if (f == PM_ERR_NOTFOUND) {
        o->strategy_out = 1;
        pm_err_clear(err);
    } else {
        return f;
    }
    return PM_OK;
}

/* The compile of the options in cli, its result line written (in on_result, or here when it never ran). */
static int ov_compile_run(ov_cli *cli, int argc)
{
    pm_ov_opts o = cli->o;
    pm_ov_result r;
    pm_err err;
    int json = cli->json;
    char *cached = NULL, *json_text = NULL, key[33] = "";
    emit_ctx ec = {0};
    pm_err_clear(&err);
    memset(&r, 0, sizeof r);
    if (optind < argc || !o.model_xml) {
        fprintf(stderr, "passmap ov-compile: %s (see --help)\n",
                optind < argc ? "unexpected argument" : "--model is required");
        return PM_EXIT_USAGE;
    }
    if (cli->reuse && o.window > 0) {
        /* Under NPUW every subgraph compile overwrites strategy_out.json: only the last one's could be replayed. */
        fprintf(stderr, "passmap ov-compile: --reuse-strategy is off under NPUW (--window): only the last "
                        "subgraph's strategy file survives a compile\n");
        return PM_EXIT_USAGE;
    }
    o.extra = cli->extra.v;
    int status = PM_OK;
    if (cli->reuse && !o.strategy_in && (status = offer_strategy(&o, cli->cache_dir, key, &cached, &err)) != PM_OK)
        goto report;
    ec = (emit_ctx){.json = json, .cache_dir = cli->cache_dir, .workdir = o.workdir, .cached = cached, .key = key};
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
    } else {
        print_summary(&r);
    }
    pm_ov_result_free(&r);
    free(json_text);
    free(cached);
    return status == PM_OK ? PM_EXIT_OK : PM_EXIT_FAIL;
}

int cmd_ov_compile(int argc, char **argv)
{
    ov_cli cli = {0};
    int rc = cli_parse_args(&ov_cmd, argc, argv, &cli, NULL);
    if (rc == CLI_GO)
        rc = ov_compile_run(&cli, argc);
    cli_list_free(&cli.extra);
    return rc;
}
