/* passmap run: runs a command N times, each cold in its own process, and summarises the measurements. */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <limits.h>
#include <sys/stat.h>

#include "backend.h"
#include "json_out.h"
#include "cmds.h"
#include "util.h"
#include "ov.h"
#include "parse.h"
#include "pgroup.h"
#include "run.h"
#include "stats.h"
#include "store.h"
#include "util.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: passmap run [options] -- CMD [ARGS...]\n"
            "       passmap run [options] --backend openvino --model X.xml [--device NPU] [--window W]\n"
            "Runs CMD (no shell) N times, each cold in its own process group, and reports wall, user and sys\n"
            "time, max RSS and user-space instructions (n/a where perf counters are unavailable).\n"
            "Statistics cover the runs that succeeded; every failed run is listed and counted by status.\n"
            "\n"
            "  -n, --runs N          measured runs (default 5)\n"
            "      --warmup K        unmeasured runs first (default 0)\n"
            "      --timeout DUR     per run, e.g. 30, 2.5s, 500ms, 5m, 1h; the process group is killed\n"
            "      --mem-limit SIZE  address-space limit (RLIMIT_AS) per run, e.g. 512M, 8G\n"
            "      --cwd DIR         working directory of CMD\n"
            "      --stdout FILE     keep CMD's stdout (with -n > 1: FILE.1, FILE.2, ... per run)\n"
            "      --stderr FILE     keep CMD's stderr (with -n > 1: FILE.1, FILE.2, ... per run)\n"
            "      --json            one JSON object on stdout instead of the table\n"
            "Recording (each measured run becomes one run in a results database, process stats and pass times\n"
            "together, as a sweep stores them):\n"
            "      --db FILE         results database (created when missing); what a killed `run --db` left\n"
            "                        running in a run's process group is killed first (one line on stderr)\n"
            "      --config KEY      the config the runs belong to, e.g. c/input=a.c/opt=2 (NAME=VALUE parts\n"
            "                        become its parameters, for compare --a NAME=V --b NAME=W)\n"
            "      --sweep NAME      sweep to record into (default runs)\n"
            "      --report WHERE    where CMD prints its timing report: stderr (default), stdout or a FILE;\n"
            "                        a FILE that never appears makes the run failed\n"
            "      --format NAME     report parser (default: sniff)\n"
            "      --tool LABEL      tool stored with the step (default: CMD's name without version suffix)\n"
            "  -v, --verbose         one line per run\n"
            "OpenVINO back end (each run is a `passmap ov-compile` child in its own folder RUN_DIR/i, cold):\n"
            "      --backend NAME    command (default) or openvino\n"
            "      --model X.xml     OpenVINO IR to compile; --device NPU|CPU|GPU (default NPU)\n"
            "      --window W        LLM prompt window (NPUW_LLM_MAX_PROMPT_LEN)\n"
            "      --ov-lib PATH     libopenvino_c (default: $PASSMAP_OPENVINO_LIB, then libopenvino_c.so)\n"
            "      --schedule-trace, --strategy-out   ask the NPU compiler for its trace files\n"
            "      --run-dir DIR     run folders (default passmap-run); compile and blob-import seconds are\n"
            "                        read from each child's result line and summarised too\n"
            "  -h, --help            this help\n"
            "Exit status: 0 all runs succeeded, 1 a run failed (or passmap could not run it), 2 bad usage.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "passmap run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see passmap run --help)\n");
    return PM_EXIT_USAGE;
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

typedef struct metric {
    const char *name;
    int optional; /* instructions: runs without a value are skipped */
} metric;

static const metric metrics[] = {
    {"wall_s", 0}, {"user_s", 0}, {"sys_s", 0}, {"maxrss_kb", 0}, {"instructions", 1},
};
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

typedef struct stats {
    size_t n;
    double mean, median, stddev, min, max;
} stats;

/* Over the runs that succeeded (and, for optional metrics, that have a value). */
static void compute_stats(const pm_run_result *runs, size_t n_runs, int m, double *scratch, stats *s)
{
    size_t n = 0;
    for (size_t i = 0; i < n_runs; i++) {
        double v = metric_value(&runs[i], m);
        if (runs[i].status == PM_RUN_OK && !isnan(v))
            scratch[n++] = v;
    }
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0)
        return;
    gsl_sort(scratch, 1, n);
    s->mean = gsl_stats_mean(scratch, 1, n);
    s->median = gsl_stats_median_from_sorted_data(scratch, 1, n);
    s->stddev = n > 1 ? gsl_stats_sd(scratch, 1, n) : 0.0;
    s->min = scratch[0];
    s->max = scratch[n - 1];
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
    fprintf(out, " wall %.4f s  user %.4f s  sys %.4f s  maxrss %ld kB  instructions ", r->wall_s, r->user_s,
            r->sys_s, r->maxrss_kb);
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

