/* Small helpers every part of the sweep engine uses (below sweep.c and the files it drives). */
#include "sweep_internal.h"

int pm_sweep_fmt_path(char *out, size_t cap, pm_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "path longer than %zu bytes: %.200s...", cap - 1, out);
    return PM_OK;
}

void pm_sweep_notice(const sweep_ctx *x, const char *fmt, ...)
{
    if (!x->opts->notice)
        return;
    va_list ap;
    va_start(ap, fmt);
    pm_util_vnotify(x->opts->notice, x->opts->notice_user, fmt, ap);
    va_end(ap);
}

int pm_sweep_past_deadline(const sweep_ctx *x)
{
    return x->opts->deadline > 0 && !x->opts->dry_run && pm_util_now() >= x->opts->deadline;
}
