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
 * total_wall_s is the root span's duration (e.g. ExecuteCompiler): the extent of the top-level spans around the
 * longest one, a span joining while its gap to them is at most their extent (llc has no single root: its
 * top-level spans follow each other closely). A stray span far from the compile (a bogus clock) stays a row but
 * no longer stretches a 1 s compile to days. A negative ts is refused.
 *
 * Read streaming: a small hand-written scanner walks the top level ({"traceEvents": [...]} or a bare array) and
 * finds each element's extent (strings with their escapes and UTF-8, nesting, numbers, literals: the JSON
 * grammar is checked as Jansson would, other members are skipped without being loaded); Jansson then loads one
 * event object at a time from those bytes. A file is read in 1 MiB chunks through a window that holds the
 * current event only. Memory bound: O(spans), not O(bytes): per X event or matched B/E pair one span (64 bytes
 * plus its name and detail strings, which its report row then takes over rather than copies), the report row
 * itself (64 bytes: the output) and about 30 bytes of scratch while the rows are emitted, so about 200 bytes
 * per span in all for clang-like names; plus an unmatched "B" until its "E" and the window (1 MiB, or the
 * largest single event). Metadata events, args other than detail, whitespace and unmatched "E"s cost nothing.
 * docs/reference.md gives the measured ratio to the file size (bench/trace_mem.sh: about 2x for clang's
 * ~100-byte events, where the whole-file Jansson tree took about 20x). */
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    /* events that are spans' parts but cannot be read (pm_report.n_skipped): counted, the first named */
    size_t n_skipped;
    long long at, skip_at;       /* the event being taken; the first skipped one */
    const char *skip_why;
} spans;

static void skip_event(spans *s, const char *why)
{
    if (s->n_skipped++ == 0) {
        s->skip_at = s->at;
        s->skip_why = why;
    }
}

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

/* What one event contributes: its name, args.detail (borrowed), ids. */
typedef struct evinfo {
    const char *name, *detail;
    long long pid, tid;
    int ids_ok;   /* both pid and tid are ids (id_of) */
} evinfo;

static void evinfo_of(json_t *ev, evinfo *e)
{
    e->pid = e->tid = 0;
    e->ids_ok = id_of(json_object_get(ev, "pid"), &e->pid) && id_of(json_object_get(ev, "tid"), &e->tid);
    e->name = json_string_value(json_object_get(ev, "name"));
    e->detail = json_string_value(json_object_get(json_object_get(ev, "args"), "detail"));
}

static int push(spans *s, const evinfo *e, double ts, double dur, pm_err *err)
{
    long long pid = e->pid, tid = e->tid;
    if (!e->ids_ok)
        return pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
    if (!us_ok(ts) || !us_ok(dur))
        return pm_err_set(err, PM_ERR_PARSE, "event ts/dur out of range (|µs| <= %.0e)", PM_TIME_MAX_S * 1e6);
    const char *name = e->name, *detail = e->detail;
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


/* ---- the event reader --------------------------------------------------------------------------------------- */

#define RD_CHUNK ((size_t)1 << 20)
#define RD_MAX_DEPTH 2048   /* Jansson's own nesting limit (JSON_PARSER_MAX_DEPTH) */

/* A window over the input: the whole buffer (memory), or a file read in chunks. In a file the window keeps the
 * bytes from the pinned position (the event being scanned), or from the read position, and drops the rest. */
typedef struct rd {
    int fd;                 /* -1: memory */
    char *own;              /* the window's storage (file) */
    const char *p;          /* the window's bytes */
    size_t cap, hi, pos;    /* storage size, bytes held, next byte */
    long long base;         /* input offset of p[0] */
    size_t pin;             /* window index kept while pinned */
    int pinned, eof;
    pm_err *err;
} rd;

/* One B event waiting for its E (its strings copied: the event itself is freed). */
typedef struct open_b {
    char *name, *detail;
    long long pid, tid;
    int ids_ok;
    double ts;
} open_b;

typedef struct opens {
    open_b *v;
    size_t n, cap;
} opens;

static long long rd_off(const rd *r)
{
    return r->base + (long long)r->pos;
}

static int rd_fail(rd *r, long long at, const char *what)
{
    return pm_err_set(r->err, PM_ERR_PARSE, "byte %lld: %s", at, what);
}

/* More bytes into a file window: 1 appended, 0 at the end, -1 on an error (set). */
static int rd_fill(rd *r)
{
    if (r->fd < 0 || r->eof)
        return 0;
    size_t keep = r->pinned ? r->pin : r->pos;
    if (keep > 0) {
        memmove(r->own, r->own + keep, r->hi - keep);
        r->hi -= keep;
        r->pos -= keep;
        if (r->pinned)
            r->pin -= keep;
        r->base += (long long)keep;
    }
    if (r->cap - r->hi < RD_CHUNK / 2) { /* a pinned event longer than the window: grow, never truncate */
        size_t nc = r->cap ? r->cap * 2 : RD_CHUNK;
        char *nb = realloc(r->own, nc);
        if (!nb) {
            pm_err_set(r->err, PM_ERR_NOMEM, "out of memory (an event of %zu bytes)", r->hi);
            return -1;
        }
        r->own = nb;
        r->cap = nc;
    }
    r->p = r->own;
    for (;;) {
        ssize_t n = read(r->fd, r->own + r->hi, r->cap - r->hi);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            pm_err_errno(r->err, PM_ERR_IO, "read error at byte %lld", r->base + (long long)r->hi);
            return -1;
        }
        if (n == 0) {
            r->eof = 1;
            return 0;
        }
        r->hi += (size_t)n;
        return 1;
    }
}

