/* pm_callgrind: Valgrind callgrind output (callgrind.out.PID), read for instruction counts: per function its
 * self and inclusive count, and per dump part (--combine-dumps=yes) its trigger and total.
 *
 * The format (Valgrind's "Callgrind Format Specification"): `fn=`/`cfn=`/`ob=`/`cob=`/`fl=`... position lines
 * with name compression ("(id) name" defines an id, "(id)" alone refers to it; ob/cob, fl/fi/fe/cfi and fn/cfn
 * each share one id space), cost lines ("positions values", positions absolute or "+N", "-N", "*"), and
 * `calls=N target` lines whose next cost line is the call's inclusive cost. Only the first event is read (Ir
 * with callgrind's defaults). Recursion levels callgrind names "f'2" are folded into f. */
#ifndef PM_CALLGRIND_H
#define PM_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

typedef struct pm_cg_fn {
    const char *name;     /* as callgrind wrote it (demangled unless --demangle=no); owned by the pm_callgrind */
    const char *object;   /* the ELF object ("ob="), "" when the file names none */
    uint64_t self;        /* the first event's cost in the function itself, over all parts */
    uint64_t incl;        /* self plus its calls to other functions: inclusive cost (a call cycle through
                             other functions is counted once per level, as callgrind_annotate does) */
} pm_cg_fn;

typedef struct pm_cg_part {
    char *trigger;        /* "desc: Trigger:" text ("Program termination", "Client Request: LABEL", ...) */
    uint64_t total;       /* the part's own total of the first event ("totals:", else "summary:") */
} pm_cg_part;

typedef struct pm_cg_names pm_cg_names;

typedef struct pm_callgrind {
    char *cmd;            /* the profiled command line ("cmd:"), NULL when absent */
    char *event;          /* the first event's name ("Ir") */
    uint64_t total;       /* sum of the parts' totals: the whole run's count */
    pm_cg_fn *fns;
    size_t n_fns;
    pm_cg_part *parts;
    size_t n_parts;
    pm_cg_names *names;   /* interned names the fns point into */
} pm_callgrind;

void pm_callgrind_init(pm_callgrind *cg);
void pm_callgrind_free(pm_callgrind *cg);
/* Parses buf (need not be NUL-terminated) into cg (initialised). A file that is not callgrind output, or a
 * malformed line, is PM_ERR_PARSE naming origin and the line. */
int pm_callgrind_parse_buffer(const char *buf, size_t len, const char *origin, pm_callgrind *cg, pm_err *err);
/* A regular file of at most PM_CALLGRIND_MAX_BYTES. */
#define PM_CALLGRIND_MAX_BYTES ((size_t)4 << 30)
int pm_callgrind_parse_file(const char *path, pm_callgrind *cg, pm_err *err);
/* The function named exactly name (any object); NULL when none. */
const pm_cg_fn *pm_callgrind_find(const pm_callgrind *cg, const char *name);

#endif
