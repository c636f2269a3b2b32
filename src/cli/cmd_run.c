/* passmap run: runs a command N times, each cold in its own process, and summarises the measurements. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "meter.h"
#include "ov.h"
#include "cli_opts.h"
#include "cmds.h"
#include "json_out.h"
#include "parse.h"
#include "pgroup.h"
#include "run.h"
#include "table.h"
#include "single_run.h"
#include "stats.h"
#include "util.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* What the command line asks for. */
typedef struct run_args {
    const pm_backend_ops *be;      /* --backend: a row that passmap run offers */
    const char *run_dir;
    long n_runs, warmup;
    int json, verbose;
    pm_run_opts opts;
    const char *meter_name;        /* --meter, resolved into meter */
    const pm_meter *meter;
    const char *stdout_base, *stderr_base;
    pm_single_run_opts rec;        /* --db: where the measured runs are recorded */
    char **cmd;                    /* what each run executes */
    const char *be_name;           /* --backend as given, for --help */
    const char *seen[64];          /* the options given, each once (at most one per row of run_command) */
    int n_seen;
    cli_given given; /* the back ends' run options given (their rows' run) */
} run_args;

static int count(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field);
static int backend(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field);
static int size(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field);

/* clang-format off */
static const cli_opt run_opts[] = {
    {"runs", 'n', 1, "N", "measured runs (default 5)", CLI_BIND_FN(run_args, n_runs, count), .lo = 1},
    {"warmup", 0, 0, "K", "unmeasured runs first (default 0)", CLI_BIND_FN(run_args, warmup, count), .lo = 0},
    {"timeout", 0, 0, "DUR", "per run, e.g. 30, 2.5s, 500ms, 5m, 1h; the process group is killed",
                             CLI_BIND_FN(run_args, opts.timeout_s, cli_duration)},
    {"mem-limit", 0, 0, "SIZE", "address-space limit (RLIMIT_AS) per run, e.g. 512M, 8G",
                                CLI_BIND_FN(run_args, opts.mem_limit_bytes, size)},
    {"cwd", 0, 0, "DIR", "working directory of CMD", CLI_BIND_STR(run_args, opts.cwd)},
    {"stdout", 0, 0, "FILE", "keep CMD's stdout (with -n > 1: FILE.1, FILE.2, ... per run)",
                             CLI_BIND_STR(run_args, stdout_base)},
    {"stderr", 0, 0, "FILE", "keep CMD's stderr (with -n > 1: FILE.1, FILE.2, ... per run)",
                             CLI_BIND_STR(run_args, stderr_base)},
    {"json", 0, 0, NULL, "one JSON object on stdout instead of the table", CLI_BIND_FLAG(run_args, json)},
    {"verbose", 'v', 1, NULL, "one line per run", CLI_BIND_FLAG(run_args, verbose)},
    {"meter", 0, 0, "M", "how each run is measured: {meters} (default auto: perf counters where the\n"
                         "kernel offers them, else wall); valgrind counts the instructions of CMD's process\n"
                         "tree exactly (~50x slower: its wall is not CMD's)", CLI_BIND_STR(run_args, meter_name)},
    {"backend", 0, 0, "NAME", "{run-backends}", CLI_BIND_FN(run_args, be, backend)},
    {"run-dir", 0, 0, "DIR", "with a back end whose runs are its own children (not CMD): their folders, RUN_DIR/i\n"
                             "(default passmap-run); compile and blob-import seconds are read from each child's\n"
                             "result line and summarised too", CLI_BIND_STR(run_args, run_dir)},
    {"", 0, 0, NULL, "Recording (each measured run becomes one run in a results database, process stats and pass times\n"
                     "together, as a sweep stores them):"},
    {"db", 0, 0, "FILE", "results database (created when missing); what a killed `run --db` left\n"
                         "running in a run's process group is killed first (one line on stderr)",
                         CLI_BIND_STR(run_args, rec.db)},
    {"config", 0, 0, "KEY", "the config the runs belong to, e.g. c/input=a.c/opt=2 (NAME=VALUE parts\n"
                            "become its parameters, for compare --a NAME=V --b NAME=W)", CLI_BIND_STR(run_args, rec.key)},
    {"sweep", 0, 0, "NAME", "sweep to record into (default runs)", CLI_BIND_STR(run_args, rec.sweep)},
    {"report", 0, 0, "WHERE", "where CMD prints its timing report: stderr (default), stdout or a FILE;\n"
                              "a FILE that never appears makes the run failed", CLI_BIND_STR(run_args, rec.report)},
    {"format", 0, 0, "NAME", "report parser: {formats} (default: sniff)", CLI_BIND_FN(run_args, rec.fmt, cli_format)},
    {"tool", 0, 0, "LABEL", "tool stored with the step (default: CMD's name without version suffix)",
                            CLI_BIND_STR(run_args, rec.tool)},
    {0},   /* then each back end's run options, from its row (run_command) */
};
/* clang-format on */
static void seen(void *into, const cli_opt *o);
static cli_cmd run_cmd = {
    .name = "run",
    .synopsis = "[options] -- CMD [ARGS...]\n"
                "passmap run [options] --backend openvino --model X.xml [--device NPU] [--window W]",
    .about = "Runs CMD (no shell) N times, each cold in its own process group, and reports wall, user and sys\n"
             "time, max RSS and user-space instructions (n/a where perf counters are unavailable).\n"
             "Statistics cover the runs that succeeded; every failed run is listed and counted by status.",
    .opts = run_opts,
    .exit_status = "0 all runs succeeded, 1 a run failed (or passmap could not run it), 2 bad usage",
    .flags = "+", /* stop at CMD, so its own options are not taken for ours */
    .seen = seen,
    .own_words = 1,
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "passmap run: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return cli_try_help(&run_cmd);
}

