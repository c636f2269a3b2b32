/* pm_run: fork/exec one command in its own process group and measure it.
 *
 * Sequence: the parent opens the capture files and pipes (all O_CLOEXEC), forks; the child resets signals,
 * moves into its own process group (unless same_group), wires stdin/stdout/stderr, chdir()s, sets RLIMIT_AS,
 * then blocks until the parent closes the "go" pipe, so that the parent can record the group (on_start) and
 * attach a perf counter (enable_on_exec) before the exec. That is the fallback: the child is spawned instead
 * (pm_run_spawn_child: clone(CLONE_VM | CLONE_VFORK), the same steps) and reads the clock itself just before its exec:
 * no page tables copied, no copy-on-write faults in passmap afterwards. The spawning thread is suspended until
 * the exec, so on_start and the counter are done by a helper thread the child tells its pid (pm_run_assist_main); the
 * child waits for that go. Fork only when no thread can be started. An exec failure is written to a
 * CLOEXEC "report" pipe (EOF there means the exec succeeded). The parent then polls the output pipes and a
 * pidfd until the child exits, enforcing the timeout. Rusage comes from wait4() on the child: descendants count
 * only if the child waited for them.
 *
 * A killed passmap: the child has PR_SET_PDEATHSIG(SIGKILL); what it runs in the background does not, and is
 * found through its process group, which the caller records in on_start (pgroup.h). */
#include "run_internal.h"

/* One command between its pipes' creation and its exec at a time: a child started meanwhile by another thread
 * (a sweep with --jobs) would hold this one's go and ready pipes open until its own exec, each child then
 * waiting for an EOF the other holds back. After the exec every inherited descriptor is gone (O_CLOEXEC). */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

/* One command's state, shared by its phases: prepare the streams and pipes, spawn, read the exec's outcome,
 * wait and drain, collect the result. */
typedef struct run_state {
    const char *const *argv;
    const pm_run_opts *opts;
    pm_run_result *res;
    int in_fd, out_p[2], err_p[2], report_p[2], go_p[2], ready_p[2];
    int perf_fd, pidfd, spawn_locked;
    char **envp;
    pid_t pid;
    char *buf;
    capture cap[2];
    const char *paths[2];
    char errtail[PM_RUN_ERRTAIL];
    size_t errtail_len;
    long oom_kills_before;
    char cg_path[2 * PATH_MAX];
    int have_cg;
    pressure_snap before, after;
    double t0;
    int spawned, assisted;
    assist as;
    int exec_failed;   /* the child failed before its exec: res says why, nothing to wait for */
    int timed_out, cancelled, wstatus;
    struct rusage ru;
} run_state;

/* The streams and pipes: stdin, the capture files, the pipes, the environment; the spawn lock is taken here. */
static int run_prepare(run_state *c, pm_err *err)
{
    const pm_run_opts *opts = c->opts;
    int rc = PM_OK;
    const char *in_path = opts->stdin_path ? opts->stdin_path : "/dev/null";
    pthread_mutex_lock(&spawn_lock);
    c->spawn_locked = 1;
    if ((c->in_fd = pm_run_open_high(in_path, O_RDONLY, 0)) < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "run: open stdin %s", in_path);
        return rc;
    }
    for (int i = 0; i < 2; i++)
        if (c->paths[i] && (c->cap[i].fd = pm_run_open_high(c->paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
            rc = pm_err_errno(err, PM_ERR_IO, "run: open capture %s", c->paths[i]);
            return rc;
        }
    if (pm_run_pipe_high(c->out_p) < 0 || pm_run_pipe_high(c->err_p) < 0 || pm_run_pipe_high(c->report_p) < 0 || pm_run_pipe_high(c->go_p) < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "run: pipe");
        return rc;
    }
    c->envp = opts->env_set ? pm_run_build_env(opts->env_set) : environ;
    c->buf = malloc(65536);
    if (!c->envp || !c->buf) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "run: out of memory");
        return rc;
    }
    return rc;
}

/* The child started (spawned, assisted or forked), its group recorded, its counter attached, its clock
 * started and its go given. */
