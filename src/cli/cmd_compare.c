/* passmap compare A.db [B.db]: A/B comparison of two result sets (see lib/compare.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "compare.h"
#include "compare_out.h"
#include "contention.h"

enum { O_AVAR = 256, O_BVAR, O_SWEEP, O_ASWEEP, O_BSWEEP, O_TOP, O_ALL, O_MD, O_JSON, O_THRESH, O_A, O_B, O_ALLOW,
       O_EXPLAIN };
static const cli_opt compare_opts[] = {
    {"a-variant", O_AVAR, 0, "V", "variant of side A (needed when a side holds several)"},
    {"b-variant", O_BVAR, 0, "V", "variant of side B"},
    {"a", O_A, 0, "AXIS=V", "side A: one axis, one value (with --b AXIS=W)"},
    {"b", O_B, 0, "AXIS=W", "side B: the same axis, another value"},
    {"sweep", O_SWEEP, 0, "NAME", "sweep on both sides (needed when a database holds several)"},
    {"a-sweep", O_ASWEEP, 0, "NAME", "sweep of side A"},
    {"b-sweep", O_BSWEEP, 0, "NAME", "sweep of side B"},
    {"top", O_TOP, 0, "N", "pass rows per config and in the summary (default 10)"},
    {"all-passes", O_ALL, 0, NULL, "every pass row, each tested (a larger family: wider intervals)"},
    {"threshold", O_THRESH, 0, "X", "practical threshold on |ratio - 1| for faster/slower (default 2%)"},
    {"allow-contended", O_ALLOW, 0, NULL, "keep the verdicts of contended configs, marked contended (not a\n"
                                          "conclusion: for a machine known to be shared)"},
    {"explain", O_EXPLAIN, 0, NULL, "state the verdict rule in full (alone: the rule, no databases needed)"},
    {"markdown", O_MD, 0, NULL, "GitHub Markdown tables"},
    {"json", O_JSON, 0, NULL, "everything as JSON"},
    {0},
};
/* The contention rule from its own function, so the help cannot fall behind it. */
static void contended_notes(FILE *out)
{
    char rule[512];
    pm_contention_rule_text(rule, sizeof rule, 0);
    fprintf(out, "Contended runs: %s.\n", rule);
}
static const cli_cmd compare_cmd = {
    .name = "compare",
    .synopsis = "A.db [B.db] [options]",
    .about = "Compares compile times of B against A per config (matched on the key without its variant),\n"
             "per step tool and per pass, and opens with one line: \"fp16 vs int8: 1.19x slower [1.08, 1.31] on\n"
             "cpu time (user+sys), 7 of 7 configs decided\". Every mark follows one rule (ratio of geometric\n"
             "means B/A, Welch t on log times, Holm p and 95% simultaneous intervals per table, the verdict read\n"
             "off the interval against --threshold, no conclusion from contended runs: the rule below the\n"
             "options); --explain states it in full, from the function that applies it; docs/statistics.md\n"
             "gives each part's reason.\n"
             "With one database, pick the two variants with --a-variant and --b-variant, or any axis with\n"
             "--a AXIS=V --b AXIS=W (configs equal on all other axes are matched, e.g. --a opt=0 --b opt=2).\n"
             "Passes match by (tool, name); a pass renamed between two builds of a compiler (--a llvm=14\n"
             "--b llvm=22) matches under its newest name, from the alias table data/pass-aliases.tsv (its row\n"
             "says what the build printed).",
    .opts = compare_opts,
    .notes = "Text tables fit COLUMNS or the terminal; otherwise (piped) each row stays on one line.",
    .notes_fn = contended_notes,
    .exit_status = "0 ok, 1 no config matched or a database could not be read, 2 bad usage",
};

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "passmap compare: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return cli_try_help(&compare_cmd);
}

