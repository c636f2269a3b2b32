/* Spec reading on what users actually write: wrapped lists, repeated keys, long lines, names that are paths,
 * huge matrices, resolutions the generator cannot emit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

static pm_spec *parse_ok(const char *text)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    if (pm_spec_parse(text, "t.ini", &s, &e) != PM_OK)
        fail_msg("rejected: %s", e.msg);
    return s;
}

static void parse_fails(const char *text, const char *needle)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    if (pm_spec_parse(text, "t.ini", &s, &e) == PM_OK)
        fail_msg("accepted: %s", text);
    assert_null(s);
    if (!strstr(e.msg, needle))
        fail_msg("message '%s' lacks '%s'", e.msg, needle);
}

/* The first line's items were silently dropped when a list went on over the next line. */
static void wrapped_list_keeps_every_line(void **state)
{
    pm_spec *s = parse_ok("[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\n"
                          "windows = 128, 256,\n          512\n"
                          "precisions = int8\n    fp16 ; two lines\n");
    assert_int_equal(s->n_configs, 3 * 2);
    assert_string_equal(s->configs[0].key, "llm/qwen2/0.5b/w128/int8/L1/stock");
    assert_string_equal(s->configs[5].key, "llm/qwen2/0.5b/w512/fp16/L1/stock");
    pm_spec_free(s);
    /* an indented line with no key before it in its section is an error with its line number */
    parse_fails("[sweep]\nname = t\n[llm a]\n   qwen2:0.5b\n", "t.ini:4: expected KEY = VALUE");
}

/* A repeated key silently kept the last value. */
static void duplicate_keys_are_rejected(void **state)
{
    parse_fails("[sweep]\nname = t\nrepeats = 2\nrepeats = 5\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\n"
                "precisions = int8\n",
                "t.ini:4: [sweep] repeats given twice (first on line 3)");
    parse_fails("[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nwindows = 2\nprecisions = int8\n",
                "windows given twice");
    /* the same key in two different sections is fine */
    pm_spec *s = parse_ok("[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n"
                          "[llm b]\nmodels = qwen2:0.5b\nwindows = 2\nprecisions = int8\n");
    assert_int_equal(s->n_configs, 2);
    pm_spec_free(s);
}

/* Lines over 200 characters were rejected. */
static void long_lines_are_accepted(void **state)
{
    size_t cap = 64 * 1024;
    char *text = malloc(cap), *windows = malloc(cap);
    size_t n = 0;
    for (int w = 1; w <= 2000; w++)
        n += (size_t)snprintf(windows + n, cap - n, "%s%d", w > 1 ? ", " : "", w);
    snprintf(text, cap, "[sweep]\nname = t\n[llm a]\nmodels = qwen2:0.5b\nwindows = %s\nprecisions = int8\n", windows);
    assert_true(strlen(windows) > 200);
    pm_spec *s = parse_ok(text);
    assert_int_equal(s->n_configs, 2000);
    pm_spec_free(s);
    free(text);
    free(windows);
}

/* name = ../x wrote outside the working directory. */
static void name_is_not_a_path(void **state)
{
    const char *bad[] = {"../x", "a/b", "..", ".", "x/../../y", "-rf", ".hidden"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "[sweep]\nname = %s\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n",
                 bad[i]);
        parse_fails(text, "not a plain name");
    }
    pm_spec *s = parse_ok("[sweep]\nname = study-2.1_a\n[llm a]\nmodels = qwen2:0.5b\nwindows = 1\nprecisions = int8\n");
    assert_string_equal(s->name, "study-2.1_a");
    pm_spec_free(s);
}

static char *big_spec(int n_windows)
{
    size_t cap = (size_t)n_windows * 9 + 256, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text, cap, "[sweep]\nname = big\n[llm a]\nmodels = qwen2:0.5b\nprecisions = int4 int8 fp16\n"
                                     "windows =");
    for (int w = 1; w <= n_windows; w++)
        n += (size_t)snprintf(text + n, cap - n, " %d", w);
    snprintf(text + n, cap - n, "\n");
    return text;
}

/* 108,000 configs took 41 s to plan (a duplicate scan and a realloc per config): now linear; a matrix over the
 * cap is refused before it is expanded. */
static void planning_is_linear_and_capped(void **state)
{
    char *text = big_spec(36000);
    pm_spec *s = parse_ok(text);
    assert_int_equal(s->n_configs, 108000);
    pm_spec_free(s);
    free(text);
    text = big_spec(PM_SPEC_MAX_CONFIGS / 3 + 1);
    parse_fails(text, "over the limit of 1000000 configs");
    free(text);
}

/* The spec accepted resolutions the generator rejects (the sweep then failed config by config). */
static void cnn_resolution_in_the_generators_terms(void **state)
{
    const char *bad[] = {"8", "100", "4096", "1056"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "[sweep]\nname = t\n[cnn b]\nfamilies = resnet18\nresolutions = %s\nprecisions = fp16\n",
                 bad[i]);
        parse_fails(text, "multiple of 32 from 32 to 1024");
    }
    pm_spec *s = parse_ok("[sweep]\nname = t\n[cnn b]\nfamilies = resnet18\nresolutions = 32 224 1024\nprecisions = fp16\n");
    assert_int_equal(s->n_configs, 3);
    pm_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrapped_list_keeps_every_line),
        cmocka_unit_test(duplicate_keys_are_rejected),
        cmocka_unit_test(long_lines_are_accepted),
        cmocka_unit_test(name_is_not_a_path),
        cmocka_unit_test(planning_is_linear_and_capped),
        cmocka_unit_test(cnn_resolution_in_the_generators_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
