/* pm_embedded_check: the driver follows @forward's signature (expanded memref descriptors, one fill rule per
 * element type); the result comparison tells bit-exact, within tolerance and different apart; the program run is
 * recorded and bounded by fix's deadline. The driver
 * itself runs against the real compiler in tests/e2e/test_fix.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embedded_check.h"
#include "util.h"

static char dir[512];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "%s/pm-check.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    pm_util_remove_tree(dir);
    return 0;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static char *slurp_text(const char *path)
{
    char *buf;
    size_t len;
    pm_err e = {0};
    assert_int_equal(pm_util_read_file(path, &buf, &len, &e), PM_OK);
    return buf;
}

static void driver_follows_the_signature(void **state)
{
    char in[600], c[600];
    snprintf(in, sizeof in, "%s/in.mlir", dir);
    snprintf(c, sizeof c, "%s/drv.c", dir);
    const char *mlir = "module {\n  func.func private @layer_0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n  }\n"
                       "  func.func @forward(%x: tensor<4x8xf32>, %w: tensor<2x8x16xi4>, %s: tensor<16xf16>) -> "
                       "tensor<4x8xf32> {\n    return %x : tensor<4x8xf32>\n  }\n}\n";
    write_file(in, mlir, strlen(mlir));
    pm_err e = {0};
    assert_int_equal(pm_embedded_check_driver(in, c, &e), PM_OK);
    char *src = slurp_text(c);
    /* rank 2 f32: 2 pointers, offset, 2 sizes, 2 strides; rank 3 i4: 3 + 6; rank 1 f16: 3 + 2 */
    assert_non_null(strstr(src, "extern result_t forward(\n    void *, void *, int64_t, int64_t, int64_t, int64_t, "
                                "int64_t,\n    void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, "
                                "int64_t,\n    void *, void *, int64_t, int64_t, int64_t);"));
    assert_non_null(strstr(src, "void *a0 = buf(32u, 4, 0);"));     /* 4x8 f32 */
    assert_non_null(strstr(src, "void *a1 = buf(256u, 1, 4);"));    /* 2x8x16 i4, one per byte */
    assert_non_null(strstr(src, "void *a2 = buf(16u, 2, 1);"));     /* f16 */
    /* row-major strides of 2x8x16: 128, 16, 1 */
    assert_non_null(strstr(src, "a1, a1, 0, 2, 8, 16, 128, 16, 1"));
    assert_non_null(strstr(src, "void memrefCopy("));
    /* forward's own run time, for passmap fix's ledger: a monotonic clock around the call, printed on stdout */
    assert_non_null(strstr(src, "clock_gettime(CLOCK_MONOTONIC, &t0);\n    result_t r = forward("));
    assert_non_null(strstr(src, ");\n    clock_gettime(CLOCK_MONOTONIC, &t1);\n"));
    assert_non_null(strstr(src, "printf(\"forward_s %.9f\\n\""));
    free(src);

    /* No @forward, an unfillable element type, a non-f32 result: clear errors. */
    const char *bad[] = {"module {\n}\n",
                         "func.func @forward(%x: tensor<4xi32>) -> tensor<4xf32> {\n",
                         "func.func @forward(%x: tensor<4xf32>) -> tensor<4xi8> {\n",
                         "func.func @forward(%x: memref<4xf32>) -> tensor<4xf32> {\n"};
    const char *why[] = {"no func.func @forward", "i32 has no fill rule", "compares f32 results", "not a ranked tensor"};
    for (int i = 0; i < 4; i++) {
        write_file(in, bad[i], strlen(bad[i]));
        assert_int_not_equal(pm_embedded_check_driver(in, c, &e), PM_OK);
        if (!strstr(e.msg, why[i]))
            fail_msg("case %d: '%s' lacks '%s'", i, e.msg, why[i]);
    }
}

