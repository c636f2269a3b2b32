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

/* A tick's label with its unit: durations in the unit that keeps 1-999 of it ("5 ms", "500 ms", "2 s"), like
 * pm_fmt_time; counts shortened ("8000", "20k", "3M", "1.5G": shorter than 2e+04). */
static void tick_label(char *buf, size_t n, double v, const char *unit)
{
    if (unit && !strcmp(unit, "s")) {
        if (v >= 1) snprintf(buf, n, "%.6g s", v);
        else if (v >= 1e-3) snprintf(buf, n, "%.6g ms", v * 1e3);
        else snprintf(buf, n, "%.6g us", v * 1e6);
    } else if (v >= 1e12) snprintf(buf, n, "%.6gT", v / 1e12);
    else if (v >= 1e9) snprintf(buf, n, "%.6gG", v / 1e9);
    else if (v >= 1e6) snprintf(buf, n, "%.6gM", v / 1e6);
    else if (v >= 1e4) snprintf(buf, n, "%.6gk", v / 1e3);
    else snprintf(buf, n, "%.6g%s%s", v, unit ? " " : "", unit ? unit : "");   /* "300 px" */
}

/* Tick marks for a log axis over [lo, hi], each labelled with its unit (unit "s": durations; NULL: counts;
 * another: after the number, "300 px").
 * gnuplot puts them at powers of ten only, so a range within one decade got a single labelled tick: the first
 * of 1-2-5, 1-2-3-5 and 1-1.5-2-2.5-3-4-5-6-8 steps that gives three to twelve marks (the finest otherwise);
 * a range over many decades gets every power of ten, or every second, third ... one. axis: "x" or "y". */
void fig_log_tics(FILE *f, const char *axis, double lo, double hi, const char *unit)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(lo) || !isfinite(hi))
        return;
    static const double s125[] = {1, 2, 5}, s1235[] = {1, 2, 3, 5}, sfine[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8},
                        s1[] = {1};
    const double *steps[] = {s125, s1235, sfine, s1};
    const int n_steps[] = {3, 4, 9, 1};
    double from = lo / 1.05, to = hi * 1.05, first_dec = pow(10, floor(log10(from)));
    int pass = 0, stride = 1, n = 0;
    for (; pass < 3; pass++) {
        n = 0;
        for (double dec = first_dec; dec <= to; dec *= 10)
            for (int k = 0; k < n_steps[pass]; k++)
                n += steps[pass][k] * dec >= from && steps[pass][k] * dec <= to;
        if (n > 12) {   /* many decades: powers of ten, at most ten of them */
            stride = (int)ceil(log10(to / first_dec)) / 10 + 1;
            pass = 3;
            break;
        }
        if (n >= 3)
            break;
    }
    if (pass == 3 && n <= 12)
        pass = 2;   /* even the finest steps had fewer than three marks: keep them */
    if (!n) {   /* one value, no step inside its margin: the value itself */
        char label[32];
        tick_label(label, sizeof label, lo, unit);
        fprintf(f, "set %stics (\"%s\" %.6g)\n", axis, label, lo);
        return;
    }
    fprintf(f, "set %stics (", axis);
    int first = 1;
    for (double dec = first_dec; dec <= to; dec *= 10)
        for (int k = 0; k < n_steps[pass]; k++) {
            double v = steps[pass][k] * dec;
            if (v < from || v > to || (int)lround(log10(dec)) % stride)   /* every stride-th power: 1 among them */
                continue;
            char label[32];
            tick_label(label, sizeof label, v, unit);
            fprintf(f, "%s\"%s\" %.6g", first ? "" : ", ", label, v);
            first = 0;
        }
    fprintf(f, ")\n");
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
