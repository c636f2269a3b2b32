/* passmap doctor's checks of the openvino back end (its row's doctor): the OpenVINO version, the devices, the NPU
 * compiler type and decoded version, then a compile of a tiny model passmap writes itself (one matmul block) the
 * way a sweep does (a `passmap ov-compile` child through the runner): on the NPU when one is present, and offline
 * for NPU_PLATFORM with the compiler inside the plugin; then the study's own kind of compile, an NPUW LLM one.
 * Fails loudly here rather than hours into a sweep. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends.h"
#include "ov.h"
#include "parse.h"
#include "run.h"
#include "util.h"

typedef struct attempt {
    const char *what;
    int tried, ok, blocks;
    int npuw_lines;             /* "[ NPUW:" lines in its log; -1: not counted */
    int inferred;               /* 1: split (below) inferred from upstream's compile order */
    pm_ov_split split;
    char split_why[200];        /* why no split could be inferred */
    char note[1024];
    pm_ov_result r;
} attempt;

/* Runs `passmap ov-compile` on the tiny model as the sweep would and reads its result line and log. */
static void try_compile(const char *self, const char *lib, const char *xml, const char *dir, const char *name,
                        const char *const *extra_args, double timeout_s, attempt *a)
{
    char work[PATH_MAX], out_path[PATH_MAX + 32], err_path[PATH_MAX + 32];
    pm_err err;
    pm_err_clear(&err);
    a->tried = 1;
    snprintf(work, sizeof work, "%s/%s", dir, name);
    if (pm_util_mkdir_p(work, &err) != PM_OK) {
        snprintf(a->note, sizeof a->note, "%s", err.msg);
        return;
    }
    snprintf(out_path, sizeof out_path, "%s/ov-compile.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/ov-compile.stderr", work);
    const char *argv[48] = {self, "ov-compile", "--model", xml, "--device", "NPU", "--workdir", work};
    int n = 8;
    if (lib)
        argv[n++] = "--lib", argv[n++] = lib;
    for (int i = 0; extra_args[i]; i++) {
        if (n == (int)(sizeof argv / sizeof *argv) - 1) {   /* a programming error: never a silent cut */
            snprintf(a->note, sizeof a->note, "more than %zu ov-compile arguments", sizeof argv / sizeof *argv - 1);
            return;
        }
        argv[n++] = extra_args[i];
    }
    argv[n] = NULL;
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = work, .stdout_path = out_path, .stderr_path = err_path};
    pm_run_result res;
    memset(&res, 0, sizeof res);
    if (pm_run_exec(argv, &ro, &res, &err) != PM_OK) {
        snprintf(a->note, sizeof a->note, "%s", err.msg);
        return;
    }
    int rc = pm_ov_read_result_file(out_path, &a->r, &err);
    if (rc == PM_OK) {
        a->ok = 1;
        pm_report rep;
        pm_report_init(&rep);
        pm_err perr;
        a->npuw_lines = -1;
        if (pm_parse_file(out_path, PM_FMT_NPU_LOG, &rep, &perr) == PM_OK) {
            a->blocks = rep.n_reports;
            a->npuw_lines = 0;
            for (size_t i = 0; i < rep.n_metrics; i++)
                if (!strcmp(rep.metrics[i].name, "npu.log.lines.NPUW"))
                    a->npuw_lines = (int)rep.metrics[i].value;
            /* No line names a submodel: the only split left is upstream's fixed compile order, labelled so. */
            if (a->npuw_lines == 0 && pm_ov_npuw_value(&a->r, "NPUW_LLM", NULL))
                a->inferred = pm_ov_infer_report(&rep, &a->r, &a->split, a->split_why, sizeof a->split_why) == PM_OK;
        }
        pm_report_free(&rep);
        if (res.status != PM_RUN_OK) /* the result was out before teardown; the teardown itself failed */
            snprintf(a->note, sizeof a->note, "process ended %s after writing its result (teardown)",
                     pm_run_status_name(res.status));
    } else if (rc == PM_ERR_NOTFOUND) {
        snprintf(a->note, sizeof a->note, "no result (%s): see %.900s", pm_run_status_name(res.status), err_path);
    } else {
        snprintf(a->note, sizeof a->note, "%s", err.msg);
    }
    for (char *c = a->note; *c; c++) /* OpenVINO's messages span lines: one line each here */
        if (*c == '\n')
            *c = ' ';
}

