/* The workload-kind table: the rows (each defined in its kind's file, gen_NAME.c) in PM_KIND_ROWS order, and
 * the model-field map (the helpers the rows' expand functions share are kind_util.c's, below both). Adding a workload kind
 * adds its file and one X(NAME) in kind_rows.h (docs/extending.md). */
#include "kinds.h"
#include "kind_rows.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define PM_KIND_ROW(name) &pm_kind_##name,
static const pm_kind *const kinds[] = {PM_KIND_ROWS(PM_KIND_ROW)};
#undef PM_KIND_ROW
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* ---- for the rows' spec sections ---- */

const char *pm_kind_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < N_KINDS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", kinds[i]->name);
    return names;
}

const pm_kind *pm_kind_find(const char *name)
{
    for (size_t i = 0; name && i < N_KINDS; i++)
        if (!strcmp(kinds[i]->name, name))
            return kinds[i];
    return NULL;
}

const pm_kind *pm_kind_at(int i)
{
    return i >= 0 && (size_t)i < N_KINDS ? kinds[i] : NULL;
}

int pm_kind_list_has(const char *list, const char *axis)
{
    return axis && pm_util_list_has(list, ',', axis);
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