static int run_spawn(run_state *c, pm_err *err)
{
    const char *const *argv = c->argv;
    const pm_run_opts *opts = c->opts;
    pm_run_result *res = c->res;
    int rc = PM_OK;
    c->oom_kills_before = pm_run_cgroup_oom_kills();
    pid_t parent = getpid();
    c->have_cg = !pm_run_cgroup_cpu_pressure_path(c->cg_path, sizeof c->cg_path);
    /* Spawned: the child starts the clock just before its exec, where a forked child gets its go. Assisted: the
     * same, with on_start and the counter done before the exec by a helper thread; fork only when no thread can
     * be started. */
    c->spawned = !opts->on_start && (!opts->count_instructions || pm_run_perf_unavailable());
    c->assisted = 0;
    c->as = (assist){.opts = opts, .ready_rd = -1, .go_wr = -1, .perf_fd = -1, .perf_errno = ESRCH};
    pthread_t helper;
    sigset_t all, old_mask;
    if (!c->spawned && pm_run_pipe_high(c->ready_p) == 0) {
        /* the helper starts with every signal blocked: passmap's handlers stay on the spawning thread */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old_mask);
        c->as.ready_rd = c->ready_p[0];
        c->as.go_wr = c->go_p[1];
        c->assisted = !pthread_create(&helper, NULL, pm_run_assist_main, &c->as);
        if (!c->assisted) {
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
            pm_run_close_fd(&c->ready_p[0]);
            pm_run_close_fd(&c->ready_p[1]);
        }
    }
    spawn_args sa = {.argv = argv, .envp = c->envp, .opts = opts, .in_fd = c->in_fd, .out_fd = c->out_p[1],
                     .err_fd = c->err_p[1], .report_fd = c->report_p[1], .out_rd = c->out_p[0], .err_rd = c->err_p[0],
                     .go_fd = c->assisted ? c->go_p[0] : -1, .go_wr = c->assisted ? c->go_p[1] : -1,
                     .ready_fd = c->assisted ? c->ready_p[1] : -1, .parent = parent, .t0 = 0};
    if (c->spawned || c->assisted) {
        int serr = 0;
        pm_run_pressure_read(&c->before, c->have_cg ? c->cg_path : NULL);
        if (c->spawned) {
            pm_run_close_fd(&c->go_p[0]);
            pm_run_close_fd(&c->go_p[1]);
        }
        c->pid = pm_run_spawn_child(&sa, &serr);
        if (c->assisted) {
            pm_run_close_fd(&c->ready_p[1]);   /* a child that never got as far as ready: EOF for the helper */
            pthread_join(helper, NULL);
            pm_run_close_fd(&c->ready_p[0]);
            c->go_p[1] = -1;            /* closed by the helper */
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        }
        errno = serr;
    } else {
        c->pid = fork();
    }
    if (c->pid < 0) {
        rc = pm_err_errno(err, PM_ERR_CHILD, c->spawned || c->assisted ? "run: clone" : "run: fork");
        return rc;
    }
    if (c->pid == 0)
        pm_run_child_main(argv, c->envp, opts, c->in_fd, c->out_p[1], c->err_p[1], c->report_p[1], c->go_p[0], c->go_p[1], c->out_p[0],
                   c->err_p[0], parent, -1, NULL);

    if (!opts->same_group)
        setpgid(c->pid, c->pid); /* also done by the child; whichever runs first wins, so killpg() is never early */
    pm_run_close_fd(&c->in_fd);
    pm_run_close_fd(&c->out_p[1]);
    pm_run_close_fd(&c->err_p[1]);
    pm_run_close_fd(&c->report_p[1]);
    pm_run_close_fd(&c->go_p[0]);
    if (c->assisted && c->as.on_start_rc) {   /* the child got an abort for its go: it never exec'd */
        rc = c->as.on_start_rc;
        if (err)
            *err = c->as.err;
        return rc;
    }
    if (!c->assisted && opts->on_start &&
        (rc = opts->on_start(opts->on_start_arg, opts->same_group ? getpgrp() : c->pid, err)))
        return rc; /* cleanup kills and reaps the child, which never got its go */
    if (opts->count_instructions)
        c->perf_fd = c->spawned ? -1 : c->assisted ? c->as.perf_fd : pm_run_open_perf_counter(c->pid, &res->instructions_errno);
    else
        res->instructions_errno = EPERM;
    if (c->spawned && opts->count_instructions)
        res->instructions_errno = pm_run_perf_unavailable();
    if (c->assisted && opts->count_instructions)
        res->instructions_errno = c->as.perf_errno;
#ifdef SYS_pidfd_open
    c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
#endif

    if (c->spawned || c->assisted) {
        c->t0 = sa.t0;   /* the child has exec'd (or failed and exited) by now */
        if (c->t0 == 0)  /* it failed before the exec */
            c->t0 = pm_util_now();
    } else {
        pm_run_pressure_read(&c->before, c->have_cg ? c->cg_path : NULL);
        c->t0 = pm_util_now();
        pm_run_close_fd(&c->go_p[1]); /* go: closing, not writing, so a dead child cannot raise SIGPIPE here */
    }
    return rc;
}