static json_t *attempt_json(const attempt *a)
{
    json_t *o = json_object();
    json_object_set_new(o, "tried", json_boolean(a->tried));
    json_object_set_new(o, "ok", json_boolean(a->ok));
    json_object_set_new(o, "note", json_string(a->note));
    if (a->ok) {
        json_object_set_new(o, "compile_s", json_real(a->r.compile_s));
        json_object_set_new(o, "timing_blocks", json_integer(a->blocks));
        json_object_set_new(o, "blob_bytes", a->r.blob_bytes < 0 ? json_null() : json_integer(a->r.blob_bytes));
        json_object_set_new(o, "import_s", a->r.import_s < 0 ? json_null() : json_real(a->r.import_s));
        json_object_set_new(o, "import_error", *a->r.import_error ? json_string(a->r.import_error) : json_null());
        json_object_set_new(o, "compiler_type", json_string(a->r.compiler_type));
        json_object_set_new(o, "compiler_type_resolved", json_string(a->r.compiler_type_resolved));
        json_object_set_new(o, "compiler_version", json_string(a->r.compiler_version));
        json_object_set_new(o, "compiler_version_source", json_string(a->r.compiler_version_source));
        json_object_set_new(o, "offline", json_boolean(a->r.offline));
        json_object_set_new(o, "npuw_lines", a->npuw_lines < 0 ? json_null() : json_integer(a->npuw_lines));
        if (a->inferred)
            json_object_set_new(o, "inferred_split",
                                json_pack("{s:i,s:i,s:i,s:b}", "generate_blocks", a->split.blocks[0], "prefill_blocks",
                                          a->split.blocks[1], "lm_head_blocks", a->split.blocks[2], "inferred", 1));
    }
    json_object_set_new(o, "refused_property",
                        *a->r.refused_property ? json_string(a->r.refused_property) : json_null());
    return o;
}

static void print_attempt(FILE *out, const attempt *a)
{
    if (!a->tried) {
        fprintf(out, "%-22s not tried: %s\n", a->what, a->note);
        return;
    }
    if (!a->ok) {
        fprintf(out, "%-22s FAILED: %s\n", a->what, a->note);
        if (*a->r.refused_property)
            fprintf(out, "%-22s refused property: %s (the selected compiler or this release does not list it)\n", "",
                    a->r.refused_property);
        return;
    }
    fprintf(out, "%-22s ok: %.2f s, %d timing block(s)", a->what, a->r.compile_s, a->blocks);
    if (a->r.blob_bytes >= 0)
        fprintf(out, ", blob %lld bytes", a->r.blob_bytes);
    if (a->r.import_s >= 0)
        fprintf(out, ", import %.3f s", a->r.import_s);
    else if (*a->r.import_error)
        fprintf(out, ", import FAILED: %s", a->r.import_error);
    fprintf(out, "\n");
    if (a->blocks == 0)
        fprintf(out, "%-22s warning: no timing report in the log (LOG_INFO not honoured, or a cached compile)\n", "");
    if (*a->r.compiler_version_source)
        fprintf(out, "%-22s compiler %s, version %s (from the %s)\n", "",
                *a->r.compiler_type_resolved ? a->r.compiler_type_resolved : "unresolved",
                *a->r.compiler_version_decoded ? a->r.compiler_version_decoded : a->r.compiler_version,
                a->r.compiler_version_source);
    if (a->npuw_lines >= 0 && pm_ov_npuw_value(&a->r, "NPUW_LLM", NULL)) {
        fprintf(out, "%-22s NPUW lines: %d\n", "", a->npuw_lines);
        if (a->npuw_lines == 0)
            fprintf(out,
                    "%-22s submodel split unavailable on this build (no \"[ NPUW:\" line: its NPUW logging may be\n"
                    "%-22s compiled out); try OPENVINO_NPUW_LOG_LEVEL=INFO and OPENVINO_NPUW_COMPILE_TRACE=1, or an\n"
                    "%-22s OpenVINO built with NPU_PLUGIN_DEVELOPER_BUILD\n",
                    "", "", "");
        if (a->inferred)
            fprintf(out,
                    "%-22s inferred split (upstream's compile order, not named by the log): generate %d block(s), "
                    "prefill %d, LM head %d\n",
                    "", a->split.blocks[0], a->split.blocks[1], a->split.blocks[2]);
        else if (a->npuw_lines == 0 && *a->split_why)
            fprintf(out, "%-22s no inferred split: %s\n", "", a->split_why);
    }
    if (*a->note)
        fprintf(out, "%-22s note: %s\n", "", a->note);
}

