/* The one contention rule (contention.h), on hand-built evidence: the analysis, compare and passmap fix all
 * judge with it, so these values are what every one of them concludes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contention.h"
#include "run.h"

static void load_above_the_cpus(void **state)
{
    (void)state;
    pm_contention c;
    pm_contention_init(&c);
    c.load1 = 3.1;
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), PM_CONTENTION_LOAD);
    assert_int_equal(pm_contention_judge(&c, 4, NAN, NULL), 0);
    assert_int_equal(pm_contention_judge(&c, 0, NAN, NULL), 0);   /* CPUs unknown: load not judged */
    c.load1 = 2.0;
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), 0);   /* at the CPUs is not above them */
    char buf[128];
    c.load1 = 3.14;
    pm_contention_text(PM_CONTENTION_LOAD, &c, 2, NAN, buf, sizeof buf);
    assert_string_equal(buf, "load 3.1 > 2 CPUs");
}

static void each_tool_against_its_serial_level(void **state)
{
    (void)state;
    /* null runs at 0.96, 0.98, 0.97 CPU/wall: a serial level of 0.97; at 0.5, 0.6, 0.9 they waited themselves */
    const double idle[] = {0.96, 0.98, 0.97}, busy_runs[] = {0.5, 0.9, 0.6};
    int busy = -1;
    double opt = pm_contention_serial(idle, 3, &busy);
    assert_float_equal(opt, 0.97, 1e-12);
    assert_false(busy);
    double llc = pm_contention_serial(busy_runs, 3, &busy);
    assert_float_equal(llc, 0.6, 1e-12);
    assert_true(busy);
    assert_true(isnan(pm_contention_serial(idle, 0, &busy)));
    assert_false(busy);

    pm_contention c;
    pm_contention_init(&c);
    /* mlir-translate at (9 + 0.5) / 10 = 0.95 of... 0.95 / 0.97 = 0.979: normal */
    pm_contention_add_tool(&c, "mlir-translate", 10, 9, 0.5, opt, 0);
    assert_float_equal(c.cpu_ratio, 0.95 / 0.97, 1e-12);
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), 0);
    /* llc far below, but its level is itself contended: no evidence either way */
    pm_contention_add_tool(&c, "llc", 10, 2, 0, llc, 1);
    assert_string_equal(c.starved_tool, "mlir-translate");
    /* mlir-opt at (6 + 1) / 10 = 0.7 of a 0.97 level: 0.7216 < 0.75, the minimum names it */
    pm_contention_add_tool(&c, "mlir-opt", 10, 6, 1, opt, 0);
    assert_float_equal(c.cpu_ratio, 0.7 / 0.97, 1e-12);
    assert_string_equal(c.starved_tool, "mlir-opt");
    int on_p90 = -1;
    c.user_wall = 0.1;   /* ignored: a serial level exists */
    assert_int_equal(pm_contention_judge(&c, 2, 0.9, &on_p90), PM_CONTENTION_STARVED);
    assert_false(on_p90);
    c.load1 = 2.5;
    assert_int_equal(pm_contention_judge(&c, 2, 0.9, NULL), PM_CONTENTION_LOAD | PM_CONTENTION_STARVED);
    char buf[160];
    pm_contention_text(PM_CONTENTION_LOAD | PM_CONTENTION_STARVED, &c, 2, 0.9, buf, sizeof buf);
    assert_string_equal(buf, "load 2.5 > 2 CPUs; mlir-opt at 0.72 of its serial CPU/wall");
    /* no time recorded, or no level: nothing added */
    pm_contention_init(&c);
    pm_contention_add_tool(&c, "llc", 0, 0, 0, opt, 0);
    pm_contention_add_tool(&c, "llc", 10, 1, 0, NAN, 0);
    assert_true(isnan(c.cpu_ratio));
    assert_null(c.starved_tool);
}

