/* pm_html: the report as one self-contained HTML file (figures inline as SVG). */
#ifndef PM_HTML_H
#define PM_HTML_H

#include <stdio.h>
#include "analysis.h"
#include "figures.h"

int pm_html_write(const pm_analysis *a, const pm_figures *figs, FILE *out, pm_err *err);

#endif
