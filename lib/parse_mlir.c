/* STUB: replaced by the parser work. */
#include "parse_internal.h"
int pm_parse_mlir_text(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "mlir-text parser not built"); }
int pm_parse_mlir_json(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "mlir-json parser not built"); }