static int parse_count(const char *text, long min, long *out)
{
    char *end;
    if (!text[0] || text[0] == '-' || text[0] == '+')
        return -1;
    long v = strtol(text, &end, 10);
    if (*end || v < min || v > 1000000)
        return -1;
    *out = v;
    return 0;
}

/* The last non-empty line of a failed child's stderr: the reason it gives. */
static void report_child_error(const char *err_path, long run, long all_failed)
{
    char *buf = NULL;
    size_t len = 0;
    pm_err e = {0};
    if (!err_path || pm_util_read_file_max(err_path, 16u << 20, &buf, &len, &e) != PM_OK)
        return;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        buf[--len] = '\0';
    const char *last = len ? strrchr(buf, '\n') : NULL;
    last = last ? last + 1 : buf;
    if (*last)
        fprintf(stderr, "passmap run: run %ld failed%s: %s\n", run, all_failed ? " (as did every run)" : "", last);
    free(buf);
}

typedef enum metric_unit { UNIT_S, UNIT_KB, UNIT_COUNT } metric_unit;
typedef struct metric {
    const char *name;  /* the JSON key (raw numbers) */
    const char *label; /* the terminal table's row (numbers in the report's formats) */
    metric_unit unit;
    int optional; /* instructions: runs without a value are skipped */
} metric;

static const metric metrics[] = {
    {"wall_s", "wall", UNIT_S, 0},         {"user_s", "user", UNIT_S, 0}, {"sys_s", "sys", UNIT_S, 0},
    {"maxrss_kb", "maxrss", UNIT_KB, 0},   {"instructions", "instructions", UNIT_COUNT, 1},
};

/* A value in the terminal table: a duration in the report's one format ("5.333 ms"), a size in kB, a count. */
static void fmt_metric(char *buf, size_t n, metric_unit u, double v)
{
    if (u == UNIT_S)
        pm_fmt_time(buf, n, v, 0);
    else if (u == UNIT_KB)
        snprintf(buf, n, "%.0f kB", v);
    else
        snprintf(buf, n, "%.0f", v);
}
enum { N_METRICS = sizeof metrics / sizeof metrics[0] };

static double metric_value(const pm_run_result *r, int m)
{
    switch (m) {
    case 0: return r->wall_s;
    case 1: return r->user_s;
    case 2: return r->sys_s;
    case 3: return (double)r->maxrss_kb;
    default: return r->instructions >= 0 ? (double)r->instructions : NAN;
    }
}

