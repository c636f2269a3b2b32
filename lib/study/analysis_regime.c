/* Section: the regime maps (dominant stage over two axes: a kind row's, or the spec's) and their boundaries. */
#include "analysis_internal.h"
#include "kinds.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

/* Cells by (row, col): open addressing over cell indices (-1 empty), so each config finds its cell in one probe
 * instead of a search of every cell (n^2 comparisons at 15,000 configs). */
typedef struct cell_ix {
    int *slot;
    size_t n;   /* a power of two, at least twice the cells */
} cell_ix;

/* Room for the cells of n configs; PM_ERR_NOMEM without. */
static int cell_ix_init(cell_ix *ix, size_t n_configs)
{
    ix->n = 16;
    while (ix->n < 2 * n_configs)
        ix->n *= 2;
    if (!(ix->slot = malloc(ix->n * sizeof *ix->slot)))
        return PM_ERR_NOMEM;
    memset(ix->slot, 0xff, ix->n * sizeof *ix->slot);   /* -1: empty */
    return PM_OK;
}

static size_t cell_hash(const char *row, int col)
{
    return (size_t)XXH3_64bits_withSeed(row, strlen(row), (uint64_t)(unsigned)col);
}

/* Adds config c's stage shares to the cell (row, col) of rg, a new cell when there is none yet; sum holds
 * n_stages running totals per cell. A missing row is labelled "-" (and, as the first cell equal to it is the
 * one found, a missing row never joins an earlier cell while a "-" row joins the first cell labelled "-"). */
static void cell_add(pm_an_regime *rg, cell_ix *ix, double *sum, const pm_analysis *a, const pm_an_config *c,
                     const char *row, double row_num, int col)
{
    const char *key = row ? row : "-";
    size_t mask = ix->n - 1, h = cell_hash(key, col) & mask;
    int found = -1;
    for (; ix->slot[h] >= 0; h = (h + 1) & mask) {
        const pm_an_cell *e = &rg->cells[ix->slot[h]];
        if (e->col == col && !strcmp(e->row, key)) {
            found = ix->slot[h];
            break;
        }
    }
    size_t k;
    if (found >= 0 && row) {
        k = (size_t)found;
    } else {
        k = rg->n_cells;
        rg->cells[k].row = key;
        rg->cells[k].row_num = row_num;
        rg->cells[k].col = col;
        rg->n_cells++;
        if (found < 0)   /* h is the empty slot the probe ended at */
            ix->slot[h] = (int)k;
    }
    rg->cells[k].n_configs++;
    for (size_t s = 0; s < a->n_stages; s++)
        sum[k * a->n_stages + s] += c->share[s].mean;
}

/* Each cell's dominant stage: the largest summed share, and its mean share over the cell's configs. */
static void cells_dominant(pm_an_regime *rg, const double *sum, size_t n_stages)
{
    for (size_t k = 0; k < rg->n_cells; k++) {
        int best = 0;
        for (size_t s = 1; s < n_stages; s++)
            if (sum[k * n_stages + s] > sum[k * n_stages + best])
                best = (int)s;
        rg->cells[k].stage = best;
        rg->cells[k].share = sum[k * n_stages + best] / rg->cells[k].n_configs;
    }
}

/* Cells sorted by (row, column, index): the cell after `here` along its row (same row, the next larger column,
 * the first of equal ones) is the first after it in this order with a larger column, so each is found by a short
 * step forward instead of a search of every cell. */
typedef struct cell_at {
    const char *row;
    int col;
    size_t k;
} cell_at;

static int cmp_cell_row_col(const void *pa, const void *pb)
{
    const cell_at *a = pa, *b = pb;
    int c = strcmp(a->row, b->row);
    if (!c)
        c = (a->col > b->col) - (a->col < b->col);
    return c ? c : (a->k > b->k) - (a->k < b->k);
}

/* next_row[k]: the index of the cell after cells[k] along its row, -1 at the row's end. */
static int cells_next_along_row(const pm_an_regime *rg, int *next_row)
{
    size_t n = rg->n_cells;
    cell_at *o = malloc((n + 1) * sizeof *o);
    if (!o)
        return PM_ERR_NOMEM;
    for (size_t k = 0; k < n; k++)
        o[k] = (cell_at){rg->cells[k].row, rg->cells[k].col, k};
    qsort(o, n, sizeof *o, cmp_cell_row_col);
    for (size_t q = 0; q < n; q++) {
        size_t r = q + 1;
        while (r < n && !strcmp(o[r].row, o[q].row) && o[r].col <= o[q].col)
            r++;
        next_row[o[q].k] = r < n && !strcmp(o[r].row, o[q].row) ? (int)o[r].k : -1;
    }
    free(o);
    return PM_OK;
}

