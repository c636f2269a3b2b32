#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "parse.h"
#include "passcount.h"

/* Name compression, relative positions, a call's inclusive cost, recursion levels and two objects. */
static const char small[] =
    "# callgrind format\n"
    "version: 1\n"
    "cmd: llc t.ll\n"
    "part: 1\n"
    "desc: Trigger: Program termination\n"
    "positions: line\n"
    "events: Ir\n"
    "summary: 1000\n"
    "\n"
    "ob=(1) /lib/libLLVM.so\n"
    "fl=(1) ???\n"
    "fn=(1) main\n"
    "0 10\n"
    "cfn=(2) pass::run()\n"
    "calls=1 0\n"
    "0 900\n"
    "cob=(2) /lib/libc.so\n"
    "cfi=(2) ???\n"
    "cfn=(3) memcpy\n"
    "calls=2 0\n"
    "+2 90\n"
    "\n"
    "fn=(2)\n"
    "+3 500\n"
    "-1 100\n"
    "cfn=(4) helper'2\n"
    "calls=1 0\n"
    "* 300\n"
    "\n"
    "fn=(4)\n"
    "0 300\n"
    "fn=(5) helper\n"
    "0 1\n"
    "cfn=(4)\n"
    "calls=1 0\n"
    "0 300\n"
    "\n"
    "ob=(2)\n"
    "fn=(3)\n"
    "0 90\n";

static void counts_self_and_inclusive(void **state)
{
    (void)state;
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_err e = {0};
    assert_int_equal(pm_callgrind_parse_buffer(small, sizeof small - 1, "t", &cg, &e), PM_OK);
    assert_string_equal(cg.event, "Ir");
    assert_string_equal(cg.cmd, "llc t.ll");
    assert_int_equal(cg.n_parts, 1);
    assert_int_equal(cg.total, 1000);
    assert_string_equal(cg.parts[0].trigger, "Program termination");
    const pm_cg_fn *m = pm_callgrind_find(&cg, "main"), *p = pm_callgrind_find(&cg, "pass::run()");
    assert_non_null(m);
    assert_int_equal(m->self, 10);
    assert_int_equal(m->incl, 1000);
    assert_non_null(p);
    assert_int_equal(p->self, 600);
    assert_int_equal(p->incl, 900);
    /* helper'2 is helper's second recursion level: one function, the call between levels not counted twice */
    const pm_cg_fn *h = pm_callgrind_find(&cg, "helper");
    assert_non_null(h);
    assert_int_equal(h->self, 301);
    assert_int_equal(h->incl, 301);
    assert_null(pm_callgrind_find(&cg, "helper'2"));
    const pm_cg_fn *c = pm_callgrind_find(&cg, "memcpy");
    assert_non_null(c);
    assert_string_equal(c->object, "/lib/libc.so");
    assert_int_equal(c->incl, 90);
    pm_callgrind_free(&cg);
}

static void malformed_input_names_the_line(void **state)
{
    (void)state;
    pm_callgrind cg;
    pm_err e = {0};
    const char *cases[] = {
        "Total Execution Time: 1 s\n",                                   /* not callgrind output */
        "# callgrind format\nevents: Ir\nfn=(7)\n0 1\n",                 /* id used before it is defined */
        "# callgrind format\nevents: Ir\n0 5\n",                         /* cost before fn= */
        "# callgrind format\nevents: Ir\nfn=a\ncfn=b\ncalls=1 0\nfn=c\n", /* calls= without its cost */
        "# callgrind format\nevents: Ir\nfn=a\n0 x5\n",                  /* bad value */
        "# callgrind format\nfn=a\n0 5\n",                               /* no events: */
    };
    /* a NUL inside a name (found by the fuzzer: the name table read past the interned copy) */
    static const char nul[] = "# callgrind format\nevents: Ir\nfn=(1) ab\nfn=(2) a\0b\n0 1\n";
    pm_callgrind_init(&cg);
    assert_int_equal(pm_callgrind_parse_buffer(nul, sizeof nul - 1, "bad.out", &cg, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "bad.out:4"));
    pm_callgrind_free(&cg);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pm_callgrind_init(&cg);
        assert_int_equal(pm_callgrind_parse_buffer(cases[i], strlen(cases[i]), "bad.out", &cg, &e), PM_ERR_PARSE);
        assert_non_null(strstr(e.msg, "bad.out"));
        pm_callgrind_free(&cg);
    }
}

