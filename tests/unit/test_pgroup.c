/* pm_pgroup: a step's process group is recognised after its leader died (a backgrounded member is left), is
 * told apart from a group that took its id, and is killed only when the passmap that ran it is gone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgroup.h"
#include "run.h"

static char tmpdir[64];

static int setup(void **state)
{
    strcpy(tmpdir, "/tmp/pm-test-pgroup.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A step as a sweep leaves it: leader L in its own group, which started a background member B (its pid is
 * written to the pipe); L then waits. */
typedef struct fake_step {
    pid_t leader, member;
} fake_step;

static fake_step start_step(void)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t l = fork();
    assert_true(l >= 0);
    if (l == 0) {
        setpgid(0, 0);
        alarm(30); /* a failed assertion leaves no process behind for long (alarms are not inherited) */
        pid_t b = fork();
        if (b == 0) {
            alarm(30);
            close(p[0]);
            close(p[1]);
            for (;;)
                pause();
        }
        ssize_t w = write(p[1], &b, sizeof b);
        (void)w;
        for (;;)
            pause();
    }
    setpgid(l, l);
    close(p[1]);
    fake_step s = {.leader = l};
    assert_int_equal(read(p[0], &s.member, sizeof s.member), (ssize_t)sizeof s.member);
    close(p[0]);
    return s;
}

/* The leader dies as PDEATHSIG kills it with passmap; the member, no child of ours, stays. */
static void kill_leader(fake_step *s)
{
    kill(s->leader, SIGKILL);
    waitpid(s->leader, NULL, 0);
}

static int alive(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int live = 1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "State:", 6))
            live = !strchr(line, 'Z') && !strchr(line, 'X');
    fclose(f);
    return live;
}

static void cleanup_step(fake_step *s)
{
    killpg(s->leader, SIGKILL);
    waitpid(s->leader, NULL, 0);
}

/* Recorded as by this process, then the owner is made "another process" (what a killed passmap is). */
static pm_pgroup identify_as_dead_owner(pid_t leader)
{
    pm_pgroup g;
    pm_err err = {0};
    assert_int_equal(pm_pgroup_identify(leader, "config k, cold r0, step s", &g, &err), PM_OK);
    assert_int_equal(g.pgid, leader);
    assert_int_equal(pm_pgroup_check(&g, NULL), PM_PGROUP_OWNED); /* its passmap (we) still runs */
    g.owner_start += 1;
    return g;
}

static void leftover_found_and_killed(void **state)
{
    fake_step s = start_step();
    pm_pgroup g = identify_as_dead_owner(s.leader);
    int n = 0;
    assert_int_equal(pm_pgroup_check(&g, &n), PM_PGROUP_LEFT);
    assert_int_equal(n, 2);
    kill_leader(&s);
    /* the leader is gone, the group is not: the member keeps it, and it is still the recorded one */
    assert_int_equal(pm_pgroup_check(&g, &n), PM_PGROUP_LEFT);
    assert_int_equal(n, 1);
    pm_err err = {0};
    assert_int_equal(pm_pgroup_kill(&g, 1.0, &err), PM_OK);
    assert_false(alive(s.member));
    assert_int_equal(pm_pgroup_check(&g, NULL), PM_PGROUP_GONE);
}

static void another_group_is_not_touched(void **state)
{
    fake_step s = start_step();
    pm_pgroup g = identify_as_dead_owner(s.leader);
    pm_err err = {0};
    /* the leader alive with another start time: its pid was reused */
    pm_pgroup t = g;
    t.start += 1;
    assert_int_equal(pm_pgroup_check(&t, NULL), PM_PGROUP_OTHER);
    assert_int_equal(pm_pgroup_kill(&t, 0.1, &err), PM_OK);
    assert_true(alive(s.leader) && alive(s.member));
    /* another session */
    t = g;
    t.sid += 1;
    assert_int_equal(pm_pgroup_check(&t, NULL), PM_PGROUP_OTHER);
    kill_leader(&s);
    /* leader gone: a member that started before the recorded leader cannot be of its group */
    t = g;
    t.start += 1000000;
    assert_int_equal(pm_pgroup_check(&t, NULL), PM_PGROUP_OTHER);
    assert_int_equal(pm_pgroup_kill(&t, 0.1, &err), PM_OK);
    assert_true(alive(s.member));
    /* another machine: reported, never checked here; another boot: gone */
    t = g;
    strcpy(t.host, "elsewhere.invalid");
    assert_int_equal(pm_pgroup_check(&t, NULL), PM_PGROUP_OTHER_HOST);
    t = g;
    strcpy(t.boot_id, "00000000-0000-0000-0000-000000000000");
    assert_int_equal(pm_pgroup_check(&t, NULL), PM_PGROUP_GONE);
    assert_int_equal(pm_pgroup_check(&g, NULL), PM_PGROUP_LEFT);
    cleanup_step(&s);
    kill(s.member, SIGKILL);
}

static void record_round_trip(void **state)
{
    char path[128];
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    fake_step s = start_step();
    pm_pgroup g = identify_as_dead_owner(s.leader), h;
    pm_err err = {0};
    assert_int_equal(pm_pgroup_save(path, &g, &err), PM_OK);
    assert_int_equal(pm_pgroup_load(path, &h, &err), PM_OK);
    assert_int_equal(memcmp(&g, &h, sizeof g), 0);
    FILE *f = fopen(path, "w");
    fputs("host x\nowner 12\n", f);
    fclose(f);
    assert_int_equal(pm_pgroup_load(path, &h, &err), PM_ERR_PARSE);
    cleanup_step(&s);
    kill(s.member, SIGKILL);
}

