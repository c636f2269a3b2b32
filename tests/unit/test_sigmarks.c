/* Significance marks in the report: the in-sweep A/B table and headline show compare's verdicts (one rule:
 * Welch on log times, Holm within the table, 2% threshold, no claim below 3 runs a side), never a mark the
 * printed interval contradicts; the proven-fix text says where a verdict comes from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "compare.h"
#include "compare_out.h"
#include "decide.h"
#include "fix_report.h"
#include "report_tables.h"
#include "stats.h"

/* Deterministic jitter around 1 (+-5%). */
static double jitter(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return 1 + 0.1 * (((*seed >> 16) % 1000) / 1000.0 - 0.5);
}

/* Samples for B = shift x A with the jitter: n runs a side. */
static void samples(double shift, unsigned seed, double *a, double *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        a[i] = 2.0 * jitter(&seed);
        b[i] = 2.0 * shift * jitter(&seed);
    }
}

/* A single config's test whose 95% interval lies below 0.98 alone but not at 0.05/3: faster alone, undecided in a
 * table of three. Found by scanning the shift (deterministic). */
static void borderline(pm_compare_stat *st)
{
    double a[5], b[5];
    for (int k = 1; k < 400; k++) {
        for (unsigned seed = 1; seed < 40; seed++) {
            double shift = 1 - 0.001 * k;
            samples(shift, seed, a, b, 5);
            for (int i = 0; i < 5; i++) {   /* three times the jitter: +-15% */
                a[i] = 2.0 * pow(a[i] / 2.0, 3);
                b[i] = 2.0 * shift * pow(b[i] / (2.0 * shift), 3);
            }
            pm_compare_test(a, 5, b, 5, st);
            pm_stats_logratio r = {.ratio = st->ratio, .diff = log(st->ratio), .se = st->se_log, .df = st->df,
                                   .p = st->p};
            double lo1, hi1, lo3, hi3;
            pm_stats_logratio_ci(&r, 0.05, &lo1, &hi1);
            pm_stats_logratio_ci(&r, 0.05 / 3, &lo3, &hi3);
            if (hi1 < 0.98 && hi3 > 1)
                return;
        }
    }
    fail_msg("no borderline sample found");
}

typedef struct ab_fixture {
    pm_analysis a;
    pm_an_ab ab;
    pm_compare_config cfg[4];
} ab_fixture;

/* Four configs in one A/B table: clear (faster), CI crossing 1, within the 2% threshold, n = 2. */
static void build(ab_fixture *f)
{
    memset(f, 0, sizeof *f);
    static char *keys[] = {"k/clear", "k/crosses", "k/tiny", "k/n2"};
    double a[6], b[6];
    samples(0.80, 3, a, b, 6);            /* 20% faster, tight */
    pm_compare_test(a, 6, b, 6, &f->cfg[0].wall);
    samples(0.97, 5, a, b, 3);            /* 3% but noisy, 3 runs: the CI holds 1 */
    b[0] *= 1.3;
    pm_compare_test(a, 3, b, 3, &f->cfg[1].wall);
    const double c1[] = {1.000, 1.001, 0.999, 1.000}, c2[] = {0.990, 0.991, 0.989, 0.990};
    pm_compare_test(c1, 4, c2, 4, &f->cfg[2].wall);   /* clear but 1%: below the threshold */
    samples(0.5, 9, a, b, 2);
    pm_compare_test(a, 2, b, 2, &f->cfg[3].wall);     /* halved, but n = 2 */
    pm_compare_stat *fam[4];
    for (int i = 0; i < 4; i++) {
        f->cfg[i].key = f->cfg[i].key_a = f->cfg[i].key_b = keys[i];
        f->cfg[i].regime = "llc";
        fam[i] = &f->cfg[i].wall;
    }
    assert_int_equal(pm_compare_correct(fam, 4, PM_COMPARE_ALPHA, PM_COMPARE_THRESHOLD), 0);
    f->ab.variant = "fix";
    f->ab.against = "stock";
    f->ab.cmp.configs = f->cfg;
    f->ab.cmp.a.variant = "stock";
    f->ab.cmp.b.variant = "fix";
    f->ab.cmp.n_configs = 4;
    f->ab.cmp.threshold = PM_COMPARE_THRESHOLD;
    f->ab.cmp.geomean_ratio = 0.8;
    f->ab.cmp.geomean_ci_lo = f->ab.cmp.geomean_ci_hi = NAN;
    f->ab.cmp.pooled_ratio = 0.85;   /* the tested configs: faster, undecided, same */
    f->ab.cmp.pooled_ci_lo = f->ab.cmp.pooled_ci_hi = NAN;
    for (int i = 0; i < 4; i++) {
        pm_compare_verdict v = f->cfg[i].wall.verdict;
        f->ab.cmp.faster += v == PM_VERDICT_FASTER;
        f->ab.cmp.slower += v == PM_VERDICT_SLOWER;
        f->ab.cmp.same += v == PM_VERDICT_SAME;
        f->ab.cmp.undecided += v == PM_VERDICT_UNDECIDED;
        f->ab.cmp.untested += v == PM_VERDICT_NA;
        f->ab.cmp.n_ratios += v == PM_VERDICT_FASTER || v == PM_VERDICT_SLOWER || v == PM_VERDICT_SAME;
        f->ab.cmp.n_pooled += !isnan(f->cfg[i].wall.p);
    }
    f->a.ab.rows = &f->ab;
    f->a.ab.n = 1;
}

