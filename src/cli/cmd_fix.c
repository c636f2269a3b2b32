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

static const cli_opt fix_opts[] = {
    {"budget", 'b', 0, "DURATION", "wall clock for the whole command (e.g. 20m); default: none"},
    {"configs", 'c', 0, "N", "configs per fix (default 3)"},
    {"sweep", 's', 0, "NAME", "the study (default: the latest sweep that is not a fix sweep nor superseded)"},
    {"catalogue", 'C', 0, "FILE", "fix catalogue (default: the back end's, or the command spec's [fix] sections)"},
    {"min-repeats", 'm', 0, "N", "runs per side before any verdict (default 3, at least 3)"},
    {"max-repeats", 'M', 0, "N", "stop adding repeats here (default 10)"},
    {"threshold", 't', 0, "PCT", "smallest change that counts (default 2%)"},
    {"check-window", 'w', 0, "W", "embedded: window (or resolution) of the reduced config the output check runs\n"
                                  "(default 128)"},
    {"check-layers", 'l', 0, "N", "embedded: its layers (default 2)"},
    {"no-check", 'N', 0, NULL, "skip the output check (the table says unchecked)"},
    {"allow-contended", 'A', 0, NULL, "judge A/Bs whose runs were contended (the rule below), marked; by default\n"
                                      "such a fix is measured to the repeat limit and reads \"no conclusion\n"
                                      "(contended)\" (compare's rule)"},
    {"accept-slower-code", 'S', 0, NULL, "a fix whose compiled program runs slower than stock's (a trade-off: its\n"
                                         "run time measured by the spec's [run] or, embedded, the check's forward())\n"
                                         "may be recommended; by default it never is"},
    {"meter", 1, 0, "M", "how the rounds' steps are measured: {meters} (default auto); a count meter decides\n"
                         "on instructions, except for a fix that changes parallelism (wall)"},
    {"jobs", 2, 0, "N", "N compiles at once in each round (default 1); only with a meter that counts\n"
                        "(valgrind, counters), as sweep --jobs: the walls are recorded as contended"},
    {"dry-run", 'n', 0, NULL, "show the plan, run nothing"},
    {"quiet", 'q', 0, NULL, "no per-run lines"},
    {"json", 'j', 0, NULL, "the plan and the result as JSON on stdout"},
    {0},
};
static void contended_notes(FILE *out)
{
    char rule[512];
    pm_contention_rule_text(rule, sizeof rule, 0);
    fprintf(out, "Contended runs: %s.\n", rule);
}
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
    .notes_fn = contended_notes,
};

typedef struct ui {
    int tty, quiet, json;
} ui;

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

static int parse_int_arg(const char *opt, const char *v, int lo, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > 100000) {
        fprintf(stderr, "passmap fix: %s needs an integer >= %d, not '%s'\n", opt, lo, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int cmd_fix(int argc, char **argv)
{
    pm_fix_opts o = {.stop = &stop_requested};
    ui u = {.tty = isatty(STDERR_FILENO)};
    int c;
    pm_err err = {0};
    optind = 1;
    while ((c = cli_getopt(&fix_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'b':
            if (pm_run_parse_duration(optarg, &o.budget_s, &err) || o.budget_s <= 0) {
                fprintf(stderr, "passmap fix: --budget: '%s' is not a positive duration (e.g. 90s, 20m, 1h)\n", optarg);
                return PM_EXIT_USAGE;
            }
            break;
        case 'c': if (parse_int_arg("--configs", optarg, 1, &o.configs_per_fix)) return PM_EXIT_USAGE; break;
        case 's': o.sweep = optarg; break;
        case 'C': o.catalogue_path = optarg; break;
        case 'm': if (parse_int_arg("--min-repeats", optarg, 3, &o.min_repeats)) return PM_EXIT_USAGE; break;
        case 'M': if (parse_int_arg("--max-repeats", optarg, 3, &o.max_repeats)) return PM_EXIT_USAGE; break;
        case 'w': if (parse_int_arg("--check-window", optarg, 1, &o.check_window)) return PM_EXIT_USAGE; break;
        case 'l': if (parse_int_arg("--check-layers", optarg, 1, &o.check_layers)) return PM_EXIT_USAGE; break;
        case 't': {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || (*end && strcmp(end, "%")) || !(v > 0 && v < 100)) {
                fprintf(stderr, "passmap fix: --threshold needs a percentage in (0, 100), not '%s'\n", optarg);
                return PM_EXIT_USAGE;
            }
            o.threshold = v / 100;
            break;
        }
        case 'N': o.no_check = 1; break;
        case 'A': o.allow_contended = 1; break;
        case 'S': o.accept_slower_code = 1; break;
        case 'n': o.dry_run = 1; break;
        case 1:
            if (strcmp(optarg, "auto") && !pm_meter_find(optarg)) {
                fprintf(stderr, "passmap fix: --meter is one of %s, not '%s'\n", pm_meter_names(), optarg);
                return PM_EXIT_USAGE;
            }
            o.meter = optarg;
            break;
        case 2: if (parse_int_arg("--jobs", optarg, 1, &o.jobs)) return PM_EXIT_USAGE; break;
        case 'q': u.quiet = 1; break;
        case 'j': u.json = 1; break;
        case CLI_HELP: cli_usage(stdout, &fix_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&fix_cmd);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "passmap fix: expected one database file (try 'passmap fix --help')\n");
        return PM_EXIT_USAGE;
    }
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
