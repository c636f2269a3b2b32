/* pm_fixplan: catalogue parsing, rule matching, selection per regime, budget trimming, the verdict and the
 * greedy combination, on hand-made evidence whose right answers are worked out in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fix_report.h"
#include "fixplan.h"

#define CAT_TEXT \
    "# comment\n"                                                                                      \
    "\n"                                                                                               \
    "no-rollback\tno-rollback\t*\t*LLVM*,SCFToControlFlowPass\t-\tllvm_ops>=5000\tno rollback\n"     \
    "per-layer\tper-layer\t*\t*\tyes\tlayers>=2\tsplit functions\n"                                 \
    "tile-512\ttile-512\tisel,regalloc\t*\t-\ttile<512&llvm_ops>=20000\tlarger tile\n"               \
    "none-here\t-\t*\t*\t-\t*\tno variant\n"                                                        \
    "no-rollback+per-layer\tno-rollback+per-layer\t*\t*\t-\tlayers>=2\tboth\n"
static const char CAT[] = CAT_TEXT;

static void catalogue_parses_rows_and_rejects_bad_ones(void **state)
{
    pm_fix_catalogue cat;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse(CAT, "cat.tsv", &cat, &err), PM_OK);
    assert_int_equal(cat.n, 5);
    assert_string_equal(cat.items[0].name, "no-rollback");
    assert_int_equal(cat.items[1].superlinear, 1);
    assert_int_equal(cat.items[2].line, 5);
    assert_true(pm_fix_is_combination(&cat.items[4]));
    assert_false(pm_fix_is_combination(&cat.items[0]));
    assert_int_equal(pm_fix_catalogue_find_variant(&cat, "per-layer+no-rollback"), 4);
    assert_int_equal(pm_fix_catalogue_find_variant(&cat, "tile-512+per-layer"), -1);
    pm_fix_catalogue_free(&cat);

    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\t-\n", "x.tsv", &cat, &err), PM_OK);
    assert_non_null(strstr(err.msg, "x.tsv:1: 5 columns"));
    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\t-\tfoo>3\tw\n", "x.tsv", &cat, &err), PM_OK);
    assert_non_null(strstr(err.msg, "unknown name 'foo'"));
    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\t-\twindow=3\tw\n", "x.tsv", &cat, &err), PM_OK);
    assert_non_null(strstr(err.msg, "operator"));
    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\tmaybe\t*\tw\n", "x.tsv", &cat, &err), PM_OK);
    assert_non_null(strstr(err.msg, "superlinear 'maybe'"));
    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\t-\t*\tw\na\tc\t*\t*\t-\t*\tw\n", "x.tsv", &cat, &err),
                         PM_OK);
    assert_non_null(strstr(err.msg, "x.tsv:2: fix 'a' declared twice"));
    assert_int_not_equal(pm_fix_catalogue_parse("# only comments\n", "x.tsv", &cat, &err), PM_OK);
    assert_non_null(strstr(err.msg, "no fix"));
}

/* Six stock configs in three regimes (walls in s). */
static const char *const HEAVY_LOW[] = {"ConvertFuncToLLVMPass", "Canonicalizer"};
static const char *const HEAVY_ISEL[] = {"X86 DAG->DAG Instruction Selection"};
static pm_fix_evidence EV[] = {
    {"c0", "lowering-to-llvm", HEAVY_LOW, 2, 512, 4, 256, 90, 60000, 10.0, NULL, 0},
    {"c1", "lowering-to-llvm", HEAVY_LOW, 2, 128, 4, 256, 90, 20000, 4.0, NULL, 0},
    {"c2", "isel", HEAVY_ISEL, 1, 512, 4, 256, 90, 80000, 20.0, NULL, 0},
    {"c3", "isel", HEAVY_ISEL, 1, 128, 1, 256, 30, 30000, 6.0, NULL, 0},
    {"c4", "regalloc", HEAVY_ISEL, 1, 1024, 1, 512, 30, 90000, 8.0, NULL, 0},
    {"c5", "lowering-to-llvm", HEAVY_LOW, 2, 64, 1, 256, 30, 3000, 1.0, NULL, 0},
};
static const char *const SUPERLINEAR[] = {"Greedy Register Allocator"};

