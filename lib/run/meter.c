/* pm_meter: the meter table (meter.h). */
#include "meter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meter_rows.h"

#define PM_METER_ROW(name) &pm_meter_##name,
static const pm_meter *const meters[] = {PM_METER_ROWS(PM_METER_ROW)};
#undef PM_METER_ROW
#define N_METERS (sizeof meters / sizeof meters[0])

size_t pm_meter_count(void)
{
    return N_METERS;
}

const pm_meter *pm_meter_at(size_t i)
{
    return i < N_METERS ? meters[i] : NULL;
}

const pm_meter *pm_meter_find(const char *name)
{
    for (size_t i = 0; name && i < N_METERS; i++)
        if (!strcmp(meters[i]->name, name))
            return meters[i];
    return NULL;
}

const char *pm_meter_names(void)
{
    static char names[256];
    if (!names[0]) {
        snprintf(names, sizeof names, "auto");
        for (size_t i = 0; i < N_METERS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", meters[i]->name);
    }
    return names;
}

int pm_meter_resolve(const char *name, const pm_meter **out, pm_err *err)
{
    char why[256] = "";
    *out = NULL;
    if (!name || !strcmp(name, "auto")) {
        /* a count at native speed where the machine offers one, else the first row (the runner as it is) */
        for (size_t i = 0; i < N_METERS && !*out; i++)
            if (meters[i]->counts && !meters[i]->slows && (!meters[i]->usable || !meters[i]->usable(why, sizeof why)))
                *out = meters[i];
        if (!*out)
            *out = meters[0];
        return PM_OK;
    }
    const pm_meter *m = pm_meter_find(name);
    if (!m)
        return pm_err_set(err, PM_ERR_USAGE, "meter '%s' is not one of %s", name, pm_meter_names());
    if (m->usable && m->usable(why, sizeof why))
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "meter %s cannot run here: %s", name, why);
    *out = m;
    return PM_OK;
}

double pm_meter_timeout(const pm_meter *m, double timeout_s, double slowdown)
{
    /* the larger of the measured and the row's figure: one config's slowdown is not every config's */
    double f = fmax(slowdown > 1 ? slowdown : 1, m && m->slowdown_guess > 1 ? m->slowdown_guess : 1);
    return timeout_s > 0 ? timeout_s * f : timeout_s;
}

int pm_meter_check_jobs(const pm_meter *m, int jobs, pm_err *err)
{
    if (jobs <= 1 || m->counts)
        return PM_OK;
    return pm_err_set(err, PM_ERR_USAGE,
                      "--jobs %d needs a meter that counts instructions (valgrind, or counters "
                      "where the kernel has them): the %s meter decides on time, and %d compiles at once make "
                      "every time contended, so nothing could be concluded; use --meter valgrind, or --jobs 1",
                      jobs, m->name, jobs);
}