static const char *cell_text(const pm_table *t, size_t row, const char *key)
{
    for (size_t k = 0; k < t->n_cols; k++)
        if (!strcmp(t->cols[k].key, key))
            return t->cells[row * t->n_cols + k].text;
    fail_msg("no column %s", key);
    return NULL;
}

static void test_ab_table_marks(void **state)
{
    (void)state;
    ab_fixture f;
    build(&f);
    pm_table *t = pm_rt_ab(&f.a, 0);
    assert_non_null(t);
    assert_int_equal(t->n_rows, 4);
    /* the clear change is marked, its interval below 1 */
    assert_string_equal(cell_text(t, 0, "verdict"), "faster");
    assert_true(f.cfg[0].wall.ci_hi < 1);
    /* the CI crossing 1 (and both thresholds) is neither faster nor same: undecided, with the repeats to settle it */
    assert_true(f.cfg[1].wall.ci_lo < 1 && f.cfg[1].wall.ci_hi > 1);
    assert_int_equal(f.cfg[1].wall.verdict, PM_VERDICT_UNDECIDED);
    assert_true(!strncmp(cell_text(t, 1, "verdict"), "undecided (~", 12));
    /* a 1% change whose whole interval lies within +-2%: same (equivalence shown), although it excludes 1 */
    assert_true(f.cfg[2].wall.ci_hi < 1 && f.cfg[2].wall.ci_lo >= 0.98);
    assert_string_equal(cell_text(t, 2, "verdict"), "same");
    /* n = 2: no test, no interval, no mark */
    assert_string_equal(cell_text(t, 3, "verdict"), "n/a");
    assert_string_equal(cell_text(t, 3, "ci"), "n=2, no interval");
    assert_non_null(strstr(cell_text(t, 3, "b"), "(n=2, no interval)"));
    /* the sides of the deciding metric (wall here) in the report's interval format */
    assert_non_null(strstr(cell_text(t, 0, "a"), " s [-"));   /* both ends: asymmetric, never "±" */
    /* wall decided: no second wall column, and no noise column when no config was contended */
    for (size_t k = 0; k < t->n_cols; k++)
        assert_true(strcmp(t->cols[k].key, "wall_a_s") && strcmp(t->cols[k].key, "noise"));
    assert_true(!strncmp(t->caption, "variant fix (B) vs stock (A); decided on: wall;", 47));
    /* the printed interval is the simultaneous one (Bonferroni over the 3 tests) the mark was decided on */
    assert_int_equal(f.cfg[0].wall.family_m, 3);
    char ci[64];
    pm_compare_fmt_range(ci, sizeof ci, f.cfg[0].wall.ci_lo, f.cfg[0].wall.ci_hi);
    assert_string_equal(cell_text(t, 0, "ci"), ci);
    pm_table_free(t);

    /* the headline counts the same marks */
    pm_rt_headline h;
    assert_int_equal(pm_rt_headline_build(&f.a, &h), PM_OK);
    assert_int_equal(h.n_ab, 1);
    /* one line, B vs A first, the summary's ratio on the deciding metric, the configs the rule decided */
    assert_true(!strncmp(h.ab[0], "fix vs stock: 0.850\u00d7 on wall", strlen("fix vs stock: 0.850\u00d7 on wall")));
    assert_non_null(strstr(h.ab[0], "~"));   /* the undecided config's repeats that would settle it */
    assert_non_null(strstr(h.ab[0], ", 2 of 4 configs decided"));
    pm_rt_headline_free(&h);
    /* the legend is compare's rule */
    char legend[2048], rule[1536];
    pm_rt_sig_legend(legend, sizeof legend, &f.a);
    pm_compare_rule_text(rule, sizeof rule, PM_COMPARE_THRESHOLD, 0);
    assert_non_null(strstr(legend, rule));
    assert_non_null(strstr(rule, "Holm"));
    assert_non_null(strstr(rule, "Bonferroni"));
    assert_non_null(strstr(rule, "upper end < 0.98"));
    assert_non_null(strstr(legend, "fix vs stock m=3"));

    /* a contended config: compare withholds its mark (the report shows compare's), the side named beside it;
     * --allow-contended keeps the mark, still named contended */
    f.cfg[0].contended_a = f.cfg[0].contended_b = "load 5.0 > 2 CPUs";
    pm_compare_stat kept = f.cfg[0].wall;
    pm_compare_withhold(&f.cfg[0].wall, 1, 0);
    t = pm_rt_ab(&f.a, 0);
    assert_non_null(t);
    assert_string_equal(cell_text(t, 0, "verdict"), "no conclusion (contended)");
    assert_string_equal(cell_text(t, 0, "noise"), "contended (A, B)");
    assert_string_equal(cell_text(t, 1, "noise"), "");
    pm_table_free(t);
    f.cfg[0].wall = kept;
    pm_compare_withhold(&f.cfg[0].wall, 1, 1);
    t = pm_rt_ab(&f.a, 0);
    assert_non_null(t);
    assert_string_equal(cell_text(t, 0, "verdict"), "faster");
    assert_string_equal(cell_text(t, 0, "noise"), "contended (A, B)");
    pm_table_free(t);
}

