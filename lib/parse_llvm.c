/* STUB: replaced by the parser work. */
#include "parse_internal.h"
int pm_parse_llvm_text(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "llvm-text parser not built"); }
int pm_parse_llvm_json(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "llvm-json parser not built"); }
