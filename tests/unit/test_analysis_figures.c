/* Figures and HTML from a hand-built sweep with LLM and CNN configs: all nine render through gnuplot, and
 * a sweep without CNN configs omits the CNN figures with a note. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "backend.h"
#include "figures.h"
#include "html.h"
#include "stagemap.h"
#include "store.h"
#include "util.h"

static pm_store *store;
static int64_t sweep_id;
static char dir[64];

static void run(const char *kind, const char *fam, const char *size, int window, const char *prec, int res,
                double scale)
{
    char key[256];
    snprintf(key, sizeof key, "%s/%s/%s/%d/%s/%d", kind, fam, size ? size : "-", window, prec, res);
    pm_config c = {.key = key, .kind = kind, .variant = "stock",
                   .workload = {.family = fam, .size = size, .window = window, .precision = prec, .resolution = res}};
    int64_t cfg;
    pm_err e = {0};
    assert_int_equal(pm_store_config(store, sweep_id, &c, &cfg, &e), PM_OK);
    for (int rep = 0; rep < 2; rep++) {
        pm_report r;
        pm_report_init(&r);
        pm_pass p1 = {.name = "Canonicalizer", .wall_s = 0.1 * scale, .user_s = 0.1 * scale, .parent = -1};
        pm_pass p2 = {.name = "CSE", .wall_s = 0.01 * scale * scale, .user_s = -1, .parent = -1};
        pm_report_add_pass(&r, &p1);
        pm_report_add_pass(&r, &p2);
        pm_run_result res_ = {.wall_s = 0.2 * scale + 0.01 * scale * scale + 0.05 * rep, .user_s = 0.2 * scale};
        pm_step_record st = {.tool = "mlir-opt", .result = &res_, .report = &r};
        /* the input size, and the IR at the cleanup stage's entry: the fits' x (never the input size) */
        pm_metric m[] = {{.name = "ir.ops", .value = 1000 * scale}, {.name = "ir.stage.cleanup", .value = 900 * scale}};
        pm_run_record rec = {.config_id = cfg, .repeat = rep, .mode = "cold", .status = "ok",
                             .wall_s = res_.wall_s, .user_s = res_.user_s, .steps = &st, .n_steps = 1,
                             .metrics = m, .n_metrics = 2};
        assert_int_equal(pm_store_record_run(store, &rec, NULL, &e), PM_OK);
        pm_report_free(&r);
    }
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) { return remove(p); }

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/pm-test-fig-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char path[128];
    snprintf(path, sizeof path, "%s/t.db", dir);
    pm_err e = {0};
    return pm_store_open(path, &store, &e) || pm_store_sweep(store, "figs", "embedded", NULL, NULL, &sweep_id, &e);
}

