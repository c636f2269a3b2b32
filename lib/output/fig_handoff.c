/* The handoff figure: stage share against the workload's size. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a handoff's x is called on an axis. */
static void x_name(const pm_an_handoff *h, char *buf, size_t n)
{
    if (!strcmp(h->x, "wall"))
        snprintf(buf, n, "cold compile wall time");
    else
        snprintf(buf, n, "%s", h->x);
}

static int fig_handoff(const fig_ctx *x, char **body)
{
    const pm_analysis *a = x->a;
    const pm_an_handoff *h = &a->handoff;
    if (!h->x || !h->n_points)
        return 1;
    /* many points: one block per (stage, series) of binned medians (index in plot order), not a point per config */
    int binned = h->n_points > FIG_SCATTER_MAX;
    *x->binned |= binned;
    FILE *d = fig_data_file(x, "handoff.dat");
    fig_xy *v = binned ? malloc(h->n_points * sizeof *v) : NULL;
    if (!d || (binned && !v)) {
        if (d)
            fclose(d);
        free(v);
        return -1;
    }
    for (size_t p = 0; !binned && p < h->n_points; p++) {
        const pm_an_config *c = &a->configs[h->points[p].config];
        fprintf(d, "%.6g %d", h->points[p].x, h->points[p].series);
        for (size_t s = 0; s < a->n_stages; s++)
            fprintf(d, " %.4f", c->share[s].mean * 100);
        fputc('\n', d);
    }
    unsigned char *dom_stage = calloc(a->n_stages + 1, 1);
    if (!dom_stage) {
        fclose(d);
        free(v);
        return -1;
    }
    for (size_t p = 0; p < h->n_points; p++) {
        int ds = a->configs[h->points[p].config].dominant_stage;
        if (ds >= 0 && (size_t)ds < a->n_stages)
            dom_stage[ds] = 1;
    }
    for (size_t s = 0; binned && s < a->n_stages; s++)
        for (size_t k = 0; dom_stage[s] && k < h->n_series; k++) {
            size_t n = 0;
            for (size_t p = 0; p < h->n_points; p++)
                if (h->points[p].series == (int)k)
                    v[n++] = (fig_xy){h->points[p].x, a->configs[h->points[p].config].share[s].mean * 100};
            if (n)
                fig_write_bins(d, v, n, FIG_BINS);
            else
                fprintf(d, "NaN NaN NaN NaN\n");   /* an empty block would shift every later index */
            fprintf(d, "\n\n");
        }
    free(v);
    fclose(d);
    char *b = NULL, xn[300];
    size_t bl = 0;
    x_name(h, xn, sizeof xn);
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set title ");
    char t[600];
    if (binned)   /* the caption says what a mark is */
        snprintf(t, sizeof t, "Handoff: stage share vs %s (%zu configs, binned: median and quartiles of each 1/%d by "
                 "x, per %s; lines: trend per stage)", xn, h->n_points, FIG_BINS,
                 *h->series_axes ? h->series_axes : "series");
    else
        snprintf(t, sizeof t, "Handoff: stage share vs %s (points: %s, lines: trend per stage)", xn,
                 *h->series_axes ? h->series_axes : "configs");
    fig_q(f, t);
    fprintf(f, "\n%sset xlabel ", h->log_x ? "set logscale x\n" : "");
    fig_q(f, xn);
    fputc('\n', f);
    if (h->log_x) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t p = 0; p < h->n_points; p++)
            lo = fmin(lo, h->points[p].x), hi = fmax(hi, h->points[p].x);
        fig_log_tics(f, "x", lo, hi, strcmp(h->x, "wall") ? NULL : "s");
    } else if (!strcmp(h->x, "wall")) {
        fprintf(f, "set format x '%%g s'\n");
    }
    fprintf(f, "set ylabel 'share of compile wall'\nset format y '%%g%%%%'\nset yrange [0:100]\nplot ");
    int first = 1;
    size_t block = 0;
    for (size_t s = 0; s < a->n_stages; s++) {
        if (!dom_stage[s])
            continue;
        for (size_t k = 0; k < h->n_series; k++) {
            if (binned)
                fprintf(f, "%s'handoff.dat' index %zu using 1:2:3:4 with yerrorbars pt %zu ps 1.3 lc rgb '%s' title ",
                        first ? "" : ", ", block++, 4 + 2 * k, fig_stage_color(a, s));
            else
                fprintf(f, "%s'handoff.dat' using 1:($2==%zu?$%zu:NaN) with points pt %zu ps 1.3 lc rgb '%s' title ",
                        first ? "" : ", ", k, s + 3, 4 + 2 * k, fig_stage_color(a, s));
            snprintf(t, sizeof t, "%s / %s", a->stages[s], h->series[k]);
            fig_q(f, t);
            first = 0;
        }
        if (!isnan(h->trends[s].slope))
            fprintf(f, ", (%.6g + %.6g*%s)*100 with lines lw 2 lc rgb '%s' title '%s trend'", h->trends[s].intercept,
                    h->trends[s].slope, h->log_x ? "log10(x)" : "x", fig_stage_color(a, s), a->stages[s]);
    }
    fputc('\n', f);
    fclose(f);
    free(dom_stage);
    *body = b;
    return 0;
}

int fig_finding_handoff(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    const pm_an_handoff *h = &a->handoff;
    if (!h->x || !h->n_points)
        return 1;
    int up, down;
    pm_an_handoff_extremes(a, &up, &down);
    char xn[128];
    x_name(h, xn, sizeof xn);
    const char *per = h->log_x ? "per tenfold" : "per unit";
    if (up < 0 && down < 0) {
        pm_sbuf_add(b, "No stage's share moves: %s takes one value.", xn);
        return 0;
    }
    pm_sbuf_add(b, "As %s grows", xn);
    if (up >= 0)
        pm_sbuf_add(b, ", %s's share rises most (%+.1f points %s)", a->stages[up], h->trends[up].slope * 100, per);
    if (down >= 0)
        pm_sbuf_add(b, "%s %s's falls most (%+.1f points %s)", up >= 0 ? " and" : ",", a->stages[down],
                    h->trends[down].slope * 100, per);
    pm_sbuf_add(b, ".");
    return 0;
}

int fig_draw_handoff(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_handoff(x, body); }
