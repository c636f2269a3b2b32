/* The one contention rule (contention.h), on hand-built evidence: the analysis, compare and passmap fix all
 * judge with it, so these values are what every one of them concludes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "contention.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_above_the_cpus),
        cmocka_unit_test(each_tool_against_its_serial_level),
        cmocka_unit_test(p90_fallback_without_a_serial_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
