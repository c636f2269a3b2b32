/* STUB: to be written. */
#include <stdio.h>
#include "cmds.h"

int cmd_gen(int argc, char **argv)
{
    fprintf(stderr, "passmap: '%s' is not built yet\n", argv[0]);
    return PM_EXIT_FAIL;
}
