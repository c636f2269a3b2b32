/* pm_cache: a content-addressed cache of compiler runs (`passmap cache exec`).
 *
 * Key (XXH3-128 over tagged, length-prefixed fields, so fields cannot run together):
 *   format version; compiler identity (XXH3-128 of the PATH-resolved executable's bytes, memoised by
 *   path+size+mtime_ns+inode); argv[1..] with input/output paths replaced by @IN<k>/@OUT<k>; the content
 *   of every input; each named environment variable (name, set/unset, value).
 *
 * Input rule: declared inputs come first (@IN0..). Then every argv[1..] element that names an existing
 * regular file, or whose text after the first '=' does (`-opt=path`), is an input too, unless it is an
 * output (@OUT<k>) or an already declared input. Paths are compared after canonicalisation, so the same
 * compile run from another directory gets the same key. OpenVINO IR: the .bin beside the --model .xml is
 * an input too (unless --weights names one).
 *
 * Outputs: the declared ones, plus those inferred for the tools passmap knows (a version suffix such as
 * clang-22 and a target prefix are allowed): gcc/g++/cc/c++/clang/clang++ `-o F`, `-oF`, `--output F`,
 * `--output=F` and the user's `-MF F`; llc/opt/mlir-opt/mlir-translate `-o F`, `-o=F`, `--o=F`, `--output F`
 * (opt and the MLIR tools default to stdout, which the entry replays); ov-compile `--export F`, and with
 * --import / --schedule-trace / --strategy-out the files it writes in --workdir. A command with no file
 * output and no stdout product, a link step, a file that is both input and output, or options that write
 * files passmap does not infer (-save-temps, -ftime-trace, -fdump-*, response files, ...) run uncached
 * with a warning (pm_cache_result.warning). Only what this run wrote is stored, yet an output already there
 * may be the user's own file (a declared output outside a sweep's run folder), so a miss never deletes it:
 * it is renamed aside (`.NAME.passmap-prev.PID.START` beside it) and, after CMD, removed when CMD wrote the
 * output, else put back as it was (a CMD that fails or exits 0 without writing it leaves it untouched). A
 * copy left by a killed passmap is put back by the next miss of that output when nothing is at its path,
 * else named in the warning and left. An output that is not a regular file makes the run uncached (it is
 * never renamed); a symbolic link, or a file that cannot be renamed, stays in place and must change.
 *
 * Dependencies (C/C++, ccache's depend mode): a miss adds `-MD -MF TMP` (or reads the user's -MF file) and
 * stores every file the compiler read with its content hash in the entry; a hit re-hashes them and any
 * difference is a miss (and `explain` names the file). Paths are kept as the compiler wrote them, so
 * relative ones are checked relative to the current directory. Known limit (as ccache's): a new header
 * that would shadow a recorded one earlier in the include path is not noticed.
 *
 * Stored only when safe: CMD exited 0, every output exists and was written by this run, every input has
 * the content it had when the key was computed (re-hashed after the run), every dependency has the
 * content hashed before the run or was not changed since the run began (ctime against the coarse clock).
 *
 * A broken cache never breaks the build: an unreadable entry, junk where an entry belongs (removed), a
 * read-only cache (hits still served), a full file system, a failed store: CMD's result stands, one warning.
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
    /* Where this call's time went (s): the key (argv analysis, compiler identity, inputs hashed), the lookup
     * (entry read, checked and decompressed, dependencies re-hashed), on a hit the restore (outputs written,
     * streams copied) and the bookkeeping (LRU mark, stats, manifest). */
    double key_s, lookup_s, restore_s, book_s;
    char key[33];         /* hex */
    char *out, *err;      /* CMD's captured stdout/stderr, for the caller to replay */
    size_t out_len, err_len;
    int uncached;         /* CMD ran without the cache (warning says why) */
    char warning[512];    /* the first problem of this run, one line; "" when none */
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
 * Miss: runs CMD (stdin /dev/null), stores its results when safe (see above).
 * c NULL (no usable cache): runs CMD uncached.
 * Returns PM_OK whatever CMD's exit status and whatever went wrong with the cache (then res->warning);
 * an error only when CMD could not be run or analysed (compiler or declared input missing, no memory). */
int pm_cache_exec(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err);
void pm_cache_result_free(pm_cache_result *res);

/* Why the cache can never serve this command line a hit, from argv and the declared inputs/outputs alone (no
 * file is read): no output declared or inferred, an option the cache refuses, or (run_dir non-NULL: a folder
 * that is new for every run) an argv word that names run_dir without being a declared input or output, so
 * the key differs every time. 1 with why filled, else 0. */
int pm_cache_why_uncacheable(const pm_cache_request *req, const char *run_dir, char *why, size_t cap);

/* The key (hex) of a request, without running or looking anything up. */
int pm_cache_key(pm_cache *c, const pm_cache_request *req, char key[33], pm_err *err);
/* Checks one entry file's bytes as the cache reads them (header, lengths, checksum, payload layout):
 * PM_OK or PM_ERR_CORRUPT with the reason. Safe on any input (for fuzzing). */
int pm_cache_entry_check(const void *data, size_t len, pm_err *err);
/* Path of the entry file for a hex key. */
int pm_cache_entry_path(const pm_cache *c, const char *key, char *buf, size_t n);

int pm_cache_stats_get(pm_cache *c, pm_cache_stats *st, pm_err *err);
/* Removes every entry and manifest, anything else in the fan-out and tmp folders (junk, abandoned temp
 * files), and zeroes the stats (keeps the compiler-identity memo). */
int pm_cache_clear(pm_cache *c, pm_err *err);
/* Checks every entry's header and checksum. */
int pm_cache_verify(pm_cache *c, uint64_t *n_ok, uint64_t *n_bad, pm_err *err);

/* Which key components changed since the last exec of the same command line (identified by the first
 * declared output's absolute path, else by the normalised argv). */
int pm_cache_explain_request(pm_cache *c, const pm_cache_request *req, pm_cache_explain *ex, pm_err *err);
void pm_cache_explain_free(pm_cache_explain *ex);

#endif
