/* The precision figure: cold compile time and the ratio to the base precision, per family. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per (precision, family), never a line across families: left, cold wall vs size at the precision
 * window; right, wall / base-precision wall of the same family, size and window (median over windows). */
static int prec_member(const pm_analysis *a, const pm_an_config *c)
{
    return fig_has_study(c, 0) && c->wall.mean > 0 &&
           fig_same(c->variant, fig_study_regime(a, 0)->variant);
}

/* Members of the precision figure grouped by (family, size): sorted indices, config order within a group (ctx:
 * a pointer to the analysis). */
static int cmp_family_size(const void *pa, const void *pb, void *ctx)
{
    const pm_analysis *a = *(const pm_analysis **)ctx;
    int i = *(const int *)pa, j = *(const int *)pb;
    const pm_workload *wi = &a->configs[i].workload, *wj = &a->configs[j].workload;
    int r = pm_util_strcmp_null(wi->family, wj->family);
    if (!r)
        r = pm_util_strcmp_null(wi->size, wj->size);
    return r ? r : (i > j) - (i < j);
}

/* The median over windows of config i's (family, size) at precision prec against the base precision at the same
 * window (by_fs / grp_from / grp_to: the members grouped by family and size). 1: *med set; 0: no pair; -1: no
 * memory (*ratios grows). */
static int prec_median_ratio(const pm_analysis *a, size_t i, const char *prec, const int *by_fs,
                             const size_t *grp_from, const size_t *grp_to, double **ratios, size_t *cap_r, double *med)
{
    size_t m = 0;
    for (size_t u = grp_from[i]; u < grp_to[i]; u++) {
        const pm_workload *w2 = &a->configs[by_fs[u]].workload;
        if (!fig_same(w2->precision, prec))
            continue;
        for (size_t t = grp_from[i]; t < grp_to[i]; t++) {
            const pm_an_config *cb = &a->configs[by_fs[t]];
            if (!fig_same(cb->workload.precision, a->precision.base) || cb->workload.window != w2->window)
                continue;
            if (m == *cap_r) {
                double *g = realloc(*ratios, 2 * *cap_r * sizeof *g);
                if (!g)
                    return -1;
                *ratios = g, *cap_r *= 2;
            }
            (*ratios)[m++] = a->configs[by_fs[u]].wall.mean / cb->wall.mean;
        }
    }
    double *r = *ratios;
    for (size_t u = 1; u < m; u++)   /* median: insertion sort of a handful of windows */
        for (size_t w = u; w > 0 && r[w - 1] > r[w]; w--) {
            double t = r[w];
            r[w] = r[w - 1];
            r[w - 1] = t;
        }
    if (!m)
        return 0;
    *med = m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
    return 1;
}

/* The time panel's explicit ticks: the sizes span less than a decade, where gnuplot labels one power of ten
 * ("1e+09"). pair_of[i] < 0: config i is not drawn. */
static void prec_tics(FILE *f, const pm_analysis *a, const int *pair_of)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (pair_of[i] < 0 || c->workload.window != a->precision.window || isnan(c->size_num) || !(c->wall.mean > 0))
            continue;
        xlo = fmin(xlo, c->size_num), xhi = fmax(xhi, c->size_num);
        ylo = fmin(ylo, c->wall.mean), yhi = fmax(yhi, c->wall.mean);
    }
    fig_log_tics(f, "x", xlo, xhi, NULL);
    fig_log_tics(f, "y", ylo, yhi, "s");
}