/* The cell after `here` (cells[k]) down its column: the next larger row when rows are numbers (sizes, ordered
 * across families), else the next cell of another row in config order. NULL at the column's end. */
static const pm_an_cell *next_down_column(const pm_an_regime *rg, size_t k)
{
    const pm_an_cell *here = &rg->cells[k], *next = NULL;
    if (!isnan(here->row_num)) {
        for (size_t j = 0; j < rg->n_cells; j++)
            if (rg->cells[j].col == here->col && rg->cells[j].row_num > here->row_num &&
                (!next || rg->cells[j].row_num < next->row_num))
                next = &rg->cells[j];
    } else {
        for (size_t j = k + 1; j < rg->n_cells && !next; j++)
            if (rg->cells[j].col == here->col && strcmp(rg->cells[j].row, here->row))
                next = &rg->cells[j];
    }
    return next;
}

/* "dominates" only at PM_AN_DOMINATES_SHARE of the compile or more; below it the largest stage "leads". */
static const char *verb(double share)
{
    return share >= PM_AN_DOMINATES_SHARE ? "dominates" : "leads";
}

static double min_share(const pm_an_regime *rg)
{
    double m = INFINITY;
    for (size_t k = 0; k < rg->n_cells; k++)
        m = rg->cells[k].share < m ? rg->cells[k].share : m;
    return m;
}

/* Appends one boundary sentence, formatted whole: axis values are user file names, any length. */
__attribute__((format(printf, 2, 3))) static int add_boundary(pm_an_regime *rg, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    return an_strlist_take(&rg->boundaries, &rg->n_boundaries, &text);
}

/* Regime map over the configs of one kind row: its row and column axes, within one slice of its slice axis
 * (the preferred value, else the most common) and of the variant (stock, else the most common). */
static int build_regime(pm_analysis *a, const pm_kind *kr, pm_an_regime *rg)
{
    const char *kind = kr->name;
    rg->kind = kind;
    rg->figure = kr->regime_figure;
    rg->row_label = kr->rows_label;
    rg->col_label = kr->cols_label;
    const char **precs = calloc(a->n_configs + 1, sizeof *precs), **vars = calloc(a->n_configs + 1, sizeof *vars);
    size_t n = 0;
    int rc = PM_OK;
    if (!precs || !vars) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].kind && !strcmp(a->configs[i].kind, kind) && a->configs[i].n_cold) {
            precs[n] = pm_cfg_param(&a->configs[i].cfg, kr->slice);
            vars[n++] = a->configs[i].variant;
        }
    if (!n)
        goto cleanup;
    rg->precision = an_most_common(precs, n, pm_kind_prefer(kr, kr->slice));
    rg->variant = an_most_common(vars, n, "stock");
    rg->cells = calloc(a->n_configs, sizeof *rg->cells);
    double *sum = calloc(a->n_configs * a->n_stages, sizeof *sum);
    if (!rg->cells || !sum) {
        free(sum);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    cell_ix ix;
    if (cell_ix_init(&ix, a->n_configs)) {
        free(sum);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!c->kind || strcmp(c->kind, kind) || !c->n_cold || !an_same(pm_cfg_param(&c->cfg, kr->slice), rg->precision) ||
            !an_same(c->variant, rg->variant))
            continue;
        const char *row = pm_cfg_param(&c->cfg, kr->regime_rows), *colv = pm_cfg_param(&c->cfg, kr->regime_cols);
        int col = colv ? (int)strtol(colv, NULL, 10) : 0;
        cell_add(rg, &ix, sum, a, c, row, pm_an_size_value(row), col);   /* numeric rows (sizes) order by value */
    }
    free(ix.slot);
    cells_dominant(rg, sum, a->n_stages);
    free(sum);
    int *next_row = malloc((rg->n_cells + 1) * sizeof *next_row);
    if (!next_row || (rc = cells_next_along_row(rg, next_row))) {
        free(next_row);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    /* Boundaries: walk each row along the column axis and say where the dominant stage changes. */
    for (size_t k = 0; k < rg->n_cells; k++) {
        const pm_an_cell *here = &rg->cells[k];
        const pm_an_cell *next = next_row[k] >= 0 ? &rg->cells[next_row[k]] : NULL;
        if (next && next->stage != here->stage &&
            (rc = add_boundary(rg, "%s %s: %s %s at %s %d, %s from %s %d", kr->regime_rows, here->row,
                               an_stage_name(a, here->stage), verb(here->share), kr->regime_cols, here->col,
                               an_stage_name(a, next->stage), kr->regime_cols, next->col))) {
            free(next_row);
            goto cleanup;
        }
    }
    free(next_row);
    /* and down each column (LLM rows are sizes: numeric order across families; CNN rows are families, taken in
     * sorted config order) */
    for (size_t k = 0; k < rg->n_cells; k++) {
        const pm_an_cell *here = &rg->cells[k], *next = next_down_column(rg, k);
        if (next && next->stage != here->stage &&
            (rc = add_boundary(rg, "%s %d: %s %s at %s %s, %s from %s %s", kr->regime_cols, here->col,
                               an_stage_name(a, here->stage), verb(here->share), kr->regime_rows, here->row,
                               an_stage_name(a, next->stage), kr->regime_rows, next->row)))
            goto cleanup;
    }
    if (!rg->n_boundaries && rg->n_cells) {
        int uniform = 1;
        for (size_t k = 1; k < rg->n_cells; k++)
            uniform &= rg->cells[k].stage == rg->cells[0].stage;
        if (uniform && (rc = add_boundary(rg, "%s %s every %s cell mapped (no boundary in this sweep)",
                                          an_stage_name(a, rg->cells[0].stage), verb(min_share(rg)), kind)))
            goto cleanup;
    }
cleanup:
    free(precs);
    free(vars);
    return rc;
}

