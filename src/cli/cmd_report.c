/* passmap report DB: the study of a sweep (stage breakdown, regimes, fits, precision, fixes) as text,
 * JSON, or one self-contained HTML file with the figures. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analysis.h"
#include "cmds.h"
#include "store.h"
#include "figures.h"
#include "html.h"
#include "npu_report.h"
#include "stagemap.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: passmap report DB [--json] [--html FILE] [--figures DIR] [--sweep NAME]\n"
            "                         [--stage-map FILE]... [--fixes FILE] [--x SIZE-AXIS] [--y WORKLOAD-AXIS]\n"
            "  per config: stage breakdown, dominant stage and share; regimes, cost fits, precision, fix table.\n"
            "  --json            the same content as JSON on stdout\n"
            "  --html FILE       one self-contained HTML report (figures inline; needs gnuplot)\n"
            "  --figures DIR     also keep the figures (SVG + PNG + gnuplot scripts) in DIR\n"
            "  --sweep NAME      which sweep (default: the latest); A,B reports several together\n"
            "  --stage-map FILE  pass->stage map (tool<TAB>glob<TAB>stage); repeatable; default: data/stages-*.tsv\n"
            "  --fixes FILE      fix rules (default: data/fixes.tsv)\n"
            "  --x AXIS, --y AXIS  regime map axes of a sweep over parameters (e.g. --x opt --y input); default:\n"
            "                    the spec's [report] size / workload, else input and the first integer axis\n"
            "  data dir: $PASSMAP_DATA_DIR, else %s\n", pm_data_dir());
}

static void pct(double v)
{
    if (isnan(v))
        printf(" %7s", "-");
    else
        printf(" %6.1f%%", v * 100);
}

static void numf(double v, const char *fmt)
{
    putchar(' ');
    if (isnan(v))
        printf("%6s", "-");
    else
        printf(fmt, v);
}

/* A study measured on several machines: one row per machine (the stratification), then what crosses them. */
static void print_hosts(const pm_analysis *a)
{
    if (a->n_hosts < 2 && !a->n_host_warnings)
        return;
    printf("machines (%zu, %d kind%s)\n  %-20s %-16s %7s %6s %10s  %s\n", a->n_hosts, a->n_machine_kinds,
           a->n_machine_kinds == 1 ? "" : "s", "host", "fingerprint", "configs", "runs", "geomean", "machine");
    for (size_t i = 0; i < a->n_hosts; i++) {
        const pm_an_host *h = &a->hosts[i];
        char gm[32] = "-";
        if (!isnan(h->wall_geomean))
            snprintf(gm, sizeof gm, "%.4fs", h->wall_geomean);
        printf("  %-20s %-16s %7d %6d %10s  %s, %d cores, kernel %s, %s\n", h->name, h->fingerprint, h->n_configs,
               h->n_runs, gm, h->cpu_model, h->cores, h->kernel, h->compiler);
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].host >= 0 && a->n_hosts > 1)
            printf("  %-44s on %s\n", a->configs[i].key, a->hosts[a->configs[i].host].name);
    for (size_t i = 0; i < a->n_host_warnings; i++)
        printf("warning: %s\n", a->host_warnings[i]);
    putchar('\n');
}

