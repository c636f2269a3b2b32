/* passmap: finds what dominates a model compiler's compile time, why, and fixes it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "util.h"

#ifndef PM_VERSION
#define PM_VERSION "0.1.0"
#endif

/* Where `passmap --help` shows a command: the main ones there, the rest under `passmap help --all`; an internal
 * helper (a back end's) nowhere but there; an old name with the spelling that replaced it. */
typedef enum { CAT_MAIN, CAT_REGRESSIONS, CAT_MORE, CAT_OLD_NAME, CAT_INTERNAL, CAT__COUNT } cmd_category;

static const char *const category_heading[CAT__COUNT] = {
    [CAT_MAIN] = "commands:",
    [CAT_REGRESSIONS] = "regressions (CI):",
    [CAT_MORE] = "more:",
    [CAT_OLD_NAME] = "old names (kept for one release; each prints its new spelling on stderr):",
    [CAT_INTERNAL] = "internal (run by a back end, not by hand):",
};

struct command {
    const char *name;
    int (*fn)(int, char **);
    cmd_category category;
    const char *summary;
    const char *now;   /* CAT_OLD_NAME: the spelling that replaced it ("passmap sweep --status") */
};

static const struct command commands[] = {
    {"run", cmd_run, CAT_MAIN, "run a command N times, cold, in isolated processes, and measure it", NULL},
    {"parse", cmd_parse, CAT_MAIN, "parse timing reports (MLIR, LLVM, Chrome trace, NPU logs) into passes; --db: store them", NULL},
    {"gen", cmd_gen, CAT_MAIN, "generate a workload (LLM decoder or CNN) as MLIR", NULL},
    {"sweep", cmd_sweep, CAT_MAIN, "run a sweep spec (matrix of configs x repeats) into SQLite; --status: how far", NULL},
    {"report", cmd_report, CAT_MAIN, "analyse a results database: stages, regimes, fits, fixes, HTML", NULL},
    {"show", cmd_show, CAT_MAIN, "a stored compile's pass tree in the terminal; --chrome-trace FILE for Perfetto", NULL},
    {"compare", cmd_compare, CAT_MAIN, "compare two results databases per config and pass (A/B of a fix)", NULL},
    {"fix", cmd_fix, CAT_MAIN, "propose, run (A/B) and prove the fixes for a study; checks outputs are unchanged",
     NULL},
    {"gate", cmd_gate, CAT_MAIN, "CI gate: a sweep against a baseline; exits 0 pass, 1 slower, 3 inconclusive", NULL},
    {"doctor", cmd_doctor, CAT_MAIN, "check the compilers and back ends here: versions, devices, a tiny compile", NULL},
    {"baseline", cmd_baseline, CAT_REGRESSIONS, "write a sweep's baseline file for gate (small, stable, diff-friendly)",
     NULL},
    {"history", cmd_history, CAT_REGRESSIONS,
     "a series of sweeps across compiler builds, per config and stage, with change points", NULL},
    {"bisect", cmd_bisect, CAT_REGRESSIONS,
     "git bisect run to the commit (and pass) that made compiles slower, by the rule", NULL},
    {"export", cmd_export, CAT_REGRESSIONS, "a sweep's samples as LNT (report v2), Bencher (BMF) or CSV for dashboards",
     NULL},
    {"probe", cmd_probe, CAT_MORE, "measure the stage-entry IR sizes a finished sweep lacks (for the cost fits)", NULL},
    {"merge", cmd_merge, CAT_MORE, "merge shard databases (or any studies of the same spec) into one", NULL},
    {"cache", cmd_cache, CAT_MORE, "content-addressed cache of compiled artifacts", NULL},
    {"import", cmd_import, CAT_OLD_NAME, "import a timing report file into a results database", "passmap parse --db DB"},
    {"trace", cmd_trace, CAT_OLD_NAME, "export one stored compile as a Chrome trace (Perfetto, chrome://tracing)",
     "passmap show --chrome-trace FILE"},
    {"status", cmd_status, CAT_OLD_NAME, "done/left per shard of a sweep database", "passmap sweep --status"},
    {"ov-compile", cmd_ov_compile, CAT_INTERNAL, "compile (and import) one OpenVINO model, used by the openvino back end",
     NULL},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* The main commands (all: every category but CAT_INTERNAL's too, each under its heading). */
static void usage(FILE *out, int all)
{
    fprintf(out, "usage: passmap <command> [options]   (passmap <command> --help for more)\n");
    for (int cat = 0; cat < (all ? CAT__COUNT : 1); cat++) {
        int listed = 0;   /* a heading only over commands */
        for (size_t i = 0; i < N_COMMANDS; i++) {
            if (commands[i].category != (cmd_category)cat)
                continue;
            if (!listed++)
                fprintf(out, "\n%s\n", category_heading[cat]);
            fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
        }
    }
    if (!all)
        fprintf(out, "\nall commands (regressions, more, old names): passmap help --all\n");
}

/* "--help" or "-h" among a command's arguments: its help is printed, with no notice about its name. */
static int asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr, 0);
        return PM_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc > 3 || (argc == 3 && strcmp(argv[2], "--all") && strcmp(argv[2], "-a"))) {
            fprintf(stderr, "passmap: %s takes --all or nothing (a command's help: passmap COMMAND --help)\n", argv[1]);
            return PM_EXIT_USAGE;
        }
        usage(stdout, argc == 3);
        return PM_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("passmap %s\n", PM_VERSION);
        return PM_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name))
            continue;
        if (commands[i].now && !asks_help(argc - 1, argv + 1))
            fprintf(stderr, "passmap %s is now %s; the old name goes in the next release\n", commands[i].name,
                    commands[i].now);
        return commands[i].fn(argc - 1, argv + 1);
    }
    const char *names[N_COMMANDS + 2];
    size_t n = 0;
    for (; n < N_COMMANDS; n++)
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
    usage(stderr, 0);
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
