/* passmap bisect: the commit behind a compile-time regression (lib/sweep/bisect.h; docs/regressions.md). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "bisect.h"
#include "cli_opts.h"
#include "cmds.h"
#include "json_out.h"
#include "run.h"

/* Stable statuses: 0 a culprit named, 1 the work failed, 2 bad usage, 3 no culprit (the ends not different, or
 * only skipped revisions left). The step's are git's: 0 good, 1 bad, 125 skip, 128 stop. */
enum { BISECT_EXIT_NONE = 3, STEP_EXIT_STOP = 128 };

/* What the options say, each row binding its field. */
typedef struct bisect_cli {
    pm_bisect_opts o;
    const char *step_work;
    int json;
} bisect_cli;

enum { MAX_REPEATS = 100000 };

/* clang-format off */
static const cli_opt bisect_opts[] = {
    {"repo", 0, 0, "DIR", "the compiler's git work tree (default: .)", CLI_BIND_STR(bisect_cli, o.repo)},
    {"good", 0, 0, "REV", "a revision without the regression (required)", CLI_BIND_STR(bisect_cli, o.good)},
    {"bad", 0, 0, "REV", "a revision with it (default: HEAD)", CLI_BIND_STR(bisect_cli, o.bad)},
    {"build", 0, 0, "CMD", "shell command that builds the compiler in DIR (required)", CLI_BIND_STR(bisect_cli, o.build)},
    {"work", 0, 0, "DIR", "folder for a store per revision, logs and state (default: bisect-work)",
     CLI_BIND_STR(bisect_cli, o.work)},
    {"repeats", 0, 0, "N", "cold runs per config and revision first (default 5)",
     CLI_BIND_INT(bisect_cli, o.repeats, 1, MAX_REPEATS)},
    {"max-repeats", 0, 0, "N", "doubled up to N while undecided, then the revision is skipped (default 20)",
     CLI_BIND_INT(bisect_cli, o.max_repeats, 1, MAX_REPEATS)},
    {"threshold", 0, 0, "X", "practical threshold on |ratio - 1| (default 2%)",
     CLI_BIND_FN(bisect_cli, o.threshold, cli_threshold)},
    {"allow-contended", 0, 0, NULL, "keep the verdicts of contended runs, marked (a machine known to be\n"
                                    "shared; with a deterministic meter)", CLI_BIND_FLAG(bisect_cli, o.allow_contended)},
    {"build-timeout", 0, 0, "DUR", "per build (default 1h)", CLI_BIND_FN(bisect_cli, o.build_timeout_s, cli_positive_duration)},
    {"json", 0, 0, NULL, "the result as JSON", CLI_BIND_FLAG(bisect_cli, json)},
    {"step", 0, 0, "WORK", "one revision, as `git bisect run` calls it (passmap bisect runs it)",
     CLI_BIND_STR(bisect_cli, step_work)},
    {0},
};
/* clang-format on */
static const cli_cmd bisect_cmd = {
    .name = "bisect",
    .synopsis = "--good REV [--bad REV] --build CMD [options] SPEC.ini",
    .about = "Finds the commit that made compiles slower, with `git bisect run` in the compiler's tree. Both\n"
             "ends are built with CMD and swept with SPEC (a store per revision in the work folder) and\n"
             "compared by compare's rule; the rows slower at the bad end (its passes, else steps, else the\n"
             "whole compile) are what the bisection follows. Each revision git asks about is built, swept\n"
             "and compared with the good end: a regressed row slower is bad, all of them the same (or\n"
             "faster) is good, anything else gets more repeats up to --max-repeats and is then skipped\n"
             "(`git bisect skip`), never guessed; a failed build is skipped. Ends with the first bad\n"
             "commit and the pass (with its stage) that moved most between its parent and it.\n"
             "The spec's steps name the compiler the build makes (e.g. argv = /src/build/bin/llc ...).",
    .opts = bisect_opts,
    .exit_status = "0 a culprit named, 1 the work failed, 2 bad usage, 3 no culprit (the ends not\n"
                   "different by the rule, or only skipped revisions left); with --step git's: 0 good,\n"
                   "1 bad, 125 skip, 128 stop",
    .own_words = 1,
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
    signal(SIGINT, SIG_DFL); /* a second Ctrl-C stops at once */
}

