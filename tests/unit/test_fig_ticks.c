/* The figures' log-axis ticks (fig_log_tics): three to twelve labelled marks with their unit, a finer step when
 * 1-2-5 and 1-2-3-5 give fewer than three (issue 37: precision's axis had one tick, "1e+09"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures_draw.h"

/* the tics line for [lo, hi] in unit (allocated) */
static char *tics(const char *axis, double lo, double hi, const char *unit)
{
    char *b = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&b, &n);
    assert_non_null(f);
    fig_log_tics(f, axis, lo, hi, unit);
    fclose(f);
    return b;
}

static int marks(const char *s)
{
    int n = 0;
    for (size_t i = 0; s[i]; i++)
        n += s[i] == '"';
    return n / 2;
}

static void test_within_a_decade(void **state)
{
    (void)state;
    char *s = tics("x", 224, 640, "px");   /* the CNN spine: 300 and 500 only, before */
    assert_string_equal(s, "set xtics (\"250 px\" 250, \"300 px\" 300, \"400 px\" 400, \"500 px\" 500, \"600 px\" 600)\n");
    free(s);
    s = tics("y", 1.9, 3.4, "s");   /* precision's time panel: "2" and "3" only, before */
    assert_string_equal(s, "set ytics (\"2 s\" 2, \"2.5 s\" 2.5, \"3 s\" 3)\n");
    free(s);
    s = tics("y", 0.004, 0.25, "s");   /* 1-2-5 fits: durations in the unit that keeps 1-999 */
    assert_string_equal(s, "set ytics (\"5 ms\" 0.005, \"10 ms\" 0.01, \"20 ms\" 0.02, \"50 ms\" 0.05, \"100 ms\" 0.1, "
                           "\"200 ms\" 0.2)\n");
    free(s);
    s = tics("x", 4.2e8, 2.1e9, NULL);
    assert_string_equal(s, "set xtics (\"500M\" 5e+08, \"1G\" 1e+09, \"2G\" 2e+09)\n");
    free(s);
}

static void test_many_decades_and_one_value(void **state)
{
    (void)state;
    char *s = tics("x", 1e-6, 1e3, "s");   /* ten decades: powers of ten, at most ten marks */
    assert_true(marks(s) >= 3 && marks(s) <= 10);
    assert_non_null(strstr(s, "\"1 s\" 1"));
    assert_non_null(strstr(s, "\"1 us\" 1e-06"));   /* labels with units, not exponents */
    free(s);
    s = tics("x", 1, 1e30, NULL);
    assert_true(marks(s) >= 3 && marks(s) <= 12);
    free(s);
    s = tics("y", 0.7, 0.7, "s");   /* one value: a mark at it */
    assert_true(marks(s) >= 1);
    free(s);
    s = tics("y", 0, 1, "s");   /* no log axis from a zero: gnuplot's own */
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_a_decade),
        cmocka_unit_test(test_many_decades_and_one_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
