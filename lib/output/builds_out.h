/* The report's "between builds" section (pm_an_builds, analysis_builds.c): its tables in the one table model
 * and one function per writer, so each writer's hook is one call (and the section one row of a section table).
 * Nothing is written when the study has no builds axis. */
#ifndef PM_BUILDS_OUT_H
#define PM_BUILDS_OUT_H

#include <stdio.h>
#include <jansson.h>
#include "analysis.h"
#include "table.h"

/* Per pass in both builds of each pair that compare's rule tested (in its pass family, above timer resolution;
 * matched by name through the alias table):
 * mean A, mean B, ratio, its interval, verdict. */
pm_table *pm_builds_pass_table(const pm_analysis *a);
/* The passes one build of a pair ran and the other did not. */
pm_table *pm_builds_only_table(const pm_analysis *a);
/* The section as text (markdown 0) or Markdown; width: the terminal's. PM_ERR_NOMEM. */
int pm_builds_text(FILE *f, const pm_analysis *a, int markdown, int width);
int pm_builds_html(FILE *f, const pm_analysis *a);
/* {"axis", "values", "programs", "aliases", "alias_error", "pairs": [...], "passes": table, "one_build_only": table};
 * NULL (JSON null) when the study has no builds axis. New reference. */
json_t *pm_builds_json(const pm_analysis *a);

#endif
