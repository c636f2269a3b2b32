/* What the store's files share: the connection and its statements (store.c writes; store_schema.c creates
 * and migrates the schema; store_open.c opens and closes a database). Not for use outside lib/store. */
#ifndef PM_STORE_INTERNAL_H
#define PM_STORE_INTERNAL_H

#include "store.h"

/* 'pmap': marks the file as ours, so a foreign SQLite database is rejected clearly. */
#define PM_STORE_APPLICATION_ID 0x706d6170
#define PM_STORE_BUSY_TIMEOUT_MS 10000

enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK,
    S_SWEEP, S_CONFIG, S_RUNS_DONE,
    S_RUN, S_STEP, S_PASS, S_METRIC,
    S_META_SET, S_META_GET, S_HOST, S_SHARD, S_CONFIG_PARAM, S_CONFIG_PARAMS, S_PASS_NAME,
    S__COUNT
};

/* The pass names this writer has seen, name -> pass_name.id (open addressing; a sweep has a few hundred). Only
 * committed ids may stay: a rolled-back run's new names are forgotten with the whole cache. */
typedef struct name_cache {
    char **names;
    int64_t *ids;
    size_t n, cap;      /* cap: 0 or a power of two */
} name_cache;

struct pm_store {
    sqlite3 *db;
    char *path;
    int readonly;
    int version;        /* schema version of the file (a read-only open may see an older one) */
    sqlite3_stmt *stmt[S__COUNT];
    name_cache names;
    struct { const char *sql; sqlite3_stmt *s; } cached[8];   /* pm_store_cached */
    pm_stagemap *agg_map;   /* the data dir's stage map, for the aggregates (loaded at the first write) */
    int agg_map_state;      /* 0 not tried, 1 loaded, -1 none (no data dir): no aggregates are written */
};

/* The schema version this passmap writes: 1 + its migrations (store_schema.c). */
int pm_store_schema_latest(void);
int pm_store_db_err(pm_store *st, pm_err *err, const char *what);
/* Steps a statement that returns no rows. */
int pm_store_exec_stmt(pm_store *st, int which, pm_err *err, const char *what);
int pm_store_exec_sql(pm_store *st, const char *sql, pm_err *err, const char *what);
int pm_store_check_schema(pm_store *st, int may_create, int *old_version, pm_err *err);
int pm_store_migrate_copy(pm_store *st, int version, pm_err *err);
void pm_store_name_cache_clear(name_cache *c);

/* store_merge_input.c: a merge's input. Whether two paths are one file; an input of an older schema copied beside
 * out_path and upgraded there (copy[0] == 0: current, read as it is); the copy and its -wal/-shm removed. */
int pm_store_same_file(const char *a, const char *b);
int pm_store_merge_input_copy(const char *in_path, const char *out_path, int want_version, char *copy, size_t cap,
                              pm_err *err);
void pm_store_merge_remove_copy(const char *copy);

#endif
