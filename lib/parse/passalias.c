/* Pass renames between compiler builds (see passalias.h). */
#include "passalias.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stagemap.h"
#include "util.h"

typedef struct alias_row {
    char *tool, *from, *to;
} alias_row;

struct pm_passalias {
    alias_row *rows;
    size_t n, cap;
};

pm_passalias *pm_passalias_new(void)
{
    return calloc(1, sizeof(pm_passalias));
}

void pm_passalias_free(pm_passalias *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->rows[i].tool);
        free(m->rows[i].from);
        free(m->rows[i].to);
    }
    free(m->rows);
    free(m);
}

size_t pm_passalias_rows(const pm_passalias *m)
{
    return m ? m->n : 0;
}

static int add_row(pm_passalias *m, const char *tool, const char *from, const char *to)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        alias_row *p = realloc(m->rows, cap * sizeof *p);
        if (!p)
            return PM_ERR_NOMEM;
        m->rows = p;
        m->cap = cap;
    }
    alias_row *r = &m->rows[m->n];
    r->tool = strdup(tool);
    r->from = strdup(from);
    r->to = strdup(to);
    if (!r->tool || !r->from || !r->to) {
        free(r->tool);
        free(r->from);
        free(r->to);
        return PM_ERR_NOMEM;
    }
    m->n++;
    return PM_OK;
}

static int read_alias_row(void *ctx, const char *const f[3], const char *origin, int lineno, pm_err *err)
{
    pm_passalias *m = ctx;
    /* a chain (a -> b, b -> c) would make the match depend on row order: write a -> c */
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->rows[i].tool, f[0]) && (!strcmp(m->rows[i].to, f[1]) || !strcmp(m->rows[i].from, f[2])))
            return pm_err_set(err, PM_ERR_PARSE, "%s:%d: '%s' -> '%s' chains with '%s' -> '%s': map every old name "
                              "to the newest one", origin, lineno, f[1], f[2], m->rows[i].from, m->rows[i].to);
    int rc = add_row(m, f[0], f[1], f[2]);
    return rc ? pm_err_set(err, rc, "out of memory") : PM_OK;
}

int pm_passalias_load_text(pm_passalias *m, const char *text, const char *origin, pm_err *err)
{
    return pm_tsv3_each(text, origin, "tool<TAB>old pass name<TAB>pass name", read_alias_row, m, err);
}

int pm_passalias_load(pm_passalias *m, const char *path, pm_err *err)
{
    char *buf;
    size_t len;
    int rc = pm_util_read_file(path, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    rc = pm_passalias_load_text(m, buf, path, err);
    free(buf);
    return rc;
}

int pm_passalias_load_default(pm_passalias *m, pm_err *err)
{
    char path[4200], where[4400];
    if (snprintf(path, sizeof path, "%s/pass-aliases.tsv", pm_data_dir()) >= (int)sizeof path)
        return pm_err_set(err, PM_ERR_USAGE, "data folder path longer than %zu bytes", sizeof path - 20);
    FILE *f = fopen(path, "rb");
    if (!f) {
        pm_data_dir_searched(where, sizeof where);
        return pm_err_set(err, PM_ERR_NOTFOUND,
                          "no pass alias table: cannot open pass-aliases.tsv in %s; set PASSMAP_DATA_DIR to "
                          "passmap's data folder", where);
    }
    fclose(f);
    return pm_passalias_load(m, path, err);
}

const char *pm_passalias_canon(const pm_passalias *m, const char *tool, const char *pass)
{
    if (!m || !pass)
        return pass;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->rows[i].from, pass) && fnmatch(m->rows[i].tool, tool ? tool : "", 0) == 0)
            return m->rows[i].to;
    return pass;
}
