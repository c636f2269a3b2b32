/* The Chrome trace parser's event reader: a small JSON scanner over a window of the input (parse_chrome.c's
 * header says why it streams). It checks the grammar as Jansson would and finds each value's extent. */
#include "parse_chrome_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RD_CHUNK ((size_t)1 << 20)
#define RD_MAX_DEPTH 2048   /* Jansson's own nesting limit (JSON_PARSER_MAX_DEPTH) */

long long pm_parse_rd_off(const rd *r)
{
    return r->base + (long long)r->pos;
}

int pm_parse_rd_fail(rd *r, long long at, const char *what)
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

int pm_parse_rd_ws(rd *r)
{
    int c;
    while ((c = rd_peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        r->pos++;
    return c;
}

/* Consumes one expected byte. */
int pm_parse_rd_expect(rd *r, int want, const char *what)
{
    int c = pm_parse_rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    if (c != want)
        return pm_parse_rd_fail_here(r, c < 0 ? "unexpected end of input" : what);
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
int pm_parse_rd_string(rd *r)
{
    long long at = pm_parse_rd_off(r);
    r->pos++; /* the opening quote */
    for (;;) {
        int c = rd_peek(r);
        if (c == -2)
            return PM_ERR_IO;
        if (c < 0)
            return pm_parse_rd_fail(r, at, "premature end of input in a string");
        r->pos++;
        if (c == '"')
            return PM_OK;
        if (c < 0x20)
            return pm_parse_rd_fail(r, pm_parse_rd_off(r) - 1, "control character in a string");
        if (c == '\\') {
            int e = rd_peek(r);
            if (e == -2)
                return PM_ERR_IO;
            if (e < 0 || !strchr("\"\\/bfnrtu", e))
                return pm_parse_rd_fail_here(r, "invalid escape");
            r->pos++;
            if (e != 'u')
                continue;
            long u = rd_u4(r);
            if (u < 0)
                return pm_parse_rd_fail_here(r, "invalid \\u escape");
            if (u == 0)
                return pm_parse_rd_fail_here(r, "\\u0000 is not allowed");
            if (u >= 0xDC00 && u <= 0xDFFF)
                return pm_parse_rd_fail_here(r, "invalid Unicode (a lone low surrogate)");
            if (u >= 0xD800 && u <= 0xDBFF) { /* a high surrogate: a low one must follow */
                if (rd_peek(r) != '\\')
                    return pm_parse_rd_fail_here(r, "invalid Unicode (a lone high surrogate)");
                r->pos++;
                if (rd_peek(r) != 'u')
                    return pm_parse_rd_fail_here(r, "invalid Unicode (a lone high surrogate)");
                r->pos++;
                long lo = rd_u4(r);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return pm_parse_rd_fail_here(r, "invalid Unicode (a high surrogate without a low one)");
            }
            continue;
        }
        if (c < 0x80)
            continue;
        /* UTF-8: the sequence's length from its first byte; no overlong forms, surrogates or > U+10FFFF */
        int n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        if (n < 0)
            return pm_parse_rd_fail(r, pm_parse_rd_off(r) - 1, "invalid UTF-8 in a string");
        long cp = c & (0x3F >> n);
        for (int k = 0; k < n; k++) {
            int b = rd_peek(r);
            if (b == -2)
                return PM_ERR_IO;
            if (b < 0x80 || b > 0xBF)
                return pm_parse_rd_fail_here(r, "invalid UTF-8 in a string");
            cp = cp << 6 | (b & 0x3F);
            r->pos++;
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return pm_parse_rd_fail(r, pm_parse_rd_off(r) - 1, "invalid UTF-8 in a string");
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
    long long at = pm_parse_rd_off(r);
    if (rd_peek(r) == '-')
        r->pos++;
    int c = rd_peek(r);
    if (c == '0')
        r->pos++;
    else if (c >= '1' && c <= '9') {
        if (rd_digits(r) < 0)
            return PM_ERR_IO;
    } else
        return c == -2 ? PM_ERR_IO : pm_parse_rd_fail(r, at, "invalid number");
    if (rd_peek(r) == '.') {
        r->pos++;
        int n = rd_digits(r);
        if (n <= 0)
            return n < 0 ? PM_ERR_IO : pm_parse_rd_fail(r, at, "invalid number");
    }
    if ((c = rd_peek(r)) == 'e' || c == 'E') {
        r->pos++;
        if ((c = rd_peek(r)) == '+' || c == '-')
            r->pos++;
        int n = rd_digits(r);
        if (n <= 0)
            return n < 0 ? PM_ERR_IO : pm_parse_rd_fail(r, at, "invalid number");
    }
    return PM_OK;
}

static int rd_literal(rd *r, const char *word)
{
    long long at = pm_parse_rd_off(r);
    for (const char *w = word; *w; w++) {
        int c = rd_peek(r);
        if (c == -2)
            return PM_ERR_IO;
        if (c != *w)
            return pm_parse_rd_fail(r, at, "invalid token");
        r->pos++;
    }
    return PM_OK;
}

/* One value, from the byte at the read position: checked and consumed, not kept. */
int pm_parse_rd_skip(rd *r, int depth)
{
    int c = pm_parse_rd_ws(r);
    if (c == -2)
        return PM_ERR_IO;
    if (c < 0)
        return pm_parse_rd_fail_here(r, "unexpected end of input");
    if (c == '"')
        return pm_parse_rd_string(r);
    if (c == '-' || (c >= '0' && c <= '9'))
        return rd_number(r);
    if (c == 't')
        return rd_literal(r, "true");
    if (c == 'f')
        return rd_literal(r, "false");
    if (c == 'n')
        return rd_literal(r, "null");
    if (c != '{' && c != '[')
        return pm_parse_rd_fail_here(r, "invalid token");
    if (depth >= RD_MAX_DEPTH)
        return pm_parse_rd_fail_here(r, "maximum parsing depth reached");
    int close = c == '{' ? '}' : ']', rc;
    r->pos++;
    if ((c = pm_parse_rd_ws(r)) == close) {
        r->pos++;
        return PM_OK;
    }
    for (;;) {
        if (close == '}') {
            c = pm_parse_rd_ws(r);
            if (c == -2)
                return PM_ERR_IO;
            if (c != '"')
                return pm_parse_rd_fail_here(r, c < 0 ? "unexpected end of input" : "string or '}' expected");
            if ((rc = pm_parse_rd_string(r)) || (rc = pm_parse_rd_expect(r, ':', "':' expected")))
                return rc;
        }
        if ((rc = pm_parse_rd_skip(r, depth + 1)))
            return rc;
        c = pm_parse_rd_ws(r);
        if (c == ',') {
            r->pos++;
            continue;
        }
        if (c == close) {
            r->pos++;
            return PM_OK;
        }
        return c == -2 ? PM_ERR_IO
                       : pm_parse_rd_fail_here(r,
                                               c < 0 ? "unexpected end of input"
                                                     : "',' or end of "
                                                       "container expected");
    }
}
