#include "figures.h"
#include "kinds.h"
#include "table.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* tab20 without its two greys: enough distinct colours for every stage of a back end (the embedded map has 14);
 * grey is process start-up's alone (stage_color), so no compiler stage reads as "nothing here". */
static const char *COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                               "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                               "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"};
#define NCOLORS (sizeof COLORS / sizeof COLORS[0])
static const char *color(int i) { return COLORS[(size_t)(i < 0 ? 0 : i) % NCOLORS]; }
#define OVERHEAD_COLOR "#c8c8c8"
/* A stage's colour, the same in every figure: process-overhead (start-up and time outside passes) is no compiler
 * stage and is drawn light grey. */
static const char *stage_color(const pm_analysis *a, size_t s)
{
    return (int)s == pm_an_stage_index(a, PM_STAGE_OVERHEAD) ? OVERHEAD_COLOR : color((int)s);
}

/* Legends right of the plotting area (never over an axis label); ranges fitted to the data with a small margin
 * instead of being stretched to the next decade. */
static const char *HEAD = "set encoding utf8\nset key outside right top vertical box\nset grid\nset format x '%g'\n"
                          "set format y '%g'\nset border lw 1.2\nset autoscale fix\n"
                          "set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08\n";

/* Writes the SVG and PNG terminals around a plot body: the body is replayed for the PNG. */
static int write_script(const char *dir, const char *name, const char *body, int w, int h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.gp", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%sset terminal svg size %d,%d dynamic noenhanced font 'sans,13' background '#ffffff'\nset output '%s.svg'\n%s\n"
               "unset output\nset terminal pngcairo noenhanced size %d,%d font 'sans,11' background '#ffffff'\nset output '%s.png'\n%s\nunset output\n",
            HEAD, w, h, name, body, w, h, name, body);
    return fclose(f);
}

/* gnuplot through the runner like every other process: a timeout, its own group, stdin from /dev/null. One run
 * draws every figure (FIG_ALL.gp loads each figure's script after a reset): a gnuplot start-up cost about as much
 * as drawing a bounded figure, nine of them more than half the figures' time. Each script still draws alone
 * (`gnuplot NAME.gp` in DIR). One process, not several at once: pm_run_exec forks, and a fork from several
 * threads at once deadlocked the children under the sanitizers (a lock held by another thread at the fork). */
#define GNUPLOT_TIMEOUT_S 600.0
#define FIG_ALL "all-figures"

static int run_gnuplot(const char *dir, const char *name, pm_err *err)
{
    char script[4096], log[4096];
    snprintf(script, sizeof script, "%s.gp", name);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    const char *argv[] = {"gnuplot", script, NULL};
    /* the scripts are UTF-8 (set encoding utf8): under a C locale gnuplot warns in every log that iconv cannot
     * convert the degree sign; C.UTF-8 keeps C's number formatting */
    static const char *const utf8_env[] = {"LC_ALL=C.UTF-8", NULL};
    pm_run_opts ro = {.timeout_s = GNUPLOT_TIMEOUT_S, .cwd = dir, .stderr_path = log, .env_set = utf8_env};
    pm_run_result res;
    int rc = pm_run_exec(argv, &ro, &res, err);
    if (rc)
        return rc;
    if (res.status == PM_RUN_SPAWN_ERROR)
        return pm_err_set(err, PM_ERR_NOTFOUND, "cannot run gnuplot (install gnuplot-nox, or report without "
                          "--figures/--html): %s", res.spawn_error);
    if (res.status == PM_RUN_TIMEOUT)
        return pm_err_set(err, PM_ERR_CHILD, "gnuplot did not finish %s.gp within %.0f s", name, GNUPLOT_TIMEOUT_S);
    if (res.status != PM_RUN_OK) {
        char tail[512] = "";
        FILE *f = fopen(log, "r");
        if (f) {
            size_t n = fread(tail, 1, sizeof tail - 1, f);
            tail[n] = 0;
            fclose(f);
        }
        return pm_err_set(err, PM_ERR_CHILD, "gnuplot failed on %s.gp (%s): %s", name, pm_run_status_name(res.status),
                          tail);
    }
    return PM_OK;
}

/* Configs of the kind row that has a study (kinds.c: precision_study, spine), with cold runs. */
static int has_study(const pm_an_config *c, int spine)
{
    const pm_kind *k = pm_kind_find(c->kind);
    return k && (spine ? k->spine : k->precision_study) && c->n_cold > 0;
}