static void rules_match_the_evidence(void **state)
{
    pm_fix_catalogue cat;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse(CAT, "cat.tsv", &cat, &err), PM_OK);
    /* no-rollback: a heavy *LLVM* pass and >= 5000 LLVM ops: c0, c1 (c5 is too small; c2 has no such pass) */
    int expect_nr[] = {1, 1, 0, 0, 0, 0};
    /* tile-512: regime isel or regalloc, tile < 512, llvm_ops >= 20000: c2, c3 (c4 is at tile 512 already) */
    int expect_tile[] = {0, 0, 1, 1, 0, 0};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(pm_fix_rule_matches(&cat.items[0], &EV[i], SUPERLINEAR, 1), expect_nr[i]);
        assert_int_equal(pm_fix_rule_matches(&cat.items[2], &EV[i], SUPERLINEAR, 1), expect_tile[i]);
        /* per-layer needs a superlinear fit: '*' matches the register allocator; layers >= 2: c0, c1, c2 */
        assert_int_equal(pm_fix_rule_matches(&cat.items[1], &EV[i], SUPERLINEAR, 1), EV[i].layers >= 2);
        /* ... and without any superlinear fit it never holds */
        assert_int_equal(pm_fix_rule_matches(&cat.items[1], &EV[i], NULL, 0), 0);
    }
    /* A term whose evidence is absent is false. */
    pm_fix_evidence e = EV[0];
    e.llvm_ops = NAN;
    assert_int_equal(pm_fix_rule_matches(&cat.items[0], &e, NULL, 0), 0);
    pm_fix_catalogue_free(&cat);
}

static void selection_spreads_over_regimes_slowest_first(void **state)
{
    pm_fix_catalogue cat;
    pm_fix_selection sel;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse("all\tall\t*\t*\t-\t*\tw\n" CAT_TEXT, "cat.tsv", &cat, &err), PM_OK);
    assert_int_equal(pm_fix_select(&cat, EV, 6, SUPERLINEAR, 1, 4, &sel, &err), PM_OK);
    /* singles only (the combination row is not measured alone), in catalogue order */
    assert_int_equal(sel.n, 5);
    /* "all" matches every config; regimes by slowest config: isel (c2 20 s), lowering (c0 10 s), regalloc (c4 8 s);
     * round 1 takes c2, c0, c4; round 2 the slowest left: isel c3 (6 s) before lowering c1 (4 s) */
    const size_t want[] = {2, 0, 4, 3};
    assert_int_equal(sel.picks[0].n_configs, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(sel.picks[0].configs[i], want[i]);
    assert_int_equal(sel.picks[1].n_configs, 2);   /* no-rollback: c0, c1 */
    assert_int_equal(sel.picks[1].configs[0], 0);
    assert_int_equal(sel.picks[1].configs[1], 1);
    assert_null(sel.picks[1].why_not);
    assert_int_equal(sel.picks[4].n_configs, 0);   /* none-here: no variant */
    assert_non_null(strstr(sel.picks[4].why_not, "no compile variant"));
    pm_fix_selection_free(&sel);

    assert_int_equal(pm_fix_select(&cat, EV, 6, NULL, 0, 1, &sel, &err), PM_OK);
    assert_int_equal(sel.picks[2].n_configs, 0);   /* per-layer without a superlinear fit */
    assert_non_null(strstr(sel.picks[2].why_not, "matches its rule"));
    pm_fix_selection_free(&sel);
    assert_int_not_equal(pm_fix_select(&cat, EV, 6, NULL, 0, 0, &sel, &err), PM_OK);
    pm_fix_catalogue_free(&cat);
}

/* The back end's say (pm_fix_select_ex): it refuses "all" on c2 and c3 (as the NPU back end refuses
 * reuse-strategy on LLM configs), and measures "no-rollback" from the study's own runs. */
