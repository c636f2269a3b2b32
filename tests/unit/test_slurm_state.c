/* What Slurm says about a study's jobs: squeue's and sacct's rows parsed, the ids a study folder knows, and each
 * shard's newest attempt (lib/sweep/slurm_state.c). The squeue fixture is real output of Slurm 22.05's squeue on
 * the single-node test cluster, its study folder replaced by @DIR@. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm.h"
#include "slurp.h"

#define FIXTURE(rel) PM_SOURCE_DIR "/tests/fixtures/" rel

static const pm_slurm_job *find(const pm_slurm_jobs *j, long job, int task)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i].job == job && j->v[i].task == task)
            return &j->v[i];
    return NULL;
}

static void squeue_fixture_parses(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(FIXTURE("slurm/squeue-cancelled.txt"), &len);
    pm_slurm_jobs j = {0};
    pm_slurm_known k = {0};
    pm_slurm_view v;
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs(text, 4, &j, &e), PM_OK);
    assert_int_equal(j.n, 4);
    const pm_slurm_job *t1 = find(&j, 1, 1), *t2 = find(&j, 1, 2), *t3 = find(&j, 1, 3), *m = find(&j, 2, -1);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_non_null(t3);
    assert_non_null(m);
    assert_string_equal(t1->state, "COMPLETED");
    assert_string_equal(t2->state, "CANCELLED");
    assert_string_equal(t2->reason, "Resources");
    assert_string_equal(t3->state, "COMPLETED");
    assert_string_equal(m->state, "CANCELLED");
    assert_string_equal(m->reason, "DependencyNeverSatisfied");
    assert_string_equal(t1->command, "@DIR@/shards.sbatch");
    assert_string_equal(m->command, "@DIR@/merge.sbatch");
    /* no ids known: the scripts say which jobs are the study's */
    assert_int_equal(pm_slurm_view_make(&j, &k, "@DIR@", 3, &v, &e), PM_OK);
    assert_int_equal(v.shard[1].phase, PM_SLURM_ENDED);
    assert_null(pm_slurm_reason_shown(&v.shard[1])); /* "Resources" is left from its wait */
    assert_int_equal(v.merge.job, 2);
    assert_string_equal(pm_slurm_reason_shown(&v.merge), "DependencyNeverSatisfied");
    pm_slurm_view_free(&v);
    /* another folder: none of them */
    assert_int_equal(pm_slurm_view_make(&j, &k, "/elsewhere", 3, &v, &e), PM_OK);
    assert_int_equal(v.shard[0].job, 0);
    assert_int_equal(v.merge.job, 0);
    pm_slurm_view_free(&v);
    pm_slurm_jobs_free(&j);
    free(text);
}

static void squeue_fixture_waiting(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(FIXTURE("slurm/squeue-waiting.txt"), &len);
    pm_slurm_jobs j = {0};
    pm_slurm_known k = {0};
    pm_slurm_view v;
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs(text, 4, &j, &e), PM_OK);
    assert_int_equal(pm_slurm_known_parse("shards 1\nmerge 2\n", &k, &e), PM_OK);
    assert_int_equal(pm_slurm_view_make(&j, &k, "@DIR@", 3, &v, &e), PM_OK);
    assert_int_equal(v.shard[2].phase, PM_SLURM_WAITING);
    assert_string_equal(pm_slurm_reason_shown(&v.shard[2]), "JobHeldAdmin");
    assert_int_equal(v.merge.phase, PM_SLURM_WAITING);
    assert_string_equal(pm_slurm_reason_shown(&v.merge), "Dependency");
    assert_null(pm_slurm_reason_shown(&v.shard[0]));
    assert_int_equal(v.n_unlisted, 0);
    pm_slurm_view_free(&v);
    pm_slurm_known_free(&k);
    pm_slurm_jobs_free(&j);
    free(text);
}

/* The last column is the rest of the line: a path may hold '|'. */
static void squeue_command_keeps_bars(void **state)
{
    (void)state;
    pm_slurm_jobs j = {0};
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs("7_2|RUNNING|None|/a|b/shards.sbatch\n\n  8|PENDING|Dependency|/x\r\n", 4,
                                         &j, &e), PM_OK);
    assert_int_equal(j.n, 2);
    assert_string_equal(j.v[0].command, "/a|b/shards.sbatch");
    assert_int_equal(j.v[1].job, 8);
    assert_int_equal(j.v[1].task, -1);
    assert_string_equal(j.v[1].command, "/x");
    pm_slurm_jobs_free(&j);
}

