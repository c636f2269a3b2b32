/* What the runner reads about the machine around a run: the cgroup's OOM kills, CPU pressure (PSI) and
 * steal time before and after it, and the signs of an out-of-memory death in its stderr. */
#include "run_internal.h"

/* Where the hierarchy holding `want` is mounted: cgroup2 (want "") or the v1 hierarchy whose super options
 * name the controller (want "memory"). Read from /proc/self/mountinfo, because hybrid systems mount v2 at
 * /sys/fs/cgroup/unified and v1 controllers beside it. 0 when found. */
static int cgroup_mount_read(const char *want, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t n = 0;
    int found = -1;
    while (found && getline(&line, &n, f) > 0) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
        char mnt[PATH_MAX], fstype[64], super[512];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
            sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2)
            continue;
        int hit = !*want ? !strcmp(fstype, "cgroup2") : !strcmp(fstype, "cgroup");
        if (hit && *want) {   /* the controller must be one of the comma-separated super options */
            hit = 0;
            for (char *save = NULL, *tok = strtok_r(super, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
                hit = !strcmp(tok, want);
        }
        if (hit && (size_t)snprintf(out, cap, "%s", mnt) < cap)
            found = 0;
    }
    free(line);
    fclose(f);
    return found;
}

/* cgroup_mount_read once per process and hierarchy: a sweep asked twice per step, and mountinfo runs to
 * hundreds of lines on a container host. (A cgroup file system mounted elsewhere mid-sweep is not followed; the
 * OOM and pressure readings it serves are diagnostics.) */
static int cgroup_mount(const char *want, char *out, size_t cap)
{
    static struct { int state; char path[PATH_MAX]; } memo[2];   /* [0] cgroup2, [1] v1 memory; state 1/-1 */
    int k = *want ? 1 : 0;
    if (*want && strcmp(want, "memory"))
        return cgroup_mount_read(want, out, cap);
    if (!memo[k].state)
        memo[k].state = cgroup_mount_read(want, memo[k].path, sizeof memo[k].path) ? -1 : 1;
    if (memo[k].state < 0 || (size_t)snprintf(out, cap, "%s", memo[k].path) >= cap)
        return -1;
    return 0;
}

/* The kernel OOM killer's count for passmap's memory cgroup (the child starts in the same cgroup): cgroup v2
 * memory.events "oom_kill N", or v1 memory.oom_control "oom_kill N" (hybrid systems: the v1 memory controller
 * is the one that limits). -1 when it cannot be read: then no SIGKILL is taken for an OOM kill. */
long pm_run_cgroup_oom_kills(void)
{
    char line[PATH_MAX + 64], path[2 * PATH_MAX + 64], v1[PATH_MAX] = "", v2[PATH_MAX] = "";
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    /* lines are ID:CONTROLLERS:PATH; v2 is "0::PATH", v1 memory "N:memory:PATH" (maybe with other controllers) */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *cg = c2 + 1;
        if (!*ctrls)
            snprintf(v2, sizeof v2, "%s", cg);
        else
            for (const char *p = ctrls; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
                if (!strncmp(p, "memory", 6) && (p[6] == ',' || p[6] == '\0'))
                    snprintf(v1, sizeof v1, "%s", cg);
    }
    fclose(f);
    char mnt[PATH_MAX];
    path[0] = '\0';
    if (v1[0] && !cgroup_mount("memory", mnt, sizeof mnt)) {
        snprintf(path, sizeof path, "%s%s/memory.oom_control", mnt, strcmp(v1, "/") ? v1 : "");
    }
    if (!path[0] && v2[0] && !cgroup_mount("", mnt, sizeof mnt)) {
        snprintf(path, sizeof path, "%s%s/memory.events", mnt, strcmp(v2, "/") ? v2 : "");
    }
    if (!path[0] || !(f = fopen(path, "r")))
        return -1;
    long n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "oom_kill %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* The "some total=" of a PSI file (microseconds some task waited for a CPU since boot); -1: absent (kernel
 * without PSI, or psi=0). */
