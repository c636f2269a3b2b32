#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "slurp.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"

typedef struct fixture {
    char root[PATH_MAX];
    char old_cwd[PATH_MAX];
    pm_cache *c;
} fixture;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    snprintf(fx->root, sizeof fx->root, "%s/pm-cache-unit.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(fx->root) || !getcwd(fx->old_cwd, sizeof fx->old_cwd) || chdir(fx->root))
        return -1;
    pm_err err;
    if (pm_cache_open("cache", 0, &fx->c, &err))
        return -1;
    unsetenv("PM_T_ENV");
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    pm_cache_close(fx->c);
    if (chdir(fx->old_cwd))
        return -1;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->root);
    int rc = system(cmd);
    free(fx);
    return rc;
}

static void key_of(pm_cache *c, char *const *argv, const char *const *in, const char *const *out,
                   const char *const *env, char key[33])
{
    pm_cache_request req = {argv, in, out, env, NULL};
    pm_err err;
    int rc = pm_cache_key(c, &req, key, &err);
    if (rc)
        fail_msg("pm_cache_key: %s", err.msg);
}

static void fields_cannot_run_together(void **state)
{
    fixture *fx = *state;
    char k1[33], k2[33], k3[33];
    char *a1[] = {"/bin/echo", "ab", "c", NULL};
    char *a2[] = {"/bin/echo", "a", "bc", NULL};
    char *a3[] = {"/bin/echo", "abc", NULL};
    key_of(fx->c, a1, NULL, NULL, NULL, k1);
    key_of(fx->c, a2, NULL, NULL, NULL, k2);
    key_of(fx->c, a3, NULL, NULL, NULL, k3);
    assert_string_not_equal(k1, k2);
    assert_string_not_equal(k1, k3);
    assert_string_not_equal(k2, k3);
    assert_int_equal(strlen(k1), 32);
}

static void key_stable_and_sensitive(void **state)
{
    fixture *fx = *state;
    char base[33], again[33], k[33];
    write_text("in.txt", "hello\n");
    write_text("dep.txt", "dep\n");
    char *argv[] = {"/bin/sh", "-c", "cat in.txt dep.txt > out.bin", "x", "dep.txt", NULL};
    const char *in[] = {"in.txt", NULL};
    const char *out[] = {"out.bin", NULL};
    const char *env[] = {"PM_T_ENV", NULL};
    key_of(fx->c, argv, in, out, env, base);
    key_of(fx->c, argv, in, out, env, again);
    assert_string_equal(base, again);

    /* the same paths written differently normalise to the same placeholders */
    char abs_in[PATH_MAX + 16];
    snprintf(abs_in, sizeof abs_in, "%s/in.txt", fx->root);
    const char *in_abs[] = {abs_in, NULL};
    char *argv_dot[] = {"/bin/sh", "-c", "cat in.txt dep.txt > out.bin", "x", "./dep.txt", NULL};
    key_of(fx->c, argv_dot, in_abs, out, env, k);
    assert_string_equal(base, k);

    /* argv */
    char *argv2[] = {"/bin/sh", "-c", "cat in.txt dep.txt >  out.bin", "x", "dep.txt", NULL};
    key_of(fx->c, argv2, in, out, env, k);
    assert_string_not_equal(base, k);
    /* declared input content */
    write_text("in.txt", "hellO\n");
    key_of(fx->c, argv, in, out, env, k);
    assert_string_not_equal(base, k);
    write_text("in.txt", "hello\n");
    key_of(fx->c, argv, in, out, env, k);
    assert_string_equal(base, k);
    /* an input found in argv (an existing regular file) */
    write_text("dep.txt", "dep2\n");
    key_of(fx->c, argv, in, out, env, k);
    assert_string_not_equal(base, k);
    write_text("dep.txt", "dep\n");
    /* env: unset, empty and a value all differ */
    setenv("PM_T_ENV", "", 1);
    key_of(fx->c, argv, in, out, env, k);
    assert_string_not_equal(base, k);
    char k_empty[33];
    memcpy(k_empty, k, 33);
    setenv("PM_T_ENV", "1", 1);
    key_of(fx->c, argv, in, out, env, k);
    assert_string_not_equal(base, k);
    assert_string_not_equal(k_empty, k);
    unsetenv("PM_T_ENV");
    key_of(fx->c, argv, in, out, env, k);
    assert_string_equal(base, k);
    /* number of outputs */
    const char *out2[] = {"out.bin", "other.bin", NULL};
    key_of(fx->c, argv, in, out2, env, k);
    assert_string_not_equal(base, k);

    /* compiler identity: a copy of the same binary has the same key, a changed one not */
    char tool[PATH_MAX + 16];
    snprintf(tool, sizeof tool, "%s/tool", fx->root);
    assert_int_equal(system("cp /bin/sh tool"), 0);
    char *argv_tool[] = {tool, "-c", "cat in.txt dep.txt > out.bin", "x", "dep.txt", NULL};
    char kt1[33], kt2[33];
    key_of(fx->c, argv_tool, in, out, env, kt1);
    assert_string_equal(base, kt1);
    assert_int_equal(system("printf x >> tool"), 0);
    key_of(fx->c, argv_tool, in, out, env, kt2);
    assert_string_not_equal(kt1, kt2);
}

