#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embedded.h"
#include "gen.h"

/* Generates into a heap string. */
static int gen(const char *family, const char *size, const char *prec, int window, int layers, int fpl, char **text,
               pm_gen_info *info, pm_err *err)
{
    size_t len = 0;
    *text = NULL;
    FILE *f = open_memstream(text, &len);
    assert_non_null(f);
    pm_workload o = {.family = family, .size = size, .window = window, .precision = prec, .layers = layers,
                     .func_per_layer = fpl};
    int rc = pm_gen_llm(&o, f, info, err);
    fclose(f);
    return rc;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void qwen2_05b_hyperparameters(void **state)
{
    char *t;
    pm_gen_info info;
    pm_err err = {0};
    assert_int_equal(gen("qwen2", "0.5b", "int4", 16, 1, 0, &t, &info, &err), PM_OK);
    /* hidden 896, 14 heads x 64 = 896, 2 kv heads x 64 = 128, intermediate 4864 = 38 x 128, 24 layers. */
    assert_non_null(strstr(t, "%x: tensor<16x896xf32>"));
    assert_non_null(strstr(t, "%l0_wq: tensor<7x128x896xi4>"));
    assert_non_null(strstr(t, "%l0_wk: tensor<7x128x128xi4>"));
    assert_non_null(strstr(t, "%l0_wdown: tensor<38x128x896xi4>"));
    assert_non_null(strstr(t, "%l0_wup: tensor<7x128x4864xi4>"));
    assert_non_null(strstr(t, "%l0_bq: tensor<896xf32>"));          /* q/k/v biases */
    assert_non_null(strstr(t, "%rope_cos: tensor<16x32xf32>"));      /* head_dim / 2 */
    assert_non_null(strstr(t, "1.000000000e-06"));                   /* rms_norm_eps */
    /* GQA: 2 kv batches of 7 x 16 query rows. */
    assert_non_null(strstr(t, "linalg.batch_matmul ins(%v"));
    assert_non_null(strstr(t, "tensor<2x112x16xf32>"));
    assert_null(strstr(t, "math.tanh"));                             /* SiLU, no soft-capping */
    assert_int_equal(info.layers_total, 24);
    assert_int_equal(info.layers_emitted, 1);
    assert_int_equal(info.functions, 1);
    assert_int_equal(info.params, 494032768);
    assert_int_equal(info.linalg_ops, count(t, "= linalg.") - count(t, "= linalg.index"));
    free(t);
}

static void gemma2_2b_hyperparameters(void **state)
{
    char *t;
    pm_gen_info info;
    pm_err err = {0};
    assert_int_equal(gen("gemma2", "2b", "int8", 16, 2, 0, &t, &info, &err), PM_OK);
    /* hidden 2304 = 18 x 128, 8 heads x 256 = 2048, 4 kv heads x 256 = 1024, intermediate 9216, 26 layers. */
    assert_non_null(strstr(t, "%x: tensor<16x2304xf32>"));
    assert_non_null(strstr(t, "%l0_wq: tensor<18x128x2048xi8>"));
    assert_non_null(strstr(t, "%l0_wk: tensor<18x128x1024xi8>"));
    assert_non_null(strstr(t, "%l1_wdown: tensor<72x128x2304xi8>"));
    assert_non_null(strstr(t, "%rope_cos: tensor<16x128xf32>"));
    assert_non_null(strstr(t, "%l1_post_attn_norm: tensor<2304xf32>"));
    assert_non_null(strstr(t, "%l1_post_ffn_norm: tensor<2304xf32>"));
    assert_non_null(strstr(t, "arith.constant 5.000000000e+01"));    /* attn_logit_softcapping */
    assert_non_null(strstr(t, "arith.constant 6.250000000e-02"));    /* 1/sqrt(query_pre_attn_scalar 256) */
    assert_non_null(strstr(t, "arith.constant 4.471500000e-02"));    /* gelu tanh approximation */
    assert_null(strstr(t, "_bq"));
    assert_int_equal(info.layers_total, 26);
    assert_int_equal(info.layers_emitted, 2);
    assert_int_equal(info.params, 2614341888LL);
    free(t);
}

static void phi3_fused_projections(void **state)
{
    char *t;
    pm_gen_info info;
    pm_err err = {0};
    assert_int_equal(gen("phi3", NULL, "fp16", 8, 1, 0, &t, &info, &err), PM_OK);
    assert_non_null(strstr(t, "%l0_wqkv: tensor<3072x9216xf16>"));     /* (32 + 2 x 32) x 96 */
    assert_non_null(strstr(t, "%l0_wgate_up: tensor<3072x16384xf16>"));
    assert_null(strstr(t, "%l0_wq:"));
    /* fp16 weights: 9216 + 16384 + 3072 + 8192 columns of 3072/8192 rows, 2 bytes; 2 norms + final norm f32. */
    int64_t w = 2LL * (3072LL * 9216 + 3072LL * 3072 + 3072LL * 16384 + 8192LL * 3072) + 3 * 3072 * 4;
    assert_int_equal(info.weight_bytes, w);
    free(t);
}

static void dequant_only_when_quantised(void **state)
{
    const char *precs[] = {"int4", "int8", "fp16"};
    for (int i = 0; i < 3; i++) {
        char *t;
        pm_gen_info info;
        pm_err err = {0};
        assert_int_equal(gen("llama3.2", "1b", precs[i], 8, 1, 0, &t, &info, &err), PM_OK);
        int quant = i < 2;
        assert_int_equal(strstr(t, "arith.extsi") != NULL, quant);
        assert_int_equal(strstr(t, "arith.sitofp") != NULL, quant);
        assert_int_equal(strstr(t, "_s: tensor<16x2048xf32>") != NULL, quant);  /* group scales (2048/128) */
        assert_int_equal(strstr(t, "x2048xf16>") != NULL, !quant);
        /* 7 projections: one dequant generic each. */
        assert_int_equal(count(t, "arith.extsi"), quant ? 7 : 0);
        assert_int_equal(count(t, "linalg.matmul"), 7);
        free(t);
    }
}

static void param_counts_near_nominal(void **state)
{
    static const struct { const char *fam, *size; double nominal; } want[] = {
        {"gemma2", "2b", 2.61e9}, {"gemma2", "9b", 9.24e9}, {"tinyllama", "1.1b", 1.10e9},
        {"llama3.2", "1b", 1.24e9}, {"llama3.2", "3b", 3.21e9}, {"phi3", "3.8b", 3.82e9},
        {"qwen2", "0.5b", 0.49e9}, {"qwen2", "1.5b", 1.54e9}, {"qwen2", "7b", 7.62e9}};
    int n = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *t;
        pm_gen_info info;
        pm_err err = {0};
        assert_int_equal(gen(want[i].fam, want[i].size, "int4", 4, 1, 0, &t, &info, &err), PM_OK);
        double rel = ((double)info.params - want[i].nominal) / want[i].nominal;
        if (rel < -0.05 || rel > 0.05)
            fail_msg("%s %s: %lld params vs nominal %.3g", want[i].fam, want[i].size, (long long)info.params,
                     want[i].nominal);
        free(t);
        n++;
    }
    /* Every listed size is covered. */
    int listed = 0;
    for (const char *const *f = pm_gen_llm_families(); *f; f++)
        for (const char *const *s = pm_gen_llm_sizes(*f); *s; s++)
            listed++;
    assert_int_equal(listed, n);
}

