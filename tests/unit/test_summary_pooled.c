/* The summary without selection bias (issue 35): compare's summary estimate pools every tested, uncontended
 * config, decided or not. Deciding selects the larger effects, so the mean over decided configs alone is biased
 * away from 1 (the demo store: 2.744x from 4 decided configs against 2.186x over all 9). 1,000 seeded studies of 9
 * configs with heterogeneous true effects (log ratio ~ N(ln 1.2, 0.3) across configs) and noise that differs by
 * config, 5 runs a side, run through the rule (pm_compare_test_tick, pm_compare_correct over the configs' family)
 * and pm_compare_summarize: the pooled estimate is unbiased within 5% of the true mean effect; the decided-only
 * mean, measured beside it, is not. The interval's coverage of the mean effect is printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "sim_rng.h"

enum { K = 9, N = 5, STUDIES = 1000 };

static void test_pooled_unbiased(void **state)
{
    (void)state;
    static const double noise[] = {0.02, 0.05, 0.1, 0.2, 0.4};   /* per-run log sd, by config */
    const double mu = log(1.2), tau = 0.3;
    rng r = {0x5a33a7};
    double sum_pooled = 0, sum_decided = 0;
    int n_decided_studies = 0, covered = 0, with_interval = 0;
    size_t decided_total = 0;
    for (int s = 0; s < STUDIES; s++) {
        pm_compare_config cfg[K];
        pm_compare_stat *fam[K];
        memset(cfg, 0, sizeof cfg);
        for (int k = 0; k < K; k++) {
            double a[N], b[N], effect = mu + tau * normal(&r), sd = noise[(size_t)(uniform(&r) * 5) % 5];
            for (int i = 0; i < N; i++) {
                a[i] = 0.5 * exp(sd * normal(&r));
                b[i] = 0.5 * exp(effect + sd * normal(&r));
            }
            cfg[k].key = (char *)"k";
            cfg[k].regime = (char *)"-";
            pm_compare_test_tick(a, N, b, N, 1e-6, 1, &cfg[k].wall);
            fam[k] = &cfg[k].wall;
        }
        assert_int_equal(pm_compare_correct(fam, K, 0.05, 0.02), 0);
        pm_compare_result res = {.configs = cfg, .n_configs = K, .threshold = 0.02};
        assert_int_equal(pm_compare_summarize(&res), 0);
        assert_int_equal(res.n_pooled, K);   /* every config tested, none contended */
        sum_pooled += log(res.pooled_ratio);
        if (res.n_ratios) {
            sum_decided += log(res.geomean_ratio);
            n_decided_studies++;
        }
        decided_total += res.n_ratios;
        if (!isnan(res.pooled_ci_lo)) {
            with_interval++;
            covered += res.pooled_ci_lo <= exp(mu) && exp(mu) <= res.pooled_ci_hi;
        }
        for (size_t g = 0; g < res.n_regimes; g++)
            free(res.regimes[g].regime);
        free(res.regimes);
    }
    double pooled = exp(sum_pooled / STUDIES), decided = exp(sum_decided / n_decided_studies);
    double bias = pooled / exp(mu) - 1, bias_decided = decided / exp(mu) - 1;
    print_message("summary over %d studies of %d configs (true mean effect %.3fx, between-config sd %.2f on the log "
                  "scale): pooled estimate %.4fx (bias %+.2f%%), its 95%% interval held the mean effect in %.3f; "
                  "decided-only mean %.4fx (bias %+.2f%%, %.1f of %d configs decided on average)\n", STUDIES, K,
                  exp(mu), tau, pooled, 100 * bias, (double)covered / with_interval, decided, 100 * bias_decided,
                  (double)decided_total / STUDIES, K);
    assert_true(fabs(bias) <= 0.05);
    assert_true(fabs(bias_decided) > 0.05);   /* what pooling removes */
    assert_true(with_interval == STUDIES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pooled_unbiased),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
