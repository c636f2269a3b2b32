/* passmap parse: reads timing reports (MLIR, LLVM, Chrome trace, NPU) and prints the per-pass table. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "parse.h"

static const cli_opt parse_opts[] = {
    {"format", 'f', 1, "NAME", "{formats} (default: sniff)"},
    {"json", 'j', 1, NULL, "machine-readable: {format, n_reports, total_wall_s, pass_wall_s, passes:[...]},\n"
                           "every row in report order with its flags"},
    {"all", 'a', 1, NULL, "also show group (g), summary (s) and detail (d) rows; a = analysis"},
    {"tree", 't', 1, NULL, "report order with indentation instead of sorting by wall time"},
    {"top", 'n', 1, "N", "show only the N largest rows"},
    {"", 0, 0, NULL, "Storing (each FILE becomes one run, one step, in a results database; was `passmap import`):"},
    {"db", 'd', 0, "FILE", "results database (created when missing): store, print one line per FILE"},
    {"sweep", 's', 0, "NAME", "sweep to record into (default: imported)"},
    {"config", 'c', 0, "KEY", "config key (default: the report file's name)"},
    {"tool", 'T', 0, "NAME", "the compiler that printed the report (default: by format: mlir-opt, llc ...)"},
    {"mode", 'm', 0, "NAME", "run mode recorded: cold, cache-miss or warm (default: cold)"},
    {"quiet", 'q', 0, NULL, "with --db: print nothing on success"},
    {0},
};
static const cli_cmd parse_cmd = {
    .name = "parse",
    .synopsis = "[--format NAME] [--json] [--all] [--tree] [--top N] FILE...\n"
                "passmap parse --db FILE [--sweep NAME] [--config KEY] [--tool NAME] [--mode NAME] [--quiet]\n"
                "[--format NAME] REPORT...",
    .about = "Reads per-pass timing reports (mlir-opt --mlir-timing, llc/opt -time-passes, Chrome traces, NPU\n"
             "logs) and prints one table over all FILEs, sorted by wall time. With --db: records each file as one\n"
             "run of the database instead (what `passmap import` did).",
    .opts = parse_opts,
};

static const pm_report *sort_report; /* qsort has no context argument in C11 */

static int by_wall_desc(const void *a, const void *b)
{
    double x = sort_report->passes[*(const size_t *)a].wall_s, y = sort_report->passes[*(const size_t *)b].wall_s;
    if (x != y)
        return x > y ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void flag_string(unsigned f, char out[6])
{
    int n = 0;
    if (f & PM_PASS_GROUP)
        out[n++] = 'g';
    if (f & PM_PASS_ANALYSIS)
        out[n++] = 'a';
    if (f & PM_PASS_SUMMARY)
        out[n++] = 's';
    if (f & PM_PASS_DETAIL)
        out[n++] = 'd';
    if (f & PM_PASS_PIPELINE)
        out[n++] = 'p';
    out[n] = '\0';
}

static int print_json(const pm_report *r)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "format", json_string(pm_format_name(r->format)));
    json_object_set_new(root, "n_reports", json_integer(r->n_reports));
    json_object_set_new(root, "total_wall_s", r->total_wall_s >= 0 ? json_real(r->total_wall_s) : json_null());
    json_object_set_new(root, "total_user_s", r->total_user_s >= 0 ? json_real(r->total_user_s) : json_null());
    json_object_set_new(root, "pass_wall_s", json_real(pm_report_pass_wall(r)));
    for (size_t i = 0; i < r->n_passes; i++) {
        const pm_pass *p = &r->passes[i];
        char fl[6];
        flag_string(p->flags, fl);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "section", p->section ? json_string(p->section) : json_null());
        json_object_set_new(o, "wall_s", json_real(p->wall_s));
        json_object_set_new(o, "user_s", p->user_s >= 0 ? json_real(p->user_s) : json_null());
        json_object_set_new(o, "depth", json_integer(p->depth));
        json_object_set_new(o, "parent", json_integer(p->parent));
        json_object_set_new(o, "report", json_integer(p->report_index));
        json_object_set_new(o, "flags", json_string(fl));
        json_object_set_new(o, "counted",
                            json_boolean(!(p->flags & (PM_PASS_GROUP | PM_PASS_SUMMARY | PM_PASS_DETAIL))));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "passes", arr);
    json_t *metrics = json_object();
    for (size_t i = 0; i < r->n_metrics; i++)
        json_object_set_new(metrics, r->metrics[i].name, json_real(r->metrics[i].value));
    json_object_set_new(root, "metrics", metrics);
    pm_json_stamp(root, "total_wall_s", "s", "total_user_s", "s", "pass_wall_s", "s", "wall_s", "s", "user_s", "s",
                  NULL);
    int rc = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) == 0 ? PM_EXIT_OK : PM_EXIT_FAIL;
    fputc('\n', stdout);
    json_decref(root);
    return rc;
}

