/* The NPU (OpenVINO) back end's fixes: its row has fix ops; reuse-strategy is not runnable on LLM configs (NPUW)
 * and a round refuses it there; a round keeps the study's configs with the variant as the key's last part;
 * the blob cache is the warm path, never a round; the output check says it is not implemented (unchecked);
 * a CNN config gets its model path from the template. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "spec.h"
#include "sweep_ov.h"

static const char *spec_text =
    "[sweep]\nname = ovs\nbackend = openvino\nrepeats = 3\n"
    "[openvino]\ndevice = NPU\nmodel = models/{family}-{size}-{precision}-r{resolution}/openvino_model.xml\n"
    "[llm q]\nmodels = qwen2:0.5b\nwindows = 128\nprecisions = fp16\n"
    "[cnn r]\nfamilies = resnet18\nresolutions = 64\nprecisions = fp16\nblocks = 1\n";

static int find(const pm_spec *s, const char *prefix)
{
    for (int i = 0; i < s->n_configs; i++)
        if (!strncmp(s->configs[i].key, prefix, strlen(prefix)))
            return i;
    fail_msg("no config %s", prefix);
    return -1;
}

static void rounds_runnable_and_check(void **state)
{
    pm_spec *s = NULL, *r = NULL;
    pm_err err = {0};
    assert_int_equal(pm_spec_parse(spec_text, "dir/ovs.ini", &s, &err), PM_OK);
    const pm_backend_ops *be = pm_backend_find("openvino");
    assert_non_null(be);
    assert_non_null(be->fix);
    assert_true(be->own_warm_path);
    const pm_backend_fix_ops *fx = be->fix;
    int llm = find(s, "llm/"), cnn = find(s, "cnn/");
    /* the CNN's model path comes from the template (it was empty before) */
    char model[512], round_model[512];
    assert_int_equal(pm_sweep_ov_model(s, &s->configs[cnn], model, sizeof model, &err), PM_OK);
    assert_string_equal(model, "dir/models/resnet18--fp16-r64/openvino_model.xml");

    char why[160] = "";
    assert_int_equal(fx->runnable(s, cnn, "reuse-strategy", why, sizeof why), 1);
    assert_int_equal(fx->runnable(s, llm, "warm", why, sizeof why), 1);
    assert_int_equal(fx->runnable(s, llm, "reuse-strategy", why, sizeof why), 0);
    assert_non_null(strstr(why, "not runnable for LLM configs under NPUW"));
    assert_string_equal(fx->warm_variant, "warm");

    int cfgs[] = {cnn, cnn};
    const char *vars[] = {"stock", "reuse-strategy"};
    assert_int_equal(fx->round(s, cfgs, vars, 2, 4, "ovs-fix", &r, &err), PM_OK);
    assert_string_equal(r->name, "ovs-fix");
    assert_int_equal(r->repeats, 4);
    assert_int_equal(r->warm, 0);
    assert_int_equal(r->n_configs, 2);
    assert_string_equal(r->configs[0].key, "cnn/resnet18/r64/fp16/B1/stock");
    assert_string_equal(r->configs[1].key, "cnn/resnet18/r64/fp16/B1/reuse-strategy");
    assert_string_equal(r->configs[1].variant, "reuse-strategy");
    assert_int_equal(pm_spec_variant_has(&r->configs[0], "reuse-strategy"), 0);
    assert_int_equal(pm_spec_variant_has(&r->configs[1], "reuse-strategy"), 1);
    assert_int_equal(pm_sweep_ov_model(r, &r->configs[1], round_model, sizeof round_model, &err), PM_OK);
    assert_string_equal(round_model, model);
    pm_spec_free(r);

    /* under NPUW, and the warm path, no round */
    int l2[] = {llm, llm};
    assert_int_not_equal(fx->round(s, l2, vars, 2, 3, "ovs-fix", &r, &err), PM_OK);
    assert_null(r);
    assert_non_null(strstr(err.msg, "NPUW"));
    const char *warm[] = {"warm"};
    assert_int_not_equal(fx->round(s, &cnn, warm, 1, 3, "ovs-fix", &r, &err), PM_OK);
    assert_non_null(strstr(err.msg, "not a compile variant"));

    /* no output check: unsupported with why, so passmap fix reports "unchecked" */
    char res[64] = "x";
    pm_fix_check_opts co = {0};
    assert_int_equal(fx->check_build(s, cnn, "reuse-strategy", "/nonexistent", &co, res, sizeof res, &err),
                     PM_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "CPU plugin"));
    pm_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounds_runnable_and_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
