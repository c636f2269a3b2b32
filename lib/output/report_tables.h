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
pm_table *pm_rt_fixes(const pm_analysis *a);
pm_table *pm_rt_fits(const pm_analysis *a);
pm_table *pm_rt_tools(const pm_analysis *a);

/* Headline facts (NULL-free text; each sentence one line). */
typedef struct pm_rt_headline {
    char dominant[8][512];   /* per regime kind: "LLM (12 configs): lowering-to-llvm dominates 8 ..." */
    int n_dominant;
    char fix[1024];          /* top fix and its evidence */
    char ab[512];            /* measured A/B of that fix, or how to measure it */
    char cache[512];         /* recompile ÷ cache hit */
    char slowest[512];
} pm_rt_headline;

void pm_rt_headline_build(const pm_analysis *a, pm_rt_headline *h);

/* The handoff in one sentence (what grows, the series, the stage rising and the one falling most, the distance
 * between series), or why there is none. Allocated; NULL when out of memory. */
char *pm_rt_handoff_text(const pm_analysis *a);

#endif