static void func_per_layer(void **state)
{
    char *t;
    pm_gen_info info;
    pm_err err = {0};
    assert_int_equal(gen("tinyllama", NULL, "int8", 8, 3, 1, &t, &info, &err), PM_OK);
    assert_int_equal(info.functions, 4);
    assert_int_equal(count(t, "func.func private @layer_"), 3);
    assert_int_equal(count(t, "func.call @layer_"), 3);
    assert_non_null(strstr(t, "func.func @forward("));
    free(t);
}

static void bad_arguments(void **state)
{
    char *t;
    pm_gen_info info;
    pm_err err = {0};
    assert_int_equal(gen("mistral", NULL, "int4", 8, 1, 0, &t, &info, &err), PM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "gemma2, tinyllama, llama3.2, phi3, qwen2"));
    free(t);
    assert_int_equal(gen("qwen2", "72b", "int4", 8, 1, 0, &t, &info, &err), PM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "0.5b, 1.5b, 7b"));
    free(t);
    assert_int_equal(gen("qwen2", "0.5b", "bf16", 8, 1, 0, &t, &info, &err), PM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "int4, int8, fp16"));
    free(t);
    assert_int_equal(gen("qwen2", "0.5b", "int4", 0, 1, 0, &t, &info, &err), PM_ERR_USAGE);
    free(t);
    assert_int_equal(gen("tinyllama", NULL, "int4", 4096, 1, 0, &t, &info, &err), PM_ERR_USAGE);  /* max 2048 */
    assert_non_null(strstr(err.msg, "1..2048"));
    free(t);
    assert_int_equal(gen("qwen2", "0.5b", "int4", 8, 25, 0, &t, &info, &err), PM_ERR_USAGE);
    free(t);
    assert_null(pm_gen_llm_sizes("mistral"));
}

