/* OpenVINO back end: dlopen libopenvino_c, compile one IR cold, export, time the import; strategy cache. */
#include "ov.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- the used subset of the OpenVINO C API, declared here so passmap builds without its headers ---------
 * From openvino/c/ov_common.h (ov_status_e: OK = 0, errors negative; ov_free), ov_core.h (ov_version_t,
 * ov_available_devices_t, ov_core_*), ov_compiled_model.h and ov_model.h; OpenVINO 2023.0 .. 2026.
 * ov_get_last_err_msg exists from 2024.x only: it is optional here, as are the device/property queries. */
typedef struct ov_core ov_core_t;
typedef struct ov_model ov_model_t;
typedef struct ov_compiled_model ov_compiled_model_t;
typedef int ov_status_e; /* a C enum: int-sized */
typedef struct ov_version {
    const char *buildNumber;
    const char *description;
} ov_version_t;
typedef struct {
    char **devices;
    size_t size;
} ov_available_devices_t;

typedef struct ov_api {
    void *handle;
    ov_status_e (*core_create)(ov_core_t **core);
    void (*core_free)(ov_core_t *core);
    ov_status_e (*core_read_model)(const ov_core_t *core, const char *xml, const char *bin, ov_model_t **model);
    void (*model_free)(ov_model_t *model);
    ov_status_e (*core_compile_model)(const ov_core_t *core, const ov_model_t *model, const char *device,
                                      const size_t property_args_size, ov_compiled_model_t **compiled, ...);
    ov_status_e (*export_model)(const ov_compiled_model_t *compiled, const char *path);
    ov_status_e (*core_import_model)(const ov_core_t *core, const char *content, const size_t size,
                                     const char *device, ov_compiled_model_t **compiled);
    ov_status_e (*compiled_get_property)(const ov_compiled_model_t *compiled, const char *key, char **value);
    void (*compiled_free)(ov_compiled_model_t *compiled);
    ov_status_e (*get_version)(ov_version_t *version);
    void (*version_free)(ov_version_t *version);
    void (*free_str)(const char *content);
    /* optional */
    const char *(*last_err_msg)(void);
    const char *(*error_info)(ov_status_e status);
    ov_status_e (*core_get_property)(const ov_core_t *core, const char *device, const char *key, char **value);
    ov_status_e (*core_set_property)(const ov_core_t *core, const char *device, ...);   /* one key/value pair */
    ov_status_e (*core_get_devices)(const ov_core_t *core, ov_available_devices_t *devices);
    void (*devices_free)(ov_available_devices_t *devices);
} ov_api;

static const char *const status_names[] = {
    "OK", "GENERAL_ERROR", "NOT_IMPLEMENTED", "NETWORK_NOT_LOADED", "PARAMETER_MISMATCH", "NOT_FOUND",
    "OUT_OF_BOUNDS", "UNEXPECTED", "REQUEST_BUSY", "RESULT_NOT_READY", "NOT_ALLOCATED", "INFER_NOT_STARTED",
    "NETWORK_NOT_READ", "INFER_CANCELLED", "INVALID_C_PARAM", "UNKNOWN_C_ERROR", "NOT_IMPLEMENT_C_METHOD",
    "UNKNOW_EXCEPTION"};

/* ov_get_last_err_msg() returns a heap copy the caller frees with ov_free (ov_core.cpp); ov_get_error_info()
 * a static string. */
static int ov_fail(const ov_api *api, pm_err *err, ov_status_e st, const char *what)
{
    const char *name = (st <= 0 && -st < (int)(sizeof status_names / sizeof *status_names)) ? status_names[-st]
                                                                                            : "?";
    const char *heap = api->last_err_msg ? api->last_err_msg() : NULL, *msg = heap;
    if ((!msg || !*msg) && api->error_info)
        msg = api->error_info(st);
    int rc = pm_err_set(err, PM_ERR_CHILD, "%s failed (status %d %s)%s%s", what, st, name, msg && *msg ? ": " : "",
                        msg && *msg ? msg : "");
    if (heap)
        api->free_str(heap);
    return rc;
}

static void *sym(void *h, const char *name)
{
    return dlsym(h, name);
}

/* ISO C has no cast from void * to a function pointer; copying the bytes is what POSIX dlsym implies. */
#define LOAD(field, name, required)                                                        \
    do {                                                                                   \
        void *p_ = sym(api->handle, name);                                                 \
        if (!p_ && (required))                                                             \
            return pm_err_set(err, PM_ERR_NOTFOUND, "%s lacks symbol %s (OpenVINO too old?)", \
                              path, name);                                                 \
        memcpy(&api->field, &p_, sizeof p_);                                               \
    } while (0)

static int try_open(ov_api *api, const char *name, char *used, size_t used_size)
{
    /* Never unloaded (no dlclose anywhere): oneTBB, the NPU driver and the compiler library keep threads. */
    api->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (api->handle)
        snprintf(used, used_size, "%s", name);
    return api->handle != NULL;
}

static int load_api(ov_api *api, const char *lib, char *used, size_t used_size, pm_err *err)
{
    memset(api, 0, sizeof *api);
    const char *explicit_lib = lib && *lib ? lib : getenv("PASSMAP_OPENVINO_LIB");
    if (explicit_lib && *explicit_lib) {
        if (!try_open(api, explicit_lib, used, used_size))
            return pm_err_set(err, PM_ERR_NOTFOUND,
                              "libopenvino_c.so not found: %s (install OpenVINO or set PASSMAP_OPENVINO_LIB)",
                              dlerror());
    } else if (!try_open(api, "libopenvino_c.so", used, used_size)) {
        /* Archives and wheels ship only versioned names (libopenvino_c.so.2025.1.0, .so.2510). */
        static const char *const patterns[] = {
            "/usr/lib/x86_64-linux-gnu/libopenvino_c.so.*", "/usr/lib/libopenvino_c.so.*",
            "/usr/local/lib/libopenvino_c.so.*", "/opt/intel/openvino*/runtime/lib/intel64/libopenvino_c.so*",
            NULL};
        char env_pat[600] = "";
        const char *ovdir = getenv("INTEL_OPENVINO_DIR");
        if (ovdir && *ovdir)
            snprintf(env_pat, sizeof env_pat, "%s/runtime/lib/intel64/libopenvino_c.so*", ovdir);
        for (int i = *env_pat ? -1 : 0; patterns[i < 0 ? 0 : i] && !api->handle; i++) {
            glob_t g;
            if (glob(i < 0 ? env_pat : patterns[i], 0, NULL, &g) == 0) {
                for (size_t k = g.gl_pathc; k-- > 0 && !api->handle;) /* highest version sorts last */
                    try_open(api, g.gl_pathv[k], used, used_size);
            }
            globfree(&g);
        }
        if (!api->handle)
            return pm_err_set(err, PM_ERR_NOTFOUND,
                              "libopenvino_c.so not found (install OpenVINO or set PASSMAP_OPENVINO_LIB)");
    }
    const char *path = used;
    LOAD(core_create, "ov_core_create", 1);
    LOAD(core_free, "ov_core_free", 1);
    LOAD(core_read_model, "ov_core_read_model", 1);
    LOAD(model_free, "ov_model_free", 1);
    LOAD(core_compile_model, "ov_core_compile_model", 1);
    LOAD(export_model, "ov_compiled_model_export_model", 1);
    LOAD(core_import_model, "ov_core_import_model", 1);
    LOAD(compiled_get_property, "ov_compiled_model_get_property", 1);
    LOAD(compiled_free, "ov_compiled_model_free", 1);
    LOAD(get_version, "ov_get_openvino_version", 1);
    LOAD(version_free, "ov_version_free", 1);
    LOAD(free_str, "ov_free", 1);
    LOAD(last_err_msg, "ov_get_last_err_msg", 0);
    LOAD(error_info, "ov_get_error_info", 0);
    LOAD(core_get_property, "ov_core_get_property", 0);
    LOAD(core_set_property, "ov_core_set_property", 0);
    LOAD(core_get_devices, "ov_core_get_available_devices", 0);
    LOAD(devices_free, "ov_available_devices_free", 0);
    return PM_OK;
}

/* ---- properties ----------------------------------------------------------------------------------------- */

void pm_ov_props_free(pm_ov_props *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->items[i].key);
        free(p->items[i].value);
    }
    p->n = 0;
}

void pm_ov_result_free(pm_ov_result *r)
{
    pm_ov_props_free(&r->props);
    pm_ov_props_free(&r->effective);
}

static int props_set(pm_ov_props *p, const char *key, size_t key_len, const char *value, pm_err *err)
{
    for (int i = 0; i < p->n; i++)
        if (strlen(p->items[i].key) == key_len && !strncmp(p->items[i].key, key, key_len)) {
            char *v = strdup(value);
            if (!v)
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            free(p->items[i].value);
            p->items[i].value = v;
            return PM_OK;
        }
    if (p->n == PM_OV_MAX_PROPS)
        return pm_err_set(err, PM_ERR_USAGE, "more than %d properties", PM_OV_MAX_PROPS);
    char *k = strndup(key, key_len), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    p->items[p->n].key = k;
    p->items[p->n].value = v;
    p->n++;
    return PM_OK;
}

