/* The report's tables, built once from the analysis as pm_tables: the text report, --markdown and the HTML
 * report all render these, so a column means the same everywhere. */
#ifndef PM_REPORT_TABLES_H
#define PM_REPORT_TABLES_H

#include "analysis.h"
#include "table.h"

/* Per config: wall with interval, dominant stage and share, dominant pass, recompile ÷ hit, runs.
 * link_prefix: HTML anchor prefix for the config column ("#cfg-"), or NULL for no links. */
pm_table *pm_rt_configs(const pm_analysis *a, const char *link_prefix);
/* Per config: every stage's share (full stage names). */
pm_table *pm_rt_stage_shares(const pm_analysis *a, const char *link_prefix);
/* Per config: process-overhead and its two parts, start-up and time outside passes (shares and seconds);
 * start-up not measured: "-". */
pm_table *pm_rt_overhead(const pm_analysis *a, const char *link_prefix);
/* Per tool: its null-input runs (start-up and serial CPU/wall baseline), or why it was not measured. */
pm_table *pm_rt_startup(const pm_analysis *a);
/* One sentence on how contention was judged (per-tool baseline, or the p90 fallback of older databases). */
void pm_rt_noise_text(const pm_analysis *a, char *buf, size_t cap);
/* Which tools' start-up was measured on a busy machine (then not concluded from), or "". */
void pm_rt_startup_contended_text(const pm_analysis *a, char *buf, size_t cap);
/* Why process-overhead is not split, or "" when it is. */
void pm_rt_overhead_note(const pm_analysis *a, char *buf, size_t cap);
/* How to read the config keys of the kinds in the sweep (of every kind with a legend when all = 1), from the
 * kind table: "LLM keys llm/...: w128 = ...; CNN keys ..."; "" when none has one. */
void pm_rt_key_legend(const pm_analysis *a, int all, char *buf, size_t cap);
/* The stage that is no pass, defined where a table first shows it. */
#define PM_RT_OVERHEAD_DEF \
    "process-overhead = the compile's wall outside every pass timer: process start-up plus time outside passes"
pm_table *pm_rt_fixes(const pm_analysis *a);
/* The sentence a store without stage-entry sizes gets instead of fits (what to rerun), else the one saying the
 * fits' x axes follow a fallback (pm_analysis.fits.x_note), or NULL. */
const char *pm_rt_fits_note(const pm_analysis *a);
pm_table *pm_rt_fits(const pm_analysis *a);
pm_table *pm_rt_tools(const pm_analysis *a);

/* The in-sweep A/B of one pair (a->ab.rows[pair], pair < a->ab.n): one row per config, compare's own numbers and
 * mark, every number beside the mark of the metric that decided (its B/A, interval, p, and the A and B means B/A
 * divides), the walls beside them when another metric decided; its caption names the pair and that metric. NULL
 * when out of memory. */
pm_table *pm_rt_ab(const pm_analysis *a, size_t pair);
/* That caption: "precision fp16 (B) vs int8 (A), ...; B/A, interval, p, mark, A and B: decided on: wall". */
void pm_rt_ab_caption(const pm_analysis *a, size_t pair, char *buf, size_t n);
/* The legend of every significance mark in the report: compare's rule, stated once. */
void pm_rt_sig_legend(char *buf, size_t n, const pm_analysis *a);

/* Headline facts, one answer a line (issue 37: each short enough to read at 80 columns; ranges rounded before
 * they are compared). */
typedef struct pm_rt_headline {
    char **ab;               /* per comparison: pm_compare_oneline ("fp16 vs int8: 1.19x slower [...] ...") */
    int n_ab;
    char *ab_none;           /* no comparison: why, and what measures one; else NULL */
    char *phases;            /* the phase split: "6 configs, share of the cold compile wall: frontend 3-26% ..."; NULL:
                                no config with cold runs */
    char **dominant;         /* per kind: "LLM, 12 configs: lowering-to-llvm leads 12 (19–34%)" */
    int n_dominant;
    char **heaviest;         /* per kind: "X86 DAG->DAG Instruction Selection, 11–15% of LLM compiles" */
    int n_heaviest;
    char *fix;               /* top fix and its evidence */
    const char *fix_why;     /* the catalogue's why of the top fix (the analysis's), or NULL */
    char *cache;             /* recompile ÷ cache hit */
    char *slowest;           /* NULL: no config with cold runs */
    int oom;
} pm_rt_headline;

/* PM_OK, or PM_ERR_NOMEM (free it either way). */
int pm_rt_headline_build(const pm_analysis *a, pm_rt_headline *h);
void pm_rt_headline_free(pm_rt_headline *h);
/* The headline in reading order, each line with its label ("measured A/B", "phases", "dominant stage", "heaviest pass",
 * "top fix", "why" (sub = 1: the line above's reason), "cache", "slowest compile"): text, HTML and JSON print
 * these. Fills up to cap (lines may be NULL with cap 0); returns how many there are. */
typedef struct pm_rt_hl_line {
    const char *label, *text;
    int sub;                 /* the line above's reason ("why") */
    int bare;                /* its own answer, read without its label in text (the A/B summary lines) */
} pm_rt_hl_line;
int pm_rt_headline_lines(const pm_rt_headline *h, pm_rt_hl_line *lines, size_t cap);

/* The stage a config's compile spends most in, process start-up (stage index over) left out: a compile whose
 * largest share is process-overhead is too small to tell its regime, and this is the stage it would show. -1: none. */
int pm_rt_second_stage(const pm_analysis *a, const pm_an_config *c, int over);

/* The handoff in one sentence (what grows, the series, the stage rising and the one falling most, the distance
 * between series), or why there is none. Allocated; NULL when out of memory. */
char *pm_rt_handoff_text(const pm_analysis *a);

#endif