/* Every family x size x precision parses and verifies with the real mlir-opt (fp16 ones one func per layer). */
static void modules_verify_with_mlir_opt(void **state)
{
    pm_embedded_tools tools;
    pm_err err = {0};
    if (pm_embedded_find_tools(NULL, &tools, &err) != PM_OK)
        fail_msg("mlir-opt not found: %s", err.msg);
    char dir[] = "/tmp/pm-test-gen.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *precs[] = {"int4", "int8", "fp16"};
    for (const char *const *f = pm_gen_llm_families(); *f; f++)
        for (const char *const *sz = pm_gen_llm_sizes(*f); *sz; sz++)
        for (int p = 0; p < 3; p++) {
            const char *size = *sz;
            char path[128], cmd[1024];
            snprintf(path, sizeof path, "%s/m.mlir", dir);
            FILE *out = fopen(path, "w");
            assert_non_null(out);
            pm_workload o = {.family = *f, .size = size, .window = 8, .precision = precs[p], .layers = 1,
                             .func_per_layer = p == 2};
            pm_gen_info info;
            assert_int_equal(pm_gen_llm(&o, out, &info, &err), PM_OK);
            fclose(out);
            snprintf(cmd, sizeof cmd, "'%s' --verify-each '%s' -o '%s/verified.mlir' 2>'%s/err.txt'", tools.mlir_opt, path,
                     dir, dir); /* a temp dir, never /dev/null: tools may write through temp-file-and-rename */
            int rc = system(cmd);
            if (rc != 0) {
                char msg[512] = "";
                snprintf(path, sizeof path, "%s/err.txt", dir);
                FILE *e = fopen(path, "r");
                if (e) {
                    size_t k = fread(msg, 1, sizeof msg - 1, e);
                    msg[k] = '\0';
                    fclose(e);
                }
                fail_msg("%s %s %s does not verify: %s", *f, size, precs[p], msg);
            }
        }
    char cleanup[256];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", dir);
    assert_int_equal(system(cleanup), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qwen2_05b_hyperparameters),
        cmocka_unit_test(gemma2_2b_hyperparameters),
        cmocka_unit_test(phi3_fused_projections),
        cmocka_unit_test(dequant_only_when_quantised),
        cmocka_unit_test(param_counts_near_nominal),
        cmocka_unit_test(func_per_layer),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(modules_verify_with_mlir_opt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
