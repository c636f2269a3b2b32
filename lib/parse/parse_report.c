/* See parse_report.h: the report container the parsers fill. */
#include "parse_report.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[] = {"none", "sequence", "timed"};

const char *pm_pass_order_name(pm_pass_order o)
{
    return (o >= PM_ORDER_NONE && o <= PM_ORDER_TIMED) ? order_names[o] : "none";
}

pm_pass_order pm_pass_order_from_name(const char *name)
{
    for (int o = PM_ORDER_NONE; o <= PM_ORDER_TIMED; o++)
        if (name && strcmp(name, order_names[o]) == 0)
            return (pm_pass_order)o;
    return PM_ORDER_NONE;
}

void pm_report_init(pm_report *r)
{
    memset(r, 0, sizeof *r);
    r->total_wall_s = -1;
    r->total_user_s = -1;
}

void pm_report_skip(pm_report *r, const char *fmt, ...)
{
    if (r->n_skipped++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->skipped_first, sizeof r->skipped_first, fmt, ap);
        va_end(ap);
    }
}

void pm_report_free(pm_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_passes; i++)
        pm_free_all(r->passes[i].name, r->passes[i].section);
    for (size_t i = 0; i < r->n_metrics; i++)
        free(r->metrics[i].name);
    pm_free_all(r->passes, r->metrics);
    pm_report_init(r);
}

static int grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return PM_OK;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*items, ncap * size);
    if (!p)
        return PM_ERR_NOMEM;
    *items = p;
    *cap = ncap;
    return PM_OK;
}

int pm_report_take_pass(pm_report *r, const pm_pass *p)
{
    if (grow((void **)&r->passes, &r->cap_passes, r->n_passes + 1, sizeof *r->passes))
        return PM_ERR_NOMEM;
    r->passes[r->n_passes++] = *p;
    return PM_OK;
}

int pm_report_add_pass(pm_report *r, const pm_pass *p)
{
    if (grow((void **)&r->passes, &r->cap_passes, r->n_passes + 1, sizeof *r->passes))
        return PM_ERR_NOMEM;
    pm_pass *d = &r->passes[r->n_passes];
    *d = *p;
    d->name = strdup(p->name ? p->name : "");
    d->section = p->section ? strdup(p->section) : NULL;
    if (!d->name || (p->section && !d->section)) {
        free(d->name);
        free(d->section);
        return PM_ERR_NOMEM;
    }
    r->n_passes++;
    return PM_OK;
}

int pm_report_add_metric(pm_report *r, const char *name, double value)
{
    if (grow((void **)&r->metrics, &r->cap_metrics, r->n_metrics + 1, sizeof *r->metrics))
        return PM_ERR_NOMEM;
    char *n = strdup(name);
    if (!n)
        return PM_ERR_NOMEM;
    r->metrics[r->n_metrics].name = n;
    r->metrics[r->n_metrics].value = value;
    r->n_metrics++;
    return PM_OK;
}

int pm_time_ok(double seconds)
{
    return isfinite(seconds) && seconds >= 0 && seconds <= PM_TIME_MAX_S;
}

int pm_pass_counted(const pm_pass *p)
{
    return !(p->flags & (PM_PASS_GROUP | PM_PASS_SUMMARY | PM_PASS_DETAIL));
}

double pm_report_pass_wall(const pm_report *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->n_passes; i++)
        if (pm_pass_counted(&r->passes[i]))
            sum += r->passes[i].wall_s;
    return sum;
}

