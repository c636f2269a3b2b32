/* pm_passtree: a stored run's passes placed on each step's timeline, and the views built on that one
 * placement: the Chrome trace (passmap trace), the terminal tree (passmap show) and the report's icicle chart. */
#ifndef PM_PASSTREE_H
#define PM_PASSTREE_H

#include <stdio.h>
#include <jansson.h>
#include "error.h"
#include "stagemap.h"
#include "store_runs.h"

#define PM_TRACE_SCHEMA 1

typedef struct pm_span {
    double start_s, dur_s;   /* offset from the step's start */
    int shown;               /* 0: summary rows (Total, Rest), top-level breakdowns already counted elsewhere
                                (LLVM's "Instruction Selection and Scheduling" section), a chrome group's "(self)" */
} pm_span;

/* Places every pass of a step on [0, step wall]. Timed steps use the stored start offsets; other steps lay
 * rows out one after another in stored order, children from their parent's start; every span is clamped
 * into its parent (rounding in the reports can make children add up past their parent). spans: [n_passes]. */
void pm_passtree_layout(const pm_stored_step *st, pm_span *spans);

/* How a step's placement was obtained, for the trace and the report: "measured start offsets",
 * "compiler order, starts not measured", "report order (sorted by time), not execution order". */
const char *pm_passtree_placement(pm_pass_order o);

/* Chrome trace event JSON of one run (object form, {"traceEvents": [...], ...}, then a newline): one process
 * per step, the step as a span, its passes nested inside; timestamps in µs. Written to f one event at a time:
 * beyond the run itself (its stored passes) it holds one event and a step's layout (pm_span and two
 * timestamps per pass). PM_ERR_IO when a write fails. */
int pm_trace_write(const pm_stored_run *run, FILE *f, pm_err *err);

typedef struct pm_show_opts {
    int width;               /* terminal columns */
    int color;               /* ANSI colour */
    int unicode;             /* block glyphs for bars (implied by color); 0: '#' (files, pipes) */
    double min_share;        /* rows below this share of the run's wall are folded into one line */
    const pm_stagemap *map;  /* NULL: no stage column */
} pm_show_opts;

/* A bar of frac (0..1) of width columns: block glyphs in eighths, or '#' without unicode. */
void pm_show_bar(FILE *out, double frac, int width, int unicode);
/* The run's pass tree for a terminal: per step, rows with time, share of the run's wall and a bar. */
int pm_show_run(FILE *out, const pm_stored_run *run, const pm_show_opts *o, pm_err *err);

#endif
