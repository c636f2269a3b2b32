#include "figures_draw.h"
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


/* The figures: one row each, in report order (name: the file stem DIR/name.svg; empty: the note when there is
 * no data, "... in this sweep"). A new figure: its file fig_NAME.c (draw, size, finding;
 * figures_draw.h) plus one row. */
static const struct fig_row {
    const char *name, *title;
    int (*draw)(const fig_ctx *x, const char *name, char **body);
    void (*size)(const pm_analysis *a, const char *dir, const char *name, int *w, int *h);
    const char *empty;
    /* its finding in one sentence from the data drawn: 0 written, 1 nothing to say, -1 out of memory */
    int (*finding)(const pm_analysis *a, const char *name, pm_sbuf *b);
} FIGURES[] = {
    {"regime-map", "Regime map", fig_draw_regime, fig_size_regime, "no LLM data", fig_finding_regime},
    {"handoff", "Handoff", fig_draw_handoff, NULL, "no configs with cold runs", fig_finding_handoff},
    {"why-costly", "Why costly: time vs IR size", fig_draw_why, fig_size_panels,
     "no IR-size metrics for the heavy passes", fig_finding_why},
    {"fingerprint", "Family fingerprint", fig_fingerprint, fig_size_bars, "no configs with cold runs",
     fig_finding_fingerprint},
    {"precision", "Precision", fig_draw_precision, fig_size_wide, "no LLM data", fig_finding_precision},
    {"precision-window", "Precision x window stage share", fig_draw_prec_window, fig_size_bars, "no LLM data",
     fig_finding_prec_window},
    {"cnn-regime-map", "CNN regime map", fig_draw_regime, fig_size_regime, "no CNN data", fig_finding_regime},
    {"cnn-spine", "CNN resolution spine", fig_draw_spine, fig_size_spine, "no CNN data", fig_finding_spine},
    {"cnn-fingerprint", "CNN fingerprint", fig_fingerprint, fig_size_bars, "no CNN data", fig_finding_fingerprint},
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
    for (size_t i = 0; f->fig && i < f->n; i++)
        pm_free_all(f->fig[i].svg, f->fig[i].note, f->fig[i].finding);
    free(f->fig);
    f->fig = NULL;
    f->n = 0;
}
