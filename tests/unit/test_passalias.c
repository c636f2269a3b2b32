#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        cmocka_unit_test(the_data_table_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
