/* passmap sweep: runs a spec's matrix into SQLite, resumable, with a progress bar on a TTY. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "backend.h"
#include "meter.h"
#include "spec.h"
#include "sweep.h"

static volatile sig_atomic_t stop_requested;

static void on_sigint(int sig)
{
    (void)sig;
    stop_requested = 1;
    signal(SIGINT, SIG_DFL); /* a second Ctrl-C stops at once */
}

/* sweep's modes: print the plan, or the progress; two in one command line are an error naming both. */
enum { SWEEP_RUN, SWEEP_DRY_RUN, SWEEP_STATUS };

/* cmd_sweep's state, handed from phase to phase. */
typedef struct sweep_cli {
    const char *write_plan;
    pm_cli_slurm slurm;
    int use_slurm;
    pm_sweep_opts opts;
    const char *db, *backend, *name;
    cli_given row_opts; /* the back ends' options given (their rows' sweep_options) */
    int json, quiet, status;
    int mode; /* what the command does instead of sweeping (a mode row: git's OPT_CMDMODE) */
    pm_err err;
    char dbbuf[256];
    pm_spec *spec;
    pm_sweep_summary sum;
} sweep_cli;

/* The values of the options that need more than a copy, each said in the command's own words. */
static int shard_spec(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    if (pm_shard_parse(arg, field, &err)) {
        fprintf(stderr, "passmap %s: %s\n", cmd->name, err.msg);
        return -1;
    }
    return 0;
}

static int cost_model(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    if (pm_cost_model_parse(arg, field, &err)) {
        fprintf(stderr, "passmap %s: %s\n", cmd->name, err.msg);
        return -1;
    }
    return 0;
}

/* An old site option (a hidden row): the one line saying its new spelling, and its value kept. */
static int old_site_option(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    fprintf(stderr, "passmap %s: --%s is now --sbatch-args '--%s=%s'; the old spelling goes in the next release\n",
            cmd->name, o->name, o->name, arg);
    *(const char **)field = arg;
    return 0;
}

/* A back end's own option (its row's sweep_options): kept to be applied once the spec says the back end. */
static int row_option(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    return cli_given_add(cmd, field, o->name, arg);
}

