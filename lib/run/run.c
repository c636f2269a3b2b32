/* pm_run: fork/exec one command in its own process group and measure it.
 *
 * Sequence: the parent opens the capture files and pipes (all O_CLOEXEC), forks; the child resets signals,
 * moves into its own process group (unless same_group), wires stdin/stdout/stderr, chdir()s, sets RLIMIT_AS,
 * then blocks until the parent closes the "go" pipe, so that the parent can record the group (on_start) and
 * attach a perf counter (enable_on_exec) before the exec. That is the fallback: the child is spawned instead
 * (spawn_child: clone(CLONE_VM | CLONE_VFORK), the same steps) and reads the clock itself just before its exec:
 * no page tables copied, no copy-on-write faults in passmap afterwards. The spawning thread is suspended until
 * the exec, so on_start and the counter are done by a helper thread the child tells its pid (assist_main); the
 * child waits for that go. Fork only when no thread can be started. An exec failure is written to a
 * CLOEXEC "report" pipe (EOF there means the exec succeeded). The parent then polls the output pipes and a
 * pidfd until the child exits, enforcing the timeout. Rusage comes from wait4() on the child: descendants count
 * only if the child waited for them.
 *
 * A killed passmap: the child has PR_SET_PDEATHSIG(SIGKILL); what it runs in the background does not, and is
 * found through its process group, which the caller records in on_start (pgroup.h). */
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

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

static void capture_init(capture *c, size_t limit)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->tail_cap = limit / 4;
    c->head_cap = limit - c->tail_cap;
}

static void capture_write(capture *c, const char *buf, size_t n)
{
    if (!c->write_errno && n > 0)
        c->write_errno = write_all(c->fd, buf, n);
}

/* Appends to the ring, overwriting (and counting as dropped) its oldest bytes. */
static void ring_push(capture *c, const char *buf, size_t n)
{
    if (c->tail_cap == 0) {
        c->dropped += n;
        return;
    }
    if (!c->ring) {
        c->ring = malloc(c->tail_cap);
        if (!c->ring) {
            c->write_errno = ENOMEM;
            c->dropped += n;
            return;
        }
    }
    if (n >= c->tail_cap) {
        c->dropped += c->ring_len + (n - c->tail_cap);
        memcpy(c->ring, buf + (n - c->tail_cap), c->tail_cap);
        c->ring_start = 0;
        c->ring_len = c->tail_cap;
        return;
    }
    if (c->ring_len + n > c->tail_cap) {
        size_t over = c->ring_len + n - c->tail_cap;
        c->dropped += over;
        c->ring_start = (c->ring_start + over) % c->tail_cap;
        c->ring_len -= over;
    }
    size_t pos = (c->ring_start + c->ring_len) % c->tail_cap;
    size_t first = c->tail_cap - pos < n ? c->tail_cap - pos : n;
    memcpy(c->ring + pos, buf, first);
    memcpy(c->ring, buf + first, n - first);
    c->ring_len += n;
}

static void capture_feed(capture *c, const char *buf, size_t n)
{
    c->total += n;
    if (c->fd < 0)
        return;
    size_t room = c->head_cap - c->head_len, take = n < room ? n : room;
    capture_write(c, buf, take);
    c->head_len += take;
    if (take < n)
        ring_push(c, buf + take, n - take);
}

static void capture_finish(capture *c)
{
    if (c->fd >= 0 && c->ring_len > 0) {
        size_t first = c->tail_cap - c->ring_start;
        if (first > c->ring_len)
            first = c->ring_len;
        capture_write(c, c->ring + c->ring_start, first);
        capture_write(c, c->ring, c->ring_len - first);
    }
    free(c->ring);
    c->ring = NULL;
    close_fd(&c->fd);
}

/* Keeps fds 0-2 free so the child's dup2() onto them can never clobber another pipe end. */
static int pipe_high(int fds[2])
{
    int raw[2];
    if (pipe2(raw, O_CLOEXEC) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        if (raw[i] > 2) {
            fds[i] = raw[i];
            continue;
        }
        fds[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 3);
        int saved = errno;
        close(raw[i]);
        if (fds[i] < 0) {
            if (i == 0)
                close(raw[1]);
            else
                close(fds[0]);
            errno = saved;
            return -1;
        }
    }
    return 0;
}

static int open_high(const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    if (fd < 0 || fd > 2)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(fd);
    errno = saved;
    return high;
}

