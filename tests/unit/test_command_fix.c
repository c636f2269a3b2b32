/* The command back end's fixes: [fix NAME] and [check] are read with their line numbers, a round of passmap fix
 * applies a variant's argv changes to the steps it names (and only there), the rule words reach the fix
 * catalogue, and the output check builds both sides and lets the spec's [check] command decide. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "fixplan.h"
#include "spec.h"
#include "util.h"

static const char *spec_text =
    "[sweep]\nname = t\nbackend = command\n"
    "[matrix c]\nopt = 1, 2\n"
    "[step cc]\nargv = clang -O{opt} -g -c a.c -o {out}/a.o\n"
    "[step link]\nargv = ld -g {out}/a.o\n"
    "[fix g0]\nstep = cc\nargv_drop = -g\nargv_add = -g0\nregime = codegen*, isel\nsize = wall >= 0.5\n"
    "why = debug info costs compile time\n"
    "[fix o1]\nvariant = O1\nstep = cc\nargv = clang -O1 -c a.c -o {out}/a.o\nsuperlinear = yes\n"
    "[check]\nargv = cmp {stock_out}/a.o {out}/a.o\n";

static void argv_is(char **argv, const char *want)
{
    char *got = pm_argv_join(argv);
    if (strcmp(got, want))
        fail_msg("argv '%s', want '%s'", got, want);
    free(got);
}

static void fixes_are_declared_with_their_rules(void **state)
{
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(spec_text, "s.ini", &s, &e), PM_OK);
    const pm_backend_ops *be = pm_backend_find("command");
    assert_non_null(be->fix);
    const pm_fix_decl *d;
    int n;
    be->fix->declared(s, &d, &n);
    assert_int_equal(n, 2);
    assert_string_equal(d[0].name, "g0");
    assert_string_equal(d[0].variant, "g0");
    assert_int_equal(d[0].line, 11);   /* its first key, as for [step] */
    assert_string_equal(d[1].variant, "O1");

    pm_fix_catalogue cat;
    assert_int_equal(pm_fix_catalogue_from_decls(d, n, NULL, "s.ini", &cat, &e), PM_OK);
    assert_int_equal(cat.n, 2);
    assert_string_equal(cat.items[0].regime, "codegen*, isel");
    assert_string_equal(cat.items[0].size, "wall >= 0.5");
    assert_string_equal(cat.items[0].pass, "*");
    assert_string_equal(cat.items[0].why, "debug info costs compile time");
    assert_int_equal(cat.items[1].superlinear, 1);
    assert_string_equal(cat.items[1].size, "*");
    pm_fix_catalogue_free(&cat);

    /* the rule words are validated where the fix is declared */
    pm_fix_decl bad = {.name = "x", .superlinear = "maybe", .line = 12};
    assert_int_not_equal(pm_fix_catalogue_from_decls(&bad, 1, NULL, "s.ini", &cat, &e), PM_OK);
    assert_non_null(strstr(e.msg, "s.ini:12: [fix x] superlinear 'maybe'"));
    static const char *const axes[] = {"opt", "input", NULL};
    bad = (pm_fix_decl){.name = "x", .size = "speed > 3", .line = 14};
    assert_int_not_equal(pm_fix_catalogue_from_decls(&bad, 1, axes, "s.ini", &cat, &e), PM_OK);
    assert_non_null(strstr(e.msg, "s.ini:14: size term 'speed > 3': unknown name 'speed' (window, layers, tile, ops, "
                                  "llvm_ops, wall; axes, opt, input)"));
    assert_int_not_equal(pm_fix_catalogue_from_decls(NULL, 0, NULL, "s.ini", &cat, &e), PM_OK);
    assert_non_null(strstr(e.msg, "no fix declared"));
    pm_spec_free(s);
}