static int refuse_c2_c3(void *user, size_t fix, size_t ev, char *why, size_t cap)
{
    const pm_fix_catalogue *cat = user;
    if (strcmp(cat->items[fix].name, "all") || (ev != 2 && ev != 3))
        return 1;
    snprintf(why, cap, "not runnable for LLM configs under NPUW");
    return 0;
}

static int refuse_all(void *user, size_t fix, size_t ev, char *why, size_t cap)
{
    snprintf(why, cap, "not runnable here");
    return 0;
}

static void backend_refusals_and_study_measured_fixes(void **state)
{
    pm_fix_catalogue cat;
    pm_fix_selection sel;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse("all\tall\t*\t*\t-\t*\tw\n" CAT_TEXT, "cat.tsv", &cat, &err), PM_OK);
    pm_fix_select_opts so = {.per_fix = 4, .runnable = refuse_c2_c3, .user = &cat, .from_study_variant = "no-rollback"};
    assert_int_equal(pm_fix_select_ex(&cat, EV, 6, SUPERLINEAR, 1, &so, &sel, &err), PM_OK);
    /* "all" as in the selection test, without c2 and c3: c0 (lowering, 10 s), c4 (regalloc, 8 s), then c1 (4 s),
     * c5; the refusal is said with its count, and the fix still runs */
    const size_t want[] = {0, 4, 1, 5};
    assert_int_equal(sel.picks[0].n_configs, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(sel.picks[0].configs[i], want[i]);
    assert_null(sel.picks[0].why_not);
    assert_string_equal(sel.picks[0].note, "not runnable for LLM configs under NPUW (2 configs)");
    assert_false(sel.picks[0].from_study);
    /* no-rollback is measured from the study: all its matching configs, and it costs no run */
    assert_true(sel.picks[1].from_study);
    assert_int_equal(sel.picks[1].n_configs, 2);
    assert_string_equal(sel.picks[1].note, "");
    double with = pm_fix_plan_cost(&sel, EV, 3);
    sel.picks[1].n_configs = 0;
    assert_true(fabs(pm_fix_plan_cost(&sel, EV, 3) - with) < 1e-9);
    sel.picks[1].n_configs = 2;
    /* a budget never drops the study-measured fix (it costs nothing) */
    pm_fix_fit_budget(&sel, EV, 3, 1);
    assert_int_equal(sel.picks[1].n_configs, 2);
    assert_null(sel.picks[1].why_not);
    pm_fix_selection_free(&sel);

    /* refused everywhere its rule holds: not run, and the why is the back end's */
    so = (pm_fix_select_opts){.per_fix = 4, .runnable = refuse_all};
    assert_int_equal(pm_fix_select_ex(&cat, EV, 6, SUPERLINEAR, 1, &so, &sel, &err), PM_OK);
    assert_int_equal(sel.picks[0].n_configs, 0);
    assert_string_equal(sel.picks[0].why_not, "not runnable here (6 configs)");
    assert_non_null(strstr(sel.picks[4].why_not, "no compile variant"));   /* "-" rows keep their own why */
    pm_fix_selection_free(&sel);
    pm_fix_catalogue_free(&cat);
}