static int print_table(const pm_report *r, int all, int tree, long top)
{
    size_t *idx = malloc((r->n_passes + 1) * sizeof *idx), n = 0;
    if (!idx) {
        fprintf(stderr, "passmap parse: out of memory\n");
        return PM_EXIT_FAIL;
    }
    for (size_t i = 0; i < r->n_passes; i++)
        if (all || pm_pass_counted(&r->passes[i]))
            idx[n++] = i;
    if (!tree) {
        sort_report = r;
        qsort(idx, n, sizeof *idx, by_wall_desc);
    }
    if (top > 0 && (size_t)top < n)
        n = (size_t)top;
    double total = r->total_wall_s > 0 ? r->total_wall_s : pm_report_pass_wall(r);
    printf("%-56s %10s %10s %7s %5s\n", "pass", "wall_s", "user_s", "%total", "flags");
    for (size_t k = 0; k < n; k++) {
        const pm_pass *p = &r->passes[idx[k]];
        char fl[6], user[16], name[256];
        flag_string(p->flags, fl);
        if (p->user_s >= 0)
            snprintf(user, sizeof user, "%10.4f", p->user_s);
        else
            snprintf(user, sizeof user, "%10s", "-");
        snprintf(name, sizeof name, "%*s%s", tree ? 2 * p->depth : 0, "", p->name);
        printf("%-56s %10.4f %s %6.1f%% %5s\n", name, p->wall_s, user, total > 0 ? 100.0 * p->wall_s / total : 0.0,
               fl);
    }
    size_t counted = 0;
    for (size_t i = 0; i < r->n_passes; i++)
        counted += !(r->passes[i].flags & (PM_PASS_GROUP | PM_PASS_SUMMARY | PM_PASS_DETAIL));
    char tot[32];
    if (r->total_wall_s >= 0)
        snprintf(tot, sizeof tot, "%.4f s", r->total_wall_s);
    else
        snprintf(tot, sizeof tot, "absent");
    printf("format %s, %d report(s): total %s, per-pass sum %.4f s over %zu passes\n", pm_format_name(r->format),
           r->n_reports, tot, pm_report_pass_wall(r), counted);
    if (r->n_metrics) {
        printf("%smetrics\n", n ? "\n" : "");
        for (size_t m = 0; m < r->n_metrics; m++)
            printf("  %-40s %.6g\n", r->metrics[m].name, r->metrics[m].value);
    }
    free(idx);
    return PM_EXIT_OK;
}

int cmd_parse(int argc, char **argv)
{
    pm_format fmt = PM_FMT_AUTO;
    int json = 0, all = 0, tree = 0, quiet = 0;
    long top = 0;
    int c;
    pm_cli_import_opts store = {.format = PM_FMT_AUTO};
    optind = 1;
    while ((c = cli_getopt(&parse_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'f':
            fmt = pm_format_from_name(optarg);
            if (fmt == PM_FMT__COUNT) {
                fprintf(stderr, "passmap parse: unknown format '%s' (try --help)\n", optarg);
                return PM_EXIT_USAGE;
            }
            break;
        case 'j': json = 1; break;
        case 'a': all = 1; break;
        case 't': tree = 1; break;
        case 'n': {
            char *e;
            errno = 0;
            top = strtol(optarg, &e, 10);
            if (*e || e == optarg || errno || top <= 0) {
                fprintf(stderr, "passmap parse: --top needs a positive number, not '%s'\n", optarg);
                return PM_EXIT_USAGE;
            }
            break;
        }
        case 'd': store.db = optarg; break;
        case 's': store.sweep = optarg; break;
        case 'c': store.config = optarg; break;
        case 'T': store.tool = optarg; break;
        case 'm':
            if (pm_cli_mode_check("parse", optarg))
                return PM_EXIT_USAGE;
            store.mode = optarg;
            break;
        case 'q': quiet = 1; break;
        case CLI_HELP: cli_usage(stdout, &parse_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&parse_cmd);
        }
    }
    if (store.db && (json || all || tree || top)) {
        fprintf(stderr, "passmap parse: --db stores the reports; --json, --all, --tree and --top print them: one or the "
                        "other\n");
        return PM_EXIT_USAGE;
    }
    if (!store.db && (store.sweep || store.config || store.tool || store.mode || quiet)) {
        fprintf(stderr, "passmap parse: --sweep, --config, --tool, --mode and --quiet go with --db FILE\n");
        return PM_EXIT_USAGE;
    }
    if (store.db && optind < argc) {
        store.format = fmt;
        store.quiet = quiet;
        return pm_cli_import("parse", &store, argc - optind, argv + optind);
    }
    if (optind >= argc) {
        fprintf(stderr, "passmap parse: no FILE given (try --help)\n");
        return PM_EXIT_USAGE;
    }
    pm_report r;
    pm_report_init(&r);
    int rc = PM_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        pm_err err;
        pm_err_clear(&err);
        size_t skipped = r.n_skipped;
        if (pm_parse_file(argv[i], fmt, &r, &err) != PM_OK) {
            fprintf(stderr, "passmap parse: %s\n", err.msg);
            rc = PM_EXIT_FAIL;
            goto cleanup;
        }
        if (r.n_skipped > skipped)   /* rows left out are said, never dropped silently */
            fprintf(stderr, "passmap parse: warning: %s: %zu row%s not read (%s%s)\n", argv[i], r.n_skipped - skipped,
                    r.n_skipped - skipped == 1 ? "" : "s", skipped ? "" : "the first: ",
                    skipped ? "malformed" : r.skipped_first);
    }
    size_t counted = 0;
    for (size_t i = 0; i < r.n_passes; i++)
        counted += pm_pass_counted(&r.passes[i]) != 0;
    if (counted == 0 && r.n_metrics == 0) {
        /* rows that are all groups, summaries or breakdowns: a table of 0 passes is no result */
        fprintf(stderr, "passmap parse: no counted pass in %d report(s) (%zu rows, all group/summary/detail; "
                        "--all lists them with --json)\n", r.n_reports, r.n_passes);
        if (json)
            print_json(&r);
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    rc = json ? print_json(&r) : print_table(&r, all, tree, top);
cleanup:
    pm_report_free(&r);
    return rc;
}
