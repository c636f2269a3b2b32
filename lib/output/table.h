/* pm_table: the one table model of the output layer. A report table is built once (columns with units,
 * cells with display text and a numeric value) and rendered as text (fits a width: column blocks that do
 * not fit repeat the first column below, nothing is cut), Markdown, HTML (sortable, filterable, numbers
 * right-aligned) or JSON (values in base units, with the units beside them). */
#ifndef PM_TABLE_H
#define PM_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "error.h"

typedef struct pm_col {
    const char *key;      /* JSON key */
    const char *title;    /* header text */
    const char *unit;     /* unit of the values ("s", "fraction", "ratio", "kB" ...) or NULL for text */
} pm_col;

typedef struct pm_cell {
    char *text;           /* as displayed ("1.23 s ±4%"); NULL: empty */
    double value;         /* numeric value in the column's unit (sorting, JSON); NAN: none */
    char *href;           /* HTML link target, or NULL */
    char *tip;            /* HTML hover text, or NULL */
} pm_cell;

typedef struct pm_table {
    char *id, *caption;
    pm_col *cols;
    size_t n_cols;
    pm_cell *cells;       /* row-major, n_rows * n_cols */
    size_t n_rows, cap_rows;
    const char **row_class; /* per row: its HTML class (a string that outlives the table, not copied), or NULL */
    size_t n_lead;        /* the first n_lead columns are the decisive ones (what a reader needs without scrolling):
                             HTML marks their headers data-lead; 0: none marked */
} pm_table;

pm_table *pm_table_new(const char *id, const char *caption, const pm_col *cols, size_t n_cols);
void pm_table_free(pm_table *t);
/* Appends an empty row; returns its index, or -1 when out of memory. */
long pm_table_add_row(pm_table *t);
/* Marks a row with an HTML class (e.g. "instrumented": styled apart); cls must outlive the table. */
void pm_table_row_class(pm_table *t, size_t row, const char *cls);
/* Sets a cell (text copied; value NAN for a text cell). PM_ERR_NOMEM. */
int pm_table_set(pm_table *t, size_t row, size_t col, const char *text, double value);
int pm_table_setf(pm_table *t, size_t row, size_t col, double value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int pm_table_link(pm_table *t, size_t row, size_t col, const char *href, const char *tip);

/* Text fitted to width: a text column wider than the width left beside column 0 wraps at spaces; column blocks
 * that do not fit repeat column 0 below. */
int pm_table_text(const pm_table *t, FILE *out, int width);
int pm_table_markdown(const pm_table *t, FILE *out);
/* filter: 1 adds a filter box above the table. */
int pm_table_html(const pm_table *t, FILE *out, int filter);
/* {"columns":[{"key","title","unit"}], "rows":[{key: value}]}: numeric cells as numbers (null when none),
 * text cells as strings. New reference. */
json_t *pm_table_json(const pm_table *t);

/* Display helpers shared by every renderer. */
void pm_fmt_seconds(char *buf, size_t n, double s);                 /* pm_fmt_time, "-" when negative */
/* "1.23 s [-3.8%, +4.0%]" from a log-scale interval (its ends relative to the geometric mean: asymmetric); n<3 or no
 * interval: "1.23 s (n=2, no interval)" */
void pm_fmt_interval(char *buf, size_t n, double mean, double lo, double hi, int count);
void pm_fmt_share(char *buf, size_t n, double fraction);            /* "12.3%" */
/* The same " [-3.8%, +4.0%]" (or " (n=2, no interval)") after an already formatted value ("872 ms", "0.912×"). */
void pm_fmt_interval_of(char *buf, size_t n, const char *value, double lo, double hi, int count);
/* The one ratio precision of every table, headline and label: three significant digits ("0.924", "1.19", "48.0",
 * "219"); pm_fmt_ratio adds the "\u00d7" ("1.19\u00d7"). Intervals of ratios print their ends with it too. */
void pm_fmt_ratio_num(char *buf, size_t n, double r);
void pm_fmt_ratio(char *buf, size_t n, double r);
/* The one duration format of every table, headline and terminal line: 4 significant digits in the unit that
 * keeps 1-999 of it ("1.234 s", "12.34 ms", "456.7 us"); sign: "+12.34 ms" */
void pm_fmt_time(char *buf, size_t n, double s, int sign);

/* s and a newline, wrapped at spaces to width columns: its first line after `first` columns already printed on
 * it, the lines after it indented by `indent` spaces (the text report's headline, one answer a line). */
void pm_fmt_wrapped(FILE *out, const char *s, int first, int indent, int width);

/* HTML escaping for every HTML writer. */
void pm_html_esc(FILE *f, const char *s);

#endif
