/* passmap import: a timing report file (any format passmap parses) becomes one run in a results database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"
#include "parse.h"
#include "store.h"

/* clang-format off */
static const cli_opt import_opts[] = {
    {"db", 0, 0, "FILE", "results database (created when missing)", CLI_BIND_STR(pm_cli_import_opts, db)},
    {"sweep", 0, 0, "NAME", "sweep to record into (default: imported)", CLI_BIND_STR(pm_cli_import_opts, sweep)},
    {"config", 0, 0, "KEY", "config key (default: the report file's name)", CLI_BIND_STR(pm_cli_import_opts, config)},
    {"tool", 0, 0, "NAME", "the compiler that printed the report (default: by format: mlir-opt, llc ...)",
     CLI_BIND_STR(pm_cli_import_opts, tool)},
    {"format", 0, 0, "NAME", "{formats} (default: detected)", CLI_BIND_FN(pm_cli_import_opts, format, cli_format)},
    {"mode", 0, 0, "NAME", "run mode recorded: cold, cache-miss or warm (default: cold)",
     CLI_BIND_FN(pm_cli_import_opts, mode, pm_cli_run_mode)},
    {"quiet", 0, 0, NULL, "print nothing on success", CLI_BIND_FLAG(pm_cli_import_opts, quiet)},
    {0},
};
/* clang-format on */
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
    pm_cli_import_opts o = {.format = PM_FMT_AUTO};
    int c = cli_parse_args(&import_cmd, argc, argv, &o, NULL);
    if (c != CLI_GO)
        return c;
    if (!o.db || optind >= argc) {
        fprintf(stderr, "passmap import: needs --db FILE and at least one REPORT\ntry 'passmap import --help'\n");
        return PM_EXIT_USAGE;
    }
    return pm_cli_import("import", &o, argc - optind, argv + optind);
}

int pm_cli_run_mode(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    /* the modes the report knows; any other string would be stored and then never shown */
    if (strcmp(arg, "cold") && strcmp(arg, "cache-miss") && strcmp(arg, "warm"))
        return cli_refuse(cmd, "--%s is cold, cache-miss or warm, not '%s'", o->name, arg);
    *(const char **)field = arg;
    return 0;
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
