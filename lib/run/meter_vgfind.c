/* Where passmap's Valgrind helpers are (src/vgwrap, docs/meters.md): the timer wrapper, preloaded into a step
 * run under Valgrind, and passmap's counting tool. Each looked up once. */
#include "meter_vg.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VGWRAP_NAME "passmap-vgwrap.so"

/* The wrapper: $PASSMAP_VGWRAP, else beside passmap's binary (the build folder; a test binary's parent), else
 * the install's lib/passmap. NULL when none is readable. */
const char *pm_meter_vgwrap(void)
{
    static char found[PATH_MAX];
    static int looked;
    if (looked)
        return found[0] ? found : NULL;
    looked = 1;
    const char *env = getenv("PASSMAP_VGWRAP");
    if (env && env[0]) {
        if (access(env, R_OK) == 0)
            snprintf(found, sizeof found, "%s", env);
        return found[0] ? found : NULL;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    static const char *const where[] = {"/", "/../", "/../lib/passmap/"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        char path[PATH_MAX + 64];
        if (snprintf(path, sizeof path, "%s%s%s", exe, where[i], VGWRAP_NAME) < (int)sizeof path &&
            access(path, R_OK) == 0 && realpath(path, found))
            return found;
    }
    found[0] = 0;
    return NULL;
}

/* passmap's counting tool (src/vgwrap/count_tool.c): the folder vgtool/ beside the wrapper, holding
 * pmcount-PLATFORM and Valgrind's core preload (the Makefile links it). NULL when not built. */
const char *pm_meter_vgtool(void)
{
    static char found[PATH_MAX];
    static int looked;
    if (looked)
        return found[0] ? found : NULL;
    looked = 1;
    const char *w = pm_meter_vgwrap();
    const char *slash = w ? strrchr(w, '/') : NULL;
    if (!slash || snprintf(found, sizeof found, "%.*s/vgtool", (int)(slash - w), w) >= (int)sizeof found) {
        found[0] = 0;
        return NULL;
    }
    DIR *d = opendir(found);
    struct dirent *e;
    int tool = 0, core = 0;
    while (d && (e = readdir(d))) {
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", found, e->d_name);
        if (!strncmp(e->d_name, "pmcount-", 8))
            tool |= access(path, X_OK) == 0;
        else if (!strncmp(e->d_name, "vgpreload_core-", 15))
            core |= access(path, R_OK) == 0;
    }
    if (d)
        closedir(d);
    if (!tool || !core)
        found[0] = 0;
    return found[0] ? found : NULL;
}
