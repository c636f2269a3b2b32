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
    const char *argv[24] = {self, "ov-compile", "--model", xml, "--device", "NPU", "--workdir", work};
    int n = 8;
    if (lib)
        argv[n++] = "--lib", argv[n++] = lib;
    for (int i = 0; extra_args[i] && n < 22; i++)
        argv[n++] = extra_args[i];
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
        if (pm_parse_file(out_path, PM_FMT_NPU_LOG, &rep, &perr) == PM_OK)
            a->blocks = rep.n_reports;
        pm_report_free(&rep);
        if (res.status != PM_RUN_OK) /* the result was out before teardown; the teardown itself failed */
            snprintf(a->note, sizeof a->note, "process ended %s after writing its result (teardown)",
                     pm_run_status_name(res.status));
    } else if (rc == PM_ERR_NOTFOUND) {
        snprintf(a->note, sizeof a->note, "no result (%s): see %.900s", pm_run_status_name(res.status), err_path);
    } else {
        snprintf(a->note, sizeof a->note, "%s", err.msg);
    }
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
        json_object_set_new(o, "offline", json_boolean(a->r.offline));
    }
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
    if (*a->note)
        printf("%-22s note: %s\n", "", a->note);
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
               *p.compiler_version ? " (reported " : "", p.compiler_version, *p.compiler_version ? ")" : "");
        if (p.npu_present)
            printf("NPU driver version:    %s, architecture %s\n", *p.driver_version ? p.driver_version : "?",
                   *p.device_arch ? p.device_arch : "?");
        printf("test model:            %s (one matmul block)\n", xml);
        print_attempt(&online);
        char what[128];
        snprintf(what, sizeof what, "compile offline (%s):", platform);
        offline.what = what;
        print_attempt(&offline);
        printf("LLM model:             %s%s\n", llm_xml, llm_model ? "" : " (tiny, stateful, one attention layer)");
        print_attempt(&llm);
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
