/* The openvino back end's [openvino] section (pm_ov_spec, sweep_ov.h) and the model path a config compiles:
 * below the row (openvino.c) and its fix side (ov_fix.c), which both read it. */
#include "sweep_ov.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embedded.h"
#include "ov.h"
#include "util.h"

/* Every key [openvino] reads (ov_scalar), which "did you mean" suggests from. */
/* clang-format off */
static const char *const openvino_keys[] = {"device", "lib", "log_level", "props", "model", "schedule_trace",
                                            "strategy_json", "reuse_strategy", "task_stats", "platform",
                                            "min_response_len", "prefill_hint", "generate_pyramid",
                                            "prefill_attention_hint", "generate_attention_hint", "shared_head",
                                            "compiler_type", "import_max_ram_share", "timing_twins", NULL};
/* clang-format on */

/* One of the allowed words (NULL-terminated) copied into dst, else an error listing them. */
static int one_of(const char *v, const char *const *allowed, const char *list, char *dst, size_t cap, pm_err *err,
                  const char *what)
{
    for (; *allowed; allowed++)
        if (!strcmp(v, *allowed))
            return pm_spec_str(dst, cap, v, err, what);
    return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (%s)", what, v, list);
}

static int yes_no(const char *v, char *dst, size_t cap, pm_err *err, const char *what)
{
    int b, rc = pm_spec_bool(v, &b, err, what);
    if (!rc)
        snprintf(dst, cap, "%s", b ? "YES" : "NO");
    return rc;
}

static int ov_scalar(pm_spec_entry *e, pm_ov_spec *s, pm_err *err)
{
    static const char *const prefill[] = {"STATIC", "DYNAMIC", NULL};
    static const char *const attention[] = {"STATIC", "DYNAMIC", "PYRAMID", "HFA", NULL};
    /* MLIR is ≤ 2025.3's, PLUGIN and PREFER_PLUGIN 2026's: the compile checks the word against the release. */
    static const char *const compilers[] = {"DRIVER", "PLUGIN", "PREFER_PLUGIN", "MLIR", NULL};
    char what[160];
    pm_spec_entry_what(e, what, sizeof what);
    const char *n = e->name, *v = e->value;
    if (!strcmp(n, "device")) return pm_spec_str(s->device, sizeof s->device, v, err, what);
    if (!strcmp(n, "lib")) return pm_spec_str(s->lib, sizeof s->lib, v, err, what);
    if (!strcmp(n, "log_level")) return pm_spec_str(s->log_level, sizeof s->log_level, v, err, what);
    if (!strcmp(n, "props")) return pm_spec_str(s->props, sizeof s->props, v, err, what);
    if (!strcmp(n, "model")) return pm_spec_str(s->model_template, sizeof s->model_template, v, err, what);
    if (!strcmp(n, "schedule_trace")) return pm_spec_bool(v, &s->schedule_trace, err, what);
    if (!strcmp(n, "strategy_json")) return pm_spec_bool(v, &s->strategy_json, err, what);
    if (!strcmp(n, "reuse_strategy")) return pm_spec_bool(v, &s->reuse_strategy, err, what);
    if (!strcmp(n, "task_stats")) return pm_spec_bool(v, &s->task_stats, err, what);
    if (!strcmp(n, "timing_twins"))
        return pm_spec_bool(v, &s->timing_twins, err, what);
    if (!strcmp(n, "platform")) return pm_spec_str(s->platform, sizeof s->platform, v, err, what);
    if (!strcmp(n, "min_response_len")) return pm_spec_int(v, 1, 1 << 20, &s->min_response_len, err, what);
    if (!strcmp(n, "prefill_hint"))
        return one_of(v, prefill, "STATIC, DYNAMIC", s->prefill_hint, sizeof s->prefill_hint, err, what);
    if (!strcmp(n, "prefill_attention_hint"))
        return one_of(v, attention, PM_OV_ATTENTION_HINTS, s->prefill_attention_hint, sizeof s->prefill_attention_hint, err, what);
    if (!strcmp(n, "generate_attention_hint"))
        return one_of(v, attention, PM_OV_ATTENTION_HINTS, s->generate_attention_hint, sizeof s->generate_attention_hint, err, what);
    if (!strcmp(n, "compiler_type"))
        return one_of(v, compilers, PM_OV_COMPILER_TYPES, s->compiler_type, sizeof s->compiler_type, err, what);
    if (!strcmp(n, "import_max_ram_share")) {
        char *end;
        double share = strtod(v, &end);
        if (end == v || *end || !(share >= 0 && share <= 1))
            return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not a share of RAM from 0 (never skip) to 1", what, v);
        s->import_max_ram_share = share;
        return PM_OK;
    }
    if (!strcmp(n, "shared_head")) return yes_no(v, s->shared_head, sizeof s->shared_head, err, what);
    if (!strcmp(n, "generate_pyramid")) return yes_no(v, s->generate_pyramid, sizeof s->generate_pyramid, err, what);
    return pm_spec_unknown_key(e, what, openvino_keys, err);
}

