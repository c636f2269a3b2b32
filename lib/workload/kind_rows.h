/* The workload-kind table: one row per kind, X(NAME) for the `const pm_kind pm_kind_NAME` its file
 * (lib/workload/gen_NAME.c, beside its generator) defines, in table order (the first kind present leads the
 * handoff; `passmap gen list` and messages list them in this order). A new kind is its file and its row here:
 * the table (kinds.c, the only file that includes this) and the declarations below are made from this list, so
 * adding a row rebuilds kinds.c alone. */
#ifndef PM_KIND_ROWS_H
#define PM_KIND_ROWS_H

#include "kinds.h"

#define PM_KIND_ROWS(X) X(llm) X(cnn)

#define PM_KIND_DECLARE(name) extern const pm_kind pm_kind_##name;
PM_KIND_ROWS(PM_KIND_DECLARE)
#undef PM_KIND_DECLARE

#endif
