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

#endif