static int is_npu(const char *device)
{
    return !strncmp(device, "NPU", 3);
}

static int append_word(char *buf, size_t size, const char *word)
{
    size_t n = strlen(buf);
    int w = snprintf(buf + n, size - n, "%s%s", n ? " " : "", word);
    return w < 0 || (size_t)w >= size - n ? PM_ERR_USAGE : PM_OK;
}

int pm_ov_instrumented(const pm_ov_opts *o)
{
    return o->schedule_trace || o->strategy_out || o->task_stats || o->strategy_in;
}

static int has_extra(const pm_ov_opts *o, const char *key)
{
    size_t n = strlen(key);
    for (const char *const *e = o->extra; e && *e; e++)
        if (!strncmp(*e, key, n) && (*e)[n] == '=')
            return 1;
    return 0;
}

/* "NPU4000" -> "4000"; NULL stays NULL. */
static const char *arch_of_platform(const char *platform)
{
    if (!platform || !*platform)
        return NULL;
    return !strncmp(platform, "NPU", 3) ? platform + 3 : platform;
}

int pm_ov_build_props(const pm_ov_opts *o, const char *arch, int offline, pm_ov_props *out, pm_err *err)
{
    int rc;
    const char *device = o->device ? o->device : "NPU";
    char mode[1024] = "", user_mode[1024] = "", num[32];
    memset(out, 0, sizeof *out);
    if (!arch)
        arch = arch_of_platform(o->platform);
    int npuw = is_npu(device) && o->window > 0;
    if ((rc = props_set(out, "LOG_LEVEL", 9, o->log_level ? o->log_level : "LOG_INFO", err)))
        goto fail;
    if (is_npu(device)) {
        if ((rc = props_set(out, "NPU_BYPASS_UMD_CACHING", 22, "YES", err)))
            goto fail;
        if (o->platform && *o->platform && (rc = props_set(out, "NPU_PLATFORM", 12, o->platform, err)))
            goto fail;
        /* Pinned: which compiler a stock run uses otherwise depends on the 2026.x minor and the SKU. Offline,
         * what upstream's own offline tests pass: the compiler inside the plugin, no executor to create. */
        if (!has_extra(o, "NPU_COMPILER_TYPE") &&
            (rc = props_set(out, "NPU_COMPILER_TYPE", 17,
                            o->compiler_type && *o->compiler_type ? o->compiler_type : offline ? "PLUGIN" : "DRIVER",
                            err)))
            goto fail;
        if (offline && !has_extra(o, "NPU_CREATE_EXECUTOR") && (rc = props_set(out, "NPU_CREATE_EXECUTOR", 19, "0", err)))
            goto fail;
        /* Offline NPUW ends with finalize_weights_bank(), which allocates the bank on the submodel's device
         * unless told otherwise (weights_bank.cpp): with no device, keep it on the host. */
        if (offline && npuw && !has_extra(o, "NPUW_WEIGHTS_BANK_ALLOC") &&
            (rc = props_set(out, "NPUW_WEIGHTS_BANK_ALLOC", 23, "CPU", err)))
            goto fail;
        if (npuw) {
            snprintf(num, sizeof num, "%d", o->window);
            if ((rc = props_set(out, "NPU_USE_NPUW", 12, "YES", err)) ||
                (rc = props_set(out, "NPUW_LLM", 8, "YES", err)) ||
                (rc = props_set(out, "NPUW_LLM_MAX_PROMPT_LEN", 23, num, err)))
                goto fail;
            snprintf(num, sizeof num, "%d", o->min_response_len > 0 ? o->min_response_len : PM_OV_MIN_RESPONSE_LEN);
            /* GenAI sets these three; a plain compile_model must set them itself. */
            if ((rc = props_set(out, "NPUW_LLM_MIN_RESPONSE_LEN", 25, num, err)) ||
                (rc = props_set(out, "NPUW_LLM_BATCH_DIM", 18, "0", err)) ||
                (rc = props_set(out, "NPUW_LLM_SEQ_LEN_DIM", 20, "2", err)))
                goto fail;
            if (o->prefill_hint && *o->prefill_hint &&
                (rc = props_set(out, "NPUW_LLM_PREFILL_HINT", 21, o->prefill_hint, err)))
                goto fail;
            if (o->generate_pyramid && *o->generate_pyramid &&
                (rc = props_set(out, "NPUW_LLM_GENERATE_PYRAMID", 25, o->generate_pyramid, err)))
                goto fail;
            if (o->pin_npuw_attention &&
                ((rc = props_set(out, "NPUW_LLM_PREFILL_ATTENTION_HINT", 31,
                                 o->prefill_attention_hint ? o->prefill_attention_hint : PM_OV_PREFILL_ATTENTION_HINT,
                                 err)) ||
                 (rc = props_set(out, "NPUW_LLM_GENERATE_ATTENTION_HINT", 32,
                                 o->generate_attention_hint ? o->generate_attention_hint
                                                            : PM_OV_GENERATE_ATTENTION_HINT,
                                 err)) ||
                 (rc = props_set(out, "NPUW_LLM_SHARED_HEAD", 20, o->shared_head ? o->shared_head : PM_OV_SHARED_HEAD,
                                 err))))
                goto fail;
            /* NPUW exports weightless unless told otherwise, and a weightless blob cannot be imported through
             * the C API (no WEIGHTS_PATH): ask for the weights whenever the blob is exported. */
            const char *cm = o->cache_mode && *o->cache_mode ? o->cache_mode
                             : (o->do_import || o->export_path) ? "OPTIMIZE_SPEED" : NULL;
            if (cm && (rc = props_set(out, "CACHE_MODE", 10, cm, err)))
                goto fail;
        } else if (o->cache_mode && *o->cache_mode && (rc = props_set(out, "CACHE_MODE", 10, o->cache_mode, err))) {
            goto fail;
        }
    }
    for (const char *const *e = o->extra; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e) {
            rc = pm_err_set(err, PM_ERR_USAGE, "property '%s' is not KEY=VALUE", *e);
            goto fail;
        }
        if (!strncmp(*e, "NPU_COMPILATION_MODE_PARAMS=", 28)) {
            if (append_word(user_mode, sizeof user_mode, eq + 1))
                goto too_long;
            continue;
        }
        if ((rc = props_set(out, *e, (size_t)(eq - *e), eq + 1, err)))
            goto fail;
    }
    /* Under NPUW a user value replaces NPUW's default precision/optimisation params: an instrumented run
     * keeps them in front, so it compiles the same pipeline as a stock one plus the switches. NPUW adds its
     * arch defaults (optimization-level=3 on 4000) only when a device is present: never offline. */
    if (npuw && pm_ov_instrumented(o) && !strstr(user_mode, "compute-layers-with-higher-precision")) {
        if (append_word(mode, sizeof mode, PM_OV_NPUW_DEFAULT_MODE) ||
            (!offline && arch && !strcmp(arch, "4000") && !strstr(user_mode, "optimization-level") &&
             append_word(mode, sizeof mode, PM_OV_NPUW_DEFAULT_MODE_4000)))
            goto too_long;
    }
    if ((*user_mode && append_word(mode, sizeof mode, user_mode)) ||
        (o->schedule_trace && append_word(mode, sizeof mode, "enable-schedule-trace=true")) ||
        (o->strategy_out && append_word(mode, sizeof mode, "write-strategy-to-json=true")) ||
        (o->task_stats && append_word(mode, sizeof mode, "dump-task-stats=true")) ||
        (o->strategy_in && append_word(mode, sizeof mode, "read-strategy-from-json=true")))
        goto too_long;
    if (*mode && (rc = props_set(out, "NPU_COMPILATION_MODE_PARAMS", 27, mode, err)))
        goto fail;
    return PM_OK;
too_long:
    rc = pm_err_set(err, PM_ERR_USAGE, "NPU_COMPILATION_MODE_PARAMS longer than %zu bytes", sizeof mode - 1);
fail:
    pm_ov_props_free(out);
    return rc;
}

void pm_ov_decode_compiler_version(const char *packed, char *out, size_t size)
{
    char *end;
    errno = 0;
    unsigned long long v = packed && *packed ? strtoull(packed, &end, 10) : 0;
    if (!packed || !*packed || *end || errno || v > 0xffffffffULL) {
        snprintf(out, size, "%s", "");
        return;
    }
    snprintf(out, size, "%llu.%llu", v >> 16, v & 0xffff);
}

const char *const pm_ov_npuw_effective_keys[] = {
    "NPUW_LLM_MAX_PROMPT_LEN", "NPUW_LLM_MIN_RESPONSE_LEN", "NPUW_LLM_PREFILL_HINT", "NPUW_LLM_PREFILL_CHUNK_SIZE",
    "NPUW_LLM_PREFILL_ATTENTION_HINT", "NPUW_LLM_GENERATE_ATTENTION_HINT", "NPUW_LLM_GENERATE_PYRAMID",
    "NPUW_LLM_SHARED_HEAD", NULL};

