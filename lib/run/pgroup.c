/* pm_pgroup: recording a step's process group and reaping what a killed passmap left in it (see pgroup.h).
 *
 * Identity: a pgid alone may name another group by the time it is checked (pids are reused). A group is taken
 * for the recorded one when it is on the same machine and boot, its leader (if still there) has the recorded
 * start time, and every member is in the recorded session and started no earlier than the leader did (members
 * descend from the leader). A group a pid reuse made would need a new leader at that very pid, in the same
 * session, already gone, with members left: not a case the check guards against. */
#include "pgroup.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PM_PGROUP_WAIT_S 5.0   /* after SIGKILL: how long members may take to go */
#define PM_PGROUP_POLL_NS 10000000L

/* The fields of /proc/PID/stat that identify a process. 0: read; -1: no such process (or unreadable). */
typedef struct proc_stat {
    char state;
    long pgrp, sid;
    unsigned long long start;
} proc_stat;

static int read_stat(long pid, proc_stat *ps)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid pgrp session ..."; comm may hold blanks and ')': the last ')' ends it */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    long ppid;
    int used = 0;
    if (sscanf(p + 1, " %c %ld %ld %ld%n", &ps->state, &ppid, &ps->pgrp, &ps->sid, &used) != 4)
        return -1;
    p += 1 + used;
    /* fields 7..21 skipped, 22 is starttime */
    for (int field = 7; field <= 21; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    char *end;
    ps->start = strtoull(p + 1, &end, 10);
    return end == p + 1 ? -1 : 0;
}

