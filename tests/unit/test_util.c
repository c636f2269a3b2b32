#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void read_file_round_trips_sizes_around_the_buffer(void **state)
{
    char dir[] = "/tmp/pm-util.XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t sizes[] = {0, 1, 65535, 65536, 200001};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char path[64];
        snprintf(path, sizeof path, "%s/f%zu", dir, k);
        FILE *f = fopen(path, "wb");
        for (size_t i = 0; i < sizes[k]; i++)
            fputc('a' + (int)(i % 26), f);
        fclose(f);
        char *buf;
        size_t len;
        pm_err e = {0};
        assert_int_equal(pm_util_read_file(path, &buf, &len, &e), PM_OK);
        assert_int_equal(len, sizes[k]);
        assert_int_equal(buf[len], '\0');
        if (len)
            assert_int_equal(buf[len - 1], 'a' + (int)((len - 1) % 26));
        free(buf);
    }
    pm_util_remove_tree(dir);
    assert_int_not_equal(access(dir, F_OK), 0);
}

static void read_file_missing_is_an_io_error(void **state)
{
    char *buf = (char *)1;
    size_t len = 7;
    pm_err e = {0};
    assert_int_equal(pm_util_read_file("/nonexistent/x", &buf, &len, &e), PM_ERR_IO);
    assert_null(buf);
    assert_non_null(strstr(e.msg, "/nonexistent/x"));
}

static void mkdir_p_makes_parents_and_accepts_existing(void **state)
{
    char dir[] = "/tmp/pm-util.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char deep[128];
    snprintf(deep, sizeof deep, "%s/a/b/c", dir);
    pm_err e = {0};
    assert_int_equal(pm_util_mkdir_p(deep, &e), PM_OK);
    assert_int_equal(pm_util_mkdir_p(deep, &e), PM_OK);
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    char file[160];
    snprintf(file, sizeof file, "%s/a/file", dir);
    fclose(fopen(file, "w"));
    snprintf(deep, sizeof deep, "%s/a/file/sub", dir);
    assert_int_equal(pm_util_mkdir_p(deep, &e), PM_ERR_IO);
    pm_util_remove_tree(dir);
    assert_int_not_equal(access(dir, F_OK), 0);
}

static void closest_suggests_near_words_only(void **state)
{
    const char *cmds[] = {"run", "report", "fix", "doctor", "compare", "cache", "show", "status"};
    size_t n = sizeof cmds / sizeof cmds[0];
    assert_string_equal(pm_util_closest("reprot", cmds, n), "report");   /* a swap is one edit */
    assert_string_equal(pm_util_closest("fxi", cmds, n), "fix");
    assert_string_equal(pm_util_closest("doctr", cmds, n), "doctor");
    assert_string_equal(pm_util_closest("comp", cmds, n), "compare");    /* the one word it starts */
    assert_null(pm_util_closest("xyz", cmds, n));
    assert_null(pm_util_closest("", cmds, n));
    assert_string_equal(pm_util_closest("sta", cmds, n), "status");
    assert_null(pm_util_closest("c", cmds, n));   /* cache or compare: no guess */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_file_round_trips_sizes_around_the_buffer),
        cmocka_unit_test(read_file_missing_is_an_io_error),
        cmocka_unit_test(closest_suggests_near_words_only),
        cmocka_unit_test(mkdir_p_makes_parents_and_accepts_existing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
