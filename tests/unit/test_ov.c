/* OpenVINO back end against the stand-in libopenvino_c (tests/support/openvino_c.c): the dlopen path, the property
 * list, the per-run working directory, export/import timing, errors, the result line and the strategy cache. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ov.h"
#include "parse.h"
#include "parse_internal.h"

static char standin[PATH_MAX];
static char tmpdir[512];

static void standin_path(void)
{
    const char *b = getenv("PASSMAP_BUILD");
    if (b && *b) {
        snprintf(standin, sizeof standin, "%s/tests/libopenvino_c.so", b);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    snprintf(standin, sizeof standin, "%s/libopenvino_c.so", dirname(exe));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    return b;
}

static int exists(const char *dir, const char *name)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, R_OK) == 0;
}

static int setup(void **state)
{
    standin_path();
    snprintf(tmpdir, sizeof tmpdir, "%s/pm-ov-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(tmpdir));
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/m.xml", tmpdir);
    write_text(p, "<?xml version=\"1.0\"?>\n<net name=\"tiny\" version=\"11\"/>\n");
    snprintf(p, sizeof p, "%s/m.bin", tmpdir);
    write_text(p, "weights");
    unsetenv("PASSMAP_FAKEOV_DEVICES");
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *prop(const pm_ov_props *p, const char *key)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->items[i].key, key))
            return p->items[i].value;
    return NULL;
}

static void props_default_npu(void **state)
{
    pm_ov_opts o = {.model_xml = "x.xml"};
    pm_ov_props p;
    pm_err e;
    assert_int_equal(pm_ov_build_props(&o, NULL, 0, &p, &e), PM_OK);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.items[0].key, "LOG_LEVEL");
    assert_string_equal(p.items[0].value, "LOG_INFO");
    assert_string_equal(p.items[1].key, "NPU_BYPASS_UMD_CACHING");
    assert_string_equal(p.items[1].value, "YES");
    /* pinned: the stock choice moves between 2026.x minors and SKUs */
    assert_string_equal(prop(&p, "NPU_COMPILER_TYPE"), "DRIVER");
    assert_null(prop(&p, "CACHE_DIR"));
    pm_ov_props_free(&p);
}

static void props_llm_and_mode_params(void **state)
{
    const char *extra[] = {"NPU_COMPILATION_MODE_PARAMS=optimization-level=1", "LOG_LEVEL=LOG_DEBUG",
                           "NPU_COMPILER_TYPE=DRIVER", NULL};
    pm_ov_opts o = {.model_xml = "x.xml", .device = "NPU", .window = 2048, .schedule_trace = 1,
                    .strategy_out = 1, .strategy_in = "s.json", .extra = extra};
    pm_ov_props p;
    pm_err e;
    assert_int_equal(pm_ov_build_props(&o, NULL, 0, &p, &e), PM_OK);
    assert_int_equal(p.n, 10);
    assert_string_equal(p.items[0].value, "LOG_DEBUG"); /* an extra overrides in place */
    static const char *const keys[] = {"LOG_LEVEL", "NPU_BYPASS_UMD_CACHING", "NPU_USE_NPUW", "NPUW_LLM",
                                       "NPUW_LLM_MAX_PROMPT_LEN", "NPUW_LLM_MIN_RESPONSE_LEN", "NPUW_LLM_BATCH_DIM",
                                       "NPUW_LLM_SEQ_LEN_DIM", "NPU_COMPILER_TYPE", "NPU_COMPILATION_MODE_PARAMS"};
    for (int i = 0; i < 10; i++)
        assert_string_equal(p.items[i].key, keys[i]);
    assert_string_equal(p.items[4].value, "2048");
    assert_string_equal(p.items[5].value, "128");
    assert_string_equal(p.items[6].value, "0");
    assert_string_equal(p.items[7].value, "2");
    assert_null(prop(&p, "CACHE_MODE")); /* nothing exported */
    /* Instrumented under NPUW: NPUW's default precision params stay in front of the user's and passmap's. */
    assert_string_equal(p.items[9].value, PM_OV_NPUW_DEFAULT_MODE " optimization-level=1 enable-schedule-trace=true "
                                          "write-strategy-to-json=true read-strategy-from-json=true");
    pm_ov_props_free(&p);
}

/* Stock NPUW runs send no mode params; instrumented ones keep NPUW's default (optimization-level=3 on NPU4000);
 * the window settings, CACHE_MODE for an exported blob, and the offline pair. */
