/* passmap: finds what dominates a model compiler's compile time, why, and fixes it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "util.h"

#ifndef PM_VERSION
#define PM_VERSION "0.1.0"
#endif

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
    const char *group;   /* the --help heading it is listed under (rows of a group stay together) */
};

/* In the order a first hour uses them, grouped; the helper the back ends run is listed apart. */
static const struct command commands[] = {
    {"sweep", cmd_sweep, "run a sweep spec (matrix of configs x repeats) into SQLite", "measure"},
    {"run", cmd_run, "run a command N times, cold, in isolated processes, and measure it", "measure"},
    {"gen", cmd_gen, "generate a workload (LLM decoder or CNN) as MLIR", "measure"},
    {"probe", cmd_probe, "measure the stage-entry IR sizes a finished sweep lacks (for the cost fits)", "measure"},
    {"doctor", cmd_doctor, "check OpenVINO and the NPU compiler here: versions, devices, a tiny compile", "measure"},
    {"report", cmd_report, "analyse a results database: stages, regimes, fits, fixes, HTML", "read the results"},
    {"show", cmd_show, "a stored compile's pass tree in the terminal, with bars and shares", "read the results"},
    {"trace", cmd_trace, "export one stored compile as a Chrome trace (Perfetto, chrome://tracing)",
     "read the results"},
    {"compare", cmd_compare, "compare two results databases per config and pass (A/B of a fix)", "read the results"},
    {"fix", cmd_fix, "propose, run (A/B) and prove the fixes for a study; checks outputs are unchanged",
     "act on them"},
    {"gate", cmd_gate, "CI gate: a sweep against a baseline; exits 0 pass, 1 slower, 3 inconclusive", "act on them"},
    {"baseline", cmd_baseline, "write a sweep's baseline file for gate (small, stable, diff-friendly)", "act on them"},
    {"bisect", cmd_bisect, "git bisect run to the commit (and pass) that made compiles slower, by the rule",
     "act on them"},
    {"export", cmd_export, "a sweep's samples as LNT (report v2), Bencher (BMF) or CSV for dashboards", "act on them"},
    {"parse", cmd_parse, "parse a timing report (MLIR, LLVM, Chrome trace, NPU logs) into passes", "data and scale"},
    {"import", cmd_import, "import a timing report file into a results database", "data and scale"},
    {"merge", cmd_merge, "merge shard databases (or any studies of the same spec) into one", "data and scale"},
    {"status", cmd_status, "done/left per shard of a sweep database", "data and scale"},
    {"cache", cmd_cache, "content-addressed cache of compiled artifacts", "data and scale"},
    {"ov-compile", cmd_ov_compile, "compile (and import) one OpenVINO model, used by the openvino back end",
     "run by the back ends (not by hand)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: passmap <command> [options]   (passmap <command> --help for more)\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!i || strcmp(commands[i].group, commands[i - 1].group))
            fprintf(out, "\n%s:\n", commands[i].group);
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    }
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PM_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return PM_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("passmap %s\n", PM_VERSION);
        return PM_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    const char *names[sizeof commands / sizeof commands[0] + 2];
    size_t n = 0;
    for (; n < sizeof commands / sizeof commands[0]; n++)
        names[n] = commands[n].name;
    names[n++] = "help";
    names[n++] = "version";
    const char *near = pm_util_closest(argv[1], names, n);
    if (near) {   /* one line that says what to type, not the whole list again */
        fprintf(stderr, "passmap: '%s' is not a command; did you mean '%s'? (passmap --help lists them)\n", argv[1],
                near);
        return PM_EXIT_USAGE;
    }
    fprintf(stderr, "passmap: '%s' is not a command\n", argv[1]);
    usage(stderr);
    return PM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    /* One place for every command: output that never reached stdout (a full disk, /dev/full, a closed pipe) is
     * a failure, not a silent success. The buffer is flushed here so the error is seen before exit. */
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int saved = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        fprintf(stderr, "passmap: cannot write output: %s\n", saved ? strerror(saved) : "write error");
        if (rc == PM_EXIT_OK)
            rc = PM_EXIT_FAIL;
    }
    return rc;
}
