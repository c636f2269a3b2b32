#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double pm_util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pm_util_mkdir_p(const char *path, pm_err *err)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return pm_err_set(err, PM_ERR_USAGE, "bad folder path '%.200s'", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(buf, 0777) != 0 && errno != EEXIST;
        *p = '/';
        if (bad)
            return pm_err_errno(err, PM_ERR_IO, "cannot create %.*s", (int)(p - buf), buf);
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", buf);
    return PM_OK;
}

int pm_util_read_file(const char *path, char **buf, size_t *len, pm_err *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pm_err_errno(err, PM_ERR_IO, "cannot open %s", path);
    int rc = PM_OK;
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    for (;;) {
        if (!data) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
            goto cleanup;
        }
        size_t got = fread(data + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = pm_err_errno(err, PM_ERR_IO, "cannot read %s", path);
            break;
        }
        if (n + 1 == cap) {
            char *bigger = realloc(data, cap * 2);
            if (!bigger)
                free(data);
            data = bigger;
            cap *= 2;
        }
    }
cleanup:
    fclose(f);
    if (rc != PM_OK) {
        free(data);
        return rc;
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    return PM_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void pm_util_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
