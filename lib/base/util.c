#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double pm_util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pm_util_mkdir_p(const char *path, pm_err *err)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return pm_err_set(err, PM_ERR_USAGE, "bad folder path '%.200s'", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(buf, 0777) != 0 && errno != EEXIST;
        *p = '/';
        if (bad)
            return pm_err_errno(err, PM_ERR_IO, "cannot create %.*s", (int)(p - buf), buf);
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return pm_err_errno(err, PM_ERR_IO, "cannot create %s", buf);
    return PM_OK;
}

int pm_util_open_regular(const char *path, size_t max, int *fd_out, pm_err *err)
{
    *fd_out = -1;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below like any non-regular file */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "cannot open %s", path);
    int rc = PM_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot stat %s", path);
    else if (!S_ISREG(sb.st_mode)) /* a device such as /dev/zero never ends and a FIFO can block forever */
        rc = pm_err_set(err, PM_ERR_IO, "%s is not a regular file", path);
    else if ((uintmax_t)sb.st_size > (uintmax_t)max)
        rc = pm_err_set(err, PM_ERR_IO, "%s is %jd bytes, over the %zu-byte limit for this input", path,
                        (intmax_t)sb.st_size, max);
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = pm_err_errno(err, PM_ERR_IO, "%s", path);
    if (rc)
        close(fd);
    else
        *fd_out = fd;
    return rc;
}

int pm_util_read_file_max(const char *path, size_t max, char **buf, size_t *len, pm_err *err)
{
    *buf = NULL;
    *len = 0;
    int fd, rc = pm_util_open_regular(path, max, &fd, err);
    if (rc) {
        if (err)
            err->code = PM_ERR_IO; /* callers have always seen PM_ERR_IO */
        return rc == PM_ERR_NOTFOUND ? PM_ERR_IO : rc;
    }
    char *data = NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot stat %s", path);
        goto cleanup;
    }
    size_t cap = (size_t)sb.st_size + 2, n = 0; /* + NUL + one byte to see the end without growing */
    if (cap < 4096)
        cap = 4096;
    for (;;) {
        if (!data && !(data = malloc(cap))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
            goto cleanup;
        }
        if (n + 1 == cap) { /* the file grew while being read */
            char *bigger = realloc(data, cap * 2);
            if (!bigger) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", path);
                goto cleanup;
            }
            data = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, data + n, cap - n - 1);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = pm_err_errno(err, PM_ERR_IO, "cannot read %s", path);
            goto cleanup;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            rc = pm_err_set(err, PM_ERR_IO, "%s grew over the %zu-byte limit for this input while being read", path,
                            max);
            goto cleanup;
        }
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    data = NULL;
cleanup:
    close(fd);
    free(data);
    return rc;
}

int pm_util_read_file(const char *path, char **buf, size_t *len, pm_err *err)
{
    return pm_util_read_file_max(path, SIZE_MAX - 1, buf, len, err);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void pm_util_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- writes that never replace a non-regular file ---------------------------------------------------- */

static int write_all_fd(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Follows symbolic links (up to 40, like the kernel) to the path that finally names a file or nothing. */
static int resolve_links(const char *path, char out[PATH_MAX], struct stat *st, int *exists, pm_err *err)
{
    char cur[PATH_MAX], target[PATH_MAX];
    if (strlen(path) >= sizeof cur)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", path);
    snprintf(cur, sizeof cur, "%s", path);
    for (int depth = 0; depth < 40; depth++) {
        if (lstat(cur, st)) {
            if (errno != ENOENT)
                return pm_err_errno(err, PM_ERR_IO, "cannot stat %s", cur);
            *exists = 0;
            memcpy(out, cur, strlen(cur) + 1); /* both PATH_MAX */
            return PM_OK;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            memcpy(out, cur, strlen(cur) + 1); /* both PATH_MAX */
            return PM_OK;
        }
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0)
            return pm_err_errno(err, PM_ERR_IO, "cannot read link %s", cur);
        target[n] = 0;
        const char *slash = strrchr(cur, '/');
        if (target[0] == '/' || !slash) {
            snprintf(cur, sizeof cur, "%s", target);
        } else {
            char joined[PATH_MAX];
            if ((size_t)snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - cur), cur, target) >= sizeof joined)
                return pm_err_set(err, PM_ERR_USAGE, "path too long below %.200s", cur);
            snprintf(cur, sizeof cur, "%s", joined);
        }
    }
    return pm_err_set(err, PM_ERR_IO, "too many levels of symbolic links: %s", path);
}

