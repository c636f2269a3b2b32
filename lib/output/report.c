/* See report.h: the section rows in order, the format rows, and the text writer. */
#include "report.h"

#include <math.h>
#include <string.h>

static const pm_report_section *const SECTIONS[] = {
#define PM_REPORT_SECTION(name) &pm_section_##name,
#include "report_sections.h"
#undef PM_REPORT_SECTION
};

const pm_report_section *const *pm_report_sections(size_t *n)
{
    *n = sizeof SECTIONS / sizeof SECTIONS[0];
    return SECTIONS;
}

int pm_report_section_shows(const pm_report_section *s, const pm_analysis *a)
{
    return !s->applies || s->applies(a);
}

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

int pm_report_text_table(const pm_report_ctx *x, FILE *f, pm_table *t, const char *title, pm_err *err)
{
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    int rc;
    if (x->markdown) {
        fprintf(f, "\n## %s\n\n", title);
        rc = pm_table_markdown(t, f);
    } else {
        fprintf(f, "\n%s\n", title);
        rc = pm_table_text(t, f, x->width);
    }
    pm_table_free(t);
    return rc ? pm_err_set(err, PM_ERR_IO, "writing the report") : PM_OK;
}

int pm_report_html_table(FILE *f, pm_table *t, int filter, pm_err *err)
{
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory building a table");
    int rc = pm_table_html(t, f, filter);
    pm_table_free(t);
    return rc ? pm_err_set(err, PM_ERR_IO, "writing HTML table") : PM_OK;
}

json_t *pm_report_jnum(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *pm_report_jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}
