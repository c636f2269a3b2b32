/* LLVM -time-passes reports (llc, opt): one or more TimerGroup sections
 *   ===----===
 *        <Section title>
 *   ===----===
 *     Total Execution Time: U seconds (W wall clock)
 *     ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
 *     rows "time (pct%)" × columns, then the name; last row "Total"
 * Columns differ per section (llc 22's "Register Allocation" has no System column): read them from the header.
 *
 * Counting rule (each row's time is counted once; measured on opt/llc/clang 14, 16, 19 and 22):
 * - Legacy pass manager (llc, clang's code generation, opt -enable-new-pm=0): analyses are passes scheduled apart
 *   from the passes that use them; every row of "Pass execution timing report" is disjoint work: counted.
 * - New pass manager (opt -passes, clang's optimizer): TimePassesHandler does not pause a pass's timer while an
 *   analysis it requests runs, so analysis time is already inside the pass rows. LLVM >= 16 prints the analyses
 *   in their own "Analysis execution timing report": DETAIL. LLVM <= 15 prints them in the one "... Pass
 *   execution timing report ..." list and does not pause any timer for nested passes either: there the new-PM
 *   analysis rows (class names ending in Analysis/AA/Proxy) are DETAIL and the wrappers that run other passes
 *   (ModuleInlinerWrapperPass, DevirtSCCRepeatedPass, *PassManager, *PassAdaptor) are GROUP.
 *   (opt-22 -passes=verify: VerifierPass = VerifierAnalysis to the digit.)
 * - "LLVM IR Parsing" is work before any pass: counted. Every other section ("Instruction Selection and
 *   Scheduling", "Register Allocation", "DWARF Emission", ...) breaks down time already inside one pass: DETAIL.
 *   Each section's "Total" row is SUMMARY. Each section is one report block (report_index).
 * - clang's phases. clang >= 20 prints "Clang time report" with four disjoint phases: "Front end" and "LLVM IR
 *   generation" hold no pass (counted); "Optimizer" (the new-PM rows) and "Machine code generation" (the legacy
 *   rows) contain the pass rows (DETAIL), and the time each holds outside its passes becomes a counted row
 *   "clang: <phase> (outside passes)". clang 14-19 print "Clang front-end time report" (one timer over the whole
 *   compile) and "Miscellaneous Ungrouped Timers" ("LLVM IR Generation Time", counted; "Code Generation Time",
 *   the optimizer and code generation together): "clang: Front end (outside passes)" = the whole compile less
 *   those two, "clang: Code generation (outside passes)" = code generation less its pass rows.
 * total_wall_s is the sum of the counted rows (the clang phase total when phases are printed): a new-PM Total row
 * of LLVM <= 15 adds nested and analysis timers and is not a total of anything. */
#include "parse_internal.h"
#include "parse_text.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_rule(const char *l)
{
    return strncmp(l, "===", 3) == 0 && strstr(l, "-----") != NULL;
}

enum { SECTION_DETAIL, SECTION_COUNTED, SECTION_CLANG_PHASES };

static const char *const PASS_TITLE = "Pass execution timing report";
static const char *const ANALYSIS_TITLE = "Analysis execution timing report";

static int section_kind(const char *title)
{
    if (strcmp(title, PASS_TITLE) == 0 || strcmp(title, "LLVM IR Parsing") == 0)
        return SECTION_COUNTED;
    return strcmp(title, "Clang time report") == 0 ? SECTION_CLANG_PHASES : SECTION_DETAIL;
}

/* clang >= 20 phases that no pass timer covers */
static int clang_phase_counted(const char *name)
{
    return strcmp(name, "Front end") == 0 || strcmp(name, "LLVM IR generation") == 0;
}

/* Length of the C++ class name a new-PM row starts with ("InstCombinePass", "RequireAnalysisPass<...>": up to
 * the '<'), or 0 when the name is not one (legacy rows are descriptions with spaces: "Live Variable Analysis"). */
static size_t class_name_len(const char *name)
{
    size_t n = 0;
    while (name[n] && name[n] != '<') {
        char c = name[n];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ':'))
            return 0;
        n++;
    }
    return n;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A new-PM analysis (its time is inside the pass that asked for it). */
static int newpm_analysis(const char *name)
{
    size_t n = class_name_len(name);
    return n && (ends_with(name, n, "Analysis") || ends_with(name, n, "AA") || ends_with(name, n, "AAManager") ||
                 ends_with(name, n, "Proxy"));
}

/* A new-PM pass row ("InstCombinePass", "RequireAnalysisPass<...>"): a block holding one is the new pass manager's. */
static int newpm_pass(const char *name)
{
    size_t n = class_name_len(name);
    return n && (name[n] == '<' || ends_with(name, n, "Pass"));
}

