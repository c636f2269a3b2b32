/* Section: between builds (analysis_builds.c), when an axis of the study picks the compiler build. The tables
 * and the words are builds_out.c's; this row only places them in every format. */
#include "builds_out.h"
#include "report.h"

static int builds_applies(const pm_analysis *a)
{
    return a->between.axis != NULL;
}

static int builds_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int rc = pm_builds_text(f, x->a, x->markdown, x->width);
    return rc ? pm_err_set(err, PM_ERR_NOMEM, "out of memory") : PM_OK;
}

static int builds_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    int rc = pm_builds_html(f, x->a);
    return rc ? pm_err_set(err, PM_ERR_NOMEM, "out of memory") : PM_OK;
}

static int builds_json(const pm_report_ctx *x, json_t *root)
{
    json_t *b = pm_builds_json(x->a);
    return b && !json_object_set_new(root, "between_builds", b) ? PM_OK : PM_ERR_NOMEM;
}

const pm_report_section pm_section_builds = {.id = "builds", .toc = "Between builds", .applies = builds_applies,
                                             .text = builds_text, .html = builds_html, .json = builds_json};
