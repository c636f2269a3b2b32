/* passmap gate BASELINE DB: a CI gate on compile time (lib/study/gate.h; docs/regressions.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"
#include "gate.h"
#include "gate_out.h"
#include "json_out.h"
#include "util.h"

/* The gate's own statuses: distinct from each other and stable, so a CI script can branch on them. */
enum { GATE_EXIT_ERROR = 4 };

/* What the options say, each row binding its field. */
typedef struct gate_cli {
    pm_gate_opts o;
    const char *junit;
    const pm_gate_annot_style *annot;
    int json;
} gate_cli;

/* --annotations: a style row's name. */
static int annot_style(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if ((*(const pm_gate_annot_style **)field = pm_gate_annot_style_find(arg)))
        return 0;
    char names[128];
    pm_gate_annot_style_names(names, sizeof names);
    return cli_refuse(cmd, "--%s takes one of %s, not '%s'", o->name, names, arg);
}

/* clang-format off */
static const cli_opt gate_opts[] = {
    {"baseline-sweep", 0, 0, "NAME", "the baseline store's sweep (needed when it holds several)",
     CLI_BIND_STR(gate_cli, o.baseline_sweep)},
    {"sweep", 0, 0, "NAME", "the sweep of DB (needed when it holds several)", CLI_BIND_STR(gate_cli, o.sweep)},
    {"threshold", 0, 0, "X", "practical threshold on |ratio - 1| (default 2%)",
     CLI_BIND_FN(gate_cli, o.threshold, cli_threshold)},
    {"fail-on-win", 0, 0, NULL, "a config faster than the baseline fails too (keeps the baseline current)",
     CLI_BIND_FLAG(gate_cli, o.fail_on_win)},
    {"allow-contended", 0, 0, NULL, "keep the verdicts of contended configs, marked (compare's option)",
     CLI_BIND_FLAG(gate_cli, o.allow_contended)},
    {"json", 0, 0, NULL, "everything as JSON on stdout", CLI_BIND_FLAG(gate_cli, json)},
    {"junit", 0, 0, "FILE", "also write JUnit XML to FILE (a testcase per config)", CLI_BIND_STR(gate_cli, junit)},
    {"annotations", 0, 0, "STYLE", "also print one CI annotation line per finding: github, azure or plain",
     CLI_BIND_FN(gate_cli, annot, annot_style)},
    {0},
};
/* clang-format on */
static const cli_cmd gate_cmd = {
    .name = "gate",
    .synopsis = "BASELINE DB [options]",
    .about = "Compares the sweep in DB with BASELINE (a results database, or a file from `passmap baseline`)\n"
             "by compare's rule (ratio of geometric means with a simultaneous 95% interval against the\n"
             "threshold) and exits with what it concluded. A config, step or pass slower than the baseline\n"
             "past the threshold fails the gate; faster ones are reported as wins (--fail-on-win fails them\n"
             "too, so an improvement gets into the baseline before it hides the next regression). A config\n"
             "that cannot be concluded on (undecided, n < 3, below resolution, contended, on one side only,\n"
             "or its steps differ from the baseline's) makes the gate inconclusive unless something failed.\n"
             "The compiler builds of both sides are named. docs/regressions.md has the details.",
    .opts = gate_opts,
    .notes = "Exit statuses are stable: scripts may rely on them.",
    .exit_status = "0 pass, 1 fail (slower; or faster with --fail-on-win), 2 bad usage, 3 inconclusive\n"
                   "(nothing failed, some config not concluded on), 4 a database or baseline unreadable or an\n"
                   "output not written",
    .own_words = 1,
};

static int fill_junit(FILE *f, const void *r, pm_err *err)
{
    return pm_gate_write_junit(f, r, err);
}

int cmd_gate(int argc, char **argv)
{
    gate_cli cli = {0};
    int c = cli_parse_args(&gate_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_gate_opts opts = cli.o;
    const char *junit = cli.junit;
    const pm_gate_annot_style *annot = cli.annot;
    int json = cli.json;
    if (argc - optind != 2)
        return cli_usage_error(&gate_cmd, "needs a BASELINE and a DB", NULL);
    if (json && annot)
        return cli_usage_error(&gate_cmd, "--json and --annotations both write stdout: give one", NULL);
    opts.baseline = argv[optind];
    opts.path = argv[optind + 1];
    pm_gate_result r;
    pm_err err = {0};
    if (pm_gate_run(&opts, &r, &err) != PM_OK) {
        fprintf(stderr, "passmap gate: %s\n", err.msg);
        return GATE_EXIT_ERROR;
    }
    int status = (int)r.outcome;
    if (annot && pm_gate_write_annotations(stdout, &r, annot) != PM_OK)
        status = GATE_EXIT_ERROR;
    if (json) {
        json_t *root = pm_gate_to_json(&r);
        pm_json_stamp(root, "*_s", "s", "ratio", "sweep / baseline (1 = equal; geometric means)", NULL);
        if (cli_print_json(root, "gate") != PM_EXIT_OK)
            status = GATE_EXIT_ERROR;
    } else if (pm_gate_write_text(stdout, &r, cli_term_width(0), &err) != PM_OK) {
        fprintf(stderr, "passmap gate: %s\n", err.msg);
        status = GATE_EXIT_ERROR;
    }
    if (junit && cli_publish(junit, fill_junit, &r, &err) != PM_OK) {
        fprintf(stderr, "passmap gate: %s\n", err.msg);
        status = GATE_EXIT_ERROR;
    }
    pm_gate_free(&r);
    return status;
}
