/* passmap merge: shard databases (or any stores of the same studies) into one. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "shard.h"
#include "store.h"

/* What the options say, each row binding its field. */
typedef struct merge_cli {
    int force, partial, json;
} merge_cli;

/* clang-format off */
static const cli_opt merge_opts[] = {
    {"force", 0, 0, NULL, "merge such inputs anyway (recorded in OUT's merge_log; the report names both builds;\n"
                          "stores split two ways: the study is marked incomplete)", CLI_BIND_FLAG(merge_cli, force)},
    {"partial", 0, 0, NULL, "merge although shards are missing or unfinished; OUT's report then says INCOMPLETE\n"
                            "STUDY and what is missing, until a later merge completes it",
     CLI_BIND_FLAG(merge_cli, partial)},
    {"json", 0, 0, NULL, "print the result per input as JSON", CLI_BIND_FLAG(merge_cli, json)},
    {0},
};
/* clang-format on */
static const cli_cmd merge_cmd = {
    .name = "merge",
    .synopsis = "[--force] [--partial] [--json] OUT.db IN.db...",
    .about = "Copies every run of each IN (steps, passes, metrics, configs, hosts) into OUT (created when absent).\n"
             "A run already in OUT (same sweep, config, mode and repeat) is skipped as a duplicate, so merging\n"
             "again changes nothing; each input is one transaction, so a killed merge resumes by running it again\n"
             "(until it finishes, OUT's report says INCOMPLETE STUDY: a merge did not finish).\n"
             "An input whose sweep has another spec text or compiler build than the same sweep in OUT is refused:\n"
             "a build is each tool's --version text and binary hash (`passmap status` lists them; paths may differ, and\n"
             "so may the lines describing the machine, \"Host CPU:\" and \"InstalledDir:\", ignored and named in the output).\n"
             "A config measured with other steps in IN than in OUT (its fingerprint) is refused even with --force.\n"
             "Coverage is checked first, over OUT and every IN together, against the shard plan each sweep recorded:\n"
             "a shard missing or unfinished refuses the whole merge (nothing is merged), and so do stores split by\n"
             "different plans or shard counts (their shards are other sets of configs).",
    .opts = merge_opts,
    .exit_status = "0 all merged, 1 an input was refused or failed, 2 bad usage",
};

/* Sets meta "merging:SWEEP" (note "" clears it); says why it could not. */
static int merge_mark(pm_store *out, const char *sweep, const char *note)
{
    char key[700];
    pm_err e = {0};
    snprintf(key, sizeof key, "merging:%s", sweep);
    if (!pm_store_meta_set(out, key, note, &e))
        return 0;
    fprintf(stderr, "passmap merge: %s\n", e.msg);
    return -1;
}

/* Every sweep this merge touches (cov) is marked "a merge did not finish" before the first input and cleared
 * after the last (mark_merged): a merge killed (or out of disk) between its inputs leaves a partial study that
 * says so. Non-zero when a mark could not be written (said). */
static int mark_unfinished(pm_store *out, const char *out_path, const pm_coverage *cov)
{
    char note[600];
    snprintf(note, sizeof note, "a merge into %s stopped before its last input (killed, or out of disk): runs of "
             "the inputs after it are missing; run the same merge again", out_path);
    for (int i = 0; i < cov->n; i++)
        if (merge_mark(out, cov->sweeps[i].sweep, note))
            return 1;
    return 0;
}

/* The study as merged: marked incomplete (the report says so) until a merge completes it; then the touched
 * sweeps' "merge did not finish" marks cleared. A mark that cannot be written is no refused input: the merge
 * fails (non-zero), and the study keeps its "merge did not finish" mark. */
