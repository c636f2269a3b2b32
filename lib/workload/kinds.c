/* The workload-kind table. Adding a workload kind adds a row here (docs/architecture.md). */
#include "kinds.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* The longest LLM family and size a [llm] section's FAMILY:SIZE splits into (with the terminator). */
#define FAMILY_MAX 32
#define SIZE_MAX_LEN 16

/* Beyond one tile the tile loops unroll: about 2.5x more ops per doubling of window / tile
 * (studies/embedded-llm-measurements.md). */
static double grow_llm(const pm_workload *w, int tile)
{
    return tile > 0 && w->window > tile ? pow((double)w->window / tile, 1.3) : 1;
}

/* CNN cost follows the pixel count. */
static double grow_cnn(const pm_workload *w, int tile)
{
    return w->resolution > 224 ? pow(w->resolution / 224.0, 2) : 1;
}

static int capped(int v, int cap)
{
    return cap && v > cap ? cap : v;
}

static char *section_llm(const pm_workload *w, const char *name, int size_cap, int depth_cap)
{
    char *s = NULL;
    return asprintf(&s, "[llm %s]\nmodels = %s:%s\nwindows = %d\nprecisions = %s\nlayers = %d\n", name, w->family,
                    w->size, capped(w->window, size_cap), w->precision, capped(w->layers, depth_cap)) < 0 ? NULL : s;
}

/* Blocks are not cut: a CNN's depth is its architecture (the resolution is what the check reduces). */
static char *section_cnn(const pm_workload *w, const char *name, int size_cap, int depth_cap)
{
    char *s = NULL;
    return asprintf(&s, "[cnn %s]\nfamilies = %s\nresolutions = %d\nprecisions = %s\nblocks = %d\n", name,
                    w->family, capped(w->resolution, size_cap), w->precision, w->blocks) < 0 ? NULL : s;
}

/* ---- the spec sections ---- */

static int in_list(const char *name, const char *const *names)
{
    for (; names && *names; names++)
        if (!strcmp(*names, name))
            return 1;
    return 0;
}

static void join_names(const char *const *names, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (; names && *names && len < cap; names++) {
        int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", *names);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int parse_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not an integer in [%d, %d]", what, v, lo, hi);
    *out = (int)x;
    return PM_OK;
}

static int check_precision(const char *p, pm_err *err, const char *what)
{
    static const char *const precisions[] = {"int4", "int8", "fp16", NULL};
    if (!in_list(p, precisions))
        return pm_err_set(err, PM_ERR_USAGE, "%s: unknown precision '%s' (int4, int8, fp16)", what, p);
    return PM_OK;
}

