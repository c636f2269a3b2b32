#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pm_err_set(pm_err *err, pm_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int pm_err_errno(pm_err *err, pm_status code, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < sizeof err->msg)
            snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s", strerror(saved));
        err->code = code;
    }
    return code;
}

int pm_err_wrap(pm_err *err, const char *fmt, ...)
{
    if (!err)
        return PM_ERR_USAGE;
    char prefix[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Built by hand: snprintf("%s: %s") would warn about truncation, which is intended here. */
    size_t cap = sizeof err->msg - 1, n = strnlen(prefix, cap);
    memcpy(err->msg, prefix, n);
    if (n + 2 <= cap) {
        memcpy(err->msg + n, ": ", 2);
        n += 2;
    }
    size_t rest = strnlen(old, sizeof old);
    if (rest > cap - n)
        rest = cap - n;
    memcpy(err->msg + n, old, rest);
    err->msg[n + rest] = '\0';
    return err->code ? (int)err->code : PM_ERR_IO;
}

void pm_err_clear(pm_err *err)
{
    if (err) {
        err->code = PM_OK;
        err->msg[0] = '\0';
    }
}

const char *pm_status_name(pm_status code)
{
    switch (code) {
    case PM_OK: return "ok";
    case PM_ERR_USAGE: return "usage";
    case PM_ERR_IO: return "io";
    case PM_ERR_PARSE: return "parse";
    case PM_ERR_DB: return "db";
    case PM_ERR_NOMEM: return "nomem";
    case PM_ERR_NOTFOUND: return "notfound";
    case PM_ERR_CHILD: return "child";
    case PM_ERR_CORRUPT: return "corrupt";
    case PM_ERR_UNSUPPORTED: return "unsupported";
    case PM_ERR_TIMEOUT: return "timeout";
    }
    return "unknown";
}
