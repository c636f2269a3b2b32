/* pm_cache on a miss: running CMD with its streams captured, checking the run, storing the entry. */
#include "cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "util.h"

/* Below this much free space in the cache's file system a miss runs uncached (the store would fail). */
#define MIN_FREE_BYTES (1u << 20)

/* ---- running CMD ---- */

/* Captures live in memory (memfd, reopened by the runner through /proc): a full or read-only disk costs
 * nothing; without /proc, a file in the cache's tmp folder, else in $TMPDIR. */
typedef struct capture {
    int fd;
    int on_disk;
    char path[PATH_MAX];
} capture;

static int capture_open(pm_cache *c, capture *cap, pm_err *err)
{
    cap->on_disk = 0;
    cap->fd = memfd_create("passmap-cache-capture", MFD_CLOEXEC);
    if (cap->fd >= 0) {
        snprintf(cap->path, sizeof cap->path, "/proc/self/fd/%d", cap->fd);
        if (!access(cap->path, W_OK))
            return PM_OK;
        close(cap->fd);
    }
    const char *tmpdir = getenv("TMPDIR");
    for (int i = 0; i < 2; i++) {
        if (i == 0 && !c)
            continue;
        snprintf(cap->path, sizeof cap->path, "%s/%s.XXXXXX", i == 0 ? c->dir : tmpdir && *tmpdir ? tmpdir : P_tmpdir,
                 i == 0 ? "tmp/capture" : "passmap-capture");
        if ((cap->fd = mkstemp(cap->path)) >= 0) {
            cap->on_disk = 1;
            return PM_OK;
        }
    }
    return pm_err_errno(err, PM_ERR_IO, "cannot create a capture file for CMD's output");
}

static void capture_close(capture *cap)
{
    if (cap->fd >= 0)
        close(cap->fd);
    if (cap->on_disk)
        unlink(cap->path);
    cap->fd = -1;
}

static int capture_read(capture *cap, char **buf, size_t *len, pm_err *err)
{
    struct stat st;
    if (fstat(cap->fd, &st))
        return pm_err_errno(err, PM_ERR_IO, "stat capture");
    size_t n = (size_t)st.st_size, got = 0;
    char *data = malloc(n + 1);
    if (!data)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading CMD's output");
    while (got < n) {
        ssize_t r = pread(cap->fd, data + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(data);
            return pm_err_errno(err, PM_ERR_IO, "read capture");
        }
        got += (size_t)r;
    }
    data[n] = 0;
    *buf = data;
    *len = n;
    return PM_OK;
}

/* Runs argv with stdin /dev/null, stdout and stderr captured into res (replacing earlier captures). */
static int run_captured(pm_cache *c, const char *const *argv, const pm_cache_request *req, pm_cache_result *res,
                        int *truncated, pm_err *err)
{
    capture out = {.fd = -1}, errc = {.fd = -1};
    int rc;
    if ((rc = capture_open(c, &out, err)) || (rc = capture_open(c, &errc, err)))
        goto cleanup;
    pm_run_opts opts = {0};
    pm_run_result rr;
    opts.stdout_path = out.path;
    opts.stderr_path = errc.path;
    opts.cancel = req->cancel; /* passmap forwards interrupts to CMD */
    /* A wrapper, like ccache: CMD stays in the caller's group. Under a sweep that is the step's group, which
     * the sweep's timeout kills and its record of the group covers: what CMD starts in the background is
     * reaped after a killed sweep too (in a group of its own it escaped both). */
    opts.same_group = 1;
    if ((rc = pm_run_exec(argv, &opts, &rr, err)))
        goto cleanup;
    if (rr.status == PM_RUN_SPAWN_ERROR) {
        rc = pm_err_set(err, PM_ERR_CHILD, "cannot run %s: %s", argv[0], rr.spawn_error);
        goto cleanup;
    }
    res->exit_code = rr.exit_code;
    res->term_signal = rr.term_signal;
    res->cmd_wall_s = rr.wall_s;
    *truncated = rr.stdout_truncated || rr.stderr_truncated;
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
    res->out_len = res->err_len = 0;
    if (!(rc = capture_read(&out, &res->out, &res->out_len, err)))
        rc = capture_read(&errc, &res->err, &res->err_len, err);
cleanup:
    capture_close(&out);
    capture_close(&errc);
    return rc;
}