const char *const pm_ov_sent_keys[] = {
    "LOG_LEVEL", "NPU_BYPASS_UMD_CACHING", "NPU_PLATFORM", "NPU_COMPILER_TYPE", "NPU_CREATE_EXECUTOR",
    "NPU_COMPILATION_MODE_PARAMS", "CACHE_MODE", "NPU_USE_NPUW", "NPUW_WEIGHTS_BANK_ALLOC", "NPUW_LLM",
    "NPUW_LLM_MAX_PROMPT_LEN", "NPUW_LLM_MIN_RESPONSE_LEN", "NPUW_LLM_BATCH_DIM", "NPUW_LLM_SEQ_LEN_DIM",
    "NPUW_LLM_PREFILL_HINT", "NPUW_LLM_GENERATE_PYRAMID", "NPUW_LLM_PREFILL_ATTENTION_HINT",
    "NPUW_LLM_GENERATE_ATTENTION_HINT", "NPUW_LLM_SHARED_HEAD", NULL};

int pm_ov_refused_property(const char *msg, char *out, size_t size)
{
    static const struct { const char *lead; char end; } forms[] = {
        {"Option '", '\''}, {"Unsupported configuration key: ", ' '}};
    if (size)
        out[0] = '\0';
    for (size_t i = 0; msg && i < sizeof forms / sizeof *forms; i++) {
        const char *p = strstr(msg, forms[i].lead);
        if (!p)
            continue;
        p += strlen(forms[i].lead);
        size_t n = forms[i].end == ' ' ? strcspn(p, " \t\n\r,;'\"") : strcspn(p, "'\n");
        if (n == 0 || (forms[i].end != ' ' && p[n] != '\''))
            continue;
        snprintf(out, size, "%.*s", (int)n, p);
        return 1;
    }
    return 0;
}

int pm_ov_compiler_type_check(const char *type, const char *ov_version, pm_err *err)
{
    int year = ov_version && *ov_version ? atoi(ov_version) : 0;
    int is2026 = year >= 2026, known = year > 0;
    if (!strcmp(type, "DRIVER"))
        return PM_OK;
    if (!strcmp(type, "MLIR"))
        return known && is2026 ? pm_err_set(err, PM_ERR_USAGE,
                                            "NPU_COMPILER_TYPE MLIR does not exist in OpenVINO %s (2026 has PLUGIN, "
                                            "DRIVER, PREFER_PLUGIN): pick one of those", ov_version)
                               : PM_OK;
    if (!strcmp(type, "PLUGIN") || !strcmp(type, "PREFER_PLUGIN"))
        return known && !is2026 ? pm_err_set(err, PM_ERR_USAGE,
                                             "NPU_COMPILER_TYPE %s needs OpenVINO >= 2026.0 (this is %s: MLIR or "
                                             "DRIVER)", type, ov_version)
                                : PM_OK;
    return pm_err_set(err, PM_ERR_USAGE, "NPU_COMPILER_TYPE '%s' is not one of %s", type, PM_OV_COMPILER_TYPES);
}

int pm_ov_npuw_generate_variants(int max_prompt, int min_response, int pyramid)
{
    int align = 64, total = (max_prompt + align - 1) / align * align + (min_response + align - 1) / align * align;
    int n = 1;   /* the KV size itself */
    for (long long g = 1024; pyramid && g + min_response < total; g *= 2)
        n++;
    return n;
}

int pm_ov_infer_split(const double *totals, int n, int generate_variants, int shared_head, pm_ov_split *out,
                      char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    int head = shared_head ? 1 : 0, models = generate_variants + 1, rest = n - head;
    if (generate_variants < 1 || rest < models || rest % models) {
        snprintf(why, why_size, "%d timing block(s) do not split evenly over %d generate model(s) and the prefill%s",
                 n, generate_variants, head ? " after the LM head's one" : "");
        return PM_ERR_PARSE;
    }
    int per = rest / models;
    for (int i = 0; i < n; i++) {
        int k = i >= rest ? 2 : i >= generate_variants * per ? 1 : 0;
        out->blocks[k]++;
        out->total_s[k] += totals[i] > 0 ? totals[i] : 0;
    }
    return PM_OK;
}

const char *pm_ov_npuw_value(const pm_ov_result *r, const char *key, int *effective)
{
    for (int pass = 0; pass < 2; pass++) {
        const pm_ov_props *p = pass ? &r->props : &r->effective;
        for (int i = 0; i < p->n; i++)
            if (!strcmp(p->items[i].key, key)) {
                if (effective)
                    *effective = !pass;
                return p->items[i].value;
            }
    }
    return NULL;
}

int pm_ov_block_totals(const pm_report *rep, double **totals, int *n, pm_err *err)
{
    *totals = NULL;
    *n = rep->n_reports;
    if (*n <= 0)
        return PM_OK;
    double *sum = calloc((size_t)*n, sizeof *sum), *total = calloc((size_t)*n, sizeof *total);
    if (!sum || !total) {
        free(sum);
        free(total);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < *n; i++)
        total[i] = -1;
    for (size_t i = 0; i < rep->n_passes; i++) {
        const pm_pass *p = &rep->passes[i];
        if (p->parent >= 0 || p->report_index < 0 || p->report_index >= *n || p->wall_s < 0)
            continue;
        if (!strcmp(p->name, "Total"))
            total[p->report_index] = p->wall_s;
        else if (!(p->flags & PM_PASS_SUMMARY) || !strcmp(p->name, "Rest"))
            sum[p->report_index] += p->wall_s;
    }
    for (int i = 0; i < *n; i++)
        if (total[i] < 0)
            total[i] = sum[i];
    free(sum);
    *totals = total;
    return PM_OK;
}

static int yes(const char *v)
{
    return v && (!strcasecmp(v, "YES") || !strcasecmp(v, "true") || !strcmp(v, "1"));
}

int pm_ov_infer_report(const pm_report *rep, const pm_ov_result *r, pm_ov_split *out, char *why, size_t why_size)
{
    const char *prompt = pm_ov_npuw_value(r, "NPUW_LLM_MAX_PROMPT_LEN", NULL),
               *resp = pm_ov_npuw_value(r, "NPUW_LLM_MIN_RESPONSE_LEN", NULL),
               *pyr = pm_ov_npuw_value(r, "NPUW_LLM_GENERATE_PYRAMID", NULL),
               *head = pm_ov_npuw_value(r, "NPUW_LLM_SHARED_HEAD", NULL);
    memset(out, 0, sizeof *out);
    if (!prompt || !pyr || !head) {
        snprintf(why, why_size, "the generate pyramid and the shared head were neither pinned nor read back");
        return PM_ERR_NOTFOUND;
    }
    double *totals;
    int n;
    pm_err err;
    if (pm_ov_block_totals(rep, &totals, &n, &err)) {
        snprintf(why, why_size, "%s", err.msg);
        return PM_ERR_NOMEM;
    }
    int variants = pm_ov_npuw_generate_variants(atoi(prompt), resp ? atoi(resp) : PM_OV_MIN_RESPONSE_LEN, yes(pyr));
    int rc = n > 0 ? pm_ov_infer_split(totals, n, variants, yes(head), out, why, why_size) : PM_ERR_NOTFOUND;
    if (n <= 0)
        snprintf(why, why_size, "no timing block");
    free(totals);
    return rc;
}

long long pm_ov_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (long long)pages * page : -1;
}

/* ---- compile ---------------------------------------------------------------------------------------------- */

static int copy_file(const char *from, const char *to, pm_err *err)
{
    char *data = NULL;
    size_t size = 0;
    int rc = pm_util_read_file(from, &data, &size, err);
    if (rc)
        return rc;
    FILE *f = fopen(to, "wb");
    if (!f) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot create %s", to);
    } else {
        if (fwrite(data, 1, size, f) != size)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", to);
        if (fclose(f) != 0 && !rc)
            rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", to);
    }
    free(data);
    return rc;
}

/* Virtual devices (AUTO, HETERO:..., MULTI:...) are resolved by OpenVINO itself: not checked here (*present
 * = 1). Otherwise *present says whether OpenVINO lists the device; list gets the whole list. */
static int check_device(const ov_api *api, ov_core_t *core, const char *device, int *present, char *list,
                        size_t list_size, pm_err *err)
{
    *present = 1;
    if (list_size)
        list[0] = '\0';
    if (!api->core_get_devices || strchr(device, ':') || !strcmp(device, "AUTO") || !strncmp(device, "MULTI", 5) ||
        !strncmp(device, "HETERO", 6) || !strncmp(device, "BATCH", 5))
        return PM_OK;
    ov_available_devices_t devs = {0};
    ov_status_e st = api->core_get_devices(core, &devs);
    if (st != 0)
        return ov_fail(api, err, st, "ov_core_get_available_devices");
    int found = 0;
    size_t dlen = strlen(device);
    for (size_t i = 0; i < devs.size; i++) {
        const char *d = devs.devices[i];
        if (!strcmp(d, device) || (!strchr(device, '.') && !strncmp(d, device, dlen) && d[dlen] == '.'))
            found = 1;
        size_t n = strlen(list);
        if (list_size > n)
            snprintf(list + n, list_size - n, "%s%s", n ? ", " : "", d);
    }
    if (api->devices_free)
        api->devices_free(&devs);
    *present = found;
    return PM_OK;
}

