/* The report's per-config and per-tool tables (report_sections.h has the order): configs, stage shares,
 * process overhead, noise and start-up, parallelism, the fix table. The tables themselves are report_tables.c's. */
#include "report.h"
#include "report_tables.h"
#include "contention.h"

#include <math.h>

#define esc pm_html_esc

/* ---- configs: wall with its interval, dominant stage and pass, recompile ÷ hit ---- */

static int configs_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int rc = pm_report_text_table(x, f, pm_rt_configs(x->a, NULL), "configs (cold wall: geometric mean [its 95% "
                                  "interval's ends, relative], log scale; no interval below 3 repeats)", err);
    if (rc)
        return rc;
    /* read beside the table, not only in the docs: what a key spells, and the stage that is no pass */
    char keys[768];
    pm_rt_key_legend(x->a, 0, keys, sizeof keys);
    if (keys[0])
        fprintf(f, "%s%s\n", x->markdown ? "\n" : "", keys);
    fprintf(f, "%s%s\n", x->markdown && !keys[0] ? "\n" : "", PM_RT_OVERHEAD_DEF);
    if (x->a->flagcost.n_cfgs) /* the instrument's cost is no part of a compile's wall (timing flags below) */
        fprintf(f,
                "%scold wall: of the cold runs' twins without their timing flags; the shares are the "
                "instrumented reports'\n",
                PM_MD(x, "- ", ""));
    return PM_OK;
}

static int configs_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=configs>Configs</h2><p class=sub>Click a config for its runs, argv, stderr and pass tree. "
          "Wall: geometric mean [the ends of its 95% interval, relative to it] (log scale).</p>\n", f);
    char keys[768];
    pm_rt_key_legend(x->a, 0, keys, sizeof keys);
    if (keys[0]) {
        fputs("<p class=sub id=keys>", f);
        esc(f, keys);
        fputs(".</p>\n", f);
    }
    fputs("<p class=sub>" PM_RT_OVERHEAD_DEF " (<a href=\"#overhead\">split per config</a>).</p>\n", f);
    return pm_report_html_table(f, pm_rt_configs(x->a, "#cfg-"), 1, err);
}

static json_t *ci(pm_ci c)
{
    /* times: mean is the geometric mean; lo/hi null when n < 3 (no interval) */
    return json_pack("{s:o,s:o,s:o,s:i}", "mean", pm_report_jnum(c.mean), "lo", pm_report_jnum(c.lo), "hi",
                     pm_report_jnum(c.hi), "n", c.n);
}

static json_t *config_json(const pm_analysis *a, const pm_an_config *c)
{
#define num pm_report_jnum
#define str pm_report_jstr
    json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:i,s:o,s:i,s:i,s:o,s:i,s:i,s:i}", "key", str(c->key), "kind",
                          str(c->kind), "family", str(c->workload.family), "size", str(c->workload.size),
                          "window", c->workload.window, "precision", str(c->workload.precision),
                          "resolution", c->workload.resolution, "layers", pm_workload_depth(&c->workload, c->kind),
                          "variant", json_string(c->variant ? c->variant : ""), "cold_runs", c->n_cold, "warm_runs",
                          c->n_warm, "failed_runs", c->n_failed);
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
    json_t *phs = json_object();   /* the stage shares summed by phase (the stage maps' fourth column) */
    for (size_t p = 0; p < a->n_phases && c->n_cold; p++)
        json_object_set_new(phs, a->phases[p], ci(c->phase_share[p]));
    json_object_set_new(o, "phases", phs);
    json_t *phc = c->phase_on_cpu ? json_object() : json_null();   /* of user CPU time: serial tools' user split */
    for (size_t p = 0; c->phase_on_cpu && p < a->n_phases; p++)
        json_object_set_new(phc, a->phases[p], ci(c->phase_cpu[p]));
    json_object_set_new(o, "phases_cpu", phc);
    json_object_set_new(o, "dominant_phase", c->dominant_phase >= 0 ? json_string(a->phases[c->dominant_phase])
                                                                     : json_null());
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
                                              "cpu_ratio", num(c->contention.cpu_ratio), "starved_tool",
                                              str(c->contention.starved_tool)));
    int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD);
    if (over >= 0 && c->n_cold)
        json_object_set_new(o, "overhead",
                            json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "process_overhead_s", num(c->stage_s[over]),
                                      "startup_s", num(c->startup_s), "outside_passes_s", num(c->outside_s),
                                      "process_overhead_share", num(c->share[over].mean), "startup_share",
                                      num(c->startup_share), "outside_passes_share", num(c->outside_share)));
    return o;
#undef num
#undef str
}

static int configs_json(const pm_report_ctx *x, json_t *root)
{
    json_t *cfgs = json_array();
    for (size_t i = 0; i < x->a->n_configs; i++)
        json_array_append_new(cfgs, config_json(x->a, &x->a->configs[i]));
    json_object_set_new(root, "configs", cfgs);
    return PM_OK;
}

