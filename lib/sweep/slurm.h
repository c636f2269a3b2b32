/* pm_slurm: a sharded sweep as Slurm jobs. A job array runs shard K of N per task, each task alone on its node
 * (--exclusive) so compiles stay cold and isolated; a merge job, dependent on the whole array (afterok), joins
 * the shard databases into the study's database. */
#ifndef PM_SLURM_H
#define PM_SLURM_H

#include "error.h"

typedef struct pm_slurm_opts {
    const char *passmap;     /* absolute path of the passmap the jobs run */
    const char *spec_path;   /* absolute */
    const char *spec_name;   /* [sweep] name, for the job names */
    const char *out_db;      /* absolute path of the merged database */
    const char *dir;         /* absolute folder of the scripts, logs and shard databases (OUT.slurm) */
    int shards;              /* N >= 1 */
    const char *partition;   /* NULL: the cluster's default */
    const char *time_limit;  /* per task, Slurm syntax (e.g. 2:00:00, 1-00:00:00); NULL: the partition's */
    const char *plan_path;   /* absolute: the shard plan every task reads (--plan); NULL: tasks compute it */
    const char *costs_db;    /* absolute, or NULL (only without plan_path: the plan holds the costs) */
    const char *account, *qos, *constraint, *mem;   /* site options on #SBATCH lines; NULL: none */
    int throttle;            /* > 0: at most this many shard tasks at once (--array=1-N%M) */
    const char *sbatch_args; /* more sbatch options, split at white space into argv words; NULL: none */
    int warm;                /* -1: as the spec says; 0/1: --no-warm / --warm */
    const char *work_dir;    /* node-local folder for the run folders: an absolute path, or "$TMPDIR" (the task's
                                ${TMPDIR:-/tmp}); each task works in its own subfolder; NULL: DB.slurm/ (shared) */
    double submit_timeout_s; /* for each sbatch call; 0: 60 s */
} pm_slurm_opts;

/* Checks the options (values that would break an #SBATCH line are refused) and renders both scripts. */
int pm_slurm_scripts(const pm_slurm_opts *o, char **shards_script, char **merge_script, pm_err *err);
/* Writes the scripts into o->dir and submits them with sbatch (the merge job with --dependency=afterok on the
 * array). Job ids come back as text ("123"). */
int pm_slurm_submit(const pm_slurm_opts *o, const char *shards_script, const char *merge_script, char *array_id,
                    size_t array_cap, char *merge_id, size_t merge_cap, pm_err *err);
/* Path of shard K's database: DIR/shard-K-of-N.db. */
int pm_slurm_shard_db(const pm_slurm_opts *o, int k, char *out, size_t cap, pm_err *err);

/* ---- What Slurm says about the jobs (slurm_state.c): `sweep --slurm --status`. */

/* One job or array task as squeue or sacct printed it. */
typedef struct pm_slurm_job {
    long job;      /* the array job's id (%A of the array), or the job's own */
    int task;      /* the array task id; -1: not an array task */
    char *state;   /* the state's first word: PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT, ... (sacct's
                      "CANCELLED by 0" is CANCELLED) */
    char *reason;  /* "None", "Dependency", "DependencyNeverSatisfied", ...; "" when none was printed */
    char *command; /* squeue's %o (the batch script the job runs); NULL from sacct */
} pm_slurm_job;

typedef struct pm_slurm_jobs {
    pm_slurm_job *v;
    size_t n, cap;
} pm_slurm_jobs;

/* Appends the rows of `squeue -h -r -o '%i|%T|%r|%o'` (columns 4: the last column is the rest of the line, since
 * a path may hold '|') or of `sacct -n -P -X -o JobID,State,Reason` (columns 3). A job id is JOB, JOB_TASK or
 * JOB_[RANGES] (a pending array sacct has not split, "1-3,5%2": one row per task); job steps (JOB.batch) are
 * skipped. A line of another shape is an error that quotes it. Pure: no Slurm needed. */
int pm_slurm_parse_jobs(const char *text, int columns, pm_slurm_jobs *out, pm_err *err);
void pm_slurm_jobs_free(pm_slurm_jobs *j);

/* The job ids a study's folder knows: those `sweep --slurm` recorded at submit (DIR/jobs.txt) and those its log
 * names carry (shard-JOB_K.log, merge-JOB.log), so a task resubmitted by hand is known once it started. */
