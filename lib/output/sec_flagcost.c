/* Section: what the timing flags cost (analysis_flagcost.c): per tool build, the instrumented wall against its
 * uninstrumented twin runs, and the builds whose costs differ. Shown only for a study whose spec names a
 * [step] timing_flag (JSON too: a study without one writes what it wrote before). */
#include "report.h"
#include "compare.h"
#include "html.h"

#include <math.h>
#include <stdlib.h>

#define esc pm_html_esc

static int flagcost_applies(const pm_analysis *a)
{
    return a->flagcost.n > 0;
}

static pm_table *flagcost_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"tool", "tool", NULL},
        {"program", "build", NULL},
        {"flag", "timing flag", NULL},
        {"pairs", "pairs", "count"},
        {"plain_wall_s", "wall without", "s"},
        {"wall_s", "wall with", "s"},
        {"wall_overhead", "cost (wall)", "fraction"},
        {"cpu_overhead", "cost (CPU)", "fraction"},
    };
    pm_table *t = pm_table_new("t-flagcost", NULL, cols, sizeof cols / sizeof *cols);
    if (t)
        t->n_lead = 3;
    for (size_t i = 0; t && i < a->flagcost.n; i++) {
        const pm_an_flagcost_row *r = &a->flagcost.rows[i];
        long k = pm_table_add_row(t);
        char buf[64];
        if (k < 0) {
            pm_table_free(t);
            return NULL;
        }
        size_t row = (size_t)k;
        pm_table_set(t, row, 0, r->tool, NAN);
        pm_table_set(t, row, 1, r->program, NAN);
        pm_table_set(t, row, 2, r->flag, NAN);
        pm_table_setf(t, row, 3, (double)r->n_pairs, "%zu", r->n_pairs);
        pm_fmt_seconds(buf, sizeof buf, r->plain_wall_s);
        pm_table_set(t, row, 4, buf, r->plain_wall_s);
        pm_fmt_seconds(buf, sizeof buf, r->wall_s);
        pm_table_set(t, row, 5, buf, r->wall_s);
        pm_table_setf(t, row, 6, r->wall_overhead, "%+.0f%%", 100 * r->wall_overhead);
        if (isnan(r->cpu_overhead))
            pm_table_set(t, row, 7, "-", NAN);
        else
            pm_table_setf(t, row, 7, r->cpu_overhead, "%+.0f%%", 100 * r->cpu_overhead);
    }
    return t;
}

/* "-ftime-report +44% here" per row, "; "-joined: the headline's words for the cost. */
static void flagcost_said(const pm_analysis *a, FILE *f)
{
    for (size_t i = 0; i < a->flagcost.n; i++) {
        const pm_an_flagcost_row *r = &a->flagcost.rows[i];
        fprintf(f, "%s%s %s %+.0f%% here", i ? "; " : "", r->program, r->flag, 100 * r->wall_overhead);
    }
}

static const char flagcost_how[] =
    "cost = the median over the pairs of the wall with the flag over the wall without it, each cold run's twin "
    "run without the flag beside it (the spec's [step] timing_flag); the stage shares come from the instrumented "
    "reports, the compile's own wall is the one without";

static int flagcost_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_analysis *a = x->a;
    pm_table *t = flagcost_table(a);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    fprintf(f, x->markdown ? "\n## %s\n\n" : "\n%s\n", "timing flags: what the instrument costs");
    int bad = x->markdown ? pm_table_markdown(t, f) : pm_table_text(t, f, x->width);
    pm_table_free(t);
    if (bad)
        return pm_err_set(err, PM_ERR_IO, "writing the report");
    fprintf(f, "%s", PM_MD(x, "- ", ""));
    flagcost_said(a, f);
    fprintf(f, ": %s\n", flagcost_how);
    if (a->flagcost.differs)
        fprintf(f,
                "%sthe timers cost one build more than another (%s; more than compare's %.0f%% threshold "
                "apart): pass-level differences between those builds are partly the instrument's; their walls "
                "without the flag are the compilers'\n",
                PM_MD(x, "- ", ""), a->flagcost.differs, 100 * PM_COMPARE_THRESHOLD);
    if (a->flagcost.undecided)
        fprintf(f,
                "%swhether the timers cost one build more than another is undecided (%s; the interval straddles "
                "compare's %.0f%% threshold): pass-level differences between those builds may be partly the "
                "instrument's; more repeats would tell\n",
                PM_MD(x, "- ", ""), a->flagcost.undecided, 100 * PM_COMPARE_THRESHOLD);
    return PM_OK;
}

static int flagcost_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_analysis *a = x->a;
    fputs("<h2 id=flagcost>Timing flags: what the instrument costs</h2><p class=sub>", f);
    esc(f, flagcost_how);
    fputs(".</p>\n", f);
    pm_table *t = flagcost_table(a);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    int rc = pm_table_html(t, f, 0) ? pm_err_set(err, PM_ERR_IO, "writing HTML table") : PM_OK;
    pm_table_free(t);
    if (rc == PM_OK && a->flagcost.differs) {
        fputs("<p class=note>The timers cost one build more than another (", f);
        esc(f, a->flagcost.differs);
        fputs("): pass-level differences between those builds are partly the instrument's.</p>\n", f);
    }
    if (rc == PM_OK && a->flagcost.undecided) {
        fputs("<p class=note>Whether the timers cost one build more than another is undecided (", f);
        esc(f, a->flagcost.undecided);
        fputs("): pass-level differences between those builds may be partly the instrument's.</p>\n", f);
    }
    return rc;
}

static int flagcost_json(const pm_report_ctx *x, json_t *root)
{
    const pm_analysis *a = x->a;
    if (!a->flagcost.n)
        return PM_OK;
    pm_table *t = flagcost_table(a);
    json_t *tab = t ? pm_table_json(t) : NULL;
    pm_table_free(t);
    if (!tab)
        return PM_ERR_NOMEM;
    return json_object_set_new(root, "timing_flags",
                               json_pack("{s:o,s:s?,s:s?}", "table", tab, "differs", a->flagcost.differs, "undecided",
                                         a->flagcost.undecided))
        ? PM_ERR_NOMEM
        : PM_OK;
}

const pm_report_section pm_section_flagcost = {.id = "flagcost",
                                               .toc = "Timing flags",
                                               .applies = flagcost_applies,
                                               .text = flagcost_text,
                                               .html = flagcost_html,
                                               .json = flagcost_json};
