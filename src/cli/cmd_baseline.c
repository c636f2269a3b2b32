/* passmap baseline DB -o FILE: a sweep's baseline file for `passmap gate` (lib/study/baseline.h). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "baseline.h"
#include "cli_opts.h"
#include "cmds.h"
#include "util.h"

/* What the options say, each row binding its field. */
typedef struct baseline_cli {
    const char *out, *sweep;
} baseline_cli;

/* clang-format off */
static const cli_opt baseline_opts[] = {
    {"output", 'o', 1, "FILE", "the baseline file to write (required)", CLI_BIND_STR(baseline_cli, out)},
    {"sweep", 0, 0, "NAME", "the sweep (needed when DB holds several)", CLI_BIND_STR(baseline_cli, sweep)},
    {0},
};
/* clang-format on */
static const cli_cmd baseline_cmd = {
    .name = "baseline",
    .synopsis = "DB -o FILE [--sweep NAME]",
    .about = "Writes the baseline a project commits beside its code, for `passmap gate BASELINE DB`: one\n"
             "tab-separated line per fact in a stable order, so a change reads as a diff. Per config its\n"
             "fingerprint (the steps it ran), machine and runs; per run metric (wall, user, sys,\n"
             "instructions), step tool and pass of the config's default pass family (>= 1% of its\n"
             "compile, top 10 per tool) the samples in run order with n, mean and sd; the compiler builds\n"
             "the sweep recorded, the meter and the deciding metric. A config whose runs were contended\n"
             "is recorded with the reason and without samples (the gate then cannot conclude on it).\n"
             "The format: docs/regressions.md.",
    .opts = baseline_opts,
    .own_words = 1,
};

int cmd_baseline(int argc, char **argv)
{
    baseline_cli cli = {0};
    int c = cli_parse_args(&baseline_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    const char *out = cli.out, *sweep = cli.sweep;
    if (argc - optind != 1 || !out) {
        fprintf(stderr, "passmap baseline: needs one DB and -o FILE\n");
        return cli_try_help(&baseline_cmd);
    }
    pm_baseline_info info;
    pm_err err = {0};
    if (pm_util_refuse_same_file(out, argv[optind], 1, "the database", &err) != PM_OK ||
        pm_baseline_write(argv[optind], sweep, out, &info, &err) != PM_OK) {
        fprintf(stderr, "passmap baseline: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    fprintf(stderr, "passmap baseline: %s: sweep %s, %zu configs, %zu series, decided on %s, meter %s\n", out,
            info.sweep, info.n_configs, info.n_series, info.decides, info.meter);
    for (size_t i = 0; i < info.n_contended; i++)
        fprintf(stderr, "passmap baseline: warning: %s was contended (%s): its timed rows decide nothing (without "
                "a counting meter, measure it again on a quiet machine)\n", info.contended[i].key,
                info.contended[i].reason);
    pm_baseline_info_free(&info);
    return PM_EXIT_OK;
}
