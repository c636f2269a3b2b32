/* The rows of the back-end table (backend.c) and the fix ops they point to: declared once here, so no .c file
 * types an extern by hand (the project checker enforces it). A new back end adds its row here and in backend.c. */
#ifndef PM_BACKENDS_H
#define PM_BACKENDS_H

#include "backend.h"

extern const pm_backend_ops pm_backend_embedded, pm_backend_openvino, pm_backend_command;
extern const pm_backend_fix_ops pm_embedded_fix, pm_ov_fix;

#endif
