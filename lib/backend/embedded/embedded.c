/* The embedded compiler back end: mlir-opt (tiling + full unroll pipeline) → mlir-translate → llc. */
#include "embedded.h"
#include "embedded_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "gen.h"
#include "spec.h"
#include "backends.h"
#include "steps.h"
#include "sweep_ov.h"
#include "util.h"


static char *path_in(const char *dir, const char *file)
{
    char *s = NULL;
    return asprintf(&s, "%s/%s", dir, file) < 0 ? NULL : s;
}

/* The pipeline; with probes, print-op-stats sits at the stage boundaries (same passes, same order: lower-affine
 * moves into its own func.func nest, which changes nothing). */
static char *pipeline(const pm_embedded_opts *opts, int probes)
{
    int tile = opts && opts->tile > 0 ? opts->tile : DEFAULT_TILE;
    int unroll = opts && opts->unroll > 0 ? opts->unroll : DEFAULT_UNROLL;
    int norb = opts && opts->no_rollback;
    const char *p = probes ? "print-op-stats," : "";
    const char *fusion = "func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),";
    const char *bufferize =
        "one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},"
        "canonicalize,buffer-deallocation-pipeline";
    const char *back = norb ? "convert-scf-to-cf{allow-pattern-rollback=0},expand-strided-metadata,lower-affine,"
                              "convert-to-llvm{allow-pattern-rollback=0},reconcile-unrealized-casts"
                            : "convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
                              "convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
                              "reconcile-unrealized-casts";
    char *s = NULL;
    int k = probes
                ? asprintf(&s,
                           "builtin.module(%s%s%s%s,%sfunc.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=%d},"
                           "canonicalize,affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=%d},canonicalize,cse),"
                           "%sfunc.func(lower-affine),%s)",
                           p, fusion, p, bufferize, p, tile, unroll, p, back)
                : asprintf(&s,
                           "builtin.module(%s%s,func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=%d},"
                           "canonicalize,affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=%d},canonicalize,cse,"
                           "lower-affine),%s)",
                           fusion, bufferize, tile, unroll, back);
    return k < 0 ? NULL : s;
}

char *pm_embedded_pipeline(const pm_embedded_opts *opts)
{
    return pipeline(opts, 0);
}

/* Sums each "Operations encountered:" table of print-op-stats ("  name , count" rows) in order. */
static int read_op_tables(const char *path, double *sums, int cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Operations encountered:", 23)) {
            if (n == cap) {
                n = cap + 1;   /* more tables than probes: not ours */
                break;
            }
            sums[n++] = 0;
            continue;
        }
        char *comma = strrchr(line, ',');
        if (n > 0 && comma && strchr(line, '.')) {
            char *end;
            long v = strtol(comma + 1, &end, 10);
            if (end != comma + 1 && v > 0)
                sums[n - 1] += (double)v;
        }
    }
    fclose(f);
    return n;
}

int pm_embedded_stage_sizes(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                            const char *workdir, double timeout_s, const volatile sig_atomic_t *cancel,
                            pm_embedded_stage_size out[PM_EMBEDDED_N_PROBES], pm_err *err)
{
    static const char *const stages[PM_EMBEDDED_N_PROBES] = {"fusion", "bufferization", "tiling",
                                                             "lowering-to-llvm", "canonicalize-cse"};
    char *pipe = pipeline(opts, 1), *arg = NULL, *errp = path_in(workdir, "stage-sizes.stderr");
    int rc = PM_OK;
    for (int i = 0; i < PM_EMBEDDED_N_PROBES; i++)
        out[i] = (pm_embedded_stage_size){stages[i], NAN};
    if (!pipe || !errp || asprintf(&arg, "--pass-pipeline=%s", pipe) < 0) {
        arg = NULL;
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    const char *argv[] = {tools->mlir_opt, input_mlir, arg, "-o", "/dev/null", NULL};
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = workdir, .stderr_path = errp, .cancel = cancel};
    pm_run_result res;
    if ((rc = pm_run_exec(argv, &ro, &res, err)))
        goto cleanup;
    if (res.status != PM_RUN_OK) {
        rc = pm_err_set(err, PM_ERR_CHILD, "measuring IR sizes per stage: mlir-opt %s (see %s)",
                        res.status == PM_RUN_TIMEOUT ? "timed out" : "failed", errp);
        goto cleanup;
    }
    double sums[4];
    int n = read_op_tables(errp, sums, 4);
    if (n != 4) {
        rc = pm_err_set(err, PM_ERR_PARSE, "measuring IR sizes per stage: %s has %d op-count tables, expected 4",
                        errp, n);
        goto cleanup;
    }
    /* Entry of each stage: the input for fusion; after fusion for bufferization; after bufferization for tiling
     * (the loops before they are tiled and unrolled); after tiling and unrolling for the lowering to LLVM and for
     * canonicalize/CSE, whose costly instance is the one that cleans up the unrolled loops. */
    out[0].ops = sums[0];
    out[1].ops = sums[1];
    out[2].ops = sums[2];
    out[3].ops = out[4].ops = sums[3];
cleanup:
    free(pipe);
    free(arg);
    free(errp);
    return rc;
}