/* The regime map (slice) of the kind row that has a study. */
static const pm_an_regime *study_regime(const pm_analysis *a, int spine)
{
    for (int i = 0; pm_kind_at(i); i++)
        if (spine ? pm_kind_at(i)->spine : pm_kind_at(i)->precision_study)
            return pm_an_regime_of(a, pm_kind_at(i)->name);
    return pm_an_regime_of(a, NULL);
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* gnuplot string literal: single-quoted, quotes doubled. */
static void q(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

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

static FILE *data_file(const fig_ctx *x, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", x->dir, name);
    return fopen(path, "w");
}

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

/* Row / column i of n on a map drawn with at most FIG_BARS_MAX of them: runs of consecutive ones above it. */
static size_t fig_bin_of(size_t i, size_t n) { return n > FIG_BARS_MAX ? i * FIG_BINS / n : i; }
static size_t fig_bins(size_t n) { return n > FIG_BARS_MAX ? FIG_BINS : n; }

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
    FILE *d = data_file(x, fn);
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
            q(f, ax.rows[r]);
        } else {
            char t[256];
            snprintf(t, sizeof t, "%s..%s", ax.rows[from], ax.rows[r]);
            q(f, t);
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
                stage_color(a, s), over ? 4 : 5, stage_color(a, s));
        q(f, over ? "too small to tell (start-up first)" : a->stages[s]);
        first = 0;
    }
    fprintf(f, ", '%s' using 1:2:(sprintf('%%.0f%%%%',$4)) with labels tc rgb '#000000' notitle\n", fn);
    fclose(f);
    fig_axes_free(&ax);
    *body = b;
    return 0;
}

/* What a handoff's x is called on an axis. */
/* Tick marks for a log axis over [lo, hi]: gnuplot puts them at powers of ten only, so a range within one decade
 * got a single labelled tick. 1-2-5 steps when that gives at least three marks, else 1-2-3-5; a range over
 * many decades keeps gnuplot's own. axis: "x" or "y". */
static void log_tics(FILE *f, const char *axis, double lo, double hi)
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

static void x_name(const pm_an_handoff *h, char *buf, size_t n)
{
    if (!strcmp(h->x, "wall"))
        snprintf(buf, n, "cold compile wall time (s)");
    else
        snprintf(buf, n, "%s", h->x);
}


typedef struct fig_xy { double x, y; } fig_xy;

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
static void fig_write_bins(FILE *d, fig_xy *v, size_t n, size_t nbins)
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

static int fig_handoff(const fig_ctx *x, char **body)
{
    const pm_analysis *a = x->a;
    const pm_an_handoff *h = &a->handoff;
    if (!h->x || !h->n_points)
        return 1;
    /* many points: one block per (stage, series) of binned medians (index in plot order), not a point per config */
    int binned = h->n_points > FIG_SCATTER_MAX;
    *x->binned |= binned;
    FILE *d = data_file(x, "handoff.dat");
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
    q(f, t);
    fprintf(f, "\n%sset xlabel ", h->log_x ? "set logscale x\n" : "");
    q(f, xn);
    fputc('\n', f);
    if (h->log_x) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t p = 0; p < h->n_points; p++)
            lo = fmin(lo, h->points[p].x), hi = fmax(hi, h->points[p].x);
        log_tics(f, "x", lo, hi);
    }
    fprintf(f, "set ylabel 'share of compile wall (%%)'\nset yrange [0:100]\nplot ");
    int first = 1;
    size_t block = 0;
    for (size_t s = 0; s < a->n_stages; s++) {
        if (!dom_stage[s])
            continue;
        for (size_t k = 0; k < h->n_series; k++) {
            if (binned)
                fprintf(f, "%s'handoff.dat' index %zu using 1:2:3:4 with yerrorbars pt %zu ps 1.3 lc rgb '%s' title ",
                        first ? "" : ", ", block++, 4 + 2 * k, stage_color(a, s));
            else
                fprintf(f, "%s'handoff.dat' using 1:($2==%zu?$%zu:NaN) with points pt %zu ps 1.3 lc rgb '%s' title ",
                        first ? "" : ", ", k, s + 3, 4 + 2 * k, stage_color(a, s));
            snprintf(t, sizeof t, "%s / %s", a->stages[s], h->series[k]);
            q(f, t);
            first = 0;
        }
        if (!isnan(h->trends[s].slope))
            fprintf(f, ", (%.6g + %.6g*%s)*100 with lines lw 2 lc rgb '%s' title '%s trend'", h->trends[s].intercept,
                    h->trends[s].slope, h->log_x ? "log10(x)" : "x", stage_color(a, s), a->stages[s]);
    }
    fputc('\n', f);
    fclose(f);
    free(dom_stage);
    *body = b;
    return 0;
}

