/* What the two Valgrind meters share (meter_valgrind.c): a step run under one Valgrind tool, children followed,
 * each process's output file in one folder, counted and (unless kept) removed. Only meter_*.c include this. */
#ifndef PM_METER_VG_H
#define PM_METER_VG_H

#include <stddef.h>
#include "meter.h"

typedef struct pm_vg_tool {
    const char *const *args;   /* Valgrind's options before the output ones, NULL-terminated ("--tool=...") */
    const char *out_opt;       /* the tool's output-file option ("--cachegrind-out-file") */
    const char *out_prefix;    /* its files' names in the folder, before the pid ("cg.") */
    const char *preload;       /* a library preloaded into the step (a Valgrind function wrapper), or NULL */
    const char *tool_dir;      /* the folder of a tool of passmap's own ($VALGRIND_LIB), or NULL: Valgrind's */
    /* non-NULL: the folder is scratch/keep, left for the caller (removed first when there); NULL or a NULL
     * scratch: a private folder, removed */
    const char *keep;
} pm_vg_tool;

/* passmap's counting tool (src/vgwrap/count_tool.c): the folder vgtool/ beside the timer wrapper (pm_meter_vgwrap)
 * holding pmcount-PLATFORM and Valgrind's core preload, for $VALGRIND_LIB; NULL when not built. */
const char *pm_meter_vgtool(void);

/* 0 when valgrind is on PATH, else 1 with why */
int pm_meter_vg_usable(char *why, size_t n);
/* argv under Valgrind's tool t; res->instructions: the sum of the processes' counts (a callgrind file's parts
 * summed) */
int pm_meter_vg_exec(const pm_vg_tool *t, const char *const argv[], const pm_run_opts *opts, const char *scratch,
                     pm_run_result *res, pm_err *err);

#endif
