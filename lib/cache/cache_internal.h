/* Private to lib/cache: the state and helpers its files share. The files follow the cache's own parts (ccache's
 * layout): cache.c opens the cache and holds the file helpers; cache_argv.c models what a tool's argv reads and
 * writes; cache_key.c computes the key; cache_entry.c encodes and checks entries; cache_deps.c reads the
 * compiler's dependency list; cache_exec.c serves a hit; cache_miss.c runs and stores a miss; cache_evict.c
 * evicts; cache_stats.c keeps the counters (and clear, verify); cache_explain.c writes manifests and explains. */
#ifndef PM_CACHE_INTERNAL_H
#define PM_CACHE_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "cache.h"

#define DIR_MAX (PATH_MAX - 512) /* room for the names appended below the cache dir */

struct pm_cache {
    char dir[DIR_MAX];
    uint64_t max_size;
    int stats_fd;     /* -1: no stats file (a read-only cache that never had one) */
    int stats_ro;     /* opened read-only: the counters cannot be updated */
    mode_t file_mode; /* 0666 & ~umask, for restored outputs */
};

/* ---------- stats (cache_stats.c; the lock also guards eviction and publishing) ---------- */

enum { ST_HITS, ST_MISSES, ST_CORRUPT, ST_EVICTED, ST_STORES, ST_ENTRIES, ST_BYTES, ST_SAVED_NS, ST_N };

int pc_stats_lock(pm_cache *c, uint64_t v[ST_N], pm_err *err);
/* v NULL: unlock without writing. */
int pc_stats_unlock(pm_cache *c, const uint64_t v[ST_N], pm_err *err);

/* ---------- small helpers (cache.c) ---------- */

void pc_hex128(XXH128_hash_t h, char out[33]);
int pc_path_join(char *buf, size_t n, const char *a, const char *b, pm_err *err);
int pc_write_all(int fd, const void *buf, size_t len);
/* Reads a whole file; *buf is malloc'd (NUL-terminated for convenience). */
int pc_read_file(const char *path, char **buf, size_t *len, struct stat *st_out, pm_err *err);
int pc_hash_file(const char *path, XXH128_hash_t *out, pm_err *err);
size_t pc_count_list(const char *const *l);

/* ---------- argv models (cache_argv.c) ---------- */

typedef enum { TOOL_OTHER, TOOL_CC, TOOL_LLVM, TOOL_OV } tool_kind;

typedef struct analysis {
    tool_kind tool;
    const char *out[64];     /* inferred outputs (pointers into argv or into names[]) */
    int out_arg[64];         /* argv index naming it (-1: none) */
    size_t n_out;
    int stdout_output;       /* the tool's product is its stdout (replayed on a hit) */
    const char *extra_input; /* ov: the .bin beside the .xml */
    const char *user_depfile;/* cc: -MF FILE given by the user (also an output) */
    int deps;                /* cc: dependencies from the compiler (-MD -MF) go in the key */
    char names[4][PATH_MAX]; /* storage for inferred names not in argv */
    size_t n_names;
    char why[320];           /* non-empty: not cacheable, and why */
} analysis;

/* Fills a from argv: inferred outputs, extra inputs, dependency mode, or why the command is not cacheable. */
void pc_analyse(const pm_cache_request *req, analysis *a);

/* ---------- key (cache_key.c) ---------- */

typedef struct key_info {
    XXH128_hash_t key, compiler, argv_h, manifest_id;
    char compiler_path[PATH_MAX];
    size_t n_inputs, cap_inputs;
    char **input_paths;          /* as the user wrote them */
    char **input_canon;
    XXH128_hash_t *input_h;
    size_t n_outputs, n_env;
    char **out_paths;            /* declared, then inferred */
    XXH128_hash_t *env_h;
    int stdout_output;           /* the product is stdout (no file outputs needed) */
    int deps;                    /* C/C++: the compiler's dependency list is checked on every hit */
    char *user_depfile;          /* -MF FILE of the user (else passmap adds its own) */
    char why[320];               /* non-empty: run uncached, because of this */
} key_info;

void pc_key_info_free(key_info *k);
/* Absolute path: realpath when the file exists, else realpath(parent)/name (outputs not yet written). */
char *pc_canon_path(const char *p);
int pc_compute_key(pm_cache *c, const pm_cache_request *req, key_info *k, pm_err *err);

