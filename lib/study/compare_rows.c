/* pm_compare's rows: one matched config pair's wall, step and pass rows, pass instances lined up across the two
 * sides, and the default pass family (compare_internal.h). */
#include "compare_internal.h"

#include <math.h>

#include "run.h"

static int make_row(const char *tool, const char *pass, const char *alias, pm_compare_presence pr, const double *a,
                    size_t na, const double *b, size_t nb, double tick, double reads, pm_compare_row *row)
{
    *row = (pm_compare_row){.tool = dup_or_null(tool), .pass = dup_or_null(pass), .alias = dup_or_null(alias),
                            .presence = pr};
    if ((tool && !row->tool) || (pass && !row->pass) || (alias && !row->alias))
        return -1;
    /* Present on one side only: the other side's time is truly zero, not unknown. */
    pm_compare_test_tick(a, na, b, nb, tick, reads, &row->st);
    if (pr != PM_COMPARE_BOTH) {
        row->st.mean_a = pr == PM_COMPARE_ADDED ? 0 : row->st.mean_a;
        row->st.mean_b = pr == PM_COMPARE_REMOVED ? 0 : row->st.mean_b;
        row->st.delta = row->st.mean_b - row->st.mean_a;
    }
    return 0;
}

/* The instance a pass row names: "Greedy Register Allocator #2" is instance 2 of "Greedy Register Allocator"
 * (*base_len its length), a name without the suffix instance 1. */
static long pass_instance(const char *name, size_t *base_len)
{
    size_t n = name ? strlen(name) : 0, d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d < n && n - d < 9 && d >= 3 && name[d - 1] == '#' && name[d - 2] == ' ') {
        *base_len = d - 2;
        return strtol(name + d, NULL, 10);
    }
    *base_len = n;
    return 1;
}

/* One series in the order the instances are lined up in: (tool, base name, instance). */
typedef struct inst_ref {
    const series *s;
    size_t idx, base_len;
    long inst;
    double mean;
} inst_ref;

static int cmp_group(const inst_ref *a, const inst_ref *b)
{
    int c = pm_util_strcmp_null(a->s->tool, b->s->tool);
    if (c)
        return c;
    const char *pa = a->s->pass ? a->s->pass : "", *pb = b->s->pass ? b->s->pass : "";
    c = memcmp(pa, pb, a->base_len < b->base_len ? a->base_len : b->base_len);
    return c ? c : (a->base_len > b->base_len) - (a->base_len < b->base_len);
}

static int cmp_inst_ref(const void *x, const void *y)
{
    const inst_ref *a = x, *b = y;
    int c = cmp_group(a, b);
    return c ? c : (a->inst > b->inst) - (a->inst < b->inst);
}

static inst_ref *inst_refs(const series *s, size_t n, size_t n_runs)
{
    inst_ref *r = malloc((n ? n : 1) * sizeof *r);
    for (size_t i = 0; r && i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < n_runs; k++)
            sum += s[i].v[k];
        r[i] = (inst_ref){.s = &s[i], .idx = i, .mean = n_runs ? sum / (double)n_runs : 0};
        r[i].inst = pass_instance(s[i].pass, &r[i].base_len);
    }
    if (r)
        qsort(r, n, sizeof *r, cmp_inst_ref);
    return r;
}

static int same_magnitude(double a, double b)
{
    return a > 0 && b > 0 && a <= b * PM_COMPARE_SAME_PASS_FACTOR && b <= a * PM_COMPARE_SAME_PASS_FACTOR;
}

/* Pairs one group's instances (a[0..m), b[0..n), each in instance order): pa[a's index] = b's index, amb set on
 * the pairs that may not be the same pass (PM_COMPARE_SAME_PASS_FACTOR). */
