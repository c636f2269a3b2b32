/* The config identity every layer shares (lib/base/config.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* "c/input=a.c/opt=2", variant v (NULL: none), with its axes taken from the key */
static pm_cfg make(const char *key, const char *variant)
{
    pm_cfg c = {0};
    assert_int_equal(pm_cfg_set(&c, key, "command", variant), 0);
    assert_int_equal(pm_cfg_params_from_key(&c, key, NULL), PM_OK);
    return c;
}

static void lookup_by_name_and_number(void **state)
{
    pm_cfg c = make("c/input=a.c/opt=2/ratio=0.5/tag=2x/empty=", "stock");
    assert_string_equal(c.key, "c/input=a.c/opt=2/ratio=0.5/tag=2x/empty=");
    assert_string_equal(c.kind, "command");
    /* the prefix "c" is not an axis; an empty value is one */
    assert_int_equal(c.n_params, 5);
    assert_string_equal(c.params[0].name, "input");
    assert_string_equal(pm_cfg_param(&c, "input"), "a.c");
    assert_string_equal(pm_cfg_param(&c, "empty"), "");
    assert_null(pm_cfg_param(&c, "plain"));
    assert_null(pm_cfg_param(&c, NULL));
    assert_true(pm_cfg_param_num(&c, "opt") == 2);
    assert_true(pm_cfg_param_num(&c, "ratio") == 0.5);
    assert_true(isnan(pm_cfg_param_num(&c, "tag")));    /* a number and more: not a number */
    assert_true(isnan(pm_cfg_param_num(&c, "empty")));
    assert_true(isnan(pm_cfg_param_num(&c, "input")));
    assert_true(isnan(pm_cfg_param_num(&c, "absent")));
    /* "variant" is an axis too for pm_cfg_axis, not for pm_cfg_param */
    assert_string_equal(pm_cfg_axis(&c, "variant"), "stock");
    assert_null(pm_cfg_param(&c, "variant"));
    assert_string_equal(pm_cfg_axis(&c, "opt"), "2");
    pm_cfg_clear(&c);
    assert_null(c.key);
    assert_int_equal(c.n_params, 0);
}

static void split_key_as_compare_matches(void **state)
{
    char *base, *var;
    /* the last part is the variant column: cut */
    assert_int_equal(pm_cfg_split_key("llm/q/0.5b/w256/int8/L1/stock", "stock", &base, &var), 0);
    assert_string_equal(base, "llm/q/0.5b/w256/int8/L1");
    assert_string_equal(var, "stock");
    free(base), free(var);
    /* a command study's variant axis is not the last part: the whole key */
    assert_int_equal(pm_cfg_split_key("c/variant=g0/opt=2", "g0", &base, &var), 0);
    assert_string_equal(base, "c/variant=g0/opt=2");
    assert_string_equal(var, "g0");
    free(base), free(var);
    /* no variant column (an old database): the last part, whatever it is */
    assert_int_equal(pm_cfg_split_key("llm/a/L1/no-rollback+per-layer", NULL, &base, &var), 0);
    assert_string_equal(base, "llm/a/L1");
    assert_string_equal(var, "no-rollback+per-layer");
    free(base), free(var);
    /* an empty variant: the whole key; var may be left out */
    assert_int_equal(pm_cfg_split_key("c/input=a.c", "", &base, NULL), 0);
    assert_string_equal(base, "c/input=a.c");
    free(base);
    assert_int_equal(pm_cfg_split_key("plain", NULL, &base, &var), 0);
    assert_string_equal(base, "plain");
    assert_string_equal(var, "");
    free(base), free(var);
}

/* A command config's key names every axis, and reads back as the same axes (run --db --config KEY). */
static void key_of_round_trips(void **state)
{
    pm_cfg c = {0};
    assert_int_equal(pm_cfg_param_add(&c, "input", "a.c"), 0);
    assert_int_equal(pm_cfg_param_add(&c, "opt", "2"), 0);
    assert_int_equal(pm_cfg_param_add(&c, "flags", ""), 0);
    char *k = pm_cfg_key_of("c", &c);
    assert_string_equal(k, "c/input=a.c/opt=2/flags=");
    pm_cfg back = {0};
    assert_int_equal(pm_cfg_params_from_key(&back, k, NULL), PM_OK);
    assert_int_equal(back.n_params, c.n_params);
    for (size_t i = 0; i < c.n_params; i++) {
        assert_string_equal(back.params[i].name, c.params[i].name);
        assert_string_equal(back.params[i].value, c.params[i].value);
    }
    free(k);
    pm_cfg_clear(&back);
    pm_cfg none = {0};
    k = pm_cfg_key_of("m", &none);
    assert_string_equal(k, "m");
    free(k);
    pm_cfg_clear(&c);
}

/* run --db --config KEY takes the axes from the key. A value with '/' (a file axis over a subfolder, as
 * pm_cfg_key_of writes it) was cut at its first '/' and the rest dropped without a word; a part with no name
 * and an axis named twice were dropped too (the store keeps one value per axis). */
