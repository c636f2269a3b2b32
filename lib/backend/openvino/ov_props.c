/* What a compile is sent: the property list, the NPUW values and words by release, the refused key, the split
 * inferred from NPUW's compile order, and the ov-compile step a sweep runs. */
#include "ov_internal.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void pm_ov_props_free(pm_ov_props *p)
{
    for (int i = 0; i < p->n; i++)
        pm_free_all(p->items[i].key, p->items[i].value);
    p->n = 0;
}

void pm_ov_result_free(pm_ov_result *r)
{
    pm_ov_props_free(&r->props);
    pm_ov_props_free(&r->effective);
}

int props_set(pm_ov_props *p, const char *key, size_t key_len, const char *value, pm_err *err)
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

int is_npu(const char *device)
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
