/* The stacked-bar figures: fingerprints and precision x window. */
#include "figures_draw.h"
#include "kinds.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stacked stage bars: one bar per selected config. */
typedef int (*pick_fn)(const pm_analysis *a, const pm_an_config *c, char *label, size_t n);

static int fig_stacked(const fig_ctx *x, const char *name, const char *title, const char *xlabel, pick_fn pick,
                       const pm_an_fingerprint *fp, char **body)
{
    const pm_analysis *a = x->a;
    char fn[64];
    snprintf(fn, sizeof fn, "%s.dat", name);
    FILE *d = fig_data_file(x, fn);
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
        fig_q(f, title);
        fputs(" . \"\\n\" . ", f);   /* a second line */
        fig_q(f, t.s);
        free(t.s);
    } else {
        fig_q(f, title);
    }
    fprintf(f, "\nset style data histograms\nset style histogram rowstacked\nset key outside right top vertical box\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.75\nset yrange [0:100]\nset ylabel 'share of compile wall'\nset format y '%%g%%%%'\nset xlabel ");
    fig_q(f, xlabel);
    fprintf(f, "\nset xtics rotate by -40\nplot ");
    for (size_t s = 0; s < a->n_stages; s++)
        fprintf(f, "%s'%s' using %zu:xtic(1) title columnheader(%zu) lc rgb '%s'", s ? ", " : "", fn, s + 2, s + 2,
                fig_stage_color(a, s));
    fputc('\n', f);
    fclose(f);
    *body = b;
    return 0;
}

static int pick_prec_window(const pm_analysis *a, const pm_an_config *c, char *label, size_t n)
{
    const pm_workload *w = &c->workload;
    if (!fig_has_study(c, 0) || !fig_same(w->size, a->precision.window_size) || !fig_same(c->variant, fig_study_regime(a, 0)->variant))
        return 0;
    snprintf(label, n, "%s %s w%d", w->family ? w->family : "-", w->precision ? w->precision : "-", w->window);
    return 1;
}

/* A fingerprint: the bars the analysis chose for this figure (one per combination of its bar axes). */
int fig_fingerprint(const fig_ctx *x, const char *name, char **body)
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

void fig_size_bars(const pm_analysis *a, const char *dir, const char *name, int *w, int *h)
{
    (void)a;
    int bars = data_rows(dir, name) - 1;   /* minus the header */
    *w = 760 + 40 * (bars > 0 ? bars : 1);   /* room for the title and the stage legend beside the bars */
    *h = 560;
}

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

int fig_finding_fingerprint(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    const pm_an_fingerprint *fp = pm_an_fingerprint_for(a, name);
    if (!fp || !fp->n)
        return 1;
    top_stage(a, fp->configs, fp->n, b, "bars");
    pm_sbuf_add(b, ".");
    return 0;
}

int fig_finding_prec_window(const pm_analysis *a, const char *name, pm_sbuf *b)
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

int fig_draw_prec_window(const fig_ctx *x, const char *name, char **body)
{
    char t2[256];
    snprintf(t2, sizeof t2, "Stage share by precision and window (size %s)",
             x->a->precision.window_size ? x->a->precision.window_size : "-");
    return fig_stacked(x, name, t2, "family, precision, window", pick_prec_window, NULL, body);
}
