/* pm_samples: a sweep's measurements in the shape a baseline file and the exports hold them: per config, every
 * run metric (wall, user, sys, instructions), each step tool's wall and each pass of the config's default pass
 * family (compare.h: >= 1% of its compile, the top 10 per tool), as samples in run order, with the timer's tick,
 * the config's fingerprint and machine, and the sweep's compiler builds, meter and deciding metric. Loaded from
 * a store (pm_samples_load: compare's own reads and its own choice of the pass family and of contention, by
 * comparing the sweep with itself) or read from a baseline file (baseline.h). */
#ifndef PM_SAMPLES_H
#define PM_SAMPLES_H

#include <stddef.h>
#include "error.h"

typedef enum pm_sample_scope {
    PM_SAMPLE_RUN = 0,          /* a run metric of the whole compile */
    PM_SAMPLE_STEP,             /* a step tool's wall */
    PM_SAMPLE_PASS              /* a pass's wall (summed over its readings in a run) */
} pm_sample_scope;

typedef struct pm_sample_series {
    pm_sample_scope scope;
    char *tool, *pass;          /* NULL for a run metric; pass NULL for a step */
    char *metric, *unit;        /* "wall" "s", "instructions" "count", ... */
    char *format;               /* the report format a pass was read from; NULL: the runner's clock */
    double tick;                /* its timer's tick (NaN: none declared) */
    double reads;               /* most readings summed into one run's value (a pass run k times a run: k) */
    double *v;                  /* a value per run of the config; NaN: not recorded in that run */
} pm_sample_series;

typedef struct pm_sample_config {
    char *key, *variant;        /* variant NULL: none */
    char *fp_hash, *fp_text;    /* the config's fingerprint (identity.h); NULL: not recorded */
    char *host, *host_fp;       /* the machine of its runs (the first, when several); NULL: unknown */
    char *contended;            /* why its runs were contended (contention.h); NULL when not. Its series are left
                                   out where the rule withholds its verdict (a timer decides), kept where a count
                                   does */
    size_t n_runs;
    pm_sample_series *series;   /* run metrics, then steps, then passes, each by (tool, pass) */
    size_t n_series;
} pm_sample_config;

typedef struct pm_sample_tool {
    char *name, *invoked, *hash, *version;   /* version: the line of --version that names it */
} pm_sample_tool;

typedef struct pm_samples {
    char *sweep, *meter;        /* meter: the meter row the sweep recorded (meter.h), else "wall" (the runner as
                                   it is: what measured every sweep before meters were recorded) */
    char *decides;              /* the deciding metric's short name: wall, cpu, instructions */
    double startup_cpu_wall_max, startup_cpu_wall_min;   /* the tools' null-input CPU/wall (NaN: none) */
    pm_sample_tool *tools;
    size_t n_tools;
    pm_sample_config *configs;  /* by key */
    size_t n_configs;
} pm_samples;

/* The samples of sweep (NULL: the store's one sweep) of the store at db. */
int pm_samples_load(const char *db, const char *sweep, pm_samples *out, pm_err *err);
void pm_samples_free(pm_samples *s);
/* "run", "step", "pass"; pm_sample_scope_from_name: -1 when unknown. */
const char *pm_sample_scope_name(pm_sample_scope s);
int pm_sample_scope_from_name(const char *name);
/* n, arithmetic mean and sd (n - 1; NaN when n < 2) of a series' recorded values. */
void pm_sample_stats(const pm_sample_series *s, size_t n_runs, size_t *n, double *mean, double *sd);
/* The compiler's identity in one line: each tool's name and version line, "; "-joined ("" when none). */
void pm_samples_identity(const pm_samples *s, char *buf, size_t n);

#endif
