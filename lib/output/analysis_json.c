/* JSON form of the analysis. Schema (numbers NaN/unmeasured -> null):
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
 *             "npuw_left_out"}],
 *   "precision": {"window","base","time":[{"precision","points":[{"size","wall_s"}]}],
 *                 "ratio":[{"precision","points":[{"size","ratio"}]}], "crossovers":[text]},
 *   "parallelism": {"tools":{tool:user_wall}, "stages":{stage:user_wall}},
 *   "fixes": [{"stage","configs","contended" (then no fix),"tool","pass","share","exponent","exponent_lo","user_wall","cache_ratio",
 *              "startup_share","outside_share","fix"}],
 *   "ab": {"rule": text, "comparisons": [{"variant","against","axis": null (variants)|"precision","error": text|null,
 *          "summary": compare's summary, "configs": [{"key","key_a","key_b","wall": compare's stat}]}]} }
 */
#include "analysis.h"
#include "npu_report.h"
#include "report_tables.h"

#include <math.h>

static json_t *num(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *ci(pm_ci c)
{
    /* times: mean is the geometric mean; lo/hi null when n < 3 (no interval) */
    return json_pack("{s:o,s:o,s:o,s:i}", "mean", num(c.mean), "lo", num(c.lo), "hi", num(c.hi), "n", c.n);
}

static json_t *regime(const pm_analysis *a, const pm_an_regime *r)
{
    json_t *cells = json_array(), *b = json_array();
    for (size_t i = 0; i < r->n_cells; i++)
        json_array_append_new(cells, json_pack("{s:s,s:i,s:s,s:o,s:i}", "row", r->cells[i].row, "col", r->cells[i].col,
                                               "stage", a->stages[r->cells[i].stage], "share", num(r->cells[i].share),
                                               "configs", r->cells[i].n_configs));
    for (size_t i = 0; i < r->n_boundaries; i++)
        json_array_append_new(b, json_string(r->boundaries[i]));
    return json_pack("{s:o,s:o,s:o,s:o}", "precision", str(r->precision), "variant", json_string(r->variant ? r->variant : ""), "cells", cells,
                     "boundaries", b);
}

static json_t *series(const pm_an_series *s, size_t n, const char *yname)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < n; k++) {
        json_t *pts = json_array();
        for (size_t i = 0; i < s[k].n; i++)
            json_array_append_new(pts, json_pack("{s:o,s:o}", "size", str(s[k].xlabel[i]), yname, num(s[k].y[i])));
        json_array_append_new(arr, json_pack("{s:s,s:o}", "precision", s[k].label, "points", pts));
    }
    return arr;
}

/* The in-sweep A/B: compare's own JSON (pm_compare_to_json), its summary and per-config wall stats, so the
 * fields and marks mean what they mean in `passmap compare --json`. */
static json_t *ab_json(const pm_analysis *a)
{
    char legend[2048];
    pm_rt_sig_legend(legend, sizeof legend, a);
    json_t *list = json_array();
    for (size_t i = 0; list && i < a->n_ab; i++) {
        const pm_an_ab *x = &a->ab[i];
        json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "variant", x->variant, "against", x->against, "axis",
                              str(x->axis), "error", str(x->error));
        json_t *cj = x->error ? NULL : pm_compare_to_json(&x->cmp);
        json_t *cfgs = json_array();
        size_t k;
        json_t *c;
        json_array_foreach(cj ? json_object_get(cj, "configs") : NULL, k, c)
            json_array_append_new(cfgs, json_pack("{s:O,s:O,s:O,s:O}", "key", json_object_get(c, "key"), "key_a",
                                                  json_object_get(c, "key_a"), "key_b", json_object_get(c, "key_b"),
                                                  "wall", json_object_get(c, "wall")));
        json_t *sum = cj ? json_incref(json_object_get(cj, "summary")) : json_null();
        json_object_set_new(o, "summary", sum ? sum : json_null());
        json_object_set_new(o, "configs", cfgs);
        json_decref(cj);
        json_array_append_new(list, o);
    }
    return json_pack("{s:s,s:o}", "rule", legend, "comparisons", list ? list : json_array());
}

