/* passmap cache: exec / stats / clear / explain / verify over lib/cache.h. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "util.h"
#include "run.h"

static void human_size(uint64_t b, char *buf, size_t n)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* What the options say, each row binding its field. */
typedef struct cli {
    const char *dir, *outcome;
    uint64_t max_size;
    int json;
    cli_list inputs, outputs, env;
} cli;

/* --max-size: a size (500M, 5G). */
static int size(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    return pm_run_parse_size(arg, field, &err) ? cli_refuse(cmd, "%s", err.msg) : 0;
}

/* clang-format off */
static const cli_opt cache_opts[] = {
    {"dir", 0, 0, "DIR", "cache directory (default $PASSMAP_CACHE_DIR, else $XDG_CACHE_HOME/passmap,\n"
                         "else ~/.cache/passmap)", CLI_BIND_STR(cli, dir)},
    {"max-size", 0, 0, "SIZE", "evict least recently used entries beyond SIZE (e.g. 500M, 5G; default 5G)",
     CLI_BIND_FN(cli, max_size, size)},
    {"input", 'i', 1, "F", "an input whose content is part of the key", CLI_BIND_LIST(cli, inputs)},
    {"output", 'o', 1, "F", "an output to store and restore (besides those inferred, see below)",
     CLI_BIND_LIST(cli, outputs)},
    {"env", 'e', 1, "NAME", "an environment variable that is part of the key", CLI_BIND_LIST(cli, env)},
    {"outcome", 0, 0, "F", "exec: write one line to F: hit, miss, or uncached: WHY (what passmap sweep's\n"
                           "warm runs check: a run the cache did not serve is not a warm measurement)",
     CLI_BIND_STR(cli, outcome)},
    {"json", 0, 0, NULL, "stats, verify: as JSON", CLI_BIND_FLAG(cli, json)},
    {0},
};
/* clang-format on */
static const cli_cmd cache_cmd = {
    .name = "cache",
    .synopsis = "[--dir DIR] [--max-size SIZE] COMMAND ...",
    .about = "\n"
             "commands:\n"
             "  exec [--input F]... [--output F]... [--env NAME]... [--outcome F] -- CMD ARGS...\n"
             "                 run CMD through the cache: a hit restores the outputs and replays stdout/stderr\n"
             "                 (exit 0) without running CMD; a miss runs it and stores the results if it exited 0,\n"
             "                 wrote every output and its inputs did not change meanwhile. When the cache cannot\n"
             "                 help (no output known, a broken, read-only or full cache) CMD runs uncached: one\n"
             "                 warning line, CMD's exit status.\n"
             "  stats [--json] hits, misses, corrupt, evicted, stores, entries, bytes, time saved\n"
             "  clear          remove every entry and zero the stats\n"
             "  explain [--input F]... [--output F]... [--env NAME]... -- CMD ARGS...\n"
             "                 which key component changed since the last exec producing the same first output\n"
             "                 (or, without outputs, of the same command line), or 'would hit'\n"
             "  verify [--json] check every entry's checksum",
    .opts = cache_opts,
    .notes = "\n"
             "The key: cache format version, the compiler's content hash (argv[0] searched in PATH), argv with\n"
             "input/output paths replaced by @IN<k>/@OUT<k>, every input's content, the named variables.\n"
             "Input rule: besides --input files, every argument that names an existing regular file, or whose\n"
             "text after the first '=' does (-opt=path), is an input, unless it is an output.\n"
             "Paths are canonicalised, so the same compile run from another directory hits.\n"
             "Outputs inferred: gcc/g++/cc/c++/clang/clang++ -o F, -oF, --output[=]F, -MF F; llc/opt/mlir-opt/\n"
             "mlir-translate -o F, -o=F, --o=F (opt and the MLIR tools default to stdout); ov-compile --export F\n"
             "(and its --workdir files). C/C++: every header the compiler read (-MD -MF) is checked on a hit.\n"
             "OpenVINO IR: the .bin beside the .xml is an input.",
    .exit_status = "exec: CMD's own (a hit: 0); stats, clear, explain, verify: 0 ok, 1 failed (verify: a bad entry), "
                   "2 bad usage",
    .flags = "+",   /* global options anywhere before COMMAND, COMMAND's own after it */
};