/* Over the runs that succeeded (and, for optional metrics, that have a value); sd 0 for a single run.
 * -1: out of memory. */
static int compute_stats(const pm_run_result *runs, size_t n_runs, int m, double *scratch, pm_stats_summary *s)
{
    size_t n = 0;
    for (size_t i = 0; i < n_runs; i++) {
        double v = metric_value(&runs[i], m);
        if (runs[i].status == PM_RUN_OK && !isnan(v))
            scratch[n++] = v;
    }
    if (pm_stats_summarize(scratch, n, s) == PM_STATS_NOMEM)
        return -1;
    if (isnan(s->sd))
        s->sd = 0.0;
    return 0;
}

static json_t *run_to_json(const pm_run_result *r, int index, const char *stdout_file, const char *stderr_file)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(index));
    json_object_set_new(o, "status", json_string(pm_run_status_name(r->status)));
    json_object_set_new(o, "exit_code", r->term_signal || r->status == PM_RUN_SPAWN_ERROR
                                            ? json_null() : json_integer(r->exit_code));
    json_object_set_new(o, "signal", r->term_signal ? json_integer(r->term_signal) : json_null());
    const char *signame = r->term_signal ? sigabbrev_np(r->term_signal) : NULL;
    json_object_set_new(o, "signal_name", signame ? json_string(signame) : json_null());
    json_object_set_new(o, "wall_s", json_real(r->wall_s));
    json_object_set_new(o, "user_s", json_real(r->user_s));
    json_object_set_new(o, "sys_s", json_real(r->sys_s));
    json_object_set_new(o, "maxrss_kb", json_integer(r->maxrss_kb));
    json_object_set_new(o, "instructions", r->instructions >= 0 ? json_integer(r->instructions) : json_null());
    json_object_set_new(o, "stdout_bytes", json_integer((json_int_t)r->stdout_bytes));
    json_object_set_new(o, "stderr_bytes", json_integer((json_int_t)r->stderr_bytes));
    json_object_set_new(o, "stdout_truncated", json_boolean(r->stdout_truncated));
    json_object_set_new(o, "stderr_truncated", json_boolean(r->stderr_truncated));
    if (stdout_file)
        json_object_set_new(o, "stdout_file", json_string(stdout_file));
    if (stderr_file)
        json_object_set_new(o, "stderr_file", json_string(stderr_file));
    if (r->status == PM_RUN_SPAWN_ERROR)
        json_object_set_new(o, "spawn_error", json_string(r->spawn_error));
    return o;
}

static void print_run_line(FILE *out, const pm_run_result *r, int index)
{
    fprintf(out, "run %d: %-11s", index, pm_run_status_name(r->status));
    if (r->status == PM_RUN_SPAWN_ERROR) {
        fprintf(out, " %s\n", r->spawn_error);
        return;
    }
    if (r->term_signal)
        fprintf(out, " signal %-4s", sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "?");
    else
        fprintf(out, " exit %-6d", r->exit_code);
    char w[32], u[32], sy[32];
    pm_fmt_time(w, sizeof w, r->wall_s, 0);
    pm_fmt_time(u, sizeof u, r->user_s, 0);
    pm_fmt_time(sy, sizeof sy, r->sys_s, 0);
    fprintf(out, " wall %s  user %s  sys %s  maxrss %ld kB  instructions ", w, u, sy, r->maxrss_kb);
    if (r->instructions >= 0)
        fprintf(out, "%lld\n", (long long)r->instructions);
    else
        fprintf(out, "n/a\n");
}

/* FILE for a single run, FILE.i for several. */
static char *run_file(const char *base, long n_runs, int index)
{
    if (!base)
        return NULL;
    char *p;
    if (n_runs == 1)
        p = strdup(base);
    else if (asprintf(&p, "%s.%d", base, index) < 0)
        p = NULL;
    return p;
}

static void on_notice(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "passmap run: %s\n", line);
}