static pm_cache_result run_req(pm_cache *c, char *const *argv, const char *const *in, const char *const *out)
{
    pm_cache_request req = {argv, in, out, NULL, NULL};
    pm_cache_result res;
    pm_err err;
    if (pm_cache_exec(c, &req, &res, &err))
        fail_msg("pm_cache_exec: %s", err.msg);
    return res;
}

static char *const produce_argv[] = {"/bin/sh", "-c", "printf out; printf err >&2; cat in.txt in.txt > out.bin",
                                     NULL};

static void round_trip_hit_and_miss(void **state)
{
    fixture *fx = *state;
    write_text("in.txt", "payload\n");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.bin", NULL};
    pm_cache_result r = run_req(fx->c, produce_argv, in, out);
    assert_false(r.hit);
    assert_true(r.stored);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, 3);
    assert_memory_equal(r.out, "out", 3);
    pm_cache_result_free(&r);
    unlink("out.bin");

    r = run_req(fx->c, produce_argv, in, out);
    assert_true(r.hit);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, 3);
    assert_memory_equal(r.out, "out", 3);
    assert_int_equal(r.err_len, 3);
    assert_memory_equal(r.err, "err", 3);
    /* where the hit's time went: every phase measured, together the call's wall */
    assert_true(r.key_s > 0 && r.lookup_s > 0 && r.restore_s > 0 && r.book_s > 0);
    assert_true(fabs(r.key_s + r.lookup_s + r.restore_s + r.book_s - r.wall_s) < 1e-9);
    pm_cache_result_free(&r);
    size_t len;
    char *restored = slurp("out.bin", &len);
    assert_non_null(restored);
    assert_string_equal(restored, "payload\npayload\n");
    free(restored);

    /* a failing command is never stored */
    char *const failing[] = {"/bin/sh", "-c", "echo no >&2; exit 3", NULL};
    const char *fail_out[] = {"fail.bin", NULL};
    for (int i = 0; i < 2; i++) {
        r = run_req(fx->c, failing, NULL, fail_out);
        assert_false(r.hit);
        assert_false(r.stored);
        assert_int_equal(r.exit_code, 3);
        assert_memory_equal(r.err, "no\n", 3);
        pm_cache_result_free(&r);
    }
    pm_cache_stats st;
    pm_err err;
    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.stores, 1);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.corrupt, 0);
    struct stat sb;
    char path[PATH_MAX];
    char key[33];
    key_of(fx->c, produce_argv, in, out, NULL, key);
    assert_int_equal(pm_cache_entry_path(fx->c, key, path, sizeof path), 0);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(st.bytes, (uint64_t)sb.st_size);
}