static void add_pass(pm_report *r, const char *name, double wall, unsigned flags)
{
    pm_pass p = {.name = (char *)name, .wall_s = wall, .user_s = -1, .parent = -1, .flags = flags};
    assert_int_equal(pm_report_add_pass(r, &p), PM_OK);
}

/* Dumps at timer starts and stops (the wrapper's triggers): each part goes to every timer running, as a timer's
 * wall does; a stop whose start was never seen only ends a part. */
static void timer_parts_count_passes(void **state)
{
    (void)state;
    static const char dumps[] =
        "# callgrind format\nevents: Ir\n"
        "part: 1\ndesc: Trigger: Client Request: start 0x10 ISel\ntotals: 100\n"   /* startup: no timer */
        "part: 2\ndesc: Trigger: Client Request: start 0x20 DAG Combine\ntotals: 40\n"
        "part: 3\ndesc: Trigger: Client Request: stop 0x20 DAG Combine\ntotals: 25\n"
        "part: 4\ndesc: Trigger: Client Request: stop 0x30 Instruction Scheduling\ntotals: 5\n"
        "part: 5\ndesc: Trigger: Client Request: stop 0x10 ISel\ntotals: 10\n"
        "part: 6\ndesc: Trigger: Client Request: start 0x10 ISel\ntotals: 3\n"
        "part: 7\ndesc: Trigger: Client Request: stop 0x10 ISel\ntotals: 7\n"
        "part: 8\ndesc: Trigger: Client Request: start 0x40 Canon\ntotals: 1\n"
        "part: 9\ndesc: Trigger: Client Request: stop 0x40 Canon\ntotals: 11\n"
        "part: 10\ndesc: Trigger: Client Request: start 0x50 Canon\ntotals: 1\n"
        "part: 11\ndesc: Trigger: Client Request: stop 0x50 Canon\ntotals: 13\n"
        "part: 12\ndesc: Trigger: Program termination\ntotals: 50\n";
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_err e = {0};
    assert_int_equal(pm_callgrind_parse_buffer(dumps, sizeof dumps - 1, "t", &cg, &e), PM_OK);
    assert_int_equal(cg.n_parts, 12);
    assert_int_equal(cg.total, 266);
    pm_report r;
    pm_report_init(&r);
    add_pass(&r, "ISel", 0.5, 0);
    add_pass(&r, "DAG Combine", 0.2, PM_PASS_DETAIL); /* breakdowns of ISel: no count asked */
    add_pass(&r, "Instruction Scheduling", 0.1, PM_PASS_DETAIL);
    add_pass(&r, "Parse IR", 0.3, 0);
    add_pass(&r, "Canon", 0.05, 0);  /* one row per timer of a name, in the order they started (MLIR tree) */
    add_pass(&r, "Canon", 0.06, 0);
    add_pass(&r, "Total", 1.1, PM_PASS_SUMMARY);
    pm_passcount pc;
    assert_int_equal(pm_passcount_compute(&cg, &r, NULL, "llc", &pc, &e), PM_OK);
    assert_string_equal(pc.mechanism, "timer");
    assert_int_equal(pc.n, 4);
    assert_int_equal(pc.rows[0].count, 40 + 25 + 5 + 10 + 7); /* ISel includes what ran nested in it */
    assert_string_equal(pc.rows[0].how, "timer");
    assert_int_equal(pc.rows[1].count, -1);
    assert_non_null(strstr(pc.rows[1].why, "no timer"));
    assert_int_equal(pc.rows[2].count, 11);
    assert_int_equal(pc.rows[3].count, 13);
    assert_int_equal(pc.counted, 111);
    assert_int_equal(pc.timed, 111);
    assert_int_equal(pc.total, 266);
    assert_true(pc.wall_counted_s > 0.60 && pc.wall_counted_s < 0.62);
    pm_passcount_free(&pc);
    pm_report_free(&r);
    pm_callgrind_free(&cg);
}

