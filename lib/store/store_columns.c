/* What a store file has, tables and columns: a file older than the schema that added one is read as it is. */
#include "store_query_internal.h"

int pm_sq_has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?1", -1, &st, NULL))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int pm_sq_has_column(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *s = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, column, -1, SQLITE_STATIC);
        found = sqlite3_step(s) == SQLITE_ROW;
    }
    sqlite3_finalize(s);
    return found;
}

int pm_store_has_superseded(sqlite3 *db)
{
    return pm_sq_has_column(db, "sweep", "superseded_by");
}
