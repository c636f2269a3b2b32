/* The embedded compiler back end: mlir-opt (tiling + full unroll pipeline) → mlir-translate → llc. */
#include "embedded.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#define DEFAULT_TILE 256
#define DEFAULT_UNROLL 16

static int tool_in(const char *dir, const char *tool, char *out, size_t n)
{
    int k = snprintf(out, n, "%s/%s", dir, tool);
    return k > 0 && (size_t)k < n && access(out, X_OK) == 0;
}

/* The newest /usr/lib/llvm-N/bin that holds mlir-opt (N compared as a number). */
static int newest_system_bindir(char *out, size_t n)
{
    DIR *d = opendir("/usr/lib");
    if (!d)
        return 0;
    long best = -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        if (strncmp(de->d_name, "llvm-", 5) != 0)
            continue;
        long v = strtol(de->d_name + 5, &end, 10);
        if (end == de->d_name + 5 || *end || v <= best)
            continue;
        char dir[300], path[400];
        snprintf(dir, sizeof dir, "/usr/lib/%s/bin", de->d_name);
        if (tool_in(dir, "mlir-opt", path, sizeof path)) {
            best = v;
            snprintf(out, n, "%s", dir);
        }
    }
    closedir(d);
    return best >= 0;
}

static int dir_on_path(const char *tool, char *out, size_t n)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = strdup(path), *save = NULL;
    int found = 0;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char p[700];
        if (*dir && tool_in(dir, tool, p, sizeof p)) {
            snprintf(out, n, "%s", dir);
            found = 1;
        }
    }
    free(copy);
    return found;
}

/* Runs `tool --version` and takes the first "version X.Y.Z" it prints. */
static int tool_version(const char *tool, char *out, size_t n, pm_err *err)
{
    int fd[2];
    if (pipe(fd) != 0)
        return pm_err_errno(err, PM_ERR_IO, "pipe");
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return pm_err_errno(err, PM_ERR_CHILD, "fork");
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl(tool, tool, "--version", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[4096];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    buf[len] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return pm_err_set(err, PM_ERR_CHILD, "%s --version failed", tool);
    const char *v = strstr(buf, "version ");
    if (!v)
        return pm_err_set(err, PM_ERR_PARSE, "%s --version printed no version", tool);
    v += strlen("version ");
    size_t k = 0;
    while (v[k] && (isdigit((unsigned char)v[k]) || v[k] == '.') && k + 1 < n)
        k++;
    if (k == 0)
        return pm_err_set(err, PM_ERR_PARSE, "%s --version printed no version number", tool);
    memcpy(out, v, k);
    out[k] = '\0';
    return PM_OK;
}

int pm_embedded_find_tools(const char *bindir, pm_embedded_tools *tools, pm_err *err)
{
    memset(tools, 0, sizeof *tools);
    const char *from = "argument";
    if (!bindir || !*bindir) {
        bindir = getenv("PASSMAP_LLVM_BINDIR");
        from = "$PASSMAP_LLVM_BINDIR";
    }
    if (bindir && *bindir) {
        if (strlen(bindir) >= sizeof tools->bindir)
            return pm_err_set(err, PM_ERR_USAGE, "LLVM bindir too long (%s)", from);
        strcpy(tools->bindir, bindir);
    } else if (!newest_system_bindir(tools->bindir, sizeof tools->bindir) &&
               !dir_on_path("mlir-opt", tools->bindir, sizeof tools->bindir))
        return pm_err_set(err, PM_ERR_NOTFOUND,
                          "mlir-opt not found (no /usr/lib/llvm-N/bin with it, none on PATH; set PASSMAP_LLVM_BINDIR)");
    struct { const char *name; char *dst; } need[] = {
        {"mlir-opt", tools->mlir_opt}, {"mlir-translate", tools->mlir_translate}, {"llc", tools->llc}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!tool_in(tools->bindir, need[i].name, need[i].dst, sizeof tools->mlir_opt))
            return pm_err_set(err, PM_ERR_NOTFOUND, "%s not found in %s", need[i].name, tools->bindir);
    int rc = tool_version(tools->mlir_opt, tools->version, sizeof tools->version, err);
    if (rc != PM_OK)
        return rc;
    return PM_OK;
}

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
                            const char *workdir, double timeout_s, pm_embedded_stage_size out[PM_EMBEDDED_N_PROBES],
                            pm_err *err)
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
    char *argv[] = {(char *)tools->mlir_opt, (char *)input_mlir, arg, "-o", "/dev/null", NULL};
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = workdir, .stderr_path = errp};
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

