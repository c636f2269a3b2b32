/* The regime maps (LLM and CNN): dominant stage per cell. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A regime map's rows and columns: rows in first-appearance order (cells come in config order, family-major), then
 * numerically by row_num (LLM rows are sizes: across families; NaN rows keep their order); columns numerically.
 * cell_r / cell_c: each cell's row and column. Sorted look-ups: a scan of the rows for every cell was 16 M string
 * comparisons at 2,800 rows. */
typedef struct fig_axes {
    const char **rows;
    double *row_num;
    int *cols;
    size_t nr, nc, *cell_r, *cell_c;
} fig_axes;

/* cell indices by row, then index (ctx: a pointer to the cells) */
static int cmp_cell_row(const void *pa, const void *pb, void *ctx)
{
    const pm_an_cell *cells = *(const pm_an_cell **)ctx;
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    int r = strcmp(cells[i].row, cells[j].row);
    return r ? r : (i > j) - (i < j);
}

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

static void fig_axes_free(fig_axes *ax)
{
    free(ax->rows), free(ax->row_num), free(ax->cols), free(ax->cell_r), free(ax->cell_c);
    memset(ax, 0, sizeof *ax);
}

static int fig_axes_of(const pm_an_regime *rg, fig_axes *ax)
{
    size_t n = rg->n_cells;
    memset(ax, 0, sizeof *ax);
    /* as many rows and columns as cells, at most: no cap */
    ax->rows = calloc(n + 1, sizeof *ax->rows);
    ax->row_num = calloc(n + 1, sizeof *ax->row_num);
    ax->cols = calloc(n + 1, sizeof *ax->cols);
    ax->cell_r = calloc(n + 1, sizeof *ax->cell_r);
    ax->cell_c = calloc(n + 1, sizeof *ax->cell_c);
    size_t *idx = calloc(n + 1, sizeof *idx), *grp = calloc(n + 1, sizeof *grp), *gid = calloc(n + 1, sizeof *gid),
           *pos = calloc(n + 1, sizeof *pos);
    int rc = -1;
    if (!ax->rows || !ax->row_num || !ax->cols || !ax->cell_r || !ax->cell_c || !idx || !grp || !gid || !pos)
        goto cleanup;
    for (size_t k = 0; k < n; k++)
        idx[k] = k;
    const pm_an_cell *cells = rg->cells;
    qsort_r(idx, n, sizeof *idx, cmp_cell_row, &cells);
    for (size_t u = 0; u < n; u++)   /* grp: the first cell of each cell's row */
        grp[idx[u]] = u && !strcmp(rg->cells[idx[u]].row, rg->cells[idx[u - 1]].row) ? grp[idx[u - 1]] : idx[u];
    for (size_t k = 0; k < n; k++)
        if (grp[k] == k) {
            gid[ax->nr] = k;
            ax->row_num[ax->nr] = rg->cells[k].row_num;
            ax->rows[ax->nr++] = rg->cells[k].row;
        }
    for (size_t i = 1; i < ax->nr; i++)   /* sizes numerically across families (NaN rows keep order) */
        for (size_t j = i; j > 0 && ax->row_num[j - 1] > ax->row_num[j]; j--) {
            const char *t = ax->rows[j];
            double tn = ax->row_num[j];
            size_t tg = gid[j];
            ax->rows[j] = ax->rows[j - 1], ax->row_num[j] = ax->row_num[j - 1], gid[j] = gid[j - 1];
            ax->rows[j - 1] = t, ax->row_num[j - 1] = tn, gid[j - 1] = tg;
        }
    for (size_t r = 0; r < ax->nr; r++)
        pos[gid[r]] = r;
    for (size_t k = 0; k < n; k++) {
        ax->cell_r[k] = pos[grp[k]];
        ax->cols[k] = rg->cells[k].col;
    }
    qsort(ax->cols, n, sizeof *ax->cols, cmp_int);
    for (size_t k = 0; k < n; k++)
        if (!ax->nc || ax->cols[ax->nc - 1] != ax->cols[k])
            ax->cols[ax->nc++] = ax->cols[k];
    for (size_t k = 0; k < n; k++) {
        const int *c = bsearch(&rg->cells[k].col, ax->cols, ax->nc, sizeof *ax->cols, cmp_int);
        ax->cell_c[k] = (size_t)(c - ax->cols);
    }
    rc = 0;
cleanup:
    free(idx), free(grp), free(gid), free(pos);
    if (rc)
        fig_axes_free(ax);
    return rc;
}