static size_t env_name_len(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* exec(3) takes char *const[] for historical reasons and never writes the strings (POSIX): the one place
 * where a const argv or environment takes exec's type. */
static char *const *exec_vec(const char *const *v)
{
    union {
        const char *const *c;
        char *const *m;
    } u = {.c = v};
    return u.m;
}

/* environ with env_set entries replacing same-named variables (pointers only, nothing copied). */
static char **build_env(const char *const *env_set)
{
    size_t n_env = 0, n_set = 0;
    while (environ && environ[n_env])
        n_env++;
    while (env_set[n_set])
        n_set++;
    char **envp = malloc((n_env + n_set + 1) * sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++) {
        size_t len = env_name_len(environ[i]);
        int overridden = 0;
        for (size_t j = 0; j < n_set && !overridden; j++)
            overridden = env_name_len(env_set[j]) == len && !strncmp(env_set[j], environ[i], len);
        if (!overridden)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < n_set; j++)
        envp[k++] = pm_unconst(env_set[j]); /* exec reads, never writes */
    envp[k] = NULL;
    return envp;
}

/* The child's functions run on a stack AddressSanitizer does not know when spawned (spawn_child): uninstrumented,
 * or its no-return hook at _exit takes the foreign stack for a corrupt one (a SAN build's false report). They
 * make system calls only. */
#define PM_CHILD_CODE __attribute__((no_sanitize_address))

PM_CHILD_CODE static void child_fail(int report_fd, int stage)
{
    struct child_report r = {stage, errno};
    ssize_t ignored = write(report_fd, &r, sizeof r);
    (void)ignored;
    _exit(127);
}

/* Runs in the child: async-signal-safe calls only. Never returns. With go_fd >= 0 it waits for the go (EOF; a byte:
 * abort, no exec), after writing its pid to ready_fd when that is >= 0 (the helper thread of an assisted spawn).
 * Spawned (spawn_child): sets *t0 just before the exec, in the memory it shares with the parent. */
PM_CHILD_CODE static void child_main(const char *const argv[], char *const *envp, const pm_run_opts *opts,
                                     int in_fd, int out_fd, int err_fd, int report_fd, int go_fd, int go_wr,
                                     int out_rd, int err_rd, pid_t parent, int ready_fd, volatile double *t0)
{
    /* The command dies with passmap: a SIGKILLed sweep must not leave a compiler writing into the run folder
     * the resumed sweep reuses. The check after it covers a parent that died before the prctl. (Kept across
     * exec. The command's own children do not inherit it: they stay in its process group, which a timeout
     * kills and which the caller may record for the next sweep to reap, pgroup.h.) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    if (go_wr >= 0)
        close(go_wr);
    close(out_rd);
    close(err_rd);
    /* Ignored signals survive exec: give the command default dispositions and an empty mask. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (!opts->same_group)
        setpgid(0, 0);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        child_fail(report_fd, STAGE_DUP);
    /* fds the caller opened without O_CLOEXEC (a make jobserver, say) must not reach the command either.
     * CLOEXEC rather than close: the report and go pipes are still needed until the exec. */
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (opts->cwd && chdir(opts->cwd) < 0)
        child_fail(report_fd, STAGE_CHDIR);
    if (opts->mem_limit_bytes) {
        /* Clamped to an inherited hard limit (HPC nodes, containers): raising it is not allowed, and lower is
         * what the process gets anyway (pm_run_mem_limit_clamp says so once, in the caller). */
        struct rlimit rl = {(rlim_t)opts->mem_limit_bytes, (rlim_t)opts->mem_limit_bytes}, cur;
        if (getrlimit(RLIMIT_AS, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && rl.rlim_max > cur.rlim_max)
            rl.rlim_cur = rl.rlim_max = cur.rlim_max;
        if (setrlimit(RLIMIT_AS, &rl) < 0)
            child_fail(report_fd, STAGE_RLIMIT);
    }
    if (ready_fd >= 0) {
        pid_t me = getpid();
        if (write(ready_fd, &me, sizeof me) != (ssize_t)sizeof me)
            _exit(127);
        close(ready_fd);
    }
    /* Wait for the parent's go (EOF on the pipe): the perf counter is attached by then. */
    char c;
    ssize_t got;
    do
        got = go_fd >= 0 ? read(go_fd, &c, 1) : 0;
    while (got < 0 && errno == EINTR);
    if (got > 0)
        _exit(127);   /* on_start failed: the command never runs */
    if (t0)
        *t0 = pm_util_now();   /* clock_gettime: async-signal-safe */
    execvpe(argv[0], exec_vec(argv), envp);
    child_fail(report_fd, STAGE_EXEC);
}

static int open_perf_counter(pid_t pid, int *err_out)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.enable_on_exec = 1;
    attr.inherit = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        *err_out = errno;
        return -1;
    }
    *err_out = 0;
    return (int)fd;
}

/* Counter value, scaled when the PMU was multiplexed; -1 when it never ran. */
static int64_t read_perf_counter(int fd)
{
    uint64_t v[3];
    ssize_t n;
    do
        n = read(fd, v, sizeof v);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof v || v[2] == 0)
        return -1;
    if (v[2] < v[1])
        return (int64_t)((double)v[0] * ((double)v[1] / (double)v[2]));
    return (int64_t)v[0];
}