/* Stores one entry, damages it with `damage`, and checks the next exec reruns, counts and rewrites. */
static void damaged_entry_is_a_miss(fixture *fx, void (*damage)(const char *path))
{
    write_text("in.txt", "payload\n");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.bin", NULL};
    pm_cache_result r = run_req(fx->c, produce_argv, in, out);
    assert_true(r.stored);
    char path[PATH_MAX];
    assert_int_equal(pm_cache_entry_path(fx->c, r.key, path, sizeof path), 0);
    pm_cache_result_free(&r);
    damage(path);
    uint64_t ok, bad;
    pm_err err;
    assert_int_equal(pm_cache_verify(fx->c, &ok, &bad, &err), PM_OK);
    assert_int_equal(ok, 0);
    assert_int_equal(bad, 1);

    write_text("out.bin", "stale");
    r = run_req(fx->c, produce_argv, in, out);
    assert_false(r.hit);
    assert_true(r.corrupt);
    assert_true(r.stored);
    pm_cache_result_free(&r);
    size_t len;
    char *content = slurp("out.bin", &len);
    assert_string_equal(content, "payload\npayload\n"); /* produced by the rerun, not restored garbage */
    free(content);

    pm_cache_stats st;
    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    assert_int_equal(st.corrupt, 1);
    assert_int_equal(st.misses, 2);
    assert_int_equal(st.hits, 0);
    assert_int_equal(st.entries, 1);
    assert_int_equal(pm_cache_verify(fx->c, &ok, &bad, &err), PM_OK);
    assert_int_equal(ok, 1);
    assert_int_equal(bad, 0);
    /* the counted bytes are the entry's size, whatever the damage did to the dropped one's */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(st.bytes, (uint64_t)sb.st_size);
    r = run_req(fx->c, produce_argv, in, out);
    assert_true(r.hit);
    pm_cache_result_free(&r);
}

static void flip_byte(const char *path)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    struct stat st;
    fstat(fd, &st);
    off_t at = 64 + (st.st_size - 64) / 2;
    unsigned char b;
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
}

static void truncate_half(const char *path)
{
    struct stat st;
    stat(path, &st);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
}

static void truncate_header(const char *path) { assert_int_equal(truncate(path, 10), 0); }

static void corrupt_entry(void **state) { damaged_entry_is_a_miss(*state, flip_byte); }
static void truncated_entry(void **state) { damaged_entry_is_a_miss(*state, truncate_half); }
static void truncated_header(void **state) { damaged_entry_is_a_miss(*state, truncate_header); }

static void eviction_is_lru(void **state)
{
    fixture *fx = *state;
    pm_err err;
    const char *out[] = {"o.bin", NULL};
    /* three commands whose entries have the same size: one distinct digit each */
    char *const a[] = {"/bin/sh", "-c", "echo 1 > o.bin", NULL};
    char *const b[] = {"/bin/sh", "-c", "echo 2 > o.bin", NULL};
    char *const c3[] = {"/bin/sh", "-c", "echo 3 > o.bin", NULL};
    pm_cache_result r = run_req(fx->c, a, NULL, out);
    char ka[33];
    memcpy(ka, r.key, 33);
    pm_cache_result_free(&r);
    pm_cache_stats st;
    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    uint64_t one = st.bytes;
    assert_true(one > 64);
    pm_cache_close(fx->c);
    assert_int_equal(pm_cache_open("cache", one * 2 + one / 2, &fx->c, &err), PM_OK);

    r = run_req(fx->c, b, NULL, out);
    char kb[33];
    memcpy(kb, r.key, 33);
    pm_cache_result_free(&r);
    r = run_req(fx->c, a, NULL, out); /* a becomes more recently used than b */
    assert_true(r.hit);
    pm_cache_result_free(&r);
    r = run_req(fx->c, c3, NULL, out);
    char kc[33];
    memcpy(kc, r.key, 33);
    pm_cache_result_free(&r);

    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    assert_int_equal(st.evicted, 1);
    assert_int_equal(st.entries, 2);
    assert_int_equal(st.bytes, 2 * one);
    char path[PATH_MAX];
    pm_cache_entry_path(fx->c, kb, path, sizeof path);
    assert_int_not_equal(access(path, F_OK), 0);
    pm_cache_entry_path(fx->c, ka, path, sizeof path);
    assert_int_equal(access(path, F_OK), 0);
    pm_cache_entry_path(fx->c, kc, path, sizeof path);
    assert_int_equal(access(path, F_OK), 0);
    r = run_req(fx->c, b, NULL, out);
    assert_false(r.hit);
    pm_cache_result_free(&r);
}