/* The next byte (not consumed), -1 at the end, -2 on a read error. */
static int rd_peek(rd *r)
{
    while (r->pos >= r->hi) {
        int f = rd_fill(r);
        if (f < 0)
            return -2;
        if (f == 0)
            return -1;
    }
    return (unsigned char)r->p[r->pos];
}

static int rd_ws(rd *r)
{
    int c;
    while ((c = rd_peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        r->pos++;
    return c;
}

/* Consumes one expected byte. */
static int rd_expect(rd *r, int want, const char *what)
{
    int c = rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    if (c != want)
        return rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : what);
    r->pos++;
    return PM_OK;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* \uXXXX after the backslash-u: its code unit, or -1. */
static long rd_u4(rd *r)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int c = rd_peek(r), h = c >= 0 ? hexval(c) : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
        r->pos++;
    }
    return v;
}

/* A string, from its opening quote: escapes, control characters, UTF-8 and \u surrogates checked as Jansson
 * does (it refuses what it would refuse). */
static int rd_string(rd *r)
{
    long long at = rd_off(r);
    r->pos++; /* the opening quote */
    for (;;) {
        int c = rd_peek(r);
        if (c == -2)
            return PM_ERR_IO;
        if (c < 0)
            return rd_fail(r, at, "premature end of input in a string");
        r->pos++;
        if (c == '"')
            return PM_OK;
        if (c < 0x20)
            return rd_fail(r, rd_off(r) - 1, "control character in a string");
        if (c == '\\') {
            int e = rd_peek(r);
            if (e == -2)
                return PM_ERR_IO;
            if (e < 0 || !strchr("\"\\/bfnrtu", e))
                return rd_fail(r, rd_off(r), "invalid escape");
            r->pos++;
            if (e != 'u')
                continue;
            long u = rd_u4(r);
            if (u < 0)
                return rd_fail(r, rd_off(r), "invalid \\u escape");
            if (u == 0)
                return rd_fail(r, rd_off(r), "\\u0000 is not allowed");
            if (u >= 0xDC00 && u <= 0xDFFF)
                return rd_fail(r, rd_off(r), "invalid Unicode (a lone low surrogate)");
            if (u >= 0xD800 && u <= 0xDBFF) { /* a high surrogate: a low one must follow */
                if (rd_peek(r) != '\\')
                    return rd_fail(r, rd_off(r), "invalid Unicode (a lone high surrogate)");
                r->pos++;
                if (rd_peek(r) != 'u')
                    return rd_fail(r, rd_off(r), "invalid Unicode (a lone high surrogate)");
                r->pos++;
                long lo = rd_u4(r);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return rd_fail(r, rd_off(r), "invalid Unicode (a high surrogate without a low one)");
            }
            continue;
        }
        if (c < 0x80)
            continue;
        /* UTF-8: the sequence's length from its first byte; no overlong forms, surrogates or > U+10FFFF */
        int n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        if (n < 0)
            return rd_fail(r, rd_off(r) - 1, "invalid UTF-8 in a string");
        long cp = c & (0x3F >> n);
        for (int k = 0; k < n; k++) {
            int b = rd_peek(r);
            if (b == -2)
                return PM_ERR_IO;
            if (b < 0x80 || b > 0xBF)
                return rd_fail(r, rd_off(r), "invalid UTF-8 in a string");
            cp = cp << 6 | (b & 0x3F);
            r->pos++;
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return rd_fail(r, rd_off(r) - 1, "invalid UTF-8 in a string");
    }
}

static int rd_digits(rd *r)
{
    int n = 0, c;
    while ((c = rd_peek(r)) >= '0' && c <= '9') {
        r->pos++;
        n++;
    }
    return c == -2 ? -1 : n;
}

/* A number by JSON's grammar (its value is not needed here: an event's are Jansson's). */
static int rd_number(rd *r)
{
    long long at = rd_off(r);
    if (rd_peek(r) == '-')
        r->pos++;
    int c = rd_peek(r);
    if (c == '0')
        r->pos++;
    else if (c >= '1' && c <= '9') {
        if (rd_digits(r) < 0)
            return PM_ERR_IO;
    } else
        return c == -2 ? PM_ERR_IO : rd_fail(r, at, "invalid number");
    if (rd_peek(r) == '.') {
        r->pos++;
        int n = rd_digits(r);
        if (n <= 0)
            return n < 0 ? PM_ERR_IO : rd_fail(r, at, "invalid number");
    }
    if ((c = rd_peek(r)) == 'e' || c == 'E') {
        r->pos++;
        if ((c = rd_peek(r)) == '+' || c == '-')
            r->pos++;
        int n = rd_digits(r);
        if (n <= 0)
            return n < 0 ? PM_ERR_IO : rd_fail(r, at, "invalid number");
    }
    return PM_OK;
}

static int rd_literal(rd *r, const char *word)
{
    long long at = rd_off(r);
    for (const char *w = word; *w; w++) {
        int c = rd_peek(r);
        if (c == -2)
            return PM_ERR_IO;
        if (c != *w)
            return rd_fail(r, at, "invalid token");
        r->pos++;
    }
    return PM_OK;
}

/* One value, from the byte at the read position: checked and consumed, not kept. */
static int rd_skip(rd *r, int depth)
{
    int c = rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    if (c < 0)
        return rd_fail(r, rd_off(r), "unexpected end of input");
    if (c == '"')
        return rd_string(r);
    if (c == '-' || (c >= '0' && c <= '9'))
        return rd_number(r);
    if (c == 't')
        return rd_literal(r, "true");
    if (c == 'f')
        return rd_literal(r, "false");
    if (c == 'n')
        return rd_literal(r, "null");
    if (c != '{' && c != '[')
        return rd_fail(r, rd_off(r), "invalid token");
    if (depth >= RD_MAX_DEPTH)
        return rd_fail(r, rd_off(r), "maximum parsing depth reached");
    int close = c == '{' ? '}' : ']', rc;
    r->pos++;
    if ((c = rd_ws(r)) == close) {
        r->pos++;
        return PM_OK;
    }
    for (;;) {
        if (close == '}') {
            c = rd_ws(r);
            if (c == -2)
                return PM_ERR_IO;
            if (c != '"')
                return rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : "string or '}' expected");
            if ((rc = rd_string(r)) || (rc = rd_expect(r, ':', "':' expected")))
                return rc;
        }
        if ((rc = rd_skip(r, depth + 1)))
            return rc;
        c = rd_ws(r);
        if (c == ',') {
            r->pos++;
            continue;
        }
        if (c == close) {
            r->pos++;
            return PM_OK;
        }
        return c == -2 ? PM_ERR_IO : rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : "',' or end of "
                                                                                              "container expected");
    }
}

