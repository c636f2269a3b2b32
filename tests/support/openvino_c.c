/* Stand-in libopenvino_c for tests: exports exactly the subset of the OpenVINO C API passmap uses, with the
 * real signatures (openvino/c/ov_core.h, ov_compiled_model.h, ov_common.h), and behaves like an NPU compile
 * in the formats documented in /work/shared/reference/npu-compiler.md (written from sources, not captured).
 *
 * What it does on ov_core_compile_model(core, model, device, nargs, &cm, key, value, ...):
 *  - records "nargs=N", "device=D", "cwd=PATH" and one "KEY=VALUE" line per pair into $PASSMAP_FAKEOV_PROPS_OUT;
 *  - fails (GENERAL_ERROR) for odd nargs, for device "NOPE", for unknown NPU_COMPILATION_MODE_PARAMS keys, and
 *    when read-strategy-from-json=true finds no readable ./strategy_in.json;
 *  - for NPU: prints an ANSI-coloured LOG_INFO log with one MLIR timing report (two with NPUW_LLM: prefill
 *    and generate), times scaled by NPUW_LLM_MAX_PROMPT_LEN/128, MultiClusterStrategyAssignment ten times
 *    cheaper when a strategy was read; peak memory, VCL timers, latency, IE op statistics;
 *  - writes ./compileTimeScheduleTrace.json and ./strategy_out.json when asked (cwd: the caller's workdir).
 * It does not validate real compiler behaviour. It links only libc and jansson (not libpassmap). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int unused;
} ov_core_t;
typedef struct ov_model {
    char *xml;
} ov_model_t;
typedef struct ov_compiled_model {
    char device[32];
    char compiler_type[32];
    int window;
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

API const char *ov_get_last_err_msg(void) { return last_err; }
API void ov_free(const char *content) { free((void *)content); }

API ov_status_e ov_get_openvino_version(ov_version_t *v)
{
    v->buildNumber = strdup("2025.4.0-standin");
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

API void ov_core_free(ov_core_t *core) { free(core); }

API ov_status_e ov_core_get_available_devices(const ov_core_t *core, ov_available_devices_t *d)
{
    const char *env = getenv("PASSMAP_FAKEOV_DEVICES");
    char *list = strdup(env ? env : "CPU,GPU,NPU"), *save = NULL;
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

static void print_report(const row *rows, int n, const char *interleave_after, const char *interleave)
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
        if (interleave_after && !strcmp(rows[i].name, interleave_after)) {
            fflush(stdout); /* the plugin's logger writes on its own: lines of both interleave */
            fputs(interleave, stdout);
        }
    }
    printf("  %8.4f (%5.1f%%)  %8.4f (%5.1f%%)  Total\n", total * 1.5, 100.0, total, 100.0);
}

static void compiler_report(double s, double mc, const char *interleave)
{
    double shape = 0.001 * s, vf = 0.004 * s, fa = 0.010 * s, elf = 0.003 * s, ngraph = 0.002;
    double func = shape + mc + vf + 0.0005;
    double ie2vpuip = func + fa + 0.0005, elfp = elf + 0.0005;
    row rows[] = {
        {0, "Import network", ngraph + 0.0005},
        {1, "Common nGraph passes", ngraph},
        {0, "Compile network", ie2vpuip + elfp},
        {1, "IE to VPUIP pipeline", ie2vpuip},
        {2, "'func.func' Pipeline", func},
        {3, "ConvertShapeTo4D", shape},
        {3, "MultiClusterStrategyAssignment", mc},
        {3, "MergeVfSubgraphs", vf},
        {2, "FeasibleAllocation", fa},
        {1, "ELF pipeline", elfp},
        {2, "ConvertVPUIP2VPUMI40XX", elf},
        {0, "Rest", 0.0001},
    };
    print_report(rows, (int)(sizeof rows / sizeof *rows), interleave ? "MultiClusterStrategyAssignment" : NULL,
                 interleave);
}

static const char *const known_mode_keys[] = {"enable-schedule-trace", "write-strategy-to-json",
                                              "read-strategy-from-json", "dump-task-stats", "optimization-level",
                                              "schedule-trace-file-name", NULL};

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