static int has_change(const pm_cache_explain *ex, const char *text)
{
    for (size_t i = 0; i < ex->n_changes; i++)
        if (!strcmp(ex->changes[i], text))
            return 1;
    return 0;
}

static void explain_components(void **state)
{
    fixture *fx = *state;
    pm_err err;
    pm_cache_explain ex;
    write_text("in.txt", "v1\n");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.bin", NULL}, *env[] = {"PM_T_ENV", NULL};
    char *argv[] = {"/bin/sh", "-c", "cat in.txt > out.bin", NULL};
    pm_cache_request req = {argv, in, out, env, NULL};

    assert_int_equal(pm_cache_explain_request(fx->c, &req, &ex, &err), PM_OK);
    assert_false(ex.have_previous);
    assert_false(ex.would_hit);
    pm_cache_explain_free(&ex);

    pm_cache_result r;
    assert_int_equal(pm_cache_exec(fx->c, &req, &r, &err), PM_OK);
    pm_cache_result_free(&r);
    assert_int_equal(pm_cache_explain_request(fx->c, &req, &ex, &err), PM_OK);
    assert_true(ex.have_previous);
    assert_true(ex.would_hit);
    assert_int_equal(ex.n_changes, 0);
    assert_string_equal(ex.key, ex.previous_key);
    pm_cache_explain_free(&ex);

    write_text("in.txt", "v2\n");
    setenv("PM_T_ENV", "changed", 1);
    char *argv2[] = {"/bin/sh", "-c", "cat in.txt  > out.bin", NULL};
    pm_cache_request req2 = {argv2, in, out, env, NULL};
    assert_int_equal(pm_cache_explain_request(fx->c, &req2, &ex, &err), PM_OK);
    assert_true(ex.have_previous);
    assert_false(ex.would_hit);
    assert_int_equal(ex.n_changes, 3);
    assert_true(has_change(&ex, "input 0 (in.txt) content changed"));
    assert_true(has_change(&ex, "env PM_T_ENV changed"));
    assert_true(has_change(&ex, "argv changed"));
    pm_cache_explain_free(&ex);

    /* only the input */
    unsetenv("PM_T_ENV");
    assert_int_equal(pm_cache_explain_request(fx->c, &req, &ex, &err), PM_OK);
    assert_int_equal(ex.n_changes, 1);
    assert_string_equal(ex.changes[0], "input 0 (in.txt) content changed");
    pm_cache_explain_free(&ex);

    /* after clear: same key, no entry */
    write_text("in.txt", "v1\n");
    assert_int_equal(pm_cache_clear(fx->c, &err), PM_OK);
    assert_int_equal(pm_cache_explain_request(fx->c, &req, &ex, &err), PM_OK);
    assert_false(ex.have_previous);
    assert_false(ex.would_hit);
    pm_cache_explain_free(&ex);
    pm_cache_stats st;
    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    assert_int_equal(st.entries + st.hits + st.misses + st.bytes, 0);
}


/* The key is computed before the run: an input changed during it must not store the new content's
 * output under the old content's key. */
static void input_changed_during_run_is_not_stored(void **state)
{
    fixture *fx = *state;
    write_text("in.txt", "old\n");
    write_text("flip", "");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.txt", NULL};
    char *const argv[] = {"/bin/sh", "-c", "[ -e flip ] && echo new > in.txt; cat in.txt > out.txt", NULL};
    pm_cache_result r = run_req(fx->c, argv, in, out);
    assert_false(r.stored);
    assert_non_null(strstr(r.warning, "in.txt changed during the run"));
    pm_cache_result_free(&r);
    unlink("flip");
    write_text("in.txt", "old\n");
    r = run_req(fx->c, argv, in, out);
    assert_false(r.hit);
    assert_true(r.stored);
    pm_cache_result_free(&r);
    size_t len;
    char *got = slurp("out.txt", &len);
    assert_string_equal(got, "old\n");
    free(got);
}

/* How many entries of dir are copies a miss set aside (".NAME.passmap-prev.PID.START"). */
static int n_aside(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".passmap-prev.") != NULL;
    closedir(d);
    return n;
}

static void expect_text(const char *path, const char *want)
{
    size_t len;
    char *got = slurp(path, &len);
    assert_string_equal(got, want);
    free(got);
}

