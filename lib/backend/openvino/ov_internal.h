/* What the OpenVINO back end's files share (ov_api.c, ov_props.c, ov_compile.c, ov_result.c, ov_strategy.c):
 * the used subset of the C API, loaded with dlopen, and the helpers more than one of them calls. Other layers
 * use ov.h. */
#ifndef PM_OV_INTERNAL_H
#define PM_OV_INTERNAL_H

#include "ov.h"

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

/* ov_api.c: loading the library, OpenVINO's errors, the device list and property queries. */
int ov_fail(const ov_api *api, pm_err *err, ov_status_e st, const char *what);
int load_api(ov_api *api, const char *lib, char *used, size_t used_size, pm_err *err);
int check_device(const ov_api *api, ov_core_t *core, const char *device, int *present, char *list,
                 size_t list_size, pm_err *err);
void drop_last_err(const ov_api *api);
const char *read_prop(const ov_api *api, ov_core_t *core, ov_compiled_model_t *cm, const char *device,
                      const char *key, char *out, size_t size);
/* ov_props.c */
int props_set(pm_ov_props *p, const char *key, size_t key_len, const char *value, pm_err *err);
int is_npu(const char *device);
/* ov_strategy.c */
int copy_file(const char *from, const char *to, pm_err *err);

#endif