static void write_schedule_trace(int window)
{
    int extra = window / 64;
    struct { const char *cat; int n; double dur; } cats[] = {{"DMA", 6 + extra, 2.0}, {"DPU", 4 + extra, 5.0},
                                                             {"SW", 2, 3.0}, {"M2I", 0, 1.0}};
    json_t *events = json_array();
    json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:s}}", "name", "process_name", "ph", "M", "pid", 0,
                                            "args", "name", "DMA"));
    double ts = 0;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < cats[c].n; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s_task_%d", cats[c].cat, i);
            json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", name, "cat",
                                                    cats[c].cat, "ph", "X", "ts", ts, "dur", cats[c].dur, "pid",
                                                    c, "tid", 0));
            ts += 1.0;
        }
    json_t *root = json_pack("{s:o,s:{s:i,s:f},s:{s:i,s:s},s:s}", "traceEvents", events, "taskStatistics",
                             "total tasks count", 12 + 2 * extra, "total duration", ts + 5.0, "workpoint", "freq",
                             1850, "status", "SIM", "displayTimeUnit", "ns");
    json_dump_file(root, "compileTimeScheduleTrace.json", JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
}

static void write_strategy(int window)
{
    int h = window >= 1024 ? 8 : 4;
    json_t *root = json_pack(
        "{s:{s:s,s:s,s:{s:i,s:i,s:i,s:i},s:s,s:s},"
        " s:{s:s,s:s,s:s,s:s,s:s},"
        " s:{s:s,s:s,s:{s:i,s:i,s:i,s:i},s:s}}",
        "Conv?t_Convolution/_1", "layerType", "VPU.NCE.Convolution", "multiClusterStrategy", "SplitOverHeight",
        "tilingStrategy", "N", 1, "C", 1, "H", h, "W", 1, "verticalFusion", "True", "verticalFusionHash", "0x1111",
        "Conv?t_Convolution/_2", "layerType", "VPU.NCE.Convolution", "multiClusterStrategy", "SplitOverKernel",
        "tilingStrategy", "NONE", "verticalFusion", "True", "verticalFusionHash", "0x1111",
        "MatMul?t_MatMul/_3", "layerType", "VPU.NCE.MatMul", "multiClusterStrategy", "Clustering",
        "tilingStrategy", "N", 1, "C", 2, "H", 1, "W", 1, "verticalFusion", "False");
    json_dump_file(root, "strategy_out.json", JSON_INDENT(4) | JSON_PRESERVE_ORDER);
    json_decref(root);
}

API ov_status_e ov_core_compile_model(const ov_core_t *core, const ov_model_t *model, const char *device,
                                      const size_t property_args_size, ov_compiled_model_t **compiled, ...)
{
    if (!core || !model || !device || !compiled)
        return fail(INVALID_C_PARAM, "invalid argument");
    if (property_args_size % 2)
        return fail(INVALID_C_PARAM, "property_args_size %zu is odd", property_args_size);
    const char *mode = "", *compiler_type = "PLUGIN";
    int window = 0, npuw_llm = 0;
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
        if (!strcmp(k, "NPU_COMPILATION_MODE_PARAMS"))
            mode = v;
        else if (!strcmp(k, "NPUW_LLM_MAX_PROMPT_LEN"))
            window = atoi(v);
        else if (!strcmp(k, "NPUW_LLM"))
            npuw_llm = !strcmp(v, "YES");
        else if (!strcmp(k, "NPU_COMPILER_TYPE"))
            compiler_type = v;
    }
    va_end(ap);
    if (rec)
        fclose(rec);
    if (!strcmp(device, "NOPE"))
        return fail(GENERAL_ERROR, "Device with \"NOPE\" name is not registered in the OpenVINO Runtime");
    char bad[128];
    if (unknown_mode_key(mode, bad, sizeof bad))
        return fail(GENERAL_ERROR, "[NPU] Unknown compilation mode parameter: %s", bad);
    int reuse = mode_flag(mode, "read-strategy-from-json");
    if (reuse) {
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
    cm->window = window;

    if (!strncmp(device, "NPU", 3)) {
        double s = (window > 128 ? window : 128) / 128.0;
        double mc = (reuse ? 0.002 : 0.020) * s;
        printf("\033[1;32m[INFO]\033[0m 12:00:00.000 [NPUPlugin] Compiling model %s\n", model->xml);
        printf("[INFO] 12:00:00.010 [dump-statistics-of-ie-ops] IE dialect statistics:\n"
               "[INFO] 12:00:00.010 [dump-statistics-of-ie-ops]   IE.MatMul - 3 (60.00%%)\n"
               "[INFO] 12:00:00.010 [dump-statistics-of-ie-ops]   IE.Add - 2 (40.00%%)\n");
        if (mode_flag(mode, "dump-task-stats"))
            printf("[INFO] 12:00:00.020 [dump-statistics-of-task-ops] VPUIP tasks statistics:\n"
                   "[INFO] 12:00:00.020 [dump-statistics-of-task-ops]   VPUIP.NNDMA - 6 ops\n"
                   "[INFO] 12:00:00.020 [dump-statistics-of-task-ops]   VPUIP.NCEClusterTask - 4 ops\n");
        printf("[INFO] 12:00:00.100 [feasible-allocation] Feasible allocation started\n"
               "[INFO] 12:00:00.350 [feasible-allocation]   Scheduled 42 buffers\n");
        compiler_report(s, mc, "\033[1;32m[INFO]\033[0m 12:00:00.400 [NPUPlugin] Compiler finished, serializing\n");
        printf("Compilation memory usage: Peak %d KB\n", 100000 + 10 * window);
        printf("[INFO] 12:00:00.500 [VCL] Compile net time: %d ms\n", 40 + window / 16);
        printf("[INFO] 12:00:00.510 [VCL] getCompiledNetwork time: 3 ms\n");
        printf("Estimated inference latency: %dus\n", 1500 + window);
        if (npuw_llm) { /* NPUW_LLM compiles a second (generate) submodel with its own report */
            printf("\033[1;32m[INFO]\033[0m 12:00:00.600 [NPUW] Compiling generate submodel\n");
            compiler_report(s / 4, mc / 4, NULL);
            printf("Compilation memory usage: Peak %d KB\n", 50000 + 10 * window);
            printf("[INFO] 12:00:00.700 [VCL] Compile net time: %d ms\n", 10 + window / 64);
            printf("Estimated inference latency: %dus\n", 300 + window / 4);
        }
        fflush(stdout);
        if (mode_flag(mode, "enable-schedule-trace"))
            write_schedule_trace(window);
        if (mode_flag(mode, "write-strategy-to-json"))
            write_strategy(window);
    }
    struct timespec ts = {0, 3 * 1000 * 1000}; /* compile takes some wall time */
    nanosleep(&ts, NULL);
    *compiled = cm;
    return OK;
}