/* clang-format off */
static const cli_opt sweep_opts[] = {
    {"db", 0, 0, "FILE", "results database (default: NAME.db, NAME from [sweep] name)", CLI_BIND_STR(sweep_cli, db)},
    {"work-dir", 0, 0, "DIR", "run folders and the warm cache (default: DB.runs); with --slurm: a node-local\n"
                                "folder (absolute, or '$TMPDIR': the task's scratch), one subfolder per task",
                                CLI_BIND_STR(sweep_cli, opts.work_dir)},
    {"warm", 0, 0, NULL, "also run each config through the compiled-artifact cache (recompile / hit)",
                         CLI_BIND_FLAG(sweep_cli, opts.warm)},
    {"no-warm", 0, 0, NULL, "do not, even if the spec says warm = true", CLI_BIND_UNSET(sweep_cli, opts.warm)},
    {"keep", 0, 0, NULL, "keep every run's folder (outputs, stderr); failed runs are always kept",
                         CLI_BIND_FLAG(sweep_cli, opts.keep_outputs)},
    {"max-runs", 0, 0, "N", "stop after N runs (resume later)", CLI_BIND_FN(sweep_cli, opts.max_runs, cli_positive_int)},
    {"dry-run", 0, 0, NULL, "print the plan, run nothing", CLI_BIND_MODE(sweep_cli, mode, SWEEP_DRY_RUN)},
    {"quiet", 0, 0, NULL, "no per-run lines (the TTY progress bar stays; into a file or pipe, a progress line\n"
                            "a minute)", CLI_BIND_FLAG(sweep_cli, quiet)},
    {"json", 0, 0, NULL, "print the summary as JSON on stdout", CLI_BIND_FLAG(sweep_cli, json)},
    {"backend", 0, 0, "NAME", "override the spec's back end: {backends}",
                              CLI_BIND_FN(sweep_cli, backend, cli_backend_name)},
    {"shard", 0, 0, "K/N", "run only shard K of N (1 <= K <= N): the same spec gives the same shards on every\n"
                            "machine; each shard resumes on its own --db; `passmap merge` joins them",
                            CLI_BIND_FN(sweep_cli, opts.shard, shard_spec)},
    {"costs", 0, 0, "DB", "balance the shards by the walls measured in DB (an earlier sweep of the spec)\n"
                            "instead of IR sizes; every shard must be given the same DB",
                            CLI_BIND_STR(sweep_cli, opts.costs_db)},
    {"plan", 0, 0, "FILE", "with --shard: take the shards from FILE, the plan fixed at submit (--slurm writes\n"
                          "DB.slurm/plan.txt; --write-plan writes one), not from the spec and --costs now:\n"
                          "a resubmitted shard keeps its configs; a store started under another plan refuses",
                          CLI_BIND_STR(sweep_cli, opts.plan_path)},
    {"write-plan", 0, 0, "FILE", "with --shards N: write the shard plan (configs, shard, expected cost) and print\n"
                                "the expected cost per shard, run nothing", CLI_BIND_STR(sweep_cli, write_plan)},
    {"cost-model", 0, 0, "M", "with --write-plan or --slurm: where the shards' costs come from: auto (measured\n"
                             "walls of --costs DB, else its stage-size probe sizes, else IR size), ir (IR size\n"
                             "only), probe (the stage-size probe only: from --costs DB where recorded, run\n"
                             "now elsewhere, one extra compile per config; ranks far better than IR size)",
                             CLI_BIND_FN(sweep_cli, slurm.cost_model, cost_model)},
    {"status", 0, 0, NULL, "print done/left per shard of --db, or of the databases DB... given instead of the\n"
                             "spec (was `passmap status`), run nothing; with --slurm (or a DB a Slurm sweep\n"
                             "writes into): also each shard task's and the merge job's Slurm state (squeue, then\n"
                             "sacct) and what to do about a task that ended without completing",
                             CLI_BIND_MODE(sweep_cli, mode, SWEEP_STATUS)},
    {"meter", 0, 0, "M", "how each step is measured: {meters} (default: [sweep] meter, else auto:\n"
                          "perf counters where the kernel offers them, else wall); valgrind counts the\n"
                          "instructions of the step's process tree exactly, ~50x slower, and decides on them;\n"
                          "callgrind also counts each timed pass, stored beside its wall (docs/meters.md)",
                          CLI_BIND_FN(sweep_cli, opts.meter, cli_meter_name)},
    {"jobs", 0, 0, "N", "N compiles at once (default 1); only with a meter that counts (valgrind,\n"
                         "counters): the counts decide, the walls are recorded as contended; refused\n"
                         "with the wall meter. Each Slurm shard still runs on a node of its own",
                         CLI_BIND_INT(sweep_cli, opts.jobs, 1, 256)},
    {"name", 0, 0, "NAME", "record the sweep as NAME (default: [sweep] name); the database stays the same",
                           CLI_BIND_STR(sweep_cli, name)},
    {"label", 0, 0, "TEXT", "what the sweep stands for in `passmap history` (a commit, a date), recorded with\n"
                             "it and shown beside its compiler (a resume without --label keeps the recorded one)",
                             CLI_BIND_STR(sweep_cli, opts.label)},
    {"force", 0, 0, NULL, "a recorded config whose steps changed (argv, tool build, environment: its\n"
                            "fingerprint) is refused; --force moves its runs to a sweep NAME~superseded-TIME\n"
                            "(never read as the study) and measures it anew", CLI_BIND_FLAG(sweep_cli, opts.force)},
    {"retry-failed", 0, 0, NULL, "move the failed runs aside the same way and run their repeats again (default:\n"
                            "a failed run counts as done; the sweep says how many there are)",
                            CLI_BIND_FLAG(sweep_cli, opts.retry_failed)},
    {"slurm", 0, 0, NULL, "submit the sweep to Slurm instead: a job array of --shards tasks (each one\n"
                            "shard, --exclusive on its node) and a merge job into --db after all succeed;\n"
                            "scripts, logs and shard databases go to DB.slurm/; with --dry-run: print them",
                            CLI_BIND_FLAG(sweep_cli, use_slurm)},
    {"shards", 0, 0, "N", "with --slurm: number of shards (default 4)",
                          CLI_BIND_INT(sweep_cli, slurm.shards, 1, 100000)},
    {"partition", 0, 0, "P", "with --slurm: the Slurm partition", CLI_BIND_STR(sweep_cli, slurm.partition)},
    {"time", 0, 0, "T", "with --slurm: time limit per shard task (Slurm syntax, e.g. 4:00:00)",
                        CLI_BIND_STR(sweep_cli, slurm.time_limit)},
    /* old spellings of --sbatch-args words, hidden (notes below), kept for one release */
    {"account", 0, 0, "A", NULL, CLI_BIND_FN(sweep_cli, slurm.account, old_site_option)},
    {"qos", 0, 0, "Q", NULL, CLI_BIND_FN(sweep_cli, slurm.qos, old_site_option)},
    {"constraint", 0, 0, "C", NULL, CLI_BIND_FN(sweep_cli, slurm.constraint, old_site_option)},
    {"mem", 0, 0, "M", NULL, CLI_BIND_FN(sweep_cli, slurm.mem, old_site_option)},
    {"throttle", 0, 0, "M", "with --slurm: at most M shard tasks at once (--array=1-N%M)",
                            CLI_BIND_INT(sweep_cli, slurm.throttle, 1, 100000)},
    {"sbatch-args", 0, 0, "S", "with --slurm: more sbatch options, split at white space, given to every sbatch\n"
                               "call as argv words (no shell); shown by --dry-run",
                               CLI_BIND_STR(sweep_cli, slurm.sbatch_args)},
    {0},   /* then each back end's own options, from its row (sweep_command) */
};
/* clang-format on */
static cli_cmd sweep_cmd = {
    .name = "sweep",
    .synopsis = "[options] SPEC.ini\npassmap sweep --status [--json] DB...",
    .about = "Runs every config of the spec's matrix (repeats interleaved) and records each run in SQLite.\n"
             "Rerunning the same command resumes: runs already recorded are skipped, and what a killed sweep left\n"
             "running in a step's process group is killed first (one line on stderr).",
    .opts = sweep_opts,
    .notes = "Spec format: man 5 passmap-spec (docs/spec.md), studies/demo.ini. Several machines: docs/scale-out.md.\n"
             "Old spellings, kept for one release (each prints its new one on stderr): --account A, --qos Q,\n"
             "--constraint C and --mem M (with --slurm: an #SBATCH line of both jobs, as before) are now\n"
             "--sbatch-args '--account=A --qos=Q --constraint=C --mem=M'; `passmap status DB...` is now\n"
             "`passmap sweep --status DB...`.",
};