/* exit 0 without writing the declared output: the previous file must not be cached (and is left as it was) */
static void stale_output_is_not_stored(void **state)
{
    fixture *fx = *state;
    write_text("o.txt", "stale\n");
    const char *out[] = {"o.txt", NULL};
    char *const argv[] = {"/bin/true", NULL};
    pm_cache_result r = run_req(fx->c, argv, NULL, out);
    assert_false(r.stored);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.warning, "did not write o.txt"));
    pm_cache_result_free(&r);
    r = run_req(fx->c, argv, NULL, out);
    assert_false(r.hit);
    assert_false(r.stored);
    pm_cache_result_free(&r);
    expect_text("o.txt", "stale\n");
}

/* A declared output may be the user's own file (outside any run folder): a miss whose command fails or does not
 * write it leaves it exactly as it was (content, inode, mtime); a command that writes it replaces it; no copy is
 * ever left behind; a hit writes the stored output as before. */
static void user_output_survives_a_miss(void **state)
{
    fixture *fx = *state;
    assert_int_equal(mkdir("user", 0755), 0);
    write_text("user/o.txt", "mine\n");
    struct stat before, after;
    assert_int_equal(stat("user/o.txt", &before), 0);
    const char *out[] = {"user/o.txt", NULL};

    char *const failing[] = {"/bin/sh", "-c", "echo no >&2; exit 3", NULL};
    pm_cache_result r = run_req(fx->c, failing, NULL, out);
    assert_int_equal(r.exit_code, 3);
    assert_false(r.stored);
    pm_cache_result_free(&r);
    expect_text("user/o.txt", "mine\n");
    assert_int_equal(stat("user/o.txt", &after), 0);
    assert_true(after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
                after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    assert_int_equal(n_aside("user"), 0);

    char *const idle[] = {"/bin/sh", "-c", "echo idle", NULL};
    r = run_req(fx->c, idle, NULL, out);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.stored);
    assert_non_null(strstr(r.warning, "did not write user/o.txt"));
    pm_cache_result_free(&r);
    expect_text("user/o.txt", "mine\n");
    assert_int_equal(n_aside("user"), 0);

    /* what the command wrote stands, even when it then failed (it would have without passmap) */
    char *const writes_fails[] = {"/bin/sh", "-c", "echo partial > user/o.txt; exit 1", NULL};
    r = run_req(fx->c, writes_fails, NULL, out);
    assert_int_equal(r.exit_code, 1);
    pm_cache_result_free(&r);
    expect_text("user/o.txt", "partial\n");
    assert_int_equal(n_aside("user"), 0);

    char *const writes[] = {"/bin/sh", "-c", "echo new > user/o.txt", NULL};
    r = run_req(fx->c, writes, NULL, out);
    assert_true(r.stored);
    assert_string_equal(r.warning, "");
    pm_cache_result_free(&r);
    expect_text("user/o.txt", "new\n");
    assert_int_equal(n_aside("user"), 0);

    write_text("user/o.txt", "mine again\n");
    r = run_req(fx->c, writes, NULL, out);
    assert_true(r.hit);
    pm_cache_result_free(&r);
    expect_text("user/o.txt", "new\n");
    assert_int_equal(n_aside("user"), 0);
}

/* passmap killed between setting an output aside and putting it back: the next miss of that output puts the
 * copy back when nothing is at the output's path, and names it (leaving it) when something is. */
static void interrupted_copy_is_put_back(void **state)
{
    fixture *fx = *state;
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    char aside[64];
    snprintf(aside, sizeof aside, ".o.txt.passmap-prev.%ld", (long)dead);
    write_text(aside, "mine\n");
    const char *out[] = {"o.txt", NULL};
    char *const idle[] = {"/bin/true", NULL};
    pm_cache_result r = run_req(fx->c, idle, NULL, out);
    assert_false(r.stored);
    pm_cache_result_free(&r);
    expect_text("o.txt", "mine\n");
    assert_int_equal(n_aside("."), 0);

    write_text(aside, "older\n");
    char *const writes[] = {"/bin/sh", "-c", "echo new > o.txt", NULL};
    r = run_req(fx->c, writes, NULL, out);
    assert_true(r.stored);
    assert_non_null(strstr(r.warning, aside));
    pm_cache_result_free(&r);
    expect_text("o.txt", "new\n");
    expect_text(aside, "older\n");
}