int pc_run_uncached(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err)
{
    int truncated = 0;
    res->uncached = 1;
    return run_captured(c, (const char *const *)req->argv, req, res, &truncated, err);
}

/* ---- storing ---- */

/* Removes whatever is at an entry's path when it is not a regular file (caller holds the stats lock). */
int pc_remove_junk(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -1;
    if (S_ISREG(st.st_mode))
        return 0;
    if (S_ISDIR(st.st_mode))
        pm_util_remove_tree(path);
    else
        unlink(path);
    return lstat(path, &st) ? 0 : -1;
}

/* Encodes the entry into a temp file beside its path (tmp; "" on failure), outside the stats lock. */
static int prepare_entry(const key_info *k, const char *entry_path, const pc_raw *raw, char tmp[PATH_MAX + 16],
                         size_t *flen_out, pm_err *err)
{
    char *file = NULL, sub[PATH_MAX];
    size_t flen = 0;
    int fd = -1, rc;
    tmp[0] = 0;
    snprintf(sub, sizeof sub, "%.*s", (int)(strrchr(entry_path, '/') - entry_path), entry_path);
    if ((rc = pc_entry_seal(raw, k->key, &file, &flen, err)))
        goto cleanup;
    struct stat sst;
    if (!lstat(sub, &sst) && !S_ISDIR(sst.st_mode)) /* junk where the fan-out folder belongs */
        unlink(sub);
    if ((rc = pm_util_mkdir_p(sub, err)))
        goto cleanup;
    snprintf(tmp, PATH_MAX + 16, "%s/.pmtmp.XXXXXX", sub);
    if ((fd = mkstemp(tmp)) < 0) {
        tmp[0] = 0;
        rc = pm_err_errno(err, PM_ERR_IO, "create %s/.pmtmp.*", sub);
        goto cleanup;
    }
    struct timespec mtime;
    clock_gettime(CLOCK_REALTIME, &mtime);
    /* no fsync: a crash may lose the entry; the checksum catches any partial file */
    int bad = pc_write_all(fd, file, flen) || fchmod(fd, 0644) || futimens(fd, (struct timespec[2]){mtime, mtime});
    if (close(fd) || bad) {
        rc = pm_err_errno(err, PM_ERR_IO, "write %s", tmp);
        goto cleanup;
    }
    *flen_out = flen;
cleanup:
    if (rc && tmp[0]) {
        unlink(tmp);
        tmp[0] = 0;
    }
    free(file);
    return rc;
}

/* Publishes a prepared entry and counts it: under the stats lock, so bytes/entries stay exact with
 * concurrent writers. tmp is consumed. */
static int publish_entry(pm_cache *c, const char *entry_path, char tmp[PATH_MAX + 16], size_t flen,
                         uint64_t v[ST_N], int *stored, pm_err *err)
{
    int rc = PM_OK;
    struct stat old;
    if (pc_remove_junk(entry_path)) {
        rc = pm_err_set(err, PM_ERR_IO, "cannot remove junk at %s", entry_path);
        goto cleanup;
    }
    int had = !lstat(entry_path, &old);
    if (rename(tmp, entry_path)) { /* only ever over a regular file: junk was removed above */
        rc = pm_err_errno(err, PM_ERR_IO, "publish %s", entry_path);
        goto cleanup;
    }
    tmp[0] = 0;
    *stored = 1;
    v[ST_STORES]++;
    v[ST_BYTES] += flen - (had ? (uint64_t)old.st_size : 0);
    v[ST_ENTRIES] += had ? 0 : 1;
    if (v[ST_BYTES] > c->max_size)
        rc = pc_evict_locked(c, v, err);
cleanup:
    if (tmp[0])
        unlink(tmp);
    tmp[0] = 0;
    return rc;
}

typedef struct pre_output {
    int exists;          /* kept (a symlink's target): must change */
    dev_t dev;
    ino_t ino;
    struct timespec ctime;
} pre_output;

