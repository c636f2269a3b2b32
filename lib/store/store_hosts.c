/* Which machines measured a config's ok cold runs (for warnings when a comparison crosses machines). */
#include "store.h"

#include <stdlib.h>
#include <string.h>

int pm_store_config_hosts(pm_store *st, int64_t config_id, char **hosts, pm_err *err)
{
    *hosts = NULL;
    if (pm_store_schema_version(st) < PM_STORE_VERSION_HOSTS)
        return PM_OK; /* written before hosts were recorded */
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    /* once per store: compare asks it for every config pair */
    static const char sql[] =
        "SELECT group_concat(h, ', ') FROM (SELECT DISTINCT h.name || ' [' || h.fingerprint || ']'\n"
        "  AS h FROM run r JOIN host h ON h.id = r.host_id WHERE r.config_id = ?1\n"
        "  AND r.mode = 'cold' AND r.status = 'ok' ORDER BY 1)";
    if (pm_store_cached(st, sql, &s, err) != PM_OK)
        return pm_err_wrap(err, "hosts");
    sqlite3_bind_int64(s, 1, config_id);
    int rc = PM_OK;
    if (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        if (t && !(*hosts = strdup((const char *)t)))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    } else {
        rc = pm_err_set(err, PM_ERR_DB, "%s: hosts: %s", pm_store_path(st), sqlite3_errmsg(db));
    }
    sqlite3_reset(s);
    return rc;
}