/* nothing declared or inferred: CMD runs uncached with a warning and its own status */
static void no_output_runs_uncached(void **state)
{
    fixture *fx = *state;
    char *const argv[] = {"/bin/sh", "-c", "echo hi; exit 4", NULL};
    for (int i = 0; i < 2; i++) {
        pm_cache_result r = run_req(fx->c, argv, NULL, NULL);
        assert_true(r.uncached);
        assert_false(r.hit);
        assert_int_equal(r.exit_code, 4);
        assert_memory_equal(r.out, "hi\n", 3);
        assert_non_null(strstr(r.warning, "no output"));
        pm_cache_result_free(&r);
    }
    pm_cache_stats st;
    pm_err err;
    assert_int_equal(pm_cache_stats_get(fx->c, &st, &err), PM_OK);
    assert_int_equal(st.stores + st.entries + st.hits, 0);
    /* no cache at all: the same */
    pm_cache_result r;
    pm_cache_request req = {argv, NULL, NULL, NULL, NULL};
    assert_int_equal(pm_cache_exec(NULL, &req, &r, &err), PM_OK);
    assert_true(r.uncached);
    assert_int_equal(r.exit_code, 4);
    pm_cache_result_free(&r);
}

/* outputs passmap infers: gcc -o F is stored without --output, and the old F is not an input */
static void gcc_output_is_inferred(void **state)
{
    fixture *fx = *state;
    write_text("x.c", "int x(void) { return 7; }\n");
    write_text("x.o", "junk");
    char *const argv[] = {"gcc", "-c", "x.c", "-o", "x.o", NULL};
    char k1[33], k2[33];
    key_of(fx->c, argv, NULL, NULL, NULL, k1);
    write_text("x.o", "other junk");
    key_of(fx->c, argv, NULL, NULL, NULL, k2);
    assert_string_equal(k1, k2);
    pm_cache_result r = run_req(fx->c, argv, NULL, NULL);
    assert_true(r.stored);
    assert_false(r.uncached);
    pm_cache_result_free(&r);
    unlink("x.o");
    r = run_req(fx->c, argv, NULL, NULL);
    assert_true(r.hit);
    pm_cache_result_free(&r);
    assert_int_equal(access("x.o", F_OK), 0);
    /* a link step is not cached */
    char *const link[] = {"gcc", "x.c", "-o", "x", NULL};
    r = run_req(fx->c, link, NULL, NULL);
    assert_true(r.uncached);
    pm_cache_result_free(&r);
}

/* a directory where an entry belongs: the run still works, stores, and clear removes any junk */
static void entry_replaced_by_directory(void **state)
{
    fixture *fx = *state;
    write_text("in.txt", "payload\n");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.bin", NULL};
    char key[33], path[PATH_MAX], sub[PATH_MAX + 8];
    key_of(fx->c, produce_argv, in, out, NULL, key);
    pm_cache_entry_path(fx->c, key, path, sizeof path);
    snprintf(sub, sizeof sub, "%.*s", (int)(strrchr(path, '/') - path), path);
    assert_int_equal(mkdir(sub, 0777), 0);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(sub, sizeof sub, "%s/f", path);
    write_text(sub, "junk");
    pm_cache_result r = run_req(fx->c, produce_argv, in, out);
    assert_false(r.hit);
    assert_true(r.stored);
    assert_int_equal(r.exit_code, 0);
    pm_cache_result_free(&r);
    r = run_req(fx->c, produce_argv, in, out);
    assert_true(r.hit);
    pm_cache_result_free(&r);
    assert_int_equal(mkdir("cache/ab", 0777), 0);
    assert_int_equal(mkdir("cache/ab/cd.entry", 0777), 0);
    pm_err err;
    assert_int_equal(pm_cache_clear(fx->c, &err), PM_OK);
    assert_int_not_equal(access("cache/ab", F_OK), 0);
    assert_int_not_equal(access(path, F_OK), 0);
}