/* The embedded pipeline as data: a built-in preset in the same [step NAME] syntax a `command` spec uses,
 * rendered once with the spec's fixed options (display, JSON output, threading, llc -O). Per config and run:
 * {bindir}, {input} (the generated workload), {pipeline} (tile, unroll, variant), {out} (the run folder). */
static char *preset_text(const pm_embedded_opts *o)
{
    const char *display = o->display ? o->display : "tree";
    const char *json = o->json ? " --mlir-output-format=json" : "";
    const char *fmt = o->json ? "mlir-json" : "mlir-text";
    int olevel = o->llc_opt < 0 ? 2 : o->llc_opt;
    /* the words the steps' reports need, as argv writes them: a twin run leaves them out (timing_twins) */
    char mlir_flag[128] = "", llc_flag[32] = "";
    if (o->timing_twins) {
        snprintf(mlir_flag, sizeof mlir_flag, "timing_flag = --mlir-timing --mlir-timing-display=%s%s\n", display,
                 json);
        snprintf(llc_flag, sizeof llc_flag, "timing_flag = -time-passes\n");
    }
    /* both MLIR tools: with threads on, what they write and count moves run to run (docs/meters.md) */
    const char *one_thread = o->single_thread ? " --mlir-disable-threading" : "";
    char *s = NULL;
    if (asprintf(&s,
                 "[step mlir-opt]\n"
                 "argv = {bindir}/mlir-opt {input} --pass-pipeline={pipeline} --mlir-timing"
                 " --mlir-timing-display=%s%s%s --emit-bytecode -o {out}/out.mlirbc\n"
                 "format = %s\ntool = mlir-opt\ninputs = {input}\noutputs = {out}/out.mlirbc\n%s"
                 "ir.mlirbc_bytes = size {out}/out.mlirbc\n"
                 "[step mlir-translate]\n"
                 "argv = {bindir}/mlir-translate --mlir-to-llvmir --mlir-timing --mlir-timing-display=%s%s%s"
                 " {out}/out.mlirbc -o {out}/out.ll\n"
                 "format = %s\ntool = mlir-translate\ninputs = {out}/out.mlirbc\noutputs = {out}/out.ll\n%s"
                 "[step llc]\n"
                 "argv = {bindir}/llc -O%d -filetype=obj -time-passes {out}/out.ll -o {out}/out.o\n"
                 "format = llvm-text\ntool = llc\ninputs = {out}/out.ll\noutputs = {out}/out.o\n%s"
                 "ir.llvm_ops = llvm-insts {out}/out.ll\n"
                 "ir.object_bytes = size {out}/out.o\n",
                 display, json, one_thread, fmt, mlir_flag, display, json, one_thread, fmt, mlir_flag, olevel,
                 llc_flag) < 0)
        return NULL;
    return s;
}

static const char *const preset_placeholders[] = {"bindir", "input", "pipeline", "out", NULL};

static int preset_known(const char *name, void *user, char *why, size_t cap)
{
    for (const char *const *p = preset_placeholders; *p; p++)
        if (!strcmp(*p, name))
            return 1;
    snprintf(why, cap, "not a placeholder of the embedded preset");
    return 0;
}

static int preset_parse(const pm_embedded_opts *o, pm_step_tmpls *out, pm_err *err)
{
    char *text = preset_text(o);
    if (!text)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_spec_entries es;
    int rc = pm_spec_entries_parse(text, &es, err);
    if (rc == PM_OK)
        rc = pm_step_tmpls_parse(&es, "embedded preset", preset_known, NULL, out, err);
    if (rc)
        pm_err_wrap(err, "embedded preset");
    pm_spec_entries_free(&es);
    free(text);
    return rc;
}