/* Whether the pass report block `index` (rows first..) is the new pass manager's. The legacy pass manager (llc,
 * clang's code generation) names a few passes by class too: "ReachingDefAnalysis" (LLVM <= 19) is a legacy
 * machine pass, scheduled apart like every legacy row, not an analysis inside another pass's time. */
static int newpm_block(const pm_report *out, size_t first, int index)
{
    for (size_t i = first; i < out->n_passes; i++)
        if (out->passes[i].report_index == index && newpm_pass(out->passes[i].name))
            return 1;
    return 0;
}

/* A new-PM pass that runs other passes (LLVM <= 15 times it around them). */
static int newpm_wrapper(const char *name)
{
    size_t n = class_name_len(name);
    return n && (ends_with(name, n, "ModuleInlinerWrapperPass") || ends_with(name, n, "DevirtSCCRepeatedPass") ||
                 ends_with(name, n, "PassManager") || ends_with(name, n, "PassAdaptor"));
}

/* A new-PM row (clang's optimizer) as opposed to a legacy one (clang's code generation) in clang >= 20's merged
 * pass list. The legacy X86 "BreakFalseDeps" is a class-like name too: legacy unless it looks like a new-PM pass. */
static int newpm_row(const char *name)
{
    size_t n = class_name_len(name);
    if (!n)
        return 0;
    return name[n] == '<' || ends_with(name, n, "Pass") || ends_with(name, n, "Analysis") ||
           ends_with(name, n, "AA") || ends_with(name, n, "Proxy") || ends_with(name, n, "Wrapper") ||
           strcmp(name, "InjectTLIMappings") == 0 || strcmp(name, "MemProfRemoveInfo") == 0;
}

/* user: the phase's user time less its rows' (-1: a row without one; then unknown) */
static int add_synthetic(pm_report *out, const char *name, double wall, double user, int report_index)
{
    pm_pass p = {0};
    p.name = pm_unconst(name);
    p.section = pm_unconst("passmap: time a clang phase holds outside its pass rows");
    p.wall_s = wall;
    p.user_s = user < 0 ? -1 : user;
    p.parent = -1;
    p.report_index = report_index;
    return pm_report_add_pass(out, &p);
}

/* A phase's user time outside its rows: -1 when either is unknown (NaN), never below 0. */
static double user_left(double phase, double rows)
{
    if (isnan(phase) || isnan(rows))
        return -1;
    return phase > rows ? phase - rows : 0;
}