/* What the runs gave. */
typedef struct run_results {
    pm_run_result *runs;
    char **out_files, **err_files; /* each run's kept stdout / stderr, or NULL */
    double *scratch;
    long done;                     /* runs measured (fewer than n_runs when interrupted) */
    long counts[PM_RUN_SPAWN_ERROR + 1];
    pm_stats_summary st[N_METRICS];
    pm_stats_summary ov_compile, ov_import;   /* the children's own compile and blob-import seconds */
} run_results;

/* The values of the options that need more than a copy, each said in the command's own words. */
static int count(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if (parse_count(arg, o->lo, field) < 0)
        return cli_refuse(cmd, "--%s wants a whole number >= %ld, not '%s'", o->name, o->lo, arg);
    return 0;
}

static int backend(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    /* the table says which back ends passmap run measures */
    const pm_backend_ops *be = pm_backend_find(arg);
    if (!be || be->run_one == PM_RUN_ONE_NONE)
        return cli_refuse(cmd, "--%s is %s, not '%s'", o->name, pm_backend_run_names(), arg);
    *(const pm_backend_ops **)field = be;
    ((run_args *)(void *)((char *)field - offsetof(run_args, be)))->be_name = be->name;
    return 0;
}

static int size(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    return pm_run_parse_size(arg, field, &err) ? cli_refuse(cmd, "--%s: %s", o->name, err.msg) : 0;
}

/* A back end's own run option (its row's run): checked by its row, kept for the step it makes. */
static int row_option(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    const pm_backend_ops *be = pm_backend_at((size_t)o->lo);
    pm_err err = {0};
    if (be->run->valid && be->run->valid(o->name, arg, &err))
        return cli_refuse(cmd, "--%s %s", o->name, err.msg);
    return cli_given_add(cmd, field, o->name, arg);
}

static const pm_backend_option *run_options_of(const pm_backend_ops *be)
{
    return be->run ? be->run->options : NULL;
}

static const char *run_heading_of(const pm_backend_ops *be)
{
    return be->run->heading;
}

/* run's table: its own rows, then each back end's run options (cli_with_backend_rows). */
static const cli_cmd *run_command(void)
{
    static const cli_opt *all;
    if (!all &&
        (all = cli_with_backend_rows(run_opts, run_options_of, run_heading_of, offsetof(run_args, given), row_option)))
        run_cmd.opts = all;
    return &run_cmd;
}

/* Each option given, once, to be checked against the back end in use when all are read (a back-end row may own
 * it: pm_backend_ops.options). */
static void seen(void *into, const cli_opt *o)
{
    run_args *a = into;
    for (int i = 0; i < a->n_seen; i++)
        if (a->seen[i] == o->name)
            return;
    if (a->n_seen < (int)(sizeof a->seen / sizeof a->seen[0])) /* more rows than it holds: none has as many */
        a->seen[a->n_seen++] = o->name;
}

/* Parses the options into *a. -1: go on; else the exit status (help, or a usage error already printed). */
static int parse_args(int argc, char **argv, run_args *a)
{
    pm_err err = {0};
    int c = cli_parse_args(run_command(), argc, argv, a, &a->be_name);
    if (c != CLI_GO)
        return c;
    a->cmd = argv + optind;
    if (a->be->run) {
        if (optind < argc)
            return usage_error("--backend %s makes each run's own step; it takes no CMD", a->be->name);
    } else if (optind >= argc) {
        return usage_error("%s", "missing command (passmap run [options] -- CMD [ARGS...])");
    }
    if (!a->rec.db != !a->rec.key)
        return usage_error("%s", "--db and --config go together");
    if (a->rec.db && a->be->run_one != PM_RUN_ONE_CMD)
        return usage_error("--db records command runs; the %s back end records through passmap sweep", a->be->name);
    /* An option of another back end is an error naming this one, never silently ignored (the rows say whose). */
    for (int i = 0; i < a->n_seen; i++)
        if (pm_backend_option_check(a->be, a->seen[i], &err))
            return usage_error("%s", err.msg);
    return -1;
}

/* The back end's own step each run executes (a->cmd), made by its row from the options given, and the run
 * folders' parent. PM_EXIT_OK, or the exit status after the error is printed. */
