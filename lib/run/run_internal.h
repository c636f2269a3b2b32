/* What the runner's files share (run.c runs one command; run_capture.c, run_spawn.c, run_probes.c and
 * run_parse.c hold its parts). Not for use outside lib/run. */
#ifndef PM_RUN_INTERNAL_H
#define PM_RUN_INTERNAL_H

#include "run.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PM_RUN_DEFAULT_CAPTURE ((size_t)64 << 20)
#define PM_RUN_KILL_GRACE_S 1.0   /* SIGTERM -> SIGKILL */
#define PM_RUN_DRAIN_S 1.0        /* after the leader exits, how long pipes held by descendants are read */
#define PM_RUN_ERRTAIL 4096       /* stderr tail kept in memory for OOM detection */

enum { STAGE_EXEC, STAGE_CHDIR, STAGE_RLIMIT, STAGE_DUP };

struct child_report {
    int stage;
    int err;
};

/* One captured stream: the head goes straight to the file, the tail is kept in a ring until the end. */
typedef struct capture {
    int fd;                 /* output file, -1: discard */
    size_t head_cap, tail_cap, head_len;
    char *ring;
    size_t ring_start, ring_len;
    size_t total, dropped;
    int write_errno;
} capture;

/* The child's functions run on a stack AddressSanitizer does not know when spawned (pm_run_spawn_child): uninstrumented,
 * or its no-return hook at _exit takes the foreign stack for a corrupt one (a SAN build's false report). They
 * make system calls only. */
#define PM_CHILD_CODE __attribute__((no_sanitize_address))

typedef struct spawn_args {
    const char *const *argv;
    char *const *envp;
    const pm_run_opts *opts;
    int in_fd, out_fd, err_fd, report_fd, out_rd, err_rd;
    int go_fd, go_wr, ready_fd;   /* -1 unless assisted */
    pid_t parent;
    volatile double t0;
} spawn_args;

/* An assisted spawn: what must happen before the exec (on_start, the counter) is done on a helper thread while the
 * spawning thread is suspended (CLONE_VFORK). The child writes its pid to ready once it leads its group, then waits
 * for the go; the helper records, attaches, and closes go (after a byte if on_start failed). */
typedef struct assist {
    const pm_run_opts *opts;
    int ready_rd, go_wr;
    int started;            /* the child got as far as ready */
    int on_start_rc;
    pm_err err;
    int perf_fd, perf_errno;
} assist;

typedef struct pressure_snap { int64_t psi, psi_cg, steal; } pressure_snap;

void pm_run_close_fd(int *fd);
void pm_run_capture_init(capture *c, size_t limit);
void pm_run_capture_feed(capture *c, const char *buf, size_t n);
void pm_run_capture_finish(capture *c);
int pm_run_pipe_high(int fds[2]);
int pm_run_open_high(const char *path, int flags, mode_t mode);
char **pm_run_build_env(const char *const *env_set);
PM_CHILD_CODE void pm_run_child_main(const char *const argv[], char *const *envp, const pm_run_opts *opts,
                                     int in_fd, int out_fd, int err_fd, int report_fd, int go_fd, int go_wr,
                                     int out_rd, int err_rd, pid_t parent, int ready_fd, volatile double *t0);
int pm_run_open_perf_counter(pid_t pid, int *err_out);
int64_t pm_run_read_perf_counter(int fd);
int pm_run_perf_unavailable(void);
void *pm_run_assist_main(void *arg);
pid_t pm_run_spawn_child(spawn_args *a, int *err_out);
void pm_run_signal_command(pid_t pid, int same_group, int sig);
void pm_run_kill_and_reap(pid_t pid, int same_group);
long pm_run_cgroup_oom_kills(void);
int pm_run_cgroup_cpu_pressure_path(char *out, size_t cap);
void pm_run_pressure_read(pressure_snap *s, const char *cg_path);
void pm_run_pressure_delta(const pressure_snap *a, const pressure_snap *b, pm_run_result *res);
int pm_run_stderr_says_oom(const char *tail, size_t n);
void pm_run_errtail_push(char *tail, size_t *len, const char *buf, size_t n);
const char *pm_run_stage_name(int stage);

#endif
