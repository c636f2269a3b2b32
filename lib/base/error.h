/* Error reporting shared by every module: functions return a pm_status code and fill a pm_err. */
#ifndef PM_ERROR_H
#define PM_ERROR_H

#include <stddef.h>

typedef enum pm_status {
    PM_OK = 0,
    PM_ERR_USAGE = 1,     /* bad argument or option */
    PM_ERR_IO = 2,        /* file or system call failed */
    PM_ERR_PARSE = 3,     /* input not in the expected format */
    PM_ERR_DB = 4,        /* SQLite failure */
    PM_ERR_NOMEM = 5,
    PM_ERR_NOTFOUND = 6,  /* a tool, library, key or record is absent */
    PM_ERR_CHILD = 7,     /* a child process failed */
    PM_ERR_CORRUPT = 8,   /* integrity check failed */
    PM_ERR_UNSUPPORTED = 9,
    PM_ERR_TIMEOUT = 10   /* a child process ran past its time limit or was cancelled (Ctrl-C): no answer */
} pm_status;

typedef struct pm_err {
    pm_status code;
    char msg[1024];
} pm_err;

/* Sets err (if non-NULL) and returns code, so callers can write `return pm_err_set(err, ...)`. */
int pm_err_set(pm_err *err, pm_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like pm_err_set, appending ": strerror(errno)". */
int pm_err_errno(pm_err *err, pm_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes context to an existing message ("context: old message"). */
int pm_err_wrap(pm_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pm_err_clear(pm_err *err);
const char *pm_status_name(pm_status code);

#endif