/* Read cold (issue 12): the headline says why its A/B line is empty and gives the times behind recompile / hit;
 * the key legend of the sweep's kinds comes from the kind table. */
static void test_report_reads_cold(void **state)
{
    (void)state;
    pm_an_config cfg[2] = {{.key = "llm/qwen2/0.5b/w128/int8/L1/stock", .kind = "llm", .dominant_stage = -1},
                           {.key = "c/input=a.c/opt=2", .kind = "command", .dominant_stage = -1}};
    cfg[0].wall.mean = 2.0, cfg[0].warm_s = 0.02, cfg[0].cache_ratio = 100;
    cfg[1].wall.mean = 0.5, cfg[1].warm_s = 0.05, cfg[1].cache_ratio = 10;
    pm_analysis a = {.configs = cfg, .n_configs = 2};
    pm_rt_headline h;
    assert_int_equal(pm_rt_headline_build(&a, &h), PM_OK);
    assert_non_null(strstr(h.ab_none, "one variant per config"));
    char warm[32], cold[32], want[128];
    pm_fmt_time(warm, sizeof warm, sqrt(0.02 * 0.05), 0);   /* geometric means over the two configs */
    pm_fmt_time(cold, sizeof cold, sqrt(2.0 * 0.5), 0);
    snprintf(want, sizeof want, "): %s against %s", warm, cold);
    assert_non_null(strstr(h.cache, want));
    /* sqrt(100 x 10) = cold / warm of the same means, in the one ratio precision */
    assert_non_null(strstr(h.cache, "a hit is 31.6\u00d7 faster than a cold compile (10.0\u2013100\u00d7 over 2 configs)"));
    pm_rt_headline_free(&h);
    char keys[512];
    pm_rt_key_legend(&a, 0, keys, sizeof keys);
    assert_non_null(strstr(keys, "w128 = a 128-token prompt window"));
    assert_null(strstr(keys, "CNN"));   /* only the kinds in the sweep */
    pm_rt_key_legend(&a, 1, keys, sizeof keys);
    assert_non_null(strstr(keys, "B2 = the stem and first 2 blocks"));
    a.n_configs = 0;
    pm_rt_key_legend(&a, 0, keys, sizeof keys);
    assert_string_equal(keys, "");
}

