/* Sweep listing and run counts for `passmap fix` (which reads a study and adds its own A/B sweep to the
 * same store). All SQL stays in the store layer. */
#ifndef PM_STORE_SWEEPS_H
#define PM_STORE_SWEEPS_H

#include <stddef.h>
#include "error.h"
#include "store.h"

typedef struct pm_store_sweep_row {
    char *name, *backend, *spec_text, *meta_json;   /* meta_json: the sweep's method facts, or NULL */
    int superseded;           /* runs an edited spec or a retry replaced (store.h: pm_store_supersede) */
} pm_store_sweep_row;

/* Every sweep, oldest first. */
int pm_store_list_sweeps(pm_store *st, pm_store_sweep_row **rows, size_t *n, pm_err *err);
void pm_store_sweep_rows_free(pm_store_sweep_row *rows, size_t n);
/* Runs of (sweep, config key, mode), any status (what a sweep resumes from); 0 when absent. */
int pm_store_count_runs(pm_store *st, const char *sweep, const char *key, const char *mode, int *n, pm_err *err);
/* Adds a run-level metric to every run of (sweep, config key) that lacks one of that name (passmap probe: sizes
 * measured after the sweep); *added: how many runs got it (0 with no such config). */
int pm_store_add_config_metric(pm_store *st, const char *sweep, const char *key, const char *name, double value,
                               int *added, pm_err *err);
/* The ok cold runs of (sweep, config key), by repeat: per run the sum of its metrics (run- or step-level) named
 * NAME or NAME.<digits> (the NPU log's later estimates, one per NPUW subgraph compile) in (*values)[i] and how
 * many were summed in (*counts)[i]; runs with none are left out. Both malloc'd (NULL when *n is 0). */
int pm_store_metric_sums(pm_store *st, const char *sweep, const char *key, const char *name, double **values,
                         int **counts, size_t *n, pm_err *err);

#endif
