#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include "shard.h"
#include "spec.h"

static void parse_accepts_k_of_n_only(void **state)
{
    (void)state;
    pm_shard s;
    pm_err e = {0};
    assert_int_equal(pm_shard_parse("2/5", &s, &e), PM_OK);
    assert_int_equal(s.k, 2);
    assert_int_equal(s.n, 5);
    assert_int_equal(pm_shard_parse("1/1", &s, &e), PM_OK);
    const char *bad[] = {"4/3", "0/3", "1/0", "-1/3", "3", "", "a/b", "1/3x", "1//3", "/3", "2/", "1/999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e.msg[0] = '\0';
        assert_int_equal(pm_shard_parse(bad[i], &s, &e), PM_ERR_USAGE);
        assert_true(e.msg[0] != '\0');
    }
    pm_shard_parse("4/3", &s, &e);
    assert_non_null(strstr(e.msg, "between 1 and N=3"));
}

/* Every item in exactly one shard; the same input gives the same answer whatever the input order. */
static void assign_is_a_deterministic_partition(void **state)
{
    (void)state;
    const char *keys[] = {"a", "b", "c", "d", "e", "f", "g"};
    double cost[] = {5, 1, 1, 3, 2, 2, 2};
    int shard_of[7], again[7];
    pm_err e = {0};
    assert_int_equal(pm_shard_assign(keys, cost, 7, 3, shard_of, &e), PM_OK);
    double load[3] = {0};
    for (int i = 0; i < 7; i++) {
        assert_true(shard_of[i] >= 1 && shard_of[i] <= 3);
        load[shard_of[i] - 1] += cost[i];
    }
    /* 16 units over 3 shards: longest-first greedy gives 5 / 5 / 6 */
    for (int s = 0; s < 3; s++)
        assert_true(load[s] >= 5 && load[s] <= 6);
    /* reversed input order, same assignment per key */
    const char *rkeys[7];
    double rcost[7];
    for (int i = 0; i < 7; i++) {
        rkeys[i] = keys[6 - i];
        rcost[i] = cost[6 - i];
    }
    assert_int_equal(pm_shard_assign(rkeys, rcost, 7, 3, again, &e), PM_OK);
    for (int i = 0; i < 7; i++)
        assert_int_equal(again[6 - i], shard_of[i]);
}

/* Unknown (zero) costs are spread, not piled onto one shard; more shards than items leaves some empty. */
static void assign_spreads_unknown_costs(void **state)
{
    (void)state;
    const char *keys[] = {"a", "b", "c", "d"};
    double cost[] = {0, 0, 0, 0};
    int shard_of[4], count[2] = {0};
    pm_err e = {0};
    assert_int_equal(pm_shard_assign(keys, cost, 4, 2, shard_of, &e), PM_OK);
    for (int i = 0; i < 4; i++)
        count[shard_of[i] - 1]++;
    assert_int_equal(count[0], 2);
    assert_int_equal(count[1], 2);
    int many[4];
    assert_int_equal(pm_shard_assign(keys, cost, 4, 10, many, &e), PM_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(many[i], i + 1);
}

/* The estimate grows with the window beyond one tile, so the big configs are spread first. */
static void select_balances_by_ir_size(void **state)
{
    (void)state;
    const char *text = "[sweep]\nname = t\n[embedded]\ntile = 64\n[llm q]\nmodels = qwen2:0.5b\n"
                       "windows = 32, 64, 128, 256\nprecisions = int8\nlayers = 1\n";
    pm_spec *spec = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "t.ini", &spec, &e), PM_OK);
    assert_int_equal(spec->n_configs, 4);
    double cost[4];
    assert_int_equal(pm_shard_costs(spec, NULL, cost, &e), PM_OK);
    for (int i = 0; i < 4; i++)
        assert_true(cost[i] > 0);
    assert_true(cost[3] > 2 * cost[2]); /* w256 / T64 is 4 tiles */
    int in1[4], in2[4];
    pm_shard s1 = {1, 2}, s2 = {2, 2};
    assert_int_equal(pm_shard_select(spec, &s1, NULL, in1, &e), PM_OK);
    assert_int_equal(pm_shard_select(spec, &s2, NULL, in2, &e), PM_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(in1[i] + in2[i], 1);
    assert_int_equal(in1[3], 1); /* the largest goes first, to shard 1, alone with the smallest ones */
    assert_int_equal(in1[2], 0);
    pm_spec_free(spec);
}

/* The plan written and read back is the same plan (same hash, same shards); a plan of another spec text, of
 * another N, or one missing a config is refused; the balance is the largest shard over an even split. */
static void plan_round_trip_and_refusals(void **state)
{
    (void)state;
    const char *text = "[sweep]\nname = t\n[embedded]\ntile = 64\n[llm q]\nmodels = qwen2:0.5b\n"
                       "windows = 32, 64, 128, 256\nprecisions = int8\nlayers = 1\n";
    pm_spec *spec = NULL, *other = NULL;
    pm_err e = {0};
    assert_int_equal(pm_spec_parse(text, "t.ini", &spec, &e), PM_OK);
    pm_shard_plan made, read;
    assert_int_equal(pm_shard_plan_make(spec, 2, NULL, PM_COST_AUTO, &made, &e), PM_OK);
    assert_non_null(strstr(made.hash, "plan:"));
    char path[] = "/tmp/pm-test-plan-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(pm_shard_plan_write(&made, path, &e), PM_OK);
    assert_int_equal(pm_shard_plan_read(path, spec, 2, &read, &e), PM_OK);
    assert_string_equal(read.hash, made.hash);
    for (int i = 0; i < spec->n_configs; i++)
        assert_int_equal(read.shard_of[i], made.shard_of[i]);
    double load[2];
    double ratio = pm_shard_plan_balance(&made, load);
    assert_true(ratio >= 1 && ratio <= 2);
    assert_true(fabs(ratio - (load[0] > load[1] ? load[0] : load[1]) / ((load[0] + load[1]) / 2)) < 1e-9);
    pm_shard_plan_free(&read);
    assert_int_equal(pm_shard_plan_read(path, spec, 3, &read, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "splits the study into 2 shards"));
    assert_int_equal(pm_spec_parse("[sweep]\nname = t\nrepeats = 5\n[embedded]\ntile = 64\n[llm q]\n"
                                   "models = qwen2:0.5b\nwindows = 32, 64, 128, 256\nprecisions = int8\nlayers = 1\n",
                                   "t.ini", &other, &e), PM_OK);
    assert_int_equal(pm_shard_plan_read(path, other, 2, &read, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "another text of spec"));
    pm_spec_free(other);
    /* a config left out of the plan */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char *cut = strdup(made.text);
    char *last = strrchr(cut, '\n');
    *last = '\0';
    last = strrchr(cut, '\n');
    last[1] = '\0';   /* drop the last config line */
    fputs(cut, f);
    fclose(f);
    free(cut);
    assert_int_equal(pm_shard_plan_read(path, spec, 2, &read, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "is in no shard"));
    unlink(path);
    pm_shard_plan_free(&made);
    pm_spec_free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_accepts_k_of_n_only),
        cmocka_unit_test(assign_is_a_deterministic_partition),
        cmocka_unit_test(assign_spreads_unknown_costs),
        cmocka_unit_test(select_balances_by_ir_size),
        cmocka_unit_test(plan_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
