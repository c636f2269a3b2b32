/* The workload-kind table. Adding a workload kind adds a row here (docs/architecture.md). */
#include "kinds.h"

#include <stddef.h>
#include <string.h>

static const pm_kind kinds[] = {
    /* A model's compile grows with its size and window; families are what a user compares at equal compile
     * time. The fingerprint holds window and precision fixed and shows every (family, size). */
    {.name = "llm", .label = "LLM",
     .key_legend = "llm/FAMILY/SIZE/wWINDOW/PRECISION/LLAYERS/VARIANT: w128 = a 128-token prompt window, "
                   "L1 = 1 decoder layer emitted",
     .handoff_x = "wall", .series = "family", .bars = "family,size",
     .prefer = {{"precision", "int8"}}, .figure = "fingerprint", .regime_rows = "size", .regime_cols = "window",
     .slice = "precision", .rows_label = "model size (parameters)", .cols_label = "window (prompt tokens)",
     .regime_figure = "regime-map", .precision_study = 1},
    {.name = "cnn", .label = "CNN",
     .key_legend = "cnn/FAMILY/rRESOLUTION/PRECISION/BBLOCKS/VARIANT: r224 = a 224-pixel input, "
                   "B2 = the stem and first 2 blocks (B0 = the whole network)",
     .handoff_x = "wall", .series = "family", .bars = "family",
     .prefer = {{"precision", "int8"}}, .figure = "cnn-fingerprint", .regime_rows = "family",
     .regime_cols = "resolution", .slice = "precision", .rows_label = "CNN family",
     .cols_label = "input resolution (pixels)", .regime_figure = "cnn-regime-map", .spine = 1},
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
