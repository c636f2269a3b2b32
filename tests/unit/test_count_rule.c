/* The verdict rule on instruction counts (issue 32): the count's floor (decide.h: one count, or the spread of
 * the repeats) enters the rule as its tick, so identical constant counts are "same", a count moved by one is
 * "same", a constant 3% more is "slower", and zero counts or counts under ten floors make no claim, never a
 * verdict out of a division by zero. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"
#include "decide.h"

/* the verdict of B against A decided on counts, as compare decides a config (a family of one) */
static pm_compare_verdict count_verdict(const double *a, size_t na, const double *b, size_t nb, double *floor_out)
{
    double floor = pm_decide_floor(PM_DECIDE_INSTRUCTIONS, a, na, 0);
    floor = pm_decide_floor(PM_DECIDE_INSTRUCTIONS, b, nb, floor);
    pm_compare_stat st;
    pm_compare_test_tick(a, na, b, nb, floor, 1, &st);
    pm_compare_stat *fam[] = {&st};
    pm_compare_correct(fam, 1, PM_COMPARE_ALPHA, PM_COMPARE_THRESHOLD);
    if (floor_out)
        *floor_out = floor;
    /* whatever the verdict, it is one of the rule's, and a claim comes with a finite interval */
    assert_true(st.verdict >= PM_VERDICT_NA && st.verdict <= PM_VERDICT_OUTSIDE);
    if (st.verdict == PM_VERDICT_SAME || st.verdict == PM_VERDICT_FASTER || st.verdict == PM_VERDICT_SLOWER)
        assert_true(isfinite(st.ci_lo) && isfinite(st.ci_hi) && st.ci_lo <= st.ratio && st.ratio <= st.ci_hi);
    return st.verdict;
}

static void constant_equal_counts_are_same(void **state)
{
    (void)state;
    double a[] = {831121388, 831121388, 831121388}, b[] = {831121388, 831121388, 831121388};
    double floor;
    assert_int_equal(count_verdict(a, 3, b, 3, &floor), PM_VERDICT_SAME);
    assert_float_equal(floor, 1, 0);   /* no spread: one count */
}

static void one_count_apart_is_same(void **state)
{
    (void)state;
    double a[] = {831121388, 831121389, 831121388}, b[] = {831121389, 831121388, 831121388};
    assert_int_equal(count_verdict(a, 3, b, 3, NULL), PM_VERDICT_SAME);
    /* constant on one side, one count off on the other */
    double c[] = {831121389, 831121389, 831121389};
    assert_int_equal(count_verdict(a, 3, c, 3, NULL), PM_VERDICT_SAME);
}

static void three_percent_more_is_slower(void **state)
{
    (void)state;
    double a[] = {1e9, 1e9, 1e9}, b[] = {1.03e9, 1.03e9, 1.03e9};
    assert_int_equal(count_verdict(a, 3, b, 3, NULL), PM_VERDICT_SLOWER);
    assert_int_equal(count_verdict(b, 3, a, 3, NULL), PM_VERDICT_FASTER);
    /* a 1% change is inside the 2% threshold: same */
    double c[] = {1.01e9, 1.01e9, 1.01e9};
    assert_int_equal(count_verdict(a, 3, c, 3, NULL), PM_VERDICT_SAME);
}

static void zero_and_tiny_counts_make_no_claim(void **state)
{
    (void)state;
    double z[] = {0, 0, 0};
    assert_int_equal(count_verdict(z, 3, z, 3, NULL), PM_VERDICT_NA);
    double a[] = {1e9, 1e9, 1e9};
    assert_int_equal(count_verdict(a, 3, z, 3, NULL), PM_VERDICT_NA);
    /* five instructions against a floor of one: under ten floors, below resolution */
    double t[] = {5, 5, 5};
    assert_int_equal(count_verdict(t, 3, t, 3, NULL), PM_VERDICT_BELOW_RESOLUTION);
    /* two runs a side: no interval, no claim */
    assert_int_equal(count_verdict(a, 2, a, 2, NULL), PM_VERDICT_NA);
}

static void the_floor_is_the_spread(void **state)
{
    (void)state;
    double a[] = {1000000, 1000100, 1000050};
    assert_float_equal(pm_decide_floor(PM_DECIDE_INSTRUCTIONS, a, 3, 0), 100, 0);
    assert_float_equal(pm_decide_floor(PM_DECIDE_INSTRUCTIONS, a, 3, 500), 500, 0);
    /* a time's floor is its timer's, which the caller knows: unchanged */
    assert_float_equal(pm_decide_floor(PM_DECIDE_WALL, a, 3, 0), 0, 0);
    assert_true(pm_decide_row_of(PM_DECIDE_INSTRUCTIONS)->count);
    assert_false(pm_decide_row_of(PM_DECIDE_WALL)->count);
    assert_false(pm_decide_row_of(PM_DECIDE_CPU)->count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_equal_counts_are_same),
        cmocka_unit_test(one_count_apart_is_same),
        cmocka_unit_test(three_percent_more_is_slower),
        cmocka_unit_test(zero_and_tiny_counts_make_no_claim),
        cmocka_unit_test(the_floor_is_the_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