/* The counting rule above, applied once every section of this input is read (their order varies by version). */
static int reconcile(pm_report *out, size_t first, double total_before, double user_before, pm_err *err)
{
    int have_phases = 0, phase_index = -1;
    double ph_opt = -1, ph_cg = -1, ph_total = -1, fe_timer = -1, cg_time = -1, irgen_time = -1;
    double sum_newpm = 0, sum_legacy = 0;
    /* the same of user time (the phases' own, for the synthetic rows' user); NaN once a row has none */
    double u_opt = NAN, u_cg = NAN, u_fe = NAN, u_cgt = NAN, u_irgen = NAN, u_newpm = 0, u_legacy = 0;
    int block = -1, block_newpm = 0;
    for (size_t i = first; i < out->n_passes; i++) {
        pm_pass *p = &out->passes[i];
        const char *sec = p->section ? p->section : "";
        if (p->flags & PM_PASS_SUMMARY) {
            if (strcmp(sec, "Clang time report") == 0) {
                ph_total = p->wall_s;
                phase_index = p->report_index;
            }
            continue;
        }
        if (strcmp(sec, ANALYSIS_TITLE) == 0) {
            p->flags |= PM_PASS_ANALYSIS | PM_PASS_DETAIL;
        } else if (strcmp(sec, PASS_TITLE) == 0) {
            if (p->report_index != block)
                block = p->report_index, block_newpm = newpm_block(out, first, block);
            if (block_newpm && newpm_analysis(p->name))
                p->flags |= PM_PASS_ANALYSIS | PM_PASS_DETAIL;
            else if (newpm_wrapper(p->name))
                p->flags |= PM_PASS_GROUP;
            if (pm_pass_counted(p)) {
                *(newpm_row(p->name) ? &sum_newpm : &sum_legacy) += p->wall_s;
                *(newpm_row(p->name) ? &u_newpm : &u_legacy) += p->user_s >= 0 ? p->user_s : NAN;
            }
        } else if (strcmp(sec, "Clang time report") == 0) {
            have_phases = 1;
            if (strcmp(p->name, "Optimizer") == 0)
                ph_opt = p->wall_s, u_opt = p->user_s >= 0 ? p->user_s : NAN;
            else if (strcmp(p->name, "Machine code generation") == 0)
                ph_cg = p->wall_s, u_cg = p->user_s >= 0 ? p->user_s : NAN;
        } else if (strcmp(sec, "Clang front-end time report") == 0 && strcmp(p->name, "Clang front-end timer") == 0) {
            fe_timer = p->wall_s;
            u_fe = p->user_s >= 0 ? p->user_s : NAN;
            phase_index = p->report_index;
        } else if (strcmp(sec, "Miscellaneous Ungrouped Timers") == 0) {
            if (strcmp(p->name, "Code Generation Time") == 0) {
                cg_time = p->wall_s;
                u_cgt = p->user_s >= 0 ? p->user_s : NAN;
            } else if (strcmp(p->name, "LLVM IR Generation Time") == 0) {
                irgen_time = p->wall_s;
                u_irgen = p->user_s >= 0 ? p->user_s : NAN;
                p->flags &= ~(unsigned)PM_PASS_DETAIL; /* no pass runs during IR generation */
            }
        }
    }
    int rc = PM_OK;
    if (have_phases) {
        if (ph_opt > sum_newpm)
            rc = add_synthetic(out, "clang: Optimizer (outside passes)", ph_opt - sum_newpm,
                               user_left(u_opt, u_newpm), phase_index);
        if (!rc && ph_cg > sum_legacy)
            rc = add_synthetic(out, "clang: Machine code generation (outside passes)", ph_cg - sum_legacy,
                               user_left(u_cg, u_legacy), phase_index);
    } else if (fe_timer >= 0 && cg_time >= 0 && irgen_time >= 0) {
        double fe = fe_timer - cg_time - irgen_time, outside = cg_time - sum_newpm - sum_legacy;
        if (fe > 0)
            rc = add_synthetic(out, "clang: Front end (outside passes)", fe, user_left(u_fe, u_cgt + u_irgen),
                               phase_index);
        if (!rc && outside > 0)
            rc = add_synthetic(out, "clang: Code generation (outside passes)", outside,
                               user_left(u_cgt, u_newpm + u_legacy), phase_index);
        ph_total = fe_timer;
    }
    if (rc)
        return pm_err_set(err, rc, "out of memory");
    /* the pass and parsing sections' Total rows less the rows set apart above (rounding as LLVM printed it) */
    double wall = 0, user = 0;
    int any = 0, any_user = 0;
    for (size_t i = first; i < out->n_passes; i++) {
        const pm_pass *p = &out->passes[i];
        if (!p->section || section_kind(p->section) != SECTION_COUNTED)
            continue;
        double sign = (p->flags & PM_PASS_SUMMARY) ? 1 : pm_pass_counted(p) ? 0 : -1;
        wall += sign * p->wall_s;
        any |= sign > 0;
        if (p->user_s >= 0) {
            user += sign * p->user_s;
            any_user |= sign > 0;
        }
    }
    if (any_user)
        out->total_user_s = (user_before < 0 ? 0 : user_before) + user;
    /* the phase total when clang printed one: it also holds the phases' time outside the passes */
    if (ph_total >= 0 && (have_phases || fe_timer >= 0))
        out->total_wall_s = (total_before < 0 ? 0 : total_before) + ph_total;
    else if (any)
        out->total_wall_s = (total_before < 0 ? 0 : total_before) + wall;
    return PM_OK;
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

int pm_parse_llvm_text(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    pm_lines L;
    if (pm_lines_split(buf, len, &L))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory splitting input");
    int rc = PM_OK;
    char *title = NULL;
    size_t first = out->n_passes;
    double total_before = out->total_wall_s, user_before = out->total_user_s;
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
        if (strstr(line, "Total Execution Time:")) /* the sections' totals: see reconcile() */
            continue;
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
        } else if (kind == SECTION_CLANG_PHASES && clang_phase_counted(name)) {
            /* counted */
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
    rc = reconcile(out, first, total_before, user_before, err);
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

/* ---- the format rows ---- */

static int sniff_llvm_text(const char *b, size_t n)
{
    return pm_text_contains(b, n, "Pass execution timing report") ||
           pm_text_contains(b, n, "Analysis execution timing report") || pm_text_contains(b, n, "LLVM IR Parsing") ||
           pm_text_contains(b, n, "Instruction Selection and Scheduling") ||
           pm_text_contains(b, n, "DWARF Emission") || pm_text_contains(b, n, "Register Allocation");
}

/* any JSON the sniffers before it did not claim */
static int sniff_llvm_json(const char *b, size_t n) { return pm_text_is_json(b, n); }

/* "   0.0024 ( 89.0%)   0.0024 ( 89.0%)   0.0123 ( 97.7%)  Name" */
const pm_format_row pm_format_llvm_text = {"llvm-text", pm_parse_llvm_text, sniff_llvm_text, 8, "llc", 1e-4, 1};
/* not listed: named only when asked for */
const pm_format_row pm_format_llvm_json = {"llvm-json", pm_parse_llvm_json, sniff_llvm_json, 7, "llc", 0, 0};
