/* Test helper for test_compare.sh until `passmap sweep` is on main: runs one config's compile steps through
 * the real runner and parsers, REPEATS times, and records each run in DB (mode cold).
 * usage: compare_mkdb DB SWEEP KEY VARIANT REPEATS WORKDIR CMD ARGS... [:: CMD ARGS...]...
 * Each step's stderr is parsed (format sniffed); a step without a timing report records no passes. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "run.h"
#include "store.h"

#define MAX_STEPS 8

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: compare_mkdb DB SWEEP KEY VARIANT REPEATS WORKDIR CMD ARGS... [:: CMD ...]\n");
        return 2;
    }
    char **steps[MAX_STEPS];
    int n_steps = 0;
    steps[n_steps++] = &argv[7];
    for (int i = 7; i < argc; i++)
        if (strcmp(argv[i], "::") == 0) {
            argv[i] = NULL;
            if (n_steps == MAX_STEPS || i + 1 >= argc)
                return 2;
            steps[n_steps++] = &argv[i + 1];
        }
    pm_err err = {0};
    pm_store *st = NULL;
    int64_t sweep, cid;
    int rc = 1;
    pm_config cfg = {.key = argv[3], .kind = "llm", .variant = argv[4]};
    if (pm_store_open(argv[1], &st, &err) || pm_store_sweep(st, argv[2], "embedded", NULL, NULL, &sweep, &err) ||
        pm_store_config(st, sweep, &cfg, &cid, &err))
        goto cleanup;
    for (int rep = 0; rep < atoi(argv[5]); rep++) {
        pm_run_result res[MAX_STEPS];
        pm_report reps[MAX_STEPS];
        pm_step_record recs[MAX_STEPS];
        char errpath[MAX_STEPS][512], tools[MAX_STEPS][128];
        pm_run_record run = {.config_id = cid, .repeat = rep, .mode = "cold", .status = "ok", .maxrss_kb = 0,
                             .steps = recs, .n_steps = n_steps};
        int failed = 0;
        for (int s = 0; s < n_steps; s++) {
            pm_report_init(&reps[s]);
            snprintf(errpath[s], sizeof errpath[s], "%s/step%d.err", argv[6], s);
            snprintf(tools[s], sizeof tools[s], "%s", steps[s][0]);
            pm_run_opts o = {.timeout_s = 60, .stderr_path = errpath[s]};
            if (pm_run_exec(steps[s], &o, &res[s], &err) != PM_OK)
                goto cleanup;
            if (res[s].status != PM_RUN_OK) {
                fprintf(stderr, "compare_mkdb: %s failed (%s)\n", steps[s][0], pm_run_status_name(res[s].status));
                failed = 1;
            }
            if (pm_parse_file(errpath[s], PM_FMT_AUTO, &reps[s], &err) != PM_OK)
                goto cleanup;
            recs[s] = (pm_step_record){.tool = basename(tools[s]), .result = &res[s],
                                       .report = reps[s].n_reports ? &reps[s] : NULL};
            run.wall_s += res[s].wall_s;
            run.user_s += res[s].user_s;
            run.sys_s += res[s].sys_s;
        }
        if (failed)
            run.status = "failed";
        int r = pm_store_record_run(st, &run, NULL, &err);
        for (int s = 0; s < n_steps; s++)
            pm_report_free(&reps[s]);
        if (r != PM_OK || failed)
            goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc)
        fprintf(stderr, "compare_mkdb: %s\n", err.msg[0] ? err.msg : "step failed");
    pm_store_close(st);
    return rc;
}
