/* passmap doctor, the part every back end needs (the default path: the embedded compiler): the MLIR/LLVM tools
 * (found, versions, a tiny compile through the runner with the sweep's own steps and a parsed timing report),
 * gnuplot (figures), the data folder (stage maps, fix rules) and write access to the working folder. Kept apart
 * from the OpenVINO checks in cmd_doctor.c, which are the openvino back end's. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "embedded.h"
#include "meter.h"
#include "parse.h"
#include "run.h"
#include "stagemap.h"
#include "util.h"

/* A small linalg-on-tensors module: the embedded pipeline's whole path (tiling, bufferization, LLVM lowering,
 * translation, llc) runs on it in well under a second. */
static const char tiny_mlir[] =
    "func.func @forward(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %init = tensor.empty() : tensor<8x8xf32>\n"
    "  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>\n"
    "  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>)\n"
    "       -> tensor<8x8xf32>\n"
    "  return %r : tensor<8x8xf32>\n"
    "}\n";

static void line(json_t *j, const char *key, const char *label, int ok, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* One check: a text line "label  ok|FAILED: detail" or a JSON member {ok, detail}. A failing check that is no
 * failure of the back end (a meter auto does not need) says bad = "not here: " instead of "FAILED: ". */
static void check_line(json_t *j, const char *key, const char *label, int ok, const char *bad, const char *detail)
{
    if (j)
        json_object_set_new(j, key, json_pack("{s:b,s:s}", "ok", ok, "detail", detail));
    else
        printf("%-22s %s%s\n", label, ok ? "" : bad, detail);
}

static void line(json_t *j, const char *key, const char *label, int ok, const char *fmt, ...)
{
    char detail[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    check_line(j, key, label, ok, "FAILED: ", detail);
}

/* `tool --version` through the runner (with a timeout): the number after "version " (LLVM), else the first
 * line's second word ("gnuplot 5.4 patchlevel 4"). 0 when the tool did not run or exit 0. */
static int tool_version(const char *tool, const char *dir, char *out, size_t n)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/version.out", dir);
    const char *argv[] = {tool, "--version", NULL};
    pm_run_opts ro = {.timeout_s = 30, .stdout_path = path, .stderr_path = path};
    pm_run_result res;
    pm_err err;
    char *buf = NULL;
    size_t len;
    snprintf(out, n, "?");
    if (pm_run_exec(argv, &ro, &res, &err) || res.status != PM_RUN_OK ||
        pm_util_read_file_max(path, 1 << 16, &buf, &len, &err))
        return 0;
    const char *v = strstr(buf, "version ");
    if (v)
        v += strlen("version ");
    else if ((v = strchr(buf, ' ')))
        v++;
    if (v) {
        size_t k = strcspn(v, " \n");
        snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), v);
    }
    free(buf);
    return 1;
}

/* The embedded back end's three steps on the tiny module, each through the runner as a sweep runs it. */
static int tiny_compile(const pm_embedded_tools *t, const char *dir, char *note, size_t cap, int *n_passes)
{
    char input[PATH_MAX + 64], out_path[PATH_MAX + 64], err_path[PATH_MAX + 64];
    pm_err err = {0};
    pm_steps steps = {0};
    int ok = 0;
    double wall = 0;
    *n_passes = 0;
    snprintf(input, sizeof input, "%s/tiny.mlir", dir);
    if (pm_util_write_file_atomic(input, tiny_mlir, sizeof tiny_mlir - 1, 0644, NULL, &err) ||
        pm_embedded_steps(NULL, t, input, dir, &steps, &err)) {
        snprintf(note, cap, "%s", err.msg);
        goto cleanup;
    }
    for (int i = 0; i < steps.n; i++) {
        const pm_step *s = &steps.items[i];
        snprintf(out_path, sizeof out_path, "%s/step%d.stdout", dir, i);
        snprintf(err_path, sizeof err_path, "%s/step%d.stderr", dir, i);
        pm_run_opts ro = {.timeout_s = 120, .cwd = s->cwd ? s->cwd : dir, .stdout_path = out_path,
                          .stderr_path = err_path};
        pm_run_result res;
        if (pm_run_exec((const char *const *)s->argv, &ro, &res, &err)) {
            snprintf(note, cap, "%.40s: %.900s", s->tool, err.msg);
            goto cleanup;
        }
        if (res.status != PM_RUN_OK) {
            snprintf(note, cap, "%.40s %s (exit %d); its stderr: %.700s", s->tool, pm_run_status_name(res.status),
                     res.exit_code, err_path);
            goto cleanup;
        }
        wall += res.wall_s;
        const char *rep = s->report_stream == PM_STREAM_STDOUT ? out_path
                          : s->report_stream == PM_STREAM_STDERR ? err_path : s->report_path;
        pm_report r;
        pm_report_init(&r);
        if (rep && pm_parse_file(rep, s->report_format, &r, &err) == PM_OK)
            *n_passes += (int)r.n_passes;
        pm_report_free(&r);
    }
    ok = *n_passes > 0;
    snprintf(note, cap, ok ? "%d steps, %.2f s, %d timed passes parsed"
                           : "%d steps ran (%.2f s) but no timing report was parsed from them",
             steps.n, wall, *n_passes);
cleanup:
    pm_steps_free(&steps);
    return ok;
}

