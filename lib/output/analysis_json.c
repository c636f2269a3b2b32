/* JSON form of the report: the frame (sweep, backend, meta), then each section's keys in the section table's
 * order (report_sections.h; the sections' files write them). Schema (numbers NaN/unmeasured -> null):
 * { "sweep", "backend", "meta": <sweep.meta_json parsed or null>, "repeats", "runs_ok", "runs_failed",
 *   "stages": [names],
 *   "configs": [{ "key","kind","family","size","window","precision","resolution","layers","variant",
 *                 "cold_runs","warm_runs","failed_runs", "wall_s": {"mean" (geometric),"lo","hi","n"} (lo/hi null: n < 3), "user_wall",
 *                 "dominant_stage", "dominant_share", "dominant_pass": {"tool","name","mean_s","share"},
 *                 "shares": {stage: {"mean","lo","hi"}}, "warm_s", "cache_ratio",
 *                 "ir": {"ops","llvm_ops","npu_tasks","npu_tiles"}, "stage_ir_ops": {stage: ops at its entry},
 *                 "noise": {"cv","mad_outliers","load1","contended","cpu_ratio","starved_tool"},
 *                 "overhead": {"process_overhead_s","startup_s","outside_passes_s","process_overhead_share",
 *                              "startup_share","outside_passes_share"} (start-up not measured: those null) }],
 *   "noise": {"baseline" ("per-tool null-input runs" | "p90 of user/wall"),"configs_on_p90","user_wall_baseline",
 *             "cpus","contended","noisy"},
 *   "startup": {"measured","recorded" (false: database older than the start-up runs),"contended",
 *               "tools":[{"tool","runs","failed","wall_s","user_s","sys_s","cpu_wall","contended","note"}]},
 *   "regimes": {KIND ("llm"|"cnn"|"command"): {"precision","variant","cells":[{"row","col","stage","share","configs"}],
 *                              "boundaries":[text]}},
 *   "handoff": {"kind","x","x_is_axis","log_x","series_axes","series":[label],"points":[{"config","series","x"}],
 *               "trends":[{"stage","slope","intercept","n"}], "series_js_distance", "series_pairs"},
 *   "fingerprints": [{"kind","figure","bar_axes","held","bars":[{"label","config"}]}],
 *   "fits": [{"tool","pass","stage","x_metric","n","exponent","lo","hi","r2","superlinear","max_share","user_wall",
 *             "npuw_left_out"}], "fits_x_note" (only when the x axes follow a fallback: a store without the
 *             sweep's recorded fit_sizes),
 *   "precision": {"window","base","time":[{"precision","points":[{"size","wall_s"}]}],
 *                 "ratio":[{"precision","points":[{"size","ratio"}]}], "crossovers":[text]},
 *   "parallelism": {"tools":{tool:user_wall}, "stages":{stage:user_wall}},
 *   "fixes": [{"stage","configs","contended" (then no fix),"tool","pass","share","exponent","exponent_lo","user_wall","cache_ratio",
 *              "startup_share","outside_share","fix"}],
 *   "ab": {"rule": text, "comparisons": [{"variant","against","axis": null (variants)|"precision","error": text|null,
 *          "summary": compare's summary, "configs": [{"key","key_a","key_b","wall": compare's stat}]}]} }

 */
#include "analysis.h"
#include "json_out.h"
#include "report.h"

json_t *pm_report_json(const pm_report_ctx *x)
{
    const pm_analysis *a = x->a;
    json_t *root = json_object();
    if (!root)
        return NULL;
    json_object_set_new(root, "sweep", pm_report_jstr(a->sweep));
    json_object_set_new(root, "backend", pm_report_jstr(a->backend));
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    json_object_set_new(root, "meta", meta ? meta : json_null());
    size_t n;
    const pm_report_section *const *s = pm_report_sections(&n);
    for (size_t i = 0; i < n; i++)
        if (s[i]->json && s[i]->json(x, root)) {
            json_decref(root);
            return NULL;
        }
    return root;
}

json_t *pm_analysis_json(const pm_analysis *a)
{
    pm_report_ctx x = {.a = a};
    return pm_report_json(&x);
}

int pm_report_write_json(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    json_t *j = pm_report_json(x);
    if (!j)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_json_stamp(j, "wall_s", "s", "warm_s", "s", "mean_s", "s", "share", "fraction (0..1) of the cold compile wall",
                  "shares", "fraction (0..1) of the cold compile wall", "dominant_share", "fraction (0..1)",
                  "cache_ratio", "cold wall / warm wall", "user_wall", "user CPU s / wall s", "exponent",
                  "k in time = a * size^k", "max_share", "fraction (0..1)", "window", "tokens", "resolution",
                  "pixels", NULL);
    int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', f);
    json_decref(j);
    return rc || ferror(f) ? pm_err_set(err, PM_ERR_IO, "writing the report") : PM_OK;
}
