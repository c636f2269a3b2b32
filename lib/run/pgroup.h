/* pm_pgroup: the process group a step runs in, recorded while it runs, so that a later passmap can find what a
 * killed one left behind.
 *
 * The runner puts each command in its own process group, and PR_SET_PDEATHSIG takes the command down with a
 * killed passmap. What the command starts in the background gets no such signal (it is not passmap's child):
 * it keeps running in the step's group, writing into the run folder a resumed sweep reuses and taking CPU from the runs
 * it measures. So a step's group is recorded (host, boot, pgid, session, the leader's start time, and the
 * passmap that ran it) before the command is exec'd, in a file beside the database that the step's end
 * removes (passmap fix records its [check] and [run] processes the same way); a later sweep, `run --db` or
 * `passmap fix` on the database checks every record it finds and kills a group that
 * is still alive, still the recorded one, and whose passmap is gone. */
#ifndef PM_PGROUP_H
#define PM_PGROUP_H

#include <limits.h>
#include <sys/types.h>
#include "error.h"

typedef struct pm_pgroup {
    char host[256];                 /* gethostname() */
    char boot_id[64];               /* /proc/sys/kernel/random/boot_id: a reboot ends every group */
    long owner_pid;                 /* the passmap that ran the step */
    unsigned long long owner_start; /* its start time, clock ticks after boot (/proc/PID/stat field 22) */
    long pgid;                      /* the step's process group: its leader's pid */
    long sid;                       /* the leader's session (every member of a group shares it) */
    unsigned long long start;       /* the leader's start time: members of the group started no earlier */
    char what[512];                 /* what ran, for the message: "config K, cold r0, step cc" */
} pm_pgroup;

typedef enum pm_pgroup_state {
    PM_PGROUP_GONE,       /* no live process is left in it (zombies count as gone), or the machine rebooted */
    PM_PGROUP_LEFT,       /* alive, still the recorded group, and the passmap that ran it is gone: a leftover */
    PM_PGROUP_OWNED,      /* the passmap that ran it is still running: its business */
    PM_PGROUP_OTHER,      /* the id now names another group (pid reuse) or one passmap may not signal */
    PM_PGROUP_OTHER_HOST  /* recorded on another machine: cannot be checked from here */
} pm_pgroup_state;

/* The identity of the group whose leader is LEADER (already in its own group, not yet exec'd), run by this
 * process. what: copied, newlines blanked. */
int pm_pgroup_identify(pid_t leader, const char *what, pm_pgroup *g, pm_err *err);
/* Where g stands now; *n_alive (may be NULL): its live members. */
pm_pgroup_state pm_pgroup_check(const pm_pgroup *g, int *n_alive);
/* Kills a PM_PGROUP_LEFT group: SIGTERM, grace_s, SIGKILL (only while it is still the recorded group), then
 * waits until no live member is left. PM_ERR_CHILD when one survives SIGKILL for seconds (uninterruptible). */
int pm_pgroup_kill(const pm_pgroup *g, double grace_s, pm_err *err);

/* The record file: a few "key value" lines. load: PM_ERR_PARSE when it is not a whole record. */
int pm_pgroup_save(const char *path, const pm_pgroup *g, pm_err *err);
int pm_pgroup_load(const char *path, pm_pgroup *g, pm_err *err);

/* The records of database DB are DB.pgroup.PID, one per passmap running a step on it (DB.pgroup.PID.J per job
 * of a sweep with --jobs). */
typedef struct pm_pgroup_recorder {
    char path[PATH_MAX];
    const char *what;    /* set before each step; NULL: "" */
    /* passmap's own part of every record (host, boot, owner), read at the first step: only the group's leader
     * is read per step */
    int have_owner;
    pm_pgroup owner;
} pm_pgroup_recorder;
int pm_pgroup_recorder_init(pm_pgroup_recorder *r, const char *db_path, pm_err *err);
/* The same for job J (1, 2, ...) of a sweep running several steps at once: DB.pgroup.PID.J. */
int pm_pgroup_recorder_init_job(pm_pgroup_recorder *r, const char *db_path, int job, pm_err *err);
/* For pm_run_opts.on_start (arg: a pm_pgroup_recorder): records the step's group before it is exec'd. */
int pm_pgroup_record(void *recorder, pid_t pgid, pm_err *err);
/* The step ended: its record goes. */
void pm_pgroup_unrecord(pm_pgroup_recorder *r);

/* Checks every record beside DB: a leftover group on this machine is killed; each record that calls for it
 * (DB.pgroup.PID and DB.pgroup.PID.J) gets one line through notice (a group killed, one on another machine, one that survived, an unreadable
 * record). Records of live passmaps are left alone; the others are removed, except another machine's. */
typedef void (*pm_pgroup_notice_fn)(void *user, const char *line);
int pm_pgroup_reap(const char *db_path, pm_pgroup_notice_fn notice, void *user, pm_err *err);

#endif
