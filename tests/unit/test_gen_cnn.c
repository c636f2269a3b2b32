#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

#define MLIR_OPT "/usr/lib/llvm-22/bin/mlir-opt"

/* Generates a module into memory; returns it (caller frees) and fills info. */
static char *gen_text(const char *family, int res, const char *prec, int blocks, pm_gen_info *info, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    pm_workload o = {.family = family, .resolution = res, .precision = prec, .blocks = blocks};
    pm_err e;
    pm_err_clear(&e);
    memset(info, 0, sizeof *info);
    *rc = pm_gen_cnn(&o, f, info, &e);
    fclose(f);
    return buf;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Published parameter counts (torchvision; RegNetX-400MF and GoogLeNet from their papers). */
static void params_match_real_models(void **state)
{
    static const struct { const char *f; int64_t real; } t[] = {
        {"resnet18", 11689512},  {"resnet34", 21797672},        {"resnet50", 25557032},
        {"resnet101", 44549160}, {"resnet152", 60192808},       {"efficientnet_b0", 5288548},
        {"mobilenetv3", 5483032}, {"densenet121", 7978856},     {"regnet", 5200000},
        {"inception", 6800000},  {"convnext", 28589128}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pm_gen_info info;
        int rc;
        free(gen_text(t[i].f, 224, "fp16", 0, &info, &rc));
        assert_int_equal(rc, PM_OK);
        double ratio = (double)info.params / (double)t[i].real;
        if (ratio < 0.95 || ratio > 1.05)
            fail_msg("%s: %lld params, real %lld", t[i].f, (long long)info.params, (long long)t[i].real);
        assert_int_equal(info.layers_emitted, info.layers_total);
        assert_int_equal(info.functions, 1);
    }
}

static void resnet18_layers_and_bytes(void **state)
{
    pm_gen_info info;
    int rc;
    char *m = gen_text("resnet18", 224, "fp16", 0, &info, &rc);
    assert_int_equal(rc, PM_OK);
    assert_int_equal(info.layers_total, 21); /* 17 3x3/7x7 convs + 3 downsample 1x1 + fc */
    assert_int_equal(count(m, "linalg.conv_2d_nchw_fchw"), 20);
    assert_int_equal(count(m, "linalg.matmul"), 1);
    assert_int_equal(count(m, "linalg.pooling_nchw_max"), 1);
    /* f16 weights + f32 folded-BN biases: 2 bytes per weight, BN counted as 2 params but emitted as 1 f32 */
    assert_true(info.weight_bytes > 2 * 11000000 && info.weight_bytes < 2 * 11700000 + 100000);
    assert_int_equal(count(m, "func.func @forward(%x: tensor<1x3x224x224xf32>"), 1);
    assert_non_null(strstr(m, "-> tensor<1x1000x1x1xf32>"));
    free(m);
}

static void blocks_limit_units(void **state)
{
    pm_gen_info info;
    int rc;
    char *m = gen_text("resnet50", 128, "int8", 1, &info, &rc);
    assert_int_equal(rc, PM_OK);
    assert_int_equal(info.layers_emitted, 1); /* stem conv only */
    assert_int_equal(info.layers_total, 54);
    assert_int_equal(count(m, "linalg.conv_2d_nchw_fchw"), 1);
    assert_non_null(strstr(m, "-> tensor<1x64x32x32xf32>")); /* conv s2 + maxpool s2 */
    free(m);
    m = gen_text("resnet50", 128, "int8", 2, &info, &rc);
    assert_int_equal(info.layers_emitted, 5); /* stem + bottleneck with downsample */
    assert_non_null(strstr(m, "-> tensor<1x256x32x32xf32>"));
    free(m);
}

static void dequant_only_for_integer_precisions(void **state)
{
    pm_gen_info i8, i4, f16;
    int rc;
    char *m8 = gen_text("mobilenetv3", 64, "int8", 3, &i8, &rc);
    assert_int_equal(rc, PM_OK);
    char *m4 = gen_text("mobilenetv3", 64, "int4", 3, &i4, &rc);
    char *mf = gen_text("mobilenetv3", 64, "fp16", 3, &f16, &rc);
    assert_true(count(m8, "arith.extsi") > 0);
    assert_int_equal(count(m8, "arith.extsi"), count(m8, "arith.sitofp"));
    assert_int_equal(count(m8, "arith.extsi"), i8.layers_emitted);
    assert_non_null(strstr(m8, "xi8>"));
    assert_non_null(strstr(m4, "xi4>"));
    assert_null(strstr(mf, "arith.extsi"));
    assert_null(strstr(mf, "arith.sitofp"));
    assert_int_equal(count(mf, "arith.extf"), f16.layers_emitted);
    assert_true(i4.weight_bytes < i8.weight_bytes && i8.weight_bytes < f16.weight_bytes);
    free(m8);
    free(m4);
    free(mf);
}

static void bad_input_is_usage_error(void **state)
{
    pm_err e;
    pm_gen_info info;
    FILE *f = tmpfile();
    assert_non_null(f);
    pm_workload bad_fam = {.family = "vgg16", .resolution = 224, .precision = "fp16", .blocks = 0};
    assert_int_equal(pm_gen_cnn(&bad_fam, f, &info, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "resnet18"));
    assert_non_null(strstr(e.msg, "convnext"));
    pm_workload bad_res = {.family = "resnet18", .resolution = 100, .precision = "fp16", .blocks = 0};
    assert_int_equal(pm_gen_cnn(&bad_res, f, &info, &e), PM_ERR_USAGE);
    pm_workload big_res = {.family = "resnet18", .resolution = 2048, .precision = "fp16", .blocks = 0};
    assert_int_equal(pm_gen_cnn(&big_res, f, &info, &e), PM_ERR_USAGE);
    pm_workload bad_prec = {.family = "resnet18", .resolution = 224, .precision = "bf16", .blocks = 0};
    assert_int_equal(pm_gen_cnn(&bad_prec, f, &info, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "int4"));
    pm_workload bad_blocks = {.family = "resnet18", .resolution = 224, .precision = "fp16", .blocks = -1};
    assert_int_equal(pm_gen_cnn(&bad_blocks, f, &info, &e), PM_ERR_USAGE);
    fclose(f);
    const char *const *fams = pm_gen_cnn_families();
    int n = 0;
    while (fams[n])
        n++;
    assert_int_equal(n, 11);
}

/* Every family at several resolutions is a module the real mlir-opt parses and verifies. */
static void real_mlir_opt_parses_every_family(void **state)
{
    if (access(MLIR_OPT, X_OK) != 0) {
        skip();
        return;
    }
    static const int res[] = {64, 96, 128};
    static const char *const precs[] = {"int8", "fp16", "int4"};
    const char *const *fams = pm_gen_cnn_families();
    char path[] = "/tmp/pm-gencnn-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (int i = 0; fams[i]; i++)
        for (int r = 0; r < 3; r++) {
            FILE *f = fopen(path, "w");
            assert_non_null(f);
            pm_workload o = {.family = fams[i], .resolution = res[r], .precision = precs[(i + r) % 3], .blocks = 0};
            pm_gen_info info;
            pm_err e;
            assert_int_equal(pm_gen_cnn(&o, f, &info, &e), PM_OK);
            fclose(f);
            char cmd[256];
            snprintf(cmd, sizeof cmd, MLIR_OPT " %s -o %s.out 2>&1", path, path); /* never /dev/null */
            FILE *p = popen(cmd, "r");
            assert_non_null(p);
            char msg[512] = "";
            size_t n = fread(msg, 1, sizeof msg - 1, p);
            msg[n] = '\0';
            int status = pclose(p);
            if (status != 0)
                fail_msg("%s at %d (%s): mlir-opt: %s", fams[i], res[r], o.precision, msg);
        }
    unlink(path);
    char out_path[sizeof path + 8];
    snprintf(out_path, sizeof out_path, "%s.out", path);
    unlink(out_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_match_real_models),
        cmocka_unit_test(resnet18_layers_and_bytes),
        cmocka_unit_test(blocks_limit_units),
        cmocka_unit_test(dequant_only_for_integer_precisions),
        cmocka_unit_test(bad_input_is_usage_error),
        cmocka_unit_test(real_mlir_opt_parses_every_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
