/* pm_embedded_check: the driver follows @forward's signature (expanded memref descriptors, one fill rule per
 * element type); the result comparison tells bit-exact, within tolerance and different apart. The driver
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(driver_follows_the_signature),
        cmocka_unit_test(comparison_tells_exact_close_and_different),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