/* One (precision, family) line of a panel: data block `index`, colour by precision, point by family (fams[0..nf)). */
static void prec_line(FILE *f, const pm_analysis *a, const char *prec, const char *fam, const char **fams, size_t nf,
                      size_t index, int binned, const char *sep)
{
    size_t pi = 0, fi = 0;
    for (size_t i = 0; i < a->precision.n; i++)
        if (fig_same(a->precision.time[i].label, prec ? prec : "-"))
            pi = i;
    while (fi < nf && !fig_same(fams[fi], fam))
        fi++;
    char t[256];
    snprintf(t, sizeof t, "%s %s", prec ? prec : "-", fam ? fam : "-");
    fprintf(f, "%s'precision.dat' index %zu using %s pt %zu lw 2 lc rgb '%s' title ", sep, index,
            binned ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints", 5 + 2 * (fi % 6), fig_color((int)pi));
    fig_q(f, t);
}

/* The precision figure's gnuplot body: the time panel (one line per (precision, family)), then the ratio panel.
 * pp / pf: the n pairs' precisions and families; fams: room for the families. */
static void prec_script(const pm_analysis *a, const char **pp, const char **pf, const char **fams, size_t n,
                        int binned, const int *pair_of, char **body)
{
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set multiplot layout 1,2 title 'Precision: one line per family (colour: precision, point: family)%s'\n"
               "set logscale xy\nset key inside top left vertical box font ',11'\n"
               "set title 'cold compile time vs size (window %d)'\nset xlabel 'model size (parameters)'\n"
               "set ylabel 'cold compile wall (geometric mean)'\n",
            binned ? "' . \"\\n\" . 'above " PM_STR(FIG_SCATTER_MAX) " configs binned: median and quartiles of each 1/"
                     PM_STR(FIG_BINS) " of each line by size" : "", a->precision.window);
    prec_tics(f, a, pair_of);
    fputs("plot ", f);
    size_t nf = 0;
    for (size_t k = 0; k < n; k++) {
        size_t j;
        for (j = 0; j < nf && !fig_same(fams[j], pf[k]); j++)
            ;
        if (j == nf)
            fams[nf++] = pf[k];
    }
    for (size_t k = 0; k < n; k++)
        prec_line(f, a, pp[k], pf[k], fams, nf, 2 * k, binned, k ? ", " : "");
    fprintf(f, "\nunset logscale y\nset ytics autofreq\nset title 'time / %s of the same family (median over windows)'\n"
               "set ylabel 'ratio to %s'\nset format y '%%g\u00d7'\nplot 1 with lines dt 2 lc rgb '#000000' title 'parity'",
            a->precision.base, a->precision.base);
    for (size_t k = 0; k < n; k++) {
        if (fig_same(pp[k], a->precision.base))
            continue;
        prec_line(f, a, pp[k], pf[k], fams, nf, 2 * k + 1, binned, ", ");
    }
    fprintf(f, "\nunset multiplot\n");
    fclose(f);
    *body = b;
}

