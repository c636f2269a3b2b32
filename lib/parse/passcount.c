/* Per-pass instruction counts from a callgrind run (see passcount.h). */
#include "passcount.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stagemap.h"
#include "util.h"

typedef struct cgmap_row {
    char *tool, *symbol, *pass;
} cgmap_row;

struct pm_cgmap {
    cgmap_row *rows;
    size_t n, cap;
};

pm_cgmap *pm_cgmap_new(void)
{
    return calloc(1, sizeof(pm_cgmap));
}

void pm_cgmap_free(pm_cgmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        pm_free_all(m->rows[i].tool, m->rows[i].symbol, m->rows[i].pass);
    pm_free_all(m->rows, m);
}

size_t pm_cgmap_rows(const pm_cgmap *m)
{
    return m ? m->n : 0;
}

static int read_map_row(void *ctx, const char *const f[3], const char *origin, int lineno, pm_err *err)
{
    pm_cgmap *m = ctx;
    (void)origin;
    (void)lineno;
    cgmap_row *p = pm_grow(m->rows, &m->cap, m->n, sizeof *p, 32);
    if (!p)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    m->rows = p;
    cgmap_row *r = &m->rows[m->n];
    r->tool = strdup(f[0]);
    r->symbol = strdup(f[1]);
    r->pass = strdup(f[2]);
    if (!r->tool || !r->symbol || !r->pass) {
        free(r->tool);
        free(r->symbol);
        free(r->pass);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    m->n++;
    return PM_OK;
}

int pm_cgmap_load_text(pm_cgmap *m, const char *text, const char *origin, pm_err *err)
{
    return pm_tsv3_each(text, origin, "tool<TAB>symbol<TAB>pass name", read_map_row, m, err);
}

int pm_cgmap_load_default(pm_cgmap *m, pm_err *err)
{
    char path[4200], where[4400];
    if (snprintf(path, sizeof path, "%s/pass-symbols.tsv", pm_data_dir()) >= (int)sizeof path)
        return pm_err_set(err, PM_ERR_USAGE, "data folder path longer than %zu bytes", sizeof path - 20);
    char *buf = NULL;
    size_t len = 0;
    pm_err e2;
    if (pm_util_read_file(path, &buf, &len, &e2) != PM_OK) {
        pm_data_dir_searched(where, sizeof where);
        return pm_err_set(err, PM_ERR_NOTFOUND,
                          "no pass symbol table: cannot read pass-symbols.tsv in %s; set PASSMAP_DATA_DIR to "
                          "passmap's data folder", where);
    }
    int rc = pm_cgmap_load_text(m, buf, path, err);
    free(buf);
    return rc;
}

void pm_passcount_free(pm_passcount *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < pc->n; i++)
        pm_free_all(pc->rows[i].source, pc->rows[i].why);
    free(pc->rows);
    memset(pc, 0, sizeof *pc);
}

/* One timer seen in the dumps: its name and what ran while it was the innermost timer running. */
typedef struct timer_sum {
    const char *id;      /* the timer's address as written, points into a part's trigger */
    size_t id_len;
    const char *name;    /* points into a part's trigger */
    size_t name_len;
    uint64_t count;
    int used;            /* given to a report row already */
} timer_sum;

typedef struct open_timer {
    const char *id;       /* its address as written */
    size_t sum;           /* index into sums */
} open_timer;

typedef struct timer_state {
    timer_sum *sums;
    size_t n, cap;
    open_timer *open;     /* the running timers, in the order they started */
    size_t n_open, cap_open;
} timer_state;

/* A trigger "Client Request: start|stop ADDR NAME": *start, the address and the name; 0 when not one. */
static int timer_trigger(const char *t, int *start, const char **id, size_t *id_len, const char **name)
{
    static const char req[] = "Client Request: ";
    if (!t || strncmp(t, req, sizeof req - 1))
        return 0;
    t += sizeof req - 1;
    if (!strncmp(t, PM_PASSCOUNT_START, strlen(PM_PASSCOUNT_START))) {
        *start = 1;
        t += strlen(PM_PASSCOUNT_START);
    } else if (!strncmp(t, PM_PASSCOUNT_STOP, strlen(PM_PASSCOUNT_STOP))) {
        *start = 0;
        t += strlen(PM_PASSCOUNT_STOP);
    } else {
        return 0;
    }
    const char *sp = strchr(t, ' ');
    if (!sp || sp == t)
        return 0;
    *id = t;
    *id_len = (size_t)(sp - t);
    *name = sp + 1;
    return 1;
}