static int fail(const pm_err *err)
{
    fprintf(stderr, "passmap cache: %s\n", err->msg);
    return PM_EXIT_FAIL;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) { interrupted = sig; }

static int do_exec(pm_cache *c, cli *o, char **cmd)
{
    pm_cache_request req = {cmd, o->inputs.v, o->outputs.v, o->env.v, &interrupted};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    pm_cache_result res;
    pm_err err;
    if (pm_cache_exec(c, &req, &res, &err))
        return fail(&err); /* res is freed by pm_cache_exec on an error */
    fwrite(res.out, 1, res.out_len, stdout);
    fflush(stdout);
    fwrite(res.err, 1, res.err_len, stderr);
    if (res.warning[0])
        fprintf(stderr, "passmap cache: warning: %s\n", res.warning);
    int rc = res.hit ? 0 : res.term_signal ? 128 + res.term_signal : res.exit_code;
    if (interrupted && !res.hit)
        rc = 128 + interrupted;
    if (o->outcome) {
        char line[600];
        int n = snprintf(line, sizeof line, "%s%s%s\n", res.hit ? "hit" : res.uncached ? "uncached" : "miss",
                         res.uncached && res.warning[0] ? ": " : "", res.uncached ? res.warning : "");
        pm_err werr = {0};
        if (pm_util_write_file_atomic(o->outcome, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1,
                                      0644, NULL, &werr))
            fprintf(stderr, "passmap cache: warning: %s\n", werr.msg);
    }
    if (getenv("PASSMAP_CACHE_DEBUG"))
        fprintf(stderr, "passmap cache: %s%s key %s wall %.6f cmd %.6f overhead %.6f phases hashing %.6f lookup %.6f "
                "restore %.6f bookkeeping %.6f\n", res.hit ? "hit" : res.uncached ? "uncached" : "miss",
                res.corrupt ? " (corrupt entry)" : "", res.key, res.wall_s, res.cmd_wall_s, res.wall_s - res.cmd_wall_s,
                res.key_s, res.lookup_s, res.restore_s, res.book_s);
    pm_cache_result_free(&res);
    return rc;
}

static int do_explain(pm_cache *c, cli *o, char **cmd)
{
    pm_cache_request req = {cmd, o->inputs.v, o->outputs.v, o->env.v, NULL};
    pm_cache_explain ex;
    pm_err err;
    if (pm_cache_explain_request(c, &req, &ex, &err))
        return fail(&err);
    if (o->json) {
        json_t *j = json_pack("{s:s, s:b, s:b}", "key", ex.key, "have_previous", ex.have_previous,
                              "would_hit", ex.would_hit);
        json_t *ch = json_array();
        for (size_t i = 0; i < ex.n_changes; i++)
            json_array_append_new(ch, json_string(ex.changes[i]));
        json_object_set_new(j, "changes", ch);
        pm_json_stamp(j, NULL);
        if (ex.have_previous)
            json_object_set_new(j, "previous_key", json_string(ex.previous_key));
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
        putchar('\n');
        json_decref(j);
    } else {
        if (!ex.have_previous)
            printf("no previous run of this command line recorded\n");
        for (size_t i = 0; i < ex.n_changes; i++)
            printf("%s\n", ex.changes[i]);
        printf(ex.would_hit ? "would hit (key %s)\n" : "would miss (key %s)\n", ex.key);
    }
    pm_cache_explain_free(&ex);
    return PM_EXIT_OK;
}

static int do_stats(pm_cache *c, cli *o, char **cmd)
{
    (void)cmd;
    pm_cache_stats st;
    pm_err err;
    if (pm_cache_stats_get(c, &st, &err))
        return fail(&err);
    if (o->json) {
        json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "dir", pm_cache_dir(c),
                              "hits", (json_int_t)st.hits, "misses", (json_int_t)st.misses, "corrupt",
                              (json_int_t)st.corrupt, "evicted", (json_int_t)st.evicted, "stores",
                              (json_int_t)st.stores, "entries", (json_int_t)st.entries, "bytes",
                              (json_int_t)st.bytes, "max_size", (json_int_t)st.max_size, "saved_s", st.saved_s);
        pm_json_stamp(j, "bytes", "B", "max_size", "B", "saved_s", "s", NULL);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
        putchar('\n');
        json_decref(j);
        return PM_EXIT_OK;
    }
    char b[32], m[32];
    human_size(st.bytes, b, sizeof b);
    human_size(st.max_size, m, sizeof m);
    uint64_t total = st.hits + st.misses;
    printf("directory   %s\n", pm_cache_dir(c));
    printf("hits        %llu\n", (unsigned long long)st.hits);
    printf("misses      %llu\n", (unsigned long long)st.misses);
    printf("hit rate    %.1f%%\n", total ? 100.0 * st.hits / total : 0.0);
    printf("corrupt     %llu\n", (unsigned long long)st.corrupt);
    printf("evicted     %llu\n", (unsigned long long)st.evicted);
    printf("stores      %llu\n", (unsigned long long)st.stores);
    printf("entries     %llu\n", (unsigned long long)st.entries);
    printf("size        %s (%llu bytes) of max %s\n", b, (unsigned long long)st.bytes, m);
    printf("time saved  %.3f s\n", st.saved_s);
    return PM_EXIT_OK;
}

