/* See report.h: the section rows in order (report_sections.h) and whether one shows for a study. */
#include "report.h"

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
