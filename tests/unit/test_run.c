#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "slurp.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static char tmpdir[64];

static int setup(void **state)
{
    strcpy(tmpdir, "/tmp/pm-test-run.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *path_in_tmp(const char *name)
{
    static char buf[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static int count_open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void run_sh(const char *script, const pm_run_opts *opts, pm_run_result *res)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    pm_err err;
    pm_err_clear(&err);
    int rc = pm_run_exec((const char *const *)argv, opts, res, &err);
    if (rc != PM_OK)
        fail_msg("pm_run_exec: %s", err.msg);
}

static void exit_codes(void **state)
{
    pm_run_result r;
    run_sh("exit 0", NULL, &r);
    assert_int_equal(r.status, PM_RUN_OK);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.term_signal, 0);
    run_sh("exit 3", NULL, &r);
    assert_int_equal(r.status, PM_RUN_FAILED);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(pm_run_status_name(r.status), "failed");
}

static void signal_recorded(void **state)
{
    pm_run_result r;
    run_sh("kill -TERM $$", NULL, &r);
    assert_int_equal(r.status, PM_RUN_KILLED); /* a termination from outside passmap */
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGTERM);
    /* A segfault is a crash, not OOM. */
    run_sh("kill -SEGV $$", NULL, &r);
    assert_int_equal(r.status, PM_RUN_CRASHED);
    assert_int_equal(r.term_signal, SIGSEGV);
}

/* The child's SIGPIPE must be default even if the caller ignores it. */
static void sigpipe_default_in_child(void **state)
{
    /* A shell cannot un-ignore a signal ignored on entry, so this only dies if pm_run reset it. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    pm_run_result r;
    char *argv[] = {"sh", "-c", "kill -PIPE $$; exit 0", NULL};
    sigaction(SIGPIPE, &ign, &old);
    assert_int_equal(pm_run_exec((const char *const *)argv, NULL, &r, NULL), PM_OK);
    sigaction(SIGPIPE, &old, NULL);
    assert_int_equal(r.term_signal, SIGPIPE);
}

static void timeout_kills_process_group(void **state)
{
    pm_run_opts o = {.timeout_s = 0.3};
    pm_run_result r;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    /* The background sleep holds the pipes: the whole group must die, not only sh. */
    run_sh("sleep 30 & sleep 30", &o, &r);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    assert_int_equal(r.status, PM_RUN_TIMEOUT);
    assert_true(took < 1.0); /* not the 1 s drain: SIGTERM reached the background sleep too */
    assert_true(r.wall_s >= 0.29 && r.wall_s < 1.0);
    assert_int_equal(r.term_signal, SIGTERM);
}

static void timeout_escalates_to_sigkill(void **state)
{
    pm_run_opts o = {.timeout_s = 0.2};
    pm_run_result r;
    run_sh("trap '' TERM; while :; do sleep 0.05; done", &o, &r);
    assert_int_equal(r.status, PM_RUN_TIMEOUT);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_s >= 1.1 && r.wall_s < 3.0);
}

/* A descendant that keeps the pipe open after the leader exits must not block the run. */
static void leader_exit_with_pipe_holding_grandchild(void **state)
{
    pm_run_result r;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    run_sh("sleep 30 & echo done", NULL, &r);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    assert_int_equal(r.status, PM_RUN_OK);
    assert_true(took < 2.5);
    assert_true(r.wall_s < 0.5); /* wall is the leader's, not the drain's */
    assert_int_equal(r.stdout_bytes, 5);
}

static void cancel_flag_terminates(void **state)
{
    volatile sig_atomic_t flag = 1;
    pm_run_opts o = {.cancel = &flag};
    pm_run_result r;
    run_sh("sleep 30", &o, &r);
    assert_int_equal(r.status, PM_RUN_FAILED);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_s < 1.0);
}

/* A SIGKILL passmap did not send was taken for the kernel OOM killer: without evidence (the cgroup's oom_kill
 * count did not move) it is an outside kill. */
static void foreign_sigkill_is_killed(void **state)
{
    pm_run_result r;
    run_sh("kill -KILL $$", NULL, &r);
    assert_int_equal(r.status, PM_RUN_KILLED);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_string_equal(pm_run_status_name(r.status), "killed");
}

