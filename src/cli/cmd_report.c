/* passmap report DB: the study of a sweep (stage breakdown, regimes, fits, precision, fixes) as text,
 * JSON, or one self-contained HTML file with the figures. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis.h"
#include "json_out.h"
#include "cmds.h"
#include "store.h"
#include "figures.h"
#include "html.h"
#include "report_tables.h"
#include "fix.h"
#include "fix_report.h"
#include "npu_report.h"
#include "stagemap.h"
#include "store_runs.h"
#include "util.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: passmap report DB [--json | --markdown] [--html FILE] [--figures DIR] [--sweep NAME]\n"
            "                         [--stage-map FILE]... [--x SIZE-AXIS] [--y WORKLOAD-AXIS]\n"
            "                         [--allow-contended]\n"
            "  per config: stage breakdown, dominant stage and share; regimes, cost fits, precision, fix table.\n"
            "  --json            the same content as JSON on stdout (schema: docs/json.md)\n"
            "  --markdown        the text report's tables as Markdown\n"
            "  --html FILE       one self-contained HTML report (figures inline; needs gnuplot)\n"
            "  --figures DIR     also keep the figures (SVG + PNG + gnuplot scripts) in DIR\n"
            "  --sweep NAME      which sweep (default: the latest study, not its STUDY-fix sweep nor a superseded\n"
            "                    one); A,B reports several together\n"
            "  --stage-map FILE  pass->stage map (tool<TAB>glob<TAB>stage); repeatable; default: data/stages-*.tsv\n"
            "  --x AXIS, --y AXIS  the size and workload axes of a sweep over parameters (e.g. --x opt --y input):\n"
            "                    regime map, handoff x and series, fingerprint bars; default: the spec's [report]\n"
            "                    size / workload, else input and the first integer axis (handoff: a declared\n"
            "                    ir.* metric, else the cold wall, grows the compile)\n"
            "  --allow-contended the in-sweep A/B keeps the marks of configs whose runs were contended (load above\n"
            "                    the CPUs, or a tool below 0.75x its serial CPU/wall), marked contended; by default\n"
            "                    they read \"no conclusion (contended)\", as in passmap compare\n"
            "  data dir: $PASSMAP_DATA_DIR, else %s\n", pm_data_dir());
    cli_help_tail(out, "report", NULL);
}


/* One table in the chosen form (text fitted to width, or Markdown). */
static int put_table(pm_table *t, const char *title, int markdown, int width)
{
    if (!t)
        return PM_ERR_NOMEM;
    int rc;
    if (markdown) {
        printf("\n## %s\n\n", title);
        rc = pm_table_markdown(t, stdout);
    } else {
        printf("\n%s\n", title);
        rc = pm_table_text(t, stdout, width);
    }
    pm_table_free(t);
    return rc;
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

/* Method: the compiler identity, each tool build the runs used (older stores: none recorded). */
static void print_builds(const pm_analysis *a, int markdown)
{
    if (!a->n_builds) {
        printf("%stools: no identity recorded (a store written before passmap recorded each tool's path, "
               "--version and hash)\n", markdown ? "\n- " : "");
        return;
    }
    printf("%stools (resolved path, --version, XXH3-128 of the binary)%s:\n", markdown ? "\n" : "",
           a->mixed_builds ? ", more than one build of a tool" : ", one build each");
    for (size_t i = 0; i < a->n_builds; i++) {
        char v[200];
        const pm_tool_ident *t = &a->builds[i];
        printf("%s%-12s %s  %s  %s%s%s\n", markdown ? "- " : "  ", t->name, t->path,
               pm_version_line(t->version_text, v, sizeof v), t->hash[0] ? t->hash : "(binary unreadable)",
               t->host ? "  on " : "", t->host ? t->host : "");
    }
}

static int print_text(const pm_analysis *a, int markdown, const char *db_label)
{
    int width = cli_term_width(120);
    if (markdown)
        printf("# passmap report: %s\n\n", a->sweep ? a->sweep : "-");
    if (a->incomplete)   /* merge --partial: before anything that lacks the missing configs */
        printf("%s%s\n", markdown ? "**warning**: " : "warning: ", a->incomplete);
    pm_fix_report_text(stdout, a->fix_json);   /* the combination to ship heads the report */
    printf("sweep %s (%s): %zu configs, %d ok runs, %d failed, up to %d cold repeats\n", a->sweep ? a->sweep : "-",
           a->backend ? a->backend : "-", a->n_configs, a->n_runs_ok, a->n_runs_failed, a->max_repeats);
    print_builds(a, markdown);
    if (a->n_runs_no_report)   /* no report, no conclusion: say why beside the counts */
        printf("%s%d configs have no readable timing report (%d runs): %s; %s. They get no stage, regime or fix.\n",
               markdown ? "\n**warning**: " : "warning: ", a->n_configs_no_report, a->n_runs_no_report,
               a->no_report_note ? a->no_report_note : "the report could not be read", PM_AN_NO_REPORT_HINT);
    if (a->n_trace_runs)
        printf("%s%d runs read from Chrome traces: %s.\n", markdown ? "\n**granularity**: " : "granularity: ",
               a->n_trace_runs, PM_AN_TRACE_GRANULARITY);
    print_hosts(a);
    pm_rt_headline h;
    if (pm_rt_headline_build(a, &h)) {
        pm_rt_headline_free(&h);
        return PM_ERR_NOMEM;
    }
    printf(markdown ? "\n## Headline\n\n" : "\nheadline\n");
    for (int i = 0; i < h.n_dominant; i++)
        printf("%sdominant stage: %s\n", markdown ? "- " : "  ", h.dominant[i]);
    printf("%stop fix: %s\n%s%s\n%s%s\n", markdown ? "- " : "  ", h.fix, markdown ? "- " : "  ", h.ab,
           markdown ? "- " : "  ", h.cache);
    if (h.slowest)
        printf("%s%s\n", markdown ? "- " : "  ", h.slowest);
    pm_rt_headline_free(&h);
    if (a->n_ab || a->fix_json) {   /* every mark in the report (A/B, proven fixes) follows this one rule */
        char legend[2048];
        pm_rt_sig_legend(legend, sizeof legend, a);
        printf("%s%s\n", markdown ? "- " : "  ", legend);
    }
    int rc = PM_OK;
    pm_table *ab = pm_rt_ab(a);
    if (!ab)
        return PM_ERR_NOMEM;
    if (ab->n_rows)
        rc = put_table(ab, "A/B in this sweep (per config, by passmap compare)", markdown, width);
    else
        pm_table_free(ab);
    if (!rc)
        rc = put_table(pm_rt_configs(a, NULL), "configs (cold wall: geometric mean [its 95% interval's ends, relative], "
                                               "log scale; no interval below 3 repeats)", markdown, width);
    /* read beside the table, not only in the docs: what a key spells, and the stage that is no pass */
    char keys[768];
    pm_rt_key_legend(a, 0, keys, sizeof keys);
    if (!rc && keys[0])
        printf("%s%s\n", markdown ? "\n" : "", keys);
    if (!rc)
        printf("%s%s\n", markdown && !keys[0] ? "\n" : "", PM_RT_OVERHEAD_DEF);
    if (!rc)
        rc = put_table(pm_rt_stage_shares(a, NULL), "stage shares (of the cold compile wall)", markdown, width);
    char note[512];
    pm_rt_overhead_note(a, note, sizeof note);
    if (!rc && !note[0])
        rc = put_table(pm_rt_overhead(a, NULL), "process-overhead = start-up (each tool's median null-input run x "
                                                "its steps) + outside passes (the rest)", markdown, width);
    else if (!rc)
        printf("\n%s%s\n", markdown ? "- " : "", note);
    printf(markdown ? "\n## Regimes\n\n" : "\nregimes\n");
    size_t cells = 0;
    for (size_t r = 0; r < a->n_regimes; r++) {
        cells += a->regimes[r].n_cells;
        for (size_t i = 0; i < a->regimes[r].n_boundaries; i++)
            printf("%s%s: %s\n", markdown ? "- " : "  ", a->regimes[r].kind, a->regimes[r].boundaries[i]);
    }
    if (!cells)   /* say why instead of an empty section */
        printf("%snot applicable: no LLM (size x window), CNN (family x resolution) or two-axis configs "
               "(--x SIZE-AXIS --y WORKLOAD-AXIS, or [report] size/workload in the spec)\n", markdown ? "- " : "  ");
    if (!rc && a->n_fits)
        rc = put_table(pm_rt_fits(a), "cost = a * size^k (heavy passes)", markdown, width);
    if (!rc && pm_rt_fits_note(a))
        printf("%sfits: %s\n", markdown ? "- " : "", pm_rt_fits_note(a));
    char *handoff = pm_rt_handoff_text(a);
    if (!handoff)
        return PM_ERR_NOMEM;
    printf("\nhandoff: %s\n", handoff);
    free(handoff);
    for (size_t i = 0; i < a->n_crossovers; i++)
        printf("precision: %s\n", a->crossovers[i]);
    if (a->n_crossovers)   /* a median carries no mark: the tested comparison is the A/B table's */
        printf("precision: crossovers are medians of wall ratios over families and windows, not tests; the marks "
               "per config are in the A/B table (precision=...)\n");
    char noise[1024];
    pm_rt_noise_text(a, noise, sizeof noise);
    printf("\nnoise: %s: the fix table and the A/B marks (compare's rule) draw no conclusion from them\n", noise);
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->contended)
            continue;
        /* the reasons in compare's words (contention.h), so the two outputs name a contended config alike */
        pm_contention ev = {.load1 = c->load1, .cpu_ratio = c->cpu_ratio, .starved_tool = c->starved_tool,
                            .user_wall = c->user_wall, .psi_share = c->psi_share, .steal_share = c->steal_share};
        char why[256];
        int bits = pm_contention_judge(&ev, a->cpus, a->user_wall_baseline, NULL);
        pm_contention_text(bits, &ev, a->cpus, a->user_wall_baseline, why, sizeof why);
        printf("  contended: %s (%s", c->key, why);
        if (!(bits & PM_CONTENTION_LOAD) && !isnan(c->load1))
            printf("; load %.1f", c->load1);
        printf("; CV %.0f%%)\n", c->cv * 100);
    }
    if (!rc && a->n_startup)
        rc = put_table(pm_rt_startup(a), "start-up: each tool on a null input, once per sweep (serial baseline of "
                                         "its steps)", markdown, width);
    pm_rt_startup_contended_text(a, noise, sizeof noise);
    if (noise[0])
        printf("%s%s\n", markdown ? "- " : "warning: ", noise);
    if (!a->n_prec)
        printf("precision: not applicable: no LLM configs over several precisions in this sweep\n");
    if (!rc)
        rc = put_table(pm_rt_tools(a), "parallelism", markdown, width);
    if (!rc)
        rc = put_table(pm_rt_fixes(a), "fix table (per regime: proven fixes first, then the predicted ones whose "
                                       "rule holds; the same catalogue and rules as passmap fix)", markdown, width);
    pm_npu_report_text(a, stdout); /* NPU back end only: see npu_report.h */
    if (!rc && a->fix_json) {   /* the report ends with the proven ledger too, beside the evidence above */
        putchar('\n');
        pm_fix_report_text(stdout, a->fix_json);
    } else if (!rc) {
        printf("\n%sproven fixes: none measured yet. One command measures the predicted fixes (A/B against stock, "
               "output check, the compiled program's run time and size): passmap fix %s --budget 10m\n",
               markdown ? "- " : "", db_label ? db_label : "DB");
    }
    return rc;
}