static void comparison_tells_exact_close_and_different(void **state)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/a.bin", dir);
    snprintf(b, sizeof b, "%s/b.bin", dir);
    float ref[4] = {1.0f, -2.5f, 1e-3f, 100.0f}, v[4];
    write_file(a, ref, sizeof ref);
    pm_check_cmp m;
    pm_err e = {0};

    write_file(b, ref, sizeof ref);
    assert_int_equal(pm_embedded_check_compare(a, b, &m, &e), PM_OK);
    assert_int_equal(m.n, 4);
    assert_true(m.bit_exact && m.within);
    assert_int_equal(m.n_differ, 0);

    memcpy(v, ref, sizeof v);
    v[3] = nextafterf(100.0f, 200.0f);   /* one ulp at 100: relative 7.6e-8, within 1e-5 */
    write_file(b, v, sizeof v);
    assert_int_equal(pm_embedded_check_compare(a, b, &m, &e), PM_OK);
    assert_false(m.bit_exact);
    assert_true(m.within);
    assert_int_equal(m.n_differ, 1);

    v[1] = -2.4f;                        /* a real difference */
    write_file(b, v, sizeof v);
    assert_int_equal(pm_embedded_check_compare(a, b, &m, &e), PM_OK);
    assert_false(m.within);
    assert_int_equal(m.n_differ, 2);
    assert_true(fabs(m.max_abs - 0.1) < 1e-6);

    v[1] = NAN;                          /* NaN where the reference has a number */
    write_file(b, v, sizeof v);
    assert_int_equal(pm_embedded_check_compare(a, b, &m, &e), PM_OK);
    assert_false(m.within);

    write_file(b, ref, 12);              /* different sizes */
    assert_int_not_equal(pm_embedded_check_compare(a, b, &m, &e), PM_OK);
    assert_non_null(strstr(e.msg, "differ in size"));
}

/* The object's size side of the ledger: .text plus one-section-per-function .text.NAME, from the ELF headers. */
static void text_size_of_an_object(void **state)
{
    char c[600], o1[600], o2[600], cmd[2600];
    snprintf(c, sizeof c, "%s/t.c", dir);
    snprintf(o1, sizeof o1, "%s/t1.o", dir);
    snprintf(o2, sizeof o2, "%s/t2.o", dir);
    const char *src = "int f(int x) { return x * 3 + 1; }\nint g(int x) { return f(x) * f(x + 1); }\n";
    write_file(c, src, strlen(src));
    snprintf(cmd, sizeof cmd, "cc -O1 -c %s -o %s && cc -O1 -ffunction-sections -c %s -o %s", c, o1, c, o2);
    if (system(cmd) != 0)
        skip();
    double a = 0, b = 0;
    pm_err e = {0};
    assert_int_equal(pm_elf_section_size(o1, ".text", &a, &e), PM_OK);
    assert_int_equal(pm_elf_section_size(o2, ".text", &b, &e), PM_OK);
    assert_true(a > 0 && b > 0);
    assert_true(fabs(a - b) <= 32);   /* the same code, split into .text.f and .text.g (alignment aside) */
    assert_int_equal(pm_elf_section_size(c, ".text", &a, &e), PM_ERR_PARSE);   /* not an object */
    assert_non_null(strstr(e.msg, "not a 64-bit little-endian ELF"));
}

static int starts;
static pid_t started_group;
static int count_start(void *arg, pid_t pgid, pm_err *err)
{
    (void)arg, (void)err;
    starts++;
    started_group = pgid;
    return PM_OK;
}

/* The ledger's program run goes through fix's check options (issue 34.10, 34.4): its process group is handed to
 * the recorder before it runs, and no run starts after the budget's deadline (PM_ERR_TIMEOUT naming the budget,
 * the driver never started). A stand-in driver prints what the generated one prints. */
static void program_run_is_recorded_and_bounded(void **state)
{
    char drv[600], mark[600];
    snprintf(drv, sizeof drv, "%s/driver", dir);
    snprintf(mark, sizeof mark, "%s/ran", dir);
    char text[1400];
    snprintf(text, sizeof text, "#!/bin/sh\ntouch %s\necho 'forward_s 0.25'\n", mark);
    write_file(drv, text, strlen(text));
    assert_int_equal(chmod(drv, 0755), 0);
    pm_fix_check_opts co = {.on_start = count_start};
    double t = 0, cw = 0;
    pm_err e = {0};
    starts = 0;
    assert_int_equal(pm_embedded_check_time(dir, &co, 30, &t, &cw, &e), PM_OK);
    assert_true(fabs(t - 0.25) < 1e-9);
    assert_int_equal(starts, 1);
    assert_true(started_group > 0);
    unlink(mark);
    co.deadline = pm_util_now() - 1;
    assert_int_equal(pm_embedded_check_time(dir, &co, 30, &t, &cw, &e), PM_ERR_TIMEOUT);
    assert_non_null(strstr(e.msg, "budget"));
    assert_int_equal(starts, 1);
    assert_int_not_equal(access(mark, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(driver_follows_the_signature),
        cmocka_unit_test(comparison_tells_exact_close_and_different),
        cmocka_unit_test(text_size_of_an_object),
        cmocka_unit_test(program_run_is_recorded_and_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
