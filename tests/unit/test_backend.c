/* The back-end table: the embedded preset reproduces the steps the hand-written back end built, the
 * `command` back end reads its spec syntax, expands steps without a shell, and measures declared metrics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "embedded.h"
#include "spec.h"
#include "steps.h"
#include "util.h"

/* The fixture was captured from the hand-written pm_embedded_steps before the embedded pipeline became a
 * preset: tool|stream|format|input|output|argv per step, for three option sets. */
static void dump_steps(const char *label, const pm_embedded_opts *o, FILE *f)
{
    pm_embedded_tools t;
    memset(&t, 0, sizeof t);
    strcpy(t.bindir, "/opt/llvm/bin");
    strcpy(t.mlir_opt, "/opt/llvm/bin/mlir-opt");
    strcpy(t.mlir_translate, "/opt/llvm/bin/mlir-translate");
    strcpy(t.llc, "/opt/llvm/bin/llc");
    pm_steps s;
    pm_err err = {0};
    assert_int_equal(pm_embedded_steps(o, &t, "/in/m.mlir", "/w", &s, &err), PM_OK);
    for (int i = 0; i < s.n; i++) {
        char *j = pm_argv_join(s.items[i].argv);
        fprintf(f, "%s|%d|%s|%d|%d|%s|%s|%s\n", label, i, s.items[i].tool, s.items[i].report_stream,
                s.items[i].report_format, s.items[i].input, s.items[i].output, j);
        free(j);
    }
    pm_steps_free(&s);
}

static void embedded_preset_matches_the_old_steps(void **state)
{
    char *got = NULL, *want = NULL;
    size_t got_len = 0, want_len;
    FILE *f = open_memstream(&got, &got_len);
    pm_embedded_opts a = {.llc_opt = -1};
    pm_embedded_opts b = {.tile = 128, .unroll = 8, .no_rollback = 1, .single_thread = 1, .display = "list",
                          .json = 1, .llc_opt = 3};
    pm_embedded_opts c = {.tile = 256, .unroll = 16, .llc_opt = 2, .display = "tree"};
    dump_steps("default", &a, f);
    dump_steps("all", &b, f);
    dump_steps("sweep", &c, f);
    fclose(f);
    pm_err e = {0};
    assert_int_equal(pm_util_read_file(PM_SOURCE_DIR "/tests/fixtures/backend/embedded-steps-before.txt", &want,
                                       &want_len, &e), PM_OK);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

static void embedded_steps_declare_ir_metrics(void **state)
{
    pm_embedded_tools t;
    memset(&t, 0, sizeof t);
    strcpy(t.bindir, "/b");
    pm_steps s;
    pm_err err = {0};
    pm_embedded_opts o = {.llc_opt = -1};
    assert_int_equal(pm_embedded_steps(&o, &t, "/in/m.mlir", "/w", &s, &err), PM_OK);
    assert_int_equal(s.items[0].n_metrics, 1);
    assert_string_equal(s.items[0].metrics[0].name, "ir.mlirbc_bytes");
    assert_int_equal(s.items[2].n_metrics, 2);
    assert_string_equal(s.items[2].metrics[0].name, "ir.llvm_ops");
    assert_int_equal(s.items[2].metrics[0].kind, PM_SM_LLVM_INSTS);
    assert_string_equal(s.items[2].metrics[0].source, "/w/out.ll");
    pm_steps_free(&s);
}

static void registry_has_three_rows(void **state)
{
    assert_non_null(pm_backend_find("embedded"));
    assert_non_null(pm_backend_find("openvino"));
    assert_non_null(pm_backend_find("command"));
    assert_null(pm_backend_find("gcc"));
    assert_non_null(strstr(pm_backend_names(), "command"));
    /* passmap run --backend asks the rows, the default first */
    assert_int_equal(pm_backend_find("embedded")->run_one, PM_RUN_ONE_NONE);
    assert_ptr_equal(pm_backend_run_default(), pm_backend_find("command"));
    assert_string_equal(pm_backend_run_names(), "command or openvino");
}

static void tool_labels(void **state)
{
    char b[64];
    pm_tool_label("/usr/bin/clang-22", b, sizeof b);
    assert_string_equal(b, "clang");
    pm_tool_label("opt-22.1", b, sizeof b);
    assert_string_equal(b, "opt");
    pm_tool_label("/usr/lib/llvm-22/bin/mlir-opt", b, sizeof b);
    assert_string_equal(b, "mlir-opt");
    pm_tool_label("cc1", b, sizeof b);
    assert_string_equal(b, "cc1");
    /* a program name longer than the label was cut (and matched another tool's stage map): now refused */
    char name[300];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = 0;
    assert_int_equal(pm_tool_label(name, b, sizeof b), PM_ERR_USAGE);
    char text[600];
    snprintf(text, sizeof text, "[sweep]\nname = t\nbackend = command\n[matrix m]\nv = 1\n[step s]\nargv = /bin/%s {v}\n",
             name);
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "t.ini", &s, &e), PM_OK);
    pm_backend_ctx ctx = {.spec = s};
    const pm_backend_ops *be = pm_backend_find("command");
    assert_int_equal(be->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    assert_int_equal(be->steps(&ctx, 0, NULL, "/run/x", &st, &e), PM_ERR_USAGE);
    if (!strstr(e.msg, "program name longer than 255 characters"))
        fail_msg("steps: '%s'", e.msg);
    be->cleanup(&ctx);
    pm_spec_free(s);
}

