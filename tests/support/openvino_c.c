/* Stand-in libopenvino_c for tests: exports exactly the subset of the OpenVINO C API passmap uses, with the
 * real signatures (openvino/c/ov_core.h, ov_compiled_model.h, ov_common.h), and models the behaviours of the
 * real NPU plugin (2026) that passmap must handle. It does not validate real compiler behaviour: the formats and
 * behaviours below were read from the openvino and npu_compiler sources (docs/npu.md), not captured from a run.
 *
 * On ov_core_compile_model(core, model, device, nargs, &cm, key, value, ...):
 *  - records "nargs=N", "device=D", "cwd=PATH" and one "KEY=VALUE" line per pair into $PASSMAP_FAKEOV_PROPS_OUT;
 *  - fails (GENERAL_ERROR) for odd nargs, for device "NOPE", for unknown NPU_COMPILATION_MODE_PARAMS keys
 *    ("failed to parse COMPILATION_MODE_PARAMS"), and for NPU when no NPU is listed ($PASSMAP_FAKEOV_DEVICES)
 *    unless NPU_PLATFORM names a target (then it compiles offline, and import fails);
 *  - NPUW_LLM: compiles in upstream's order (the end of the LLMCompiledModel constructor): the generate models
 *    (with NPUW_LLM_GENERATE_PYRAMID unset or YES one per 1024*2^k + MIN_RESPONSE_LEN below the KV size, plus
 *    the KV size; else one), then the prefill (at the window with NPUW_LLM_PREFILL_HINT=STATIC, else at the 1024
 *    chunk when the window is longer), then the shared LM head; each model is two subgraph compiles (the head
 *    one), each with its own timing report: N blocks per call. With OPENVINO_NPUW_LOG_LEVEL=INFO a
 *    "[ NPUW:INFO ] " line names each subgraph's submodel (<model>_prefill, <model>_kv<size>, <model>_lm_head);
 *    without it, or with $PASSMAP_FAKEOV_NPUW_NOLOG (a release build whose NPUW logging is compiled out),
 *    nothing does;
 *  - the compiled NPUW model reports the effective NPUW_LLM_* values (MAX_PROMPT_LEN and MIN_RESPONSE_LEN
 *    rounded up to 64, the hints and switches as resolved) and no NPU_COMPILER_VERSION; a plain one reports its
 *    compiler's version. The two compilers have their own versions (DRIVER 7.6, PLUGIN 7.9); the core answers
 *    for the NPU_COMPILER_TYPE set on it (ov_core_set_property), else for its default (PREFER_PLUGIN);
 *  - $PASSMAP_FAKEOV_NO_DRIVER_COMPILER: intel-driver-compiler-npu is not installed (DRIVER cannot load
 *    libnpu_driver_compiler.so); with no device, DRIVER needs one;
 *  - $PASSMAP_FAKEOV_REFUSE=KEY[,KEY]: a 2026 plugin's filter: those keys are not in SUPPORTED_PROPERTIES and a
 *    compile that sends one fails "[ NOT_FOUND ] Option 'KEY' is not supported for current configuration";
 *  - NPU_COMPILER_TYPE=MLIR fails on 2026 (the enum is PLUGIN|DRIVER|PREFER_PLUGIN); PLUGIN before 2026;
 *    A user NPU_COMPILATION_MODE_PARAMS replaces NPUW's default precision params, with a warning;
 *  - prints the plugin's lines always coloured with unpadded milliseconds ("12:00:01.5" is 5 ms), compiler
 *    lines ([vpux-compiler], [inference-execution-analysis], ...) with padded ones, hierarchical IE statistics,
 *    "Compile net time" from both [VCL] and [vpux-compiler] for the same compile, and the VmPeak delta line;
 *  - read-strategy-from-json: the strategy search still runs (same cost), then ManualStrategyUtils overwrites
 *    its result ("Experimental mode - assigning manual strategies"): no speed-up;
 *  - writes ./compileTimeScheduleTrace.json (DPU tasks also once per variant on thread "DPU / Variants") and
 *    ./strategy_out.json (VF ops carry their region's tiling) per subgraph: under NPUW the LM head's wins;
 *  - export under NPUW without CACHE_MODE=OPTIMIZE_SPEED writes a weightless blob, whose import fails with
 *    "There is no WEIGHTS_PATH set in properties but the blob was exported as weightless!";
 *  - offline NPUW without NPUW_WEIGHTS_BANK_ALLOC=CPU fails after the compiler ran (the weights bank needs a
 *    device context); NPUW's arch defaults are not added offline;
 *  - with an NPU present ($PASSMAP_FAKEOV_ARCH, default 4000), NPU_PLATFORM for another architecture fails
 *    unless NPU_CREATE_EXECUTOR=0;
 *  - an import holds a copy of the blob (its weights) in memory;
 *  - plays OpenVINO $PASSMAP_FAKEOV_VERSION (default 2026.0.0-standin): rejects NPUW_LLM_* keys that release
 *    does not define (the attention hints before 2026.0) and defaults the prefill attention hint to STATIC
 *    (2026.0) or PYRAMID (2026.1+, one more prefill subgraph);
 *  - test injection, not upstream behaviour: $PASSMAP_FAKEOV_REPLAY=MS:US makes a compile that replays a strategy
 *    (read-strategy-from-json) take MS ms and every other compile 300 ms, and adds US to each of the replaying
 *    compile's estimated latencies (a replayed strategy overrides the search's tiling, which the cost model
 *    estimates), so a test can have a fix that compiles faster with a slower (or equal, US = 0) estimate;
 *  - ov_get_last_err_msg returns a heap copy (the caller frees it with ov_free), or NULL;
 *  - with $PASSMAP_FAKEOV_CRASH_TEARDOWN, ov_core_free aborts (a teardown crash); with
 *    $PASSMAP_FAKEOV_CRASH_IMPORT, ov_core_import_model aborts (as an out-of-memory kill would end it); with
 *    $PASSMAP_FAKEOV_KILL_IMPORT it touches the blob's copy and then SIGKILLs itself (the kernel's OOM killer);
 *    with $PASSMAP_FAKEOV_IMPORT_RLIMIT_AS it lowers its own RLIMIT_AS to what it maps now plus 1 MB before
 *    allocating that copy (an address-space limit too small for the weights bank).
 * It links only libc and jansson (not libpassmap). */
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

