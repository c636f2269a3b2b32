/* Small helpers the subcommands share. */
#include "cmds.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <jansson.h>

#include "util.h"

int cli_term_width(int fallback)
{
    const char *c = getenv("COLUMNS");
    char *end;
    long w = c && *c ? strtol(c, &end, 10) : 0;
    if (c && *c && !*end && w > 0)
        return (int)w;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return fallback;
}

int cli_parse_threshold(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end != arg && *end == '%' && !end[1])
        v /= 100, end++;
    if (end == arg || *end || !(v > 0 && v < 1))
        return -1;
    *out = v;
    return 0;
}

int cli_print_json(json_t *root, const char *cmd)
{
    int status = PM_EXIT_OK;
    if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
        fprintf(stderr, "passmap %s: could not write JSON\n", cmd);
        status = PM_EXIT_FAIL;
    }
    fputc('\n', stdout);
    json_decref(root);
    return status;
}

int cli_publish(const char *path, int (*fill)(FILE *f, const void *arg, pm_err *err), const void *arg,
                pm_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = fill(f, arg, err);
    if (fclose(f) != 0 && rc == PM_OK)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc == PM_OK)
        rc = pm_util_write_file_atomic(path, buf, len, 0644, NULL, err);
    free(buf);
    return rc;
}
