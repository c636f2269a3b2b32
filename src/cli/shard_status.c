/* How far each shard of a sweep has come, per database (sweep --status, the old status, and the Slurm view's
 * stores): below both cmd_status.c and sweep_slurm.c, which call it. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "shard.h"
#include "store.h"
#include "store_runs.h"

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