static void spawn_error_missing_binary(void **state)
{
    char *argv[] = {"/nonexistent/passmap-no-such-tool", "x", NULL};
    pm_run_result r;
    pm_err err;
    assert_int_equal(pm_run_exec((const char *const *)argv, NULL, &r, &err), PM_OK);
    assert_int_equal(r.status, PM_RUN_SPAWN_ERROR);
    assert_non_null(strstr(r.spawn_error, "No such file or directory"));
    char *argv2[] = {"passmap-no-such-tool-in-path", NULL};
    assert_int_equal(pm_run_exec((const char *const *)argv2, NULL, &r, &err), PM_OK);
    assert_int_equal(r.status, PM_RUN_SPAWN_ERROR);
    assert_string_equal(pm_run_status_name(r.status), "spawn-error");
    pm_run_opts o = {.cwd = "/nonexistent-dir"};
    char *argv3[] = {"true", NULL};
    assert_int_equal(pm_run_exec((const char *const *)argv3, &o, &r, &err), PM_OK);
    assert_int_equal(r.status, PM_RUN_SPAWN_ERROR);
    assert_non_null(strstr(r.spawn_error, "chdir /nonexistent-dir"));
}

static void capture_keeps_head_and_tail(void **state)
{
    /* 200 KB: "HEAD" marker, 'x' filler, "TAILMARK" at the very end; stderr gets a copy-free short line. */
    pm_run_opts o = {.stdout_path = path_in_tmp("out"), .stderr_path = path_in_tmp("err"),
                     .capture_limit = 16384};
    pm_run_result r;
    run_sh("printf HEAD; head -c 200000 /dev/zero | tr '\\0' x; printf TAILMARK; echo oops >&2", &o, &r);
    assert_int_equal(r.status, PM_RUN_OK);
    assert_int_equal(r.stdout_bytes, 4 + 200000 + 8);
    assert_true(r.stdout_truncated);
    assert_int_equal(r.stdout_dropped, 200012 - 16384);
    assert_false(r.stderr_truncated);
    assert_int_equal(r.stderr_bytes, 5);
    size_t n;
    char *out = slurp(o.stdout_path, &n);
    assert_int_equal(n, 16384);
    assert_memory_equal(out, "HEADxxxx", 8);
    assert_memory_equal(out + n - 12, "xxxxTAILMARK", 12);
    free(out);
    char *e = slurp(o.stderr_path, &n);
    assert_string_equal(e, "oops\n");
    free(e);
}

static void capture_small_output_exact(void **state)
{
    pm_run_opts o = {.stdout_path = path_in_tmp("small"), .capture_limit = 16};
    pm_run_result r;
    run_sh("printf 0123456789abcdef", &o, &r); /* exactly the limit: nothing dropped */
    assert_false(r.stdout_truncated);
    size_t n;
    char *out = slurp(o.stdout_path, &n);
    assert_string_equal(out, "0123456789abcdef");
    free(out);
    run_sh("printf 0123456789abcdefXYZ", &o, &r);
    assert_true(r.stdout_truncated);
    assert_int_equal(r.stdout_dropped, 3);
    out = slurp(o.stdout_path, &n);
    assert_string_equal(out, "0123456789abfXYZ"); /* head 12 bytes, tail 4 */
    free(out);
}

static void mem_limit_gives_oom(void **state)
{
    pm_run_opts o = {.mem_limit_bytes = 512ull << 20};
    pm_run_result r;
    char *argv[] = {"python3", "-c", "x = bytearray(2 << 30)", NULL};
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, NULL), PM_OK);
    assert_int_equal(r.status, PM_RUN_OOM);
    assert_int_equal(r.exit_code, 1);
    /* The same program fails without "OOM" text: a plain failure. */
    run_sh("echo 'something else' >&2; exit 1", &o, &r);
    assert_int_equal(r.status, PM_RUN_FAILED);
    run_sh("echo 'LLVM ERROR: out of memory' >&2; exit 1", &o, &r);
    assert_int_equal(r.status, PM_RUN_OOM);
    /* a crash under a memory limit is a crash (it was recorded as oom): the signal says which */
    run_sh("kill -SEGV $$", &o, &r);
    assert_int_equal(r.status, PM_RUN_CRASHED);
    assert_int_equal(r.term_signal, SIGSEGV);
    run_sh("kill -ABRT $$", &o, &r);
    assert_int_equal(r.status, PM_RUN_CRASHED);
    /* ... unless it says why: bad_alloc, then abort() */
    run_sh("echo \"terminate called after throwing an instance of 'std::bad_alloc'\" >&2; kill -ABRT $$", &o, &r);
    assert_int_equal(r.status, PM_RUN_OOM);
}