/* sacct -P -X: "CANCELLED by UID", steps skipped, a pending array not split yet is one row per task. */
static void sacct_rows(void **state)
{
    (void)state;
    const char *text = "12_1|COMPLETED|None\n"
                       "12_2|CANCELLED by 0|None\n"
                       "12_2.batch|CANCELLED|None\n"
                       "12_[3-4,7%2]|PENDING|JobArrayTaskLimit\n"
                       "13|CANCELLED by 0|DependencyNeverSatisfied\n"
                       "13.extern|COMPLETED|None\n";
    pm_slurm_jobs j = {0};
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs(text, 3, &j, &e), PM_OK);
    assert_int_equal(j.n, 6);
    assert_string_equal(find(&j, 12, 2)->state, "CANCELLED");
    for (int t = 3; t <= 7; t++)
        if (t != 5 && t != 6) {
            assert_non_null(find(&j, 12, t));
            assert_string_equal(find(&j, 12, t)->reason, "JobArrayTaskLimit");
        }
    assert_null(find(&j, 12, 5));
    assert_null(find(&j, 12, 2)->command);
    assert_string_equal(find(&j, 13, -1)->reason, "DependencyNeverSatisfied");
    pm_slurm_jobs_free(&j);
}

static void bad_lines_are_errors(void **state)
{
    (void)state;
    const char *bad3[] = {"abc|RUNNING|None", "12|RUNNING", "12_|RUNNING|None", "12_[3-1]|PENDING|None",
                          "12_[1-2|PENDING|None", "12x|RUNNING|None", "12|RUNNING|None|extra", "12||None",
                          "12_[1-9999999]|PENDING|None"};
    for (size_t i = 0; i < sizeof bad3 / sizeof bad3[0]; i++) {
        pm_slurm_jobs j = {0};
        pm_err e = {0};
        assert_int_equal(pm_slurm_parse_jobs(bad3[i], 3, &j, &e), PM_ERR_PARSE);
        assert_non_null(strstr(e.msg, "line 1"));
        pm_slurm_jobs_free(&j);
    }
    pm_slurm_jobs j = {0};
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs("1|COMPLETED|None|/s\n2|RUNNING|None\n", 4, &j, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "line 2"));
    pm_slurm_jobs_free(&j);
}

static void states_have_a_phase(void **state)
{
    (void)state;
    assert_int_equal(pm_slurm_state_phase("PENDING"), PM_SLURM_WAITING);
    assert_int_equal(pm_slurm_state_phase("RUNNING"), PM_SLURM_RUNNING);
    assert_int_equal(pm_slurm_state_phase("COMPLETED"), PM_SLURM_DONE);
    const char *ended[] = {"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"};
    for (size_t i = 0; i < sizeof ended / sizeof ended[0]; i++)
        assert_int_equal(pm_slurm_state_phase(ended[i]), PM_SLURM_ENDED);
    assert_int_equal(pm_slurm_state_phase("SOMETHING_NEW"), PM_SLURM_UNKNOWN);
    assert_int_equal(pm_slurm_state_phase(NULL), PM_SLURM_UNKNOWN);
}

