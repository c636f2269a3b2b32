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

/* The in-sweep A/B (a->ab.rows): one row per variant and config, compare's own numbers and mark (verdict). No
 * rows when the sweep has one variant; NULL when out of memory. */
pm_table *pm_rt_ab(const pm_analysis *a);
/* The legend of every significance mark in the report: compare's rule, stated once. */
void pm_rt_sig_legend(char *buf, size_t n, const pm_analysis *a);

/* Headline facts (each sentence one line, whole: no length limit). */
typedef struct pm_rt_headline {
    char *phases;            /* the phase split first: "phases, 6 configs: frontend 3-26%, optimizer ..."; NULL:
                                no config with cold runs */
    char **dominant;         /* per regime kind: "LLM, 12 configs: lowering-to-llvm dominates 8 ..." */
    int n_dominant;
    char *fix;               /* top fix and its evidence */
    char *ab;                /* measured A/B of that fix, or how to measure it */
    char *cache;             /* recompile ÷ cache hit */
    char *slowest;           /* NULL: no config with cold runs */
    int oom;
} pm_rt_headline;

/* PM_OK, or PM_ERR_NOMEM (free it either way). */
int pm_rt_headline_build(const pm_analysis *a, pm_rt_headline *h);
void pm_rt_headline_free(pm_rt_headline *h);

/* The handoff in one sentence (what grows, the series, the stage rising and the one falling most, the distance
 * between series), or why there is none. Allocated; NULL when out of memory. */
char *pm_rt_handoff_text(const pm_analysis *a);

#endif
