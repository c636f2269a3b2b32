/* What Slurm says about a study's jobs: the ids `sweep --slurm` recorded and its logs carry, squeue's and sacct's
 * rows for them, and each shard's newest attempt. The parsing and the view are pure; pm_slurm_query is the one
 * place that runs squeue and sacct (through the runner, with a timeout). */
#include "slurm.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "run.h"
#include "util.h"

/* squeue and sacct answer from the controller (or the accounting database): seconds, unless it is down. */
#define PM_SLURM_QUERY_TIMEOUT_S 30
/* Slurm refuses a MaxArraySize above this: a range wider than it is no array Slurm printed. */
#define PM_SLURM_MAX_ARRAY 4000001

/* Slurm's job states (squeue --states, sacct STATE CODES) and where each leaves a study. */
static const struct slurm_state {
    const char *name;
    pm_slurm_phase phase;
} slurm_states[] = {
    {"PENDING", PM_SLURM_WAITING},      {"REQUEUED", PM_SLURM_WAITING},       {"REQUEUE_HOLD", PM_SLURM_WAITING},
    {"REQUEUE_FED", PM_SLURM_WAITING},  {"RESV_DEL_HOLD", PM_SLURM_WAITING},  {"SUSPENDED", PM_SLURM_WAITING},
    {"STOPPED", PM_SLURM_WAITING},      {"RESIZING", PM_SLURM_WAITING},       {"CONFIGURING", PM_SLURM_RUNNING},
    {"RUNNING", PM_SLURM_RUNNING},      {"COMPLETING", PM_SLURM_RUNNING},     {"SIGNALING", PM_SLURM_RUNNING},
    {"STAGE_OUT", PM_SLURM_RUNNING},    {"COMPLETED", PM_SLURM_DONE},         {"FAILED", PM_SLURM_ENDED},
    {"CANCELLED", PM_SLURM_ENDED},      {"TIMEOUT", PM_SLURM_ENDED},          {"NODE_FAIL", PM_SLURM_ENDED},
    {"OUT_OF_MEMORY", PM_SLURM_ENDED},  {"BOOT_FAIL", PM_SLURM_ENDED},        {"DEADLINE", PM_SLURM_ENDED},
    {"PREEMPTED", PM_SLURM_ENDED},      {"REVOKED", PM_SLURM_ENDED},          {"SPECIAL_EXIT", PM_SLURM_ENDED},
};

pm_slurm_phase pm_slurm_state_phase(const char *state)
{
    for (size_t i = 0; state && i < sizeof slurm_states / sizeof slurm_states[0]; i++)
        if (!strcmp(state, slurm_states[i].name))
            return slurm_states[i].phase;
    return PM_SLURM_UNKNOWN;
}

/* Reasons a job keeps from its wait in the queue: once it ended they say nothing about how (squeue lists a task
 * cancelled while pending as "CANCELLED" with reason "Resources"). */
static const char *const wait_reasons[] = {
    "None", "Resources", "Priority", "Dependency", "BeginTime", "JobHeldUser", "JobHeldAdmin", "JobArrayTaskLimit",
    "ReqNodeNotAvail", "PartitionNodeLimit", "PartitionTimeLimit", "Reservation", "Licenses", "QOSMaxJobsPerUserLimit",
    "AssocGrpJobsLimit", "AssocMaxJobsLimit",
};

const char *pm_slurm_reason_shown(const pm_slurm_attempt *a)
{
    if (!a->job || !a->reason || !*a->reason || !strcmp(a->reason, "None") || !strcmp(a->reason, a->state))
        return NULL;
    if (a->phase == PM_SLURM_WAITING || a->phase == PM_SLURM_RUNNING || a->phase == PM_SLURM_UNKNOWN)
        return a->reason;
    /* the reason's first word ("ReqNodeNotAvail, UnavailableNodes:n[1-4]") */
    size_t n = strcspn(a->reason, ", ");
    for (size_t i = 0; i < sizeof wait_reasons / sizeof wait_reasons[0]; i++)
        if (strlen(wait_reasons[i]) == n && !strncmp(a->reason, wait_reasons[i], n))
            return NULL;
    return a->reason;
}