static int fig_why(const fig_ctx *x, char **body)
{
    const pm_analysis *a = x->a;
    int any = 0;
    for (size_t i = 0; i < a->fits.n; i++)
        any |= a->fits.rows[i].n > 0;
    if (!any)
        return 1;
    FILE *d = data_file(x, "why-costly.dat");
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
               "(log-log, power-law fit over the measured range%s)'\nset logscale xy\nset key inside top left box opaque font ',11'\n"
               "set ylabel 'pass wall (s)'\nset format x '%%.0e'\n", rows, cols,
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
        fprintf(f, "set title ");
        q(f, t);
        fprintf(f, " font ',12'\nset xlabel ");
        q(f, fit->x_metric);
        double ylo = INFINITY, yhi = -INFINITY;
        for (int k = 0; k < fit->n; k++)
            ylo = fmin(ylo, fit->y[k]), yhi = fmax(yhi, fit->y[k]);
        fputc('\n', f);
        fprintf(f, "set xtics autofreq\nset ytics autofreq\n");   /* the previous panel's ticks do not carry over */
        log_tics(f, "x", lo, hi);
        log_tics(f, "y", ylo, yhi);
        if (fit->n > FIG_SCATTER_MAX)
            fprintf(f, "plot 'why-costly.dat' index %zu using 1:2:3:4 with yerrorbars pt 7 lc rgb '%s' title "
                       "'configs (%d, binned)'", i, color((int)i), fit->n);
        else
            fprintf(f, "plot 'why-costly.dat' index %zu using 1:2 with points pt 7 lc rgb '%s' title 'configs'", i,
                    color((int)i));
        if (!isnan(fit->exponent) && fit->n > 0 && hi > lo) {
            snprintf(t, sizeof t, "x^%.2f [%.2f, %.2f], R2 %.2f%s", fit->exponent, fit->lo, fit->hi, fit->r2,
                     fit->superlinear ? " superlinear" : "");
            fprintf(f, ", [%.6g:%.6g] %.6g*x**%.6g with lines lw 2 lc rgb '%s' title ", lo, hi, fit->prefactor,
                    fit->exponent, color((int)i));
            q(f, t);
        }
        fputc('\n', f);
        i++;
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    *body = b;
    return 0;
}

/* Stacked stage bars: one bar per selected config. */
typedef int (*pick_fn)(const pm_analysis *a, const pm_an_config *c, char *label, size_t n);

static int fig_stacked(const fig_ctx *x, const char *name, const char *title, const char *xlabel, pick_fn pick,
                       const pm_an_fingerprint *fp, char **body)
{
    const pm_analysis *a = x->a;
    char fn[64];
    snprintf(fn, sizeof fn, "%s.dat", name);
    FILE *d = data_file(x, fn);
    if (!d)
        return -1;
    fprintf(d, "label");
    for (size_t s = 0; s < a->n_stages; s++)
        fprintf(d, " \"%s\"", a->stages[s]);
    fputc('\n', d);
    char label[256], first[256] = "";
    size_t n_bars = 0;
    for (size_t i = 0; i < (fp ? fp->n : a->n_configs); i++)
        n_bars += fp || pick(a, &a->configs[i], label, sizeof label);
    /* many bars: FIG_BINS bars, each the mean stage shares of a run of consecutive bars (gnuplot drew a box per
     * stage and bar: 2,800 bars, 18 MB of SVG at 150,000 runs) */
    size_t nb = n_bars > FIG_BARS_MAX ? FIG_BINS : n_bars;
    *x->binned |= nb < n_bars;
    double *sum = calloc(a->n_stages + 1, sizeof *sum);
    if (!sum) {
        fclose(d);
        return -1;
    }
    size_t n = 0, in_bin = 0;
    for (size_t i = 0; i < (fp ? fp->n : a->n_configs); i++) {
        const pm_an_config *c = &a->configs[fp ? (size_t)fp->configs[i] : i];
        if (!fp && !pick(a, c, label, sizeof label))
            continue;
        const char *l = fp ? fp->labels[i] : label;
        if (nb < n_bars) {   /* bar n goes to bin n * nb / n_bars: the bin ends where the next one starts */
            if (!in_bin++)
                snprintf(first, sizeof first, "%s", l);
            for (size_t s = 0; s < a->n_stages; s++)
                sum[s] += c->share[s].mean * 100;
            n++;
            if (n < n_bars && n * nb / n_bars == (n - 1) * nb / n_bars)
                continue;
            fputc('"', d);
            for (const char *p = first; *p; p++)
                fputc(*p == '"' ? '\'' : *p, d);
            fprintf(d, "..");
            for (const char *p = l; *p; p++)
                fputc(*p == '"' ? '\'' : *p, d);
            fputc('"', d);
            for (size_t s = 0; s < a->n_stages; s++)
                fprintf(d, " %.4f", sum[s] / (double)in_bin), sum[s] = 0;
            fputc('\n', d);
            in_bin = 0;
            continue;
        }
        fputc('"', d);
        for (; *l; l++)   /* a quote would end gnuplot's string */
            fputc(*l == '"' ? '\'' : *l, d);
        fputc('"', d);
        for (size_t s = 0; s < a->n_stages; s++)
            fprintf(d, " %.4f", c->share[s].mean * 100);
        fputc('\n', d);
        n++;
    }
    free(sum);
    fclose(d);
    if (!n)
        return 1;
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set title ");
    if (nb < n_bars) {   /* the caption says what a bar is */
        pm_sbuf t = {0};
        pm_sbuf_add(&t, "%zu bars (above " PM_STR(FIG_BARS_MAX) ") binned: %zu runs of consecutive bars (first..last), "
                    "mean stage shares", n_bars, nb);
        if (t.oom) {
            fclose(f);
            free(b);
            return -1;
        }
        q(f, title);
        fputs(" . \"\\n\" . ", f);   /* a second line */
        q(f, t.s);
        free(t.s);
    } else {
        q(f, title);
    }
    fprintf(f, "\nset style data histograms\nset style histogram rowstacked\nset key outside right top vertical box\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.75\nset yrange [0:100]\nset ylabel 'share of compile wall (%%)'\nset xlabel ");
    q(f, xlabel);
    fprintf(f, "\nset xtics rotate by -40\nplot ");
    for (size_t s = 0; s < a->n_stages; s++)
        fprintf(f, "%s'%s' using %zu:xtic(1) title columnheader(%zu) lc rgb '%s'", s ? ", " : "", fn, s + 2, s + 2,
                stage_color(a, s));
    fputc('\n', f);
    fclose(f);
    *body = b;
    return 0;
}

