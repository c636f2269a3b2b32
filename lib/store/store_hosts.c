/* Which machines measured a config's ok cold runs (for warnings when a comparison crosses machines). */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "a, b, c" of the distinct strings v[0..n) (sorted here); NULL when n == 0 or out of memory (*oom set). */
static char *join_distinct(char **v, size_t n, int *oom)
{
    if (n == 0)
        return NULL;
    qsort(v, n, sizeof *v, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 2;
    char *out = malloc(len), *w = out;
    if (!out) {
        *oom = 1;
        return NULL;
    }
    *w = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(v[i], v[i - 1]))
            continue;
        size_t k = strlen(v[i]);
        if (w != out)
            memcpy(w, ", ", 2), w += 2;
        memcpy(w, v[i], k + 1);
        w += k;
    }
    return out;
}

int pm_store_config_hosts(pm_store *st, int64_t config_id, char **hosts, pm_err *err)
{
    *hosts = NULL;
    if (pm_store_schema_version(st) < PM_STORE_VERSION_HOSTS)
        return PM_OK; /* written before hosts were recorded */
    sqlite3 *db = pm_store_db(st);
    sqlite3_stmt *s = NULL;
    /* once per store: compare asks it for every config pair */
    static const char sql[] =
        "SELECT DISTINCT h.name, h.fingerprint, h.cpu_model, h.cores, h.machine\n"
        "  FROM run r JOIN host h ON h.id = r.host_id WHERE r.config_id = ?1\n"
        "  AND r.mode = 'cold' AND r.status = 'ok'";
    if (pm_store_cached(st, sql, &s, err) != PM_OK)
        return pm_err_wrap(err, "hosts");
    sqlite3_bind_int64(s, 1, config_id);
    char **v = NULL;
    size_t n = 0, cap = 0;
    int rc = PM_OK, step, oom = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && !oom) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        const char *fp = (const char *)sqlite3_column_text(s, 1);
        const char *cpu = (const char *)sqlite3_column_text(s, 2);
        char id[17];
        if (cpu && *cpu) {   /* a probed host: its machine id; a baseline's host row has only the id it recorded */
            pm_host h = {.cores = sqlite3_column_int(s, 3)};
            const char *arch = (const char *)sqlite3_column_text(s, 4);
            snprintf(h.cpu_model, sizeof h.cpu_model, "%s", cpu);
            snprintf(h.machine, sizeof h.machine, "%s", arch ? arch : "");
            pm_host_machine_id(&h, id);
            fp = id;
        }
        char **grown = pm_grow(v, &cap, n, sizeof *v, 4);
        if (!grown || asprintf(&grown[n], "%s [%s]", name ? name : "", fp ? fp : "") < 0)
            oom = 1;
        else
            n++;
        v = grown ? grown : v;
    }
    if (!oom && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = pm_err_set(err, PM_ERR_DB, "%s: hosts: %s", pm_store_path(st), sqlite3_errmsg(db));
    else if (!oom)
        *hosts = join_distinct(v, n, &oom);
    if (oom)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_free_strs(v, n);
    sqlite3_reset(s);
    return rc;
}
