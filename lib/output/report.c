/* See report.h: the format rows and the text writer (the section rows: report_rows.c; the sections' table
 * and JSON helpers: report_util.c, below both, so no section calls back into this file). */
#include "report.h"

#include <string.h>

static int write_markdown(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    pm_report_ctx md = *x;
    md.markdown = 1;
    return pm_report_write_text(&md, f, err);
}

static const pm_report_format FORMATS[] = {
    {"text", 0, pm_report_write_text},
    {"markdown", 0, write_markdown},
    {"html", 1, pm_html_report},
    {"json", 0, pm_report_write_json},
};

const pm_report_format *pm_report_format_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (!strcmp(FORMATS[i].name, name))
            return &FORMATS[i];
    return NULL;
}

int pm_report_write_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    if (x->markdown)
        fprintf(f, "# passmap report: %s\n\n", x->a->sweep ? x->a->sweep : "-");
    size_t n;
    const pm_report_section *const *s = pm_report_sections(&n);
    for (size_t i = 0; i < n; i++) {
        if (!s[i]->text || !pm_report_section_shows(s[i], x->a))
            continue;
        int rc = s[i]->text(x, f, err);
        if (rc)
            return rc;
    }
    return ferror(f) ? pm_err_set(err, PM_ERR_IO, "writing the report") : PM_OK;
}
