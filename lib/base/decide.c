/* pm_decide: the deciding metric (decide.h). */
#include "decide.h"

#include <math.h>
#include <stdio.h>

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
    switch (m) {
    case PM_DECIDE_CPU: return "cpu time (user+sys)";
    case PM_DECIDE_INSTRUCTIONS: return "instructions (user space)";
    default: return "wall";
    }
}

const char *pm_decide_unit(pm_decide_metric m)
{
    return m == PM_DECIDE_INSTRUCTIONS ? "instructions" : "s";
}

void pm_decide_text(pm_decide_metric m, char *buf, size_t n)
{
    snprintf(buf, n, "decided on: %s%s", pm_decide_name(m), m == PM_DECIDE_WALL ? "" : "; wall shown");
}

double pm_decide_sample(pm_decide_metric m, double wall, double user, double sys, double instructions)
{
    switch (m) {
    case PM_DECIDE_CPU: return user >= 0 && sys >= 0 && user + sys > 0 ? user + sys : NAN;
    case PM_DECIDE_INSTRUCTIONS: return instructions > 0 ? instructions : NAN;
    default: return wall > 0 ? wall : NAN;
    }
}
