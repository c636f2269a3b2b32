#include "table.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

pm_table *pm_table_new(const char *id, const char *caption, const pm_col *cols, size_t n_cols)
{
    pm_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = strdup(id ? id : "table");
    t->caption = caption ? strdup(caption) : NULL;
    t->cols = malloc((n_cols ? n_cols : 1) * sizeof *t->cols);
    if (!t->id || (caption && !t->caption) || !t->cols) {
        pm_table_free(t);
        return NULL;
    }
    memcpy(t->cols, cols, n_cols * sizeof *cols);
    t->n_cols = n_cols;
    return t;
}

void pm_table_free(pm_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        pm_free_all(t->cells[i].text, t->cells[i].href, t->cells[i].tip);
    pm_free_all(t->cells, t->row_class, t->cols, t->id, t->caption, t);
}

long pm_table_add_row(pm_table *t)
{
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
        pm_cell *c = realloc(t->cells, cap * t->n_cols * sizeof *c);
        if (!c)
            return -1;
        t->cells = c;
        const char **rc = realloc(t->row_class, cap * sizeof *rc);
        if (!rc)
            return -1;
        t->row_class = rc;
        t->cap_rows = cap;
    }
    pm_cell *row = &t->cells[t->n_rows * t->n_cols];
    for (size_t k = 0; k < t->n_cols; k++)
        row[k] = (pm_cell){.value = NAN};
    t->row_class[t->n_rows] = NULL;
    return (long)t->n_rows++;
}

void pm_table_row_class(pm_table *t, size_t row, const char *cls)
{
    if (row < t->n_rows)
        t->row_class[row] = cls;
}

static pm_cell *cell(const pm_table *t, size_t row, size_t col) { return &t->cells[row * t->n_cols + col]; }

int pm_table_set(pm_table *t, size_t row, size_t col, const char *text, double value)
{
    pm_cell *c = cell(t, row, col);
    free(c->text);
    c->text = text ? strdup(text) : NULL;
    c->value = value;
    return text && !c->text ? PM_ERR_NOMEM : PM_OK;
}

int pm_table_setf(pm_table *t, size_t row, size_t col, double value, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return pm_table_set(t, row, col, buf, value);
}

int pm_table_link(pm_table *t, size_t row, size_t col, const char *href, const char *tip)
{
    pm_cell *c = cell(t, row, col);
    free(c->href);
    free(c->tip);
    c->href = href ? strdup(href) : NULL;
    c->tip = tip ? strdup(tip) : NULL;
    return (href && !c->href) || (tip && !c->tip) ? PM_ERR_NOMEM : PM_OK;
}

static const char *text_of(const pm_cell *c) { return c->text ? c->text : "-"; }

/* Display width in columns (one per code point; the report's text is ASCII plus a few symbols). */
static int width_of(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *out, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', out);
}

/* Line `line` (from 0) of s wrapped to w columns: breaks at the last space that fits, else mid-word (a word
 * longer than the column). Sets *len (bytes) and returns the line's start, or NULL past the last line. */
static const char *wrap_line(const char *s, int w, int line, int *len)
{
    for (int l = 0; *s; l++) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *p = s, *brk = NULL;
        int cols = 0;
        for (; *p; p++) {
            if (((unsigned char)*p & 0xC0) == 0x80)
                continue;
            if (cols == w)
                break;
            if (*p == ' ')
                brk = p;
            cols++;
        }
        const char *end = !*p ? p : *p == ' ' ? p : brk ? brk : p;
        if (end == s)   /* a column narrower than one character still moves on */
            for (end++; ((unsigned char)*end & 0xC0) == 0x80; end++)
                ;
        if (l == line) {
            while (end > s && end[-1] == ' ')
                end--;
            *len = (int)(end - s);
            return s;
        }
        s = end;
    }
    *len = 0;
    return NULL;
}

