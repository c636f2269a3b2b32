/* The OpenVINO C API as the back end uses it: dlopen libopenvino_c (never unloaded), its errors, devices and
 * property queries. */
#include "ov_internal.h"
#include "util.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
    "OK", "GENERAL_ERROR", "NOT_IMPLEMENTED", "NETWORK_NOT_LOADED", "PARAMETER_MISMATCH", "NOT_FOUND",
    "OUT_OF_BOUNDS", "UNEXPECTED", "REQUEST_BUSY", "RESULT_NOT_READY", "NOT_ALLOCATED", "INFER_NOT_STARTED",
    "NETWORK_NOT_READ", "INFER_CANCELLED", "INVALID_C_PARAM", "UNKNOWN_C_ERROR", "NOT_IMPLEMENT_C_METHOD",
    "UNKNOW_EXCEPTION"};

/* ov_get_last_err_msg() returns a heap copy the caller frees with ov_free (ov_core.cpp); ov_get_error_info()
 * a static string. */
int ov_fail(const ov_api *api, pm_err *err, ov_status_e st, const char *what)
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

int load_api(ov_api *api, const char *lib, char *used, size_t used_size, pm_err *err)
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


/* Virtual devices (AUTO, HETERO:..., MULTI:...) are resolved by OpenVINO itself: not checked here (*present
 * = 1). Otherwise *present says whether OpenVINO lists the device; list gets the whole list. */
int check_device(const ov_api *api, ov_core_t *core, const char *device, int *present, char *list,
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
void drop_last_err(const ov_api *api)
{
    if (api->last_err_msg) {
        const char *m = api->last_err_msg();
        if (m)
            api->free_str(m);
    }
}

/* From the compiled model, else from the core (then it is the plugin's default, not necessarily what this
 * compile used: NPUW compiled models may not answer). Returns "compiled", "core" or "". */
const char *read_prop(const ov_api *api, ov_core_t *core, ov_compiled_model_t *cm, const char *device,
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