/* [llm NAME] models (FAMILY:SIZE ...), windows, precisions, layers: a config per model, window and precision. */
static int expand_llm(const pm_kind_reader *r, pm_err *err)
{
    char mwhat[192], wwhat[192], pwhat[192], names[512];
    int nm, nw, np, layers, rc;
    const char *const *models = r->list(r->user, "models", &nm, mwhat, sizeof mwhat);
    const char *const *windows = r->list(r->user, "windows", &nw, wwhat, sizeof wwhat);
    const char *const *precisions = r->list(r->user, "precisions", &np, pwhat, sizeof pwhat);
    if (nm < 0 || nw < 0 || np < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = r->number(r->user, "layers", 0, 1000, 1, &layers, err)))
        return rc;
    if (!nm || !nw || !np)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] needs models, windows and precisions", r->section);
    if ((rc = r->check_size(r->user, (long long)nm * nw * np, err)))
        return rc;
    for (int m = 0; m < nm; m++) {
        const char *colon = strchr(models[m], ':');
        if (!colon)
            return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not FAMILY:SIZE", mwhat, models[m]);
        char family[FAMILY_MAX], size[SIZE_MAX_LEN];
        if ((size_t)(colon - models[m]) >= sizeof family)
            return pm_err_set(err, PM_ERR_USAGE, "family: value too long (max %zu)", sizeof family - 1);
        if (strlen(colon + 1) >= sizeof size)
            return pm_err_set(err, PM_ERR_USAGE, "size: value too long (max %zu)", sizeof size - 1);
        snprintf(family, sizeof family, "%.*s", (int)(colon - models[m]), models[m]);
        snprintf(size, sizeof size, "%s", colon + 1);
        const char *const *sizes = pm_gen_llm_sizes(family);
        if (!sizes) {
            join_names(pm_gen_llm_families(), names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown LLM family '%s' (%s)", mwhat, family, names);
        }
        if (!in_list(size, sizes)) {
            join_names(sizes, names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: %s has no size '%s' (%s)", mwhat, family, size, names);
        }
        for (int w = 0; w < nw; w++) {
            int window;
            if ((rc = parse_int(windows[w], 1, 1 << 20, &window, err, wwhat)))
                return rc;
            for (int p = 0; p < np; p++) {
                if ((rc = check_precision(precisions[p], err, pwhat)))
                    return rc;
                pm_workload wl = {.family = family, .size = size, .precision = precisions[p], .window = window,
                                  .layers = layers};
                char stem[512];
                snprintf(stem, sizeof stem, "llm/%s/%s/w%d/%s/L%d", family, size, window, precisions[p], layers);
                if ((rc = r->add(r->user, &wl, stem, err)))
                    return rc;
            }
        }
    }
    return PM_OK;
}

/* [cnn NAME] families, resolutions, precisions, blocks: a config per family, resolution and precision. */
static int expand_cnn(const pm_kind_reader *r, pm_err *err)
{
    char fwhat[192], rwhat[192], pwhat[192], names[512];
    int nf, nr, np, blocks, rc;
    const char *const *families = r->list(r->user, "families", &nf, fwhat, sizeof fwhat);
    const char *const *resolutions = r->list(r->user, "resolutions", &nr, rwhat, sizeof rwhat);
    const char *const *precisions = r->list(r->user, "precisions", &np, pwhat, sizeof pwhat);
    if (nf < 0 || nr < 0 || np < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = r->number(r->user, "blocks", 0, 1000, 0, &blocks, err)))
        return rc;
    if (!nf || !nr || !np)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] needs families, resolutions and precisions", r->section);
    if ((rc = r->check_size(r->user, (long long)nf * nr * np, err)))
        return rc;
    for (int f = 0; f < nf; f++) {
        if (!in_list(families[f], pm_gen_cnn_families())) {
            join_names(pm_gen_cnn_families(), names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown CNN family '%s' (%s)", fwhat, families[f], names);
        }
        for (int x = 0; x < nr; x++) {
            int res;
            /* in the generator's own terms, so a spec never plans a config it cannot emit */
            if ((rc = parse_int(resolutions[x], 1, 1 << 20, &res, err, rwhat)) ||
                (rc = pm_gen_cnn_check_resolution(res, err) ? pm_err_wrap(err, "%s", rwhat) : PM_OK))
                return rc;
            for (int p = 0; p < np; p++) {
                if ((rc = check_precision(precisions[p], err, pwhat)))
                    return rc;
                pm_workload wl = {.family = families[f], .size = "", .precision = precisions[p], .resolution = res,
                                  .blocks = blocks};
                char stem[512];
                snprintf(stem, sizeof stem, "cnn/%s/r%d/%s/B%d", families[f], res, precisions[p], blocks);
                if ((rc = r->add(r->user, &wl, stem, err)))
                    return rc;
            }
        }
    }
    return PM_OK;
}