static void budget_trims_the_plan(void **state)
{
    pm_fix_catalogue cat;
    pm_fix_selection sel;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse(CAT, "cat.tsv", &cat, &err), PM_OK);
    assert_int_equal(pm_fix_select(&cat, EV, 6, SUPERLINEAR, 1, 3, &sel, &err), PM_OK);
    /* no-rollback: c0, c1; per-layer: c2, c0, c1; tile-512: c2, c3. Distinct configs c0 c1 c2 c3 = 40 s of stock,
     * fix runs 10+4 + 20+10+4 + 20+6 = 74 s: (40 + 74) x 3 repeats = 342 s. */
    assert_true(fabs(pm_fix_plan_cost(&sel, EV, 3) - 342) < 1e-9);
    assert_int_equal(pm_fix_fit_budget(&sel, EV, 3, 0), 0);     /* no budget: nothing dropped */
    assert_int_equal(pm_fix_fit_budget(&sel, EV, 3, 1e6), 0);
    /* 300 s: per-layer (3 configs) loses its last, c1 (its fix runs, 3x4): 330; then the first fix with the most
     * configs (2), no-rollback, loses c1, which no fix measures any more (stock and fix runs, 3x8): 306; then
     * per-layer loses c0 (3x10): 276 <= 300. */
    assert_int_equal(pm_fix_fit_budget(&sel, EV, 3, 300), 3);
    assert_true(pm_fix_plan_cost(&sel, EV, 3) <= 300);
    for (size_t i = 0; i < sel.n; i++)
        if (sel.picks[i].why_not == NULL)
            assert_true(sel.picks[i].n_configs >= 1);
    /* A tiny budget drops whole fixes, the dearest first, and says why. */
    pm_fix_fit_budget(&sel, EV, 3, 50);
    assert_true(pm_fix_plan_cost(&sel, EV, 3) <= 50);
    int budget_drops = 0;
    for (size_t i = 0; i < sel.n; i++)
        budget_drops += sel.picks[i].why_not && strstr(sel.picks[i].why_not, "budget") != NULL;
    assert_true(budget_drops >= 2);
    pm_fix_selection_free(&sel);
    pm_fix_catalogue_free(&cat);
}

/* The fix verdict is compare's per-config verdicts (each from the one interval rule), combined: slower anywhere
 * is worse; any config undecided keeps repeating and is "undecided" at the limit (never "no effect"); with every
 * config decided, faster when one is faster and none slower, no effect when all are the same. */
static void verdicts_follow_the_interval_and_the_threshold(void **state)
{
    pm_fix_measure m = {.n_configs = 3, .min_n = 3, .ratio = 0.8, .lo = 0.7, .hi = 0.9, .faster = 3};
    assert_int_equal(pm_fix_judge(&m, 0, 0.02), PM_FIX_BETTER);
    m.min_n = 2;   /* no conclusion from n < 3 */
    assert_int_equal(pm_fix_judge(&m, 1, 0.02), PM_FIX_UNDECIDED);
    m.min_n = 3;
    m.faster = 2, m.same = 1;   /* faster on two, the same on one: faster */
    assert_int_equal(pm_fix_judge(&m, 0, 0.02), PM_FIX_BETTER);
    m.faster = 0, m.same = 3;   /* every interval within +-2% */
    assert_int_equal(pm_fix_judge(&m, 0, 0.02), PM_FIX_NO_EFFECT);
    m.same = 2, m.undecided = 1, m.repeats_needed = 40;   /* one interval straddles a threshold */
    assert_int_equal(pm_fix_judge(&m, 0, 0.02), PM_FIX_UNDECIDED);
    assert_int_equal(pm_fix_judge(&m, 1, 0.02), PM_FIX_UNSETTLED);
    assert_string_equal(pm_fix_verdict_name(PM_FIX_UNSETTLED), "undecided");
    m.same = 0, m.faster = 2, m.undecided = 1;   /* faster where decided, but not everywhere yet: not shipped */
    assert_int_equal(pm_fix_judge(&m, 1, 0.02), PM_FIX_UNSETTLED);
    m.undecided = 0, m.slower = 1;   /* slower on one config: worse, whatever the others say */
    assert_int_equal(pm_fix_judge(&m, 0, 0.02), PM_FIX_WORSE);
    /* one config: its own verdict decides */
    pm_fix_measure one = {.n_configs = 1, .min_n = 5, .ratio = 0.6, .lo = NAN, .hi = NAN, .faster = 1};
    assert_int_equal(pm_fix_judge(&one, 0, 0.02), PM_FIX_BETTER);
    one.faster = 0, one.untested = 1;   /* no test (a zero time): never a conclusion */
    assert_int_equal(pm_fix_judge(&one, 1, 0.02), PM_FIX_UNSETTLED);
    pm_fix_measure none = {.n_configs = 0, .ratio = NAN};
    assert_int_equal(pm_fix_judge(&none, 1, 0.02), PM_FIX_NOT_RUN);
    assert_string_equal(pm_fix_verdict_name(PM_FIX_CHANGES_OUTPUT), "changes output");
    /* a clear 20% gain from contended runs: no conclusion; repeats go on while there are some (a quieter round
     * may follow), at the limit "no conclusion (contended)"; --allow-contended judges it */
    pm_fix_measure busy = {.n_configs = 3, .min_n = 3, .ratio = 0.8, .lo = 0.7, .hi = 0.9, .faster = 3,
                           .n_contended = 1};
    assert_int_equal(pm_fix_judge(&busy, 0, 0.02), PM_FIX_UNDECIDED);
    assert_int_equal(pm_fix_judge(&busy, 1, 0.02), PM_FIX_CONTENDED);
    assert_string_equal(pm_fix_verdict_name(PM_FIX_CONTENDED), "no conclusion (contended)");
    busy.allow_contended = 1;
    assert_int_equal(pm_fix_judge(&busy, 0, 0.02), PM_FIX_BETTER);
}

