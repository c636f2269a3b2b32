/* npu-strategy: strategy_out.json. */
#include "parse_npu_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int truthy(const json_t *v)
{
    if (json_is_true(v))
        return 1;
    const char *s = json_string_value(v);
    return s && (!strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "TRUE"));
}

int pm_parse_npu_strategy(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    int rc = PM_OK;
    counters mc = {0}, hashes = {0};
    json_t *root = load_json(buf, len, "npu-strategy", err);
    if (!root)
        return PM_ERR_PARSE;
    double ops = 0, tiles = 0, tiled_ops = 0, vf_ops = 0;
    const char *loc;
    json_t *op;
    json_object_foreach(root, loc, op) {
        if (!json_is_object(op))
            continue;
        ops++;
        const char *s = json_string_value(json_object_get(op, "multiClusterStrategy"));
        if (s) {
            counter *c = counter_get(&mc, s, strlen(s));
            if (!c)
                goto nomem;
            c->value++;
        }
        double t = 1;
        json_t *ts = json_object_get(op, "tilingStrategy");
        if (json_is_object(ts)) {
            static const char *const dims[] = {"N", "C", "H", "W"};
            for (int d = 0; d < 4; d++) {
                int ok;
                double v = json_num(json_object_get(ts, dims[d]), &ok);
                if (ok && v > 0)
                    t *= v;
            }
        } else if (json_is_array(ts)) { /* tolerate a [N, C, H, W] list */
            size_t k;
            json_t *v;
            json_array_foreach(ts, k, v) {
                int ok;
                double d = json_num(v, &ok);
                if (ok && d > 0)
                    t *= d;
            }
        }
        if (t > 1)
            tiled_ops++;
        const char *h = json_string_value(json_object_get(op, "verticalFusionHash"));
        int vf = truthy(json_object_get(op, "verticalFusion"));
        int region = vf && h && *h && strcmp(h, "Null");
        if (vf)
            vf_ops++;
        if (region) {
            /* Every op of a VF region carries the region's tiling: count it once per region. */
            if (!counter_find(&hashes, h)) {
                if (!counter_get(&hashes, h, strlen(h)))
                    goto nomem;
                tiles += t;
            }
        } else {
            tiles += t;
        }
    }
    if ((rc = pm_report_add_metric(out, "npu.strategy.ops", ops)) ||
        (rc = pm_report_add_metric(out, "npu.tiles", tiles)) ||
        (rc = pm_report_add_metric(out, "npu.strategy.tiled_ops", tiled_ops)))
        goto nomem;
    for (size_t k = 0; k < mc.n; k++)
        if ((rc = add_metric2(out, "npu.strategy.mc.", mc.items[k].name, mc.items[k].value)))
            goto nomem;
    if ((rc = pm_report_add_metric(out, "npu.vf.ops", vf_ops)) ||
        (rc = pm_report_add_metric(out, "npu.vf.subgraphs", (double)hashes.n)))
        goto nomem;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    counters_free(&mc);
    counters_free(&hashes);
    json_decref(root);
    return rc;
}

static int sniff_npu_strategy(const char *b, size_t n) { return npu_is(b, n, PM_FMT_NPU_STRATEGY); }
const pm_format_row pm_format_npu_strategy = {"npu-strategy", pm_parse_npu_strategy, sniff_npu_strategy, 3,
                                              "ov-compile", 0, 1};