static void read_boot_id(char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return;
    if (!fgets(out, (int)cap, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

static void this_host(char *out, size_t cap)
{
    if (gethostname(out, cap - 1) != 0)
        out[0] = '\0';
    out[cap - 1] = '\0';
}

/* The owner's part of a record: this machine, boot and process. */
static int identify_owner(pm_pgroup *g, pm_err *err)
{
    proc_stat me;
    memset(g, 0, sizeof *g);
    if (read_stat((long)getpid(), &me))
        return pm_err_errno(err, PM_ERR_IO, "cannot read /proc/%ld/stat", (long)getpid());
    this_host(g->host, sizeof g->host);
    read_boot_id(g->boot_id, sizeof g->boot_id);
    g->owner_pid = (long)getpid();
    g->owner_start = me.start;
    return PM_OK;
}

/* g holds the owner's part already: the leader's. */
static int identify_leader(pid_t leader, const char *what, pm_pgroup *g, pm_err *err)
{
    proc_stat ld;
    if (read_stat((long)leader, &ld))
        return pm_err_errno(err, PM_ERR_IO, "cannot read /proc/%ld/stat", (long)leader);
    g->pgid = ld.pgrp;
    g->sid = ld.sid;
    g->start = ld.start;
    snprintf(g->what, sizeof g->what, "%s", what ? what : "");
    for (char *c = g->what; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return PM_OK;
}

int pm_pgroup_identify(pid_t leader, const char *what, pm_pgroup *g, pm_err *err)
{
    int rc = identify_owner(g, err);
    return rc ? rc : identify_leader(leader, what, g, err);
}

/* Walks /proc for the group's members. *alive: live (non-zombie) members; *foreign: a member that cannot be
 * of the recorded group (other session, started before its leader, or a leader with another start time). */
static void scan_group(const pm_pgroup *g, int *alive, int *foreign)
{
    *alive = *foreign = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        proc_stat ps;
        if (*end || pid <= 0 || read_stat(pid, &ps) || ps.pgrp != g->pgid)
            continue;
        if (ps.sid != g->sid || ps.start < g->start || (pid == g->pgid && ps.start != g->start))
            (*foreign)++;
        else if (ps.state != 'Z' && ps.state != 'X')
            (*alive)++;
    }
    closedir(d);
}

pm_pgroup_state pm_pgroup_check(const pm_pgroup *g, int *n_alive)
{
    char host[256], boot[64];
    int alive = 0, foreign = 0;
    if (n_alive)
        *n_alive = 0;
    this_host(host, sizeof host);
    if (strcmp(host, g->host))
        return PM_PGROUP_OTHER_HOST;
    read_boot_id(boot, sizeof boot);
    if (strcmp(boot, g->boot_id) || g->pgid <= 1)
        return PM_PGROUP_GONE;
    if (kill(-(pid_t)g->pgid, 0) != 0)
        return errno == EPERM ? PM_PGROUP_OTHER : PM_PGROUP_GONE;
    scan_group(g, &alive, &foreign);
    if (foreign)
        return PM_PGROUP_OTHER;
    if (n_alive)
        *n_alive = alive;
    if (!alive)
        return PM_PGROUP_GONE;
    proc_stat owner;
    if (read_stat(g->owner_pid, &owner) == 0 && owner.start == g->owner_start && owner.state != 'Z')
        return PM_PGROUP_OWNED;
    return PM_PGROUP_LEFT;
}

/* Waits up to limit_s for the group to have no live member; 1: gone. Stops early (0) once the id names
 * another group. */
static int wait_gone(const pm_pgroup *g, double limit_s)
{
    double until = pm_util_now() + limit_s;
    for (;;) {
        pm_pgroup_state s = pm_pgroup_check(g, NULL);
        if (s == PM_PGROUP_GONE)
            return 1;
        if (s != PM_PGROUP_LEFT || pm_util_now() >= until)
            return 0;
        nanosleep(&(struct timespec){0, PM_PGROUP_POLL_NS}, NULL);
    }
}

int pm_pgroup_kill(const pm_pgroup *g, double grace_s, pm_err *err)
{
    if (pm_pgroup_check(g, NULL) != PM_PGROUP_LEFT)
        return PM_OK;
    killpg((pid_t)g->pgid, SIGTERM);
    if (wait_gone(g, grace_s))
        return PM_OK;
    /* checked again: SIGKILL goes only to the recorded group, never to one that took its id meanwhile */
    if (pm_pgroup_check(g, NULL) == PM_PGROUP_LEFT)
        killpg((pid_t)g->pgid, SIGKILL);
    if (wait_gone(g, PM_PGROUP_WAIT_S) || pm_pgroup_check(g, NULL) != PM_PGROUP_LEFT)
        return PM_OK;
    return pm_err_set(err, PM_ERR_CHILD, "process group %ld is still alive %.0f s after SIGKILL", g->pgid,
                      PM_PGROUP_WAIT_S);
}

int pm_pgroup_save(const char *path, const pm_pgroup *g, pm_err *err)
{
    char buf[1200];
    int n = snprintf(buf, sizeof buf, "host %s\nboot %s\nowner %ld %llu\ngroup %ld %ld %llu\nwhat %s\n", g->host,
                     g->boot_id, g->owner_pid, g->owner_start, g->pgid, g->sid, g->start, g->what);
    if (n < 0 || (size_t)n >= sizeof buf)
        return pm_err_set(err, PM_ERR_USAGE, "process group record too long");
    return pm_util_write_file_atomic(path, buf, (size_t)n, 0644, NULL, err);
}

int pm_pgroup_load(const char *path, pm_pgroup *g, pm_err *err)
{
    char *text = NULL;
    size_t len;
    int rc = pm_util_read_file_max(path, 4096, &text, &len, err);
    if (rc)
        return rc;
    memset(g, 0, sizeof *g);
    int have = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "host ", 5) && strlen(line + 5) < sizeof g->host) {
            snprintf(g->host, sizeof g->host, "%s", line + 5);
            have |= 1;
        } else if (!strncmp(line, "boot ", 5) && strlen(line + 5) < sizeof g->boot_id) {
            snprintf(g->boot_id, sizeof g->boot_id, "%s", line + 5);
            have |= 2;
        } else if (sscanf(line, "owner %ld %llu", &g->owner_pid, &g->owner_start) == 2) {
            have |= 4;
        } else if (sscanf(line, "group %ld %ld %llu", &g->pgid, &g->sid, &g->start) == 3) {
            have |= 8;
        } else if (!strncmp(line, "what ", 5)) {
            snprintf(g->what, sizeof g->what, "%s", line + 5);
        }
    }
    free(text);
    if (have != 15 || g->pgid <= 1 || g->owner_pid <= 0)
        return pm_err_set(err, PM_ERR_PARSE, "%s: not a process group record", path);
    return PM_OK;
}