static int ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Why the result of a successful run cannot be stored ("" when it can); reads the outputs into raw (after its
 * head) and fills deps. */
static int check_run(const key_info *k, const pre_output *pre, struct timespec start,
                     const char *depfile, const dep_list *pre_deps, pc_raw *raw, dep_list *deps,
                     char why[400], pm_err *err)
{
    why[0] = 0;
    for (size_t i = 0; i < k->n_outputs; i++) {
        struct stat st;
        pm_err ignored;
        if (stat(k->out_paths[i], &st) || !S_ISREG(st.st_mode)) {
            snprintf(why, 400, "CMD exited 0 but did not write %s", k->out_paths[i]);
            return PM_OK;
        }
        if (pre[i].exists && ((st.st_dev == pre[i].dev && st.st_ino == pre[i].ino &&
                               !memcmp(&st.st_ctim, &pre[i].ctime, sizeof st.st_ctim)) ||
                              !ts_before(pre[i].ctime, start))) {
            snprintf(why, 400, "CMD exited 0 but did not write %s (or it changed just before the run)",
                     k->out_paths[i]);
            return PM_OK;
        }
        if (pc_raw_output_file(raw, (uint32_t)i, k->out_paths[i], &ignored)) {
            snprintf(why, 400, "cannot read output %s: %.200s", k->out_paths[i], ignored.msg);
            return PM_OK;
        }
    }
    /* an input that changed during the run: its output belongs to neither content */
    for (size_t i = 0; i < k->n_inputs; i++) {
        XXH128_hash_t h;
        pm_err ignored;
        if (pc_hash_file(k->input_paths[i], &h, &ignored) || !XXH128_isEqual(h, k->input_h[i])) {
            snprintf(why, 400, "input %s changed during the run", k->input_paths[i]);
            return PM_OK;
        }
    }
    if (!k->deps)
        return PM_OK;
    char *text = NULL;
    size_t len = 0;
    pm_err perr;
    if (pc_read_file(depfile, &text, &len, NULL, &perr) || pc_parse_depfile(text, len, deps, &perr)) {
        free(text);
        if (perr.code == PM_ERR_NOMEM)
            return pm_err_set(err, PM_ERR_NOMEM, "%s", perr.msg);
        snprintf(why, 400, "cannot read the compiler's dependency list: %.300s", perr.msg);
        return PM_OK;
    }
    free(text);
    for (size_t i = 0; i < deps->n; i++) {
        if (!deps->ok[i]) {
            snprintf(why, 400, "cannot read dependency %s", deps->path[i]);
            return PM_OK;
        }
        size_t j = 0;
        while (pre_deps && j < pre_deps->n && strcmp(pre_deps->path[j], deps->path[i]))
            j++;
        if (pre_deps && j < pre_deps->n) { /* hashed before the run too: compare contents */
            if (!pre_deps->ok[j] || !XXH128_isEqual(pre_deps->h[j], deps->h[i])) {
                snprintf(why, 400, "dependency %s changed during the run", deps->path[i]);
                return PM_OK;
            }
            continue;
        }
        /* a direct input (the source) was hashed with the key: compare contents */
        char *canon = pc_canon_path(deps->path[i]);
        if (!canon)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        for (j = 0; j < k->n_inputs && strcmp(canon, k->input_canon[j]); j++)
            ;
        free(canon);
        if (j < k->n_inputs) {
            if (!XXH128_isEqual(k->input_h[j], deps->h[i])) {
                snprintf(why, 400, "input %s changed during the run", deps->path[i]);
                return PM_OK;
            }
            continue;
        }
        /* first seen now: it must not have been touched since the run began (coarse clock, as the kernel's) */
        struct stat st;
        if (stat(deps->path[i], &st) || !ts_before(st.st_ctim, start)) {
            snprintf(why, 400, "dependency %s changed during the run (or just before it)", deps->path[i]);
            return PM_OK;
        }
    }
    return PM_OK;
}

/* The longest name an output may be set aside as: its path, a dot and the suffix. */
#define ASIDE_MAX (PATH_MAX + 48)

