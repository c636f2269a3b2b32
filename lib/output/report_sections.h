/* No include guard: an X-macro list, included once per use with PM_REPORT_SECTION defined. */
/* The report's sections in report order: one row each (PM_REPORT_SECTION(name) names pm_section_name, defined
 * in the section's file). Text, Markdown, HTML (and its contents list) and JSON all follow this order. A new
 * section: its file (lib/output/sec_*.c, defining pm_section_NAME) plus one line here. The in-sweep A/B follows
 * the headline (its rows are the evidence of the headline's first lines, issue 37), then the figures (the regime
 * map first): the picture of where the answer holds (issue 23). */
PM_REPORT_SECTION(incomplete)
PM_REPORT_SECTION(proven_fixes)
PM_REPORT_SECTION(summary)
PM_REPORT_SECTION(machines)
PM_REPORT_SECTION(headline)
PM_REPORT_SECTION(ab)
PM_REPORT_SECTION(figures)
PM_REPORT_SECTION(builds)
PM_REPORT_SECTION(configs)
PM_REPORT_SECTION(shares)
PM_REPORT_SECTION(overhead)
PM_REPORT_SECTION(flagcost)
PM_REPORT_SECTION(regimes)
PM_REPORT_SECTION(fits)
PM_REPORT_SECTION(handoff)
PM_REPORT_SECTION(precision)
PM_REPORT_SECTION(noise)
PM_REPORT_SECTION(parallelism)
PM_REPORT_SECTION(passcount)
PM_REPORT_SECTION(fixes)
PM_REPORT_SECTION(npu)
PM_REPORT_SECTION(method)
PM_REPORT_SECTION(drilldown)
PM_REPORT_SECTION(next_step)
