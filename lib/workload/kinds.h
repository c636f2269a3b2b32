/* pm_kind: what the study knows about a workload kind, as one table row (kinds.c). A config's kind names its
 * row; the row says which of the config's axes (its name=value parameters) play which part in the report.
 * A kind without a row (a `command` back end's configs, an import) takes its axes from the spec instead
 * ([report] size / workload, or report --x / --y), so nothing in the study or the figures names a kind. */
#ifndef PM_KINDS_H
#define PM_KINDS_H

#include <stdio.h>
#include "error.h"
#include "config.h"
#include "gen.h"

/* pm_workload, a workload config's model fields, is declared in gen.h (the generators take it). */

/* The model fields by axis name (the names a row's `axes` list): the one map between a pm_workload and a
 * config's parameters. The field as text (a number written into num), or NULL: no model field is called that,
 * or its string is NULL. */
const char *pm_workload_axis(const pm_workload *w, const char *axis, char *num, size_t cap);
/* A config decoded into its workload: its kind row's axes read from its parameters (strings borrowed from c;
 * an absent axis stays 0 / NULL). All zero for a kind with no row. */
pm_workload pm_workload_of(const pm_cfg *c);
/* The depth a workload of `kind` emits (its row's depth_axis: the store's `layers` column); 0 with no row. */
int pm_workload_depth(const pm_workload *w, const char *kind);
/* Sets the field the depth of `kind` is (the store's `layers` column read back); nothing with no row. */
void pm_workload_set_depth(pm_workload *w, const char *kind, int depth);
/* dst = src with its strings copied (dst owns them: pm_workload_clear). 0, or -1 out of memory (dst cleared). */
int pm_workload_copy(pm_workload *dst, const pm_workload *src);
void pm_workload_clear(pm_workload *w);   /* frees an owning workload's strings and zeroes it */

/* A kind's spec section [NAME X] as its row's expand reads it (lib/workload knows no spec file: the spec
 * hands it these callbacks). */
typedef struct pm_kind_reader {
    const char *section;   /* "llm a": for errors */
    void *user;
    /* The items of list `key` (split on commas and blanks; owned by the reader until expand returns), *n of
     * them (0: the key is absent), and in what "line N: [SECTION] KEY" for an error about one of them. NULL
     * with *n -1: out of memory. */
    const char *const *(*list)(void *user, const char *key, int *n, char *what, size_t cap);
    /* The integer `key` in [lo, hi] (def when absent); an error names its line. */
    int (*number)(void *user, const char *key, int lo, int hi, int def, int *out, pm_err *err);
    /* Before any config is made: the section makes `product` workloads (the spec multiplies by its variants
     * and checks the one config cap). */
    int (*check_size)(void *user, long long product, pm_err *err);
    /* One workload of the matrix and its key stem ("llm/qwen2/0.5b/w128/int8/L1"): the spec crosses it with
     * the section's variants and pipeline into configs. */
    int (*add)(void *user, const pm_workload *w, const char *key_stem, pm_err *err);
} pm_kind_reader;

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
    /* The config model: the kind's axes as stored parameters, in order (the back end adds its pipeline's), and
     * which of them is the depth emitted (the store's `layers` column; a fix rule's `layers` term). */
    const char *axes, *depth_axis;
    /* Writes the workload's MLIR: its generator (gen.h), which takes the pm_workload itself. */
    int (*emit)(const pm_workload *w, FILE *out, pm_gen_info *info, pm_err *err);
    /* How much the IR grows in the embedded pipeline beyond the generated size at this tile (1: not at all):
     * the shard planner's cost estimate. */
    double (*grow)(const pm_workload *w, int tile);
    /* The spec section ("[llm NAME]" ...) that plans this one workload again, with its size axis (window,
     * resolution) at most size_cap and its depth at most depth_cap (0: no cap): the reduced configs of a fix's
     * output check. malloc'd, NULL out of memory. */
    char *(*spec_section)(const pm_workload *w, const char *name, int size_cap, int depth_cap);
    /* The axis that sizes one workload (window, resolution): the one spec_section caps, the one `passmap gen`
     * requires. */
    const char *size_axis;
    /* The generator's names: its families, and a family's sizes (NULL: the kind has no size axis per family). */
    const char *const *(*families)(void);
    const char *const *(*sizes)(const char *family);
    /* OpenVINO compiles it through NPUW (an LLM with a prompt window): no reuse-strategy, the window and the
     * OPTIMIZE_SIZE cache mode go to the compile. */
    int npuw;
    /* Its spec section [NAME X]: the keys it takes (comma list, in the order an error lists them, variants
     * among them: the spec reads those; the back end's pipeline keys, the embedded tile and unroll, follow and
     * are not the row's), and expand, which reads the section's lists into workloads (each checked against the
     * generator) through r. */
    const char *section_keys;
    int (*expand)(const pm_kind_reader *r, pm_err *err);
} pm_kind;

/* The row of a kind, or NULL for a kind with no row. */
const pm_kind *pm_kind_find(const char *name);
/* Rows in table order (the first kind present leads the handoff); NULL-terminated walk: i = 0.. until NULL. */
const pm_kind *pm_kind_at(int i);
/* The held value an axis prefers (NULL: none, or k is NULL). */
const char *pm_kind_prefer(const pm_kind *k, const char *axis);
/* 1 when `axis` is in a comma list. */
int pm_kind_list_has(const char *list, const char *axis);
/* The kinds' names in table order, "llm, cnn" (for messages and help). */
const char *pm_kind_names(void);

/* For the rows' expand and spec_section functions. */
int pm_kind_in_list(const char *name, const char *const *names);    /* 1 when name is in a NULL-terminated list */
void pm_kind_join(const char *const *names, char *out, size_t cap); /* "a, b, c" */
/* v as an integer in [lo, hi]; else an error starting with what. */
int pm_kind_parse_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what);
/* A precision the generators take (int4, int8, fp16); else an error starting with what. */
int pm_kind_check_precision(const char *p, pm_err *err, const char *what);
int pm_kind_capped(int v, int cap);   /* v, at most cap (0: no cap) */

#endif
