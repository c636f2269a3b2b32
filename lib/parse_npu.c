/* STUB: replaced by the NPU backend work. */
#include "parse_internal.h"
int pm_parse_npu_log(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "npu-log parser not built"); }
int pm_parse_npu_schedule(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "npu parser not built"); }
int pm_parse_npu_strategy(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "npu parser not built"); }
int pm_parse_npu_task_stats(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "npu parser not built"); }
int pm_sniff_npu(const char *b, size_t l, pm_format *f) { return 0; }
