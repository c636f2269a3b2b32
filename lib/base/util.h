/* pm_util: the few system helpers every module needs, written once. */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <stddef.h>
#include "error.h"

/* Monotonic clock in seconds (for durations, never for dates). */
double pm_util_now(void);
/* mkdir -p: creates path and its missing parents (existing folders are fine). */
int pm_util_mkdir_p(const char *path, pm_err *err);
/* rm -rf: removes path and everything below it (symbolic links are removed, not followed). */
void pm_util_remove_tree(const char *path);
/* Reads a whole regular file into a heap buffer, NUL-terminated (*len excludes the NUL). Devices, FIFOs and
 * folders are refused (PM_ERR_IO); so is a file over max bytes, with an error naming the limit. */
int pm_util_read_file_max(const char *path, size_t max, char **buf, size_t *len, pm_err *err);
/* pm_util_read_file_max without a size limit. */
int pm_util_read_file(const char *path, char **buf, size_t *len, pm_err *err);

#endif
