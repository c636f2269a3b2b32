/* The NPU back end's part of the report (text, HTML, JSON): which configs ran instrumented or offline (never
 * compared with stock silently), the split of a compile into NPUW's prefill / generate / LM head, and the ELF
 * export time. Empty when the analysis has no NPU configs. */
#ifndef PM_NPU_REPORT_H
#define PM_NPU_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include "analysis.h"

void pm_npu_report_text(const pm_analysis *a, FILE *f);
void pm_npu_report_html(const pm_analysis *a, FILE *f);
json_t *pm_npu_report_json(const pm_analysis *a);   /* NULL when there is nothing to report */

#endif
