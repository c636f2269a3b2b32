/* passmap sweep --slurm: the sweep as a Slurm job array of shards plus a dependent merge job. */
#include <glob.h>
#include <jansson.h>
#include <math.h>
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
    if (!json && isnan(ratio))
        fprintf(stderr, "  balance: unknown (no config has a known cost)\n");
    else if (!json)
        fprintf(stderr, "  balance: largest shard / even split = %.2f\n", ratio);
    json_t *o = json ? json_pack("{s:s, s:s, s:o, s:o}", "hash", p->hash, "cost_model", p->model, "balance",
                                 isnan(ratio) ? json_null() : json_real(ratio), "shards", arr)
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
    char array_id[64] = "", merge_id[64] = "";
    int src = pm_slurm_submit(&o, a, m, array_id, sizeof array_id, merge_id, sizeof merge_id, &err);
    /* the ids, for --status: an array submitted without its merge job is recorded too */
    pm_err rerr = {0};
    if ((array_id[0] || merge_id[0]) &&
        pm_slurm_record_jobs(dir, array_id[0] ? array_id : NULL, !src && merge_id[0] ? merge_id : NULL, &rerr))
        fprintf(stderr, "passmap sweep: warning: the job ids are not recorded (%s): --status finds them by name and "
                "log names only\n", rerr.msg);
    if (src) {
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
               "watch: passmap sweep %s --slurm --status --db %s   (squeue -j %s,%s)\n",
               s->shards, s->spec_name, array_id, out, merge_id, dir, s->spec_path, out, array_id, merge_id);
    }
cleanup:
    free(a);
    free(m);
    json_decref(balance);
    pm_shard_plan_free(&plan);
    return rc;
}

/* A Slurm state with its reason when that says something (pm_slurm_reason_shown). */
static void state_text(const pm_slurm_attempt *a, pm_sbuf *b)
{
    const char *why = pm_slurm_reason_shown(a);
    if (!a->job)
        pm_sbuf_add(b, "no job listed");
    else if (a->gone)
        pm_sbuf_add(b, "gone (cancelled while it waited)");
    else if (why)
        pm_sbuf_add(b, "%s (%s)", a->state, why);
    else
        pm_sbuf_add(b, "%s", a->state);
}

static void job_text(const pm_slurm_attempt *a, char *buf, size_t cap)
{
    if (!a->job)
        snprintf(buf, cap, "-");
    else if (a->task >= 0)
        snprintf(buf, cap, "%ld_%d", a->job, a->task);
    else
        snprintf(buf, cap, "%ld", a->job);
}

/* What to do, one line each into todo: a shard task that ended without completing is
 * resubmitted alone; a merge job that can never run is cancelled and resubmitted once the shards are done. */