/* ---------- entries (cache_entry.c) ---------- */

typedef struct entry {
    double wall_s;
    int32_t exit_code;
    const char *out, *err;
    uint64_t out_len, err_len;
    uint32_t n_outputs;
    const char **data;   /* per output index */
    uint64_t *len;
    uint32_t n_deps;     /* C/C++: every file the compiler read, as it named them, with its content hash */
    const char **dep_path;
    uint32_t *dep_len;
    XXH128_hash_t *dep_h;
} entry;

/* An entry's payload before compression, laid out in place (cache.h's layout): a miss reads
 * each output straight into it rather than into a buffer of its own that is then copied (a 400 KB output cost
 * ~100 page faults twice). Functions return 0, or -1 out of memory (pc_raw_output_file: or unreadable). */
typedef struct pc_raw {
    char *buf;
    size_t len, cap;
} pc_raw;
int pc_raw_head(pc_raw *r, double wall_s, int32_t exit_code, uint32_t n_outputs, const char *out, uint64_t out_len,
                const char *err, uint64_t err_len);
/* Appends the file at path (its *n bytes), leaving room for one byte after it (the read that found EOF); a pm
 * status, and nothing of the file stays on failure. pc_read_file and a miss's outputs read through it. */
int pc_raw_file(pc_raw *r, const char *path, size_t *n, struct stat *st_out, pm_err *err);
int pc_raw_output_file(pc_raw *r, uint32_t index, const char *path, pm_err *err);
int pc_raw_deps(pc_raw *r, uint32_t n, const char *const *path, const uint32_t *path_len, const XXH128_hash_t *h);
void pc_raw_free(pc_raw *r);
/* Header + the compressed payload in one malloc'd buffer. */
int pc_entry_seal(const pc_raw *r, XXH128_hash_t key, char **buf, size_t *len, pm_err *err);
void pc_entry_free_arrays(entry *e);
/* An entry is a regular file; anything else at its path is junk (PM_ERR_CORRUPT with *junk set). */
int pc_load_entry(const char *path, const XXH128_hash_t *key, char **file, char **raw, entry *e,
                  struct stat *st, int *junk, pm_err *err);

/* ---------- dependencies (cache_deps.c) ---------- */

typedef struct dep_list {
    size_t n, cap;
    char **path;
    XXH128_hash_t *h;
    int *ok;         /* hashed (the file was readable) */
} dep_list;

void pc_dep_list_free(dep_list *d);
/* Hashes the entry's dependencies now (into now); *changed: index of the first that differs, else -1. */
int pc_deps_check(const entry *e, dep_list *now, long *changed, pm_err *err);
/* The prerequisites of the first rule of a make fragment written by -MD -MF. */
int pc_parse_depfile(const char *text, size_t len, dep_list *out, pm_err *err);

/* ---------- exec and miss (cache_exec.c, cache_miss.c) ---------- */

/* The first problem only: the CLI prints one warning line per run. */
void pc_warn(pm_cache_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pc_run_uncached(pm_cache *c, const pm_cache_request *req, pm_cache_result *res, pm_err *err);
int pc_run_miss(pm_cache *c, const pm_cache_request *req, const key_info *k, const char *entry_path,
                const dep_list *pre_deps, pm_cache_result *res, pm_err *err);
/* Removes whatever is at an entry's path when it is not a regular file (caller holds the stats lock). */
int pc_remove_junk(const char *path);

/* ---------- eviction (cache_evict.c; caller holds the stats lock) ---------- */

typedef struct scanned {
    char path[PATH_MAX];
    struct timespec mtime;
    uint64_t size;
} scanned;

int pc_is_fanout(const char *name);
/* Lists every entry; also removes temp files abandoned over an hour ago (a crashed writer). */
int pc_scan_entries(pm_cache *c, scanned **out, size_t *n_out, pm_err *err);
int pc_evict_locked(pm_cache *c, uint64_t v[ST_N], pm_err *err);

/* ---------- manifests (cache_explain.c) ---------- */

int pc_write_manifest(pm_cache *c, const key_info *k, const pm_cache_request *req, pm_err *err);

#endif
