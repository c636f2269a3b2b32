/* Per-pass counts of one metered step: the callgrind files a per_pass meter left (meter.h), one per process of
 * the step, matched to the step's report (passcount.h). */
#include "passcount.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meter.h"

/* 1 when a part of cg was dumped by the timer wrapper */
static int timer_parts(const pm_callgrind *cg)
{
    for (size_t i = 0; i < cg->n_parts; i++)
        if (cg->parts[i].trigger && strstr(cg->parts[i].trigger, "Client Request: " PM_PASSCOUNT_START))
            return 1;
    return 0;
}

/* The process whose counts go with the report: the one the wrapper saw timers in, else the one that ran the
 * most (a shell step's compiler, not the shell) */
static int pick_file(const char *dir, pm_callgrind *best, int *best_timers, pm_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return pm_err_set(err, PM_ERR_NOTFOUND, "%s: no callgrind files (the step ran under another meter?)", dir);
    struct dirent *e;
    int rc = PM_OK, any = 0;
    *best_timers = 0;
    while (rc == PM_OK && (e = readdir(d))) {
        if (strncmp(e->d_name, PM_METER_PROFILE_PREFIX, strlen(PM_METER_PROFILE_PREFIX)))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
            rc = pm_err_set(err, PM_ERR_USAGE, "%s/%s: path longer than %d bytes", dir, e->d_name, PATH_MAX);
            break;
        }
        pm_callgrind cg;
        pm_callgrind_init(&cg);
        if ((rc = pm_callgrind_parse_file(path, &cg, err)) != PM_OK) {
            pm_callgrind_free(&cg);
            break;
        }
        int timers = timer_parts(&cg);
        if (!any || (timers && !*best_timers) || (timers == *best_timers && cg.total > best->total)) {
            pm_callgrind_free(best);
            *best = cg;
            *best_timers = timers;
            any = 1;
        } else {
            pm_callgrind_free(&cg);
        }
    }
    closedir(d);
    if (rc == PM_OK && !any)
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: no callgrind file (callgrind wrote none)", dir);
    return rc;
}

int pm_passcount_dir(const char *dir, const pm_report *rep, const char *tool, pm_passcount *out, pm_err *err)
{
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_cgmap *map = NULL;
    int timers = 0, rc = pick_file(dir, &cg, &timers, err);
    memset(out, 0, sizeof *out);
    if (rc == PM_OK && !timers) {   /* no wrapper: the exported entry points */
        if (!(map = pm_cgmap_new()))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else
            rc = pm_cgmap_load_default(map, err);
    }
    if (rc == PM_OK)
        rc = pm_passcount_compute(&cg, rep, map, tool, out, err);
    pm_cgmap_free(map);
    pm_callgrind_free(&cg);
    return rc;
}
