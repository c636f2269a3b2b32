/* Starting the child (run.c's comment has the sequence): the pipes and files it gets, its environment, what
 * it does between the fork or clone and its exec, the perf counter attached before the exec, and the
 * helper thread of an assisted spawn; signalling and reaping it. */
#include "run_internal.h"

/* Keeps fds 0-2 free so the child's dup2() onto them can never clobber another pipe end. */
int pm_run_pipe_high(int fds[2])
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

int pm_run_open_high(const char *path, int flags, mode_t mode)
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
char **pm_run_build_env(const char *const *env_set)
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

PM_CHILD_CODE static void child_fail(int report_fd, int stage)
{
    struct child_report r = {stage, errno};
    ssize_t ignored = write(report_fd, &r, sizeof r);
    (void)ignored;
    _exit(127);
}

/* Runs in the child: async-signal-safe calls only. Never returns. With go_fd >= 0 it waits for the go (EOF; a byte:
 * abort, no exec), after writing its pid to ready_fd when that is >= 0 (the helper thread of an assisted spawn).
 * Spawned (pm_run_spawn_child): sets *t0 just before the exec, in the memory it shares with the parent. */
PM_CHILD_CODE void pm_run_child_main(const char *const argv[], char *const *envp, const pm_run_opts *opts,
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

int pm_run_open_perf_counter(pid_t pid, int *err_out)
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
int64_t pm_run_read_perf_counter(int fd)
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
int pm_run_perf_unavailable(void)
{
    static int probed = -1;
    if (probed < 0) {
        int e = 0, fd = pm_run_open_perf_counter(0, &e);
        if (fd >= 0)
            close(fd);
        probed = fd >= 0 ? 0 : e ? e : EPERM;
    }
    return probed;
}

PM_CHILD_CODE static int spawn_entry(void *arg)
{
    spawn_args *a = arg;
    pm_run_child_main(a->argv, a->envp, a->opts, a->in_fd, a->out_fd, a->err_fd, a->report_fd, a->go_fd, a->go_wr,
               a->out_rd, a->err_rd, a->parent, a->ready_fd, &a->t0);
    return 127;
}

void *pm_run_assist_main(void *arg)
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
            a->perf_fd = pm_run_open_perf_counter(pid, &a->perf_errno);
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
pid_t pm_run_spawn_child(spawn_args *a, int *err_out)
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
void pm_run_signal_command(pid_t pid, int same_group, int sig)
{
    if (same_group)
        kill(pid, sig);
    else
        killpg(pid, sig);
}

void pm_run_kill_and_reap(pid_t pid, int same_group)
{
    pm_run_signal_command(pid, same_group, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

const char *pm_run_stage_name(int stage)
{
    switch (stage) {
    case STAGE_CHDIR: return "chdir";
    case STAGE_RLIMIT: return "setrlimit";
    case STAGE_DUP: return "dup2";
    default: return "exec";
    }
}
