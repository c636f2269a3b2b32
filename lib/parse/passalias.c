/* Pass renames between compiler builds (see passalias.h). */
#include "passalias.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stagemap.h"
#include "util.h"

#include <xxhash.h>

typedef struct alias_row {
    char *tool, *from, *to;
} alias_row;

/* Rows are found by name through two chained hash indexes (by old name, by new name): loading and matching stay
 * linear in the rows (a 40,000-row table took 12 s when every row scanned every other). */
typedef struct name_index {
    size_t *head;        /* [n_buckets] first row + 1 of the bucket, 0: empty */
    size_t *next;        /* [cap] next row + 1 in the row's bucket */
} name_index;

struct pm_passalias {
    alias_row *rows;
    size_t n, cap, n_buckets;
    name_index by_from, by_to;
};

pm_passalias *pm_passalias_new(void)
{
    return calloc(1, sizeof(pm_passalias));
}

static void index_free(name_index *x)
{
    pm_free_all(x->head, x->next);
}

void pm_passalias_free(pm_passalias *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        pm_free_all(m->rows[i].tool, m->rows[i].from, m->rows[i].to);
    free(m->rows);
    index_free(&m->by_from);
    index_free(&m->by_to);
    free(m);
}

size_t pm_passalias_rows(const pm_passalias *m)
{
    return m ? m->n : 0;
}

static size_t bucket(const pm_passalias *m, const char *name)
{
    return (size_t)(XXH3_64bits(name, strlen(name)) & (m->n_buckets - 1));
}

static void index_put(pm_passalias *m, name_index *x, size_t row, const char *name)
{
    size_t b = bucket(m, name);
    x->next[row] = x->head[b];
    x->head[b] = row + 1;
}

/* Room for one more row: the rows, the chains and (at a load factor of 1) twice the buckets, re-indexed. */
static int grow(pm_passalias *m)
{
    if (m->n < m->cap)
        return PM_OK;
    size_t cap = m->cap ? m->cap * 2 : 32;
    alias_row *p = realloc(m->rows, cap * sizeof *p);
    if (!p)
        return PM_ERR_NOMEM;
    m->rows = p;
    size_t *nf = realloc(m->by_from.next, cap * sizeof *nf), *nt = nf ? realloc(m->by_to.next, cap * sizeof *nt) : NULL;
    if (nf)
        m->by_from.next = nf;
    if (!nt)
        return PM_ERR_NOMEM;
    m->by_to.next = nt;
    size_t *hf = calloc(cap, sizeof *hf), *ht = calloc(cap, sizeof *ht);
    if (!hf || !ht) {
        free(hf);
        free(ht);
        return PM_ERR_NOMEM;
    }
    free(m->by_from.head);
    free(m->by_to.head);
    m->by_from.head = hf;
    m->by_to.head = ht;
    m->cap = m->n_buckets = cap;   /* a power of two */
    for (size_t i = 0; i < m->n; i++) {
        index_put(m, &m->by_from, i, m->rows[i].from);
        index_put(m, &m->by_to, i, m->rows[i].to);
    }
    return PM_OK;
}

static int add_row(pm_passalias *m, const char *tool, const char *from, const char *to)
{
    if (grow(m))
        return PM_ERR_NOMEM;
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
    index_put(m, &m->by_from, m->n, from);
    index_put(m, &m->by_to, m->n, to);
    m->n++;
    return PM_OK;
}

/* ---- whether two tool globs match a common tool label ----
 * fnmatch without flags: '*' any run, '?' any one byte, '[...]' a set ('!' or '^' negates, ranges, ']' first is
 * literal; a "[:class:]" inside is taken as any byte: the check may then call two rows a chain that are not,
 * never the other way), '\' escapes. Each glob becomes tokens; a breadth-first walk over pairs of positions
 * finds whether both can end together. */

typedef struct glob_tok {
    int star;
    unsigned char set[32];   /* the bytes one position matches (not star) */
} glob_tok;

static void set_all(unsigned char set[32], int on)
{
    memset(set, on ? 0xff : 0, 32);
    set[0] &= (unsigned char)~1u;   /* never NUL */
}

static void set_add(unsigned char set[32], unsigned c)
{
    set[c >> 3] |= (unsigned char)(1u << (c & 7));
}

