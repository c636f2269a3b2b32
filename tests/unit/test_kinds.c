/* The workload-kind table (lib/workload/kinds.c): the per-kind knowledge callers ask it for instead of
 * comparing kind names — axes, depth and size axis, generator, IR growth, the reduced spec section. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "spec.h"

static void every_row_is_complete(void **state)
{
    int n = 0;
    for (const pm_kind *k; (k = pm_kind_at(n)); n++) {
        assert_non_null(k->emit);
        assert_non_null(k->grow);
        assert_non_null(k->spec_section);
        assert_non_null(k->families);
        assert_non_null(k->families()[0]);
        /* the depth and size axes are axes of the kind */
        assert_true(pm_kind_list_has(k->axes, k->depth_axis));
        assert_true(pm_kind_list_has(k->axes, k->size_axis));
        assert_true(pm_kind_list_has(k->axes, "family"));
        assert_ptr_equal(pm_kind_find(k->name), k);
        /* the row reads its own spec section: its keys, every section's variants among them; the embedded
         * pipeline's tile and unroll are the back end's keys, not the row's */
        assert_non_null(k->expand);
        assert_true(pm_kind_list_has(k->section_keys, "variants"));
        assert_false(pm_kind_list_has(k->section_keys, "tile") || pm_kind_list_has(k->section_keys, "unroll"));
    }
    assert_true(n >= 2);
    assert_null(pm_kind_find("command"));
    assert_string_equal(pm_kind_find("llm")->depth_axis, "layers");
    assert_string_equal(pm_kind_find("cnn")->depth_axis, "blocks");
    assert_true(pm_kind_find("llm")->npuw);
    assert_false(pm_kind_find("cnn")->npuw);
}

/* A reader with fixed lists (lib/workload knows no spec file): what the row's expand makes of them. */
static const char *const *fake_list(void *user, const char *key, int *n, char *what, size_t cap)
{
    static const char *const models[] = {"qwen2:0.5b"}, *const windows[] = {"128", "256"},
                             *const precisions[] = {"int8"};
    snprintf(what, cap, "[llm t] %s", key);
    const char *const *v = !strcmp(key, "models") ? models : !strcmp(key, "windows") ? windows
                           : !strcmp(key, "precisions") ? precisions : NULL;
    *n = !v ? 0 : v == windows ? 2 : 1;
    return v;
}

static int fake_number(void *user, const char *key, int lo, int hi, int def, int *out, pm_err *err)
{
    *out = def;
    return PM_OK;
}

static int fake_check_size(void *user, long long product, pm_err *err)
{
    return product == 2 ? PM_OK : pm_err_set(err, PM_ERR_USAGE, "product %lld", product);
}

static int fake_add(void *user, const pm_workload *w, const char *stem, pm_err *err)
{
    char *seen = user;
    snprintf(seen + strlen(seen), 256 - strlen(seen), "%s(%s,%d);", stem, w->family, w->window);
    return PM_OK;
}

static void a_row_expands_its_own_section(void **state)
{
    char seen[256] = "";
    pm_kind_reader r = {.section = "llm t", .user = seen, .list = fake_list, .number = fake_number,
                        .check_size = fake_check_size, .add = fake_add};
    pm_err e = {0};
    assert_int_equal(pm_kind_find("llm")->expand(&r, &e), PM_OK);
    assert_string_equal(seen, "llm/qwen2/0.5b/w128/int8/L1(qwen2,128);llm/qwen2/0.5b/w256/int8/L1(qwen2,256);");
}

static char *emit(const pm_kind *k, const pm_workload *w, pm_gen_info *info)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pm_err e = {0};
    assert_int_equal(k->emit(w, f, info, &e), PM_OK);
    fclose(f);
    return buf;
}