/* A failed query leaves a message behind: not ours to keep. */
static void drop_last_err(const ov_api *api)
{
    if (api->last_err_msg) {
        const char *m = api->last_err_msg();
        if (m)
            api->free_str(m);
    }
}

/* From the compiled model, else from the core (then it is the plugin's default, not necessarily what this
 * compile used: NPUW compiled models may not answer). Returns "compiled", "core" or "". */
static const char *read_prop(const ov_api *api, ov_core_t *core, ov_compiled_model_t *cm, const char *device,
                             const char *key, char *out, size_t size)
{
    char *v = NULL;
    const char *source = "compiled";
    if (!cm || api->compiled_get_property(cm, key, &v) != 0 || !v) {
        v = NULL;
        source = "core";
        if (api->core_get_property && (api->core_get_property(core, device, key, &v) != 0 || !v))
            v = NULL;
        drop_last_err(api);
    }
    if (!v)
        return "";
    snprintf(out, size, "%s", v);
    api->free_str(v);
    return source;
}

/* The version of the compiler this compile used: the compiled model's answer, else the core's after setting
 * NPU_COMPILER_TYPE = type on it (the core builds its answer with its own type, by default the plugin's, which
 * may be another compiler than the one that ran), else the core's default type's, said so in the source. */
static void read_compiler_version(const ov_api *api, ov_core_t *core, ov_compiled_model_t *cm, const char *device,
                                  const char *type, pm_ov_result *r)
{
    char *v = NULL;
    if (cm && api->compiled_get_property(cm, "NPU_COMPILER_VERSION", &v) == 0 && v) {
        snprintf(r->compiler_version, sizeof r->compiler_version, "%s", v);
        api->free_str(v);
        snprintf(r->compiler_version_source, sizeof r->compiler_version_source, "compiled model");
        return;
    }
    drop_last_err(api);
    /* The type stays set on the core: the blob's import below then goes through the compiler that built it,
     * not the core's default one. */
    int set = type && *type && api->core_set_property &&
              api->core_set_property(core, device, "NPU_COMPILER_TYPE", type) == 0;
    if (!set)
        drop_last_err(api);
    char core_type[32] = "";
    if (!set)
        read_prop(api, core, NULL, device, "NPU_COMPILER_TYPE", core_type, sizeof core_type);
    if (!*read_prop(api, core, NULL, device, "NPU_COMPILER_VERSION", r->compiler_version, sizeof r->compiler_version))
        return;
    if (set)
        snprintf(r->compiler_version_source, sizeof r->compiler_version_source, "core with NPU_COMPILER_TYPE=%s",
                 type);
    else
        snprintf(r->compiler_version_source, sizeof r->compiler_version_source,
                 "core default type %s (maybe not the compiler that ran)", *core_type ? core_type : "?");
}

/* NPUW binds its effective NPUW_LLM_* values to the compiled model (implement_properties): what was compiled
 * after its rounding and defaults, not what was sent. Keys it does not answer are left out. */
static int read_effective(const ov_api *api, ov_compiled_model_t *cm, pm_ov_props *out, pm_err *err)
{
    for (const char *const *k = pm_ov_npuw_effective_keys; *k; k++) {
        char *v = NULL;
        if (api->compiled_get_property(cm, *k, &v) != 0 || !v) {
            drop_last_err(api);
            continue;
        }
        int rc = props_set(out, *k, strlen(*k), v, err);
        api->free_str(v);
        if (rc)
            return rc;
    }
    return PM_OK;
}

static long long file_bytes(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
}

/* This process's CPU seconds and peak RSS so far (ru_maxrss only grows: a later phase's peak includes the
 * earlier ones'). */
static void usage_now(double *user_s, double *sys_s, long *maxrss_kb)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        *user_s = *sys_s = -1;
        *maxrss_kb = 0;
        return;
    }
    *user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    *sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    *maxrss_kb = ru.ru_maxrss;
}

static void finish(const pm_ov_opts *o, pm_ov_result *r, int rc, const pm_err *err, int *reported)
{
    if (o->on_result && !*reported) {
        *reported = 1;
        o->on_result(r, rc, rc == PM_OK ? NULL : err->msg, o->on_result_ctx);
    }
}

