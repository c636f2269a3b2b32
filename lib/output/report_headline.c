/* The report's headline: one answer a line (dominant stage, heaviest pass, top fix and its why, measured A/B,
 * cache, slowest compile), which text, HTML and JSON print (report_tables.h). */
#include "report_tables.h"
#include "compare_out.h"
#include "kinds.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_title(const char *k)
{
    return !k ? "other" : pm_kind_find(k) ? pm_kind_find(k)->label : k;
}

/* Appends to a headline string; after a failed allocation the headline is marked incomplete. */
static void hl_add(pm_rt_headline *h, char **dst, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void hl_add(pm_rt_headline *h, char **dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *piece = NULL;
    int n = vasprintf(&piece, fmt, ap);
    va_end(ap);
    size_t old = *dst ? strlen(*dst) : 0;
    char *grown = n < 0 ? NULL : realloc(*dst, old + (size_t)n + 1);
    if (!grown) {
        h->oom = 1;
    } else {
        memcpy(grown + old, piece, (size_t)n + 1);
        *dst = grown;
    }
    free(piece);
}

/* "12–15%": a range of shares, its ends rounded before they are compared ("12–12%" never). */
static void hl_share_range(char *buf, size_t n, double lo, double hi)
{
    long l = lround(lo * 100), u = lround(hi * 100);
    if (l == u)
        snprintf(buf, n, "%ld%%", u);
    else
        snprintf(buf, n, "%ld\u2013%ld%%", l, u);
}

/* configs of one kind that have a top pass, ordered by that pass's id, then by position (the first config of a
 * tie wins) */
typedef struct hl_top { int id; size_t at; double share; } hl_top;
static int hl_top_cmp(const void *x, const void *y)
{
    const hl_top *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int same_kind(const char *x, const char *y)
{
    return !strcmp(x ? x : "", y ? y : "");
}

/* "X86 DAG->DAG Instruction Selection, 11–15% of LLM compiles (top in 10 of 12)": the pass that
 * tops most of a kind's configs, with its share over those configs, so the answer names the pass to look at. */
static void hl_heaviest_pass(pm_rt_headline *h, const pm_analysis *a, const char *kind, int n)
{
    const pm_an_pass *best = NULL;
    int best_n = 0;
    size_t best_at = 0;
    double lo = 0, hi = 0;
    hl_top *top = malloc((a->n_configs ? a->n_configs : 1) * sizeof *top);
    if (!top) {
        h->oom = 1;
        return;
    }
    size_t nt = 0;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!same_kind(c->kind, kind) || c->dominant_stage < 0 || !c->n_passes)
            continue;
        top[nt++] = (hl_top){c->passes[0].id, i, c->passes[0].share};
    }
    qsort(top, nt, sizeof *top, hl_top_cmp);
    for (size_t g = 0; g < nt;) {   /* one group per top pass: its count, first config and share range */
        size_t e = g;
        double l = INFINITY, u = 0;
        for (; e < nt && top[e].id == top[g].id; e++) {
            l = top[e].share < l ? top[e].share : l;
            u = top[e].share > u ? top[e].share : u;
        }
        int m = (int)(e - g);
        if (m > best_n || (m == best_n && best && top[g].at < best_at)) {
            best = &a->configs[top[g].at].passes[0];
            best_n = m;
            best_at = top[g].at;
            lo = l;
            hi = u;
        }
        g = e;
    }
    free(top);
    if (!best)
        return;
    char range[64], *line = NULL;
    hl_share_range(range, sizeof range, lo, hi);
    hl_add(h, &line, "%s, %s of %s compiles", best->name ? best->name : "?", range, kind_title(kind));
    if (best_n != n)
        hl_add(h, &line, " (top in %d of %d)", best_n, n);
    if (line)
        h->heaviest[h->n_heaviest++] = line;
}

void pm_rt_headline_free(pm_rt_headline *h)
{
    for (int i = 0; i < h->n_dominant; i++)
        free(h->dominant[i]);
    for (int i = 0; i < h->n_heaviest; i++)
        free(h->heaviest[i]);
    for (int i = 0; i < h->n_ab; i++)
        free(h->ab[i]);
    pm_free_all(h->dominant, h->heaviest, h->ab, h->fix, h->ab_none, h->cache, h->slowest, h->phases);
    memset(h, 0, sizeof *h);
}

