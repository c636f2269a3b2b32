/* What the analysis queries' files share (store_query.c: the scope, configs, runs and the helpers;
 * store_query_passes.c: pass rows, metrics, tools, start-up; store_query_agg.c: per-config samples and the
 * aggregates). Not for use outside lib/store. */
#ifndef PM_STORE_QUERY_INTERNAL_H
#define PM_STORE_QUERY_INTERNAL_H

#include "store_query.h"
#include "store.h"

#include <math.h>
#include "stats.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One scoped step: where its pass rows go. */
typedef struct sq_step {
    int64_t id, run_id;
    const char *tool;   /* into sq_steps.tools */
    int tool_idx;
} sq_step;

typedef struct sq_steps {
    sq_step *v;
    size_t n, cap;
    char **tools;       /* distinct tool labels (a handful) */
    size_t n_tools;
    char **names;       /* schema 6: pass_name text by id (NULL: no such id), n_names long */
    int64_t n_names;
} sq_steps;

int pm_sq_db_fail(sqlite3 *db, pm_err *err);
int pm_sq_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, pm_err *err);
/* Ends a scan and finalizes st: rc when the scan failed on its own, else a last step other than SQLITE_DONE is a
 * database error. */
int pm_sq_scan_done(sqlite3 *db, sqlite3_stmt *st, int rc, int step, pm_err *err);
/* A one-row query (rc: its prepare's status): the row's first column into *out, left as it is without a row. */
int pm_sq_scan_int(sqlite3 *db, sqlite3_stmt *st, int rc, int *out, pm_err *err);
/* store_columns.c. 1: the file has the table; 0: not (a file older than the schema that added it, read as it
 * is); -1: the schema cannot be read. */
int pm_sq_has_table(sqlite3 *db, const char *name);
/* 1: the table has the column; 0: not, or the schema cannot be read. */
int pm_sq_has_column(sqlite3 *db, const char *table, const char *column);
const char *pm_sq_text_or(sqlite3_stmt *st, int col, const char *dflt);
double pm_sq_real_or_neg(sqlite3_stmt *st, int col);
int pm_sq_prepare_ids(sqlite3 *db, const char *fmt, const pm_sq_sweeps *s, sqlite3_stmt **st, pm_err *err);
void pm_sq_steps_free(sq_steps *ss);
/* The index of tool in ss->tools, added when new; -1: out of memory. */
int pm_sq_tool_index(sq_steps *ss, const char *tool);
/* The interned pass names (schema 6), by id. Ids are small (one per distinct name, from 1). */
int pm_sq_load_names(sqlite3 *db, sq_steps *ss, pm_err *err);

#endif