/* A fake A/B: each fix has a true speed-up factor; fix 2 gains nothing on top of fix 0 (they overlap).
 * A combination is BETTER than its base when it is at least 2% faster; the budget allows `left` tries. */
typedef struct fake {
    double factor[4];
    int left, tries;
    size_t last_combo[4];
    size_t n_last;
} fake;

static double combo_time(const fake *f, const size_t *c, size_t n)
{
    double t = 1;
    int has0 = 0;
    for (size_t i = 0; i < n; i++)
        has0 |= c[i] == 0;
    for (size_t i = 0; i < n; i++)
        t *= (c[i] == 2 && has0) ? 1.0 : f->factor[c[i]];
    return t;
}

static pm_fix_verdict fake_try(void *user, const size_t *combo, size_t n, const size_t *base, size_t nb)
{
    fake *f = user;
    if (f->left-- <= 0)
        return PM_FIX_NOT_RUN;
    f->tries++;
    memcpy(f->last_combo, combo, n * sizeof *combo);
    f->n_last = n;
    return combo_time(f, combo, n) / combo_time(f, base, nb) <= 0.98 ? PM_FIX_BETTER : PM_FIX_NO_EFFECT;
}

static void greedy_adds_while_it_improves(void **state)
{
    /* singles ranked best first: 0 (0.6), 2 (0.7, the same saving as 0), 1 (0.85), 3 (0.97) */
    fake f = {.factor = {0.6, 0.85, 0.7, 0.97}, .left = 10};
    const size_t ranked[] = {0, 2, 1, 3};
    size_t best[4], n_best;
    int budget;
    assert_int_equal(pm_fix_greedy(ranked, 4, fake_try, &f, best, &n_best, &budget), PM_OK);
    /* 0+2 gains nothing (rejected), 0+1 gains 15% (kept), 0+1+3 gains 3% (kept) */
    assert_int_equal(n_best, 3);
    assert_int_equal(best[0], 0);
    assert_int_equal(best[1], 1);
    assert_int_equal(best[2], 3);
    assert_int_equal(f.tries, 3);
    assert_int_equal(budget, 0);

    /* Budget for one try: 0+2 is tried and rejected, then the search stops and says so. */
    fake g = {.factor = {0.6, 0.85, 0.7, 0.97}, .left = 1};
    assert_int_equal(pm_fix_greedy(ranked, 4, fake_try, &g, best, &n_best, &budget), PM_OK);
    assert_int_equal(n_best, 1);
    assert_int_equal(best[0], 0);
    assert_int_equal(budget, 1);

    /* One fix: no combination to try. */
    fake h = {.factor = {0.6}, .left = 5};
    assert_int_equal(pm_fix_greedy(ranked, 1, fake_try, &h, best, &n_best, &budget), PM_OK);
    assert_int_equal(n_best, 1);
    assert_int_equal(h.tries, 0);
    assert_int_equal(pm_fix_greedy(ranked, 0, fake_try, &h, best, &n_best, &budget), PM_OK);
    assert_int_equal(n_best, 0);
}

