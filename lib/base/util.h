/* pm_util: the few system helpers every module needs, written once. */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
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
/* Opens path for reading as pm_util_read_file_max checks it (regular file only, a FIFO never waited for, at
 * most max bytes now): the descriptor, blocking, for a streaming reader that stops at max bytes itself. */
int pm_util_open_regular(const char *path, size_t max, int *fd_out, pm_err *err);
/* pm_util_read_file_max without a size limit. */
int pm_util_read_file(const char *path, char **buf, size_t *len, pm_err *err);

/* Publishes the temp file tmp (same file system as path) as path without ever replacing something that is
 * not a regular file: a symbolic link is followed (its final target gets the bytes, a dangling link's
 * target is created); a character device or FIFO is written in place (a FIFO without a reader is an
 * error, never a block); a directory, socket or block device is refused; a regular or absent target is
 * replaced by rename(2). tmp is gone afterwards, whatever the outcome. */
int pm_util_publish(const char *tmp, const char *path, pm_err *err);
/* A new temporary file (mode 0600, *fd open for writing, its name in tmp) beside path's symlink-resolved target,
 * on the same file system, for a writer that streams its output and then calls pm_util_publish(tmp, path). */
int pm_util_temp_beside(const char *path, char *tmp, size_t cap, int *fd, pm_err *err);
/* Writes data to path with pm_util_publish's rules: a temp file beside the (symlink-resolved) target,
 * renamed over it, so no reader sees half a regular file. mode: of the new file; mtime: NULL for now. */
int pm_util_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode,
                              const struct timespec *mtime, pm_err *err);

/* Setting a file aside while a command that should write it runs, so that whether the command wrote it can be
 * told without destroying it (it may be the user's own file): the regular file at path is renamed to a free
 * sibling `.NAME.passmap-prev.PID.START` (START: the process's start time, as a PID alone may be reused; same
 * folder: atomic, never across file systems; content, inode and times kept). *set: 1 and the sibling's name in aside, or 0 when nothing is there or it is not a regular file (a
 * symbolic link, device, FIFO or folder is never renamed). An error (the file stays where it was) when the
 * rename fails: a read-only folder, a name with no room for the suffix. */
int pm_util_aside_set(const char *path, char *aside, size_t cap, int *set, pm_err *err);
/* After the command: a regular file or symbolic link at path is what it wrote, and the aside copy is removed;
 * nothing at path, the copy goes back (*restored = 1); anything else there (a folder, a FIFO) leaves the copy
 * where it is, with an error naming it. Never replaces what the command wrote. */
int pm_util_aside_end(const char *aside, const char *path, int *restored, pm_err *err);
/* Copies set aside for path by a process that died before pm_util_aside_end (SIGKILL): one whose process is gone
 * (its PID runs no more, or runs a process started after the copy was set aside: the PID was reused) goes back
 * when nothing is at path (*restored = 1); any other is left as it is, and the first such is named in left and
 * why it stayed in why ("the output is there", "the output path is a folder now", "cannot put it back: ...";
 * both "" when none). A copy of a process still running is not touched. */
int pm_util_aside_recover(const char *path, int *restored, char *left, size_t cap, char *why, size_t why_cap,
                          pm_err *err);

/* Refuses (PM_ERR_USAGE) to write out when it resolves (symbolic links followed; st_dev and st_ino compared)
 * to the file in, which the same command reads: writing would destroy it. db: in is a SQLite database, so its
 * -wal, -shm and -journal companions are refused too. what: in's role ("the database") for the message. An out
 * that does not exist yet is fine. */
int pm_util_refuse_same_file(const char *out, const char *in, int db, const char *what, pm_err *err);

/* A growing array (n elements of elem bytes at p, room for *cap) with room for one more: p itself while there is
 * room, else p reallocated to twice the room (first when empty) with *cap updated. NULL when out of memory or the
 * size would overflow (p is then still valid and *cap unchanged), so a caller writes
 * `T *v = pm_grow(a, &cap, n, sizeof *v, 16); if (!v) ...; a = v;`. */
void *pm_grow(void *p, size_t *cap, size_t n, size_t elem, size_t first);
/* pm_grow for appending one element: arrp is the address of the array pointer (T **), *n its count. The new
 * element, zeroed, at the end (*arrp updated, *n one more), or NULL when out of memory (nothing changed):
 * `T *e = pm_push(&a, &cap, &n, sizeof *e, 16); if (!e) ...`. */
void *pm_push(void *arrp, size_t *cap, size_t *n, size_t elem, size_t first);
/* Resizes the array at arrp (the address of a T *) from n_old to n_new elements, the added ones zeroed: 0, or
 * -1 when out of memory or the size would overflow (*arrp unchanged). For arrays that grow side by side. */
int pm_resize(void *arrp, size_t n_old, size_t n_new, size_t elem);

/* A line formatted whole (never cut at a buffer's size) and handed to fn(user, line); out of memory, fn gets a
 * line saying so. The one body of the sweep's notices and passmap fix's notes. */
void pm_util_vnotify(void (*fn)(void *user, const char *line), void *user, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Formats into buf unless it holds a message already: the first reason stays, later ones are dropped. */
void pm_util_vfirst(char *buf, size_t cap, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Frees each pointer given: a struct's owned fields in one statement, `pm_free_all(r->name, r->path, r->rows);`
 * (the list is read once: sizeof does not evaluate it). */
void pm_free_each(void *const *ptrs, size_t n);
#define pm_free_all(...) pm_free_each((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
/* Frees n strings (or any heap pointers) and the array that holds them: a string list in one call. */
void pm_free_strs(char **v, size_t n);

/* A growing string: appends never truncate; after a failed allocation oom is set and further appends do
 * nothing, so a builder checks oom once at the end. */
typedef struct pm_sbuf {
    char *s;
    size_t len, cap;
    int oom;
} pm_sbuf;
void pm_sbuf_add(pm_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The built string, handed to the caller (the builder is empty again): "" when nothing was added, NULL (and
 * nothing left to free) after a failed allocation. */
char *pm_sbuf_take(pm_sbuf *b);

/* The one way a const pointer loses its const without a cast (so -Wcast-qual keeps watch everywhere else):
 * a string borrowed into a struct whose other instances own theirs (a pass template, a metric name), a
 * read-only context handed through a callback's void pointer, or freeing what a const field owns. */
static inline void *pm_unconst_ptr(const void *p)
{
    union {
        const void *c;
        void *m;
    } u = {.c = p};
    return u.m;
}

static inline char *pm_unconst(const char *s)
{
    return pm_unconst_ptr(s);
}
/* "Did you mean": the candidate closest to word by edit distance (a swap of two neighbours counts as one
 * edit), or the one candidate word is a prefix of; NULL when none is close (at most 1 edit for words up to
 * 4 characters, 2 beyond) or two are equally close. */
const char *pm_util_closest(const char *word, const char *const *cands, size_t n);
/* 1 when the sep-separated list (NULL: none) holds item as one of its items, whole. */
int pm_util_list_has(const char *list, char sep, const char *item);
/* strcmp with NULL ordered before every string (SQLite's order for NULL): a sort key that may be missing. */
int pm_util_strcmp_null(const char *a, const char *b);
/* strdup of an optional string: NULL stays NULL; a copy that fails sets *oom (so a struct of several fields is
 * filled first and checked once). */
char *pm_util_strdup_opt(const char *s, int *oom);

#endif
