/* Finding the embedded back end's tools (mlir-opt, mlir-translate, llc) and their version. */
#include "embedded.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "util.h"

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

/* Runs `tool --version` through the runner (a timeout, like every process) and takes the first "version X.Y.Z"
 * it prints. */
#define VERSION_TIMEOUT_S 30.0
static int tool_version(const char *tool, char *out, size_t n, pm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/passmap-version.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= sizeof path)
        return pm_err_set(err, PM_ERR_USAGE, "TMPDIR path too long");
    int fd = mkstemp(path);
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot create a temporary file %s", path);
    close(fd);
    const char *argv[] = {tool, "--version", NULL};
    pm_run_opts ro = {.timeout_s = VERSION_TIMEOUT_S, .stdout_path = path};
    pm_run_result res;
    char *text = NULL;
    size_t len = 0;
    int rc = pm_run_exec(argv, &ro, &res, err);
    if (!rc && res.status != PM_RUN_OK)
        rc = pm_err_set(err, PM_ERR_CHILD, "%s --version failed (%s)", tool, pm_run_status_name(res.status));
    if (!rc)
        rc = pm_util_read_file(path, &text, &len, err);
    unlink(path);
    if (rc)
        return rc;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    free(text);
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
        snprintf(tools->bindir, sizeof tools->bindir, "%s", bindir);
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
