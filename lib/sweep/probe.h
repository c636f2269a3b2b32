/* pm_probe: measures what a finished sweep did not record: the IR size at each stage's entry (ir.stage.*), which
 * the cost fits need (docs/statistics.md, "Fits"). The sweep's stored spec is read again as from its folder, the
 * back end prepares each stored config once (as a sweep does before its runs: the embedded back end probes its
 * stage sizes there, outside any timed run), and the sizes are added to every run of that config that lacks
 * them. Timed data is never touched. */
#ifndef PM_PROBE_H
#define PM_PROBE_H

#include <signal.h>
#include "error.h"

typedef struct pm_probe_summary {
    int configs;          /* stored configs of the sweep found in its spec */
    int probed;           /* of them, with at least one stage size measured */
    int runs_added;       /* metric rows added */
} pm_probe_summary;

/* sweep NULL: the database's only sweep (several: a usage error naming them). work_dir: where the back end may
 * generate inputs (removed after). */
int pm_probe_run(const char *db_path, const char *sweep, const char *work_dir, const char *self_exe,
                 const volatile sig_atomic_t *cancel, pm_probe_summary *sum, pm_err *err);

#endif
