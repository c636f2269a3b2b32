/* What the sweep engine's files share: its context, its tasks and per-config state (sweep.c drives;
 * sweep_task.c runs one task, sweep_plan.c plans and estimates, sweep_startup.c measures process start-up,
 * sweep_contract.c fingerprints configs and checks the resume contract). Not for use outside lib/sweep. */
#ifndef PM_SWEEP_INTERNAL_H
#define PM_SWEEP_INTERNAL_H

#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cache.h"
#include "host.h"
#include "identity.h"
#include "meter.h"
#include "parse.h"
#include "passcount.h"
#include "pgroup.h"
#include "run.h"
#include "settle.h"
#include "stagemap.h"
#include "decide.h"
#include "stats.h"
#include "store.h"
#include "store_query.h"
#include "store_sweeps.h"
#include "util.h"

typedef struct task {
    int config;      /* index into spec->configs */
    int repeat;
    const char *mode;
} task;

typedef struct config_state {
    int64_t id;
    char dir[PATH_MAX];
    pm_backend_config prep;   /* the back end's per-config input and metrics */
    int stopped_by;           /* repeats = auto: 0 not settled, 1 precision, 2 its answer (settle.h) */
    int probed;               /* probe_config ran (just before the config's first run of this invocation) */
} config_state;

/* snprintf that reports truncation instead of silently cutting a path. */
int pm_sweep_fmt_path(char *out, size_t cap, pm_err *err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));


typedef struct sweep_ctx {
    const pm_spec *spec;
    const pm_sweep_opts *opts;
    const pm_backend_ops *be;
    pm_backend_ctx bctx;
    pm_store *store;
    config_state *cs;
    char work[PATH_MAX];
    char cache_dir[PATH_MAX];
    char self[PATH_MAX];
    int *in_shard;      /* per config: 1 when this sweep (shard) runs it */
    int *shard_of;      /* per config: the shard (1..N; 1 when not sharded) that runs it */
    int64_t sweep_id;
    int warm;           /* the sweep measures passmap-cache warm runs */
    int64_t host_id;    /* the machine measuring, recorded with every run */
    int cap_tasks;      /* allocated length of the task list pm_sweep_plan() fills */
    pm_pgroup_recorder pgrec; /* the step in flight's process group, recorded beside the database */
    pm_tool_set tools;  /* every step's tool, identified once per sweep */
    size_t n_tools_used; /* tools[0 .. n): the ones this invocation's configs (its shard) run: what is recorded */
    char **fp_text;     /* per config: its fingerprint text and hash (identity.h); NULL in a dry run */
    char (*fp_hash)[48];
    char no_report_note[256];   /* the first no-report run's reason, for the summary */
    pm_stagemap *stages;        /* repeats = auto: the stage map the answer test reads (NULL: precision alone) */
    int startup_done;   /* measure_startup ran here (after the first run; --jobs: before the pool; or at the end) */
    double side_s;      /* seconds of probes and start-up between runs: not the run loop's own time */
    const pm_meter *meter;      /* how each step is measured (meter.h) */
    int jobs;                   /* compiles at once (--jobs; 1: one at a time) */
    double slowdown;            /* a slowing meter's largest measured slowdown (0: not measured) */
    json_t *slowdown_json;      /* per tool, as measured (pm_sweep_measure_slowdown); NULL: not measured */
    int slowdown_config;        /* --jobs: the config whose first metered run gives the slowdown (-1: none) */
    double *native_walls;       /* --jobs: that config's steps' native walls, by step (< 0: failed) */
    int n_native_walls;
    pthread_mutex_t *lock;      /* with jobs > 1, held by the worker whose run is not inside a step */
} sweep_ctx;

/* Per-step bookkeeping of one run, grown with the back end's step count. */
typedef struct step_slots {
    pm_report *reports;
    pm_run_result *results;
    pm_step_record *recs;
    char **argvs, **tails;
    pm_passcount *counts;   /* per-pass counts under a per_pass meter (meter.h); rows 0 when none */
} step_slots;

typedef struct batch_state {
    double t0;
    int done;        /* runs finished (or planned, dry run) in this invocation */
    int already;     /* found in the store at start */
    int capped;      /* opts->max_runs reached */
    /* measured seconds per (config, mode) of this invocation's runs, for the ETA: runs differ by 100x across
     * configs and modes, so elapsed/done x left was off by minutes (NULL: out of memory, the plain average) */
    double *took;
    int *n_took;
    double took_all;
    int n_all;
} batch_state;

enum { ETA_MODES = 3 };

void pm_sweep_notice(const sweep_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The caller's deadline (opts.deadline: passmap fix's budget) has come: no process of the sweep starts after it,
 * so the caller's budget holds to one step. */
int pm_sweep_past_deadline(const sweep_ctx *x);
/* run_task's status of a run the deadline cut short between its steps: not a measurement, nothing recorded */
#define TASK_AT_DEADLINE "deadline"


int pm_sweep_wrap_in_cache(pm_step *st, const char *self, const char *cache_dir, const char *outcome);
/* pg: where the step's process group is on record while it runs */
int pm_sweep_run_task(sweep_ctx *x, const task *t, pm_pgroup_recorder *pg, const char **status_out, double *wall_out, pm_err *err);
int pm_sweep_measure_startup(sweep_ctx *x, int64_t sweep_id, pm_sweep_summary *sum, pm_err *err);
int pm_sweep_measure_slowdown(sweep_ctx *x, int c, pm_err *err);
/* --jobs: the metered half of the slowdown from config c's first ok run in the pool (its steps' results) */
void pm_sweep_slowdown_from_run(sweep_ctx *x, int c, const pm_steps *steps, const pm_run_result *results, int n_done);
int pm_sweep_dry_steps_text(sweep_ctx *x, const task *t, char **out, pm_err *err);
int pm_sweep_plan(sweep_ctx *x, const char *mode, int repeats, task **tasks, int *n_tasks, int *already, pm_err *err);
int pm_sweep_plan_round(sweep_ctx *x, unsigned *state, task **tasks, int *n_tasks, pm_err *err);
int pm_sweep_eta_mode(const char *mode);
/* sweep_pair.c: timing-flag pairs. Cold and plain run the steps themselves (no cache). */
int pm_sweep_mode_runs_steps_as_they_are(const char *mode);
/* Each cold task followed (on odd repeats preceded) by its plain twin when the spec names timing flags; *cap (or
 * NULL) gets the new list's length allocated. */
int pm_sweep_pair_plain(sweep_ctx *x, task **tasks, int *n_tasks, int *cap, pm_err *err);
/* Appends the plain repeats missing whose cold twin is recorded already (a resumed sweep). */
int pm_sweep_plan_plain_orphans(sweep_ctx *x, int repeats, task **tasks, int *n_tasks, int *already, pm_err *err);
/* A plain run's steps: each step's plain_argv in argv's place, or else, where the back end's row declares a
 * timing_flag, argv with that option's value set to off; no report. PM_ERR_NOMEM, else PM_OK. */
int pm_sweep_use_plain_argv(pm_steps *steps, const pm_backend_ops *be);
double pm_sweep_eta_left(const batch_state *bs, int n_configs, const task *tasks, int n_tasks, int i, int after);
int pm_sweep_fingerprint_configs(sweep_ctx *x, pm_err *err);
int pm_sweep_check_contract(sweep_ctx *x, pm_err *err);
/* Refuses to resume a sweep recorded with a meter that measures differently (sweep_contract.c). */
int pm_sweep_check_meter(sweep_ctx *x, pm_err *err);
void pm_sweep_tools_digest(const pm_tool_set *t, char *out, size_t cap);

#endif