static const pm_backend_option *sweep_options_of(const pm_backend_ops *be)
{
    return be->sweep_options;
}

/* sweep's table: its own rows, then each back end's sweep options (cli_with_backend_rows). */
static const cli_cmd *sweep_command(void)
{
    static const cli_opt *all;
    if (!all &&
        (all = cli_with_backend_rows(sweep_opts, sweep_options_of, NULL, offsetof(sweep_cli, row_opts), row_option)))
        sweep_cmd.opts = all;
    return &sweep_cmd;
}

typedef struct progress_state {
    int tty, quiet, dry;
    double last_line_s;   /* --quiet into a log: when the last progress line was written */
} progress_state;

static void fmt_dur(double s, char *out, size_t cap)
{
    if (s < 0)
        snprintf(out, cap, "?");
    else if (s < 60)
        snprintf(out, cap, "%.0fs", s);
    else if (s < 3600)
        snprintf(out, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(out, cap, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

static void on_progress(void *user, const pm_sweep_progress *p)
{
    progress_state *ps = user;
    if (ps->dry) {
        printf("%-60s %-10s r%d\n%s", p->config_key, p->mode, p->repeat, p->steps_text ? p->steps_text : "");
        return;
    }
    char el[16], eta[16];
    fmt_dur(p->elapsed_s, el, sizeof el);
    fmt_dur(p->done >= 2 || p->done == p->total ? p->eta_s : -1, eta, sizeof eta);
    if (ps->tty) {
        int width = 30, fill = p->total ? p->done * width / p->total : width;
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        char failed[32] = "";
        if (p->failed)
            snprintf(failed, sizeof failed, "  %d failed", p->failed);
        fprintf(stderr, "\r\033[K[%s] %d/%d %3d%%  %s elapsed, ETA %s%s", bar, p->done, p->total,
                p->total ? 100 * p->done / p->total : 100, el, eta, failed);
        if (p->done == p->total)
            fputc('\n', stderr);
    } else if (!ps->quiet) {
        fprintf(stderr, "[%d/%d] %-56s %-10s r%d %-8s %7.2fs  ETA %s\n", p->done, p->total, p->config_key, p->mode,
                p->repeat, p->status, p->wall_s, eta);
    } else if (p->elapsed_s - ps->last_line_s >= 60) {
        /* --quiet into a log (a batch job's): a line a minute, so the log still shows how far it came */
        ps->last_line_s = p->elapsed_s;
        fprintf(stderr, "[%d/%d] %s elapsed, ETA %s%s\n", p->done, p->total, el, eta, p->failed ? ", some failed" : "");
    }
}

/* Said even with --quiet: something an earlier sweep left behind was dealt with (or could not be). */
static void on_notice(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "passmap sweep: %s\n", line);
}


/* A phase's answer when the command goes on to the next phase (any other value is the exit code). */
enum { SWEEP_GO = -1 };

static int sweep_parse_options(sweep_cli *sw, int argc, char **argv)
{
    int rc = cli_parse_args(sweep_command(), argc, argv, sw, &sw->backend);
    sw->opts.dry_run = sw->mode == SWEEP_DRY_RUN;
    sw->status = sw->mode == SWEEP_STATUS;
    return rc == CLI_GO ? SWEEP_GO : rc;
}

/* --status of databases, the spec and the database, and the refusals of options that do not go together. */
static int sweep_check(sweep_cli *sw, int argc, char **argv)
{
    /* --status with databases instead of a spec (or --db alone): their progress, no spec read */
    if (sw->status && (argc - optind > 1 || (optind == argc && sw->db) ||
                       (optind == argc - 1 && pm_cli_status_operand(argv[optind])))) {
        return optind == argc ? pm_cli_status_dbs(&sw->db, 1, sw->json)
                              : pm_cli_status_dbs((const char *const *)argv + optind, argc - optind, sw->json);
    }
    if (optind != argc - 1) {
        fprintf(stderr, "passmap sweep: expected one SPEC.ini%s\ntry 'passmap sweep --help'\n",
                sw->status ? " (with --status: a SPEC.ini, or the databases DB...)" : "");
        return PM_EXIT_USAGE;
    }
    if (pm_spec_load_as(argv[optind], sw->backend, &sw->spec, &sw->err)) {
        fprintf(stderr, "passmap sweep: %s\n", sw->err.msg);
        return sw->err.code == PM_ERR_IO ? PM_EXIT_FAIL : PM_EXIT_USAGE;
    }
    pm_spec *spec = sw->spec;
    if (!sw->db) {
        snprintf(sw->dbbuf, sizeof sw->dbbuf, "%s.db", spec->name);
        sw->db = sw->dbbuf;
    }
    sw->opts.db_path = sw->db;
    /* after the default database: a new name is a new sweep in the same store */
    if (sw->name && (!*sw->name || strchr(sw->name, '~') || strchr(sw->name, ',') ||
                     snprintf(spec->name, sizeof spec->name, "%s", sw->name) >= (int)sizeof spec->name)) {
        fprintf(stderr, "passmap sweep: --name needs a name of 1 to %zu bytes without '~' or ',', not '%s'\n",
                sizeof spec->name - 1, sw->name);
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (sw->opts.plan_path && (!sw->opts.shard.n || sw->opts.costs_db || sw->use_slurm)) {
        fprintf(stderr, "passmap sweep: --plan goes with --shard K/N (the plan holds the costs: no --costs), not "
                        "with --slurm (which writes the plan)\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (sw->write_plan) {
        int rc = PM_EXIT_USAGE;
        if (sw->use_slurm || sw->opts.shard.n || !sw->slurm.shards)
            fprintf(stderr, "passmap sweep: --write-plan FILE goes with --shards N alone\n");
        else
            rc = pm_cli_write_plan(spec, sw->slurm.shards, sw->opts.costs_db, sw->slurm.cost_model, sw->write_plan,
                                   sw->json);
        pm_spec_free(spec);
        return rc;
    }
    if (sw->opts.label && !*sw->opts.label) {
        fprintf(stderr, "passmap sweep: --label needs a text (a commit, a date), not ''\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (sw->use_slurm && (sw->opts.force || sw->opts.retry_failed || sw->name || sw->opts.label)) {
        fprintf(stderr, "passmap sweep: --force, --retry-failed, --name and --label are not passed to Slurm tasks: "
                        "run them on the shard stores, or change the spec\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    return SWEEP_GO;
}

/* --slurm: refuse what the tasks would not receive, then the shard tasks' status or their submission. */
static int sweep_slurm(sweep_cli *sw, char **argv)
{
    pm_spec *spec = sw->spec;
    /* Options the tasks would not receive are errors, not silently dropped. */
    const char *dropped = sw->opts.keep_outputs ? "keep"
        : sw->opts.max_runs                     ? "max-runs"
        : sw->row_opts.n                        ? sw->row_opts.names[0]
        : sw->backend                           ? "backend"
                                                : NULL;
    /* A warm run needs the cache its cache-miss run filled: a node-local work folder is gone after a requeue
     * to another node, and the hits would fail. */
    if (sw->opts.work_dir && (sw->opts.warm >= 0 ? sw->opts.warm : spec->warm)) {
        fprintf(stderr, "passmap sweep: --work-dir with --slurm and warm runs: the warm cache lives in the work "
                "folder, which a requeued task on another node would not have; add --no-warm, or keep the "
                "default (DB.slurm/, shared)\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (dropped) {
        fprintf(stderr,
                "passmap sweep: --slurm does not pass --%s to its tasks (put it in the spec, or run "
                "--shard K/N by hand)\n",
                dropped);
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (sw->status) {
        /* never a submission: the shard databases the tasks write */
        int rc = pm_cli_slurm_status(sw->db, spec->name, sw->json);
        pm_spec_free(spec);
        return rc;
    }
    if (sw->opts.shard.n) {
        fprintf(stderr, "passmap sweep: --slurm makes the shards itself: drop --shard\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    if (!sw->slurm.shards)
        sw->slurm.shards = 4;
    sw->slurm.spec_path = argv[optind];
    sw->slurm.spec_name = spec->name;
    sw->slurm.spec = spec;
    sw->slurm.db = sw->db;
    sw->slurm.costs_db = sw->opts.costs_db;
    sw->slurm.work_dir = sw->opts.work_dir;
    sw->slurm.warm = sw->opts.warm;
    sw->slurm.dry_run = sw->opts.dry_run;
    sw->slurm.json = sw->json;
    int rc = pm_cli_sweep_slurm(&sw->slurm);
    pm_spec_free(spec);
    return rc;
}

/* One machine: refuse --slurm's options, set --device, answer --status of the spec's database. */
static int sweep_check_local(sweep_cli *sw)
{
    pm_spec *spec = sw->spec;
    const pm_cli_slurm *slurm = &sw->slurm;
    if (slurm->partition || slurm->time_limit || slurm->shards || slurm->account || slurm->qos ||
        slurm->constraint || slurm->mem || slurm->throttle || slurm->sbatch_args ||
        slurm->cost_model != PM_COST_AUTO) {
        fprintf(stderr, "passmap sweep: --shards, --partition, --time, --account, --qos, --constraint, --mem, "
                        "--throttle, --sbatch-args and --cost-model go with --slurm (one machine: --shard K/N; a plan: --write-plan)\n");
        pm_spec_free(spec);
        return PM_EXIT_USAGE;
    }
    /* after --slurm's own refusal of the options its tasks would not receive */
    for (int i = 0; i < sw->row_opts.n; i++)
        if (pm_backend_set_option(pm_backend_find(spec->backend), spec, sw->row_opts.names[i], sw->row_opts.values[i],
                                  &sw->err)) {
            fprintf(stderr, "passmap sweep: %s\n", sw->err.msg);
            pm_spec_free(spec);
            return PM_EXIT_USAGE;
        }
    if (sw->status) {
        pm_spec_free(spec);
        return pm_cli_status(&sw->db, 1, sw->json);
    }
    return SWEEP_GO;
}

/* The sweep (or its dry run), with progress and Ctrl-C stopping it between runs. */
static int sweep_run(sweep_cli *sw)
{
    progress_state ps = {.tty = isatty(STDERR_FILENO), .quiet = sw->quiet, .dry = sw->opts.dry_run};
    sw->opts.progress = on_progress;
    sw->opts.progress_user = &ps;
    sw->opts.notice = on_notice;
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    int rc = pm_sweep_run(sw->spec, &sw->opts, &sw->sum, &sw->err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (rc) {
        fprintf(stderr, "\npassmap sweep: %s\n", sw->err.msg);
        pm_spec_free(sw->spec);
        /* usage errors (the database is held by another sweep, a bad shard) are 2, like bad flags */
        return sw->err.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    return SWEEP_GO;
}

/* The summary (JSON, the dry run's plan, or the sweep's), and the exit code it implies. */
static int sweep_print(sweep_cli *sw)
{
    const pm_sweep_opts *opts = &sw->opts;
    const pm_sweep_summary *sum = &sw->sum;
    pm_spec *spec = sw->spec;
    const char *db = sw->db;
    if (sw->json) {
        json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:f}", "sweep", spec->name, "db", db,
                              "configs", sum->configs, "planned", sum->planned, "already_done", sum->already_done,
                              "ran", sum->ran, "ok", sum->ok, "failed", sum->failed, "interrupted", sum->interrupted,
                              "wall_s", sum->wall_s);
        json_object_set_new(o, "startup_runs", json_integer(sum->startup_runs));
        json_object_set_new(o, "no_report", json_integer(sum->no_report));
        json_object_set_new(o, "meter", json_pack("{s:s, s:f}", "name", sum->meter, "slowdown", sum->meter_slowdown));
        if (opts->dry_run)
            json_object_set_new(o, "expected_s", sum->expected_s >= 0 ? json_real(sum->expected_s) : json_null());
        if (spec->repeats_auto)
            json_object_set_new(o, "auto_stop", json_pack("{s:i, s:i, s:s}", "precision", sum->stop_precision,
                                                          "answer", sum->stop_answer, "note", sum->stop_note));
        if (opts->shard.n)
            json_object_set_new(o, "shard", json_pack("{s:i, s:i}", "k", opts->shard.k, "n", opts->shard.n));
        pm_json_stamp(o, "wall_s", "s", "expected_s", "s", NULL);
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
        json_decref(o);
    } else if (opts->dry_run) {
        printf("dry run: %d configs, %d runs planned (%d already recorded); nothing was written\n", sum->configs,
               sum->planned, sum->already_done);
        /* what the meter costs: the expected time when the store has runs to go by */
        char t[16];
        fmt_dur(sum->expected_s, t, sizeof t);
        printf("dry run: meter %s: steps run ~%.0fx their native time; expected time %s\n", sum->meter,
               sum->meter_slowdown, sum->expected_s >= 0 ? t : "unknown (no run recorded in the database to go by)");
    } else {
        if (sum->startup_runs)
            printf("start-up: %d null-input runs (each tool on an empty input, once per sweep)\n", sum->startup_runs);
        if (opts->shard.n)
            printf("shard %d/%d: ", opts->shard.k, opts->shard.n);
        char noreport[32] = "";
        if (sum->no_report)
            snprintf(noreport, sizeof noreport, ", %d no-report", sum->no_report);
        printf("sweep %s: %d configs, %d runs planned (%d already recorded), %d ran: %d ok, %d failed%s, %.1f s%s\n"
               "results: %s\n",
               spec->name, sum->configs, sum->planned, sum->already_done, sum->ran, sum->ok, sum->failed, noreport,
               sum->wall_s, sum->interrupted ? " (interrupted: rerun to resume)" : "", db);
        if (sum->left && !sum->interrupted)   /* --max-runs stopped it: how much is left, and how to go on */
            printf("--max-runs %d: %d runs left; the same command resumes them\n", opts->max_runs, sum->left);
        if (spec->repeats_auto && !sum->interrupted)
            printf("repeats = auto: %d configs stopped on a known dominant stage, %d on the %.0f%% precision, %d "
                   "at max_repeats or still open%s%s\n", sum->stop_answer, sum->stop_precision, 100 * spec->precision,
                   sum->configs - sum->stop_answer - sum->stop_precision, sum->stop_note[0] ? "; " : "",
                   sum->stop_note);
        if (sum->no_report)
            printf("warning: %d runs have no readable timing report (%s): they give no stage, regime or fix; make "
                   "the step print one (clang -ftime-report or -ftime-trace, opt/llc -time-passes, gcc "
                   "-ftime-report, mlir-opt --mlir-timing) and check its report = line\n",
                   sum->no_report, sum->no_report_note);
    }
    pm_spec_free(spec);
    if (sum->interrupted)
        return 130;
    /* runs were made and none succeeded: nothing was measured, which a script must not read as success. A
     * no-report run did run and was measured (its walls are stored): the warning above says why it concludes
     * nothing, and the sweep itself succeeded. */
    if (!opts->dry_run && sum->ran > 0 && sum->ok == 0 && sum->no_report == 0) {
        fprintf(stderr, "passmap sweep: every run failed (%d of %d): see the notes in `passmap show %s` or the run "
                "folders under the work folder\n", sum->failed, sum->ran, db);
        return PM_EXIT_FAIL;
    }
    return PM_EXIT_OK;
}

/* Parse options, check and refuse, run (or submit to Slurm, or dry-run), print. */
int cmd_sweep(int argc, char **argv)
{
    sweep_cli sw = {.slurm = {.shards = 0}, .opts = {.warm = -1, .stop = &stop_requested}};
    int rc;
    if ((rc = sweep_parse_options(&sw, argc, argv)) != SWEEP_GO || (rc = sweep_check(&sw, argc, argv)) != SWEEP_GO)
        return rc;
    if (sw.use_slurm)
        return sweep_slurm(&sw, argv);
    if ((rc = sweep_check_local(&sw)) != SWEEP_GO || (rc = sweep_run(&sw)) != SWEEP_GO)
        return rc;
    return sweep_print(&sw);
}
