/* The child's result line (PASSMAP-OV-RESULT {json}): written, found and read back, and summarised. */
#include "ov_internal.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
