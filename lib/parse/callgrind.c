/* Callgrind output reader (see callgrind.h). */
#include "callgrind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Interned strings: every name once, found by hash (open addressing, grown at half load). */
struct pm_cg_names {
    char **str;
    size_t n, cap;
    size_t *slot;        /* index + 1 into str; 0 = empty */
    size_t n_slots;
};

static uint64_t hash_bytes(const char *s, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int names_grow_slots(pm_cg_names *t)
{
    size_t ns = t->n_slots ? t->n_slots * 2 : 1024;
    size_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return PM_ERR_NOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = (size_t)hash_bytes(t->str[i], strlen(t->str[i]), 1469598103934665603ull) & (ns - 1);
        while (slot[h])
            h = (h + 1) & (ns - 1);
        slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->n_slots = ns;
    return PM_OK;
}

/* The index of s[0..n) in t, added when new; -1 on out of memory. */
static long names_intern(pm_cg_names *t, const char *s, size_t n)
{
    if ((t->n + 1) * 2 > t->n_slots && names_grow_slots(t) != PM_OK)
        return -1;
    size_t h = (size_t)hash_bytes(s, n, 1469598103934665603ull) & (t->n_slots - 1);
    for (; t->slot[h]; h = (h + 1) & (t->n_slots - 1)) {
        const char *c = t->str[t->slot[h] - 1];
        if (!strncmp(c, s, n) && c[n] == '\0')
            return (long)(t->slot[h] - 1);
    }
    char **p = pm_grow(t->str, &t->cap, t->n, sizeof *p, 1024);
    if (!p)
        return -1;
    t->str = p;
    char *c = strndup(s, n);
    if (!c)
        return -1;
    t->str[t->n] = c;
    t->slot[h] = ++t->n;
    return (long)(t->n - 1);
}

static void names_free(pm_cg_names *t)
{
    if (!t)
        return;
    pm_free_strs(t->str, t->n);
    pm_free_all(t->slot, t);
}

/* An id space of name compression: id -> interned name index. */
typedef struct id_map {
    long *at;            /* -1: not defined */
    size_t cap;
} id_map;

static int id_set(id_map *m, unsigned long id, long name)
{
    if (id >= m->cap) {
        size_t cap = m->cap ? m->cap : 256;
        while (cap <= id)
            cap *= 2;
        long *p = realloc(m->at, cap * sizeof *p);
        if (!p)
            return PM_ERR_NOMEM;
        for (size_t i = m->cap; i < cap; i++)
            p[i] = -1;
        m->at = p;
        m->cap = cap;
    }
    m->at[id] = name;
    return PM_OK;
}

/* Functions keyed by (object, name) interned indexes. */
typedef struct fn_key {
    long obj, name;
} fn_key;

typedef struct reader {
    pm_callgrind *cg;
    const char *origin;
    size_t lineno;
    id_map ids[3];          /* 0: ob/cob, 1: fl/fi/fe/cfi/cfl, 2: fn/cfn */
    fn_key *keys;           /* parallel to cg->fns */
    size_t cap_fns;
    size_t *slot;           /* index + 1 into cg->fns */
    size_t n_slots;
    int npos;               /* position columns before the event values */
    long cur_obj, cur_fn;   /* the current fn's index into cg->fns, -1 none */
    long call_obj;          /* cob= for the next calls= (-1: the caller's object) */
    long call_fn;           /* cfn= interned name for the next calls= */
    int pending_call;       /* 1: the next cost line is a call's inclusive cost */
    long pending_target;    /* the called fn's index */
    pm_cg_part *part;       /* the part being read */
    size_t cap_parts;
    int part_has_totals;
    uint64_t part_sum;      /* sum of cost lines in the part: its total when it has no totals: line */
} reader;

static uint64_t key_hash(fn_key k)
{
    uint64_t h = 1469598103934665603ull;
    h = (h ^ (uint64_t)k.obj) * 1099511628211ull;
    return (h ^ (uint64_t)k.name) * 1099511628211ull;
}

static int fns_grow_slots(reader *r)
{
    size_t ns = r->n_slots ? r->n_slots * 2 : 1024;
    size_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return PM_ERR_NOMEM;
    for (size_t i = 0; i < r->cg->n_fns; i++) {
        size_t h = (size_t)key_hash(r->keys[i]) & (ns - 1);
        while (slot[h])
            h = (h + 1) & (ns - 1);
        slot[h] = i + 1;
    }
    free(r->slot);
    r->slot = slot;
    r->n_slots = ns;
    return PM_OK;
}

/* The index of function (obj, name) in cg->fns, added when new; -1 on out of memory. */
static long fn_index(reader *r, long obj, long name)
{
    pm_callgrind *cg = r->cg;
    if ((cg->n_fns + 1) * 2 > r->n_slots && fns_grow_slots(r) != PM_OK)
        return -1;
    fn_key k = {obj, name};
    size_t h = (size_t)key_hash(k) & (r->n_slots - 1);
    for (; r->slot[h]; h = (h + 1) & (r->n_slots - 1)) {
        fn_key c = r->keys[r->slot[h] - 1];
        if (c.obj == obj && c.name == name)
            return (long)(r->slot[h] - 1);
    }
    if (cg->n_fns == r->cap_fns) {
        size_t cap = r->cap_fns ? r->cap_fns * 2 : 1024;
        pm_cg_fn *f = realloc(cg->fns, cap * sizeof *f);
        if (!f)
            return -1;
        cg->fns = f;
        fn_key *kk = realloc(r->keys, cap * sizeof *kk);
        if (!kk)
            return -1;
        r->keys = kk;
        r->cap_fns = cap;
    }
    r->keys[cg->n_fns] = k;
    cg->fns[cg->n_fns] = (pm_cg_fn){0};
    r->slot[h] = ++cg->n_fns;
    return (long)(cg->n_fns - 1);
}

static int bad(reader *r, pm_err *err, const char *what)
{
    return pm_err_set(err, PM_ERR_PARSE, "%s:%zu: %s: not callgrind output as Valgrind 3 writes it", r->origin,
                      r->lineno, what);
}

/* A position name after "x=": "(id) name", "(id)" or "name"; the interned index into *out. Recursion levels
 * ("f'2") are folded into f for function names (fold). */
static int read_name(reader *r, int space, const char *s, const char *end, int fold, long *out, pm_err *err)
{
    while (s < end && *s == ' ')
        s++;
    long id = -1;
    if (s < end && *s == '(') {
        char *e;
        errno = 0;
        unsigned long v = strtoul(s + 1, &e, 10);
        if (errno || e >= end || *e != ')' || e == s + 1)
            return bad(r, err, "bad name id");
        id = (long)v;
        s = e + 1;
        while (s < end && *s == ' ')
            s++;
        if (s == end) {
            if ((size_t)id >= r->ids[space].cap || r->ids[space].at[id] < 0)
                return bad(r, err, "name id used before it is defined");
            *out = r->ids[space].at[id];
            return PM_OK;
        }
    }
    const char *e = end;
    if (fold) {
        /* callgrind marks recursion levels with 'N after the name: fold them into the function */
        const char *q = e;
        while (q > s && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q < e && q > s + 1 && q[-1] == '\'')
            e = q - 1;
    }
    long n = names_intern(r->cg->names, s, (size_t)(e - s));
    if (n < 0 || (id >= 0 && id_set(&r->ids[space], (unsigned long)id, n) != PM_OK))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", r->origin);
    *out = n;
    return PM_OK;
}

/* The first event value of a cost line, after r->npos position columns. */
static int cost_value(reader *r, const char *s, const char *end, uint64_t *out, pm_err *err)
{
    for (int i = 0; i < r->npos; i++) {
        while (s < end && *s == ' ')
            s++;
        if (s == end)
            return bad(r, err, "cost line without its positions");
        while (s < end && *s != ' ')
            s++;
    }
    while (s < end && *s == ' ')
        s++;
    *out = 0;
    if (s == end)
        return PM_OK; /* trailing zero values may be left out */
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno || e == s || (e < end && *e != ' '))
        return bad(r, err, "bad cost value");
    *out = v;
    return PM_OK;
}