typedef struct notes {
    int n;
    char last[1400];
} notes;

static void collect(void *user, const char *line)
{
    notes *ns = user;
    ns->n++;
    snprintf(ns->last, sizeof ns->last, "%s", line);
}

static void reap_kills_leftovers_and_keeps_live_ones(void **state)
{
    char db[128], rec_dead[160], rec_live[160], rec_far[160];
    snprintf(db, sizeof db, "%s/r.db", tmpdir);
    snprintf(rec_dead, sizeof rec_dead, "%s.pgroup.1", db);
    snprintf(rec_live, sizeof rec_live, "%s.pgroup.2", db);
    snprintf(rec_far, sizeof rec_far, "%s.pgroup.3", db);
    fake_step dead = start_step(), live = start_step();
    pm_pgroup gd = identify_as_dead_owner(dead.leader), gl, gf;
    pm_err err = {0};
    assert_int_equal(pm_pgroup_identify(live.leader, "config live", &gl, &err), PM_OK);
    gf = gd;
    strcpy(gf.host, "elsewhere.invalid");
    assert_int_equal(pm_pgroup_save(rec_dead, &gd, &err), PM_OK);
    assert_int_equal(pm_pgroup_save(rec_live, &gl, &err), PM_OK);
    kill_leader(&dead);
    notes ns = {0};
    assert_int_equal(pm_pgroup_reap(db, collect, &ns, &err), PM_OK);
    assert_int_equal(ns.n, 1);
    assert_non_null(strstr(ns.last, "killed process group"));
    assert_non_null(strstr(ns.last, "config k, cold r0"));
    assert_false(alive(dead.member));
    assert_int_not_equal(access(rec_dead, F_OK), 0);
    /* the live passmap's group and record stay */
    assert_true(alive(live.leader) && alive(live.member));
    assert_int_equal(access(rec_live, F_OK), 0);
    /* another machine's record: said, kept, nothing killed */
    assert_int_equal(pm_pgroup_save(rec_far, &gf, &err), PM_OK);
    ns.n = 0;
    assert_int_equal(pm_pgroup_reap(db, collect, &ns, &err), PM_OK);
    assert_int_equal(ns.n, 1);
    assert_non_null(strstr(ns.last, "on host elsewhere.invalid"));
    assert_int_equal(access(rec_far, F_OK), 0);
    /* a record that is not one (a foreign file under the name): said and removed */
    char junk[160];
    snprintf(junk, sizeof junk, "%s.pgroup.4", db);
    FILE *f = fopen(junk, "w");
    fputs("group 1\n", f);
    fclose(f);
    ns.n = 0;
    assert_int_equal(pm_pgroup_reap(db, collect, &ns, &err), PM_OK);
    assert_int_equal(ns.n, 2); /* the other machine's, again, and the junk */
    assert_int_not_equal(access(junk, F_OK), 0);
    cleanup_step(&live);
    kill(live.member, SIGKILL);
}

static int refuse(void *arg, pid_t pgid, pm_err *err)
{
    int *seen = arg;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pgid);
    *seen = access(path, F_OK) == 0 && getpgid(pgid) == pgid; /* the child already leads its group */
    return pm_err_set(err, PM_ERR_IO, "cannot record");
}

/* The runner calls on_start before the command runs: a failed record means the command never ran. */
static void runner_records_before_exec(void **state)
{
    char mark[128];
    snprintf(mark, sizeof mark, "%s/ran", tmpdir);
    char *argv[] = {"touch", mark, NULL};
    int seen = 0;
    pm_run_opts o = {.on_start = refuse, .on_start_arg = &seen};
    pm_run_result r;
    pm_err err = {0};
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, &err), PM_ERR_IO);
    assert_string_equal(err.msg, "cannot record");
    assert_true(seen);
    assert_int_not_equal(access(mark, F_OK), 0);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* reaped */
}

/* A wrapper's command (same_group) stays in the caller's group, where the step's record covers it; its
 * timeout then signals the command alone (the caller, in the same group, lives on). */
static void same_group_stays_in_the_callers_group(void **state)
{
    char out[128];
    snprintf(out, sizeof out, "%s/pgid", tmpdir);
    char *argv[] = {"sh", "-c", "ps -o pgid= -p $$", NULL};
    pm_run_opts o = {.same_group = 1, .stdout_path = out};
    pm_run_result r;
    pm_err err = {0};
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, &err), PM_OK);
    assert_int_equal(r.status, PM_RUN_OK);
    FILE *f = fopen(out, "r");
    long pgid = 0;
    assert_int_equal(fscanf(f, "%ld", &pgid), 1);
    fclose(f);
    assert_int_equal(pgid, (long)getpgrp());
    o.same_group = 0;
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, &r, &err), PM_OK);
    f = fopen(out, "r");
    assert_int_equal(fscanf(f, "%ld", &pgid), 1);
    fclose(f);
    assert_int_not_equal(pgid, (long)getpgrp());
    char *slow[] = {"sleep", "30", NULL};
    pm_run_opts t = {.same_group = 1, .timeout_s = 0.2};
    assert_int_equal(pm_run_exec((const char *const *)slow, &t, &r, &err), PM_OK);
    assert_int_equal(r.status, PM_RUN_TIMEOUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leftover_found_and_killed),
        cmocka_unit_test(another_group_is_not_touched),
        cmocka_unit_test(record_round_trip),
        cmocka_unit_test(reap_kills_leftovers_and_keeps_live_ones),
        cmocka_unit_test(runner_records_before_exec),
        cmocka_unit_test(same_group_stays_in_the_callers_group),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
