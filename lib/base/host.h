/* pm_host: which machine measured a run. A study spread over several machines must say which machine measured
 * what, and a comparison across machines must be flagged: the fingerprint names the machine kind (CPU, cores,
 * kernel, compiler build), the name tells two machines of the same kind apart. */
#ifndef PM_HOST_H
#define PM_HOST_H

#include "error.h"

typedef struct pm_host {
    char name[256];         /* gethostname() */
    char cpu_model[256];    /* /proc/cpuinfo "model name" (or the architecture when the kernel gives none) */
    int cores;              /* online CPUs */
    char kernel[256];       /* uname release */
    char machine[64];       /* uname machine, e.g. x86_64 */
    char compiler[256];     /* the compiler build the runs used, e.g. "MLIR/LLVM 22.1.8"; set by the caller */
    char fingerprint[17];   /* hex of a 64-bit hash over every field except the name */
} pm_host;

/* Fills everything but compiler, then the fingerprint. */
int pm_host_probe(pm_host *h, pm_err *err);
/* Sets the compiler build and recomputes the fingerprint. */
void pm_host_set_compiler(pm_host *h, const char *compiler);
/* Recomputes h->fingerprint from the other fields. */
void pm_host_fingerprint(pm_host *h);
/* The machine alone, as 16 hex digits in out: a hash over CPU model, cores and architecture. What "measured on
 * another machine" compares (with the name): the compiler build and the kernel change on one machine, and a
 * comparison of two compiler builds is the point of compare and of the gate. */
void pm_host_machine_id(const pm_host *h, char out[17]);

#endif
