#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static void grow_doubles_and_refuses_overflow(void **state)
{
    size_t *a = NULL, cap = 0;
    for (size_t n = 0; n < 100; n++) {
        size_t *v = pm_grow(a, &cap, n, sizeof *v, 16);
        assert_non_null(v);
        a = v;
        a[n] = n;
    }
    assert_int_equal(cap, 128);   /* 16, 32, 64, 128 */
    for (size_t n = 0; n < 100; n++)
        assert_int_equal(a[n], n);
    assert_ptr_equal(pm_grow(a, &cap, 100, sizeof *a, 16), a);   /* room left: unchanged */
    size_t huge = SIZE_MAX / 2 + 1;
    assert_null(pm_grow(a, &huge, huge, 1, 16));
    assert_true(huge == SIZE_MAX / 2 + 1);
    size_t c2 = 16;
    assert_null(pm_grow(a, &c2, 16, SIZE_MAX / 16, 16));   /* 32 elements of that size overflow */
    assert_int_equal(c2, 16);
    free(a);
}

static void first(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void first(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pm_util_vfirst(buf, cap, fmt, ap);
    va_end(ap);
}

/* pm_push appends a zeroed element and counts it; out of memory (here: an overflowing size) it changes nothing.
 * pm_free_strs frees a list and its strings (ASan would see a leak or a double free). */
static void push_appends_zeroed_and_free_strs_frees(void **state)
{
    struct pair {
        char *name;
        long v;
    } *a = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 40; i++) {
        struct pair *e = pm_push(&a, &cap, &n, sizeof *e, 4);
        assert_non_null(e);
        assert_null(e->name);
        assert_int_equal(e->v, 0);
        assert_ptr_equal(e, &a[i]);
        e->v = i;
    }
    assert_int_equal(n, 40);
    assert_int_equal(cap, 64);
    for (int i = 0; i < 40; i++)
        assert_int_equal(a[i].v, i);
    struct pair *kept = a;
    size_t full = 64, at = 64;
    assert_null(pm_push(&a, &full, &at, SIZE_MAX / 64, 4));
    assert_ptr_equal(a, kept);
    assert_int_equal(at, 64);
    free(a);
    char **v = calloc(3, sizeof *v);
    assert_non_null(v);
    v[0] = strdup("a");
    v[2] = strdup("c");
    pm_free_strs(v, 3);
    pm_free_strs(NULL, 0);
}

/* pm_resize zeroes what it adds and leaves the array alone when the size would overflow; pm_sbuf_take hands
 * over "" for an empty builder; pm_util_vfirst keeps the first message. */
