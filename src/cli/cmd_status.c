/* passmap status: how far each shard of a sweep has come. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "store.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: passmap status [--json] DB...\n"
            "Per sweep and shard of each database: configs, runs planned, done, left, failed, and the hosts\n"
            "that measured them. A sweep without --shard is shard 1/1. `passmap sweep SPEC --status` is the same\n"
            "for the sweep's database.\n\n"
            "  --json       as JSON\n");
    cli_help_tail(out, "status", NULL);
}

int pm_cli_status(const char *const *dbs, int n_dbs, int json)
{
    int failed = 0;
    json_t *arr = json ? json_array() : NULL;
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
            if (json)
                json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s?}", "db",
                                                     dbs[d], "sweep", r->sweep, "shard_k", r->shard_k, "shard_n",
                                                     r->shard_n, "configs", r->configs, "planned", r->planned, "done",
                                                     r->done, "left", r->planned - r->done, "failed", r->failed,
                                                     "hosts", r->hosts));
            else
                printf("  %-24s %7s %7d %7d %7d %7d %7d  %s\n", r->sweep, shard, r->configs, r->planned, r->done,
                       r->planned - r->done, r->failed, r->hosts ? r->hosts : "-");
        }
        pm_shard_status_free(rows, n);
        pm_store_close(st);
    }
    if (json) {
        json_dumpf(arr, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(arr);
    }
    return failed ? PM_EXIT_FAIL : PM_EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
    static const struct option longopts[] = {{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': usage(stdout); return PM_EXIT_OK;
        default: fprintf(stderr, "try 'passmap status --help'\n"); return PM_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "passmap status: expected at least one DB\ntry 'passmap status --help'\n");
        return PM_EXIT_USAGE;
    }
    return pm_cli_status((const char *const *)argv + optind, argc - optind, json);
}
