/* pm_flagcost_differ: whether a timing flag costs two sides differently is compare's rule on the pairs' ratios
 * (docs/statistics.md), n >= 3 a side, "undecided" where the interval straddles the threshold; never the medians
 * alone (issue 33). The ratios are made by hand: the right answers are in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flagcost.h"

/* One side of one tool build: its pairs' ratios (wall with the flag / wall without), the median as its cost. */
static pm_an_flagcost side(pm_an_flagcost_row *row, double *ratios, size_t n, double median_cost)
{
    *row = (pm_an_flagcost_row){.n_pairs = n, .wall_overhead = median_cost, .cpu_overhead = NAN, .ratios = ratios};
    row->tool = row->program = (char *)"llc";
    row->flag = (char *)"-time-passes";
    return (pm_an_flagcost){.rows = row, .n = 1};
}

static void tight_costs_far_apart_differ(void **state)
{
    (void)state;
    /* +54% against +20%, each within 1%: the ratio 1.20/1.54 = 0.78 with a narrow interval, past 2% */
    double a[] = {1.54, 1.53, 1.55, 1.54, 1.545}, b[] = {1.20, 1.21, 1.19, 1.20, 1.205};
    pm_an_flagcost_row ra, rb;
    pm_an_flagcost A = side(&ra, a, 5, 0.54), B = side(&rb, b, 5, 0.20);
    char buf[512];
    assert_int_equal(pm_flagcost_differ(&A, &B, 0.02, buf, sizeof buf), PM_FLAGCOST_DIFFER);
    assert_non_null(strstr(buf, "llc: -time-passes +54% on A"));
    assert_non_null(strstr(buf, "cost ratio 0.78x ["));
}

static void medians_apart_but_noisy_is_undecided(void **state)
{
    (void)state;
    /* the medians are +10% and +20% (9% apart: the old check said "differ"), but each side's pairs spread from
     * 0.8 to 1.6: the interval of B over A reaches from well below 1 - 2% to well above 1 + 2% */
    double a[] = {0.8, 1.1, 1.6, 1.0, 1.3}, b[] = {1.6, 1.2, 0.8, 1.5, 0.9};
    pm_an_flagcost_row ra, rb;
    pm_an_flagcost A = side(&ra, a, 5, 0.10), B = side(&rb, b, 5, 0.20);
    char buf[512];
    assert_int_equal(pm_flagcost_differ(&A, &B, 0.02, buf, sizeof buf), PM_FLAGCOST_UNDECIDED);
    assert_non_null(strstr(buf, "cost ratio "));
}

static void fewer_than_three_pairs_is_undecided(void **state)
{
    (void)state;
    /* two pairs a side: no interval, no verdict, however far apart (docs/statistics.md: n < 3) */
    double a[] = {1.54, 1.54}, b[] = {1.20, 1.20};
    pm_an_flagcost_row ra, rb;
    pm_an_flagcost A = side(&ra, a, 2, 0.54), B = side(&rb, b, 2, 0.20);
    char buf[512];
    assert_int_equal(pm_flagcost_differ(&A, &B, 0.02, buf, sizeof buf), PM_FLAGCOST_UNDECIDED);
    assert_non_null(strstr(buf, "fewer than 3 pairs a side"));
}

static void equal_costs_are_alike(void **state)
{
    (void)state;
    /* +20% on both, within 0.5%: the interval lies inside [0.98, 1.02] */
    double a[] = {1.20, 1.201, 1.199, 1.2, 1.2005}, b[] = {1.2, 1.1995, 1.201, 1.2, 1.2};
    pm_an_flagcost_row ra, rb;
    pm_an_flagcost A = side(&ra, a, 5, 0.20), B = side(&rb, b, 5, 0.20);
    char buf[512];
    assert_int_equal(pm_flagcost_differ(&A, &B, 0.02, buf, sizeof buf), PM_FLAGCOST_ALIKE);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tight_costs_far_apart_differ),
        cmocka_unit_test(medians_apart_but_noisy_is_undecided),
        cmocka_unit_test(fewer_than_three_pairs_is_undecided),
        cmocka_unit_test(equal_costs_are_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
