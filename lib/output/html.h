/* pm_html: the report as one self-contained HTML file (figures inline as SVG, inline CSS and JavaScript). */
#ifndef PM_HTML_H
#define PM_HTML_H

#include <stdio.h>
#include <sqlite3.h>
#include "analysis.h"
#include "figures.h"
#include "stagemap.h"

typedef struct pm_html_opts {
    sqlite3 *db;                 /* the database analysed: per-config runs, argv, stderr, pass trees; NULL: none */
    const pm_stagemap *map;      /* colours the pass trees by stage; NULL: grey */
    const char *db_label;        /* the store as the user named it: the commands the page prints name it; NULL: DB */
} pm_html_opts;

int pm_html_write(const pm_analysis *a, const pm_figures *figs, const pm_html_opts *o, FILE *out, pm_err *err);

#endif