static void opens_free(opens *o)
{
    for (size_t k = 0; k < o->n; k++) {
        free(o->v[k].name);
        free(o->v[k].detail);
    }
    free(o->v);
    memset(o, 0, sizeof *o);
}

static void spans_free(spans *s)
{
    for (size_t k = 0; k < s->n; k++) {
        free(s->v[k].name);
        free(s->v[k].detail);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* One loaded event: an X becomes a span, a B waits for its E. */
static int take_event(json_t *ev, spans *s, opens *o, pm_err *err)
{
    const char *ph = json_string_value(json_object_get(ev, "ph"));
    json_t *jts = json_object_get(ev, "ts");
    if (!ph || !json_is_number(jts)) {
        if (ph && (!strcmp(ph, "X") || !strcmp(ph, "B") || !strcmp(ph, "E")))
            skip_event(s, "a span event without a numeric ts");
        return PM_OK;
    }
    double ts = json_number_value(jts);
    if (ts < 0)
        return pm_err_set(err, PM_ERR_PARSE, "negative ts %g (µs since the trace's start)", ts);
    evinfo e;
    if (strcmp(ph, "X") == 0) {
        json_t *jd = json_object_get(ev, "dur");
        if (!json_is_number(jd)) {
            skip_event(s, "an X event without a numeric dur");
            return PM_OK;
        }
        evinfo_of(ev, &e);
        return push(s, &e, ts, json_number_value(jd), err);
    }
    if (strcmp(ph, "B") == 0) {
        if (o->n == o->cap) {
            size_t nc = o->cap ? o->cap * 2 : 64;
            open_b *nv = realloc(o->v, nc * sizeof *nv);
            if (!nv)
                return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            o->v = nv;
            o->cap = nc;
        }
        evinfo_of(ev, &e);
        open_b *b = &o->v[o->n];
        b->name = e.name ? strdup(e.name) : NULL;
        b->detail = e.detail ? strdup(e.detail) : NULL;
        if ((e.name && !b->name) || (e.detail && !b->detail)) {
            free(b->name);
            free(b->detail);
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        }
        b->pid = e.pid;
        b->tid = e.tid;
        b->ids_ok = e.ids_ok;
        b->ts = ts;
        o->n++;
        return PM_OK;
    }
    if (strcmp(ph, "E") != 0)
        return PM_OK;
    evinfo_of(ev, &e);
    if (!e.ids_ok)
        return pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
    int matched = 0;
    for (size_t k = o->n; k-- > 0;) { /* the innermost open B of the same thread */
        open_b *b = &o->v[k];
        if (!b->ids_ok)
            return pm_err_set(err, PM_ERR_PARSE, "event pid/tid is not an integer id within ±2^53");
        if (b->pid != e.pid || b->tid != e.tid)
            continue;
        evinfo be = {.name = b->name, .detail = b->detail, .pid = b->pid, .tid = b->tid, .ids_ok = 1};
        int rc = push(s, &be, b->ts, ts - b->ts, err);
        if (rc)
            return rc;
        free(b->name);
        free(b->detail);
        memmove(o->v + k, o->v + k + 1, (o->n - k - 1) * sizeof *o->v);
        o->n--;
        matched = 1;
        break;
    }
    if (!matched)
        skip_event(s, "an E event without its B");
    return PM_OK;
}

/* The events array, from its '[': each object element's extent is scanned, then Jansson loads those bytes. */
static int read_events(rd *r, spans *s, opens *o)
{
    int rc, c;
    r->pos++; /* '[' */
    if ((c = rd_ws(r)) == ']') {
        r->pos++;
        return PM_OK;
    }
    for (;;) {
        c = rd_ws(r);
        if (c == '{') {
            r->pinned = 1;
            r->pin = r->pos;
            long long at = rd_off(r);
            if ((rc = rd_skip(r, 1))) {
                r->pinned = 0;
                return rc;
            }
            json_error_t je;
            json_t *ev = json_loadb(r->p + r->pin, r->pos - r->pin, 0, &je);
            r->pinned = 0;
            if (!ev)
                return rd_fail(r, at + je.position, je.text);
            s->at = at;
            rc = take_event(ev, s, o, r->err);
            json_decref(ev);
            if (rc) {
                pm_err_wrap(r->err, "event at byte %lld", at);
                return rc;
            }
        } else if ((rc = rd_skip(r, 1))) { /* not an object: not an event, nothing to take */
            return rc;
        }
        c = rd_ws(r);
        if (c == ',') {
            r->pos++;
            continue;
        }
        if (c == ']') {
            r->pos++;
            return PM_OK;
        }
        return c == -2 ? PM_ERR_IO : rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : "',' or ']' expected");
    }
}

/* 1 when the member key just scanned (bytes from..pos) is "traceEvents" once its escapes are decoded. */
static int key_is_trace_events(const rd *r, size_t from)
{
    size_t n = r->pos - from;
    if (n > 80) /* "traceEvents" with every letter escaped is 68 bytes */
        return 0;
    json_error_t je;
    json_t *k = json_loadb(r->p + from, n, JSON_DECODE_ANY, &je);
    int yes = json_is_string(k) && !strcmp(json_string_value(k), "traceEvents");
    json_decref(k);
    return yes;
}

/* The whole input: {"traceEvents": [...], ...} (the last traceEvents member wins, as in a JSON object) or a bare
 * array of events; nothing but whitespace after it. */
static int read_trace(rd *r, spans *s, opens *o)
{
    int c = rd_ws(r), rc;
    if (c == -2)
        return PM_ERR_IO;
    if (c == '[') {
        if ((rc = read_events(r, s, o)))
            return rc;
    } else if (c == '{') {
        int have = 0;
        r->pos++;
        if ((c = rd_ws(r)) == '}')
            r->pos++;
        else
            for (;;) {
                c = rd_ws(r);
                if (c == -2)
                    return PM_ERR_IO;
                if (c != '"')
                    return rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : "string or '}' expected");
                r->pinned = 1;
                r->pin = r->pos;
                rc = rd_string(r);
                int is_events = !rc && key_is_trace_events(r, r->pin);
                r->pinned = 0;
                if (rc || (rc = rd_expect(r, ':', "':' expected")))
                    return rc;
                c = rd_ws(r);
                if (is_events) { /* a later traceEvents replaces an earlier one */
                    spans_free(s);
                    opens_free(o);
                    have = c == '[';
                }
                if ((rc = is_events && c == '[' ? read_events(r, s, o) : rd_skip(r, 1)))
                    return rc;
                c = rd_ws(r);
                if (c == ',') {
                    r->pos++;
                    continue;
                }
                if (c == '}') {
                    r->pos++;
                    break;
                }
                return c == -2 ? PM_ERR_IO
                               : rd_fail(r, rd_off(r), c < 0 ? "unexpected end of input" : "',' or '}' expected");
            }
        if (!have) {
            if ((c = rd_ws(r)) != -1)
                return c == -2 ? PM_ERR_IO : rd_fail(r, rd_off(r), "end of file expected");
            return pm_err_set(r->err, PM_ERR_PARSE, "no traceEvents array");
        }
    } else {
        return rd_fail(r, rd_off(r), c < 0 ? "'[' or '{' expected, found the end of input" : "'[' or '{' expected");
    }
    c = rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    return c == -1 ? PM_OK : rd_fail(r, rd_off(r), "end of file expected");
}

