#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

int pm_util_read_file_max(const char *path, size_t max, char **buf, size_t *len, pm_err *err)
{
    *buf = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below like any non-regular file */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot open %s", path);
    int rc = PM_OK;
    char *data = NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot stat %s", path);
        goto cleanup;
    }
    if (!S_ISREG(sb.st_mode)) {
        /* a device such as /dev/zero never ends and a FIFO can block forever */
        rc = pm_err_set(err, PM_ERR_IO, "%s is not a regular file", path);
        goto cleanup;
    }
    if ((uintmax_t)sb.st_size > (uintmax_t)max) {
        rc = pm_err_set(err, PM_ERR_IO, "%s is %jd bytes, over the %zu-byte limit for this input", path,
                        (intmax_t)sb.st_size, max);
        goto cleanup;
    }
    size_t cap = (size_t)sb.st_size + 2, n = 0; /* + NUL + one byte to see the end without growing */
    if (cap < 4096)
        cap = 4096;
    for (;;) {
        if (!data && !(data = malloc(cap))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
            goto cleanup;
        }
        if (n + 1 == cap) { /* the file grew while being read */
            char *bigger = realloc(data, cap * 2);
            if (!bigger) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
                goto cleanup;
            }
            data = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, data + n, cap - n - 1);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = pm_err_errno(err, PM_ERR_IO, "cannot read %s", path);
            goto cleanup;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            rc = pm_err_set(err, PM_ERR_IO, "%s grew over the %zu-byte limit for this input while being read", path,
                            max);
            goto cleanup;
        }
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    data = NULL;
cleanup:
    close(fd);
    free(data);
    return rc;
}

int pm_util_read_file(const char *path, char **buf, size_t *len, pm_err *err)
{
    return pm_util_read_file_max(path, SIZE_MAX - 1, buf, len, err);
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