static int count_positions(reader *r, const char *s, const char *end, pm_err *err)
{
    int n = 0;
    while (s < end) {
        while (s < end && *s == ' ')
            s++;
        if (s == end)
            break;
        n++;
        while (s < end && *s != ' ')
            s++;
    }
    if (n < 1)
        return bad(r, err, "empty positions: line");
    r->npos = n;
    return PM_OK;
}

static int begin_part(reader *r, pm_err *err)
{
    pm_callgrind *cg = r->cg;
    pm_cg_part *p = pm_grow(cg->parts, &r->cap_parts, cg->n_parts, sizeof *p, 64);
    if (!p)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", r->origin);
    cg->parts = p;
    r->part = &cg->parts[cg->n_parts++];
    *r->part = (pm_cg_part){0};
    r->part_has_totals = 0;
    r->part_sum = 0;
    return PM_OK;
}

static void end_part(reader *r)
{
    if (r->part && !r->part_has_totals)
        r->part->total = r->part_sum;
}

static int header_number(reader *r, const char *s, const char *end, uint64_t *out, pm_err *err)
{
    uint64_t v;
    int save = r->npos;
    r->npos = 0;
    int rc = cost_value(r, s, end, &v, err);
    r->npos = save;
    if (rc == PM_OK)
        *out = v;
    return rc;
}