static void slurm_todo(const pm_slurm_view *v, const char *dir, pm_sbuf *todo)
{
    pm_sbuf bad = {0}, logs = {0};
    int n_bad = 0, n_open = 0;
    for (int k = 0; k < v->shards; k++) {
        const pm_slurm_attempt *a = &v->shard[k];
        if (a->phase == PM_SLURM_ENDED) {
            pm_sbuf_add(&bad, "%s%d", n_bad ? "," : "", k + 1);
            char log[PATH_MAX + 64];
            snprintf(log, sizeof log, "%s/shard-%ld_%d.log", dir, a->job, a->task);
            if (access(log, F_OK) == 0) /* a task cancelled before it started has none */
                pm_sbuf_add(&logs, "%s%s", logs.len ? " " : "", log);
            n_bad++;
        }
        n_open += a->phase != PM_SLURM_DONE;
    }
    if (n_bad)
        pm_sbuf_add(todo, "%s %s ended without completing%s%s%s: %sresubmit: sbatch --array=%s %s/shards.sbatch (it "
                    "resumes the shard database)\n", n_bad > 1 ? "shards" : "shard", bad.s, logs.len ? " (" : "",
                    logs.len ? logs.s : "", logs.len ? ")" : "",
                    logs.len ? "read the log, fix the cause (a longer --time, more --mem), then " : "", bad.s, dir);
    const pm_slurm_attempt *m = &v->merge;
    int never = m->reason && strstr(m->reason, "DependencyNeverSatisfied");
    if (m->job && never && m->phase != PM_SLURM_ENDED)
        pm_sbuf_add(todo, "merge job %ld can never start (DependencyNeverSatisfied: a shard did not complete): "
                    "scancel %ld, redo the shard, then submit the merge: sbatch %s/merge.sbatch\n", m->job, m->job,
                    dir);
    else if (m->job && m->phase == PM_SLURM_ENDED && m->state && !strcmp(m->state, "CANCELLED"))
        pm_sbuf_add(todo, "merge job %ld was cancelled%s: once every shard is COMPLETED, submit it again: sbatch "
                    "%s/merge.sbatch\n", m->job, never ? " (a shard did not complete: --kill-on-invalid-dep)" : "",
                    dir);
    else if (m->job && m->phase == PM_SLURM_ENDED)
        pm_sbuf_add(todo, "merge job %ld ended %s: read %s/merge-%ld.log, then submit it again: sbatch "
                    "%s/merge.sbatch\n", m->job, m->state, dir, m->job, dir);
    else if (m->job && n_bad && m->phase == PM_SLURM_WAITING)
        pm_sbuf_add(todo, "merge job %ld can never start now (afterok, and a shard did not complete): Slurm cancels "
                    "it once the other tasks end (--kill-on-invalid-dep); after the resubmitted shards complete, "
                    "submit the merge again: sbatch %s/merge.sbatch\n", m->job, dir);
    else if (!m->job && !n_open)
        pm_sbuf_add(todo, "every shard is COMPLETED and no merge job is listed: merge with sbatch %s/merge.sbatch "
                    "(or run its passmap merge line)\n", dir);
    free(bad.s);
    free(logs.s);
}

