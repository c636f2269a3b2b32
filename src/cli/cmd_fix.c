/* passmap fix DB: from a study to proven fixes — plan, A/B, output check, the proven fix table. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opts.h"
#include "meter.h"
#include "cmds.h"
#include "contention.h"
#include "fix.h"
#include "fix_report.h"
#include "run.h"

static volatile sig_atomic_t stop_requested;

/* SIGINT and SIGTERM (a scheduler's, a kill): stop after the process in progress, its group ended and unrecorded;
 * a second one stops at once. */
static void on_sigint(int sig)
{
    stop_requested = 1;
    signal(sig, SIG_DFL);
}

typedef struct ui {
    int tty, quiet, json;
} ui;

/* What the options say, each row binding its field. */
typedef struct fix_cli {
    pm_fix_opts o;
    ui u;
} fix_cli;

/* --threshold: a percentage in (0, 100), "2" or "2%", kept as a fraction. */
static int percent(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || (*end && strcmp(end, "%")) || !(v > 0 && v < 100))
        return cli_refuse(cmd, "--%s needs a percentage in (0, 100), not '%s'", o->name, arg);
    *(double *)field = v / 100;
    return 0;
}

enum { MAX_COUNT = 100000 };   /* the largest count an option takes */

/* clang-format off */
static const cli_opt fix_opts[] = {
    {"budget", 0, 0, "DURATION", "wall clock for the whole command (e.g. 20m); default: none",
     CLI_BIND_FN(fix_cli, o.budget_s, cli_positive_duration)},
    {"configs", 0, 0, "N", "configs per fix (default 3)", CLI_BIND_INT(fix_cli, o.configs_per_fix, 1, MAX_COUNT)},
    {"sweep", 0, 0, "NAME", "the study (default: the latest sweep that is not a fix sweep nor superseded)",
     CLI_BIND_STR(fix_cli, o.sweep)},
    {"catalogue", 0, 0, "FILE", "fix catalogue (default: the back end's, or the command spec's [fix] sections)",
     CLI_BIND_STR(fix_cli, o.catalogue_path)},
    {"min-repeats", 0, 0, "N", "runs per side before any verdict (default 3, at least 3)",
     CLI_BIND_INT(fix_cli, o.min_repeats, 3, MAX_COUNT)},
    {"max-repeats", 0, 0, "N", "stop adding repeats here (default 10)",
     CLI_BIND_INT(fix_cli, o.max_repeats, 3, MAX_COUNT)},
    {"threshold", 0, 0, "PCT", "smallest change that counts (default 2%)", CLI_BIND_FN(fix_cli, o.threshold, percent)},
    {"check-window", 0, 0, "W", "embedded: window (or resolution) of the reduced config the output check runs\n"
                                "(default 128)", CLI_BIND_INT(fix_cli, o.check_window, 1, MAX_COUNT)},
    {"check-layers", 0, 0, "N", "embedded: its layers (default 2)", CLI_BIND_INT(fix_cli, o.check_layers, 1, MAX_COUNT)},
    {"no-check", 0, 0, NULL, "skip the output check (the table says unchecked)", CLI_BIND_FLAG(fix_cli, o.no_check)},
    {"allow-contended", 0, 0, NULL, "judge A/Bs whose runs were contended (the rule below), marked; by default\n"
                                    "such a fix is measured to the repeat limit and reads \"no conclusion\n"
                                    "(contended)\" (compare's rule)", CLI_BIND_FLAG(fix_cli, o.allow_contended)},
    {"accept-slower-code", 0, 0, NULL, "a fix whose compiled program runs slower than stock's (a trade-off: its\n"
                                       "run time measured by the spec's [run] or, embedded, the check's forward())\n"
                                       "may be recommended; by default it never is",
     CLI_BIND_FLAG(fix_cli, o.accept_slower_code)},
    {"meter", 0, 0, "M", "how the rounds' steps are measured: {meters} (default auto); a count meter decides\n"
                         "on instructions, except for a fix that changes parallelism (wall)",
     CLI_BIND_FN(fix_cli, o.meter, cli_meter_name)},
    {"jobs", 0, 0, "N", "N compiles at once in each round (default 1); only with a meter that counts\n"
                        "(valgrind, counters), as sweep --jobs: the walls are recorded as contended",
     CLI_BIND_INT(fix_cli, o.jobs, 1, MAX_COUNT)},
    {"dry-run", 0, 0, NULL, "show the plan, run nothing", CLI_BIND_FLAG(fix_cli, o.dry_run)},
    {"quiet", 0, 0, NULL, "no per-run lines", CLI_BIND_FLAG(fix_cli, u.quiet)},
    {"json", 0, 0, NULL, "the plan and the result as JSON on stdout", CLI_BIND_FLAG(fix_cli, u.json)},
    {0},
};
/* clang-format on */
static const cli_cmd fix_cmd = {
    .name = "fix",
    .synopsis = "DB [--budget DURATION] [--configs N] [--dry-run] [--json] [options]",
    .about = "Proposes, runs and proves fixes for the study in DB: the back end's fix catalogue\n"
             "(data/fixes-embedded.tsv, or a command spec's [fix NAME] sections) is matched against the study;\n"
             "each applicable fix is measured against stock on the configs where its rule says it should matter\n"
             "most (per regime, slowest first), repeats are added only while the answer is unknown, then fixes\n"
             "that are faster are combined greedily. Each faster variant's output is checked against stock's\n"
             "(embedded: its code run on fixed inputs; command: the spec's [check] command); a fix that changes\n"
             "the results is never recommended. Runs go into the sweep STUDY-fix of the same DB; rerun to resume.",
    .opts = fix_opts,
    .notes_fn = cli_contended_notes,
};

