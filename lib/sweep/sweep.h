/* pm_sweep: runs a spec's matrix into the store — interleaved repeats, resumable, with progress. */
#ifndef PM_SWEEP_H
#define PM_SWEEP_H

#include <signal.h>
#include "error.h"
#include "shard.h"
#include "spec.h"

typedef struct pm_sweep_progress {
    int done, total;          /* runs finished / planned in this invocation */
    int already_done;         /* found in the database (resume) */
    int failed;               /* runs whose status is not ok */
    double elapsed_s, eta_s;  /* eta_s < 0: unknown yet */
    const char *config_key;   /* the run just finished */
    const char *mode;
    int repeat;
    const char *status;
    double wall_s;
    const char *steps_text;   /* dry run: each step's argv, one line per step ("tool: argv"); else NULL */
} pm_sweep_progress;

typedef void (*pm_sweep_progress_fn)(void *user, const pm_sweep_progress *p);

/* Resumes that rerun one run killed from outside before it counts as done (a scheduler's SIGTERM may reach the
 * compiler just before passmap, which then records it; an OOM killer's SIGKILL without evidence reads alike). */
#define PM_SWEEP_KILLED_RETRIES 2

typedef struct pm_sweep_opts {
    const char *db_path;
    const char *work_dir;     /* NULL: DB_PATH.runs */
    const char *self_exe;     /* passmap itself, for `cache exec` and `ov-compile` children; NULL: /proc/self/exe */
    int keep_outputs;         /* keep each run's folder (outputs, stderr) */
    int warm;                 /* -1: as the spec says; 0/1: override */
    int max_runs;             /* 0: no limit; else stop after this many runs (the rest resumes later) */
    int dry_run;              /* plan only: progress is called per planned run with status "planned" and the
                                 steps' argv; nothing is written (no database, folder or input; an existing
                                 database is only read, to leave out runs already recorded) */
    pm_sweep_progress_fn progress;
    void *progress_user;
    volatile sig_atomic_t *stop;  /* when set (SIGINT), stop after the run in progress */
    double deadline;          /* > 0: a pm_util_now() time after which no step starts (a run it cuts short is not
                                 recorded and resumes later; summary deadline_hit): the caller's budget holds to
                                 one step */
    pm_shard shard;           /* run only shard k of n of the configs (n == 0: all) */
    const char *costs_db;     /* measured walls of an earlier sweep, to balance the shards; NULL: IR sizes */
    const char *plan_path;    /* the shard plan fixed at submit (shard.h); NULL: computed here from the spec */
    /* one line for the user, e.g. a process group an earlier, killed sweep left running was killed; NULL: none */
    void (*notice)(void *user, const char *line);
    void *notice_user;
    /* A recorded config whose steps changed (identity.h: its fingerprint) refuses the sweep, with one notice
     * line per config; force: its runs are superseded (moved to a sweep STUDY~superseded-TIME) and it runs
     * anew. retry_failed: the failed runs of the configs are moved aside the same way and run again
     * (default: a failed run counts as done, with one notice saying how many). A run killed from outside
     * (status "killed": a signal passmap did not send) is retried on resume without asking, up to
     * PM_SWEEP_KILLED_RETRIES times per run, then counts as done like a failed run. */
    int force, retry_failed;
    /* How each step is measured: a meter row's name or "auto" (meter.h); NULL: the spec's [sweep] meter. A
     * sweep recorded with a meter that slows its steps (valgrind) resumes only with that meter, and one recorded
     * with another refuses it: walls and counts of two meters do not mix in one study. */
    const char *meter;
    /* Compiles at once (0, 1: one at a time). Above 1 only with a meter that counts: the counts decide, and the
     * walls, recorded still, are contended by design (run metric host.jobs). */
    int jobs;
    /* What the sweep stands for in a history (sweep --label: a commit, a date), kept in its metadata as "label";
     * NULL: the label recorded before, if any (a resume keeps it). */
    const char *label;
} pm_sweep_opts;

typedef struct pm_sweep_summary {
    int configs;              /* configs of this sweep (of this shard when sharded) */
    int planned, already_done, ran, ok, failed, interrupted;
    int deadline_hit;         /* opts.deadline stopped it before every planned run ran */
    int left;                 /* runs --max-runs left for a later invocation (0: none) */
    int no_report;            /* runs whose process exited 0 without a readable timing report (not in ok/failed) */
    char no_report_note[256]; /* why, for the first of them ("" when none) */
    int startup_runs;         /* null-input start-up runs made now (0: recorded before, or not measured) */
    int stop_precision, stop_answer;   /* repeats = auto: configs settled by the deciding metric's precision, by
                                        * their known dominant stage (the rest ran to max_repeats) */
    char stop_note[160];      /* repeats = auto: why the answer test was off ("" when on) */
    double wall_s;            /* the run loop's, without the probes and start-up runs made between its runs */
    char meter[32];           /* the meter the runs are measured with (meter.h) */
    double meter_slowdown;    /* its slowdown against a native run: measured at the start, else its row's figure */
    /* dry run: the planned runs' expected seconds under the meter, from the mean cold run the store holds for
     * the spec's configs (a native mean times the meter's slowdown when the store's runs were native); < 0:
     * nothing recorded to go by */
    double expected_s;
} pm_sweep_summary;

int pm_sweep_run(const pm_spec *spec, const pm_sweep_opts *opts, pm_sweep_summary *sum, pm_err *err);

#endif
