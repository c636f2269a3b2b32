/* The valgrind meter: the step under Valgrind's cachegrind with the cache simulation off, which counts every
 * instruction the process executes (exactly: the same compile gives the same count, where its wall moves by a
 * third), children followed (--trace-children), each process's count file in a private folder, summed and
 * removed. Valgrind's own messages go to log files there too, so the step's stderr (a timing report) is the
 * compiler's alone. A process that replaces itself (exec without fork) is counted from its last program only:
 * Valgrind writes a tool's file when the process exits. */
#include "meter.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int valgrind_usable(char *why, size_t n)
{
    if (on_path(VALGRIND))
        return 0;
    snprintf(why, n, "valgrind is not on PATH: install it (Debian: apt-get install valgrind; "
             "scripts/install-deps.sh)");
    return 1;
}

/* The count in one cachegrind file ("summary: N", the Ir total); -1 when it has none. */
static int64_t file_count(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int64_t n = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "summary:", 8)) {
            char *end;
            long long v = strtoll(line + 8, &end, 10);
            if (end != line + 8 && v >= 0)
                n = v;
        }
    if (f)
        fclose(f);
    return n;
}

/* The counts of every process in dir summed (*files: how many files); the first "valgrind:" line of a log into
 * note (what Valgrind said when it could not run something). */
static int64_t sum_counts(const char *dir, int *files, char *note, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int64_t total = 0;
    *files = 0;
    char path[PATH_MAX];
    while (d && (e = readdir(d))) {
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        if (!strncmp(e->d_name, "cg.", 3)) {
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

static int valgrind_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                         pm_err *err)
{
    const char *tmp = scratch ? scratch : getenv("TMPDIR");
    char dir[PATH_MAX], out_opt[PATH_MAX + 64], log_opt[PATH_MAX + 64], abs[PATH_MAX];
    const char **vargv = NULL;
    int rc;
    memset(res, 0, sizeof *res);
    res->instructions = -1;
    if (snprintf(dir, sizeof dir, "%s/passmap-meter-XXXXXX", tmp && tmp[0] ? tmp : "/tmp") >= (int)sizeof dir)
        return pm_err_set(err, PM_ERR_USAGE, "valgrind meter: the folder name under %s is longer than %d bytes",
                          tmp, PATH_MAX);
    if (!mkdtemp(dir))
        return pm_err_set(err, PM_ERR_IO, "valgrind meter: cannot make a folder in %s: %s (set TMPDIR)",
                          tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    /* the step may run in another folder: the files are named absolutely */
    if (!realpath(dir, abs)) {
        rc = pm_err_set(err, PM_ERR_IO, "valgrind meter: %s: %s", dir, strerror(errno));
        goto cleanup;
    }
    snprintf(out_opt, sizeof out_opt, "--cachegrind-out-file=%s/cg.%%p", abs);
    snprintf(log_opt, sizeof log_opt, "--log-file=%s/log.%%p", abs);
    size_t n = 0;
    while (argv[n])
        n++;
    const char *pre[] = {VALGRIND, "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes", out_opt, log_opt,
                         "--"};
    size_t n_pre = sizeof pre / sizeof pre[0];
    if (!(vargv = calloc(n_pre + n + 1, sizeof *vargv))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(vargv, pre, sizeof pre);
    memcpy(vargv + n_pre, argv, n * sizeof *argv);
    pm_run_opts o = *opts;
    o.count_instructions = 0;
    if ((rc = pm_run_exec(vargv, &o, res, err)) != PM_OK)
        goto cleanup;
    int files = 0;
    char note[200] = "";
    int64_t total = sum_counts(abs, &files, note, sizeof note);
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
    pm_util_remove_tree(dir);
    return rc;
}

const pm_meter pm_meter_valgrind = {.name = "valgrind", .about = "instructions of the process tree counted by "
                                    "Valgrind (cachegrind, no cache simulation): exact, ~20-100x slower; wall and "
                                    "CPU are the instrumented run's",
                                    .counts = 1, .slows = 1, .slowdown_guess = 50, .usable = valgrind_usable,
                                    .exec = valgrind_exec};