int pm_ov_compile(const pm_ov_opts *o, pm_ov_result *r, pm_err *err)
{
    int rc = PM_OK, saved_cwd = -1, reported = 0, present = 1;
    ov_api api;
    ov_core_t *core = NULL;
    ov_model_t *model = NULL;
    ov_compiled_model_t *compiled = NULL, *imported = NULL;
    char *blob = NULL, *export_alloc = NULL, *bin_alloc = NULL;
    const char *device = o->device ? o->device : "NPU";
    ov_version_t ver = {0};
    char devlist[512] = "", arch[64] = "";

    memset(r, 0, sizeof *r);
    memset(&api, 0, sizeof api);
    r->read_s = r->compile_s = r->export_s = r->import_s = -1;
    r->compile_user_s = r->compile_sys_s = -1;
    r->blob_bytes = r->weights_bytes = -1;
    r->npuw_default_kept = -1;
    r->instrumented = pm_ov_instrumented(o);
    snprintf(r->device, sizeof r->device, "%s", device);
    snprintf(r->platform, sizeof r->platform, "%s", o->platform ? o->platform : "");
    if (!o->model_xml) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no model given");
        goto cleanup;
    }
    if ((rc = pm_ov_build_props(o, NULL, 0, &r->props, err)))
        goto cleanup;
    r->n_prop_args = 2 * r->props.n;

    /* NPUW names its submodels only on its own log lines, which it prints (release builds too) when this is
     * set; read as the library initialises, so set before loading it. A value the user set is kept. */
    if (is_npu(device) && o->window > 0 && setenv("OPENVINO_NPUW_LOG_LEVEL", "INFO", 0) != 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot set OPENVINO_NPUW_LOG_LEVEL");
        goto cleanup;
    }
    if ((rc = load_api(&api, o->lib, r->lib_path, sizeof r->lib_path, err)))
        goto cleanup;
    ov_status_e st = api.get_version(&ver);
    if (st == 0) {
        snprintf(r->ov_version, sizeof r->ov_version, "%s", ver.buildNumber ? ver.buildNumber : "");
        snprintf(r->ov_description, sizeof r->ov_description, "%s", ver.description ? ver.description : "");
        api.version_free(&ver);
    }
    if ((st = api.core_create(&core)) != 0) {
        rc = ov_fail(&api, err, st, "ov_core_create");
        goto cleanup;
    }
    if ((rc = check_device(&api, core, device, &present, devlist, sizeof devlist, err)))
        goto cleanup;
    if (!present && !(is_npu(device) && o->platform && *o->platform)) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "device %s not available; OpenVINO lists: %s%s", device,
                        *devlist ? devlist : "(none)",
                        is_npu(device) ? " (to compile without an NPU, name the target: --platform NPU4000)" : "");
        goto cleanup;
    }
    if (present && o->offline_only && o->platform && *o->platform) {
        rc = pm_err_set(err, PM_ERR_USAGE,
                        "this study compiles offline for %s, but this machine has an NPU: its runs would be on-device "
                        "compiles pooled with offline ones; run a copy of the spec without 'platform' into another "
                        "database", o->platform);
        goto cleanup;
    }
    r->offline = !present;
    /* The target's architecture decides NPUW's default mode params: ask the device, else the platform. */
    if (present && is_npu(device) && o->window > 0 && pm_ov_instrumented(o))
        read_prop(&api, core, NULL, device, "DEVICE_ARCHITECTURE", arch, sizeof arch);
    /* The attention hints and the shared head exist from 2026.0, where their defaults start to move: pinned
     * there; before, NPUW rejects them as unknown keys, and the run says they were not pinned. */
    pm_ov_opts pinned = *o;
    if (is_npu(device) && o->window > 0) {
        pinned.pin_npuw_attention = atoi(r->ov_version) >= 2026;
        if (!pinned.pin_npuw_attention)
            snprintf(r->npuw_pins, sizeof r->npuw_pins, "not pinned: OpenVINO %s has no attention-hint options",
                     *r->ov_version ? r->ov_version : "(unknown version)");
    }
    pm_ov_props_free(&r->props);
    if ((rc = pm_ov_build_props(&pinned, *arch ? arch : NULL, r->offline, &r->props, err)))
        goto cleanup;
    r->n_prop_args = 2 * r->props.n;
    for (int i = 0; i < r->props.n; i++) {
        const char *k = r->props.items[i].key, *v = r->props.items[i].value;
        if (!strcmp(k, "NPU_COMPILER_TYPE"))
            snprintf(r->compiler_type_set, sizeof r->compiler_type_set, "%s", v);
        if (!strcmp(k, "NPU_COMPILATION_MODE_PARAMS") && o->window > 0 && is_npu(device))
            r->npuw_default_kept = strstr(v, "compute-layers-with-higher-precision") != NULL;
    }
    /* The words of NPU_COMPILER_TYPE depend on the release (MLIR is gone in 2026, PLUGIN is new there): a word
     * this release does not have would fail deep in the plugin, or silently mean another compiler. */
    if (is_npu(device) && *r->compiler_type_set &&
        (rc = pm_ov_compiler_type_check(r->compiler_type_set, r->ov_version, err)))
        goto cleanup;
    r->mem_total_bytes = pm_ov_mem_total();
    if (o->model_bin)
        r->weights_bytes = file_bytes(o->model_bin);
    else {
        size_t n = strlen(o->model_xml);
        if (n > 4 && !strcmp(o->model_xml + n - 4, ".xml") && (bin_alloc = strdup(o->model_xml))) {
            memcpy(bin_alloc + n - 4, ".bin", 4);
            r->weights_bytes = file_bytes(bin_alloc);
        }
    }

    double t0 = pm_util_now();
    if ((st = api.core_read_model(core, o->model_xml, o->model_bin, &model)) != 0) {
        rc = ov_fail(&api, err, st, "ov_core_read_model");
        pm_err_wrap(err, "%s", o->model_xml);
        goto cleanup;
    }
    r->read_s = pm_util_now() - t0;

    const char *workdir = o->workdir && *o->workdir ? o->workdir : ".";
    if (o->strategy_in) {
        char dest[4096];
        snprintf(dest, sizeof dest, "%s/strategy_in.json", workdir);
        char *a = realpath(o->strategy_in, NULL), *b = realpath(dest, NULL);
        int same = a && b && !strcmp(a, b);
        free(a);
        free(b);
        if (!same && (rc = copy_file(o->strategy_in, dest, err)))
            goto cleanup;
    }

    /* The compiler writes its trace files into the process's working directory. */
    saved_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (saved_cwd < 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot open the current directory");
        goto cleanup;
    }
    if (chdir(workdir) != 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot enter %s", workdir);
        goto cleanup;
    }
    /* ov_core_compile_model is variadic and reads property_args_size/2 key/value pairs. It is called once with
     * all PM_OV_MAX_PROPS slots: C (6.5.2.2, 7.16) defines surplus variadic arguments as evaluated and
     * ignored, so one call covers 0..N pairs without a switch. Not ov_core_set_property per pair: that changes
     * the plugin's config for the whole core, and NPUW options are read from the per-compile map only. */
    const char *a[2 * PM_OV_MAX_PROPS] = {0};
    for (int i = 0; i < r->props.n; i++) {
        a[2 * i] = r->props.items[i].key;
        a[2 * i + 1] = r->props.items[i].value;
    }
    double u0, s0, u1, s1;
    long rss_dummy;
    usage_now(&u0, &s0, &rss_dummy);
    t0 = pm_util_now();
    st = api.core_compile_model(core, model, device, (size_t)r->n_prop_args, &compiled, a[0], a[1], a[2], a[3], a[4],
                                a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17],
                                a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29],
                                a[30], a[31], a[32], a[33], a[34], a[35], a[36], a[37], a[38], a[39], a[40], a[41],
                                a[42], a[43], a[44], a[45], a[46], a[47]);
    double t1 = pm_util_now();
    usage_now(&u1, &s1, &r->compile_maxrss_kb);
    fflush(stdout); /* the compiler's own output, before ours */
    if (fchdir(saved_cwd) != 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot return to the previous directory");
        goto cleanup;
    }
    if (st != 0) {
        rc = ov_fail(&api, err, st, "ov_core_compile_model");
        pm_ov_refused_property(err->msg, r->refused_property, sizeof r->refused_property);
        goto cleanup;
    }
    r->compile_s = t1 - t0;
    if (u0 >= 0 && u1 >= 0) {
        r->compile_user_s = u1 - u0;
        r->compile_sys_s = s1 - s0;
    }
    /* The source model is not needed after the compile: freed before the export and the import, so the
     * process does not hold model + compiled model + blob + imported copy at once. */
    api.model_free(model);
    model = NULL;

    const char *src = read_prop(&api, core, compiled, device, "NPU_COMPILER_TYPE", r->compiler_type,
                                sizeof r->compiler_type);
    snprintf(r->compiler_type_source, sizeof r->compiler_type_source, "%s", src);
    /* The compiler used: a pinned PLUGIN/DRIVER/MLIR is what ran; PREFER_PLUGIN only resolves on the compiled
     * model (an NPUW model may not answer, and the core's answer is the plugin default, not this compile's). */
    if (*r->compiler_type_set && strcmp(r->compiler_type_set, "PREFER_PLUGIN"))
        snprintf(r->compiler_type_resolved, sizeof r->compiler_type_resolved, "%s", r->compiler_type_set);
    else if (!strcmp(src, "compiled") && strcmp(r->compiler_type, "PREFER_PLUGIN"))
        snprintf(r->compiler_type_resolved, sizeof r->compiler_type_resolved, "%s", r->compiler_type);
    if (is_npu(device))
        read_compiler_version(&api, core, compiled, device,
                              *r->compiler_type_resolved ? r->compiler_type_resolved : r->compiler_type_set, r);
    else
        read_prop(&api, core, compiled, device, "NPU_COMPILER_VERSION", r->compiler_version,
                  sizeof r->compiler_version);
    if (is_npu(device) && o->window > 0 && (rc = read_effective(&api, compiled, &r->effective, err)))
        goto cleanup;
    pm_ov_decode_compiler_version(r->compiler_version, r->compiler_version_decoded,
                                  sizeof r->compiler_version_decoded);
    if (!r->offline)
        read_prop(&api, core, compiled, device, "NPU_DRIVER_VERSION", r->driver_version, sizeof r->driver_version);
    read_prop(&api, core, compiled, device, "DEVICE_ARCHITECTURE", r->device_arch, sizeof r->device_arch);
    read_prop(&api, core, compiled, device, "COMPILATION_NUM_THREADS", r->num_threads, sizeof r->num_threads);

    const char *export_path = o->export_path;
    if (!export_path && o->do_import) {
        if (asprintf(&export_alloc, "%s/model.blob", workdir) < 0) {
            export_alloc = NULL;
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        export_path = export_alloc;
    }
    for (int i = 0; i < r->props.n; i++)
        if (o->window > 0 && is_npu(device) && !strcmp(r->props.items[i].key, "CACHE_MODE"))
            r->blob_weightless = strcmp(r->props.items[i].value, "OPTIMIZE_SPEED") != 0;
    if (export_path && o->window > 0 && is_npu(device) && !r->blob_weightless) {
        int has_cache_mode = 0;
        for (int i = 0; i < r->props.n; i++)
            has_cache_mode |= !strcmp(r->props.items[i].key, "CACHE_MODE");
        r->blob_weightless = !has_cache_mode; /* NPUW's default is OPTIMIZE_SIZE: weightless */
    }
    if (export_path) {
        t0 = pm_util_now();
        st = api.export_model(compiled, export_path);
        t1 = pm_util_now();
        if (st != 0) {
            rc = ov_fail(&api, err, st, "ov_compiled_model_export_model");
            goto cleanup;
        }
        r->export_s = t1 - t0;
        r->blob_bytes = file_bytes(export_path);
        double eu, es;
        usage_now(&eu, &es, &r->export_maxrss_kb);
    }
    /* Everything asked of the compiled model is read: free it before the blob is read back and imported. */
    api.compiled_free(compiled);
    compiled = NULL;
    /* The import reads the whole weights bank back: past a share of the RAM it would likely be killed, and a
     * killed import says less than a stated skip. */
    double share = o->import_max_ram_share;
    if (o->do_import && !r->offline && share > 0 && r->weights_bytes > 0 && r->mem_total_bytes > 0 &&
        (double)r->weights_bytes > share * (double)r->mem_total_bytes) {
        r->import_skipped_ram = 1;
        snprintf(r->import_skipped, sizeof r->import_skipped,
                 "not attempted: the weights (%.1f MB) exceed %g%% of RAM (MemTotal %.1f MB); raise [openvino] "
                 "import_max_ram_share to try", (double)r->weights_bytes / 1e6, 100 * share,
                 (double)r->mem_total_bytes / 1e6);
    } else if (o->do_import && !r->offline && o->on_compiled) {
        snprintf(r->import_skipped, sizeof r->import_skipped, "the import had not finished when this line was written");
        r->import_pending = 1;
        o->on_compiled(r, o->on_result_ctx);
        r->import_skipped[0] = '\0';
        r->import_pending = 0;
    }
    if (o->do_import && r->offline) {
        snprintf(r->import_skipped, sizeof r->import_skipped, "offline compile: no %s device to import on", device);
    } else if (o->do_import && !r->import_skipped_ram) {
        size_t size = 0;
        pm_err rerr;
        pm_err_clear(&rerr);
        /* Reading the blob back can fail for want of memory too: a failed warm measurement, the compile stands. */
        if (pm_util_read_file(export_path, &blob, &size, &rerr) != PM_OK) {
            snprintf(r->import_error, sizeof r->import_error, "reading the blob back: %.900s", rerr.msg);
            goto cleanup;
        }
        t0 = pm_util_now();
        st = api.core_import_model(core, blob, size, device, &imported);
        t1 = pm_util_now();
        if (st != 0) {
            /* A failed warm measurement, not a failed compile: the compile above succeeded. */
            pm_err ierr;
            pm_err_clear(&ierr);
            ov_fail(&api, &ierr, st, "ov_core_import_model");
            /* The import reads the weights bank back: what it held and had to read says whether memory ran out. */
            double fu, fs;
            long rss_kb;
            usage_now(&fu, &fs, &rss_kb);
            snprintf(r->import_error, sizeof r->import_error, "%.850s (weights %.1f MB, peak RSS %.1f MB)", ierr.msg,
                     r->weights_bytes >= 0 ? (double)r->weights_bytes / 1e6 : 0.0, (double)rss_kb / 1024);
        } else {
            r->import_s = t1 - t0;
        }
        double iu, is;
        usage_now(&iu, &is, &r->import_maxrss_kb);
    }
cleanup:
    if (saved_cwd >= 0)
        close(saved_cwd);
    finish(o, r, rc, err, &reported); /* the caller's result line goes out before OpenVINO tears down */
    if (imported)
        api.compiled_free(imported);
    if (compiled)
        api.compiled_free(compiled);
    if (model)
        api.model_free(model);
    if (core)
        api.core_free(core);
    free(blob);
    free(export_alloc);
    free(bin_alloc);
    return rc;
}