int cmd_compare(int argc, char **argv)
{
    pm_compare_opts opts = {0};
    const char *sweep = NULL, *sel[2] = {NULL, NULL};
    char axis[2][128];
    size_t top = 10;
    int all = 0, markdown = 0, json = 0, explain = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(&compare_cmd, argc, argv)) != -1) {
        switch (c) {
        case O_A:
        case O_B: {
            int k = c == O_B;
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1] || (size_t)(eq - optarg) >= sizeof axis[k])
                return usage_error(k ? "--b needs AXIS=VALUE" : "--a needs AXIS=VALUE", optarg);
            snprintf(axis[k], sizeof axis[k], "%.*s", (int)(eq - optarg), optarg);
            sel[k] = eq + 1;
            break;
        }
        case O_AVAR: opts.variant_a = optarg; break;
        case O_BVAR: opts.variant_b = optarg; break;
        case O_SWEEP: sweep = optarg; break;
        case O_ASWEEP: opts.sweep_a = optarg; break;
        case O_BSWEEP: opts.sweep_b = optarg; break;
        case O_TOP: {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || errno || v < 1)
                return usage_error("--top needs a positive integer", optarg);
            top = (size_t)v;
            break;
        }
        case O_THRESH:   /* "2%" or "0.02" */
            if (cli_parse_threshold(optarg, &opts.threshold))
                return usage_error("--threshold needs a fraction or percentage in (0, 100%), e.g. 2%", optarg);
            break;
        case O_ALL: all = opts.all_passes = 1; break;
        case O_ALLOW: opts.allow_contended = 1; break;
        case O_MD: markdown = 1; break;
        case O_JSON: json = 1; break;
        case O_EXPLAIN: explain = 1; break;
        case CLI_HELP: cli_usage(stdout, &compare_cmd); return PM_EXIT_OK;
        default:
            return usage_error("unknown or incomplete option", argv[optind - 1]);
        }
    }
    if (sel[0] || sel[1]) {
        if (!sel[0] || !sel[1])
            return usage_error("--a AXIS=V and --b AXIS=W go together", NULL);
        if (strcmp(axis[0], axis[1]))
            return usage_error("--a and --b must name the same axis", axis[1]);
        if (opts.variant_a || opts.variant_b)
            return usage_error("--a/--b and --a-variant/--b-variant exclude each other", NULL);
        opts.axis = axis[0];
        opts.variant_a = sel[0];
        opts.variant_b = sel[1];
    }
    if (markdown && json)
        return usage_error("--markdown and --json exclude each other", NULL);
    int n_paths = argc - optind;
    if (explain && n_paths == 0) {   /* the rule alone, from the function every verdict follows */
        char rule[2048];
        pm_compare_rule_text(rule, sizeof rule, opts.threshold, opts.allow_contended);
        printf("%s\n", rule);
        return PM_EXIT_OK;
    }
    if (n_paths < 1 || n_paths > 2)
        return usage_error(n_paths < 1 ? "no database given" : "at most two databases", NULL);
    opts.path_a = argv[optind];
    opts.path_b = argv[optind + (n_paths == 2)];
    if (n_paths == 1 && (!opts.variant_a || !opts.variant_b))
        return usage_error("with one database, give --a-variant and --b-variant (or --a AXIS=V --b AXIS=W)", NULL);
    if (!opts.sweep_a)
        opts.sweep_a = sweep;
    if (!opts.sweep_b)
        opts.sweep_b = sweep;

    pm_compare_result res;
    pm_err err = {0};
    /* two builds of one compiler: a pass LLVM renamed matches under its newest name (data/pass-aliases.tsv) */
    pm_passalias *aliases = pm_passalias_new();
    if (aliases && pm_passalias_load_default(aliases, &err) != PM_OK) {
        fprintf(stderr, "passmap compare: note: %s (passes match by printed name only)\n", err.msg);
        pm_passalias_free(aliases);
        aliases = NULL;
        memset(&err, 0, sizeof err);
    }
    opts.aliases = aliases;
    int rc = pm_compare_run(&opts, &res, &err);
    pm_passalias_free(aliases);
    opts.aliases = NULL;
    if (rc != PM_OK) {
        fprintf(stderr, "passmap compare: %s\n", err.msg);
        return rc == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    int status = PM_EXIT_OK;
    if (json) {
        json_t *root = pm_compare_to_json(&res);
        pm_json_stamp(root, "*_s", "s", "ratio", "B / A (1 = equal; geometric means)", "share", "fraction (0..1)",
                      NULL);
        if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
            fprintf(stderr, "passmap compare: could not write JSON\n");
            status = PM_EXIT_FAIL;
        }
        fputc('\n', stdout);
        json_decref(root);
    } else if (pm_compare_write(stdout, &res, markdown ? PM_COMPARE_MARKDOWN : PM_COMPARE_TEXT, all ? 0 : top,
                                cli_term_width(0), explain, &err) != PM_OK) {
        fprintf(stderr, "passmap compare: %s\n", err.msg);
        status = PM_EXIT_FAIL;
    }
    if (status == PM_EXIT_OK && res.n_configs == 0) {
        fprintf(stderr, "passmap compare: no config matched (%zu only in A, %zu only in B)\n", res.n_only_a,
                res.n_only_b);
        status = PM_EXIT_FAIL;
    }
    pm_compare_free(&res);
    return status;
}