static void print_text(const pm_analysis *a)
{
    printf("sweep %s (%s): %zu configs, %d ok runs, %d failed, up to %d cold repeats\n\n", a->sweep ? a->sweep : "-",
           a->backend ? a->backend : "-", a->n_configs, a->n_runs_ok, a->n_runs_failed, a->max_repeats);
    print_hosts(a);
    /* The recompile / cache-hit column appears when the sweep measured warm runs (sweep --warm). */
    int warm = 0;
    for (size_t i = 0; i < a->n_configs; i++)
        warm |= !isnan(a->configs[i].cache_ratio);
    printf("%-44s %10s %-19s %-18s %7s %s %s\n", "config", "cold wall", "95% CI (log-t)", "dominant stage", "share",
           warm ? "recompile/hit" : "", "dominant pass");
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->n_cold) {
            printf("%-44s %10s (no successful cold run; %d failed)\n", c->key, "-", c->n_failed);
            continue;
        }
        char ci[64];
        if (isnan(c->wall.lo))   /* n < 3: the value alone, no interval */
            snprintf(ci, sizeof ci, "n=%d, no interval", c->wall.n);
        else
            snprintf(ci, sizeof ci, "%.4f-%.4f", c->wall.lo, c->wall.hi);
        printf("%-44s %9.4fs %-19s %-18s", c->key, c->wall.mean, ci, a->stages[c->dominant_stage]);
        pct(c->share[c->dominant_stage].mean);
        if (warm) {
            if (isnan(c->cache_ratio))
                printf(" %13s", "-");
            else
                printf(" %12.1fx", c->cache_ratio);
        }
        printf(" %s\n", c->n_passes ? c->passes[0].name : "-");
    }
    printf("\nstage shares (%% of cold compile wall)\n%-44s", "config");
    for (size_t s = 0; s < a->n_stages; s++)
        printf(" %8.8s", a->stages[s]);
    putchar('\n');
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->n_cold)
            continue;
        printf("%-44s", c->key);
        for (size_t s = 0; s < a->n_stages; s++)
            pct(c->share[s].mean), putchar(' ');
        putchar('\n');
    }
    const pm_an_regime *rs[3] = {&a->regime_llm, &a->regime_cnn, &a->regime_cmd};
    printf("\nregimes\n");
    for (int r = 0; r < 3; r++)
        for (size_t i = 0; i < rs[r]->n_boundaries; i++)
            printf("  %s: %s\n", rs[r]->kind, rs[r]->boundaries[i]);
    if (!rs[0]->n_cells && !rs[1]->n_cells && !rs[2]->n_cells)   /* say why instead of an empty section */
        printf("  not applicable: no LLM (size x window), CNN (family x resolution) or two-axis configs "
               "(--x SIZE-AXIS --y WORKLOAD-AXIS, or [report] size/workload in the spec)\n");
    if (a->n_fits) {
        printf("\ncost = a * size^k (heavy passes)\n  %-40s %-12s %3s %7s %17s %6s\n", "pass", "x", "n", "k", "95% CI", "R2");
        for (size_t i = 0; i < a->n_fits; i++) {
            const pm_an_fit *f = &a->fits[i];
            if (isnan(f->exponent) || isnan(f->lo)) { /* too few distinct sizes to fit */
                printf("  %-40.40s %-12s %3d %7s %17s %6s  (too few sizes to fit)\n", f->name, f->x_metric, f->n, "-",
                       "-", "-");
                continue;
            }
            printf("  %-40.40s %-12s %3d %7.3f [%7.3f, %7.3f] %6.3f%s\n", f->name, f->x_metric, f->n, f->exponent, f->lo,
                   f->hi, f->r2, f->superlinear ? "  superlinear" : "");
        }
    }
    if (!isnan(a->family_jsd))
        printf("\nhandoff: mean Jensen-Shannon distance between families %.3f (%d pairs)\n", a->family_jsd,
               a->family_jsd_pairs);
    else
        printf("\nhandoff: not applicable: fewer than two model families in this sweep\n");
    for (size_t i = 0; i < a->n_crossovers; i++)
        printf("precision: %s\n", a->crossovers[i]);
    if (!a->n_prec)
        printf("precision: not applicable: no LLM configs over several precisions in this sweep\n");
    printf("\nparallelism (user/wall)\n");
    for (size_t i = 0; i < a->n_tools; i++)
        printf("  %-20s %.2f\n", a->tools[i] ? a->tools[i] : "-", a->tool_user_wall[i]);
    printf("\nfix table\n  %-18s %4s %-34s %7s %6s %6s %6s  %s\n", "regime", "n", "dominant pass", "share", "k", "u/w",
           "c/w", "fix");
    for (size_t i = 0; i < a->n_fixes; i++) {
        const pm_an_fix *x = &a->fixes[i];
        printf("  %-18s %4d %-34.34s", a->stages[x->stage], x->n_configs, x->pass ? x->pass : "(outside passes)");
        pct(x->share);
        numf(x->exponent, "%6.2f");
        numf(x->user_wall, "%6.2f");
        numf(x->cache_ratio, "%6.1f");
        printf("  %s\n", x->fix ? x->fix : "no rule matched");
    }
    pm_npu_report_text(a, stdout); /* NPU back end only: see npu_report.h */
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},      {"html", required_argument, NULL, 'H'},
        {"figures", required_argument, NULL, 'F'}, {"sweep", required_argument, NULL, 's'},
        {"stage-map", required_argument, NULL, 'm'}, {"fixes", required_argument, NULL, 'x'},
        {"x", required_argument, NULL, 'X'},   {"y", required_argument, NULL, 'Y'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
    };
    int json = 0, c;
    const char *html = NULL, *figdir = NULL, *sweep = NULL, *fixes = NULL, *x_axis = NULL, *y_axis = NULL;
    const char *maps[16];
    int n_maps = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hjH:F:s:m:x:", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'H': html = optarg; break;
        case 'F': figdir = optarg; break;
        case 's': sweep = optarg; break;
        case 'x': fixes = optarg; break;
        case 'X': x_axis = optarg; break;
        case 'Y': y_axis = optarg; break;
        case 'm':
            if (n_maps == 16) {
                fprintf(stderr, "passmap report: at most 16 --stage-map files\n");
                return PM_EXIT_USAGE;
            }
            maps[n_maps++] = optarg;
            break;
        case 'h': usage(stdout); return PM_EXIT_OK;
        default:
            fprintf(stderr, "passmap report: try 'passmap report --help'\n");
            return PM_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "passmap report: expected one database file (try 'passmap report --help')\n");
        return PM_EXIT_USAGE;
    }
    const char *dbpath = argv[optind];
    int ret = PM_EXIT_FAIL;
    pm_err err = {0};
    sqlite3 *db = NULL;
    pm_analysis *a = NULL;
    pm_figures figs = {0};
    pm_stagemap *map = pm_stagemap_new();
    if (!map) {
        fprintf(stderr, "passmap report: out of memory\n");
        return PM_EXIT_FAIL;
    }
    int rc = PM_OK;
    for (int i = 0; i < n_maps && rc == PM_OK; i++)
        rc = pm_stagemap_load(map, maps[i], &err);
    if (!n_maps)
        rc = pm_stagemap_load_default(map, &err);
    if (rc)
        goto cleanup;
    /* read-write in memory terms only: temp tables are used; the file itself is opened read-only (also in a
     * read-only folder) */
    if ((rc = pm_store_open_db_readonly(dbpath, &db, &err)))
        goto cleanup;
    /* mmap reads skip a copy per page on the one big scan; temp tables stay in memory */
    sqlite3_exec(db, "PRAGMA mmap_size=1073741824; PRAGMA temp_store=MEMORY;", NULL, NULL, NULL);
    pm_an_opts o = {.sweep = sweep, .map = map, .fixes_path = fixes, .size_axis = x_axis, .workload_axis = y_axis};
    if ((rc = pm_analysis_run(db, &o, &a, &err)))
        goto cleanup;
    if (html || figdir) {
        if ((rc = pm_figures_render(a, figdir, &figs, &err)))
            goto cleanup;
    }
    if (html) {
        FILE *f = fopen(html, "w");
        if (!f) {
            pm_err_errno(&err, PM_ERR_IO, "open %s", html);
            goto cleanup;
        }
        rc = pm_html_write(a, &figs, f, &err);
        if (fclose(f) && !rc)
            rc = pm_err_errno(&err, PM_ERR_IO, "close %s", html);
        if (rc)
            goto cleanup;
    }
    if (json) {
        json_t *j = pm_analysis_json(a);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        putchar('\n');
        json_decref(j);
    } else if (!html || figdir) {
        print_text(a);
    }
    ret = PM_EXIT_OK;
cleanup:
    if (ret != PM_EXIT_OK)
        fprintf(stderr, "passmap report: %s\n", err.msg[0] ? err.msg : "failed");
    pm_figures_free(&figs);
    pm_analysis_free(a);
    pm_stagemap_free(map);
    if (db)
        sqlite3_close(db);
    return ret;
}
