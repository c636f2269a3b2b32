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

/* What the options say, each row binding its field. */
typedef struct report_cli {
    int json, markdown, allow_contended;
    const char *html, *figdir, *sweep, *x_axis, *y_axis;
    cli_list maps;
} report_cli;

/* clang-format off */
static const cli_opt report_opts[] = {
    {"json", 'j', 1, NULL, "the same content as JSON on stdout (schema: docs/json.md)", CLI_BIND_FLAG(report_cli, json)},
    {"markdown", 'M', 1, NULL, "the text report's tables as Markdown", CLI_BIND_FLAG(report_cli, markdown)},
    {"html", 'H', 1, "FILE", "one self-contained HTML report (figures inline; needs gnuplot)",
     CLI_BIND_STR(report_cli, html)},
    {"figures", 'F', 1, "DIR", "also keep the figures (SVG + PNG + gnuplot scripts) in DIR",
     CLI_BIND_STR(report_cli, figdir)},
    {"sweep", 's', 1, "NAME", "which sweep (default: the latest study, not its STUDY-fix sweep nor a superseded\n"
                              "one); A,B reports several together", CLI_BIND_STR(report_cli, sweep)},
    {"stage-map", 'm', 1, "FILE", "pass->stage map (tool<TAB>glob<TAB>stage); repeatable; default: data/stages-*.tsv",
     CLI_BIND_LIST(report_cli, maps)},
    {"x", 'X', 0, "AXIS", "the size axis of a sweep over parameters (e.g. --x opt): regime map, handoff x,\n"
                          "fingerprint bars; default: the spec's [report] size, else the first integer axis\n"
                          "(handoff: a declared ir.* metric, else the cold wall, grows the compile)",
     CLI_BIND_STR(report_cli, x_axis)},
    {"y", 'Y', 0, "AXIS", "the workload axis (e.g. --y input): the series; default: the spec's [report]\n"
                          "workload, else input", CLI_BIND_STR(report_cli, y_axis)},
    {"allow-contended", 'C', 0, NULL, "the in-sweep A/B keeps the marks of configs whose runs were contended (the\n"
                                      "rule below), marked contended; by default they read \"no conclusion\n"
                                      "(contended)\", as in passmap compare", CLI_BIND_FLAG(report_cli, allow_contended)},
    {0},
};
/* clang-format on */
static void report_notes(FILE *out)
{
    cli_contended_notes(out);
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

/* The report of the database operand with the options o. */
static int report_run(const report_cli *cli, int argc, char **argv)
{
    if (cli_one_db(&report_cmd, argc) != CLI_GO)
        return PM_EXIT_USAGE;
    const char *dbpath = argv[optind];
    int ret = PM_EXIT_FAIL;
    pm_err err = {0};
    /* --html over a file the report reads would destroy it */
    int same = pm_util_refuse_same_file(cli->html, dbpath, 1, "the database", &err);
    for (size_t i = 0; i < cli->maps.n && !same; i++)
        same = pm_util_refuse_same_file(cli->html, cli->maps.v[i], 0, "the stage map", &err);
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
    for (size_t i = 0; i < cli->maps.n && rc == PM_OK; i++)
        rc = pm_stagemap_load(map, cli->maps.v[i], &err);
    if (!cli->maps.n)
        rc = pm_stagemap_load_default(map, &err);
    if (rc)
        goto cleanup;
    pm_an_opts o = {.sweep = cli->sweep,
                    .map = map,
                    .size_axis = cli->x_axis,
                    .workload_axis = cli->y_axis,
                    .fit_sizes_of = pm_backend_fit_sizes_of,
                    .db_path = dbpath,
                    .allow_contended = cli->allow_contended,
                    .add_fixes = add_fixes};
    if ((rc = pm_study_run(db, &o, &a, &err)))
        goto cleanup;
    /* the formats asked for: --html FILE, and on stdout JSON, Markdown or text (text unless only --html) */
    const pm_report_format *page = cli->html ? pm_report_format_find("html") : NULL;
    const pm_report_format *out = pm_report_format_find(cli->json ? "json" : cli->markdown ? "markdown" : "text");
    if (!cli->json && !cli->markdown && cli->html && !cli->figdir)
        out = NULL;
    if ((page && page->needs_figures) || (out && out->needs_figures) || cli->figdir) {
        if ((rc = pm_figures_render(a, cli->figdir, &figs, &err)))
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
            pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", cli->html);
            goto cleanup;
        }
        rc = page->write(&x, f, &err);
        if (fclose(f) && !rc)
            rc = pm_err_errno(&err, PM_ERR_IO, "out of memory for %s", cli->html);
        if (!rc)
            rc = pm_util_write_file_atomic(cli->html, buf, len, 0644, NULL, &err);
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

int cmd_report(int argc, char **argv)
{
    report_cli o = {0};
    int ret = cli_parse_args(&report_cmd, argc, argv, &o, NULL);
    if (ret == CLI_GO)
        ret = report_run(&o, argc, argv);
    cli_list_free(&o.maps);
    return ret;
}