static void props_stock_instrumented_offline(void **state)
{
    pm_ov_opts o = {.model_xml = "x.xml", .window = 1000, .do_import = 1, .prefill_hint = "STATIC",
                    .generate_pyramid = "NO", .min_response_len = 64};
    pm_ov_props p;
    pm_err e;
    assert_int_equal(pm_ov_build_props(&o, "4000", 0, &p, &e), PM_OK);
    assert_null(prop(&p, "NPU_COMPILATION_MODE_PARAMS"));
    assert_string_equal(prop(&p, "NPUW_LLM_PREFILL_HINT"), "STATIC");
    assert_string_equal(prop(&p, "NPUW_LLM_GENERATE_PYRAMID"), "NO");
    assert_string_equal(prop(&p, "NPUW_LLM_MIN_RESPONSE_LEN"), "64");
    assert_string_equal(prop(&p, "CACHE_MODE"), "OPTIMIZE_SPEED");
    assert_null(prop(&p, "NPU_PLATFORM"));
    assert_int_equal(pm_ov_instrumented(&o), 0);
    pm_ov_props_free(&p);
    o.task_stats = 1;
    assert_int_equal(pm_ov_instrumented(&o), 1);
    assert_int_equal(pm_ov_build_props(&o, "4000", 0, &p, &e), PM_OK);
    assert_string_equal(prop(&p, "NPU_COMPILATION_MODE_PARAMS"),
                        PM_OV_NPUW_DEFAULT_MODE " optimization-level=3 dump-task-stats=true");
    pm_ov_props_free(&p);
    /* A user value that names the precision layers itself is not doubled. */
    const char *user[] = {"NPU_COMPILATION_MODE_PARAMS=compute-layers-with-higher-precision=Sqrt", NULL};
    o.extra = user;
    assert_int_equal(pm_ov_build_props(&o, "3720", 0, &p, &e), PM_OK);
    assert_string_equal(prop(&p, "NPU_COMPILATION_MODE_PARAMS"),
                        "compute-layers-with-higher-precision=Sqrt dump-task-stats=true");
    pm_ov_props_free(&p);
    o.extra = NULL;
    o.cache_mode = "OPTIMIZE_SIZE";
    o.platform = "NPU4000";
    assert_int_equal(pm_ov_build_props(&o, NULL, 1, &p, &e), PM_OK);
    assert_string_equal(prop(&p, "CACHE_MODE"), "OPTIMIZE_SIZE");
    assert_string_equal(prop(&p, "NPU_PLATFORM"), "NPU4000");
    assert_string_equal(prop(&p, "NPU_COMPILER_TYPE"), "PLUGIN");
    assert_string_equal(prop(&p, "NPU_CREATE_EXECUTOR"), "0");
    /* offline NPUW adds no arch defaults (they need a device): no optimization-level=3 for NPU4000; the
     * weights bank stays on the host */
    assert_null(strstr(prop(&p, "NPU_COMPILATION_MODE_PARAMS"), "optimization-level"));
    assert_string_equal(prop(&p, "NPUW_WEIGHTS_BANK_ALLOC"), "CPU");
    pm_ov_props_free(&p);
}

static void decode_compiler_version(void **state)
{
    char v[32];
    pm_ov_decode_compiler_version("458758", v, sizeof v);
    assert_string_equal(v, "7.6");
    pm_ov_decode_compiler_version("65536", v, sizeof v);
    assert_string_equal(v, "1.0");
    pm_ov_decode_compiler_version("7.4.0", v, sizeof v);
    assert_string_equal(v, "");
    pm_ov_decode_compiler_version("", v, sizeof v);
    assert_string_equal(v, "");
    pm_ov_decode_compiler_version("99999999999", v, sizeof v);
    assert_string_equal(v, "");
}

static void props_cpu_and_bad_extra(void **state)
{
    pm_ov_opts o = {.model_xml = "x.xml", .device = "CPU", .window = 512, .schedule_trace = 1};
    pm_ov_props p;
    pm_err e;
    assert_int_equal(pm_ov_build_props(&o, NULL, 0, &p, &e), PM_OK);
    assert_int_equal(p.n, 2); /* LOG_LEVEL and the mode params the caller asked for, no NPU-only keys */
    assert_null(prop(&p, "NPU_BYPASS_UMD_CACHING"));
    assert_null(prop(&p, "NPUW_LLM"));
    pm_ov_props_free(&p);
    const char *bad[] = {"NOEQUALS", NULL};
    o.extra = bad;
    assert_int_equal(pm_ov_build_props(&o, NULL, 0, &p, &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "NOEQUALS"));
}

/* Runs pm_ov_compile with stdout sent to a file (the stand-in prints the compiler log there). */
static int compile_captured(const pm_ov_opts *o, pm_ov_result *r, pm_err *e, const char *log_path)
{
    fflush(stdout);
    int saved = dup(1), fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    int rc = pm_ov_compile(o, r, e);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return rc;
}