/* Appends a note to the warning after the run's first problem (or makes it the warning), as far as it fits. */
static void add_note(pm_cache_result *res, const char *note)
{
    size_t used = strlen(res->warning);
    if (!used)
        snprintf(res->warning, sizeof res->warning, "%s", note);
    else if (used + 3 < sizeof res->warning)
        snprintf(res->warning + used, sizeof res->warning - used, "; %s", note);
}

/* Outputs must be written by this run, yet one already there may be the user's own file (a declared output
 * outside the run folder): it is set aside, never deleted, and pm_util_aside_end puts it back when the run
 * does not write it. First a copy a killed miss left is put back. A symbolic link is kept (its target must
 * change); a file that cannot be set aside (a read-only folder) is kept too, judged by its times. */
static void set_outputs_aside(const key_info *k, pre_output *pre, char (*aside)[ASIDE_MAX], char note[400])
{
    for (size_t i = 0; i < k->n_outputs; i++) {
        struct stat st;
        const char *o = k->out_paths[i];
        char left[PATH_MAX + 260], why[PATH_MAX + 100];
        int restored = 0, set = 0;
        pm_err aerr;
        if (pm_util_aside_recover(o, &restored, left, sizeof left, why, sizeof why, &aerr)) {
            if (!note[0])
                snprintf(note, 400, "%.390s", aerr.msg);
        } else if (left[0] && !note[0]) {
            /* the copy is the user's file: named, and why it could not go back */
            snprintf(note, 400, "an interrupted run's copy of %.100s is left at %.100s (%.100s)", o, left, why);
        } else if (restored && !note[0]) {
            snprintf(note, 400, "put back %.300s from the copy an interrupted run set aside", o);
        }
        if (lstat(o, &st))
            continue;
        if (S_ISREG(st.st_mode) && !pm_util_aside_set(o, aside[i], ASIDE_MAX, &set, &aerr) && set)
            continue;
        if (stat(o, &st) || !S_ISREG(st.st_mode))
            continue; /* a dangling link: the run creates its target */
        pre[i].exists = 1;
        pre[i].dev = st.st_dev;
        pre[i].ino = st.st_ino;
        pre[i].ctime = st.st_ctim;
    }
}

/* The run's entry, its dependency list added, written to a temporary file (tmp) to be published under the
 * statistics' lock; a failure to write it is a warning (the run's result stands). */
static int stage_entry(const key_info *k, const char *entry_path, pc_raw *raw, const dep_list *deps,
                       char tmp[PATH_MAX + 16], size_t *flen, pm_cache_result *res, pm_err *err)
{
    pm_err serr;
    uint32_t *dl = calloc(deps->n + 1, sizeof *dl);
    if (!dl)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < deps->n; i++)
        dl[i] = (uint32_t)strlen(deps->path[i]);
    /* char ** as const char *const *: only read */
    int bad = pc_raw_deps(raw, (uint32_t)deps->n, pm_unconst_ptr(deps->path), dl, deps->h);
    free(dl);
    if (bad)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (prepare_entry(k, entry_path, raw, tmp, flen, &serr))
        pc_warn(res, "result not cached: %s", serr.msg);
    pc_raw_free(raw); /* before the bookkeeping: the payload is in the temp file */
    return PM_OK;
}

