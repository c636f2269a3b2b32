/* passmap history's outputs (lib/study/history.h): a table per config (a row per compile, step and stage, a
 * column per sweep, a change point marked ▲ slower / ▼ faster than the sweep before), JSON, and one HTML page of
 * small multiples (a chart per config: a line per row, a marker at each change point, its words on hover, the
 * table under it). */
#ifndef PM_HISTORY_OUT_H
#define PM_HISTORY_OUT_H

#include <stdio.h>
#include <jansson.h>
#include "error.h"
#include "history.h"

int pm_history_write_text(FILE *out, const pm_history *h, int width, pm_err *err);
json_t *pm_history_to_json(const pm_history *h);
int pm_history_write_html(FILE *out, const pm_history *h, pm_err *err);

#endif