/* Character devices and FIFOs are written in place; anything else that is not a regular file is refused. */
static int write_special(const char *path, const struct stat *st, const void *data, size_t len, pm_err *err)
{
    if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode))
        return pm_err_set(err, PM_ERR_IO, "refusing to replace %s: not a regular file (%s)", path,
                          S_ISDIR(st->st_mode) ? "a directory" : S_ISBLK(st->st_mode) ? "a block device" : "a socket");
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of blocking forever */
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISFIFO(st->st_mode) ? O_NONBLOCK : 0));
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, errno == ENXIO ? "cannot write FIFO %s (no reader)" : "cannot open %s",
                            path);
    int rc = PM_OK;
    if (S_ISFIFO(st->st_mode))
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (write_all_fd(fd, data, len))
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", path);
    if (close(fd) && !rc)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", path);
    return rc;
}

int pm_util_publish(const char *tmp, const char *path, pm_err *err)
{
    char final[PATH_MAX];
    struct stat st;
    int exists = 0, rc = resolve_links(path, final, &st, &exists, err);
    if (!rc && exists && !S_ISREG(st.st_mode)) {
        char *data = NULL;
        size_t len = 0;
        if (!(rc = pm_util_read_file(tmp, &data, &len, err)))
            rc = write_special(final, &st, data, len, err);
        free(data);
    } else if (!rc && rename(tmp, final)) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot rename %s to %s", tmp, final);
    }
    unlink(tmp); /* gone after a rename; removed otherwise */
    return rc;
}

int pm_util_temp_beside(const char *path, char *tmp, size_t cap, int *fd, pm_err *err)
{
    char final[PATH_MAX];
    struct stat st;
    int exists = 0, rc = resolve_links(path, final, &st, &exists, err);
    *fd = -1;
    if (rc)
        return rc;
    const char *slash = strrchr(final, '/');
    if ((size_t)snprintf(tmp, cap, "%.*s/.pmtmp.XXXXXX", slash ? (int)(slash - final) : 1,
                         slash ? (slash == final ? "/" : final) : ".") >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", path);
    if ((*fd = mkstemp(tmp)) < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot create a temporary file beside %s", final);
    return PM_OK;
}

int pm_util_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode,
                              const struct timespec *mtime, pm_err *err)
{
    char final[PATH_MAX], tmp[PATH_MAX];
    struct stat st;
    int exists = 0, rc = resolve_links(path, final, &st, &exists, err);
    if (rc)
        return rc;
    if (exists && !S_ISREG(st.st_mode))
        return write_special(final, &st, data, len, err);
    const char *slash = strrchr(final, '/');
    if ((size_t)snprintf(tmp, sizeof tmp, "%.*s/.pmtmp.XXXXXX", slash ? (int)(slash - final) : 1,
                         slash ? (slash == final ? "/" : final) : ".") >= sizeof tmp)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return pm_err_errno(err, PM_ERR_IO, "cannot create a temporary file beside %s", final);
    if (write_all_fd(fd, data, len) || fchmod(fd, mode) ||
        (mtime && futimens(fd, (struct timespec[2]){*mtime, *mtime}))) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", final);
        close(fd);
        unlink(tmp);
        return rc;
    }
    if (close(fd)) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", final);
        unlink(tmp);
        return rc;
    }
    return pm_util_publish(tmp, final, err);
}

/* ---- setting a file aside while a command runs ------------------------------------------------------- */

#define ASIDE_TAG ".passmap-prev."

/* path's folder ("." when none) and its last component. */
static int split_path(const char *path, char *dir, size_t cap, const char **base, pm_err *err)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if ((size_t)snprintf(dir, cap, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
                         slash ? path : ".") >= cap)
        return pm_err_set(err, PM_ERR_USAGE, "path too long: %.200s", path);
    return PM_OK;
}

/* Puts an aside copy back at path unless something is there: link(2) never replaces a file that appeared
 * meanwhile; a file system without hard links gets the rename after the check. */