static void words_split_like_a_shell_without_one(void **state)
{
    char **w = NULL;
    pm_err e = {0};
    assert_int_equal(pm_split_words("opt-22 -passes='default<O3>' \"a b\" c\\ d  $HOME;x", &w, &e), PM_OK);
    assert_string_equal(w[0], "opt-22");
    assert_string_equal(w[1], "-passes=default<O3>");
    assert_string_equal(w[2], "a b");
    assert_string_equal(w[3], "c d");
    assert_string_equal(w[4], "$HOME;x");
    assert_null(w[5]);
    pm_argv_free(w);
    assert_int_not_equal(pm_split_words("a 'b", &w, &e), PM_OK);
}

/* A temporary spec folder with three C files. */
static char dir[256];

static int make_dir(void **state)
{
    strcpy(dir, "/tmp/pm-backend-XXXXXX");
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp)
        snprintf(dir, sizeof dir, "%s/pm-backend-XXXXXX", tmp);
    if (!mkdtemp(dir))
        return -1;
    char p[512];
    snprintf(p, sizeof p, "%s/src", dir);
    pm_err e = {0};
    pm_util_mkdir_p(p, &e);
    const char *files[] = {"b.c", "a.c", "c.h"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/src/%s", dir, files[i]);
        FILE *f = fopen(p, "w");
        fputs("int x;\n", f);
        fclose(f);
    }
    return 0;
}

static int remove_dir(void **state)
{
    pm_util_remove_tree(dir);
    return 0;
}

static int parse_in_dir(const char *text, pm_spec **s, pm_err *e)
{
    char path[512];
    snprintf(path, sizeof path, "%s/spec.ini", dir);
    return pm_spec_parse(text, path, s, e);
}

static const char *clang_spec =
    "[sweep]\nname = clang-opt\nbackend = command\nrepeats = 3\n\n"
    "[matrix c]                 ; comment\ninput = src/*.c\nopt = 0, 1, 2, 3\n\n"
    "[step cc]\nargv = clang-22 -O{opt} -c {input} -o {out}/obj.o -ftime-trace\nreport = {out}/obj.json\n"
    "format = auto\noutputs = {out}/obj.o\ntool = clang\nir.obj_bytes = size {out}/obj.o\n";