/* A size term may name an axis of the study: its value when it is a number (else the term is false). */
static void size_terms_name_axes(void **state)
{
    static const char *const axes[] = {"opt", "input", NULL};
    pm_fix_decl d = {.name = "o0", .size = "opt >= 2 & wall > 0.1", .line = 3};
    pm_fix_catalogue cat;
    pm_err e = {0};
    assert_int_equal(pm_fix_catalogue_from_decls(&d, 1, axes, "s.ini", &cat, &e), PM_OK);
    pm_param p2[] = {{"input", "a.c"}, {"opt", "2"}}, p1[] = {{"input", "a.c"}, {"opt", "1"}},
             pt[] = {{"opt", "fast"}};
    pm_fix_evidence ev = {.key = "c/input=a.c/opt=2", .regime = "codegen", .wall_s = 0.5, .params = p2,
                          .n_params = 2, .window = NAN, .layers = NAN, .tile = NAN, .ops = NAN, .llvm_ops = NAN};
    assert_true(pm_fix_rule_matches(&cat.items[0], &ev, NULL, 0));
    ev.params = p1;
    assert_false(pm_fix_rule_matches(&cat.items[0], &ev, NULL, 0));
    ev.params = pt, ev.n_params = 1;
    assert_false(pm_fix_rule_matches(&cat.items[0], &ev, NULL, 0));
    pm_fix_catalogue_free(&cat);
    /* the TSV catalogue knows no axes: its size names stay the fixed ones */
    assert_int_not_equal(pm_fix_catalogue_parse("a\tb\t*\t*\t-\topt>=2\tw\n", "x.tsv", &cat, &e), PM_OK);
    assert_non_null(strstr(e.msg, "unknown name 'opt'"));
}

static void a_round_applies_the_variant_to_its_steps(void **state)
{
    pm_spec *s = NULL, *r = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(spec_text, "s.ini", &s, &e), PM_OK);
    const pm_backend_ops *be = pm_backend_find("command");
    const int cfg[] = {1, 1, 1, 0};
    const char *const var[] = {"stock", "g0", "O1+g0", "stock"};
    assert_int_equal(be->fix->round(s, cfg, var, 4, 5, "t-fix", &r, &e), PM_OK);
    assert_string_equal(r->name, "t-fix");
    assert_int_equal(r->repeats, 5);
    assert_int_equal(r->n_configs, 4);
    assert_string_equal(r->configs[0].key, "c/opt=2/stock");
    assert_string_equal(r->configs[1].key, "c/opt=2/g0");
    assert_string_equal(r->configs[1].variant, "g0");
    assert_string_equal(r->configs[3].key, "c/opt=1/stock");
    assert_string_equal(pm_cfg_param(&r->configs[1].cfg, "opt"), "2");

    pm_backend_ctx ctx = {.spec = r};
    assert_int_equal(be->prepare(&ctx, &e), PM_OK);
    pm_steps st;
    assert_int_equal(be->steps(&ctx, 0, NULL, "/r", &st, &e), PM_OK);
    argv_is(st.items[0].argv, "clang -O2 -g -c a.c -o /r/a.o");
    pm_steps_free(&st);
    assert_int_equal(be->steps(&ctx, 1, NULL, "/r", &st, &e), PM_OK);
    argv_is(st.items[0].argv, "clang -O2 -c a.c -o /r/a.o -g0");
    argv_is(st.items[1].argv, "ld -g /r/a.o");   /* step = cc: the link step keeps its -g */
    pm_steps_free(&st);
    /* a combination applies its fixes in the spec's order: g0's change to O1's replacement argv */
    assert_int_equal(be->steps(&ctx, 2, NULL, "/r", &st, &e), PM_OK);
    argv_is(st.items[0].argv, "clang -O1 -c a.c -o /r/a.o");
    argv_is(st.items[1].argv, "ld -g /r/a.o");
    pm_steps_free(&st);
    be->cleanup(&ctx);
    pm_spec_free(r);

    const char *const unknown[] = {"g0+fast"};
    assert_int_not_equal(be->fix->round(s, cfg, unknown, 1, 3, "t-fix", &r, &e), PM_OK);
    assert_null(r);
    assert_non_null(strstr(e.msg, "variant 'g0+fast': 'fast' is no [fix] of the spec"));

    /* the study itself runs stock: a variant axis is a label */
    pm_spec *v = NULL;
    char *text = NULL;
    const char *at = strstr(spec_text, "opt = 1, 2\n") + 11;
    assert_true(asprintf(&text, "%.*svariant = g0\n%s", (int)(at - spec_text), spec_text, at) > 0);
    assert_int_equal(pm_spec_parse(text, "s.ini", &v, &e), PM_OK);
    assert_string_equal(v->configs[0].variant, "g0");
    ctx = (pm_backend_ctx){.spec = v};
    assert_int_equal(be->prepare(&ctx, &e), PM_OK);
    assert_int_equal(be->steps(&ctx, 0, NULL, "/r", &st, &e), PM_OK);
    argv_is(st.items[0].argv, "clang -O1 -g -c a.c -o /r/a.o");
    pm_steps_free(&st);
    be->cleanup(&ctx);
    pm_spec_free(v);
    free(text);
    pm_spec_free(s);
}