/* The exec's outcome on the report pipe: a child that failed before its exec is a spawn error, and done. */
static void run_exec_report(run_state *c)
{
    const char *const *argv = c->argv;
    const pm_run_opts *opts = c->opts;
    pm_run_result *res = c->res;
    struct child_report report;
    ssize_t got;
    do
        got = read(c->report_p[0], &report, sizeof report);
    while (got < 0 && errno == EINTR);
    pm_run_close_fd(&c->report_p[0]);
    pthread_mutex_unlock(&spawn_lock);   /* exec'd, or failed before it */
    c->spawn_locked = 0;
    if (got > 0) {
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        c->pid = -1;
        res->status = PM_RUN_SPAWN_ERROR;
        res->exit_code = 127;
        if (report.stage == STAGE_CHDIR)
            snprintf(res->spawn_error, sizeof res->spawn_error, "chdir %s: %s", opts->cwd, strerror(report.err));
        else
            snprintf(res->spawn_error, sizeof res->spawn_error, "%s %s: %s", pm_run_stage_name(report.stage), argv[0],
                     strerror(report.err));
        res->wall_s = pm_util_now() - c->t0;
        c->exec_failed = 1;
    }
}

/* Waits for the child and drains its pipes, enforcing the timeout and a cancel; a descendant holding a pipe
 * is not waited for forever. */
