/* pm_run: one command in its own process (fork/exec, no shell), measured. */
#ifndef PM_RUN_H
#define PM_RUN_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "error.h"

typedef enum pm_run_status {
    PM_RUN_OK = 0,      /* exited 0 */
    PM_RUN_FAILED,      /* exited non-zero (or was cancelled) */
    PM_RUN_TIMEOUT,     /* killed by passmap after timeout_s */
    PM_RUN_OOM,         /* out of memory, on evidence only: an allocation-failure message on stderr (what a
                           RLIMIT_AS hit prints: bad_alloc, "out of memory", ...) or a kill the kernel's OOM
                           killer counted (cgroup v2 memory.events oom_kill) */
    PM_RUN_CRASHED,     /* died of a signal it raised itself (SIGSEGV, SIGABRT, SIGBUS, ...): term_signal */
    PM_RUN_KILLED,      /* SIGKILL or SIGTERM from outside passmap with no OOM evidence */
    PM_RUN_SPAWN_ERROR  /* could not start (exec failed: no such file, not executable) */
} pm_run_status;

typedef struct pm_run_opts {
    double timeout_s;           /* 0: none. On expiry the whole process group gets SIGTERM, then SIGKILL. */
    uint64_t mem_limit_bytes;   /* 0: none. Applied as RLIMIT_AS in the child. */
    const char *cwd;            /* NULL: inherit */
    const char *stdout_path;    /* capture file; NULL: discard */
    const char *stderr_path;    /* capture file; NULL: discard */
    size_t capture_limit;       /* bytes kept per stream; 0: default 64 MiB. Beyond it the head and the
                                   last quarter of the limit are kept, the middle dropped (counted). */
    const char *const *env_set; /* NULL-terminated "NAME=VALUE" added/overridden in the child; NULL: none */
    int count_instructions;     /* try perf_event_open (user-space instructions of the child tree) */
    const char *stdin_path;     /* NULL: /dev/null */
    /* Added by the runner: when *cancel becomes non-zero (e.g. set by a SIGINT handler) the process group (the
     * command alone with same_group) is terminated like on a timeout and the run ends as PM_RUN_FAILED. NULL: not cancellable. */
    const volatile sig_atomic_t *cancel;
    /* Added: called in passmap once the child leads its own process group and before the command is exec'd
     * (the child waits for it), so the caller can record the group first (pm_pgroup_record). Called on a helper
     * thread while the calling one waits (run.c, assisted spawn). Non-zero: the child never execs the command
     * and pm_run_exec returns that error. NULL: none. */
    int (*on_start)(void *arg, pid_t pgid, pm_err *err);
    void *on_start_arg;
    /* Added: the command stays in passmap's process group instead of its own. For a wrapper that is itself a
     * step (`cache exec`): the step's group then holds the compiler and whatever it starts, so the sweep's
     * timeout and its record of the group (pgroup.h) cover them. Timeout and cancel signal the command alone;
     * on_start gets passmap's group. */
    int same_group;
} pm_run_opts;

/* The resolution of the runner's wall (run and step wall_s): CLOCK_MONOTONIC read when the child's pidfd says it
 * exited, so a few µs; declared as 1 µs for compare's quantisation model and resolution rule. */
#define PM_RUN_CLOCK_TICK_S 1e-6

typedef struct pm_run_result {
    pm_run_status status;
    double wall_s, user_s, sys_s;  /* of the child and its waited-for descendants */
    long maxrss_kb;
    int64_t instructions;          /* -1: unavailable (kernel or permissions) */
    int exit_code;                 /* -1 when signalled */
    int term_signal;               /* 0 when exited */
    size_t stdout_bytes, stderr_bytes;      /* total written by the child */
    int stdout_truncated, stderr_truncated; /* capture dropped bytes */
    char spawn_error[256];         /* with PM_RUN_SPAWN_ERROR */
    /* Added by the runner: */
    size_t stdout_dropped, stderr_dropped;  /* bytes cut from the middle of the capture */
    int instructions_errno;        /* why instructions is -1 (errno of perf_event_open), 0 otherwise */
    /* Added: contention over the run's own interval (read just before the go and just after the reap), so a run
     * can be judged by what others wanted of the CPU while it ran (contention.h). -1: not available. */
    int64_t psi_cpu_some_us;       /* /proc/pressure/cpu "some total=" delta: time some task waited for a CPU */
    int64_t psi_cgroup_some_us;    /* the same from the cgroup v2 cpu.pressure of passmap's (so the child's)
                                      cgroup; -1 also when that cgroup is the root (then it is the line above) */
    double steal_s;                /* /proc/stat "cpu" steal delta (all CPUs), seconds */
} pm_run_result;

/* A run's contention metrics summed over its steps (the sweep) or of its one command (run --db), as the run
 * metrics the store keeps: host.psi_cpu_some_us, host.psi_cgroup_cpu_some_us, host.steal_ms. value[k] -1: some
 * step did not have it, so it is not recorded. */
enum { PM_RUN_PRESSURE_METRICS = 3 };
typedef struct pm_run_pressure { double value[PM_RUN_PRESSURE_METRICS]; int n; } pm_run_pressure;
void pm_run_pressure_init(pm_run_pressure *p);
void pm_run_pressure_add(pm_run_pressure *p, const pm_run_result *r);
const char *pm_run_pressure_name(int k);

/* Runs argv[0] (PATH-searched) with argv. Returns PM_OK when the child was run and measured, whatever its
 * exit status (see res->status); an error code only when passmap itself could not do its job. */
int pm_run_exec(const char *const argv[], const pm_run_opts *opts, pm_run_result *res, pm_err *err);

/* The one name of each status, as runs are stored, printed and written in JSON: "ok", "failed", "timeout",
 * "oom", "crashed", "killed", "spawn-error". */
const char *pm_run_status_name(pm_run_status s);
/* A stored run's status when its process exited 0 but its timing report cannot be read or holds no counted
 * pass: not a measurement of where time goes (no stage, regime or fix); run.note says why. */
#define PM_RUN_STATUS_NO_REPORT "no-report"
/* A stored run's mode for a cold run's uninstrumented twin: its steps without their timing flags (a [step]'s
 * timing_flag), no report read; the walls of a study whose spec names timing flags, and the flags' own cost. */
#define PM_RUN_MODE_PLAIN "plain"
/* Parses "30", "2.5s", "5m", "1h" into seconds. */
int pm_run_parse_duration(const char *text, double *seconds, pm_err *err);
/* Parses "512M", "8G", "1073741824" into bytes. */
int pm_run_parse_size(const char *text, uint64_t *bytes, pm_err *err);

/* The memory limit a child gets for want (its RLIMIT_AS): want, or the inherited hard limit when that is lower
 * (it cannot be raised). A caller compares the two to say so once. */
uint64_t pm_run_mem_limit_clamp(uint64_t want);

#endif