static void compile_end_to_end(void **state)
{
    char xml[PATH_MAX], work[PATH_MAX], props_out[PATH_MAX], log[PATH_MAX], expect[2 * PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(work, sizeof work, "%s/run1", tmpdir);
    snprintf(props_out, sizeof props_out, "%s/props.txt", tmpdir);
    snprintf(log, sizeof log, "%s/log.txt", tmpdir);
    assert_int_equal(mkdir(work, 0777), 0);
    setenv("PASSMAP_FAKEOV_PROPS_OUT", props_out, 1);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .device = "NPU", .window = 256, .schedule_trace = 1,
                    .strategy_out = 1, .workdir = work, .do_import = 1};
    pm_ov_result r;
    pm_err e;
    char before[PATH_MAX];
    assert_non_null(getcwd(before, sizeof before));
    int rc = compile_captured(&o, &r, &e, log);
    if (rc)
        fail_msg("%s", e.msg);
    char after[PATH_MAX];
    assert_non_null(getcwd(after, sizeof after));
    assert_string_equal(before, after); /* the cwd is restored */
    assert_true(r.compile_s >= 0.003); /* the stand-in sleeps 3 ms */
    assert_true(r.read_s >= 0 && r.export_s >= 0 && r.import_s >= 0);
    assert_true(r.compile_maxrss_kb > 0 && r.import_maxrss_kb >= r.compile_maxrss_kb); /* phases apart */
    /* header + window-sized code + the 7 bytes of m.bin: CACHE_MODE=OPTIMIZE_SPEED keeps the weights */
    assert_int_equal(r.blob_bytes, 47 + 4096 + 16 * 256 + 7);
    assert_int_equal(r.blob_weightless, 0);
    assert_int_equal(r.weights_bytes, 7);
    assert_string_equal(r.import_error, "");
    assert_int_equal(r.n_prop_args, 28); /* with the three pinned NPUW settings (2026) */
    assert_int_equal(r.instrumented, 1);
    assert_int_equal(r.npuw_default_kept, 1);
    assert_int_equal(r.offline, 0);
    assert_string_equal(r.ov_version, "2026.0.0-standin");
    /* An NPUW compiled model does not answer the compiler type: the core's (plugin default) is recorded so. */
    assert_string_equal(r.compiler_type, "PREFER_PLUGIN");
    assert_string_equal(r.compiler_type_source, "core");
    assert_string_equal(r.compiler_version, "458758");
    assert_string_equal(r.compiler_version_decoded, "7.6");
    assert_string_equal(r.driver_version, "1688");
    assert_string_equal(r.device_arch, "4000");
    assert_string_equal(r.num_threads, "8");
    assert_true(exists(work, "compileTimeScheduleTrace.json"));
    assert_true(exists(work, "strategy_out.json"));
    assert_true(exists(work, "model.blob"));
    char *got = read_text(props_out);
    char *real = realpath(work, NULL);
    snprintf(expect, sizeof expect,
             "nargs=28\ndevice=NPU\ncwd=%s\nLOG_LEVEL=LOG_INFO\nNPU_BYPASS_UMD_CACHING=YES\nNPU_COMPILER_TYPE=DRIVER\n"
             "NPU_USE_NPUW=YES\n"
             "NPUW_LLM=YES\nNPUW_LLM_MAX_PROMPT_LEN=256\nNPUW_LLM_MIN_RESPONSE_LEN=128\nNPUW_LLM_BATCH_DIM=0\n"
             "NPUW_LLM_SEQ_LEN_DIM=2\nNPUW_LLM_PREFILL_ATTENTION_HINT=STATIC\n"
             "NPUW_LLM_GENERATE_ATTENTION_HINT=STATIC\nNPUW_LLM_SHARED_HEAD=YES\nCACHE_MODE=OPTIMIZE_SPEED\n"
             "NPU_COMPILATION_MODE_PARAMS=" PM_OV_NPUW_DEFAULT_MODE " optimization-level=3 "
             "enable-schedule-trace=true write-strategy-to-json=true\n",
             real);
    assert_string_equal(got, expect);
    free(got);
    free(real);

    /* The log it printed parses: NPUW compiles prefill (2 subgraphs), one generate model at 256 + 128 (2)
     * and the LM head (1), each with its own report, each attributed to its submodel. */
    pm_report rep;
    pm_report_init(&rep);
    rc = pm_parse_file(log, PM_FMT_AUTO, &rep, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(rep.format, PM_FMT_NPU_LOG);
    assert_int_equal(rep.n_reports, 5);
    double prefill = -1, generate = -1, head = -1, peak = -1;
    for (size_t i = 0; i < rep.n_metrics; i++) {
        if (!strcmp(rep.metrics[i].name, "npu.vmpeak_delta_kb"))
            peak = rep.metrics[i].value;
        if (!strcmp(rep.metrics[i].name, "npu.submodel.prefill.blocks"))
            prefill = rep.metrics[i].value;
        if (!strcmp(rep.metrics[i].name, "npu.submodel.generate.blocks"))
            generate = rep.metrics[i].value;
        if (!strcmp(rep.metrics[i].name, "npu.submodel.lm_head.blocks"))
            head = rep.metrics[i].value;
    }
    assert_true(peak == 100000 + 10 * 384);
    assert_true(prefill == 2 && generate == 2 && head == 1);
    int fa = 0;
    for (size_t i = 0; i < rep.n_passes; i++)
        fa += !strcmp(rep.passes[i].name, "FeasibleAllocation");
    assert_int_equal(fa, 5);
    pm_report_free(&rep);
    pm_ov_result_free(&r);
    unsetenv("PASSMAP_FAKEOV_PROPS_OUT");
}

/* Wall time of a timing row, read straight from the text (the MLIR parser is tested elsewhere). */
static double row_wall(const char *log, const char *name)
{
    for (const char *p = strstr(log, name); p; p = strstr(p + 1, name)) {
        const char *bol = p;
        while (bol > log && bol[-1] != '\n')
            bol--;
        double user, wall;
        if (sscanf(bol, " %lf (%*[^)]) %lf", &user, &wall) == 2)
            return wall;
    }
    return -1;
}

static void strategy_in_is_offered(void **state)
{
    char xml[PATH_MAX], work[PATH_MAX], sin[PATH_MAX], log[PATH_MAX], log2[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(work, sizeof work, "%s/run2", tmpdir);
    snprintf(sin, sizeof sin, "%s/cached_strategy.json", tmpdir);
    snprintf(log, sizeof log, "%s/log2.txt", tmpdir);
    snprintf(log2, sizeof log2, "%s/log3.txt", tmpdir);
    assert_int_equal(mkdir(work, 0777), 0);
    write_text(sin, "{\"Conv\": {\"multiClusterStrategy\": \"SplitOverHeight\"}}\n");
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = work};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    pm_ov_result_free(&r);
    o.strategy_in = sin;
    int rc = compile_captured(&o, &r, &e, log2);
    if (rc)
        fail_msg("%s", e.msg);
    assert_string_equal(prop(&r.props, "NPU_COMPILATION_MODE_PARAMS"), "read-strategy-from-json=true");
    assert_true(exists(work, "strategy_in.json"));
    char *a = read_text(log), *b = read_text(log2);
    /* Replay overwrites the search's result after the search ran: the search costs the same. */
    double cold = row_wall(a, "MultiClusterStrategyAssignment"), reused = row_wall(b, "MultiClusterStrategyAssignment");
    assert_true(cold > 0 && reused > 0);
    assert_true(fabs(reused - cold) < 1e-9);
    assert_null(strstr(a, "ManualStrategyUtils"));
    assert_true(row_wall(b, "ManualStrategyUtils") > 0);
    assert_non_null(strstr(b, "Experimental mode - assigning manual strategies"));
    free(a);
    free(b);
    pm_ov_result_free(&r);
}

/* The wall of row `name` in the log's report block `block` (0-based, in compile order); -1 if absent. */
static double row_wall_in_block(const char *log, int block, const char *name)
{
    const char *p = log;
    for (int i = 0; i <= block && p; i++)
        if ((p = strstr(p, "Execution time report")))
            p++;
    if (!p)
        return -1;
    const char *end = strstr(p, "Execution time report");
    double w = row_wall(p, name);
    const char *row = strstr(p, name);
    return row && (!end || row < end) ? w : -1;
}

/* STATIC compiles the prefill at the window; DYNAMIC (OpenVINO's default) at the 1024 chunk above it. Upstream
 * compiles the generate model first (here one: no pyramid), so the prefill's blocks are the third and fourth. */
static void window_scales_strategy_time(void **state)
{
    char xml[PATH_MAX], log[PATH_MAX], log2[PATH_MAX], log3[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(log, sizeof log, "%s/w128.txt", tmpdir);
    snprintf(log2, sizeof log2, "%s/w4096.txt", tmpdir);
    snprintf(log3, sizeof log3, "%s/w4096dyn.txt", tmpdir);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = tmpdir, .window = 128, .prefill_hint = "STATIC",
                    .generate_pyramid = "NO"};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    pm_ov_result_free(&r);
    o.window = 4096;
    assert_int_equal(compile_captured(&o, &r, &e, log2), PM_OK);
    assert_string_equal(prop(&r.props, "NPUW_LLM_PREFILL_HINT"), "STATIC");
    pm_ov_result_free(&r);
    o.prefill_hint = NULL;
    assert_int_equal(compile_captured(&o, &r, &e, log3), PM_OK);
    assert_null(prop(&r.props, "NPUW_LLM_PREFILL_HINT"));
    pm_ov_result_free(&r);
    char *a = read_text(log), *b = read_text(log2), *c = read_text(log3);
    double prefill128 = row_wall_in_block(a, 2, "FeasibleAllocation");
    assert_true(prefill128 > 0);
    assert_true(fabs(row_wall_in_block(b, 2, "FeasibleAllocation") - 32 * prefill128) < 1e-3);
    assert_true(fabs(row_wall_in_block(c, 2, "FeasibleAllocation") - 8 * prefill128) < 1e-3);
    free(a);
    free(b);
    free(c);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* GENERATE_PYRAMID (default YES) compiles one generate model per 1024*2^k + MIN_RESPONSE_LEN below the KV size,
 * plus the KV size (create_generate_model_variants); the inferred split follows the same count. */
static void generate_pyramid_blocks(void **state)
{
    char xml[PATH_MAX], log[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(log, sizeof log, "%s/pyr.txt", tmpdir);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = tmpdir, .window = 4096, .prefill_hint = "STATIC"};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    pm_ov_result_free(&r);
    char *a = read_text(log);
    /* 3 generate (1152, 2176, 4224) x 2 + 2 prefill + 1 LM head */
    assert_int_equal(count(a, "Execution time report"), 6 + 2 + 1);
    assert_int_equal(pm_ov_npuw_generate_variants(4096, 128, 1), 3);
    assert_int_equal(pm_ov_npuw_generate_variants(4096, 128, 0), 1);
    assert_int_equal(pm_ov_npuw_generate_variants(128, 128, 1), 1);
    free(a);
    o.generate_pyramid = "NO";
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    pm_ov_result_free(&r);
    a = read_text(log);
    assert_int_equal(count(a, "Execution time report"), 2 + 2 + 1);
    free(a);
}

/* A weightless NPUW blob cannot be imported through the C API: a failed warm measurement, not a failed compile. */
static void import_failure_is_not_compile_failure(void **state)
{
    char xml[PATH_MAX], work[PATH_MAX], log[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(work, sizeof work, "%s/run-wl", tmpdir);
    snprintf(log, sizeof log, "%s/wl.txt", tmpdir);
    assert_int_equal(mkdir(work, 0777), 0);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = work, .window = 256, .do_import = 1,
                    .cache_mode = "OPTIMIZE_SIZE"};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    assert_true(r.compile_s > 0);
    assert_true(r.import_s < 0);
    assert_int_equal(r.blob_weightless, 1);
    assert_int_equal(r.blob_bytes, 47 + 4096 + 16 * 256); /* no weights in it */
    assert_non_null(strstr(r.import_error, "ov_core_import_model failed"));
    assert_non_null(strstr(r.import_error, "no WEIGHTS_PATH set in properties but the blob was exported as weightless"));
    char *json = pm_ov_result_json(&r, 1, NULL);
    assert_non_null(strstr(json, "\"ok\":true"));
    assert_non_null(strstr(json, "\"import_error\":\"ov_core_import_model failed"));
    free(json);
    pm_ov_result_free(&r);
}

/* No NPU, NPU_PLATFORM named: compiled offline, exported, not imported; recorded as offline. Without a
 * platform the missing device is an error that says how to compile offline. */
static void offline_compile(void **state)
{
    char xml[PATH_MAX], log[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(log, sizeof log, "%s/off.txt", tmpdir);
    setenv("PASSMAP_FAKEOV_DEVICES", "CPU", 1);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = tmpdir, .window = 512, .do_import = 1};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "device NPU not available; OpenVINO lists: CPU"));
    assert_non_null(strstr(e.msg, "--platform NPU4000"));
    pm_ov_result_free(&r);
    o.platform = "NPU4000";
    int rc = compile_captured(&o, &r, &e, log);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(r.offline, 1);
    assert_string_equal(r.platform, "NPU4000");
    assert_true(r.compile_s > 0 && r.blob_bytes > 0);
    assert_true(r.import_s < 0);
    assert_string_equal(r.import_error, "");
    assert_non_null(strstr(r.import_skipped, "offline"));
    assert_string_equal(prop(&r.props, "NPU_PLATFORM"), "NPU4000");
    assert_string_equal(prop(&r.props, "NPU_COMPILER_TYPE"), "PLUGIN");
    assert_string_equal(r.compiler_type_set, "PLUGIN");
    assert_string_equal(r.driver_version, ""); /* no device, no driver */
    char *a = read_text(log);
    assert_non_null(strstr(a, "offline compilation only"));
    assert_non_null(strstr(a, "Execution time report"));
    free(a);
    pm_ov_result_free(&r);
    unsetenv("PASSMAP_FAKEOV_DEVICES");
}