/* 0 when an instruction counter can be opened (probed once, on passmap itself), else why not (errno). */
static int perf_unavailable(void)
{
    static int probed = -1;
    if (probed < 0) {
        int e = 0, fd = open_perf_counter(0, &e);
        if (fd >= 0)
            close(fd);
        probed = fd >= 0 ? 0 : e ? e : EPERM;
    }
    return probed;
}

typedef struct spawn_args {
    const char *const *argv;
    char *const *envp;
    const pm_run_opts *opts;
    int in_fd, out_fd, err_fd, report_fd, out_rd, err_rd;
    int go_fd, go_wr, ready_fd;   /* -1 unless assisted */
    pid_t parent;
    volatile double t0;
} spawn_args;

PM_CHILD_CODE static int spawn_entry(void *arg)
{
    spawn_args *a = arg;
    child_main(a->argv, a->envp, a->opts, a->in_fd, a->out_fd, a->err_fd, a->report_fd, a->go_fd, a->go_wr,
               a->out_rd, a->err_rd, a->parent, a->ready_fd, &a->t0);
    return 127;
}

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

static void *assist_main(void *arg)
{
    assist *a = arg;
    pid_t pid;
    ssize_t n;
    do
        n = read(a->ready_rd, &pid, sizeof pid);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof pid) {   /* else EOF: the child failed before (its report says why) */
        a->started = 1;
        if (a->opts->on_start)
            a->on_start_rc = a->opts->on_start(a->opts->on_start_arg, a->opts->same_group ? getpgrp() : pid, &a->err);
        if (!a->on_start_rc && a->opts->count_instructions)
            a->perf_fd = open_perf_counter(pid, &a->perf_errno);
        if (a->on_start_rc) {
            char abort_byte = 'x';
            ssize_t ignored = write(a->go_wr, &abort_byte, 1);
            (void)ignored;
        }
    }
    close(a->go_wr);
    return NULL;
}

/* Starts the child as posix_spawn does: clone(CLONE_VM | CLONE_VFORK) on a stack of its own, the calling thread
 * suspended until the exec (or the child's exit). No copy of passmap's page tables to make and tear down at the
 * exec, and no copy-on-write fault in passmap for each page it writes afterwards (a sweep's parent paid those at
 * every step). Signals are blocked around the clone so that no handler of passmap's runs on the child's stack;
 * the child resets every disposition and unblocks them before the exec. */