int pm_pgroup_recorder_init(pm_pgroup_recorder *r, const char *db_path, pm_err *err)
{
    r->what = NULL;
    r->have_owner = 0;
    int n = snprintf(r->path, sizeof r->path, "%s.pgroup.%ld", db_path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof r->path)
        return pm_err_set(err, PM_ERR_USAGE, "database path too long: %.200s", db_path);
    return PM_OK;
}

int pm_pgroup_recorder_init_job(pm_pgroup_recorder *r, const char *db_path, int job, pm_err *err)
{
    r->what = NULL;
    r->have_owner = 0;
    int n = snprintf(r->path, sizeof r->path, "%s.pgroup.%ld.%d", db_path, (long)getpid(), job);
    if (n < 0 || (size_t)n >= sizeof r->path)
        return pm_err_set(err, PM_ERR_USAGE, "database path too long: %.200s", db_path);
    return PM_OK;
}

int pm_pgroup_record(void *recorder, pid_t pgid, pm_err *err)
{
    pm_pgroup_recorder *r = recorder;
    int rc = PM_OK;
    if ((!r->have_owner || r->owner.owner_pid != (long)getpid()) && !(rc = identify_owner(&r->owner, err)))
        r->have_owner = 1;
    pm_pgroup g = r->owner;
    if (!rc)
        rc = identify_leader(pgid, r->what, &g, err);
    /* Written before the command runs, and it only has to outlive passmap (a reboot ends the group too): the
     * page cache is durable enough, so no fsync per step. */
    return rc ? rc : pm_pgroup_save(r->path, &g, err);
}

void pm_pgroup_unrecord(pm_pgroup_recorder *r)
{
    unlink(r->path);
}

static void say(pm_pgroup_notice_fn notice, void *user, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(pm_pgroup_notice_fn notice, void *user, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (notice)
        notice(user, line);
}

int pm_pgroup_reap(const char *db_path, pm_pgroup_notice_fn notice, void *user, pm_err *err)
{
    char dir[PATH_MAX], prefix[PATH_MAX], path[PATH_MAX * 2];
    const char *slash = strrchr(db_path, '/');
    int n = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - db_path), db_path) : snprintf(dir, sizeof dir, ".");
    if (slash == db_path)
        snprintf(dir, sizeof dir, "/");
    if (n < 0 || (size_t)n >= sizeof dir ||
        (size_t)snprintf(prefix, sizeof prefix, "%s.pgroup.", slash ? slash + 1 : db_path) >= sizeof prefix)
        return pm_err_set(err, PM_ERR_USAGE, "database path too long: %.200s", db_path);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? PM_OK : pm_err_errno(err, PM_ERR_IO, "cannot read folder %s", dir);
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        /* DB.pgroup.PID, or DB.pgroup.PID.J: job J of a sweep running several compiles at once */
        if (strncmp(e->d_name, prefix, plen) || !e->d_name[plen] || (strtol(e->d_name + plen, &end, 10),
                                                                      *end == '.' && end[1] ? strtol(end + 1, &end, 10) : 0, *end))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        pm_pgroup g;
        pm_err lerr = {0};
        if (pm_pgroup_load(path, &g, &lerr)) {
            say(notice, user, "%s: removed", lerr.msg);
            unlink(path);
            continue;
        }
        int alive = 0;
        switch (pm_pgroup_check(&g, &alive)) {
        case PM_PGROUP_OWNED:
            break;
        case PM_PGROUP_OTHER_HOST:
            say(notice, user, "process group %ld on host %s (%s) may still be running there: not touched (%s)",
                g.pgid, g.host, g.what, path);
            break;
        case PM_PGROUP_LEFT: {
            pm_err kerr = {0};
            if (pm_pgroup_kill(&g, 1.0, &kerr)) {
                say(notice, user, "%s (%s), left by an earlier run", kerr.msg, g.what);
                break; /* the record stays: the next run tries again */
            }
            say(notice, user, "killed process group %ld (%d process%s) left running by an earlier run: %s", g.pgid,
                alive, alive == 1 ? "" : "es", g.what);
            unlink(path);
            break;
        }
        default:
            unlink(path);
        }
    }
    closedir(d);
    return PM_OK;
}
