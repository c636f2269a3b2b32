/* The valgrind meter: the step under Valgrind's cachegrind with the cache simulation off, which counts every
 * instruction the process executes (exactly: the same compile gives the same count, where its wall moves by a
 * third), children followed (--trace-children), each process's count file in a private folder, summed and
 * removed. Where passmap's own counting tool and timer wrapper were built (src/vgwrap), they count instead:
 * faster, and without the timing report's printing, whose count moves with the times it prints. Valgrind's own messages go to log files there too, so the step's stderr (a timing report) is the
 * compiler's alone. A process that replaces itself (exec without fork) is counted from its last program only:
 * Valgrind writes a tool's file when the process exits. */
#include "meter.h"
#include "meter_vg.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static const char VALGRIND[] = "valgrind";

/* 1 when prog (no '/') is an executable on PATH */
static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX + NAME_MAX + 2];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (len && len < PATH_MAX &&
            snprintf(dir, sizeof dir, "%.*s/%s", (int)len, p, prog) < (int)sizeof dir && access(dir, X_OK) == 0)
            return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

int pm_meter_vg_usable(char *why, size_t n)
{
    if (on_path(VALGRIND))
        return 0;
    snprintf(why, n, "valgrind is not on PATH: install it (Debian: apt-get install valgrind; "
             "scripts/install-deps.sh)");
    return 1;
}

/* The count in one output file: the sum of its parts' "totals:" (callgrind writes one per dump part), else its
 * "summary:" (cachegrind's Ir total); -1 when it has neither. A long line is read in pieces: only a piece that
 * starts a line is looked at. */
static int64_t file_count(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int64_t summary = -1, totals = 0;
    int n_totals = 0, at_start = 1;
    while (f && fgets(line, sizeof line, f)) {
        int starts = at_start;
        at_start = strchr(line, '\n') != NULL;
        int is_total = starts && !strncmp(line, "totals:", 7);
        if (!starts || (!is_total && strncmp(line, "summary:", 8)))
            continue;
        char *from = line + (is_total ? 7 : 8), *end;
        long long v = strtoll(from, &end, 10);
        if (end == from || v < 0)
            continue;
        if (is_total) {
            totals += v;
            n_totals++;
        } else {
            summary = v;
        }
    }
    if (f)
        fclose(f);
    return n_totals ? totals : summary;
}

/* The counts of every process in dir summed (*files: how many files); the first "valgrind:" line of a log into
 * note (what Valgrind said when it could not run something). */
static int64_t sum_counts(const char *dir, const char *prefix, int *files, char *note, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int64_t total = 0;
    *files = 0;
    char path[PATH_MAX];
    while (d && (e = readdir(d))) {
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            int64_t n = file_count(path);
            if (n >= 0) {
                total += n;
                (*files)++;
            }
        } else if (!strncmp(e->d_name, "log.", 4) && !note[0]) {
            FILE *f = fopen(path, "r");
            char line[512];
            while (f && fgets(line, sizeof line, f))
                if (!strncmp(line, "valgrind:", 9)) {
                    line[strcspn(line, "\n")] = 0;
                    snprintf(note, cap, "%.*s", (int)(cap > 1 ? cap - 1 : 0), line);
                    break;
                }
            if (f)
                fclose(f);
        }
    }
    if (d)
        closedir(d);
    return total;
}

/* The folder the tool's files go to: kept (scratch/t->keep, emptied first) or private (made, removed after). */
static int vg_folder(const pm_vg_tool *t, const char *scratch, char *dir, size_t cap, pm_err *err)
{
    const char *tmp = scratch ? scratch : getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    int keep = t->keep && scratch;
    if (snprintf(dir, cap, keep ? "%s/%s" : "%s/passmap-meter-XXXXXX", tmp, t->keep) >= (int)cap)
        return pm_err_set(err, PM_ERR_USAGE, "valgrind meter: the folder name under %s is longer than %zu bytes", tmp,
                          cap);
    if (keep)
        pm_util_remove_tree(dir);
    if (keep ? mkdir(dir, 0700) != 0 : !mkdtemp(dir))
        return pm_err_set(err, PM_ERR_IO, "valgrind meter: cannot make a folder in %s: %s (set TMPDIR)", tmp,
                          strerror(errno));
    return PM_OK;
}

/* "LD_PRELOAD=lib" (before any the caller's environment preloads) and "VALGRIND_LIB=dir" beside the caller's
 * env_set, in *env (owned; its strings in vars[0..1]) */
