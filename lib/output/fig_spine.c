/* The CNN resolution spine: cold compile time against input resolution. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fig_cnn_spine(const fig_ctx *x, char **body)
{
    /* One line per (family, blocks): a network cut to its first blocks is another workload, not a point on
     * the whole network's spine. */
    const pm_analysis *a = x->a;
    const char **fams = calloc(a->n_configs + 1, sizeof *fams);   /* one per (family, blocks), no cap */
    int *blocks = calloc(a->n_configs + 1, sizeof *blocks);
    size_t nf = 0;
    if (!fams || !blocks) {
        free(fams), free(blocks);
        return -1;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!fig_has_study(c, 1) || !fig_same(c->workload.precision, fig_study_regime(a, 1)->precision))
            continue;
        int depth = pm_workload_depth(&c->workload, c->kind);
        size_t k;
        for (k = 0; k < nf && !(fig_same(fams[k], c->workload.family) && blocks[k] == depth); k++)
            ;
        if (k == nf) {
            blocks[nf] = depth;
            fams[nf++] = c->workload.family;
        }
    }
    /* many configs: each line drawn from binned medians (with quartiles) along the resolution */
    size_t n_points = 0;
    const char *prec = fig_study_regime(a, 1)->precision;
    unsigned char *on = calloc(a->n_configs + 1, 1);   /* a point of some line */
    for (size_t i = 0; on && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        on[i] = fig_has_study(c, 1) && fig_same(c->workload.precision, prec) && c->workload.resolution > 0;
        n_points += on[i];
    }
    int binned = n_points > FIG_SCATTER_MAX;
    *x->binned |= binned;
    fig_xy *v = binned ? calloc(n_points, sizeof *v) : NULL;
    FILE *d = nf && on && (!binned || v) ? fig_data_file(x, "cnn-spine.dat") : NULL;
    if (!d) {
        free(fams), free(blocks), free(on), free(v);
        return nf ? -1 : 1;
    }
    for (size_t k = 0; k < nf; k++) {
        size_t nv = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            const pm_an_config *c = &a->configs[i];
            if (!on[i] || !fig_same(c->workload.family, fams[k]) || pm_workload_depth(&c->workload, c->kind) != blocks[k])
                continue;
            if (binned)
                v[nv++] = (fig_xy){c->workload.resolution, c->wall.mean};
            else
                fprintf(d, "%d %.6g\n", c->workload.resolution, c->wall.mean);
        }
        if (binned && nv)
            fig_write_bins(d, v, nv, FIG_BINS);
        else if (binned)
            fprintf(d, "NaN NaN NaN NaN\n");   /* an empty block would shift every later index */
        fprintf(d, "\n\n");
    }
    fclose(d);
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;   /* the ticks' ranges */
    for (size_t i = 0; i < a->n_configs; i++)
        if (on[i] && a->configs[i].wall.mean > 0) {
            xlo = fmin(xlo, a->configs[i].workload.resolution), xhi = fmax(xhi, a->configs[i].workload.resolution);
            ylo = fmin(ylo, a->configs[i].wall.mean), yhi = fmax(yhi, a->configs[i].wall.mean);
        }
    free(on), free(v);
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set title 'CNN resolution spine: cold compile time vs input resolution%s'\nset logscale xy\n"
               "set xlabel 'input resolution (pixels, H = W)'\nset ylabel 'cold compile wall'\n",
            binned ? "' . \"\\n\" . 'above " PM_STR(FIG_SCATTER_MAX) " configs binned: median and quartiles of each 1/"
                     PM_STR(FIG_BINS) " of each line by resolution" : "");
    fig_log_tics(f, "x", xlo, xhi, "px");   /* a range within a decade: 1-2-5 ticks, not one power of ten */
    fig_log_tics(f, "y", ylo, yhi, "s");
    fputs("plot ", f);
    for (size_t k = 0; k < nf; k++) {
        char label[96];
        if (blocks[k] > 0)
            snprintf(label, sizeof label, "%s (first %d blocks)", fams[k] ? fams[k] : "-", blocks[k]);
        else
            snprintf(label, sizeof label, "%s", fams[k] ? fams[k] : "-");
        fprintf(f, "%s'cnn-spine.dat' index %zu using %s pt 7 lw 2 lc rgb '%s' title ", k ? ", " : "", k,
                binned ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints", fig_color((int)k));
        fig_q(f, label);
    }
    fputc('\n', f);
    fclose(f);
    free(fams), free(blocks);
    *body = b;
    return 0;
}

void fig_size_spine(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;
    *w = 880, *h = 520;
}

int fig_finding_spine(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    /* the log-log slope of cold wall against resolution over the spine's points: time ~ resolution^k */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0, rlo = 0, rhi = 0;
    const pm_an_regime *rg = fig_study_regime(a, 1);
    for (size_t i = 0; rg && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!fig_has_study(c, 1) || !fig_same(c->workload.precision, rg->precision) || c->workload.resolution <= 0 ||
            !(c->wall.mean > 0))
            continue;
        double x = log((double)c->workload.resolution), y = log(c->wall.mean);
        sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
        rlo = !rlo || c->workload.resolution < rlo ? c->workload.resolution : rlo;
        rhi = c->workload.resolution > rhi ? c->workload.resolution : rhi;
    }
    if (!n)
        return 1;
    double den = n * sxx - sx * sx;
    if (n < 2 || rlo == rhi || !(fabs(den) > 0)) {
        pm_sbuf_add(b, "One resolution (%d px): no trend to read.", rlo);
        return 0;
    }
    pm_sbuf_add(b, "Cold compile time grows about as resolution^%.2f from %d to %d px (least squares over %d configs, "
                "log-log).", (n * sxy - sx * sy) / den, rlo, rhi, n);
    return 0;
}

int fig_draw_spine(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_cnn_spine(x, body); }