static void maxrss_and_times_plausible(void **state)
{
    pm_run_result small, big;
    char *a1[] = {"python3", "-c", "pass", NULL};
    char *a2[] = {"python3", "-c", "x = bytearray(200 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1", NULL};
    assert_int_equal(pm_run_exec((const char *const *)a1, NULL, &small, NULL), PM_OK);
    assert_int_equal(pm_run_exec((const char *const *)a2, NULL, &big, NULL), PM_OK);
    assert_int_equal(big.status, PM_RUN_OK);
    assert_true(small.maxrss_kb > 1000 && small.maxrss_kb < 100000);
    assert_true(big.maxrss_kb > 200 * 1024 && big.maxrss_kb < 400 * 1024);
    assert_true(big.wall_s > 0 && big.user_s + big.sys_s > 0);

    pm_run_result busy;
    run_sh("i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL, &busy);
    assert_true(busy.user_s > 0.005);
    assert_true(busy.wall_s >= busy.user_s * 0.5);
}

static void cwd_env_and_stdin(void **state)
{
    FILE *f = fopen(path_in_tmp("input"), "w");
    assert_non_null(f);
    fputs("from-stdin\n", f);
    fclose(f);
    const char *env[] = {"PM_TEST_VAR=hello world", "HOME=/pm-home", NULL};
    pm_run_opts o = {.cwd = tmpdir, .stdout_path = path_in_tmp("cwdout"), .env_set = env,
                     .stdin_path = path_in_tmp("input")};
    pm_run_result r;
    run_sh("pwd; echo \"$PM_TEST_VAR|$HOME\"; cat", &o, &r);
    assert_int_equal(r.status, PM_RUN_OK);
    size_t n;
    char *out = slurp(o.stdout_path, &n);
    char want[256];
    char real[128];
    assert_non_null(realpath(tmpdir, real));
    snprintf(want, sizeof want, "%s\nhello world|/pm-home\nfrom-stdin\n", real);
    assert_string_equal(out, want);
    free(out);
    /* Default stdin is /dev/null: cat ends at once. */
    pm_run_opts o2 = {.stdout_path = path_in_tmp("nullin"), .timeout_s = 5};
    run_sh("cat; echo end", &o2, &r);
    assert_int_equal(r.status, PM_RUN_OK);
    out = slurp(o2.stdout_path, &n);
    assert_string_equal(out, "end\n");
    free(out);
}

static void no_fd_leaks_no_zombies(void **state)
{
    int before = count_open_fds();
    pm_run_opts o = {.stdout_path = path_in_tmp("leak"), .count_instructions = 1, .timeout_s = 0.2};
    pm_run_result r;
    for (int i = 0; i < 3; i++)
        run_sh("ls /proc/self/fd | wc -l; sleep 5", &o, &r);
    char *argv[] = {"/nonexistent", NULL};
    pm_run_opts o2 = {.count_instructions = 1, .stderr_path = path_in_tmp("leak2")};
    pm_run_exec((const char *const *)argv, &o2, &r, NULL);
    assert_int_equal(r.status, PM_RUN_SPAWN_ERROR);
    assert_int_equal(count_open_fds(), before);
    /* Everything was reaped. */
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    /* The child saw only 0, 1, 2 and the fd ls opened on /proc/self/fd. */
    size_t n;
    char *out = slurp(o.stdout_path, &n);
    assert_string_equal(out, "4\n");
    free(out);
}

static void instructions_never_fail_the_run(void **state)
{
    pm_run_opts o = {.count_instructions = 1};
    pm_run_result r;
    run_sh("i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done", &o, &r);
    assert_int_equal(r.status, PM_RUN_OK);
    if (r.instructions < 0) {
        assert_int_not_equal(r.instructions_errno, 0);
        print_message("# perf_event_open unavailable: %s\n", strerror(r.instructions_errno));
    } else {
        assert_true(r.instructions > 100000);
        assert_int_equal(r.instructions_errno, 0);
    }
    pm_run_opts off = {0};
    run_sh("true", &off, &r);
    assert_int_equal(r.instructions, -1);
}

static int note_start(void *arg, pid_t pgid, pm_err *err)
{
    *(pid_t *)arg = pgid;
    return PM_OK;
}

/* A command is spawned sharing the caller's memory until its exec: the caller's pages are not made copy-on-write,
 * so writing them afterwards costs no page fault each (after a fork it did: a sweep paid that for every page it
 * touched after each step). Also with on_start and a counter, which a helper thread does before the exec. */
static void spawn_leaves_the_callers_pages_alone(void **state)
{
    size_t size = (size_t)16 << 20, pages = size / 4096;
    char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(buf != MAP_FAILED);
    madvise(buf, size, MADV_NOHUGEPAGE);   /* counted in 4 KiB pages */
    memset(buf, 1, size);                   /* every page present and writable */
    pm_run_opts o = {0};
    pm_run_result r;
    pm_err err;
    char *argv[] = {"true", NULL};
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, &err), PM_OK);
    memset(buf, 2, size);
    getrusage(RUSAGE_SELF, &after);
    assert_int_equal(r.status, PM_RUN_OK);
    long faults = after.ru_minflt - before.ru_minflt;
    print_message("# minor faults in the caller: %ld for %zu pages written after the run\n", faults, pages);
    assert_true(faults < (long)pages / 8);
    pid_t pgid = 0;
    pm_run_opts assisted = {.on_start = note_start, .on_start_arg = &pgid, .count_instructions = 1};
    getrusage(RUSAGE_SELF, &before);
    assert_int_equal(pm_run_exec((const char *const *)argv, &assisted, &r, &err), PM_OK);
    memset(buf, 3, size);
    getrusage(RUSAGE_SELF, &after);
    assert_int_equal(r.status, PM_RUN_OK);
    assert_true(pgid > 0 && pgid != getpgrp());   /* the child's own group, recorded before it ran */
    faults = after.ru_minflt - before.ru_minflt;
    print_message("# with on_start and a counter: %ld\n", faults);
    assert_true(faults < (long)pages / 8);
    munmap(buf, size);
}