static void known_ids_from_file_and_logs(void **state)
{
    (void)state;
    pm_slurm_known k = {0};
    pm_err e = {0};
    assert_int_equal(pm_slurm_known_parse("# comment\nshards 41\nmerge 42\nshards 41\n", &k, &e), PM_OK);
    assert_int_equal(k.n_shards, 1);
    assert_int_equal(k.shards[0], 41);
    assert_int_equal(k.n_merge, 1);
    const char *names[] = {"shard-57_2.log", "merge-60.log", "shard-1-of-3.db", "shard-57_x.log", "merge-60.log.bak",
                           "plan.txt", "shard-58_3.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_int_equal(pm_slurm_known_add_log(&k, names[i], &e), PM_OK);
    assert_int_equal(k.n_shards, 3);
    assert_int_equal(k.shards[1], 57);
    assert_int_equal(k.shards[2], 58);
    assert_int_equal(k.n_merge, 2);
    assert_int_equal(k.merge[1], 60);
    assert_int_equal(pm_slurm_known_parse("shards 41\nshards x\n", &k, &e), PM_ERR_PARSE);
    assert_non_null(strstr(e.msg, "line 2"));
    pm_slurm_known_free(&k);
}

/* Each shard's newest attempt; a job of another study with the same name (another script) is not the study's. */
static void view_takes_the_newest_attempt(void **state)
{
    (void)state;
    const char *text = "41_1|COMPLETED|None|/d/shards.sbatch\n"
                       "41_2|CANCELLED|None|/d/shards.sbatch\n"
                       "41_3|COMPLETED|None|/d/shards.sbatch\n"
                       "42|CANCELLED|DependencyNeverSatisfied|/d/merge.sbatch\n"
                       "57_2|RUNNING|None|/d/shards.sbatch\n"
                       "58_1|FAILED|None|/other/shards.sbatch\n"
                       "59_9|RUNNING|None|/d/shards.sbatch\n";
    pm_slurm_jobs j = {0};
    pm_slurm_known k = {0};
    pm_slurm_view v;
    pm_err e = {0};
    assert_int_equal(pm_slurm_parse_jobs(text, 4, &j, &e), PM_OK);
    assert_int_equal(pm_slurm_known_parse("shards 41\nmerge 42\nshards 30\n", &k, &e), PM_OK);
    assert_int_equal(pm_slurm_view_make(&j, &k, "/d", 3, &v, &e), PM_OK);
    assert_int_equal(v.shard[0].job, 41);
    assert_int_equal(v.shard[0].phase, PM_SLURM_DONE);
    assert_int_equal(v.shard[1].job, 57);
    assert_int_equal(v.shard[1].attempts, 2);
    assert_string_equal(v.shard[1].state, "RUNNING");
    assert_int_equal(v.shard[2].attempts, 1);
    assert_int_equal(v.merge.job, 42);
    assert_int_equal(v.merge.phase, PM_SLURM_ENDED);
    assert_string_equal(v.merge.reason, "DependencyNeverSatisfied");
    assert_int_equal(v.n_unlisted, 1);
    assert_int_equal(v.unlisted[0], 30);
    pm_slurm_view_free(&v);
    /* task 2 of the submitted array 41 unlisted while 41 is: gone (Slurm drops a task cancelled while it waits) */
    pm_slurm_jobs one = {0};
    assert_int_equal(pm_slurm_parse_jobs("41_1|PENDING|Resources|/d/shards.sbatch\n", 4, &one, &e), PM_OK);
    assert_int_equal(pm_slurm_view_make(&one, &k, "/d", 2, &v, &e), PM_OK);
    assert_int_equal(v.shard[1].job, 41);
    assert_int_equal(v.shard[1].gone, 1);
    assert_int_equal(v.shard[1].phase, PM_SLURM_ENDED);
    assert_null(v.shard[1].state);
    assert_int_equal(v.shard[0].gone, 0);
    assert_int_equal(v.merge.job, 0);
    pm_slurm_view_free(&v);
    pm_slurm_jobs_free(&one);
    /* an array found only by its logs (a hand resubmit of some tasks) makes no task gone */
    pm_slurm_known logs = {0};
    assert_int_equal(pm_slurm_known_add_log(&logs, "shard-41_1.log", &e), PM_OK);
    assert_int_equal(pm_slurm_parse_jobs("41_1|PENDING|Resources|/d/shards.sbatch\n", 4, &one, &e), PM_OK);
    assert_int_equal(pm_slurm_view_make(&one, &logs, "/d", 2, &v, &e), PM_OK);
    assert_int_equal(v.shard[1].job, 0);
    assert_int_equal(v.shard[1].gone, 0);
    pm_slurm_view_free(&v);
    pm_slurm_jobs_free(&one);
    pm_slurm_known_free(&logs);
    pm_slurm_jobs_free(&j);
    pm_slurm_known_free(&k);
}

static void record_appends(void **state)
{
    (void)state;
    char dir[] = "/tmp/pm-slurm-XXXXXX", path[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    pm_err e = {0};
    assert_int_equal(pm_slurm_record_jobs(dir, "41", "42", &e), PM_OK);
    assert_int_equal(pm_slurm_record_jobs(dir, "57", NULL, &e), PM_OK);
    snprintf(path, sizeof path, "%s/jobs.txt", dir);
    size_t len;
    char *text = slurp(path, &len);
    pm_slurm_known k = {0};
    assert_int_equal(pm_slurm_known_parse(text, &k, &e), PM_OK);
    assert_int_equal(k.n_shards, 2);
    assert_int_equal(k.shards[1], 57);
    assert_int_equal(k.n_merge, 1);
    pm_slurm_known_free(&k);
    free(text);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(squeue_fixture_parses),    cmocka_unit_test(squeue_fixture_waiting),
        cmocka_unit_test(squeue_command_keeps_bars),
        cmocka_unit_test(sacct_rows),               cmocka_unit_test(bad_lines_are_errors),
        cmocka_unit_test(states_have_a_phase),      cmocka_unit_test(known_ids_from_file_and_logs),
        cmocka_unit_test(view_takes_the_newest_attempt), cmocka_unit_test(record_appends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