/* Slurm's view of the study's jobs, after the stores' progress: text, or members of o (JSON). */
static void slurm_section(const char *db, const char *spec_name, int shards, json_t *o)
{
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s.slurm", db);
    pm_slurm_jobs jobs = {0};
    pm_slurm_known known = {0};
    pm_slurm_view v = {0};
    pm_err err = {0}, note = {0};
    pm_sbuf todo = {0};
    json_t *js = o ? json_object() : NULL;
    if (pm_slurm_query(dir, spec_name, &jobs, &known, &note, &err) ||
        pm_slurm_view_make(&jobs, &known, dir, shards, &v, &err)) {
        if (js)
            json_object_set_new(js, "error", json_string(err.msg));
        else
            printf("slurm: %s: the shard databases above are all there is to show\n", err.msg);
        goto cleanup;
    }
    slurm_todo(&v, dir, &todo);
    if (!js)
        printf("slurm: the jobs of %s (squeue%s)\n", dir, known.n_shards + known.n_merge ? ", jobs.txt, log names" : "");
    json_t *arr = js ? json_array() : NULL;
    for (int k = 0; k <= v.shards; k++) {
        const pm_slurm_attempt *a = k < v.shards ? &v.shard[k] : &v.merge;
        char job[64], what[32];
        pm_sbuf st = {0};
        state_text(a, &st);
        job_text(a, job, sizeof job);
        if (k < v.shards)
            snprintf(what, sizeof what, "shard %d/%d", k + 1, v.shards);
        else
            snprintf(what, sizeof what, "merge");
        if (js) {
            json_t *r = json_pack("{s:s?, s:s?, s:s?, s:i}", "job", a->job ? job : NULL, "state", a->state, "reason",
                                  pm_slurm_reason_shown(a), "attempts", a->attempts);
            if (a->gone)
                json_object_set_new(r, "gone", json_true());
            if (k < v.shards) {
                json_object_set_new(r, "shard", json_integer(k + 1));
                json_array_append_new(arr, r);
            } else {
                json_object_set_new(js, "merge", r);
            }
        } else {
            printf("  %-12s %-40s job %s%s\n", what, st.s ? st.s : "(out of memory)", job,
                   a->attempts > 1 ? " (newest of its jobs)" : "");
        }
        free(st.s);
    }
    if (js)
        json_object_set_new(js, "shards", arr);
    pm_sbuf ul = {0};
    for (size_t i = 0; i < v.n_unlisted; i++)
        pm_sbuf_add(&ul, "%s%ld", i ? ", " : "", v.unlisted[i]);
    if (js) {
        json_t *t = json_array();
        for (char *line = todo.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
            json_array_append_new(t, json_stringn(line, (size_t)(nl - line)));
        json_object_set_new(js, "todo", t);
        if (note.msg[0])
            json_object_set_new(js, "note", json_string(note.msg));
        if (ul.s)
            json_object_set_new(js, "unlisted", json_string(ul.s));
    } else {
        if (note.msg[0])
            printf("slurm: %s\n", note.msg);
        else if (ul.s)
            printf("slurm: jobs %s are no longer listed by squeue or sacct\n", ul.s);
        for (char *line = todo.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
            printf("to do: %.*s\n", (int)(nl - line), line);
    }
    free(ul.s);
cleanup:
    if (js)
        json_object_set_new(o, "slurm", js);
    free(todo.s);
    pm_slurm_view_free(&v);
    pm_slurm_known_free(&known);
    pm_slurm_jobs_free(&jobs);
}

int pm_cli_slurm_plan_sweep(const char *db, char *name, size_t size)
{
    char plan_path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    pm_err e = {0};
    if (snprintf(plan_path, sizeof plan_path, "%s.slurm/plan.txt", db) >= (int)sizeof plan_path ||
        pm_util_read_file(plan_path, &text, &len, &e) != PM_OK || !text)
        return 0;
    const char *at = strstr(text, "\nsweep ");
    size_t n = at ? strcspn(at + 7, "\n") : 0;
    int found = n > 0 && n < size;
    if (found) {
        memcpy(name, at + 7, n);
        name[n] = 0;
    }
    free(text);
    return found;
}

int pm_cli_slurm_status(const char *db, const char *spec_name, int json)
{
    char pattern[PATH_MAX + 32];
    if (snprintf(pattern, sizeof pattern, "%s.slurm/shard-*-of-*.db", db) >= (int)sizeof pattern) {
        fprintf(stderr, "passmap sweep: --db path too long\n");
        return PM_EXIT_USAGE;
    }
    /* the plan says how many shards there are, whether their tasks started or not */
    char plan_path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    pm_err e = {0};
    snprintf(plan_path, sizeof plan_path, "%s.slurm/plan.txt", db);
    const char *at = pm_util_read_file(plan_path, &text, &len, &e) == PM_OK && text ? strstr(text, "\nshards ") : NULL;
    int shards = at ? atoi(at + 8) : 0;
    free(text);
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(pattern, 0, NULL, &g);
    if (grc != 0 && grc != GLOB_NOMATCH) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: cannot list %s\n", pattern);
        return PM_EXIT_FAIL;
    }
    if (!shards && (grc == GLOB_NOMATCH || g.gl_pathc == 0)) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: no plan and no shard database in %s.slurm/: nothing was submitted for this "
                "--db (submit with passmap sweep SPEC --slurm --db %s)\n", db, db);
        return PM_EXIT_FAIL;
    }
    const char **dbs = calloc(g.gl_pathc + 2, sizeof *dbs);
    if (!dbs) {
        globfree(&g);
        fprintf(stderr, "passmap sweep: out of memory\n");
        return PM_EXIT_FAIL;
    }
    int n = 0;
    for (size_t i = 0; grc == 0 && i < g.gl_pathc; i++)
        dbs[n++] = g.gl_pathv[i];
    /* Shards whose task never started have no database. */
    for (int k = 1; k <= shards; k++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s.slurm/shard-%d-of-%d.db", db, k, shards);
        if (access(p, F_OK) != 0 && !json)
            printf("%s\n  shard %d/%d: not started (no database yet)\n", p, k, shards);
    }
    if (access(db, F_OK) == 0)
        dbs[n++] = db;
    json_t *arr = json ? json_array() : NULL;
    int rc = pm_cli_status_into(dbs, n, arr);
    if (shards) {
        json_t *o = json ? json_object() : NULL;
        slurm_section(db, spec_name, shards, o);
        if (o) {
            json_object_set_new(o, "stores", arr);
            arr = o;
        }
    }
    if (arr) {
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
        json_decref(arr);
    }
    free(dbs);
    globfree(&g);
    return rc;
}
