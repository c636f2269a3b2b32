/* The grammar of a fix rule's terms (data/fixes-*.tsv rows and a spec's [fix NAME] sections). Shared so that the
 * spec parser checks a declared rule when a sweep reads its spec, not an hour later when `passmap fix` reads it. */
#ifndef PM_FIXRULE_H
#define PM_FIXRULE_H

#include <stddef.h>

/* The names a size term may use besides the study's axes: the evidence passmap fix has for every config. */
extern const char *const PM_FIXRULE_SIZE_NAMES[];   /* NULL-terminated */

/* superlinear: yes, 1, true -> 1; "-", no, 0, false, "*" -> 0; anything else -1. */
int pm_fixrule_superlinear(const char *v, int *out);

/* The value of NAME for the config at hand (NaN when absent). */
typedef double (*pm_fixrule_lookup)(const char *name, const void *ctx);

/* cond: "*" or terms NAME OP NUMBER (OP one of < <= > >=) joined by '&'.
 * lookup NULL: check only, each NAME must be one of PM_FIXRULE_SIZE_NAMES or of axes (NULL-terminated, or NULL).
 * Returns 1 true, 0 false (a term whose value is absent is false), -1 malformed with msg filled. */
int pm_fixrule_size(const char *cond, const char *const *axes, pm_fixrule_lookup lookup, const void *ctx, char *msg,
                    size_t msgcap);

#endif
