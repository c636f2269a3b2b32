/* passmap doctor: first contact with this machine, in one command. The default back end's path first (the MLIR/LLVM
 * tools, a tiny compile, gnuplot, the data folder: doctor_base.c), then each back end's own checks, from its row
 * (pm_backend_ops.doctor: lib/backend/openvino/ov_doctor.c), with the options its row lists. Fails loudly here
 * rather than hours into a sweep. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli_opts.h"
#include "cmds.h"
#include "json_out.h"
#include "util.h"

/* What the options say: doctor's own, and the back-end rows' doctor options given (handed to their checks). */
typedef struct doctor_cli {
    const char *keep, *backend;
    int json;
    cli_given given;
} doctor_cli;

/* A back end's own doctor option (its row's doctor options): checked by its row, kept for its checks. */
static int row_option(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    const pm_backend_ops *be = pm_backend_at((size_t)o->lo);
    pm_err err = {0};
    if (be->doctor->valid && be->doctor->valid(o->name, arg, &err))
        return cli_refuse(cmd, "--%s: %s", o->name, err.msg);
    return cli_given_add(cmd, field, o->name, arg);
}

/* clang-format off */
static const cli_opt doctor_opts[] = {
    {"keep", 0, 0, "DIR", "write the model and compile outputs into DIR (kept) instead of a temporary folder",
                          CLI_BIND_STR(doctor_cli, keep)},
    {"json", 0, 0, NULL, "one JSON object instead of the text", CLI_BIND_FLAG(doctor_cli, json)},
    {"backend", 0, 0, "NAME", "also check back end NAME's own path, asked for: it fails the doctor when it does\n"
                              "not work (without: a back end that is not installed is only said): {backends}",
                              CLI_BIND_FN(doctor_cli, backend, cli_backend_name)},
    {0},   /* then each back end's doctor options, from its row (doctor_command) */
};
/* clang-format on */
static cli_cmd doctor_cmd = {
    .name = "doctor",
    .synopsis = "[--keep DIR] [--json] [--backend NAME [its options]]",
    .about =
        "First the default (embedded) back end: the MLIR/LLVM tools (found, versions, a tiny compile the way a\n"
        "sweep runs it), gnuplot, the data folder, write access to the working folder. Then OpenVINO, which only\n"
        "backend = openvino needs: missing, it is \"not installed\" and does not fail the doctor unless asked for\n"
        "(--backend openvino, its options or $PASSMAP_OPENVINO_LIB). Exit 0 when the default back end works (and\n"
        "OpenVINO, when asked for).\n"
        "OpenVINO's checks for passmap's NPU back end: version, devices, NPU compiler type and version, and a\n"
        "compile of a tiny model passmap writes (one matmul block, OpenVINO IR): on the NPU when present\n"
        "(with the blob import, the warm path), and offline for --platform (default NPU4000) with the\n"
        "compiler inside the plugin (OpenVINO >= 2026.0). Then the study's own kind of compile: an NPUW LLM\n"
        "compile (a tiny stateful LLM-shaped model, or --llm-model) with the study's pinned settings, exported\n"
        "with its weights and imported on the NPU.",
    .opts = doctor_opts,
};

static const pm_backend_option *doctor_options_of(const pm_backend_ops *be)
{
    return be->doctor ? be->doctor->options : NULL;
}

/* doctor's table: its own rows, then each back end's doctor options (cli_with_backend_rows). */
static const cli_cmd *doctor_command(void)
{
    static const cli_opt *all;
    if (!all &&
        (all = cli_with_backend_rows(doctor_opts, doctor_options_of, NULL, offsetof(doctor_cli, given), row_option)))
        doctor_cmd.opts = all;
    return &doctor_cmd;
}

/* Each back end's checks from its row, after the default path's; 1 when none asked for failed. */
static int doctor_rows(const doctor_cli *cli, const char *self, json_t *out)
{
    int ok = 1;
    for (size_t b = 0; pm_backend_at(b); b++) {
        const pm_backend_ops *be = pm_backend_at(b);
        if (!be->doctor)
            continue;
        pm_backend_doctor_ctx ctx = {.self = self,
                                     .keep_dir = cli->keep,
                                     .names = cli->given.names,
                                     .values = cli->given.values,
                                     .n_given = cli->given.n,
                                     .asked = cli->backend && pm_backend_find(cli->backend) == be,
                                     .text = out ? NULL : stdout,
                                     .json = out};
        int ready = 0, asked = 0;
        pm_err err = {0};
        if (!out)
            printf("\n%s\n", be->doctor->heading);
        int rc = be->doctor->check(&ctx, &ready, &asked, &err);
        if (rc)
            fprintf(stderr, "passmap doctor: %s\n", err.msg);
        /* a back end found but not working fails the doctor only when it was asked for */
        ok &= ready || (!asked && !rc);
    }
    return ok;
}

/* --keep DIR made and absolute: the children (the tiny compiles) run in their own folders, where a relative
 * path would mean another place. */
static int keep_folder(doctor_cli *cli, char *abs, size_t size)
{
    pm_err err = {0};
    if (!cli->keep)
        return PM_EXIT_OK;
    if (pm_util_mkdir_p(cli->keep, &err) != PM_OK) {
        fprintf(stderr, "passmap doctor: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    if (size < PATH_MAX || !realpath(cli->keep, abs)) {
        fprintf(stderr, "passmap doctor: cannot resolve --keep %s: %s\n", cli->keep, strerror(errno));
        return PM_EXIT_FAIL;
    }
    cli->keep = abs;
    return PM_EXIT_OK;
}

int cmd_doctor(int argc, char **argv)
{
    doctor_cli cli = {0};
    int rc = cli_parse_args(doctor_command(), argc, argv, &cli, &cli.backend);
    if (rc != CLI_GO)
        return rc;
    if (optind < argc) {
        fprintf(stderr, "passmap doctor: unexpected argument '%s' (see --help)\n", argv[optind]);
        return PM_EXIT_USAGE;
    }
    char self[PATH_MAX], keep_abs[PATH_MAX];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        fprintf(stderr, "passmap doctor: cannot find its own executable\n");
        return PM_EXIT_FAIL;
    }
    self[sn] = '\0';
    if ((rc = keep_folder(&cli, keep_abs, sizeof keep_abs)) != PM_EXIT_OK)
        return rc;
    json_t *out = cli.json ? json_object() : NULL;
    pm_json_stamp(out, "*_s", "s", NULL);
    json_t *base = out ? json_object() : NULL;
    int ok = pm_cli_doctor_base(base, cli.keep);
    if (out) {
        json_object_set_new(out, "default_backend", json_pack("{s:b,s:o}", "ok", ok, "checks", base));
        json_object_set_new(out, "ok", json_false()); /* its place; its value once every row has been checked */
    }
    ok &= doctor_rows(&cli, self, out);
    if (out) {
        json_object_set_new(out, "ok", json_boolean(ok));
        char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s ? s : "{}");
        free(s);
        json_decref(out);
    }
    return ok ? PM_EXIT_OK : PM_EXIT_FAIL;
}
