#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "error.h"

static void set_formats_and_returns_code(void **state)
{
    pm_err e;
    pm_err_clear(&e);
    assert_int_equal(pm_err_set(&e, PM_ERR_PARSE, "line %d", 7), PM_ERR_PARSE);
    assert_string_equal(e.msg, "line 7");
    assert_int_equal(e.code, PM_ERR_PARSE);
}

static void errno_appends_strerror(void **state)
{
    pm_err e;
    errno = ENOENT;
    pm_err_errno(&e, PM_ERR_IO, "open %s", "x");
    assert_string_equal(e.msg, "open x: No such file or directory");
}

static void wrap_prefixes(void **state)
{
    pm_err e;
    pm_err_set(&e, PM_ERR_IO, "inner");
    pm_err_wrap(&e, "outer %d", 1);
    assert_string_equal(e.msg, "outer 1: inner");
    assert_int_equal(e.code, PM_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_formats_and_returns_code),
        cmocka_unit_test(errno_appends_strerror),
        cmocka_unit_test(wrap_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