static void command_spec_expands_axes(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(parse_in_dir(clang_spec, &s, &e), PM_OK);
    assert_string_equal(s->backend, "command");
    assert_int_equal(s->n_configs, 2 * 4);
    assert_string_equal(s->configs[0].key, "c/input=a.c/opt=0");
    assert_string_equal(s->configs[7].key, "c/input=b.c/opt=3");
    assert_string_equal(s->configs[0].kind, "command");
    assert_string_equal(pm_cfg_param(&s->configs[1].cfg, "opt"), "1");
    assert_string_equal(pm_cfg_param(&s->configs[1].cfg, "input"), "a.c");
    assert_non_null(strstr(s->configs[1].paths[0], "/src/a.c"));
    assert_int_equal(s->configs[1].paths[0][0], '/');

    pm_backend_ctx ctx = {.spec = s};
    const pm_backend_ops *be = pm_backend_find("command");
    assert_int_equal(be->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    assert_int_equal(be->steps(&ctx, 2, NULL, "/run/x", &st, &e), PM_OK);
    assert_int_equal(st.n, 1);
    assert_string_equal(st.items[0].tool, "clang");
    assert_string_equal(st.items[0].argv[0], "clang-22");
    assert_string_equal(st.items[0].argv[1], "-O2");
    assert_non_null(strstr(st.items[0].argv[3], "/src/a.c"));
    assert_string_equal(st.items[0].argv[5], "/run/x/obj.o");
    assert_string_equal(st.items[0].report_path, "/run/x/obj.json");
    assert_int_equal(st.items[0].report_stream, PM_STREAM_NONE);
    assert_string_equal(st.items[0].output, "/run/x/obj.o");
    assert_int_equal(st.items[0].n_metrics, 1);
    pm_steps_free(&st);
    be->cleanup(&ctx);
    pm_spec_free(s);
}

static void values_with_spaces_stay_one_word(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(parse_in_dir("[sweep]\nname = t\nbackend = command\n[matrix m]\nv = x\n"
                                  "[step s]\nargv = tool '{spec_dir}/my file' {v} {out}\nreport = stdout\n",
                                  &s, &e), PM_OK);
    pm_backend_ctx ctx = {.spec = s};
    const pm_backend_ops *cmd = pm_backend_find("command");
    assert_int_equal(cmd->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    assert_int_equal(cmd->steps(&ctx, 0, NULL, "/r u n", &st, &e), PM_OK);
    assert_non_null(strstr(st.items[0].argv[1], "/my file"));
    assert_string_equal(st.items[0].argv[2], "x");
    assert_string_equal(st.items[0].argv[3], "/r u n");
    assert_null(st.items[0].argv[4]);
    assert_string_equal(st.items[0].tool, "tool");
    assert_int_equal(st.items[0].report_stream, PM_STREAM_STDOUT);
    pm_steps_free(&st);
    cmd->cleanup(&ctx);
    pm_spec_free(s);
}

/* Start-up: one null step per distinct tool with a null_argv (labelled as the real step is), a sentence for each
 * tool without one; the embedded back end starts its three tools on an empty module. */
static void null_steps_per_tool(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(parse_in_dir("[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1, 2\n"
                                  "[step cc]\nargv = clang-22 -O{opt} -c x.c\nnull_argv = clang-22 -c -x c /dev/null "
                                  "-o {out}/null.o\n"
                                  "[step cc2]\nargv = clang-22 -O{opt} -c y.c\nnull_argv = clang-22 -E /dev/null\n"
                                  "[step link]\nargv = ld -o {out}/a.out\n",
                                  &s, &e), PM_OK);
    pm_backend_ctx ctx = {.spec = s};
    const pm_backend_ops *cmd = pm_backend_find("command");
    assert_non_null(cmd->null_steps);
    assert_int_equal(cmd->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    char *missing = NULL;
    assert_int_equal(cmd->null_steps(&ctx, "/n", &st, &missing, &e), PM_OK);
    assert_int_equal(st.n, 1);   /* cc2 is the same tool: measured once */
    assert_string_equal(st.items[0].tool, "clang");
    assert_string_equal(st.items[0].argv[6], "/n/null.o");
    assert_string_equal(missing, "ld: [step link] has no null_argv");
    free(missing);
    pm_steps_free(&st);
    cmd->cleanup(&ctx);
    pm_spec_free(s);
    /* a null run has no config: an axis in null_argv is refused with its line */
    assert_int_not_equal(parse_in_dir("[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\n"
                                      "argv = cc -O{opt}\nnull_argv = cc -O{opt} /dev/null\n", &s, &e), PM_OK);
    assert_non_null(strstr(e.msg, "line 8: [step s] null_argv: {opt} is not out, bindir or spec_dir"));

    assert_int_equal(parse_in_dir("[sweep]\nname = t\n[llm q]\nmodels = qwen2:0.5b\nwindows = 32\n"
                                  "precisions = int8\nlayers = 1\n", &s, &e), PM_OK);
    pm_embedded_tools tools = {0};
    strcpy(tools.bindir, "/llvm/bin");
    ctx = (pm_backend_ctx){.spec = s, .state = &tools};
    const pm_backend_ops *emb = pm_backend_find("embedded");
    assert_int_equal(emb->null_steps(&ctx, dir, &st, &missing, &e), PM_OK);
    assert_null(missing);
    assert_int_equal(st.n, 3);
    const char *want[] = {"mlir-opt", "mlir-translate", "llc"};
    for (int i = 0; i < 3; i++)
        assert_string_equal(st.items[i].tool, want[i]);
    char empty[600];
    snprintf(empty, sizeof empty, "%s/empty.mlir", dir);
    assert_string_equal(st.items[0].argv[1], empty);
    FILE *f = fopen(empty, "r");
    char line[64] = "";
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "module {}\n");
    pm_steps_free(&st);
    pm_spec_free(s);
}

static void bad_command_specs_name_the_line(void **state)
{
    static const struct { const char *text, *want; } cases[] = {
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\nargv = cc -O{opz}\n",
         "line 7: [step s] argv: unknown placeholder {opz}"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\ninput = src/*.zig\n[step s]\nargv = cc {input}\n",
         "line 5: [matrix m] input: 'src/*.zig' matches no file"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\nreport = stdout\n",
         "line 7: [step s] has no argv"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\nargv = cc\nflavour = x\n",
         "line 8: [step s]: unknown key 'flavour'"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\nargv = cc\n[llm x]\nmodels = a\n",
         "line 9: section [llm x] is not read by back end command"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n", "needs a [step NAME]"},
        {"[sweep]\nname = t\nbackend = command\n[step s]\nargv = cc\n", "needs a [matrix NAME]"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nout = 1\n[step s]\nargv = cc\n",
         "line 5: [matrix m]: 'out' is a built-in placeholder"},
        {"[sweep]\nname = t\nbackend = command\n[matrix a]\nopt = 1\n[matrix b]\nlevel = 1\n[step s]\nargv = cc {opt}\n",
         "not an axis of [matrix b]"},
        {"[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n[step s]\nargv = cc\nir.x = weight f\n",
         "line 8: [step s] ir.x: unknown metric kind 'weight'"},
        {"[sweep]\nname = t\nbackend = gcc\n", "line 3: [sweep] backend: 'gcc' (embedded, openvino, command)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pm_spec *s = NULL;
        pm_err e = {0};
        assert_int_not_equal(parse_in_dir(cases[i].text, &s, &e), PM_OK);
        assert_null(s);
        if (!strstr(e.msg, cases[i].want))
            fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].want);
        assert_null(strchr(e.msg, '\n'));
    }
}

/* No silent caps on spec values: a variant axis value longer than the config's variant field was dropped without
 * a word (the config ran as "no variant"); a spec path longer than its field was cut (relative model paths then
 * resolved against another folder). Both now fail naming the limit. */
static void long_spec_values_fail_naming_the_limit(void **state)
{
    char text[512], v[80];
    memset(v, 'v', sizeof v - 1);
    v[sizeof v - 1] = 0;
    snprintf(text, sizeof text, "[sweep]\nname = t\nbackend = command\n[matrix m]\nvariant = stock, %s\n"
                                "[step s]\nargv = cc {variant}\n", v);
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_not_equal(parse_in_dir(text, &s, &e), PM_OK);
    assert_null(s);
    if (!strstr(e.msg, "longer than 47 characters"))
        fail_msg("variant: '%s'", e.msg);
    char *path = malloc(2100);
    assert_non_null(path);
    memset(path, 'd', 2099);
    path[0] = '/';
    path[2099] = 0;
    memset(&e, 0, sizeof e);
    assert_int_not_equal(pm_spec_parse("[sweep]\nname = t\n", path, &s, &e), PM_OK);
    free(path);
    if (!strstr(e.msg, "spec path longer than 1023 bytes"))
        fail_msg("path: '%s'", e.msg);
    /* a config key over the limit: the message names it and shows the key's start; at the limit it is fine */
    char big[700], ok[700];
    memset(big, 'x', 600);
    big[600] = 0;
    memset(ok, 'x', 505);   /* "m/a=" + 505 + ... = 509 characters */
    ok[505] = 0;
    char *t2 = NULL;
    assert_true(asprintf(&t2, "[sweep]\nname = t\nbackend = command\n[matrix m]\na = %s\n[step s]\nargv = cc {a}\n",
                         big) > 0);
    memset(&e, 0, sizeof e);
    assert_int_not_equal(parse_in_dir(t2, &s, &e), PM_OK);
    free(t2);
    char want[200];
    snprintf(want, sizeof want, "[matrix m]: a config key is longer than 511 characters: m/a=%.76s...", big);
    if (!strstr(e.msg, want))
        fail_msg("key: '%s'", e.msg);
    assert_true(asprintf(&t2, "[sweep]\nname = t\nbackend = command\n[matrix m]\na = %s\n[step s]\nargv = cc {a}\n",
                         ok) > 0);
    memset(&e, 0, sizeof e);
    assert_int_equal(parse_in_dir(t2, &s, &e), PM_OK);
    assert_int_equal(strlen(s->configs[0].key), 509);
    pm_spec_free(s);
    free(t2);
}

static void literal_braces_are_not_placeholders(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(parse_in_dir("[sweep]\nname = t\nbackend = command\n[matrix m]\nn = 4\n[step s]\n"
                                  "argv = mlir-opt --pass-pipeline=builtin.module(affine-loop-tile{tile-size={n}}) {{x}\n",
                                  &s, &e), PM_OK);
    pm_backend_ctx ctx = {.spec = s};
    const pm_backend_ops *cmd = pm_backend_find("command");
    assert_int_equal(cmd->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    assert_int_equal(cmd->steps(&ctx, 0, NULL, "/r", &st, &e), PM_OK);
    assert_string_equal(st.items[0].argv[1], "--pass-pipeline=builtin.module(affine-loop-tile{tile-size=4})");
    assert_string_equal(st.items[0].argv[2], "{x}");
    pm_steps_free(&st);
    cmd->cleanup(&ctx);
    pm_spec_free(s);
}

static void write_file(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static double eval(const char *decl)
{
    pm_step_metric m;
    pm_err e = {0};
    double v = -1;
    assert_int_equal(pm_step_metric_parse(decl, &m, &e), PM_OK);
    char out[512];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    int rc = pm_step_metric_eval(&m, dir, out, out, 0, &v, &e);
    pm_step_metric_free(&m);
    return rc == PM_OK ? v : -1;
}

static void metrics_measure_files_and_streams(void **state)
{
    write_file("out.txt", "one call\ntwo call call\n");
    write_file("t.json", "{\"a\": {\"b\": [1, {\"c\": 42.5}]}}");
    write_file("m.mlir", "module {\n  func.func @f(%a: i32) -> i32 {\n    %0 = arith.addi %a, %a : i32\n"
                         "    %1:2 = \"test.two\"() : () -> (i32, i32)\n    return %0 : i32\n  }\n}\n");
    write_file("m.ll", "define i32 @f(i32 %a) {\n  %1 = add i32 %a, %a\n  ret i32 %1\n}\n");
    assert_true(eval("size out.txt") == 23);
    assert_true(eval("lines out.txt") == 2);
    assert_true(eval("count stdout call") == 3);
    assert_true(eval("count out.txt ^two") == 1);
    assert_true(eval("json t.json a.b.1.c") == 42.5);
    assert_true(eval("json t.json a.x") == -1);
    assert_true(eval("mlir-ops m.mlir") == 3); /* func.func, arith.addi, "test.two" (return has no dialect) */
    assert_true(eval("llvm-insts m.ll") == 2);
    assert_true(eval("size missing.o") == -1);
    pm_step_metric m;
    pm_err e = {0};
    assert_int_not_equal(pm_step_metric_parse("count out.txt", &m, &e), PM_OK);
    assert_int_not_equal(pm_step_metric_parse("count out.txt (", &m, &e), PM_OK);
    assert_int_not_equal(pm_step_metric_parse("size a b", &m, &e), PM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(embedded_preset_matches_the_old_steps),
        cmocka_unit_test(embedded_steps_declare_ir_metrics),
        cmocka_unit_test(registry_has_three_rows),
        cmocka_unit_test(tool_labels),
        cmocka_unit_test(words_split_like_a_shell_without_one),
        cmocka_unit_test(command_spec_expands_axes),
        cmocka_unit_test(values_with_spaces_stay_one_word),
        cmocka_unit_test(bad_command_specs_name_the_line),
        cmocka_unit_test(null_steps_per_tool),
        cmocka_unit_test(long_spec_values_fail_naming_the_limit),
        cmocka_unit_test(literal_braces_are_not_placeholders),
        cmocka_unit_test(metrics_measure_files_and_streams),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