static void bad_fix_sections_name_the_line(void **state)
{
    static const char *head = "[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 1\n"
                              "[step cc]\nargv = cc -O{opt} -g\n";
    static const struct { const char *tail, *want; } cases[] = {
        {"[fix x]\nstep = ld\nargv_add = -g0\n", "line 9: [fix x] step: no [step ld] in the spec (steps: cc)"},
        {"[fix x]\nargv_add = -g0\nspeed = 3\n", "line 10: [fix x]: unknown key 'speed'"},
        {"[fix x]\nregime = *\n", "line 9: [fix x] changes no argv (argv_add, argv_drop or argv)"},
        {"[fix x]\nargv_drop = -g3\n", "line 9: [fix x] argv_drop: '-g3' is no word of [step cc]'s argv"},
        {"[fix x]\nargv = cc -O1\nargv_add = -g0\n", "line 9: [fix x]: argv replaces the whole argv"},
        {"[step ld]\nargv = ld a.o\n[fix x]\nargv = cc -O1\n", "line 11: [fix x]: argv replaces one step's argv"},
        {"[fix x]\nargv_add = -O{opz}\n", "line 9: [fix x] argv_add: unknown placeholder {opz}"},
        {"[fix x]\nargv_add = {stock_out}\n", "{stock_out} is for the [check] command only"},
        {"[fix stock]\nargv_add = -g0\n", "line 9: [fix stock]: the fix needs a name"},
        {"[fix x]\nargv_add = -g0\nvariant = a+b\n", "line 10: [fix x] variant 'a+b' is not a token"},
        {"[fix x]\nargv_add = -g0\n[fix y]\nvariant = x\nargv_add = -g1\n",
         "line 11: [fix y]: variant 'x' is also [fix x]'s (line 9)"},
        {"[check]\ncmd = cmp a b\n", "line 9: [check]: unknown key 'cmd' (argv)"},
        {"[run]\ncmd = ./a.out\n", "line 9: [run]: unknown key 'cmd' (argv, size)"},
        {"[run]\nargv = {out}/a.out {nope}\n", "line 9: [run] argv: unknown placeholder {nope}"},
        {"[run]\nargv = {out}/a.out\nsize = {out}/a {out}/b\n", "line 10: [run] size: one path"},
        {"[run]\nsize = {out}/a.out\n", "[run] size without [run] argv"},
        {"[check]\nargv = cmp {stock_out}/a {out}/a {nope}\n", "line 9: [check] argv: unknown placeholder {nope}"},
        /* a rule is checked when the sweep reads the spec, not when passmap fix reads it after the sweep */
        {"[fix x]\nargv_add = -g0\nsuperlinear = maybe\n", "line 9: [fix x] superlinear 'maybe' (yes or -)"},
        {"[fix x]\nargv_add = -g0\nsize = speed > 3\n",
         "line 9: [fix x] size term 'speed > 3': unknown name 'speed' (window, layers, tile, ops, llvm_ops, wall; "
         "axes, opt)"},
        {"[fix x]\nargv_add = -g0\nsize = opt = 2\n", "line 9: [fix x] size term 'opt = 2': operator must be"},
        {"[fix x]\nargv_add = -g0\nsize = opt >= two\n", "line 9: [fix x] size term 'opt >= two': not a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        assert_true(asprintf(&text, "%s%s", head, cases[i].tail) > 0);
        pm_spec *s = NULL;
        pm_err e = {0};
        assert_int_not_equal(pm_spec_parse(text, "s.ini", &s, &e), PM_OK);
        assert_null(s);
        if (!strstr(e.msg, cases[i].want))
            fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].want);
        assert_null(strchr(e.msg, '\n'));
        free(text);
    }
}