typedef struct preset_vals {
    const char *bindir, *input, *pipeline, *out;
} preset_vals;

static const char *preset_value(const char *name, void *user)
{
    const preset_vals *v = user;
    if (!strcmp(name, "bindir")) return v->bindir;
    if (!strcmp(name, "input")) return v->input;
    if (!strcmp(name, "pipeline")) return v->pipeline;
    if (!strcmp(name, "out")) return v->out;
    return NULL;
}

static int check_opts(const pm_embedded_opts *opts, pm_err *err)
{
    const char *display = opts->display ? opts->display : "tree";
    if (strcmp(display, "tree") && strcmp(display, "list"))
        return pm_err_set(err, PM_ERR_USAGE, "timing display '%s' (tree or list)", display);
    if (opts->tile < 0 || opts->unroll < 0)
        return pm_err_set(err, PM_ERR_USAGE, "tile and unroll must be >= 0 (0: defaults %d, %d)", DEFAULT_TILE,
                          DEFAULT_UNROLL);
    int olevel = opts->llc_opt < 0 ? 2 : opts->llc_opt;
    if (olevel > 3)
        return pm_err_set(err, PM_ERR_USAGE, "llc -O%d (0..3)", olevel);
    return PM_OK;
}

static int expand_preset(const pm_step_tmpls *t, const pm_embedded_opts *opts, const char *bindir,
                         const char *input_mlir, const char *workdir, pm_steps *out, pm_err *err)
{
    char *pipeline = pm_embedded_pipeline(opts);
    if (!pipeline)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building the embedded steps");
    preset_vals v = {.bindir = bindir, .input = input_mlir, .pipeline = pipeline, .out = workdir};
    int rc = pm_step_tmpls_expand(t, preset_value, &v, workdir, out, err);
    free(pipeline);
    return rc;
}

int pm_embedded_steps(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                      const char *workdir, pm_steps *out, pm_err *err)
{
    pm_embedded_opts def = {0};
    def.llc_opt = -1;
    if (!opts)
        opts = &def;
    out->items = NULL;
    out->n = 0;
    int rc = check_opts(opts, err);
    if (rc)
        return rc;
    if (!input_mlir || !workdir)
        return pm_err_set(err, PM_ERR_USAGE, "input and workdir are required");
    pm_step_tmpls t;
    if ((rc = preset_parse(opts, &t, err)))
        return rc;
    rc = expand_preset(&t, opts, tools->bindir, input_mlir, workdir, out, err);
    pm_step_tmpls_free(&t);
    return rc;
}

/* ---- the back-end row ---- */

static pm_embedded_opts spec_opts(const pm_spec *spec, const pm_spec_config *c)
{
    const pm_embedded_spec *s = pm_embedded_spec_of(spec);
    int vtile = c ? pm_spec_variant_tile(c) : 0;
    pm_embedded_opts o = {.tile = c ? (vtile ? vtile : pm_embedded_config_tile(c)) : s->tile,
                          .unroll = c ? pm_embedded_config_unroll(c) : s->unroll,
                          .no_rollback = c ? pm_spec_variant_has(c, "no-rollback") : 0,
                          .single_thread = s->single_thread,
                          .display = s->display,
                          .json = s->json,
                          .llc_opt = s->llc_opt,
                          .timing_twins = s->timing_twins};
    return o;
}

static int embedded_parse_spec(pm_spec *s, pm_spec_entries *es, pm_err *err)
{
    embedded_data *d = calloc(1, sizeof *d);
    if (!d)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    s->backend_data = d;
    s->backend_free = pm_embedded_data_free;
    /* [openvino] is read (and checked) too: one spec may be swept by either back end */
    int rc = pm_embedded_spec_parse(es, &d->opts, err);
    if (!rc)
        rc = pm_ov_spec_check(es, err);
    pm_spec_pipe pipe = pm_embedded_pipe(&d->opts);
    if (!rc)
        rc = pm_spec_parse_workloads(s, es, &pipe, err);
    if (rc)
        return rc;
    pm_embedded_opts o = spec_opts(s, NULL);
    if ((rc = check_opts(&o, err)))
        return rc;
    s->timing_pairs = o.timing_twins;
    return preset_parse(&o, &d->tmpls, err);
}

