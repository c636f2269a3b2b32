/* pm_report: the report as one table of sections and one table of formats. A section is one row (id, contents
 * title, applies, and what it writes in each format, from the shared builders: report_tables.h's tables and
 * sentences, figures.h's figures); text, Markdown, HTML and JSON all iterate the rows in report_sections.h's
 * order. A format is one row too (name, whether it needs the figures, its writer). */
#ifndef PM_REPORT_H
#define PM_REPORT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include "analysis.h"
#include "figures.h"
#include "stagemap.h"
#include "table.h"

/* What every section may read while it writes. */
typedef struct pm_report_ctx {
    const pm_analysis *a;
    const pm_figures *figs;    /* HTML: the rendered figures; NULL: none */
    sqlite3 *db;               /* HTML: per-config runs, argv, stderr, pass trees; NULL: none */
    const pm_stagemap *map;    /* HTML: colours the pass trees by stage; NULL: grey */
    const char *db_label;      /* the store as the user named it (the text report's next command) */
    int width;                 /* text: the terminal width tables fit */
    int markdown;              /* text: Markdown instead of plain text */
} pm_report_ctx;

/* One section. applies (NULL: always) decides whether it shows in text, Markdown, HTML and the contents list;
 * JSON writes its keys either way (a stable schema). A format's writer NULL: the section has nothing there. */
typedef struct pm_report_section {
    const char *id;                                             /* HTML anchor */
    const char *toc;                                            /* contents entry (HTML); NULL: not listed */
    int (*applies)(const pm_analysis *a);
    int (*text)(const pm_report_ctx *x, FILE *f, pm_err *err);  /* text and Markdown (x->markdown) */
    int (*html)(const pm_report_ctx *x, FILE *f, pm_err *err);
    void (*toc_sub)(const pm_report_ctx *x, FILE *f);           /* HTML: a nested contents list, or NULL */
    int (*json)(const pm_report_ctx *x, json_t *root);          /* adds its keys; PM_ERR_NOMEM */
} pm_report_section;

/* The rows, in report order (report_sections.h): each defined in its section's own file. */
#define PM_REPORT_SECTION(name) extern const pm_report_section pm_section_##name;
#include "report_sections.h"
#undef PM_REPORT_SECTION

const pm_report_section *const *pm_report_sections(size_t *n);
/* Whether a section shows (its applies, or always). */
int pm_report_section_shows(const pm_report_section *s, const pm_analysis *a);

/* One report format. */
typedef struct pm_report_format {
    const char *name;            /* "text", "markdown", "html", "json" */
    int needs_figures;           /* the caller renders pm_figures first */
    int (*write)(const pm_report_ctx *x, FILE *f, pm_err *err);
} pm_report_format;

const pm_report_format *pm_report_format_find(const char *name);   /* NULL when unknown */

/* The writers behind the format rows (each iterates the sections). */
int pm_report_write_text(const pm_report_ctx *x, FILE *f, pm_err *err);
int pm_html_report(const pm_report_ctx *x, FILE *f, pm_err *err);       /* html.c */
int pm_report_write_json(const pm_report_ctx *x, FILE *f, pm_err *err); /* analysis_json.c */
/* The report as a JSON object (no schema/units stamp): every section's keys. NULL when out of memory. */
json_t *pm_report_json(const pm_report_ctx *x);

/* Helpers of the section writers. Both free t; a NULL t is out of memory. */
/* One table as text (fitted to x->width) or Markdown, under its title. */
int pm_report_text_table(const pm_report_ctx *x, FILE *f, pm_table *t, const char *title, pm_err *err);
/* One table as HTML (filter: a filter box above it). */
int pm_report_html_table(FILE *f, pm_table *t, int filter, pm_err *err);
/* "- " in Markdown, else the text form's prefix. */
#define PM_MD(x, md, txt) ((x)->markdown ? (md) : (txt))
/* JSON number (NaN and infinities: null) and string (NULL: null). */
json_t *pm_report_jnum(double v);
json_t *pm_report_jstr(const char *s);

#endif