static int mark_merged(pm_store *out, const char *out_path, const pm_coverage *touched, int partial, int json)
{
    pm_coverage now = {0};
    pm_err err = {0};
    const char *outs[] = {out_path};
    int failed = 0;
    if (pm_shard_coverage(outs, 1, &now, &err)) {
        fprintf(stderr, "passmap merge: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < now.n && !failed; i++) {
        char key[700];
        snprintf(key, sizeof key, "incomplete:%s", now.sweeps[i].sweep);
        if (pm_store_meta_set(out, key, now.sweeps[i].message ? now.sweeps[i].message : "", &err)) {
            fprintf(stderr, "passmap merge: %s\n", err.msg);
            failed = 1;
        } else if (now.sweeps[i].message && !json) {
            printf("%s: %s (%smarked incomplete)\n", out_path, now.sweeps[i].message,
                   now.sweeps[i].mixed ? "--force: " : partial ? "--partial: " : "");
        }
    }
    for (int i = 0; i < touched->n && !failed; i++)
        failed = merge_mark(out, touched->sweeps[i].sweep, "") != 0;
    pm_coverage_free(&now);
    return failed;
}

/* Coverage of OUT and the inputs together, before anything is written: 0 with *cov filled, 1 when the merge is
 * refused (said), -1 on an error (said). An input a running sweep still writes is left out here: the merge
 * refuses it by name later. A sweep already mixed in OUT (a forced merge, marked) does not refuse again; one this
 * merge would mix does. */
static int merge_coverage(const char *out_path, char **in, int n_in, int force, int partial, pm_coverage *cov)
{
    pm_err err = {0};
    const char **cov_dbs = calloc((size_t)n_in + 1, sizeof *cov_dbs);
    if (!cov_dbs) {
        fprintf(stderr, "passmap merge: out of memory\n");
        return -1;
    }
    int n_cov = 0;
    /* an output a merge killed at its start left empty holds no study yet: the next merge creates it */
    int have_out = !pm_store_is_empty(out_path);
    if (have_out)
        cov_dbs[n_cov++] = out_path;
    for (int i = 0; i < n_in; i++) {
        pm_err busy = {0};
        if (!pm_store_writer_check(in[i], &busy))
            cov_dbs[n_cov++] = in[i];
    }
    pm_coverage before = {0};
    int crc = pm_shard_coverage(cov_dbs, n_cov, cov, &err);
    if (!crc && have_out && (crc = pm_shard_coverage(cov_dbs, 1, &before, &err)))
        pm_coverage_free(cov);
    free(cov_dbs);
    if (crc) {
        fprintf(stderr, "passmap merge: %s\n", err.msg);
        return -1;
    }
    int newly_mixed = 0, incomplete = 0;
    for (int i = 0; i < cov->n; i++) {
        const pm_coverage_sweep *cs = &cov->sweeps[i];
        int was_mixed = 0;
        for (int j = 0; j < before.n; j++)
            was_mixed |= before.sweeps[j].mixed && !strcmp(before.sweeps[j].sweep, cs->sweep);
        if (cs->mixed && was_mixed)
            continue;   /* accepted by an earlier --force, and marked: nothing new */
        newly_mixed += cs->mixed;
        incomplete += cs->message && !cs->mixed;
        if (cs->message && (cs->mixed ? !force : !partial))
            fprintf(stderr, "passmap merge: %s\n", cs->message);
    }
    pm_coverage_free(&before);
    if ((newly_mixed && !force) || (incomplete && !partial)) {
        fprintf(stderr, "passmap merge: nothing merged; %s\n",
                newly_mixed && !force ? "--force merges stores split two ways anyway (the study is then marked "
                                        "incomplete)"
                                      : "merge --partial merges them anyway and marks the study incomplete");
        pm_coverage_free(cov);
        return 1;
    }
    return 0;
}

/* The totals over the inputs, and their JSON rows (--json). */
typedef struct merge_tally {
    int failed, usage_error;
    long merged, skipped;
    json_t *arr;
} merge_tally;

/* One input into out, said in a line (or a JSON row). */
static void merge_input(pm_store *out, const char *in, int force, merge_tally *t)
{
    pm_merge_result r;
    pm_err e = {0};
    int rc = pm_store_merge(out, in, force, &r, &e);
    const char *what = rc ? "error" : r.refused ? "refused" : "merged";
    if (rc || r.refused)
        t->failed++;
    if (rc == PM_ERR_USAGE && strstr(e.msg, "merged into itself"))
        t->usage_error = 1;
    t->merged += r.runs_merged;
    t->skipped += r.runs_skipped;
    if (t->arr) {
        json_array_append_new(t->arr,
                              json_pack("{s:s, s:s, s:i, s:i, s:b, s:s?, s:s?}", "input", in, "result", what, "merged",
                                        rc ? 0 : r.runs_merged, "skipped_duplicate", rc ? 0 : r.runs_skipped, "forced",
                                        !rc && r.forced, "reason",
                                        rc                ? e.msg
                                            : r.reason[0] ? r.reason
                                                          : NULL,
                                        "note", !rc && r.note[0] ? r.note : NULL));
    } else if (rc) {
        fprintf(stderr, "passmap merge: %s\n", e.msg);
        printf("%-40s error: not merged\n", in);
    } else if (r.refused) {
        fprintf(stderr, "passmap merge: %s: refused: %s\n", in, r.reason);
        printf("%-40s refused: %s\n", in, r.reason);
    } else {
        printf("%-40s merged %d runs, skipped %d duplicate%s%s%s%s%s\n", in, r.runs_merged, r.runs_skipped,
               r.runs_skipped == 1 ? "" : "s", r.forced ? "; " : "", r.forced ? r.reason : "", r.note[0] ? "; " : "",
               r.note);
    }
}

int cmd_merge(int argc, char **argv)
{
    merge_cli cli = {0};
    int c = cli_parse_args(&merge_cmd, argc, argv, &cli, NULL);
    if (c != CLI_GO)
        return c;
    int force = cli.force, json = cli.json, partial = cli.partial;
    if (argc - optind < 2) {
        fprintf(stderr, "passmap merge: expected OUT.db and at least one IN.db\ntry 'passmap merge --help'\n");
        return PM_EXIT_USAGE;
    }
    const char *out_path = argv[optind];
    pm_err err = {0};
    /* Caught before OUT is opened, so a mistyped command cannot touch the input. */
    for (int i = optind + 1; i < argc; i++)
        if (!strcmp(argv[i], out_path)) {
            fprintf(stderr, "passmap merge: %s is the output database itself: a store cannot be merged into itself\n",
                    out_path);
            return PM_EXIT_USAGE;
        }
    /* The output is this merge's alone while it writes: a sweep started into it now would time its runs beside
     * the merge, or die on "database is locked" naming nobody; it is refused naming this merge instead. */
    int lock_fd = -1;
    if (pm_store_writer_lock(out_path, "merge", &lock_fd, &err)) {
        fprintf(stderr, "passmap merge: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    pm_coverage cov;
    int crc = merge_coverage(out_path, argv + optind + 1, argc - optind - 1, force, partial, &cov);
    if (crc) {
        pm_store_writer_unlock(lock_fd);
        return PM_EXIT_FAIL;
    }
    pm_store *out = NULL;
    if (pm_store_open(out_path, &out, &err)) {
        fprintf(stderr, "passmap merge: %s\n", err.msg);
        pm_coverage_free(&cov);
        pm_store_writer_unlock(lock_fd);
        return PM_EXIT_FAIL;
    }
    int marks_failed = mark_unfinished(out, out_path, &cov);
    if (marks_failed) {
        pm_coverage_free(&cov);
        pm_store_close(out);
        pm_store_writer_unlock(lock_fd);
        return PM_EXIT_FAIL;
    }
    merge_tally t = {.arr = json ? json_array() : NULL};
    for (int i = optind + 1; i < argc; i++)
        merge_input(out, argv[i], force, &t);
    marks_failed = mark_merged(out, out_path, &cov, partial, json);
    pm_coverage_free(&cov);
    if (json) {
        json_t *o = json_pack("{s:s, s:o, s:I, s:I, s:i}", "output", out_path, "inputs", t.arr, "merged",
                              (json_int_t)t.merged, "skipped_duplicate", (json_int_t)t.skipped, "refused", t.failed);
        pm_json_stamp(o, "merged", "runs", "skipped_duplicate", "runs", "refused", "inputs", NULL);
        json_dumpf(o, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(o);
    } else {
        printf("%s: %ld runs merged, %ld skipped as duplicates, %d input%s refused\n", out_path, t.merged, t.skipped,
               t.failed, t.failed == 1 ? "" : "s");
    }
    pm_store_close(out);
    pm_store_writer_unlock(lock_fd);
    return t.usage_error ? PM_EXIT_USAGE : t.failed || marks_failed ? PM_EXIT_FAIL : PM_EXIT_OK;
}