json_t *pm_analysis_json(const pm_analysis *a)
{
    json_t *root = json_object();
    json_object_set_new(root, "sweep", str(a->sweep));
    json_object_set_new(root, "backend", str(a->backend));
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    json_object_set_new(root, "meta", meta ? meta : json_null());
    json_t *fixes = a->fix_json ? json_loads(a->fix_json, 0, NULL) : NULL;
    if (fixes)
        json_object_set_new(root, "proven_fixes", fixes);
    json_t *builds = json_array();   /* the compiler identity: each tool build the runs used */
    for (size_t i = 0; i < a->n_builds; i++)
        json_array_append_new(builds, json_pack("{s:s,s:s,s:s,s:s,s:o}", "name", a->builds[i].name, "path",
                                                a->builds[i].path, "version_text", a->builds[i].version_text, "hash",
                                                a->builds[i].hash, "hosts", str(a->builds[i].host)));
    json_object_set_new(root, "tools", builds);
    json_object_set_new(root, "mixed_builds", json_boolean(a->mixed_builds));
    /* the headline's fix, from passmap fix's plan and proven rows (pm_analysis_fix_words) */
    json_object_set_new(root, "top_fix", str(a->fix_headline));
    json_object_set_new(root, "repeats", json_integer(a->max_repeats));
    json_object_set_new(root, "runs_ok", json_integer(a->n_runs_ok));
    json_object_set_new(root, "runs_failed", json_integer(a->n_runs_failed));
    if (a->n_trace_runs)
        json_object_set_new(root, "trace_granularity",
                            json_pack("{s:i, s:s}", "runs", a->n_trace_runs, "note", PM_AN_TRACE_GRANULARITY));
    /* runs that exited 0 without a readable timing report (counted in runs_failed): no stage, regime or fix */
    json_object_set_new(root, "no_report",
                        json_pack("{s:i, s:i, s:s?, s:s}", "runs", a->n_runs_no_report, "configs",
                                  a->n_configs_no_report, "reason", a->no_report_note, "hint", PM_AN_NO_REPORT_HINT));
    json_t *stages = json_array();
    for (size_t s = 0; s < a->n_stages; s++)
        json_array_append_new(stages, json_string(a->stages[s]));
    json_object_set_new(root, "stages", stages);

    json_t *cfgs = json_array();
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:i,s:o,s:i,s:i,s:o,s:i,s:i,s:i}", "key", str(c->key), "kind",
                              str(c->kind), "family", str(c->family), "size", str(c->size), "window", c->window,
                              "precision", str(c->precision), "resolution", c->resolution, "layers", c->layers,
                              "variant", json_string(c->variant ? c->variant : ""), "cold_runs", c->n_cold, "warm_runs", c->n_warm,
                              "failed_runs", c->n_failed);
        /* the config's identity as its axes (name=value), and the run metrics it carries (means) */
        json_t *axes = json_object();
        for (size_t k = 0; k < c->n_params; k++)
            json_object_set_new(axes, c->params[k].name, json_string(c->params[k].value));
        json_object_set_new(o, "axes", axes);
        json_t *mets = json_object();
        for (size_t k = 0; k < c->n_metrics; k++)
            json_object_set_new(mets, c->metrics[k].name, num(c->metrics[k].mean));
        json_object_set_new(o, "metrics", mets);
        json_object_set_new(o, "wall_s", ci(c->wall));
        json_object_set_new(o, "user_wall", num(c->user_wall));
        int d = c->dominant_stage;
        json_object_set_new(o, "dominant_stage", d >= 0 ? json_string(a->stages[d]) : json_null());
        json_object_set_new(o, "dominant_share", d >= 0 ? num(c->share[d].mean) : json_null());
        json_object_set_new(o, "dominant_pass",
                            c->n_passes ? json_pack("{s:s,s:s,s:o,s:o}", "tool", c->passes[0].tool, "name",
                                                    c->passes[0].name, "mean_s", num(c->passes[0].mean_s), "share",
                                                    num(c->passes[0].share))
                                        : json_null());
        json_t *sh = json_object();
        for (size_t s = 0; s < a->n_stages && c->n_cold; s++)
            json_object_set_new(sh, a->stages[s], ci(c->share[s]));
        json_object_set_new(o, "shares", sh);
        json_object_set_new(o, "warm_s", num(c->warm_s));
        json_object_set_new(o, "cache_ratio", num(c->cache_ratio));
        json_object_set_new(o, "ir", json_pack("{s:o,s:o,s:o,s:o}", "ops", num(c->ir_ops), "llvm_ops", num(c->llvm_ops),
                                               "npu_tasks", num(c->npu_tasks), "npu_tiles", num(c->npu_tiles)));
        json_t *stage_ir = json_object();
        for (size_t s = 0; c->stage_ir && s < a->n_stages; s++)
            if (!isnan(c->stage_ir[s]))
                json_object_set_new(stage_ir, a->stages[s], json_real(c->stage_ir[s]));
        json_object_set_new(o, "stage_ir_ops", stage_ir);
        json_object_set_new(o, "noise", json_pack("{s:o,s:i,s:o,s:b,s:o,s:o}", "cv", num(c->cv), "mad_outliers",
                                                  c->n_outliers, "load1", num(c->load1), "contended", c->contended,
                                                  "cpu_ratio", num(c->cpu_ratio), "starved_tool", str(c->starved_tool)));
        int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD);
        if (over >= 0 && c->n_cold)
            json_object_set_new(o, "overhead",
                                json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "process_overhead_s", num(c->stage_s[over]),
                                          "startup_s", num(c->startup_s), "outside_passes_s", num(c->outside_s),
                                          "process_overhead_share", num(c->share[over].mean), "startup_share",
                                          num(c->startup_share), "outside_passes_share", num(c->outside_share)));
        json_array_append_new(cfgs, o);
    }
    json_object_set_new(root, "configs", cfgs);
    json_object_set_new(root, "noise", json_pack("{s:s,s:i,s:o,s:i,s:i,s:i}", "baseline",
                                                 a->startup_measured ? "per-tool null-input runs" : "p90 of user/wall",
                                                 "configs_on_p90", a->n_baseline_p90, "user_wall_baseline",
                                                 num(a->user_wall_baseline), "cpus", a->cpus, "contended",
                                                 a->n_contended, "noisy", a->n_noisy));
    json_t *su = json_array();
    for (size_t i = 0; i < a->n_startup; i++) {
        const pm_an_startup *t = &a->startup[i];
        json_array_append_new(su, json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:b,s:o}", "tool", t->tool, "runs", t->n_ok,
                                            "failed", t->n_failed, "wall_s", num(t->wall_s), "user_s", num(t->user_s),
                                            "sys_s", num(t->sys_s), "cpu_wall", num(t->cpu_wall), "contended",
                                            t->contended, "note", str(t->note)));
    }
    json_object_set_new(root, "startup", json_pack("{s:b,s:b,s:b,s:o}", "measured", a->startup_measured, "recorded",
                                                   a->startup_table, "contended", a->startup_contended, "tools", su));
    json_t *regimes = json_object();   /* keyed by kind ("llm", "cnn"; "command": the map over parameters) */
    for (size_t i = 0; i < a->n_regimes; i++) {
        const pm_an_regime *rg = &a->regimes[i];
        json_t *o = regime(a, rg);
        if (rg->others) {
            json_object_set_new(o, "rows", str(rg->row_axis));
            json_object_set_new(o, "cols", str(rg->col_axis));
        }
        json_object_set_new(regimes, rg->kind, o);
    }
    json_object_set_new(root, "regimes", regimes);
    const pm_an_handoff *ho = &a->handoff;
    json_t *tr = json_array(), *ser = json_array(), *pts = json_array(), *fps = json_array();
    for (size_t s = 0; ho->trends && s < a->n_stages; s++)
        json_array_append_new(tr, json_pack("{s:s,s:o,s:o,s:i}", "stage", a->stages[s], "slope", num(ho->trends[s].slope),
                                            "intercept", num(ho->trends[s].intercept), "n", ho->trends[s].n));
    for (size_t k = 0; k < ho->n_series; k++)
        json_array_append_new(ser, json_string(ho->series[k]));
    for (size_t p = 0; p < ho->n_points; p++)
        json_array_append_new(pts, json_pack("{s:s,s:s,s:o}", "config", a->configs[ho->points[p].config].key, "series",
                                             ho->series[ho->points[p].series], "x", num(ho->points[p].x)));
    json_object_set_new(root, "handoff",
                        json_pack("{s:o,s:o,s:b,s:b,s:o,s:o,s:o,s:o,s:o,s:i}", "kind", str(ho->kind), "x", str(ho->x),
                                  "x_is_axis", ho->x_param, "log_x", ho->log_x, "series_axes", str(ho->series_axes),
                                  "series", ser, "points", pts, "trends", tr, "series_js_distance",
                                  num(ho->series_jsd), "series_pairs", ho->series_pairs));
    for (size_t i = 0; i < a->n_fingerprints; i++) {
        const pm_an_fingerprint *fp = &a->fingerprints[i];
        json_t *bars = json_array();
        for (size_t k = 0; k < fp->n; k++)
            json_array_append_new(bars, json_pack("{s:s,s:s}", "label", fp->labels[k], "config",
                                                  a->configs[fp->configs[k]].key));
        json_array_append_new(fps, json_pack("{s:o,s:s,s:o,s:o,s:o}", "kind", str(fp->kind), "figure", fp->figure,
                                             "bar_axes", str(fp->bar_axes), "held", str(fp->held), "bars", bars));
    }
    json_object_set_new(root, "fingerprints", fps);
    json_t *fits = json_array();
    for (size_t i = 0; i < a->n_fits; i++) {
        const pm_an_fit *f = &a->fits[i];
        json_t *fo = json_pack("{s:s,s:s,s:s,s:o,s:i,s:o,s:o,s:o,s:o,s:b,s:o,s:o}", "tool", f->tool,
                                              "pass", f->name, "stage", a->stages[f->stage], "x_metric", str(f->x_metric),
                                              "n", f->n, "exponent", num(f->exponent), "lo", num(f->lo), "hi",
                                              num(f->hi), "r2", num(f->r2), "superlinear", f->superlinear,
                                              "max_share", num(f->max_share), "user_wall", num(f->user_wall));
        if (fo) {   /* the points' variant, and why there is no fit (no stage-entry sizes: what to rerun) */
            json_object_set_new(fo, "variant", str(f->variant));
            json_object_set_new(fo, "reference", json_boolean(f->reference));
            json_object_set_new(fo, "no_fit", str(f->no_fit));
            json_object_set_new(fo, "npuw_left_out", json_integer(f->npuw_left_out));
        }
        json_array_append_new(fits, fo);
    }
    json_object_set_new(root, "fits", fits);
    json_t *cx = json_array();
    for (size_t i = 0; i < a->n_crossovers; i++)
        json_array_append_new(cx, json_string(a->crossovers[i]));
    json_object_set_new(root, "precision",
                        json_pack("{s:i,s:o,s:o,s:o,s:o}", "window", a->prec_window, "base", str(a->prec_base), "time",
                                  series(a->prec_time, a->n_prec, "wall_s"), "ratio",
                                  series(a->prec_ratio, a->n_prec, "ratio"), "crossovers", cx));
    json_t *pt = json_object(), *ps = json_object();
    for (size_t i = 0; i < a->n_tools; i++)
        json_object_set_new(pt, a->tools[i] ? a->tools[i] : "-", num(a->tool_user_wall[i]));
    for (size_t s = 0; a->stage_user_wall && s < a->n_stages; s++)
        json_object_set_new(ps, a->stages[s], num(a->stage_user_wall[s]));
    json_object_set_new(root, "parallelism", json_pack("{s:o,s:o}", "tools", pt, "stages", ps));
    json_t *fx = json_array();
    for (size_t i = 0; i < a->n_fixes; i++) {
        const pm_an_fix *f = &a->fixes[i];
        json_array_append_new(fx, json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "stage", a->stages[f->stage],
                                            "configs", f->n_configs, "contended", f->n_contended, "tool", str(f->tool), "pass", str(f->pass),
                                            "share", num(f->share), "exponent", num(f->exponent), "exponent_lo",
                                            num(f->exponent_lo), "user_wall", num(f->user_wall), "cache_ratio",
                                            num(f->cache_ratio), "fix", str(f->fix)));
        json_t *last = json_array_get(fx, json_array_size(fx) - 1);
        json_object_set_new(last, "startup_share", num(f->startup_share));
        json_object_set_new(last, "outside_share", num(f->outside_share));
    }
    json_object_set_new(root, "fixes", fx);
    json_t *npu = pm_npu_report_json(a); /* NPU back end only: see npu_report.h */
    if (npu)
        json_object_set_new(root, "npu", npu);
    /* machines: one entry per host that measured cold runs; configs name theirs ("several": mixed) */
    json_t *hosts = json_array(), *hw = json_array(), *by_cfg = json_object();
    for (size_t i = 0; i < a->n_hosts; i++) {
        const pm_an_host *h = &a->hosts[i];
        json_array_append_new(hosts, json_pack("{s:s,s:s,s:s,s:i,s:s,s:s,s:i,s:i,s:o}", "name", h->name, "fingerprint",
                                               h->fingerprint, "cpu_model", h->cpu_model, "cores", h->cores, "kernel",
                                               h->kernel, "compiler", h->compiler, "configs", h->n_configs, "runs",
                                               h->n_runs, "wall_geomean_s", num(h->wall_geomean)));
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].host != -1)
            json_object_set_new(by_cfg, a->configs[i].key,
                                json_string(a->configs[i].host >= 0 ? a->hosts[a->configs[i].host].name : "several"));
    for (size_t i = 0; i < a->n_host_warnings; i++)
        json_array_append_new(hw, json_string(a->host_warnings[i]));
    json_object_set_new(root, "hosts", json_pack("{s:o,s:i,s:o,s:o}", "machines", hosts, "kinds", a->n_machine_kinds,
                                                 "config_host", by_cfg, "warnings", hw));
    json_object_set_new(root, "ab", ab_json(a));
    /* merge --partial: what the study lacks (null: complete) */
    json_object_set_new(root, "incomplete", a->incomplete ? json_string(a->incomplete) : json_null());
    return root;
}
