/* What the timing flags cost (flagcost.h). A spec's [step] timing_flag makes the sweep run each cold repeat's twin
 * without the flag (run mode "plain", lib/sweep/sweep_pair.c). Per tool build (the step's label and argv[0]), the
 * pairs (config, step, repeat) give the flag's cost: the median of the instrumented wall over the plain one. The
 * shares stay the instrumented report's; the wall to scale them to is the plain one. Builds of one tool whose
 * costs are more than compare's threshold apart are named: between those builds, a pass-level difference is
 * partly the instrument's (llc -time-passes: +54% CPU on LLVM 14, +20% on 22). */
#include "flagcost.h"
#include "compare.h"
#include "stats.h"
#include "store_flagcost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double median_of(double *v, size_t n)
{
    double m = NAN;
    return pm_stats_quantile(v, n, 0.5, &m) == PM_STATS_OK ? m : NAN;
}

typedef struct fc_step {
    int64_t config_id;
    int seq, repeat, plain;
    char *tool, *argv;
    double wall, cpu;
} fc_step;

typedef struct fc_ctx {
    fc_step *v;
    size_t n, cap;
} fc_ctx;

static int take_step(void *ctx, const pm_sq_flagcost_row *r)
{
    fc_ctx *x = ctx;
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        fc_step *g = realloc(x->v, cap * sizeof *g);
        if (!g)
            return PM_ERR_NOMEM;
        x->v = g;
        x->cap = cap;
    }
    fc_step *s = &x->v[x->n];
    *s = (fc_step){.config_id = r->config_id,
                   .seq = r->seq,
                   .repeat = r->repeat,
                   .plain = r->plain,
                   .wall = r->wall_s,
                   .cpu = r->cpu_s};
    if (!(s->tool = strdup(r->tool)) || !(s->argv = strdup(r->argv))) {
        free(s->tool);
        return PM_ERR_NOMEM;
    }
    x->n++;
    return PM_OK;
}

/* argv[0] as the step named it, from a joined argv (its first word, quotes taken off): the build (llc-14, or a
 * path when builds differ by their folder only). */
static void program_of(const char *argv, char *out, size_t cap)
{
    size_t n = strcspn(argv, " ");
    const char *w = argv;
    if (n >= 2 && w[0] == '\'' && w[n - 1] == '\'') {
        w++;
        n -= 2;
    }
    snprintf(out, cap, "%.*s", (int)n, w);
}

/* Whether two words are the same but for the run folder ("…/cold-r0/…" against "…/plain-r0/…"). */
static int same_word(const char *c, size_t nc, const char *p, size_t np)
{
    size_t i = 0, j = 0;
    while (i < nc && j < np) {
        if (c[i] == '/' && p[j] == '/' && nc - i > 6 && np - j > 7 && !strncmp(c + i, "/cold-r", 7) &&
            !strncmp(p + j, "/plain-r", 8)) {
            i += 7;
            j += 8;
            continue;
        }
        if (c[i] != p[j])
            return 0;
        i++;
        j++;
    }
    return i == nc && j == np;
}

/* The words of the cold argv its plain twin leaves out, in order ("-ftime-report"); heap, NULL when out of memory. */
static char *flag_words(const char *cold, const char *plain)
{
    size_t cap = strlen(cold) + 1, len = 0;
    char *out = calloc(1, cap);
    const char *p = plain;
    for (const char *c = cold; out && *c;) {
        size_t nc = strcspn(c, " "), np = strcspn(p, " ");
        if (*p && same_word(c, nc, p, np)) {
            p += np + (p[np] == ' ');
        } else {
            len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? " " : "", (int)nc, c);
        }
        c += nc + (c[nc] == ' ');
    }
    return out;
}

static int cmp_step(const void *a, const void *b)
{
    const fc_step *x = a, *y = b;
    char px[256], py[256];
    int d = strcmp(x->tool, y->tool);
    if (d)
        return d;
    program_of(x->argv, px, sizeof px);
    program_of(y->argv, py, sizeof py);
    if ((d = strcmp(px, py)))
        return d;
    if (x->config_id != y->config_id)
        return x->config_id < y->config_id ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq - y->seq;
    if (x->repeat != y->repeat)
        return x->repeat - y->repeat;
    return x->plain - y->plain;
}

