/* gcc -ftime-report (cc1, cc1plus, lto1): one "Time variable" table per compiler process
 *   Time variable                                   usr           sys          wall           GGC
 *    phase setup                        :   0.00 (  0%)   0.00 (  0%)   0.08 ( 11%)  1326k ( 63%)
 *    ...
 *    TOTAL                              :   0.05          0.02          0.70         2118k
 * Columns are read off the header (usr/sys/wall/GGC); GGC is memory. Times have a resolution of 0.01 s.
 *
 * Counting rule (measured on gcc 12, -O0 and -O2): gcc's timevars form a stack, a pushed timer pauses the one
 * below it, so the ordinary rows are disjoint and add up to TOTAL. The "phase ..." rows (setup, parsing, lang.
 * deferred, opt and generate, last asm, finalize) are independent start/stop timers that also add up to TOTAL:
 * GROUP, as are "callgraph functions expansion" and "callgraph ipa passes" (start/stop timers around the passes
 * they run; counting them made the sum 1.8x TOTAL). TOTAL is SUMMARY and the report's total. With
 * -ftime-report-details, rows printed as "`- name" break down the row above them: DETAIL. Each table is one
 * report block; several (one per cc1 of a multi-file gcc) add up. */
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define GCC_MAX_COLS 8
enum { COL_OTHER, COL_USR, COL_WALL };

/* "Time variable   usr   sys   wall   GGC": the kind of each value column; 0 when not the header. */
static int gcc_header(const char *line, int kinds[GCC_MAX_COLS], int *ncols)
{
    if (strncmp(line, "Time variable", 13) != 0)
        return 0;
    int n = 0;
    const char *p = line + 13;
    while (*p && n < GCC_MAX_COLS) {
        p = pm_text_skip_blanks(p);
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        size_t l = (size_t)(e - p);
        kinds[n++] = (l == 3 && memcmp(p, "usr", 3) == 0) ? COL_USR : (l == 4 && memcmp(p, "wall", 4) == 0) ? COL_WALL
                                                                                                          : COL_OTHER;
        p = e;
    }
    *ncols = n;
    return 1;
}

/* The values after "name :": "0.02 ( 40%)" per time column, "1326k ( 63%)" for GGC; the percentages are absent
 * on the TOTAL row. Returns 0 when the line does not hold ncols values. */
static int gcc_values(const char *p, int ncols, double vals[GCC_MAX_COLS])
{
    for (int c = 0; c < ncols; c++) {
        while (*p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        char *e;
        vals[c] = strtod(p, &e);
        if (e == p)
            return 0;
        p = e;
        if (*p == 'k' || *p == 'M' || *p == 'G' || *p == 'T')
            p++;
        while (*p == ' ')
            p++;
        if (*p == '(') {
            const char *q = strchr(p, ')');
            if (!q)
                return 0;
            p = q + 1;
        }
    }
    return 1;
}

static int gcc_group(const char *name)
{
    return strncmp(name, "phase ", 6) == 0 || strcmp(name, "callgraph functions expansion") == 0 ||
           strcmp(name, "callgraph ipa passes") == 0;
}

int pm_parse_gcc_text(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    pm_lines L;
    if (pm_lines_split(buf, len, &L))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory splitting input");
    int rc = PM_OK, kinds[GCC_MAX_COLS], ncols = 0, report_index = -1, wall_col = -1, usr_col = -1;
    for (size_t li = 0; li < L.n; li++) {
        const char *line = L.line[li];
        if (gcc_header(line, kinds, &ncols)) {
            wall_col = usr_col = -1;
            for (int c = 0; c < ncols; c++) {
                if (kinds[c] == COL_WALL)
                    wall_col = c;
                else if (kinds[c] == COL_USR)
                    usr_col = c;
            }
            report_index = wall_col >= 0 ? out->n_reports++ : -1;
            continue;
        }
        if (report_index < 0 || line[0] != ' ')
            continue;
        /* the last ':' ends the name: at 1000 s and more the value touches it (":1234.56"), and a name may hold
         * one itself */
        const char *colon = strrchr(line, ':');
        double vals[GCC_MAX_COLS];
        if (!colon)
            continue;   /* not a row: a table has only "name : values" lines */
        if (!gcc_values(colon + 1, ncols, vals) || !pm_time_ok(vals[wall_col]) ||
            (usr_col >= 0 && !pm_time_ok(vals[usr_col]))) {
            pm_report_skip(out, "line %zu: '%.100s'", li + 1, line);
            continue;
        }
        size_t nl = (size_t)(colon - line);
        char *raw = malloc(nl + 1);
        if (!raw) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(raw, line, nl);
        raw[nl] = '\0';
        char *name = pm_trim_dup(raw);
        free(raw);
        if (!name) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        pm_pass p = {0};
        p.section = pm_unconst("Time variable"); /* copied by pm_report_add_pass */
        p.wall_s = vals[wall_col];
        p.user_s = usr_col >= 0 ? vals[usr_col] : -1;
        p.parent = -1;
        p.report_index = report_index;
        p.name = name;
        if (strncmp(name, "`- ", 3) == 0) {
            p.name = name + 3;
            p.flags = PM_PASS_DETAIL;
        } else if (strcmp(name, "TOTAL") == 0) {
            p.flags = PM_PASS_SUMMARY;
            out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + p.wall_s;
            if (p.user_s >= 0)
                out->total_user_s = (out->total_user_s < 0 ? 0 : out->total_user_s) + p.user_s;
        } else if (gcc_group(name)) {
            p.flags = PM_PASS_GROUP;
        }
        rc = pm_report_add_pass(out, &p);
        free(name);
        if (rc) {
            pm_err_set(err, rc, "out of memory");
            goto cleanup;
        }
    }
cleanup:
    pm_lines_free(&L);
    return rc;
}

int pm_sniff_gcc(const char *buf, size_t len)
{
    /* the header at the start of a line, then gcc's TOTAL row */
    const char *h = memmem(buf, len, "Time variable", 13);
    if (!h || (h != buf && h[-1] != '\n'))
        return 0;
    return memmem(h, len - (size_t)(h - buf), " TOTAL ", 7) != NULL;
}

/* "   0.02 (  1%)": seconds, 2 decimals (gcc-12 -ftime-report) */
const pm_format_row pm_format_gcc_text = {"gcc-text", pm_parse_gcc_text, pm_sniff_gcc, 10, "gcc", 1e-2, 1};