typedef enum { OK = 0, GENERAL_ERROR = -1, NOT_FOUND = -5, NETWORK_NOT_READ = -12, INVALID_C_PARAM = -14 } ov_status_e;
typedef struct ov_version {
    const char *buildNumber;
    const char *description;
} ov_version_t;
typedef struct {
    char **devices;
    size_t size;
} ov_available_devices_t;

typedef struct ov_core {
    char compiler_type[32];   /* set with ov_core_set_property; "": the plugin's default */
} ov_core_t;
typedef struct ov_model {
    char *xml;
    long long weights_bytes;
} ov_model_t;
typedef struct ov_compiled_model {
    char *imported;   /* an import holds the blob's weights in memory, as a real one does */
    char device[32];
    char compiler_type[32];
    char platform[32];
    int window, npuw, weightless;
    char effective[8][2][40];  /* NPUW_LLM_* as compiled (key without the prefix, value) */
    int n_effective;
    long long weights_bytes;
} ov_compiled_model_t;

static char last_err[1024];

static ov_status_e fail(ov_status_e st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    return st;
}

/* As in ov_core.cpp: a heap copy the caller frees with ov_free. */
API const char *ov_get_last_err_msg(void) { return last_err[0] ? strdup(last_err) : NULL; }
API void ov_free(const char *content) { free((void *)content); }

/* $PASSMAP_FAKEOV_VERSION: the release it plays (default 2026.0.0-standin); the NPUW options it knows and
 * their defaults follow it. */
static const char *fake_version(void)
{
    const char *v = getenv("PASSMAP_FAKEOV_VERSION");
    return v && *v ? v : "2026.0.0-standin";
}

static int fake_at_least(int major, int minor)
{
    int ma = 0, mi = 0;
    sscanf(fake_version(), "%d.%d", &ma, &mi);
    return ma > major || (ma == major && mi >= minor);
}

/* NPUW's option table (npuw_option_defs.inc): an NPUW_LLM_* key it does not define is an error. */
static int npuw_key_known(const char *k)
{
    static const char *const always[] = {"NPUW_LLM", "NPUW_LLM_MAX_PROMPT_LEN", "NPUW_LLM_MIN_RESPONSE_LEN",
                                         "NPUW_LLM_BATCH_DIM", "NPUW_LLM_SEQ_LEN_DIM", "NPUW_LLM_PREFILL_HINT",
                                         "NPUW_LLM_GENERATE_HINT", "NPUW_LLM_SHARED_HEAD",
                                         "NPUW_LLM_GENERATE_PYRAMID", "NPUW_LLM_PREFILL_CHUNK_SIZE", NULL};
    for (int i = 0; always[i]; i++)
        if (!strcmp(k, always[i]))
            return 1;
    return fake_at_least(2026, 0) &&
           (!strcmp(k, "NPUW_LLM_PREFILL_ATTENTION_HINT") || !strcmp(k, "NPUW_LLM_GENERATE_ATTENTION_HINT"));
}

API ov_status_e ov_get_openvino_version(ov_version_t *v)
{
    v->buildNumber = strdup(fake_version());
    v->description = strdup("passmap stand-in libopenvino_c");
    return OK;
}

API void ov_version_free(ov_version_t *v)
{
    free((void *)v->buildNumber);
    free((void *)v->description);
    v->buildNumber = v->description = NULL;
}

API ov_status_e ov_core_create(ov_core_t **core)
{
    *core = calloc(1, sizeof **core);
    return *core ? OK : fail(GENERAL_ERROR, "out of memory");
}

/* $PASSMAP_FAKEOV_CRASH_TEARDOWN: die in teardown, as unloading TBB/driver threads can; the caller's result
 * must already be out. */
API void ov_core_free(ov_core_t *core)
{
    if (getenv("PASSMAP_FAKEOV_CRASH_TEARDOWN"))
        abort();
    free(core);
}

static const char *device_list(void)
{
    const char *env = getenv("PASSMAP_FAKEOV_DEVICES");
    return env ? env : "CPU,GPU,NPU";
}

/* The present NPU's architecture: $PASSMAP_FAKEOV_ARCH, default 4000 (Lunar Lake); 3720 is Meteor Lake. */
static const char *fake_arch(void)
{
    const char *a = getenv("PASSMAP_FAKEOV_ARCH");
    return a && *a ? a : "4000";
}

static int npu_present(void)
{
    char buf[256];
    snprintf(buf, sizeof buf, ",%s,", device_list());
    return strstr(buf, ",NPU,") != NULL;
}

API ov_status_e ov_core_get_available_devices(const ov_core_t *core, ov_available_devices_t *d)
{
    char *list = strdup(device_list()), *save = NULL;
    d->devices = calloc(16, sizeof *d->devices);
    d->size = 0;
    for (char *t = strtok_r(list, ",", &save); t && d->size < 16; t = strtok_r(NULL, ",", &save))
        d->devices[d->size++] = strdup(t);
    free(list);
    return OK;
}

API void ov_available_devices_free(ov_available_devices_t *d)
{
    for (size_t i = 0; i < d->size; i++)
        free(d->devices[i]);
    free(d->devices);
    d->devices = NULL;
    d->size = 0;
}

API ov_status_e ov_core_read_model(const ov_core_t *core, const char *xml, const char *bin, ov_model_t **model)
{
    if (!core || !xml || !model)
        return fail(INVALID_C_PARAM, "invalid argument");
    if (access(xml, R_OK) != 0)
        return fail(NETWORK_NOT_READ, "Could not open the file: \"%s\"", xml);
    if (bin && access(bin, R_OK) != 0)
        return fail(NETWORK_NOT_READ, "Could not open the weights file: \"%s\"", bin);
    *model = calloc(1, sizeof **model);
    (*model)->xml = strdup(xml);
    char path[4096];
    size_t n = strlen(xml);
    snprintf(path, sizeof path, "%s", bin ? bin : xml);
    if (!bin && n > 4 && n < sizeof path)
        memcpy(path + n - 4, ".bin", 4);
    struct stat sb;
    (*model)->weights_bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
    return OK;
}

API void ov_model_free(ov_model_t *m)
{
    if (m)
        free(m->xml);
    free(m);
}

/* ---- the fake compile ----------------------------------------------------------------------------------- */

typedef struct row {
    int depth;
    const char *name;
    double wall;
} row;

