/* Section: the NPU back end's own view. Which configs ran instrumented (schedule trace / strategy JSON / task
 * statistics: another compiler configuration than stock, never compared with it silently) or offline, how a
 * compile splits into NPUW's submodels (prefill, generate, LM head) where the log named them, and the ELF export
 * time (Compile net time minus the report Totals). Means over cold ok runs; NAN where a run did not record it. */
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct pm_an_npuw_setting pm_an_npuw_settings[PM_AN_NPUW_SETTINGS] = {
    {"ov.npuw.max_prompt_len", "MAX_PROMPT_LEN", 0},   {"ov.npuw.min_response_len", "MIN_RESPONSE_LEN", 0},
    {"ov.npuw.prefill_chunk_size", "PREFILL_CHUNK_SIZE", 0}, {"ov.npuw.prefill_static", "PREFILL_HINT=STATIC", 1},
    {"ov.npuw.generate_pyramid", "GENERATE_PYRAMID", 1}, {"ov.npuw.shared_head", "SHARED_HEAD", 1}};

void pm_an_npuw_setting_text(int k, double v, char *buf, size_t size)
{
    if (pm_an_npuw_settings[k].boolean)
        snprintf(buf, size, "%s", v > 0.5 ? "YES" : "NO");
    else
        snprintf(buf, size, "%g", v);
}

static const char *const npu_metrics[] = {
    "ov.instrumented", "ov.offline", "npu.submodel.prefill.total_s", "npu.submodel.generate.total_s",
    "npu.submodel.lm_head.total_s", "npu.submodel.unattributed.total_s", "npu.compile_net_ms", "npu.elf_export_ms",
    "ov.blob_bytes", "ov.blob_bytes_weightless", "ov.import_s", "npu.submodel.inferred.prefill.total_s",
    "npu.submodel.inferred.generate.total_s", "npu.submodel.inferred.lm_head.total_s", "npu.log.lines.NPUW",
    "ov.npuw.read_back"};
enum { M_INSTR, M_OFFLINE, M_PREFILL, M_GENERATE, M_HEAD, M_UNATTR, M_NET, M_ELF, M_BLOB, M_BLOB_WL, M_IMPORT,
       M_INF_PREFILL, M_INF_GENERATE, M_INF_HEAD, M_NPUW_LINES, M_READ_BACK, M_FIXED,
       /* then each NPUW setting, then its ".sent" */
       M_N = M_FIXED + 2 * PM_AN_NPUW_SETTINGS };

typedef struct collect {
    pm_analysis *a;
    double *v;        /* [n_configs * M_N] */
    int any;
} collect;

static int take(void *ctx, const pm_sq_metric_row *r)
{
    collect *c = ctx;
    int ci = an_find_cfg(c->a, r->config_id);
    if (ci < 0)
        return PM_OK;
    int k = -1;
    for (int i = 0; i < M_FIXED && k < 0; i++)
        if (!strcmp(r->name, npu_metrics[i]))
            k = i;
    for (int i = 0; i < PM_AN_NPUW_SETTINGS && k < 0; i++) {
        size_t n = strlen(pm_an_npuw_settings[i].metric);
        if (!strncmp(r->name, pm_an_npuw_settings[i].metric, n))
            k = !r->name[n] ? M_FIXED + i : !strcmp(r->name + n, ".sent") ? M_FIXED + PM_AN_NPUW_SETTINGS + i : -1;
    }
    if (k >= 0) {
        c->v[(size_t)ci * M_N + (size_t)k] = r->mean;
        c->any = c->any || k < M_FIXED;
    }
    return PM_OK;
}

int an_npu(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    if (!a->n_configs)
        return PM_OK;
    collect c = {.a = a, .v = malloc(a->n_configs * M_N * sizeof(double))};
    if (!c.v)
        return an_nomem(err);
    for (size_t i = 0; i < a->n_configs * M_N; i++)
        c.v[i] = NAN;
    int rc = an_metric_means(w, take, &c, err);
    if (rc || !c.any)
        goto cleanup;
    a->npu.rows = calloc(a->n_configs, sizeof *a->npu.rows);
    if (!a->npu.rows) {
        rc = an_nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const double *v = &c.v[i * M_N];
        pm_an_npu_config *n = &a->npu.rows[a->npu.n];
        if (isnan(v[M_INSTR]) && isnan(v[M_NET]) && isnan(v[M_PREFILL]))
            continue; /* not an OpenVINO config */
        n->config = (int)i;
        /* Older stores have no ov.instrumented: the variant says it then. */
        n->instrumented = !isnan(v[M_INSTR]) ? v[M_INSTR] > 0.5
                          : a->configs[i].variant && strstr(a->configs[i].variant, "instrumented") != NULL;
        n->offline = !isnan(v[M_OFFLINE]) && v[M_OFFLINE] > 0.5;
        n->prefill_s = v[M_PREFILL];
        n->generate_s = v[M_GENERATE];
        n->lm_head_s = v[M_HEAD];
        n->unattributed_s = v[M_UNATTR];
        /* No line named a submodel: the split from NPUW's compile order, labelled inferred wherever it shows. */
        if (isnan(v[M_PREFILL]) && isnan(v[M_GENERATE]) && isnan(v[M_HEAD]) &&
            (!isnan(v[M_INF_PREFILL]) || !isnan(v[M_INF_GENERATE]))) {
            n->split_inferred = 1;
            n->prefill_s = v[M_INF_PREFILL];
            n->generate_s = v[M_INF_GENERATE];
            n->lm_head_s = v[M_INF_HEAD];
            n->unattributed_s = NAN;
        }
        n->npuw_lines = v[M_NPUW_LINES];
        n->read_back = !isnan(v[M_READ_BACK]) && v[M_READ_BACK] > 0.5;
        for (int k = 0; k < PM_AN_NPUW_SETTINGS; k++) {
            n->setting[k] = v[M_FIXED + k];
            n->setting_sent[k] = v[M_FIXED + PM_AN_NPUW_SETTINGS + k];
        }
        n->compile_net_ms = v[M_NET];
        n->elf_export_ms = v[M_ELF];
        n->blob_bytes = v[M_BLOB];
        n->blob_weightless_bytes = v[M_BLOB_WL];
        n->import_s = v[M_IMPORT];
        a->configs[i].instrumented = n->instrumented;
        a->npu.n_instrumented += n->instrumented;
        a->npu.n_offline += n->offline;
        a->npu.n++;
    }
cleanup:
    free(c.v);
    return rc;
}

int an_compared(const pm_analysis *a, const pm_an_config *c)
{
    return !c->instrumented || a->npu.n_instrumented == (int)a->npu.n;
}

void an_npu_free(pm_analysis *a)
{
    free(a->npu.rows);
}