/* Real processes: printf writes each side's output, cmp is the [check]. */
static void the_check_command_decides(void **state)
{
    char tmpl[] = "/tmp/pm-cmdfix-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    const char *text = "[sweep]\nname = t\nbackend = command\ntimeout = 20s\n[matrix m]\nopt = 7\n"
                       "[step p]\nargv = printf %s {opt}\nreport = stdout\n"
                       "[fix same]\nargv_drop = %s\nargv_add = %s\n"   /* printf 7 %s: still "7" */
                       "[fix other]\nargv_add = -x\n"                  /* printf %s 7 -x: "7-x" */
                       "[check]\nargv = cmp {stock_out}/step-0.stdout {out}/step-0.stdout\n";
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "s.ini", &s, &e), PM_OK);
    const pm_backend_fix_ops *fx = pm_backend_find("command")->fix;
    pm_fix_check_opts o = {0};
    const char *variants[] = {"stock", "same", "other"};
    char dirs[3][PATH_MAX], res[3][PATH_MAX];
    for (int i = 0; i < 3; i++) {
        snprintf(dirs[i], sizeof dirs[i], "%s/%s", tmpl, variants[i]);
        assert_int_equal(pm_util_mkdir_p(dirs[i], &e), PM_OK);
        if (fx->check_build(s, 0, variants[i], dirs[i], &o, res[i], sizeof res[i], &e))
            fail_msg("build %s: %s", variants[i], e.msg);
    }
    int same = -1;
    char outcome[160];
    assert_int_equal(fx->check_compare(s, 0, res[0], res[1], &o, &same, outcome, sizeof outcome, &e), PM_OK);
    assert_int_equal(same, 1);
    assert_string_equal(outcome, "same ([check] exits 0)");
    assert_int_equal(fx->check_compare(s, 0, res[0], res[2], &o, &same, outcome, sizeof outcome, &e), PM_OK);
    assert_int_equal(same, 0);
    assert_non_null(strstr(outcome, "differs ([check] exits 1"));
    pm_spec_free(s);

    /* no [check]: the study cannot be checked, which is not the same as "differs" */
    assert_int_equal(pm_spec_parse("[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 7\n"
                                   "[step p]\nargv = printf %s {opt}\n[fix f]\nargv_add = x\n", "s.ini", &s, &e),
                     PM_OK);
    assert_int_equal(fx->check_build(s, 0, "f", dirs[2], &o, res[2], sizeof res[2], &e), PM_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "no [check]"));
    pm_spec_free(s);
    pm_util_remove_tree(tmpl);
}

/* The program side of the ledger: [run] runs what the steps built ({out}: the check's folder), timed through the
 * runner; a non-zero exit is an error naming [run]; size is the named file's; a spec without [run] measures
 * nothing (unsupported, not a failure of the fix). */
