/* No include guard: an X-macro list, included once per use with AN_SECTION defined. */
/* The analysis's sections in the order pm_analysis_run runs them, one row each: AN_SECTION(NAME) is
 * `int an_NAME(an_work *, pm_err *)`, which fills its part of pm_analysis (for a report section, that section's
 * sub-structure, analysis.h), and `void an_NAME_free(pm_analysis *)`, which frees what it filled; both in
 * lib/study/analysis_NAME.c. The driver (analysis.c) runs the rows and pm_analysis_free frees them. A new
 * section: its file plus one line here. */
AN_SECTION(load)        /* stages, configs, runs, pass rows; the summary's run counts */
AN_SECTION(startup)     /* null-input runs, per-tool baselines: overhead */
AN_SECTION(stages)      /* shares, per-config summaries; parallelism's stage user/wall */
AN_SECTION(hosts)       /* which machine measured what: machines, method (the tool builds), incomplete */
AN_SECTION(parallel)    /* IR sizes, user/wall per tool: parallelism */
AN_SECTION(npu)         /* instrumented/offline, submodels, ELF export: npu */
AN_SECTION(noise)       /* CV, outliers, load, contention: noise */
AN_SECTION(regimes)     /* regimes (analysis_regime.c) */
AN_SECTION(fits)        /* heavy passes vs IR size: fits */
AN_SECTION(handoff)     /* trends, family distance: handoff; the fingerprints: figures */
AN_SECTION(precision)   /* precision */
AN_SECTION(fixes)       /* the fix table and its rules: fixes */
AN_SECTION(flagcost)    /* timing flags against their uninstrumented twin runs: flagcost (before builds, whose
                         * stage that moved most reads the stage seconds it scales to the twins) */
AN_SECTION(ab)          /* the in-sweep A/B by compare's rule (with pm_an_opts.db_path): ab */
AN_SECTION(builds)      /* each tool build against the next by compare's rule (with db_path): between */
AN_SECTION(passcount)   /* per-pass instruction counts beside per-pass wall (the callgrind meter): passcount */
