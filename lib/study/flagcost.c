/* What the timing flags cost (flagcost.h). A spec's [step] timing_flag makes the sweep run each cold repeat's twin
 * without the flag (run mode "plain", lib/sweep/sweep_pair.c). Per tool build (the step's label and argv[0]), the
 * pairs (config, step, repeat) give the flag's cost: the median of the instrumented wall over the plain one. The
 * shares stay the instrumented report's; the wall to scale them to is the plain one. Builds of one tool whose
 * costs differ by compare's rule (the interval of the pairs' ratios past the threshold) are named: between those
 * builds, a pass-level difference is partly the instrument's (llc -time-passes: +54% CPU on LLVM 14, +20% on 22);
 * where the interval straddles the threshold, that is undecided and said so. */
#include "flagcost.h"
#include "compare.h"
#include "stats.h"
#include "store_flagcost.h"

#include <math.h>
#include <stdarg.h>
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
    const int64_t *only; /* sorted config ids to keep (n_only of them); NULL: every config */
    size_t n_only;
} fc_ctx;

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int take_step(void *ctx, const pm_sq_flagcost_row *r)
{
    fc_ctx *x = ctx;
    if (x->only && !bsearch(&r->config_id, x->only, x->n_only, sizeof *x->only, cmp_id))
        return PM_OK;
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

/* The words of the cold argv its plain twin leaves out, in order ("-ftime-report"), or sets otherwise (a back end
 * row's option: "--log-level LOG_INFO", the twin's LOG_NONE); heap, NULL when out of memory. A word the twin
 * has another word in place of, with the words after both the same (or both at their end), is set otherwise;
 * any other word the twin lacks is left out. */
static char *flag_words(const char *cold, const char *plain)
{
    size_t cap = 2 * strlen(cold) + 1, len = 0, nprev = 0;
    char *out = calloc(1, cap);
    const char *p = plain, *prev = "";
    for (const char *c = cold; out && *c;) {
        size_t nc = strcspn(c, " "), np = strcspn(p, " ");
        const char *c2 = c + nc + (c[nc] == ' '), *p2 = p + np + (p[np] == ' ');
        if (*p && same_word(c, nc, p, np)) {
            prev = c;
            nprev = nc;
            p = p2;
        } else if (*p && ((!*c2 && !*p2) || (*c2 && *p2 && same_word(c2, strcspn(c2, " "), p2, strcspn(p2, " "))))) {
            int opt = nprev && prev[0] == '-'; /* the option the value belongs to, named with it */
            len += (size_t)snprintf(out + len, cap - len, "%s%.*s%s%.*s", len ? " " : "", opt ? (int)nprev : 0, prev,
                                    opt ? " " : "", (int)nc, c);
            p = p2;
        } else {
            len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? " " : "", (int)nc, c);
        }
        c = c2;
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
    r->ratios = malloc(np * sizeof *r->ratios);
    fc->n++; /* freed by an_flagcost_free from here on */
    if (!r->tool || !r->program || !r->flag || !r->ratios)
        return PM_ERR_NOMEM;
    memcpy(r->ratios, ratio, np * sizeof *ratio);
    r->n_pairs = np;
    r->plain_wall_s = median_of(plain, np);
    r->wall_s = median_of(inst, np);
    r->wall_overhead = median_of(ratio, np) - 1;
    r->cpu_overhead = ncpu == np ? median_of(cpu, ncpu) - 1 : NAN;
    return PM_OK;
}

/* Compare's rule on the pairs' ratios (1 + cost) of y against x, as a family of one: the verdict of y's cost
 * over x's (slower: y's flag costs more), its interval in st. */
static pm_compare_verdict cost_test(const pm_an_flagcost_row *x, const pm_an_flagcost_row *y, double threshold,
                                    pm_compare_stat *st)
{
    pm_compare_stat *family = st;
    pm_compare_test(x->ratios, x->n_pairs, y->ratios, y->n_pairs, st);
    if (pm_compare_correct(&family, 1, PM_COMPARE_ALPHA, threshold))
        return PM_VERDICT_NA; /* out of memory: no claim */
    return st->verdict;
}

/* "cost ratio 0.78x [0.77, 0.79]" (the second's over the first's), "fewer than 3 pairs a build": what the rule saw. */
static void cost_interval(const pm_compare_stat *st, const char *of, char *buf, size_t cap)
{
    if (isnan(st->ci_lo))
        snprintf(buf, cap, "fewer than %d pairs a %s", PM_STATS_MIN_INTERVAL_N, of);
    else
        snprintf(buf, cap, "cost ratio %.2fx [%.2f, %.2f]", st->ratio, st->ci_lo, st->ci_hi);
}

static int append(char **to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append(char **to, const char *fmt, ...)
{
    char *more = NULL, *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return PM_ERR_NOMEM;
    n = asprintf(&more, "%s%s%s", *to ? *to : "", *to ? "; " : "", line);
    free(line);
    if (n < 0)
        return PM_ERR_NOMEM;
    free(*to);
    *to = more;
    return PM_OK;
}

/* The tools whose builds' costs differ by the rule, and those it leaves undecided, as one sentence each: the
 * cheapest build's pairs against the dearest's. */
static int find_differs(pm_an_flagcost *fc)
{
    int rc = PM_OK;
    for (size_t i = 0; i < fc->n && !rc;) {
        size_t j = i, lo = i, hi = i;
        for (; j < fc->n && !strcmp(fc->rows[j].tool, fc->rows[i].tool); j++) {
            if (fc->rows[j].wall_overhead < fc->rows[lo].wall_overhead)
                lo = j;
            if (fc->rows[j].wall_overhead > fc->rows[hi].wall_overhead)
                hi = j;
        }
        if (j - i > 1) {
            const pm_an_flagcost_row *h = &fc->rows[hi], *l = &fc->rows[lo];
            pm_compare_stat st;
            pm_compare_verdict v = cost_test(l, h, PM_COMPARE_THRESHOLD, &st);
            char why[96];
            cost_interval(&st, "build", why, sizeof why);
            if (v == PM_VERDICT_SLOWER || v == PM_VERDICT_FASTER || v == PM_VERDICT_UNDECIDED || v == PM_VERDICT_NA)
                rc = append(v == PM_VERDICT_SLOWER || v == PM_VERDICT_FASTER ? &fc->differs : &fc->undecided,
                            "%s: %s %+.0f%% on %s, %+.0f%% on %s (%s)", h->tool, h->flag, 100 * h->wall_overhead,
                            h->program, 100 * l->wall_overhead, l->program, why);
        }
        i = j;
    }
    return rc;
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
    return pm_flagcost_read_cfgs(db, sweeps, NULL, 0, fc, err);
}

int pm_flagcost_read_cfgs(sqlite3 *db, const pm_sq_sweeps *sweeps, const int64_t *ids, size_t n, pm_an_flagcost *fc,
                          pm_err *err)
{
    fc_ctx x = {0};
    double *scratch = NULL;
    int64_t *only = NULL;
    if (ids) {
        if (!(only = malloc((n ? n : 1) * sizeof *only)))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        memcpy(only, ids, n * sizeof *only);
        qsort(only, n, sizeof *only, cmp_id);
        x.only = only;
        x.n_only = n;
    }
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
    free(only);
    return rc;
}

void pm_flagcost_free(pm_an_flagcost *fc)
{
    for (size_t i = 0; i < fc->n; i++) {
        free(fc->rows[i].tool);
        free(fc->rows[i].program);
        free(fc->rows[i].flag);
        free(fc->rows[i].ratios);
    }
    free(fc->rows);
    for (size_t i = 0; i < fc->n_cfgs; i++)
        free(fc->cfgs[i].walls);
    free(fc->cfgs);
    free(fc->differs);
    free(fc->undecided);
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
    int found = PM_FLAGCOST_ALIKE;
    buf[0] = '\0';
    for (size_t i = 0; i < a->n && found != PM_FLAGCOST_DIFFER; i++)
        for (size_t j = 0; j < b->n && found != PM_FLAGCOST_DIFFER; j++) {
            const pm_an_flagcost_row *x = &a->rows[i], *y = &b->rows[j];
            if (strcmp(x->tool, y->tool))
                continue;
            pm_compare_stat st;
            pm_compare_verdict v = cost_test(x, y, threshold, &st);
            int now = v == PM_VERDICT_SLOWER || v == PM_VERDICT_FASTER ? PM_FLAGCOST_DIFFER
                : v == PM_VERDICT_SAME                                 ? PM_FLAGCOST_ALIKE
                                                                       : PM_FLAGCOST_UNDECIDED;
            if (now == PM_FLAGCOST_ALIKE || (now == PM_FLAGCOST_UNDECIDED && found == PM_FLAGCOST_UNDECIDED))
                continue;
            char why[96];
            cost_interval(&st, "side", why, sizeof why);
            snprintf(buf, cap, "%s: %s %+.0f%% on A, %s %+.0f%% on B, %s", x->tool, x->flag, 100 * x->wall_overhead,
                     y->flag, 100 * y->wall_overhead, why);
            found = now;
        }
    return found;
}
