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

/* Headline facts (each sentence one line, whole: no length limit). */
typedef struct pm_rt_headline {
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
