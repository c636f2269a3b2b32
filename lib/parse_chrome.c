/* STUB: replaced by the parser work. */
#include "parse_internal.h"
int pm_parse_chrome_trace(const char *b, size_t l, pm_report *o, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "chrome-trace parser not built"); }