static pid_t spawn_child(spawn_args *a, int *err_out)
{
    size_t argc = 0;
    while (a->argv[argc])
        argc++;
    /* execvpe's PATH search and its script fallback put a path and a copy of argv on the stack */
    long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    size_t size = ((size_t)64 << 10) + (argc + 2) * sizeof(char *) + 2 * PATH_MAX;
    size = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        *err_out = errno;
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(spawn_entry, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
    *err_out = pid < 0 ? errno : 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    munmap(stack, size);
    return pid;
}

/* The command's process group, or the command alone when it shares passmap's group (same_group). */
static void signal_command(pid_t pid, int same_group, int sig)
{
    if (same_group)
        kill(pid, sig);
    else
        killpg(pid, sig);
}

static void kill_and_reap(pid_t pid, int same_group)
{
    signal_command(pid, same_group, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Where the hierarchy holding `want` is mounted: cgroup2 (want "") or the v1 hierarchy whose super options
 * name the controller (want "memory"). Read from /proc/self/mountinfo, because hybrid systems mount v2 at
 * /sys/fs/cgroup/unified and v1 controllers beside it. 0 when found. */
static int cgroup_mount_read(const char *want, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t n = 0;
    int found = -1;
    while (found && getline(&line, &n, f) > 0) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
        char mnt[PATH_MAX], fstype[64], super[512];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
            sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2)
            continue;
        int hit = !*want ? !strcmp(fstype, "cgroup2") : !strcmp(fstype, "cgroup");
        if (hit && *want) {   /* the controller must be one of the comma-separated super options */
            hit = 0;
            for (char *save = NULL, *tok = strtok_r(super, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
                hit = !strcmp(tok, want);
        }
        if (hit && (size_t)snprintf(out, cap, "%s", mnt) < cap)
            found = 0;
    }
    free(line);
    fclose(f);
    return found;
}

/* cgroup_mount_read once per process and hierarchy: a sweep asked twice per step, and mountinfo runs to
 * hundreds of lines on a container host. (A cgroup file system mounted elsewhere mid-sweep is not followed; the
 * OOM and pressure readings it serves are diagnostics.) */
static int cgroup_mount(const char *want, char *out, size_t cap)
{
    static struct { int state; char path[PATH_MAX]; } memo[2];   /* [0] cgroup2, [1] v1 memory; state 1/-1 */
    int k = *want ? 1 : 0;
    if (*want && strcmp(want, "memory"))
        return cgroup_mount_read(want, out, cap);
    if (!memo[k].state)
        memo[k].state = cgroup_mount_read(want, memo[k].path, sizeof memo[k].path) ? -1 : 1;
    if (memo[k].state < 0 || (size_t)snprintf(out, cap, "%s", memo[k].path) >= cap)
        return -1;
    return 0;
}

/* The kernel OOM killer's count for passmap's memory cgroup (the child starts in the same cgroup): cgroup v2
 * memory.events "oom_kill N", or v1 memory.oom_control "oom_kill N" (hybrid systems: the v1 memory controller
 * is the one that limits). -1 when it cannot be read: then no SIGKILL is taken for an OOM kill. */
static long cgroup_oom_kills(void)
{
    char line[PATH_MAX + 64], path[2 * PATH_MAX + 64], v1[PATH_MAX] = "", v2[PATH_MAX] = "";
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    /* lines are ID:CONTROLLERS:PATH; v2 is "0::PATH", v1 memory "N:memory:PATH" (maybe with other controllers) */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *cg = c2 + 1;
        if (!*ctrls)
            snprintf(v2, sizeof v2, "%s", cg);
        else
            for (const char *p = ctrls; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
                if (!strncmp(p, "memory", 6) && (p[6] == ',' || p[6] == '\0'))
                    snprintf(v1, sizeof v1, "%s", cg);
    }
    fclose(f);
    char mnt[PATH_MAX];
    path[0] = '\0';
    if (v1[0] && !cgroup_mount("memory", mnt, sizeof mnt)) {
        snprintf(path, sizeof path, "%s%s/memory.oom_control", mnt, strcmp(v1, "/") ? v1 : "");
    }
    if (!path[0] && v2[0] && !cgroup_mount("", mnt, sizeof mnt)) {
        snprintf(path, sizeof path, "%s%s/memory.events", mnt, strcmp(v2, "/") ? v2 : "");
    }
    if (!path[0] || !(f = fopen(path, "r")))
        return -1;
    long n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "oom_kill %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* The "some total=" of a PSI file (microseconds some task waited for a CPU since boot); -1: absent (kernel
 * without PSI, or psi=0). */
static int64_t psi_some_total(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    long long total = -1;
    while (fgets(line, sizeof line, f)) {
        const char *t = !strncmp(line, "some ", 5) ? strstr(line, "total=") : NULL;
        if (t && sscanf(t + 6, "%lld", &total) == 1)
            break;
    }
    fclose(f);
    return total;
}

/* passmap's cgroup v2 cpu.pressure file (the child starts in the same cgroup); 0 when there is one that is
 * not the root (the root's is /proc/pressure/cpu). */
static int cgroup_cpu_pressure_path(char *out, size_t cap)
{
    char line[PATH_MAX + 64], v2[PATH_MAX + 64] = "", mnt[PATH_MAX];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "0::", 3))
            memcpy(v2, line + 3, strlen(line + 3) + 1);
    }
    fclose(f);
    if (!v2[0] || !strcmp(v2, "/") || cgroup_mount("", mnt, sizeof mnt))
        return -1;
    return (size_t)snprintf(out, cap, "%s%s/cpu.pressure", mnt, v2) < cap ? 0 : -1;
}

/* The "cpu" line's steal (8th field) in USER_HZ ticks, summed over CPUs; -1: absent. */
static int64_t steal_ticks(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[8];
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]);
    fclose(f);
    return got == 8 ? (int64_t)v[7] : -1;
}

typedef struct pressure_snap { int64_t psi, psi_cg, steal; } pressure_snap;

static void pressure_read(pressure_snap *s, const char *cg_path)
{
    s->psi = psi_some_total("/proc/pressure/cpu");
    s->psi_cg = cg_path ? psi_some_total(cg_path) : -1;
    s->steal = steal_ticks();
}

/* after - before into res; a counter absent at either end (or going back) stays -1 */
static void pressure_delta(const pressure_snap *a, const pressure_snap *b, pm_run_result *res)
{
    long hz = sysconf(_SC_CLK_TCK);
    res->psi_cpu_some_us = a->psi >= 0 && b->psi >= a->psi ? b->psi - a->psi : -1;
    res->psi_cgroup_some_us = a->psi_cg >= 0 && b->psi_cg >= a->psi_cg ? b->psi_cg - a->psi_cg : -1;
    res->steal_s = a->steal >= 0 && b->steal >= a->steal && hz > 0 ? (double)(b->steal - a->steal) / (double)hz : -1;
}