static void pair_group(const inst_ref *a, size_t m, const inst_ref *b, size_t n, long *pa, unsigned char *amb)
{
    int same_numbers = m == n;
    for (size_t i = 0; same_numbers && i < m; i++)
        same_numbers = a[i].inst == b[i].inst;
    /* Of the offsets where every pair is of the same magnitude, the closest (least summed |log ratio|); when two
     * fit, the closest must be clearly closer (by a factor of 2 over the pairs) or the match is in doubt: a
     * tiny pass's time is noise, and on a busy machine it can reach the magnitude of another instance's. */
    size_t small = m < n ? m : n, offsets = (m > n ? m - n : n - m) + 1, fit = 0, fits = 0;
    double best = INFINITY, second = INFINITY;
    for (size_t k = 0; !same_numbers && k < offsets; k++) {
        int all = 1;
        double dist = 0;
        for (size_t i = 0; all && i < small; i++) {
            double x = m <= n ? a[i].mean : a[i + k].mean, y = m <= n ? b[i + k].mean : b[i].mean;
            all = same_magnitude(x, y);
            dist += all ? fabs(log(x / y)) : 0;
        }
        if (!all)
            continue;
        fits++;
        if (dist < best)
            second = best, best = dist, fit = k;
        else if (dist < second)
            second = dist;
    }
    int doubt = !same_numbers && (fits == 0 || (fits > 1 && second - best < log(2.0)));
    size_t k = same_numbers || doubt ? 0 : fit;
    for (size_t i = 0; i < small; i++) {
        size_t ia = m <= n ? i : i + k, ib = m <= n ? i + k : i;
        pa[a[ia].idx] = (long)b[ib].idx;
        amb[a[ia].idx] = (unsigned char)doubt;
    }
}

/* Which B series each A series is the same pass as (-1: none), instance by instance (pair_group). */
static int pair_series(const series *sa, size_t na, size_t runs_a, const series *sb, size_t nb, size_t runs_b,
                       long *pa, unsigned char *amb)
{
    inst_ref *ra = inst_refs(sa, na, runs_a), *rb = inst_refs(sb, nb, runs_b);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return -1;
    }
    for (size_t i = 0; i < na; i++)
        pa[i] = -1, amb[i] = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int c = cmp_group(&ra[i], &rb[j]);
        size_t ei = i, ej = j;
        while (ei < na && !cmp_group(&ra[i], &ra[ei]))
            ei++;
        while (ej < nb && !cmp_group(&rb[j], &rb[ej]))
            ej++;
        if (c == 0)
            pair_group(&ra[i], ei - i, &rb[j], ej - j, pa, amb);
        if (c <= 0)
            i = ei;
        if (c >= 0)
            j = ej;
    }
    free(ra);
    free(rb);
    return 0;
}

/* The name a build printed, when the row goes by another: the alias table's, or B's instance. */
static const char *printed_alias(const series *a, const series *b)
{
    if (a->orig)
        return a->orig;
    if (pm_util_strcmp_null(a->pass, b->pass))
        return a->pass;
    return b->orig;
}

/* Comparison rows of two series lists (sorted by tool, pass): the pairs pair_series finds, then A's unpaired
 * (removed), then B's (added); the caller orders them. */
static int merge_rows(const side_cfg *ca, const series *sa, size_t na, const side_cfg *cb, const series *sb,
                      size_t nb, pm_compare_row **out, size_t *n_out)
{
    pm_compare_row *rows = calloc(na + nb + 1, sizeof *rows);
    long *pa = malloc((na ? na : 1) * sizeof *pa);
    unsigned char *amb = malloc(na ? na : 1), *used = calloc(nb ? nb : 1, 1);
    size_t n = 0;
    int bad = !rows || !pa || !amb || !used || pair_series(sa, na, ca->n_runs, sb, nb, cb->n_runs, pa, amb);
    for (size_t i = 0; !bad && i < na; i++) {
        if (pa[i] >= 0) {
            const series *b = &sb[pa[i]];
            used[pa[i]] = 1;
            bad = make_row(b->tool, b->pass, printed_alias(&sa[i], b), PM_COMPARE_BOTH, sa[i].v, ca->n_runs, b->v,
                           cb->n_runs, fmax(sa[i].tick, b->tick), fmax(sa[i].reads, b->reads), &rows[n]);
            if (!bad && amb[i]) {   /* shown with its numbers; no test, no claim */
                pm_compare_stat *st = &rows[n].st;
                st->p = st->t = st->df = st->se_log = NAN;
                st->verdict = st->tested = PM_VERDICT_AMBIGUOUS;
            }
        } else {
            bad = make_row(sa[i].tool, sa[i].pass, sa[i].orig, PM_COMPARE_REMOVED, sa[i].v, ca->n_runs, NULL, 0,
                           sa[i].tick, sa[i].reads, &rows[n]);
        }
        n++;
    }
    for (size_t j = 0; !bad && j < nb; j++) {
        if (used[j])
            continue;
        bad = make_row(sb[j].tool, sb[j].pass, sb[j].orig, PM_COMPARE_ADDED, NULL, 0, sb[j].v, cb->n_runs,
                       sb[j].tick, sb[j].reads, &rows[n]);
        n++;
    }
    free(pa);
    free(amb);
    free(used);
    *out = rows;
    *n_out = n;
    return bad ? -1 : 0;
}