typedef struct seen {
    int calls, status;
    double compile_s;
    char error[256];
} seen;

static void record_result(struct pm_ov_result *r, int status, const char *error, void *ctx)
{
    seen *s = ctx;
    s->calls++;
    s->status = status;
    s->compile_s = r->compile_s;
    snprintf(s->error, sizeof s->error, "%s", error ? error : "");
}

/* The caller's result is handed over once, before teardown, also on failure. */
static void result_before_teardown(void **state)
{
    char xml[PATH_MAX], log[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(log, sizeof log, "%s/cb.txt", tmpdir);
    seen s = {0};
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .workdir = tmpdir, .on_result = record_result,
                    .on_result_ctx = &s};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_OK);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.status, PM_OK);
    assert_true(s.compile_s == r.compile_s && s.compile_s > 0);
    pm_ov_result_free(&r);
    o.device = "NOPE";
    assert_int_equal(compile_captured(&o, &r, &e, log), PM_ERR_NOTFOUND);
    assert_int_equal(s.calls, 2);
    assert_non_null(strstr(s.error, "device NOPE not available"));
    pm_ov_result_free(&r);
}

static void missing_library(void **state)
{
    pm_ov_opts o = {.lib = "/nonexistent/libopenvino_c.so", .model_xml = "x.xml"};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(pm_ov_compile(&o, &r, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "libopenvino_c.so not found"));
    assert_non_null(strstr(e.msg, "set PASSMAP_OPENVINO_LIB"));
    pm_ov_result_free(&r);
    setenv("PASSMAP_OPENVINO_LIB", "/nonexistent/also.so", 1);
    o.lib = NULL;
    assert_int_equal(pm_ov_compile(&o, &r, &e), PM_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "/nonexistent/also.so"));
    pm_ov_result_free(&r);
    unsetenv("PASSMAP_OPENVINO_LIB");
}

