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

enum { O_SWEEPS = 256, O_THRESH, O_ALLOW, O_JSON, O_HTML, O_AXIS };
static const cli_opt history_opts[] = {
    {"sweeps", O_SWEEPS, 0, "A,B,...", "the series, in order (default: every sweep of DB not superseded, oldest\n"
                                       "first)"},
    {"axis", O_AXIS, 0, "AXIS=A,B,...", "the series along an axis of one sweep instead, its values in order\n"
                                      "(llvm=14,16,19,22 for an axis that picks the build: argv = llc-{llvm}):\n"
                                      "each pair as `compare DB DB --a AXIS=A --b AXIS=B`"},
    {"threshold", O_THRESH, 0, "X", "practical threshold on |ratio - 1| (default 2%)"},
    {"allow-contended", O_ALLOW, 0, NULL, "keep the verdicts of contended configs, marked"},
    {"json", O_JSON, 0, NULL, "everything as JSON"},
    {"html", O_HTML, 0, "FILE", "also write one page of small multiples: a chart per config, a line per row,\n"
                                "a marker at each change point"},
    {0},
};
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
};

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "passmap history: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return cli_try_help(&history_cmd);
}

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
    pm_history_opts o = {0};
    const char *html = NULL;
    char *list = NULL, *axis = NULL;
    const char **names = NULL, **values = NULL;
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(&history_cmd, argc, argv)) != -1) {
        switch (c) {
        case O_SWEEPS: list = optarg; break;
        case O_AXIS: axis = optarg; break;
        case O_THRESH:   /* "2%" or "0.02" */
            if (cli_parse_threshold(optarg, &o.threshold))
                return usage_error("--threshold needs a fraction or percentage in (0, 100%), e.g. 2%", optarg);
            break;
        case O_ALLOW: o.allow_contended = 1; break;
        case O_JSON: json = 1; break;
        case O_HTML: html = optarg; break;
        case CLI_HELP: cli_usage(stdout, &history_cmd); return PM_EXIT_OK;
        default: return usage_error("unknown or incomplete option", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return usage_error("needs one DB", NULL);
    o.path = argv[optind];
    char *copy = NULL, *vcopy = NULL, *eq = axis ? strchr(axis, '=') : NULL;
    if (axis && (!eq || eq == axis || !eq[1] || eq - axis > 127))
        return usage_error("--axis needs AXIS=A,B,... (the values in series order), e.g. llvm=14,16,19,22; an axis name of at most 127 bytes", axis);
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