void pm_slurm_jobs_free(pm_slurm_jobs *j)
{
    for (size_t i = 0; j && i < j->n; i++)
        pm_free_all(j->v[i].state, j->v[i].reason, j->v[i].command);
    if (j) {
        free(j->v);
        memset(j, 0, sizeof *j);
    }
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int push_job(pm_slurm_jobs *out, long job, int task, const char *state, size_t state_n, const char *reason,
                    size_t reason_n, const char *command, size_t command_n, pm_err *err)
{
    pm_slurm_job *v = pm_grow(out->v, &out->cap, out->n, sizeof *v, 16);
    if (!v)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    out->v = v;
    pm_slurm_job *j = &out->v[out->n];
    memset(j, 0, sizeof *j);
    j->job = job;
    j->task = task;
    j->state = dup_n(state, state_n);
    j->reason = dup_n(reason, reason_n);
    j->command = command ? dup_n(command, command_n) : NULL;
    if (!j->state || !j->reason || (command && !j->command)) {
        free(j->state);
        free(j->reason);
        free(j->command);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    out->n++;
    return PM_OK;
}

/* A decimal number of at most 9 digits (task ids) or 18 (job ids) at *p; advances *p. */
static int read_num(const char **p, const char *end, int max_digits, long *v)
{
    const char *s = *p;
    long n = 0;
    while (s < end && *s >= '0' && *s <= '9' && s - *p < max_digits)
        n = n * 10 + (*s++ - '0');
    if (s == *p || (s < end && *s >= '0' && *s <= '9'))
        return -1;
    *v = n;
    *p = s;
    return 0;
}

/* One line; *line_no for the message. */
static int parse_line(const char *line, size_t len, int columns, int line_no, pm_slurm_jobs *out, pm_err *err)
{
    const char *end = line + len, *col[4] = {0}, *col_end[4] = {0};
    const char *p = line;
    for (int c = 0; c < columns; c++) {
        col[c] = p;
        const char *bar = c < columns - 1 ? memchr(p, '|', (size_t)(end - p)) : NULL;
        if (c < columns - 1 && !bar)
            return pm_err_set(err, PM_ERR_PARSE, "line %d has fewer than %d '|'-separated columns: %.200s", line_no,
                              columns, line);
        col_end[c] = bar ? bar : end;
        p = bar ? bar + 1 : end;
    }
    if (columns == 3 && memchr(col[2], '|', (size_t)(col_end[2] - col[2])))
        return pm_err_set(err, PM_ERR_PARSE, "line %d has more than 3 '|'-separated columns: %.200s", line_no, line);
    /* the job id: JOB, JOB_TASK, JOB_[RANGES]; JOB.step is a step of a job listed on its own line */
    const char *q = col[0];
    long job = 0, task = -1;
    if (read_num(&q, col_end[0], 18, &job))
        goto bad_id;
    if (q < col_end[0] && *q == '.')
        return PM_OK;
    /* the state's first word: sacct says "CANCELLED by 1000" */
    const char *st = col[1], *st_end = col_end[1];
    while (st < st_end && *st == ' ')
        st++;
    const char *sp = memchr(st, ' ', (size_t)(st_end - st));
    if (sp)
        st_end = sp;
    if (st == st_end)
        return pm_err_set(err, PM_ERR_PARSE, "line %d has no job state: %.200s", line_no, line);
    size_t reason_n = (size_t)(col_end[2] - col[2]);
    const char *cmd = columns == 4 ? col[3] : NULL;
    size_t cmd_n = columns == 4 ? (size_t)(col_end[3] - col[3]) : 0;
    if (q == col_end[0])
        return push_job(out, job, -1, st, (size_t)(st_end - st), col[2], reason_n, cmd, cmd_n, err);
    if (*q++ != '_')
        goto bad_id;
    if (q < col_end[0] && *q != '[') {
        if (read_num(&q, col_end[0], 9, &task) || (q < col_end[0] && *q != '.'))
            goto bad_id;
        if (q < col_end[0])
            return PM_OK; /* JOB_TASK.step */
        return push_job(out, job, (int)task, st, (size_t)(st_end - st), col[2], reason_n, cmd, cmd_n, err);
    }
    /* JOB_[1-3,5%2]: every task of the ranges (the %throttle is not a task) */
    if (q >= col_end[0] || col_end[0][-1] != ']')
        goto bad_id;
    const char *r = q + 1, *r_end = col_end[0] - 1;
    const char *pct = memchr(r, '%', (size_t)(r_end - r));
    if (pct)
        r_end = pct;
    while (r < r_end) {
        long lo, hi;
        if (read_num(&r, r_end, 9, &lo))
            goto bad_id;
        hi = lo;
        if (r < r_end && *r == '-') {
            r++;
            if (read_num(&r, r_end, 9, &hi) || hi < lo)
                goto bad_id;
        }
        if (hi - lo >= PM_SLURM_MAX_ARRAY)
            return pm_err_set(err, PM_ERR_PARSE, "line %d: an array range of %ld tasks, beyond Slurm's largest "
                              "MaxArraySize (%d): %.200s", line_no, hi - lo + 1, PM_SLURM_MAX_ARRAY, line);
        if (r < r_end && *r == ':') /* a step ("1-9:2"): Slurm prints the tasks it holds, so take the step */
            goto bad_id;
        for (long t = lo; t <= hi; t++) {
            int rc = push_job(out, job, (int)t, st, (size_t)(st_end - st), col[2], reason_n, cmd, cmd_n, err);
            if (rc)
                return rc;
        }
        if (r < r_end && *r++ != ',')
            goto bad_id;
    }
    return PM_OK;
bad_id:
    return pm_err_set(err, PM_ERR_PARSE, "line %d: '%.*s' is not a Slurm job id (JOB, JOB_TASK or JOB_[RANGES])",
                      line_no, (int)(col_end[0] - col[0] < 64 ? col_end[0] - col[0] : 64), col[0]);
}

int pm_slurm_parse_jobs(const char *text, int columns, pm_slurm_jobs *out, pm_err *err)
{
    if (columns != 3 && columns != 4)
        return pm_err_set(err, PM_ERR_USAGE, "pm_slurm_parse_jobs: columns is 3 or 4, not %d", columns);
    int line_no = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        line_no++;
        if (len && p[len - 1] == '\r')
            len--;
        size_t lead = strspn(p, " \t");
        if (lead < len) {
            char *line = dup_n(p + lead, len - lead);
            if (!line)
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            int rc = parse_line(line, len - lead, columns, line_no, out, err);
            free(line);
            if (rc)
                return rc;
        }
        p = nl ? nl + 1 : p + len;
    }
    return PM_OK;
}

static int add_id(long **v, size_t *n, long id, pm_err *err)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == id)
            return PM_OK;
    long *g = realloc(*v, (*n + 1) * sizeof *g);
    if (!g)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    g[(*n)++] = id;
    *v = g;
    return PM_OK;
}

