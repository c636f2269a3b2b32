/* passmap report DB: the study of a sweep (stage breakdown, regimes, fits, precision, fixes) as text,
 * JSON, or one self-contained HTML file with the figures. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis.h"
#include "backend.h"
#include "cli_opts.h"
#include "cmds.h"
#include "contention.h"
#include "store.h"
#include "store_compare.h"
#include "store_runs.h"
#include "figures.h"
#include "report.h"
#include "fix.h"
#include "fix_report.h"
#include "stagemap.h"
#include "store_runs.h"
#include "util.h"

static const cli_opt report_opts[] = {
    {"json", 'j', 1, NULL, "the same content as JSON on stdout (schema: docs/json.md)"},
    {"markdown", 'M', 1, NULL, "the text report's tables as Markdown"},
    {"html", 'H', 1, "FILE", "one self-contained HTML report (figures inline; needs gnuplot)"},
    {"figures", 'F', 1, "DIR", "also keep the figures (SVG + PNG + gnuplot scripts) in DIR"},
    {"sweep", 's', 1, "NAME", "which sweep (default: the latest study, not its STUDY-fix sweep nor a superseded\n"
                              "one); A,B reports several together"},
    {"stage-map", 'm', 1, "FILE", "pass->stage map (tool<TAB>glob<TAB>stage); repeatable; default: data/stages-*.tsv"},
    {"x", 'X', 0, "AXIS", "the size axis of a sweep over parameters (e.g. --x opt): regime map, handoff x,\n"
                          "fingerprint bars; default: the spec's [report] size, else the first integer axis\n"
                          "(handoff: a declared ir.* metric, else the cold wall, grows the compile)"},
    {"y", 'Y', 0, "AXIS", "the workload axis (e.g. --y input): the series; default: the spec's [report]\n"
                          "workload, else input"},
    {"allow-contended", 'C', 0, NULL, "the in-sweep A/B keeps the marks of configs whose runs were contended (the\n"
                                      "rule below), marked contended; by default they read \"no conclusion\n"
                                      "(contended)\", as in passmap compare"},
    {0},
};
static void report_notes(FILE *out)
{
    char rule[512];
    pm_contention_rule_text(rule, sizeof rule, 0);
    fprintf(out, "Contended runs: %s.\n", rule);
    fprintf(out, "data dir: $PASSMAP_DATA_DIR, else %s\n", pm_data_dir());
}
static const cli_cmd report_cmd = {
    .name = "report",
    .synopsis = "DB [--json | --markdown] [--html FILE] [--figures DIR] [--sweep NAME]\n"
                "[--stage-map FILE]... [--x SIZE-AXIS] [--y WORKLOAD-AXIS] [--allow-contended]",
    .about = "Per config: stage breakdown, dominant stage and share; regimes, cost fits, precision, fix table.",
    .opts = report_opts,
    .notes_fn = report_notes,
};


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

/* pm_study_run's hook: what passmap fix adds to the study (the proven-fix ledger, the proposed fixes). */
static int add_fixes(pm_analysis *a, const char *dbpath, int allow_contended, void *user, pm_err *err)
{
    (void)user;
    int rc = pm_fix_report_load(dbpath, a->sweep, &a->fixes.proven_json, err);
    return rc ? rc : propose_fixes(a, dbpath, allow_contended, err);
}

int cmd_report(int argc, char **argv)
{
    int json = 0, markdown = 0, allow_contended = 0, c;
    const char *html = NULL, *figdir = NULL, *sweep = NULL, *x_axis = NULL, *y_axis = NULL;
    const char *maps[16];
    int n_maps = 0;
    optind = 1;
    while ((c = cli_getopt(&report_cmd, argc, argv)) != -1) {
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
        case CLI_HELP: cli_usage(stdout, &report_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&report_cmd);
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
    if ((rc = pm_store_open_report(dbpath, &db, &err)))
        goto cleanup;
    for (int i = 0; i < n_maps && rc == PM_OK; i++)
        rc = pm_stagemap_load(map, maps[i], &err);
    if (!n_maps)
        rc = pm_stagemap_load_default(map, &err);
    if (rc)
        goto cleanup;
    pm_an_opts o = {.sweep = sweep, .map = map, .size_axis = x_axis, .workload_axis = y_axis,
                    .fit_sizes_of = pm_backend_fit_sizes_of, .db_path = dbpath, .allow_contended = allow_contended,
                    .add_fixes = add_fixes};
    if ((rc = pm_study_run(db, &o, &a, &err)))
        goto cleanup;
    /* the formats asked for: --html FILE, and on stdout JSON, Markdown or text (text unless only --html) */
    const pm_report_format *page = html ? pm_report_format_find("html") : NULL;
    const pm_report_format *out = pm_report_format_find(json ? "json" : markdown ? "markdown" : "text");
    if (!json && !markdown && html && !figdir)
        out = NULL;
    if ((page && page->needs_figures) || (out && out->needs_figures) || figdir) {
        if ((rc = pm_figures_render(a, figdir, &figs, &err)))
            goto cleanup;
    }
    pm_report_ctx x = {.a = a, .figs = &figs, .db = db, .map = map, .db_label = dbpath,
                       .width = cli_term_width(120)};
    if (page) {
        /* built in memory, then published: a regular file is replaced whole (temp + rename), a device or FIFO
         * written in place */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", html);
            goto cleanup;
        }
        rc = page->write(&x, f, &err);
        if (fclose(f) && !rc)
            rc = pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", html);
        if (!rc)
            rc = pm_util_write_file_atomic(html, buf, len, 0644, NULL, &err);
        free(buf);
        if (rc)
            goto cleanup;
    }
    if (out && (rc = out->write(&x, stdout, &err)))
        goto cleanup;
    ret = PM_EXIT_OK;
cleanup:
    if (ret != PM_EXIT_OK)
        fprintf(stderr, "passmap report: %s\n", err.msg[0] ? err.msg : "failed");
    pm_figures_free(&figs);
    pm_analysis_free(a);
    pm_stagemap_free(map);
    pm_store_db_close(db);
    return ret;
}