static int teardown(void **state)
{
    pm_store_close(store);
    nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static pm_analysis *analyse(void)
{
    pm_stagemap *map = pm_stagemap_new();
    pm_err e = {0};
    assert_int_equal(pm_stagemap_load(map, PM_SOURCE_DIR "/tests/fixtures/stagemap/stages-embedded.tsv", &e), PM_OK);
    pm_an_opts o = {.fit_sizes_of = pm_backend_fit_sizes_of, .map = map};
    pm_analysis *a = NULL;
    assert_int_equal(pm_analysis_run(pm_store_db(store), &o, &a, &e), PM_OK);
    pm_stagemap_free(map);
    return a;
}

static int have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void all_nine_figures_render(void **state)
{
    if (!have_gnuplot())
        skip();
    const char *sizes[] = {"0.5b", "1.5b", "7b"};
    for (int i = 0; i < 3; i++)
        for (int w = 128; w <= 512; w *= 2) {
            run("llm", "qwen2", sizes[i], w, "int8", 0, (i + 1) * w / 128.0);
            run("llm", "qwen2", sizes[i], w, "int4", 0, (i + 1) * w / 100.0);
            run("llm", "phi3", sizes[i], w, "int8", 0, (i + 1.5) * w / 128.0);
        }
    for (int r = 112; r <= 448; r *= 2) {
        run("cnn", "resnet18", NULL, 0, "int8", r, r / 50.0);
        run("cnn", "mobilenet", NULL, 0, "int8", r, r / 80.0);
    }
    pm_analysis *a = analyse();
    char figdir[128];
    snprintf(figdir, sizeof figdir, "%s/figs", dir);
    pm_figures figs;
    pm_err e = {0};
    int rc = pm_figures_render(a, figdir, &figs, &e);
    if (rc)
        fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(rc, PM_OK);
    assert_int_equal(figs.n, pm_figures_count());
    for (size_t i = 0; i < figs.n; i++) {
        if (!figs.fig[i].svg)
            fprintf(stderr, "figure %s omitted: %s\n", figs.fig[i].name, figs.fig[i].note);
        assert_non_null(figs.fig[i].svg);
        assert_non_null(strstr(figs.fig[i].svg, "<svg"));
        char png[256];
        snprintf(png, sizeof png, "%s/%s.png", figdir, figs.fig[i].name);
        struct stat sb;
        assert_int_equal(stat(png, &sb), 0);
        assert_true(sb.st_size > 1000);
    }
    assert_string_equal(figs.fig[7].name, "cnn-spine");
    /* why-costly: one panel per fitted pass, each fit drawn only over that pass's measured sizes */
    char gp[256], line[8192];
    snprintf(gp, sizeof gp, "%s/why-costly.gp", figdir);
    FILE *g = fopen(gp, "r");
    assert_non_null(g);
    size_t fit_lines = 0, next = 0;
    while (fgets(line, sizeof line, g)) {
        if (!strncmp(line, "set multiplot", 13))
            next = 0;   /* the body is replayed for the PNG */
        char *r = strstr(line, ", [");
        if (!strstr(line, "why-costly.dat' index") || !r)
            continue;
        while (next < a->fits.n && isnan(a->fits.rows[next].exponent))
            next++;
        assert_true(next < a->fits.n);
        const pm_an_fit *fit = &a->fits.rows[next++];
        double lo, hi, xmin = INFINITY, xmax = -INFINITY;
        assert_int_equal(sscanf(r, ", [%lf:%lf]", &lo, &hi), 2);
        for (int k = 0; k < fit->n; k++) {
            xmin = fmin(xmin, fit->x[k]);
            xmax = fmax(xmax, fit->x[k]);
        }
        assert_true(fabs(lo - xmin) <= 1e-5 * xmin && fabs(hi - xmax) <= 1e-5 * xmax);
        fit_lines++;
    }
    fclose(g);
    assert_true(fit_lines > 0);
    char html[128];
    snprintf(html, sizeof html, "%s/r.html", dir);
    FILE *f = fopen(html, "w");
    assert_int_equal(pm_html_write(a, &figs, NULL, f, &e), PM_OK);
    fclose(f);
    pm_figures_free(&figs);
    pm_analysis_free(a);
}

static void cnn_figures_omitted_without_cnn(void **state)
{
    if (!have_gnuplot())
        skip();
    run("llm", "qwen2", "0.5b", 128, "int8", 0, 1);
    run("llm", "qwen2", "1.5b", 128, "int8", 0, 2);
    pm_analysis *a = analyse();
    pm_figures figs;
    pm_err e = {0};
    assert_int_equal(pm_figures_render(a, NULL, &figs, &e), PM_OK);
    for (size_t i = 6; i < 9; i++) {
        assert_null(figs.fig[i].svg);
        assert_string_equal(figs.fig[i].note, "no CNN data in this sweep");
    }
    assert_non_null(figs.fig[0].svg);
    pm_figures_free(&figs);
    pm_analysis_free(a);
}

/* Lines of a file that are not blank. */
static size_t data_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    size_t n = 0;
    while (fgets(line, sizeof line, f))
        n += line[0] != '\n';
    fclose(f);
    return n;
}

/* Above a few thousand configs the scatters are drawn from binned summaries, and their captions say so: the data
 * gnuplot reads no longer grows with the configs (issue 24). */
static void many_configs_binned(void **state)
{
    if (!have_gnuplot())
        skip();
    size_t n_cfg = 0;
    for (int i = 0; i < 30; i++)
        for (int j = 0; j < 70; j++, n_cfg++) {
            char size[16];
            snprintf(size, sizeof size, "%db", i + 1);
            run("llm", j % 2 ? "qwen2" : "phi3", size, 128 + 8 * j, "int8", 0, (i + 1) * (1 + j / 16.0));
        }
    pm_analysis *a = analyse();
    assert_true(a->handoff.n_points > 2000);
    char figdir[128], path[256];
    snprintf(figdir, sizeof figdir, "%s/figs", dir);
    pm_figures figs;
    pm_err e = {0};
    assert_int_equal(pm_figures_render(a, figdir, &figs, &e), PM_OK);
    assert_non_null(figs.fig[1].svg);
    assert_non_null(strstr(figs.fig[1].svg, "binned"));
    snprintf(path, sizeof path, "%s/handoff.dat", figdir);
    size_t lines = data_lines(path);
    assert_true(lines > 0 && lines < n_cfg / 4);   /* 40 bins per (stage, series) drawn, not a line per config */
    int why_binned = 0;
    for (size_t i = 0; i < a->fits.n; i++)
        why_binned |= a->fits.rows[i].n > 2000;
    if (why_binned) {
        assert_non_null(figs.fig[2].svg);
        assert_non_null(strstr(figs.fig[2].svg, "binned"));
        snprintf(path, sizeof path, "%s/why-costly.dat", figdir);
        assert_true(data_lines(path) < n_cfg / 4);
    }
    pm_figures_free(&figs);
    pm_analysis_free(a);
}