const pm_report_section pm_section_configs = {.id = "configs", .toc = "Configs", .text = configs_text,
                                              .html = configs_html, .json = configs_json};

/* ---- stage shares per config (in JSON: each config's "shares") ---- */

static int shares_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    return pm_report_text_table(x, f, pm_rt_stage_shares(x->a, NULL), "stage shares (PHASES first: of CPU or wall, "
                                "as 'phases of' says)", err);
}

static int shares_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=shares>Stage shares per config</h2><p class=sub>The phases first (upper case): shares of the "
          "compile's user CPU time where its tools are serial and every pass reports user time, else of the wall, as "
          "the 'phases of' column says; then the stages, shares of the cold compile wall (means over repeats)."
          "</p>\n", f);
    return pm_report_html_table(f, pm_rt_stage_shares(x->a, "#cfg-"), 1, err);
}

const pm_report_section pm_section_shares = {.id = "shares", .toc = "Stage shares", .text = shares_text,
                                             .html = shares_html};

/* ---- process overhead: start-up and outside passes (in JSON: each config's "overhead") ---- */

static int overhead_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    char note[512];
    pm_rt_overhead_note(x->a, note, sizeof note);
    if (!note[0])
        return pm_report_text_table(x, f, pm_rt_overhead(x->a, NULL), "process-overhead = start-up (each tool's "
                                    "median null-input run x its steps) + outside passes (the rest)", err);
    fprintf(f, "\n%s%s\n", PM_MD(x, "- ", ""), note);
    return PM_OK;
}

static int overhead_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    char note[512];
    pm_rt_overhead_note(x->a, note, sizeof note);
    fputs("<h2 id=overhead>Process overhead: start-up and outside passes</h2><p class=sub>start-up = each tool's "
          "median wall on a null input (once per sweep) times its steps, at most the run's overhead; outside "
          "passes = the rest.</p>\n", f);
    if (!note[0])
        return pm_report_html_table(f, pm_rt_overhead(x->a, "#cfg-"), 1, err);
    fputs("<p class=note>", f);
    esc(f, note);
    fputs("</p>\n", f);
    return PM_OK;
}

const pm_report_section pm_section_overhead = {.id = "overhead", .toc = "Process overhead", .text = overhead_text,
                                               .html = overhead_html};

/* ---- noise: which configs were contended (no conclusion from them), and the start-up runs ---- */

static int noise_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_analysis *a = x->a;
    char noise[1024];
    pm_rt_noise_text(a, noise, sizeof noise);
    fprintf(f, "\nnoise: %s: the fix table and the A/B marks (compare's rule) draw no conclusion from them\n", noise);
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->contended)
            continue;
        /* the reasons in compare's words (contention.h), so the two outputs name a contended config alike */
        char why[256];
        int bits = pm_contention_judge(&c->contention, a->cpus, a->noise.user_wall_baseline, NULL);
        pm_contention_text(bits, &c->contention, a->cpus, a->noise.user_wall_baseline, why, sizeof why);
        fprintf(f, "  contended: %s (%s", c->key, why);
        if (!(bits & PM_CONTENTION_LOAD) && !isnan(c->load1))
            fprintf(f, "; load %.1f", c->load1);
        fprintf(f, "; CV %.0f%%)\n", c->cv * 100);
    }
    if (a->overhead.n) {
        int rc = pm_report_text_table(x, f, pm_rt_startup(a), "start-up: each tool on a null input, once per sweep "
                                      "(serial baseline of its steps)", err);
        if (rc)
            return rc;
    }
    pm_rt_startup_contended_text(a, noise, sizeof noise);
    if (noise[0])
        fprintf(f, "%s%s\n", PM_MD(x, "- ", "warning: "), noise);
    return PM_OK;
}

static int noise_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    char noise[1024];
    pm_rt_noise_text(x->a, noise, sizeof noise);
    fputs("<h2 id=noise>Noise</h2><p>", f);
    esc(f, noise);
    fputs(": the fix table and the A/B marks (compare's rule) draw no conclusion from contended configs.</p>\n", f);
    int rc;
    if (x->a->overhead.n && (rc = pm_report_html_table(f, pm_rt_startup(x->a), 0, err)))
        return rc;
    pm_rt_startup_contended_text(x->a, noise, sizeof noise);
    if (noise[0]) {
        fputs("<p class=note>", f);
        esc(f, noise);
        fputs("</p>\n", f);
    }
    return PM_OK;
}