static int has_id(const long *v, size_t n, long id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == id)
            return 1;
    return 0;
}

void pm_slurm_known_free(pm_slurm_known *k)
{
    if (k) {
        pm_free_all(k->shards, k->merge);
        memset(k, 0, sizeof *k);
    }
}

/* The kinds of job a study submits: the word jobs.txt names them by, and their log name's prefix. */
static const struct job_kind {
    const char *word, *log_prefix;
    size_t known_offset, count_offset;
} job_kinds[] = {
    {"shards", "shard-", offsetof(pm_slurm_known, shards), offsetof(pm_slurm_known, n_shards)},
    {"merge", "merge-", offsetof(pm_slurm_known, merge), offsetof(pm_slurm_known, n_merge)},
};

static int add_kind(pm_slurm_known *k, const struct job_kind *kind, long id, pm_err *err)
{
    return add_id((long **)((char *)k + kind->known_offset), (size_t *)((char *)k + kind->count_offset), id, err);
}

static int known_parse_lines(const char *text, pm_slurm_known *k, pm_err *err)
{
    int line_no = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        line_no++;
        if (len && *p != '#') {
            size_t i;
            int rc = -1;
            for (i = 0; i < sizeof job_kinds / sizeof job_kinds[0]; i++) {
                size_t w = strlen(job_kinds[i].word);
                const char *q = p + w + 1;
                long id;
                if (len > w + 1 && !strncmp(p, job_kinds[i].word, w) && p[w] == ' ' &&
                    !read_num(&q, p + len, 18, &id) && q == p + len) {
                    rc = add_kind(k, &job_kinds[i], id, err);
                    break;
                }
            }
            if (rc > 0)
                return rc;
            if (rc < 0)
                return pm_err_set(err, PM_ERR_PARSE, "jobs.txt line %d: expected 'shards ID' or 'merge ID': %.*s",
                                  line_no, (int)(len < 200 ? len : 200), p);
        }
        p = nl ? nl + 1 : p + len;
    }
    return PM_OK;
}