static int emit(spans *in, pm_report *out, pm_err *err);

static int parse_with(rd *r, pm_report *out, pm_err *err)
{
    spans s = {0};
    opens o = {0};
    int rc = read_trace(r, &s, &o);
    opens_free(&o);
    free(r->own);
    r->own = NULL;
    if (rc == PM_OK)
        rc = emit(&s, out, err); /* frees s */
    else
        spans_free(&s);
    return rc;
}

int pm_parse_chrome_trace(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    rd r = {.fd = -1, .p = buf, .hi = len, .eof = 1, .err = err};
    return parse_with(&r, out, err);
}

int pm_parse_chrome_trace_fd(int fd, pm_report *out, pm_err *err)
{
    rd r = {.fd = fd, .err = err};
    return parse_with(&r, out, err);
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

/* The spans, sorted and nested, into the report. Frees the spans. */
static int emit(spans *in, pm_report *out, pm_err *err)
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
            pm_pass q = p;
            char *nm = NULL;
            if (asprintf(&nm, "%s (self)", sp->name) < 0)
                goto nomem;
            q.name = nm;
            q.flags = pipeline;
            q.wall_s = self / 1e6;
            q.parent = map[k];
            q.depth = p.depth + 1;
            q.has_start = 0;   /* a group's own time is not one contiguous span */
            rc = pm_report_add_pass(out, &q);
            free(nm);
            if (rc)
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

/* ---- the format row ---- */

static int sniff_chrome(const char *b, size_t n)
{
    return pm_text_is_json(b, n) && (pm_text_contains(b, n, "\"traceEvents\"") || pm_text_contains(b, n, "\"ph\""));
}

/* "dur" in whole µs; several compilers write traces: no default tool */
const pm_format_row pm_format_chrome_trace = {"chrome-trace", pm_parse_chrome_trace, sniff_chrome, 5, NULL, 1e-6, 1};
