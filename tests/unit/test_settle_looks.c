/* The adaptive stop's looks paid for (issue 35): the answer test (pm_settle_lead) runs after every round, from
 * min_repeats to max_repeats, so its error must be spent over those looks. Seeded simulated configs, the shares of
 * each run drawn around true shares with the per-run share noise measured on a calm and a loaded machine (sd
 * 0.036, 0.081), min 3, max 10 repeats, the stop applied after each run as the sweep does:
 *   - a true tie of the two largest stages (30% and 30%): the stop declares a leader in <= 5% of 2,000 configs;
 *     the single-look level it replaced declares one far more often (the issue measured 15.7%);
 *   - 30% against 28%: the rate of stopping on the wrong leader, printed.
 * The measured rates are printed; docs/statistics.md states them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "settle.h"
#include "sim_rng.h"

enum { NS = 4, MIN_N = 3, MAX_N = 10, CONFIGS = 2000 };

/* One config's runs, stopped as the sweep stops it: returns the stage declared the leader when the test stopped it
 * before max_n, -1 when it ran to max_n. max_n_for_alpha: the looks the level is paid for (0: one look, the old
 * rule). Stage 1 has true share s1, stage 2 s2, stage 3 0.25, stage 0 (process-overhead) the rest. */
static int stop_on(rng *r, double s1, double s2, double sd, size_t max_n_for_alpha)
{
    double share[MAX_N * NS];
    for (size_t n = 1; n <= MAX_N; n++) {
        double *row = &share[(n - 1) * NS];
        row[1] = s1 + sd * normal(r);
        row[2] = s2 + sd * normal(r);
        row[3] = 0.25 + sd * normal(r);
        row[0] = 1 - row[1] - row[2] - row[3];
        if (n < MIN_N || n == MAX_N)
            continue;   /* at max_n the sweep stops anyway: that is no declaration */
        pm_settle_stage st;
        assert_int_equal(pm_settle_lead(share, n, NS, MIN_N, max_n_for_alpha, &st), 0);
        if (st.known)
            return (int)st.lead;
    }
    return -1;
}

static double rate(rng *r, double s1, double s2, double sd, size_t max_n_for_alpha, int wrong_only)
{
    int hit = 0;
    for (int c = 0; c < CONFIGS; c++) {
        int lead = stop_on(r, s1, s2, sd, max_n_for_alpha);
        hit += wrong_only ? lead >= 0 && lead != 1 : lead >= 0;
    }
    return (double)hit / CONFIGS;
}

static void test_tie_declared_at_most_5_percent(void **state)
{
    (void)state;
    rng r = {0x5eed35};
    double calm = rate(&r, 0.30, 0.30, 0.036, MAX_N, 0), loaded = rate(&r, 0.30, 0.30, 0.081, MAX_N, 0);
    double calm1 = rate(&r, 0.30, 0.30, 0.036, 0, 0), loaded1 = rate(&r, 0.30, 0.30, 0.081, 0, 0);
    double wrong_calm = rate(&r, 0.30, 0.28, 0.036, MAX_N, 1), wrong_loaded = rate(&r, 0.30, 0.28, 0.081, MAX_N, 1);
    double wrong_calm1 = rate(&r, 0.30, 0.28, 0.036, 0, 1), wrong_loaded1 = rate(&r, 0.30, 0.28, 0.081, 0, 1);
    print_message("adaptive stop, %d configs each, min %d max %d repeats, per-look level %.4f: a true tie declared "
                  "a leader in %.3f (calm, sd 0.036) / %.3f (loaded, sd 0.081) of configs; one look's 5%% at every "
                  "look: %.3f / %.3f. 30%% vs 28%%: stopped on the wrong leader %.4f / %.4f (one look's 5%%: %.4f / "
                  "%.4f)\n", CONFIGS, MIN_N, MAX_N, pm_settle_alpha(MIN_N, MAX_N), calm, loaded, calm1, loaded1,
                  wrong_calm, wrong_loaded, wrong_calm1, wrong_loaded1);
    assert_true(calm <= 0.05);
    assert_true(loaded <= 0.05);
    assert_true(calm1 > 0.08 && loaded1 > 0.08);   /* the looks unpaid for: what the issue found (15.7%) */
    assert_true(wrong_calm <= 0.05 && wrong_loaded <= 0.05);
}

static void test_alpha_over_looks(void **state)
{
    (void)state;
    assert_true(fabs(pm_settle_alpha(3, 10) - 0.05 / 7) < 1e-15);   /* looks after runs 3..9 */
    assert_true(fabs(pm_settle_alpha(5, 10) - 0.05 / 5) < 1e-15);
    assert_true(fabs(pm_settle_alpha(1, 10) - 0.05 / 7) < 1e-15);   /* no look before 3 runs */
    assert_true(fabs(pm_settle_alpha(3, 0) - 0.05) < 1e-15);        /* no limit given: one look */
    assert_true(fabs(pm_settle_alpha(3, 3) - 0.05) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tie_declared_at_most_5_percent),
        cmocka_unit_test(test_alpha_over_looks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