static double print_report(const row *rows, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].depth == 0)
            total += rows[i].wall;
    printf("===-------------------------------------------------------------------------===\n"
           "                         ... Execution time report ...\n"
           "===-------------------------------------------------------------------------===\n"
           "  Total Execution Time: %.4f seconds\n\n"
           "  ----User Time----  ----Wall Time----  ----Name----\n",
           total);
    for (int i = 0; i < n; i++) {
        double user = rows[i].wall * 1.5;
        printf("  %8.4f (%5.1f%%)  %8.4f (%5.1f%%)  %*s%s\n", user, 100 * user / (total * 1.5), rows[i].wall,
               100 * rows[i].wall / total, 2 * rows[i].depth, "", rows[i].name);
    }
    printf("  %8.4f (%5.1f%%)  %8.4f (%5.1f%%)  Total\n", total * 1.5, 100.0, total, 100.0);
    return total;
}

/* One subgraph compile's report (2025/26 tree); s scales the work, replay adds ManualStrategyUtils after the
 * search (which runs at full cost either way). */
static double compiler_report(double s, int replay)
{
    double shape = 0.001 * s, mc = 0.020 * s, manual = replay ? 0.0005 * s : 0, vf = 0.004 * s,
           outl = 0.003 * s, fa = 0.010 * s, wl = 0.002 * s, iea = 0.002 * s, elf = 0.003 * s, ngraph = 0.002;
    double func = shape + mc + manual + vf + 0.0005;
    double ie2vpuip = outl + func + fa + 0.0005, elfp = wl + iea + elf + 0.0005;
    row rows[] = {
        {0, "Import network", ngraph + 0.0005},
        {1, "Common nGraph passes", ngraph},
        {0, "Compile network", ie2vpuip + elfp},
        {1, "IE to VPUIP pipeline", ie2vpuip},
        {2, "VerticalFusionOutlining", outl},
        {2, "'func.func' Pipeline", func},
        {3, "ConvertShapeTo4D", shape},
        {3, "MultiClusterStrategyAssignment", mc},
        {3, "ManualStrategyUtils", manual},
        {3, "MergeVfSubgraphs", vf},
        {2, "FeasibleAllocation", fa},
        {1, "ELF pipeline", elfp},
        {2, "WorkloadManagement", wl},
        {2, "InferenceExecutionAnalysis", iea},
        {2, "ConvertVPUIP2VPUMI40XX", elf},
        {0, "Rest", 0.0001},
    };
    int n = (int)(sizeof rows / sizeof *rows);
    if (!replay) { /* no ManualStrategyUtils row without the read path */
        memmove(&rows[8], &rows[9], (size_t)(n - 9) * sizeof *rows);
        n--;
    }
    return print_report(rows, n);
}

static const char *const known_mode_keys[] = {"enable-schedule-trace", "write-strategy-to-json",
                                              "read-strategy-from-json", "dump-task-stats", "optimization-level",
                                              "schedule-trace-file-name", "compute-layers-with-higher-precision",
                                              NULL};

static int mode_flag(const char *mode, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "%s=true", key);
    for (const char *p = mode; p && (p = strstr(p, pat)); p += strlen(pat))
        if ((p == mode || p[-1] == ' ') && (p[strlen(pat)] == '\0' || p[strlen(pat)] == ' '))
            return 1;
    return 0;
}

static const char *unknown_mode_key(const char *mode, char *buf, size_t size)
{
    for (const char *w = mode; w && *w;) {
        while (*w == ' ')
            w++;
        size_t n = strcspn(w, " "), k = strcspn(w, "= ");
        if (!n)
            break;
        int ok = 0;
        for (int i = 0; known_mode_keys[i]; i++)
            if (strlen(known_mode_keys[i]) == k && !strncmp(w, known_mode_keys[i], k))
                ok = 1;
        if (!ok) {
            snprintf(buf, size, "%.*s", (int)k, w);
            return buf;
        }
        w += n;
    }
    return NULL;
}

static void write_schedule_trace(int size)
{
    int extra = size / 256;
    struct { const char *cat; int n; double dur; } cats[] = {{"DMA", 6 + extra, 2.0}, {"DPU", 4 + extra, 5.0},
                                                             {"SW", 2, 3.0}, {"M2I", 0, 1.0}};
    json_t *events = json_array();
    static const char *const procs[] = {"DMA", "DPU", "SW", "M2I"};
    for (int p = 0; p < 4; p++) {
        json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:s}}", "name", "process_name", "ph", "M", "pid",
                                                p, "args", "name", procs[p]));
        json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:i}}", "name", "process_sort_index", "ph", "M",
                                                "pid", p, "args", "sort_index", p));
        json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph", "M",
                                                "pid", p, "tid", 0, "args", "name", procs[p]));
    }
    json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1,
                                            "tid", 1, "args", "name", "DPU / Variants"));
    double ts = 0;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < cats[c].n; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s_task_%d", cats[c].cat, i);
            json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", name, "cat",
                                                    cats[c].cat, "ph", "X", "ts", ts, "dur", cats[c].dur, "pid",
                                                    c, "tid", 0));
            if (c == 1) /* each DPU task once more per variant, on its own thread */
                for (int v = 0; v < 2; v++) {
                    char vname[96];
                    snprintf(vname, sizeof vname, "%s/variant_%d", name, v);
                    json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", vname, "cat",
                                                            "DPU", "ph", "X", "ts", ts, "dur", cats[c].dur / 2,
                                                            "pid", 1, "tid", 1));
                }
            ts += 1.0;
        }
    json_t *root = json_pack("{s:o,s:{s:f,s:f,s:f,s:f,s:f,s:f,s:f},s:{s:i,s:s},s:s}", "traceEvents", events,
                             "taskStatistics", "total duration", ts + 5.0, "DMA duration", 2.0 * cats[0].n,
                             "DPU duration", 5.0 * cats[1].n, "SW duration", 6.0, "M2I duration", 0.0,
                             "all tasks union", ts, "total idle", 5.0, "workpoint", "freq", 1850, "status", "SIM",
                             "displayTimeUnit", "ns");
    json_dump_file(root, "compileTimeScheduleTrace.json", JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
}