/* Without timer dumps: the map's rows give passes the inclusive count of their exported entry points. */
static void symbol_rows_count_passes(void **state)
{
    (void)state;
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_err e = {0};
    assert_int_equal(pm_callgrind_parse_buffer(small, sizeof small - 1, "t", &cg, &e), PM_OK);
    pm_cgmap *map = pm_cgmap_new();
    assert_int_equal(pm_cgmap_load_text(map, "llc*\tpass::run(*\t* Instruction Selection\n"
                                             "opt\tmemcpy\tMemcpy Pass\n", "m.tsv", &e), PM_OK);
    assert_int_equal(pm_cgmap_rows(map), 2);
    pm_report r;
    pm_report_init(&r);
    add_pass(&r, "X86 DAG->DAG Instruction Selection", 0.5, 0);
    add_pass(&r, "Memcpy Pass", 0.1, 0);
    pm_passcount pc;
    assert_int_equal(pm_passcount_compute(&cg, &r, map, "llc-22", &pc, &e), PM_OK);
    assert_string_equal(pc.mechanism, "symbol");
    assert_int_equal(pc.rows[0].count, 900);
    assert_string_equal(pc.rows[0].source, "pass::run()");
    /* the memcpy row is opt's: for llc it has no row */
    assert_int_equal(pc.rows[1].count, -1);
    assert_non_null(strstr(pc.rows[1].why, "no row"));
    assert_int_equal(pc.counted, 900);
    pm_passcount_free(&pc);
    pm_report_free(&r);
    pm_cgmap_free(map);
    pm_callgrind_free(&cg);
}

/* A real run: callgrind with passmap's timer wrapper on llc-22 -O0 (tests/fixtures/callgrind/README). The
 * counts add up to the parts' totals, every counted row of llc's own report is matched, and the parse of
 * the same run's -time-passes output finds what the dumps name. */
static char *gunzip(const char *path, size_t *len)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    assert_int_equal(pclose(f), 0);
    *len = n;
    return buf;
}

static void real_llc_run(void **state)
{
    (void)state;
    size_t len;
    char *buf = gunzip(PM_SOURCE_DIR "/tests/fixtures/callgrind/llc22-O0-timers.out.gz", &len);
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_err e = {0};
    assert_int_equal(pm_callgrind_parse_buffer(buf, len, "fixture", &cg, &e), PM_OK);
    free(buf);
    assert_true(cg.n_parts > 50);
    uint64_t sum = 0;
    for (size_t i = 0; i < cg.n_parts; i++)
        sum += cg.parts[i].total;
    assert_int_equal(sum, cg.total);
    pm_report r;
    pm_report_init(&r);
    assert_int_equal(pm_parse_file(PM_SOURCE_DIR "/tests/fixtures/callgrind/llc22-O0-timers.stderr", PM_FMT_AUTO,
                                   &r, &e), PM_OK);
    pm_passcount pc;
    assert_int_equal(pm_passcount_compute(&cg, &r, NULL, "llc", &pc, &e), PM_OK);
    assert_string_equal(pc.mechanism, "timer");
    size_t counted = 0;
    for (size_t i = 0; i < pc.n; i++)
        if (pc.rows[i].count >= 0)
            counted++;
        else
            assert_non_null(pc.rows[i].why);
    /* every pass llc timed is counted but "Parse IR", whose start is inlined out of the wrapper's reach */
    assert_true(counted + 1 >= pc.n);
    assert_true(pc.counted <= pc.total);
    assert_int_equal(pc.counted, pc.timed);
    pm_passcount_free(&pc);
    pm_report_free(&r);
    pm_callgrind_free(&cg);
}

/* The shipped map loads. */
static void the_data_table_loads(void **state)
{
    (void)state;
    setenv("PASSMAP_DATA_DIR", PM_SOURCE_DIR "/data", 1);
    pm_cgmap *m = pm_cgmap_new();
    pm_err e = {0};
    assert_int_equal(pm_cgmap_load_default(m, &e), PM_OK);
    assert_true(pm_cgmap_rows(m) > 0);
    pm_cgmap_free(m);
    setenv("PASSMAP_DATA_DIR", "/nonexistent-passmap-data", 1);
    m = pm_cgmap_new();
    assert_int_equal(pm_cgmap_load_default(m, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "pass-symbols.tsv"));
    pm_cgmap_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_self_and_inclusive), cmocka_unit_test(malformed_input_names_the_line),
        cmocka_unit_test(timer_parts_count_passes),  cmocka_unit_test(symbol_rows_count_passes),
        cmocka_unit_test(real_llc_run),              cmocka_unit_test(the_data_table_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
