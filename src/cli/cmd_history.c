/* passmap history DB: a series of sweeps (one per compiler build) with change points (lib/study/history.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"
#include "history.h"
#include "history_out.h"
#include "json_out.h"
#include "util.h"

/* What the options say, each row binding its field. */
typedef struct history_cli {
    pm_history_opts o;
    const char *html, *list, *axis;
    int json;
} history_cli;

/* clang-format off */
static const cli_opt history_opts[] = {
    {"sweeps", 0, 0, "A,B,...", "the series, in order (default: every sweep of DB not superseded, oldest\n"
                                "first)", CLI_BIND_STR(history_cli, list)},
    {"axis", 0, 0, "AXIS=A,B,...", "the series along an axis of one sweep instead, its values in order\n"
                                   "(llvm=14,16,19,22 for an axis that picks the build: argv = llc-{llvm}):\n"
                                   "each pair as `compare DB DB --a AXIS=A --b AXIS=B`", CLI_BIND_STR(history_cli, axis)},
    {"threshold", 0, 0, "X", "practical threshold on |ratio - 1| (default 2%)",
     CLI_BIND_FN(history_cli, o.threshold, cli_threshold)},
    {"allow-contended", 0, 0, NULL, "keep the verdicts of contended configs, marked",
     CLI_BIND_FLAG(history_cli, o.allow_contended)},
    {"json", 0, 0, NULL, "everything as JSON", CLI_BIND_FLAG(history_cli, json)},
    {"html", 0, 0, "FILE", "also write one page of small multiples: a chart per config, a line per row,\n"
                           "a marker at each change point", CLI_BIND_STR(history_cli, html)},
    {0},
};
/* clang-format on */
static const cli_cmd history_cmd = {
    .name = "history",
    .synopsis = "DB [--sweeps A,B,... | --axis AXIS=A,B,...] [--html FILE] [--json]",
    .about = "A store's sweeps of one spec, one per compiler build (`passmap sweep --name LABEL --db DB`:\n"
             "the label names the build: a commit, a date, a version), as a series per config: the whole\n"
             "compile on the deciding metric, each step tool and each stage, with the change points between\n"
             "consecutive sweeps: each pair compared by compare's rule, so a change point is what\n"
             "`passmap compare DB --a-sweep X --b-sweep Y` says (▲ slower, ▼ faster). A stage is a sum of\n"
             "passes: its change point is its pass that moved most by the rule, named.",
    .opts = history_opts,
    .own_words = 1,
};

/* "a,b,c" into its names in place (copy owns them), as many as commas + 1; -1 when out of memory. */
static int split_list(const char *list, char **copy, const char ***names, size_t *n)
{
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    *n = 0;
    if (!(*copy = strdup(list)) || !(*names = calloc(cap, sizeof **names)))
        return -1;
    for (char *p = *copy, *comma; p; p = comma ? comma + 1 : NULL) {
        if ((comma = strchr(p, ',')))
            *comma = '\0';
        (*names)[(*n)++] = p;
    }
    return 0;
}

static int fill_html(FILE *f, const void *h, pm_err *err)
{
    return pm_history_write_html(f, h, err);
}

int cmd_history(int argc, char **argv)
{
    history_cli cli = {0};
    int c = cli_parse_args(&history_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    pm_history_opts o = cli.o;
    const char *html = cli.html, *list = cli.list, *axis = cli.axis;
    const char **names = NULL, **values = NULL;
    int json = cli.json;
    if (argc - optind != 1)
        return cli_usage_error(&history_cmd, "needs one DB", NULL);
    o.path = argv[optind];
    char *copy = NULL, *vcopy = NULL, *eq = axis ? strchr(axis, '=') : NULL;
    if (axis && (!eq || eq == axis || !eq[1] || eq - axis > 127))
        return cli_usage_error(
            &history_cmd,
            "--axis needs AXIS=A,B,... (the values in series order), e.g. llvm=14,16,19,22; an axis name of at most 127 bytes",
            axis);
    int oom = (list && split_list(list, &copy, &names, &o.n_sweeps)) ||
              (axis && split_list(eq + 1, &vcopy, &values, &o.n_values));
    char axis_name[128];
    if (axis)
        snprintf(axis_name, sizeof axis_name, "%.*s", (int)(eq - axis), axis);
    o.sweeps = names;
    o.values = values;
    o.axis = axis ? axis_name : NULL;
    pm_history h;
    pm_err err = {0};
    int rc = oom ? pm_err_set(&err, PM_ERR_NOMEM, "out of memory") : pm_history_run(&o, &h, &err);
    int status = PM_EXIT_OK;
    free(names);
    free(copy);
    free(values);
    free(vcopy);
    if (rc != PM_OK) {
        fprintf(stderr, "passmap history: %s\n", err.msg);
        return rc == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    if (json) {
        json_t *root = pm_history_to_json(&h);
        pm_json_stamp(root, "value", "s (instructions: a count)", "ratio", "this sweep / the sweep before", NULL);
        status = cli_print_json(root, "history");
    } else if (pm_history_write_text(stdout, &h, cli_term_width(0), &err) != PM_OK) {
        fprintf(stderr, "passmap history: %s\n", err.msg);
        status = PM_EXIT_FAIL;
    }
    if (html && status == PM_EXIT_OK && cli_publish(html, fill_html, &h, &err) != PM_OK) {
        fprintf(stderr, "passmap history: %s\n", err.msg);
        status = PM_EXIT_FAIL;
    }
    pm_history_free(&h);
    return status;
}
