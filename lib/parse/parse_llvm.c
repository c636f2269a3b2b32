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
 * are DETAIL. Each section's "Total" row is SUMMARY. Each section is one report block (report_index). */
#include "parse_internal.h"
#include "parse_text.h"

#include <stdlib.h>
#include <string.h>

static int is_rule(const char *l)
{
    return strncmp(l, "===", 3) == 0 && strstr(l, "-----") != NULL;
}

static int counted_section(const char *title)
{
    return strcmp(title, "Pass execution timing report") == 0 ||
           strcmp(title, "Analysis execution timing report") == 0 || strcmp(title, "LLVM IR Parsing") == 0;
}

int pm_parse_llvm_text(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    pm_lines L;
    if (pm_lines_split(buf, len, &L))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory splitting input");
    int rc = PM_OK;
    char *title = NULL;
    pm_timing_cols cols = {0, -1, -1};
    int report_index = -1, counted = 0;
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
                if (!(title = pm_trim_dup(L.line[pick]))) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    goto cleanup;
                }
                counted = counted_section(title);
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
            if (counted && w && e != w + 1)
                out->total_wall_s = (out->total_wall_s < 0 ? 0 : out->total_wall_s) + v;
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
            if (counted && p.user_s >= 0)
                out->total_user_s = (out->total_user_s < 0 ? 0 : out->total_user_s) + p.user_s;
        } else if (!counted) {
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
