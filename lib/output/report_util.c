/* See report.h: what the sections share to write a table and a JSON value (no section calls report.c). */
#include "report.h"

#include <math.h>

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