static void print_note(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "passmap bisect: %s\n", line);
}

static int step(const char *work)
{
    int status = 0;
    char line[1024] = "";
    pm_err err = {0};
    if (pm_bisect_step(work, &status, line, sizeof line, &err) != PM_OK) {
        fprintf(stderr, "passmap bisect --step: %s (stopping the bisection)\n", err.msg);
        return STEP_EXIT_STOP;
    }
    printf("passmap bisect: %s\n", line);
    return status;
}

int cmd_bisect(int argc, char **argv)
{
    bisect_cli cli = {
        .o = {.repo = ".", .bad = "HEAD", .work = "bisect-work", .note = print_note, .cancel = &interrupted}};
    int c = cli_parse_args(&bisect_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_bisect_opts o = cli.o;
    const char *step_work = cli.step_work;
    int json = cli.json;
    if (step_work)
        return optind == argc ? step(step_work) : cli_usage_error(&bisect_cmd, "--step takes no SPEC", NULL);
    if (argc - optind != 1)
        return cli_usage_error(&bisect_cmd, "needs one SPEC.ini", NULL);
    if (!o.good || !o.build)
        return cli_usage_error(&bisect_cmd, "--good REV and --build CMD are needed", NULL);
    if (o.max_repeats && o.repeats > o.max_repeats)
        return cli_usage_error(&bisect_cmd, "--repeats is more than --max-repeats", NULL);
    o.spec = argv[optind];
    pm_bisect_result r;
    pm_err err = {0};
    /* Ctrl-C stops the build or git bisect run in progress and resets the tree before passmap exits */
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int brc = pm_bisect_run(&o, &r, &err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (brc != PM_OK) {
        fprintf(stderr, "passmap bisect: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    int status = r.culprit[0] ? PM_EXIT_OK : BISECT_EXIT_NONE;
    if (json) {
        json_t *root = json_pack("{s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o}", "culprit",
                                 r.culprit[0] ? json_string(r.culprit) : json_null(), "subject",
                                 r.subject ? json_string(r.subject) : json_null(), "steps", r.steps, "skipped",
                                 r.skipped, "followed", r.level ? json_string(r.level) : json_null(), "why",
                                 r.why ? json_string(r.why) : json_null(), "pass",
                                 r.pass_name ? json_pack("{s:s, s:s, s:o, s:f, s:f, s:f, s:f}", "tool",
                                                         r.pass_tool ? r.pass_tool : "", "name", r.pass_name,
                                                         "stage", r.stage ? json_string(r.stage) : json_null(),
                                                         "ratio", r.ratio, "ci_lo", r.ci_lo, "ci_hi", r.ci_hi,
                                                         "delta_s", r.delta_s)
                                             : json_null(),
                                 "exit_status", json_integer(status));
        pm_json_stamp(root, "*_s", "s", "ratio", "culprit / its parent (geometric means)", NULL);
        if (cli_print_json(root, "bisect") != PM_EXIT_OK)
            status = PM_EXIT_FAIL;
    } else if (r.culprit[0]) {
        printf("culprit: %s %s\n", r.culprit, r.subject ? r.subject : "");
        printf("found in %d step%s (%d skipped), following the slower %s rows\n", r.steps, r.steps == 1 ? "" : "s",
               r.skipped, r.level ? r.level : "-");
        if (r.pass_name)
            printf("moved most: pass %s: %s (stage %s): %.3fx [%.3f, %.3f], %+.2f ms a compile\n",
                   r.pass_tool ? r.pass_tool : "-", r.pass_name, r.stage ? r.stage : "unmapped", r.ratio, r.ci_lo,
                   r.ci_hi, 1e3 * r.delta_s);
        else
            printf("moved most: no pass row is slower by the rule between the culprit and its parent\n");
    } else {
        printf("no culprit: %s (%d step%s, %d skipped)\n", r.why ? r.why : "?", r.steps, r.steps == 1 ? "" : "s",
               r.skipped);
    }
    pm_bisect_result_free(&r);
    return status;
}
