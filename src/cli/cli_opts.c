/* The option tables (cli_opts.h): getopt_long's arrays built from a table, and the help printed from it. */
#include "cli_opts.h"
#include "cmds.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { HELP_COL = 22 };   /* where an option's help starts: "  -o, --output FILE   text" */

int cli_getopt(const cli_cmd *cmd, int argc, char **argv)
{
    /* built once per command: a process parses one command line (two for cache's wrapper), so the arrays live
     * as long as the process */
    static const cli_cmd *built;
    static struct option *lo;
    static char *so;
    if (built != cmd) {
        size_t n = 0;
        while (cmd->opts && cmd->opts[n].name)
            n++;
        free(lo);
        free(so);
        lo = calloc(n + 2, sizeof *lo);
        so = malloc(strlen(cmd->flags ? cmd->flags : "") + 2 + 2 * n + 1);
        if (!lo || !so) {
            fprintf(stderr, "passmap %s: out of memory parsing the options\n", cmd->name);
            built = NULL;
            return '?';
        }
        size_t k = (size_t)snprintf(so, 3 + strlen(cmd->flags ? cmd->flags : ""), "%sh", cmd->flags ? cmd->flags : "");
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const cli_opt *o = &cmd->opts[i];
            if (!*o->name)   /* a heading */
                continue;
            lo[m++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
            if (o->short_too) {
                so[k++] = (char)o->key;
                if (o->arg)
                    so[k++] = ':';
            }
        }
        so[k] = '\0';
        lo[m] = (struct option){"help", no_argument, NULL, CLI_HELP};
        built = cmd;
    }
    return getopt_long(argc, argv, so, lo, NULL);
}

/* "  -o, --output FILE" padded to the help column (two spaces after a longer one), then the help, each line of
 * it after the first under the column. */
static void put_opt(FILE *out, const char *spec, const char *help)
{
    int w = fprintf(out, "  %s", spec);
    for (int i = w; i < HELP_COL || i < w + 2; i++)
        fputc(' ', out);
    for (const char *p = help; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fwrite(p, 1, len, out);
        fputc('\n', out);
        if (!nl)
            break;
        p = nl + 1;
        fprintf(out, "%*s", HELP_COL, "");
    }
}

void cli_usage(FILE *out, const cli_cmd *cmd)
{
    /* the synopsis: a continued line under its first word, another form of the command ("passmap ...") under
     * the first "passmap" */
    int indent = (int)strlen("usage: passmap  ") + (int)strlen(cmd->name);
    fprintf(out, "usage: passmap %s ", cmd->name);
    for (const char *p = cmd->synopsis; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%*s", strncmp(p + 1, "passmap ", 8) ? indent : (int)strlen("usage: "), "");
    }
    fputc('\n', out);
    if (cmd->about)
        fprintf(out, "%s\n", cmd->about);
    fputs("\noptions:\n", out);
    for (const cli_opt *o = cmd->opts; o && o->name; o++) {
        char spec[128];
        if (!*o->name) {
            fprintf(out, "%s\n", o->help);
            continue;
        }
        if (o->short_too)
            snprintf(spec, sizeof spec, "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(spec, sizeof spec, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        put_opt(out, spec, o->help);
    }
    put_opt(out, "-h, --help", "this help");
    if (cmd->notes)
        fprintf(out, "%s\n", cmd->notes);
    if (cmd->notes_fn)
        cmd->notes_fn(out);
    fprintf(out, "exit status: %s\nmore: man passmap-%s\n",
            cmd->exit_status ? cmd->exit_status : "0 ok, 1 the work failed, 2 bad usage", cmd->name);
}

int cli_try_help(const cli_cmd *cmd)
{
    fprintf(stderr, "try 'passmap %s --help'\n", cmd->name);
    return PM_EXIT_USAGE;
}
