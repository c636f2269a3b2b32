/* passmap sweep --slurm: the sweep as a Slurm job array of shards plus a dependent merge job. */
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "slurm.h"

/* realpath of a file that may not exist yet: its folder's realpath + its name. */
static int abs_path(const char *path, char *out, size_t cap)
{
    char dir[PATH_MAX], tmp[PATH_MAX];
    if (realpath(path, tmp))
        return snprintf(out, cap, "%s", tmp) < (int)cap ? 0 : -1;
    snprintf(tmp, sizeof tmp, "%s", path);
    char *slash = strrchr(tmp, '/');
    const char *name = slash ? slash + 1 : tmp;
    if (slash)
        *slash = '\0';
    if (!realpath(slash ? (tmp[0] ? tmp : "/") : ".", dir))
        return -1;
    int n = snprintf(out, cap, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int pm_cli_sweep_slurm(const pm_cli_slurm *s)
{
    char self[PATH_MAX], spec[PATH_MAX], out[PATH_MAX], dir[PATH_MAX + 8], costs[PATH_MAX];
    if (!realpath("/proc/self/exe", self)) {
        perror("passmap sweep: cannot find passmap's own executable");
        return PM_EXIT_FAIL;
    }
    const char *bad = abs_path(s->spec_path, spec, sizeof spec) ? s->spec_path
                      : abs_path(s->db, out, sizeof out) ? s->db
                      : s->costs_db && abs_path(s->costs_db, costs, sizeof costs) ? s->costs_db : NULL;
    if (bad) {
        fprintf(stderr, "passmap sweep: cannot resolve the path %s (does its folder exist?)\n", bad);
        return PM_EXIT_USAGE;
    }
    snprintf(dir, sizeof dir, "%s.slurm", out);
    pm_slurm_opts o = {.passmap = self, .spec_path = spec, .spec_name = s->spec_name, .out_db = out, .dir = dir,
                       .shards = s->shards, .partition = s->partition, .time_limit = s->time_limit,
                       .costs_db = s->costs_db ? costs : NULL, .warm = s->warm};
    pm_err err = {0};
    char *a = NULL, *m = NULL;
    if (pm_slurm_scripts(&o, &a, &m, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        return err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    int rc = PM_EXIT_OK;
    if (s->dry_run) {
        printf("# ---- %s/shards.sbatch (sbatch --parsable %s/shards.sbatch)\n%s", dir, dir, a);
        printf("# ---- %s/merge.sbatch (sbatch --parsable --dependency=afterok:<array job id> %s/merge.sbatch)\n%s",
               dir, dir, m);
        goto cleanup;
    }
    char array_id[64], merge_id[64];
    if (pm_slurm_submit(&o, a, m, array_id, sizeof array_id, merge_id, sizeof merge_id, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    if (s->json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s}", "array_job", array_id, "merge_job", merge_id, "dir",
                              dir, "shards", s->shards, "db", out, "sweep", s->spec_name);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
        json_decref(j);
    } else {
        printf("submitted %d shards of %s as job array %s (each task --exclusive on its node) and the merge into\n"
               "%s as job %s (after every shard succeeded).\n"
               "scripts, logs and shard databases: %s\n"
               "watch: squeue -j %s,%s   progress: passmap status %s/shard-*.db\n",
               s->shards, s->spec_name, array_id, out, merge_id, dir, array_id, merge_id, dir);
    }
cleanup:
    free(a);
    free(m);
    return rc;
}

int pm_cli_slurm_status(const char *db, int json)
{
    char pattern[PATH_MAX + 32];
    if (snprintf(pattern, sizeof pattern, "%s.slurm/shard-*-of-*.db", db) >= (int)sizeof pattern) {
        fprintf(stderr, "passmap sweep: --db path too long\n");
        return PM_EXIT_USAGE;
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(pattern, 0, NULL, &g);
    if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: no shard database in %s.slurm/ yet (submitted? see squeue); nothing was "
                "submitted\n", db);
        return PM_EXIT_FAIL;
    }
    if (grc != 0) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: cannot list %s\n", pattern);
        return PM_EXIT_FAIL;
    }
    const char **dbs = calloc(g.gl_pathc + 1, sizeof *dbs);
    if (!dbs) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: out of memory\n");
        return PM_EXIT_FAIL;
    }
    int n = 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        dbs[n++] = g.gl_pathv[i];
    if (access(db, F_OK) == 0)
        dbs[n++] = db;
    int rc = pm_cli_status(dbs, n, json);
    free(dbs);
    globfree(&g);
    return rc;
}
