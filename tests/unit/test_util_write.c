/* pm_util_write_file_atomic / pm_util_publish: no write of passmap's replaces something that is not a
 * regular file. Every target lives in a temporary directory; the device node is one made here (as root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "slurp.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

static char root[PATH_MAX - 64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/pm-util-write.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pm_util_remove_tree(root);
    return 0;
}

static void at(char *buf, const char *name) { snprintf(buf, PATH_MAX, "%s/%s", root, name); }

static void regular_file_replaced_whole(void **state)
{
    (void)state;
    char p[PATH_MAX];
    pm_err err;
    at(p, "f.txt");
    assert_int_equal(pm_util_write_file_atomic(p, "one", 3, 0644, NULL, &err), PM_OK);
    assert_int_equal(pm_util_write_file_atomic(p, "second", 6, 0644, NULL, &err), PM_OK);
    size_t len;
    char *got = slurp(p, &len);
    assert_string_equal(got, "second");
    free(got);
}

/* the probe that turned /dev/null into a plain file, on a node of our own */
static void device_node_written_in_place(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        skip();
        return;
    }
    char p[PATH_MAX];
    pm_err err;
    at(p, "null");
    assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
    assert_int_equal(pm_util_write_file_atomic(p, "data", 4, 0644, NULL, &err), PM_OK);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* a full device: the error is reported, the node stays */
    at(p, "full");
    assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0);
    assert_int_equal(pm_util_write_file_atomic(p, "data", 4, 0644, NULL, &err), PM_ERR_IO);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* publishing a finished temp file onto it: the same */
    char tmp[PATH_MAX];
    at(tmp, "tmpfile");
    FILE *f = fopen(tmp, "w");
    fputs("x", f);
    fclose(f);
    at(p, "null");
    assert_int_equal(pm_util_publish(tmp, p, &err), PM_OK);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_not_equal(access(tmp, F_OK), 0);
}

static void fifo_without_reader_fails_not_blocks(void **state)
{
    (void)state;
    char p[PATH_MAX];
    pm_err err;
    at(p, "fifo");
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(pm_util_write_file_atomic(p, "data", 4, 0644, NULL, &err), PM_ERR_IO);
    assert_non_null(strstr(err.msg, "no reader"));
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

static void fifo_with_reader_gets_the_bytes(void **state)
{
    (void)state;
    char p[PATH_MAX];
    pm_err err;
    at(p, "fifo2");
    assert_int_equal(mkfifo(p, 0644), 0);
    int rfd = open(p, O_RDONLY | O_NONBLOCK);
    assert_true(rfd >= 0);
    assert_int_equal(pm_util_write_file_atomic(p, "data", 4, 0644, NULL, &err), PM_OK);
    char buf[8] = {0};
    assert_int_equal(read(rfd, buf, sizeof buf), 4);
    assert_string_equal(buf, "data");
    close(rfd);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

static void symlink_written_through(void **state)
{
    (void)state;
    char link[PATH_MAX], target[PATH_MAX];
    pm_err err;
    at(link, "link");
    at(target, "target");
    assert_int_equal(symlink("target", link), 0); /* relative, dangling: the target is created */
    assert_int_equal(pm_util_write_file_atomic(link, "v1", 2, 0644, NULL, &err), PM_OK);
    assert_int_equal(pm_util_write_file_atomic(link, "v2", 2, 0644, NULL, &err), PM_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    size_t len;
    char *got = slurp(target, &len);
    assert_string_equal(got, "v2");
    free(got);
}

static void directory_refused(void **state)
{
    (void)state;
    char p[PATH_MAX];
    pm_err err;
    at(p, "dir");
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(pm_util_write_file_atomic(p, "x", 1, 0644, NULL, &err), PM_ERR_IO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(regular_file_replaced_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(device_node_written_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(fifo_without_reader_fails_not_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(fifo_with_reader_gets_the_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(symlink_written_through, setup, teardown),
        cmocka_unit_test_setup_teardown(directory_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
