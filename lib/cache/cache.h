/* pm_cache: a content-addressed cache of compiler runs (`passmap cache exec`).
 *
 * Key (XXH3-128 over tagged, length-prefixed fields, so fields cannot run together):
 *   format version; compiler identity (XXH3-128 of the PATH-resolved executable's bytes, memoised by
 *   path+size+mtime_ns+inode); argv[1..] with input/output paths replaced by @IN<k>/@OUT<k>; the content
 *   of every input; each named environment variable (name, set/unset, value).
 *
 * Input rule: declared inputs come first (@IN0..). Then every argv[1..] element that names an existing
 * regular file, or whose text after the first '=' does (`-opt=path`), is an input too, unless it is a
 * declared output (@OUT<k>) or an already declared input. Paths are compared after canonicalisation, so
 * the same compile run from another directory gets the same key. Outputs are never guessed: declare them.
 *
 * Store: DIR/xx/<30 hex>.entry, written to a temp file in the same directory and published with rename(2)
 * (no fsync: a crash can lose an entry, never tear one; a torn or damaged entry fails its checksum and is
 * a miss). Entry = 64-byte header ("PMCACHE", format version, payload and uncompressed lengths, key,
 * XXH3-128 of header+payload) + zstd payload (wall time of the original run, exit code, stdout, stderr,
 * outputs by index). Stats live in DIR/stats, read-modified-written under flock(2). "Last used" is the
 * entry's mtime (set at store and on every hit); eviction removes the least recently used entries until the
 * total entry size is within max_size.
 */
#ifndef PM_CACHE_H
#define PM_CACHE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

#define PM_CACHE_DEFAULT_MAX_SIZE (5ull << 30)

typedef struct pm_cache pm_cache;

typedef struct pm_cache_request {
    char *const *argv;              /* NULL-terminated; argv[0] PATH-searched */
    const char *const *inputs;      /* NULL-terminated declared inputs, or NULL */
    const char *const *outputs;     /* NULL-terminated declared outputs, or NULL */
    const char *const *env_names;   /* NULL-terminated variable names in the key, or NULL */
    const volatile sig_atomic_t *cancel; /* set non-zero (signal handler) to kill CMD on a miss; NULL: none */
} pm_cache_request;

typedef struct pm_cache_result {
    int hit;
    int corrupt;          /* an entry was found but failed verification (then: a miss, rerun) */
    int stored;           /* a miss whose results were stored */
    int exit_code;        /* of CMD (0 on a hit); -1 when signalled */
    int term_signal;
    double wall_s;        /* of this call */
    double cmd_wall_s;    /* of CMD itself on a miss (wall_s - cmd_wall_s: the cache's overhead) */
    double saved_s;       /* on a hit: original run time minus this call's time (>= 0) */
    char key[33];         /* hex */
    char *out, *err;      /* CMD's captured stdout/stderr, for the caller to replay */
    size_t out_len, err_len;
} pm_cache_result;

typedef struct pm_cache_stats {
    uint64_t hits, misses, corrupt, evicted, stores;
    uint64_t entries, bytes, max_size;
    double saved_s;
} pm_cache_stats;

typedef struct pm_cache_explain {
    int have_previous;    /* a previous run of this command line was recorded */
    int would_hit;        /* the key matches a valid stored entry */
    char key[33], previous_key[33];
    size_t n_changes;
    char **changes;       /* "input 0 (foo.ll) content changed", "compiler binary changed", ... */
} pm_cache_explain;

/* dir NULL: $PASSMAP_CACHE_DIR, else $XDG_CACHE_HOME/passmap, else ~/.cache/passmap (created).
 * max_size 0: PM_CACHE_DEFAULT_MAX_SIZE. */
int pm_cache_open(const char *dir, uint64_t max_size, pm_cache **out, pm_err *err);
void pm_cache_close(pm_cache *c);
const char *pm_cache_dir(const pm_cache *c);

/* Hit: fills res (outputs restored, res->out/err = recorded streams) without running CMD.
 * Miss: runs CMD (stdin /dev/null), stores its results if it exited 0 and every output exists.
 * Returns PM_OK whatever CMD's exit status; an error only when the cache itself failed. */
int pm_cache_exec(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err);
void pm_cache_result_free(pm_cache_result *res);

/* The key (hex) of a request, without running or looking anything up. */
int pm_cache_key(pm_cache *c, const pm_cache_request *req, char key[33], pm_err *err);
/* Path of the entry file for a hex key. */
int pm_cache_entry_path(const pm_cache *c, const char *key, char *buf, size_t n);

int pm_cache_stats_get(pm_cache *c, pm_cache_stats *st, pm_err *err);
/* Removes every entry and manifest and zeroes the stats (keeps the compiler-identity memo). */
int pm_cache_clear(pm_cache *c, pm_err *err);
/* Checks every entry's header and checksum. */
int pm_cache_verify(pm_cache *c, uint64_t *n_ok, uint64_t *n_bad, pm_err *err);

/* Which key components changed since the last exec of the same command line (identified by the first
 * declared output's absolute path, else by the normalised argv). */
int pm_cache_explain_request(pm_cache *c, const pm_cache_request *req, pm_cache_explain *ex, pm_err *err);
void pm_cache_explain_free(pm_cache_explain *ex);

#endif