int pc_run_miss(pm_cache *c, const pm_cache_request *req, const key_info *k, const char *entry_path,
                const dep_list *pre_deps, pm_cache_result *res, pm_err *err)
{
    int rc = PM_OK, truncated = 0;
    pc_raw raw = {0};
    pre_output *pre = calloc(k->n_outputs + 1, sizeof *pre);
    char (*aside)[ASIDE_MAX] = calloc(k->n_outputs + 1, sizeof *aside);
    const char **argv = NULL;
    char depfile[PATH_MAX], why[400], tmp[PATH_MAX + 16], note[400];
    size_t flen = 0;
    dep_list deps = {0};
    depfile[0] = tmp[0] = note[0] = 0;
    int own_depfile = 0;
    if (!pre || !aside) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < k->n_outputs; i++) {
        struct stat st;
        const char *o = k->out_paths[i];
        if (!stat(o, &st) && !S_ISREG(st.st_mode)) { /* a dangling link is fine: the run creates its target */
            pc_warn(res, "not cached: output %s is not a regular file", o);
            rc = pc_run_uncached(c, req, res, err);
            goto cleanup;
        }
    }
    struct statvfs fs;
    if (!statvfs(c->dir, &fs) && (uint64_t)fs.f_bavail * fs.f_frsize < MIN_FREE_BYTES) {
        pc_warn(res, "cache file system full (%s): ran uncached", c->dir);
        rc = pc_run_uncached(c, req, res, err);
        goto cleanup;
    }
    size_t argc = 0;
    while (req->argv[argc])
        argc++;
    if (!(argv = calloc(argc + 4, sizeof *argv))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(argv, req->argv, argc * sizeof *argv);
    if (k->deps && k->user_depfile) {
        snprintf(depfile, sizeof depfile, "%s", k->user_depfile);
    } else if (k->deps) {
        snprintf(depfile, sizeof depfile, "%s/tmp/deps.XXXXXX", c->dir);
        int fd = mkstemp(depfile);
        if (fd < 0) {
            pc_warn(res, "cannot create a temporary file in %s/tmp (%s): ran uncached", c->dir, strerror(errno));
            rc = pc_run_uncached(c, req, res, err);
            goto cleanup;
        }
        close(fd);
        own_depfile = 1;
        argv[argc++] = "-MD"; /* depend mode (as ccache's): the compiler lists every file it read */
        argv[argc++] = "-MF";
        argv[argc++] = depfile;
    }
    set_outputs_aside(k, pre, aside, note);
    struct timespec start;
    clock_gettime(CLOCK_REALTIME_COARSE, &start); /* the clock file times come from */
    if ((rc = run_captured(c, argv, req, res, &truncated, err)))
        goto cleanup;
    if (own_depfile && (res->exit_code || res->term_signal) && !(req->cancel && *req->cancel) &&
        res->err && strstr(res->err, depfile)) { /* our dependency file failed the compile (a full disk) */
        pc_warn(res, "the compiler could not write its dependency list to %s: ran uncached", depfile);
        rc = pc_run_uncached(c, req, res, err);
        goto cleanup;
    }
    int store = res->exit_code == 0 && res->term_signal == 0 && !truncated && !(req->cancel && *req->cancel);
    why[0] = 0;
    if (store && pc_raw_head(&raw, res->cmd_wall_s, 0, (uint32_t)k->n_outputs, res->out, res->out_len, res->err,
                             res->err_len)) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (store && (rc = check_run(k, pre, start, depfile, pre_deps, &raw, &deps, why, err)))
        goto cleanup;
    if (why[0]) {
        pc_warn(res, "not cached: %s", why);
        store = 0;
    }
    pm_err serr;
    if (store && (rc = stage_entry(k, entry_path, &raw, &deps, tmp, &flen, res, err)))
        goto cleanup;
    uint64_t v[ST_N];
    if (pc_stats_lock(c, v, &serr)) {
        pc_warn(res, "cache not updated: %s", serr.msg);
        goto cleanup;
    }
    v[ST_MISSES]++;
    if (res->corrupt)
        v[ST_CORRUPT]++;
    if (tmp[0] && publish_entry(c, entry_path, tmp, flen, v, &res->stored, &serr))
        pc_warn(res, "result not cached: %s", serr.msg);
    if (pc_stats_unlock(c, v, &serr))
        pc_warn(res, "cache not updated: %s", serr.msg);
cleanup:
    if (note[0] && !rc) /* after the run's own first problem, which the outcome line may carry */
        add_note(res, note);
    for (size_t i = 0; aside && i < k->n_outputs; i++) {
        pm_err aerr;
        int restored;
        /* a copy that cannot go back (the output path is a folder now, a read-only folder) is the user's file:
         * always named, whatever else the run said */
        if (aside[i][0] && pm_util_aside_end(aside[i], k->out_paths[i], &restored, &aerr))
            add_note(res, aerr.msg);
    }
    if (tmp[0])
        unlink(tmp);
    if (own_depfile)
        unlink(depfile);
    pc_raw_free(&raw);
    free(pre);
    free(aside);
    free(pm_unconst_ptr(argv));
    pc_dep_list_free(&deps);
    return rc;
}
