/* Test helper: a whole file, NUL-terminated (len excludes the NUL), through the library's reader; the test
 * fails when the file cannot be read. Include after <cmocka.h>. */
#ifndef PM_TEST_SLURP_H
#define PM_TEST_SLURP_H

#include "util.h"

/* noinline: once inlined, GCC 12 at -O2 takes the returned buffer for the address of the local `buf` and
 * rejects every pointer into it as dangling (-Werror=dangling-pointer). */
__attribute__((noinline, unused)) static char *slurp(const char *path, size_t *len)
{
    char *buf = NULL;
    pm_err err = {0};
    if (pm_util_read_file(path, &buf, len, &err) != PM_OK)
        fail_msg("%s", err.msg);
    return buf;
}

#endif
