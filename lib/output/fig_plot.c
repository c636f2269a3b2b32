/* The figures' shared drawing parts: colours, gnuplot quoting, data files, log ticks, bins. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tab20 without its two greys: enough distinct colours for every stage of a back end (the embedded map has 14);
 * grey is process start-up's alone (stage_color), so no compiler stage reads as "nothing here". */
static const char *COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                               "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                               "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"};
#define NCOLORS (sizeof COLORS / sizeof COLORS[0])
const char *fig_color(int i) { return COLORS[(size_t)(i < 0 ? 0 : i) % NCOLORS]; }
#define OVERHEAD_COLOR "#c8c8c8"
/* A stage's colour, the same in every figure: process-overhead (start-up and time outside passes) is no compiler
 * stage and is drawn light grey. */
const char *fig_stage_color(const pm_analysis *a, size_t s)
{
    return (int)s == pm_an_stage_index(a, PM_STAGE_OVERHEAD) ? OVERHEAD_COLOR : fig_color((int)s);
}

/* Configs of the kind row that has a study (kinds.c: precision_study, spine), with cold runs. */
int fig_has_study(const pm_an_config *c, int spine)
{
    const pm_kind *k = pm_kind_find(c->kind);
    return k && (spine ? k->spine : k->precision_study) && c->n_cold > 0;
}

/* The regime map (slice) of the kind row that has a study. */
const pm_an_regime *fig_study_regime(const pm_analysis *a, int spine)
{
    for (int i = 0; pm_kind_at(i); i++)
        if (spine ? pm_kind_at(i)->spine : pm_kind_at(i)->precision_study)
            return pm_an_regime_of(a, pm_kind_at(i)->name);
    return pm_an_regime_of(a, NULL);
}

int fig_same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* gnuplot string literal: single-quoted, quotes doubled. */
void fig_q(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

FILE *fig_data_file(const fig_ctx *x, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", x->dir, name);
    return fopen(path, "w");
}

/* Row / column i of n on a map drawn with at most FIG_BARS_MAX of them: runs of consecutive ones above it. */
size_t fig_bin_of(size_t i, size_t n) { return n > FIG_BARS_MAX ? i * FIG_BINS / n : i; }
size_t fig_bins(size_t n) { return n > FIG_BARS_MAX ? FIG_BINS : n; }

/* Tick marks for a log axis over [lo, hi]: gnuplot puts them at powers of ten only, so a range within one decade
 * got a single labelled tick. 1-2-5 steps when that gives at least three marks, else 1-2-3-5; a range over
 * many decades keeps gnuplot's own. axis: "x" or "y". */
void fig_log_tics(FILE *f, const char *axis, double lo, double hi)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(lo) || !isfinite(hi))
        return;
    static const int steps125[] = {1, 2, 5}, steps1235[] = {1, 2, 3, 5};
    const int *steps[] = {steps125, steps1235};
    const int n_steps[] = {3, 4};
    double from = lo / 1.05, to = hi * 1.05;
    for (int pass = 0; pass < 2; pass++) {
        int n = 0;
        for (double dec = pow(10, floor(log10(from))); dec <= to; dec *= 10)
            for (int k = 0; k < n_steps[pass]; k++)
                n += steps[pass][k] * dec >= from && steps[pass][k] * dec <= to;
        if (n > 12)
            return;
        if (n < 3 && pass == 0)
            continue;
        fprintf(f, "set %stics (", axis);
        int first = 1;
        for (double dec = pow(10, floor(log10(from))); dec <= to; dec *= 10)
            for (int k = 0; k < n_steps[pass]; k++) {
                double v = steps[pass][k] * dec;
                if (v < from || v > to)
                    continue;
                char label[32];   /* 8000, 20k, 3M, 1.5G: shorter than 2e+04 */
                if (v >= 1e9) snprintf(label, sizeof label, "%.6gG", v / 1e9);
                else if (v >= 1e6) snprintf(label, sizeof label, "%.6gM", v / 1e6);
                else if (v >= 1e4) snprintf(label, sizeof label, "%.6gk", v / 1e3);
                else snprintf(label, sizeof label, "%.6g", v);
                fprintf(f, "%s\"%s\" %.6g", first ? "" : ", ", label, v);
                first = 0;
            }
        fprintf(f, ")\n");
        return;
    }
}

static int cmp_fig_x(const void *pa, const void *pb)
{
    double a = ((const fig_xy *)pa)->x, b = ((const fig_xy *)pb)->x;
    return (a > b) - (a < b);
}

static int cmp_fig_y(const void *pa, const void *pb)
{
    double a = ((const fig_xy *)pa)->y, b = ((const fig_xy *)pb)->y;
    return (a > b) - (a < b);
}

/* The quantile q of v[0..n) sorted by y (linear between ranks). */
static double fig_yq(const fig_xy *v, size_t n, double q)
{
    double r = q * (double)(n - 1);
    size_t i = (size_t)r;
    return i + 1 < n ? v[i].y + (r - (double)i) * (v[i + 1].y - v[i].y) : v[n - 1].y;
}

/* Equal-count bins along x (v is sorted here): one line per bin, "x y ylo yhi" = the bin's median x, the median of
 * its y and their quartiles. */
void fig_write_bins(FILE *d, fig_xy *v, size_t n, size_t nbins)
{
    qsort(v, n, sizeof *v, cmp_fig_x);
    for (size_t b = 0, from = 0; b < nbins && from < n; b++) {
        size_t to = (b + 1) * n / nbins;
        if (to <= from)
            continue;
        double mx = v[from + (to - from) / 2].x;
        qsort(v + from, to - from, sizeof *v, cmp_fig_y);
        fprintf(d, "%.6g %.6g %.6g %.6g\n", mx, fig_yq(v + from, to - from, 0.5), fig_yq(v + from, to - from, 0.25),
                fig_yq(v + from, to - from, 0.75));
        from = to;
    }
}
