/* passmap compare's human tables, on the one table model (table.h): numbers right-aligned with their units,
 * each side's geometric mean with its interval ("1.23 s ±4%"), the ratio with its simultaneous CI and
 * compare's mark (verdict); and its JSON (compare_json.c). */
#ifndef PM_COMPARE_OUT_H
#define PM_COMPARE_OUT_H

#include <stdio.h>
#include "compare.h"
#include "table.h"

typedef enum pm_compare_format { PM_COMPARE_TEXT = 0, PM_COMPARE_MARKDOWN } pm_compare_format;

/* The summary line (pm_compare_oneline) first, then the sides and the tables. top: per-config pass rows and
 * summary pass rows shown (the largest |Δ|); 0: all. width: text width for the table blocks (<= 0: no limit, one
 * line per row). explain: the rule in full (pm_compare_rule_text) in the header, else where to read it. */
int pm_compare_write(FILE *out, const pm_compare_result *r, pm_compare_format fmt, size_t top, int width,
                     int explain, pm_err *err);

/* Everything as JSON (NaN as null); NULL when out of memory. */
json_t *pm_compare_to_json(const pm_compare_result *r);

/* One comparison row's cells, shared by compare's tables and the report's A/B table: ratio "0.912×", its
 * simultaneous (Bonferroni) CI "[0.885, 0.940]" (or "n=2, no interval" / "-"), p (Holm) and the mark
 * (verdict: "undecided (~40 runs/side)" with the repeats that would settle it). */
void pm_compare_fmt_ratio(char *buf, size_t n, const pm_compare_stat *st);
void pm_compare_fmt_ci(char *buf, size_t n, const pm_compare_stat *st, int one_side);
void pm_compare_fmt_p(char *buf, size_t n, const pm_compare_stat *st);
void pm_compare_fmt_verdict(char *buf, size_t n, const pm_compare_stat *st);
/* "[0.975, 1.01]": an interval of a ratio, both ends in pm_fmt_ratio_num's one precision. */
void pm_compare_fmt_range(char *buf, size_t n, double lo, double hi);
/* The comparison in one line, first in compare and in the report's headline (hyperfine-grade): "fp16 vs int8:
 * 1.19x slower [1.08, 1.31] on cpu time (user+sys), 7 of 7 configs decided" -- B vs A, the summary's estimate
 * and interval (pm_compare_result's pooled fields) read by pm_compare_decide as every row's are, a faster B as A/B
 * with its interval turned; else why there is none ("undecided on wall: ~40 runs/side would settle it", "no
 * test on wall: 2 runs a side, 3 needed"); then how many configs the rule decided. */
char *pm_compare_oneline(const pm_compare_result *r);   /* malloc'd; NULL when out of memory */
/* "95% simultaneous (Bonferroni, m=K)" for a family of K tests. */
void pm_compare_fmt_ci_kind(char *buf, size_t n, size_t m);
/* "1.23 s ±4%" for side A (b = 0) or B (b = 1); "-" when the side has no runs. */
void pm_compare_fmt_side(char *buf, size_t n, const pm_compare_stat *st, int b);

/* The same for the deciding metric (decide.h: pm_compare_result.decided_on), in that metric's unit: a time as
 * pm_compare_fmt_side, a count as "1.234 G instructions". */
void pm_compare_fmt_metric_side(char *buf, size_t n, const pm_compare_stat *st, int b, int metric);

#endif
