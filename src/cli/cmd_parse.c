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
#include "passcount.h"

/* What the options say, each row binding its field. */
typedef struct parse_cli {
    pm_cli_import_opts store;   /* --db: each FILE stored (its --format and --quiet too) */
    int json, all, tree, top;
    const char *callgrind;
} parse_cli;

/* clang-format off */
static const cli_opt parse_opts[] = {
    {"format", 'f', 1, "NAME", "{formats} (default: sniff)", CLI_BIND_FN(parse_cli, store.format, cli_format)},
    {"json", 'j', 1, NULL, "machine-readable: {format, n_reports, total_wall_s, pass_wall_s, passes:[...]},\n"
                           "every row in report order with its flags", CLI_BIND_FLAG(parse_cli, json)},
    {"all", 'a', 1, NULL, "also show group (g), summary (s) and detail (d) rows; a = analysis",
     CLI_BIND_FLAG(parse_cli, all)},
    {"tree", 't', 1, NULL, "report order with indentation instead of sorting by wall time",
     CLI_BIND_FLAG(parse_cli, tree)},
    {"top", 'n', 1, "N", "show only the N largest rows", CLI_BIND_FN(parse_cli, top, cli_positive_int)},
    {"callgrind", 0, 0, "OUT", "per-pass instruction counts: a callgrind.out of the same compile, matched to\n"
                               "the FILEs' pass names (docs/meters.md); --tool picks data/pass-symbols.tsv's rows",
     CLI_BIND_STR(parse_cli, callgrind)},
    {"", 0, 0, NULL, "Storing (each FILE becomes one run, one step, in a results database; was `passmap import`):"},
    {"db", 0, 0, "FILE", "results database (created when missing): store, print one line per FILE",
     CLI_BIND_STR(parse_cli, store.db)},
    {"sweep", 0, 0, "NAME", "sweep to record into (default: imported)", CLI_BIND_STR(parse_cli, store.sweep)},
    {"config", 0, 0, "KEY", "config key (default: the report file's name)", CLI_BIND_STR(parse_cli, store.config)},
    {"tool", 0, 0, "NAME", "the compiler that printed the report (default: by format: mlir-opt, llc ...)",
     CLI_BIND_STR(parse_cli, store.tool)},
    {"mode", 0, 0, "NAME", "run mode recorded: cold, cache-miss or warm (default: cold)",
     CLI_BIND_FN(parse_cli, store.mode, pm_cli_run_mode)},
    {"quiet", 0, 0, NULL, "with --db: print nothing on success", CLI_BIND_FLAG(parse_cli, store.quiet)},
    {0},
};
/* clang-format on */
static const cli_cmd parse_cmd = {
    .name = "parse",
    .synopsis = "[--format NAME] [--json] [--all] [--tree] [--top N] FILE...\n"
                "passmap parse --callgrind OUT [--tool NAME] [--json] FILE...\n"
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

/* --callgrind: the per-pass counts beside the report's wall, then coverage and why each uncounted pass is not. */
static void print_counts_table(const pm_report *r, const pm_passcount *pc)
{
    printf("%-56s %10s %16s %7s  %s\n", "pass", "wall_s", "instructions", "%total", "how");
    for (size_t i = 0; i < pc->n; i++) {
        const pm_pass_count *c = &pc->rows[i];
        const pm_pass *p = &r->passes[c->pass];
        if (c->count < 0)
            continue;
        printf("%-56s %10.4f %16lld %6.1f%%  %s\n", p->name, p->wall_s, (long long)c->count,
               pc->total ? 100.0 * (double)c->count / (double)pc->total : 0.0, c->how);
    }
    size_t missing = 0;
    for (size_t i = 0; i < pc->n; i++)
        missing += pc->rows[i].count < 0;
    if (missing) {
        printf("\nnot counted (%zu):\n", missing);
        for (size_t i = 0; i < pc->n; i++)
            if (pc->rows[i].count < 0)
                printf("  %-54s %10.4f  %s\n", r->passes[pc->rows[i].pass].name, r->passes[pc->rows[i].pass].wall_s,
                       pc->rows[i].why);
    }
    printf("\nmeter callgrind (%s boundaries): %llu instructions in the run; counted passes %llu (%.1f%% of the "
           "run", pc->mechanism, (unsigned long long)pc->total, (unsigned long long)pc->counted,
           pc->total ? 100.0 * (double)pc->counted / (double)pc->total : 0.0);
    if (pc->timed != pc->counted)
        printf(", %.1f%% of what ran inside timers", pc->timed ? 100.0 * (double)pc->counted / (double)pc->timed : 0.0);
    printf("); they hold %.1f%% of the report's per-pass wall\n",
           pc->wall_s > 0 ? 100.0 * pc->wall_counted_s / pc->wall_s : 0.0);
}

static int print_counts_json(const pm_report *r, const pm_passcount *pc)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "meter", json_string("callgrind"));
    json_object_set_new(root, "mechanism", json_string(pc->mechanism));
    json_object_set_new(root, "total_instructions", json_integer((json_int_t)pc->total));
    json_object_set_new(root, "counted_instructions", json_integer((json_int_t)pc->counted));
    json_object_set_new(root, "timed_instructions", json_integer((json_int_t)pc->timed));
    json_object_set_new(root, "pass_wall_s", json_real(pc->wall_s));
    json_object_set_new(root, "counted_wall_s", json_real(pc->wall_counted_s));
    for (size_t i = 0; i < pc->n; i++) {
        const pm_pass_count *c = &pc->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(r->passes[c->pass].name));
        json_object_set_new(o, "wall_s", json_real(r->passes[c->pass].wall_s));
        json_object_set_new(o, "instructions", c->count >= 0 ? json_integer((json_int_t)c->count) : json_null());
        json_object_set_new(o, "how", c->how ? json_string(c->how) : json_null());
        json_object_set_new(o, "source", c->source ? json_string(c->source) : json_null());
        json_object_set_new(o, "why_not", c->why ? json_string(c->why) : json_null());
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "passes", arr);
    pm_json_stamp(root, "pass_wall_s", "s", "counted_wall_s", "s", "wall_s", "s", NULL);
    int rc = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) == 0 ? PM_EXIT_OK : PM_EXIT_FAIL;
    fputc('\n', stdout);
    json_decref(root);
    return rc;
}

