/* Small helpers the subcommands share. */
#include "cmds.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

void cli_help_tail(FILE *out, const char *cmd, const char *exit_status)
{
    fprintf(out,
            "  -h, --help        this help\n"
            "exit status: %s\n"
            "more: man passmap-%s\n",
            exit_status ? exit_status : "0 ok, 1 the work failed, 2 bad usage", cmd);
}

void cli_help_list(FILE *out, const char *list, int col, int indent, const char *tail)
{
    const char *p = list;
    while (*p) {
        const char *comma = strstr(p, ", ");
        size_t len = comma ? (size_t)(comma - p) + 1 : strlen(p);   /* the item with its comma */
        if (col + (int)len > 99 && p != list) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (p != list) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)len, p);
        col += (int)len;
        p += comma ? len + 1 : len;
    }
    fprintf(out, "%s\n", tail);
}
