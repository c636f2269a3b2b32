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

static int has_arg(char **argv, const char *a)
{
    for (; *argv; argv++)
        if (!strcmp(*argv, a))
            return 1;
    return 0;
}

static const char *after(char **argv, const char *a)
{
    for (; *argv; argv++)
        if (!strcmp(*argv, a))
            return argv[1];
    return NULL;
}

static void fake_tools(pm_embedded_tools *t)
{
    memset(t, 0, sizeof *t);
    strcpy(t->bindir, "/opt/llvm/bin");
    strcpy(t->mlir_opt, "/opt/llvm/bin/mlir-opt");
    strcpy(t->mlir_translate, "/opt/llvm/bin/mlir-translate");
    strcpy(t->llc, "/opt/llvm/bin/llc");
}

static void pipeline_defaults(void **state)
{
    char *p = pm_embedded_pipeline(NULL);
    assert_non_null(p);
    const char *head = "builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),";
    assert_int_equal(strncmp(p, head, strlen(head)), 0);
    assert_non_null(strstr(p, "one-shot-bufferize{bufferize-function-boundaries=1 "
                              "function-boundary-type-conversion=identity-layout-map}"));
    assert_non_null(strstr(p, "buffer-deallocation-pipeline,func.func(convert-linalg-to-affine-loops,"
                              "affine-loop-tile{tile-size=256},canonicalize,"
                              "affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=16},canonicalize,cse,lower-affine)"));
    assert_non_null(strstr(p, "finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,"
                              "convert-cf-to-llvm,reconcile-unrealized-casts)"));
    assert_null(strstr(p, "allow-pattern-rollback"));
    free(p);
}

static void pipeline_options(void **state)
{
    pm_embedded_opts o = {.tile = 128, .unroll = 8, .no_rollback = 1, .llc_opt = -1};
    char *p = pm_embedded_pipeline(&o);
    assert_non_null(strstr(p, "affine-loop-tile{tile-size=128}"));
    assert_non_null(strstr(p, "unroll-full-threshold=8}"));
    assert_non_null(strstr(p, "convert-scf-to-cf{allow-pattern-rollback=0},expand-strided-metadata,lower-affine,"
                              "convert-to-llvm{allow-pattern-rollback=0},reconcile-unrealized-casts)"));
    assert_null(strstr(p, "finalize-memref-to-llvm"));
    free(p);
}

static void steps_argv(void **state)
{
    pm_embedded_tools t;
    fake_tools(&t);
    pm_embedded_opts o = {.llc_opt = -1};
    pm_steps s;
    pm_err err = {0};
    assert_int_equal(pm_embedded_steps(&o, &t, "/in/m.mlir", "/w", &s, &err), PM_OK);
    assert_int_equal(s.n, 3);

    pm_step *opt = &s.items[0];
    assert_string_equal(opt->tool, "mlir-opt");
    assert_string_equal(opt->argv[0], "/opt/llvm/bin/mlir-opt");
    assert_string_equal(opt->argv[1], "/in/m.mlir");
    assert_int_equal(strncmp(opt->argv[2], "--pass-pipeline=builtin.module(", 31), 0);
    assert_true(has_arg(opt->argv, "--mlir-timing"));
    assert_true(has_arg(opt->argv, "--mlir-timing-display=tree"));
    assert_true(has_arg(opt->argv, "--emit-bytecode"));
    assert_false(has_arg(opt->argv, "--mlir-output-format=json"));
    assert_false(has_arg(opt->argv, "--mlir-disable-threading"));
    assert_string_equal(after(opt->argv, "-o"), "/w/out.mlirbc");
    assert_int_equal(opt->report_stream, PM_STREAM_STDERR);
    assert_int_equal(opt->report_format, PM_FMT_MLIR_TEXT);
    assert_string_equal(opt->input, "/in/m.mlir");
    assert_string_equal(opt->output, "/w/out.mlirbc");
    assert_string_equal(opt->cwd, "/w");

    pm_step *tr = &s.items[1];
    assert_string_equal(tr->tool, "mlir-translate");
    assert_string_equal(tr->argv[0], "/opt/llvm/bin/mlir-translate");
    assert_true(has_arg(tr->argv, "--mlir-to-llvmir"));
    assert_true(has_arg(tr->argv, "--mlir-timing"));
    assert_true(has_arg(tr->argv, "/w/out.mlirbc"));
    assert_string_equal(after(tr->argv, "-o"), "/w/out.ll");
    assert_string_equal(tr->input, "/w/out.mlirbc");
    assert_string_equal(tr->output, "/w/out.ll");
    assert_int_equal(tr->report_format, PM_FMT_MLIR_TEXT);

    pm_step *llc = &s.items[2];
    assert_string_equal(llc->tool, "llc");
    char *joined = pm_argv_join(llc->argv);
    assert_string_equal(joined, "/opt/llvm/bin/llc -O2 -filetype=obj -time-passes /w/out.ll -o /w/out.o");
    free(joined);
    assert_int_equal(llc->report_stream, PM_STREAM_STDERR);
    assert_int_equal(llc->report_format, PM_FMT_LLVM_TEXT);
    assert_string_equal(llc->output, "/w/out.o");
    pm_steps_free(&s);
}