static int put_back(const char *aside, const char *path, pm_err *err)
{
    if (!link(aside, path)) {
        unlink(aside);
        return PM_OK;
    }
    if (errno == EEXIST)
        return pm_err_set(err, PM_ERR_IO, "%s appeared meanwhile: the previous file is left at %s", path, aside);
    struct stat st;
    if (!lstat(path, &st))
        return pm_err_set(err, PM_ERR_IO, "%s appeared meanwhile: the previous file is left at %s", path, aside);
    if (rename(aside, path))
        return pm_err_errno(err, PM_ERR_IO, "cannot put %s back as %s", aside, path);
    return PM_OK;
}

/* Process pid's start time: clock ticks after boot (/proc/PID/stat field 22); 0 when it cannot be read. With the
 * PID it names one process: a reused PID has another start time. */
static unsigned long long proc_start(long pid)
{
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    const char *s = strrchr(buf, ')');   /* field 2 (comm) may hold blanks and parentheses */
    unsigned long long start = 0;
    for (int field = 2; s && *s && field < 22; s++)
        if (*s == ' ' && ++field == 22)
            start = strtoull(s + 1, NULL, 10);
    return start;
}

/* Whether process pid started after t (its start time plus the boot time): then it is not the process that set a
 * copy aside at t, whose PID it reuses. 0 when it cannot be told. For a copy named before the name held its
 * process's start time. */
static int started_after(long pid, time_t t)
{
    unsigned long long start = proc_start(pid);
    long long btime = -1;
    FILE *st = fopen("/proc/stat", "r");
    for (char line[256]; st && fgets(line, sizeof line, st);)
        if (!strncmp(line, "btime ", 6))
            btime = atoll(line + 6);
    if (st)
        fclose(st);
    long hz = sysconf(_SC_CLK_TCK);
    if (!start || btime < 0 || hz <= 0)
        return 0;
    return (time_t)(btime + (long long)(start / (unsigned long long)hz)) > t + 1;   /* a second of rounding */
}

int pm_util_aside_set(const char *path, char *aside, size_t cap, int *set, pm_err *err)
{
    struct stat st;
    const char *base;
    char dir[PATH_MAX];
    int rc;
    *set = 0;
    aside[0] = 0;
    if (lstat(path, &st) || !S_ISREG(st.st_mode))
        return PM_OK;
    if ((rc = split_path(path, dir, sizeof dir, &base, err)))
        return rc;
    /* the PID and its start time name the process that will put it back (a PID alone may be reused by the time
     * another process looks); a suffix only when a dead namesake's copy is there */
    char self[48];
    unsigned long long start = proc_start((long)getpid());
    snprintf(self, sizeof self, start ? "%ld.%llu" : "%ld", (long)getpid(), start);
    for (unsigned n = 0;; n++) {
        char suffix[24] = "";
        if (n)
            snprintf(suffix, sizeof suffix, "-%u", n);
        if ((size_t)snprintf(aside, cap, "%s/.%s" ASIDE_TAG "%s%s", dir, base, self, suffix) >= cap) {
            aside[0] = 0;
            return pm_err_set(err, PM_ERR_USAGE, "path too long to set %.200s aside", path);
        }
        if (lstat(aside, &st)) {
            if (errno == ENOENT)
                break;
            rc = pm_err_errno(err, PM_ERR_IO, "cannot set %s aside as %s", path, aside);
            aside[0] = 0;
            return rc;
        }
        if (n == 1000) {
            aside[0] = 0;
            return pm_err_set(err, PM_ERR_IO, "cannot set %s aside: 1000 names beside it are taken", path);
        }
    }
    if (rename(path, aside)) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot set %s aside as %s", path, aside);
        aside[0] = 0;
        return rc;
    }
    *set = 1;
    return PM_OK;
}