/* the entry reader on garbage and on a real entry (the fuzz harness calls it) */
static void entry_check_api(void **state)
{
    fixture *fx = *state;
    pm_err err;
    assert_int_equal(pm_cache_entry_check("", 0, &err), PM_ERR_CORRUPT);
    char junk[200];
    memset(junk, 'A', sizeof junk);
    memcpy(junk, "PMCACHE", 8);
    assert_int_equal(pm_cache_entry_check(junk, sizeof junk, &err), PM_ERR_CORRUPT);
    write_text("in.txt", "payload\n");
    const char *in[] = {"in.txt", NULL}, *out[] = {"out.bin", NULL};
    pm_cache_result r = run_req(fx->c, produce_argv, in, out);
    char path[PATH_MAX];
    pm_cache_entry_path(fx->c, r.key, path, sizeof path);
    pm_cache_result_free(&r);
    size_t len;
    char *data = slurp(path, &len);
    assert_int_equal(pm_cache_entry_check(data, len, &err), PM_OK);
    assert_int_equal(pm_cache_entry_check(data, len - 1, &err), PM_ERR_CORRUPT);
    free(data);
}

/* OpenVINO IR: the .bin beside the .xml is an input; --export F is an inferred output */
static void ov_compile_weights_and_blob(void **state)
{
    fixture *fx = *state;
    write_text("m.xml", "<net/>\n");
    write_text("m.bin", "weights-1");
    /* a stand-in ov-compile: writes the blob from the model and weights */
    write_text("ov-compile", "#!/bin/sh\ncat m.xml m.bin > \"$4\"\n");
    assert_int_equal(chmod("ov-compile", 0755), 0);
    char tool[PATH_MAX + 16];
    snprintf(tool, sizeof tool, "%s/ov-compile", fx->root);
    char *const export_argv[] = {tool, "--model", "m.xml", "--export", "b.blob", NULL};
    char k1[33], k2[33];
    key_of(fx->c, export_argv, NULL, NULL, NULL, k1);
    write_text("m.bin", "weights-2");
    key_of(fx->c, export_argv, NULL, NULL, NULL, k2);
    assert_string_not_equal(k1, k2);
    /* the stand-in writes its 4th argument: the --export path */
    pm_cache_result r = run_req(fx->c, export_argv, NULL, NULL);
    assert_false(r.uncached);
    assert_true(r.stored);
    pm_cache_result_free(&r);
    unlink("b.blob");
    r = run_req(fx->c, export_argv, NULL, NULL);
    assert_true(r.hit);
    pm_cache_result_free(&r);
    size_t len;
    char *blob = slurp("b.blob", &len);
    assert_string_equal(blob, "<net/>\nweights-2");
    free(blob);
    /* without --export or --import there is no blob: uncached */
    char *const no_export[] = {tool, "--model", "m.xml", NULL};
    r = run_req(fx->c, no_export, NULL, NULL);
    assert_true(r.uncached);
    pm_cache_result_free(&r);
}

static void missing_compiler_is_an_error(void **state)
{
    fixture *fx = *state;
    char *argv[] = {"pm-no-such-compiler-xyz", NULL};
    pm_cache_request req = {argv, NULL, NULL, NULL, NULL};
    pm_cache_result r;
    pm_err err;
    assert_int_equal(pm_cache_exec(fx->c, &req, &r, &err), PM_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "pm-no-such-compiler-xyz"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fields_cannot_run_together, setup, teardown),
        cmocka_unit_test_setup_teardown(key_stable_and_sensitive, setup, teardown),
        cmocka_unit_test_setup_teardown(round_trip_hit_and_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_header, setup, teardown),
        cmocka_unit_test_setup_teardown(eviction_is_lru, setup, teardown),
        cmocka_unit_test_setup_teardown(explain_components, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_compiler_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(input_changed_during_run_is_not_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(stale_output_is_not_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(user_output_survives_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(interrupted_copy_is_put_back, setup, teardown),
        cmocka_unit_test_setup_teardown(no_output_runs_uncached, setup, teardown),
        cmocka_unit_test_setup_teardown(gcc_output_is_inferred, setup, teardown),
        cmocka_unit_test_setup_teardown(entry_replaced_by_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(entry_check_api, setup, teardown),
        cmocka_unit_test_setup_teardown(ov_compile_weights_and_blob, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