static void params_from_key_prefix_slash_and_errors(void **state)
{
    pm_cfg c = {0};
    assert_int_equal(pm_cfg_param_add(&c, "input", "sub/dir/a.c"), 0);
    assert_int_equal(pm_cfg_param_add(&c, "opt", "2"), 0);
    assert_int_equal(pm_cfg_param_add(&c, "path", "/abs//x/"), 0);
    char *k = pm_cfg_key_of("c/more", &c);
    assert_string_equal(k, "c/more/input=sub/dir/a.c/opt=2/path=/abs//x/");
    pm_cfg back = {0};
    assert_int_equal(pm_cfg_params_from_key(&back, k, NULL), PM_OK);
    assert_int_equal(back.n_params, 3);
    assert_string_equal(pm_cfg_param(&back, "input"), "sub/dir/a.c");
    assert_string_equal(pm_cfg_param(&back, "opt"), "2");
    assert_string_equal(pm_cfg_param(&back, "path"), "/abs//x/");
    assert_null(pm_cfg_param(&back, "more"));
    free(k);
    pm_cfg_clear(&back);
    pm_cfg_clear(&c);
    /* a key without axes: none, and no error */
    assert_int_equal(pm_cfg_params_from_key(&back, "llm/qwen2/0.5b", NULL), PM_OK);
    assert_int_equal(back.n_params, 0);

    pm_err e = {0};
    assert_int_equal(pm_cfg_params_from_key(&back, "c/=x/opt=1", &e), PM_ERR_USAGE);
    assert_string_equal(e.msg, "config key 'c/=x/opt=1': part '=x' has no name before '='");
    pm_cfg_clear(&back);
    assert_int_equal(pm_cfg_params_from_key(&back, "c/opt=1/opt=2", &e), PM_ERR_USAGE);
    assert_string_equal(e.msg, "config key 'c/opt=1/opt=2': axis 'opt' given twice");
    pm_cfg_clear(&back);
}

static void key_except_and_equality_on_all_other_axes(void **state)
{
    pm_cfg a = make("c/input=a.c/opt=0", "g1"), b = make("c/input=a.c/opt=2", "g1"),
           c = make("c/input=b.c/opt=2", "g1"), d = make("c/input=a.c/opt=2", NULL),
           e = make("c/input=a.c", "g1");
    char *k = pm_cfg_key_except(&a, "opt");
    assert_string_equal(k, "input=a.c/variant=g1");
    free(k);
    k = pm_cfg_key_except(&a, "variant");
    assert_string_equal(k, "input=a.c/opt=0");
    free(k);
    k = pm_cfg_key_except(&d, "input");
    assert_string_equal(k, "opt=2");
    free(k);
    k = pm_cfg_key_except(&a, NULL);
    assert_string_equal(k, "input=a.c/opt=0/variant=g1");
    free(k);

    assert_true(pm_cfg_equal_except(&a, &b, "opt"));
    assert_false(pm_cfg_equal_except(&a, &b, NULL));
    assert_false(pm_cfg_equal_except(&a, &b, "input"));
    assert_false(pm_cfg_equal_except(&a, &c, "opt"));     /* input differs */
    assert_false(pm_cfg_equal_except(&b, &d, "opt"));     /* the variant differs */
    assert_true(pm_cfg_equal_except(&b, &d, "variant"));
    assert_false(pm_cfg_equal_except(&a, &e, "input"));   /* e lacks opt */
    assert_false(pm_cfg_equal_except(&e, &a, "input"));   /* either side's axes count */
    assert_true(pm_cfg_equal_except(&a, &e, "opt"));
    assert_true(pm_cfg_equal_except(&b, &b, NULL));
    /* equal on all other axes <=> the same matching key */
    pm_cfg *all[] = {&a, &b, &c, &d, &e};
    const char *axes[] = {"opt", "input", "variant"};
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                char *ki = pm_cfg_key_except(all[i], axes[x]), *kj = pm_cfg_key_except(all[j], axes[x]);
                assert_int_equal(pm_cfg_equal_except(all[i], all[j], axes[x]), !strcmp(ki, kj));
                free(ki), free(kj);
            }
    for (int i = 0; i < 5; i++)
        pm_cfg_clear(all[i]);
}

/* The layers embed it: the struct's own fields and its `cfg` are one storage. */
typedef struct holder {
    int before;
    PM_CFG_EMBED;
    int after;
} holder;

static void embedded_fields_are_the_cfg(void **state)
{
    holder h = {.before = 1, .key = "k/x=1", .kind = "command", .after = 2};
    assert_ptr_equal(h.cfg.key, h.key);
    assert_int_equal(pm_cfg_param_add(&h.cfg, "x", "1"), 0);
    assert_int_equal(h.n_params, 1);
    assert_string_equal(h.params[0].value, "1");
    assert_string_equal(pm_cfg_param(&h.cfg, "x"), "1");
    assert_int_equal(h.before + h.after, 3);
    pm_params_free(h.params, h.n_params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookup_by_name_and_number),
        cmocka_unit_test(split_key_as_compare_matches),
        cmocka_unit_test(key_of_round_trips),
        cmocka_unit_test(params_from_key_prefix_slash_and_errors),
        cmocka_unit_test(key_except_and_equality_on_all_other_axes),
        cmocka_unit_test(embedded_fields_are_the_cfg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