static int prepare_row_step(run_args *a, pm_steps *steps)
{
    pm_err err = {0};
    char self[PATH_MAX];
    if (!realpath("/proc/self/exe", self)) {
        fprintf(stderr, "passmap run: cannot find passmap's own executable\n");
        return PM_EXIT_FAIL;
    }
    int rc = a->be->run->step(self, a->given.names, a->given.values, a->given.n, steps, &err);
    if (rc == PM_ERR_USAGE)
        return usage_error("%s", err.msg);
    if (rc) {
        fprintf(stderr, "passmap run: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    a->cmd = steps->items[0].argv;
    if (mkdir(a->run_dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "passmap run: cannot create %s: %s\n", a->run_dir, strerror(errno));
        return PM_EXIT_FAIL;
    }
    return PM_EXIT_OK;
}

/* --db: a run's kept stdout/stderr or the report file the command writes must not be the database (the
 * child's O_TRUNC would destroy it before anything is recorded). PM_EXIT_OK or the usage error printed. */
static int refuse_db_outputs(const run_args *a)
{
    pm_err err = {0};
    const char *bases[] = {a->stdout_base, a->stderr_base};
    for (size_t b = 0; b < 2; b++) {
        for (long i = 1; bases[b] && i <= a->n_runs; i++) {
            char *f = run_file(bases[b], a->n_runs, (int)i);
            int rc = f ? pm_util_refuse_same_file(f, a->rec.db, 1, "the database", &err) : PM_OK;
            free(f);
            if (rc)
                return usage_error("%s", err.msg);
        }
    }
    if (pm_util_refuse_same_file(a->rec.report, a->rec.db, 1, "the database", &err))
        return usage_error("%s", err.msg);
    return PM_EXIT_OK;
}

/* --db: opens the recorder, and reaps what a killed `run --db` left. PM_EXIT_OK or the exit status (printed). */
static int open_recorder(run_args *a, pm_single_run *sr, pm_pgroup_recorder *pgrec)
{
    pm_err err = {0};
    int refused = refuse_db_outputs(a);
    if (refused != PM_EXIT_OK)
        return refused;
    a->rec.keeps_stdout = a->stdout_base != NULL;
    a->rec.keeps_stderr = a->stderr_base != NULL;
    int rc = pm_single_run_open(sr, &a->rec, a->cmd, &err);
    if (rc == PM_ERR_USAGE)
        return usage_error("%s", err.msg);
    /* A rerun continues the config's repeats: what a killed `run --db` left running in a run's process group
     * (backgrounded, so PDEATHSIG missed it) would compete with the runs measured now. */
    if (rc != PM_OK || pm_pgroup_recorder_init(pgrec, a->rec.db, &err) != PM_OK
        || pm_pgroup_reap(a->rec.db, on_notice, NULL, &err) != PM_OK) {
        fprintf(stderr, "passmap run: %s\n", err.msg);
        return PM_EXIT_FAIL;
    }
    a->opts.on_start = pm_pgroup_record;
    a->opts.on_start_arg = pgrec;
    /* A report on a stream needs the stream kept: the recorder's private folder when the user keeps none. */
    if (sr->stdout_base)
        a->stdout_base = sr->stdout_base;
    if (sr->stderr_base)
        a->stderr_base = sr->stderr_base;
    return PM_EXIT_OK;
}

/* Run i's kept stdout/stderr: the user's files, or (ov-compile) in its own folder ov_dir, created here. 0 or -1. */
static int run_files(const run_args *a, long i, run_results *res, pm_run_opts *o, char *ov_dir, size_t cap)
{
    res->out_files[i] = run_file(a->stdout_base, a->n_runs, (int)i + 1);
    res->err_files[i] = run_file(a->stderr_base, a->n_runs, (int)i + 1);
    if ((a->stdout_base && !res->out_files[i]) || (a->stderr_base && !res->err_files[i])) {
        fprintf(stderr, "passmap run: out of memory\n");
        return -1;
    }
    if (a->be->run_one == PM_RUN_ONE_OV_COMPILE) {
        /* Own folder per run: the compiler writes its trace files into its working directory. */
        snprintf(ov_dir, cap, "%s/%ld", a->run_dir, i + 1);
        if (mkdir(ov_dir, 0777) && errno != EEXIST) {
            fprintf(stderr, "passmap run: cannot create %s: %s\n", ov_dir, strerror(errno));
            return -1;
        }
        o->cwd = ov_dir;
        if (!res->out_files[i] && asprintf(&res->out_files[i], "%s/ov-compile.stdout", ov_dir) < 0) {
            res->out_files[i] = NULL;
            return -1;
        }
        /* kept so a failed compile can say why (a missing library or device is only in the child's stderr) */
        if (!res->err_files[i] && asprintf(&res->err_files[i], "%s/ov-compile.stderr", ov_dir) < 0) {
            res->err_files[i] = NULL;
            return -1;
        }
    }
    o->stdout_path = res->out_files[i];
    o->stderr_path = res->err_files[i];
    return 0;
}

/* The warmup runs, then the measured runs (each recorded with --db), until done or interrupted. PM_EXIT_OK, or
 * PM_EXIT_FAIL when passmap could not go on (said). */
static int measure(const run_args *a, pm_single_run *sr, pm_pgroup_recorder *pgrec, run_results *res)
{
    int progress = isatty(STDERR_FILENO);
    char what[PATH_MAX], ov_dir[PATH_MAX + 32];
    const char *key = a->rec.key ? a->rec.key : "";
    pm_err err = {0};
    for (long i = 0; i < a->warmup && !interrupted; i++) {
        pm_run_opts w = a->opts;
        w.stdout_path = w.stderr_path = NULL;
        pm_run_result r;
        if (progress)
            fprintf(stderr, "\rwarmup %ld/%ld ", i + 1, a->warmup);
        snprintf(what, sizeof what, "config %s, warmup %ld", key, i + 1);
        pgrec->what = what;
        int erc = a->meter->exec((const char *const *)a->cmd, &w, NULL, &r, &err);
        if (sr->st)
            pm_pgroup_unrecord(pgrec);
        if (erc != PM_OK) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            return PM_EXIT_FAIL;
        }
        if (r.status != PM_RUN_OK)
            fprintf(stderr, "%spassmap run: warmup run %ld: %s\n", progress ? "\n" : "", i + 1,
                    r.status == PM_RUN_SPAWN_ERROR ? r.spawn_error : pm_run_status_name(r.status));
    }
    for (long i = 0; i < a->n_runs && !interrupted; i++) {
        pm_run_opts o = a->opts;
        if (run_files(a, i, res, &o, ov_dir, sizeof ov_dir))
            return PM_EXIT_FAIL;
        if (progress)
            fprintf(stderr, "\rrun %ld/%ld ", i + 1, a->n_runs);
        snprintf(what, sizeof what, "config %s, cold r%ld", key, sr->first_repeat + i);
        pgrec->what = what;
        int erc = a->meter->exec((const char *const *)a->cmd, &o, NULL, &res->runs[i], &err);
        if (sr->st)
            pm_pgroup_unrecord(pgrec);
        if (erc != PM_OK) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            return PM_EXIT_FAIL;
        }
        res->done = i + 1;
        if (sr->st && !interrupted &&
            pm_single_run_record(sr, &res->runs[i], (int)i, res->out_files[i], res->err_files[i], &err)) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            return PM_EXIT_FAIL;
        }
        if (a->verbose) {
            if (progress)
                fprintf(stderr, "\r\033[K");
            print_run_line(a->json ? stderr : stdout, &res->runs[i], (int)i + 1);
        }
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    return PM_EXIT_OK;
}

