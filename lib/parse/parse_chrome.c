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
#include "parse_chrome_internal.h"
#include "parse_text.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void opens_free(opens *o)
{
    for (size_t k = 0; k < o->n; k++)
        pm_free_all(o->v[k].name, o->v[k].detail);
    free(o->v);
    memset(o, 0, sizeof *o);
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
    if ((c = pm_parse_rd_ws(r)) == ']') {
        r->pos++;
        return PM_OK;
    }
    for (;;) {
        c = pm_parse_rd_ws(r);
        if (c == '{') {
            r->pinned = 1;
            r->pin = r->pos;
            long long at = pm_parse_rd_off(r);
            if ((rc = pm_parse_rd_skip(r, 1))) {
                r->pinned = 0;
                return rc;
            }
            json_error_t je;
            json_t *ev = json_loadb(r->p + r->pin, r->pos - r->pin, 0, &je);
            r->pinned = 0;
            if (!ev)
                return pm_parse_rd_fail(r, at + je.position, je.text);
            s->at = at;
            rc = take_event(ev, s, o, r->err);
            json_decref(ev);
            if (rc) {
                pm_err_wrap(r->err, "event at byte %lld", at);
                return rc;
            }
        } else if ((rc = pm_parse_rd_skip(r, 1))) { /* not an object: not an event, nothing to take */
            return rc;
        }
        c = pm_parse_rd_ws(r);
        if (c == ',') {
            r->pos++;
            continue;
        }
        if (c == ']') {
            r->pos++;
            return PM_OK;
        }
        return c == -2 ? PM_ERR_IO
                       : pm_parse_rd_fail_here(r, c < 0 ? "unexpected end of input" : "',' or ']' expected");
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
    int c = pm_parse_rd_ws(r), rc;
    if (c == -2)
        return PM_ERR_IO;
    if (c == '[') {
        if ((rc = read_events(r, s, o)))
            return rc;
    } else if (c == '{') {
        int have = 0;
        r->pos++;
        if ((c = pm_parse_rd_ws(r)) == '}')
            r->pos++;
        else
            for (;;) {
                c = pm_parse_rd_ws(r);
                if (c == -2)
                    return PM_ERR_IO;
                if (c != '"')
                    return pm_parse_rd_fail_here(r, c < 0 ? "unexpected end of input" : "string or '}' expected");
                r->pinned = 1;
                r->pin = r->pos;
                rc = pm_parse_rd_string(r);
                int is_events = !rc && key_is_trace_events(r, r->pin);
                r->pinned = 0;
                if (rc || (rc = pm_parse_rd_expect(r, ':', "':' expected")))
                    return rc;
                c = pm_parse_rd_ws(r);
                if (is_events) { /* a later traceEvents replaces an earlier one */
                    pm_parse_spans_free(s);
                    opens_free(o);
                    have = c == '[';
                }
                if ((rc = is_events && c == '[' ? read_events(r, s, o) : pm_parse_rd_skip(r, 1)))
                    return rc;
                c = pm_parse_rd_ws(r);
                if (c == ',') {
                    r->pos++;
                    continue;
                }
                if (c == '}') {
                    r->pos++;
                    break;
                }
                return c == -2 ? PM_ERR_IO
                               : pm_parse_rd_fail_here(r, c < 0 ? "unexpected end of input" : "',' or '}' expected");
            }
        if (!have) {
            if ((c = pm_parse_rd_ws(r)) != -1)
                return c == -2 ? PM_ERR_IO : pm_parse_rd_fail_here(r, "end of file expected");
            return pm_err_set(r->err, PM_ERR_PARSE, "no traceEvents array");
        }
    } else {
        return pm_parse_rd_fail_here(r, c < 0 ? "'[' or '{' expected, found the end of input" : "'[' or '{' expected");
    }
    c = pm_parse_rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    return c == -1 ? PM_OK : pm_parse_rd_fail_here(r, "end of file expected");
}

static int parse_with(rd *r, pm_report *out, pm_err *err)
{
    spans s = {0};
    opens o = {0};
    int rc = read_trace(r, &s, &o);
    opens_free(&o);
    free(r->own);
    r->own = NULL;
    if (rc == PM_OK)
        rc = pm_parse_chrome_emit(&s, out, err); /* frees s */
    else
        pm_parse_spans_free(&s);
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

/* ---- the format row ---- */

static int sniff_chrome(const char *b, size_t n)
{
    return pm_text_is_json(b, n) && (pm_text_contains(b, n, "\"traceEvents\"") || pm_text_contains(b, n, "\"ph\""));
}

/* "dur" in whole µs; several compilers write traces: no default tool */
const pm_format_row pm_format_chrome_trace = {"chrome-trace", pm_parse_chrome_trace, sniff_chrome, 5, NULL, 1e-6, 1};