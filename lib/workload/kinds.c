/* The workload-kind table. Adding a workload kind adds a row here (docs/architecture.md). */
#include "kinds.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int emit_llm(const pm_workload *w, FILE *out, pm_gen_info *info, pm_err *err)
{
    pm_llm_opts o = {.family = w->family, .size = w->size, .window = w->window, .precision = w->precision,
                     .layers = w->layers, .func_per_layer = w->func_per_layer};
    return pm_gen_llm(&o, out, info, err);
}

static int emit_cnn(const pm_workload *w, FILE *out, pm_gen_info *info, pm_err *err)
{
    pm_cnn_opts o = {.family = w->family, .resolution = w->resolution, .precision = w->precision,
                     .blocks = w->blocks};
    return pm_gen_cnn(&o, out, info, err);
}

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
     .axes = "family,size,window,precision,layers", .depth_axis = "layers", .emit = emit_llm, .grow = grow_llm,
     .spec_section = section_llm, .size_axis = "window", .families = pm_gen_llm_families,
     .sizes = pm_gen_llm_sizes, .npuw = 1},
    {.name = "cnn", .label = "CNN",
     .key_legend = "cnn/FAMILY/rRESOLUTION/PRECISION/BBLOCKS/VARIANT: r224 = a 224-pixel input, "
                   "B2 = the stem and first 2 blocks (B0 = the whole network)",
     .handoff_x = "wall", .series = "family", .bars = "family",
     .prefer = {{"precision", "int8"}}, .figure = "cnn-fingerprint", .regime_rows = "family",
     .regime_cols = "resolution", .slice = "precision", .rows_label = "CNN family",
     .cols_label = "input resolution (pixels)", .regime_figure = "cnn-regime-map", .spine = 1,
     .axes = "family,resolution,precision,blocks", .depth_axis = "blocks", .emit = emit_cnn, .grow = grow_cnn,
     .spec_section = section_cnn, .size_axis = "resolution", .families = pm_gen_cnn_families},
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