/* The tokens of glob g into *out (heap, *n of them); -1 when out of memory. */
static int glob_tokens(const char *g, glob_tok **out, size_t *n)
{
    size_t len = strlen(g), k = 0;
    glob_tok *t = calloc(len + 1, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < len; i++) {
        glob_tok *x = &t[k++];
        if (g[i] == '*') {
            x->star = 1;
            continue;
        }
        if (g[i] == '?') {
            set_all(x->set, 1);
            continue;
        }
        if (g[i] == '[' && strchr(g + i + 1, ']')) {
            size_t j = i + 1;
            int neg = g[j] == '!' || g[j] == '^';
            j += neg;
            unsigned char set[32];
            set_all(set, 0);
            int any = 0;
            for (int first = 1; g[j] && (first || g[j] != ']'); first = 0, j++) {
                if (g[j] == '[' && g[j + 1] == ':')
                    any = 1;
                if (g[j + 1] == '-' && g[j + 2] && g[j + 2] != ']') {
                    for (unsigned c = (unsigned char)g[j]; c <= (unsigned char)g[j + 2]; c++)
                        set_add(set, c);
                    j += 2;
                } else {
                    set_add(set, (unsigned char)g[j]);
                }
            }
            if (g[j] == ']') {
                for (int b = 0; b < 32; b++)
                    x->set[b] = any ? 0xff : neg ? (unsigned char)~set[b] : set[b];
                x->set[0] &= (unsigned char)~1u;
                i = j;
                continue;
            }
        }
        if (g[i] == '\\' && g[i + 1])
            i++;
        set_all(x->set, 0);
        set_add(x->set, (unsigned char)g[i]);
    }
    *out = t;
    *n = k;
    return 0;
}

static int sets_meet(const unsigned char *a, const unsigned char *b)
{
    for (int i = 0; i < 32; i++)
        if (a[i] & b[i])
            return 1;
    return 0;
}

/* 1: some label matches both globs; -1: out of memory. */
static int globs_meet(const char *ga, const char *gb)
{
    glob_tok *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    unsigned char *seen = NULL;
    size_t *queue = NULL;
    int rc = -1;
    if (glob_tokens(ga, &a, &na) || glob_tokens(gb, &b, &nb))
        goto done;
    size_t w = nb + 1, n_states = (na + 1) * w, q_n = 0;
    seen = calloc(n_states, 1);
    queue = malloc(n_states * sizeof *queue);
    if (!seen || !queue)
        goto done;
    rc = 0;
#define PUSH(i, j) \
    do { \
        size_t s_ = (i) * w + (j); \
        if (!seen[s_]) { \
            seen[s_] = 1; \
            queue[q_n++] = s_; \
        } \
    } while (0)
    PUSH(0, 0);
    for (size_t q = 0; q < q_n && !rc; q++) {
        size_t i = queue[q] / w, j = queue[q] % w;
        if (i == na && j == nb) {
            rc = 1;
            break;
        }
        if (i < na && a[i].star)
            PUSH(i + 1, j);   /* a's star matches nothing more */
        if (j < nb && b[j].star)
            PUSH(i, j + 1);
        if (i < na && j < nb) {
            if (a[i].star && !b[j].star)
                PUSH(i, j + 1);   /* a's star takes b's byte */
            else if (!a[i].star && b[j].star)
                PUSH(i + 1, j);
            else if (!a[i].star && !b[j].star && sets_meet(a[i].set, b[j].set))
                PUSH(i + 1, j + 1);
        }
    }
#undef PUSH
done:
    pm_free_all(a, b, seen, queue);
    return rc;
}

/* A row of the index chain of name whose field (from or to) is name and whose tool glob meets
 * tool: its index, SIZE_MAX when none; *oom set when out of memory. */
static size_t chained(const pm_passalias *m, const name_index *x, int by_to, const char *name, const char *tool,
                      int *oom)
{
    for (size_t r = x->head[bucket(m, name)]; r; r = x->next[r - 1]) {
        const alias_row *row = &m->rows[r - 1];
        if (strcmp(by_to ? row->to : row->from, name))
            continue;
        int meet = globs_meet(row->tool, tool);
        if (meet < 0)
            *oom = 1;
        if (meet)
            return r - 1;
    }
    return SIZE_MAX;
}

static int read_alias_row(void *ctx, const char *const f[3], const char *origin, int lineno, pm_err *err)
{
    pm_passalias *m = ctx;
    /* a chain (a -> b, b -> c) on tools one label can match (globs, not their strings: `* a b` with `cc b a`)
     * would make the match depend on row order: write a -> c */
    int oom = 0;
    size_t hit = SIZE_MAX;
    if (m->n) {
        hit = chained(m, &m->by_to, 1, f[1], f[0], &oom);
        if (hit == SIZE_MAX && !oom)
            hit = chained(m, &m->by_from, 0, f[2], f[0], &oom);
    }
    if (oom)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (hit != SIZE_MAX)
        return pm_err_set(err, PM_ERR_PARSE, "%s:%d: '%s' -> '%s' chains with '%s' -> '%s' (tools '%s' and '%s' "
                          "can be one tool): map every old name to the newest one", origin, lineno, f[1], f[2],
                          m->rows[hit].from, m->rows[hit].to, f[0], m->rows[hit].tool);
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
    if (!m || !pass || !m->n)
        return pass;
    size_t first = SIZE_MAX;   /* the first row in table order that matches */
    for (size_t r = m->by_from.head[bucket(m, pass)]; r; r = m->by_from.next[r - 1])
        if (r - 1 < first && !strcmp(m->rows[r - 1].from, pass) && fnmatch(m->rows[r - 1].tool, tool ? tool : "", 0) == 0)
            first = r - 1;
    return first == SIZE_MAX ? pass : m->rows[first].to;
}