static int embedded_prepare(pm_backend_ctx *ctx, pm_err *err)
{
    pm_embedded_tools *t = calloc(1, sizeof *t);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ctx->state = t;
    const pm_spec *s = ctx->spec;
    const pm_embedded_spec *es = pm_embedded_spec_of(s);
    const char *bindir = es->bindir[0] ? es->bindir : s->sweep_bindir[0] ? s->sweep_bindir : NULL;
    return pm_embedded_find_tools(bindir, t, err);
}

static int embedded_prepare_config(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out,
                                   pm_err *err)
{
    const pm_spec_config *c = &ctx->spec->configs[config];
    if (snprintf(out->input, sizeof out->input, "%s/input.mlir", dir) >= (int)sizeof out->input)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %s", dir);
    FILE *f = fopen(out->input, "w");
    if (!f)
        return pm_err_errno(err, PM_ERR_IO, "cannot write %s", out->input);
    int rc;
    pm_gen_info info;
    memset(&info, 0, sizeof info);
    const pm_kind *k = pm_kind_find(c->kind);
    pm_workload w = pm_spec_workload(c);
    rc = k && k->emit ? k->emit(&w, f, &info, err)
                      : pm_err_set(err, PM_ERR_UNSUPPORTED, "no generator for kind '%s'", c->kind);
    if (fclose(f) && rc == PM_OK)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", out->input);
    if (rc)
        return pm_err_wrap(err, "generating %s", c->key);
    out->params = json_pack("{s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "params", (json_int_t)info.params,
                            "weight_bytes", (json_int_t)info.weight_bytes, "layers_total", info.layers_total,
                            "layers_emitted", info.layers_emitted, "linalg_ops", info.linalg_ops, "functions",
                            info.functions, "blocks", w.blocks, "tile", spec_opts(ctx->spec, c).tile,
                            "unroll", pm_embedded_config_unroll(c));
    /* IR size of the generated workload: the x axis of the scaling-law fits */
    if (info.linalg_ops > 0)
        out->metrics[out->n_metrics++] = (pm_metric){pm_unconst("ir.ops"), info.linalg_ops};
    if (info.weight_bytes > 0)
        out->metrics[out->n_metrics++] = (pm_metric){pm_unconst("ir.weight_bytes"), (double)info.weight_bytes};
    if (!out->params)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    return PM_OK;
}

/* The IR each stage processes: an extra mlir-opt with op counts at the stage boundaries, once per config and
 * outside the timed runs, stored with every run as ir.stage.<stage>. A config whose probe fails (e.g. a compile
 * that fails) just has no stage sizes: its mlir-opt passes then get no cost fit (never one against the input
 * size). */
static int embedded_probe_config(pm_backend_ctx *ctx, int config, const char *dir, pm_backend_config *out,
                                 pm_err *err)
{
    const pm_spec_config *c = &ctx->spec->configs[config];
    static const char *const stage_metric[PM_EMBEDDED_N_PROBES] = {
        "ir.stage.fusion", "ir.stage.bufferization", "ir.stage.tiling", "ir.stage.lowering-to-llvm",
        "ir.stage.canonicalize-cse"};
    pm_embedded_opts eo = spec_opts(ctx->spec, c);
    pm_embedded_stage_size sz[PM_EMBEDDED_N_PROBES];
    pm_err perr = {0};
    if (!pm_embedded_stage_sizes(&eo, ctx->state, out->input, dir, ctx->spec->timeout_s, ctx->cancel, sz, &perr))
        for (int i = 0; i < PM_EMBEDDED_N_PROBES; i++)
            if (sz[i].ops > 0) {
                if (out->n_metrics >= (int)(sizeof out->metrics / sizeof out->metrics[0]))
                    return pm_err_set(err, PM_ERR_USAGE, "%s: more than %zu per-config metrics", c->key,
                                      sizeof out->metrics / sizeof out->metrics[0]);
                out->metrics[out->n_metrics++] = (pm_metric){pm_unconst(stage_metric[i]), sz[i].ops};
            }
    return PM_OK;
}