/* The stage a config's compile spends most in, process start-up left out: a compile whose largest share is
 * process-overhead is too small to tell its regime, and this is the stage it would show. -1: none. */
int pm_rt_second_stage(const pm_analysis *a, const pm_an_config *c, int over)
{
    int best = -1;
    for (size_t s = 0; s < a->n_stages; s++)
        if ((int)s != over && (best < 0 || c->share[s].mean > c->share[best].mean))
            best = (int)s;
    return best;
}

/* "LLM, 12 configs: lowering-to-llvm leads 12 (19–34%)"; a config whose largest share is process start-up is
 * "too small to tell", its second stage named. */
static void hl_dominant(pm_rt_headline *h, const pm_analysis *a, const char *kind, int *count, double *lo,
                        double *hi, int *small)
{
    int over = pm_an_stage_index(a, PM_STAGE_OVERHEAD), n = 0, n_small = 0;
    memset(count, 0, a->n_stages * sizeof *count);
    memset(small, 0, a->n_stages * sizeof *small);
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!same_kind(c->kind, kind) || c->dominant_stage < 0)
            continue;
        n++;
        int s = c->dominant_stage;
        if (s == over) {   /* start-up is no compiler stage: said apart, with what comes next */
            int next = pm_rt_second_stage(a, c, over);
            n_small++;
            if (next >= 0)
                small[next]++;
            continue;
        }
        double v = c->share[s].mean;
        if (!count[s]++)
            lo[s] = hi[s] = v;
        lo[s] = v < lo[s] ? v : lo[s];
        hi[s] = v > hi[s] ? v : hi[s];
    }
    if (!n)
        return;
    char **out = &h->dominant[h->n_dominant++];
    hl_add(h, out, "%s, %d config%s: ", kind_title(kind), n, n == 1 ? "" : "s");
    for (int round = 0; round < (int)a->n_stages; round++) {   /* stages by how many configs they lead */
        int best = -1;
        for (size_t s = 0; s < a->n_stages; s++)
            if (count[s] > 0 && (best < 0 || count[s] > count[best]))
                best = (int)s;
        if (best < 0)
            break;
        char range[64];
        hl_share_range(range, sizeof range, lo[best], hi[best]);
        /* "dominates" only when it takes at least PM_AN_DOMINATES_SHARE of every such config's compile */
        hl_add(h, out, "%s%s %s %d (%s)", round ? "; " : "", a->stages[best],
               lo[best] >= PM_AN_DOMINATES_SHARE ? "dominates" : "leads", count[best], range);
        count[best] = 0;
    }
    if (n_small) {
        int next = -1;
        for (size_t s = 0; s < a->n_stages; s++)
            if (small[s] > 0 && (next < 0 || small[s] > small[next]))
                next = (int)s;
        hl_add(h, out, "%s%d too small to tell (start-up%s%s)", n_small < n ? "; " : "", n_small,
               next >= 0 ? ", then " : "", next >= 0 ? a->stages[next] : "");
    }
}

/* The phase split over the configs with cold runs: each phase's range of shares, then how many configs each
 * phase leads. */
/* "52%" or "48-56%": the range of one phase's share over the configs with cold runs (cpu: of their CPU split). */
static void phase_range(const pm_analysis *a, size_t p, int cpu, char *buf, size_t cap)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (c->dominant_phase < 0)
            continue;
        double v = (cpu ? c->phase_cpu : c->phase_share)[p].mean;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (fabs(hi - lo) < 0.0005)
        snprintf(buf, cap, "%.0f%%", hi * 100);
    else
        snprintf(buf, cap, "%.0f\u2013%.0f%%", lo * 100, hi * 100);
}

/* The phase split over the configs with cold runs: each phase's range of shares (of user CPU time when every
 * such config's tools are serial and report user times, the wall's beside; else of the wall: a parallel tool, or
 * no per-pass user time in some run), then how many configs each phase leads. Short: a headline line. */