static int noise_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_object_set_new(root, "noise", json_pack("{s:s,s:i,s:o,s:i,s:i,s:i}", "baseline",
                                                 a->overhead.measured ? "per-tool null-input runs" : "p90 of user/wall",
                                                 "configs_on_p90", a->noise.n_baseline_p90, "user_wall_baseline",
                                                 pm_report_jnum(a->noise.user_wall_baseline), "cpus", a->cpus, "contended",
                                                 a->noise.n_contended, "noisy", a->noise.n_noisy));
    json_t *su = json_array();
    for (size_t i = 0; i < a->overhead.n; i++) {
        const pm_an_startup *t = &a->overhead.rows[i];
        json_array_append_new(su, json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:b,s:o}", "tool", t->tool, "runs", t->n_ok,
                                            "failed", t->n_failed, "wall_s", pm_report_jnum(t->wall_s), "user_s",
                                            pm_report_jnum(t->user_s), "sys_s", pm_report_jnum(t->sys_s), "cpu_wall",
                                            pm_report_jnum(t->cpu_wall), "contended", t->contended, "note",
                                            pm_report_jstr(t->note)));
    }
    json_object_set_new(root, "startup", json_pack("{s:b,s:b,s:b,s:o}", "measured", a->overhead.measured, "recorded",
                                                   a->overhead.table, "contended", a->overhead.contended, "tools", su));
    return PM_OK;
}

const pm_report_section pm_section_noise = {.id = "noise", .toc = "Noise", .text = noise_text, .html = noise_html,
                                            .json = noise_json};

/* ---- parallelism: user/wall of each compiler process ---- */

static int parallelism_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    return pm_report_text_table(x, f, pm_rt_tools(x->a), "parallelism", err);
}

static int parallelism_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=parallelism>Parallelism</h2><p class=sub>user/wall of each compiler process (1.0 = serial).</p>", f);
    return pm_report_html_table(f, pm_rt_tools(x->a), 0, err);
}

static int parallelism_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *pt = json_object(), *ps = json_object();
    for (size_t i = 0; i < a->parallelism.n_tools; i++)
        json_object_set_new(pt, a->parallelism.tools[i] ? a->parallelism.tools[i] : "-", pm_report_jnum(a->parallelism.tool_user_wall[i]));
    for (size_t s = 0; a->parallelism.stage_user_wall && s < a->n_stages; s++)
        json_object_set_new(ps, a->stages[s], pm_report_jnum(a->parallelism.stage_user_wall[s]));
    json_object_set_new(root, "parallelism", json_pack("{s:o,s:o}", "tools", pt, "stages", ps));
    return PM_OK;
}

const pm_report_section pm_section_parallelism = {.id = "parallelism", .toc = "Parallelism", .text = parallelism_text,
                                                  .html = parallelism_html, .json = parallelism_json};

/* ---- the fix table: per regime, proven fixes first, then the predicted ones whose rule holds ---- */

static int fixes_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    return pm_report_text_table(x, f, pm_rt_fixes(x->a), "fix table (per regime: proven fixes first, then the "
                                "predicted ones whose rule holds; the same catalogue and rules as passmap fix)", err);
}

static int fixes_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    fputs("<h2 id=fixes>Fix table</h2><p class=sub>One row per regime (configs sharing their largest stage) with its "
          "heaviest pass by share; its fixes come from passmap fix's catalogue and rules: proven ones first (measured "
          "ratios), then predicted ones whose rule holds on the regime's configs. " PM_RT_OVERHEAD_DEF
          " (<a href=\"#overhead\">split per config</a>).</p>\n", f);
    return pm_report_html_table(f, pm_rt_fixes(x->a), 0, err);
}

static int fixes_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    json_t *fx = json_array();
    for (size_t i = 0; i < a->fixes.n; i++) {
        const pm_an_fix *fi = &a->fixes.rows[i];
        json_t *o = json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "stage", a->stages[fi->stage],
                              "configs", fi->n_configs, "contended", fi->n_contended, "tool", pm_report_jstr(fi->tool),
                              "pass", pm_report_jstr(fi->pass), "share", pm_report_jnum(fi->share), "exponent",
                              pm_report_jnum(fi->exponent), "exponent_lo", pm_report_jnum(fi->exponent_lo),
                              "user_wall", pm_report_jnum(fi->user_wall), "cache_ratio",
                              pm_report_jnum(fi->cache_ratio), "fix", pm_report_jstr(fi->fix));
        json_array_append_new(fx, o);
        json_t *last = json_array_get(fx, json_array_size(fx) - 1);
        json_object_set_new(last, "startup_share", pm_report_jnum(fi->startup_share));
        json_object_set_new(last, "outside_share", pm_report_jnum(fi->outside_share));
    }
    json_object_set_new(root, "fixes", fx);
    return PM_OK;
}

const pm_report_section pm_section_fixes = {.id = "fixes", .toc = "Fix table", .text = fixes_text,
                                            .html = fixes_html, .json = fixes_json};