/* The timer (id, name), added when new: one timer per address and name, in the order they first started (an
 * MLIR tree report lists one row per timer, "Canonicalizer" at each place it runs, in that order). */
static long timer_find(timer_state *s, const char *id, size_t id_len, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->sums[i].name_len == len && !memcmp(s->sums[i].name, name, len) && s->sums[i].id_len == id_len &&
            !memcmp(s->sums[i].id, id, id_len))
            return (long)i;
    timer_sum *p = pm_grow(s->sums, &s->cap, s->n, sizeof *p, 64);
    if (!p)
        return -2;
    s->sums = p;
    s->sums[s->n] = (timer_sum){.id = id, .id_len = id_len, .name = name, .name_len = len};
    return (long)s->n++;
}

/* Walks the parts in order: each part's count goes to every timer running when it was dumped (a start dumps
 * before the timer starts, a stop after it stops), as a timer's wall is all the time it ran: an MLIR pass's
 * row includes its nested analyses (detail rows), and LLVM's new pass manager stops a pass's timer while
 * another runs inside it. A stop of a timer whose start was not seen (a start inlined into its caller escapes
 * the wrapper) only ends a part. */
static int timer_walk(const pm_callgrind *cg, timer_state *s, uint64_t *timed, pm_err *err)
{
    *timed = 0;
    for (size_t i = 0; i < cg->n_parts; i++) {
        const pm_cg_part *p = &cg->parts[i];
        for (size_t j = 0; j < s->n_open; j++)
            s->sums[s->open[j].sum].count += p->total;
        if (s->n_open)
            *timed += p->total;
        int start;
        const char *id, *name;
        size_t id_len;
        if (!timer_trigger(p->trigger, &start, &id, &id_len, &name))
            continue;
        if (start) {
            long k = timer_find(s, id, id_len, name, strlen(name));
            if (k < 0)
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            open_timer *o = pm_grow(s->open, &s->cap_open, s->n_open, sizeof *o, 16);
            if (!o)
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            s->open = o;
            s->open[s->n_open++] = (open_timer){.id = id, .sum = (size_t)k};
            continue;
        }
        for (size_t j = s->n_open; j-- > 0;)
            if (!strncmp(s->open[j].id, id, id_len) && s->open[j].id[id_len] == ' ') {
                memmove(s->open + j, s->open + j + 1, (s->n_open - j - 1) * sizeof *s->open);
                s->n_open--;
                break;
            }
    }
    return PM_OK;
}

static int has_timer_parts(const pm_callgrind *cg)
{
    for (size_t i = 0; i < cg->n_parts; i++) {
        int start;
        const char *id, *name;
        size_t id_len;
        if (timer_trigger(cg->parts[i].trigger, &start, &id, &id_len, &name))
            return 1;
    }
    return 0;
}