static void on_note(void *user, const char *line)
{
    ui *u = user;
    if (!u->quiet)
        fprintf(stderr, "fix: %s\n", line);
}

static void on_progress(void *user, const pm_sweep_progress *p)
{
    ui *u = user;
    if (u->quiet)
        return;
    if (u->tty) {
        fprintf(stderr, "\r\033[K  %d/%d %s %s r%d %.2fs", p->done, p->total, p->config_key, p->status, p->repeat,
                p->wall_s);
        if (p->done == p->total)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "  [%d/%d] %-56s r%d %-8s %7.2fs\n", p->done, p->total, p->config_key, p->repeat, p->status,
                p->wall_s);
    }
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "-";
}

static double dbl(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void on_plan(void *user, const json_t *plan)
{
    ui *u = user;
    if (u->json)
        return;
    double budget = dbl(plan, "budget_s");
    printf("plan: study %s -> A/B sweep %s; %d..%d repeats per side, threshold %.0f%%, budget %s",
           str(plan, "study"), str(plan, "fix_sweep"), (int)dbl(plan, "min_repeats"), (int)dbl(plan, "max_repeats"),
           dbl(plan, "threshold") * 100, isnan(budget) ? "none" : "");
    if (!isnan(budget))
        printf("%.0f s", budget);
    printf("\n  first round (every applicable fix against stock at %d repeats): ~%.0f s of compiles\n",
           (int)dbl(plan, "min_repeats"), dbl(plan, "first_round_s"));
    printf("  %-32s %-32s %s\n", "fix", "variant", "plan / configs");
    const json_t *f;
    size_t i;
    json_array_foreach(json_object_get(plan, "fixes"), i, f) {
        printf("  %-32s %-32s %s\n", str(f, "name"), str(f, "variant"), str(f, "plan"));
        const json_t *k;
        size_t j;
        json_array_foreach(json_object_get(f, "configs"), j, k) printf("  %67s %s\n", "", json_string_value(k));
        printf("  %67s rule: %s\n", "", str(f, "predicted"));
        if (json_object_get(f, "note"))   /* configs the back end cannot run it on, and why */
            printf("  %67s %s\n", "", str(f, "note"));
    }
    printf("  then: more repeats only for fixes still undecided; greedy combinations of the faster fixes;\n"
           "        the output of every faster variant checked against stock.\n\n");
    fflush(stdout);
}

static void print_result(const json_t *r)
{
    const json_t *rec = json_object_get(r, "recommended");
    char rc[192];
    if (json_is_object(rec)) {
        pm_fix_ratio_text(rec, rc, sizeof rc);
        char led[512];
        pm_fix_ledger_text(rec, led, sizeof led);
        printf("%s %s: %s %s stock over %d configs, %s; output %s; program: %s\n",
               json_is_true(json_object_get(rec, "ship")) ? "SHIP"
               : json_is_true(json_object_get(rec, "tradeoff")) ? "TRADE-OFF (not recommended without "
                                                                   "--accept-slower-code):"
                                                                 : "NOT PROVEN:",
               str(rec, "variant"), pm_fix_decided_metric(rec), rc, (int)dbl(rec, "n_configs"), str(rec, "verdict"),
               str(rec, "output"), led);
    } else {
        printf("no fix to ship: %s\n", pm_fix_nothing_why(r));
    }
    printf("budget: %.0f s spent%s\n\n", dbl(r, "spent_s"),
           json_is_true(json_object_get(r, "budget_exhausted")) ? " (budget exhausted: some A/Bs not run)" : "");
    printf("proven fix table (B/A = compile wall of the fix / its base, or the metric a row was decided on; "
           "geomean over configs, 95%% CI)\n");
    printf("%-34s %-9s %-26s %-15s %-7s %s\n", "fix", "against", "measured B/A", "verdict", "configs", "output");
    const json_t *f;
    size_t i;
    json_array_foreach(json_object_get(r, "results"), i, f) {
        pm_fix_ratio_text(f, rc, sizeof rc);
        printf("%-34s %-9.9s %-26s %-15s %-7d %s\n", str(f, "name"), str(f, "against"), rc, str(f, "verdict"),
               (int)dbl(f, "n_configs"), str(f, "output"));
        char led[512];
        pm_fix_ledger_text(f, led, sizeof led);
        if (strcmp(led, "-"))
            printf("    program: %s%s\n", led, json_is_true(json_object_get(f, "tradeoff"))
                                                ? "   <- trade-off: faster to compile, slower to run" : "");
        printf("    predicted: %s%s\n", str(f, "predicted"),
               json_is_true(json_object_get(f, "rule_measured_nothing")) ? "   <- rule measured nothing" : "");
        if (json_object_get(f, "note"))
            printf("    note: %s\n", str(f, "note"));
        const json_t *g;
        size_t j;
        json_t *regs = json_object_get(f, "regimes");
        if (json_array_size(regs)) {
            printf("    per regime:");
            json_array_foreach(regs, j, g) printf(dbl(g, "geomean_ratio") < 0.01 ? " %s %.2g (%d)" : " %s %.3f (%d)",
                                                  str(g, "regime"), dbl(g, "geomean_ratio"), (int)dbl(g, "configs"));
            putchar('\n');
        }
        const char *sides[] = {"cheaper", "dearer"};
        for (int s = 0; s < 2; s++) {
            json_t *ps = json_object_get(f, sides[s]);
            if (!json_array_size(ps))
                continue;
            printf("    %s:", sides[s]);
            json_array_foreach(ps, j, g) printf(" %s/%s %+.3fs (%d%s)", str(g, "tool"), str(g, "pass"),
                                                dbl(g, "delta_s"), (int)dbl(g, "configs"),
                                                json_is_true(json_object_get(g, "removed"))  ? ", removed"
                                                : json_is_true(json_object_get(g, "added")) ? ", added" : "");
            putchar('\n');
        }
    }
    pm_fix_frontier_text(stdout, r);
}

int cmd_fix(int argc, char **argv)
{
    fix_cli cli = {.o = {.stop = &stop_requested}, .u = {.tty = isatty(STDERR_FILENO)}};
    int c = cli_parse_args(&fix_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_fix_opts o = cli.o;
    ui u = cli.u;
    pm_err err = {0};
    if (cli_one_db(&fix_cmd, argc) != CLI_GO)
        return PM_EXIT_USAGE;
    o.db_path = argv[optind];
    if (access(o.db_path, R_OK) != 0) {
        fprintf(stderr, "passmap fix: %s: no such database (run `passmap sweep` first)\n", o.db_path);
        return PM_EXIT_FAIL;
    }
    if (o.min_repeats && o.max_repeats && o.max_repeats < o.min_repeats) {
        fprintf(stderr, "passmap fix: --max-repeats %d is below --min-repeats %d\n", o.max_repeats, o.min_repeats);
        return PM_EXIT_USAGE;
    }
    o.note = on_note;
    o.plan = on_plan;
    o.progress = on_progress;
    o.user = &u;
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    json_t *res = NULL;
    int rc = pm_fix_run(&o, &res, &err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (rc) {
        fprintf(stderr, "passmap fix: %s\n", err.msg[0] ? err.msg : "failed");
        return rc == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    if (u.json) {
        json_dumpf(res, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        putchar('\n');
    } else if (!o.dry_run) {
        print_result(res);
    }
    json_decref(res);
    return PM_EXIT_OK;
}