static void combination_variant_in_catalogue_order(void **state)
{
    pm_fix_catalogue cat;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse(CAT, "cat.tsv", &cat, &err), PM_OK);
    const size_t combo[] = {2, 0};
    char v[64];
    assert_int_equal(pm_fix_combo_variant(&cat, combo, 2, v, sizeof v, &err), PM_OK);
    assert_string_equal(v, "no-rollback+tile-512");
    char small[8];
    assert_int_not_equal(pm_fix_combo_variant(&cat, combo, 2, small, sizeof small, &err), PM_OK);
    pm_fix_catalogue_free(&cat);
}

/* No fixed buffers: a variant of more than 16 fixes, or a pass glob list past 512 bytes, is compared whole (the old
 * code compared the first 16 tokens and the first 511 bytes, and so matched the wrong catalogue row or no pass). */
static void long_variants_and_glob_lists_are_compared_whole(void **state)
{
    (void)state;
    char row[4096] = "", v1[512] = "", v2[512] = "";
    for (int i = 0; i < 20; i++) {
        char t[8];
        snprintf(t, sizeof t, "%sf%d", i ? "+" : "", i);
        strcat(v1, t);
    }
    snprintf(v2, sizeof v2, "%s", v1);
    v2[strlen(v2) - 1] = '8';                       /* ...+f18+f18 instead of ...+f18+f19 */
    snprintf(row, sizeof row, "many\t%s\t*\t*\t-\t*\tw\n", v1);
    pm_fix_catalogue cat;
    pm_err err = {0};
    assert_int_equal(pm_fix_catalogue_parse(row, "x.tsv", &cat, &err), PM_OK);
    assert_int_equal(pm_fix_catalogue_find_variant(&cat, v1), 0);
    assert_int_equal(pm_fix_catalogue_find_variant(&cat, v2), -1);
    pm_fix_catalogue_free(&cat);

    char globs[1024] = "";
    for (int i = 0; i < 50; i++)
        strcat(globs, "NoSuchPassAnywhere,");   /* 19 bytes each: the match starts at byte 950 */
    strcat(globs, "Canonicalizer");
    pm_fix_def d = {.name = "x", .variant = "x", .regime = "*", .pass = globs, .size = "*", .why = "w"};
    static const char *const heavy[] = {"Canonicalizer"};
    pm_fix_evidence e = {"c", "lowering", heavy, 1, 128, 1, 256, 10, 100, 1.0, NULL, 0};
    assert_true(pm_fix_rule_matches(&d, &e, NULL, 0));
}

/* A fix that beats stock on compile and run time is the frontier's one point: it once read "stock alone: no fix
 * is both proven faster to compile and timed at run time". */
static char *frontier_of(const char *json)
{
    json_t *r = json_loads(json, 0, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pm_fix_frontier_text(f, r);
    fclose(f);
    json_decref(r);
    return buf;
}

static void one_point_frontier(void **state)
{
    (void)state;
    char *t = frontier_of("{\"frontier\": [{\"variant\": \"o1\", \"compile_ratio\": 0.8, \"run_ratio\": 0.9, "
                          "\"why\": \"recommended\"}]}");
    assert_null(strstr(t, "stock alone"));
    assert_non_null(strstr(t, "stock is not on it"));
    assert_non_null(strstr(t, "o1"));
    free(t);
    t = frontier_of("{\"frontier\": [{\"variant\": \"stock\", \"compile_ratio\": 1, \"run_ratio\": 1, "
                    "\"why\": \"the reference\"}]}");
    assert_non_null(strstr(t, "stock alone"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogue_parses_rows_and_rejects_bad_ones),
        cmocka_unit_test(rules_match_the_evidence),
        cmocka_unit_test(selection_spreads_over_regimes_slowest_first),
        cmocka_unit_test(budget_trims_the_plan),
        cmocka_unit_test(backend_refusals_and_study_measured_fixes),
        cmocka_unit_test(verdicts_follow_the_interval_and_the_threshold),
        cmocka_unit_test(greedy_adds_while_it_improves),
        cmocka_unit_test(combination_variant_in_catalogue_order),
        cmocka_unit_test(long_variants_and_glob_lists_are_compared_whole),
        cmocka_unit_test(one_point_frontier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