static void steps_json_single_thread(void **state)
{
    pm_embedded_tools t;
    fake_tools(&t);
    pm_embedded_opts o = {.json = 1, .single_thread = 1, .display = "list", .llc_opt = 3, .tile = 64};
    pm_steps s;
    pm_err err = {0};
    assert_int_equal(pm_embedded_steps(&o, &t, "m.mlir", "/w", &s, &err), PM_OK);
    assert_true(has_arg(s.items[0].argv, "--mlir-output-format=json"));
    assert_true(has_arg(s.items[0].argv, "--mlir-disable-threading"));
    assert_true(has_arg(s.items[0].argv, "--mlir-timing-display=list"));
    assert_non_null(strstr(s.items[0].argv[2], "tile-size=64}"));
    assert_int_equal(s.items[0].report_format, PM_FMT_MLIR_JSON);
    assert_true(has_arg(s.items[1].argv, "--mlir-output-format=json"));
    assert_true(has_arg(s.items[1].argv, "--mlir-disable-threading"));
    assert_int_equal(s.items[1].report_format, PM_FMT_MLIR_JSON);
    assert_string_equal(s.items[2].argv[1], "-O3");
    pm_steps_free(&s);
}

static void steps_bad_options(void **state)
{
    pm_embedded_tools t;
    fake_tools(&t);
    pm_steps s;
    pm_err err = {0};
    pm_embedded_opts o = {.display = "flat", .llc_opt = -1};
    assert_int_equal(pm_embedded_steps(&o, &t, "m.mlir", "/w", &s, &err), PM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "tree or list"));
    assert_int_equal(s.n, 0);
    pm_embedded_opts o2 = {.llc_opt = 4};
    assert_int_equal(pm_embedded_steps(&o2, &t, "m.mlir", "/w", &s, &err), PM_ERR_USAGE);
}

static void finds_real_tools(void **state)
{
    pm_embedded_tools t;
    pm_err err = {0};
    assert_int_equal(pm_embedded_find_tools(NULL, &t, &err), PM_OK);
    assert_int_equal(access(t.mlir_opt, X_OK), 0);
    assert_int_equal(access(t.mlir_translate, X_OK), 0);
    assert_int_equal(access(t.llc, X_OK), 0);
    assert_non_null(strstr(t.mlir_opt, "/mlir-opt"));
    /* Version is "MAJOR.MINOR.PATCH" and the bindir of Debian's packages names the major. */
    assert_non_null(strchr(t.version, '.'));
    int major = atoi(t.version);
    assert_true(major >= 15);
    char want[64];
    snprintf(want, sizeof want, "llvm-%d", major);
    if (!getenv("PASSMAP_LLVM_BINDIR") && strncmp(t.bindir, "/usr/lib/llvm-", 14) == 0)
        assert_non_null(strstr(t.bindir, want));

    /* Explicit bindir wins, and a missing one is NOTFOUND. */
    pm_embedded_tools t2;
    char dir[512];
    strcpy(dir, t.bindir);
    assert_int_equal(pm_embedded_find_tools(dir, &t2, &err), PM_OK);
    assert_string_equal(t2.mlir_opt, t.mlir_opt);
    assert_int_equal(pm_embedded_find_tools("/nonexistent/bin", &t2, &err), PM_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/bin"));
}

static void env_bindir(void **state)
{
    pm_embedded_tools t;
    pm_err err = {0};
    char *old = getenv("PASSMAP_LLVM_BINDIR") ? strdup(getenv("PASSMAP_LLVM_BINDIR")) : NULL;
    setenv("PASSMAP_LLVM_BINDIR", "/nonexistent/env", 1);
    assert_int_equal(pm_embedded_find_tools(NULL, &t, &err), PM_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/env"));
    if (old) {
        setenv("PASSMAP_LLVM_BINDIR", old, 1);
        free(old);
    } else
        unsetenv("PASSMAP_LLVM_BINDIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipeline_defaults),
        cmocka_unit_test(pipeline_options),
        cmocka_unit_test(steps_argv),
        cmocka_unit_test(steps_json_single_thread),
        cmocka_unit_test(steps_bad_options),
        cmocka_unit_test(finds_real_tools),
        cmocka_unit_test(env_bindir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