int pm_ov_spec_parse(pm_spec_entries *es, pm_ov_spec *out, pm_err *err)
{
    *out = (pm_ov_spec){.device = "NPU", .log_level = "LOG_INFO", .import_max_ram_share = PM_OV_IMPORT_RAM_SHARE};
    for (int i = 0; i < es->n; i++) {
        int rc = strcmp(es->items[i].section, "openvino") ? PM_OK : ov_scalar(&es->items[i], out, err);
        if (rc)
            return rc;
    }
    return PM_OK;
}

int pm_ov_spec_check(pm_spec_entries *es, pm_err *err)
{
    pm_ov_spec *tmp = malloc(sizeof *tmp);   /* 2 KB: not on the stack of every caller */
    if (!tmp)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = pm_ov_spec_parse(es, tmp, err);
    free(tmp);
    return rc;
}

pm_ov_spec *pm_ov_spec_of(const pm_spec *s)
{
    return s->backend_data;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Replaces {family} {size} {precision} {window} {resolution} in tmpl ({size} is empty for a CNN, {window} for
 * a CNN and {resolution} for an LLM are 0); relative results are taken from the spec's folder. */
static int expand_template(const pm_spec *s, const char *tmpl, const pm_spec_config *c, char *out, size_t cap,
                           pm_err *err)
{
    char buf[1024] = "";
    char num[16], res[16];
    pm_workload w = pm_spec_workload(c);
    snprintf(num, sizeof num, "%d", w.window);
    snprintf(res, sizeof res, "%d", w.resolution);
    for (const char *p = tmpl; *p;) {
        const char *rep = NULL;
        size_t skip = 0;
        if (!strncmp(p, "{family}", 8)) rep = or_empty(w.family), skip = 8;
        else if (!strncmp(p, "{size}", 6)) rep = or_empty(w.size), skip = 6;
        else if (!strncmp(p, "{precision}", 11)) rep = or_empty(w.precision), skip = 11;
        else if (!strncmp(p, "{window}", 8)) rep = num, skip = 8;
        else if (!strncmp(p, "{resolution}", 12)) rep = res, skip = 12;
        size_t len = strlen(buf);
        if (rep) {
            snprintf(buf + len, sizeof buf - len, "%s", rep);
            p += skip;
        } else if (len + 1 < sizeof buf) {
            buf[len] = *p++;
            buf[len + 1] = '\0';
        } else {
            p++;
        }
    }
    const char *slash = strrchr(s->path, '/');
    int n;
    if (buf[0] != '/' && slash)
        n = snprintf(out, cap, "%.*s/%s", (int)(slash - s->path), s->path, buf);
    else
        n = snprintf(out, cap, "%s", buf);
    if (n < 0 || (size_t)n >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "model path too long: %s", buf);
    return PM_OK;
}

int pm_sweep_ov_model(const pm_spec *s, const pm_spec_config *c, char *out, size_t cap, pm_err *err)
{
    return expand_template(s, pm_ov_spec_of(s)->model_template, c, out, cap, err);
}