static int embedded_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir,
                          pm_steps *out, pm_err *err)
{
    const pm_spec_config *c = &ctx->spec->configs[config];
    const pm_embedded_tools *t = ctx->state;
    pm_embedded_opts o = spec_opts(ctx->spec, c);
    const embedded_data *d = ctx->spec->backend_data;
    return expand_preset(&d->tmpls, &o, t->bindir, config_input, run_dir, out, err);
}

/* Start-up: the preset's steps on an empty module (mlir-opt on `module {}`, mlir-translate on its output,
 * llc on the resulting empty .ll), so each tool is started with the flags it has in a real run. */
static int embedded_null_steps(pm_backend_ctx *ctx, const char *dir, pm_steps *out, char **not_measured,
                               pm_err *err)
{
    const pm_embedded_tools *t = ctx->state;
    *not_measured = NULL;
    char *input = path_in(dir, "empty.mlir");
    if (!input)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    FILE *f = fopen(input, "w");
    int rc = PM_OK;
    if (!f || fputs("module {}\n", f) < 0)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", input);
    if (f && fclose(f) && !rc)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", input);
    pm_embedded_opts o = spec_opts(ctx->spec, NULL);
    const embedded_data *d = ctx->spec->backend_data;
    if (!rc)
        rc = expand_preset(&d->tmpls, &o, t->bindir, input, dir, out, err);
    free(input);
    return rc;
}

static void embedded_describe(pm_backend_ctx *ctx, json_t *meta)
{
    const pm_embedded_tools *t = ctx->state;
    json_object_set_new(meta, "compiler", json_string("MLIR/LLVM"));
    json_object_set_new(meta, "compiler_version", json_string(t ? t->version : ""));
    json_object_set_new(meta, "bindir", json_string(t ? t->bindir : ""));
    const pm_embedded_spec *es = pm_embedded_spec_of(ctx->spec);
    json_object_set_new(meta, "tile", json_integer(es->tile));
    json_object_set_new(meta, "unroll", json_integer(es->unroll));
    pm_embedded_opts eo = {.tile = es->tile, .unroll = es->unroll};
    char *pipe = pm_embedded_pipeline(&eo);
    if (pipe)
        json_object_set_new(meta, "pipeline", json_string(pipe));
    free(pipe);
}

static void embedded_cleanup(pm_backend_ctx *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
}

/* Counts bytes written through a FILE without keeping them. */
static ssize_t count_write(void *cookie, const char *buf, size_t size)
{
    (void)buf;
    *(long long *)cookie += (long long)size;
    return (ssize_t)size;
}

/* IR-size estimate in bytes of IR: the generated workload, grown the way this pipeline grows it (its kind row's
 * grow: the tile loops unroll for an LLM, a CNN's cost follows the pixel count). */
static double embedded_shard_cost(const pm_spec *spec, int config)
{
    const pm_spec_config *c = &spec->configs[config];
    long long bytes = 0;
    cookie_io_functions_t io = {.write = count_write};
    FILE *f = fopencookie(&bytes, "w", io);
    if (!f)
        return 0;
    pm_gen_info info;
    pm_err err = {0};
    const pm_kind *k = pm_kind_find(c->kind);
    pm_workload w = pm_spec_workload(c);
    int rc = k && k->emit ? k->emit(&w, f, &info, &err) : PM_ERR_UNSUPPORTED;
    fclose(f);
    if (rc != PM_OK)
        return 0;
    return (double)bytes * (k->grow ? k->grow(&w, pm_embedded_config_tile(c)) : 1);
}

/* llc and mlir-translate work on the LLVM IR mlir-translate writes; each mlir-opt stage on the IR at its entry
 * (the probe of prepare_config). */
static const pm_fit_size embedded_fit_sizes[] = {
    {"llc", NULL, "ir.llvm_ops"}, {"mlir-translate", NULL, "ir.llvm_ops"}, {NULL, NULL, "ir.stage.{stage}"}, {0}};

const pm_backend_ops pm_backend_embedded = {
    .name = "embedded",
    .sections = "[embedded], [KIND NAME]",
    .parse_spec = embedded_parse_spec,
    .prepare = embedded_prepare,
    .prepare_config = embedded_prepare_config,
    .probe_config = embedded_probe_config,
    .steps = embedded_steps,
    .null_steps = embedded_null_steps,
    .describe = embedded_describe,
    .cleanup = embedded_cleanup,
    .fix = &pm_embedded_fix,
    .shard_cost = embedded_shard_cost,
    .fit_sizes = embedded_fit_sizes,
};