/* --db: where measured runs are recorded. */
typedef struct run_store {
    const char *db, *key, *sweep, *report, *tool;
    pm_format fmt;
    pm_store *st;
    int64_t config_id;
    int first_repeat;
    char tmpdir[PATH_MAX];   /* stdout/stderr of runs when the report is a stream and no --stdout/--stderr */
} run_store;

static int run_store_open(run_store *rs, char **cmd, pm_err *err)
{
    int64_t sweep_id;
    int rc;
    if ((rc = pm_store_open(rs->db, &rs->st, err)) || (rc = pm_store_sweep(rs->st, rs->sweep, "command", NULL, NULL,
                                                                           &sweep_id, err)))
        return rc;
    /* NAME=VALUE parts of the key are the config's parameters */
    pm_config c = {.key = rs->key, .kind = "command"};
    rc = pm_cfg_params_from_key(&c.cfg, rs->key) ? pm_err_set(err, PM_ERR_NOMEM, "out of memory")
                                                 : pm_store_config(rs->st, sweep_id, &c, &rs->config_id, err);
    pm_params_free(c.params, c.n_params);
    if (rc == PM_OK)
        rc = pm_store_runs_done(rs->st, rs->config_id, "cold", &rs->first_repeat, err);
    (void)cmd;
    return rc;
}