static const pm_kind kinds[] = {
    /* A model's compile grows with its size and window; families are what a user compares at equal compile
     * time. The fingerprint holds window and precision fixed and shows every (family, size). */
    {.name = "llm", .label = "LLM",
     .key_legend = "llm/FAMILY/SIZE/wWINDOW/PRECISION/LLAYERS/VARIANT: w128 = a 128-token prompt window, "
                   "L1 = 1 decoder layer emitted",
     .handoff_x = "wall", .series = "family", .bars = "family,size",
     .prefer = {{"precision", "int8"}}, .figure = "fingerprint", .regime_rows = "size", .regime_cols = "window",
     .slice = "precision", .rows_label = "model size (parameters)", .cols_label = "window (prompt tokens)",
     .regime_figure = "regime-map", .precision_study = 1,
     .axes = "family,size,window,precision,layers", .depth_axis = "layers", .emit = pm_gen_llm, .grow = grow_llm,
     .spec_section = section_llm, .size_axis = "window", .families = pm_gen_llm_families,
     .sizes = pm_gen_llm_sizes, .npuw = 1,
     .section_keys = "models,windows,precisions,variants,layers,tile,unroll", .expand = expand_llm},
    {.name = "cnn", .label = "CNN",
     .key_legend = "cnn/FAMILY/rRESOLUTION/PRECISION/BBLOCKS/VARIANT: r224 = a 224-pixel input, "
                   "B2 = the stem and first 2 blocks (B0 = the whole network)",
     .handoff_x = "wall", .series = "family", .bars = "family",
     .prefer = {{"precision", "int8"}}, .figure = "cnn-fingerprint", .regime_rows = "family",
     .regime_cols = "resolution", .slice = "precision", .rows_label = "CNN family",
     .cols_label = "input resolution (pixels)", .regime_figure = "cnn-regime-map", .spine = 1,
     .axes = "family,resolution,precision,blocks", .depth_axis = "blocks", .emit = pm_gen_cnn, .grow = grow_cnn,
     .spec_section = section_cnn, .size_axis = "resolution", .families = pm_gen_cnn_families,
     .section_keys = "families,resolutions,precisions,variants,blocks,tile,unroll", .expand = expand_cnn},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

const pm_kind *pm_kind_find(const char *name)
{
    for (size_t i = 0; name && i < N_KINDS; i++)
        if (!strcmp(kinds[i].name, name))
            return &kinds[i];
    return NULL;
}

const pm_kind *pm_kind_at(int i)
{
    return i >= 0 && (size_t)i < N_KINDS ? &kinds[i] : NULL;
}

int pm_kind_list_has(const char *list, const char *axis)
{
    size_t n = axis ? strlen(axis) : 0;
    for (const char *p = list; axis && p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, axis, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

const char *pm_kind_prefer(const pm_kind *k, const char *axis)
{
    for (size_t i = 0; k && axis && i < sizeof k->prefer / sizeof k->prefer[0]; i++)
        if (k->prefer[i].axis && !strcmp(k->prefer[i].axis, axis))
            return k->prefer[i].value;
    return NULL;
}

/* ---- the model fields by axis name ---- */

static const struct {
    const char *axis;
    size_t off;
    int number;
} fields[] = {
    {"family", offsetof(pm_workload, family), 0},       {"size", offsetof(pm_workload, size), 0},
    {"precision", offsetof(pm_workload, precision), 0}, {"window", offsetof(pm_workload, window), 1},
    {"resolution", offsetof(pm_workload, resolution), 1}, {"layers", offsetof(pm_workload, layers), 1},
    {"blocks", offsetof(pm_workload, blocks), 1},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static int field_index(const char *axis)
{
    for (size_t i = 0; axis && i < N_FIELDS; i++)
        if (!strcmp(fields[i].axis, axis))
            return (int)i;
    return -1;
}

const char *pm_workload_axis(const pm_workload *w, const char *axis, char *num, size_t cap)
{
    int i = field_index(axis);
    if (i < 0)
        return NULL;
    const char *p = (const char *)w + fields[i].off;
    if (!fields[i].number)
        return *(const char *const *)(const void *)p;
    snprintf(num, cap, "%d", *(const int *)(const void *)p);
    return num;
}

/* Sets field i from its parameter's text (a number as the spec wrote it). */
static void set_field(pm_workload *w, int i, const char *v)
{
    char *p = (char *)w + fields[i].off;
    if (fields[i].number)
        *(int *)(void *)p = (int)strtol(v, NULL, 10);
    else
        *(const char **)(void *)p = v;
}

pm_workload pm_workload_of(const pm_cfg *c)
{
    pm_workload w = {0};
    const pm_kind *k = c ? pm_kind_find(c->kind) : NULL;
    for (size_t i = 0; k && i < N_FIELDS; i++) {
        const char *v = pm_kind_list_has(k->axes, fields[i].axis) ? pm_cfg_param(c, fields[i].axis) : NULL;
        if (v)
            set_field(&w, (int)i, v);
    }
    return w;
}

/* The field the depth of `kind` is, or -1 (no row, or a row whose depth_axis is no number field). */
static int depth_field(const char *kind)
{
    const pm_kind *k = pm_kind_find(kind);
    int i = k ? field_index(k->depth_axis) : -1;
    return i >= 0 && fields[i].number ? i : -1;
}

int pm_workload_depth(const pm_workload *w, const char *kind)
{
    int i = depth_field(kind);
    return i < 0 ? 0 : *(const int *)(const void *)((const char *)w + fields[i].off);
}

void pm_workload_set_depth(pm_workload *w, const char *kind, int depth)
{
    int i = depth_field(kind);
    if (i >= 0)
        *(int *)(void *)((char *)w + fields[i].off) = depth;
}

static int dup_str(const char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

int pm_workload_copy(pm_workload *dst, const pm_workload *src)
{
    *dst = *src;
    dst->family = dst->size = dst->precision = NULL;
    if (dup_str(&dst->family, src->family) || dup_str(&dst->size, src->size) ||
        dup_str(&dst->precision, src->precision)) {
        pm_workload_clear(dst);
        return -1;
    }
    return 0;
}

void pm_workload_clear(pm_workload *w)
{
    free(pm_unconst_ptr(w->family));
    free(pm_unconst_ptr(w->size));
    free(pm_unconst_ptr(w->precision));
    *w = (pm_workload){0};
}