/* Counts by status and the statistics of what ran; with ov-compile children, the reason a run failed and
 * their own compile and blob-import seconds. 0 or -1 (out of memory). */
static int summarize(const run_args *a, run_results *res)
{
    int ov = a->be->run_one == PM_RUN_ONE_OV_COMPILE;
    for (long i = 0; i < res->done; i++)
        res->counts[res->runs[i].status]++;
    if (ov)
        for (long i = 0; i < res->done; i++)
            if (res->runs[i].status != PM_RUN_OK) {
                report_child_error(res->err_files[i], i + 1, res->counts[PM_RUN_OK] ? 0 : res->done);
                break;
            }
    for (int m = 0; m < N_METRICS; m++)
        if (compute_stats(res->runs, (size_t)res->done, m, res->scratch, &res->st[m]))
            return -1;
    if (!ov)
        return 0;
    pm_err err = {0};
    return pm_ov_result_files_summarize(res->out_files, (size_t)res->done, &res->ov_compile, &res->ov_import, &err)
               ? -1 : 0;
}

static json_t *summary_json(const pm_stats_summary *s)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)s->n, "mean", s->mean, "median", s->median,
                     "stddev", s->sd, "min", s->min, "max", s->max);
}

/* One JSON object on stdout. 0 or -1 (write failed). */
static int print_json(const run_args *a, const run_results *res)
{
    json_t *root = json_object();
    json_t *jcmd = json_array(), *jruns = json_array(), *summary = json_object(), *fails = json_object();
    json_object_set_new(root, "command", jcmd);
    json_object_set_new(root, "runs", jruns);
    json_object_set_new(root, "summary", summary);
    for (char **c = a->cmd; *c; c++)
        json_array_append_new(jcmd, json_string(*c));
    for (long i = 0; i < res->done; i++)
        json_array_append_new(jruns, run_to_json(&res->runs[i], (int)i + 1, res->out_files[i], res->err_files[i]));
    json_object_set_new(summary, "runs", json_integer(res->done));
    json_object_set_new(summary, "ok", json_integer(res->counts[PM_RUN_OK]));
    for (int s = PM_RUN_FAILED; s <= PM_RUN_SPAWN_ERROR; s++)
        json_object_set_new(fails, pm_run_status_name((pm_run_status)s), json_integer(res->counts[s]));
    json_object_set_new(summary, "failures", fails);
    for (int m = 0; m < N_METRICS; m++)
        json_object_set_new(summary, metrics[m].name, res->st[m].n ? summary_json(&res->st[m]) : json_null());
    if (a->be->run_one == PM_RUN_ONE_OV_COMPILE) {
        const pm_stats_summary *ss[2] = {&res->ov_compile, &res->ov_import};
        const char *names[2] = {"ov_compile_s", "ov_import_s"};
        for (int k = 0; k < 2; k++)
            json_object_set_new(summary, names[k],
                                ss[k]->n ? json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)ss[k]->n,
                                                     "mean", ss[k]->mean, "median", ss[k]->median, "min",
                                                     ss[k]->min, "max", ss[k]->max)
                                         : json_null());
    }
    pm_json_stamp(root, "wall_s", "s", "user_s", "s", "sys_s", "s", "maxrss_kb", "kB", "instructions",
                  "count (integer; null where perf counters are unavailable)", NULL);
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) < 0 || fputc('\n', stdout) == EOF
                 ? -1 : 0;
    json_decref(root);
    return rc;
}

