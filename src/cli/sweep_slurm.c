/* passmap sweep --slurm: the sweep as a Slurm job array of shards plus a dependent merge job. */
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "shard.h"
#include "slurm.h"
#include "util.h"

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

/* The expected cost per shard and the balance (max shard / even split): what the cost model promises. */
static json_t *print_balance(const pm_shard_plan *p, int json)
{
    double *load = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *load);
    int *count = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *count);
    if (!load || !count) {
        free(load);
        free(count);
        return NULL;
    }
    double ratio = pm_shard_plan_balance(p, load);
    for (int i = 0; i < p->n_configs; i++)
        count[p->shard_of[i] - 1]++;
    json_t *arr = json ? json_array() : NULL;
    if (!json)
        fprintf(stderr, "shard plan %s, cost model: %s\n", p->hash, p->model);
    for (int k = 0; k < p->n; k++) {
        if (json)
            json_array_append_new(arr, json_pack("{s:i, s:i, s:f}", "shard", k + 1, "configs", count[k],
                                                 p->model_seconds ? "expected_s" : "expected_cost", load[k]));
        else
            fprintf(stderr, "  shard %d/%d: %d configs, expected %.4g%s\n", k + 1, p->n, count[k], load[k],
                    p->model_seconds ? " s" : " (relative)");
    }
    if (!json)
        fprintf(stderr, "  balance: largest shard / even split = %.2f\n", ratio);
    json_t *o = json ? json_pack("{s:s, s:s, s:f, s:o}", "hash", p->hash, "cost_model", p->model, "balance", ratio,
                                 "shards", arr)
                     : NULL;
    free(load);
    free(count);
    return o;
}

int pm_cli_write_plan(const pm_spec *spec, int shards, const char *costs_db, pm_cost_model model, const char *path,
                      int json)
{
    pm_shard_plan plan;
    pm_err err = {0};
    if (pm_shard_plan_make(spec, shards, costs_db, model, &plan, &err) || pm_shard_plan_write(&plan, path, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        return err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    json_t *o = print_balance(&plan, json);
    if (json && o) {
        json_object_set_new(o, "plan_file", json_string(path));
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
    } else {
        printf("wrote %s (%d configs over %d shards): run shard K with `passmap sweep SPEC --shard K/%d --plan %s`\n",
               path, plan.n_configs, shards, shards, path);
    }
    json_decref(o);
    pm_shard_plan_free(&plan);
    return PM_EXIT_OK;
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
    char plan_path[PATH_MAX + 32];
    snprintf(plan_path, sizeof plan_path, "%s/plan.txt", dir);
    pm_slurm_opts o = {.passmap = self, .spec_path = spec, .spec_name = s->spec_name, .out_db = out, .dir = dir,
                       .shards = s->shards, .partition = s->partition, .time_limit = s->time_limit,
                       .plan_path = plan_path, .warm = s->warm, .account = s->account, .qos = s->qos,
                       .constraint = s->constraint, .mem = s->mem, .throttle = s->throttle,
                       .sbatch_args = s->sbatch_args, .work_dir = s->work_dir};
    pm_err err = {0};
    char *a = NULL, *m = NULL;
    pm_shard_plan plan = {0};
    json_t *balance = NULL;
    if (pm_slurm_scripts(&o, &a, &m, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        return err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    int rc = PM_EXIT_OK;
    /* The plan is fixed here, once: every task reads it (the costs store is read now, never by a task). */
    if (pm_shard_plan_make(s->spec, s->shards, s->costs_db ? costs : NULL, s->cost_model, &plan, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        rc = err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
        goto cleanup;
    }
    balance = print_balance(&plan, s->json);
    if (s->dry_run) {
        const char *extra = s->sbatch_args ? s->sbatch_args : "";
        printf("# ---- %s/shards.sbatch (sbatch --parsable%s%s %s/shards.sbatch)\n%s", dir, *extra ? " " : "", extra,
               dir, a);
        printf("# ---- %s/merge.sbatch (sbatch --parsable --dependency=afterok:<array job id>%s%s %s/merge.sbatch)\n"
               "%s", dir, *extra ? " " : "", extra, dir, m);
        printf("# ---- %s (the plan every task reads; not written by --dry-run)\n%s", plan_path, plan.text);
        goto cleanup;
    }
    if (pm_util_mkdir_p(dir, &err) || pm_shard_plan_write(&plan, plan_path, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    char array_id[64], merge_id[64];
    if (pm_slurm_submit(&o, a, m, array_id, sizeof array_id, merge_id, sizeof merge_id, &err)) {
        fprintf(stderr, "passmap sweep: %s\n", err.msg);
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    if (s->json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:O?}", "array_job", array_id, "merge_job",
                              merge_id, "dir", dir, "shards", s->shards, "db", out, "sweep", s->spec_name, "plan_file",
                              plan_path, "plan", balance);
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
    json_decref(balance);
    pm_shard_plan_free(&plan);
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
    /* Shards whose task never started have no database: the plan says how many there are. */
    char plan_path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    pm_err e = {0};
    snprintf(plan_path, sizeof plan_path, "%s.slurm/plan.txt", db);
    const char *at = pm_util_read_file(plan_path, &text, &len, &e) == PM_OK && text ? strstr(text, "\nshards ") : NULL;
    int shards = at ? atoi(at + 8) : 0;
    for (int k = 1; k <= shards; k++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s.slurm/shard-%d-of-%d.db", db, k, shards);
        if (access(p, F_OK) != 0 && !json)
            printf("%s\n  shard %d/%d: not started (no database yet; squeue shows whether its task waits)\n", p, k,
                   shards);
    }
    free(text);
    if (access(db, F_OK) == 0)
        dbs[n++] = db;
    int rc = pm_cli_status(dbs, n, json);
    free(dbs);
    globfree(&g);
    return rc;
}