int pm_slurm_known_parse(const char *text, pm_slurm_known *k, pm_err *err)
{
    int rc = known_parse_lines(text, k, err);
    if (!rc)
        k->n_submitted = k->n_shards;
    return rc;
}

int pm_slurm_known_add_log(pm_slurm_known *k, const char *name, pm_err *err)
{
    for (size_t i = 0; i < sizeof job_kinds / sizeof job_kinds[0]; i++) {
        size_t w = strlen(job_kinds[i].log_prefix);
        if (strncmp(name, job_kinds[i].log_prefix, w))
            continue;
        const char *q = name + w, *end = name + strlen(name);
        long id, task;
        if (read_num(&q, end, 18, &id))
            return PM_OK;
        /* shard-JOB_K.log; merge-JOB.log (shard-K-of-N.db is no log) */
        if (*q == '_') {
            q++;
            if (read_num(&q, end, 9, &task))
                return PM_OK;
        }
        if (strcmp(q, ".log"))
            return PM_OK;
        return add_kind(k, &job_kinds[i], id, err);
    }
    return PM_OK;
}

int pm_slurm_record_jobs(const char *dir, const char *array_id, const char *merge_id, pm_err *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/jobs.txt", dir) >= (int)sizeof path)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s/jobs.txt", dir);
    char *old = NULL;
    size_t len = 0;
    if (access(path, F_OK) == 0) {
        int rc = pm_util_read_file(path, &old, &len, err);
        if (rc)
            return rc;
    }
    pm_sbuf b = {0};
    if (old && *old)
        pm_sbuf_add(&b, "%s%s", old, old[len - 1] == '\n' ? "" : "\n");
    else
        pm_sbuf_add(&b, "# the jobs `passmap sweep --slurm` submitted, newest last (read by `sweep --slurm --status`)\n");
    if (array_id)
        pm_sbuf_add(&b, "shards %s\n", array_id);
    if (merge_id)
        pm_sbuf_add(&b, "merge %s\n", merge_id);
    free(old);
    if (b.oom) {
        free(b.s);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    int rc = pm_util_write_file_atomic(path, b.s, b.len, 0644, NULL, err);
    free(b.s);
    return rc;
}

void pm_slurm_view_free(pm_slurm_view *v)
{
    if (v) {
        pm_free_all(v->shard, v->unlisted);
        memset(v, 0, sizeof *v);
    }
}

static void take(pm_slurm_attempt *a, const pm_slurm_job *j)
{
    a->attempts++;
    if (j->job < a->job)
        return;
    a->job = j->job;
    a->task = j->task;
    a->state = j->state;
    a->reason = j->reason;
    a->phase = pm_slurm_state_phase(j->state);
}