static int stderr_says_oom(const char *tail, size_t n)
{
    static const char *const needles[] = {"out of memory", "Cannot allocate memory", "std::bad_alloc",
                                          "LLVM ERROR: out of memory", "MemoryError"};
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (memmem(tail, n, needles[i], strlen(needles[i])))
            return 1;
    return 0;
}

static void errtail_push(char *tail, size_t *len, const char *buf, size_t n)
{
    if (n >= PM_RUN_ERRTAIL) {
        memcpy(tail, buf + n - PM_RUN_ERRTAIL, PM_RUN_ERRTAIL);
        *len = PM_RUN_ERRTAIL;
        return;
    }
    if (*len + n > PM_RUN_ERRTAIL) {
        size_t over = *len + n - PM_RUN_ERRTAIL;
        memmove(tail, tail + over, *len - over);
        *len -= over;
    }
    memcpy(tail + *len, buf, n);
    *len += n;
}

static const char *stage_name(int stage)
{
    switch (stage) {
    case STAGE_CHDIR: return "chdir";
    case STAGE_RLIMIT: return "setrlimit";
    case STAGE_DUP: return "dup2";
    default: return "exec";
    }
}

int pm_run_exec(const char *const argv[], const pm_run_opts *opts, pm_run_result *res, pm_err *err)
{
    static const pm_run_opts no_opts;
    if (!opts)
        opts = &no_opts;
    memset(res, 0, sizeof *res);
    res->instructions = -1;
    res->psi_cpu_some_us = res->psi_cgroup_some_us = -1;
    res->steal_s = -1;
    res->exit_code = -1;
    res->status = PM_RUN_FAILED;
    if (!argv || !argv[0] || !argv[0][0])
        return pm_err_set(err, PM_ERR_USAGE, "run: empty command");
    if (opts->timeout_s < 0 || isnan(opts->timeout_s))
        return pm_err_set(err, PM_ERR_USAGE, "run: negative timeout");

    int rc = PM_OK;
    int in_fd = -1, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, report_p[2] = {-1, -1}, go_p[2] = {-1, -1};
    int ready_p[2] = {-1, -1};
    int perf_fd = -1, pidfd = -1;
    char **envp = NULL;
    pid_t pid = -1;
    char *buf = NULL;
    capture cap[2];
    size_t limit = opts->capture_limit ? opts->capture_limit : PM_RUN_DEFAULT_CAPTURE;
    capture_init(&cap[0], limit);
    capture_init(&cap[1], limit);
    const char *paths[2] = {opts->stdout_path, opts->stderr_path};
    char errtail[PM_RUN_ERRTAIL];
    size_t errtail_len = 0;

    const char *in_path = opts->stdin_path ? opts->stdin_path : "/dev/null";
    if ((in_fd = open_high(in_path, O_RDONLY, 0)) < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "run: open stdin %s", in_path);
        goto cleanup;
    }
    for (int i = 0; i < 2; i++)
        if (paths[i] && (cap[i].fd = open_high(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "run: open capture %s", paths[i]);
            goto cleanup;
        }
    if (pipe_high(out_p) < 0 || pipe_high(err_p) < 0 || pipe_high(report_p) < 0 || pipe_high(go_p) < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "run: pipe");
        goto cleanup;
    }
    envp = opts->env_set ? build_env(opts->env_set) : environ;
    buf = malloc(65536);
    if (!envp || !buf) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "run: out of memory");
        goto cleanup;
    }

    long oom_kills_before = cgroup_oom_kills();
    pid_t parent = getpid();
    char cg_path[2 * PATH_MAX];
    int have_cg = !cgroup_cpu_pressure_path(cg_path, sizeof cg_path);
    pressure_snap before, after;
    double t0;
    /* Spawned: the child starts the clock just before its exec, where a forked child gets its go. Assisted: the
     * same, with on_start and the counter done before the exec by a helper thread; fork only when no thread can
     * be started. */
    int spawned = !opts->on_start && (!opts->count_instructions || perf_unavailable()), assisted = 0;
    assist as = {.opts = opts, .ready_rd = -1, .go_wr = -1, .perf_fd = -1, .perf_errno = ESRCH};
    pthread_t helper;
    sigset_t all, old_mask;
    if (!spawned && pipe_high(ready_p) == 0) {
        /* the helper starts with every signal blocked: passmap's handlers stay on the spawning thread */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old_mask);
        as.ready_rd = ready_p[0];
        as.go_wr = go_p[1];
        assisted = !pthread_create(&helper, NULL, assist_main, &as);
        if (!assisted) {
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
            close_fd(&ready_p[0]);
            close_fd(&ready_p[1]);
        }
    }
    spawn_args sa = {.argv = argv, .envp = envp, .opts = opts, .in_fd = in_fd, .out_fd = out_p[1],
                     .err_fd = err_p[1], .report_fd = report_p[1], .out_rd = out_p[0], .err_rd = err_p[0],
                     .go_fd = assisted ? go_p[0] : -1, .go_wr = assisted ? go_p[1] : -1,
                     .ready_fd = assisted ? ready_p[1] : -1, .parent = parent, .t0 = 0};
    if (spawned || assisted) {
        int serr = 0;
        pressure_read(&before, have_cg ? cg_path : NULL);
        if (spawned) {
            close_fd(&go_p[0]);
            close_fd(&go_p[1]);
        }
        pid = spawn_child(&sa, &serr);
        if (assisted) {
            close_fd(&ready_p[1]);   /* a child that never got as far as ready: EOF for the helper */
            pthread_join(helper, NULL);
            close_fd(&ready_p[0]);
            go_p[1] = -1;            /* closed by the helper */
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        }
        errno = serr;
    } else {
        pid = fork();
    }
    if (pid < 0) {
        rc = pm_err_errno(err, PM_ERR_CHILD, spawned || assisted ? "run: clone" : "run: fork");
        goto cleanup;
    }
    if (pid == 0)
        child_main(argv, envp, opts, in_fd, out_p[1], err_p[1], report_p[1], go_p[0], go_p[1], out_p[0],
                   err_p[0], parent, -1, NULL);

    if (!opts->same_group)
        setpgid(pid, pid); /* also done by the child; whichever runs first wins, so killpg() is never early */
    close_fd(&in_fd);
    close_fd(&out_p[1]);
    close_fd(&err_p[1]);
    close_fd(&report_p[1]);
    close_fd(&go_p[0]);
    if (assisted && as.on_start_rc) {   /* the child got an abort for its go: it never exec'd */
        rc = as.on_start_rc;
        if (err)
            *err = as.err;
        goto cleanup;
    }
    if (!assisted && opts->on_start &&
        (rc = opts->on_start(opts->on_start_arg, opts->same_group ? getpgrp() : pid, err)))
        goto cleanup; /* cleanup kills and reaps the child, which never got its go */
    if (opts->count_instructions)
        perf_fd = spawned ? -1 : assisted ? as.perf_fd : open_perf_counter(pid, &res->instructions_errno);
    else
        res->instructions_errno = EPERM;
    if (spawned && opts->count_instructions)
        res->instructions_errno = perf_unavailable();
    if (assisted && opts->count_instructions)
        res->instructions_errno = as.perf_errno;
