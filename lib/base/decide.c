/* pm_decide: the deciding metric (decide.h). */
#include "decide.h"

#include <math.h>
#include <stdio.h>

static double sample_wall(double wall, double user, double sys, double instructions)
{
    (void)user, (void)sys, (void)instructions;
    return wall > 0 ? wall : NAN;
}

static double sample_cpu(double wall, double user, double sys, double instructions)
{
    (void)wall, (void)instructions;
    return user >= 0 && sys >= 0 && user + sys > 0 ? user + sys : NAN;
}

static double sample_instructions(double wall, double user, double sys, double instructions)
{
    (void)wall, (void)user, (void)sys;
    return instructions > 0 ? instructions : NAN;
}

/* The metrics, indexed by pm_decide_metric. A count's resolution is one count, or the spread of its repeats
 * (address randomisation, hash order) when that is larger; a time's tick is its timer's, which the caller
 * knows (the runner's clock). Contention moves a time, never a count. */
static const pm_decide_row rows[] = {
    [PM_DECIDE_WALL] = {.name = "wall", .sample = sample_wall},
    [PM_DECIDE_CPU] = {.name = "cpu time (user+sys)", .sample = sample_cpu},
    [PM_DECIDE_INSTRUCTIONS] = {.name = "instructions (user space)", .sample = sample_instructions, .count = 1},
};

const pm_decide_row *pm_decide_row_of(pm_decide_metric m)
{
    return (unsigned)m < sizeof rows / sizeof rows[0] ? &rows[m] : &rows[PM_DECIDE_WALL];
}

void pm_decide_init(pm_decide_evidence *e)
{
    *e = (pm_decide_evidence){.instructions = 1, .cpu = 1, .tools_cpu_wall = NAN, .tools_cpu_wall_min = NAN,
                              .runs_cpu_wall = NAN};
}

void pm_decide_add_run(pm_decide_evidence *e, double wall, double user, double sys, double instructions)
{
    if (!(instructions > 0))
        e->instructions = 0;
    if (!(user >= 0) || !(sys >= 0) || !(user + sys > 0))
        e->cpu = 0;
    (void)wall;
}

void pm_decide_add_side(pm_decide_evidence *e, double cpu_wall)
{
    if (!isnan(cpu_wall) && (isnan(e->runs_cpu_wall) || cpu_wall > e->runs_cpu_wall))
        e->runs_cpu_wall = cpu_wall;
}

void pm_decide_add_config(pm_decide_evidence *e, const double *wall, const double *user, const double *sys,
                          const double *instructions, size_t n)
{
    double cpu = 0, w = 0;
    for (size_t i = 0; i < n; i++) {
        pm_decide_add_run(e, wall[i], user[i], sys[i], instructions[i]);
        if (user[i] >= 0 && sys[i] >= 0) {
            cpu += user[i] + sys[i];
            w += wall[i];
        }
    }
    pm_decide_add_side(e, w > 0 ? cpu / w : NAN);
}

pm_decide_metric pm_decide(const pm_decide_evidence *e)
{
    if (e->runs_cpu_wall > PM_DECIDE_SERIAL_MAX)
        return PM_DECIDE_WALL;
    if (e->instructions)
        return PM_DECIDE_INSTRUCTIONS;
    if (e->cpu && e->tools_cpu_wall <= PM_DECIDE_SERIAL_MAX &&   /* NaN: tools not measured */
        e->tools_cpu_wall_min >= PM_DECIDE_CPU_BOUND_MIN)
        return PM_DECIDE_CPU;
    return PM_DECIDE_WALL;
}

const char *pm_decide_name(pm_decide_metric m)
{
    return pm_decide_row_of(m)->name;
}

void pm_decide_text(pm_decide_metric m, char *buf, size_t n)
{
    snprintf(buf, n, "decided on: %s%s", pm_decide_name(m), m == PM_DECIDE_WALL ? "" : "; wall shown");
}

double pm_decide_sample(pm_decide_metric m, double wall, double user, double sys, double instructions)
{
    return pm_decide_row_of(m)->sample(wall, user, sys, instructions);
}

double pm_decide_floor(pm_decide_metric m, const double *v, size_t n, double floor)
{
    if (!pm_decide_row_of(m)->count)
        return floor;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    double spread = hi > lo ? hi - lo : 0;
    return fmax(fmax(floor, 1), spread);
}
