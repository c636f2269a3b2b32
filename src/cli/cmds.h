/* One function per subcommand, dispatched from main.c as in git. Each returns the process exit status. */
#ifndef PM_CLI_CMDS_H
#define PM_CLI_CMDS_H

#include <sqlite3.h>
#include <stdint.h>
#include "error.h"
#include "shard.h"
#include "spec.h"

int cmd_run(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fix(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_ov_compile(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_bisect(int argc, char **argv);

/* passmap sweep --slurm (sweep_slurm.c). */
typedef struct pm_cli_slurm {
    const char *spec_path, *spec_name, *db, *costs_db, *partition, *time_limit;
    const char *account, *qos, *constraint, *mem, *sbatch_args, *work_dir;
    const pm_spec *spec;
    int shards, throttle, warm, dry_run, json;
    pm_cost_model cost_model;
} pm_cli_slurm;
int pm_cli_sweep_slurm(const pm_cli_slurm *s);
/* passmap sweep --shards N --write-plan FILE: the plan, and the expected cost per shard printed. */
int pm_cli_write_plan(const pm_spec *spec, int shards, const char *costs_db, pm_cost_model model, const char *path,
                      int json);
/* passmap sweep --slurm --status: the status of DB.slurm/shard-*.db (and DB when merged), beside Slurm's state of
 * each shard's task and of the merge job (squeue, sacct) and what to do; submits nothing. */
int pm_cli_slurm_status(const char *db, const char *spec_name, int json);
/* The sweep name of the Slurm plan beside DB (DB.slurm/plan.txt) into name: 1, or 0 when there is none. */
int pm_cli_slurm_plan_sweep(const char *db, char *name, size_t size);

/* Prints done/left per shard of each database (passmap status, sweep --status). */
int pm_cli_status(const char *const *dbs, int n_dbs, int json);
/* The same, appending one JSON object per row to arr instead (arr NULL: the text). */
struct json_t;
int pm_cli_status_into(const char *const *dbs, int n_dbs, struct json_t *arr);

/* Shared by trace and show (cmd_trace.c): which run the options name. */
int pm_cli_pick_run(sqlite3 *db, const char *cmd, const char *sweep, const char *config, const char *mode, int repeat,
                    long long run_id, int64_t *out, pm_err *err);
/* passmap doctor's checks of the default path (doctor_base.c): the MLIR/LLVM tools, their versions and a tiny
 * compile, gnuplot, the data folder, the working folder. Prints lines (j NULL) or sets members of j; keep_dir:
 * keep the tiny compile there (else a temporary folder). Returns 1 when the default back end is ready. */
struct json_t;
int pm_cli_doctor_base(struct json_t *j, const char *keep_dir);

/* Exit statuses: 0 ok, 1 the work failed, 2 usage error. */
enum { PM_EXIT_OK = 0, PM_EXIT_FAIL = 1, PM_EXIT_USAGE = 2 };

/* Columns for text output: $COLUMNS, else the terminal's width, else fallback (output to a file or pipe). */
int cli_term_width(int fallback);


#endif
