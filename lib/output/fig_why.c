/* The why-costly figure: heavy pass time against the IR size at its stage entry. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fig_why(const fig_ctx *x, char **body)
{
    const pm_analysis *a = x->a;
    int any = 0;
    for (size_t i = 0; i < a->fits.n; i++)
        any |= a->fits.rows[i].n > 0;
    if (!any)
        return 1;
    FILE *d = fig_data_file(x, "why-costly.dat");
    if (!d)
        return -1;
    size_t np = 0;   /* panels: the fits with points (a pass without stage-entry sizes has none: no fit) */
    int any_binned = 0;
    for (size_t i = 0; i < a->fits.n; i++) {
        const pm_an_fit *fit = &a->fits.rows[i];
        if (!fit->n)
            continue;
        if (fit->n > FIG_SCATTER_MAX) {   /* many configs: binned medians with quartiles, in log x (log-log axes) */
            fig_xy *v = malloc((size_t)fit->n * sizeof *v);
            if (!v) {
                fclose(d);
                return -1;
            }
            for (int k = 0; k < fit->n; k++)
                v[k] = (fig_xy){fit->x[k], fit->y[k]};
            fig_write_bins(d, v, (size_t)fit->n, FIG_BINS);
            free(v);
            any_binned = 1;
            *x->binned = 1;
        } else {
            for (int k = 0; k < fit->n; k++)
                fprintf(d, "%.6g %.6g\n", fit->x[k], fit->y[k]);
        }
        fprintf(d, "\n\n");
        np++;
    }
    fclose(d);
    /* Small multiples: one panel per heavy pass, each on its own axes, each fit drawn only over the sizes it was
     * fitted on (a sampled range), so no panel extrapolates. */
    size_t cols = np <= 1 ? 1 : np <= 4 ? 2 : 3, rows = (np + cols - 1) / cols;
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set multiplot layout %zu,%zu title 'Why costly: heavy pass time vs the IR size at its stage entry "
               "(log-log, power-law fit over the measured range%s)'\nset logscale xy\nunset key\n"
               "set ylabel 'pass wall'\nset format x '%%.0e'\n", rows, cols,
            any_binned ? "; above " PM_STR(FIG_SCATTER_MAX) " configs binned: median and quartiles of each 1/"
                         PM_STR(FIG_BINS) " by size" : "");
    for (size_t j = 0, i = 0; j < a->fits.n; j++) {
        const pm_an_fit *fit = &a->fits.rows[j];
        if (!fit->n)
            continue;
        double lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < fit->n; k++) {
            lo = fit->x[k] < lo ? fit->x[k] : lo;
            hi = fit->x[k] > hi ? fit->x[k] : hi;
        }
        char t[320];
        snprintf(t, sizeof t, "%s (%s)%s%s%s%s", fit->name, a->stages[fit->stage], fit->reference ? "" : ", ",
                 fit->reference ? "" : fit->variant ? fit->variant : "-", fit->group ? ", " : "",
                 fit->group ? fit->group : "");
        /* the fit under the pass's name, not in a key over the points */
        char fit_t[200] = "no fit (one size)";
        if (!isnan(fit->exponent) && hi > lo)
            snprintf(fit_t, sizeof fit_t, "fit size^%.2f [%.2f, %.2f], R2 %.2f%s, %d configs%s", fit->exponent,
                     fit->lo, fit->hi, fit->r2, fit->superlinear ? ", superlinear" : "", fit->n,
                     fit->n > FIG_SCATTER_MAX ? " (binned)" : "");
        fprintf(f, "set title ");
        fig_q(f, t);
        fputs(" . \"\\n\" . ", f);
        fig_q(f, fit_t);
        fprintf(f, " font ',12'\nset xlabel ");
        fig_q(f, fit->x_metric);
        double ylo = INFINITY, yhi = -INFINITY;
        for (int k = 0; k < fit->n; k++)
            ylo = fmin(ylo, fit->y[k]), yhi = fmax(yhi, fit->y[k]);
        fputc('\n', f);
        fprintf(f, "set xtics autofreq\nset ytics autofreq\n");   /* the previous panel's ticks do not carry over */
        fig_log_tics(f, "x", lo, hi, NULL);
        fig_log_tics(f, "y", ylo, yhi, "s");
        if (fit->n > FIG_SCATTER_MAX)
            fprintf(f, "plot 'why-costly.dat' index %zu using 1:2:3:4 with yerrorbars pt 7 lc rgb '%s' notitle",
                    i, fig_color((int)i));
        else
            fprintf(f, "plot 'why-costly.dat' index %zu using 1:2 with points pt 7 lc rgb '%s' notitle", i,
                    fig_color((int)i));
        if (!isnan(fit->exponent) && fit->n > 0 && hi > lo)
            fprintf(f, ", [%.6g:%.6g] %.6g*x**%.6g with lines lw 2 lc rgb '%s' notitle", lo, hi, fit->prefactor,
                    fit->exponent, fig_color((int)i));
        fputc('\n', f);
        i++;
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    *body = b;
    return 0;
}

#define FIG_MAX_W_PANELS 940
void fig_size_panels(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;   /* why-costly: small multiples, one panel per pass */
    *w = FIG_MAX_W_PANELS, *h = 600;
}

int fig_finding_why(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    const pm_an_fit *top = NULL;
    int n = 0, super = 0;
    for (size_t i = 0; i < a->fits.n; i++) {
        const pm_an_fit *f = &a->fits.rows[i];
        if (!f->x_metric || isnan(f->exponent))
            continue;
        n++;
        super += f->superlinear;
        if (!top || f->exponent > top->exponent)
            top = f;
    }
    if (!top)
        return 1;
    pm_sbuf_add(b, "Steepest: %s (%s) grows as size^%.2f", top->name ? top->name : "?", top->tool ? top->tool : "?",
                top->exponent);
    if (!isnan(top->lo) && !isnan(top->hi))
        pm_sbuf_add(b, " [%.2f, %.2f]", top->lo, top->hi);
    pm_sbuf_add(b, "; %d of %d fitted passes superlinear (interval above 1).", super, n);
    return 0;
}

int fig_draw_why(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_why(x, body); }