int pm_cli_doctor_base(json_t *j, const char *keep_dir)
{
    int ok_all = 1;
    char dir[PATH_MAX] = "", note[1024];
    pm_err err = {0};
    if (!j)
        printf("default back end (embedded: MLIR/LLVM)\n");
    if (keep_dir) {
        snprintf(dir, sizeof dir, "%s/embedded", keep_dir);
        if (pm_util_mkdir_p(dir, &err)) {
            line(j, "workdir", "work folder:", 0, "%s", err.msg);
            return 0;
        }
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/passmap-doctor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            line(j, "workdir", "work folder:", 0, "cannot create a temporary folder in %s: %s",
                 tmp && *tmp ? tmp : "/tmp", strerror(errno));
            return 0;
        }
    }
    pm_embedded_tools t;
    if (pm_embedded_find_tools(NULL, &t, &err)) {
        line(j, "tools", "MLIR/LLVM tools:", 0, "%s (Debian: mlir-22-tools llvm-22; make deps-demo)", err.msg);
        ok_all = 0;
    } else {
        char v1[64], v2[64], v3[64];
        int vok = tool_version(t.mlir_opt, dir, v1, sizeof v1) & tool_version(t.mlir_translate, dir, v2, sizeof v2) &
                  tool_version(t.llc, dir, v3, sizeof v3);
        line(j, "tools", "MLIR/LLVM tools:", vok, "%s: mlir-opt %s, mlir-translate %s, llc %s%s", t.bindir, v1, v2,
             v3, vok ? "" : " (a tool did not print its version)");
        ok_all &= vok;
        int n_passes;
        int cok = tiny_compile(&t, dir, note, sizeof note, &n_passes);
        line(j, "tiny_compile", "tiny compile:", cok, "%s", note);
        ok_all &= cok;
    }
    /* gnuplot draws the report's figures: without it --html and --figures fail, the text report does not */
    char gp[64];
    int gok = tool_version("gnuplot", dir, gp, sizeof gp);
    line(j, "gnuplot", "gnuplot:", gok, gok ? "%s (report figures)" : "%s: not found or not working (Debian: "
         "gnuplot-nox); the report's --html and --figures need it", gp);
    ok_all &= gok;
    /* the meters (meter.h), each asked whether it runs here; auto's pick named. A meter that cannot run is said,
     * not a failure of the default back end: auto falls back to wall. */
    const pm_meter *pick = NULL;
    pm_meter_resolve(NULL, &pick, &err);
    for (size_t i = 0; i < pm_meter_count(); i++) {
        const pm_meter *m = pm_meter_at(i);
        char why[256] = "", key[64], label[64], more[512] = "";
        int mok = !m->usable || !m->usable(why, sizeof why);
        snprintf(key, sizeof key, "meter_%s", m->name);
        snprintf(label, sizeof label, "meter %s:", m->name);
        if (mok && m->detail)
            m->detail(more, sizeof more);
        char detail[1200];
        snprintf(detail, sizeof detail, "%s%s%s", mok ? m->about : why, more, m == pick ? " (auto's choice here)" : "");
        check_line(j, key, label, mok, m == pick ? "FAILED: " : "not here: ", detail);
    }
    /* the data folder: what report, show and fix read (a missing one is an error there too) */
    pm_stagemap *map = pm_stagemap_new();
    char fixes[PATH_MAX + 16];
    snprintf(fixes, sizeof fixes, "%s/fixes-embedded.tsv", pm_data_dir());   /* the default back end's fix catalogue */
    if (map && pm_stagemap_load_default(map, &err) == PM_OK) {
        int fok = access(fixes, R_OK) == 0;
        line(j, "data", "data folder:", fok, fok ? "%s (%zu stage rules, %zu stages; fixes-embedded.tsv)"
             : "%s: no readable fixes-embedded.tsv (%zu stage rules, %zu stages)", pm_data_dir(), pm_stagemap_rules(map),
             pm_stagemap_n_stages(map));
        ok_all &= fok;
    } else {
        line(j, "data", "data folder:", 0, "%s", map ? err.msg : "out of memory");
        ok_all = 0;
    }
    pm_stagemap_free(map);
    /* a sweep writes NAME.db and NAME.db.runs/ here */
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    int wok = access(".", W_OK) == 0;
    line(j, "workdir", "working folder:", wok, wok ? "%s is writable (a sweep writes NAME.db and NAME.db.runs/ there)"
         : "%s is not writable: a sweep needs --db elsewhere", cwd);
    ok_all &= wok;
    if (!keep_dir)
        pm_util_remove_tree(dir);
    if (!j)
        printf("=> %s\n", ok_all ? "ready for the default back end: make demo, or passmap sweep SPEC.ini"
                                 : "the default back end is NOT ready (see above)");
    return ok_all;
}
