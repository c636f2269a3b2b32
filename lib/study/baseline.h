/* pm_baseline: a baseline a project commits beside its code, so a CI gate needs no second database
 * (docs/regressions.md). A text file, one tab-separated line per fact, written in a stable order, so a change
 * to it reads as a diff:
 *
 *   # comment lines
 * (what a line holds is a pm_samples, samples.h)
 *   passmap-baseline  1                                   the format's version
 *   sweep             NAME
 *   meter             NAME                                the meter row the sweep was measured with (meter.h:
 *                                                         wall, counters, valgrind; "wall" when none recorded)
 *   decides           METRIC                              the whole compile's deciding metric (decide.h)
 *   startup-cpu-wall  MAX  MIN                            the sweep's tools' null-input CPU/wall ("-": none)
 *   tool              NAME  INVOKED  HASH  VERSION-LINE   the compiler builds the sweep recorded
 *   config            KEY  VARIANT  KIND  FINGERPRINT  FINGERPRINT-TEXT  HOST  HOST-FP  CONTENDED  RUNS
 *   series            KEY  SCOPE  TOOL  PASS  METRIC  UNIT  FORMAT  TICK  READS  N  MEAN  SD  SAMPLES
 *
 * "-" is an absent field; FINGERPRINT-TEXT escapes \, newline and tab (\\, \n, \t). SCOPE is "run" (METRIC:
 * wall, user, sys, instructions — each run's, as compare reads them), "step" (a step tool's wall) or "pass" (a
 * pass of the config's default pass family: >= 1% of its compile, the top 10 per tool, compare.h). SAMPLES are
 * comma-separated in run order (a value per run, 0 where a pass did not run in it), all of them: N, MEAN and SD
 * (arithmetic) are there to read, the samples to test. A config whose runs were contended (the one rule,
 * contention.h) keeps its reason in CONTENDED, and no samples where the rule withholds its verdict (a timer
 * decided: a baseline from contended runs decides nothing); where a count decided (a counting meter), its samples
 * stay and the gate judges it contended again, as compare would.
 * METRIC and UNIT are free names, so a meter's other metric (instruction counts of a simulator) is one more
 * series of the same shape.
 *
 * The gate reads the file back into a store of its own (pm_baseline_to_store) and compares it as any store:
 * the same rule, the same matching of configs (the key without its variant), the same fingerprint check. */
#ifndef PM_BASELINE_H
#define PM_BASELINE_H

#include <stddef.h>
#include "error.h"
#include "samples.h"

#define PM_BASELINE_VERSION 1

typedef struct pm_baseline_note {
    char *key, *reason;
} pm_baseline_note;

typedef struct pm_baseline_info {
    char *sweep, *meter, *decides;
    size_t n_configs, n_series;
    pm_baseline_note *contended;   /* configs recorded contended (no samples) */
    size_t n_contended;
} pm_baseline_info;

/* *is_file: 1 when path is a baseline file, 0 when it is something else (a store: let the store's open judge it).
 * An error when it cannot be read. */
int pm_baseline_sniff(const char *path, int *is_file, pm_err *err);
/* Writes the baseline of sweep (NULL: the store's one sweep) of the store at db to out (temp file, renamed
 * over). info (may be NULL) says what was written. */
int pm_baseline_write(const char *db, const char *sweep, const char *out, pm_baseline_info *info, pm_err *err);
/* Reads a baseline file. Errors name the file and the line. */
int pm_baseline_read(const char *file, pm_samples *out, pm_err *err);
/* Reads the baseline file into a new store at store_path. Errors name the file and the line. */
int pm_baseline_to_store(const char *file, const char *store_path, pm_baseline_info *info, pm_err *err);
/* The reason config KEY was recorded contended, or NULL. */
const char *pm_baseline_contended(const pm_baseline_info *info, const char *key);
void pm_baseline_info_free(pm_baseline_info *info);
/* Removes a store made by pm_baseline_to_store (with SQLite's companions) and its folder. */
void pm_baseline_remove_store(const char *dir, const char *store_path);

#endif