static void hl_phases(pm_rt_headline *h, const pm_analysis *a)
{
    int n = 0, cpu = 1;
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].dominant_phase >= 0) {
            n++;
            cpu &= a->configs[i].phase_on_cpu;
        }
    if (!n || !a->n_phases)
        return;
    hl_add(h, &h->phases, "%d config%s, share of %s:", n, n == 1 ? "" : "s",
           cpu ? "user CPU time (wall in brackets)" : "cold wall");
    for (size_t p = 0; p < a->n_phases; p++) {
        int lead = 0;
        for (size_t i = 0; i < a->n_configs; i++)
            lead += a->configs[i].dominant_phase == (int)p;
        char range[64], wall[64] = "", leads[48] = "";
        phase_range(a, p, cpu, range, sizeof range);
        if (cpu) {
            char w[48];
            phase_range(a, p, 0, w, sizeof w);
            snprintf(wall, sizeof wall, " (%s)", w);
        }
        if (lead)
            snprintf(leads, sizeof leads, " (leads %d)", lead);
        hl_add(h, &h->phases, "%s %s %s%s%s", p ? "," : "", a->phases[p], range, wall, leads);
    }
}

int pm_rt_headline_build(const pm_analysis *a, pm_rt_headline *h)
{
    memset(h, 0, sizeof *h);
    /* one summary line per comparison first: the measured answer (pm_compare_oneline, as compare opens with) */
    h->ab = calloc(a->ab.n + 1, sizeof *h->ab);
    for (size_t i = 0; h->ab && i < a->ab.n; i++) {
        const pm_an_ab *x = &a->ab.rows[i];
        char *line = NULL;
        if (x->error) {
            hl_add(h, &line, "%s vs %s: not compared: %s", x->variant, x->against, x->error);
        } else if (!(line = pm_compare_oneline(&x->cmp))) {
            h->oom = 1;
        }
        if (line)
            h->ab[h->n_ab++] = line;
    }
    if (!h->ab)
        h->oom = 1;
    else if (!h->n_ab && a->sweep && strchr(a->sweep, ','))
        hl_add(h, &h->ab_none, "none over several sweeps; passmap compare DB --a-sweep A --b-sweep B compares two");
    else if (!h->n_ab && a->fixes.proven_json)   /* say why it is empty, and where the measured effects are */
        hl_add(h, &h->ab_none, "none in this sweep (one variant per config); passmap fix measured the fixes above");
    else if (!h->n_ab)
        hl_add(h, &h->ab_none, "none in this sweep (one variant per config); passmap fix measures the top fix");
    hl_phases(h, a);   /* the phase split: front end, optimizer, code generation */
    /* dominant stage and heaviest pass per kind: one line each, as many kinds as the study has */
    const char **kinds = calloc(a->n_configs + 1, sizeof *kinds);
    h->dominant = calloc(a->n_configs + 1, sizeof *h->dominant);
    h->heaviest = calloc(a->n_configs + 1, sizeof *h->heaviest);
    size_t nk = 0;
    for (size_t i = 0; kinds && i < a->n_configs; i++) {
        const char *k = a->configs[i].kind;
        size_t j;
        for (j = 0; j < nk && !same_kind(kinds[j], k); j++)
            ;
        if (j == nk)
            kinds[nk++] = k;
    }
    size_t ns = a->n_stages ? a->n_stages : 1;
    int *count = calloc(ns, sizeof *count), *small = calloc(ns, sizeof *small);
    double *lo = calloc(ns, sizeof *lo), *hi = calloc(ns, sizeof *hi);
    h->oom |= !kinds || !h->dominant || !h->heaviest || !count || !small || !lo || !hi;
    for (size_t j = 0; !h->oom && j < nk; j++) {
        int before = h->n_dominant;
        hl_dominant(h, a, kinds[j], count, lo, hi, small);
        if (h->n_dominant > before) {
            int n = 0;
            for (size_t i = 0; i < a->n_configs; i++)
                n += same_kind(a->configs[i].kind, kinds[j]) && a->configs[i].dominant_stage >= 0;
            hl_heaviest_pass(h, a, kinds[j], n);
        }
    }
    free(kinds);
    free(count);
    free(small);
    free(lo);
    free(hi);
    /* the fix: passmap fix's plan and proven rows (pm_analysis_fix_words), never a rule of the report's own */
    hl_add(h, &h->fix, "%s", a->fixes.headline ? a->fixes.headline : "none proposed (the report was made without "
                                                                  "passmap fix's plan)");
    h->fix_why = a->fixes.top_why;
    /* recompile ÷ cache hit */
    double lsum = 0, rmin = INFINITY, rmax = 0, lwarm = 0, lcold = 0;
    int n = 0;
    for (size_t i = 0; i < a->n_configs; i++) {
        double r = a->configs[i].cache_ratio;
        if (isnan(r) || isinf(r) || r <= 0)
            continue;
        lsum += log(r);
        lwarm += log(a->configs[i].warm_s);   /* > 0: the ratio is finite and positive */
        lcold += log(a->configs[i].wall.mean);
        rmin = r < rmin ? r : rmin;
        rmax = r > rmax ? r : rmax;
        n++;
    }
    if (n) {   /* the ratio with the times it divides: a hit of 0.02 s reads differently from one of 2 s */
        char warm[32], cold[32], gm[32], rlo[32], rhi[32];
        pm_fmt_time(warm, sizeof warm, exp(lwarm / n), 0);
        pm_fmt_time(cold, sizeof cold, exp(lcold / n), 0);
        pm_fmt_ratio(gm, sizeof gm, exp(lsum / n));
        pm_fmt_ratio_num(rlo, sizeof rlo, rmin);
        pm_fmt_ratio(rhi, sizeof rhi, rmax);
        if (n > 1 && strcmp(rlo, rhi))
            hl_add(h, &h->cache, "a hit is %s faster than a cold compile (%s\u2013%s over %d configs): %s against %s",
                   gm, rlo, rhi, n, warm, cold);
        else
            hl_add(h, &h->cache, "a hit is %s faster than a cold compile (%d config%s): %s against %s", gm, n,
                   n == 1 ? "" : "s", warm, cold);
    }
    else
        hl_add(h, &h->cache, "no warm runs in this sweep (warm = true measures recompile \u00f7 hit)");
    const pm_an_config *slow = NULL;
    for (size_t i = 0; i < a->n_configs; i++)
        if (a->configs[i].n_cold && (!slow || a->configs[i].wall.mean > slow->wall.mean))
            slow = &a->configs[i];
    if (slow) {
        char w[64];
        pm_fmt_interval(w, sizeof w, slow->wall.mean, slow->wall.lo, slow->wall.hi, slow->wall.n);
        hl_add(h, &h->slowest, "%s, %s cold", slow->key, w);
        if (slow->dominant_stage >= 0)
            hl_add(h, &h->slowest, ", %s %.0f%%", a->stages[slow->dominant_stage],
                   slow->share[slow->dominant_stage].mean * 100);
    }
    return h->oom ? PM_ERR_NOMEM : PM_OK;
}