static int vg_env(const pm_vg_tool *t, const pm_run_opts *opts, const char ***env, char *vars[2], pm_err *err)
{
    size_t n = 0;
    while (opts->env_set && opts->env_set[n])
        n++;
    const char *had = getenv("LD_PRELOAD");
    if (!(*env = calloc(n + 3, sizeof **env)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (n)
        memcpy(*env, opts->env_set, n * sizeof **env);
    if (t->preload) {
        if (asprintf(&vars[0], "LD_PRELOAD=%s%s%s", t->preload, had && had[0] ? ":" : "", had ? had : "") < 0) {
            vars[0] = NULL;
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        (*env)[n++] = vars[0];
    }
    if (t->tool_dir) {
        if (asprintf(&vars[1], "VALGRIND_LIB=%s", t->tool_dir) < 0) {
            vars[1] = NULL;
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        (*env)[n] = vars[1];
    }
    return PM_OK;
}

int pm_meter_vg_exec(const pm_vg_tool *t, const char *const argv[], const pm_run_opts *opts, const char *scratch,
                     pm_run_result *res, pm_err *err)
{
    char dir[PATH_MAX], out_opt[PATH_MAX + 64], log_opt[PATH_MAX + 64], abs[PATH_MAX];
    const char **vargv = NULL, **env = NULL;
    char *vars[2] = {NULL, NULL};
    int rc, keep = t->keep && scratch;
    memset(res, 0, sizeof *res);
    res->instructions = -1;
    if ((rc = vg_folder(t, scratch, dir, sizeof dir, err)))
        return rc;
    /* the step may run in another folder: the files are named absolutely */
    if (!realpath(dir, abs)) {
        rc = pm_err_set(err, PM_ERR_IO, "valgrind meter: %s: %s", dir, strerror(errno));
        goto cleanup;
    }
    snprintf(out_opt, sizeof out_opt, "%s=%s/%s%%p", t->out_opt, abs, t->out_prefix);
    snprintf(log_opt, sizeof log_opt, "--log-file=%s/log.%%p", abs);
    size_t n = 0, n_args = 0;
    while (argv[n])
        n++;
    while (t->args[n_args])
        n_args++;
    if (!(vargv = calloc(n_args + n + 6, sizeof *vargv))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    size_t k = 0;
    vargv[k++] = VALGRIND;
    for (size_t i = 0; i < n_args; i++)
        vargv[k++] = t->args[i];
    vargv[k++] = "--trace-children=yes";
    vargv[k++] = out_opt;
    vargv[k++] = log_opt;
    vargv[k++] = "--";
    memcpy(vargv + k, argv, n * sizeof *argv);
    pm_run_opts o = *opts;
    o.count_instructions = 0;
    if ((t->preload || t->tool_dir) && (rc = vg_env(t, opts, &env, vars, err)))
        goto cleanup;
    if (env)
        o.env_set = env;
    if ((rc = pm_run_exec(vargv, &o, res, err)) != PM_OK)
        goto cleanup;
    int files = 0;
    char note[200] = "";
    int64_t total = sum_counts(abs, t->out_prefix, &files, note, sizeof note);
    if (files > 0) {
        res->instructions = total;
        res->instructions_errno = 0;
    } else {
        res->instructions_errno = ENODATA;
        if (res->status == PM_RUN_OK)
            res->status = PM_RUN_FAILED;   /* a counting meter's run without its count measured nothing */
        if (res->status == PM_RUN_FAILED && res->exit_code == 127) {
            res->status = PM_RUN_SPAWN_ERROR;   /* Valgrind could not start the program */
            snprintf(res->spawn_error, sizeof res->spawn_error, "%s: not found (run under valgrind)", argv[0]);
        } else if (!res->spawn_error[0]) {
            snprintf(res->spawn_error, sizeof res->spawn_error, "valgrind wrote no count%s%s",
                     note[0] ? ": " : "", note);
        }
    }
cleanup:
    free(vargv);
    free(env);
    free(vars[0]);
    free(vars[1]);
    if (!keep)
        pm_util_remove_tree(dir);
    return rc;
}

static const char *const cachegrind_args[] = {"--tool=cachegrind", "--cache-sim=no", NULL};
static const pm_vg_tool cachegrind = {.args = cachegrind_args, .out_opt = "--cachegrind-out-file", .out_prefix = "cg."};

static const char *const pmcount_args[] = {"--tool=pmcount", NULL};

static void valgrind_detail(char *buf, size_t n)
{
    if (pm_meter_vgwrap() && pm_meter_vgtool())
        snprintf(buf, n, "; counted by passmap's tool pmcount (%s), timing reports' printing left out",
                 pm_meter_vgtool());
    else
        snprintf(buf, n,
                 "; counted by cachegrind (passmap's pmcount not built): a step printing a timing report "
                 "counts its printing, which moves by ~0.01%% run to run");
}

/* Where passmap's counting tool and timer wrapper were built, they count: faster than cachegrind (one add per
 * block exit), and the wrapper leaves the timing report's printing out of the count, which otherwise moves it by
 * ~0.01% run to run (docs/meters.md "Determinism"). */
static int valgrind_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                         pm_err *err)
{
    const char *tool = pm_meter_vgwrap() ? pm_meter_vgtool() : NULL;
    if (!tool)
        return pm_meter_vg_exec(&cachegrind, argv, opts, scratch, res, err);
    pm_vg_tool t = {.args = pmcount_args,
                    .out_opt = "--pmcount-out-file",
                    .out_prefix = "pc.",
                    .preload = pm_meter_vgwrap(),
                    .tool_dir = tool};
    return pm_meter_vg_exec(&t, argv, opts, scratch, res, err);
}

const pm_meter pm_meter_valgrind = {.name = "valgrind",
                                    .about =
                                        "instructions of the process tree counted by "
                                        "Valgrind (passmap's pmcount, else cachegrind): exact, ~20-100x slower; wall "
                                        "and CPU are the instrumented run's",
                                    .counts = 1,
                                    .slows = 1,
                                    .slowdown_guess = 50,
                                    .usable = pm_meter_vg_usable,
                                    .detail = valgrind_detail,
                                    .exec = valgrind_exec};