/* ---- the regime map over two parameters, for configs of any other kind (e.g. a command back end's) ---- */

/* Kinds with a row in the kind table have their own maps above; this one maps every other kind. */
static int is_workload_kind(const pm_an_config *c)
{
    return pm_kind_find(c->kind) != NULL;
}

static int is_int(const char *v)
{
    char *end;
    if (!v || !*v)
        return 0;
    strtol(v, &end, 10);
    return !*end;
}

/* The axis names, owned by the configs: asked for, else the spec's [report] (in the sweep's metadata), else
 * rows = "input" (or the first parameter) and columns = the first other parameter whose values are integers. */
static void pick_axes(const pm_analysis *a, const pm_an_opts *o, const char **row, const char **col)
{
    const char *want_row = o ? o->workload_axis : NULL, *want_col = o ? o->size_axis : NULL;
    json_t *meta = a->meta_json ? json_loads(a->meta_json, 0, NULL) : NULL;
    if (!want_row)
        want_row = json_string_value(json_object_get(meta, "report_workload"));
    if (!want_col)
        want_col = json_string_value(json_object_get(meta, "report_size"));
    *row = *col = NULL;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (is_workload_kind(c))
            continue;
        for (size_t k = 0; k < c->n_params; k++) {
            const char *n = c->params[k].name;
            if (!*row && (want_row ? !strcmp(n, want_row) : !strcmp(n, "input")))
                *row = n;
            if (!*col && want_col && !strcmp(n, want_col))
                *col = n;
        }
    }
    for (size_t i = 0; i < a->n_configs && (!*row || !*col) && !(want_row && !*row); i++) {
        const pm_an_config *c = &a->configs[i];
        if (is_workload_kind(c))
            continue;
        for (size_t k = 0; k < c->n_params; k++) {
            const char *n = c->params[k].name;
            if (!*row && !want_row)
                *row = n;
            else if (!*col && !want_col && *row && strcmp(n, *row)) {
                int numeric = 1;
                for (size_t j = 0; j < a->n_configs && numeric; j++)
                    if (!is_workload_kind(&a->configs[j]) && pm_cfg_param(&a->configs[j].cfg, n))
                        numeric = is_int(pm_cfg_param(&a->configs[j].cfg, n));
                if (numeric)
                    *col = n;
            }
        }
    }
    json_decref(meta);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int build_param_regime(pm_analysis *a, const pm_an_opts *o, pm_an_regime *rg)
{
    rg->kind = "command";
    rg->others = 1;
    rg->figure = "regime-map";
    pick_axes(a, o, &rg->row_axis, &rg->col_axis);
    rg->row_label = rg->row_axis;
    rg->col_label = rg->col_axis;
    if (!rg->row_axis || !rg->col_axis)
        return PM_OK;
    /* columns are the size axis: its integer values, else the rank of each value in sorted order */
    const char **vals = calloc(a->n_configs + 1, sizeof *vals);
    double *sum = calloc((a->n_configs + 1) * a->n_stages, sizeof *sum);
    rg->cells = calloc(a->n_configs + 1, sizeof *rg->cells);
    int rc = PM_OK, numeric = 1;
    size_t nv = 0;
    if (!vals || !sum || !rg->cells) {
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const char *v = pm_cfg_param(&a->configs[i].cfg, rg->col_axis);
        if (!is_workload_kind(&a->configs[i]) && v) {
            vals[nv++] = v;
            numeric &= is_int(v);
        }
    }
    qsort(vals, nv, sizeof *vals, cmp_str);
    cell_ix ix;
    if ((rc = cell_ix_init(&ix, a->n_configs)))
        goto cleanup;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        const char *row = pm_cfg_param(&c->cfg, rg->row_axis), *colv = pm_cfg_param(&c->cfg, rg->col_axis);
        if (is_workload_kind(c) || !c->n_cold || !row || !colv)
            continue;
        int col = 0;
        if (numeric)
            col = (int)strtol(colv, NULL, 10);
        else
            for (size_t j = 0; j < nv && strcmp(vals[j], colv); j++)
                col += j == 0 || strcmp(vals[j], vals[j - 1]);
        cell_add(rg, &ix, sum, a, c, row, NAN, col);
    }
    free(ix.slot);
    cells_dominant(rg, sum, a->n_stages);
    int *next_row = malloc((rg->n_cells + 1) * sizeof *next_row);
    if (!next_row || cells_next_along_row(rg, next_row)) {
        free(next_row);
        rc = PM_ERR_NOMEM;
        goto cleanup;
    }
    /* where the dominant stage changes along each row */
    for (size_t k = 0; k < rg->n_cells && rc == PM_OK; k++) {
        const pm_an_cell *here = &rg->cells[k], *next = next_row[k] >= 0 ? &rg->cells[next_row[k]] : NULL;
        if (next && next->stage != here->stage)
            rc = add_boundary(rg, "%s %s: %s %s at %s %d, %s from %s %d", rg->row_axis, here->row,
                              an_stage_name(a, here->stage), verb(here->share), rg->col_axis, here->col,
                              an_stage_name(a, next->stage), rg->col_axis, next->col);
    }
    free(next_row);
    /* and down each column, rows in config order (this map's rows carry no number) */
    for (size_t k = 0; k < rg->n_cells && rc == PM_OK; k++) {
        const pm_an_cell *here = &rg->cells[k], *next = next_down_column(rg, k);
        if (next && next->stage != here->stage)
            rc = add_boundary(rg, "%s %d: %s %s at %s %s, %s at %s %s", rg->col_axis, here->col,
                              an_stage_name(a, here->stage), verb(here->share), rg->row_axis, here->row,
                              an_stage_name(a, next->stage), rg->row_axis, next->row);
    }
    if (rc == PM_OK && !rg->n_boundaries && rg->n_cells) {
        int uniform = 1;
        for (size_t k = 1; k < rg->n_cells; k++)
            uniform &= rg->cells[k].stage == rg->cells[0].stage;
        if (uniform)
            rc = add_boundary(rg, "%s %s every %s x %s cell mapped (no boundary in this sweep)",
                              an_stage_name(a, rg->cells[0].stage), verb(min_share(rg)), rg->row_axis, rg->col_axis);
    }
cleanup:
    free(vals);
    free(sum);
    return rc;
}

/* ---- fix rules ---- */

int an_regimes(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int nk = 0, rc = PM_OK;
    while (pm_kind_at(nk))
        nk++;
    if (!(a->regimes.rows = calloc((size_t)nk + 1, sizeof *a->regimes.rows)))
        return an_nomem(err);
    for (int i = 0; !rc && i < nk; i++)
        rc = build_regime(a, pm_kind_at(i), &a->regimes.rows[a->regimes.n++]);
    if (!rc)
        rc = build_param_regime(a, w->opts, &a->regimes.rows[a->regimes.n++]);
    return rc ? pm_err_set(err, rc, "out of memory") : PM_OK;
}

void an_regimes_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->regimes.n; i++) {
        pm_an_regime *r = &a->regimes.rows[i];
        free(r->cells);
        pm_free_strs(r->boundaries, r->n_boundaries);
    }
    free(a->regimes.rows);
}
