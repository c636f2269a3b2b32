/* The deciding metric (decide.h): one function for compare, the report's A/B, passmap fix and repeats = auto. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "decide.h"

static void steadiest_metric_the_runs_offer(void **state)
{
    (void)state;
    pm_decide_evidence e;
    pm_decide_init(&e);
    /* counted instructions and serial runs: instructions */
    pm_decide_add_run(&e, 1.0, 0.9, 0.05, 3e9);
    pm_decide_add_side(&e, 0.95);
    e.tools_cpu_wall = 0.98;
    e.tools_cpu_wall_min = 0.97;
    assert_int_equal(pm_decide(&e), PM_DECIDE_INSTRUCTIONS);
    /* one run without them (no perf counters): CPU time, the tools being serial */
    pm_decide_add_run(&e, 1.2, 0.9, 0.05, -1);
    assert_int_equal(pm_decide(&e), PM_DECIDE_CPU);
    /* null-input runs measured under load read below 1: still serial (0.54-0.63 at load 1.5-2) */
    e.tools_cpu_wall = e.tools_cpu_wall_min = 0.55;
    assert_int_equal(pm_decide(&e), PM_DECIDE_CPU);
    /* a tool that mostly waits (a device, a sleep: the OpenVINO stand-in reads 0.1): its CPU time is not its cost */
    e.tools_cpu_wall = 0.97;
    e.tools_cpu_wall_min = 0.1;
    assert_int_equal(pm_decide(&e), PM_DECIDE_WALL);
    e.tools_cpu_wall_min = 0.55;
    /* a threaded tool (null-input CPU/wall 1.8): wall */
    e.tools_cpu_wall = 1.8;
    assert_int_equal(pm_decide(&e), PM_DECIDE_WALL);
    /* no start-up runs (run --db stores): wall */
    e.tools_cpu_wall = NAN;
    assert_int_equal(pm_decide(&e), PM_DECIDE_WALL);
    /* a fix that changes parallelism (one side's runs at CPU/wall 1.7): wall, even with instructions */
    pm_decide_init(&e);
    e.tools_cpu_wall = e.tools_cpu_wall_min = 0.97;
    pm_decide_add_run(&e, 1.0, 1.6, 0.1, 3e9);
    pm_decide_add_side(&e, 0.97);
    pm_decide_add_side(&e, 1.7);
    assert_int_equal(pm_decide(&e), PM_DECIDE_WALL);
    /* a run without user time (an imported report, a warm import): no CPU time */
    pm_decide_init(&e);
    e.tools_cpu_wall = e.tools_cpu_wall_min = 0.97;
    pm_decide_add_run(&e, 1.0, -1, -1, -1);
    assert_int_equal(pm_decide(&e), PM_DECIDE_WALL);
}

static void samples_and_text(void **state)
{
    (void)state;
    assert_float_equal(pm_decide_sample(PM_DECIDE_CPU, 2.0, 0.7, 0.2, -1), 0.9, 1e-12);
    assert_true(isnan(pm_decide_sample(PM_DECIDE_CPU, 2.0, -1, 0.2, -1)));
    assert_float_equal(pm_decide_sample(PM_DECIDE_WALL, 2.0, 0.7, 0.2, -1), 2.0, 1e-12);
    assert_float_equal(pm_decide_sample(PM_DECIDE_INSTRUCTIONS, 2.0, 0.7, 0.2, 5e8), 5e8, 1e-3);
    char buf[96];
    pm_decide_text(PM_DECIDE_CPU, buf, sizeof buf);
    assert_string_equal(buf, "decided on: cpu time (user+sys); wall shown");
    pm_decide_text(PM_DECIDE_WALL, buf, sizeof buf);
    assert_string_equal(buf, "decided on: wall");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steadiest_metric_the_runs_offer),
        cmocka_unit_test(samples_and_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