API void ov_compiled_model_free(ov_compiled_model_t *cm) { free(cm); }

API ov_status_e ov_compiled_model_get_property(const ov_compiled_model_t *cm, const char *key, char **value)
{
    const char *v = NULL;
    int npu = !strncmp(cm->device, "NPU", 3);
    if (npu && !strcmp(key, "NPU_COMPILER_TYPE"))
        v = cm->compiler_type;
    else if (npu && !strcmp(key, "NPU_COMPILER_VERSION"))
        v = "7.4.0-standin";
    else if (npu && !strcmp(key, "DEVICE_ARCHITECTURE"))
        v = "4000";
    else if (!strcmp(key, "COMPILATION_NUM_THREADS"))
        v = "8";
    if (!v)
        return fail(NOT_FOUND, "Unsupported property %s by CompiledModel", key);
    *value = strdup(v);
    return OK;
}

API ov_status_e ov_core_get_property(const ov_core_t *core, const char *device, const char *key, char **value)
{
    if (device && !strncmp(device, "NPU", 3) && !strcmp(key, "NPU_DRIVER_VERSION")) {
        *value = strdup("1.19.0-standin");
        return OK;
    }
    return fail(NOT_FOUND, "Unsupported property %s", key);
}

#define BLOB_MAGIC "FAKEOV-BLOB\n"

API ov_status_e ov_compiled_model_export_model(const ov_compiled_model_t *cm, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(GENERAL_ERROR, "cannot write %s", path);
    fprintf(f, "%sdevice=%s\nwindow=%d\n", BLOB_MAGIC, cm->device, cm->window);
    for (int i = 0; i < 4096 + 16 * cm->window; i++) /* size grows with the window, like a real blob */
        fputc(i & 0xff, f);
    fclose(f);
    return OK;
}

API ov_status_e ov_core_import_model(const ov_core_t *core, const char *content, const size_t size,
                                     const char *device, ov_compiled_model_t **compiled)
{
    if (size < strlen(BLOB_MAGIC) || memcmp(content, BLOB_MAGIC, strlen(BLOB_MAGIC)))
        return fail(GENERAL_ERROR, "[NPU] blob is not a compiled model");
    if (!strcmp(device, "NOPE"))
        return fail(GENERAL_ERROR, "Device with \"NOPE\" name is not registered in the OpenVINO Runtime");
    ov_compiled_model_t *cm = calloc(1, sizeof *cm);
    if (!cm)
        return fail(GENERAL_ERROR, "out of memory");
    snprintf(cm->device, sizeof cm->device, "%s", device);
    snprintf(cm->compiler_type, sizeof cm->compiler_type, "PLUGIN");
    *compiled = cm;
    return OK;
}
