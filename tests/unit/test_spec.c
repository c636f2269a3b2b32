#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "spec.h"

static const char *demo =
    "[sweep]\nname = t\nrepeats = 2\ntimeout = 30s\nmem_limit = 2G\n"
    "[embedded]\ntile = 128\n"
    "[llm a]\nmodels = qwen2:0.5b, tinyllama:1.1b\nwindows = 128 256\nprecisions = int8, fp16\nlayers = 1\n"
    "[cnn b]\nfamilies = resnet18\nresolutions = 64\nprecisions = fp16\nblocks = 2\nvariants = stock, no-rollback\n";

static void expands_the_matrix(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(demo, "demo.ini", &s, &e), PM_OK);
    assert_string_equal(s->name, "t");
    assert_int_equal(s->repeats, 2);
    assert_int_equal(pm_embedded_spec_of(s)->tile, 128);   /* [embedded] is the embedded back end's */
    assert_true(s->timeout_s == 30.0);
    assert_true(s->mem_limit == 2ULL << 30);
    assert_int_equal(s->n_configs, 2 * 2 * 2 + 2);
    assert_string_equal(s->configs[0].key, "llm/qwen2/0.5b/w128/int8/L1/stock");
    assert_string_equal(s->configs[8].key, "cnn/resnet18/r64/fp16/B2/stock");
    assert_int_equal(pm_spec_variant_has(&s->configs[9], "no-rollback"), 1);
    assert_non_null(strstr(s->text, "[cnn b]"));
    pm_spec_free(s);
}

static void section_tile_overrides_the_default(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    const char *text = "[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 2048\nprecisions = int4\ntile = 512\n"
                       "[llm b]\nmodels = qwen2:0.5b\nwindows = 256\nprecisions = int4\n";
    assert_int_equal(pm_spec_parse(text, "t.ini", &s, &e), PM_OK);
    assert_int_equal(s->n_configs, 2);
    assert_string_equal(s->configs[0].key, "llm/qwen2/0.5b/w2048/int4/L1/T512U16/stock");
    assert_int_equal(pm_embedded_config_tile(&s->configs[0]), 512);
    assert_string_equal(s->configs[1].key, "llm/qwen2/0.5b/w256/int4/L1/stock");
    assert_int_equal(pm_embedded_config_tile(&s->configs[1]), 256);
    pm_spec_free(s);
}

/* The larger-tile fix is a variant: the key keeps the section's tile and names the fix, so compare matches
 * it with stock; the tile the compile uses is the variant's. */
static void tile_variant_keeps_the_key(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    const char *text = "[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 512\nprecisions = int8\n"
                       "variants = stock, tile-512, no-rollback+tile-1024\n";
    assert_int_equal(pm_spec_parse(text, "t.ini", &s, &e), PM_OK);
    assert_int_equal(s->n_configs, 3);
    assert_string_equal(s->configs[1].key, "llm/qwen2/0.5b/w512/int8/L1/tile-512");
    assert_int_equal(pm_spec_variant_tile(&s->configs[0]), 0);
    assert_int_equal(pm_spec_variant_tile(&s->configs[1]), 512);
    assert_int_equal(pm_embedded_config_tile(&s->configs[1]), 256);
    assert_int_equal(pm_spec_variant_tile(&s->configs[2]), 1024);
    assert_int_equal(pm_spec_variant_has(&s->configs[2], "no-rollback"), 1);
    assert_int_equal(pm_spec_variant_has(&s->configs[1], "no-rollback"), 0);
    assert_int_equal(pm_spec_variant_has(&s->configs[2], "no"), 0);   /* a whole token, not a prefix */
    pm_spec_free(s);
    s = NULL;
    assert_int_not_equal(pm_spec_parse("[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 512\n"
                                       "precisions = int8\nvariants = tile-0\n", "t.ini", &s, &e), PM_OK);
    assert_non_null(strstr(e.msg, "tile-0"));
}

static void rejects_bad_input(void **state)
{
    static const char *bad[] = {
        "[sweep]\nrepeats = 2\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n", /* no name */
        "[sweep]\nname = x\n[llm a]\nmodels = qwen2:99b\nwindows = 1\nprecisions = int8\n",     /* bad size */
        "[sweep]\nname = x\n[llm a]\nmodels = nosuch:1b\nwindows = 1\nprecisions = int8\n",     /* bad family */
        "[sweep]\nname = x\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int3\n",    /* precision */
        "[sweep]\nname = x\n[llm a]\nmodels = qwen2:0.5b\nwindows = -5\nprecisions = int8\n",   /* window */
        "[sweep]\nname = x\nrepeats = many\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
        "[sweep]\nname = x\nfrobnicate = 1\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
        "[sweep]\nname = x\n",                                                                   /* no configs */
        "[sweep]\nname = x\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1 1\nprecisions = int8\n",  /* duplicate */
        "[sweep]\nname = x\ntimeout = soon\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
        "not ini at all\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_spec *s = NULL;
        pm_err e = {0};
        int rc = pm_spec_parse(bad[i], "bad.ini", &s, &e);
        if (rc == PM_OK)
            fail_msg("spec %zu was accepted", i);
        assert_null(s);
        assert_true(strlen(e.msg) > 0);
    }
}

static void error_names_valid_choices(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    pm_spec_parse("[sweep]\nname = x\n[llm a]\nmodels = qwen2:99b\nwindows = 1\nprecisions = int8\n", "x.ini", &s, &e);
    assert_non_null(strstr(e.msg, "0.5b"));
}

/* A mistyped key names the key meant (issue 23): [sweep] scalars, a workload section's list keys, and a
 * back end section's scalars; a word close to nothing gets no guess. */