static int pick_prec_window(const pm_analysis *a, const pm_an_config *c, char *label, size_t n)
{
    const pm_workload *w = &c->workload;
    if (!has_study(c, 0) || !same(w->size, a->precision.window_size) || !same(c->variant, study_regime(a, 0)->variant))
        return 0;
    snprintf(label, n, "%s %s w%d", w->family ? w->family : "-", w->precision ? w->precision : "-", w->window);
    return 1;
}

/* A fingerprint: the bars the analysis chose for this figure (one per combination of its bar axes). */
static int fig_fingerprint(const fig_ctx *x, const char *name, char **body)
{
    const pm_an_fingerprint *fp = pm_an_fingerprint_for(x->a, name);
    if (!fp || !fp->n)
        return 1;
    pm_sbuf title = {0}, xl = {0};
    pm_sbuf_add(&title, "%s%sfingerprint: stage breakdown per %s", fp->label ? fp->label : "",
                fp->label ? " " : "", fp->bar_axes);
    if (*fp->held)
        pm_sbuf_add(&title, " (%s)", fp->held);
    pm_sbuf_add(&xl, "%s", fp->bar_axes);
    int r = title.oom || xl.oom ? -1 : fig_stacked(x, name, title.s, xl.s, NULL, fp, body);
    free(title.s);
    free(xl.s);
    return r;
}

/* One line per (precision, family), never a line across families: left, cold wall vs size at the precision
 * window; right, wall / base-precision wall of the same family, size and window (median over windows). */
static int same_str(const char *p, const char *q)
{
    return (!p && !q) || (p && q && !strcmp(p, q));
}

