/* Chrome trace JSON ({"traceEvents":[...]} or a bare array): clang -ftime-trace, llc --time-trace, any tool.
 *
 * "X" events (ts, dur in µs) and matched "B"/"E" pairs become spans named by the event name: the args.detail
 * (clang: the function a pass ran on, a source location) goes to the row's section, kept for `passmap trace`, so
 * rows aggregate by pass (one run had 32,306 distinct "InstCombinePass: foo" names). Directories are stripped
 * from a detail (the file name stays). Exception: RunPass / RunLoopPass, whose detail is the legacy pass's name
 * ("RunPass: X86 DAG->DAG Instruction Selection") and stays in the name. Spans nest by time containment on the same pid/tid: depth and parent follow. A span with children is a
 * GROUP (its time is inclusive) and gets a synthetic counted child "NAME (self)" holding its time outside its
 * children (clang's Frontend is mostly self time: parsing); leaves are counted. So on one thread the counted rows
 * add up to the root span. "Total X" events (clang/LLVM per-name sums, each on its own tid) are SUMMARY.
 * total_wall_s is the extent of all other spans (the root span, e.g. ExecuteCompiler). */
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct span {
    char *name;
    char *detail;   /* args.detail without directories, or NULL */
    double ts, dur; /* µs */
    long long pid, tid;
    size_t order;
    int summary;
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
} spans;

/* pid/tid: an integer, a whole real or a decimal string within ±2^53 (what a double holds exactly); anything
 * else (1e84, "x", 0.5) is not an id. Absent is 0. Returns 0 when out of range. */
static int id_of(json_t *j, long long *out)
{
    const double lim = 9007199254740992.0;
    *out = 0;
    if (!j)
        return 1;
    if (json_is_integer(j)) {
        *out = (long long)json_integer_value(j);
        return 1;
    }
    if (json_is_real(j)) {
        double v = json_real_value(j);
        if (!(v >= -lim && v <= lim) || v != (double)(long long)v)
            return 0;
        *out = (long long)v;
        return 1;
    }
    if (json_is_string(j)) { /* some producers write tids as strings */
        const char *s = json_string_value(j);
        char *e;
        errno = 0;
        long long v = strtoll(s, &e, 10);
        if (errno || e == s || *e)
            return 0;
        *out = v;
        return 1;
    }
    return 0;
}

/* ts and dur in µs: finite and within the parser's time range. */
static int us_ok(double us)
{
    return isfinite(us) && fabs(us) <= PM_TIME_MAX_S * 1e6;
}