static void p90_fallback_without_a_serial_level(void **state)
{
    (void)state;
    /* sorted 0.5, 0.88, 0.9, 0.92 (NaN skipped): p90 = 0.9 + 0.7 x 0.02 = 0.914 (linear interpolation) */
    const double uw[] = {0.9, 0.88, NAN, 0.92, 0.5};
    double p90 = pm_contention_p90(uw, 5);
    assert_float_equal(p90, 0.914, 1e-12);
    assert_true(isnan(pm_contention_p90(uw, 3)));   /* two values: no p90 */
    pm_contention c;
    pm_contention_init(&c);
    c.user_wall = 0.5;   /* < 0.75 x 0.914 = 0.6855 */
    int on_p90 = 0;
    assert_int_equal(pm_contention_judge(&c, 2, p90, &on_p90), PM_CONTENTION_P90);
    assert_true(on_p90);
    c.user_wall = 0.69;
    assert_int_equal(pm_contention_judge(&c, 2, p90, NULL), 0);
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), 0);   /* no p90: no evidence */
    char buf[128];
    c.user_wall = 0.5;
    pm_contention_text(PM_CONTENTION_P90, &c, 2, p90, buf, sizeof buf);
    assert_string_equal(buf, "user/wall 0.50 < 0.75 x the sweep's p90 0.91");
    assert_int_equal(pm_contention_cpus("{\"cpus\": 8, \"backend\": \"embedded\"}"), 8);
    assert_int_equal(pm_contention_cpus("{\"machine\": \"x\"}"), 0);
    assert_int_equal(pm_contention_cpus(NULL), 0);
}


/* Measured pressure decides alone: the short clang -O0 compiles the old guess flagged (user/wall 0.63-0.66 from
 * their sys time and I/O, load 1.9 on 2 CPUs, below 0.75 of the serial level) are not contended when the CPU
 * pressure over their wall was low; a neighbour that made tasks wait for a CPU is, whatever the load said. */
static void measured_pressure_decides(void **state)
{
    (void)state;
    pm_contention c;
    pm_contention_init(&c);
    c.load1 = 2.4;          /* above 2 CPUs: the fallback would flag it */
    c.cpu_ratio = 0.64;     /* clang -O0 at 0.64 of its serial CPU/wall: so would this */
    c.starved_tool = "clang";
    c.user_wall = 0.63;
    int on_p90 = 1;
    assert_int_equal(pm_contention_judge(&c, 2, 0.95, NULL), PM_CONTENTION_LOAD | PM_CONTENTION_STARVED);
    /* recorded: 2.1 ms of pressure over a 0.105 s compile (a run of clang -O0 alone here) */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, 2100, -1, 0, 0.105);
    assert_true(fabs(c.psi_share - 0.02) < 1e-9);
    assert_true(c.steal_share == 0);
    assert_int_equal(pm_contention_judge(&c, 2, 0.95, &on_p90), 0);
    assert_int_equal(on_p90, 0);
    /* recorded: a compile beside two busy loops on 2 CPUs, 0.93 of its wall under pressure */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, 930000, -1, 0, 1.0);
    assert_int_equal(pm_contention_judge(&c, 2, 0.95, NULL), PM_CONTENTION_PSI);
    char buf[160];
    pm_contention_text(PM_CONTENTION_PSI, &c, 2, NAN, buf, sizeof buf);
    assert_string_equal(buf, "CPU pressure 93% of its wall > 10%");
    /* at the share is not above it */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, 100000, -1, -1, 1.0);
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), 0);
    assert_true(isnan(c.steal_share));
    /* the cgroup's pressure, where recorded, is the run's own: it wins over the system's */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, 900000, 20000, -1, 1.0);
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), 0);
    /* steal is judged too, in both rules */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, 0, -1, 60, 1.0);
    assert_int_equal(pm_contention_judge(&c, 2, NAN, NULL), PM_CONTENTION_STEAL);
    pm_contention_text(PM_CONTENTION_STEAL, &c, 2, NAN, buf, sizeof buf);
    assert_string_equal(buf, "steal 6% of its wall > 5%");
    pm_contention d;   /* no pressure: the fallback, plus steal */
    pm_contention_init(&d);
    pm_contention_set_runs(&d, d.load1, d.jobs, d.user_wall, -1, -1, 80, 1.0);
    d.load1 = 3;
    assert_int_equal(pm_contention_judge(&d, 2, NAN, NULL), PM_CONTENTION_LOAD | PM_CONTENTION_STEAL);
    /* no wall: nothing measured */
    pm_contention_init(&d);
    pm_contention_set_runs(&d, d.load1, d.jobs, d.user_wall, 5, 5, 5, 0);
    assert_true(isnan(d.psi_share) && isnan(d.steal_share));
}

