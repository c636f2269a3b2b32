/* What the sweep spec's files share (spec_ini.c: the INI and its values; spec_config.c: configs;
 * spec_matrix.c: workload sections into configs; spec.c: the [sweep] section and the whole parse). Other files
 * use spec.h. */
#ifndef PM_SPEC_INTERNAL_H
#define PM_SPEC_INTERNAL_H

#include "spec.h"

#include <stddef.h>

typedef pm_spec_entry entry;
typedef pm_spec_entries entries;

/* The INI text into entries; errors name path and the line. */
int pm_spec_ini_read(const char *text, const char *path, entries *es, pm_err *err);
/* "; did you mean 'x'?" when word is close to one of cands (n of them), else "". */
const char *pm_spec_did_you_mean(char *buf, size_t len, const char *word, const char *const *cands, size_t n);
/* Every '+'-joined token of a variant is one the back ends know. */
int pm_spec_check_variant(const char *v, pm_err *err, const char *what);
/* No two configs share a key (sorted once, after expansion). */
int pm_spec_check_unique_keys(const pm_spec *s, pm_err *err);

#endif