int pm_util_aside_end(const char *aside, const char *path, int *restored, pm_err *err)
{
    struct stat st;
    *restored = 0;
    if (lstat(path, &st)) {
        if (errno != ENOENT)
            return pm_err_errno(err, PM_ERR_IO, "cannot stat %s: the previous file is left at %s", path, aside);
        int rc = put_back(aside, path, err);
        *restored = !rc;
        return rc;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return pm_err_set(err, PM_ERR_IO, "%s is no longer a file: the previous file is left at %s", path, aside);
    if (unlink(aside) && errno != ENOENT)
        return pm_err_errno(err, PM_ERR_IO, "cannot remove %s", aside);
    return PM_OK;
}

/* The PID of an aside copy's name (".NAME.passmap-prev.PID[.START]" or "...-N"), or 0 when it is not one of
 * path's; *start: the process's start time the name holds (0: a name from before it held one). */
static long aside_pid(const char *name, const char *base, unsigned long long *start)
{
    size_t bl = strlen(base), tl = strlen(ASIDE_TAG);
    *start = 0;
    if (name[0] != '.' || strncmp(name + 1, base, bl) || strncmp(name + 1 + bl, ASIDE_TAG, tl))
        return 0;
    const char *p = name + 1 + bl + tl;
    char *end;
    errno = 0;
    long pid = strtol(p, &end, 10);
    if (end == p || *p < '1' || *p > '9' || errno || pid > INT32_MAX)
        return 0;
    if (*end == '.') {
        const char *n = end + 1;
        *start = strtoull(n, &end, 10);
        if (end == n || *n < '0' || *n > '9' || errno)
            return 0;
    }
    if (*end == '-') {
        const char *n = end + 1;
        strtoul(n, &end, 10);
        if (end == n || *n < '0' || *n > '9')
            return 0;
    }
    return *end ? 0 : pid;
}

/* Whether the process that set copy `aside` aside (pid, start) still runs: its PID runs a process with the start
 * time the name holds; for an older name without one, a process that started before the copy was set aside (its
 * ctime: the rename). Our own PID is a dead namesake's: this process sets a copy aside only after recovering. */
static int aside_owner_runs(const char *aside, long pid, unsigned long long start)
{
    struct stat ast;
    if (pid == (long)getpid() || (kill((pid_t)pid, 0) && errno != EPERM))
        return 0;
    if (start) {
        unsigned long long now = proc_start(pid);
        return !now || now == start;   /* unreadable: taken as running, never put back under a live process */
    }
    return !(lstat(aside, &ast) == 0 && started_after(pid, ast.st_ctim.tv_sec));
}

int pm_util_aside_recover(const char *path, int *restored, char *left, size_t cap, char *why, size_t why_cap,
                          pm_err *err)
{
    const char *base;
    char dir[PATH_MAX];
    int rc;
    *restored = 0;
    if (cap)
        left[0] = 0;
    if (why_cap)
        why[0] = 0;
    if ((rc = split_path(path, dir, sizeof dir, &base, err)))
        return rc;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? PM_OK : pm_err_errno(err, PM_ERR_IO, "cannot list %s", dir);
    for (struct dirent *e; !rc && (e = readdir(d));) {
        unsigned long long start;
        long pid = aside_pid(e->d_name, base, &start);
        if (!pid)
            continue;
        char aside[PATH_MAX + sizeof e->d_name + 1];   /* dir (bounded by split_path) / name */
        struct stat st;
        snprintf(aside, sizeof aside, "%s/%s", dir, e->d_name);
        if (aside_owner_runs(aside, pid, start))
            continue;
        char because[PATH_MAX + 100] = "the output is there";
        if (lstat(path, &st) && errno == ENOENT) {
            pm_err perr;
            if (!*restored && !put_back(aside, path, &perr)) {
                *restored = 1;
                continue;
            }
            snprintf(because, sizeof because, "%s", *restored ? "another copy was put back"
                                                               : "cannot put it back");
            if (!*restored)
                snprintf(because, sizeof because, "cannot put it back: %.*s", PATH_MAX, perr.msg);
        } else if (S_ISDIR(st.st_mode)) {
            snprintf(because, sizeof because, "the output path is a folder now");
        } else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            snprintf(because, sizeof because, "something other than a file is at the output path");
        }
        if (cap && !left[0]) {
            snprintf(left, cap, "%s", aside);
            if (why_cap)
                snprintf(why, why_cap, "%s", because);
        }
    }
    closedir(d);
    return rc;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* a and b name one file, or (b absent: a WAL or journal SQLite has not made yet) the same name in the same folder:
 * writing b would leave a stray -wal/-journal that SQLite reads as the store's own */
static int same_path(const char *a, const char *b)
{
    if (same_file(a, b))
        return 1;
    const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
    if (strcmp(na ? na + 1 : a, nb ? nb + 1 : b))
        return 0;
    char da[PATH_MAX], db[PATH_MAX];
    if ((size_t)snprintf(da, sizeof da, "%.*s", na ? (int)(na - a) + 1 : 1, na ? a : ".") >= sizeof da ||
        (size_t)snprintf(db, sizeof db, "%.*s", nb ? (int)(nb - b) + 1 : 1, nb ? b : ".") >= sizeof db)
        return 0;
    return same_file(da, db);
}

int pm_util_refuse_same_file(const char *out, const char *in, int db, const char *what, pm_err *err)
{
    if (!out || !in)
        return PM_OK;
    if (same_file(out, in))
        return pm_err_set(err, PM_ERR_USAGE, "refusing to write %s: it is %s %s, which this command reads (give "
                          "another output file)", out, what, in);
    static const char *const companions[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; db && i < sizeof companions / sizeof *companions; i++) {
        char side[PATH_MAX];
        if ((size_t)snprintf(side, sizeof side, "%s%s", in, companions[i]) < sizeof side && same_path(out, side))
            return pm_err_set(err, PM_ERR_USAGE, "refusing to write %s: it is the %s file of %s %s (give another "
                              "output file)", out, companions[i] + 1, what, in);
    }
    return PM_OK;
}

void *pm_grow(void *p, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return p;
    size_t want = *cap ? 2 * *cap : first;
    if (*cap > SIZE_MAX / 2 || want <= n || want > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, want * elem);
    if (q)
        *cap = want;
    return q;
}

void pm_util_vfirst(char *buf, size_t cap, const char *fmt, va_list ap)
{
    if (!buf[0])
        vsnprintf(buf, cap, fmt, ap);
}

void pm_util_vnotify(void (*fn)(void *user, const char *line), void *user, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    char *line = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!line) {
        fn(user, "(a note could not be formatted: out of memory)");
        return;
    }
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    fn(user, line);
    free(line);
}

