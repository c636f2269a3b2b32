/* passmap export DB --format lnt|bmf|csv: a sweep's samples for the dashboards teams run (lib/output/export.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "baseline.h"
#include "cli_opts.h"
#include "cmds.h"
#include "export.h"
#include "util.h"

/* What the options say, each row binding its field. */
typedef struct export_cli {
    const pm_export_format *fmt;
    const char *out, *sweep;
    pm_export_opts o;
} export_cli;

/* --format: an export row's name. */
static int export_format(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if ((*(const pm_export_format **)field = pm_export_find(arg)))
        return 0;
    size_t n;
    const pm_export_format *rows = pm_export_rows(&n);
    fprintf(stderr, "passmap %s: --%s is one of", cmd->name, o->name);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", rows[i].name);
    fprintf(stderr, ", not '%s'\n", arg);
    return -1;
}

/* clang-format off */
static const cli_opt export_opts[] = {
    {"format", 'f', 1, "NAME", "the format (required; the list below)", CLI_BIND_FN(export_cli, fmt, export_format)},
    {"output", 'o', 1, "FILE", "write to FILE (default: stdout)", CLI_BIND_STR(export_cli, out)},
    {"sweep", 0, 0, "NAME", "the sweep (needed when DB holds several)", CLI_BIND_STR(export_cli, sweep)},
    {"machine", 0, 0, "NAME", "LNT's machine name (default: the machine of the runs)",
     CLI_BIND_STR(export_cli, o.machine)},
    {"order", 0, 0, "REV", "LNT's llvm_project_revision, the run's order (default: the compiler's identity)",
     CLI_BIND_STR(export_cli, o.order)},
    {0},
};
/* clang-format on */

static void export_notes(FILE *out)
{
    size_t n;
    const pm_export_format *f = pm_export_rows(&n);
    fprintf(out, "formats:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-5s %s\n", f[i].name, f[i].about);
}

static const cli_cmd export_cmd = {
    .name = "export",
    .synopsis = "DB|BASELINE --format NAME [-o FILE] [options]",
    .about = "Writes a sweep's samples (or a `passmap baseline` file's) for a dashboard: per config its\n"
             "whole compile, step tools and top passes (>= 1% of the compile, top 10 per tool), with units\n"
             "and the compiler's identity. LNT: the JSON report format version 2 for the NTS suite\n"
             "(compile_time samples, s). Bencher: the Bencher Metric Format (latency, ns: the geometric\n"
             "mean with its 95% interval; instructions). CSV: every sample, one row each. The formats and\n"
             "their sources: docs/regressions.md.",
    .opts = export_opts,
    .notes_fn = export_notes,
    .own_words = 1,
};

typedef struct export_job {
    const pm_export_format *fmt;
    const pm_samples *s;
    const pm_export_opts *o;
} export_job;

static int fill_export(FILE *f, const void *arg, pm_err *err)
{
    const export_job *j = arg;
    return j->fmt->write(f, j->s, j->o, err);
}

int cmd_export(int argc, char **argv)
{
    export_cli cli = {0};
    int c = cli_parse_args(&export_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    const pm_export_format *fmt = cli.fmt;
    const char *out = cli.out, *sweep = cli.sweep;
    pm_export_opts o = cli.o;
    if (argc - optind != 1 || !fmt) {
        fprintf(stderr, "passmap export: needs one DB (or baseline file) and --format\n");
        return cli_try_help(&export_cmd);
    }
    const char *in = argv[optind];
    pm_samples s;
    pm_err err = {0};
    int is_file = 0, rc = pm_baseline_sniff(in, &is_file, &err);
    if (rc == PM_OK && out)
        rc = pm_util_refuse_same_file(out, in, !is_file, is_file ? "the baseline" : "the database", &err);
    if (rc == PM_OK)
        rc = is_file ? pm_baseline_read(in, &s, &err) : pm_samples_load(in, sweep, &s, &err);
    if (rc != PM_OK) {
        fprintf(stderr, "passmap export: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    export_job job = {fmt, &s, &o};
    rc = out ? cli_publish(out, fill_export, &job, &err) : fmt->write(stdout, &s, &o, &err);
    pm_samples_free(&s);
    if (rc != PM_OK) {
        fprintf(stderr, "passmap export: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    return PM_EXIT_OK;
}
