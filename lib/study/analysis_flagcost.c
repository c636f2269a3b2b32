/* Section: what the timing flags cost (flagcost.c reads it; the report's "timing flags" section shows it). */
#include "analysis_internal.h"

int an_flagcost(an_work *w, pm_err *err)
{
    return pm_flagcost_read(w->db, &w->sweeps, &w->a->flagcost, err);
}

void an_flagcost_free(pm_analysis *a)
{
    pm_flagcost_free(&a->flagcost);
}
