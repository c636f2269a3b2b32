/* The Chrome trace parser's spans into the report: nested by time containment, groups with their "(self)" rows,
 * the time below clang's -ftime-trace-granularity moved to its pass, the compile's wall from the top-level spans
 * (parse_chrome.c's header says what each becomes). */
#include "parse_chrome_internal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->summary != y->summary)
        return x->summary - y->summary;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur) /* the enclosing span first */
        return x->dur > y->dur ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

/* A new-PM pass that runs other passes: its "(self)" row holds the time of passes clang did not record. */
static int newpm_container(const char *name)
{
    const char *lt = strchr(name, '<');
    size_t n = lt ? (size_t)(lt - name) : strlen(name);
    static const char *const suffixes[] = {"PassManager", "PassAdaptor", "ModuleInlinerWrapperPass",
                                           "DevirtSCCRepeatedPass", "Optimizer"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i]);
        if (n >= k && !memcmp(name + n - k, suffixes[i], k))
            return 1;
    }
    return 0;
}

/* A new-PM pass clang's "Total NAME" event sums exactly: a class name ending in Pass, not a container. */
static int newpm_leaf_pass(const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || strcmp(name + n - 4, "Pass") || newpm_container(name) || !strncmp(name, "RequireAnalysisPass", 19) ||
        !strcmp(name, "RunPass") || !strcmp(name, "RunLoopPass")) /* their spans are named "RunPass: <pass>" */
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= '0' && name[i] <= '9')))
            return 0;
    return 1;
}

/* clang drops spans shorter than -ftime-trace-granularity (500 µs by default) but its "Total NAME" events sum
 * every run of NAME. Each leaf pass's missing time (Total less its recorded spans) is inside the pass managers
 * that ran it: in their "(self)" rows, or in their whole span when none of their passes was recorded (a
 * PassManager<Function> run on a small function). Move it from there into a counted row named after the pass,
 * so a pass's rows add up to clang's exact total and the pass managers keep only their own time. The pool is
 * every pass manager's own time, so only a trace whose Totals exceed all of it (none measured) is scaled down
 * to what the pool holds: the counted rows still add up to the root span. */
static int below_granularity(const spans *s, pm_report *out, const int *self_ix, int n_self, const int *map,
                             pm_err *err)
{
    double have_self = 0, missing_all = 0;
    for (int i = 0; i < n_self; i++)
        have_self += out->passes[self_ix[i]].wall_s;
    size_t n_tot = 0;
    for (size_t k = 0; k < s->n; k++)
        n_tot += s->v[k].summary;
    if (!n_tot || have_self <= 0)
        return PM_OK;
    double *missing = calloc(s->n, sizeof *missing);
    if (!missing)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int parent = -1;
    for (size_t k = 0; k < s->n; k++)
        if (!s->v[k].summary && !strcmp(s->v[k].name, "Optimizer")) {
            parent = map[k];
            break;
        }
    for (size_t k = 0; k < s->n; k++) {
        if (!s->v[k].summary || !newpm_leaf_pass(s->v[k].name + 6))
            continue;
        double recorded = 0, n_rec = 0;
        for (size_t j = 0; j < s->n; j++)
            if (!s->v[j].summary && !strcmp(s->v[j].name, s->v[k].name + 6)) {
                recorded += s->v[j].dur;
                n_rec++;
            }
        /* each recorded span is rounded to a µs: a difference within that is no missing run */
        if (s->v[k].dur > recorded + n_rec + 1) {
            missing[k] = s->v[k].dur - recorded;
            missing_all += missing[k];
        }
    }
    double scale = missing_all / 1e6 > have_self ? have_self / (missing_all / 1e6) : 1;
    int rc = PM_OK;
    for (size_t k = 0; k < s->n && !rc; k++) {
        if (missing[k] <= 0)
            continue;
        pm_pass q = {0};
        q.name = s->v[k].name + 6;
        q.section = pm_unconst("below -ftime-trace-granularity (lower it with -ftime-trace-granularity=0): clang's "
                            "Total event less the recorded spans");
        q.wall_s = missing[k] / 1e6 * scale;
        q.user_s = -1;
        q.parent = parent;
        q.depth = parent >= 0 ? out->passes[parent].depth + 1 : 0;
        q.report_index = out->n_reports - 1;
        rc = pm_report_add_pass(out, &q);
    }
    if (rc)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    else if (missing_all > 0)
        for (int i = 0; i < n_self; i++) { /* the moved time leaves the pass managers' self rows in proportion */
            double *w = &out->passes[self_ix[i]].wall_s;
            *w *= 1 - (missing_all / 1e6 * scale) / have_self;
            if (*w < 0) /* all of it moved: the rounding of 1 - 1 must not leave a negative time (fuzz) */
                *w = 0;
        }
    free(missing);
    return rc;
}