static int64_t psi_some_total(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    long long total = -1;
    while (fgets(line, sizeof line, f)) {
        const char *t = !strncmp(line, "some ", 5) ? strstr(line, "total=") : NULL;
        if (t && sscanf(t + 6, "%lld", &total) == 1)
            break;
    }
    fclose(f);
    return total;
}

/* passmap's cgroup v2 cpu.pressure file (the child starts in the same cgroup); 0 when there is one that is
 * not the root (the root's is /proc/pressure/cpu). */
int pm_run_cgroup_cpu_pressure_path(char *out, size_t cap)
{
    char line[PATH_MAX + 64], v2[PATH_MAX + 64] = "", mnt[PATH_MAX];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "0::", 3))
            memcpy(v2, line + 3, strlen(line + 3) + 1);
    }
    fclose(f);
    if (!v2[0] || !strcmp(v2, "/") || cgroup_mount("", mnt, sizeof mnt))
        return -1;
    return (size_t)snprintf(out, cap, "%s%s/cpu.pressure", mnt, v2) < cap ? 0 : -1;
}

/* The "cpu" line's steal (8th field) in USER_HZ ticks, summed over CPUs; -1: absent. */
static int64_t steal_ticks(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[8];
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]);
    fclose(f);
    return got == 8 ? (int64_t)v[7] : -1;
}

void pm_run_pressure_read(pressure_snap *s, const char *cg_path)
{
    s->psi = psi_some_total("/proc/pressure/cpu");
    s->psi_cg = cg_path ? psi_some_total(cg_path) : -1;
    s->steal = steal_ticks();
}

/* after - before into res; a counter absent at either end (or going back) stays -1 */
void pm_run_pressure_delta(const pressure_snap *a, const pressure_snap *b, pm_run_result *res)
{
    long hz = sysconf(_SC_CLK_TCK);
    res->psi_cpu_some_us = a->psi >= 0 && b->psi >= a->psi ? b->psi - a->psi : -1;
    res->psi_cgroup_some_us = a->psi_cg >= 0 && b->psi_cg >= a->psi_cg ? b->psi_cg - a->psi_cg : -1;
    res->steal_s = a->steal >= 0 && b->steal >= a->steal && hz > 0 ? (double)(b->steal - a->steal) / (double)hz : -1;
}

int pm_run_stderr_says_oom(const char *tail, size_t n)
{
    static const char *const needles[] = {"out of memory", "Cannot allocate memory", "std::bad_alloc",
                                          "LLVM ERROR: out of memory", "MemoryError"};
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (memmem(tail, n, needles[i], strlen(needles[i])))
            return 1;
    return 0;
}

void pm_run_errtail_push(char *tail, size_t *len, const char *buf, size_t n)
{
    if (n >= PM_RUN_ERRTAIL) {
        memcpy(tail, buf + n - PM_RUN_ERRTAIL, PM_RUN_ERRTAIL);
        *len = PM_RUN_ERRTAIL;
        return;
    }
    if (*len + n > PM_RUN_ERRTAIL) {
        size_t over = *len + n - PM_RUN_ERRTAIL;
        memmove(tail, tail + over, *len - over);
        *len -= over;
    }
    memcpy(tail + *len, buf, n);
    *len += n;
}

void pm_run_pressure_init(pm_run_pressure *p)
{
    memset(p, 0, sizeof *p);
}

void pm_run_pressure_add(pm_run_pressure *p, const pm_run_result *r)
{
    double v[PM_RUN_PRESSURE_METRICS] = {(double)r->psi_cpu_some_us, (double)r->psi_cgroup_some_us,
                                         r->steal_s >= 0 ? r->steal_s * 1e3 : -1};
    for (int k = 0; k < PM_RUN_PRESSURE_METRICS; k++)
        p->value[k] = p->value[k] < 0 || v[k] < 0 ? -1 : p->value[k] + v[k];
    p->n++;
}

const char *pm_run_pressure_name(int k)
{
    static const char *const names[PM_RUN_PRESSURE_METRICS] = {"host.psi_cpu_some_us", "host.psi_cgroup_cpu_some_us",
                                                               "host.steal_ms"};
    return k >= 0 && k < PM_RUN_PRESSURE_METRICS ? names[k] : "";
}
