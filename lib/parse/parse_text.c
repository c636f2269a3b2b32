/* Line splitting and column parsing shared by parse_mlir.c and parse_llvm.c; pm_text_has, the sniffers' needle search
 * (parse_internal.h). */
#include "util.h"
#include "parse_text.h"
#include "parse_internal.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pm_lines_free(pm_lines *l)
{
    pm_free_strs(l->line, l->n);
    l->line = NULL;
    l->n = 0;
}

/* Copies [s, s+n) dropping ANSI escape sequences (ESC '[' params final-byte) and a trailing CR. */
static char *strip_line(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\x1b') {
            i = pm_text_escape_end(s, i, n);
            continue;
        }
        d[j++] = s[i] == '\0' ? ' ' : s[i];
    }
    while (j > 0 && (d[j - 1] == '\r' || d[j - 1] == '\n'))
        j--;
    d[j] = '\0';
    return d;
}

int pm_lines_split(const char *buf, size_t len, pm_lines *out)
{
    size_t cap = 0;
    out->line = NULL;
    out->n = 0;
    size_t start = 0;
    while (start < len) {
        const char *nl = memchr(buf + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - buf) : len;
        char **p = pm_grow(out->line, &cap, out->n, sizeof *p, 256);
        if (!p)
            goto nomem;
        out->line = p;
        char *l = strip_line(buf + start, end - start);
        if (!l)
            goto nomem;
        out->line[out->n++] = l;
        start = end + 1;
    }
    return PM_OK;
nomem:
    pm_lines_free(out);
    return PM_ERR_NOMEM;
}

int pm_timing_header(const char *line, int *ncols, int *wall_col, int *user_col)
{
    if (!strstr(line, "Wall Time") || !strstr(line, "Name"))
        return 0;
    int n = 0, wall = -1, user = -1;
    const char *p = line;
    for (;;) {
        p = pm_text_skip_blanks(p);
        if (!*p)
            break;
        /* a label ends at two spaces: labels themselves contain single spaces ("---User Time---") */
        const char *e = p;
        while (*e && !(e[0] == ' ' && (e[1] == ' ' || e[1] == '\0')) && *e != '\t')
            e++;
        size_t l = (size_t)(e - p);
        if (memmem(p, l, "Name", 4))
            break;
        if (memmem(p, l, "Wall", 4))
            wall = n;
        else if (memmem(p, l, "User Time", 9))
            user = n;
        n++;
        p = e;
    }
    if (wall < 0)
        return 0;
    *ncols = n;
    *wall_col = wall;
    *user_col = user;
    return 1;
}

int pm_timing_row(const char *line, int ncols, double *vals, const char **rest)
{
    const char *p = line;
    for (int c = 0; c < ncols; c++) {
        while (*p == ' ')
            p++;
        /* a memory column ("---Mem---", -track-memory) may be negative; times are checked by the caller */
        if (!isdigit((unsigned char)*p) && !(*p == '-' && isdigit((unsigned char)p[1])))
            return 0;
        char *e;
        vals[c] = strtod(p, &e);
        if (e == p || !isfinite(vals[c]))
            return 0;
        p = e;
        const char *q = p;
        while (*q == ' ')
            q++;
        if (*q == '(') { /* "(  2.1%)" */
            q++;
            while (*q == ' ')
                q++;
            strtod(q, &e);
            if (e == q || *e != '%' || e[1] != ')')
                return 0;
            p = e + 2;
        } else if (*p != ' ') {
            return 0;
        }
    }
    if (*p != ' ')
        return 0;
    *rest = p;
    return 1;
}

char *pm_trim_dup(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

int pm_timing_line(const char *line, pm_timing_cols *cols, double vals[PM_TIMING_MAX_COLS], const char **rest)
{
    pm_timing_cols header;
    if (pm_timing_header(line, &header.ncols, &header.wall_col, &header.user_col)) {
        *cols = header;
        return 0;
    }
    if (!(cols->ncols > 0 && cols->ncols <= PM_TIMING_MAX_COLS && pm_timing_row(line, cols->ncols, vals, rest)))
        return 0;
    return pm_time_ok(vals[cols->wall_col]) && (cols->user_col < 0 || pm_time_ok(vals[cols->user_col]));
}

int pm_text_contains(const char *buf, size_t len, const char *needle)
{
    return memmem(buf, len, needle, strlen(needle)) != NULL;
}

static int json_next(const char *p, size_t len)
{
    size_t i = 1;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
        i++;
    if (i >= len)
        return 0;
    if (p[0] == '{')
        return p[i] == '"' || p[i] == '}';
    return p[i] == '{' || p[i] == '[' || p[i] == ']' || p[i] == '"' || p[i] == '-' || (p[i] >= '0' && p[i] <= '9');
}

int pm_text_is_json(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        i++;
    return i < len && (buf[i] == '{' || buf[i] == '[') && json_next(buf + i, len - i);
}

int pm_text_has(const pm_text *t, const char *needle)
{
    size_t n = strlen(needle);
    if (t->fd < 0)
        return pm_text_contains(t->buf, t->len, needle);
    /* a file: chunk by chunk, the last n - 1 bytes carried over so a needle across two chunks is found */
    char chunk[PM_PARSE_SNIFF_CHUNK + 64];
    size_t keep = 0;
    off_t off = 0;
    if (n == 0 || n > 64)
        return n == 0;
    for (;;) {
        ssize_t r = pread(t->fd, chunk + keep, PM_PARSE_SNIFF_CHUNK, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        off += r;
        size_t total = keep + (size_t)r;
        if (memmem(chunk, total, needle, n))
            return 1;
        keep = total < n - 1 ? total : n - 1;
        memmove(chunk, chunk + total - keep, keep);
    }
}

const char *pm_text_skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

size_t pm_text_escape_end(const char *s, size_t i, size_t n)
{
    if (i + 1 >= n || s[i + 1] != '[')
        return i;
    size_t k = i + 2;
    while (k < n && !((unsigned char)s[k] >= 0x40 && (unsigned char)s[k] <= 0x7e))
        k++;
    return k;
}