/* The row's generator is the kind's generator with every field passed on. */
static void emit_is_the_generator(void **state)
{
    pm_workload w = {.family = "qwen2", .size = "0.5b", .precision = "int8", .window = 64, .layers = 2,
                     .func_per_layer = 1};
    pm_gen_info a, b;
    char *via_row = emit(pm_kind_find("llm"), &w, &a);
    char *direct = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&direct, &len);
    pm_workload o = {.family = "qwen2", .size = "0.5b", .window = 64, .precision = "int8", .layers = 2,
                     .func_per_layer = 1};
    pm_err e = {0};
    assert_int_equal(pm_gen_llm(&o, f, &b, &e), PM_OK);
    fclose(f);
    assert_string_equal(via_row, direct);
    assert_int_equal(a.layers_emitted, 2);
    assert_int_equal(a.functions, b.functions);
    free(via_row), free(direct);

    pm_workload c = {.family = "resnet18", .precision = "fp16", .resolution = 64, .blocks = 1, .layers = 9};
    via_row = emit(pm_kind_find("cnn"), &c, &a);
    f = open_memstream(&direct, &len);
    pm_workload co = {.family = "resnet18", .resolution = 64, .precision = "fp16", .blocks = 1};
    assert_int_equal(pm_gen_cnn(&co, f, &b, &e), PM_OK);
    fclose(f);
    assert_string_equal(via_row, direct);
    free(via_row), free(direct);
}

static void grow_as_the_pipeline_grows(void **state)
{
    const pm_kind *llm = pm_kind_find("llm"), *cnn = pm_kind_find("cnn");
    pm_workload w = {.window = 512, .resolution = 448};
    assert_true(fabs(llm->grow(&w, 64) - pow(8, 1.3)) < 1e-12);
    assert_true(llm->grow(&w, 512) == 1);   /* within one tile */
    assert_true(llm->grow(&w, 0) == 1);     /* no tiling */
    assert_true(cnn->grow(&w, 64) == 4);    /* pixels: (448/224)^2, whatever the tile */
    w.resolution = 224;
    assert_true(cnn->grow(&w, 64) == 1);
}

/* The reduced section plans the same workload again, its size and depth cut to the caps, and parses back. */
static void spec_section_round_trips(void **state)
{
    pm_workload w = {.family = "qwen2", .size = "0.5b", .precision = "int8", .window = 512, .layers = 4,
                     .resolution = 999, .blocks = 7};
    char *s = pm_kind_find("llm")->spec_section(&w, "c3", 128, 2);
    assert_string_equal(s, "[llm c3]\nmodels = qwen2:0.5b\nwindows = 128\nprecisions = int8\nlayers = 2\n");
    free(s);
    s = pm_kind_find("llm")->spec_section(&w, "c3", 0, 0);
    assert_string_equal(s, "[llm c3]\nmodels = qwen2:0.5b\nwindows = 512\nprecisions = int8\nlayers = 4\n");
    free(s);
    pm_workload c = {.family = "resnet18", .precision = "fp16", .resolution = 448, .blocks = 3};
    s = pm_kind_find("cnn")->spec_section(&c, "c0", 224, 1);   /* blocks are the architecture: not cut */
    assert_string_equal(s, "[cnn c0]\nfamilies = resnet18\nresolutions = 224\nprecisions = fp16\nblocks = 3\n");
    char *text = NULL;
    assert_true(asprintf(&text, "[sweep]\nname = t\n%s", s) > 0);
    pm_spec *spec = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "t.ini", &spec, &e), PM_OK);
    assert_int_equal(spec->n_configs, 1);
    pm_workload back = pm_spec_workload(&spec->configs[0]);
    assert_string_equal(back.family, "resnet18");
    assert_int_equal(back.resolution, 224);
    assert_int_equal(back.blocks, 3);
    pm_spec_free(spec);
    free(text);
    free(s);
}

/* A spec's workload config carries its kind's axes (then the pipeline's tile, unroll) as parameters, and the
 * depth axis holds the depth the store's layers column records. */
