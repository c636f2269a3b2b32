/* The gate's outputs (lib/study/gate.h): the human table, JSON, JUnit XML (tests/schemas/junit.xsd) and CI
 * annotations, one line per finding. Each says the outcome and names the compiler builds compared. */
#ifndef PM_GATE_OUT_H
#define PM_GATE_OUT_H

#include <stdio.h>
#include <jansson.h>
#include "error.h"
#include "gate.h"

/* The human form: outcome line, the sides and their builds, the rule, one table row per finding. */
int pm_gate_write_text(FILE *out, const pm_gate_result *r, int width, pm_err *err);
/* Everything as JSON: outcome, exit status, sides, builds, findings (with their numbers), and the comparison. */
json_t *pm_gate_to_json(const pm_gate_result *r);
/* JUnit XML: one testsuite "passmap gate", a testcase per compared config (a failure per regression, or win with
 * fail_on_win; skipped when unsettled), plus one per config present on one side only. */
int pm_gate_write_junit(FILE *out, const pm_gate_result *r, pm_err *err);

/* CI annotation styles: one row each (the line's shape for an error and for a warning). */
typedef struct pm_gate_annot_style {
    const char *name;        /* --annotations NAME */
    const char *error_prefix;     /* before the message on an error's line */
    const char *warning_prefix;
} pm_gate_annot_style;
/* The style named name, or NULL (names lists them, comma-separated, into buf when asked). */
const pm_gate_annot_style *pm_gate_annot_style_find(const char *name);
void pm_gate_annot_style_names(char *buf, size_t n);
/* One line per finding: regressions (and wins under fail_on_win) as errors, other wins and unsettled configs as
 * warnings. No file:line: a compile-time regression belongs to no line of the code under test. */
int pm_gate_write_annotations(FILE *out, const pm_gate_result *r, const pm_gate_annot_style *style);

#endif