/* Regime map: cells as coloured squares, rows (size / family) against columns (window / resolution). Above
 * FIG_BARS_MAX rows (or columns), a square is a run of consecutive rows: the most common dominant stage of its cells
 * and that stage's mean share. */
static int fig_regime(const fig_ctx *x, const pm_an_regime *rg, const char *name, const char *colname, char **body)
{
    const pm_analysis *a = x->a;
    if (!rg->n_cells)
        return 1;
    fig_axes ax;
    if (fig_axes_of(rg, &ax))
        return -1;
    size_t nr = ax.nr, nc = ax.nc, bnr = fig_bins(nr), bnc = fig_bins(nc);
    int binned = bnr < nr || bnc < nc;
    *x->binned |= binned;
    char fn[64];
    snprintf(fn, sizeof fn, "%s.dat", name);
    FILE *d = fig_data_file(x, fn);
    /* binned: per square, the cells of each stage (slot n_stages: no stage) and the sum of their shares */
    size_t ns = a->n_stages + 1;
    int *cnt = binned ? calloc(bnr * bnc * ns, sizeof *cnt) : NULL;
    double *sh = binned ? calloc(bnr * bnc * ns, sizeof *sh) : NULL;
    if (!d || (binned && (!cnt || !sh))) {
        if (d)
            fclose(d);
        free(cnt), free(sh);
        fig_axes_free(&ax);
        return -1;
    }
    for (size_t k = 0; k < rg->n_cells; k++) {
        if (!binned) {
            fprintf(d, "%zu %zu %d %.1f\n", ax.cell_c[k], ax.cell_r[k], rg->cells[k].stage, rg->cells[k].share * 100);
            continue;
        }
        int st = rg->cells[k].stage;
        size_t s = st >= 0 && (size_t)st < a->n_stages ? (size_t)st : a->n_stages;
        size_t at = (fig_bin_of(ax.cell_r[k], nr) * bnc + fig_bin_of(ax.cell_c[k], nc)) * ns + s;
        cnt[at]++;
        sh[at] += rg->cells[k].share;
    }
    for (size_t r = 0; binned && r < bnr; r++)
        for (size_t c = 0; c < bnc; c++) {
            const int *n = cnt + (r * bnc + c) * ns;
            size_t best = 0;
            for (size_t s = 1; s < ns; s++)
                best = n[s] > n[best] ? s : best;
            if (n[best])
                fprintf(d, "%zu %zu %d %.1f\n", c, r, best == a->n_stages ? -1 : (int)best,
                        sh[(r * bnc + c) * ns + best] / n[best] * 100);
        }
    free(cnt), free(sh);
    fclose(d);
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    char runs[256] = "";
    if (binned)   /* the caption says what a square is */
        snprintf(runs, sizeof runs, "' . \"\\n\" . '%zu x %zu cells binned (above " PM_STR(FIG_BARS_MAX) " rows or "
                 "columns): most common stage, its mean share", nr, nc);
    if (rg->row_axis)   /* a map over two parameters names them */
        fprintf(f, "set title 'Regime map (%s x %s): dominant stage per cell, label = its share %%%s'\n", rg->row_axis,
                rg->col_axis, runs);
    else
        fprintf(f, "set title 'Regime map (%s, %s): dominant stage per cell, label = its share %%%s'\n",
                rg->precision ? rg->precision : "-", rg->variant ? rg->variant : "-", runs);
    /* the legend beside the plot, never over its cells */
    fprintf(f, "set key outside right top vertical box title 'dominant stage'\n");
    fprintf(f, "set xlabel '%s'\nset ylabel '%s'\nset xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nunset grid\n",
            colname, rg->row_label ? rg->row_label : "-",
            bnc - 1, bnr - 1);
    fprintf(f, "set xtics (");
    for (size_t c = 0, from = 0; c < nc; c++) {
        if (c + 1 < nc && fig_bin_of(c + 1, nc) == fig_bin_of(c, nc))
            continue;
        if (from == c)
            fprintf(f, "%s'%d' %zu", from ? "," : "", ax.cols[c], fig_bin_of(c, nc));
        else
            fprintf(f, "%s'%d..%d' %zu", from ? "," : "", ax.cols[from], ax.cols[c], fig_bin_of(c, nc));
        from = c + 1;
    }
    fprintf(f, ")\nset ytics (");
    for (size_t r = 0, from = 0; r < nr; r++) {
        if (r + 1 < nr && fig_bin_of(r + 1, nr) == fig_bin_of(r, nr))
            continue;
        fprintf(f, "%s", from ? "," : "");
        if (from == r) {
            fig_q(f, ax.rows[r]);
        } else {
            char t[256];
            snprintf(t, sizeof t, "%s..%s", ax.rows[from], ax.rows[r]);
            fig_q(f, t);
        }
        fprintf(f, " %zu", fig_bin_of(r, nr));
        from = r + 1;
    }
    fprintf(f, ")\nplot ");
    int first = 1;
    for (size_t s = 0; s < a->n_stages; s++) {
        int used = 0;
        for (size_t k = 0; k < rg->n_cells; k++)
            used |= rg->cells[k].stage == (int)s;
        if (!used)
            continue;
        /* big squares without a title, and a normal-sized NaN series for the legend entry; a cell whose largest
         * share is process start-up is too small to tell its regime: drawn apart, as an empty grey square */
        int over = (int)s == pm_an_stage_index(a, PM_STAGE_OVERHEAD);
        fprintf(f, "%s'%s' using 1:($3==%zu?$2:NaN) with points pt %d ps %d lc rgb '%s' notitle, NaN with points pt %d "
                   "ps 2 lc rgb '%s' title ", first ? "" : ", ", fn, s, over ? 4 : 5, binned ? 3 : 7,
                fig_stage_color(a, s), over ? 4 : 5, fig_stage_color(a, s));
        fig_q(f, over ? "too small to tell (start-up first)" : a->stages[s]);
        first = 0;
    }
    fprintf(f, ", '%s' using 1:2:(sprintf('%%.0f%%%%',$4)) with labels tc rgb '#000000' notitle\n", fn);
    fclose(f);
    fig_axes_free(&ax);
    *body = b;
    return 0;
}