/* Many bars, map rows and precision points: the fingerprint, the regime map and the precision figure are drawn from
 * runs of consecutive bars / rows and binned medians, their data bounded by the bins (not the configs), and their
 * captions say so (issue 24). */
static void many_bars_rows_binned(void **state)
{
    if (!have_gnuplot())
        skip();
    size_t n_cfg = 0;
    static const char *fams[] = {"qwen2", "phi3"}, *precs[] = {"int8", "fp16"};
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 80; i++)
            for (int w = 0; w < 7; w++)
                for (int p = 0; p < 2; p++, n_cfg++) {
                    char size[16];
                    snprintf(size, sizeof size, "%db", i + 1);
                    run("llm", fams[f], size, 128 + 64 * w, precs[p], 0, (i + 1) * (1 + w / 8.0) * (1 + 0.2 * p));
                }
    pm_analysis *a = analyse();
    assert_int_equal(a->n_configs, n_cfg);
    const pm_an_fingerprint *fp = pm_an_fingerprint_for(a, "fingerprint");
    assert_non_null(fp);
    assert_true(fp->n > 60);
    char figdir[128], path[256];
    snprintf(figdir, sizeof figdir, "%s/figs", dir);
    pm_figures figs;
    pm_err e = {0};
    assert_int_equal(pm_figures_render(a, figdir, &figs, &e), PM_OK);
    /* fingerprint: a header and 40 bars, each a run of consecutive bars */
    assert_string_equal(figs.fig[3].name, "fingerprint");
    assert_non_null(figs.fig[3].svg);
    assert_non_null(strstr(figs.fig[3].svg, "binned"));
    snprintf(path, sizeof path, "%s/fingerprint.dat", figdir);
    assert_int_equal(data_lines(path), 1 + 40);
    /* regime map: at most 40 rows of squares per column */
    assert_string_equal(figs.fig[0].name, "regime-map");
    assert_non_null(figs.fig[0].svg);
    assert_non_null(strstr(figs.fig[0].svg, "binned"));
    snprintf(path, sizeof path, "%s/regime-map.dat", figdir);
    assert_true(data_lines(path) <= 40 * 7);
    /* precision: 40 bins per line and panel, not a point per config */
    assert_string_equal(figs.fig[4].name, "precision");
    assert_non_null(figs.fig[4].svg);
    assert_non_null(strstr(figs.fig[4].svg, "binned"));
    snprintf(path, sizeof path, "%s/precision.dat", figdir);
    assert_true(data_lines(path) <= 4 * 2 * 40);
    /* the HTML report's captions say so too, and only for the binned figures */
    assert_true(figs.fig[3].binned && figs.fig[0].binned && figs.fig[4].binned);
    assert_false(figs.fig[6].binned);   /* no CNN data: omitted */
    snprintf(path, sizeof path, "%s/r.html", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(pm_html_write(a, &figs, NULL, f, &e), PM_OK);
    fclose(f);
    char *html = NULL;
    size_t len = 0;
    assert_int_equal(pm_util_read_file(path, &html, &len, &e), PM_OK);
    const char *cap = strstr(html, "<figure id=\"fig-fingerprint\"");
    assert_non_null(cap);
    const char *end = strstr(cap, "</figcaption>");
    assert_non_null(end);
    const char *note = strstr(cap, "drawn from binned summaries");
    assert_true(note && note < end);
    free(html);
    pm_figures_free(&figs);
    pm_analysis_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(all_nine_figures_render, setup, teardown),
        cmocka_unit_test_setup_teardown(cnn_figures_omitted_without_cnn, setup, teardown),
        cmocka_unit_test_setup_teardown(many_configs_binned, setup, teardown),
        cmocka_unit_test_setup_teardown(many_bars_rows_binned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