/* One tool build's row from its pairs: v[from..to) sorted, each cold step followed by its plain twin. */
static int add_row(pm_an_flagcost *fc, const fc_step *v, size_t from, size_t to, double *scratch)
{
    size_t n = to - from, np = 0;
    double *plain = scratch, *inst = scratch + n, *ratio = scratch + 2 * n, *cpu = scratch + 3 * n;
    size_t ncpu = 0;
    const fc_step *first = NULL;
    for (size_t i = from; i + 1 < to; i++) {
        const fc_step *c = &v[i], *p = &v[i + 1];
        if (c->plain || !p->plain || c->config_id != p->config_id || c->seq != p->seq || c->repeat != p->repeat ||
            c->wall <= 0 || p->wall <= 0)
            continue;
        if (!first)
            first = c;
        plain[np] = p->wall;
        inst[np] = c->wall;
        ratio[np++] = c->wall / p->wall;
        if (c->cpu > 0 && p->cpu > 0)
            cpu[ncpu++] = c->cpu / p->cpu;
        i++;
    }
    if (!np)
        return PM_OK;
    pm_an_flagcost_row *g = realloc(fc->rows, (fc->n + 1) * sizeof *g);
    if (!g)
        return PM_ERR_NOMEM;
    fc->rows = g;
    pm_an_flagcost_row *r = &g[fc->n];
    memset(r, 0, sizeof *r);
    char prog[256];
    program_of(first->argv, prog, sizeof prog);
    r->tool = strdup(first->tool);
    r->program = strdup(prog);
    r->flag = flag_words(first->argv, first[1].argv);
    fc->n++; /* freed by an_flagcost_free from here on */
    if (!r->tool || !r->program || !r->flag)
        return PM_ERR_NOMEM;
    r->n_pairs = np;
    r->plain_wall_s = median_of(plain, np);
    r->wall_s = median_of(inst, np);
    r->wall_overhead = median_of(ratio, np) - 1;
    r->cpu_overhead = ncpu == np ? median_of(cpu, ncpu) - 1 : NAN;
    return PM_OK;
}

/* The tools whose builds' costs are more than the threshold apart, as one sentence each. */
static int find_differs(pm_an_flagcost *fc)
{
    size_t len = 0;
    for (size_t i = 0; i < fc->n;) {
        size_t j = i, lo = i, hi = i;
        for (; j < fc->n && !strcmp(fc->rows[j].tool, fc->rows[i].tool); j++) {
            if (fc->rows[j].wall_overhead < fc->rows[lo].wall_overhead)
                lo = j;
            if (fc->rows[j].wall_overhead > fc->rows[hi].wall_overhead)
                hi = j;
        }
        double apart = (1 + fc->rows[hi].wall_overhead) / (1 + fc->rows[lo].wall_overhead);
        if (j - i > 1 && apart > 1 + PM_COMPARE_THRESHOLD) {
            const pm_an_flagcost_row *h = &fc->rows[hi], *l = &fc->rows[lo];
            char *more = NULL;
            if (asprintf(&more, "%s%s%s: %s %+.0f%% on %s, %+.0f%% on %s", fc->differs ? fc->differs : "",
                         len ? "; " : "", h->tool, h->flag, 100 * h->wall_overhead, h->program, 100 * l->wall_overhead,
                         l->program) < 0)
                return PM_ERR_NOMEM;
            free(fc->differs);
            fc->differs = more;
            len = strlen(more);
        }
        i = j;
    }
    return PM_OK;
}