#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif

    if (spawned || assisted) {
        t0 = sa.t0;   /* the child has exec'd (or failed and exited) by now */
        if (t0 == 0)  /* it failed before the exec */
            t0 = pm_util_now();
    } else {
        pressure_read(&before, have_cg ? cg_path : NULL);
        t0 = pm_util_now();
        close_fd(&go_p[1]); /* go: closing, not writing, so a dead child cannot raise SIGPIPE here */
    }

    struct child_report report;
    ssize_t got;
    do
        got = read(report_p[0], &report, sizeof report);
    while (got < 0 && errno == EINTR);
    close_fd(&report_p[0]);
    if (got > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        pid = -1;
        res->status = PM_RUN_SPAWN_ERROR;
        res->exit_code = 127;
        if (report.stage == STAGE_CHDIR)
            snprintf(res->spawn_error, sizeof res->spawn_error, "chdir %s: %s", opts->cwd, strerror(report.err));
        else
            snprintf(res->spawn_error, sizeof res->spawn_error, "%s %s: %s", stage_name(report.stage), argv[0],
                     strerror(report.err));
        res->wall_s = pm_util_now() - t0;
        goto cleanup;
    }

    int fds[2] = {out_p[0], err_p[0]};
    int reaped = 0, term_sent = 0, kill_sent = 0, timed_out = 0, cancelled = 0, wstatus = 0;
    double term_time = 0, exit_time = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        double now = pm_util_now();
        if (!reaped) {
            int cancel_now = opts->cancel && *opts->cancel;
            if (!term_sent && (cancel_now || (opts->timeout_s > 0 && now - t0 >= opts->timeout_s))) {
                signal_command(pid, opts->same_group, SIGTERM);
                term_sent = 1;
                term_time = now;
                cancelled = cancel_now;
                timed_out = !cancel_now;
            } else if (term_sent && !kill_sent && now - term_time >= PM_RUN_KILL_GRACE_S) {
                signal_command(pid, opts->same_group, SIGKILL);
                kill_sent = 1;
            }
        } else {
            if (fds[0] < 0 && fds[1] < 0)
                break;
            if (now - exit_time >= PM_RUN_DRAIN_S) {
                /* A descendant still holds a pipe: do not wait for it forever. (In a shared group it is left to
                 * whoever owns the group: the step around a wrapper.) */
                if (!opts->same_group)
                    killpg(pid, SIGKILL);
                break;
            }
        }

        double wake = INFINITY;
        if (reaped)
            wake = exit_time + PM_RUN_DRAIN_S;
        else if (term_sent && !kill_sent)
            wake = term_time + PM_RUN_KILL_GRACE_S;
        else if (!term_sent && opts->timeout_s > 0)
            wake = t0 + opts->timeout_s;
        if (!reaped && pidfd < 0)
            wake = fmin(wake, now + 0.005); /* no pidfd: poll wait4 */
        if (!reaped && opts->cancel)
            wake = fmin(wake, now + 0.1);
        int ms = -1;
        if (isfinite(wake))
            ms = wake <= now ? 0 : (int)ceil((wake - now) * 1000.0);

        struct pollfd pfd[3];
        int np = 0, idx[2] = {-1, -1}, pid_idx = -1;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0) {
                idx[i] = np;
                pfd[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
            }
        if (!reaped && pidfd >= 0) {
            pid_idx = np;
            pfd[np++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        }
        int n = poll(pfd, (nfds_t)np, ms);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = pm_err_errno(err, PM_ERR_IO, "run: poll");
            if (!reaped)
                kill_and_reap(pid, opts->same_group);
            pid = -1;
            goto cleanup;
        }
        for (int i = 0; i < 2; i++) {
            if (idx[i] < 0 || !(pfd[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(fds[i], buf, 65536);
            if (r > 0) {
                capture_feed(&cap[i], buf, (size_t)r);
                if (i == 1)
                    errtail_push(errtail, &errtail_len, buf, (size_t)r);
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                close_fd(&fds[i]);
            }
        }
        if (!reaped && (pidfd < 0 || (pfd[pid_idx].revents & POLLIN))) {
            pid_t w = wait4(pid, &wstatus, WNOHANG, &ru);
            if (w == pid) {
                reaped = 1;
                exit_time = pm_util_now();
                res->wall_s = exit_time - t0;
                pressure_read(&after, have_cg ? cg_path : NULL);
                pressure_delta(&before, &after, res);
            } else if (w < 0 && errno != EINTR) {
                rc = pm_err_errno(err, PM_ERR_CHILD, "run: wait4");
                kill_and_reap(pid, opts->same_group);
                pid = -1;
                goto cleanup;
            }
        }
    }
    out_p[0] = fds[0];
    err_p[0] = fds[1];
    pid = -1;

    res->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
    res->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    res->maxrss_kb = ru.ru_maxrss;
    if (perf_fd >= 0) {
        res->instructions = read_perf_counter(perf_fd);
        if (res->instructions < 0)
            res->instructions_errno = ENODATA;
    }
    if (WIFEXITED(wstatus)) {
        res->exit_code = WEXITSTATUS(wstatus);
        res->term_signal = 0;
    } else if (WIFSIGNALED(wstatus)) {
        res->exit_code = -1;
        res->term_signal = WTERMSIG(wstatus);
    }
    int sig = res->term_signal;
    if (timed_out)
        res->status = PM_RUN_TIMEOUT;
    else if (cancelled)
        res->status = PM_RUN_FAILED;
    else if (sig && stderr_says_oom(errtail, errtail_len)) /* bad_alloc, then abort(): the message is the proof */
        res->status = PM_RUN_OOM;
    else if (sig == SIGKILL && oom_kills_before >= 0 && cgroup_oom_kills() > oom_kills_before)
        res->status = PM_RUN_OOM;
    else if (sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
        res->status = PM_RUN_KILLED; /* not sent by us, and no sign of the OOM killer */
    else if (sig)
        res->status = PM_RUN_CRASHED;
    else if (res->exit_code == 0)
        res->status = PM_RUN_OK;
    else if (opts->mem_limit_bytes && stderr_says_oom(errtail, errtail_len))
        res->status = PM_RUN_OOM;
    else
        res->status = PM_RUN_FAILED;

cleanup:
    if (pid > 0)
        kill_and_reap(pid, opts->same_group);
    for (int i = 0; i < 2; i++) {
        capture_finish(&cap[i]);
        if (cap[i].write_errno && rc == PM_OK) {
            errno = cap[i].write_errno;
            rc = pm_err_errno(err, PM_ERR_IO, "run: write capture %s", paths[i]);
        }
    }
    res->stdout_bytes = cap[0].total;
    res->stderr_bytes = cap[1].total;
    res->stdout_dropped = cap[0].dropped;
    res->stderr_dropped = cap[1].dropped;
    res->stdout_truncated = cap[0].dropped > 0;
    res->stderr_truncated = cap[1].dropped > 0;
    close_fd(&in_fd);
    close_fd(&out_p[0]);
    close_fd(&out_p[1]);
    close_fd(&err_p[0]);
    close_fd(&err_p[1]);
    close_fd(&report_p[0]);
    close_fd(&report_p[1]);
    close_fd(&go_p[0]);
    close_fd(&go_p[1]);
    close_fd(&ready_p[0]);
    close_fd(&ready_p[1]);
    close_fd(&perf_fd);
    close_fd(&pidfd);
    if (envp != environ)
        free(envp);
    free(buf);
    return rc;
}

void pm_run_pressure_init(pm_run_pressure *p)
{
    memset(p, 0, sizeof *p);
}

void pm_run_pressure_add(pm_run_pressure *p, const pm_run_result *r)
{
    double v[PM_RUN_PRESSURE_METRICS] = {(double)r->psi_cpu_some_us, (double)r->psi_cgroup_some_us,
                                         r->steal_s >= 0 ? r->steal_s * 1e3 : -1};
    for (int k = 0; k < PM_RUN_PRESSURE_METRICS; k++)
        p->value[k] = p->value[k] < 0 || v[k] < 0 ? -1 : p->value[k] + v[k];
    p->n++;
}

const char *pm_run_pressure_name(int k)
{
    static const char *const names[PM_RUN_PRESSURE_METRICS] = {"host.psi_cpu_some_us", "host.psi_cgroup_cpu_some_us",
                                                               "host.steal_ms"};
    return k >= 0 && k < PM_RUN_PRESSURE_METRICS ? names[k] : "";
}

const char *pm_run_status_name(pm_run_status s)
{
    switch (s) {
    case PM_RUN_OK: return "ok";
    case PM_RUN_FAILED: return "failed";
    case PM_RUN_TIMEOUT: return "timeout";
    case PM_RUN_OOM: return "oom";
    case PM_RUN_CRASHED: return "crashed";
    case PM_RUN_KILLED: return "killed";
    case PM_RUN_SPAWN_ERROR: return "spawn-error";
    }
    return "unknown";
}

/* Number then optional unit; rejects signs, blanks, nan/inf and trailing junk. */
static int parse_number(const char *text, double *value, const char **unit)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    for (const char *p = text; *p && *p != '.' && !isalpha((unsigned char)*p); p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v < 0)
        return -1;
    /* strtod would take "1e3" or "0x10": only plain decimals are accepted. */
    for (const char *p = text; p < end; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
    *value = v;
    *unit = end;
    return 0;
}

int pm_run_parse_duration(const char *text, double *seconds, pm_err *err)
{
    double v;
    const char *unit;
    if (parse_number(text, &v, &unit) < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid duration '%s' (expected e.g. 30, 2.5s, 500ms, 5m, 1h)",
                          text ? text : "");
    double scale;
    if (!*unit || !strcmp(unit, "s"))
        scale = 1;
    else if (!strcmp(unit, "ms"))
        scale = 1e-3;
    else if (!strcmp(unit, "m"))
        scale = 60;
    else if (!strcmp(unit, "h"))
        scale = 3600;
    else
        return pm_err_set(err, PM_ERR_USAGE, "invalid duration '%s': unknown unit '%s' (use ms, s, m or h)", text,
                          unit);
    *seconds = v * scale;
    return PM_OK;
}

int pm_run_parse_size(const char *text, uint64_t *bytes, pm_err *err)
{
    double v;
    const char *unit;
    if (parse_number(text, &v, &unit) < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s' (expected e.g. 1073741824, 512M, 8G)",
                          text ? text : "");
    /* Binary multiples: K=1024. "512M", "512MB", "512MiB" and "512m" mean the same. */
    int shift = -1;
    switch (toupper((unsigned char)unit[0])) {
    case '\0': shift = 0; break;
    case 'B': shift = unit[1] ? -1 : 0; break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    }
    if (shift > 0) {
        const char *rest = unit + 1;
        if (!*rest || !strcmp(rest, "B") || !strcmp(rest, "iB"))
            ;
        else
            shift = -1;
    }
    if (shift < 0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': unknown unit '%s' (use K, M, G or T)", text, unit);
    if (!strchr(text, '.') && shift == 0) {
        /* Exact for large plain byte counts, where a double would round. */
        errno = 0;
        unsigned long long n = strtoull(text, NULL, 10);
        if (errno)
            return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': too large", text);
        *bytes = n;
        return PM_OK;
    }
    double b = ldexp(v, shift);
    if (b >= 18446744073709551615.0)
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': too large", text);
    /* 0.5 bytes would truncate to 0, which means "no limit": a limit that silently lifts itself */
    if (b != floor(b))
        return pm_err_set(err, PM_ERR_USAGE, "invalid size '%s': not a whole number of bytes", text);
    *bytes = (uint64_t)b;
    return PM_OK;
}

uint64_t pm_run_mem_limit_clamp(uint64_t want)
{
    struct rlimit cur;
    if (want && getrlimit(RLIMIT_AS, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && want > (uint64_t)cur.rlim_max)
        return (uint64_t)cur.rlim_max;
    return want;
}
