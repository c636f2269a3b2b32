/* pm_kind: what the study knows about a workload kind, as one table row (kinds.c). A config's kind names its
 * row; the row says which of the config's axes (its name=value parameters) play which part in the report.
 * A kind without a row (a `command` back end's configs, an import) takes its axes from the spec instead
 * ([report] size / workload, or report --x / --y), so nothing in the study or the figures names a kind. */
#ifndef PM_KINDS_H
#define PM_KINDS_H

typedef struct pm_kind {
    const char *name;       /* the config kind this row describes */
    const char *label;      /* how the report names the kind ("LLM") */
    const char *key_legend; /* how to read its config keys, shown beside the configs table */
    /* Handoff (stage share as the compile grows): the growth measure — "wall" (the cold compile wall), a run
     * metric ("ir.ops") or a parameter — and the axes whose values make a series (comma list). */
    const char *handoff_x, *series;
    /* Fingerprint: one bar per combination of these axes (comma list); every other axis is held at one value
     * (its most common, or the preferred value below when present). */
    const char *bars;
    struct { const char *axis, *value; } prefer[2];   /* the value a held axis takes when the study has it */
    const char *figure;     /* the report figure that draws this kind's fingerprint */
    /* Regime map: dominant stage over rows x columns (columns: an integer axis), within one slice of the
     * `slice` axis (its preferred value, else the most common) and of the variant; labels for the figure. */
    const char *regime_rows, *regime_cols, *slice;
    const char *rows_label, *cols_label;
    const char *regime_figure;
    /* Studies only this kind's generator makes possible (its configs carry the model fields): the precision
     * study (precision x size x window, per family) and the CNN spine (resolution per family and depth). */
    int precision_study, spine;
} pm_kind;

/* The row of a kind, or NULL for a kind with no row. */
const pm_kind *pm_kind_find(const char *name);
/* Rows in table order (the first kind present leads the handoff); NULL-terminated walk: i = 0.. until NULL. */
const pm_kind *pm_kind_at(int i);
/* The held value an axis prefers (NULL: none, or k is NULL). */
const char *pm_kind_prefer(const pm_kind *k, const char *axis);
/* 1 when `axis` is in a comma list. */
int pm_kind_list_has(const char *list, const char *axis);

#endif