static void bad_device(void **state)
{
    char xml[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    pm_ov_opts o = {.lib = standin, .model_xml = xml, .device = "NOPE", .workdir = tmpdir};
    pm_ov_result r;
    pm_err e;
    assert_int_equal(pm_ov_compile(&o, &r, &e), PM_ERR_NOTFOUND);
    assert_string_equal(e.msg, "device NOPE not available; OpenVINO lists: CPU, GPU, NPU");
    pm_ov_result_free(&r);
    /* A device that is listed but fails in compile_model: OpenVINO's own message comes through. */
    setenv("PASSMAP_FAKEOV_DEVICES", "CPU,NOPE", 1);
    assert_int_equal(pm_ov_compile(&o, &r, &e), PM_ERR_CHILD);
    assert_non_null(strstr(e.msg, "ov_core_compile_model failed (status -1 GENERAL_ERROR)"));
    assert_non_null(strstr(e.msg, "not registered"));
    pm_ov_result_free(&r);
    unsetenv("PASSMAP_FAKEOV_DEVICES");
}

static void result_line_round_trip(void **state)
{
    pm_ov_result r = {0}, back;
    pm_err e;
    pm_ov_opts o = {.model_xml = "x.xml", .window = 64};
    assert_int_equal(pm_ov_build_props(&o, NULL, 0, &r.props, &e), PM_OK);
    r.n_prop_args = 2 * r.props.n;
    r.compile_s = 12.5;
    r.export_s = 0.25;
    r.import_s = -1;
    r.read_s = 0.125;
    r.blob_bytes = 123456;
    strcpy(r.device, "NPU");
    strcpy(r.compiler_type, "DRIVER");
    strcpy(r.ov_version, "2025.4.0");
    strcpy(r.strategy_key, "00112233445566778899aabbccddeeff");
    r.strategy_reused = 1;
    strcpy(r.refused_property, "NPU_TURBO");
    strcpy(r.compiler_version_source, "core with NPU_COMPILER_TYPE=DRIVER");
    r.import_pending = 1;
    r.mem_total_bytes = 16LL << 30;
    /* what the compiled model reported: a property list built for window 1024 stands in for it */
    pm_ov_opts compiled = {.model_xml = "x.xml", .window = 1024};
    assert_int_equal(pm_ov_build_props(&compiled, NULL, 0, &r.effective, &e), PM_OK);
    char *json = pm_ov_result_json(&r, 1, NULL);
    assert_non_null(json);
    /* Compiler output without a trailing newline may precede the line. */
    char buf[8192];
    snprintf(buf, sizeof buf, "PASSMAP-OV-RESULT {\"ok\":false}\nsome output" PM_OV_RESULT_PREFIX "%s\ntrailing\n", json);
    int ok = 0;
    char error[64] = "x";
    assert_int_equal(pm_ov_parse_result_line(buf, strlen(buf), &back, &ok, error, sizeof error, &e), PM_OK);
    assert_int_equal(ok, 1);
    assert_string_equal(error, "");
    assert_true(back.compile_s == 12.5 && back.export_s == 0.25 && back.import_s == -1 && back.read_s == 0.125);
    assert_int_equal(back.blob_bytes, 123456);
    assert_string_equal(back.compiler_type, "DRIVER");
    assert_string_equal(back.ov_version, "2025.4.0");
    assert_string_equal(back.strategy_key, "00112233445566778899aabbccddeeff");
    assert_int_equal(back.strategy_reused, 1);
    assert_int_equal(back.n_prop_args, 18);
    assert_int_equal(back.props.n, 9);
    assert_string_equal(prop(&back.props, "NPUW_LLM_MAX_PROMPT_LEN"), "64");
    assert_string_equal(back.refused_property, "NPU_TURBO");
    assert_string_equal(back.compiler_version_source, "core with NPU_COMPILER_TYPE=DRIVER");
    assert_int_equal(back.import_pending, 1);
    assert_true(back.mem_total_bytes == 16LL << 30);
    /* the compiled model's values win over the sent ones */
    int eff = 0;
    assert_string_equal(pm_ov_npuw_value(&back, "NPUW_LLM_MAX_PROMPT_LEN", &eff), "1024");
    assert_int_equal(eff, 1);
    free(json);
    pm_ov_result_free(&r);
    pm_ov_result_free(&back);
    assert_int_equal(pm_ov_parse_result_line("no line\n", 8, &back, &ok, NULL, 0, &e), PM_ERR_NOTFOUND);
}

/* The refused key, from both upstream forms; nothing from other messages. */
static void refused_property_named(void **state)
{
    char k[64];
    assert_int_equal(pm_ov_refused_property("Exception from config.cpp:1:\n[ NOT_FOUND ] Option 'NPU_X_Y' is not "
                                            "supported for current configuration", k, sizeof k), 1);
    assert_string_equal(k, "NPU_X_Y");
    assert_int_equal(pm_ov_refused_property("[NPUW] Unsupported configuration key: NPUW_LLM_FOO\n", k, sizeof k), 1);
    assert_string_equal(k, "NPUW_LLM_FOO");
    assert_int_equal(pm_ov_refused_property("[NPU] failed to parse COMPILATION_MODE_PARAMS", k, sizeof k), 0);
    assert_string_equal(k, "");
    assert_int_equal(pm_ov_refused_property("Option '' is odd", k, sizeof k), 0);
}

/* NPU_COMPILER_TYPE's words follow the release: MLIR is gone in 2026, PLUGIN and PREFER_PLUGIN are new there. */
static void compiler_type_gated(void **state)
{
    pm_err e;
    assert_int_equal(pm_ov_compiler_type_check("MLIR", "2026.0.0-1234", &e), PM_ERR_USAGE);
    assert_non_null(strstr(e.msg, "PLUGIN, DRIVER, PREFER_PLUGIN"));
    assert_int_equal(pm_ov_compiler_type_check("MLIR", "2025.3.0", &e), PM_OK);
    assert_int_equal(pm_ov_compiler_type_check("PLUGIN", "2025.3.0", &e), PM_ERR_USAGE);
    assert_int_equal(pm_ov_compiler_type_check("PREFER_PLUGIN", "2026.1.0", &e), PM_OK);
    assert_int_equal(pm_ov_compiler_type_check("DRIVER", "2024.4.0", &e), PM_OK);
    assert_int_equal(pm_ov_compiler_type_check("TURBO", "2026.0.0", &e), PM_ERR_USAGE);
    assert_int_equal(pm_ov_compiler_type_check("PLUGIN", "", &e), PM_OK);   /* unknown release: not refused */
}

/* Upstream's order: generate variants, prefill, LM head. Uneven counts infer nothing. */
static void inferred_split(void **state)
{
    const double t[] = {1, 1, 2, 2, 3, 3, 5, 5, 0.5};
    pm_ov_split sp;
    char why[200] = "";
    assert_int_equal(pm_ov_infer_split(t, 9, 3, 1, &sp, why, sizeof why), PM_OK);
    assert_int_equal(sp.blocks[0], 6);
    assert_int_equal(sp.blocks[1], 2);
    assert_int_equal(sp.blocks[2], 1);
    assert_true(sp.total_s[0] == 12 && sp.total_s[1] == 10 && sp.total_s[2] == 0.5);
    assert_int_equal(pm_ov_infer_split(t, 8, 3, 1, &sp, why, sizeof why), PM_ERR_PARSE);
    assert_non_null(strstr(why, "do not split evenly"));
    assert_int_equal(pm_ov_infer_split(t, 4, 1, 0, &sp, why, sizeof why), PM_OK);
    assert_int_equal(sp.blocks[0], 2);
    assert_int_equal(sp.blocks[2], 0);
}

static void strategy_key_and_cache(void **state)
{
    char xml[PATH_MAX], bin[PATH_MAX], cache[PATH_MAX], src[PATH_MAX];
    snprintf(xml, sizeof xml, "%s/m.xml", tmpdir);
    snprintf(bin, sizeof bin, "%s/m.bin", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    snprintf(src, sizeof src, "%s/strategy_src.json", tmpdir);
    const char *trace_only[] = {"LOG_LEVEL=LOG_DEBUG", "NPU_COMPILATION_MODE_PARAMS=enable-schedule-trace=true", NULL};
    const char *opt_level[] = {"NPU_COMPILATION_MODE_PARAMS=optimization-level=0", NULL};
    pm_ov_opts o = {.model_xml = xml, .window = 512};
    char k1[33], k2[33], k3[33], k4[33], k5[33];
    pm_err e;
    assert_int_equal(pm_ov_strategy_key(&o, k1, &e), PM_OK);
    assert_int_equal(strlen(k1), 32);
    assert_int_equal(strspn(k1, "0123456789abcdef"), 32);
    o.extra = trace_only;
    o.schedule_trace = 1;
    assert_int_equal(pm_ov_strategy_key(&o, k2, &e), PM_OK);
    assert_string_equal(k1, k2); /* log level and trace switches do not change the strategy */
    o.extra = opt_level;
    assert_int_equal(pm_ov_strategy_key(&o, k3, &e), PM_OK);
    assert_string_not_equal(k1, k3);
    o.extra = NULL;
    o.window = 1024;
    assert_int_equal(pm_ov_strategy_key(&o, k4, &e), PM_OK);
    assert_string_not_equal(k1, k4);
    o.window = 512;
    write_text(bin, "other weights");
    assert_int_equal(pm_ov_strategy_key(&o, k5, &e), PM_OK);
    assert_string_not_equal(k1, k5); /* the .bin beside the .xml is part of the content */
    write_text(bin, "weights");

    char *path = NULL;
    assert_int_equal(pm_ov_strategy_fetch(cache, k1, &path, &e), PM_ERR_NOTFOUND);
    assert_null(path);
    write_text(src, "{\"a\": {\"multiClusterStrategy\": \"Clustering\"}}\n");
    assert_int_equal(pm_ov_strategy_store(cache, k1, src, &e), PM_OK);
    assert_int_equal(pm_ov_strategy_fetch(cache, k1, &path, &e), PM_OK);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s/strategy/%s.json", cache, k1);
    assert_string_equal(path, want);
    char *got = read_text(path);
    assert_string_equal(got, "{\"a\": {\"multiClusterStrategy\": \"Clustering\"}}\n");
    free(got);
    free(path);
    assert_int_equal(pm_ov_strategy_store(cache, "../../etc", src, &e), PM_ERR_USAGE);
}

static void sweep_step(void **state)
{
    const char *extra[] = {"NPU_COMPILER_TYPE=PLUGIN", NULL};
    pm_ov_opts o = {.model_xml = "models/qwen2-0.5b-int4.xml", .window = 4096, .schedule_trace = 1,
                    .do_import = 1, .extra = extra, .lib = "/opt/ov/libopenvino_c.so", .prefill_hint = "STATIC",
                    .generate_pyramid = "NO", .min_response_len = 256, .platform = "NPU4000", .task_stats = 1};
    pm_steps steps = {0};
    pm_err e;
    assert_int_equal(pm_ov_add_step("/usr/bin/passmap", &o, 1, "/c", &steps, &e), PM_OK);
    assert_int_equal(steps.n, 1);
    pm_step *s = &steps.items[0];
    char *cmd = pm_argv_join(s->argv);
    assert_string_equal(cmd, "/usr/bin/passmap ov-compile --model models/qwen2-0.5b-int4.xml --device NPU "
                             "--window 4096 --min-response-len 256 --prefill-hint STATIC --generate-pyramid NO "
                             "--platform NPU4000 --schedule-trace --task-stats --reuse-strategy --cache-dir /c "
                             "--prop NPU_COMPILER_TYPE=PLUGIN --import --lib /opt/ov/libopenvino_c.so");
    free(cmd);
    assert_string_equal(s->tool, "ov-compile");
    assert_null(s->cwd);
    assert_int_equal(s->report_stream, PM_STREAM_STDOUT);
    assert_int_equal(s->report_format, PM_FMT_NPU_LOG);
    assert_string_equal(s->output, "model.blob");
    assert_int_equal(s->n_artifacts, 2);
    assert_string_equal(s->artifacts[0], "compileTimeScheduleTrace.json");
    assert_int_equal(s->artifact_formats[1], PM_FMT_NPU_STRATEGY);
    pm_steps_free(&steps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(props_default_npu),
        cmocka_unit_test(props_llm_and_mode_params),
        cmocka_unit_test(props_cpu_and_bad_extra),
        cmocka_unit_test(props_stock_instrumented_offline),
        cmocka_unit_test(decode_compiler_version),
        cmocka_unit_test(compile_end_to_end),
        cmocka_unit_test(strategy_in_is_offered),
        cmocka_unit_test(window_scales_strategy_time),
        cmocka_unit_test(generate_pyramid_blocks),
        cmocka_unit_test(import_failure_is_not_compile_failure),
        cmocka_unit_test(offline_compile),
        cmocka_unit_test(result_before_teardown),
        cmocka_unit_test(missing_library),
        cmocka_unit_test(bad_device),
        cmocka_unit_test(result_line_round_trip),
        cmocka_unit_test(refused_property_named),
        cmocka_unit_test(compiler_type_gated),
        cmocka_unit_test(inferred_split),
        cmocka_unit_test(strategy_key_and_cache),
        cmocka_unit_test(sweep_step),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
