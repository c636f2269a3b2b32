/* npu-schedule-trace: compileTimeScheduleTrace.json. */
#include "parse_npu_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_parse_npu_schedule(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK;
    counters cats = {0}, variant_threads = {0};
    json_t *root = load_json(buf, len, "npu-schedule-trace", err);
    if (!root)
        return PM_ERR_PARSE;
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        rc = pm_err_set(err, PM_ERR_PARSE, "npu-schedule-trace: line 1: no traceEvents array");
        goto cleanup;
    }
    static const char *const fixed[] = {"DMA", "DPU", "SW", "M2I"};
    for (int i = 0; i < 4; i++)
        if (!counter_get(&cats, fixed[i], strlen(fixed[i])))
            goto nomem;
    double tasks = 0, dur_sum = 0, t_min = 0, t_max = 0, variants = 0;
    int have_t = 0;
    size_t i;
    json_t *ev;
    /* Threads named "... Variants" carry each DPU task once more per variant: not tasks of their own. */
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *nm = json_string_value(json_object_get(ev, "name"));
        const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        if (ph && !strcmp(ph, "M") && nm && !strcmp(nm, "thread_name") && tn && strstr(tn, "Variants")) {
            char id[64];
            snprintf(id, sizeof id, "%lld/%lld", json_integer_value(json_object_get(ev, "pid")),
                     json_integer_value(json_object_get(ev, "tid")));
            if (!counter_get(&variant_threads, id, strlen(id)))
                goto nomem;
        }
    }
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || strcmp(ph, "X"))
            continue;
        const char *nm = json_string_value(json_object_get(ev, "name"));
        char id[64];
        snprintf(id, sizeof id, "%lld/%lld", json_integer_value(json_object_get(ev, "pid")),
                 json_integer_value(json_object_get(ev, "tid")));
        int on_variant_thread = 0;
        for (size_t k = 0; k < variant_threads.n; k++)
            on_variant_thread |= !strcmp(variant_threads.items[k].name, id);
        if (on_variant_thread || (nm && strstr(nm, "/variant_"))) {
            variants++;
            continue;
        }
        tasks++;
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        if (cat) {
            counter *c = counter_get(&cats, cat, strlen(cat));
            if (!c)
                goto nomem;
            c->value++;
        }
        int ok_ts, ok_dur;
        double ts = json_num(json_object_get(ev, "ts"), &ok_ts);
        double dur = json_num(json_object_get(ev, "dur"), &ok_dur);
        if (ok_dur)
            dur_sum += dur;
        if (ok_ts) {
            double end = ts + (ok_dur ? dur : 0);
            if (!have_t || ts < t_min)
                t_min = ts;
            if (!have_t || end > t_max)
                t_max = end;
            have_t = 1;
        }
    }
    if ((rc = pm_report_add_metric(out, "npu.tasks", tasks)) ||
        (rc = pm_report_add_metric(out, "npu.tasks.dpu_variants", variants)))
        goto nomem;
    for (size_t k = 0; k < cats.n; k++)
        if ((rc = add_metric2(out, "npu.tasks.", cats.items[k].name, cats.items[k].value)))
            goto nomem;
    if ((rc = pm_report_add_metric(out, "npu.task_dur_us", dur_sum)))
        goto nomem;
    if (have_t && (rc = pm_report_add_metric(out, "npu.schedule_span_us", t_max - t_min)))
        goto nomem;
    json_t *stats = json_object_get(root, "taskStatistics");
    const char *key;
    json_t *val;
    json_object_foreach(stats, key, val) {
        int ok;
        double d = json_num(val, &ok);
        char name[200];
        if (ok) {
            snprintf(name, sizeof name, "%s", key);
            if ((rc = add_metric2(out, "npu.task_stats.", name, d)))
                goto nomem;
        } else if (json_is_object(val)) {
            const char *k2;
            json_t *v2;
            json_object_foreach(val, k2, v2) {
                d = json_num(v2, &ok);
                snprintf(name, sizeof name, "%s.%s", key, k2);
                if (ok && (rc = add_metric2(out, "npu.task_stats.", name, d)))
                    goto nomem;
            }
        }
    }
    int ok;
    double freq = json_num(json_object_get(json_object_get(root, "workpoint"), "freq"), &ok);
    if (ok && (rc = pm_report_add_metric(out, "npu.workpoint_freq_mhz", freq)))
        goto nomem;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    counters_free(&variant_threads);
    counters_free(&cats);
    json_decref(root);
    return rc;
}

static int sniff_npu_schedule(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_SCHEDULE); }
const pm_format_row pm_format_npu_schedule = {"npu-schedule-trace", pm_parse_npu_schedule, sniff_npu_schedule, 2,
                                              "ov-compile", 0, 1};
