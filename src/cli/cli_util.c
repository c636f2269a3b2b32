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
