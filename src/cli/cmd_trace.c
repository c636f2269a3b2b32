/* passmap trace DB: one stored run as a Chrome trace (Perfetto, chrome://tracing). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cmds.h"
#include "passtree.h"
#include "store_runs.h"
#include "util.h"

/* What the options say, each row binding its field. */
typedef struct trace_cli {
    pm_cli_run_pick pick;
    const char *outpath;
} trace_cli;

/* clang-format off */
static const cli_opt trace_opts[] = {
    {"run", 'r', 1, "ID", "the run with this id", CLI_BIND_FN(trace_cli, pick.run_id, pm_cli_run_id)},
    {"config", 'c', 1, "KEY", "a config of the sweep (default: the only config, when there is one)",
     CLI_BIND_STR(trace_cli, pick.config)},
    {"repeat", 'n', 1, "N", "that repeat (default: the successful run with the median wall)",
     CLI_BIND_FN(trace_cli, pick.repeat, pm_cli_repeat)},
    {"mode", 'm', 1, "MODE", "cold (default), cache-miss or warm", CLI_BIND_STR(trace_cli, pick.mode)},
    {"sweep", 's', 1, "NAME", "which sweep (default: the latest study, not its STUDY-fix sweep nor a superseded one)",
     CLI_BIND_STR(trace_cli, pick.sweep)},
    {"output", 'o', 1, "FILE", "write there (default: stdout)", CLI_BIND_STR(trace_cli, outpath)},
    {0},
};
/* clang-format on */
static const cli_cmd trace_cmd = {
    .name = "trace",
    .synopsis = "DB [--sweep NAME] [--run ID | --config KEY [--repeat N] [--mode MODE]] [-o FILE]",
    .about = "  one stored run as Chrome trace event JSON (open it in https://ui.perfetto.dev or chrome://tracing):\n"
             "  one track per step process, the step as a span, its passes nested inside in the compiler's order.\n"
             "  Chrome-trace reports keep their measured start offsets; MLIR tree reports give the order and nesting\n"
             "  (passes laid out back to back); LLVM's -time-passes list gives neither (sorted by time): the step's\n"
             "  args say which (\"placement\").",
    .opts = trace_opts,
};

/* Shared by trace and show: which run the options name. */
int pm_cli_pick_run(sqlite3 *db, const char *cmd, const char *sweep, const char *config, const char *mode, int repeat,
                    long long run_id, int64_t *out, pm_err *err)
{
    if (run_id > 0) {
        *out = run_id;
        return PM_OK;
    }
    int64_t sweep_id;
    int rc = pm_store_pick_sweep(db, sweep, &sweep_id, err);
    if (rc)
        return rc;
    if (!config) {
        char **keys = NULL;
        size_t n = 0;
        if ((rc = pm_store_config_keys(db, sweep_id, &keys, &n, err)))
            return rc;
        if (n == 1) {
            rc = pm_store_find_run(db, sweep_id, keys[0], mode, repeat, out, err);
        } else {
            char list[600] = "";
            size_t used = 0;
            for (size_t i = 0; i < n && used < 480; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", keys[i]);
            rc = pm_err_set(err, PM_ERR_USAGE, "say which run: --run ID or --config KEY (%zu configs: %s%s)", n,
                            n ? list : "none", used >= 480 ? ", ..." : "");
        }
        for (size_t i = 0; i < n; i++)
            free(keys[i]);
        free(keys);
        (void)cmd;
        return rc;
    }
    return pm_store_find_run(db, sweep_id, config, mode, repeat, out, err);
}

int pm_cli_run_id(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    long long id = strtoll(arg, &end, 10);
    if (*end || id <= 0)
        return cli_refuse(cmd, "--%s wants a positive run id, not '%s'", o->name, arg);
    *(long long *)field = id;
    return 0;
}

int pm_cli_repeat(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    long repeat = strtol(arg, &end, 10);
    if (*end || repeat < 0 || repeat > INT_MAX || !*arg)
        return cli_refuse(cmd, "--%s wants a repeat number >= 0, not '%s'", o->name, arg);
    *(int *)field = (int)repeat;
    return 0;
}

int pm_cli_pick_check(const char *cmd, const pm_cli_run_pick *pick)
{
    if (pick->run_id && (pick->config || pick->repeat >= 0 || pick->mode)) {
        fprintf(stderr, "passmap %s: --run names one run; it does not combine with --config/--repeat/--mode\n", cmd);
        return PM_EXIT_USAGE;
    }
    return PM_EXIT_OK;
}

int cmd_trace(int argc, char **argv)
{
    trace_cli cli = {.pick = {.repeat = -1}};
    int c = cli_parse_args(&trace_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    if (cli_one_db(&trace_cmd, argc) != CLI_GO || pm_cli_pick_check("trace", &cli.pick))
        return PM_EXIT_USAGE;
    return pm_cli_trace("trace", argv[optind], &cli.pick, cli.outpath);
}

int pm_cli_trace(const char *cmd, const char *db_path, const pm_cli_run_pick *pick, const char *outpath)
{
    pm_err err = {0};
    sqlite3 *db = NULL;
    pm_stored_run run = {0};
    int ret = PM_EXIT_FAIL, rc, fd = -1;
    int64_t id;
    char tmp[PATH_MAX] = "";
    FILE *f = NULL;
    if (pm_util_refuse_same_file(outpath, db_path, 1, "the database", &err)) {
        fprintf(stderr, "passmap %s: %s\n", cmd, err.msg);
        return PM_EXIT_USAGE;
    }
    if ((rc = pm_store_open_sqlite_readonly(db_path, &db, &err)) ||
        (rc = pm_cli_pick_run(db, cmd, pick->sweep, pick->config, pick->mode, pick->repeat, pick->run_id, &id, &err)) ||
        (rc = pm_store_load_run(db, id, 1, &run, &err)))
        goto cleanup;
    /* Streamed: a regular file is written to a temp beside it and renamed over it whole at the end (a device or
     * FIFO gets the bytes in place, pm_util_publish); never the whole trace in memory. */
    if (outpath) {
        if (pm_util_temp_beside(outpath, tmp, sizeof tmp, &fd, &err))
            goto cleanup;
        if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
            pm_err_errno(&err, PM_ERR_IO, "cannot write %s", tmp);
            goto cleanup;
        }
        fd = -1;
    }
    if (pm_trace_write(&run, f ? f : stdout, &err))
        goto cleanup;
    if (f) {
        int bad = fclose(f);
        f = NULL;
        if (bad) {
            pm_err_errno(&err, PM_ERR_IO, "cannot write %s", outpath);
            goto cleanup;
        }
        rc = pm_util_publish(tmp, outpath, &err);
        tmp[0] = '\0';
        if (rc)
            goto cleanup;
    } else if (fflush(stdout)) {
        pm_err_errno(&err, PM_ERR_IO, "writing stdout");
        goto cleanup;
    }
    if (outpath)
        fprintf(stderr, "passmap %s: run %lld (%s, %s #%d) -> %s\n", cmd, (long long)run.id, run.config_key, run.mode,
                run.repeat, outpath);
    ret = PM_EXIT_OK;
cleanup:
    if (ret != PM_EXIT_OK)
        fprintf(stderr, "passmap %s: %s\n", cmd, err.msg[0] ? err.msg : "failed");
    if (ret != PM_EXIT_OK && err.code == PM_ERR_USAGE)
        ret = PM_EXIT_USAGE;
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    if (tmp[0])
        unlink(tmp);
    pm_stored_run_free(&run);
    pm_store_db_close(db);
    return ret;
}
