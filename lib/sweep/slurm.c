#include "slurm.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "run.h"
#include "util.h"

#define PM_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/* One word, shell-quoted when needed. */
static void add_word(pm_sbuf *b, const char *w)
{
    char *argv[] = {pm_unconst(w), NULL};
    char *q = pm_argv_join(argv);
    if (!q) {
        b->oom = 1;
        return;
    }
    pm_sbuf_add(b, "%s", q);
    free(q);
}

static int valid_chars(const char *v, const char *allowed)
{
    if (!v || !*v)
        return 0;
    for (const char *c = v; *c; c++)
        if (!strchr(allowed, *c))
            return 0;
    return 1;
}

int pm_slurm_shard_db(const pm_slurm_opts *o, int k, char *out, size_t cap, pm_err *err)
{
    int n = snprintf(out, cap, "%s/shard-%d-of-%d.db", o->dir, k, o->shards);
    if (n < 0 || (size_t)n >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", o->dir);
    return PM_OK;
}

/* Site options, each on an #SBATCH line of both jobs. sbatch reads those lines with its own word splitting (no
 * shell quoting survives it), so a value is refused unless every character is one Slurm's syntax for it needs. */
static const struct site_opt {
    const char *name;
    size_t offset;
    const char *allowed, *what;
} site[] = {
    {"account", offsetof(pm_slurm_opts, account), PM_NAME_CHARS, "a Slurm account name (letters, digits, _ . -)"},
    {"qos", offsetof(pm_slurm_opts, qos), PM_NAME_CHARS, "a QOS name (letters, digits, _ . -)"},
    {"constraint", offsetof(pm_slurm_opts, constraint), PM_NAME_CHARS "&|[]*:(),!",
     "node features joined by & | , with [ ] * : ( ) !"},
    {"mem", offsetof(pm_slurm_opts, mem), "0123456789KMGTkmgt", "a size such as 16G or 4000M"},
};

static void header(pm_sbuf *b, const pm_slurm_opts *o, const char *job, const char *what)
{
    pm_sbuf_add(b, "#!/bin/sh\n");
    pm_sbuf_add(b, "#SBATCH --job-name=passmap-%s%s\n", o->spec_name, job);
    if (o->partition)
        pm_sbuf_add(b, "#SBATCH --partition=%s\n", o->partition);
    if (o->time_limit)
        pm_sbuf_add(b, "#SBATCH --time=%s\n", o->time_limit);
    for (size_t i = 0; i < sizeof site / sizeof site[0]; i++)
        if (*(const char *const *)((const char *)o + site[i].offset))
            pm_sbuf_add(b, "#SBATCH --%s=%s\n", site[i].name, *(const char *const *)((const char *)o + site[i].offset));
    pm_sbuf_add(b, "# Written by `passmap sweep --slurm` for ");
    add_word(b, o->spec_path);
    pm_sbuf_add(b, ": %s\n", what);
}

int pm_slurm_scripts(const pm_slurm_opts *o, char **shards_script, char **merge_script, pm_err *err)
{
    *shards_script = *merge_script = NULL;
    if (o->shards < 1 || o->shards > 100000)
        return pm_err_set(err, PM_ERR_USAGE, "--shards %d: must be between 1 and 100000", o->shards);
    /* These go verbatim on #SBATCH lines: a space or newline would end or add a directive. */
    if (o->partition && !valid_chars(o->partition, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,-"))
        return pm_err_set(err, PM_ERR_USAGE, "--partition '%s': a Slurm partition name (letters, digits, _ . , -)",
                          o->partition);
    if (o->time_limit && !valid_chars(o->time_limit, "0123456789:-"))
        return pm_err_set(err, PM_ERR_USAGE, "--time '%s': Slurm time syntax, e.g. 90, 2:00:00 or 1-12:00:00",
                          o->time_limit);
    for (size_t i = 0; i < sizeof site / sizeof site[0]; i++) {
        const char *v = *(const char *const *)((const char *)o + site[i].offset);
        if (v && !valid_chars(v, site[i].allowed))
            return pm_err_set(err, PM_ERR_USAGE, "--%s '%s': %s", site[i].name, v, site[i].what);
    }
    if (o->sbatch_args && strpbrk(o->sbatch_args, "\n\r"))
        return pm_err_set(err, PM_ERR_USAGE, "--sbatch-args contains a line break: give options separated by spaces");
    if (o->work_dir && strcmp(o->work_dir, "$TMPDIR") && o->work_dir[0] != '/')
        return pm_err_set(err, PM_ERR_USAGE, "--work-dir '%s' with --slurm: an absolute path on every node, or "
                          "'$TMPDIR' (the task's node-local scratch)", o->work_dir);
    if (o->throttle < 0 || o->throttle > 100000)
        return pm_err_set(err, PM_ERR_USAGE, "--throttle %d: must be between 1 and 100000", o->throttle);
    if (!valid_chars(o->spec_name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"))
        return pm_err_set(err, PM_ERR_USAGE, "sweep name '%s' cannot be a Slurm job name (letters, digits, _ . + -)",
                          o->spec_name);
    /* Every value below is shell-quoted in the scripts, but no quoting survives a line break inside a comment
     * or an #SBATCH line (sbatch stops reading directives at the first line that is not one): refused. */
    const char *paths[][2] = {{"the spec path", o->spec_path}, {"the --db path", o->out_db},
                              {"the --costs path", o->costs_db}, {"passmap's own path", o->passmap},
                              {"the script folder", o->dir}, {"the plan path", o->plan_path},
                              {"the --work-dir path", o->work_dir}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (paths[i][1] && strpbrk(paths[i][1], "\n\r"))
            return pm_err_set(err, PM_ERR_USAGE, "%s contains a line break, which no Slurm script can carry safely: "
                              "rename it (%.200s)", paths[i][0], paths[i][1]);
    /* #SBATCH --output=DIR/... is split at white space by sbatch, and % and \ in it are Slurm's file-name
     * patterns and escapes. */
    if (strpbrk(o->dir, " \t%\\"))
        return pm_err_set(err, PM_ERR_USAGE, "'%s': a path with white space, %% or \\ cannot go on an #SBATCH "
                          "--output line; use a --db path without them", o->dir);
    pm_sbuf a = {0}, m = {0};
    char what[160];
    snprintf(what, sizeof what, "shard K of %d per array task", o->shards);
    header(&a, o, "", what);
    if (o->throttle > 0)   /* the site's limit on tasks at once: Slurm starts the next as one ends */
        pm_sbuf_add(&a, "#SBATCH --array=1-%d%%%d\n", o->shards, o->throttle);
    else
        pm_sbuf_add(&a, "#SBATCH --array=1-%d\n", o->shards);
    pm_sbuf_add(&a, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
    pm_sbuf_add(&a, "# Alone on the node: compile times are only comparable when nothing else runs beside them.\n");
    pm_sbuf_add(&a, "#SBATCH --exclusive\n");
    /* One log per array job and task (%A_%a): a resubmitted array never overwrites an earlier attempt's log, and
     * a requeued task appends to its own. */
    pm_sbuf_add(&a, "#SBATCH --output=%s/shard-%%A_%%a.log\n#SBATCH --open-mode=append\n", o->dir);
    pm_sbuf_add(&a, "# A requeued or rerun task resumes its shard database: finished runs are kept, none is doubled.\n");
    pm_sbuf_add(&a, "set -eu\nk=$SLURM_ARRAY_TASK_ID\nexec ");
    add_word(&a, o->passmap);
    /* no --quiet: a line per run in the task's log is its progress (stderr, unbuffered: a killed task's log
     * still shows how far it came) */
    pm_sbuf_add(&a, " sweep --shard \"$k/%d\" --db ", o->shards);
    add_word(&a, o->dir);
    pm_sbuf_add(&a, "/\"shard-$k-of-%d.db\"", o->shards);
    if (o->plan_path) {   /* the plan fixed at submit: a requeued or resubmitted task keeps its configs */
        pm_sbuf_add(&a, " --plan ");
        add_word(&a, o->plan_path);
    } else if (o->costs_db) {
        pm_sbuf_add(&a, " --costs ");
        add_word(&a, o->costs_db);
    }
    if (o->warm >= 0)
        pm_sbuf_add(&a, " %s", o->warm ? "--warm" : "--no-warm");
    /* run folders on node-local storage: only the shard's database is written to the shared folder */
    if (o->work_dir && !strcmp(o->work_dir, "$TMPDIR")) {
        pm_sbuf_add(&a, " --work-dir \"${TMPDIR:-/tmp}/passmap-$SLURM_ARRAY_JOB_ID-$k\"");
    } else if (o->work_dir) {
        pm_sbuf_add(&a, " --work-dir ");
        add_word(&a, o->work_dir);
        pm_sbuf_add(&a, "/\"passmap-$SLURM_ARRAY_JOB_ID-$k\"");
    }
    pm_sbuf_add(&a, " ");
    add_word(&a, o->spec_path);
    pm_sbuf_add(&a, "\n");

    header(&m, o, "-merge", "joins the shard databases once every shard succeeded");
    pm_sbuf_add(&m, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
    pm_sbuf_add(&m, "#SBATCH --output=%s/merge-%%j.log\n", o->dir);
    pm_sbuf_add(&m, "# Submitted with --dependency=afterok on the shard array. Idempotent: rerun it after fixing a shard.\n");
    pm_sbuf_add(&m, "# A shard that failed, was cancelled or timed out can never satisfy afterok: Slurm then cancels this\n"
                    "# job instead of leaving it pending forever (resubmit it after the shard is redone).\n");
    pm_sbuf_add(&m, "#SBATCH --kill-on-invalid-dep=yes\n");
    pm_sbuf_add(&m, "set -eu\nexec ");
    add_word(&m, o->passmap);
    pm_sbuf_add(&m, " merge ");
    add_word(&m, o->out_db);
    for (int k = 1; k <= o->shards; k++) {
        char p[4096];
        int rc = pm_slurm_shard_db(o, k, p, sizeof p, err);
        if (rc) {
            free(a.s);
            free(m.s);
            return rc;
        }
        pm_sbuf_add(&m, " \\\n  ");
        add_word(&m, p);
    }
    pm_sbuf_add(&m, "\n");
    if (a.oom || m.oom) {
        free(a.s);
        free(m.s);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    *shards_script = a.s;
    *merge_script = m.s;
    return PM_OK;
}

static int write_file(const char *path, const char *text, pm_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return pm_err_errno(err, PM_ERR_IO, "cannot write %s", path);
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    if (fclose(f) || bad)
        return pm_err_errno(err, PM_ERR_IO, "cannot write %s", path);
    return PM_OK;
}

/* sbatch --parsable prints "jobid" or "jobid;cluster". */
static int sbatch(const pm_slurm_opts *o, const char *script, const char *dependency, char *id, size_t cap,
                  pm_err *err)
{
    char out[4096], errp[4096], dep[128];
    snprintf(out, sizeof out, "%s/sbatch.stdout", o->dir);
    snprintf(errp, sizeof errp, "%s/sbatch.stderr", o->dir);
    char **argv = NULL, *words = NULL;
    int rc = pm_argv_push(&argv, "sbatch") | pm_argv_push(&argv, "--parsable");
    if (dependency) {
        snprintf(dep, sizeof dep, "--dependency=afterok:%s", dependency);
        rc |= pm_argv_push(&argv, dep);
    }
    /* the site's extra options: words split at white space, never through a shell */
    if (o->sbatch_args && !(words = strdup(o->sbatch_args)))
        rc = PM_ERR_NOMEM;
    char *save = NULL;
    for (char *w = words ? strtok_r(words, " \t", &save) : NULL; w && !rc; w = strtok_r(NULL, " \t", &save))
        rc |= pm_argv_push(&argv, w);
    rc |= pm_argv_push(&argv, script);
    free(words);
    if (rc) {
        pm_argv_free(argv);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    pm_run_opts ro = {.timeout_s = o->submit_timeout_s > 0 ? o->submit_timeout_s : 60, .stdout_path = out,
                      .stderr_path = errp};
    pm_run_result res;
    rc = pm_run_exec((const char *const *)argv, &ro, &res, err);
    pm_argv_free(argv);
    if (rc)
        return rc;
    char *text = NULL, *etext = NULL;
    size_t len = 0;
    pm_err ignored = {0};
    pm_util_read_file(out, &text, &len, &ignored);
    pm_util_read_file(errp, &etext, &len, &ignored);
    if (res.status != PM_RUN_OK) {
        if (res.status == PM_RUN_SPAWN_ERROR)
            rc = pm_err_set(err, PM_ERR_NOTFOUND, "cannot run sbatch (%s): is Slurm's client installed and on PATH?",
                            res.spawn_error);
        else
            rc = pm_err_set(err, PM_ERR_CHILD, "sbatch %s %s: %s", script, pm_run_status_name(res.status),
                            etext && *etext ? etext : "(no message)");
        goto cleanup;
    }
    size_t n = text ? strspn(text, "0123456789_") : 0;
    if (n == 0 || n >= cap) {
        rc = pm_err_set(err, PM_ERR_CHILD, "sbatch %s printed no job id: %.200s", script, text ? text : "");
        goto cleanup;
    }
    memcpy(id, text, n);
    id[n] = '\0';
cleanup:
    if (etext && rc) {
        size_t l = strlen(err->msg);
        while (l && (err->msg[l - 1] == '\n' || err->msg[l - 1] == ' '))
            err->msg[--l] = '\0';
    }
    free(text);
    free(etext);
    return rc;
}

int pm_slurm_submit(const pm_slurm_opts *o, const char *shards_script, const char *merge_script, char *array_id,
                    size_t array_cap, char *merge_id, size_t merge_cap, pm_err *err)
{
    char a[4096], m[4096];
    int rc;
    if ((rc = pm_util_mkdir_p(o->dir, err)))
        return rc;
    snprintf(a, sizeof a, "%s/shards.sbatch", o->dir);
    snprintf(m, sizeof m, "%s/merge.sbatch", o->dir);
    if ((rc = write_file(a, shards_script, err)) || (rc = write_file(m, merge_script, err)))
        return rc;
    if ((rc = sbatch(o, a, NULL, array_id, array_cap, err)))
        return rc;
    if ((rc = sbatch(o, m, array_id, merge_id, merge_cap, err)))
        return pm_err_wrap(err, "shard array %s was submitted, the merge job not (run `sbatch "
                           "--dependency=afterok:%s %s` by hand)", array_id, array_id, m);
    return PM_OK;
}