static int cmp_row_name(const void *x, const void *y)
{
    const pm_compare_row *a = x, *b = y;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static double abs_delta(double d)
{
    return d == d ? fabs(d) : -1;
}

static int cmp_row_delta(const void *x, const void *y)
{
    const pm_compare_row *a = x, *b = y;
    double da = abs_delta(a->st.delta), db = abs_delta(b->st.delta);
    if (da != db)
        return da < db ? 1 : -1;
    return cmp_tool_pass(a->tool, a->pass, b->tool, b->pass);
}

static double row_time(const pm_compare_row *r)
{
    return fmax(finite_or_zero(r->st.mean_a), finite_or_zero(r->st.mean_b));
}

static int cmp_row_tool_time(const void *x, const void *y)
{
    const pm_compare_row *a = *(const pm_compare_row *const *)x, *b = *(const pm_compare_row *const *)y;
    int c = pm_util_strcmp_null(a->tool, b->tool);
    if (c)
        return c;
    double ta = row_time(a), tb = row_time(b);
    return ta != tb ? (ta < tb ? 1 : -1) : pm_util_strcmp_null(a->pass, b->pass);
}

/* The default pass family (compare.h): a tested pass row stays in it when it takes PM_COMPARE_FAMILY_SHARE of the
 * config's compile wall on either side and is among the top PM_COMPARE_FAMILY_TOP of its step tool by time; the
 * others lose their test (their numbers stay) and read "not tested (outside the family)". */
static int pass_family(pm_compare_config *o)
{
    pm_compare_row **v = malloc((o->n_passes ? o->n_passes : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t k = 0; k < o->n_passes; k++)
        if (!isnan(o->passes[k].st.p))
            v[n++] = &o->passes[k];
    qsort(v, n, sizeof *v, cmp_row_tool_time);
    double wall = fmax(finite_or_zero(o->wall.mean_a), finite_or_zero(o->wall.mean_b));
    size_t rank = 0;
    for (size_t k = 0; k < n; k++) {
        rank = k && !pm_util_strcmp_null(v[k]->tool, v[k - 1]->tool) ? rank + 1 : 0;
        if (rank < PM_COMPARE_FAMILY_TOP && (!(wall > 0) || row_time(v[k]) >= PM_COMPARE_FAMILY_SHARE * wall))
            continue;
        pm_compare_stat *st = &v[k]->st;
        st->p = st->t = st->df = st->se_log = NAN;
        st->verdict = st->tested = PM_VERDICT_OUTSIDE;
    }
    free(v);
    return 0;
}

int compare_cfg(const side_cfg *ca, const side_cfg *cb, int all_passes, pm_compare_config *o)
{
    o->key = strdup(ca->base);
    o->key_a = strdup(ca->key);
    o->key_b = strdup(cb->key);
    if (!o->key || !o->key_a || !o->key_b)
        return -1;
    pm_compare_test_tick(ca->wall, ca->n_wall, cb->wall, cb->n_wall, PM_RUN_CLOCK_TICK_S, 1, &o->wall);
    const char *regime = "-";
    double best = -1;
    for (size_t i = 0; i < ca->n_steps; i++) {
        double sum = 0;
        for (size_t k = 0; k < ca->n_runs; k++)
            sum += ca->steps[i].v[k];
        if (ca->n_runs && sum / (double)ca->n_runs > best) {
            best = sum / (double)ca->n_runs;
            regime = ca->steps[i].tool;
        }
    }
    if (!(o->regime = strdup(regime)))
        return -1;
    if (merge_rows(ca, ca->steps, ca->n_steps, cb, cb->steps, cb->n_steps, &o->steps, &o->n_steps) != 0 ||
        merge_rows(ca, ca->passes, ca->n_passes, cb, cb->passes, cb->n_passes, &o->passes, &o->n_passes) != 0)
        return -1;
    qsort(o->steps, o->n_steps, sizeof *o->steps, cmp_row_name);
    if (!all_passes && pass_family(o) != 0)
        return -1;
    qsort(o->passes, o->n_passes, sizeof *o->passes, cmp_row_delta);
    return 0;
}