/* A figure's size follows its data: a 3x2 regime map is not drawn at the size of a 12x8 one, a fingerprint
 * grows with its bars; wide legends sit right of the plot, so the width leaves room for them. A row without a
 * size function is drawn at 1000 x 600. */
void fig_size_regime(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)dir;
    const pm_an_regime *rg = pm_an_regime_for(a, name);
    fig_axes ax = {0};
    if (rg && fig_axes_of(rg, &ax))
        memset(&ax, 0, sizeof ax);   /* out of memory: the smallest size; drawing it fails the same way */
    *w = 520 + 120 * (int)fig_bins(ax.nc);
    *h = 200 + 80 * (int)fig_bins(ax.nr);
    fig_axes_free(&ax);
}

int fig_finding_regime(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    const pm_an_regime *rg = pm_an_regime_for(a, name);
    if (!rg || !rg->n_cells)
        return 1;
    int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD), best = -1, small = 0;
    int *cnt = calloc(a->n_stages ? a->n_stages : 1, sizeof *cnt);
    if (!cnt)
        return -1;
    for (size_t k = 0; k < rg->n_cells; k++) {
        int s = rg->cells[k].stage;
        if (s == over)
            small++;
        else if (s >= 0)
            cnt[s]++;
    }
    for (size_t s = 0; s < a->n_stages; s++)
        if (cnt[s] > 0 && (best < 0 || cnt[s] > cnt[best]))
            best = (int)s;
    if (best >= 0)
        pm_sbuf_add(b, "%s leads %d of %zu cells", a->stages[best], cnt[best], rg->n_cells);
    int others = 0;
    for (size_t s = 0; s < a->n_stages; s++)
        others += (int)s != best && cnt[s] > 0;
    if (others)
        pm_sbuf_add(b, ", %d other stage%s the rest", others, others == 1 ? "" : "s");
    if (small)
        pm_sbuf_add(b, "%s%d cell%s too small to tell (process start-up first, drawn hollow)", best >= 0 ? "; " : "",
                    small, small == 1 ? "" : "s");
    pm_sbuf_add(b, ".");
    free(cnt);
    return 0;
}

int fig_draw_regime(const fig_ctx *x, const char *name, char **body)
{
    /* the first map drawn by this figure: a kind row's, else the spec's two axes (files x -O) */
    const pm_an_regime *rg = pm_an_regime_for(x->a, name);
    return rg ? fig_regime(x, rg, name, rg->col_label, body) : 1;
}
