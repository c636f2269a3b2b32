/* Section: the regime maps (dominant stage over size x window, family x resolution) and their boundaries. */
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Regime map over configs of one kind, a slice of precision + variant. */
static int build_regime(pm_analysis *a, const char *kind, pm_an_regime *rg)
{
    rg->kind = kind;
    const char **precs = calloc(a->n_configs + 1, sizeof *precs), **vars = calloc(a->n_configs + 1, sizeof *vars);
    size_t n = 0;
    int rc = PM_OK;
    if (!precs || !vars) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].kind && !strcmp(a->configs[i].kind, kind) && a->configs[i].n_cold) {
            precs[n] = a->configs[i].precision;
            vars[n++] = a->configs[i].variant;
        }
    if (!n)
        goto cleanup;
    rg->precision = an_most_common(precs, n, "int8");
    rg->variant = an_most_common(vars, n, "stock");
    int is_llm = !strcmp(kind, "llm");
    rg->cells = calloc(a->n_configs, sizeof *rg->cells);
    double *sum = calloc(a->n_configs * a->n_stages, sizeof *sum);
    if (!rg->cells || !sum) {
        free(sum);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->kind || strcmp(c->kind, kind) || !c->n_cold || !an_same(c->precision, rg->precision) ||
            !an_same(c->variant, rg->variant))
            continue;
        const char *row = is_llm ? c->size : c->family;
        int col = is_llm ? c->window : c->resolution;
        size_t k;
        for (k = 0; k < rg->n_cells; k++)
            if (an_same(rg->cells[k].row, row) && rg->cells[k].col == col)
                break;
        if (k == rg->n_cells) {
            rg->cells[k].row = row ? row : "-";
            rg->cells[k].row_num = is_llm ? c->size_num : NAN;
            rg->cells[k].col = col;
            rg->n_cells++;
        }
        rg->cells[k].n_configs++;
        for (size_t s = 0; s < a->n_stages; s++)
            sum[k * a->n_stages + s] += c->share[s].mean;
    }
    for (size_t k = 0; k < rg->n_cells; k++) {
        int best = 0;
        for (size_t s = 1; s < a->n_stages; s++)
            if (sum[k * a->n_stages + s] > sum[k * a->n_stages + best])
                best = (int)s;
        rg->cells[k].stage = best;
        rg->cells[k].share = sum[k * a->n_stages + best] / rg->cells[k].n_configs;
    }
    free(sum);
    /* Boundaries: walk each row along the column axis and say where the dominant stage changes. */
    for (size_t k = 0; k < rg->n_cells; k++) {
        const pm_an_cell *here = &rg->cells[k];
        const pm_an_cell *next = NULL;
        for (size_t j = 0; j < rg->n_cells; j++)
            if (!strcmp(rg->cells[j].row, here->row) && rg->cells[j].col > here->col &&
                (!next || rg->cells[j].col < next->col))
                next = &rg->cells[j];
        if (next && next->stage != here->stage) {
            char text[512];
            snprintf(text, sizeof text, "%s %s: %s dominates at %s %d, %s from %s %d", is_llm ? "size" : "family",
                     here->row, an_stage_name(a, here->stage), is_llm ? "window" : "resolution", here->col,
                     an_stage_name(a, next->stage), is_llm ? "window" : "resolution", next->col);
            if ((rc = an_strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
                goto cleanup;
        }
    }
    for (size_t k = 0; k < rg->n_cells; k++) {
        /* and down each column: the next larger size (LLM rows are sizes: numeric order across families);
         * CNN rows are families, taken in sorted config order */
        const pm_an_cell *here = &rg->cells[k], *next = NULL;
        if (is_llm && !isnan(here->row_num)) {
            for (size_t j = 0; j < rg->n_cells; j++)
                if (rg->cells[j].col == here->col && rg->cells[j].row_num > here->row_num &&
                    (!next || rg->cells[j].row_num < next->row_num))
                    next = &rg->cells[j];
        } else {
            for (size_t j = k + 1; j < rg->n_cells && !next; j++)
                if (rg->cells[j].col == here->col && strcmp(rg->cells[j].row, here->row))
                    next = &rg->cells[j];
        }
        if (next && next->stage != here->stage) {
            char text[512];
            snprintf(text, sizeof text, "%s %d: %s dominates at %s %s, %s from %s %s", is_llm ? "window" : "resolution",
                     here->col, an_stage_name(a, here->stage), is_llm ? "size" : "family", here->row,
                     an_stage_name(a, next->stage), is_llm ? "size" : "family", next->row);
            if ((rc = an_strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
                goto cleanup;
        }
    }
    if (!rg->n_boundaries && rg->n_cells) {
        char text[256];
        snprintf(text, sizeof text, "%s dominates every %s cell mapped (no boundary in this sweep)",
                 an_stage_name(a, rg->cells[0].stage), kind);
        int uniform = 1;
        for (size_t k = 1; k < rg->n_cells; k++)
            uniform &= rg->cells[k].stage == rg->cells[0].stage;
        if (uniform && (rc = an_strlist_add(&rg->boundaries, &rg->n_boundaries, text)))
            goto cleanup;
    }
cleanup:
    free(precs);
    free(vars);
    return rc;
}

/* ---- fix rules ---- */

int an_regimes(an_work *w, pm_err *err)
{
    int rc;
    if ((rc = build_regime(w->a, "llm", &w->a->regime_llm)) || (rc = build_regime(w->a, "cnn", &w->a->regime_cnn)))
        return pm_err_set(err, rc, "out of memory");
    return PM_OK;
}
