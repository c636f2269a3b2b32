/* One cold compile through OpenVINO (read, compile, read back, export, timed import), and doctor's probe. */
#include "ov_internal.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void finish(const pm_ov_opts *o, pm_ov_result *r, int rc, const pm_err *err)
{
    if (o->on_result)
        o->on_result(r, rc, rc == PM_OK ? NULL : err->msg, o->on_result_ctx);
}

/* One compile's state, shared by its phases (setup, plan, read, compile, collect, export, import); the driver
 * frees what is set. */
typedef struct ov_compile_run {
    const pm_ov_opts *o;
    pm_ov_result *r;
    const char *device, *workdir, *export_path;
    ov_api api;
    ov_core_t *core;
    ov_model_t *model;
    ov_compiled_model_t *compiled, *imported;
    char *blob, *export_alloc, *bin_alloc;
    int saved_cwd, present;
} ov_compile_run;

/* Setup: the result's defaults, the library, its version, the core and the device (or the offline target). */
static int compile_setup(ov_compile_run *c, pm_err *err)
{
    const pm_ov_opts *o = c->o;
    pm_ov_result *r = c->r;
    const char *device = c->device;
    ov_version_t ver = {0};
    char devlist[512] = "";
    int rc;
    r->read_s = r->compile_s = r->export_s = r->import_s = -1;
    r->compile_user_s = r->compile_sys_s = -1;
    r->blob_bytes = r->weights_bytes = -1;
    r->npuw_default_kept = -1;
    r->instrumented = pm_ov_instrumented(o);
    snprintf(r->device, sizeof r->device, "%s", device);
    snprintf(r->platform, sizeof r->platform, "%s", o->platform ? o->platform : "");
    if (!o->model_xml)
        return pm_err_set(err, PM_ERR_USAGE, "no model given");
    if ((rc = pm_ov_build_props(o, NULL, 0, &r->props, err)))
        return rc;
    r->n_prop_args = 2 * r->props.n;

    /* NPUW names its submodels only on its own log lines, which it prints (release builds too) when this is
     * set; read as the library initialises, so set before loading it. A value the user set is kept. */
    if (is_npu(device) && o->window > 0 && setenv("OPENVINO_NPUW_LOG_LEVEL", "INFO", 0) != 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot set OPENVINO_NPUW_LOG_LEVEL");
    if ((rc = load_api(&c->api, o->lib, r->lib_path, sizeof r->lib_path, err)))
        return rc;
    ov_status_e st = c->api.get_version(&ver);
    if (st == 0) {
        snprintf(r->ov_version, sizeof r->ov_version, "%s", ver.buildNumber ? ver.buildNumber : "");
        snprintf(r->ov_description, sizeof r->ov_description, "%s", ver.description ? ver.description : "");
        c->api.version_free(&ver);
    }
    if ((st = c->api.core_create(&c->core)) != 0)
        return ov_fail(&c->api, err, st, "ov_core_create");
    c->present = 1;
    if ((rc = check_device(&c->api, c->core, device, &c->present, devlist, sizeof devlist, err)))
        return rc;
    if (!c->present && !(is_npu(device) && o->platform && *o->platform))
        return pm_err_set(err, PM_ERR_NOTFOUND, "device %s not available; OpenVINO lists: %s%s", device,
                          *devlist ? devlist : "(none)",
                          is_npu(device) ? " (to compile without an NPU, name the target: --platform NPU4000)" : "");
    if (c->present && o->offline_only && o->platform && *o->platform)
        return pm_err_set(err, PM_ERR_USAGE,
                          "this study compiles offline for %s, but this machine has an NPU: its runs would be "
                          "on-device compiles pooled with offline ones; run a copy of the spec without 'platform' "
                          "into another database",
                          o->platform);
    r->offline = !c->present;
    return PM_OK;
}

/* Plan: the properties this compile sends, pinned to what the release and the target have; the weights' size. */
static int compile_plan(ov_compile_run *c, pm_err *err)
{
    const pm_ov_opts *o = c->o;
    pm_ov_result *r = c->r;
    const char *device = c->device;
    char arch[64] = "";
    int rc;
    /* The target's architecture decides NPUW's default mode params: ask the device, else the platform. */
    if (c->present && is_npu(device) && o->window > 0 && pm_ov_instrumented(o))
        read_prop(&c->api, c->core, NULL, device, "DEVICE_ARCHITECTURE", arch, sizeof arch);
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
        return rc;
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
        return rc;
    r->mem_total_bytes = pm_ov_mem_total();
    if (o->model_bin)
        r->weights_bytes = file_bytes(o->model_bin);
    else {
        size_t n = strlen(o->model_xml);
        if (n > 4 && !strcmp(o->model_xml + n - 4, ".xml") && (c->bin_alloc = strdup(o->model_xml))) {
            memcpy(c->bin_alloc + n - 4, ".bin", 4);
            r->weights_bytes = file_bytes(c->bin_alloc);
        }
    }
    return PM_OK;
}

/* Read: the model, timed, and the strategy to replay put where the compiler looks for it. */
static int compile_read(ov_compile_run *c, pm_err *err)
{
    const pm_ov_opts *o = c->o;
    double t0 = pm_util_now();
    ov_status_e st = c->api.core_read_model(c->core, o->model_xml, o->model_bin, &c->model);
    if (st != 0) {
        int rc = ov_fail(&c->api, err, st, "ov_core_read_model");
        pm_err_wrap(err, "%s", o->model_xml);
        return rc;
    }
    c->r->read_s = pm_util_now() - t0;
    if (o->strategy_in) {
        char dest[4096];
        snprintf(dest, sizeof dest, "%s/strategy_in.json", c->workdir);
        char *a = realpath(o->strategy_in, NULL), *b = realpath(dest, NULL);
        int same = a && b && !strcmp(a, b);
        free(a);
        free(b);
        if (!same)
            return copy_file(o->strategy_in, dest, err);
    }
    return PM_OK;
}

/* Compile: the one timed ov_core_compile_model, in the work folder, with its CPU time and peak RSS. */
static int compile_run(ov_compile_run *c, pm_err *err)
{
    pm_ov_result *r = c->r;
    /* The compiler writes its trace files into the process's working directory. */
    c->saved_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->saved_cwd < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot open the current directory");
    if (chdir(c->workdir) != 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot enter %s", c->workdir);
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
    double t0 = pm_util_now();
    ov_status_e st = c->api.core_compile_model(
        c->core, c->model, c->device, (size_t)r->n_prop_args, &c->compiled, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
        a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22],
        a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36], a[37], a[38],
        a[39], a[40], a[41], a[42], a[43], a[44], a[45], a[46], a[47]);
    double t1 = pm_util_now();
    usage_now(&u1, &s1, &r->compile_maxrss_kb);
    fflush(stdout); /* the compiler's own output, before ours */
    if (fchdir(c->saved_cwd) != 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot return to the previous directory");
    if (st != 0) {
        int rc = ov_fail(&c->api, err, st, "ov_core_compile_model");
        pm_ov_refused_property(err->msg, r->refused_property, sizeof r->refused_property);
        return rc;
    }
    r->compile_s = t1 - t0;
    if (u0 >= 0 && u1 >= 0) {
        r->compile_user_s = u1 - u0;
        r->compile_sys_s = s1 - s0;
    }
    /* The source model is not needed after the compile: freed before the export and the import, so the
     * process does not hold model + compiled model + blob + imported copy at once. */
    c->api.model_free(c->model);
    c->model = NULL;
    return PM_OK;
}

/* Collect: what the compiled model (else the core) says of the compiler, the driver and the target. */
static int compile_collect(ov_compile_run *c, pm_err *err)
{
    const ov_api *api = &c->api;
    pm_ov_result *r = c->r;
    const char *device = c->device;
    int rc;
    const char *src =
        read_prop(api, c->core, c->compiled, device, "NPU_COMPILER_TYPE", r->compiler_type, sizeof r->compiler_type);
    snprintf(r->compiler_type_source, sizeof r->compiler_type_source, "%s", src);
    /* The compiler used: a pinned PLUGIN/DRIVER/MLIR is what ran; PREFER_PLUGIN only resolves on the compiled
     * model (an NPUW model may not answer, and the core's answer is the plugin default, not this compile's). */
    if (*r->compiler_type_set && strcmp(r->compiler_type_set, "PREFER_PLUGIN"))
        snprintf(r->compiler_type_resolved, sizeof r->compiler_type_resolved, "%s", r->compiler_type_set);
    else if (!strcmp(src, "compiled") && strcmp(r->compiler_type, "PREFER_PLUGIN"))
        snprintf(r->compiler_type_resolved, sizeof r->compiler_type_resolved, "%s", r->compiler_type);
    if (is_npu(device))
        read_compiler_version(api, c->core, c->compiled, device,
                              *r->compiler_type_resolved ? r->compiler_type_resolved : r->compiler_type_set, r);
    else
        read_prop(api, c->core, c->compiled, device, "NPU_COMPILER_VERSION", r->compiler_version,
                  sizeof r->compiler_version);
    if (is_npu(device) && c->o->window > 0 && (rc = read_effective(api, c->compiled, &r->effective, err)))
        return rc;
    pm_ov_decode_compiler_version(r->compiler_version, r->compiler_version_decoded,
                                  sizeof r->compiler_version_decoded);
    if (!r->offline)
        read_prop(api, c->core, c->compiled, device, "NPU_DRIVER_VERSION", r->driver_version, sizeof r->driver_version);
    read_prop(api, c->core, c->compiled, device, "DEVICE_ARCHITECTURE", r->device_arch, sizeof r->device_arch);
    read_prop(api, c->core, c->compiled, device, "COMPILATION_NUM_THREADS", r->num_threads, sizeof r->num_threads);
    return PM_OK;
}

/* Export: the blob (asked for, or needed by the import), timed; the compiled model is freed after it. */
static int compile_export(ov_compile_run *c, pm_err *err)
{
    const pm_ov_opts *o = c->o;
    pm_ov_result *r = c->r;
    int npuw = o->window > 0 && is_npu(c->device);
    c->export_path = o->export_path;
    if (!c->export_path && o->do_import) {
        if (asprintf(&c->export_alloc, "%s/model.blob", c->workdir) < 0) {
            c->export_alloc = NULL;
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        c->export_path = c->export_alloc;
    }
    for (int i = 0; i < r->props.n; i++)
        if (npuw && !strcmp(r->props.items[i].key, "CACHE_MODE"))
            r->blob_weightless = strcmp(r->props.items[i].value, "OPTIMIZE_SPEED") != 0;
    if (c->export_path && npuw && !r->blob_weightless) {
        int has_cache_mode = 0;
        for (int i = 0; i < r->props.n; i++)
            has_cache_mode |= !strcmp(r->props.items[i].key, "CACHE_MODE");
        r->blob_weightless = !has_cache_mode; /* NPUW's default is OPTIMIZE_SIZE: weightless */
    }
    if (c->export_path) {
        double t0 = pm_util_now();
        ov_status_e st = c->api.export_model(c->compiled, c->export_path);
        double t1 = pm_util_now();
        if (st != 0)
            return ov_fail(&c->api, err, st, "ov_compiled_model_export_model");
        r->export_s = t1 - t0;
        r->blob_bytes = file_bytes(c->export_path);
        double eu, es;
        usage_now(&eu, &es, &r->export_maxrss_kb);
    }
    /* Everything asked of the compiled model is read: free it before the blob is read back and imported. */
    c->api.compiled_free(c->compiled);
    c->compiled = NULL;
    return PM_OK;
}

/* Import, first: whether to try. The import reads the whole weights bank back: past a share of the RAM it would
 * likely be killed, and a killed import says less than a stated skip. Else the caller writes its interim line. */
static void compile_import_gate(ov_compile_run *c)
{
    const pm_ov_opts *o = c->o;
    pm_ov_result *r = c->r;
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
}

/* Import: the blob read back and imported, timed. A failed warm measurement, not a failed compile: the compile
 * above succeeded, so a failure here is said in the result and no error. */
static void compile_import(ov_compile_run *c)
{
    const pm_ov_opts *o = c->o;
    pm_ov_result *r = c->r;
    compile_import_gate(c);
    if (o->do_import && r->offline) {
        snprintf(r->import_skipped, sizeof r->import_skipped, "offline compile: no %s device to import on", c->device);
        return;
    }
    if (!o->do_import || r->import_skipped_ram)
        return;
    size_t size = 0;
    pm_err rerr;
    pm_err_clear(&rerr);
    /* Reading the blob back can fail for want of memory too: a failed warm measurement, the compile stands. */
    if (pm_util_read_file(c->export_path, &c->blob, &size, &rerr) != PM_OK) {
        snprintf(r->import_error, sizeof r->import_error, "reading the blob back: %.900s", rerr.msg);
        return;
    }
    double t0 = pm_util_now();
    ov_status_e st = c->api.core_import_model(c->core, c->blob, size, c->device, &c->imported);
    double t1 = pm_util_now();
    if (st != 0) {
        pm_err ierr;
        pm_err_clear(&ierr);
        ov_fail(&c->api, &ierr, st, "ov_core_import_model");
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

int pm_ov_compile(const pm_ov_opts *o, pm_ov_result *r, pm_err *err)
{
    memset(r, 0, sizeof *r);
    ov_compile_run c = {.o = o, .r = r, .device = o->device ? o->device : "NPU", .saved_cwd = -1};
    c.workdir = o->workdir && *o->workdir ? o->workdir : ".";
    int rc = compile_setup(&c, err);
    if (rc == PM_OK)
        rc = compile_plan(&c, err);
    if (rc == PM_OK)
        rc = compile_read(&c, err);
    if (rc == PM_OK)
        rc = compile_run(&c, err);
    if (rc == PM_OK)
        rc = compile_collect(&c, err);
    if (rc == PM_OK)
        rc = compile_export(&c, err);
    if (rc == PM_OK)
        compile_import(&c);
    if (c.saved_cwd >= 0)
        close(c.saved_cwd);
    finish(o, r, rc, err); /* the caller's result line goes out before OpenVINO tears down */
    if (c.imported)
        c.api.compiled_free(c.imported);
    if (c.compiled)
        c.api.compiled_free(c.compiled);
    if (c.model)
        c.api.model_free(c.model);
    if (c.core)
        c.api.core_free(c.core);
    free(c.blob);
    free(c.export_alloc);
    free(c.bin_alloc);
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