static int push(spans *s, json_t *ev, double ts, double dur, pm_err *err)
{
    long long pid, tid;
    if (!id_of(json_object_get(ev, "pid"), &pid) || !id_of(json_object_get(ev, "tid"), &tid))
        return pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
    if (!us_ok(ts) || !us_ok(dur))
        return pm_err_set(err, PM_ERR_PARSE, "event ts/dur out of range (|µs| <= %.0e)", PM_TIME_MAX_S * 1e6);
    const char *name = json_string_value(json_object_get(ev, "name"));
    const char *detail = json_string_value(json_object_get(json_object_get(ev, "args"), "detail"));
    if (!name)
        name = "";
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        span *p = realloc(s->v, nc * sizeof *p);
        if (!p)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        s->v = p;
        s->cap = nc;
    }
    span *d = &s->v[s->n];
    char *full = NULL;
    d->detail = NULL;
    int detail_is_pass = !strcmp(name, "RunPass") || !strcmp(name, "RunLoopPass");
    if (detail && *detail && !detail_is_pass) {
        const char *slash = strrchr(detail, '/');
        if (!(d->detail = strdup(slash && slash[1] ? slash + 1 : detail)))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        if (!(full = strdup(name))) {
            free(d->detail);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
    } else if (detail && *detail) {
        if (asprintf(&full, "%s: %s", name, detail) < 0)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    } else if (!(full = strdup(name))) {
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    d->name = full;
    d->ts = ts;
    d->dur = dur < 0 ? 0 : dur;
    d->pid = pid;
    d->tid = tid;
    d->order = s->n;
    d->summary = strncmp(name, "Total ", 6) == 0;
    s->n++;
    return PM_OK;
}

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
 * every run of NAME. Each leaf pass's missing time (Total less its recorded spans) is inside the "(self)" rows of
 * the pass managers that ran it: move it from there into a counted row named after the pass, so a pass's rows
 * add up to clang's exact total and the pass managers keep only their own time. Never more than those self rows
 * hold: the counted rows still add up to the root span. */
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

int pm_parse_chrome_trace(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    json_error_t je;
    int rc = PM_OK;
    spans s = {0};
    json_t **open = NULL; /* "B" events waiting for their "E" */
    int *par = NULL, *map = NULL, *nkid = NULL, *stack = NULL; /* parent span; span -> pass index; child count */
    int *self_ix = NULL, n_self = 0; /* the "(self)" rows of new-PM containers */
    double *kids = NULL;         /* sum of direct children's durations */
    size_t n_open = 0;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root)
        return pm_err_set(err, PM_ERR_PARSE, "line %d: %s", je.line, je.text);
    json_t *events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        rc = pm_err_set(err, PM_ERR_PARSE, "no traceEvents array");
        goto cleanup;
    }
    open = calloc(json_array_size(events) + 1, sizeof *open);
    if (!open) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        json_t *jts = json_object_get(ev, "ts");
        if (!ph || !json_is_number(jts))
            continue;
        double ts = json_number_value(jts);
        if (strcmp(ph, "X") == 0) {
            json_t *jd = json_object_get(ev, "dur");
            if (json_is_number(jd) && (rc = push(&s, ev, ts, json_number_value(jd), err)))
                goto cleanup;
        } else if (strcmp(ph, "B") == 0) {
            open[n_open++] = ev;
        } else if (strcmp(ph, "E") == 0) {
            long long pid, tid, bpid, btid;
            if (!id_of(json_object_get(ev, "pid"), &pid) || !id_of(json_object_get(ev, "tid"), &tid)) {
                rc = pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
                goto cleanup;
            }
            for (size_t k = n_open; k-- > 0;) {
                json_t *b = open[k];
                if (!id_of(json_object_get(b, "pid"), &bpid) || !id_of(json_object_get(b, "tid"), &btid)) {
                    rc = pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
                    goto cleanup;
                }
                if (bpid != pid || btid != tid)
                    continue;
                double bts = json_number_value(json_object_get(b, "ts"));
                if ((rc = push(&s, b, bts, ts - bts, err)))
                    goto cleanup;
                memmove(open + k, open + k + 1, (n_open - k - 1) * sizeof *open);
                n_open--;
                break;
            }
        }
    }
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
    if (!par || !kids || !map || !nkid || !stack || !self_ix)
        goto nomem;
    size_t depth = 0;
    double lo = 0, hi = 0;
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
        }
        stack[depth++] = (int)k;
        if (!have_extent || sp->ts < lo)
            lo = sp->ts;
        if (!have_extent || sp->ts + sp->dur > hi)
            hi = sp->ts + sp->dur;
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
        if (sp->summary)
            p.flags = PM_PASS_SUMMARY;
        else if (nkid[k] > 0)
            p.flags = PM_PASS_GROUP;
        map[k] = (int)out->n_passes;
        if ((rc = pm_report_add_pass(out, &p)))
            goto nomem;
        double self = sp->dur - kids[k];
        if ((p.flags & PM_PASS_GROUP) && self > 0) {
            pm_pass q = p;
            char *nm = NULL;
            if (asprintf(&nm, "%s (self)", sp->name) < 0)
                goto nomem;
            q.name = nm;
            q.flags = 0;
            q.wall_s = self / 1e6;
            q.parent = map[k];
            q.depth = p.depth + 1;
            q.has_start = 0;   /* a group's own time is not one contiguous span */
            rc = pm_report_add_pass(out, &q);
            free(nm);
            if (rc)
                goto nomem;
            if (newpm_container(sp->name))
                self_ix[n_self++] = (int)out->n_passes - 1;
        }
    }
    if ((rc = below_granularity(&s, out, self_ix, n_self, map, err)))
        goto cleanup;
    if (have_extent)
        out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + (hi - lo) / 1e6;
    goto cleanup;
nomem:
    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
cleanup:
    for (size_t k = 0; k < s.n; k++) {
        free(s.v[k].name);
        free(s.v[k].detail);
    }
    free(s.v);
    free(self_ix);
    free(open);
    free(par);
    free(map);
    free(nkid);
    free(kids);
    free(stack);
    json_decref(root);
    return rc;
}

/* ---- the format row ---- */

static int sniff_chrome(const char *b, size_t n)
{
    return pm_text_is_json(b, n) && (pm_text_contains(b, n, "\"traceEvents\"") || pm_text_contains(b, n, "\"ph\""));
}

/* "dur" in whole µs; several compilers write traces: no default tool */
const pm_format_row pm_format_chrome_trace = {"chrome-trace", pm_parse_chrome_trace, sniff_chrome, 5, NULL, 1e-6, 1};