static int prec_member(const pm_analysis *a, const pm_an_config *c)
{
    return has_study(c, 0) && c->wall.mean > 0 &&
           same_str(c->variant, study_regime(a, 0)->variant);
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
        if (!same_str(w2->precision, prec))
            continue;
        for (size_t t = grp_from[i]; t < grp_to[i]; t++) {
            const pm_an_config *cb = &a->configs[by_fs[t]];
            if (!same_str(cb->workload.precision, a->precision.base) || cb->workload.window != w2->window)
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
    log_tics(f, "x", xlo, xhi);
    log_tics(f, "y", ylo, yhi);
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
                  ? data_file(x, "precision.dat") : NULL;
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
        for (k = 0; k < n && !(same_str(pp[k], c->workload.precision) && same_str(pf[k], c->workload.family)); k++)
            ;
        if (k == n)
            pp[n] = c->workload.precision, pf[n++] = c->workload.family;
        pair_of[i] = (int)k;
    }
    qsort_r(by_fs, n_members, sizeof *by_fs, cmp_family_size, &a);
    for (size_t s = 0, e; s < n_members; s = e) {   /* each member's group: [grp_from, grp_to) of by_fs */
        const pm_workload *ws = &a->configs[by_fs[s]].workload;
        for (e = s + 1; e < n_members && same_str(a->configs[by_fs[e]].workload.family, ws->family) &&
                        same_str(a->configs[by_fs[e]].workload.size, ws->size); e++)
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
            if (pair_of[i] != (int)k || isnan(c->size_num) || (last && same_str(last, c->workload.size)))
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
    char *b = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&b, &bl);
    fprintf(f, "set multiplot layout 1,2 title 'Precision: one line per family (colour: precision, point: family)%s'\n"
               "set logscale xy\nset key inside top left vertical box font ',11'\n"
               "set title 'cold compile time vs size (window %d)'\nset xlabel 'model size (parameters)'\n"
               "set ylabel 'cold compile wall (s, geometric mean)'\n",
            binned ? "' . \"\\n\" . 'above " PM_STR(FIG_SCATTER_MAX) " configs binned: median and quartiles of each 1/"
                     PM_STR(FIG_BINS) " of each line by size" : "", a->precision.window);
    prec_tics(f, a, pair_of);
    fputs("plot ", f);
    size_t nf = 0;
    for (size_t k = 0; k < n; k++) {
        size_t j;
        for (j = 0; j < nf && !same_str(fams[j], pf[k]); j++)
            ;
        if (j == nf)
            fams[nf++] = pf[k];
    }
    char t[256];
    for (size_t k = 0; k < n; k++) {
        size_t pi = 0, fi = 0;
        for (size_t i = 0; i < a->precision.n; i++)
            if (same_str(a->precision.time[i].label, pp[k] ? pp[k] : "-"))
                pi = i;
        while (fi < nf && !same_str(fams[fi], pf[k]))
            fi++;
        snprintf(t, sizeof t, "%s %s", pp[k] ? pp[k] : "-", pf[k] ? pf[k] : "-");
        fprintf(f, "%s'precision.dat' index %zu using %s pt %zu lw 2 lc rgb '%s' title ", k ? ", " : "",
                2 * k, binned ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints", 5 + 2 * (fi % 6), color((int)pi));
        q(f, t);
    }
    fprintf(f, "\nunset logscale y\nset ytics autofreq\nset title 'time / %s of the same family (median over windows)'\n"
               "set ylabel 'ratio to %s'\nplot 1 with lines dt 2 lc rgb '#000000' title 'parity'",
            a->precision.base, a->precision.base);
    for (size_t k = 0; k < n; k++) {
        if (same_str(pp[k], a->precision.base))
            continue;
        size_t pi = 0, fi = 0;
        for (size_t i = 0; i < a->precision.n; i++)
            if (same_str(a->precision.time[i].label, pp[k] ? pp[k] : "-"))
                pi = i;
        while (fi < nf && !same_str(fams[fi], pf[k]))
            fi++;
        snprintf(t, sizeof t, "%s %s", pp[k] ? pp[k] : "-", pf[k] ? pf[k] : "-");
        fprintf(f, ", 'precision.dat' index %zu using %s pt %zu lw 2 lc rgb '%s' title ", 2 * k + 1,
                binned ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints", 5 + 2 * (fi % 6), color((int)pi));
        q(f, t);
    }
    fprintf(f, "\nunset multiplot\n");
    fclose(f);
    *body = b;
    rc = 0;
cleanup:
    free(pp), free(pf), free(fams), free(ratios);
    free(member), free(by_fs), free(pair_of), free(grp_from), free(grp_to), free(v);
    return rc;
}

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
        if (!has_study(c, 1) || !same(c->workload.precision, study_regime(a, 1)->precision))
            continue;
        int depth = pm_workload_depth(&c->workload, c->kind);
        size_t k;
        for (k = 0; k < nf && !(same(fams[k], c->workload.family) && blocks[k] == depth); k++)
            ;
        if (k == nf) {
            blocks[nf] = depth;
            fams[nf++] = c->workload.family;
        }
    }
    /* many configs: each line drawn from binned medians (with quartiles) along the resolution */
    size_t n_points = 0;
    const char *prec = study_regime(a, 1)->precision;
    unsigned char *on = calloc(a->n_configs + 1, 1);   /* a point of some line */
    for (size_t i = 0; on && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        on[i] = has_study(c, 1) && same(c->workload.precision, prec) && c->workload.resolution > 0;
        n_points += on[i];
    }
    int binned = n_points > FIG_SCATTER_MAX;
    *x->binned |= binned;
    fig_xy *v = binned ? calloc(n_points, sizeof *v) : NULL;
    FILE *d = nf && on && (!binned || v) ? data_file(x, "cnn-spine.dat") : NULL;
    if (!d) {
        free(fams), free(blocks), free(on), free(v);
        return nf ? -1 : 1;
    }
    for (size_t k = 0; k < nf; k++) {
        size_t nv = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            const pm_an_config *c = &a->configs[i];
            if (!on[i] || !same(c->workload.family, fams[k]) || pm_workload_depth(&c->workload, c->kind) != blocks[k])
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
               "set xlabel 'input resolution (pixels, H = W)'\nset ylabel 'cold compile wall (s)'\n",
            binned ? "' . \"\\n\" . 'above " PM_STR(FIG_SCATTER_MAX) " configs binned: median and quartiles of each 1/"
                     PM_STR(FIG_BINS) " of each line by resolution" : "");
    log_tics(f, "x", xlo, xhi);   /* a range within a decade: 1-2-5 ticks, not gnuplot's one power of ten */
    log_tics(f, "y", ylo, yhi);
    fputs("plot ", f);
    for (size_t k = 0; k < nf; k++) {
        char label[96];
        if (blocks[k] > 0)
            snprintf(label, sizeof label, "%s (first %d blocks)", fams[k] ? fams[k] : "-", blocks[k]);
        else
            snprintf(label, sizeof label, "%s", fams[k] ? fams[k] : "-");
        fprintf(f, "%s'cnn-spine.dat' index %zu using %s pt 7 lw 2 lc rgb '%s' title ", k ? ", " : "", k,
                binned ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints", color((int)k));
        q(f, label);
    }
    fputc('\n', f);
    fclose(f);
    free(fams), free(blocks);
    *body = b;
    return 0;
}

/* Lines of a figure's data file (the bars of a stacked figure), 0 when unreadable. */
static int data_rows(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, c, prev = '\n';
    while ((c = fgetc(f)) != EOF) {
        n += c == '\n' && prev != '\n';
        prev = c;
    }
    fclose(f);
    return n;
}

/* A figure's size follows its data: a 3x2 regime map is not drawn at the size of a 12x8 one, a fingerprint
 * grows with its bars; wide legends sit right of the plot, so the width leaves room for them. A row without a
 * size function is drawn at 1000 x 600. */
static void size_regime(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
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

static void size_bars(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a;
    int bars = data_rows(dir, name) - 1;   /* minus the header */
    *w = 760 + 40 * (bars > 0 ? bars : 1);   /* room for the title and the stage legend beside the bars */
    *h = 560;
}

#define FIG_MAX_W_PANELS 940
static void size_panels(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;   /* why-costly: small multiples, one panel per pass */
    *w = FIG_MAX_W_PANELS, *h = 600;
}

static void size_wide(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;   /* precision: one line per family, legend beside */
    *w = 940, *h = 560;
}

static void size_spine(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a, (void)dir, (void)name;
    *w = 880, *h = 520;
}

/* ---- each figure's finding: one sentence computed from the data it draws, printed under its title ---- */

/* The stage with the largest share in most of the given configs, how many, and its share range. */
static void top_stage(const pm_analysis *a, const int *cfg, size_t n, pm_sbuf *b, const char *what)
{
    int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD), best = -1, small = 0;
    size_t ns = a->n_stages ? a->n_stages : 1, top_n = 0;
    int *cnt = calloc(ns, sizeof *cnt);
    double lo = INFINITY, hi = 0;
    if (!cnt) {
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int s = a->configs[cfg[i]].dominant_stage;
        if (s < 0)
            continue;
        if (s == over)
            small++;
        else
            cnt[s]++;
    }
    for (size_t s = 0; s < a->n_stages; s++)
        if (cnt[s] > 0 && (best < 0 || cnt[s] > cnt[best]))
            best = (int)s;
    if (best >= 0) {
        top_n = (size_t)cnt[best];
        for (size_t i = 0; i < n; i++)
            if (a->configs[cfg[i]].dominant_stage == best) {
                double v = a->configs[cfg[i]].share[best].mean;
                lo = fmin(lo, v), hi = fmax(hi, v);
            }
        long l = lround(lo * 100), u = lround(hi * 100);
        if (l == u)
            pm_sbuf_add(b, "%s leads %zu of %zu %s (%ld%% of the compile)", a->stages[best], top_n, n, what, u);
        else
            pm_sbuf_add(b, "%s leads %zu of %zu %s (%ld\u2013%ld%% of the compile)", a->stages[best], top_n, n, what, l, u);
    }
    if (small)
        pm_sbuf_add(b, "%s%d too small to tell (process start-up first)", best >= 0 ? "; " : "", small);
    if (best < 0 && !small)
        pm_sbuf_add(b, "no %s with a dominant stage", what);
    free(cnt);
}

static int finding_regime(const pm_analysis *a, const char *name, pm_sbuf *b)
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

static int finding_handoff(const pm_analysis *a, const char *name, pm_sbuf *b)
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

static int finding_why(const pm_analysis *a, const char *name, pm_sbuf *b)
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

static int finding_fingerprint(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    const pm_an_fingerprint *fp = pm_an_fingerprint_for(a, name);
    if (!fp || !fp->n)
        return 1;
    top_stage(a, fp->configs, fp->n, b, "bars");
    pm_sbuf_add(b, ".");
    return 0;
}

static int finding_precision(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    const pm_an_precision *p = &a->precision;
    int any = 0;
    for (size_t i = 0; p->ratio && i < p->n; i++) {
        const pm_an_series *r = &p->ratio[i];
        if (!r->n || same_str(r->label, p->base))
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

static int finding_prec_window(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    int *cfg = calloc(a->n_configs + 1, sizeof *cfg);
    if (!cfg)
        return -1;
    size_t n = 0;
    char label[128];
    for (size_t i = 0; i < a->n_configs; i++)
        if (pick_prec_window(a, &a->configs[i], label, sizeof label))
            cfg[n++] = (int)i;
    if (n)
        top_stage(a, cfg, n, b, "bars");
    free(cfg);
    if (!n)
        return 1;
    pm_sbuf_add(b, ".");
    return 0;
}

static int finding_spine(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    /* the log-log slope of cold wall against resolution over the spine's points: time ~ resolution^k */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0, rlo = 0, rhi = 0;
    const pm_an_regime *rg = study_regime(a, 1);
    for (size_t i = 0; rg && i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!has_study(c, 1) || !same(c->workload.precision, rg->precision) || c->workload.resolution <= 0 ||
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

/* The rows' draw functions: each writes its data files and returns the gnuplot body (0), no data (1) or an
 * I/O error (-1); they call the figure's own drawing code above. */
static int draw_regime(const fig_ctx *x, const char *name, char **body)
{
    /* the first map drawn by this figure: a kind row's, else the spec's two axes (files x -O) */
    const pm_an_regime *rg = pm_an_regime_for(x->a, name);
    return rg ? fig_regime(x, rg, name, rg->col_label, body) : 1;
}

static int draw_handoff(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_handoff(x, body); }
static int draw_why(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_why(x, body); }
static int draw_precision(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_precision(x, body); }
static int draw_spine(const fig_ctx *x, const char *name, char **body) { (void)name; return fig_cnn_spine(x, body); }

static int draw_prec_window(const fig_ctx *x, const char *name, char **body)
{
    char t2[256];
    snprintf(t2, sizeof t2, "Stage share by precision and window (size %s)",
             x->a->precision.window_size ? x->a->precision.window_size : "-");
    return fig_stacked(x, name, t2, "family, precision, window", pick_prec_window, NULL, body);
}

/* The figures: one row each, in report order (name: the file stem DIR/name.svg; empty: the note when there is
 * no data, "... in this sweep"). A new figure: its draw function in this file plus one row. */
static const struct fig_row {
    const char *name, *title;
    int (*draw)(const fig_ctx *x, const char *name, char **body);
    void (*size)(const pm_analysis *a, const char *dir, const char *name, int *w, int *h);
    const char *empty;
    /* its finding in one sentence from the data drawn: 0 written, 1 nothing to say, -1 out of memory */
    int (*finding)(const pm_analysis *a, const char *name, pm_sbuf *b);
} FIGURES[] = {
    {"regime-map", "Regime map", draw_regime, size_regime, "no LLM data", finding_regime},
    {"handoff", "Handoff", draw_handoff, NULL, "no configs with cold runs", finding_handoff},
    {"why-costly", "Why costly: time vs IR size", draw_why, size_panels, "no IR-size metrics for the heavy passes",
     finding_why},
    {"fingerprint", "Family fingerprint", fig_fingerprint, size_bars, "no configs with cold runs", finding_fingerprint},
    {"precision", "Precision", draw_precision, size_wide, "no LLM data", finding_precision},
    {"precision-window", "Precision x window stage share", draw_prec_window, size_bars, "no LLM data",
     finding_prec_window},
    {"cnn-regime-map", "CNN regime map", draw_regime, size_regime, "no CNN data", finding_regime},
    {"cnn-spine", "CNN resolution spine", draw_spine, size_spine, "no CNN data", finding_spine},
    {"cnn-fingerprint", "CNN fingerprint", fig_fingerprint, size_bars, "no CNN data", finding_fingerprint},
};
#define N_FIGURES (sizeof FIGURES / sizeof FIGURES[0])

size_t pm_figures_count(void)
{
    return N_FIGURES;
}

#define FIG_MAX_W 940
#define FIG_MAX_H 600
static void figure_size(const pm_analysis *a, const struct fig_row *row, const char *dir, int *w, int *h)
{
    *w = 940, *h = 580;
    if (row->size)
        row->size(a, dir, row->name, w, h);
    /* at most the report's column at a 1280 px window (1280 - the contents list - margins: ~950 px) and the
     * height of an 800 px screen: drawn at its own size, never scaled down, its 13 px text stays 13 px */
    if (*w > FIG_MAX_W)
        *w = FIG_MAX_W;
    if (*h > FIG_MAX_H)
        *h = FIG_MAX_H;
}

/* The driver script loads each drawn figure's script after a reset (each sets its own terminals and output), then
 * one gnuplot run draws them all. */
static int draw_all(const char *dir, const int *drawn, const pm_figures *out, pm_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/" FIG_ALL ".gp", dir);
    FILE *f = NULL;
    int any = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (!drawn[i])
            continue;
        if (!f && !(f = fopen(path, "w")))
            return pm_err_errno(err, PM_ERR_IO, "writing %s", path);
        fprintf(f, "reset\nload '%s.gp'\n", out->fig[i].name);
        any = 1;
    }
    if (!any)
        return PM_OK;
    if (fclose(f))
        return pm_err_errno(err, PM_ERR_IO, "writing %s", path);
    return run_gnuplot(dir, FIG_ALL, err);
}

int pm_figures_render(const pm_analysis *a, const char *dir, pm_figures *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    char tmpdir[] = "/tmp/passmap-fig.XXXXXX";
    int rc = PM_OK, own = 0;
    if (!dir) {
        if (!mkdtemp(tmpdir))
            return pm_err_errno(err, PM_ERR_IO, "mkdtemp");
        dir = tmpdir;
        own = 1;
    } else if (strlen(dir) > FIG_DIR_MAX) {
        /* every file goes to DIR/NAME.EXT in 4096-byte buffers: checked once here instead of cut there */
        return pm_err_set(err, PM_ERR_USAGE, "figure folder path longer than %d bytes: %.80s...", FIG_DIR_MAX, dir);
    } else if (mkdir(dir, 0755) && errno != EEXIST) {
        return pm_err_errno(err, PM_ERR_IO, "mkdir %s", dir);
    }
    int binned = 0;
    fig_ctx x = {a, dir, &binned};
    int drawn[N_FIGURES] = {0};
    out->fig = calloc(N_FIGURES, sizeof *out->fig);
    if (!out->fig)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < N_FIGURES && rc == PM_OK; i++) {
        const struct fig_row *row = &FIGURES[i];
        pm_figure *fg = &out->fig[i];
        fg->name = row->name;
        fg->title = row->title;
        out->n++;
        char *body = NULL;
        binned = 0;
        int r = row->draw(&x, fg->name, &body);
        fg->binned = binned;
        if (r < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "writing figure data for %s in %s", fg->name, dir);
        } else if (r > 0) {
            char note[128];
            snprintf(note, sizeof note, "%s in this sweep", row->empty);
            fg->note = strdup(note);
        } else {
            int w, h;
            figure_size(a, row, dir, &w, &h);
            if (write_script(dir, fg->name, body, w, h))
                rc = pm_err_errno(err, PM_ERR_IO, "writing %s/%s.gp", dir, fg->name);
            else
                drawn[i] = 1;
            pm_sbuf fb = {0};
            int fr = row->finding(a, fg->name, &fb);
            if (fr < 0 || fb.oom)
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            if (fr == 0 && !fb.oom)
                fg->finding = fb.s;
            else
                free(fb.s);
        }
        free(body);
    }
    if (rc == PM_OK)
        rc = draw_all(dir, drawn, out, err);
    /* read the SVGs back */
    for (size_t i = 0; i < out->n && rc == PM_OK; i++) {
        if (!drawn[i])
            continue;
        {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.svg", dir, out->fig[i].name);
            size_t svg_len;
            pm_err ignored;
            if (pm_util_read_file(path, &out->fig[i].svg, &svg_len, &ignored))
                rc = pm_err_errno(err, PM_ERR_IO, "reading %s", path);
        }
    }
    if (own)
        pm_util_remove_tree(tmpdir);
    if (rc)
        pm_figures_free(out);
    return rc;
}

void pm_figures_free(pm_figures *f)
{
    for (size_t i = 0; f->fig && i < f->n; i++) {
        free(f->fig[i].svg);
        free(f->fig[i].note);
        free(f->fig[i].finding);
    }
    free(f->fig);
    f->fig = NULL;
    f->n = 0;
}