/* Two ops of one VF region carry the region's tiling (count it once per hash); non-VF ops say "Null". */
static void write_strategy(int size)
{
    int h = size >= 1024 ? 8 : 4;
    json_t *root = json_pack(
        "{s:{s:s,s:s,s:{s:i,s:i,s:i,s:i},s:s,s:s,s:b},"
        " s:{s:s,s:s,s:{s:i,s:i,s:i,s:i},s:s,s:s,s:b},"
        " s:{s:s,s:s,s:{s:i,s:i,s:i,s:i},s:s,s:s,s:b},"
        " s:{s:s,s:s,s:s,s:s,s:s,s:b}}",
        "Conv?t_Convolution/_1", "layerType", "VPU.NCE.Convolution", "multiClusterStrategy", "SplitOverHeight",
        "tilingStrategy", "N", 1, "C", 1, "H", h, "W", 1, "verticalFusion", "True", "verticalFusionHash", "0x1111",
        "updatedVFTiling", 0,
        "Conv?t_Convolution/_2", "layerType", "VPU.NCE.Convolution", "multiClusterStrategy", "SplitOverKernel",
        "tilingStrategy", "N", 1, "C", 1, "H", h, "W", 1, "verticalFusion", "True", "verticalFusionHash", "0x1111",
        "updatedVFTiling", 0,
        "MatMul?t_MatMul/_3", "layerType", "VPU.NCE.MatMul", "multiClusterStrategy", "Clustering",
        "tilingStrategy", "N", 1, "C", 2, "H", 1, "W", 1, "verticalFusion", "False", "verticalFusionHash", "Null",
        "updatedVFTiling", 0,
        "Add?t_Add/_4", "layerType", "VPU.NCE.Eltwise", "multiClusterStrategy", "NONE", "tilingStrategy", "NONE",
        "verticalFusion", "False", "verticalFusionHash", "Null", "updatedVFTiling", 0);
    json_dump_file(root, "strategy_out.json", JSON_INDENT(4) | JSON_PRESERVE_ORDER);
    json_decref(root);
}

