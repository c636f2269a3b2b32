/* Helpers shared by the text timing-report parsers (MLIR and LLVM print the same column layout). */
#ifndef PM_PARSE_TEXT_H
#define PM_PARSE_TEXT_H

#include <stddef.h>

typedef struct pm_lines {
    char **line;  /* NUL-terminated, ANSI colour codes and trailing CR/LF removed */
    size_t n;
} pm_lines;

/* Sniffing helpers: needle anywhere in buf; buf starts (after white space) as JSON does ('[' or '{' and what
 * JSON allows next: a log line such as "[INFO] ..." is not JSON). */
int pm_text_contains(const char *buf, size_t len, const char *needle);
int pm_text_is_json(const char *buf, size_t len);

/* Splits buf into lines; returns PM_OK or PM_ERR_NOMEM. */
int pm_lines_split(const char *buf, size_t len, pm_lines *out);
void pm_lines_free(pm_lines *l);

/* Column header ("---User Time---   ---Wall Time---  --- Name ---"): number of time columns before Name and the
 * indexes of the wall and user columns (-1 when absent). Returns 0 when the line is not such a header. */
int pm_timing_header(const char *line, int *ncols, int *wall_col, int *user_col);

/* A row of ncols "value (pct%)" columns then the name (a column may lack the "(pct%)" part). Fills vals[0..ncols)
 * and *rest (the text right after the last column). Returns 0 when the line is not a row. */
int pm_timing_row(const char *line, int ncols, double *vals, const char **rest);

/* The column layout of the table being read; ncols 0 until a header line sets it. */
typedef struct pm_timing_cols {
    int ncols, wall_col, user_col;
} pm_timing_cols;
#define PM_TIMING_MAX_COLS 8

/* One line of a timing table: a header updates *cols (returns 0); a row under a known header fills vals and
 * *rest and returns 1; anything else (blank, interleaved log line) returns 0. */
int pm_timing_line(const char *line, pm_timing_cols *cols, double vals[PM_TIMING_MAX_COLS], const char **rest);

/* Copy of s without leading/trailing white space (NULL on out of memory). */
char *pm_trim_dup(const char *s);
/* At an ESC at s[i] (of n bytes): the index of the escape's last byte, a CSI sequence's (ESC '[' params
 * final-byte) or the lone ESC's, so a copying loop's i++ steps past it. */
size_t pm_text_escape_end(const char *s, size_t i, size_t n);
/* p past its spaces and tabs. */
const char *pm_text_skip_blanks(const char *p);

#endif
