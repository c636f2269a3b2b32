#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "passalias.h"

static void renames_map_to_the_newest_name(void **state)
{
    (void)state;
    pm_passalias *m = pm_passalias_new();
    pm_err e = {0};
    assert_int_equal(pm_passalias_load_text(m, "# comment\n\nllc\tOld Name\tNew Name # trailing\n"
                                               "opt*\tSROA\tSROAPass\n", "t", &e), PM_OK);
    assert_int_equal(pm_passalias_rows(m), 2);
    assert_string_equal(pm_passalias_canon(m, "llc", "Old Name"), "New Name");
    assert_string_equal(pm_passalias_canon(m, "llc", "New Name"), "New Name");
    assert_string_equal(pm_passalias_canon(m, "opt", "SROA"), "SROAPass");
    /* the tool glob decides: another tool's pass of that name stays as printed */
    assert_string_equal(pm_passalias_canon(m, "clang", "SROA"), "SROA");
    const char *p = "Unlisted";
    assert_ptr_equal(pm_passalias_canon(m, "llc", p), p);
    assert_ptr_equal(pm_passalias_canon(NULL, "llc", p), p);
    pm_passalias_free(m);
}

static void bad_lines_and_chains_name_the_line(void **state)
{
    (void)state;
    pm_passalias *m = pm_passalias_new();
    pm_err e = {0};
    assert_int_equal(pm_passalias_load_text(m, "llc\ta\tb\n\nllc only-two\tfields\n", "al.tsv", &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "al.tsv:3"));
    pm_passalias_free(m);
    m = pm_passalias_new();
    assert_int_equal(pm_passalias_load_text(m, "llc\ta\tb\nllc\tb\tc\n", "al.tsv", &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "al.tsv:2"));
    assert_non_null(strstr(e.msg, "newest"));
    pm_passalias_free(m);
}

/* The chain check compares globs, not their strings: `* a b` and `cc b a` can be one tool (cc), and then which
 * name cc's "a" matches would depend on row order. Globs no label can match both of stay apart. */
static void chains_across_globs(void **state)
{
    (void)state;
    static const char *const chains[] = {"*\tA\tB\ncc\tB\tA\n", "llc*\tA\tB\n*c\tB\tC\n", "l?c\tA\tB\n[kl]lc\tC\tA\n",
                                         "*\tA\tB\n[!x]*\tB\tC\n"};
    for (size_t i = 0; i < sizeof chains / sizeof *chains; i++) {
        pm_passalias *m = pm_passalias_new();
        pm_err e = {0};
        if (pm_passalias_load_text(m, chains[i], "al.tsv", &e) != PM_ERR_PARSE || !strstr(e.msg, "al.tsv:2"))
            fail_msg("case %zu loaded: '%s'", i, e.msg);
        pm_passalias_free(m);
    }
    static const char *const apart[] = {"llc\tA\tB\nopt\tB\tA\n", "llc*\tA\tB\nopt*\tB\tC\n",
                                        "[ab]lc\tA\tB\n[!ab]lc\tB\tC\n", "*x\tA\tB\n*y\tB\tC\n"};
    for (size_t i = 0; i < sizeof apart / sizeof *apart; i++) {
        pm_passalias *m = pm_passalias_new();
        pm_err e = {0};
        if (pm_passalias_load_text(m, apart[i], "al.tsv", &e) != PM_OK)
            fail_msg("case %zu refused: '%s'", i, e.msg);
        pm_passalias_free(m);
    }
}

/* A UTF-8 byte order mark once made the first row's tool "\xEF\xBB\xBF*", matching nothing, silently. */
static void byte_order_mark(void **state)
{
    (void)state;
    pm_passalias *m = pm_passalias_new();
    pm_err e = {0};
    assert_int_equal(pm_passalias_load_text(m, "\xEF\xBB\xBF*\tOld\tNew\n", "t", &e), PM_OK);
    assert_string_equal(pm_passalias_canon(m, "llc", "Old"), "New");
    pm_passalias_free(m);
}

/* 40,000 rows load and match in linear time (every row scanned every other: 12 s); CPU time, not wall, so a
 * loaded machine does not fail it. The first matching row in table order still wins. */
static void large_table_loads_fast(void **state)
{
    (void)state;
    size_t n = 40000, cap = n * 40 + 64, k = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, cap - k, "llc\told%zu\tnew%zu\n", i, i);
    k += (size_t)snprintf(text + k, cap - k, "*\told7\tlater\n");
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    pm_passalias *m = pm_passalias_new();
    pm_err e = {0};
    assert_int_equal(pm_passalias_load_text(m, text, "big.tsv", &e), PM_OK);
    assert_int_equal(pm_passalias_rows(m), n + 1);
    for (size_t i = 0; i < n; i += 97) {
        char old[32], want[32];
        snprintf(old, sizeof old, "old%zu", i);
        snprintf(want, sizeof want, "new%zu", i);
        assert_string_equal(pm_passalias_canon(m, "llc", old), want);
    }
    assert_string_equal(pm_passalias_canon(m, "llc", "old7"), "new7");
    assert_string_equal(pm_passalias_canon(m, "opt", "old7"), "later");
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    print_message("# 40,001 rows loaded and matched in %.3f s CPU\n", s);
    assert_true(s < 2.0);
    pm_passalias_free(m);
    free(text);
}

/* The shipped table loads, and each of its renames was seen in a real build (docs/builds.md). */
static void the_data_table_loads(void **state)
{
    (void)state;
    setenv("PASSMAP_DATA_DIR", PM_SOURCE_DIR "/data", 1);
    pm_passalias *m = pm_passalias_new();
    pm_err e = {0};
    assert_int_equal(pm_passalias_load_default(m, &e), PM_OK);
    assert_true(pm_passalias_rows(m) > 0);
    pm_passalias_free(m);
    setenv("PASSMAP_DATA_DIR", "/nonexistent-passmap-data", 1);
    m = pm_passalias_new();
    assert_int_equal(pm_passalias_load_default(m, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "pass-aliases.tsv"));
    pm_passalias_free(m);
    unsetenv("PASSMAP_DATA_DIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(renames_map_to_the_newest_name),
        cmocka_unit_test(bad_lines_and_chains_name_the_line),
        cmocka_unit_test(chains_across_globs),
        cmocka_unit_test(byte_order_mark),
        cmocka_unit_test(large_table_loads_fast),
        cmocka_unit_test(the_data_table_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