/* The plugin's logger: always coloured, milliseconds not zero-padded (logger.cpp). */
static int clock_ms;
static void plugin_line(const char *level, const char *fmt, ...)
{
    int t = clock_ms;
    /* logger.cpp: cyan for INFO, yellow for WARNING, then the reset after the message */
    printf("%s[%s] 12:00:%02d.%d [NPUPlugin] ", strcmp(level, "WARNING") ? "\033[36m" : "\033[33m", level,
           (t / 1000) % 60, t % 1000);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\033[0m\n");
}

static void compiler_line(const char *logger, const char *fmt, ...)
{
    int t = clock_ms;
    printf("[INFO] 12:00:%02d.%03d [%s] ", (t / 1000) % 60, t % 1000, logger);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

typedef struct compile_opts {
    const char *mode;
    int replay, trace, strategy, task_stats;
    int extra_latency_us;   /* $PASSMAP_FAKEOV_REPLAY's US on a replaying compile */
} compile_opts;

/* One compiler run (one unique subgraph): the lines a LOG_INFO compile prints around its report. */
/* NPUW's own log (npuw/logging.cpp): "[ NPUW:INFO ] " lines, in release builds too, but only when
 * OPENVINO_NPUW_LOG_LEVEL (or OPENVINO_NPUW_LOG) asks for INFO or more. */
static int npuw_logs_info(void)
{
    if (getenv("PASSMAP_FAKEOV_NPUW_NOLOG")) /* a build whose NPUW logging is compiled out */
        return 0;
    const char *v = getenv("OPENVINO_NPUW_LOG_LEVEL");
    if (!v)
        v = getenv("OPENVINO_NPUW_LOG");
    return v && (!strcmp(v, "INFO") || !strcmp(v, "VERBOSE") || !strcmp(v, "DEBUG"));
}

/* submodel: NPUW's name of the subgraph's model ("<model>_prefill", "<model>_kv<size>", "<model>_lm_head"),
 * NULL for a plain (non-NPUW) compile, which names nothing at INFO. */
static void subgraph_compile(const char *submodel, int subgraph, int size, double scale, const compile_opts *co)
{
    if (submodel && npuw_logs_info())
        printf("[ NPUW:INFO ] Compiling Subgraph[%d]: %s...\n", subgraph, submodel);
    clock_ms += 5;
    compiler_line("dump-statistics-of-ie-ops", "IE dialect statistics:");
    compiler_line("dump-statistics-of-ie-ops", "  IE - 10 (100.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "    Non-computational - 3 (30.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "      IE.Reshape - 1 (10.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "      IE.Convert - 2 (20.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "        f16 -> f32 - 2 (20.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "    Computational - 7 (70.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "      IE.MatMul - 4 (40.00%%)");
    compiler_line("dump-statistics-of-ie-ops", "      IE.Add - 3 (30.00%%)");
    if (co->replay) /* the compiler's global logger, at WARNING */
        printf("[WARNING] 12:00:%02d.%03d [vpux-compiler] WARNING: Experimental mode - assigning manual strategies\n",
               (clock_ms / 1000) % 60, clock_ms % 1000);
    compiler_line("feasible-allocation", "Feasible allocation started");
    clock_ms += 250;
    compiler_line("feasible-allocation", "  Scheduled 42 buffers");
    /* a compiler line with "generated" in it: it names no submodel */
    compiler_line("assign-virtual-barriers", "Barrier scheduling generated %d barriers", 12 + size / 64);
    if (co->task_stats) { /* dump-task-stats, as the npu_compiler lit tests show it */
        compiler_line("dump-statistics-of-task-ops", "Input size - 4.50 KB Output size - 4.50 KB");
        compiler_line("dump-statistics-of-task-ops", "VPUIP tasks statistics:");
        compiler_line("dump-statistics-of-task-ops", "VPUIP Tasks - %d ops", 12 + size / 256);
        compiler_line("dump-statistics-of-task-ops", "  VPUIP.NNDMA - %d ops : Size - 40.50 KB", 6 + size / 256);
        compiler_line("dump-statistics-of-task-ops", "    DDR2CMX - %d ops : Size - 30.00 KB", 6 + size / 256);
        compiler_line("dump-statistics-of-task-ops", "  VPUIP.NCEClusterTask - 4 ops");
        compiler_line("dump-statistics-of-task-ops", "  VPUIP.SW.Kernel - 2 ops");
        compiler_line("dump-statistics-of-task-ops", "Weights statistics");
        compiler_line("dump-statistics-of-task-ops", "  Total weights - count: 4, size: 53.50 KB (no compression)");
        compiler_line("dump-statistics-of-task-ops", "Const swizzling statistics:");
        compiler_line("dump-statistics-of-task-ops", "  Swizzled constants     - count: 2, size: 4 KB");
    }
    compiler_line("inference-execution-analysis", "Estimated inference latency: %dus", 300 + size + co->extra_latency_us);
    double total = compiler_report(scale, co->replay);
    fflush(stdout);
    /* Compile net time covers the report and the ELF export after it; both loggers print it (newest
     * builds): the same compile, not two. */
    int net_ms = (int)(total * 1000 + 0.5) + 7;
    clock_ms += net_ms;
    printf("Compilation memory usage: Peak %d KB\n", 100000 + 10 * size);
    compiler_line("VCL", "Compile net time: %d ms", net_ms);
    compiler_line("vpux-compiler", "Compile net time: %d ms", net_ms);
    fflush(stdout);
    if (co->trace) /* every subgraph overwrites it: the last one wins */
        write_schedule_trace(size);
    if (co->strategy)
        write_strategy(size);
}

static int align64(int v) { return (v + 63) / 64 * 64; }

/* The two compilers' versions (packed major << 16 | minor): the driver's 7.6, the plugin's 7.9. */
static const char *compiler_version_of(const char *type)
{
    return !strcmp(type, "DRIVER") ? "458758" : "458761";
}

/* PREFER_PLUGIN: the plugin's compiler, except on 3720, which falls back to the driver's. */
static const char *resolve_type(const char *type)
{
    if (strcmp(type, "PREFER_PLUGIN"))
        return type;
    return npu_present() && !strcmp(fake_arch(), "3720") ? "DRIVER" : "PLUGIN";
}

/* Why the driver's compiler cannot run, or NULL: it is a package of its own (intel-driver-compiler-npu), and it
 * needs a device. */
static const char *driver_compiler_error(void)
{
    if (getenv("PASSMAP_FAKEOV_NO_DRIVER_COMPILER"))
        return "[NPU] Cannot load the compiler library libnpu_driver_compiler.so: cannot open shared object file: "
               "No such file or directory";
    if (!npu_present())
        return "[NPU] Could not find an NPU device. The driver compiler requires a valid device";
    return NULL;
}

/* $PASSMAP_FAKEOV_REFUSE: the keys the selected compiler does not list (filterPropertiesByCompilerSupport). */
static int refused_key(const char *k)
{
    const char *list = getenv("PASSMAP_FAKEOV_REFUSE");
    size_t n = strlen(k);
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
        if (strcspn(p, ",") == n && !strncmp(p, k, n))
            return 1;
    return 0;
}

static void set_effective(ov_compiled_model_t *cm, const char *key, const char *value)
{
    if (cm->n_effective < 8) {
        snprintf(cm->effective[cm->n_effective][0], sizeof cm->effective[0][0], "%s", key);
        snprintf(cm->effective[cm->n_effective][1], sizeof cm->effective[0][1], "%s", value);
        cm->n_effective++;
    }
}

API ov_status_e ov_core_compile_model(const ov_core_t *core, const ov_model_t *model, const char *device,
                                      const size_t property_args_size, ov_compiled_model_t **compiled, ...)
{
    if (!core || !model || !device || !compiled)
        return fail(INVALID_C_PARAM, "invalid argument");
    if (property_args_size % 2)
        return fail(INVALID_C_PARAM, "property_args_size %zu is odd", property_args_size);
    const char *mode = NULL, *compiler_type = NULL, *platform = "", *prefill_hint = "DYNAMIC",
               *pyramid = "YES", *cache_mode = "OPTIMIZE_SIZE",
               *bank_alloc = "", *prefill_attn = NULL, *generate_attn = NULL, *shared_head = "YES";
    char unknown_key[64] = "", refused[64] = "";
    int window = 0, npuw_llm = 0, min_response = 128, no_executor = 0;
    const char *out = getenv("PASSMAP_FAKEOV_PROPS_OUT");
    FILE *rec = out ? fopen(out, "w") : NULL;
    char cwd[4096] = "";
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    if (rec)
        fprintf(rec, "nargs=%zu\ndevice=%s\ncwd=%s\n", property_args_size, device, cwd);
    va_list ap;
    va_start(ap, compiled);
    for (size_t i = 0; i < property_args_size / 2; i++) {
        const char *k = va_arg(ap, const char *), *v = va_arg(ap, const char *);
        if (rec)
            fprintf(rec, "%s=%s\n", k, v);
        if (refused_key(k) && !refused[0])
            snprintf(refused, sizeof refused, "%s", k);
        if (!strcmp(k, "NPU_COMPILATION_MODE_PARAMS"))
            mode = v;
        else if (!strcmp(k, "NPUW_LLM_MAX_PROMPT_LEN"))
            window = atoi(v);
        else if (!strcmp(k, "NPUW_LLM_MIN_RESPONSE_LEN"))
            min_response = atoi(v);
        else if (!strcmp(k, "NPUW_LLM"))
            npuw_llm = !strcmp(v, "YES");
        else if (!strcmp(k, "NPU_COMPILER_TYPE"))
            compiler_type = v;
        else if (!strcmp(k, "NPU_PLATFORM"))
            platform = v;
        else if (!strcmp(k, "NPUW_LLM_PREFILL_HINT"))
            prefill_hint = v;
        else if (!strcmp(k, "NPUW_LLM_GENERATE_PYRAMID"))
            pyramid = v;
        else if (!strcmp(k, "CACHE_MODE"))
            cache_mode = v;
        else if (!strcmp(k, "NPUW_WEIGHTS_BANK_ALLOC"))
            bank_alloc = v;
        else if (!strcmp(k, "NPUW_LLM_PREFILL_ATTENTION_HINT"))
            prefill_attn = v;
        else if (!strcmp(k, "NPUW_LLM_GENERATE_ATTENTION_HINT"))
            generate_attn = v;
        else if (!strcmp(k, "NPUW_LLM_SHARED_HEAD"))
            shared_head = v;
        else if (!strncmp(k, "NPUW_LLM", 8) && !npuw_key_known(k) && !unknown_key[0])
            snprintf(unknown_key, sizeof unknown_key, "%s", k);
        else if (!strcmp(k, "NPU_CREATE_EXECUTOR"))
            no_executor = !strcmp(v, "0") || !strcmp(v, "NO");
    }
    va_end(ap);
    if (rec)
        fclose(rec);
    if (!strcmp(device, "NOPE"))
        return fail(GENERAL_ERROR, "Device with \"NOPE\" name is not registered in the OpenVINO Runtime");
    if (*refused)
        return fail(NOT_FOUND, "Exception from src/plugins/intel_npu/src/al/src/config/config.cpp:1:\n[ NOT_FOUND ] "
                               "Option '%s' is not supported for current configuration", refused);
    if (*unknown_key)
        return fail(GENERAL_ERROR, "[NPUW] Unsupported configuration key: %s", unknown_key);
    /* NPUW_LLM turns a stateful model stateless: one without KV-cache states is not an LLM to it. The test
     * models that are bare "<net .../>" stubs stand for real exports and pass. */
    if (npuw_llm && model->xml) {
        FILE *mx = fopen(model->xml, "r");
        char buf[65536];
        size_t n = mx ? fread(buf, 1, sizeof buf - 1, mx) : 0;
        if (mx)
            fclose(mx);
        buf[n] = '\0';
        if (strstr(buf, "<layer") && !strstr(buf, "type=\"ReadValue\""))
            return fail(GENERAL_ERROR, "[NPUW] LLM: the model has no KV-cache states (ReadValue/Assign)");
    }
    /* NPU_COMPILER_TYPE: PLUGIN / PREFER_PLUGIN exist from 2026.0. Unset, a 2026.0 device compiles with the
     * driver's compiler, 2026.1+ with the plugin's (PREFER_PLUGIN), except 3720, which falls back to the driver;
     * with no device, PREFER_PLUGIN resolves to PLUGIN. */
    if (compiler_type && (((!strcmp(compiler_type, "PLUGIN") || !strcmp(compiler_type, "PREFER_PLUGIN")) &&
                           !fake_at_least(2026, 0)) ||
                          (!strcmp(compiler_type, "MLIR") && fake_at_least(2026, 0))))
        return fail(GENERAL_ERROR, "[NPU] Unsupported NPU_COMPILER_TYPE value: %s", compiler_type);
    if (!compiler_type)
        compiler_type = fake_at_least(2026, 1) || !npu_present() ? "PREFER_PLUGIN" : "DRIVER";
    compiler_type = resolve_type(compiler_type);
    if (!strncmp(device, "NPU", 3) && !strcmp(compiler_type, "DRIVER") && driver_compiler_error())
        return fail(GENERAL_ERROR, "%s", driver_compiler_error());
    /* The prefill attention default moved: STATIC in 2026.0, PYRAMID from 2026.1 (newer upstream tests). */
    if (!prefill_attn)
        prefill_attn = fake_at_least(2026, 1) ? "PYRAMID" : "STATIC";
    if (!generate_attn)
        generate_attn = "STATIC";
    int npu = !strncmp(device, "NPU", 3);
    if (npu && !npu_present() && !*platform)
        return fail(GENERAL_ERROR, "[NPU] No NPU device found and NPU_PLATFORM is not set");
    if (*platform && strcmp(platform, "NPU3720") && strcmp(platform, "NPU4000") && strcmp(platform, "NPU5010") &&
        strcmp(platform, "NPU5020"))
        return fail(GENERAL_ERROR, "[NPU] Unsupported NPU_PLATFORM value: %s", platform);
    /* With a device present, a blob for another platform cannot get an executor on it (inferred). */
    if (npu && npu_present() && *platform && strcmp(platform + 3, fake_arch()) && !no_executor)
        return fail(GENERAL_ERROR, "[NPU] NPU_PLATFORM %s does not match the device (%s) and an executor was asked for",
                    platform, fake_arch());
    char bad[128];
    if (mode && unknown_mode_key(mode, bad, sizeof bad))
        return fail(GENERAL_ERROR, "[NPU] failed to parse COMPILATION_MODE_PARAMS: unknown key %s", bad);
    compile_opts co = {.mode = mode ? mode : ""};
    co.replay = mode_flag(co.mode, "read-strategy-from-json");
    co.trace = mode_flag(co.mode, "enable-schedule-trace");
    co.strategy = mode_flag(co.mode, "write-strategy-to-json");
    co.task_stats = mode_flag(co.mode, "dump-task-stats");
    const char *inject = getenv("PASSMAP_FAKEOV_REPLAY"), *inject_us = inject ? strchr(inject, ':') : NULL;
    if (co.replay && inject_us)
        co.extra_latency_us = atoi(inject_us + 1);
    if (co.replay) {
        json_error_t je;
        json_t *in = json_load_file("strategy_in.json", 0, &je);
        int good = json_is_object(in);
        json_decref(in);
        if (!good)
            return fail(GENERAL_ERROR, "[NPU] cannot read strategy_in.json: %s", je.text);
    }
    ov_compiled_model_t *cm = calloc(1, sizeof *cm);
    if (!cm)
        return fail(GENERAL_ERROR, "out of memory");
    snprintf(cm->device, sizeof cm->device, "%s", device);
    snprintf(cm->compiler_type, sizeof cm->compiler_type, "%s", compiler_type);
    snprintf(cm->platform, sizeof cm->platform, "%s", platform);
    cm->window = window;
    cm->npuw = npu && npuw_llm;
    cm->weights_bytes = model->weights_bytes;
    cm->weightless = cm->npuw && strcmp(cache_mode, "OPTIMIZE_SPEED") != 0;

    if (npu) {
        clock_ms = 0;
        if (!npu_present())
            plugin_line("INFO", "NPU device isn't available, offline compilation only (platform %s)", platform);
        if (!cm->npuw) {
            subgraph_compile(NULL, 0, 128, 1.0, &co);
        } else {
            if (mode)
                plugin_line("WARNING", "NPU_COMPILATION_MODE_PARAMS set by the user replaces NPUW's default "
                                       "compute-layers-with-higher-precision");
            int prompt = align64(window), response = align64(min_response);
            int prefill = strcmp(prefill_hint, "STATIC") && prompt > 1024 ? 1024 : prompt;
            char name[128], num[32];
            /* create_generate_model_variants: 1024*2^k + MIN_RESPONSE_LEN below the KV size, then the KV size;
             * compiled first, then the prefill, then the LM head (the LLMCompiledModel constructor's order). */
            int total = prompt + response;
            for (long g = 1024; strcmp(pyramid, "NO") && g + response < total; g *= 2) {
                snprintf(name, sizeof name, "model_kv%ld", g + response);
                for (int f = 0; f < 2; f++)
                    subgraph_compile(name, f, (int)(g + response), (double)(g + response) / 1024.0, &co);
            }
            snprintf(name, sizeof name, "model_kv%d", total);
            for (int f = 0; f < 2; f++)
                subgraph_compile(name, f, total, total / 1024.0, &co);
            /* PYRAMID attention: one more prefill subgraph (its attention blocks), other work */
            for (int f = 0; f < (strcmp(prefill_attn, "PYRAMID") ? 2 : 3); f++)
                subgraph_compile("model_prefill", f, prefill, prefill / 128.0, &co);
            if (strcmp(shared_head, "NO"))
                subgraph_compile("model_lm_head", 0, 64, 0.5, &co);
            /* What was compiled, as the compiled model reports it (implement_properties). */
            /* rounded up to 64, to the chunk when the prefill is chunked */
            snprintf(num, sizeof num, "%d", strcmp(prefill_hint, "STATIC") && prompt > 1024 ? (window + 1023) / 1024 * 1024
                                                                                          : prompt);
            set_effective(cm, "MAX_PROMPT_LEN", num);
            snprintf(num, sizeof num, "%d", response);
            set_effective(cm, "MIN_RESPONSE_LEN", num);
            set_effective(cm, "PREFILL_HINT", prefill_hint);
            set_effective(cm, "PREFILL_CHUNK_SIZE", "1024");
            set_effective(cm, "GENERATE_PYRAMID", strcmp(pyramid, "NO") ? "YES" : "NO");
            set_effective(cm, "SHARED_HEAD", strcmp(shared_head, "NO") ? "YES" : "NO");
            if (fake_at_least(2026, 0)) {
                set_effective(cm, "PREFILL_ATTENTION_HINT", prefill_attn);
                set_effective(cm, "GENERATE_ATTENTION_HINT", generate_attn);
            }
            /* finalize_weights_bank(): the bank goes on the submodel's device unless NPUW_WEIGHTS_BANK_ALLOC
             * names another (weights_bank.cpp); with no device there is no context to allocate in. */
            if (!npu_present() && strcmp(bank_alloc, "CPU")) {
                free(cm);
                fflush(stdout);
                return fail(GENERAL_ERROR, "[NPUW] weights bank: no NPU device context to allocate in");
            }
        }
        fflush(stdout);
    }
    struct timespec ts = {0, 3 * 1000 * 1000}; /* compile takes some wall time */
    /* Injected noise for the adaptive-repeats test: PASSMAP_FAKEOV_NOISE=SUBSTRING:COUNTER_FILE makes compiles
     * of models whose path holds SUBSTRING take 50, 900, 100, 1200 ms in turn (the counter file keeps the turn
     * across processes) and every other compile a constant 300 ms. */
    const char *noise = getenv("PASSMAP_FAKEOV_NOISE");
    const char *colon = noise ? strchr(noise, ':') : NULL;
    if (colon) {
        static const long noisy_ms[] = {50, 900, 100, 1200};
        long ms = 300;
        if (model->xml && memmem(model->xml, strlen(model->xml), noise, (size_t)(colon - noise))) {
            int turn = 0;
            FILE *c = fopen(colon + 1, "r");
            if (c) {
                if (fscanf(c, "%d", &turn) != 1)
                    turn = 0;
                fclose(c);
            }
            if ((c = fopen(colon + 1, "w"))) {
                fprintf(c, "%d\n", turn + 1);
                fclose(c);
            }
            ms = noisy_ms[turn % 4];
        }
        ts = (struct timespec){ms / 1000, ms % 1000 * 1000000L};
    }
    if (inject) { /* the test injection described at the top: MS for a replaying compile, else 300 ms */
        long ms = co.replay ? atol(inject) : 300;
        ts = (struct timespec){ms / 1000, ms % 1000 * 1000000L};
    }
    nanosleep(&ts, NULL);
    *compiled = cm;
    return OK;
}

API void ov_compiled_model_free(ov_compiled_model_t *cm)
{
    if (cm)
        free(cm->imported);
    free(cm);
}

API ov_status_e ov_compiled_model_get_property(const ov_compiled_model_t *cm, const char *key, char **value)
{
    const char *v = NULL;
    int npu = !strncmp(cm->device, "NPU", 3);
    /* An NPUW compiled model does not answer the compiler type: the caller falls back to the core. */
    if (npu && !cm->npuw && !strcmp(key, "NPU_COMPILER_TYPE"))
        v = cm->compiler_type;
    else if (npu && !cm->npuw && !strcmp(key, "NPU_COMPILER_VERSION"))
        v = compiler_version_of(cm->compiler_type); /* an NPUW model does not answer it */
    else if (npu && !strcmp(key, "DEVICE_ARCHITECTURE") && cm->platform[0])
        v = !strncmp(cm->platform, "NPU", 3) ? cm->platform + 3 : cm->platform;
    else if (npu && !strcmp(key, "DEVICE_ARCHITECTURE"))
        v = fake_arch();
    else if (!strcmp(key, "COMPILATION_NUM_THREADS"))
        v = "8";
    for (int i = 0; !v && cm->npuw && !strncmp(key, "NPUW_LLM_", 9) && i < cm->n_effective; i++)
        if (!strcmp(key + 9, cm->effective[i][0]))
            v = cm->effective[i][1];
    if (!v)
        return fail(NOT_FOUND, "Unsupported property %s by CompiledModel", key);
    *value = strdup(v);
    return OK;
}

/* The keys the plugin lists (a 2026 plugin filters by what the selected compiler supports). */
static const char *const supported_keys[] = {
    "LOG_LEVEL", "CACHE_DIR", "CACHE_MODE", "NPU_BYPASS_UMD_CACHING", "NPU_PLATFORM", "NPU_COMPILER_TYPE",
    "NPU_COMPILER_VERSION", "NPU_DRIVER_VERSION", "DEVICE_ARCHITECTURE", "NPU_CREATE_EXECUTOR",
    "NPU_COMPILATION_MODE_PARAMS", "NPU_USE_NPUW", "NPUW_WEIGHTS_BANK_ALLOC", "NPUW_LLM", "NPUW_LLM_MAX_PROMPT_LEN",
    "NPUW_LLM_MIN_RESPONSE_LEN", "NPUW_LLM_BATCH_DIM", "NPUW_LLM_SEQ_LEN_DIM", "NPUW_LLM_PREFILL_HINT",
    "NPUW_LLM_GENERATE_PYRAMID", "NPUW_LLM_PREFILL_ATTENTION_HINT", "NPUW_LLM_GENERATE_ATTENTION_HINT",
    "NPUW_LLM_SHARED_HEAD", "NPUW_LLM_PREFILL_CHUNK_SIZE", "COMPILATION_NUM_THREADS", NULL};

/* ov_core_set_property(core, device, key, value): one pair, as the C API reads it. */
API ov_status_e ov_core_set_property(const ov_core_t *core, const char *device, ...)
{
    va_list ap;
    va_start(ap, device);
    const char *k = va_arg(ap, const char *), *v = va_arg(ap, const char *);
    va_end(ap);
    if (!core || !k || !v)
        return fail(INVALID_C_PARAM, "invalid argument");
    if (device && !strncmp(device, "NPU", 3) && !strcmp(k, "NPU_COMPILER_TYPE")) {
        if ((!strcmp(v, "MLIR") && fake_at_least(2026, 0)) ||
            (strcmp(v, "MLIR") && strcmp(v, "DRIVER") && strcmp(v, "PLUGIN") && strcmp(v, "PREFER_PLUGIN")))
            return fail(GENERAL_ERROR, "[NPU] Unsupported NPU_COMPILER_TYPE value: %s", v);
        snprintf(((ov_core_t *)core)->compiler_type, sizeof core->compiler_type, "%s", v);
    }
    return OK;
}

API ov_status_e ov_core_get_property(const ov_core_t *core, const char *device, const char *key, char **value)
{
    const char *v = NULL;
    char list[2048] = "";
    if (device && !strncmp(device, "NPU", 3)) {
        const char *type = core->compiler_type[0] ? core->compiler_type : "PREFER_PLUGIN";
        if (!strcmp(key, "NPU_COMPILER_TYPE"))
            v = type; /* the core's setting (by default the plugin's), not what a given compile used */
        else if (!strcmp(key, "NPU_COMPILER_VERSION")) {
            /* built with the core's type: with DRIVER, the driver's compiler must load */
            if (!strcmp(resolve_type(type), "DRIVER") && driver_compiler_error())
                return fail(GENERAL_ERROR, "%s", driver_compiler_error());
            v = compiler_version_of(resolve_type(type));
        } else if (!strcmp(key, "SUPPORTED_PROPERTIES")) {
            for (int i = 0; supported_keys[i]; i++)
                if (!refused_key(supported_keys[i]))
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? " " : "",
                             supported_keys[i]);
            v = list;
        }
        else if (npu_present() && !strcmp(key, "NPU_DRIVER_VERSION"))
            v = "1688";
        else if (npu_present() && !strcmp(key, "DEVICE_ARCHITECTURE"))
            v = fake_arch();
    }
    if (!v)
        return fail(NOT_FOUND, "Unsupported property %s", key);
    *value = strdup(v);
    return OK;
}

#define BLOB_MAGIC "FAKEOV-BLOB\n"

API ov_status_e ov_compiled_model_export_model(const ov_compiled_model_t *cm, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(GENERAL_ERROR, "cannot write %s", path);
    fprintf(f, "%sdevice=%s\nwindow=%d\nweightless=%d\n", BLOB_MAGIC, cm->device, cm->window, cm->weightless);
    for (int i = 0; i < 4096 + 16 * cm->window; i++) /* size grows with the window, like a real blob */
        fputc(i & 0xff, f);
    for (long long i = 0; !cm->weightless && i < cm->weights_bytes; i++) /* the weights travel along */
        fputc('w', f);
    fclose(f);
    return OK;
}

API ov_status_e ov_core_import_model(const ov_core_t *core, const char *content, const size_t size,
                                     const char *device, ov_compiled_model_t **compiled)
{
    if (getenv("PASSMAP_FAKEOV_CRASH_IMPORT")) /* as an out-of-memory kill while reading the weights back */
        abort();
    if (size < strlen(BLOB_MAGIC) || memcmp(content, BLOB_MAGIC, strlen(BLOB_MAGIC)))
        return fail(GENERAL_ERROR, "[NPU] blob is not a compiled model");
    if (!strcmp(device, "NOPE"))
        return fail(GENERAL_ERROR, "Device with \"NOPE\" name is not registered in the OpenVINO Runtime");
    if (!strncmp(device, "NPU", 3) && !npu_present())
        return fail(GENERAL_ERROR, "[NPU] No NPU device available to import on");
    if (memmem(content, size < 256 ? size : 256, "weightless=1\n", 13))
        return fail(GENERAL_ERROR, "There is no WEIGHTS_PATH set in properties but the blob was exported as "
                                   "weightless!");
    ov_compiled_model_t *cm = calloc(1, sizeof *cm);
    if (!cm)
        return fail(GENERAL_ERROR, "out of memory");
    snprintf(cm->device, sizeof cm->device, "%s", device);
    snprintf(cm->compiler_type, sizeof cm->compiler_type, "PLUGIN");
    if (getenv("PASSMAP_FAKEOV_IMPORT_RLIMIT_AS")) { /* what this process maps now, plus 1 MB */
        long vm_kb = 0;
        char line[256];
        FILE *st = fopen("/proc/self/status", "r");
        while (st && fgets(line, sizeof line, st))
            if (!strncmp(line, "VmSize:", 7))
                vm_kb = atol(line + 7);
        if (st)
            fclose(st);
        struct rlimit rl;
        if (getrlimit(RLIMIT_AS, &rl) == 0) {
            rl.rlim_cur = (rlim_t)(vm_kb + 1024) * 1024;
            setrlimit(RLIMIT_AS, &rl);
        }
    }
    /* The import reads the weights bank into memory: the blob's size, resident (touched). */
    if (!(cm->imported = malloc(size))) {
        free(cm);
        return fail(GENERAL_ERROR, "std::bad_alloc");
    }
    memcpy(cm->imported, content, size);
    if (getenv("PASSMAP_FAKEOV_KILL_IMPORT")) /* the OOM killer, with the copy resident */
        raise(SIGKILL);
    *compiled = cm;
    return OK;
}