static int run_drain(run_state *c, pm_err *err)
{
    const pm_run_opts *opts = c->opts;
    pm_run_result *res = c->res;
    int rc = PM_OK;
    int fds[2] = {c->out_p[0], c->err_p[0]};
    int reaped = 0, term_sent = 0, kill_sent = 0;
    c->timed_out = 0;
    c->cancelled = 0;
    c->wstatus = 0;
    double term_time = 0, exit_time = 0;
    memset(&c->ru, 0, sizeof c->ru);
    for (;;) {
        double now = pm_util_now();
        if (!reaped) {
            int cancel_now = opts->cancel && *opts->cancel;
            if (!term_sent && (cancel_now || (opts->timeout_s > 0 && now - c->t0 >= opts->timeout_s))) {
                pm_run_signal_command(c->pid, opts->same_group, SIGTERM);
                term_sent = 1;
                term_time = now;
                c->cancelled = cancel_now;
                c->timed_out = !cancel_now;
            } else if (term_sent && !kill_sent && now - term_time >= PM_RUN_KILL_GRACE_S) {
                pm_run_signal_command(c->pid, opts->same_group, SIGKILL);
                kill_sent = 1;
            }
        } else {
            if (fds[0] < 0 && fds[1] < 0)
                break;
            if (now - exit_time >= PM_RUN_DRAIN_S) {
                /* A descendant still holds a pipe: do not wait for it forever. (In a shared group it is left to
                 * whoever owns the group: the step around a wrapper.) */
                if (!opts->same_group)
                    killpg(c->pid, SIGKILL);
                break;
            }
        }

        double wake = INFINITY;
        if (reaped)
            wake = exit_time + PM_RUN_DRAIN_S;
        else if (term_sent && !kill_sent)
            wake = term_time + PM_RUN_KILL_GRACE_S;
        else if (!term_sent && opts->timeout_s > 0)
            wake = c->t0 + opts->timeout_s;
        if (!reaped && c->pidfd < 0)
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
        if (!reaped && c->pidfd >= 0) {
            pid_idx = np;
            pfd[np++] = (struct pollfd){.fd = c->pidfd, .events = POLLIN};
        }
        int n = poll(pfd, (nfds_t)np, ms);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = pm_err_errno(err, PM_ERR_IO, "run: poll");
            if (!reaped)
                pm_run_kill_and_reap(c->pid, opts->same_group);
            c->pid = -1;
            return rc;
        }
        for (int i = 0; i < 2; i++) {
            if (idx[i] < 0 || !(pfd[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(fds[i], c->buf, 65536);
            if (r > 0) {
                pm_run_capture_feed(&c->cap[i], c->buf, (size_t)r);
                if (i == 1)
                    pm_run_errtail_push(c->errtail, &c->errtail_len, c->buf, (size_t)r);
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                pm_run_close_fd(&fds[i]);
            }
        }
        if (!reaped && (c->pidfd < 0 || (pfd[pid_idx].revents & POLLIN))) {
            pid_t w = wait4(c->pid, &c->wstatus, WNOHANG, &c->ru);
            if (w == c->pid) {
                reaped = 1;
                exit_time = pm_util_now();
                res->wall_s = exit_time - c->t0;
                pm_run_pressure_read(&c->after, c->have_cg ? c->cg_path : NULL);
                pm_run_pressure_delta(&c->before, &c->after, res);
            } else if (w < 0 && errno != EINTR) {
                rc = pm_err_errno(err, PM_ERR_CHILD, "run: wait4");
                pm_run_kill_and_reap(c->pid, opts->same_group);
                c->pid = -1;
                return rc;
            }
        }
    }
    c->out_p[0] = fds[0];
    c->err_p[0] = fds[1];
    c->pid = -1;
    return rc;
}

/* The result: rusage, the instruction count, the exit and what it means. */
static void run_collect(run_state *c)
{
    const pm_run_opts *opts = c->opts;
    pm_run_result *res = c->res;
    res->user_s = (double)c->ru.ru_utime.tv_sec + (double)c->ru.ru_utime.tv_usec * 1e-6;
    res->sys_s = (double)c->ru.ru_stime.tv_sec + (double)c->ru.ru_stime.tv_usec * 1e-6;
    res->maxrss_kb = c->ru.ru_maxrss;
    if (c->perf_fd >= 0) {
        res->instructions = pm_run_read_perf_counter(c->perf_fd);
        if (res->instructions < 0)
            res->instructions_errno = ENODATA;
    }
    if (WIFEXITED(c->wstatus)) {
        res->exit_code = WEXITSTATUS(c->wstatus);
        res->term_signal = 0;
    } else if (WIFSIGNALED(c->wstatus)) {
        res->exit_code = -1;
        res->term_signal = WTERMSIG(c->wstatus);
    }
    int sig = res->term_signal;
    if (c->timed_out)
        res->status = PM_RUN_TIMEOUT;
    else if (c->cancelled)
        res->status = PM_RUN_FAILED;
    else if (sig && pm_run_stderr_says_oom(c->errtail, c->errtail_len)) /* bad_alloc, then abort(): the message is the proof */
        res->status = PM_RUN_OOM;
    else if (sig == SIGKILL && c->oom_kills_before >= 0 && pm_run_cgroup_oom_kills() > c->oom_kills_before)
        res->status = PM_RUN_OOM;
    else if (sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
        res->status = PM_RUN_KILLED; /* not sent by us, and no sign of the OOM killer */
    else if (sig)
        res->status = PM_RUN_CRASHED;
    else if (res->exit_code == 0)
        res->status = PM_RUN_OK;
    else if (opts->mem_limit_bytes && pm_run_stderr_says_oom(c->errtail, c->errtail_len))
        res->status = PM_RUN_OOM;
    else
        res->status = PM_RUN_FAILED;
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
    run_state run = {.argv = argv, .opts = opts, .res = res, .in_fd = -1, .out_p = {-1, -1}, .err_p = {-1, -1},
                     .report_p = {-1, -1}, .go_p = {-1, -1}, .ready_p = {-1, -1}, .perf_fd = -1, .pidfd = -1,
                     .pid = -1, .paths = {opts->stdout_path, opts->stderr_path}};
    run_state *c = &run;
    size_t limit = opts->capture_limit ? opts->capture_limit : PM_RUN_DEFAULT_CAPTURE;
    pm_run_capture_init(&c->cap[0], limit);
    pm_run_capture_init(&c->cap[1], limit);

    if (!(rc = run_prepare(c, err)) && !(rc = run_spawn(c, err))) {
        run_exec_report(c);
        if (!c->exec_failed && !(rc = run_drain(c, err)))
            run_collect(c);
    }

    if (c->spawn_locked)
        pthread_mutex_unlock(&spawn_lock);
    if (c->pid > 0)
        pm_run_kill_and_reap(c->pid, opts->same_group);
    for (int i = 0; i < 2; i++) {
        pm_run_capture_finish(&c->cap[i]);
        if (c->cap[i].write_errno && rc == PM_OK) {
            errno = c->cap[i].write_errno;
            rc = pm_err_errno(err, PM_ERR_IO, "run: write capture %s", c->paths[i]);
        }
    }
    res->stdout_bytes = c->cap[0].total;
    res->stderr_bytes = c->cap[1].total;
    res->stdout_dropped = c->cap[0].dropped;
    res->stderr_dropped = c->cap[1].dropped;
    res->stdout_truncated = c->cap[0].dropped > 0;
    res->stderr_truncated = c->cap[1].dropped > 0;
    pm_run_close_fd(&c->in_fd);
    pm_run_close_fd(&c->out_p[0]);
    pm_run_close_fd(&c->out_p[1]);
    pm_run_close_fd(&c->err_p[0]);
    pm_run_close_fd(&c->err_p[1]);
    pm_run_close_fd(&c->report_p[0]);
    pm_run_close_fd(&c->report_p[1]);
    pm_run_close_fd(&c->go_p[0]);
    pm_run_close_fd(&c->go_p[1]);
    pm_run_close_fd(&c->ready_p[0]);
    pm_run_close_fd(&c->ready_p[1]);
    pm_run_close_fd(&c->perf_fd);
    pm_run_close_fd(&c->pidfd);
    if (c->envp != environ)
        free(c->envp);
    free(c->buf);
    return rc;
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