void pm_fmt_wrapped(FILE *out, const char *s, int first, int indent, int width)
{
    int len, w0 = width - first > 20 ? width - first : 20, w = width - indent > 20 ? width - indent : 20;
    const char *l = wrap_line(s, w0, 0, &len);
    if (!l) {
        fputc('\n', out);
        return;
    }
    fprintf(out, "%.*s\n", len, l);
    const char *rest = l + len;
    for (int i = 0; (l = wrap_line(rest, w, i, &len)); i++) {
        pad(out, indent);
        fprintf(out, "%.*s\n", len, l);
    }
}

static int n_lines(const char *s, int w)
{
    int n = 0, len;
    while (wrap_line(s, w, n, &len))
        n++;
    return n ? n : 1;
}

static int width_n(const char *s, int len)
{
    int w = 0;
    for (int i = 0; i < len; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

int pm_table_text(const pm_table *t, FILE *out, int width)
{
    int *w = calloc(t->n_cols ? t->n_cols : 1, sizeof *w);
    if (!w)
        return PM_ERR_NOMEM;
    for (size_t k = 0; k < t->n_cols; k++) {
        w[k] = width_of(t->cols[k].title);
        for (size_t r = 0; r < t->n_rows; r++)
            if (width_of(text_of(cell(t, r, k))) > w[k])
                w[k] = width_of(text_of(cell(t, r, k)));
    }
    /* long text (a fix's words, a pipeline) wraps beside column 0 instead of pushing the row past the width */
    int cap = width - w[0] - 2 < 24 ? 24 : width - w[0] - 2;
    for (size_t k = 1; k < t->n_cols; k++)
        if (!t->cols[k].unit && w[k] > cap)
            w[k] = cap < width_of(t->cols[k].title) ? width_of(t->cols[k].title) : cap;
    if (t->caption)
        fprintf(out, "%s\n", t->caption);
    /* blocks of columns that fit; every block after the first repeats column 0 so rows stay readable */
    size_t k0 = 1;
    do {
        size_t k1 = k0;
        int used = w[0];
        while (k1 < t->n_cols && (k1 == k0 || used + 2 + w[k1] <= width)) {
            used += 2 + w[k1];
            k1++;
        }
        if (k0 > 1)
            fputc('\n', out);
        for (size_t k = 0; k < t->n_cols; k++) {
            if (k != 0 && (k < k0 || k >= k1))
                continue;
            if (k)
                fputs("  ", out);
            int tw = width_of(t->cols[k].title);
            if (t->cols[k].unit && k) {
                pad(out, w[k] - tw);
                fputs(t->cols[k].title, out);
            } else {
                fputs(t->cols[k].title, out);
                if (k + 1 < k1)
                    pad(out, w[k] - tw);
            }
        }
        fputc('\n', out);
        for (size_t r = 0; r < t->n_rows; r++) {
            int lines = 1;
            for (size_t k = k0; k < k1; k++)
                if (!t->cols[k].unit) {
                    int n = n_lines(text_of(cell(t, r, k)), w[k]);
                    lines = n > lines ? n : lines;
                }
            for (int l = 0; l < lines; l++) {
                for (size_t k = 0; k < t->n_cols; k++) {
                    if (k != 0 && (k < k0 || k >= k1))
                        continue;
                    const char *s = text_of(cell(t, r, k));
                    int len = (int)strlen(s);
                    if (k && !t->cols[k].unit) {   /* wrapped text: this line of it */
                        s = wrap_line(s, w[k], l, &len);
                        if (!s)
                            s = "", len = 0;
                    } else if (l) {   /* column 0 and numbers: on the row's first line only */
                        s = "", len = 0;
                    }
                    int sw = width_n(s, len);
                    if (k)
                        fputs("  ", out);
                    if (t->cols[k].unit && k) {   /* numbers right-aligned */
                        pad(out, w[k] - sw);
                        fwrite(s, 1, (size_t)len, out);
                    } else {
                        fwrite(s, 1, (size_t)len, out);
                        if (k + 1 < k1)
                            pad(out, w[k] - sw);
                    }
                }
                fputc('\n', out);
            }
        }
        k0 = k1;
    } while (k0 < t->n_cols);
    free(w);
    return ferror(out) ? PM_ERR_IO : PM_OK;
}

static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

int pm_table_markdown(const pm_table *t, FILE *out)
{
    if (t->caption)
        fprintf(out, "**%s**\n\n", t->caption);
    fputc('|', out);
    for (size_t k = 0; k < t->n_cols; k++) {
        fputc(' ', out);
        md_cell(out, t->cols[k].title);
        fputs(" |", out);
    }
    fputs("\n|", out);
    for (size_t k = 0; k < t->n_cols; k++)
        fputs(t->cols[k].unit ? "---:|" : "---|", out);
    fputc('\n', out);
    for (size_t r = 0; r < t->n_rows; r++) {
        fputc('|', out);
        for (size_t k = 0; k < t->n_cols; k++) {
            fputc(' ', out);
            const pm_cell *c = cell(t, r, k);
            if (c->href && c->href[0] != '#') {
                fputc('[', out);
                md_cell(out, text_of(c));
                fprintf(out, "](%s)", c->href);
            } else {
                md_cell(out, text_of(c));
            }
            fputs(" |", out);
        }
        fputc('\n', out);
    }
    return ferror(out) ? PM_ERR_IO : PM_OK;
}

void pm_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

int pm_table_html(const pm_table *t, FILE *out, int filter)
{
    fputs("<div class=tbl>", out);
    if (filter) {
        fputs("<input type=search class=filter placeholder=\"filter rows\" aria-label=\"filter rows\" data-for=\"", out);
        pm_html_esc(out, t->id);
        fputs("\">", out);
    }
    fputs("<div class=tw><table class=sortable id=\"", out);
    pm_html_esc(out, t->id);
    fputs("\">", out);
    if (t->caption) {
        fputs("<caption>", out);
        pm_html_esc(out, t->caption);
        fputs("</caption>", out);
    }
    fputs("<thead><tr>", out);
    for (size_t k = 0; k < t->n_cols; k++) {   /* data-lead: a decisive column (the width test's) */
        fprintf(out, "<th%s%s title=\"sort\">", t->cols[k].unit ? " class=n data-num=1" : "",
                k < t->n_lead ? " data-lead=1" : "");
        pm_html_esc(out, t->cols[k].title);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 0; r < t->n_rows; r++) {
        if (t->row_class[r]) {
            fputs("<tr class=", out);
            pm_html_esc(out, t->row_class[r]);
            fputs(">", out);
        } else {
            fputs("<tr>", out);
        }
        for (size_t k = 0; k < t->n_cols; k++) {
            const pm_cell *c = cell(t, r, k);
            fputs(t->cols[k].unit ? "<td class=n" : "<td", out);
            if (!isnan(c->value) && !isinf(c->value))
                fprintf(out, " data-v=\"%.9g\"", c->value);
            if (c->tip) {
                fputs(" title=\"", out);
                pm_html_esc(out, c->tip);
                fputc('"', out);
            }
            fputc('>', out);
            if (c->href) {
                fputs("<a href=\"", out);
                pm_html_esc(out, c->href);
                fputs("\">", out);
            }
            if (c->text)
                pm_html_esc(out, c->text);
            else
                fputs("&ndash;", out);
            if (c->href)
                fputs("</a>", out);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></div>\n", out);
    return ferror(out) ? PM_ERR_IO : PM_OK;
}

json_t *pm_table_json(const pm_table *t)
{
    json_t *cols = json_array(), *rows = json_array();
    for (size_t k = 0; k < t->n_cols; k++)
        json_array_append_new(cols, json_pack("{s:s,s:s,s:o}", "key", t->cols[k].key, "title", t->cols[k].title, "unit",
                                              t->cols[k].unit ? json_string(t->cols[k].unit) : json_null()));
    for (size_t r = 0; r < t->n_rows; r++) {
        json_t *o = json_object();
        for (size_t k = 0; k < t->n_cols; k++) {
            const pm_cell *c = cell(t, r, k);
            json_t *v;
            if (t->cols[k].unit)
                v = isnan(c->value) || isinf(c->value) ? json_null() : json_real(c->value);
            else
                v = c->text ? json_string(c->text) : json_null();
            json_object_set_new(o, t->cols[k].key, v);
        }
        json_array_append_new(rows, o);
    }
    return json_pack("{s:s,s:o,s:o}", "id", t->id, "columns", cols, "rows", rows);
}

void pm_fmt_seconds(char *buf, size_t n, double s)
{
    if (isnan(s) || s < 0)
        snprintf(buf, n, "-");
    else
        pm_fmt_time(buf, n, s, 0);   /* the one duration format */
}

void pm_fmt_interval(char *buf, size_t n, double mean, double lo, double hi, int count)
{
    char m[32];
    pm_fmt_seconds(m, sizeof m, mean);
    if (isnan(mean))
        snprintf(buf, n, "-");
    else
        pm_fmt_interval_of(buf, n, m, lo, hi, count);
}

void pm_fmt_interval_of(char *buf, size_t n, const char *value, double lo, double hi, int count)
{
    if (isnan(lo) || isnan(hi) || lo <= 0 || hi <= 0)
        snprintf(buf, n, "%s (n=%d, no interval)", value, count);
    else {   /* both ends, relative to the geometric mean: a log-scale interval is asymmetric ("[-27%, +37%]",
              * never "±37%" for it) */
        double g = sqrt(lo * hi), dl = (lo / g - 1) * 100, dh = (hi / g - 1) * 100;
        snprintf(buf, n, "%s [%+.*f%%, %+.*f%%]", value, fabs(dl) < 10 ? 1 : 0, dl, dh < 10 ? 1 : 0, dh);
    }
}

void pm_fmt_time(char *buf, size_t n, double s, int sign)
{
    if (isnan(s) || isinf(s)) {
        snprintf(buf, n, "-");
        return;
    }
    /* 4 significant digits in the unit that keeps 1-999 of it: "993.7 ms", "1.208 s", "8.902 ms", "12.35 s" */
    double a = fabs(s);
    if (a == 0) {
        snprintf(buf, n, "%s0 s", sign ? "+" : "");
        return;
    }
    const char *unit = a >= 1 ? "s" : a >= 1e-3 ? "ms" : a >= 1e-6 ? "us" : "ns";
    double scale = a >= 1 ? 1 : a >= 1e-3 ? 1e3 : a >= 1e-6 ? 1e6 : 1e9, v = s * scale, av = a * scale;
    int prec = av >= 99.995 ? 1 : av >= 9.9995 ? 2 : 3;
    if (a >= 1 && av >= 999.95)   /* whole seconds past a thousand */
        prec = 0;
    if (sign)
        snprintf(buf, n, "%+.*f %s", prec, v, unit);
    else
        snprintf(buf, n, "%.*f %s", prec, v, unit);
}

void pm_fmt_ratio_num(char *buf, size_t n, double r)
{
    if (isnan(r) || isinf(r) || r < 0)
        snprintf(buf, n, "-");
    else if (r >= 1e4)   /* an interval no test bounds: its end in powers of ten */
        snprintf(buf, n, "%.3g", r);
    else if (r >= 100)
        snprintf(buf, n, "%.0f", r);
    else if (r >= 10)
        snprintf(buf, n, "%.1f", r);
    else if (r >= 1)
        snprintf(buf, n, "%.2f", r);
    else if (r >= 0.1)
        snprintf(buf, n, "%.3f", r);
    else
        snprintf(buf, n, "%.3g", r);
}

void pm_fmt_ratio(char *buf, size_t n, double r)
{
    pm_fmt_ratio_num(buf, n, r);
    if (strcmp(buf, "-"))
        snprintf(buf + strlen(buf), n > strlen(buf) ? n - strlen(buf) : 0, "\u00d7");
}

void pm_fmt_share(char *buf, size_t n, double fraction)
{
    if (isnan(fraction))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f%%", fraction * 100);
}