typedef struct pm_slurm_known {
    long *shards, *merge;
    size_t n_shards, n_merge;
    size_t n_submitted; /* the first n_submitted shards ids are whole arrays (1-N) jobs.txt names */
} pm_slurm_known;
/* jobs.txt: lines "shards ID" and "merge ID", '#' comments. Another line is an error naming its number. */
int pm_slurm_known_parse(const char *text, pm_slurm_known *k, pm_err *err);
/* Adds the id a log file's name (no folder) carries; other names are ignored. */
int pm_slurm_known_add_log(pm_slurm_known *k, const char *name, pm_err *err);
void pm_slurm_known_free(pm_slurm_known *k);
/* Appends "shards ARRAY" and "merge MERGE" (merge_id NULL: none) to DIR/jobs.txt, rewritten whole beside itself
 * and renamed over it. */
int pm_slurm_record_jobs(const char *dir, const char *array_id, const char *merge_id, pm_err *err);

/* Where a job state leaves the study. Slurm's states, one table row each (slurm_state.c). */
typedef enum pm_slurm_phase {
    PM_SLURM_UNKNOWN = 0, /* a state this table does not know */
    PM_SLURM_WAITING,     /* PENDING, REQUEUED, SUSPENDED, ...: will run */
    PM_SLURM_RUNNING,     /* RUNNING, COMPLETING, ... */
    PM_SLURM_DONE,        /* COMPLETED */
    PM_SLURM_ENDED        /* FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...: needs a resubmit */
} pm_slurm_phase;
pm_slurm_phase pm_slurm_state_phase(const char *state);

/* A shard's (or the merge's) newest job. */
typedef struct pm_slurm_attempt {
    long job;            /* 0: no job of it listed by squeue or sacct */
    int task;            /* the array task (shard K); -1 for the merge job */
    const char *state;   /* into the jobs it was made from */
    const char *reason;
    pm_slurm_phase phase;
    int attempts;        /* jobs listed for it (a resubmit is a new job; a requeue keeps its job) */
    int gone;            /* no job lists the task, though squeue still lists its array (job): Slurm drops a task
                            cancelled while it waited in the array's pending record. phase is then ENDED,
                            state NULL */
} pm_slurm_attempt;

/* The attempt's reason when it says something: its wait's reason while it waits or runs; after it ended, only a
 * reason about the end (DependencyNeverSatisfied, NonZeroExitCode, ...), not the one left from its wait
 * (Resources, Priority, ...). NULL: none to show. */
const char *pm_slurm_reason_shown(const pm_slurm_attempt *a);

typedef struct pm_slurm_view {
    int shards;
    pm_slurm_attempt *shard; /* [shards]: shard K at K-1 */
    pm_slurm_attempt merge;
    long *unlisted;          /* known job ids no row mentions (Slurm forgot them, or no accounting) */
    size_t n_unlisted;
} pm_slurm_view;

/* Each shard's newest attempt (the highest job id listing its task) and the newest merge job; a shard no row
 * lists while a whole array jobs.txt names is still listed is gone (cancelled while it waited). A row is the
 * study's when its job id is known, or when its command is DIR/shards.sbatch or DIR/merge.sbatch; rows of
 * other jobs are ignored, as are tasks outside 1..shards. Each (job, task) is expected once in jobs. */
int pm_slurm_view_make(const pm_slurm_jobs *jobs, const pm_slurm_known *known, const char *dir, int shards,
                       pm_slurm_view *v, pm_err *err);
void pm_slurm_view_free(pm_slurm_view *v);

/* Asks Slurm, through the runner with a timeout each: squeue for every job named passmap-NAME or
 * passmap-NAME-merge (all states still in the controller's memory), then sacct for known jobs squeue no longer
 * lists. Fills known from DIR/jobs.txt and DIR's log names. An error (squeue missing, failing or timing out):
 * one line in err, and jobs holds nothing. sacct's failure is not an error: sacct_note says it in one line
 * (empty when sacct was not needed or answered). */
int pm_slurm_query(const char *dir, const char *spec_name, pm_slurm_jobs *jobs, pm_slurm_known *known,
                   pm_err *sacct_note, pm_err *err);

#endif