static void unknown_key_says_did_you_mean(void **state)
{
    static const struct { const char *text, *want; } cases[] = {
        {"[sweep]\nname = x\nrepeat = 3\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
         "line 3: [sweep] repeat: unknown key; did you mean 'repeats'?"},
        {"[sweep]\nname = x\n[llm a]\nmodel = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
         "line 4: [llm a]: unknown key 'model'; did you mean 'models'?"},
        {"[sweep]\nname = x\n[embedded]\ntiel = 3\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
         "line 4: [embedded] tiel: unknown key; did you mean 'tile'?"},
        /* the command back end's sections, and a section name itself */
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nv = 1\n[step s]\nargvv = /bin/true {v}\n",
         "line 7: [step s]: unknown key 'argvv'; did you mean 'argv'?"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nv = 1\n[step s]\nargv = /bin/true {v}\n"
         "[fix f]\nargv_ad = -x\n",
         "line 9: [fix f]: unknown key 'argv_ad'; did you mean 'argv_add'?"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nv = 1\n[step s]\nargv = /bin/true {v}\n[run]\nsise = a\n",
         "line 9: [run]: unknown key 'sise'; did you mean 'size'?"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nv = 1\n[step s]\nargv = /bin/true {v}\n[stpe t]\nargv = x\n",
         "line 9: section [stpe t] is read by no back end; did you mean [step t]? (back end command reads"},
        {"[sweep]\nname = x\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n[reprot]\nsize = window\n",
         "line 8: section [reprot] is read by no back end; did you mean [report]? (back end embedded reads"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_spec *s = NULL;
        pm_err e = {0};
        assert_int_not_equal(pm_spec_parse(cases[i].text, "x.ini", &s, &e), PM_OK);
        if (!strstr(e.msg, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, cases[i].want);
    }
    /* a bad value of a list key names the key's line too (it named only the section) */
    static const struct { const char *text, *want; } lines[] = {
        {"[sweep]\nname = x\n[llm a]\nmodels = qwen2:9b\nwindows = 1\nprecisions = int8\n",
         "line 4: [llm a] models: qwen2 has no size '9b'"},
        {"[sweep]\nname = x\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int7\n",
         "line 6: [llm a] precisions: unknown precision 'int7'"},
        {"[sweep]\nname = x\n[cnn a]\nfamilies = resnet18\nresolutions = 100\nprecisions = int8\n",
         "line 5: [cnn a] resolutions: resolution 100 invalid"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        pm_spec *sp = NULL;
        pm_err er = {0};
        assert_int_not_equal(pm_spec_parse(lines[i].text, "x.ini", &sp, &er), PM_OK);
        if (!strstr(er.msg, lines[i].want))
            fail_msg("line case %zu: '%s' lacks '%s'", i, er.msg, lines[i].want);
    }
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_not_equal(pm_spec_parse("[sweep]\nname = x\nfrobnicate = 1\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\n"
                                       "precisions = int8\n", "x.ini", &s, &e), PM_OK);
    assert_null(strstr(e.msg, "did you mean"));
}

/* The pipeline keys are the back end's: spec.c adds whichever it is handed (here one key, lanes), as a parameter
 * after the kind's axes and in the key when it differs from its default; tile is then no key of a section. */
static void pipeline_keys_are_the_back_ends(void **state)
{
    pm_spec_entries es = {0};
    pm_err e = {0};
    const char *text = "[llm a]\nmodels = qwen2:0.5b\nwindows = 8\nprecisions = int8\nlanes = 4\n"
                       "[llm b]\nmodels = qwen2:0.5b\nwindows = 16\nprecisions = int8\n";
    assert_int_equal(pm_spec_entries_parse(text, &es, &e), PM_OK);
    pm_spec *s = calloc(1, sizeof *s);
    assert_non_null(s);
    pm_spec_pipe pipe = {.keys = {{"lanes", "N", 1, 64, 2}}, .n = 1};
    assert_int_equal(pm_spec_parse_workloads(s, &es, &pipe, &e), PM_OK);
    assert_int_equal(s->n_configs, 2);
    assert_string_equal(s->configs[0].key, "llm/qwen2/0.5b/w8/int8/L1/N4/stock");
    assert_string_equal(s->configs[1].key, "llm/qwen2/0.5b/w16/int8/L1/stock");
    assert_string_equal(s->configs[0].params[s->configs[0].n_params - 1].name, "lanes");
    assert_string_equal(pm_cfg_param(&s->configs[1].cfg, "lanes"), "2");
    assert_null(pm_cfg_param(&s->configs[1].cfg, "tile"));
    pm_spec_free(s);
    pm_spec_entries_free(&es);

    es = (pm_spec_entries){0};
    assert_int_equal(pm_spec_entries_parse("[llm a]\nmodels = qwen2:0.5b\nwindows = 8\nprecisions = int8\ntile = 4\n",
                                           &es, &e), PM_OK);
    s = calloc(1, sizeof *s);
    assert_non_null(s);
    assert_int_equal(pm_spec_parse_workloads(s, &es, &pipe, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "unknown key 'tile'"));
    assert_non_null(strstr(e.msg, "(models, windows, precisions, variants, layers, lanes)"));
    pm_spec_free(s);
    pm_spec_entries_free(&es);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_the_matrix),
        cmocka_unit_test(section_tile_overrides_the_default),
        cmocka_unit_test(tile_variant_keeps_the_key),
        cmocka_unit_test(rejects_bad_input),
        cmocka_unit_test(error_names_valid_choices),
        cmocka_unit_test(unknown_key_says_did_you_mean),
        cmocka_unit_test(pipeline_keys_are_the_back_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