int pm_ov_probe(const char *lib, pm_ov_probe_result *p, pm_err *err)
{
    ov_api api;
    ov_core_t *core = NULL;
    ov_version_t ver = {0};
    int rc, present = 0;
    memset(p, 0, sizeof *p);
    if ((rc = load_api(&api, lib, p->lib_path, sizeof p->lib_path, err)))
        return rc;
    if (api.get_version(&ver) == 0) {
        snprintf(p->ov_version, sizeof p->ov_version, "%s", ver.buildNumber ? ver.buildNumber : "");
        snprintf(p->ov_description, sizeof p->ov_description, "%s", ver.description ? ver.description : "");
        api.version_free(&ver);
    }
    ov_status_e st = api.core_create(&core);
    if (st != 0)
        return ov_fail(&api, err, st, "ov_core_create");
    if ((rc = check_device(&api, core, "NPU", &present, p->devices, sizeof p->devices, err)))
        goto cleanup;
    p->npu_present = present;
    /* The plugin answers these from the core even without a device (compiler type, version of the compiler
     * inside the plugin); the driver version needs the device. */
    read_prop(&api, core, NULL, "NPU", "NPU_COMPILER_TYPE", p->compiler_type, sizeof p->compiler_type);
    read_prop(&api, core, NULL, "NPU", "NPU_COMPILER_VERSION", p->compiler_version, sizeof p->compiler_version);
    pm_ov_decode_compiler_version(p->compiler_version, p->compiler_version_decoded,
                                  sizeof p->compiler_version_decoded);
    if (present) {
        read_prop(&api, core, NULL, "NPU", "NPU_DRIVER_VERSION", p->driver_version, sizeof p->driver_version);
        read_prop(&api, core, NULL, "NPU", "DEVICE_ARCHITECTURE", p->device_arch, sizeof p->device_arch);
    }
    read_prop(&api, core, NULL, "NPU", "SUPPORTED_PROPERTIES", p->supported, sizeof p->supported);
    p->mem_total_bytes = pm_ov_mem_total();
    /* Each compiler as the core answers with it set: the version of the one a compile would use, or OpenVINO's
     * own words for why it cannot (the driver's compiler is a package of its own, intel-driver-compiler-npu). */
    static const char *const types[] = {"DRIVER", "PLUGIN"};
    for (int i = 0; i < 2; i++) {
        pm_ov_probe_compiler *c = &p->compilers[i];
        c->type = types[i];
        char *v = NULL;
        ov_status_e cs = api.core_set_property ? api.core_set_property(core, "NPU", "NPU_COMPILER_TYPE", types[i]) : -2;
        if (cs == 0)
            cs = api.core_get_property ? api.core_get_property(core, "NPU", "NPU_COMPILER_VERSION", &v) : -2;
        if (cs == 0 && v) {
            c->ok = 1;
            snprintf(c->version, sizeof c->version, "%s", v);
            api.free_str(v);
            pm_ov_decode_compiler_version(c->version, c->version_decoded, sizeof c->version_decoded);
            continue;
        }
        const char *m = api.last_err_msg ? api.last_err_msg() : NULL;   /* verbatim: the user's first clue */
        snprintf(c->error, sizeof c->error, "%s", m && *m ? m : "no message (status without text)");
        if (m)
            api.free_str(m);
        c->driver_compiler_missing = !strcmp(types[i], "DRIVER") && (strstr(c->error, "npu_driver_compiler") ||
                                                                    strstr(c->error, "driver compiler library"));
    }
cleanup:
    api.core_free(core);
    return rc;
}

