/* The back-end table: one row per back end, X(NAME) for the `const pm_backend_ops pm_backend_NAME` its file
 * defines, in table order (the order of `--backend` lists; passmap run's default is the first that measures a
 * CMD). A new back end is its file and its row here: the registry (backend.c) and the declarations below are
 * made from this list, so no .c file types an extern by hand (the project checker enforces it). */
#ifndef PM_BACKENDS_H
#define PM_BACKENDS_H

#include "backend.h"

#define PM_BACKEND_ROWS(X) X(embedded) X(openvino) X(command)

#define PM_BACKEND_DECLARE(name) extern const pm_backend_ops pm_backend_##name;
PM_BACKEND_ROWS(PM_BACKEND_DECLARE)
#undef PM_BACKEND_DECLARE
/* The fix ops the rows point to (each in its back end's fix file). */
extern const pm_backend_fix_ops pm_embedded_fix, pm_ov_fix;
/* The doctor checks and run steps the rows point to (each in its back end's doctor and run files). */
extern const pm_backend_doctor pm_ov_doctor;
extern const pm_backend_run pm_ov_run;

#endif