static void resize_zeroes_and_sbuf_take_and_first_message(void **state)
{
    double *d = NULL;
    assert_int_equal(pm_resize(&d, 0, 4, sizeof *d), 0);
    for (int i = 0; i < 4; i++)
        assert_true(d[i] == 0);
    d[3] = 7;
    assert_int_equal(pm_resize(&d, 4, 100, sizeof *d), 0);
    assert_true(d[3] == 7 && d[4] == 0 && d[99] == 0);
    double *kept = d;
    assert_int_equal(pm_resize(&d, 100, SIZE_MAX / 4, sizeof *d), -1);
    assert_ptr_equal(d, kept);
    free(d);
    pm_sbuf b = {0};
    char *e = pm_sbuf_take(&b);
    assert_string_equal(e, "");
    free(e);
    pm_sbuf_add(&b, "%d", 42);
    e = pm_sbuf_take(&b);
    assert_string_equal(e, "42");
    free(e);
    char msg[16] = "";
    first(msg, sizeof msg, "one %d", 1);
    first(msg, sizeof msg, "two %d", 2);
    assert_string_equal(msg, "one 1");
    /* pm_util_list_has: whole items only, any separator, NULL list none */
    assert_true(pm_util_list_has("int8,fp16", ',', "fp16"));
    assert_false(pm_util_list_has("int8,fp16", ',', "fp1"));
    assert_true(pm_util_list_has("warm+reuse-strategy", '+', "warm"));
    assert_false(pm_util_list_has("warm+reuse-strategy", ',', "warm"));
    assert_false(pm_util_list_has(NULL, ',', "x"));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_text(const char *path, const char *want)
{
    char *got = NULL;
    size_t len;
    pm_err e = {0};
    assert_int_equal(pm_util_read_file(path, &got, &len, &e), PM_OK);
    assert_string_equal(got, want);
    free(got);
}

/* A file set aside goes back when the command did not write its path, and is dropped when it did; what is not a
 * regular file is never set aside; a folder where the file was leaves the copy, named. */
static void aside_set_and_end(void **state)
{
    char dir[] = "/tmp/pm-aside.XXXXXX", f[64], aside[128], prefix[96];
    assert_non_null(mkdtemp(dir));
    snprintf(f, sizeof f, "%s/f", dir);
    snprintf(prefix, sizeof prefix, "%s/.f.passmap-prev.%ld", dir, (long)getpid());
    write_text(f, "mine\n");
    int set = 0, restored = 0;
    pm_err e = {0};
    for (int writes = 0; writes < 2; writes++) {   /* not written: put back; written: the copy dropped */
        assert_int_equal(pm_util_aside_set(f, aside, sizeof aside, &set, &e), PM_OK);
        assert_true(set);
        /* the PID and its start time: .f.passmap-prev.PID.START */
        assert_int_equal(strncmp(aside, prefix, strlen(prefix)), 0);
        assert_true(aside[strlen(prefix)] == '.' && isdigit((unsigned char)aside[strlen(prefix) + 1]));
        assert_int_not_equal(access(f, F_OK), 0);
        expect_text(aside, "mine\n");
        if (writes)
            write_text(f, "new\n");
        assert_int_equal(pm_util_aside_end(aside, f, &restored, &e), PM_OK);
        assert_int_equal(restored, !writes);
        expect_text(f, writes ? "new\n" : "mine\n");
        assert_int_not_equal(access(aside, F_OK), 0);
    }

    assert_int_equal(pm_util_aside_set(f, aside, sizeof aside, &set, &e), PM_OK);
    assert_int_equal(mkdir(f, 0755), 0);
    assert_int_equal(pm_util_aside_end(aside, f, &restored, &e), PM_ERR_IO);
    assert_non_null(strstr(e.msg, aside));
    expect_text(aside, "new\n");
    assert_int_equal(rmdir(f), 0);
    assert_int_equal(unlink(aside), 0);

    assert_int_equal(symlink("target", f), 0);   /* a link: kept, its target must change */
    assert_int_equal(pm_util_aside_set(f, aside, sizeof aside, &set, &e), PM_OK);
    assert_false(set);
    assert_int_equal(unlink(f), 0);
    assert_int_equal(mkfifo(f, 0644), 0);
    assert_int_equal(pm_util_aside_set(f, aside, sizeof aside, &set, &e), PM_OK);
    assert_false(set);
    assert_int_equal(unlink(f), 0);
    assert_int_equal(pm_util_aside_set(f, aside, sizeof aside, &set, &e), PM_OK);   /* nothing there */
    assert_false(set);
    pm_util_remove_tree(dir);
}

/* A process's start time, clock ticks after boot (/proc/PID/stat field 22). */
static unsigned long long start_of(pid_t pid)
{
    char p[64], buf[1024] = "";
    snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *s = strrchr(buf, ')');
    for (int field = 2; s && *s; s++)
        if (*s == ' ' && ++field == 22)
            return strtoull(s + 1, NULL, 10);
    return 0;
}

/* Copies a killed process left: one goes back when nothing is at the path, another is named and left; a live
 * process's copy and names of other files are not touched. */
static void aside_recover_puts_back_or_names(void **state)
{
    char dir[] = "/tmp/pm-aside.XXXXXX", g[64], dead1[128], dead2[128], live[128], other[128], junk[128];
    char left[256], why[256];
    assert_non_null(mkdtemp(dir));
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    snprintf(g, sizeof g, "%s/g", dir);
    snprintf(dead1, sizeof dead1, "%s/.g.passmap-prev.%ld", dir, (long)dead);
    snprintf(dead2, sizeof dead2, "%s/.g.passmap-prev.%ld-2", dir, (long)dead);
    snprintf(live, sizeof live, "%s/.g.passmap-prev.%ld", dir, (long)getppid());
    snprintf(other, sizeof other, "%s/.gg.passmap-prev.%ld", dir, (long)dead);
    snprintf(junk, sizeof junk, "%s/.g.passmap-prev.12x", dir);
    int restored = 1;
    pm_err e = {0};
    write_text(live, "live\n");
    write_text(other, "other\n");
    write_text(junk, "junk\n");
    assert_int_equal(pm_util_aside_recover(g, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_false(restored);
    assert_string_equal(left, "");
    assert_int_not_equal(access(g, F_OK), 0);

    write_text(dead1, "one\n");
    write_text(dead2, "two\n");
    assert_int_equal(pm_util_aside_recover(g, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_true(restored);
    assert_true(!strcmp(left, dead1) || !strcmp(left, dead2));
    expect_text(g, access(dead1, F_OK) ? "one\n" : "two\n");
    expect_text(left, access(dead1, F_OK) ? "two\n" : "one\n");
    expect_text(live, "live\n");
    expect_text(other, "other\n");
    expect_text(junk, "junk\n");
    assert_string_equal(why, "the output is there");

    /* the output path is a folder now: the copy stays, named with why */
    unlink(g);
    assert_int_equal(mkdir(g, 0755), 0);
    assert_int_equal(pm_util_aside_recover(g, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_false(restored);
    assert_string_equal(why, "the output path is a folder now");
    rmdir(g);

    /* a live PID reused (issue 34.17): the name's start time is not its process's, so the copy is abandoned and
     * goes back; the same PID with its process's own start time is a live owner's copy, left alone */
    char reused[128], owned[128];
    unsigned long long start = start_of(getppid());
    assert_true(start > 1);
    snprintf(reused, sizeof reused, "%s/.g.passmap-prev.%ld.1", dir, (long)getppid());
    snprintf(owned, sizeof owned, "%s/.g.passmap-prev.%ld.%llu-1", dir, (long)getppid(), start);
    pm_util_remove_tree(dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    write_text(reused, "reused\n");
    write_text(owned, "owned\n");
    assert_int_equal(pm_util_aside_recover(g, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_true(restored);
    expect_text(g, "reused\n");
    assert_int_not_equal(access(reused, F_OK), 0);
    expect_text(owned, "owned\n");
    assert_string_equal(left, "");
    /* reused again while the output is there: named, with why */
    write_text(reused, "again\n");
    assert_int_equal(pm_util_aside_recover(g, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_false(restored);
    assert_string_equal(left, reused);
    assert_string_equal(why, "the output is there");

    char missing[96];
    snprintf(missing, sizeof missing, "%s/no/such/h", dir);
    assert_int_equal(pm_util_aside_recover(missing, &restored, left, sizeof left, why, sizeof why, &e), PM_OK);
    assert_false(restored);
    pm_util_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_file_round_trips_sizes_around_the_buffer),
        cmocka_unit_test(read_file_missing_is_an_io_error),
        cmocka_unit_test(closest_suggests_near_words_only),
        cmocka_unit_test(mkdir_p_makes_parents_and_accepts_existing),
        cmocka_unit_test(grow_doubles_and_refuses_overflow),
        cmocka_unit_test(push_appends_zeroed_and_free_strs_frees),
        cmocka_unit_test(resize_zeroes_and_sbuf_take_and_first_message),
        cmocka_unit_test(aside_set_and_end),
        cmocka_unit_test(aside_recover_puts_back_or_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
