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

enum { O_BSWEEP = 256, O_SWEEP, O_THRESH, O_WIN, O_ALLOW, O_JSON, O_JUNIT, O_ANNOT };
static const cli_opt gate_opts[] = {
    {"baseline-sweep", O_BSWEEP, 0, "NAME", "the baseline store's sweep (needed when it holds several)"},
    {"sweep", O_SWEEP, 0, "NAME", "the sweep of DB (needed when it holds several)"},
    {"threshold", O_THRESH, 0, "X", "practical threshold on |ratio - 1| (default 2%)"},
    {"fail-on-win", O_WIN, 0, NULL, "a config faster than the baseline fails too (keeps the baseline current)"},
    {"allow-contended", O_ALLOW, 0, NULL, "keep the verdicts of contended configs, marked (compare's option)"},
    {"json", O_JSON, 0, NULL, "everything as JSON on stdout"},
    {"junit", O_JUNIT, 0, "FILE", "also write JUnit XML to FILE (a testcase per config)"},
    {"annotations", O_ANNOT, 0, "STYLE", "also print one CI annotation line per finding: github, azure or plain"},
    {0},
};
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
};

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "passmap gate: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return cli_try_help(&gate_cmd);
}

static int fill_junit(FILE *f, const void *r, pm_err *err)
{
    return pm_gate_write_junit(f, r, err);
}

int cmd_gate(int argc, char **argv)
{
    pm_gate_opts opts = {0};
    const char *junit = NULL;
    const pm_gate_annot_style *annot = NULL;
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(&gate_cmd, argc, argv)) != -1) {
        switch (c) {
        case O_BSWEEP: opts.baseline_sweep = optarg; break;
        case O_SWEEP: opts.sweep = optarg; break;
        case O_THRESH:   /* "2%" or "0.02" */
            if (cli_parse_threshold(optarg, &opts.threshold))
                return usage_error("--threshold needs a fraction or percentage in (0, 100%), e.g. 2%", optarg);
            break;
        case O_WIN: opts.fail_on_win = 1; break;
        case O_ALLOW: opts.allow_contended = 1; break;
        case O_JSON: json = 1; break;
        case O_JUNIT: junit = optarg; break;
        case O_ANNOT:
            if (!(annot = pm_gate_annot_style_find(optarg))) {
                char names[128];
                pm_gate_annot_style_names(names, sizeof names);
                fprintf(stderr, "passmap gate: --annotations takes one of %s, not '%s'\n", names, optarg);
                return cli_try_help(&gate_cmd);
            }
            break;
        case CLI_HELP: cli_usage(stdout, &gate_cmd); return PM_EXIT_OK;
        default: return usage_error("unknown or incomplete option", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return usage_error("needs a BASELINE and a DB", NULL);
    if (json && annot)
        return usage_error("--json and --annotations both write stdout: give one", NULL);
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