#define HAS(prefix) (len >= sizeof(prefix) - 1 && !memcmp(s, prefix, sizeof(prefix) - 1))

static int read_line(reader *r, const char *s, size_t len, pm_err *err)
{
    const char *end = s + len;
    pm_callgrind *cg = r->cg;
    if (len == 0 || s[0] == '#')
        return PM_OK;
    char c = s[0];
    long n;
    int rc;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
        uint64_t v;
        rc = cost_value(r, s, end, &v, err);
        if (rc != PM_OK)
            return rc;
        if (r->cur_fn < 0)
            return bad(r, err, "cost line before any fn=");
        if (!r->part && (rc = begin_part(r, err)) != PM_OK)
            return rc;
        if (r->pending_call) {
            r->pending_call = 0;
            /* a call to the function itself (a folded recursion level) is already in its self cost */
            if (r->pending_target != r->cur_fn)
                cg->fns[r->cur_fn].incl += v;
        } else {
            cg->fns[r->cur_fn].self += v;
            cg->fns[r->cur_fn].incl += v;
            r->part_sum += v;
        }
        return PM_OK;
    }
    if (r->pending_call && !HAS("calls="))
        return bad(r, err, "calls= line not followed by its cost line");
    if (HAS("fn=")) {
        if ((rc = read_name(r, 2, s + 3, end, 1, &n, err)) != PM_OK)
            return rc;
        r->cur_fn = fn_index(r, r->cur_obj, n);
        r->call_obj = -1;
        r->call_fn = -1;
        return r->cur_fn < 0 ? pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", r->origin) : PM_OK;
    }
    if (HAS("cfn="))
        return read_name(r, 2, s + 4, end, 1, &r->call_fn, err);
    if (HAS("ob="))
        return read_name(r, 0, s + 3, end, 0, &r->cur_obj, err);
    if (HAS("cob="))
        return read_name(r, 0, s + 4, end, 0, &r->call_obj, err);
    if (HAS("fl=") || HAS("fi=") || HAS("fe="))
        return read_name(r, 1, s + 3, end, 0, &n, err);
    if (HAS("cfi=") || HAS("cfl="))
        return read_name(r, 1, s + 4, end, 0, &n, err);
    if (HAS("calls=")) {
        if (r->call_fn < 0)
            return bad(r, err, "calls= without cfn=");
        long obj = r->call_obj >= 0 ? r->call_obj : r->cur_obj;
        r->pending_target = fn_index(r, obj, r->call_fn);
        if (r->pending_target < 0)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", r->origin);
        r->pending_call = 1;
        /* cob=/cfn= name the target of this one call */
        r->call_obj = -1;
        return PM_OK;
    }
    if (HAS("jump=") || HAS("jcnd="))
        return PM_OK;
    if (HAS("part:")) {
        /* the header before the first part: line (version:, cmd:, ...) opened no part of its own */
        if (r->part && (r->part->trigger || r->part_has_totals || r->part_sum))
            end_part(r);
        else if (r->part)
            return PM_OK;
        return begin_part(r, err);
    }
    if (!r->part && (rc = begin_part(r, err)) != PM_OK)
        return rc;
    if (HAS("desc: Trigger:")) {
        const char *t = s + strlen("desc: Trigger:");
        while (t < end && *t == ' ')
            t++;
        free(r->part->trigger);
        if (!(r->part->trigger = strndup(t, (size_t)(end - t))))
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory reading %s", r->origin);
        return PM_OK;
    }
    if (HAS("cmd:")) {
        const char *t = s + 4;
        while (t < end && *t == ' ')
            t++;
        free(cg->cmd);
        return (cg->cmd = strndup(t, (size_t)(end - t))) ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (HAS("positions:"))
        return count_positions(r, s + 10, end, err);
    if (HAS("events:")) {
        const char *t = s + 7, *e;
        while (t < end && *t == ' ')
            t++;
        for (e = t; e < end && *e != ' '; e++)
            ;
        if (e == t)
            return bad(r, err, "empty events: line");
        free(cg->event);
        return (cg->event = strndup(t, (size_t)(e - t))) ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (HAS("totals:")) {
        r->part_has_totals = 1;
        return header_number(r, s + 7, end, &r->part->total, err);
    }
    if (HAS("summary:")) {
        if (r->part_has_totals)
            return PM_OK;
        r->part_has_totals = 1;
        return header_number(r, s + 8, end, &r->part->total, err);
    }
    /* other header lines (version:, creator:, pid:, thread:, desc:, event:) carry nothing counted here */
    const char *colon = memchr(s, ':', len);
    const char *sp = memchr(s, ' ', len);
    if (colon && (!sp || colon < sp))
        return PM_OK;
    return bad(r, err, "unknown line");
}

void pm_callgrind_init(pm_callgrind *cg)
{
    memset(cg, 0, sizeof *cg);
}

void pm_callgrind_free(pm_callgrind *cg)
{
    if (!cg)
        return;
    pm_free_all(cg->cmd, cg->event, cg->fns);
    for (size_t i = 0; i < cg->n_parts; i++)
        free(cg->parts[i].trigger);
    free(cg->parts);
    names_free(cg->names);
    memset(cg, 0, sizeof *cg);
}

int pm_callgrind_parse_buffer(const char *buf, size_t len, const char *origin, pm_callgrind *cg, pm_err *err)
{
    static const char magic[] = "# callgrind format";
    int rc = PM_OK;
    reader r = {.cg = cg, .origin = origin ? origin : "callgrind output", .npos = 1, .cur_obj = -1,
                .cur_fn = -1, .call_obj = -1, .call_fn = -1};
    /* Files without the (optional) magic line start with a header such as "version:" or "events:" */
    int looks = (len >= sizeof magic - 1 && !memcmp(buf, magic, sizeof magic - 1)) ||
                (len >= 8 && !memcmp(buf, "version:", 8)) || (len >= 7 && !memcmp(buf, "events:", 7));
    if (!looks)
        return pm_err_set(err, PM_ERR_PARSE, "%s: not callgrind output (no \"# callgrind format\" line); make it "
                          "with valgrind --tool=callgrind", r.origin);
    if (!cg->names && !(cg->names = calloc(1, sizeof *cg->names)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    long empty = names_intern(cg->names, "", 0);
    if (empty < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    r.cur_obj = empty;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t n = (size_t)(e - p);
        if (n && p[n - 1] == '\r')
            n--;
        r.lineno++;
        /* names are kept as C strings: a NUL inside a line would cut one short */
        if (memchr(p, '\0', n)) {
            rc = bad(&r, err, "NUL byte in the line");
            goto cleanup;
        }
        if ((rc = read_line(&r, p, n, err)) != PM_OK)
            goto cleanup;
        p = nl ? nl + 1 : end;
    }
    if (r.pending_call) {
        rc = bad(&r, err, "calls= line at the end of the file without its cost line");
        goto cleanup;
    }
    end_part(&r);
    if (!cg->event) {
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: no events: line: not callgrind output", r.origin);
        goto cleanup;
    }
    cg->total = 0;
    for (size_t i = 0; i < cg->n_parts; i++)
        cg->total += cg->parts[i].total;
    for (size_t i = 0; i < cg->n_fns; i++) {
        cg->fns[i].name = cg->names->str[r.keys[i].name];
        cg->fns[i].object = cg->names->str[r.keys[i].obj];
    }
cleanup:
    for (int i = 0; i < 3; i++)
        free(r.ids[i].at);
    free(r.keys);
    free(r.slot);
    return rc;
}

int pm_callgrind_parse_file(const char *path, pm_callgrind *cg, pm_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = pm_util_read_file_max(path, PM_CALLGRIND_MAX_BYTES, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    rc = pm_callgrind_parse_buffer(buf, len, path, cg, err);
    free(buf);
    return rc;
}

const pm_cg_fn *pm_callgrind_find(const pm_callgrind *cg, const char *name)
{
    for (size_t i = 0; i < cg->n_fns; i++)
        if (!strcmp(cg->fns[i].name, name))
            return &cg->fns[i];
    return NULL;
}