static int set_text(char **dst, pm_err *err, const char *text)
{
    return (*dst = strdup(text)) ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

static int count_by_timer(const pm_callgrind *cg, const pm_report *rep, pm_passcount *out, pm_err *err)
{
    timer_state s = {0};
    int rc = timer_walk(cg, &s, &out->timed, err);
    if (rc != PM_OK)
        goto cleanup;
    for (size_t i = 0; i < out->n; i++) {
        pm_pass_count *pc = &out->rows[i];
        const char *name = rep->passes[pc->pass].name;
        size_t len = strlen(name);
        /* the report's rows of one name take that name's timers in the order they first started */
        long k = -1;
        for (size_t j = 0; j < s.n && k < 0; j++)
            if (!s.sums[j].used && s.sums[j].name_len == len && !memcmp(s.sums[j].name, name, len))
                k = (long)j;
        if (k < 0) {
            rc = set_text(&pc->why, err, "no timer of this name started under callgrind (its start is inlined "
                                         "where the wrapper cannot see it, or it did not run)");
            if (rc != PM_OK)
                goto cleanup;
            continue;
        }
        s.sums[k].used = 1;
        pc->count = (int64_t)s.sums[k].count;
        pc->how = "timer";
        if ((rc = set_text(&pc->source, err, name)) != PM_OK)
            goto cleanup;
    }
cleanup:
    free(s.sums);
    free(s.open);
    return rc;
}

static int count_by_symbol(const pm_callgrind *cg, const pm_report *rep, const pm_cgmap *map, const char *tool,
                           pm_passcount *out, pm_err *err)
{
    const char *t = tool ? tool : "";
    /* an entry point runs every instance of its pass ("X", "X #2" ...): its count goes to the first row only */
    unsigned char *taken = map && map->n ? calloc(map->n, 1) : NULL;
    if (map && map->n && !taken)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK;
    for (size_t i = 0; i < out->n; i++) {
        pm_pass_count *pc = &out->rows[i];
        const char *name = rep->passes[pc->pass].name;
        uint64_t sum = 0;
        int rows = 0, shared = 0, found = 0;
        char *src = NULL;
        for (size_t r = 0; map && r < map->n; r++) {
            const cgmap_row *row = &map->rows[r];
            if (fnmatch(row->tool, t, 0) || fnmatch(row->pass, name, 0))
                continue;
            if (taken[r]) {
                shared++;
                continue;
            }
            taken[r] = 1;
            rows++;
            /* a row names one entry point: its overloads and copies in several objects add up */
            for (size_t f = 0; f < cg->n_fns; f++) {
                if (fnmatch(row->symbol, cg->fns[f].name, 0))
                    continue;
                sum += cg->fns[f].incl;
                found++;
                char *n2 = NULL;
                if (asprintf(&n2, "%s%s%s", src ? src : "", src ? "; " : "", cg->fns[f].name) < 0) {
                    free(src);
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    goto cleanup;
                }
                free(src);
                src = n2;
            }
        }
        if (!found) {
            const char *why = rows     ? "its entry point in data/pass-symbols.tsv did not run under callgrind (or is "
                                         "not exported by this build)"
                              : shared ? "its entry point also runs an earlier row of the same pass, whose count "
                                         "includes this one"
                                       : "no exported entry point: data/pass-symbols.tsv has no row for it (its code "
                                         "is hidden in the stripped library)";
            if ((rc = set_text(&pc->why, err, why)) != PM_OK)
                goto cleanup;
            continue;
        }
        pc->count = (int64_t)sum;
        pc->how = "symbol";
        pc->source = src;
    }
cleanup:
    free(taken);
    return rc;
}

int pm_passcount_compute(const pm_callgrind *cg, const pm_report *rep, const pm_cgmap *map, const char *tool,
                         pm_passcount *out, pm_err *err)
{
    int rc = PM_OK;
    memset(out, 0, sizeof *out);
    if (!cg->n_parts && !cg->n_fns)
        return pm_err_set(err, PM_ERR_PARSE, "the callgrind run counted nothing: no part and no function");
    size_t n = 0;
    for (size_t i = 0; i < rep->n_passes; i++)
        n += pm_pass_counted(&rep->passes[i]) != 0;
    if (n && !(out->rows = calloc(n, sizeof *out->rows)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rep->n_passes; i++) {
        if (!pm_pass_counted(&rep->passes[i]))
            continue;
        out->rows[out->n++] = (pm_pass_count){.pass = i, .count = -1};
        out->wall_s += rep->passes[i].wall_s;
    }
    out->total = cg->total;
    int timers = has_timer_parts(cg);
    out->mechanism = timers ? "timer" : "symbol";
    rc = timers ? count_by_timer(cg, rep, out, err) : count_by_symbol(cg, rep, map, tool, out, err);
    if (rc != PM_OK) {
        pm_passcount_free(out);
        return rc;
    }
    for (size_t i = 0; i < out->n; i++)
        if (out->rows[i].count >= 0) {
            out->counted += (uint64_t)out->rows[i].count;
            out->wall_counted_s += rep->passes[out->rows[i].pass].wall_s;
        }
    if (!timers)
        out->timed = out->counted;
    return PM_OK;
}