/* passmap's keys that the device's SUPPORTED_PROPERTIES does not list, comma-separated into out ("" when all
 * are, or when the list is unknown: *known says which). A 2026 plugin refuses what its compiler does not list. */
static void unadvertised(const pm_ov_probe_result *p, char *out, size_t size, int *known)
{
    out[0] = '\0';
    *known = p->supported[0] != '\0';
    for (const char *const *k = pm_ov_sent_keys; *known && *k; k++) {
        size_t n = strlen(*k);
        int found = 0;
        for (const char *q = p->supported; (q = strstr(q, *k)); q += n)
            if ((q == p->supported || strchr(" ,\t\n[", q[-1])) && (q[n] == '\0' || strchr(" ,\t\n]:", q[n])))
                found = 1;
        if (!found) {
            size_t len = strlen(out);
            snprintf(out + len, size - len, "%s%s", len ? ", " : "", *k);
        }
    }
}

/* The compiler a study uses: [openvino] compiler_type when set, else passmap's pin. */
static const char *study_compiler(int npu_present)
{
    return npu_present ? "DRIVER (passmap's pin on a device; [openvino] compiler_type = PLUGIN or PREFER_PLUGIN "
                         "changes it)"
                       : "PLUGIN (offline: the compiler inside the plugin)";
}

/* The text of OpenVINO's error after passmap's "... failed (status N NAME): " prefix: NPUW's assert, verbatim. */
static const char *openvino_text(const char *note)
{
    const char *p = strstr(note, "): ");
    return p ? p + 3 : note;
}

static double file_mb(const char *xml)
{
    char bin[PATH_MAX + 32];
    size_t n = strlen(xml);
    if (n < 4 || n >= sizeof bin)
        return -1;
    memcpy(bin, xml, n + 1);
    memcpy(bin + n - 4, ".bin", 5);
    struct stat sb;
    return stat(bin, &sb) == 0 ? (double)sb.st_size / 1e6 : -1;
}

/* The doctor's options as given (pm_backend_doctor_ctx), with their defaults. */
typedef struct ov_doctor_opts {
    const char *lib, *platform, *llm_model;
    int platform_given;
    double timeout_s;
} ov_doctor_opts;

static int read_options(const pm_backend_doctor_ctx *ctx, ov_doctor_opts *o, pm_err *err)
{
    *o = (ov_doctor_opts){.platform = "NPU4000", .timeout_s = 600};
    for (int i = 0; i < ctx->n_given; i++) {
        const char *name = ctx->names[i], *value = ctx->values[i];
        if (!strcmp(name, "lib"))
            o->lib = value;
        else if (!strcmp(name, "platform"))
            o->platform = value, o->platform_given = 1;
        else if (!strcmp(name, "llm-model"))
            o->llm_model = value;
        else if (!strcmp(name, "timeout") && pm_run_parse_duration(value, &o->timeout_s, err) != PM_OK)
            return PM_ERR_USAGE;
    }
    return PM_OK;
}

/* --timeout's value, checked when the command line is read; the others take any. */
static int valid_option(const char *name, const char *value, pm_err *err)
{
    double s;
    return strcmp(name, "timeout") ? PM_OK : pm_run_parse_duration(value, &s, err);
}

/* Everything one doctor run holds: the probe, its folder, its models and the three compiles. */
typedef struct ov_doctor {
    const pm_backend_doctor_ctx *ctx;
    ov_doctor_opts o;
    pm_ov_probe_result p;
    char dir[PATH_MAX], xml[PATH_MAX + 32], llm_xml[PATH_MAX + 32], lib_abs[PATH_MAX], own_platform[72];
    attempt online, offline, llm;
    int usable;
} ov_doctor;

