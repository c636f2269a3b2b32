/* The proven fix table of `passmap fix` in the report: it heads the text and HTML report of a study when
 * `passmap fix` has run on it (the result is kept in the store's meta table under "fix:<study>"). */
#ifndef PM_FIX_REPORT_H
#define PM_FIX_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include "error.h"

/* *json_text: the stored result of `passmap fix` on sweep, or NULL when none (not an error). */
int pm_fix_report_load(const char *db_path, const char *sweep, char **json_text, pm_err *err);
/* The ledger (the recommendation, then one table of the fixes measured, rendered in each form). Both print
 * nothing for NULL or unreadable JSON; PM_OK, PM_ERR_NOMEM or PM_ERR_IO. */
int pm_fix_report_text(FILE *out, const char *json_text);
/* A fix's measured geomean ratio with its interval across configs, or why there is none (fewer than 3). */
void pm_fix_ratio_text(const json_t *o, char *out, size_t cap);
/* What a fix result's B/A is a ratio of: the metric its configs were decided on ("decided_on", decide.h);
 * "compile wall" for wall or when not recorded. */
const char *pm_fix_decided_metric(const json_t *rec);
int pm_fix_report_html(FILE *out, const char *json_text);

/* The program side of a fix's ledger in one line: "run 1.250x [1.10, 1.40], slower (n=5 a side); .text 0.98x
 * (…bytes)", "-" when not measured. */
void pm_fix_ledger_text(const json_t *o, char *out, size_t cap);
/* Why a result recommends nothing: trade-offs only, or nothing faster with unchanged output. */
const char *pm_fix_nothing_why(const json_t *result);
/* The Pareto frontier of `passmap fix`'s result (compile vs run time), with the recommended point and why. */
void pm_fix_frontier_text(FILE *f, const json_t *result);

#endif
