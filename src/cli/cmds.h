/* One function per subcommand, dispatched from main.c as in git. Each returns the process exit status. */
#ifndef PM_CLI_CMDS_H
#define PM_CLI_CMDS_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdint.h>
#include "error.h"
#include "parse_report.h"
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
int cmd_history(int argc, char **argv);

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

/* passmap sweep --status DB... (and the old passmap status): one database with a Slurm plan beside it as
 * pm_cli_slurm_status shows it, else pm_cli_status. Returns the exit status. */
int pm_cli_status_dbs(const char *const *dbs, int n_dbs, int json);
/* 1 when path is an SQLite database (its header says so) or one a Slurm sweep writes into (DB.slurm/plan.txt
 * beside it), else 0: how sweep --status DB tells a store from a spec. */
int pm_cli_status_operand(const char *path);
/* Prints done/left per shard of each database (passmap status, sweep --status). */
int pm_cli_status(const char *const *dbs, int n_dbs, int json);
/* The same, appending one JSON object per row to arr instead (arr NULL: the text). */
struct json_t;
int pm_cli_status_into(const char *const *dbs, int n_dbs, struct json_t *arr);

/* passmap parse --db DB (and the old passmap import): each report file parsed and recorded as one run (one step)
 * of the database's sweep (NULL: "imported"), config (NULL: the file's name), mode (NULL: cold); messages start
 * "passmap CMD:". Returns the exit status. */
typedef struct pm_cli_import_opts {
    const char *db, *sweep, *config, *tool, *mode;
    pm_format format;
    int quiet;
} pm_cli_import_opts;
int pm_cli_import(const char *cmd, const pm_cli_import_opts *o, int n_files, char **files);
/* The parser of parse's and import's --mode (const char * field): a mode the report shows (cold, cache-miss,
 * warm). */
struct cli_cmd;
struct cli_opt;
int pm_cli_run_mode(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* Which stored run show's and trace's options name (run_id > 0: that one; repeat -1: the median's). */
typedef struct pm_cli_run_pick {
    const char *sweep, *config, *mode;
    int repeat;
    long long run_id;
} pm_cli_run_pick;
/* The parsers of show's and trace's --run ID (long long field, > 0) and --repeat N (int field, >= 0). */
int pm_cli_run_id(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
int pm_cli_repeat(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* PM_EXIT_OK when pick names a run one way (--run, or --config/--repeat/--mode), else says so: PM_EXIT_USAGE. */
int pm_cli_pick_check(const char *cmd, const pm_cli_run_pick *pick);
/* passmap show --chrome-trace FILE (and the old passmap trace): the picked run of the database at db_path as a
 * Chrome trace into outpath (NULL: stdout); messages start "passmap CMD:". Returns the exit status. */
int pm_cli_trace(const char *cmd, const char *db_path, const pm_cli_run_pick *pick, const char *outpath);
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
/* --threshold's argument, "2%" or "0.02", into (0, 1): 0, or -1 when it is not one. */
int cli_parse_threshold(const char *arg, double *out);
/* root on stdout (indented, 10 significant digits) and freed: PM_EXIT_OK, or PM_EXIT_FAIL with a line naming
 * cmd when it could not be built or written. */
int cli_print_json(struct json_t *root, const char *cmd);
/* What fill writes, published at path (a temp file renamed over: pm_util_write_file_atomic). */
int cli_publish(const char *path, int (*fill)(FILE *f, const void *arg, pm_err *err), const void *arg,
                pm_err *err);


#endif
