/* The NPU (OpenVINO) back end's side of passmap fix (backend.h pm_backend_fix_ops). The catalogue is
 * data/fixes-npu.tsv:
 *  - blob-cache (variant "warm") is measured from the study's own runs: every stock cold compile exports its
 *    blob and the sweep times its ov_core_import_model as a warm run, so recompile / import per config is
 *    already in the store (compare's rule, warm runs against cold ones): no round, no new compile;
 *  - reuse-strategy is a real compile variant, run as an A/B round; upstream refuses it under NPUW (each
 *    subgraph compile overwrites the strategy file), so LLM configs are not runnable;
 *  - bounded-window and compile-server have no compile option here (variant "-"): the plan lists them.
 * The output check the issue asks for (the blob's inference against the CPU plugin's) is not implemented:
 * check_build says so and every fix stays "unchecked", recommended only under --no-check. The program side of
 * the ledger (estimated latency, blob size) needs no check: it comes with each compile of the round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backends.h"
#include "kinds.h"
#include "spec.h"
#include "sweep_ov.h"
#include "util.h"

#define OV_WARM_VARIANT "warm"
#define OV_REUSE "reuse-strategy"

/* 1 when the '+'-joined variant holds token tok. */
static int has_token(const char *variant, const char *tok)
{
    return pm_util_list_has(variant, '+', tok);
}

static int is_npuw(const pm_spec_config *c)
{
    const pm_kind *k = pm_kind_find(c->kind);
    return k && k->npuw;
}

static int ov_runnable(const pm_spec *study, int config, const char *variant, char *why, size_t cap)
{
    if (config < 0 || config >= study->n_configs)
        return 0;
    if (has_token(variant, OV_REUSE) && is_npuw(&study->configs[config])) {
        snprintf(why, cap, "not runnable for LLM configs under NPUW (each subgraph compile overwrites the "
                           "strategy file)");
        return 0;
    }
    return 1;
}

/* A round is the study's spec read again (same [openvino] settings, same model paths), keeping only the configs
 * asked, each once per variant, the variant as the key's last part so compare lines them up with stock. */
static int ov_round(const pm_spec *study, const int *configs, const char *const *variants, size_t n, int repeats,
                    const char *name, pm_spec **out, pm_err *err)
{
    pm_spec *s = NULL;
    int rc = pm_spec_parse_as(study->text, study->path, study->backend, &s, err);
    if (rc)
        return rc;
    pm_spec_round_reset(s, name, repeats);
    pm_ov_spec_of(s)->reuse_strategy = 0;
    for (size_t i = 0; i < n && rc == PM_OK; i++) {
        int dup;
        if ((rc = pm_spec_round_pair(configs, variants, i, study->n_configs, &dup, err)))
            break;
        if (dup)
            continue;
        const pm_spec_config *src = &study->configs[configs[i]];
        const char *v = variants[i];
        /* the compile variants this back end runs: stock, reuse-strategy (the warm path is no compile) */
        if (strcmp(v, "stock") && strcmp(v, OV_REUSE)) {
            rc = pm_err_set(err, PM_ERR_USAGE, "round: '%s' is not a compile variant of the openvino back end "
                            "(stock, %s)", v, OV_REUSE);
            break;
        }
        char why[160];
        if (!ov_runnable(study, configs[i], v, why, sizeof why)) {
            rc = pm_err_set(err, PM_ERR_USAGE, "round: %s on %s: %s", v, src->key, why);
            break;
        }
        char *base = NULL;
        if (pm_cfg_split_key(src->key, src->variant, &base, NULL)) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        char key[PM_SPEC_KEY_MAX];
        int too_long = snprintf(key, sizeof key, "%s/%s", base ? base : src->key, v) >= (int)sizeof key;
        free(base);
        if (too_long) {
            rc = pm_err_set(err, PM_ERR_USAGE, "round: key %s/%s longer than %d characters", src->key, v,
                            PM_SPEC_KEY_MAX - 1);
            break;
        }
        pm_spec_config c;
        if ((rc = pm_spec_config_copy(src, key, v, &c, err)))
            break;
        rc = pm_spec_add_config(s, &c, err);   /* its variant (stock, reuse-strategy) says what it runs */
    }
    if (rc) {
        pm_spec_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

/* The NPU's output check would run the blob's inference and compare it with the CPU plugin's on fixed inputs;
 * it is not built (no OpenVINO with a CPU plugin to build it against), and it is never faked: unchecked. */
static int ov_check_build(const pm_spec *study, int config, const char *variant, const char *dir,
                          const pm_fix_check_opts *o, char *result, size_t cap, pm_err *err)
{
    (void)study, (void)config, (void)variant, (void)dir, (void)o;
    if (cap)
        result[0] = '\0';
    return pm_err_set(err, PM_ERR_UNSUPPORTED, "the NPU check (the blob's inference against the CPU plugin) "
                      "is not implemented");
}

static int ov_check_compare(const pm_spec *study, int config, const char *stock_result, const char *result,
                            const pm_fix_check_opts *o, int *same, char *outcome, size_t cap, pm_err *err)
{
    (void)study, (void)config, (void)stock_result, (void)result, (void)o, (void)outcome, (void)cap;
    *same = 0;   /* unreachable: check_build never succeeds */
    return pm_err_set(err, PM_ERR_UNSUPPORTED, "the NPU check is not implemented");
}

/* The ledger's program side is the compiler's own estimate, read from every compile's log (a stock compile and
 * the fix's, in the round): [inference-execution-analysis]'s "Estimated inference latency" (a cost-model
 * simulation of the schedule, not a run on the device) and the blob the run exports. Under NPUW each unique
 * subgraph compile prints its own estimate and the log names none of them (only OPENVINO_NPUW_COMPILE_TRACE
 * would), so no one of them can be picked as "the model's": the ledger sums them all, and refuses the
 * comparison when the two sides print a different number of estimates (a different partition). The sum is
 * not an end-to-end latency (prefill runs once per prompt, generate once per token, repeated blocks many
 * times): it moves when any compiled subgraph's estimate moves, which is what a trade-off needs. */
static const pm_fix_program_metric ov_run_metrics[] = {
    {"npu.estimated_latency_us", 1e-6, 1e-6, "the compiler's estimated inference latency"},
    {NULL, 0, 0, NULL},
};
/* The export under NPUW is weightless unless CACHE_MODE=OPTIMIZE_SPEED: that blob is not the shipped size,
 * and a blob with the weights is dominated by them (the same on both sides): the ratio says which. */
static const pm_fix_program_metric ov_size_metrics[] = {
    {"ov.blob_bytes_weightless", 1, 0, "blob without weights (not the shipped size)"},
    {"ov.blob_bytes", 1, 0, "blob with weights"},
    {NULL, 0, 0, NULL},
};

const pm_backend_fix_ops pm_ov_fix = {
    .estimated = 1,
    .run_metrics = ov_run_metrics,
    .size_metrics = ov_size_metrics,
    .catalogue_file = "fixes-npu.tsv",
    .round = ov_round,
    .check_build = ov_check_build,
    .check_compare = ov_check_compare,
    .warm_variant = OV_WARM_VARIANT,
    .runnable = ov_runnable,
};