/* The human table on stdout. */
static void print_table(const run_args *a, const run_results *res)
{
    char *joined = pm_argv_join(a->cmd);
    printf("command: %s\n", joined ? joined : a->cmd[0]);
    free(joined);
    printf("runs: %ld, ok: %ld", res->done, res->counts[PM_RUN_OK]);
    for (int s = PM_RUN_FAILED; s <= PM_RUN_SPAWN_ERROR; s++)
        if (res->counts[s])
            printf(", %s: %ld", pm_run_status_name((pm_run_status)s), res->counts[s]);
    printf("\n%-13s %14s %14s %14s %14s %14s\n", "", "mean", "median", "stddev", "min", "max");
    for (int m = 0; m < N_METRICS; m++) {
        const pm_stats_summary *st = &res->st[m];
        printf("%-13s", metrics[m].label);
        if (st->n == 0) {
            printf(" %14s\n", "n/a");
            continue;
        }
        double v[5] = {st->mean, st->median, st->sd, st->min, st->max};
        for (int k = 0; k < 5; k++) {
            char b[48];
            fmt_metric(b, sizeof b, metrics[m].unit, v[k]);
            printf(" %14s", b);
        }
        printf("\n");
    }
    if (a->be->run_one == PM_RUN_ONE_OV_COMPILE) {
        const pm_stats_summary *ss[2] = {&res->ov_compile, &res->ov_import};
        const char *names[2] = {"ov compile", "ov import"};
        for (int k = 0; k < 2; k++) {
            printf("%-13s", names[k]);
            if (!ss[k]->n) {
                printf(" %14s\n", "n/a");
                continue;
            }
            double v[5] = {ss[k]->mean, ss[k]->median, isnan(ss[k]->sd) ? 0.0 : ss[k]->sd, ss[k]->min, ss[k]->max};
            for (int j = 0; j < 5; j++) {
                char b[48];
                fmt_metric(b, sizeof b, UNIT_S, v[j]);
                printf(" %14s", b);
            }
            printf("\n");
        }
        if (res->ov_compile.n && res->ov_import.n && res->ov_import.mean > 0) {
            char r[32];
            pm_fmt_ratio(r, sizeof r, res->ov_compile.mean / res->ov_import.mean);
            printf("recompile / blob import: %s\n", r);
        }
    }
    for (long i = 0; i < res->done; i++)
        if (res->runs[i].status != PM_RUN_OK && !a->verbose)
            print_run_line(stdout, &res->runs[i], (int)i + 1);
    if (res->counts[PM_RUN_OK] != res->done)
        printf("statistics cover the %ld successful run(s) only\n", res->counts[PM_RUN_OK]);
}

