/* passmap status: how far each shard of a sweep has come. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"
#include "shard.h"
#include "store.h"
#include "store_runs.h"

static const cli_opt status_opts[] = {
    {"json", 'j', 0, NULL, "as JSON"},
    {0},
};
static const cli_cmd status_cmd = {
    .name = "status",
    .synopsis = "[--json] DB...",
    .about = "The old name of `passmap sweep --status DB...` (the same output; it goes in the next release).\n"
             "Per sweep and shard of each database: configs, runs planned, done, left, failed, and the hosts\n"
             "that measured them. A sweep without --shard is shard 1/1. `passmap sweep SPEC --status` is the same\n"
             "for the sweep's database. With several databases, a last line per sweep says what they hold together\n"
             "against the shard plan (configs owing runs, or stores split by different plans), as merge checks it.\n"
             "One DB that `passmap sweep --slurm --db DB` submits into (DB.slurm/plan.txt beside it): its shard\n"
             "databases and what Slurm says of each job, with what to resubmit (as `sweep --slurm --status`).",
    .opts = status_opts,
};

/* The tool builds a sweep ran (schema 7), or NULL/0 when none is recorded. */
static size_t sweep_tools(pm_store *st, const char *sweep, pm_tool_ident **t)
{
    int64_t id = 0;
    size_t n = 0;
    pm_err e = {0};
    *t = NULL;
    if (pm_store_pick_sweep(pm_store_db(st), sweep, &id, &e) || pm_store_read_tools(pm_store_db(st), id, t, &n, &e))
        return 0;
    return n;
}

static void print_tools(pm_store *st, const char *sweep)
{
    pm_tool_ident *t = NULL;
    size_t n = sweep_tools(st, sweep, &t);
    if (!n)
        printf("  %s: tools: no identity recorded\n", sweep);
    for (size_t i = 0; i < n; i++) {
        char v[160];
        printf("  %s: tool %s %s (%s) %s%s%s\n", sweep, t[i].name, t[i].path,
               pm_version_line(t[i].version_text, v, sizeof v), t[i].hash[0] ? t[i].hash : "(binary unreadable)",
               t[i].host ? " on " : "", t[i].host ? t[i].host : "");
    }
    pm_tool_idents_free(t, n);
}

static json_t *tools_json(pm_store *st, const char *sweep)
{
    pm_tool_ident *t = NULL;
    size_t n = sweep_tools(st, sweep, &t);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s?}", "name", t[i].name, "invoked",
                                           t[i].invoked, "path", t[i].path, "version_text", t[i].version_text, "hash",
                                           t[i].hash, "hosts", t[i].host));
    pm_tool_idents_free(t, n);
    return a;
}

int pm_cli_status_into(const char *const *dbs, int n_dbs, json_t *arr)
{
    int failed = 0, json = arr != NULL;
    for (int d = 0; d < n_dbs; d++) {
        pm_err err = {0};
        pm_store *st = NULL;
        pm_shard_status *rows = NULL;
        int n = 0;
        if (pm_store_open_readonly(dbs[d], &st, &err) || pm_store_shard_status(st, &rows, &n, &err)) {
            fprintf(stderr, "passmap status: %s\n", err.msg);
            pm_store_close(st);
            failed++;
            continue;
        }
        if (!json) {
            printf("%s\n", dbs[d]);
            if (n == 0)
                printf("  no shard plan recorded (a database written before passmap recorded plans, or empty)\n");
            else
                printf("  %-24s %7s %7s %7s %7s %7s %7s  %s\n", "sweep", "shard", "configs", "planned", "done", "left",
                       "failed", "hosts");
        }
        for (int i = 0; i < n; i++) {
            const pm_shard_status *r = &rows[i];
            char shard[32];
            snprintf(shard, sizeof shard, "%d/%d", r->shard_k, r->shard_n);
            if (json) {
                json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s?}", "db", dbs[d], "sweep",
                                      r->sweep, "shard_k", r->shard_k, "shard_n", r->shard_n, "configs", r->configs,
                                      "planned", r->planned, "done", r->done, "left", r->planned - r->done, "failed",
                                      r->failed, "hosts", r->hosts);
                json_object_set_new(o, "tools", tools_json(st, r->sweep));
                json_array_append_new(arr, o);
            } else {
                printf("  %-24s %7s %7d %7d %7d %7d %7d  %s\n", r->sweep, shard, r->configs, r->planned, r->done,
                       r->planned - r->done, r->failed, r->hosts ? r->hosts : "-");
            }
        }
        /* each sweep's compiler identity, once per sweep */
        for (int i = 0; !json && i < n; i++)
            if (i == 0 || strcmp(rows[i].sweep, rows[i - 1].sweep))
                print_tools(st, rows[i].sweep);
        pm_shard_status_free(rows, n);
        pm_store_close(st);
    }
    /* The databases together, against the plans they recorded: what a merge of them would hold. */
    pm_coverage cov;
    pm_err cerr = {0};
    if (!json && n_dbs > 1 && pm_shard_coverage(dbs, n_dbs, &cov, &cerr) == PM_OK) {
        for (int i = 0; i < cov.n; i++) {
            if (cov.sweeps[i].message)
                printf("together: %s\n", cov.sweeps[i].message);
            else
                printf("together: sweep %s: every config of the plan done (%d configs)\n", cov.sweeps[i].sweep,
                       cov.sweeps[i].configs);
        }
        pm_coverage_free(&cov);
    }
    return failed ? PM_EXIT_FAIL : PM_EXIT_OK;
}

int pm_cli_status(const char *const *dbs, int n_dbs, int json)
{
    json_t *arr = json ? json_array() : NULL;
    int rc = pm_cli_status_into(dbs, n_dbs, arr);
    if (arr) {
        json_dumpf(arr, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(arr);
    }
    return rc;
}

int pm_cli_status_dbs(const char *const *dbs, int n_dbs, int json)
{
    /* one database a Slurm submission writes into (DB.slurm/plan.txt beside it): its shards' stores and what
     * Slurm says of their jobs, as `passmap sweep SPEC --slurm --status --db DB` shows them */
    char sweep[256];
    if (n_dbs == 1 && pm_cli_slurm_plan_sweep(dbs[0], sweep, sizeof sweep))
        return pm_cli_slurm_status(dbs[0], sweep, json);
    return pm_cli_status(dbs, n_dbs, json);
}

int pm_cli_status_operand(const char *path)
{
    char sweep[256];
    if (pm_cli_slurm_plan_sweep(path, sweep, sizeof sweep))   /* a Slurm sweep's store, maybe not written yet */
        return 1;
    static const char magic[16] = "SQLite format 3";   /* the file header SQLite writes, its NUL included */
    char head[sizeof magic];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && !memcmp(head, magic, sizeof magic);
}

int cmd_status(int argc, char **argv)
{
    int json = 0, c;
    optind = 1;
    while ((c = cli_getopt(&status_cmd, argc, argv)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case CLI_HELP: cli_usage(stdout, &status_cmd); return PM_EXIT_OK;
        default: return cli_try_help(&status_cmd);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "passmap status: expected at least one DB\ntry 'passmap status --help'\n");
        return PM_EXIT_USAGE;
    }
    return pm_cli_status_dbs((const char *const *)argv + optind, argc - optind, json);
}