/* ---- the result line ---------------------------------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

char *pm_ov_result_json(const pm_ov_result *r, int ok, const char *error)
{
    json_t *props = json_object();
    for (int i = 0; i < r->props.n; i++)
        json_object_set_new(props, r->props.items[i].key, json_string(r->props.items[i].value));
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_integer(2));
    json_object_set_new(o, "ok", json_boolean(ok));
    json_object_set_new(o, "error", error ? json_string(error) : json_null());
    const struct { const char *key, *value; } strs[] = {
        {"device", r->device}, {"lib", r->lib_path}, {"openvino_version", r->ov_version},
        {"openvino_description", r->ov_description}, {"compiler_type", r->compiler_type},
        {"compiler_type_set", r->compiler_type_set}, {"compiler_version", r->compiler_version},
        {"driver_version", r->driver_version}, {"device_architecture", r->device_arch},
        {"compilation_num_threads", r->num_threads}, {"compiler_version_decoded", r->compiler_version_decoded},
        {"compiler_type_source", r->compiler_type_source}, {"platform", r->platform},
        {"npuw_pins", r->npuw_pins}, {"compiler_type_resolved", r->compiler_type_resolved},
        {"compiler_version_source", r->compiler_version_source}, {"refused_property", r->refused_property}};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        json_object_set_new(o, strs[i].key, json_string(strs[i].value));
    json_object_set_new(o, "read_s", num_or_null(r->read_s));
    json_object_set_new(o, "compile_s", num_or_null(r->compile_s));
    json_object_set_new(o, "export_s", num_or_null(r->export_s));
    json_object_set_new(o, "import_s", num_or_null(r->import_s));
    json_object_set_new(o, "compile_user_s", num_or_null(r->compile_user_s));
    json_object_set_new(o, "compile_sys_s", num_or_null(r->compile_sys_s));
    json_object_set_new(o, "compile_maxrss_kb", r->compile_maxrss_kb > 0 ? json_integer(r->compile_maxrss_kb) : json_null());
    json_object_set_new(o, "export_maxrss_kb", r->export_maxrss_kb > 0 ? json_integer(r->export_maxrss_kb) : json_null());
    json_object_set_new(o, "import_maxrss_kb", r->import_maxrss_kb > 0 ? json_integer(r->import_maxrss_kb) : json_null());
    json_object_set_new(o, "blob_bytes", r->blob_bytes < 0 ? json_null() : json_integer(r->blob_bytes));
    json_object_set_new(o, "blob_weightless", json_boolean(r->blob_weightless));
    json_object_set_new(o, "weights_bytes", r->weights_bytes < 0 ? json_null() : json_integer(r->weights_bytes));
    json_object_set_new(o, "import_error", *r->import_error ? json_string(r->import_error) : json_null());
    json_object_set_new(o, "import_skipped", *r->import_skipped ? json_string(r->import_skipped) : json_null());
    json_object_set_new(o, "import_pending", json_boolean(r->import_pending));
    json_object_set_new(o, "import_skipped_ram", json_boolean(r->import_skipped_ram));
    json_object_set_new(o, "mem_total_bytes", r->mem_total_bytes > 0 ? json_integer(r->mem_total_bytes) : json_null());
    json_t *eff = json_object();
    for (int i = 0; i < r->effective.n; i++)
        json_object_set_new(eff, r->effective.items[i].key, json_string(r->effective.items[i].value));
    json_object_set_new(o, "effective", eff);
    json_object_set_new(o, "offline", json_boolean(r->offline));
    json_object_set_new(o, "instrumented", json_boolean(r->instrumented));
    json_object_set_new(o, "npuw_default_mode_kept",
                        r->npuw_default_kept < 0 ? json_null() : json_boolean(r->npuw_default_kept));
    json_object_set_new(o, "n_property_args", json_integer(r->n_prop_args));
    json_object_set_new(o, "properties", props);
    json_object_set_new(o, "strategy_key", *r->strategy_key ? json_string(r->strategy_key) : json_null());
    json_object_set_new(o, "strategy_reused", json_boolean(r->strategy_reused));
    json_object_set_new(o, "units", json_pack("{s:s,s:s,s:s}", "*_s", "s", "blob_bytes", "B", "*_kb", "KiB"));
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

static void get_str(json_t *o, const char *key, char *out, size_t size)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(out, size, "%s", s ? s : "");
}

static double get_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

int pm_ov_parse_result_line(const char *buf, size_t len, pm_ov_result *r, int *ok, char *error,
                            size_t error_size, pm_err *err)
{
    const char *line = NULL, *p = buf;
    size_t plen = strlen(PM_OV_RESULT_PREFIX);
    while ((p = memmem(p, len - (size_t)(p - buf), PM_OV_RESULT_PREFIX, plen))) {
        line = p;
        p += plen;
    }
    if (!line)
        return pm_err_set(err, PM_ERR_NOTFOUND, "no %sline in the output", PM_OV_RESULT_PREFIX);
    line += plen;
    const char *end = memchr(line, '\n', len - (size_t)(line - buf));
    size_t n = end ? (size_t)(end - line) : len - (size_t)(line - buf);
    json_error_t je;
    json_t *o = json_loadb(line, n, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return pm_err_set(err, PM_ERR_PARSE, "bad %sline: %s", PM_OV_RESULT_PREFIX, je.text);
    }
    memset(r, 0, sizeof *r);
    int rc = PM_OK;
    *ok = json_is_true(json_object_get(o, "ok"));
    if (error && error_size)
        get_str(o, "error", error, error_size);
    get_str(o, "device", r->device, sizeof r->device);
    get_str(o, "lib", r->lib_path, sizeof r->lib_path);
    get_str(o, "openvino_version", r->ov_version, sizeof r->ov_version);
    get_str(o, "openvino_description", r->ov_description, sizeof r->ov_description);
    get_str(o, "compiler_type", r->compiler_type, sizeof r->compiler_type);
    get_str(o, "compiler_type_set", r->compiler_type_set, sizeof r->compiler_type_set);
    get_str(o, "compiler_version", r->compiler_version, sizeof r->compiler_version);
    get_str(o, "driver_version", r->driver_version, sizeof r->driver_version);
    get_str(o, "device_architecture", r->device_arch, sizeof r->device_arch);
    get_str(o, "compilation_num_threads", r->num_threads, sizeof r->num_threads);
    get_str(o, "compiler_version_decoded", r->compiler_version_decoded, sizeof r->compiler_version_decoded);
    get_str(o, "compiler_type_source", r->compiler_type_source, sizeof r->compiler_type_source);
    get_str(o, "platform", r->platform, sizeof r->platform);
    get_str(o, "npuw_pins", r->npuw_pins, sizeof r->npuw_pins);
    get_str(o, "compiler_type_resolved", r->compiler_type_resolved, sizeof r->compiler_type_resolved);
    get_str(o, "import_error", r->import_error, sizeof r->import_error);
    get_str(o, "import_skipped", r->import_skipped, sizeof r->import_skipped);
    get_str(o, "compiler_version_source", r->compiler_version_source, sizeof r->compiler_version_source);
    get_str(o, "refused_property", r->refused_property, sizeof r->refused_property);
    r->import_pending = json_is_true(json_object_get(o, "import_pending"));
    r->import_skipped_ram = json_is_true(json_object_get(o, "import_skipped_ram"));
    r->mem_total_bytes = (long long)get_num(o, "mem_total_bytes");
    r->blob_weightless = json_is_true(json_object_get(o, "blob_weightless"));
    r->weights_bytes = (long long)get_num(o, "weights_bytes");
    r->offline = json_is_true(json_object_get(o, "offline"));
    r->instrumented = json_is_true(json_object_get(o, "instrumented"));
    json_t *kept = json_object_get(o, "npuw_default_mode_kept");
    r->npuw_default_kept = json_is_boolean(kept) ? json_is_true(kept) : -1;
    r->read_s = get_num(o, "read_s");
    r->compile_s = get_num(o, "compile_s");
    r->export_s = get_num(o, "export_s");
    r->import_s = get_num(o, "import_s");
    r->compile_user_s = get_num(o, "compile_user_s");
    r->compile_sys_s = get_num(o, "compile_sys_s");
    r->compile_maxrss_kb = (long)get_num(o, "compile_maxrss_kb");
    r->export_maxrss_kb = (long)get_num(o, "export_maxrss_kb");
    r->import_maxrss_kb = (long)get_num(o, "import_maxrss_kb");
    r->blob_bytes = (long long)get_num(o, "blob_bytes");
    r->n_prop_args = (int)json_integer_value(json_object_get(o, "n_property_args"));
    get_str(o, "strategy_key", r->strategy_key, sizeof r->strategy_key);
    r->strategy_reused = json_is_true(json_object_get(o, "strategy_reused"));
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(o, "properties"), k, v) {
        const char *sv = json_string_value(v);
        if (sv && (rc = props_set(&r->props, k, strlen(k), sv, err)))
            break;
    }
    json_object_foreach(json_object_get(o, "effective"), k, v) {
        const char *sv = json_string_value(v);
        if (!rc && sv && (rc = props_set(&r->effective, k, strlen(k), sv, err)))
            break;
    }
    json_decref(o);
    if (rc)
        pm_ov_result_free(r);
    return rc;
}

/* ---- strategy reuse --------------------------------------------------------------------------------------- */

static int hash_file(XXH3_state_t *s, const char *path, pm_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pm_err_errno(err, PM_ERR_IO, "cannot open %s", path);
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        XXH3_128bits_update(s, buf, n);
    int bad = ferror(f);
    fclose(f);
    return bad ? pm_err_errno(err, PM_ERR_IO, "cannot read %s", path) : PM_OK;
}

/* The switches that only ask for files (not what the compiler decides) stay out of the key. */
static int mode_word_shapes_strategy(const char *w, size_t n)
{
    static const char *const skip[] = {"enable-schedule-trace", "write-strategy-to-json", "read-strategy-from-json",
                                       "schedule-trace-file-name", "dump-task-stats", NULL};
    for (int i = 0; skip[i]; i++) {
        size_t k = strlen(skip[i]);
        if (n >= k && !strncmp(w, skip[i], k) && (n == k || w[k] == '='))
            return 0;
    }
    return 1;
}

int pm_ov_strategy_key(const pm_ov_opts *o, char key[33], pm_err *err)
{
    int rc = PM_OK;
    char *bin = NULL;
    XXH3_state_t *s = XXH3_createState();
    if (!s)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    XXH3_128bits_reset(s);
    if (!o->model_xml) {
        rc = pm_err_set(err, PM_ERR_USAGE, "no model given");
        goto cleanup;
    }
    if ((rc = hash_file(s, o->model_xml, err)))
        goto cleanup;
    const char *bin_path = o->model_bin;
    if (!bin_path) { /* OpenVINO's own default: the .bin beside the .xml */
        size_t n = strlen(o->model_xml);
        if (n > 4 && !strcmp(o->model_xml + n - 4, ".xml") && (bin = strdup(o->model_xml))) {
            memcpy(bin + n - 4, ".bin", 4);
            if (access(bin, R_OK) == 0)
                bin_path = bin;
        }
    }
    XXH3_128bits_update(s, "\0bin\0", 5);
    if (bin_path && (rc = hash_file(s, bin_path, err)))
        goto cleanup;
    char opt[128];
    int n = snprintf(opt, sizeof opt, "\ndevice=%s\nwindow=%d\nplatform=%s\n", o->device ? o->device : "NPU",
                     o->window, o->platform ? o->platform : "");
    XXH3_128bits_update(s, opt, (size_t)n);
    for (const char *const *e = o->extra; e && *e; e++) {
        if (!strncmp(*e, "LOG_LEVEL=", 10) || !strncmp(*e, "CACHE_DIR=", 10) ||
            !strncmp(*e, "NPU_BYPASS_UMD_CACHING=", 23))
            continue;
        if (!strncmp(*e, "NPU_COMPILATION_MODE_PARAMS=", 28)) {
            for (const char *w = *e + 28; *w;) {
                while (*w == ' ')
                    w++;
                size_t wl = strcspn(w, " ");
                if (wl && mode_word_shapes_strategy(w, wl)) {
                    XXH3_128bits_update(s, w, wl);
                    XXH3_128bits_update(s, "\n", 1);
                }
                w += wl;
            }
            continue;
        }
        XXH3_128bits_update(s, *e, strlen(*e));
        XXH3_128bits_update(s, "\n", 1);
    }
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
    for (int i = 0; i < 16; i++)
        snprintf(key + 2 * i, 3, "%02x", c.digest[i]);
cleanup:
    free(bin);
    XXH3_freeState(s);
    return rc;
}