/* The fix table's and the headline's fixes: passmap fix's own plan (its catalogue and rule matching) on this
 * analysis, so the report never proposes what `passmap fix --dry-run` would not plan. A store the plan cannot
 * be made from (an import without a stored spec, a back end without fixes) proposes nothing, and says why. */
static int propose_fixes(pm_analysis *a, const char *dbpath, int allow_contended, pm_err *err)
{
    json_t *plan = NULL;
    pm_err why = {0};
    int rc = pm_fix_propose(dbpath, a, allow_contended, &plan, &why);
    if (rc == PM_ERR_NOMEM)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc) {
        char none[sizeof why.msg + 32];
        snprintf(none, sizeof none, "%s", why.msg);
        plan = json_pack("{s:[], s:s}", "fixes", "none", none);
    }
    rc = plan ? pm_analysis_fix_words(a, plan, dbpath) : PM_ERR_NOMEM;
    json_decref(plan);
    return rc ? pm_err_set(err, PM_ERR_NOMEM, "out of memory") : PM_OK;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},      {"html", required_argument, NULL, 'H'},
        {"figures", required_argument, NULL, 'F'}, {"sweep", required_argument, NULL, 's'},
        {"stage-map", required_argument, NULL, 'm'},
        {"markdown", no_argument, NULL, 'M'},  {"x", required_argument, NULL, 'X'},
        {"y", required_argument, NULL, 'Y'},   {"help", no_argument, NULL, 'h'},
        {"allow-contended", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, markdown = 0, allow_contended = 0, c;
    const char *html = NULL, *figdir = NULL, *sweep = NULL, *x_axis = NULL, *y_axis = NULL;
    const char *maps[16];
    int n_maps = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hjMH:F:s:m:x:", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'C': allow_contended = 1; break;
        case 'M': markdown = 1; break;
        case 'H': html = optarg; break;
        case 'F': figdir = optarg; break;
        case 's': sweep = optarg; break;
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
    /* --html over a file the report reads would destroy it */
    int same = pm_util_refuse_same_file(html, dbpath, 1, "the database", &err);
    for (int i = 0; i < n_maps && !same; i++)
        same = pm_util_refuse_same_file(html, maps[i], 0, "the stage map", &err);
    if (same) {
        fprintf(stderr, "passmap report: %s\n", err.msg);
        return PM_EXIT_USAGE;
    }
    sqlite3 *db = NULL;
    pm_analysis *a = NULL;
    pm_figures figs = {0};
    pm_stagemap *map = pm_stagemap_new();
    if (!map) {
        fprintf(stderr, "passmap report: out of memory\n");
        return PM_EXIT_FAIL;
    }
    int rc = PM_OK;
    /* read-write in memory terms only: temp tables are used; the file itself is opened read-only (also in a
     * read-only folder). The same checks and words as show/trace: a missing file, not SQLite, not ours. */
    if ((rc = pm_store_open_sqlite_readonly(dbpath, &db, &err)))
        goto cleanup;
    for (int i = 0; i < n_maps && rc == PM_OK; i++)
        rc = pm_stagemap_load(map, maps[i], &err);
    if (!n_maps)
        rc = pm_stagemap_load_default(map, &err);
    if (rc)
        goto cleanup;
    /* mmap reads skip a copy per page on the one big scan; temp tables stay in memory */
    sqlite3_exec(db, "PRAGMA mmap_size=1073741824; PRAGMA temp_store=MEMORY;", NULL, NULL, NULL);
    pm_an_opts o = {.sweep = sweep, .map = map, .size_axis = x_axis, .workload_axis = y_axis};
    if ((rc = pm_analysis_run(db, &o, &a, &err))) {
        pm_err_wrap(&err, "%s", dbpath);   /* an SQL error alone does not say which file */
        goto cleanup;
    }
    if (a->n_runs_ok + a->n_runs_failed == 0) {   /* 85 lines of dashes and a headline would be a false study */
        rc = pm_err_set(&err, PM_ERR_NOTFOUND, "%s: sweep '%s' has no runs yet (passmap sweep SPEC.ini --db %s "
                        "measures it)", dbpath, a->sweep ? a->sweep : "-", dbpath);
        goto cleanup;
    }
    if ((rc = pm_fix_report_load(dbpath, a->sweep, &a->fix_json, &err)))
        goto cleanup;
    if ((rc = propose_fixes(a, dbpath, allow_contended, &err)))
        goto cleanup;
    if ((rc = pm_analysis_ab(a, dbpath, 0, allow_contended, &err)))
        goto cleanup;
    if (html || figdir) {
        if ((rc = pm_figures_render(a, figdir, &figs, &err)))
            goto cleanup;
    }
    if (html) {
        /* built in memory, then published: a regular file is replaced whole (temp + rename), a device or FIFO
         * written in place */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", html);
            goto cleanup;
        }
        pm_html_opts ho = {.db = db, .map = map};
        rc = pm_html_write(a, &figs, &ho, f, &err);
        if (fclose(f) && !rc)
            rc = pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", html);
        if (!rc)
            rc = pm_util_write_file_atomic(html, buf, len, 0644, NULL, &err);
        free(buf);
        if (rc)
            goto cleanup;
    }
    if (json) {
        json_t *j = pm_analysis_json(a);
        pm_json_stamp(j, "wall_s", "s", "warm_s", "s", "mean_s", "s", "share", "fraction (0..1) of the cold compile wall",
                      "shares", "fraction (0..1) of the cold compile wall", "dominant_share", "fraction (0..1)",
                      "cache_ratio", "cold wall / warm wall", "user_wall", "user CPU s / wall s", "exponent",
                      "k in time = a * size^k", "max_share", "fraction (0..1)", "window", "tokens", "resolution",
                      "pixels", NULL);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        putchar('\n');
        json_decref(j);
    } else if (!html || figdir || markdown) {
        if (print_text(a, markdown, dbpath)) {
            pm_err_set(&err, PM_ERR_IO, "writing the report");
            goto cleanup;
        }
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