/* The folder (--keep's, else a temporary one) and the two models written or found in it. */
static int prepare(ov_doctor *d, pm_err *err)
{
    if (d->ctx->keep_dir) {
        snprintf(d->dir, sizeof d->dir, "%s", d->ctx->keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(d->dir, sizeof d->dir, "%s/passmap-doctor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(d->dir)) {
            d->dir[0] = '\0';
            return pm_err_set(err, PM_ERR_IO, "cannot create a temporary folder in %s", tmp && *tmp ? tmp : "/tmp");
        }
    }
    int rc = pm_ov_write_tiny_ir(d->dir, d->xml, sizeof d->xml, err);
    if (rc)
        return rc;
    if (d->o.llm_model) {
        if (!realpath(d->o.llm_model, d->llm_xml))
            return pm_err_set(err, PM_ERR_IO, "--llm-model %s: %s", d->o.llm_model, strerror(errno));
        return PM_OK;
    }
    return pm_ov_write_tiny_llm_ir(d->dir, d->llm_xml, sizeof d->llm_xml, err);
}

/* The three compiles: the tiny model on the NPU (or why not), offline for the platform, and the study's own. */
static void compile_all(ov_doctor *d)
{
    const char *self = d->ctx->self, *lib = d->o.lib;
    if (d->p.npu_present) {
        const char *args[] = {"--import", NULL};
        try_compile(self, lib, d->xml, d->dir, "online", args, d->o.timeout_s, &d->online);
    } else {
        snprintf(d->online.note, sizeof d->online.note, "no NPU device listed");
    }
    /* Offline uses the compiler inside the plugin; with an NPU present the same compiler is asked for
     * explicitly (PLUGIN), for the device's own platform unless --platform names one, and with no executor
     * (NPU_CREATE_EXECUTOR=0, as upstream's offline tests): a platform other than the device's would
     * otherwise fail for reasons a study never meets. */
    if (!d->o.platform_given && d->p.npu_present && *d->p.device_arch) {
        snprintf(d->own_platform, sizeof d->own_platform, "%s%s", strncmp(d->p.device_arch, "NPU", 3) ? "NPU" : "",
                 d->p.device_arch);
        d->o.platform = d->own_platform;
    }
    const char *platform = d->o.platform;
    const char *off_args[] = {"--platform", platform, "--export", "model.blob", "--prop", "NPU_COMPILER_TYPE=PLUGIN",
                              "--prop", "NPU_CREATE_EXECUTOR=0", NULL};
    try_compile(self, lib, d->xml, d->dir, "offline", off_args, d->o.timeout_s, &d->offline);
    /* The study's compile: NPUW LLM at a small window with the study's settings (pins included), the blob
     * exported with its weights and imported on the NPU; offline for the platform when there is none. */
    const char *llm_dev[] = {"--window", "64", "--min-response-len", "64", "--prefill-hint", "STATIC",
                             "--generate-pyramid", "NO", "--import", NULL};
    const char *llm_off[] = {"--window", "64", "--min-response-len", "64", "--prefill-hint", "STATIC",
                             "--generate-pyramid", "NO", "--export", "model.blob", "--platform", platform,
                             "--offline-only", NULL};
    try_compile(self, lib, d->llm_xml, d->dir, "llm", d->p.npu_present ? llm_dev : llm_off, d->o.timeout_s, &d->llm);
    d->usable = (d->p.npu_present ? d->online.ok : d->offline.ok) && d->llm.ok;
}

static void put_json(const ov_doctor *d, json_t *out)
{
    const pm_ov_probe_result *p = &d->p;
    json_object_set_new(out, "openvino_ok", json_boolean(d->usable));
    json_object_set_new(out, "openvino_version", json_string(p->ov_version));
    json_object_set_new(out, "lib", json_string(p->lib_path));
    json_object_set_new(out, "devices", json_string(p->devices));
    json_object_set_new(out, "npu_present", json_boolean(p->npu_present));
    json_object_set_new(out, "npu_compiler_type", json_string(p->compiler_type));
    json_object_set_new(out, "npu_compiler_version", json_string(p->compiler_version));
    json_object_set_new(out, "npu_compiler_version_decoded", json_string(p->compiler_version_decoded));
    json_object_set_new(out, "npu_driver_version", json_string(p->driver_version));
    json_object_set_new(out, "device_architecture", json_string(p->device_arch));
    json_t *compilers = json_object();
    for (int i = 0; i < 2; i++) {
        const pm_ov_probe_compiler *pc = &p->compilers[i];
        json_object_set_new(compilers, pc->type,
                            json_pack("{s:b,s:s,s:s,s:s,s:b}", "ok", pc->ok, "version", pc->version,
                                      "version_decoded", pc->version_decoded, "error", pc->error,
                                      "driver_compiler_missing", pc->driver_compiler_missing));
    }
    json_object_set_new(out, "npu_compilers", compilers);
    json_object_set_new(out, "study_compiler_type", json_string(p->npu_present ? "DRIVER" : "PLUGIN"));
    char unadv[1024];
    int known;
    unadvertised(p, unadv, sizeof unadv, &known);
    json_object_set_new(out, "unadvertised_properties", known ? json_string(unadv) : json_null());
    json_object_set_new(out, "mem_total_bytes",
                        p->mem_total_bytes > 0 ? json_integer(p->mem_total_bytes) : json_null());
    double wmb = file_mb(d->llm_xml);
    json_object_set_new(out, "llm_weights_bytes", wmb >= 0 ? json_integer((json_int_t)(wmb * 1e6)) : json_null());
    json_object_set_new(out, "model", json_string(d->xml));
    json_object_set_new(out, "online", attempt_json(&d->online));
    json_object_set_new(out, "offline", attempt_json(&d->offline));
    json_object_set_new(out, "llm", attempt_json(&d->llm));
    json_object_set_new(out, "llm_model", json_string(d->llm_xml));
    json_object_set_new(out, "offline_platform", json_string(d->o.platform));
}

/* The probe's lines: OpenVINO, its devices, the NPU's compilers and what passmap sends them. */
static void put_probe_text(const pm_ov_probe_result *p, FILE *out)
{
    fprintf(out, "OpenVINO:              %s (%s)\n", *p->ov_version ? p->ov_version : "?", p->lib_path);
    fprintf(out, "devices:               %s\n", *p->devices ? p->devices : "(none)");
    fprintf(out, "NPU:                   %s\n", p->npu_present ? "present" : "not present (offline compiles only)");
    fprintf(out, "NPU compiler type:     %s (the plugin's setting)\n", *p->compiler_type ? p->compiler_type : "?");
    fprintf(out, "NPU compiler version:  %s%s%s%s\n", *p->compiler_version_decoded ? p->compiler_version_decoded : "?",
            *p->compiler_version ? " (reported " : "", p->compiler_version,
            *p->compiler_version ? " for the core's default type)" : "");
    /* Each compiler set on the core, then asked: its version verbatim, or OpenVINO's words for why not. */
    for (int i = 0; i < 2; i++) {
        const pm_ov_probe_compiler *pc = &p->compilers[i];
        char label[32];
        snprintf(label, sizeof label, "compiler %s:", pc->type);
        if (pc->ok)
            fprintf(out, "%-22s ok, version %s (reported %s)\n", label,
                    *pc->version_decoded ? pc->version_decoded : "?", pc->version);
        else
            fprintf(out, "%-22s unavailable: %s%s\n", label, pc->error,
                    pc->driver_compiler_missing ? " -- intel-driver-compiler-npu is not installed (the driver's "
                                                  "compiler, libnpu_driver_compiler.so, is its own package)"
                                                : "");
    }
    fprintf(out, "study's compiler:      %s\n", study_compiler(p->npu_present));
    char unadv[1024];
    int known;
    unadvertised(p, unadv, sizeof unadv, &known);
    if (!known)
        fprintf(out, "properties:            SUPPORTED_PROPERTIES not answered: passmap's keys not checked\n");
    else if (*unadv)
        fprintf(out,
                "properties:            not in SUPPORTED_PROPERTIES: %s (a 2026 plugin refuses keys its compiler "
                "does not list)\n",
                unadv);
    else
        fprintf(out, "properties:            every key passmap sends is in SUPPORTED_PROPERTIES\n");
    if (p->npu_present)
        fprintf(out, "NPU driver version:    %s, architecture %s\n", *p->driver_version ? p->driver_version : "?",
                *p->device_arch ? p->device_arch : "?");
}

static void put_text(ov_doctor *d, FILE *out)
{
    const pm_ov_probe_result *p = &d->p;
    put_probe_text(p, out);
    fprintf(out, "test model:            %s (one matmul block)\n", d->xml);
    print_attempt(out, &d->online);
    char what[128];
    snprintf(what, sizeof what, "compile offline (%s):", d->o.platform);
    d->offline.what = what;
    print_attempt(out, &d->offline);
    fprintf(out, "LLM model:             %s%s\n", d->llm_xml,
            d->o.llm_model ? "" : " (tiny IR (inferred layout): stateful, one attention layer)");
    double wmb = file_mb(d->llm_xml);
    char wtxt[32] = "unknown", mtxt[32] = "unknown";
    if (wmb >= 0)
        snprintf(wtxt, sizeof wtxt, "%.1f MB", wmb);
    if (p->mem_total_bytes > 0)
        snprintf(mtxt, sizeof mtxt, "%.1f MB", (double)p->mem_total_bytes / 1e6);
    fprintf(out,
            "memory:                MemTotal %s, LLM weights %s (a sweep skips the import above %g%% of RAM: it "
            "reads the weights bank back)\n",
            mtxt, wtxt, 100 * PM_OV_IMPORT_RAM_SHARE);
    const attempt *llm = &d->llm;
    print_attempt(out, llm);
    if (llm->tried && !llm->ok) {
        fprintf(out, "%-22s %s said: %s\n", "", strstr(llm->note, "[NPUW]") ? "NPUW" : "OpenVINO",
                openvino_text(llm->note));
        if (!d->o.llm_model)
            fprintf(out,
                    "%-22s the tiny IR's layout is inferred from optimum's, not checked against NPUW: try a real "
                    "export, --llm-model X.xml (optimum-cli export openvino ... writes <dir>/openvino_model.xml)\n",
                    "");
    }
    if (d->usable)
        fprintf(out, "=> ready: %s\n",
                p->npu_present ? "passmap sweep studies/npu-llm.ini"
                               : "passmap sweep with platform = ... in [openvino] (offline)");
    else
        fprintf(out, "=> NOT ready: %s\n",
                !llm->ok && (p->npu_present ? d->online.ok : d->offline.ok)
                    ? "the NPUW LLM compile the study uses failed (see above)"
                    : p->npu_present ? "the NPU compile failed (see above)"
                                     : "no NPU and the offline compile failed (OpenVINO >= 2026.0 "
                                       "ships the compiler inside the NPU plugin)");
}

/* OpenVINO missing: not a failure for a user of the default back end, unless asked for (then the error). */
static int not_found(const pm_backend_doctor_ctx *ctx, int asked, int rc, pm_err *err)
{
    if (!asked) {
        if (ctx->json) {
            json_object_set_new(ctx->json, "openvino", json_string("not installed"));
            json_object_set_new(ctx->json, "openvino_error", json_string(err->msg));
        } else {
            fprintf(ctx->text, "OpenVINO:              not installed \u2014 needed only for backend = openvino (%s)\n",
                    err->msg);
        }
        pm_err_clear(err);
        return PM_OK;
    }
    if (ctx->json)
        json_object_set_new(ctx->json, "error", json_string(err->msg));
    else
        fprintf(ctx->text, "OpenVINO:              NOT FOUND: %s\n", err->msg);
    return rc;
}

static int ov_doctor_check(const pm_backend_doctor_ctx *ctx, int *ready, int *asked, pm_err *err)
{
    *ready = 0;
    ov_doctor *d = calloc(1, sizeof *d);
    if (!d)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    d->ctx = ctx;
    d->online.what = "compile on the NPU:";
    d->offline.what = "compile offline:";
    d->llm.what = "NPUW LLM compile:";
    int rc = read_options(ctx, &d->o, err);
    const char *env_lib = getenv("PASSMAP_OPENVINO_LIB");
    *asked = d->o.lib || d->o.platform_given || (env_lib && *env_lib) || ctx->asked;
    if (!rc && d->o.lib && strchr(d->o.lib, '/') && realpath(d->o.lib, d->lib_abs))
        d->o.lib = d->lib_abs;
    if (!rc && (rc = pm_ov_probe(d->o.lib, &d->p, err)) != PM_OK) {
        rc = not_found(ctx, *asked, rc, err);
    } else if (!rc && !(rc = prepare(d, err))) {
        compile_all(d);
        if (ctx->json)
            put_json(d, ctx->json);
        else
            put_text(d, ctx->text);
        *ready = d->usable;
    }
    pm_ov_result_free(&d->online.r);
    pm_ov_result_free(&d->offline.r);
    pm_ov_result_free(&d->llm.r);
    if (!ctx->keep_dir && d->dir[0])
        pm_util_remove_tree(d->dir);
    free(d);
    return rc;
}

static const pm_backend_option ov_doctor_options[] = {
    {"lib", "PATH", "libopenvino_c (default $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)"},
    {"platform", "P", "offline target: NPU3720, NPU4000, NPU5010 (default: the NPU's own, else NPU4000)"},
    {"llm-model", "F", "an LLM IR (e.g. models/qwen2-0.5b-int4/openvino_model.xml) instead of the tiny one"},
    {"timeout", "DUR", "per compile (default 10m)"},
    {0},
};

const pm_backend_doctor pm_ov_doctor = {
    .options = ov_doctor_options,
    .heading = "OpenVINO (backend = openvino only)",
    .valid = valid_option,
    .check = ov_doctor_check,
};