void pm_parse_spans_free(spans *s)
{
    for (size_t k = 0; k < s->n; k++)
        pm_free_all(s->v[k].name, s->v[k].detail);
    free(s->v);
    memset(s, 0, sizeof *s);
}

typedef struct extent { double lo, hi; } extent;

static int cmp_extent(const void *a, const void *b)
{
    const extent *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The compile's wall from its top-level spans (tops, sorted here): the overlapping ones merged into blocks, then
 * from the block of the longest span outward, each neighbouring block joins while its gap is at most the extent
 * joined so far. */
static double root_extent(extent *tops, size_t n, size_t longest_ix)
{
    double longest_lo = tops[longest_ix].lo;
    qsort(tops, n, sizeof *tops, cmp_extent);
    size_t nb = 0, at = 0;
    for (size_t k = 0; k < n; k++) {   /* merged in place: tops[0..nb) are disjoint blocks */
        if (nb && tops[k].lo <= tops[nb - 1].hi) {
            if (tops[k].hi > tops[nb - 1].hi)
                tops[nb - 1].hi = tops[k].hi;
        } else {
            tops[nb++] = tops[k];
        }
        if (tops[k].lo == longest_lo)
            at = nb - 1;
    }
    size_t l = at, r = at;
    double lo = tops[at].lo, hi = tops[at].hi;
    for (int grew = 1; grew;) {
        grew = 0;
        if (r + 1 < nb && tops[r + 1].lo - hi <= hi - lo) {
            hi = tops[++r].hi;
            grew = 1;
        }
        if (l > 0 && lo - tops[l - 1].hi <= hi - lo) {
            lo = tops[--l].lo;
            grew = 1;
        }
    }
    return hi - lo;
}

/* A group's own time (its span less its children's, µs) as its counted child row "NAME (self)". */
static int add_self_row(pm_report *out, const pm_pass *group, const char *name, double self_us, unsigned flags,
                        int parent)
{
    pm_pass q = *group;
    char *nm = NULL;
    if (asprintf(&nm, "%s (self)", name) < 0)
        return PM_ERR_NOMEM;
    q.name = nm;
    q.flags = flags;
    q.wall_s = self_us / 1e6;
    q.parent = parent;
    q.depth = group->depth + 1;
    q.has_start = 0;   /* a group's own time is not one contiguous span */
    int rc = pm_report_add_pass(out, &q);
    free(nm);
    return rc;
}

int pm_parse_chrome_emit(spans *in, pm_report *out, pm_err *err)
{
    spans s = *in;
    int rc = PM_OK;
    if (s.n_skipped) {
        pm_report_skip(out, "%s at byte %lld", s.skip_why, s.skip_at);
        out->n_skipped += s.n_skipped - 1;
    }
    int *par = NULL, *map = NULL, *nkid = NULL, *stack = NULL; /* parent span; span -> pass index; child count */
    int *self_ix = NULL, n_self = 0; /* the "(self)" rows of new-PM containers */
    double *kids = NULL;         /* sum of direct children's durations */
    extent *tops = NULL;         /* the top-level spans, for the total */
    size_t n_tops = 0, longest = 0;
    size_t n_taken = 0;          /* spans whose strings the report's rows own */
    if (s.n == 0)
        goto cleanup;
    qsort(s.v, s.n, sizeof *s.v, cmp_span);
    /* pass 1: parent span by containment on the same thread, and each span's children total */
    par = malloc(s.n * sizeof *par);
    kids = calloc(s.n, sizeof *kids);
    map = malloc(s.n * sizeof *map);
    nkid = calloc(s.n, sizeof *nkid);
    stack = malloc(s.n * sizeof *stack); /* nesting can be as deep as there are spans */
    self_ix = malloc(s.n * sizeof *self_ix);
    tops = malloc(s.n * sizeof *tops);
    if (!par || !kids || !map || !nkid || !stack || !self_ix || !tops)
        goto nomem;
    size_t depth = 0;
    double lo = 0;
    int have_extent = 0;
    for (size_t k = 0; k < s.n; k++) {
        span *sp = &s.v[k];
        par[k] = -1;
        if (sp->summary)
            continue;
        /* pop spans that end before this one ends, or that belong to another thread */
        while (depth > 0) {
            const span *top = &s.v[stack[depth - 1]];
            if (top->pid == sp->pid && top->tid == sp->tid && sp->ts + sp->dur <= top->ts + top->dur)
                break;
            depth--;
        }
        if (depth > 0) {
            par[k] = stack[depth - 1];
            kids[par[k]] += sp->dur;
            nkid[par[k]]++;
        } else {
            if (n_tops && sp->dur > tops[longest].hi - tops[longest].lo)
                longest = n_tops;
            tops[n_tops++] = (extent){sp->ts, sp->ts + sp->dur};
        }
        stack[depth++] = (int)k;
        if (!have_extent || sp->ts < lo)
            lo = sp->ts;
        have_extent = 1;
    }
    /* pass 2: emit; a span with children is a GROUP and gets a counted "(self)" child for its own time */
    int report_index = out->n_reports++;
    if (out->n_passes == 0)
        out->pass_order = PM_ORDER_TIMED;
    for (size_t k = 0; k < s.n; k++) {
        span *sp = &s.v[k];
        pm_pass p = {0};
        p.name = sp->name;
        p.section = sp->detail;
        p.wall_s = sp->dur / 1e6;
        p.user_s = -1;
        p.report_index = report_index;
        p.parent = par[k] >= 0 ? map[par[k]] : -1;
        p.depth = p.parent >= 0 ? out->passes[p.parent].depth + 1 : 0;
        p.start_s = (sp->ts - lo) / 1e6;
        p.has_start = !sp->summary;
        /* a pass manager's time of its own is a pipeline row, not a pass; so is a pass manager's whole span when
         * none of its passes was recorded (all under the granularity): their missing time is moved out below */
        int container = !sp->summary && newpm_container(sp->name);
        unsigned pipeline = container && strcmp(sp->name, "Optimizer") ? PM_PASS_PIPELINE : 0;
        if (sp->summary)
            p.flags = PM_PASS_SUMMARY;
        else if (nkid[k] > 0)
            p.flags = PM_PASS_GROUP;
        else
            p.flags = pipeline;
        map[k] = (int)out->n_passes;
        if ((rc = pm_report_take_pass(out, &p)))   /* the row owns the span's strings from here on */
            goto nomem;
        n_taken = k + 1;
        if (container && nkid[k] == 0)
            self_ix[n_self++] = (int)out->n_passes - 1;
        double self = sp->dur - kids[k];
        if ((p.flags & PM_PASS_GROUP) && self > 0) {
            if (add_self_row(out, &p, sp->name, self, pipeline, map[k]))
                goto nomem;
            if (container)
                self_ix[n_self++] = (int)out->n_passes - 1;
        }
    }
    if ((rc = below_granularity(&s, out, self_ix, n_self, map, err)))
        goto cleanup;
    if (n_tops)
        out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + root_extent(tops, n_tops, longest) / 1e6;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    for (size_t k = n_taken; k < s.n; k++) {
        free(s.v[k].name);
        free(s.v[k].detail);
    }
    free(s.v);
    free(self_ix);
    free(tops);
    free(par);
    free(map);
    free(nkid);
    free(kids);
    free(stack);
    memset(in, 0, sizeof *in);
    return rc;
}