void pm_sbuf_add(pm_sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *pm_sbuf_take(pm_sbuf *b)
{
    if (!b->s && !b->oom)
        pm_sbuf_add(b, "%s", "");
    char *s = b->oom ? NULL : b->s;
    if (b->oom)
        free(b->s);
    *b = (pm_sbuf){0};
    return s;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions), rows of at most 64. */
static size_t osa_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;   /* no suggestion for long words: nobody mistypes a 64-character key */
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *pm_util_closest(const char *word, const char *const *cands, size_t n)
{
    size_t wl = strlen(word), best = (size_t)-1, limit = wl <= 4 ? 1 : 2;
    const char *pick = NULL, *prefix = NULL;
    int ties = 0, prefixes = 0;
    if (!wl)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        if (!strncmp(cands[i], word, wl) && strlen(cands[i]) > wl)
            prefix = cands[i], prefixes++;
        size_t dist = osa_distance(word, cands[i]);
        if (dist < best)
            best = dist, pick = cands[i], ties = 0;
        else if (dist == best && pick && strcmp(pick, cands[i]))
            ties++;
    }
    if (pick && best <= limit && !ties)
        return pick;
    return prefixes == 1 ? prefix : NULL;
}

int pm_util_list_has(const char *list, char sep, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, item, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int pm_util_strcmp_null(const char *a, const char *b)
{
    return !a || !b ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

char *pm_util_strdup_opt(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    *oom |= !d;
    return d;
}

void *pm_push(void *arrp, size_t *cap, size_t *n, size_t elem, size_t first)
{
    void *a;
    memcpy(&a, arrp, sizeof a);   /* arrp holds a T *: read and written as bytes, whatever T is */
    char *grown = pm_grow(a, cap, *n, elem, first);
    if (!grown)
        return NULL;
    memcpy(arrp, &grown, sizeof grown);
    char *e = grown + *n * elem;
    memset(e, 0, elem);
    (*n)++;
    return e;
}

int pm_resize(void *arrp, size_t n_old, size_t n_new, size_t elem)
{
    void *a;
    memcpy(&a, arrp, sizeof a);
    if (elem && n_new > SIZE_MAX / elem)
        return -1;
    size_t bytes = n_new * elem;
    char *r = realloc(a, bytes ? bytes : 1);
    if (!r)
        return -1;
    if (n_new > n_old)
        memset(r + n_old * elem, 0, (n_new - n_old) * elem);
    memcpy(arrp, &r, sizeof r);
    return 0;
}

void pm_free_strs(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void pm_free_each(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}