static int add_step(pm_steps *out, const char *tool, char **argv, const char *workdir, int stream, pm_format fmt,
                    char *input, char *output)
{
    pm_step *items = realloc(out->items, (size_t)(out->n + 1) * sizeof *items);
    if (!items) {
        pm_argv_free(argv);
        free(input);
        free(output);
        return PM_ERR_NOMEM;
    }
    out->items = items;
    pm_step *st = &items[out->n++];
    memset(st, 0, sizeof *st);
    st->tool = strdup(tool);
    st->argv = argv;
    st->cwd = strdup(workdir);
    st->report_stream = stream;
    st->report_format = fmt;
    st->input = input;
    st->output = output;
    return st->tool && st->cwd && argv && input && output ? PM_OK : PM_ERR_NOMEM;
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
    const char *display = opts->display ? opts->display : "tree";
    if (strcmp(display, "tree") && strcmp(display, "list"))
        return pm_err_set(err, PM_ERR_USAGE, "timing display '%s' (tree or list)", display);
    if (opts->tile < 0 || opts->unroll < 0)
        return pm_err_set(err, PM_ERR_USAGE, "tile and unroll must be >= 0 (0: defaults %d, %d)", DEFAULT_TILE,
                          DEFAULT_UNROLL);
    int olevel = opts->llc_opt < 0 ? 2 : opts->llc_opt;
    if (olevel > 3)
        return pm_err_set(err, PM_ERR_USAGE, "llc -O%d (0..3)", olevel);
    if (!input_mlir || !workdir)
        return pm_err_set(err, PM_ERR_USAGE, "input and workdir are required");

    int rc = PM_ERR_NOMEM;
    char *pipeline = pm_embedded_pipeline(opts), *pp = NULL, *disp = NULL, *ol = NULL;
    char *bc = path_in(workdir, "out.mlirbc"), *ll = path_in(workdir, "out.ll"), *obj = path_in(workdir, "out.o");
    if (!pipeline || !bc || !ll || !obj || asprintf(&pp, "--pass-pipeline=%s", pipeline) < 0 ||
        asprintf(&disp, "--mlir-timing-display=%s", display) < 0 || asprintf(&ol, "-O%d", olevel) < 0)
        goto cleanup;
    pm_format mfmt = opts->json ? PM_FMT_MLIR_JSON : PM_FMT_MLIR_TEXT;

    char **a = pm_argv_new(tools->mlir_opt, input_mlir, pp, "--mlir-timing", disp, (char *)NULL);
    if (a && opts->json && pm_argv_push(&a, "--mlir-output-format=json") != PM_OK)
        goto fail_argv;
    if (a && opts->single_thread && pm_argv_push(&a, "--mlir-disable-threading") != PM_OK)
        goto fail_argv;
    if (a && (pm_argv_push(&a, "--emit-bytecode") || pm_argv_push(&a, "-o") || pm_argv_push(&a, bc)))
        goto fail_argv;
    if ((rc = add_step(out, "mlir-opt", a, workdir, PM_STREAM_STDERR, mfmt, strdup(input_mlir), strdup(bc))) != PM_OK)
        goto cleanup;

    /* mlir-translate takes the same timing flags (checked in 22.1.8's --help: one "Translate MLIR to LLVMIR" row). */
    a = pm_argv_new(tools->mlir_translate, "--mlir-to-llvmir", "--mlir-timing", disp, (char *)NULL);
    if (a && opts->json && pm_argv_push(&a, "--mlir-output-format=json") != PM_OK)
        goto fail_argv;
    if (a && (pm_argv_push(&a, bc) || pm_argv_push(&a, "-o") || pm_argv_push(&a, ll)))
        goto fail_argv;
    if ((rc = add_step(out, "mlir-translate", a, workdir, PM_STREAM_STDERR, mfmt, strdup(bc), strdup(ll))) != PM_OK)
        goto cleanup;

    a = pm_argv_new(tools->llc, ol, "-filetype=obj", "-time-passes", ll, "-o", obj, (char *)NULL);
    rc = add_step(out, "llc", a, workdir, PM_STREAM_STDERR, PM_FMT_LLVM_TEXT, strdup(ll), strdup(obj));
    goto cleanup;

fail_argv:
    pm_argv_free(a);
    rc = PM_ERR_NOMEM;
cleanup:
    if (rc != PM_OK) {
        pm_steps_free(out);
        if (rc == PM_ERR_NOMEM)
            pm_err_set(err, rc, "out of memory building the embedded steps");
    }
    free(pipeline);
    free(pp);
    free(disp);
    free(ol);
    free(bc);
    free(ll);
    free(obj);
    return rc;
}