static int cache_root(const char *cache_dir, char *out, size_t size, pm_err *err)
{
    const char *env;
    if (cache_dir && *cache_dir)
        snprintf(out, size, "%s", cache_dir);
    else if ((env = getenv("PASSMAP_CACHE_DIR")) && *env)
        snprintf(out, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(out, size, "%s/passmap", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(out, size, "%s/.cache/passmap", env);
    else
        return pm_err_set(err, PM_ERR_NOTFOUND, "no cache directory (set PASSMAP_CACHE_DIR)");
    return PM_OK;
}

static int valid_key(const char *key)
{
    if (strlen(key) != 32)
        return 0;
    return strspn(key, "0123456789abcdef") == 32;
}

int pm_ov_strategy_store(const char *cache_dir, const char *key, const char *strategy_out_json, pm_err *err)
{
    char dir[4096], tmp[4200], dest[4200];
    int rc;
    if (!valid_key(key))
        return pm_err_set(err, PM_ERR_USAGE, "bad strategy key '%s'", key);
    if ((rc = cache_root(cache_dir, dir, sizeof dir - 16, err)))
        return rc;
    size_t dl = strlen(dir);
    snprintf(dir + dl, sizeof dir - dl, "/strategy"); /* cache_root left room for it */
    if ((rc = pm_util_mkdir_p(dir, err)))
        return rc;
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, key, (long)getpid());
    snprintf(dest, sizeof dest, "%s/%s.json", dir, key);
    /* Written aside then renamed: a concurrent fetch never sees half a file. */
    if ((rc = copy_file(strategy_out_json, tmp, err))) {
        unlink(tmp);
        return rc;
    }
    return pm_util_publish(tmp, dest, err); /* never replaces a non-regular file */
}

int pm_ov_strategy_fetch(const char *cache_dir, const char *key, char **path, pm_err *err)
{
    char dir[4096];
    int rc;
    *path = NULL;
    if (!valid_key(key))
        return pm_err_set(err, PM_ERR_USAGE, "bad strategy key '%s'", key);
    if ((rc = cache_root(cache_dir, dir, sizeof dir, err)))
        return rc;
    if (asprintf(path, "%s/strategy/%s.json", dir, key) < 0) {
        *path = NULL;
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (access(*path, R_OK) != 0) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "no cached strategy %s", key);
        free(*path);
        *path = NULL;
    }
    return rc;
}

/* ---- sweep step ----------------------------------------------------------------------------------------- */

static int push2(char ***argv, const char *opt, const char *value)
{
    return pm_argv_push(argv, opt) || (value && pm_argv_push(argv, value)) ? PM_ERR_NOMEM : PM_OK;
}

int pm_ov_add_step(const char *passmap_exe, const pm_ov_opts *o, int reuse_strategy, const char *cache_dir,
                   pm_steps *out, pm_err *err)
{
    if (!o->model_xml)
        return pm_err_set(err, PM_ERR_USAGE, "no model given");
    pm_step st;
    memset(&st, 0, sizeof st);
    char num[32];
    char **argv = pm_argv_new(passmap_exe ? passmap_exe : "passmap", "ov-compile", "--model", o->model_xml,
                              "--device", o->device ? o->device : "NPU", (char *)NULL);
    int rc = argv ? PM_OK : PM_ERR_NOMEM;
    if (!rc && o->model_bin)
        rc = push2(&argv, "--weights", o->model_bin);
    if (!rc && o->window > 0) {
        snprintf(num, sizeof num, "%d", o->window);
        rc = push2(&argv, "--window", num);
    }
    if (!rc && o->window > 0 && o->min_response_len > 0) {
        snprintf(num, sizeof num, "%d", o->min_response_len);
        rc = push2(&argv, "--min-response-len", num);
    }
    if (!rc && o->prefill_hint && *o->prefill_hint)
        rc = push2(&argv, "--prefill-hint", o->prefill_hint);
    if (!rc && o->generate_pyramid && *o->generate_pyramid)
        rc = push2(&argv, "--generate-pyramid", o->generate_pyramid);
    if (!rc && o->prefill_attention_hint)
        rc = push2(&argv, "--prefill-attention-hint", o->prefill_attention_hint);
    if (!rc && o->generate_attention_hint)
        rc = push2(&argv, "--generate-attention-hint", o->generate_attention_hint);
    if (!rc && o->shared_head)
        rc = push2(&argv, "--shared-head", o->shared_head);
    if (!rc && o->platform && *o->platform)
        rc = push2(&argv, "--platform", o->platform);
    if (!rc && o->offline_only)
        rc = push2(&argv, "--offline-only", NULL);
    if (!rc && o->compiler_type && *o->compiler_type)
        rc = push2(&argv, "--compiler-type", o->compiler_type);
    if (!rc && o->cache_mode && *o->cache_mode)
        rc = push2(&argv, "--cache-mode", o->cache_mode);
    if (!rc && o->log_level)
        rc = push2(&argv, "--log-level", o->log_level);
    if (!rc && o->schedule_trace)
        rc = push2(&argv, "--schedule-trace", NULL);
    if (!rc && o->strategy_out)
        rc = push2(&argv, "--strategy-out", NULL);
    if (!rc && o->task_stats)
        rc = push2(&argv, "--task-stats", NULL);
    if (!rc && o->strategy_in)
        rc = push2(&argv, "--strategy-in", o->strategy_in);
    if (!rc && reuse_strategy)
        rc = push2(&argv, "--reuse-strategy", NULL);
    if (!rc && reuse_strategy && cache_dir)
        rc = push2(&argv, "--cache-dir", cache_dir);
    for (const char *const *e = o->extra; !rc && e && *e; e++)
        rc = push2(&argv, "--prop", *e);
    if (!rc && o->workdir)
        rc = push2(&argv, "--workdir", o->workdir);
    if (!rc && o->export_path)
        rc = push2(&argv, "--export", o->export_path);
    if (!rc && o->do_import)
        rc = push2(&argv, "--import", NULL);
    if (!rc && o->do_import && o->import_max_ram_share > 0) {
        snprintf(num, sizeof num, "%g", o->import_max_ram_share);
        rc = push2(&argv, "--import-max-ram-share", num);
    }
    if (!rc && o->lib)
        rc = push2(&argv, "--lib", o->lib);
    st.argv = argv;
    st.tool = strdup("ov-compile");
    st.input = strdup(o->model_xml);
    st.cwd = o->workdir ? strdup(o->workdir) : NULL;
    const char *blob = o->export_path ? o->export_path : o->do_import ? "model.blob" : NULL;
    st.output = blob ? strdup(blob) : NULL;
    st.report_stream = PM_STREAM_STDOUT;
    st.report_format = PM_FMT_NPU_LOG;
    if (rc || !st.tool || !st.input || (o->workdir && !st.cwd) || (blob && !st.output))
        rc = PM_ERR_NOMEM;
    if (!rc && o->schedule_trace) {
        st.artifact_formats[st.n_artifacts] = PM_FMT_NPU_SCHEDULE;
        if (!(st.artifacts[st.n_artifacts++] = strdup("compileTimeScheduleTrace.json")))
            rc = PM_ERR_NOMEM;
    }
    if (!rc && (o->strategy_out || reuse_strategy)) {
        st.artifact_formats[st.n_artifacts] = PM_FMT_NPU_STRATEGY;
        if (!(st.artifacts[st.n_artifacts++] = strdup("strategy_out.json")))
            rc = PM_ERR_NOMEM;
    }
    pm_step *items = rc ? NULL : realloc(out->items, (size_t)(out->n + 1) * sizeof *items);
    if (!items) {
        free(st.tool);
        pm_argv_free(st.argv);
        free(st.cwd);
        free(st.output);
        free(st.input);
        for (int k = 0; k < st.n_artifacts; k++)
            free(st.artifacts[k]);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    out->items = items;
    out->items[out->n++] = st;
    return PM_OK;
}

int pm_ov_read_result_file(const char *path, pm_ov_result *r, pm_err *err)
{
    char *buf;
    size_t len;
    int rc = pm_util_read_file(path, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    int ok = 0;
    char error[512] = "";
    rc = pm_ov_parse_result_line(buf, len, r, &ok, error, sizeof error, err);
    free(buf);
    if (rc == PM_OK && !ok)
        rc = pm_err_set(err, PM_ERR_CHILD, "%s: compile failed: %s", path, error[0] ? error : "no reason given");
    return rc;
}

int pm_ov_result_files_summarize(char *const files[], size_t n, pm_stats_summary *compile,
                                 pm_stats_summary *import, pm_err *err)
{
    double *c = calloc(n + 1, sizeof *c), *imp = calloc(n + 1, sizeof *imp);
    size_t nc = 0, ni = 0;
    int rc = PM_OK;
    if (!c || !imp) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        pm_ov_result r;
        memset(&r, 0, sizeof r);
        pm_err ignored = {0};
        if (files[i] && pm_ov_read_result_file(files[i], &r, &ignored) == PM_OK) {
            if (r.compile_s >= 0)
                c[nc++] = r.compile_s;
            if (r.import_s >= 0)
                imp[ni++] = r.import_s;
        }
        pm_ov_result_free(&r);
    }
    if (pm_stats_summarize(c, nc, compile) == PM_STATS_NOMEM || pm_stats_summarize(imp, ni, import) == PM_STATS_NOMEM)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    free(c);
    free(imp);
    return rc;
}