int pm_slurm_view_make(const pm_slurm_jobs *jobs, const pm_slurm_known *known, const char *dir, int shards,
                       pm_slurm_view *v, pm_err *err)
{
    memset(v, 0, sizeof *v);
    if (shards < 1)
        return pm_err_set(err, PM_ERR_USAGE, "no shards: the plan names none");
    char shards_script[PATH_MAX], merge_script[PATH_MAX];
    if (snprintf(shards_script, sizeof shards_script, "%s/shards.sbatch", dir) >= (int)sizeof shards_script ||
        snprintf(merge_script, sizeof merge_script, "%s/merge.sbatch", dir) >= (int)sizeof merge_script)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", dir);
    v->shards = shards;
    v->shard = calloc((size_t)shards, sizeof *v->shard);
    if (!v->shard)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < shards; k++)
        v->shard[k].task = k + 1;
    v->merge.task = -1;
    for (size_t i = 0; i < jobs->n; i++) {
        const pm_slurm_job *j = &jobs->v[i];
        /* a known id decides; else the script it runs (a job of another study with the same name runs another) */
        int is_shard = has_id(known->shards, known->n_shards, j->job);
        int is_merge = !is_shard && has_id(known->merge, known->n_merge, j->job);
        if (!is_shard && !is_merge && j->command) {
            is_shard = !strcmp(j->command, shards_script);
            is_merge = !strcmp(j->command, merge_script);
        }
        if (is_shard && j->task >= 1 && j->task <= shards)
            take(&v->shard[j->task - 1], j);
        else if (is_merge && j->task < 0)
            take(&v->merge, j);
    }
    /* a task of a whole array that squeue still lists, yet no row of any job: cancelled while it waited */
    for (size_t i = 0; i < known->n_submitted; i++) {
        int listed = 0;
        for (size_t r = 0; r < jobs->n && !listed; r++)
            listed = jobs->v[r].job == known->shards[i];
        for (int k = 0; listed && k < shards; k++)
            if (!v->shard[k].job) {
                v->shard[k].job = known->shards[i];
                v->shard[k].gone = 1;
                v->shard[k].phase = PM_SLURM_ENDED;
            }
    }
    /* the known ids no row mentions: Slurm forgot them (and has no accounting to ask) */
    for (size_t kind = 0; kind < 2; kind++) {
        const long *ids = kind ? known->merge : known->shards;
        size_t n = kind ? known->n_merge : known->n_shards;
        for (size_t i = 0; i < n; i++) {
            int seen = 0;
            for (size_t r = 0; r < jobs->n && !seen; r++)
                seen = jobs->v[r].job == ids[i];
            if (!seen) {
                int rc = add_id(&v->unlisted, &v->n_unlisted, ids[i], err);
                if (rc) {
                    pm_slurm_view_free(v);
                    return rc;
                }
            }
        }
    }
    return PM_OK;
}

/* Runs argv through the runner; its stdout in *out. PM_ERR_NOTFOUND: the command is not there; another error:
 * it failed (its first stderr line in the message) or timed out. */
static int run_slurm(const char *const *argv, const char *tmpdir, char **out, pm_err *err)
{
    char o[PATH_MAX + 32], e[PATH_MAX + 32];
    *out = NULL;
    snprintf(o, sizeof o, "%s/%s.out", tmpdir, argv[0]);
    snprintf(e, sizeof e, "%s/%s.err", tmpdir, argv[0]);
    pm_run_opts ro = {.timeout_s = PM_SLURM_QUERY_TIMEOUT_S, .stdout_path = o, .stderr_path = e};
    pm_run_result res;
    int rc = pm_run_exec(argv, &ro, &res, err);
    if (rc)
        return rc;
    char *etext = NULL;
    size_t len = 0;
    pm_err ignored = {0};
    if (res.status == PM_RUN_SPAWN_ERROR)
        return pm_err_set(err, PM_ERR_NOTFOUND, "cannot run %s (%s): is Slurm's client installed and on PATH?",
                          argv[0], res.spawn_error);
    if (res.status == PM_RUN_TIMEOUT)
        return pm_err_set(err, PM_ERR_TIMEOUT, "%s gave no answer in %d s (is slurmctld up?)", argv[0],
                          PM_SLURM_QUERY_TIMEOUT_S);
    if (res.status != PM_RUN_OK) {
        pm_util_read_file(e, &etext, &len, &ignored);
        const char *t = etext ? etext : "";
        /* the first line that says something (squeue prefixes "squeue: error: ") */
        size_t n = strcspn(t, "\n");
        rc = pm_err_set(err, PM_ERR_CHILD, "%s %s: %.*s", argv[0], pm_run_status_name(res.status),
                        n ? (int)(n < 300 ? n : 300) : 12, n ? t : "(no message)");
        free(etext);
        return rc;
    }
    if (res.stdout_dropped)
        return pm_err_set(err, PM_ERR_CHILD, "%s printed more than the runner keeps (64 MiB): too many jobs to list",
                          argv[0]);
    return pm_util_read_file(o, out, &len, err);
}