/* The plain runs' walls per config: rows come by tool, so each run's steps are summed by (config, repeat). */
static int plain_walls(pm_an_flagcost *fc, const fc_step *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!v[i].plain)
            continue;
        struct pm_flagcost_cfg *c = NULL;
        for (size_t k = 0; k < fc->n_cfgs && !c; k++)
            if (fc->cfgs[k].config_id == v[i].config_id)
                c = &fc->cfgs[k];
        if (!c) {
            struct pm_flagcost_cfg *g = realloc(fc->cfgs, (fc->n_cfgs + 1) * sizeof *g);
            if (!g)
                return PM_ERR_NOMEM;
            fc->cfgs = g;
            c = &g[fc->n_cfgs++];
            *c = (struct pm_flagcost_cfg){.config_id = v[i].config_id};
        }
        /* one slot per repeat (repeats are small, dense numbers) */
        if ((size_t)v[i].repeat >= c->n) {
            double *w = realloc(c->walls, ((size_t)v[i].repeat + 1) * sizeof *w);
            if (!w)
                return PM_ERR_NOMEM;
            for (size_t k = c->n; k <= (size_t)v[i].repeat; k++)
                w[k] = NAN;
            c->walls = w;
            c->n = (size_t)v[i].repeat + 1;
        }
        double *slot = &c->walls[v[i].repeat];
        *slot = isnan(*slot) ? v[i].wall : *slot + v[i].wall;
    }
    for (size_t k = 0; k < fc->n_cfgs; k++) { /* the repeats no plain run filled go */
        struct pm_flagcost_cfg *c = &fc->cfgs[k];
        size_t m = 0;
        for (size_t r = 0; r < c->n; r++)
            if (!isnan(c->walls[r]))
                c->walls[m++] = c->walls[r];
        c->n = m;
    }
    return PM_OK;
}

int pm_flagcost_read(sqlite3 *db, const pm_sq_sweeps *sweeps, pm_an_flagcost *fc, pm_err *err)
{
    fc_ctx x = {0};
    double *scratch = NULL;
    int rc = pm_sq_flagcost_steps(db, sweeps, take_step, &x, err);
    if (rc == PM_ERR_NOMEM)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc || !x.n)
        goto cleanup;
    qsort(x.v, x.n, sizeof *x.v, cmp_step);
    if (!(scratch = malloc(4 * x.n * sizeof *scratch))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    char pi[256], pj[256];
    for (size_t i = 0; i < x.n && !rc;) {
        size_t j = i + 1;
        program_of(x.v[i].argv, pi, sizeof pi);
        for (; j < x.n && !strcmp(x.v[j].tool, x.v[i].tool); j++) {
            program_of(x.v[j].argv, pj, sizeof pj);
            if (strcmp(pi, pj))
                break;
        }
        rc = add_row(fc, x.v, i, j, scratch);
        i = j;
    }
    if (!rc)
        rc = find_differs(fc);
    if (!rc)
        rc = plain_walls(fc, x.v, x.n);
    if (rc)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    for (size_t i = 0; i < x.n; i++) {
        free(x.v[i].tool);
        free(x.v[i].argv);
    }
    free(x.v);
    free(scratch);
    return rc;
}

void pm_flagcost_free(pm_an_flagcost *fc)
{
    for (size_t i = 0; i < fc->n; i++) {
        free(fc->rows[i].tool);
        free(fc->rows[i].program);
        free(fc->rows[i].flag);
    }
    free(fc->rows);
    for (size_t i = 0; i < fc->n_cfgs; i++)
        free(fc->cfgs[i].walls);
    free(fc->cfgs);
    free(fc->differs);
    memset(fc, 0, sizeof *fc);
}

char *pm_flagcost_words(const pm_an_flagcost *fc)
{
    char *out = NULL;
    for (size_t i = 0; i < fc->n; i++) {
        const pm_an_flagcost_row *r = &fc->rows[i];
        char *more = NULL;
        if (asprintf(&more, "%s%s%s %s %+.0f%%", out ? out : "", out ? "; " : "", r->program, r->flag,
                     100 * r->wall_overhead) < 0) {
            free(out);
            return NULL;
        }
        free(out);
        out = more;
    }
    return out;
}

int pm_flagcost_differ(const pm_an_flagcost *a, const pm_an_flagcost *b, double threshold, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < b->n; j++) {
            const pm_an_flagcost_row *x = &a->rows[i], *y = &b->rows[j];
            double r = (1 + x->wall_overhead) / (1 + y->wall_overhead);
            if (strcmp(x->tool, y->tool) || (r <= 1 + threshold && r >= 1 / (1 + threshold)))
                continue;
            snprintf(buf, cap, "%s: %s %+.0f%% on A, %s %+.0f%% on B", x->tool, x->flag, 100 * x->wall_overhead,
                     y->flag, 100 * y->wall_overhead);
            return 1;
        }
    return 0;
}
