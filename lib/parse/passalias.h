/* pm_passalias: pass renames between compiler builds, kept as data (data/pass-aliases.tsv).
 *
 * Comparing two builds of one compiler (a spec axis that picks the build, e.g. `llvm = 14, 22` with
 * `argv = llc-{llvm} ...`) matches passes by name; a pass LLVM renamed between versions would otherwise show as
 * "removed" in one build and "added" in the other. Line format: tool<TAB>old name<TAB>name (tool an fnmatch
 * glob on the step's tool label, names exact), '#' starts a comment. Each build's name maps to one name, the
 * newest spelling; names no row lists stay as they are. */
#ifndef PM_PASSALIAS_H
#define PM_PASSALIAS_H

#include <stddef.h>
#include "error.h"

typedef struct pm_passalias pm_passalias;

pm_passalias *pm_passalias_new(void);
void pm_passalias_free(pm_passalias *m);
/* Appends the rows of a NUL-terminated buffer (a UTF-8 byte order mark skipped); origin names it in error
 * messages. A name that is both renamed and a rename's target on another row whose tool glob can match the same
 * tool label is an error (chains are written out in full). Loading and matching are linear in the rows. */
int pm_passalias_load_text(pm_passalias *m, const char *text, const char *origin, pm_err *err);
int pm_passalias_load(pm_passalias *m, const char *path, pm_err *err);
/* Loads data/pass-aliases.tsv of the data dir (pm_data_dir, stagemap.h); PM_ERR_NOTFOUND naming where it
 * looked when the file is absent. */
int pm_passalias_load_default(pm_passalias *m, pm_err *err);
/* The name pass is matched on: the row's new name for (tool, pass), else pass itself. Never NULL. */
const char *pm_passalias_canon(const pm_passalias *m, const char *tool, const char *pass);
size_t pm_passalias_rows(const pm_passalias *m);

#endif