int pm_rt_headline_lines(const pm_rt_headline *h, pm_rt_hl_line *lines, size_t cap)
{
    size_t n = 0;
#define LINE(l, t, s)                                                                                             \
    do {                                                                                                          \
        if (n < cap)                                                                                              \
            lines[n] = (pm_rt_hl_line){(l), (t), (s), 0};                                                         \
        n++;                                                                                                      \
    } while (0)
    for (int i = 0; i < h->n_ab; i++) {
        if (n < cap)
            lines[n].bare = 1, lines[n].label = "measured A/B", lines[n].text = h->ab[i], lines[n].sub = 0;
        n++;
    }
    if (h->ab_none)
        LINE("measured A/B", h->ab_none, 0);
    if (h->phases)
        LINE("phases", h->phases, 0);
    for (int i = 0; i < h->n_dominant; i++)
        LINE("dominant stage", h->dominant[i], 0);
    for (int i = 0; i < h->n_heaviest; i++)
        LINE("heaviest pass", h->heaviest[i], 0);
    if (h->fix)
        LINE("top fix", h->fix, 0);
    if (h->fix_why)
        LINE("why", h->fix_why, 1);
    if (h->cache)
        LINE("cache", h->cache, 0);
    if (h->slowest)
        LINE("slowest compile", h->slowest, 0);
#undef LINE
    return (int)n;
}
