/* What the embedded back end's files share below embedded.h: the defaults, and what the back end keeps of a
 * spec (embedded_spec.c reads it, embedded.c the row fills and uses it). */
#ifndef PM_EMBEDDED_INTERNAL_H
#define PM_EMBEDDED_INTERNAL_H

#include "embedded.h"
#include "steps.h"

#define DEFAULT_TILE 256
#define DEFAULT_UNROLL 16

/* What the embedded back end keeps of a spec: its section's settings and the preset's steps rendered with them. */
typedef struct embedded_data {
    pm_embedded_spec opts;
    pm_step_tmpls tmpls;
} embedded_data;

/* the spec's backend_free */
void pm_embedded_data_free(void *p);

#endif