static void test_holm_changes_mark(void **state)
{
    (void)state;
    pm_compare_stat one, *p1 = &one;
    borderline(&one);
    pm_compare_stat fam[3] = {one, one, one}, *pf[3] = {&fam[0], &fam[1], &fam[2]};
    assert_int_equal(pm_compare_correct(&p1, 1, PM_COMPARE_ALPHA, PM_COMPARE_THRESHOLD), 0);
    assert_int_equal(one.verdict, PM_VERDICT_FASTER);   /* alone: its 95% interval lies below 0.98 */
    assert_true(one.ci_hi < 0.98);
    /* three such rows in one table: Holm's p = 3p > 0.05, the simultaneous interval (0.05/3) holds 1: undecided */
    assert_int_equal(pm_compare_correct(pf, 3, PM_COMPARE_ALPHA, PM_COMPARE_THRESHOLD), 0);
    for (int i = 0; i < 3; i++) {
        assert_true(fam[i].p_holm > 0.05);
        assert_true(fam[i].ci_hi > 1);
        assert_int_equal(fam[i].verdict, PM_VERDICT_UNDECIDED);
    }
    /* and the report's table shows the corrected mark */
    pm_compare_config cfg[3] = {0};
    for (int i = 0; i < 3; i++)
        cfg[i].key = cfg[i].key_a = cfg[i].key_b = "k", cfg[i].regime = "llc", cfg[i].wall = fam[i];
    pm_an_ab ab = {.variant = "fix", .against = "stock", .cmp = {.configs = cfg, .n_configs = 3}};
    pm_analysis a = {.ab.rows = &ab, .ab.n = 1};
    pm_table *t = pm_rt_ab(&a, 0);
    assert_non_null(t);
    for (size_t r = 0; r < 3; r++)
        assert_true(!strncmp(cell_text(t, r, "verdict"), "undecided", 9));
    pm_table_free(t);
}

/* A fix verdict that the interval over configs does not carry (it came from every config being faster by
 * compare's rule) says so beside the interval. */
static void test_fix_text_never_contradicts(void **state)
{
    (void)state;
    char m[192];
    json_t *o = json_pack("{s:f,s:f,s:f,s:i,s:s}", "ratio", 0.9, "ci_lo", 0.8, "ci_hi", 1.05, "n_configs", 3, "verdict",
                          "faster");
    pm_fix_ratio_text(o, m, sizeof m);
    assert_non_null(strstr(m, "[0.800, 1.05]"));
    assert_non_null(strstr(m, "every config faster by compare's rule"));
    json_object_set_new(o, "ci_hi", json_real(0.95));   /* the interval carries it: nothing added */
    pm_fix_ratio_text(o, m, sizeof m);
    assert_null(strstr(m, "every config"));
    json_object_set_new(o, "verdict", json_string("no effect"));
    json_object_set_new(o, "ci_hi", json_real(1.05));
    pm_fix_ratio_text(o, m, sizeof m);
    assert_null(strstr(m, "every config"));
    /* a verdict kept from contended runs says so; a withheld one needs no mark (its verdict says it) */
    json_object_set_new(o, "verdict", json_string("faster"));
    json_object_set_new(o, "ci_hi", json_real(0.95));
    json_object_set_new(o, "contended_configs", json_integer(2));
    pm_fix_ratio_text(o, m, sizeof m);
    assert_non_null(strstr(m, "2 configs contended, kept by --allow-contended"));
    /* with compare's per-config verdicts recorded, they are said; an undecided fix says what would settle it */
    json_object_set_new(o, "config_verdicts", json_pack("{s:i,s:i,s:i,s:i}", "faster", 2, "slower", 0, "same", 1,
                                                        "undecided", 0));
    pm_fix_ratio_text(o, m, sizeof m);
    assert_non_null(strstr(m, "per config by compare's rule: 2 faster, 0 slower, 1 same, 0 undecided"));
    json_object_set_new(o, "verdict", json_string("undecided"));
    json_object_set_new(o, "repeats_needed", json_real(37));
    pm_fix_ratio_text(o, m, sizeof m);
    assert_non_null(strstr(m, "~37 runs/side would settle it"));
    json_object_del(o, "config_verdicts");
    json_object_set_new(o, "verdict", json_string("no conclusion (contended)"));
    pm_fix_ratio_text(o, m, sizeof m);
    assert_null(strstr(m, "contended"));
    json_decref(o);
}