int cmd_run(int argc, char **argv)
{
    run_args a = {.be = pm_backend_run_default(),
                  .run_dir = "passmap-run",
                  .n_runs = 5,
                  .opts = {.count_instructions = 1, .cancel = &interrupted},
                  .rec = {.sweep = "runs", .report = "stderr", .fmt = PM_FMT_AUTO}};
    pm_steps ov_steps = {0};
    pm_single_run sr = {0};
    pm_pgroup_recorder pgrec = {.what = NULL};
    run_results res = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    rc = PM_EXIT_OK;
    pm_err merr = {0};
    if (pm_meter_resolve(a.meter_name, &a.meter, &merr)) {
        fprintf(stderr, "passmap run: %s\n", merr.msg);
        return merr.code == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    a.rec.meter = a.meter->name;
    if (a.be->run && (rc = prepare_row_step(&a, &ov_steps)) != PM_EXIT_OK)
        goto cleanup_early;
    if (a.rec.db && (rc = open_recorder(&a, &sr, &pgrec)) != PM_EXIT_OK)
        goto cleanup_early;

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: poll() in pm_run_exec wakes up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    res.runs = calloc((size_t)a.n_runs, sizeof *res.runs);
    res.out_files = calloc((size_t)a.n_runs, sizeof *res.out_files);
    res.err_files = calloc((size_t)a.n_runs, sizeof *res.err_files);
    res.scratch = calloc((size_t)a.n_runs, sizeof *res.scratch);
    if (!res.runs || !res.out_files || !res.err_files || !res.scratch) {
        fprintf(stderr, "passmap run: out of memory\n");
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    if ((rc = measure(&a, &sr, &pgrec, &res)) != PM_EXIT_OK)
        goto cleanup;
    if (interrupted) {
        fprintf(stderr, "passmap run: interrupted after %ld of %ld runs\n", res.done, a.n_runs);
        rc = PM_EXIT_FAIL;
    }
    if (summarize(&a, &res)) {
        fprintf(stderr, "passmap run: out of memory\n");
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }
    if (res.counts[PM_RUN_OK] != res.done)
        rc = PM_EXIT_FAIL;
    if (a.json) {
        if (print_json(&a, &res))
            rc = PM_EXIT_FAIL;
    } else {
        print_table(&a, &res);
    }
    if (fflush(stdout) == EOF)
        rc = PM_EXIT_FAIL;

cleanup:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    for (long i = 0; i < a.n_runs && res.out_files && res.err_files; i++) {
        free(res.out_files[i]);
        free(res.err_files[i]);
    }
    free(res.out_files);
    free(res.err_files);
    free(res.runs);
    free(res.scratch);
cleanup_early:
    pm_steps_free(&ov_steps);
    pm_single_run_close(&sr);
    return rc;
}
