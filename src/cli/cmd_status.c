/* passmap status: how far each shard of a sweep has come. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "cmds.h"

typedef struct status_cli {
    int json;
} status_cli;

/* clang-format off */
static const cli_opt status_opts[] = {
    {"json", 0, 0, NULL, "as JSON", CLI_BIND_FLAG(status_cli, json)},
    {0},
};
/* clang-format on */
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
    status_cli cli = {0};
    int c = cli_parse_args(&status_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    if (optind >= argc) {
        fprintf(stderr, "passmap status: expected at least one DB\ntry 'passmap status --help'\n");
        return PM_EXIT_USAGE;
    }
    return pm_cli_status_dbs((const char *const *)argv + optind, argc - optind, cli.json);
}
