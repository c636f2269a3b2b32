/* Helpers for the parser unit tests: load committed fixtures, find rows. */
#ifndef PM_TEST_PARSE_FIXTURE_H
#define PM_TEST_PARSE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#include "slurp.h"

#define FIXTURE(rel) PM_SOURCE_DIR "/tests/fixtures/" rel

/* Index of the nth (0-based) row named name, or -1. */
static inline int find_pass(const pm_report *r, const char *name, int nth)
{
    for (size_t i = 0; i < r->n_passes; i++)
        if (strcmp(r->passes[i].name, name) == 0 && nth-- == 0)
            return (int)i;
    return -1;
}

static inline void parse_fixture(const char *path, pm_format fmt, pm_report *r)
{
    pm_err e;
    pm_err_clear(&e);
    pm_report_init(r);
    int rc = pm_parse_file(path, fmt, r, &e);
    if (rc != PM_OK)
        fail_msg("%s: %s", path, e.msg);
}

static inline size_t counted_rows(const pm_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_passes; i++)
        n += !(r->passes[i].flags & (PM_PASS_GROUP | PM_PASS_SUMMARY | PM_PASS_DETAIL));
    return n;
}

#endif