static int print_counts(const pm_report *r, const char *cg_path, const char *tool, int json)
{
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_cgmap *map = pm_cgmap_new();
    pm_passcount pc = {0};
    pm_err err;
    pm_err_clear(&err);
    int rc = PM_EXIT_FAIL;
    if (!map) {
        fprintf(stderr, "passmap parse: out of memory\n");
        goto cleanup;
    }
    if (pm_cgmap_load_default(map, &err) != PM_OK || pm_callgrind_parse_file(cg_path, &cg, &err) != PM_OK ||
        pm_passcount_compute(&cg, r, map, tool, &pc, &err) != PM_OK) {
        fprintf(stderr, "passmap parse: %s\n", err.msg);
        goto cleanup;
    }
    if (json) {
        rc = print_counts_json(r, &pc);
    } else {
        print_counts_table(r, &pc);
        rc = PM_EXIT_OK;
    }
cleanup:
    pm_passcount_free(&pc);
    pm_cgmap_free(map);
    pm_callgrind_free(&cg);
    return rc;
}

int cmd_parse(int argc, char **argv)
{
    parse_cli cli = {.store = {.format = PM_FMT_AUTO}};
    int c = cli_parse_args(&parse_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_cli_import_opts store = cli.store;
    pm_format fmt = store.format;
    int json = cli.json, all = cli.all, tree = cli.tree, quiet = store.quiet;
    long top = cli.top;
    const char *callgrind = cli.callgrind;
    if (store.db && (json || all || tree || top)) {
        fprintf(stderr, "passmap parse: --db stores the reports; --json, --all, --tree and --top print them: one or the "
                        "other\n");
        return PM_EXIT_USAGE;
    }
    if (store.db && callgrind) {
        fprintf(stderr, "passmap parse: --db stores the reports; --callgrind prints their counts: one or the other\n");
        return PM_EXIT_USAGE;
    }
    if (callgrind && (all || tree || top)) {
        fprintf(stderr, "passmap parse: --callgrind prints every counted pass; --all, --tree and --top do not apply\n");
        return PM_EXIT_USAGE;
    }
    if (!store.db && (store.sweep || store.config || (store.tool && !callgrind) || store.mode || quiet)) {
        fprintf(stderr, "passmap parse: --sweep, --config, --tool, --mode and --quiet go with --db FILE (--tool also "
                        "with --callgrind)\n");
        return PM_EXIT_USAGE;
    }
    if (store.db && optind < argc)
        return pm_cli_import("parse", &store, argc - optind, argv + optind);
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
    if (callgrind)
        rc = print_counts(&r, callgrind, store.tool, json);
    else
        rc = json ? print_json(&r) : print_table(&r, all, tree, top);
cleanup:
    pm_report_free(&r);
    return rc;
}
