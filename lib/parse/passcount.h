/* pm_passcount: per-pass instruction counts of one compile, from a callgrind run of it (callgrind.h) matched to
 * the pass names of its timing report; beside the report's per-pass wall, never instead of it.
 *
 * Two ways a pass is counted, tried in this order:
 *   timer   the run had callgrind dump at every llvm::Timer start and stop (the dump parts' triggers are
 *           "Client Request: start ADDR NAME" / "stop ADDR NAME", written by the Valgrind wrapper passmap builds,
 *           scripts/vgwrap-llvm-timer.c): a pass's count is what ran while its timer ran (as its wall is),
 *           and NAME is the report's own pass name. Works wherever -time-passes / -ftime-report
 *           times a pass with an llvm::Timer (llc, opt, clang).
 *   symbol  the inclusive count of exported entry points, mapped to pass names by data/pass-symbols.tsv
 *           (tool glob, symbol glob, pass-name glob): for a run without the wrapper; a stripped library names
 *           only its exported functions, so a pass whose entry point is hidden is not counted.
 * Every counted report row either gets a count or says why not. */
#ifndef PM_PASSCOUNT_H
#define PM_PASSCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include "callgrind.h"
#include "error.h"
#include "parse_report.h"

/* The triggers the timer wrapper writes (callgrind prefixes "Client Request: "). */
#define PM_PASSCOUNT_START "start "
#define PM_PASSCOUNT_STOP "stop "

typedef struct pm_cgmap pm_cgmap;

pm_cgmap *pm_cgmap_new(void);
void pm_cgmap_free(pm_cgmap *m);
/* Appends rows of a NUL-terminated buffer (tool<TAB>symbol<TAB>pass, globs; '#' comments); origin names it in
 * error messages. */
int pm_cgmap_load_text(pm_cgmap *m, const char *text, const char *origin, pm_err *err);
/* Loads data/pass-symbols.tsv of the data dir; PM_ERR_NOTFOUND naming where it looked when absent. */
int pm_cgmap_load_default(pm_cgmap *m, pm_err *err);
size_t pm_cgmap_rows(const pm_cgmap *m);

typedef struct pm_pass_count {
    size_t pass;          /* index into the report's passes[] */
    int64_t count;        /* instructions; -1: not counted */
    const char *how;      /* "timer" or "symbol" when counted, else NULL */
    char *source;         /* what was counted: the timer's name or the symbols; NULL when not counted */
    char *why;            /* when not counted: why, one line */
} pm_pass_count;

typedef struct pm_passcount {
    const char *mechanism;   /* "timer" when the run has timer dumps, else "symbol" */
    uint64_t total;          /* the whole run's count (startup, parsing and output included) */
    uint64_t counted;        /* sum of the counted passes' counts */
    uint64_t timed;          /* timer: what ran inside any timer (counted or not); symbol: == counted */
    double wall_s;           /* the report's wall over its counted rows (pm_pass_counted) */
    double wall_counted_s;   /* the same over the rows that got a count */
    pm_pass_count *rows;     /* one per counted report row, in report order */
    size_t n;
} pm_passcount;

void pm_passcount_free(pm_passcount *pc);
/* Per-pass counts of report rep from callgrind run cg of the same compile; tool is the step's tool label
 * ("llc", "opt", "clang", "mlir-opt": map rows are chosen by it; NULL: rows for "*" only). map may be NULL
 * when cg has timer dumps. A run with no part and no function is PM_ERR_PARSE. */
int pm_passcount_compute(const pm_callgrind *cg, const pm_report *rep, const pm_cgmap *map, const char *tool,
                         pm_passcount *out, pm_err *err);

/* The counts of one step a per_pass meter ran (meter.h): of the callgrind files in dir, the process the timer
 * wrapper saw timers in (else the one that ran the most), matched to rep; without timer dumps, by
 * data/pass-symbols.tsv. PM_ERR_NOTFOUND when dir holds no callgrind file. */
int pm_passcount_dir(const char *dir, const pm_report *rep, const char *tool, pm_passcount *out, pm_err *err);

#endif
