/* The figures' parts (lib/output/fig_*.c): the shared drawing helpers of fig_plot.c and each figure's draw, size
 * and finding functions, which the figure table in figures.c names. Internal to lib/output. */
#ifndef PM_FIGURES_DRAW_H
#define PM_FIGURES_DRAW_H

#include <stddef.h>
#include <stdio.h>
#include "analysis.h"
#include "util.h"

/* binned: set by a draw function that drew its data from binned summaries (too many points, bars or rows). */
typedef struct fig_ctx { const pm_analysis *a; const char *dir; int *binned; } fig_ctx;

/* Paths are DIR/NAME.EXT in char[4096] with names of at most 32 bytes (the figure table's and their data files). */
#define FIG_DIR_MAX (4096 - 64)

/* Above this many points a scatter is drawn from binned summaries instead (gnuplot's cost, and the reader's, grew
 * with every config: 15,000 points per stage and series at 150,000 runs). */
#define FIG_SCATTER_MAX 2000
#define FIG_BINS 40
/* Above this many bars (stacked figures) or rows / columns (regime maps), FIG_BINS runs of consecutive ones. */
#define FIG_BARS_MAX 60
#define PM_STR_(x) #x
#define PM_STR(x) PM_STR_(x)

typedef struct fig_xy { double x, y; } fig_xy;

/* fig_plot.c */
const char *fig_color(int i);
const char *fig_stage_color(const pm_analysis *a, size_t s);
int fig_has_study(const pm_an_config *c, int spine);
const pm_an_regime *fig_study_regime(const pm_analysis *a, int spine);
int fig_same(const char *a, const char *b);
void fig_q(FILE *f, const char *s);
FILE *fig_data_file(const fig_ctx *x, const char *name);
size_t fig_bin_of(size_t i, size_t n);
size_t fig_bins(size_t n);
void fig_log_tics(FILE *f, const char *axis, double lo, double hi, const char *unit);
void fig_write_bins(FILE *d, fig_xy *v, size_t n, size_t nbins);

/* A figure row's parts. draw: writes the data files and returns the gnuplot body (0), no data (1) or an I/O error
 * (-1). size: the drawing's pixels from its data. finding: one sentence (0), nothing to say (1), no memory (-1). */
#define FIG_DRAW_FN(n) int n(const fig_ctx *x, const char *name, char **body)
#define FIG_SIZE_FN(n) void n(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
#define FIG_FINDING_FN(n) int n(const pm_analysis *a, const char *name, pm_sbuf *b)

FIG_DRAW_FN(fig_draw_regime);
FIG_SIZE_FN(fig_size_regime);
FIG_FINDING_FN(fig_finding_regime);
FIG_DRAW_FN(fig_draw_handoff);
FIG_FINDING_FN(fig_finding_handoff);
FIG_DRAW_FN(fig_draw_why);
FIG_SIZE_FN(fig_size_panels);
FIG_FINDING_FN(fig_finding_why);
FIG_DRAW_FN(fig_fingerprint);
FIG_DRAW_FN(fig_draw_prec_window);
FIG_SIZE_FN(fig_size_bars);
FIG_FINDING_FN(fig_finding_fingerprint);
FIG_FINDING_FN(fig_finding_prec_window);
FIG_DRAW_FN(fig_draw_precision);
FIG_SIZE_FN(fig_size_wide);
FIG_FINDING_FN(fig_finding_precision);
FIG_DRAW_FN(fig_draw_spine);
FIG_SIZE_FN(fig_size_spine);
FIG_FINDING_FN(fig_finding_spine);

#endif
