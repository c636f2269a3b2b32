/* pm_figures: the report's figures (one row each in figures.c: name, title, draw, size, empty note), each
 * drawn by gnuplot (SVG + PNG) from data files it writes. */
#ifndef PM_FIGURES_H
#define PM_FIGURES_H

#include <stddef.h>
#include "analysis.h"
#include "error.h"

typedef struct pm_figure {
    const char *name;     /* file stem: "regime-map", "handoff", ... (DIR/name.svg, DIR/name.png) */
    const char *title;
    char *svg;            /* SVG text; NULL when the figure was omitted */
    char *note;           /* why it was omitted ("no CNN data in this sweep"), or NULL */
    char *finding;        /* what it shows, one sentence computed from its data ("lowering-to-llvm leads 10 of 12
                             cells ..."), or NULL when it has nothing to say */
    int binned;           /* 1: drawn from binned summaries (above FIG_SCATTER_MAX points or FIG_BARS_MAX bars or
                             map rows in figures.c; its title says how) */
} pm_figure;

typedef struct pm_figures {
    pm_figure *fig;       /* one per figure row, in report order */
    size_t n;
} pm_figures;

/* Renders every figure into dir (created if missing; NULL: a temp dir, removed afterwards). Figures
 * without data are omitted with a note, not an error. Needs `gnuplot` on PATH (PM_ERR_NOTFOUND if not). */
int pm_figures_render(const pm_analysis *a, const char *dir, pm_figures *out, pm_err *err);
void pm_figures_free(pm_figures *f);
/* How many figures the report draws (the rows of figures.c). */
size_t pm_figures_count(void);

#endif