static int fig_precision(const fig_ctx *x, char **body)
{
    const pm_analysis *a = x->a;
    if (a->precision.n < 1 || !a->precision.window)
        return 1;
    /* at most one (precision, family) pair, ratio or family per config: sized to the configs, no cap */
    const char **pp = calloc(a->n_configs + 1, sizeof *pp), **pf = calloc(a->n_configs + 1, sizeof *pf);
    const char **fams = calloc(a->n_configs + 1, sizeof *fams);
    size_t cap_r = a->n_configs + 1;   /* grows: a size can pair with several base configs */
    double *ratios = calloc(cap_r, sizeof *ratios);
    /* each config's membership once, its (family, size) group, and the pairs' members: the ratios were a scan of
     * every config for every config of every pair (minutes at 15,000 configs) */
    unsigned char *member = calloc(a->n_configs + 1, 1);
    int *by_fs = calloc(a->n_configs + 1, sizeof *by_fs), *pair_of = calloc(a->n_configs + 1, sizeof *pair_of);
    size_t *grp_from = calloc(a->n_configs + 1, sizeof *grp_from), *grp_to = calloc(a->n_configs + 1, sizeof *grp_to);
    fig_xy *v = calloc(a->n_configs + 1, sizeof *v);
    FILE *d = pp && pf && fams && ratios && member && by_fs && pair_of && grp_from && grp_to && v
                  ? fig_data_file(x, "precision.dat") : NULL;
    int rc = -1;
    if (!d)
        goto cleanup;
    /* the (precision, family) pairs, in config order (sizes ascend within a family) */
    size_t n = 0, n_members = 0;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        pair_of[i] = -1;
        if (!(member[i] = (unsigned char)prec_member(a, c)))
            continue;
        by_fs[n_members++] = (int)i;
        size_t k;
        for (k = 0; k < n && !(fig_same(pp[k], c->workload.precision) && fig_same(pf[k], c->workload.family)); k++)
            ;
        if (k == n)
            pp[n] = c->workload.precision, pf[n++] = c->workload.family;
        pair_of[i] = (int)k;
    }
    qsort_r(by_fs, n_members, sizeof *by_fs, cmp_family_size, &a);
    for (size_t s = 0, e; s < n_members; s = e) {   /* each member's group: [grp_from, grp_to) of by_fs */
        const pm_workload *ws = &a->configs[by_fs[s]].workload;
        for (e = s + 1; e < n_members && fig_same(a->configs[by_fs[e]].workload.family, ws->family) &&
                        fig_same(a->configs[by_fs[e]].workload.size, ws->size); e++)
            ;
        for (size_t u = s; u < e; u++)
            grp_from[by_fs[u]] = s, grp_to[by_fs[u]] = e;
    }
    /* many configs: each line drawn from binned medians (with quartiles) along the size, not a point per config */
    int binned = n_members > FIG_SCATTER_MAX;
    *x->binned |= binned;
    for (size_t k = 0; k < n; k++) {   /* index 2k: time, 2k+1: ratio */
        size_t nv = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            const pm_an_config *c = &a->configs[i];
            if (pair_of[i] != (int)k || c->workload.window != a->precision.window || isnan(c->size_num))
                continue;
            if (binned)
                v[nv++] = (fig_xy){c->size_num, c->wall.mean};
            else
                fprintf(d, "%.6g %.6g\n", c->size_num, c->wall.mean);
        }
        if (binned && nv)
            fig_write_bins(d, v, nv, FIG_BINS);
        else if (binned)
            fprintf(d, "NaN NaN NaN NaN\n");   /* an empty block would shift every later index */
        fprintf(d, "\n\n");
        const char *last = NULL;
        nv = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            const pm_an_config *c = &a->configs[i];
            if (pair_of[i] != (int)k || isnan(c->size_num) || (last && fig_same(last, c->workload.size)))
                continue;
            last = c->workload.size;
            double med;
            int r = prec_median_ratio(a, i, pp[k], by_fs, grp_from, grp_to, &ratios, &cap_r, &med);
            if (r < 0) {
                fclose(d);
                goto cleanup;
            }
            if (!r)
                continue;
            if (binned)
                v[nv++] = (fig_xy){c->size_num, med};
            else
                fprintf(d, "%.6g %.6g\n", c->size_num, med);
        }
        if (binned && nv)
            fig_write_bins(d, v, nv, FIG_BINS);
        else if (binned)
            fprintf(d, "NaN NaN NaN NaN\n");
        fprintf(d, "\n\n");
    }
    fclose(d);
    prec_script(a, pp, pf, fams, n, binned, pair_of, body);
    rc = 0;
cleanup:
    free(pp), free(pf), free(fams), free(ratios);
    free(member), free(by_fs), free(pair_of), free(grp_from), free(grp_to), free(v);
    return rc;
}

void fig_size_wide(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;   /* precision: one line per family, legend beside */
    *w = 940, *h = 560;
}

int fig_finding_precision(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    const pm_an_precision *p = &a->precision;
    int any = 0;
    for (size_t i = 0; p->ratio && i < p->n; i++) {
        const pm_an_series *r = &p->ratio[i];
        if (!r->n || fig_same(r->label, p->base))
            continue;
        double lo = INFINITY, hi = 0;
        for (size_t k = 0; k < r->n; k++)
            if (r->y[k] > 0)
                lo = fmin(lo, r->y[k]), hi = fmax(hi, r->y[k]);
        if (!(hi > 0))
            continue;
        char l[32], u[32];
        pm_fmt_ratio_num(l, sizeof l, lo);
        pm_fmt_ratio(u, sizeof u, hi);
        pm_sbuf_add(b, "%s%s takes %s%s%s the compile time of %s", any ? "; " : "", r->label ? r->label : "-",
                    strcmp(l, u) && lo != hi ? l : "", strcmp(l, u) && lo != hi ? "\u2013" : "", u, p->base);
        any = 1;
    }
    if (!any)
        return 1;
    pm_sbuf_add(b, " across sizes (median over windows).");
    return 0;
}

int fig_draw_precision(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_precision(x, body); }