int pm_slurm_query(const char *dir, const char *spec_name, pm_slurm_jobs *jobs, pm_slurm_known *known,
                   pm_err *sacct_note, pm_err *err)
{
    char path[PATH_MAX], tmpdir[PATH_MAX], names[512], *text = NULL;
    size_t len = 0;
    int rc = PM_OK;
    const char *tmp = getenv("TMPDIR");
    memset(jobs, 0, sizeof *jobs);
    memset(known, 0, sizeof *known);
    pm_err_clear(sacct_note);
    /* the ids: recorded at submit, and in the log names */
    if (snprintf(path, sizeof path, "%s/jobs.txt", dir) >= (int)sizeof path)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", dir);
    if (access(path, F_OK) == 0) {
        if ((rc = pm_util_read_file(path, &text, &len, err)) ||
            (rc = pm_slurm_known_parse(text, known, err))) {
            free(text);
            return pm_err_wrap(err, "%s", path);
        }
        free(text);
        text = NULL;
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    snprintf(path, sizeof path, "%s/*.log", dir);
    if (glob(path, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
            const char *slash = strrchr(g.gl_pathv[i], '/');
            rc = pm_slurm_known_add_log(known, slash ? slash + 1 : g.gl_pathv[i], err);
        }
    globfree(&g);
    if (rc)
        return rc;
    if (snprintf(names, sizeof names, "--name=passmap-%s,passmap-%s-merge", spec_name, spec_name) >=
        (int)sizeof names)
        return pm_err_set(err, PM_ERR_USAGE, "sweep name too long for a Slurm job name: %.100s", spec_name);
    if (snprintf(tmpdir, sizeof tmpdir, "%s/passmap-squeue-XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
            (int)sizeof tmpdir ||
        !mkdtemp(tmpdir))
        return pm_err_errno(err, PM_ERR_IO, "cannot make a scratch folder for squeue's answer in %s",
                            tmp && *tmp ? tmp : "/tmp");
    /* -t all: finished jobs too, while the controller keeps them (MinJobAge); -r: one line per array task */
    const char *sq[] = {"squeue", "-h", "-r", "-t", "all", names, "-o", "%i|%T|%r|%o", NULL};
    if ((rc = run_slurm(sq, tmpdir, &text, err)) || (rc = pm_slurm_parse_jobs(text, 4, jobs, err))) {
        if (rc == PM_ERR_PARSE)
            pm_err_wrap(err, "squeue's answer");
        pm_slurm_jobs_free(jobs);
        goto cleanup;
    }
    free(text);
    text = NULL;
    /* known jobs squeue no longer lists: the accounting database may still know them */
    pm_sbuf ids = {0};
    for (size_t kind = 0; kind < 2; kind++) {
        const long *v = kind ? known->merge : known->shards;
        size_t n = kind ? known->n_merge : known->n_shards;
        for (size_t i = 0; i < n; i++) {
            int seen = 0;
            for (size_t r = 0; r < jobs->n && !seen; r++)
                seen = jobs->v[r].job == v[i];
            if (!seen)
                pm_sbuf_add(&ids, "%s%ld", ids.len ? "," : "", v[i]);
        }
    }
    if (ids.oom) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    } else if (ids.len) {
        const char *sa[] = {"sacct", "-n", "-P", "-X", "-j", ids.s, "-o", "JobID,State,Reason", NULL};
        pm_slurm_jobs more = {0};
        pm_err e = {0};
        int src = run_slurm(sa, tmpdir, &text, &e);
        if (!src)
            src = pm_slurm_parse_jobs(text, 3, &more, &e);
        if (src == PM_ERR_NOMEM) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        } else if (src) {
            pm_err_set(sacct_note, src, "jobs %s are no longer in squeue and sacct cannot tell their end: %s", ids.s,
                       e.msg);
        } else {
            for (size_t i = 0; i < more.n && !rc; i++)
                rc = push_job(jobs, more.v[i].job, more.v[i].task, more.v[i].state, strlen(more.v[i].state),
                              more.v[i].reason, strlen(more.v[i].reason), NULL, 0, err);
        }
        pm_slurm_jobs_free(&more);
    }
    free(ids.s);
cleanup:
    free(text);
    pm_util_remove_tree(tmpdir);
    return rc;
}