/* A shell busy loop measured by the runner: its CPU pressure share (psi / wall); NAN without PSI. */
static double measured_share(const char *loop, pm_run_result *res)
{
    char *const argv[] = {"sh", "-c", (char *)loop, NULL};
    pm_run_opts o = {.timeout_s = 60};
    pm_err e = {0};
    assert_int_equal(pm_run_exec((const char *const *)argv, &o, res, &e), PM_OK);
    assert_int_equal(res->status, PM_RUN_OK);
    if (res->psi_cpu_some_us < 0)
        return NAN;
    return (double)res->psi_cpu_some_us * 1e-6 / res->wall_s;
}

static const char busy_loop[] = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done";

/* The calibration: a serial run beside as many real busy loops as there are CPUs (two on a 2-core machine) has
 * others wanting the CPU for most of its wall, measured, and the rule flags it. More load on the machine only
 * raises the share, so this holds on a busy machine too. */
static void competing_busy_loops_are_flagged(void **state)
{
    (void)state;
    if (access("/proc/pressure/cpu", R_OK)) {   /* (skip() reads as a failure in the runner's tally) */
        print_message("# not judged: no /proc/pressure/cpu (the fallback rule judges; tested above)\n");
        return;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    if (ncpu > 64)
        ncpu = 64;
    pid_t kids[64];
    for (long k = 0; k < ncpu; k++) {
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k] == 0) {
            alarm(60);   /* never outlive a crashed test */
            for (volatile unsigned long n = 0;; n++)
                ;
        }
    }
    usleep(100000);   /* the loops are running */
    pm_run_result res;
    double share = measured_share(busy_loop, &res);
    for (long k = 0; k < ncpu; k++) {
        kill(kids[k], SIGKILL);
        waitpid(kids[k], NULL, 0);
    }
    print_message("# %ld competing busy loops: CPU pressure %.2f of a %.2f s run (threshold %.2f)\n", ncpu, share,
                  res.wall_s, PM_CONTENTION_PSI_SHARE);
    assert_true(share > 3 * PM_CONTENTION_PSI_SHARE);   /* far above the threshold, not near it */
    pm_contention c;
    pm_contention_init(&c);
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, (double)res.psi_cpu_some_us, (double)res.psi_cgroup_some_us,
                               res.steal_s >= 0 ? res.steal_s * 1e3 : -1, res.wall_s);
    assert_true(pm_contention_judge(&c, (int)ncpu, NAN, NULL) & PM_CONTENTION_PSI);
}

/* A short I/O-heavy command alone (it writes and syncs files: sys time and waits on the disk, not on a CPU) is
 * not flagged. PSI is system-wide and the machine may be shared, so this is judged only when a run of the same
 * kind of length just before shows a quiet machine; otherwise it is skipped, saying so. */
static void short_io_heavy_run_alone_is_not_flagged(void **state)
{
    (void)state;
    if (access("/proc/pressure/cpu", R_OK)) {
        print_message("# not judged: no /proc/pressure/cpu\n");
        return;
    }
    char dir[] = "/tmp/pm-contention-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd %s && for i in 1 2 3 4 5 6 7 8; do dd if=/dev/zero of=f$i bs=64k count=16 "
                              "conv=fsync status=none; done; rm -f f*", dir);
    pm_run_result quiet, io;
    double before = measured_share("sleep 0.2", &quiet);
    double share = measured_share(cmd, &io);
    rmdir(dir);
    print_message("# quiet check %.3f; I/O-heavy run: CPU pressure %.3f of %.3f s, user+sys/wall %.2f\n", before,
                  share, io.wall_s, (io.user_s + io.sys_s) / io.wall_s);
    if (!(before < PM_CONTENTION_PSI_SHARE / 4)) {
        print_message("# not judged: the machine is busy (pressure %.2f before the run)\n", before);
        return;
    }
    pm_contention c;
    pm_contention_init(&c);
    c.user_wall = io.user_s / io.wall_s;   /* low: what the old guess flagged */
    pm_contention_set_runs(&c, c.load1, c.jobs, c.user_wall, (double)io.psi_cpu_some_us, (double)io.psi_cgroup_some_us,
                               io.steal_s >= 0 ? io.steal_s * 1e3 : -1, io.wall_s);
    assert_int_equal(pm_contention_judge(&c, 2, 0.95, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_above_the_cpus),
        cmocka_unit_test(each_tool_against_its_serial_level),
        cmocka_unit_test(p90_fallback_without_a_serial_level),
        cmocka_unit_test(measured_pressure_decides),
        cmocka_unit_test(competing_busy_loops_are_flagged),
        cmocka_unit_test(short_io_heavy_run_alone_is_not_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