static void spec_configs_carry_the_row_axes(void **state)
{
    const char *text = "[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 256\nprecisions = int8\nlayers = 3\n"
                       "[cnn b]\nfamilies = resnet18\nresolutions = 224\nprecisions = fp16\nblocks = 2\n";
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "t.ini", &s, &e), PM_OK);
    assert_int_equal(s->n_configs, 2);
    const char *want[2] = {"family,size,window,precision,layers,tile,unroll",
                           "family,resolution,precision,blocks,tile,unroll"};
    for (int i = 0; i < 2; i++) {
        const pm_spec_config *c = &s->configs[i];
        char got[256] = "";
        for (size_t k = 0; k < c->n_params; k++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? "," : "", c->params[k].name);
        assert_string_equal(got, want[i]);
        const pm_kind *row = pm_kind_find(c->kind);
        assert_non_null(row);
        assert_true(pm_cfg_param_num(&c->cfg, row->depth_axis) == (i == 0 ? 3 : 2));
    }
    assert_string_equal(pm_cfg_param(&s->configs[0].cfg, "window"), "256");
    assert_string_equal(pm_cfg_param(&s->configs[1].cfg, "resolution"), "224");
    assert_true(isnan(pm_cfg_param_num(&s->configs[1].cfg, "layers")));
    pm_workload w = pm_spec_workload(&s->configs[0]);
    assert_string_equal(w.family, "qwen2");
    assert_int_equal(w.window, 256);
    assert_int_equal(w.layers, 3);
    pm_spec_free(s);
}

/* The model fields have one map to parameters (kinds.c): a workload written as its row's axes reads back the
 * same, the depth is the row's depth axis, and a kind with no row has no workload. */
static void a_config_decodes_into_its_workload(void **state)
{
    const pm_workload full = {.family = "fam", .size = "1b", .precision = "int4", .window = 64, .resolution = 96,
                              .layers = 3, .blocks = 5};
    for (int n = 0; pm_kind_at(n); n++) {
        const pm_kind *k = pm_kind_at(n);
        pm_cfg c = {0};
        assert_int_equal(pm_cfg_set(&c, "k", k->name, "stock"), 0);
        char axes[256], num[32];
        snprintf(axes, sizeof axes, "%s", k->axes);
        for (char *save = NULL, *t = strtok_r(axes, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const char *v = pm_workload_axis(&full, t, num, sizeof num);
            assert_non_null(v);   /* every axis of a row is a model field */
            assert_int_equal(pm_cfg_param_add(&c, t, v), 0);
        }
        assert_int_equal(pm_cfg_param_add(&c, "tile", "512"), 0);   /* not a model field: ignored */
        pm_workload w = pm_workload_of(&c);
        char a[32], b[32];
        for (int i = 0; i < 7; i++) {
            static const char *const names[] = {"family", "size", "precision", "window", "resolution", "layers",
                                                "blocks"};
            const char *want = pm_kind_list_has(k->axes, names[i]) ? pm_workload_axis(&full, names[i], a, sizeof a)
                                                                  : NULL;
            const char *got = pm_workload_axis(&w, names[i], b, sizeof b);
            if (want)
                assert_string_equal(got, want);
            else
                assert_true(!got || !strcmp(got, "0"));   /* an axis the kind lacks stays empty */
        }
        assert_int_equal(pm_workload_depth(&w, k->name), (int)pm_cfg_param_num(&c, k->depth_axis));
        pm_workload d = {0};
        pm_workload_set_depth(&d, k->name, 7);
        assert_int_equal(pm_workload_depth(&d, k->name), 7);
        pm_workload own;
        assert_int_equal(pm_workload_copy(&own, &w), 0);
        assert_ptr_not_equal(own.family, w.family);
        assert_string_equal(own.family, "fam");
        pm_cfg_clear(&c);
        assert_string_equal(own.family, "fam");   /* the copy owns its strings */
        pm_workload_clear(&own);
        assert_null(own.family);
    }
    assert_null(pm_workload_axis(&full, "tile", (char[32]){0}, 32));
    pm_cfg cmd = {0};
    assert_int_equal(pm_cfg_set(&cmd, "c/size=1b", "command", NULL), 0);
    assert_int_equal(pm_cfg_param_add(&cmd, "size", "1b"), 0);
    pm_workload none = pm_workload_of(&cmd);
    assert_null(none.size);   /* a kind with no row: its axes are not model fields */
    assert_int_equal(pm_workload_depth(&full, "command"), 0);
    pm_cfg_clear(&cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_complete),
        cmocka_unit_test(a_row_expands_its_own_section),
        cmocka_unit_test(emit_is_the_generator),
        cmocka_unit_test(grow_as_the_pipeline_grows),
        cmocka_unit_test(spec_section_round_trips),
        cmocka_unit_test(spec_configs_carry_the_row_axes),
        cmocka_unit_test(a_config_decodes_into_its_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
