/* LLVM -time-passes reports (llc, opt): one or more TimerGroup sections
 *   ===----===
 *        <Section title>
 *   ===----===
 *     Total Execution Time: U seconds (W wall clock)
 *     ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
 *     rows "time (pct%)" × columns, then the name; last row "Total"
 * Columns differ per section (llc 22's "Register Allocation" has no System column): read them from the header.
 *
 * Counting rule: "Pass execution timing report" (legacy and new PM), "Analysis execution timing report" (new PM
 * pauses a pass's timer while an analysis it asks for runs, so the two are disjoint) and "LLVM IR Parsing" time
 * separate work: their rows are counted and their totals summed into total_wall_s. Every other section
 * ("Instruction Selection and Scheduling", "Register Allocation", "DWARF Emission", ...) breaks down time
 * already inside one pass (X86 DAG->DAG Instruction Selection, Greedy Register Allocator, AsmPrinter): its rows
 * are DETAIL. Each section's "Total" row is SUMMARY. Each section is one report block (report_index).
 *
 * Titles across LLVM/clang 14-22: LLVM <= 15 (clang 14's -ftime-report) centres "... Pass execution timing
 * report ..." (the dots are decoration: stripped); clang 14-19 add "Clang front-end time report" (one timer over
 * the whole compile) and "Miscellaneous Ungrouped Timers" (IR generation and code generation, which contain the
 * passes): both DETAIL. clang >= 20 prints "Clang time report" with four disjoint phases: "Front end" and "LLVM IR
 * generation" are work outside every pass timer (counted, their wall added to the total); "Optimizer" and
 * "Machine code generation" contain the pass report's rows (DETAIL). */
#include "parse_internal.h"
#include "parse_text.h"

#include <stdlib.h>
#include <string.h>

static int is_rule(const char *l)
{
    return strncmp(l, "===", 3) == 0 && strstr(l, "-----") != NULL;
}

enum { SECTION_DETAIL, SECTION_COUNTED, SECTION_CLANG_PHASES };

static int section_kind(const char *title)
{
    if (strcmp(title, "Pass execution timing report") == 0 || strcmp(title, "Analysis execution timing report") == 0 ||
        strcmp(title, "LLVM IR Parsing") == 0)
        return SECTION_COUNTED;
    return strcmp(title, "Clang time report") == 0 ? SECTION_CLANG_PHASES : SECTION_DETAIL;
}

/* clang >= 20 phases that no pass timer covers */
static int clang_phase_counted(const char *name)
{
    return strcmp(name, "Front end") == 0 || strcmp(name, "LLVM IR generation") == 0;
}

/* A copy of the centred title without its "..." decoration. */
static char *title_dup(const char *line)
{
    char *t = pm_trim_dup(line);
    if (!t)
        return NULL;
    size_t a = strspn(t, ". "), n = strlen(t);
    while (n > a && (t[n - 1] == '.' || t[n - 1] == ' '))
        n--;
    memmove(t, t + a, n - a);
    t[n - a] = '\0';
    return t;
}

static void add_total(double *total, double v)
{
    *total = (*total < 0 ? 0 : *total) + v;
}

int pm_parse_llvm_text(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    pm_lines L;
    if (pm_lines_split(buf, len, &L))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory splitting input");
    int rc = PM_OK;
    char *title = NULL;
    pm_timing_cols cols = {0, -1, -1};
    int report_index = -1, kind = SECTION_DETAIL;
    for (size_t li = 0; li < L.n; li++) {
        const char *line = L.line[li];
        if (is_rule(line)) {
            /* the closing rule follows the title; tolerate a stray log line in between. Titles are centred
             * (indented), log lines usually start at column 0. */
            size_t close = 0, pick = 0;
            for (size_t j = li + 2; j < L.n && j <= li + 4 && !close; j++)
                if (is_rule(L.line[j]))
                    close = j;
            for (size_t j = li + 1; close && j < close && !pick; j++)
                if (L.line[j][0] == ' ')
                    pick = j;
            if (close && !pick)
                pick = li + 1;
            if (close && !is_rule(L.line[li + 1])) {
                free(title);
                if (!(title = title_dup(L.line[pick]))) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    goto cleanup;
                }
                kind = section_kind(title);
                report_index = out->n_reports++;
                cols.ncols = 0;
                li = close;
            }
            continue;
        }
        if (!title)
            continue;
        const char *t = strstr(line, "Total Execution Time:");
        if (t) {
            /* "U seconds (W wall clock)": the wall figure is the one in parentheses */
            const char *w = strchr(t, '(');
            char *e;
            double v = w ? strtod(w + 1, &e) : 0;
            if (kind == SECTION_COUNTED && w && e != w + 1 && pm_time_ok(v))
                add_total(&out->total_wall_s, v);
            continue;
        }
        double vals[PM_TIMING_MAX_COLS];
        const char *rest;
        if (!pm_timing_line(line, &cols, vals, &rest))
            continue;
        char *name = pm_trim_dup(rest);
        if (!name) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        if (!*name) {
            free(name);
            continue;
        }
        pm_pass p = {0};
        p.name = name;
        p.section = title;
        p.wall_s = vals[cols.wall_col];
        p.user_s = cols.user_col >= 0 ? vals[cols.user_col] : -1;
        p.parent = -1;
        p.report_index = report_index;
        if (strcmp(name, "Total") == 0) {
            p.flags = PM_PASS_SUMMARY;
            if (kind == SECTION_COUNTED && p.user_s >= 0)
                add_total(&out->total_user_s, p.user_s);
        } else if (kind == SECTION_CLANG_PHASES && clang_phase_counted(name)) {
            add_total(&out->total_wall_s, p.wall_s);
            if (p.user_s >= 0)
                add_total(&out->total_user_s, p.user_s);
        } else if (kind != SECTION_COUNTED) {
            p.flags = PM_PASS_DETAIL;
        }
        rc = pm_report_add_pass(out, &p);
        free(name);
        if (rc) {
            pm_err_set(err, rc, "out of memory");
            goto cleanup;
        }
    }
cleanup:
    free(title);
    pm_lines_free(&L);
    return rc;
}

int pm_parse_llvm_json(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    /* llc/opt 22 have no -time-passes-json, and -stats-json prints no timers in Debian's build (stats off). */
    return pm_err_set(err, PM_ERR_UNSUPPORTED,
                      "llvm-json: LLVM 22 has no JSON -time-passes output; use the text report or --time-trace "
                      "(chrome-trace)");
}
