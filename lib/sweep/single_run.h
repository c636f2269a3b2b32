/* pm_single_run: one command measured outside a sweep (`passmap run --db DB --config KEY -- CMD`). Each measured
 * run is recorded as a sweep records one: a run of one step with the process stats the runner measured and the
 * pass times parsed from the command's timing report, in one transaction; a rerun continues the config's
 * repeats. The caller runs the command (pm_run_exec) and keeps the stream the report is on in a file. */
#ifndef PM_SINGLE_RUN_H
#define PM_SINGLE_RUN_H

#include <stdint.h>
#include "error.h"
#include "parse.h"
#include "run.h"
#include "store.h"

typedef struct pm_single_run_opts {
    const char *db;           /* results database (created when missing) */
    const char *key;          /* the config; its NAME=VALUE parts are its parameters (pm_cfg_params_from_key) */
    const char *sweep;        /* the sweep recorded into; NULL: "runs" */
    const char *report;       /* where CMD prints its timing report: "stderr" (NULL), "stdout" or a file path */
    pm_format fmt;            /* the report's parser; PM_FMT_AUTO: sniff */
    const char *tool;         /* label stored with the step; NULL: CMD's name without version suffix */
    int keeps_stdout, keeps_stderr;   /* the caller keeps that stream of each run in a file of its own */
    const char *meter;        /* the meter row's name the runs are measured with (meter.h), stored in the sweep's
                                 metadata; NULL: not said */
} pm_single_run_opts;

typedef struct pm_single_run {
    pm_store *st;
    int64_t config_id;
    int first_repeat;         /* repeat of the first run recorded now: the config's cold runs before */
    const char *report;       /* as in the options ("stderr" for NULL) */
    pm_format fmt;
    char *tool, *argv;        /* the step's label and CMD joined, as stored */
    char *tmpdir;             /* private folder for the report's stream when the caller keeps none, or NULL */
    /* When not NULL: the stream the report is on, which the caller keeps none of; keep each run's in a file
     * named from this (inside tmpdir) and hand it to pm_single_run_record. */
    char *stdout_base, *stderr_base;
} pm_single_run;

/* Opens (creates) the store, the sweep and the config of o->key with its parameters, and counts the config's
 * cold runs. PM_ERR_USAGE: a bad key (a part with no name, an axis named twice) or a program name too long for
 * a label (give a tool). On error *sr is closed. */
int pm_single_run_open(pm_single_run *sr, const pm_single_run_opts *o, char *const cmd[], pm_err *err);

/* Records measured run `index` (0, 1, ... of this invocation: repeat first_repeat + index) of CMD. stdout_path
 * and stderr_path hold its streams (NULL: not kept). A run that succeeded is parsed from its report: a report
 * file that never appeared makes it `failed` with that note; a report that does not parse, or has no timing
 * rows, is noted and the run stays ok without pass rows. */
int pm_single_run_record(pm_single_run *sr, const pm_run_result *r, int index, const char *stdout_path,
                         const char *stderr_path, pm_err *err);

/* Closes the store and removes the private folder. Safe on a zeroed or closed pm_single_run. */
void pm_single_run_close(pm_single_run *sr);

#endif
