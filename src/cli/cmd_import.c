/* passmap import: a timing report file (any format passmap parses) becomes one run in a results database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"
#include "parse.h"
#include "store.h"

static const cli_opt import_opts[] = {
    {"db", 'd', 0, "FILE", "results database (created when missing)"},
    {"sweep", 's', 0, "NAME", "sweep to record into (default: imported)"},
    {"config", 'c', 0, "KEY", "config key (default: the report file's name)"},
    {"tool", 't', 0, "NAME", "the compiler that printed the report (default: by format: mlir-opt, llc ...)"},
    {"format", 'f', 0, "NAME", "{formats} (default: detected)"},
    {"mode", 'm', 0, "NAME", "run mode recorded: cold, cache-miss or warm (default: cold)"},
    {"quiet", 'q', 0, NULL, "print nothing on success"},
    {0},
};
static const cli_cmd import_cmd = {
    .name = "import",
    .synopsis = "--db FILE [options] REPORT...",
    .about = "Parses each report file and records it as one run (one step) in the database.",
    .opts = import_opts,
};

/* The format table's tool (parse.c), for an import without --tool. */
static const char *default_tool(pm_format f)
{
    const char *t = pm_format_default_tool(f);
    return t ? t : "unknown";
}

int cmd_import(int argc, char **argv)
{
    const char *db = NULL, *sweep = "imported", *config = NULL, *tool = NULL, *mode = "cold";
    pm_format fmt = PM_FMT_AUTO;
    int quiet = 0, c;
    optind = 1;
    while ((c = cli_getopt(&import_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 's': sweep = optarg; break;
        case 'c': config = optarg; break;
        case 't': tool = optarg; break;
        case 'm':
            if (pm_cli_mode_check("import", optarg))
                return PM_EXIT_USAGE;
            mode = optarg;
            break;
        case 'q': quiet = 1; break;
        case 'f':
            fmt = pm_format_from_name(optarg);
            if (fmt == PM_FMT__COUNT) {
                fprintf(stderr, "passmap import: unknown format '%s' (see --help)\n", optarg);
                return PM_EXIT_USAGE;
            }
            break;
        case CLI_HELP: cli_usage(stdout, &import_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&import_cmd);
        }
    }
    if (!db || optind >= argc) {
        fprintf(stderr, "passmap import: needs --db FILE and at least one REPORT\ntry 'passmap import --help'\n");
        return PM_EXIT_USAGE;
    }
    pm_cli_import_opts o = {.db = db, .sweep = sweep, .config = config, .tool = tool, .mode = mode, .format = fmt,
                            .quiet = quiet};
    return pm_cli_import("import", &o, argc - optind, argv + optind);
}

int pm_cli_mode_check(const char *cmd, const char *mode)
{
    /* the modes the report knows; any other string would be stored and then never shown */
    if (strcmp(mode, "cold") && strcmp(mode, "cache-miss") && strcmp(mode, "warm")) {
        fprintf(stderr, "passmap %s: --mode is cold, cache-miss or warm, not '%s'\n", cmd, mode);
        return PM_EXIT_USAGE;
    }
    return PM_EXIT_OK;
}

int pm_cli_import(const char *cmd, const pm_cli_import_opts *o, int n_files, char **files)
{
    const char *db = o->db, *sweep = o->sweep ? o->sweep : "imported", *config = o->config, *tool = o->tool;
    const char *mode = o->mode ? o->mode : "cold";
    pm_format fmt = o->format;
    int quiet = o->quiet, rc = PM_EXIT_OK;
    pm_err err = {0};
    pm_store *st = NULL;
    int64_t sweep_id = 0;
    for (int i = 0; i < n_files; i++) {
        const char *path = files[i];
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        pm_report rep;
        pm_report_init(&rep);
        if (pm_parse_file(path, fmt, &rep, &err)) {
            fprintf(stderr, "passmap %s: %s\n", cmd, err.msg);
            rc = PM_EXIT_FAIL;
            pm_report_free(&rep);
            continue;
        }
        if (rep.n_skipped)   /* rows left out are said, never dropped silently */
            fprintf(stderr, "passmap import: warning: %s: %zu row%s not read (the first: %s)\n", path, rep.n_skipped,
                    rep.n_skipped == 1 ? "" : "s", rep.skipped_first);
        if (rep.n_passes == 0 && rep.n_metrics == 0) {
            fprintf(stderr, "passmap %s: %s: no timing report found\n", cmd, path);
            rc = PM_EXIT_FAIL;
            pm_report_free(&rep);
            continue;
        }
        /* the database and sweep are made once a report parsed: a failed import leaves no empty sweep behind */
        if (!st && (pm_store_open(db, &st, &err) || pm_store_sweep(st, sweep, "import", NULL, NULL, &sweep_id, &err))) {
            fprintf(stderr, "passmap %s: %s\n", cmd, err.msg);
            rc = PM_EXIT_FAIL;
            pm_report_free(&rep);
            break;
        }
        pm_config cfg = {.key = config ? config : base, .kind = "command"};
        int64_t config_id, run_id;
        int done = 0;
        double wall = rep.total_wall_s >= 0 ? rep.total_wall_s : pm_report_pass_wall(&rep);
        pm_run_result res = {.status = PM_RUN_OK, .wall_s = wall,
                             .user_s = rep.total_user_s >= 0 ? rep.total_user_s : -1, .instructions = -1};
        const char *t = tool ? tool : default_tool(rep.format);
        pm_step_record step = {.tool = t, .argv = path, .result = &res, .report = &rep};
        if (pm_store_config(st, sweep_id, &cfg, &config_id, &err) ||
            pm_store_runs_done(st, config_id, mode, &done, &err)) {
            fprintf(stderr, "passmap %s: %s\n", cmd, err.msg);
            rc = PM_EXIT_FAIL;
            pm_report_free(&rep);
            break;
        }
        pm_run_record rec = {.config_id = config_id, .repeat = done, .mode = mode, .status = "ok", .wall_s = wall,
                             .user_s = res.user_s, .sys_s = 0, .steps = &step, .n_steps = 1};
        if (pm_store_record_run(st, &rec, &run_id, &err)) {
            fprintf(stderr, "passmap %s: %s\n", cmd, err.msg);
            rc = PM_EXIT_FAIL;
        } else if (!quiet) {
            printf("%s: %s, %zu passes, %zu metrics, %.4f s -> %s config %s repeat %d\n", path,
                   pm_format_name(rep.format), rep.n_passes, rep.n_metrics, wall, db, cfg.key, done);
        }
        pm_report_free(&rep);
    }
    pm_store_close(st);
    return rc;
}
