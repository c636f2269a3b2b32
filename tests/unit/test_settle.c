/* The adaptive stop's answer test (lib/sweep/settle.c) on stores written through pm_store_record_run, with a
 * stage map given as text: a clear leader with very noisy walls is known after 3 runs; two stages that trade
 * places are not; fewer runs than the minimum never are; process-overhead competes like any stage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settle.h"
#include "store.h"

static const char *const MAP = "mlir-opt\tAlpha*\talpha\nmlir-opt\tBeta*\tbeta\n";

typedef struct fx {
    char dir[256];
    pm_store *st;
    pm_stagemap *map;
    int64_t sweep;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/pm-settle.XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    char path[300];
    snprintf(path, sizeof path, "%s/s.db", f->dir);
    pm_err err = {0};
    if (pm_store_open(path, &f->st, &err) || pm_store_sweep(f->st, "s", "command", NULL, NULL, &f->sweep, &err))
        return -1;
    f->map = pm_stagemap_new();
    if (!f->map || pm_stagemap_load_text(f->map, MAP, "test map", &err))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    pm_store_close(f->st);
    pm_stagemap_free(f->map);
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

/* One ok cold run of config key: passes AlphaPass (alpha) and BetaPass (beta), wall = the run's wall. */
static int64_t run(fx *f, const char *key, double wall, double alpha, double beta)
{
    pm_err err = {0};
    pm_config cfg = {.key = key, .kind = "command"};
    int64_t cid = 0;
    assert_int_equal(pm_store_config(f->st, f->sweep, &cfg, &cid, &err), PM_OK);
    pm_report rep;
    pm_report_init(&rep);
    pm_pass a = {.name = (char *)"AlphaPass", .wall_s = alpha, .user_s = -1, .parent = -1};
    pm_pass b = {.name = (char *)"BetaPass", .wall_s = beta, .user_s = -1, .parent = -1};
    assert_int_equal(pm_report_add_pass(&rep, &a), PM_OK);
    assert_int_equal(pm_report_add_pass(&rep, &b), PM_OK);
    pm_run_result r = {.wall_s = wall, .user_s = -1, .sys_s = -1, .instructions = -1};
    pm_step_record step = {.tool = "mlir-opt", .result = &r, .report = &rep};
    int done = 0;
    assert_int_equal(pm_store_runs_done(f->st, cid, "cold", &done, &err), PM_OK);
    pm_run_record rec = {.config_id = cid, .repeat = done, .mode = "cold", .status = "ok", .wall_s = wall,
                         .user_s = -1, .sys_s = -1, .maxrss_kb = -1, .steps = &step, .n_steps = 1};
    assert_int_equal(pm_store_record_run(f->st, &rec, NULL, &err), PM_OK);
    pm_report_free(&rep);
    return cid;
}

static pm_settle_stage judge(fx *f, int64_t cid, size_t min_n)
{
    pm_settle_stage s;
    pm_err err = {0};
    assert_int_equal(pm_settle_stage_known(pm_store_db(f->st), cid, f->map, min_n, 0, &s, &err), PM_OK);
    return s;
}

/* Walls 1, 3 and 0.5 s (a CV far beyond any precision), alpha always 60% of the run, beta 30%. */
static void test_clear_leader_noisy_time(void **state)
{
    fx *f = *state;
    int64_t cid = 0;
    const double walls[] = {1.0, 3.0, 0.5};
    for (int i = 0; i < 2; i++)
        cid = run(f, "clear", walls[i], 0.6 * walls[i], 0.3 * walls[i]);
    pm_settle_stage s = judge(f, cid, 3);
    assert_int_equal(s.n, 2);
    assert_false(s.known);   /* two runs: never, whatever they say */
    cid = run(f, "clear", walls[2], 0.6 * walls[2] * 1.02, 0.3 * walls[2] * 0.97);
    s = judge(f, cid, 3);
    assert_int_equal(s.n, 3);
    assert_true(s.known);
    assert_string_equal(s.dominant, "alpha");
    assert_string_equal(s.runner_up, "beta");
    assert_true(s.diff_lo > 0);
    /* a higher min_repeats holds it */
    assert_false(judge(f, cid, 4).known);
}

/* alpha and beta trade the lead from run to run: not known after 6 runs. */
static void test_trading_places(void **state)
{
    fx *f = *state;
    int64_t cid = 0;
    for (int i = 0; i < 6; i++)
        cid = run(f, "close", 1.0, i % 2 ? 0.45 : 0.40, i % 2 ? 0.40 : 0.46);
    pm_settle_stage s = judge(f, cid, 3);
    assert_int_equal(s.n, 6);
    assert_false(s.known);
    assert_true(s.diff_lo <= 0);
}

/* The rest of the wall is process-overhead, a competitor like any stage: 2 s runs with 0.1 s of passes. */
static void test_overhead_leads(void **state)
{
    fx *f = *state;
    int64_t cid = 0;
    for (int i = 0; i < 3; i++)
        cid = run(f, "overhead", 2.0 + 0.3 * i, 0.06, 0.04);
    pm_settle_stage s = judge(f, cid, 3);
    assert_true(s.known);
    assert_string_equal(s.dominant, PM_STAGE_OVERHEAD);
    assert_string_equal(s.runner_up, "alpha");
}

/* A config with no runs: nothing known, no error. */
static void test_no_runs(void **state)
{
    fx *f = *state;
    pm_settle_stage s = judge(f, 999999, 3);
    assert_int_equal(s.n, 0);
    assert_false(s.known);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clear_leader_noisy_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trading_places, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overhead_leads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_runs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