static void bad_arguments(void **state)
{
    pm_run_result r;
    pm_err err;
    char *empty[] = {NULL};
    assert_int_equal(pm_run_exec((const char *const *)empty, NULL, &r, &err), PM_ERR_USAGE);
    pm_run_opts o = {.stdout_path = "/nonexistent-dir/out"};
    char *argv[] = {"true", NULL};
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, &err), PM_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/out"));
}

static void parse_duration(void **state)
{
    double s;
    pm_err err;
    assert_int_equal(pm_run_parse_duration("30", &s, &err), PM_OK);
    assert_true(s == 30.0);
    assert_int_equal(pm_run_parse_duration("2.5s", &s, &err), PM_OK);
    assert_true(s == 2.5);
    assert_int_equal(pm_run_parse_duration("5m", &s, &err), PM_OK);
    assert_true(s == 300.0);
    assert_int_equal(pm_run_parse_duration("1h", &s, &err), PM_OK);
    assert_true(s == 3600.0);
    assert_int_equal(pm_run_parse_duration("250ms", &s, &err), PM_OK);
    assert_true(s > 0.2499 && s < 0.2501);
    const char *bad[] = {"abc", "-1", "5x", "", "1e3", "nan", "inf", " 5", "5 ", "0x10", "1.5.2", "s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pm_run_parse_duration(bad[i], &s, &err), PM_ERR_USAGE);
        assert_non_null(strstr(err.msg, "invalid duration"));
    }
    pm_run_parse_duration("5x", &s, &err);
    assert_non_null(strstr(err.msg, "unknown unit 'x'"));
}

static void parse_size(void **state)
{
    uint64_t b;
    pm_err err;
    assert_int_equal(pm_run_parse_size("1073741824", &b, &err), PM_OK);
    assert_true(b == 1073741824ull);
    assert_int_equal(pm_run_parse_size("512M", &b, &err), PM_OK);
    assert_true(b == 512ull << 20);
    assert_int_equal(pm_run_parse_size("8G", &b, &err), PM_OK);
    assert_true(b == 8ull << 30);
    assert_int_equal(pm_run_parse_size("64KiB", &b, &err), PM_OK);
    assert_true(b == 64ull << 10);
    assert_int_equal(pm_run_parse_size("1.5g", &b, &err), PM_OK);
    assert_true(b == 3ull << 29);
    assert_int_equal(pm_run_parse_size("18446744073709551615", &b, &err), PM_OK);
    assert_true(b == UINT64_MAX);
    /* "0.5" truncated to 0 bytes would mean "no limit" */
    const char *bad[] = {"abc", "-1", "5x", "", "1e3", "5MX", "99999999999999999999", "1T1", "20000000T", "0.5", "0.3K"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pm_run_parse_size(bad[i], &b, &err), PM_ERR_USAGE);
        assert_non_null(strstr(err.msg, "invalid size"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_codes),
        cmocka_unit_test(signal_recorded),
        cmocka_unit_test(sigpipe_default_in_child),
        cmocka_unit_test(timeout_kills_process_group),
        cmocka_unit_test(timeout_escalates_to_sigkill),
        cmocka_unit_test(leader_exit_with_pipe_holding_grandchild),
        cmocka_unit_test(cancel_flag_terminates),
        cmocka_unit_test(foreign_sigkill_is_killed),
        cmocka_unit_test(spawn_error_missing_binary),
        cmocka_unit_test(capture_keeps_head_and_tail),
        cmocka_unit_test(capture_small_output_exact),
        cmocka_unit_test(mem_limit_gives_oom),
        cmocka_unit_test(maxrss_and_times_plausible),
        cmocka_unit_test(cwd_env_and_stdin),
        cmocka_unit_test(no_fd_leaks_no_zombies),
        cmocka_unit_test(instructions_never_fail_the_run),
        cmocka_unit_test(spawn_leaves_the_callers_pages_alone),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(parse_duration),
        cmocka_unit_test(parse_size),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
