/* passmap probe DB: the stage-entry sizes a finished sweep did not record (lib/sweep/probe.h). */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cmds.h"
#include "probe.h"
#include "util.h"

static volatile sig_atomic_t stop_requested;

static void on_sigint(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct probe_cli {
    const char *sweep;
} probe_cli;

/* clang-format off */
static const cli_opt probe_opts[] = {
    {"sweep", 0, 0, "NAME", "the sweep (default: the database's only one)", CLI_BIND_STR(probe_cli, sweep)},
    {0},
};
/* clang-format on */
static const cli_cmd probe_cmd = {
    .name = "probe",
    .synopsis = "[--sweep NAME] DB",
    .about = "Measures the IR size at each stage's entry (ir.stage.*) for every config of a finished sweep that\n"
             "lacks it, and adds it to that config's runs: the report's cost fits need it (a store without it gets\n"
             "no fit). The sweep's stored spec is read again as from its folder and each config is prepared once,\n"
             "as the sweep does before its runs (the embedded back end counts the ops at each stage boundary with an\n"
             "extra mlir-opt, outside every timed run). Timed data is not touched.",
    .opts = probe_opts,
    .exit_status = "0 sizes added (or none missing), 1 the probe failed, 2 bad usage",
};

int cmd_probe(int argc, char **argv)
{
    probe_cli cli = {0};
    int c = cli_parse_args(&probe_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    const char *sweep = cli.sweep;
    if (optind != argc - 1) {
        fprintf(stderr, "passmap probe: one database needed\n");
        return cli_try_help(&probe_cmd);
    }
    const char *db = argv[optind];
    char self[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    const char *tmp = getenv("TMPDIR");
    char work[PATH_MAX];
    snprintf(work, sizeof work, "%s/passmap-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        fprintf(stderr, "passmap probe: cannot create a work folder in %s: set TMPDIR\n", tmp && *tmp ? tmp : "/tmp");
        return PM_EXIT_FAIL;
    }
    signal(SIGINT, on_sigint);
    pm_probe_summary sum;
    pm_err err = {0};
    int rc = pm_probe_run(db, sweep, work, self[0] ? self : NULL, &stop_requested, &sum, &err);
    signal(SIGINT, SIG_DFL);
    pm_util_remove_tree(work);
    if (rc) {
        fprintf(stderr, "passmap probe: %s\n", err.msg);
        return err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    printf("%s: %d configs, %d with stage-entry sizes measured; %d run metrics added\n", db, sum.configs, sum.probed,
           sum.runs_added);
    if (sum.configs && !sum.probed) {
        fprintf(stderr, "passmap probe: no stage size could be measured (does a compile of these configs work "
                        "here? `passmap sweep --dry-run` on the stored spec shows what it would run)\n");
        return PM_EXIT_FAIL;
    }
    return 0;
}