/* One measured run with its parsed report, as one run of one step. */
static int run_store_record(run_store *rs, char **cmd, const pm_run_result *r, long index, const char *out_file,
                            const char *err_file, pm_err *err)
{
    pm_report rep;
    pm_report_init(&rep);
    const char *status = r->status == PM_RUN_SPAWN_ERROR ? "spawn-error" : pm_run_status_name(r->status);
    char note[600] = "", label[256];
    int parsed = 0;
    if (r->status == PM_RUN_OK) {
        const char *path = !strcmp(rs->report, "stdout") ? out_file : !strcmp(rs->report, "stderr") ? err_file
                                                                                                     : rs->report;
        pm_err perr = {0};
        if (path == rs->report && access(path, F_OK) != 0) {
            status = "failed";
            snprintf(note, sizeof note, "report %.500s never appeared", path);
        } else if (pm_parse_file(path, rs->fmt, &rep, &perr) == PM_OK) {
            parsed = 1;
            if (rep.n_passes == 0)
                snprintf(note, sizeof note, "report on %s has no timing rows", rs->report);
        } else {
            snprintf(note, sizeof note, "report: %.500s", perr.msg);
        }
    } else if (r->status == PM_RUN_SPAWN_ERROR) {
        snprintf(note, sizeof note, "%.500s", r->spawn_error);
    }
    if (!rs->tool && pm_tool_label(cmd[0], label, sizeof label)) {
        pm_report_free(&rep);
        return pm_err_set(err, PM_ERR_USAGE, "program name longer than %zu characters: give --tool LABEL",
                          sizeof label - 1);
    }
    char *argv = pm_argv_join(cmd);
    pm_step_record step = {.tool = rs->tool ? rs->tool : label, .argv = argv, .result = r,
                           .report = parsed ? &rep : NULL};
    pm_run_record rec = {.config_id = rs->config_id, .repeat = rs->first_repeat + (int)index, .mode = "cold",
                         .status = status, .wall_s = r->wall_s, .user_s = r->user_s, .sys_s = r->sys_s,
                         .maxrss_kb = r->maxrss_kb, .note = note[0] ? note : NULL, .steps = &step, .n_steps = 1};
    int64_t run_id;
    int rc = argv ? pm_store_record_run(rs->st, &rec, &run_id, err) : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    free(argv);
    pm_report_free(&rep);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"runs", required_argument, NULL, 'n'},       {"warmup", required_argument, NULL, 'W'},
        {"timeout", required_argument, NULL, 't'},    {"mem-limit", required_argument, NULL, 'm'},
        {"cwd", required_argument, NULL, 'C'},        {"stdout", required_argument, NULL, 'O'},
        {"stderr", required_argument, NULL, 'E'},     {"json", no_argument, NULL, 'j'},
        {"verbose", no_argument, NULL, 'v'},          {"help", no_argument, NULL, 'h'},
        {"backend", required_argument, NULL, 'B'},    {"model", required_argument, NULL, 'M'},
        {"device", required_argument, NULL, 'D'},     {"window", required_argument, NULL, 'w'},
        {"ov-lib", required_argument, NULL, 'L'},     {"schedule-trace", no_argument, NULL, 'S'},
        {"strategy-out", no_argument, NULL, 'T'},     {"run-dir", required_argument, NULL, 'R'},
        {"db", required_argument, NULL, 'd'},         {"config", required_argument, NULL, 'k'},
        {"sweep", required_argument, NULL, 's'},      {"report", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},     {"tool", required_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    pm_ov_opts ov = {.do_import = 1};
    const char *backend = "command", *run_dir = "passmap-run";
    pm_steps ov_steps = {0};
    char self[PATH_MAX];
    long n_runs = 5, warmup = 0;
    int json = 0, verbose = 0;
    pm_run_opts opts = {.count_instructions = 1, .cancel = &interrupted};
    pm_pgroup_recorder pgrec = {.what = NULL};
    char what[PATH_MAX];
    const char *stdout_base = NULL, *stderr_base = NULL;
    run_store rs = {.sweep = "runs", .report = "stderr", .fmt = PM_FMT_AUTO};
    pm_err err;
    pm_err_clear(&err);

    opterr = 0;
    optind = 1;
    int c;
    /* '+': stop at CMD, so its own options are not taken for ours. */
    while ((c = getopt_long(argc, argv, "+n:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (parse_count(optarg, 1, &n_runs) < 0)
                return usage_error("-n wants a whole number of runs >= 1, not '%s'", optarg);
            break;
        case 'W':
            if (parse_count(optarg, 0, &warmup) < 0)
                return usage_error("--warmup wants a whole number >= 0, not '%s'", optarg);
            break;
        case 't':
            if (pm_run_parse_duration(optarg, &opts.timeout_s, &err) != PM_OK)
                return usage_error("--timeout: %s", err.msg);
            break;
        case 'm':
            if (pm_run_parse_size(optarg, &opts.mem_limit_bytes, &err) != PM_OK)
                return usage_error("--mem-limit: %s", err.msg);
            break;
        case 'C': opts.cwd = optarg; break;
        case 'O': stdout_base = optarg; break;
        case 'E': stderr_base = optarg; break;
        case 'j': json = 1; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return PM_EXIT_OK;
        case 'B':
            if (strcmp(optarg, "command") && strcmp(optarg, "openvino"))
                return usage_error("--backend is command or openvino, not '%s'", optarg);
            backend = optarg;
            break;
        case 'M': ov.model_xml = optarg; break;
        case 'D': ov.device = optarg; break;
        case 'L': ov.lib = optarg; break;
        case 'S': ov.schedule_trace = 1; break;
        case 'T': ov.strategy_out = 1; break;
        case 'R': run_dir = optarg; break;
        case 'd': rs.db = optarg; break;
        case 'k': rs.key = optarg; break;
        case 's': rs.sweep = optarg; break;
        case 'r': rs.report = optarg; break;
        case 'l': rs.tool = optarg; break;
        case 'f':
            if (strcmp(optarg, "auto") && (rs.fmt = pm_format_from_name(optarg)) == PM_FMT__COUNT)
                return usage_error("--format: unknown parser '%s'", optarg);
            break;
        case 'w': {
            long w;
            if (parse_count(optarg, 1, &w) < 0 || w > 1 << 20)
                return usage_error("--window wants a positive whole number, not '%s'", optarg);
            ov.window = (int)w;
            break;
        }
        default:
            if (optopt && strchr("n", optopt))
                return usage_error("option -%s needs a value", (char[]){(char)optopt, 0});
            return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    int openvino = !strcmp(backend, "openvino");
    char **cmd = argv + optind;
    if (openvino) {
        if (optind < argc)
            return usage_error("%s", "--backend openvino compiles --model; it takes no CMD");
        if (!ov.model_xml)
            return usage_error("%s", "--backend openvino needs --model X.xml");
        /* Each run has its own cwd: paths given relative to ours must not change meaning there. */
        char model_abs[PATH_MAX], lib_abs[PATH_MAX];
        if (realpath(ov.model_xml, model_abs))
            ov.model_xml = model_abs;
        if (ov.lib && strchr(ov.lib, '/') && realpath(ov.lib, lib_abs))
            ov.lib = lib_abs;
        if (!realpath("/proc/self/exe", self) || pm_ov_add_step(self, &ov, 0, NULL, &ov_steps, &err) != PM_OK) {
            fprintf(stderr, "passmap run: %s\n", err.msg[0] ? err.msg : "cannot find passmap's own executable");
            return PM_EXIT_FAIL;
        }
        cmd = ov_steps.items[0].argv;
        if (mkdir(run_dir, 0777) && errno != EEXIST) {
            fprintf(stderr, "passmap run: cannot create %s: %s\n", run_dir, strerror(errno));
            pm_steps_free(&ov_steps);
            return PM_EXIT_FAIL;
        }
    } else if (optind >= argc) {
        return usage_error("%s", "missing command (passmap run [options] -- CMD [ARGS...])");
    }
    if (!rs.db != !rs.key)
        return usage_error("%s", "--db and --config go together");
    if (rs.db && openvino)
        return usage_error("%s", "--db records command runs; the openvino back end records through passmap sweep");
    if (rs.db) {
        /* A rerun continues the config's repeats: what a killed `run --db` left running in a run's process
         * group (backgrounded, so PDEATHSIG missed it) would compete with the runs measured now. */
        if (run_store_open(&rs, cmd, &err) != PM_OK || pm_pgroup_recorder_init(&pgrec, rs.db, &err) != PM_OK
            || pm_pgroup_reap(rs.db, on_notice, NULL, &err) != PM_OK) {
            fprintf(stderr, "passmap run: %s\n", err.msg);
            pm_store_close(rs.st);
            return PM_EXIT_FAIL;
        }
        opts.on_start = pm_pgroup_record;
        opts.on_start_arg = &pgrec;
        /* A report on a stream needs the stream kept: a private folder when the user keeps none. */
        int want_out = !strcmp(rs.report, "stdout") && !stdout_base, want_err = !strcmp(rs.report, "stderr") && !stderr_base;
        if (want_out || want_err) {
            const char *tmp = getenv("TMPDIR");
            snprintf(rs.tmpdir, sizeof rs.tmpdir, "%s/passmap-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (!mkdtemp(rs.tmpdir)) {
                fprintf(stderr, "passmap run: cannot create %s: %s\n", rs.tmpdir, strerror(errno));
                pm_store_close(rs.st);
                return PM_EXIT_FAIL;
            }
            static char outb[PATH_MAX + 16], errb[PATH_MAX + 16];
            snprintf(outb, sizeof outb, "%s/stdout", rs.tmpdir);
            snprintf(errb, sizeof errb, "%s/stderr", rs.tmpdir);
            if (want_out)
                stdout_base = outb;
            if (want_err)
                stderr_base = errb;
        }
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: poll() in pm_run_exec wakes up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int rc = PM_EXIT_OK, progress = isatty(STDERR_FILENO);
    pm_run_result *runs = calloc((size_t)n_runs, sizeof *runs);
    char **out_files = calloc((size_t)n_runs, sizeof *out_files);
    char **err_files = calloc((size_t)n_runs, sizeof *err_files);
    double *scratch = calloc((size_t)n_runs, sizeof *scratch);
    json_t *root = NULL;
    long done = 0;
    if (!runs || !out_files || !err_files || !scratch) {
        fprintf(stderr, "passmap run: out of memory\n");
        rc = PM_EXIT_FAIL;
        goto cleanup;
    }

    for (long i = 0; i < warmup && !interrupted; i++) {
        pm_run_opts w = opts;
        w.stdout_path = w.stderr_path = NULL;
        pm_run_result r;
        if (progress)
            fprintf(stderr, "\rwarmup %ld/%ld ", i + 1, warmup);
        snprintf(what, sizeof what, "config %s, warmup %ld", rs.key ? rs.key : "", i + 1);
        pgrec.what = what;
        int erc = pm_run_exec(cmd, &w, &r, &err);
        if (rs.db)
            pm_pgroup_unrecord(&pgrec);
        if (erc != PM_OK) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            rc = PM_EXIT_FAIL;
            goto cleanup;
        }
        if (r.status != PM_RUN_OK)
            fprintf(stderr, "%spassmap run: warmup run %ld: %s\n", progress ? "\n" : "", i + 1,
                    r.status == PM_RUN_SPAWN_ERROR ? r.spawn_error : pm_run_status_name(r.status));
    }
    for (long i = 0; i < n_runs && !interrupted; i++) {
        pm_run_opts o = opts;
        out_files[i] = run_file(stdout_base, n_runs, (int)i + 1);
        err_files[i] = run_file(stderr_base, n_runs, (int)i + 1);
        if ((stdout_base && !out_files[i]) || (stderr_base && !err_files[i])) {
            fprintf(stderr, "passmap run: out of memory\n");
            rc = PM_EXIT_FAIL;
            goto cleanup;
        }
        char ov_dir[PATH_MAX + 32];
        if (openvino) {
            /* Own folder per run: the compiler writes its trace files into its working directory. */
            snprintf(ov_dir, sizeof ov_dir, "%s/%ld", run_dir, i + 1);
            if (mkdir(ov_dir, 0777) && errno != EEXIST) {
                fprintf(stderr, "passmap run: cannot create %s: %s\n", ov_dir, strerror(errno));
                rc = PM_EXIT_FAIL;
                goto cleanup;
            }
            o.cwd = ov_dir;
            if (!out_files[i] && asprintf(&out_files[i], "%s/ov-compile.stdout", ov_dir) < 0) {
                out_files[i] = NULL;
                rc = PM_EXIT_FAIL;
                goto cleanup;
            }
            /* kept so a failed compile can say why (a missing library or device is only in the child's stderr) */
            if (!err_files[i] && asprintf(&err_files[i], "%s/ov-compile.stderr", ov_dir) < 0) {
                err_files[i] = NULL;
                rc = PM_EXIT_FAIL;
                goto cleanup;
            }
        }
        o.stdout_path = out_files[i];
        o.stderr_path = err_files[i];
        if (progress)
            fprintf(stderr, "\rrun %ld/%ld ", i + 1, n_runs);
        snprintf(what, sizeof what, "config %s, cold r%ld", rs.key ? rs.key : "", rs.first_repeat + i);
        pgrec.what = what;
        int erc = pm_run_exec(cmd, &o, &runs[i], &err);
        if (rs.db)
            pm_pgroup_unrecord(&pgrec);
        if (erc != PM_OK) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            rc = PM_EXIT_FAIL;
            goto cleanup;
        }
        done = i + 1;
        if (rs.st && !interrupted && run_store_record(&rs, cmd, &runs[i], i, out_files[i], err_files[i], &err)) {
            fprintf(stderr, "%spassmap run: %s\n", progress ? "\n" : "", err.msg);
            rc = PM_EXIT_FAIL;
            goto cleanup;
        }
        if (verbose) {
            if (progress)
                fprintf(stderr, "\r\033[K");
            print_run_line(json ? stderr : stdout, &runs[i], (int)i + 1);
        }
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    if (interrupted) {
        fprintf(stderr, "passmap run: interrupted after %ld of %ld runs\n", done, n_runs);
        rc = PM_EXIT_FAIL;
    }

    long counts[PM_RUN_SPAWN_ERROR + 1] = {0};
    for (long i = 0; i < done; i++)
        counts[runs[i].status]++;
    if (openvino)
        for (long i = 0; i < done; i++)
            if (runs[i].status != PM_RUN_OK) {
                report_child_error(err_files[i], i + 1, counts[PM_RUN_OK] ? 0 : done);
                break;
            }
    if (counts[PM_RUN_OK] != done)
        rc = PM_EXIT_FAIL;
    stats st[N_METRICS];
    for (int m = 0; m < N_METRICS; m++)
        compute_stats(runs, (size_t)done, m, scratch, &st[m]);

    /* The child's own timings of the compile and of the blob import (the warm path). */
    pm_stats_summary ov_compile = {0}, ov_import = {0};
    if (openvino) {
        size_t nc = 0, ni = 0;
        double *imp = calloc((size_t)done + 1, sizeof *imp);
        for (long i = 0; imp && i < done; i++) {
            pm_ov_result r;
            memset(&r, 0, sizeof r);
            pm_err e2 = {0};
            if (out_files[i] && pm_ov_read_result_file(out_files[i], &r, &e2) == PM_OK) {
                if (r.compile_s >= 0)
                    scratch[nc++] = r.compile_s;
                if (r.import_s >= 0)
                    imp[ni++] = r.import_s;
            }
            pm_ov_result_free(&r);
        }
        pm_stats_summarize(scratch, nc, &ov_compile);
        pm_stats_summarize(imp, ni, &ov_import);
        free(imp);
    }

    if (json) {
        root = json_object();
        json_t *jcmd = json_array(), *jruns = json_array(), *summary = json_object(), *fails = json_object();
        json_object_set_new(root, "command", jcmd);
        json_object_set_new(root, "runs", jruns);
        json_object_set_new(root, "summary", summary);
        for (char **a = cmd; *a; a++)
            json_array_append_new(jcmd, json_string(*a));
        for (long i = 0; i < done; i++)
            json_array_append_new(jruns, run_to_json(&runs[i], (int)i + 1, out_files[i], err_files[i]));
        json_object_set_new(summary, "runs", json_integer(done));
        json_object_set_new(summary, "ok", json_integer(counts[PM_RUN_OK]));
        for (int s = PM_RUN_FAILED; s <= PM_RUN_SPAWN_ERROR; s++)
            json_object_set_new(fails, pm_run_status_name((pm_run_status)s), json_integer(counts[s]));
        json_object_set_new(summary, "failures", fails);
        for (int m = 0; m < N_METRICS; m++) {
            if (st[m].n == 0) {
                json_object_set_new(summary, metrics[m].name, json_null());
                continue;
            }
            json_t *o = json_object();
            json_object_set_new(o, "n", json_integer((json_int_t)st[m].n));
            json_object_set_new(o, "mean", json_real(st[m].mean));
            json_object_set_new(o, "median", json_real(st[m].median));
            json_object_set_new(o, "stddev", json_real(st[m].stddev));
            json_object_set_new(o, "min", json_real(st[m].min));
            json_object_set_new(o, "max", json_real(st[m].max));
            json_object_set_new(summary, metrics[m].name, o);
        }
        if (openvino) {
            const pm_stats_summary *ss[2] = {&ov_compile, &ov_import};
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
        if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) < 0 || fputc('\n', stdout) == EOF)
            rc = PM_EXIT_FAIL;
    } else {
        char *joined = pm_argv_join(cmd);
        printf("command: %s\n", joined ? joined : cmd[0]);
        free(joined);
        printf("runs: %ld, ok: %ld", done, counts[PM_RUN_OK]);
        for (int s = PM_RUN_FAILED; s <= PM_RUN_SPAWN_ERROR; s++)
            if (counts[s])
                printf(", %s: %ld", pm_run_status_name((pm_run_status)s), counts[s]);
        printf("\n%-13s %14s %14s %14s %14s %14s\n", "", "mean", "median", "stddev", "min", "max");
        for (int m = 0; m < N_METRICS; m++) {
            printf("%-13s", metrics[m].name);
            if (st[m].n == 0) {
                printf(" %14s\n", "n/a");
                continue;
            }
            const char *fmt = m < 3 ? " %14.6f" : " %14.0f";
            double v[5] = {st[m].mean, st[m].median, st[m].stddev, st[m].min, st[m].max};
            for (int k = 0; k < 5; k++)
                printf(fmt, v[k]);
            printf("\n");
        }
        if (openvino) {
            const pm_stats_summary *ss[2] = {&ov_compile, &ov_import};
            const char *names[2] = {"ov compile s", "ov import s"};
            for (int k = 0; k < 2; k++) {
                printf("%-13s", names[k]);
                if (!ss[k]->n)
                    printf(" %14s\n", "n/a");
                else
                    printf(" %14.6f %14.6f %14.6f %14.6f %14.6f\n", ss[k]->mean, ss[k]->median,
                           isnan(ss[k]->sd) ? 0.0 : ss[k]->sd, ss[k]->min, ss[k]->max);
            }
            if (ov_compile.n && ov_import.n && ov_import.mean > 0)
                printf("recompile / blob import: %.1fx\n", ov_compile.mean / ov_import.mean);
        }
        for (long i = 0; i < done; i++)
            if (runs[i].status != PM_RUN_OK && !verbose)
                print_run_line(stdout, &runs[i], (int)i + 1);
        if (counts[PM_RUN_OK] != done)
            printf("statistics cover the %ld successful run(s) only\n", counts[PM_RUN_OK]);
    }
    if (fflush(stdout) == EOF)
        rc = PM_EXIT_FAIL;

cleanup:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    json_decref(root);
    for (long i = 0; i < n_runs && out_files && err_files; i++) {
        free(out_files[i]);
        free(err_files[i]);
    }
    free(out_files);
    free(err_files);
    free(runs);
    free(scratch);
    pm_steps_free(&ov_steps);
    pm_store_close(rs.st);
    if (rs.tmpdir[0])
        pm_util_remove_tree(rs.tmpdir);
    return rc;
}
