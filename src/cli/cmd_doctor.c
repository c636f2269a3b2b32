/* passmap doctor: first contact with OpenVINO on this machine, in one command. Prints the OpenVINO version,
 * the devices, the NPU compiler type and decoded version, then compiles a tiny model passmap writes itself
 * (one matmul block) the way a sweep does (a `passmap ov-compile` child through the runner): on the NPU when
 * one is present, and offline for NPU_PLATFORM with the compiler inside the plugin. Fails loudly here rather
 * than hours into a sweep. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "ov.h"
#include "parse.h"
#include "run.h"
#include "util.h"

static const cli_opt doctor_opts[] = {
    {"lib", 'l', 0, "PATH", "libopenvino_c (default $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)"},
    {"platform", 'p', 0, "P", "offline target: NPU3720, NPU4000, NPU5010 (default: the NPU's own, else NPU4000)"},
    {"llm-model", 'L', 0, "F", "an LLM IR (e.g. models/qwen2-0.5b-int4/openvino_model.xml) instead of the tiny one"},
    {"timeout", 't', 0, "DUR", "per compile (default 10m)"},
    {"keep", 'k', 0, "DIR", "write the model and compile outputs into DIR (kept) instead of a temporary folder"},
    {"json", 'j', 0, NULL, "one JSON object instead of the text"},
    {0},
};
static const cli_cmd doctor_cmd = {
    .name = "doctor",
    .synopsis = "[--lib PATH] [--platform P] [--llm-model X.xml] [--timeout DUR] [--keep DIR] [--json]",
    .about = "First the default (embedded) back end: the MLIR/LLVM tools (found, versions, a tiny compile the way a\n"
             "sweep runs it), gnuplot, the data folder, write access to the working folder. Then OpenVINO, which only\n"
             "backend = openvino needs: missing, it is \"not installed\" and does not fail the doctor unless asked for\n"
             "(--lib, --platform or $PASSMAP_OPENVINO_LIB). Exit 0 when the default back end works (and OpenVINO,\n"
             "when asked for).\n"
             "OpenVINO's checks for passmap's NPU back end: version, devices, NPU compiler type and version, and a\n"
             "compile of a tiny model passmap writes (one matmul block, OpenVINO IR): on the NPU when present\n"
             "(with the blob import, the warm path), and offline for --platform (default NPU4000) with the\n"
             "compiler inside the plugin (OpenVINO >= 2026.0). Then the study's own kind of compile: an NPUW LLM\n"
             "compile (a tiny stateful LLM-shaped model, or --llm-model) with the study's pinned settings, exported\n"
             "with its weights and imported on the NPU.",
    .opts = doctor_opts,
};

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

static void print_attempt(const attempt *a)
{
    if (!a->tried) {
        printf("%-22s not tried: %s\n", a->what, a->note);
        return;
    }
    if (!a->ok) {
        printf("%-22s FAILED: %s\n", a->what, a->note);
        if (*a->r.refused_property)
            printf("%-22s refused property: %s (the selected compiler or this release does not list it)\n", "",
                   a->r.refused_property);
        return;
    }
    printf("%-22s ok: %.2f s, %d timing block(s)", a->what, a->r.compile_s, a->blocks);
    if (a->r.blob_bytes >= 0)
        printf(", blob %lld bytes", a->r.blob_bytes);
    if (a->r.import_s >= 0)
        printf(", import %.3f s", a->r.import_s);
    else if (*a->r.import_error)
        printf(", import FAILED: %s", a->r.import_error);
    printf("\n");
    if (a->blocks == 0)
        printf("%-22s warning: no timing report in the log (LOG_INFO not honoured, or a cached compile)\n", "");
    if (*a->r.compiler_version_source)
        printf("%-22s compiler %s, version %s (from the %s)\n", "",
               *a->r.compiler_type_resolved ? a->r.compiler_type_resolved : "unresolved",
               *a->r.compiler_version_decoded ? a->r.compiler_version_decoded : a->r.compiler_version,
               a->r.compiler_version_source);
    if (a->npuw_lines >= 0 && pm_ov_npuw_value(&a->r, "NPUW_LLM", NULL)) {
        printf("%-22s NPUW lines: %d\n", "", a->npuw_lines);
        if (a->npuw_lines == 0)
            printf("%-22s submodel split unavailable on this build (no \"[ NPUW:\" line: its NPUW logging may be\n"
                   "%-22s compiled out); try OPENVINO_NPUW_LOG_LEVEL=INFO and OPENVINO_NPUW_COMPILE_TRACE=1, or an\n"
                   "%-22s OpenVINO built with NPU_PLUGIN_DEVELOPER_BUILD\n", "", "", "");
        if (a->inferred)
            printf("%-22s inferred split (upstream's compile order, not named by the log): generate %d block(s), "
                   "prefill %d, LM head %d\n", "", a->split.blocks[0], a->split.blocks[1], a->split.blocks[2]);
        else if (a->npuw_lines == 0 && *a->split_why)
            printf("%-22s no inferred split: %s\n", "", a->split_why);
    }
    if (*a->note)
        printf("%-22s note: %s\n", "", a->note);
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

int cmd_doctor(int argc, char **argv)
{
    const char *lib = NULL, *platform = "NPU4000", *keep = NULL, *llm_model = NULL;
    double timeout_s = 600;
    int json = 0, c, rc = PM_EXIT_FAIL, platform_given = 0;
    pm_err err;
    pm_err_clear(&err);
    optind = 1;
    while ((c = cli_getopt(&doctor_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'l': lib = optarg; break;
        case 'p': platform = optarg; platform_given = 1; break;
        case 'k': keep = optarg; break;
        case 'L': llm_model = optarg; break;
        case 'j': json = 1; break;
        case 't':
            if (pm_run_parse_duration(optarg, &timeout_s, &err) != PM_OK) {
                fprintf(stderr, "passmap doctor: --timeout: %s\n", err.msg);
                return PM_EXIT_USAGE;
            }
            break;
        case CLI_HELP: cli_usage(stdout, &doctor_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&doctor_cmd);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "passmap doctor: unexpected argument '%s' (see --help)\n", argv[optind]);
        return PM_EXIT_USAGE;
    }
    char self[PATH_MAX], lib_abs[PATH_MAX], dir[PATH_MAX] = "", xml[PATH_MAX + 32], llm_xml[PATH_MAX + 32];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        fprintf(stderr, "passmap doctor: cannot find its own executable\n");
        return PM_EXIT_FAIL;
    }
    self[sn] = '\0';
    if (lib && strchr(lib, '/') && realpath(lib, lib_abs))
        lib = lib_abs;
    attempt online = {.what = "compile on the NPU:"}, offline = {.what = "compile offline:"},
            llm = {.what = "NPUW LLM compile:"};
    pm_ov_probe_result p;
    json_t *out = json_object();
    pm_json_stamp(out, "*_s", "s", NULL);
    /* the default back end first (doctor_base.c); OpenVINO below is only backend = openvino's */
    /* The children (the tiny compiles here and below) run in their own folders: a relative --keep would mean
     * another place to them, so it is made absolute once, first. */
    char keep_abs[PATH_MAX];
    if (keep) {
        if (pm_util_mkdir_p(keep, &err) != PM_OK) {
            fprintf(stderr, "passmap doctor: %s\n", err.msg);
            return PM_EXIT_FAIL;
        }
        if (!realpath(keep, keep_abs)) {
            fprintf(stderr, "passmap doctor: cannot resolve --keep %s: %s\n", keep, strerror(errno));
            return PM_EXIT_FAIL;
        }
        keep = keep_abs;
    }
    json_t *base = json ? json_object() : NULL;
    int base_ok = pm_cli_doctor_base(base, keep);
    if (base)
        json_object_set_new(out, "default_backend", json_pack("{s:b,s:o}", "ok", base_ok, "checks", base));
    const char *env_lib = getenv("PASSMAP_OPENVINO_LIB");
    int ov_asked = lib || platform_given || (env_lib && *env_lib);
    if (!json)
        printf("\nOpenVINO (backend = openvino only)\n");
    int probed = pm_ov_probe(lib, &p, &err) == PM_OK;
    if (!probed && !ov_asked) {   /* not a failure for a user of the default back end */
        if (json) {
            json_object_set_new(out, "ok", json_boolean(base_ok));
            json_object_set_new(out, "openvino", json_string("not installed"));
            json_object_set_new(out, "openvino_error", json_string(err.msg));
            char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            printf("%s\n", s ? s : "{}");
            free(s);
        } else {
            printf("OpenVINO:              not installed \u2014 needed only for backend = openvino (%s)\n", err.msg);
        }
        json_decref(out);
        return base_ok ? PM_EXIT_OK : PM_EXIT_FAIL;
    }
    if (!probed) {
        if (json) {
            json_object_set_new(out, "ok", json_false());
            json_object_set_new(out, "error", json_string(err.msg));
            char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            printf("%s\n", s ? s : "{}");
            free(s);
        } else {
            printf("OpenVINO:              NOT FOUND: %s\n", err.msg);
        }
        fprintf(stderr, "passmap doctor: %s\n", err.msg);
        json_decref(out);
        return PM_EXIT_FAIL;
    }
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        char abs_dir[PATH_MAX];
        if (pm_util_mkdir_p(dir, &err) != PM_OK) {
            fprintf(stderr, "passmap doctor: %s\n", err.msg);
            goto cleanup;
        }
        /* The children run in their own folders: a relative DIR would mean another place to them. */
        if (!realpath(dir, abs_dir)) {
            fprintf(stderr, "passmap doctor: cannot resolve --keep %s: %s\n", dir, strerror(errno));
            goto cleanup;
        }
        snprintf(dir, sizeof dir, "%s", abs_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/passmap-doctor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "passmap doctor: cannot create a temporary folder in %s\n", tmp && *tmp ? tmp : "/tmp");
            dir[0] = '\0';
            goto cleanup;
        }
    }
    if (pm_ov_write_tiny_ir(dir, xml, sizeof xml, &err) != PM_OK) {
        fprintf(stderr, "passmap doctor: %s\n", err.msg);
        goto cleanup;
    }
    if (llm_model) {
        if (!realpath(llm_model, llm_xml)) {
            fprintf(stderr, "passmap doctor: --llm-model %s: %s\n", llm_model, strerror(errno));
            goto cleanup;
        }
    } else if (pm_ov_write_tiny_llm_ir(dir, llm_xml, sizeof llm_xml, &err) != PM_OK) {
        fprintf(stderr, "passmap doctor: %s\n", err.msg);
        goto cleanup;
    }
    if (p.npu_present) {
        const char *args[] = {"--import", NULL};
        try_compile(self, lib, xml, dir, "online", args, timeout_s, &online);
    } else {
        snprintf(online.note, sizeof online.note, "no NPU device listed");
    }
    /* Offline uses the compiler inside the plugin; with an NPU present the same compiler is asked for
     * explicitly (PLUGIN), for the device's own platform unless --platform names one, and with no executor
     * (NPU_CREATE_EXECUTOR=0, as upstream's offline tests): a platform other than the device's would
     * otherwise fail for reasons a study never meets. */
    char own_platform[72];
    if (!platform_given && p.npu_present && *p.device_arch) {
        snprintf(own_platform, sizeof own_platform, "%s%s", strncmp(p.device_arch, "NPU", 3) ? "NPU" : "",
                 p.device_arch);
        platform = own_platform;
    }
    const char *off_args[] = {"--platform", platform, "--export", "model.blob", "--prop", "NPU_COMPILER_TYPE=PLUGIN",
                              "--prop", "NPU_CREATE_EXECUTOR=0", NULL};
    try_compile(self, lib, xml, dir, "offline", off_args, timeout_s, &offline);

    /* The study's compile: NPUW LLM at a small window with the study's settings (pins included), the blob
     * exported with its weights and imported on the NPU; offline for the platform when there is none. */
    const char *llm_dev[] = {"--window", "64", "--min-response-len", "64", "--prefill-hint", "STATIC",
                             "--generate-pyramid", "NO", "--import", NULL};
    const char *llm_off[] = {"--window", "64", "--min-response-len", "64", "--prefill-hint", "STATIC",
                             "--generate-pyramid", "NO", "--export", "model.blob", "--platform", platform,
                             "--offline-only", NULL};
    try_compile(self, lib, llm_xml, dir, "llm", p.npu_present ? llm_dev : llm_off, timeout_s, &llm);
    int usable = (p.npu_present ? online.ok : offline.ok) && llm.ok;
    if (json) {
        json_object_set_new(out, "ok", json_boolean(base_ok && (usable || !ov_asked)));
        json_object_set_new(out, "openvino_ok", json_boolean(usable));
        json_object_set_new(out, "openvino_version", json_string(p.ov_version));
        json_object_set_new(out, "lib", json_string(p.lib_path));
        json_object_set_new(out, "devices", json_string(p.devices));
        json_object_set_new(out, "npu_present", json_boolean(p.npu_present));
        json_object_set_new(out, "npu_compiler_type", json_string(p.compiler_type));
        json_object_set_new(out, "npu_compiler_version", json_string(p.compiler_version));
        json_object_set_new(out, "npu_compiler_version_decoded", json_string(p.compiler_version_decoded));
        json_object_set_new(out, "npu_driver_version", json_string(p.driver_version));
        json_object_set_new(out, "device_architecture", json_string(p.device_arch));
        json_t *compilers = json_object();
        for (int i = 0; i < 2; i++) {
            const pm_ov_probe_compiler *pc = &p.compilers[i];
            json_object_set_new(compilers, pc->type,
                                json_pack("{s:b,s:s,s:s,s:s,s:b}", "ok", pc->ok, "version", pc->version,
                                          "version_decoded", pc->version_decoded, "error", pc->error,
                                          "driver_compiler_missing", pc->driver_compiler_missing));
        }
        json_object_set_new(out, "npu_compilers", compilers);
        json_object_set_new(out, "study_compiler_type", json_string(p.npu_present ? "DRIVER" : "PLUGIN"));
        char unadv[1024];
        int known;
        unadvertised(&p, unadv, sizeof unadv, &known);
        json_object_set_new(out, "unadvertised_properties", known ? json_string(unadv) : json_null());
        json_object_set_new(out, "mem_total_bytes", p.mem_total_bytes > 0 ? json_integer(p.mem_total_bytes) : json_null());
        double wmb = file_mb(llm_xml);
        json_object_set_new(out, "llm_weights_bytes", wmb >= 0 ? json_integer((json_int_t)(wmb * 1e6)) : json_null());
        json_object_set_new(out, "model", json_string(xml));
        json_object_set_new(out, "online", attempt_json(&online));
        json_object_set_new(out, "offline", attempt_json(&offline));
        json_object_set_new(out, "llm", attempt_json(&llm));
        json_object_set_new(out, "llm_model", json_string(llm_xml));
        json_object_set_new(out, "offline_platform", json_string(platform));
        char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s ? s : "{}");
        free(s);
    } else {
        printf("OpenVINO:              %s (%s)\n", *p.ov_version ? p.ov_version : "?", p.lib_path);
        printf("devices:               %s\n", *p.devices ? p.devices : "(none)");
        printf("NPU:                   %s\n", p.npu_present ? "present" : "not present (offline compiles only)");
        printf("NPU compiler type:     %s (the plugin's setting)\n", *p.compiler_type ? p.compiler_type : "?");
        printf("NPU compiler version:  %s%s%s%s\n", *p.compiler_version_decoded ? p.compiler_version_decoded : "?",
               *p.compiler_version ? " (reported " : "", p.compiler_version,
               *p.compiler_version ? " for the core's default type)" : "");
        /* Each compiler set on the core, then asked: its version verbatim, or OpenVINO's words for why not. */
        for (int i = 0; i < 2; i++) {
            const pm_ov_probe_compiler *pc = &p.compilers[i];
            char label[32];
            snprintf(label, sizeof label, "compiler %s:", pc->type);
            if (pc->ok)
                printf("%-22s ok, version %s (reported %s)\n", label, *pc->version_decoded ? pc->version_decoded : "?",
                       pc->version);
            else
                printf("%-22s unavailable: %s%s\n", label, pc->error,
                       pc->driver_compiler_missing ? " -- intel-driver-compiler-npu is not installed (the driver's "
                                                     "compiler, libnpu_driver_compiler.so, is its own package)"
                                                   : "");
        }
        printf("study's compiler:      %s\n", study_compiler(p.npu_present));
        char unadv[1024];
        int known;
        unadvertised(&p, unadv, sizeof unadv, &known);
        if (!known)
            printf("properties:            SUPPORTED_PROPERTIES not answered: passmap's keys not checked\n");
        else if (*unadv)
            printf("properties:            not in SUPPORTED_PROPERTIES: %s (a 2026 plugin refuses keys its compiler "
                   "does not list)\n", unadv);
        else
            printf("properties:            every key passmap sends is in SUPPORTED_PROPERTIES\n");
        if (p.npu_present)
            printf("NPU driver version:    %s, architecture %s\n", *p.driver_version ? p.driver_version : "?",
                   *p.device_arch ? p.device_arch : "?");
        printf("test model:            %s (one matmul block)\n", xml);
        print_attempt(&online);
        char what[128];
        snprintf(what, sizeof what, "compile offline (%s):", platform);
        offline.what = what;
        print_attempt(&offline);
        printf("LLM model:             %s%s\n", llm_xml,
               llm_model ? "" : " (tiny IR (inferred layout): stateful, one attention layer)");
        double wmb = file_mb(llm_xml);
        char wtxt[32] = "unknown", mtxt[32] = "unknown";
        if (wmb >= 0)
            snprintf(wtxt, sizeof wtxt, "%.1f MB", wmb);
        if (p.mem_total_bytes > 0)
            snprintf(mtxt, sizeof mtxt, "%.1f MB", (double)p.mem_total_bytes / 1e6);
        printf("memory:                MemTotal %s, LLM weights %s (a sweep skips the import above %g%% of RAM: it "
               "reads the weights bank back)\n", mtxt, wtxt, 100 * PM_OV_IMPORT_RAM_SHARE);
        print_attempt(&llm);
        if (llm.tried && !llm.ok) {
            printf("%-22s %s said: %s\n", "", strstr(llm.note, "[NPUW]") ? "NPUW" : "OpenVINO", openvino_text(llm.note));
            if (!llm_model)
                printf("%-22s the tiny IR's layout is inferred from optimum's, not checked against NPUW: try a real "
                       "export, --llm-model X.xml (optimum-cli export openvino ... writes <dir>/openvino_model.xml)\n",
                       "");
        }
        if (usable)
            printf("=> ready: %s\n", p.npu_present ? "passmap sweep studies/npu-llm.ini"
                                                   : "passmap sweep with platform = ... in [openvino] (offline)");
        else
            printf("=> NOT ready: %s\n", !llm.ok && (p.npu_present ? online.ok : offline.ok)
                                              ? "the NPUW LLM compile the study uses failed (see above)"
                                          : p.npu_present ? "the NPU compile failed (see above)"
                                                          : "no NPU and the offline compile failed (OpenVINO >= 2026.0 "
                                                            "ships the compiler inside the NPU plugin)");
    }
    /* OpenVINO found but not working fails the doctor only when it was asked for */
    rc = base_ok && (usable || !ov_asked) ? PM_EXIT_OK : PM_EXIT_FAIL;
cleanup:
    pm_ov_result_free(&online.r);
    pm_ov_result_free(&offline.r);
    pm_ov_result_free(&llm.r);
    json_decref(out);
    if (!keep && dir[0])
        pm_util_remove_tree(dir);
    return rc;
}
