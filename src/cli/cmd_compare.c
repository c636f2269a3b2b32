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

/* One side named by an axis value: --a AXIS=V, --b AXIS=W. */
typedef struct compare_side {
    char axis[128];
    const char *value;
} compare_side;

/* What the options say, each row binding its field. */
typedef struct compare_cli {
    pm_compare_opts opts;
    const char *sweep;
    compare_side side[2];
    int top, markdown, json, explain;
} compare_cli;

static int axis_value(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field);

/* clang-format off */
static const cli_opt compare_opts[] = {
    {"a-variant", 0, 0, "V", "variant of side A (needed when a side holds several)",
     CLI_BIND_STR(compare_cli, opts.variant_a)},
    {"b-variant", 0, 0, "V", "variant of side B", CLI_BIND_STR(compare_cli, opts.variant_b)},
    {"a", 0, 0, "AXIS=V", "side A: one axis, one value (with --b AXIS=W)", CLI_BIND_FN(compare_cli, side[0], axis_value)},
    {"b", 0, 0, "AXIS=W", "side B: the same axis, another value", CLI_BIND_FN(compare_cli, side[1], axis_value)},
    {"sweep", 0, 0, "NAME", "sweep on both sides (needed when a database holds several)",
     CLI_BIND_STR(compare_cli, sweep)},
    {"a-sweep", 0, 0, "NAME", "sweep of side A", CLI_BIND_STR(compare_cli, opts.sweep_a)},
    {"b-sweep", 0, 0, "NAME", "sweep of side B", CLI_BIND_STR(compare_cli, opts.sweep_b)},
    {"top", 0, 0, "N", "pass rows per config and in the summary (default 10)",
     CLI_BIND_FN(compare_cli, top, cli_positive_int)},
    {"all-passes", 0, 0, NULL, "every pass row, each tested (a larger family: wider intervals)",
     CLI_BIND_FLAG(compare_cli, opts.all_passes)},
    {"threshold", 0, 0, "X", "practical threshold on |ratio - 1| for faster/slower (default 2%)",
     CLI_BIND_FN(compare_cli, opts.threshold, cli_threshold)},
    {"allow-contended", 0, 0, NULL, "keep the verdicts of contended configs, marked contended (not a\n"
                                    "conclusion: for a machine known to be shared)",
     CLI_BIND_FLAG(compare_cli, opts.allow_contended)},
    {"explain", 0, 0, NULL, "state the verdict rule in full (alone: the rule, no databases needed)",
     CLI_BIND_FLAG(compare_cli, explain)},
    {"markdown", 0, 0, NULL, "GitHub Markdown tables", CLI_BIND_FLAG(compare_cli, markdown)},
    {"json", 0, 0, NULL, "everything as JSON", CLI_BIND_FLAG(compare_cli, json)},
    {0},
};
/* clang-format on */
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
    .notes_fn = cli_contended_notes,
    .exit_status = "0 ok, 1 no config matched or a database could not be read, 2 bad usage",
    .own_words = 1,
};

static int axis_value(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    compare_side *side = field;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof side->axis)
        return cli_refuse(cmd, "--%s needs AXIS=VALUE: %s", o->name, arg);
    snprintf(side->axis, sizeof side->axis, "%.*s", (int)(eq - arg), arg);
    side->value = eq + 1;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    compare_cli cli = {.top = 10};
    int c = cli_parse_args(&compare_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_compare_opts opts = cli.opts;
    const char *sweep = cli.sweep, *sel[2] = {cli.side[0].value, cli.side[1].value};
    const char *axis[2] = {cli.side[0].axis, cli.side[1].axis};
    size_t top = (size_t)cli.top;
    int all = opts.all_passes, markdown = cli.markdown, json = cli.json, explain = cli.explain;
    if (sel[0] || sel[1]) {
        if (!sel[0] || !sel[1])
            return cli_usage_error(&compare_cmd, "--a AXIS=V and --b AXIS=W go together", NULL);
        if (strcmp(axis[0], axis[1]))
            return cli_usage_error(&compare_cmd, "--a and --b must name the same axis", axis[1]);
        if (opts.variant_a || opts.variant_b)
            return cli_usage_error(&compare_cmd, "--a/--b and --a-variant/--b-variant exclude each other", NULL);
        opts.axis = axis[0];
        opts.variant_a = sel[0];
        opts.variant_b = sel[1];
    }
    if (markdown && json)
        return cli_usage_error(&compare_cmd, "--markdown and --json exclude each other", NULL);
    int n_paths = argc - optind;
    if (explain && n_paths == 0) {   /* the rule alone, from the function every verdict follows */
        char rule[2048];
        pm_compare_rule_text(rule, sizeof rule, opts.threshold, opts.allow_contended);
        printf("%s\n", rule);
        return PM_EXIT_OK;
    }
    if (n_paths < 1 || n_paths > 2)
        return cli_usage_error(&compare_cmd, n_paths < 1 ? "no database given" : "at most two databases", NULL);
    opts.path_a = argv[optind];
    opts.path_b = argv[optind + (n_paths == 2)];
    if (n_paths == 1 && (!opts.variant_a || !opts.variant_b))
        return cli_usage_error(&compare_cmd,
                               "with one database, give --a-variant and --b-variant (or --a AXIS=V --b AXIS=W)", NULL);
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