/* The one-line summary (issue 37): B vs A, the summary's ratio and interval read by pm_compare_decide, a faster B
 * as hyperfine says it (A/B, the interval turned), the metric that decided, and why there is none. */
static void test_oneline(void **state)
{
    (void)state;
    pm_compare_config cfg[2] = {0};
    cfg[0].key = cfg[1].key = "k";
    cfg[0].wall = (pm_compare_stat){.n_a = 3, .n_b = 3, .verdict = PM_VERDICT_SLOWER, .ratio = 1.2};
    cfg[1].wall = cfg[0].wall;
    pm_compare_result r = {.a.variant = "precision=int8", .b.variant = "precision=fp16", .configs = cfg,
                           .n_configs = 2, .threshold = 0.02, .slower = 2, .n_ratios = 2,
                           .n_pooled = 2, .pooled_ratio = 1.19, .pooled_ci_lo = 1.08, .pooled_ci_hi = 1.31};
    char buf[256];
#define ONELINE(r)                                                                                                \
    do {                                                                                                          \
        char *l_ = pm_compare_oneline(&(r));                                                                      \
        assert_non_null(l_);                                                                                      \
        snprintf(buf, sizeof buf, "%s", l_);                                                                      \
        free(l_);                                                                                                 \
    } while (0)
    ONELINE(r);
    assert_string_equal(buf, "fp16 vs int8: 1.19\u00d7 slower [1.08, 1.31] on wall, 2 of 2 configs decided");
    r.decided_on = PM_DECIDE_CPU;   /* the metric's own name, whatever decided */
    r.pooled_ratio = 0.8, r.pooled_ci_lo = 0.7, r.pooled_ci_hi = 0.9;
    ONELINE(r);
    assert_string_equal(buf, "fp16 vs int8: 1.25\u00d7 faster [1.11, 1.43] on cpu time (user+sys), 2 of 2 configs decided");
    r.pooled_ratio = 1.0, r.pooled_ci_lo = 0.99, r.pooled_ci_hi = 1.01;
    ONELINE(r);
    assert_true(!strncmp(buf, "fp16 vs int8: same, 1.00\u00d7 [0.990, 1.01] on cpu time", 20));
    /* nothing decided: how many runs a side would settle it */
    cfg[0].wall.verdict = cfg[1].wall.verdict = PM_VERDICT_UNDECIDED;
    cfg[0].wall.repeats_needed = 40, cfg[1].wall.repeats_needed = 12;
    r.decided_on = PM_DECIDE_WALL;
    r.slower = r.n_ratios = 0, r.undecided = 2, r.pooled_ratio = r.pooled_ci_lo = r.pooled_ci_hi = NAN;
    ONELINE(r);
    assert_string_equal(buf, "fp16 vs int8: undecided on wall: ~40 runs/side would settle it, 0 of 2 configs decided");
    /* n = 2: no test, and what it needs */
    cfg[0].wall = (pm_compare_stat){.n_a = 2, .n_b = 2, .verdict = PM_VERDICT_NA};
    cfg[1].wall = cfg[0].wall;
    r.undecided = 0, r.untested = 2;
    ONELINE(r);
    assert_string_equal(buf, "fp16 vs int8: no test on wall: 2 runs a side, 3 needed, 0 of 2 configs decided");
#undef ONELINE
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ab_table_marks),
        cmocka_unit_test(test_holm_changes_mark),
        cmocka_unit_test(test_report_reads_cold),
        cmocka_unit_test(test_fix_text_never_contradicts),
        cmocka_unit_test(test_oneline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