static int do_verify(pm_cache *c, cli *o, char **cmd)
{
    (void)cmd;
    uint64_t ok = 0, bad = 0;
    pm_err err;
    if (pm_cache_verify(c, &ok, &bad, &err))
        return fail(&err);
    if (o->json)
        printf("{\"ok\": %llu, \"bad\": %llu}\n", (unsigned long long)ok, (unsigned long long)bad);
    else
        printf("%llu entries ok, %llu bad\n", (unsigned long long)ok, (unsigned long long)bad);
    return bad ? PM_EXIT_FAIL : PM_EXIT_OK;
}

static int do_clear(pm_cache *c, cli *o, char **cmd)
{
    (void)o;
    (void)cmd;
    pm_err err;
    return pm_cache_clear(c, &err) ? fail(&err) : PM_EXIT_OK;
}

/* cache's verbs: what each runs, whether it takes a CMD after its options, whether it runs without a cache. */
static const struct cache_verb {
    const char *name;
    int (*run)(pm_cache *c, cli *o, char **cmd);
    int takes_cmd, uncached_ok;
} verbs[] = {
    {"exec", do_exec, 1, 1}, /* a broken cache must not break the build: CMD runs uncached */
    {"stats", do_stats, 0, 0}, {"clear", do_clear, 0, 0}, {"explain", do_explain, 1, 0}, {"verify", do_verify, 0, 0},
};

int cmd_cache(int argc, char **argv)
{
    cli o = {0};
    int rc = cli_parse_args(&cache_cmd, argc, argv, &o, NULL);
    pm_cache *c = NULL;
    if (rc != CLI_GO)
        goto cleanup;
    if (optind >= argc) {
        fprintf(stderr, "passmap cache: no command (exec, stats, clear, explain, verify; see --help)\n");
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    const char *sub = argv[optind];
    int sub_argc = argc - optind;
    char **sub_argv = argv + optind;
    if ((rc = cli_parse_args(&cache_cmd, sub_argc, sub_argv, &o, NULL)) != CLI_GO)
        goto cleanup;
    char **cmd = sub_argv + optind;
    const struct cache_verb *v = verbs;
    while (v < verbs + sizeof verbs / sizeof verbs[0] && strcmp(v->name, sub))
        v++;
    if (v == verbs + sizeof verbs / sizeof verbs[0]) {
        fprintf(stderr, "passmap cache: unknown command '%s' (see passmap cache --help)\n", sub);
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    if (v->takes_cmd && optind >= sub_argc) {
        fprintf(stderr, "passmap cache %s: no command given (passmap cache %s [opts] -- CMD ARGS...)\n", sub, sub);
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    if (!v->takes_cmd && optind < sub_argc) {
        fprintf(stderr, "passmap cache %s: unexpected argument '%s'\n", sub, cmd[0]);
        rc = PM_EXIT_USAGE;
        goto cleanup;
    }
    pm_err err;
    if (pm_cache_open(o.dir, o.max_size, &c, &err)) {
        if (!v->uncached_ok) {
            rc = fail(&err);
            goto cleanup;
        }
        fprintf(stderr, "passmap cache: warning: cache unusable (%s): running uncached\n", err.msg);
        c = NULL;
    }
    rc = v->run(c, &o, cmd);
cleanup:
    pm_cache_close(c);
    cli_list_free(&o.inputs);
    cli_list_free(&o.outputs);
    cli_list_free(&o.env);
    return rc;
}