static void the_run_step_times_the_program(void **state)
{
    char tmpl[] = "/tmp/pm-cmdrun-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    const char *text = "[sweep]\nname = t\nbackend = command\ntimeout = 20s\n[matrix m]\nn = 3\n"
                       "[step p]\nargv = sh -c \"printf 1234567 > {out}/prog\"\nreport = stdout\n"
                       "[fix f]\nargv_add = x\n"
                       "[check]\nargv = true\n"
                       "[run]\nargv = sh -c \"sleep 0.0{n}; test -s {out}/prog\"\nsize = {out}/prog\n";
    pm_spec *s = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "s.ini", &s, &e), PM_OK);
    const pm_backend_fix_ops *fx = pm_backend_find("command")->fix;
    assert_non_null(fx->program_run);
    pm_fix_check_opts o = {0};
    char res[PATH_MAX], what[128];
    assert_int_equal(fx->check_build(s, 0, "stock", tmpl, &o, res, sizeof res, &e), PM_OK);
    double t = NAN, cw = NAN, bytes = NAN;
    if (fx->program_run(s, 0, tmpl, &o, &t, &cw, what, sizeof what, &e))
        fail_msg("run: %s", e.msg);
    assert_true(t >= 0.03 && t < 10);   /* it slept 30 ms */
    assert_string_equal(what, "the [run] command's wall");
    assert_int_equal(fx->program_size(s, 0, tmpl, &bytes, what, sizeof what, &e), PM_OK);
    assert_float_equal(bytes, 7, 0);
    assert_string_equal(what, "size of prog");
    char prog[PATH_MAX + 8];
    snprintf(prog, sizeof prog, "%s/prog", tmpl);
    FILE *f = fopen(prog, "w");   /* empty: [run]'s test fails */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(fx->program_run(s, 0, tmpl, &o, &t, &cw, what, sizeof what, &e), PM_ERR_CHILD);
    assert_non_null(strstr(e.msg, "[run] exits 1"));
    pm_spec_free(s);
    assert_int_equal(pm_spec_parse("[sweep]\nname = t\nbackend = command\n[matrix m]\nopt = 7\n"
                                   "[step p]\nargv = printf %s {opt}\n[fix f]\nargv_add = x\n", "s.ini", &s, &e),
                     PM_OK);
    assert_int_equal(fx->program_run(s, 0, tmpl, &o, &t, &cw, what, sizeof what, &e), PM_ERR_UNSUPPORTED);
    assert_int_equal(fx->program_size(s, 0, tmpl, &bytes, what, sizeof what, &e), PM_ERR_UNSUPPORTED);
    pm_spec_free(s);
    pm_util_remove_tree(tmpl);
}

/* A round's (config, variant) pairs: a repeated pair is skipped, a config outside the study is an error (the
 * command and openvino rounds share this). */
static void round_pairs_skip_repeats_and_refuse_strangers(void **state)
{
    (void)state;
    const int configs[] = {0, 1, 0, 0, 5};
    const char *const variants[] = {"stock", "stock", "g0", "stock", "g0"};
    int dup = -1;
    pm_err e = {0};
    assert_int_equal(pm_spec_round_pair(configs, variants, 2, 2, &dup, &e), PM_OK);
    assert_int_equal(dup, 0);
    assert_int_equal(pm_spec_round_pair(configs, variants, 3, 2, &dup, &e), PM_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(pm_spec_round_pair(configs, variants, 4, 2, &dup, &e), PM_ERR_USAGE);
    assert_string_equal(e.msg, "round: config 5 is not in the study");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixes_are_declared_with_their_rules),
        cmocka_unit_test(size_terms_name_axes),
        cmocka_unit_test(a_round_applies_the_variant_to_its_steps),
        cmocka_unit_test(bad_fix_sections_name_the_line),
        cmocka_unit_test(round_pairs_skip_repeats_and_refuse_strangers),
        cmocka_unit_test(the_check_command_decides),
        cmocka_unit_test(the_run_step_times_the_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
