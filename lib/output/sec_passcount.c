/* Section: per-pass instruction counts beside per-pass wall (the callgrind meter; analysis_passcount.c): per
 * config the counted share of the run, the stage shares by count and by wall and the dominant stage by each; the
 * heaviest passes with both; and, per tool, the passes that could not be counted and why. Shown when some run
 * has per-pass counts. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* passes per config in the text and HTML tables, heaviest by count first; JSON has every pass */
#define TOP_PASSES 12

static int passcount_applies(const pm_analysis *a)
{
    return a->passcount.n > 0;
}

static const char *stage_name(const pm_analysis *a, int s)
{
    return s >= 0 && (size_t)s < a->n_stages ? a->stages[s] : "-";
}

static pm_table *stage_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},
        {"runs", "runs", NULL},
        {"counted", "counted passes / run", "fraction"},
        {"by_count", "dominant stage by count", NULL},
        {"count_share", "its share by count", "fraction"},
        {"by_wall", "dominant stage by wall", NULL},
        {"wall_share", "its share by wall", "fraction"},
        {"agree", "agree", NULL},
    };
    pm_table *t = pm_table_new("t-passcount", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < a->passcount.n; i++) {
        const pm_an_passcount_config *r = &a->passcount.rows[i];
        long ri = pm_table_add_row(t);
        if (ri < 0)
            break;
        size_t k = (size_t)ri;
        char buf[64];
        double cov = r->process > 0 ? r->counted / r->process : NAN;
        rc |= pm_table_set(t, k, 0, a->configs[r->config].key, NAN);
        rc |= pm_table_setf(t, k, 1, r->n_runs, "%d", r->n_runs);
        pm_fmt_share(buf, sizeof buf, cov);
        rc |= pm_table_set(t, k, 2, buf, cov);
        rc |= pm_table_set(t, k, 3, stage_name(a, r->dominant_count), NAN);
        double sc = r->dominant_count >= 0 ? r->stage_count[r->dominant_count] : NAN;
        pm_fmt_share(buf, sizeof buf, sc);
        rc |= pm_table_set(t, k, 4, buf, sc);
        rc |= pm_table_set(t, k, 5, stage_name(a, r->dominant_wall), NAN);
        double sw = r->dominant_wall >= 0 ? r->stage_wall[r->dominant_wall] : NAN;
        pm_fmt_share(buf, sizeof buf, sw);
        rc |= pm_table_set(t, k, 6, buf, sw);
        rc |= pm_table_set(t, k, 7, r->dominant_count == r->dominant_wall ? "yes" : "no", NAN);
    }
    if (rc || (t && t->n_rows < a->passcount.n)) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

static pm_table *share_table(const pm_analysis *a)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},
        {"stage", "stage", NULL},
        {"by_count", "share by count", "fraction"},
        {"by_wall", "share by wall", "fraction"},
    };
    pm_table *t = pm_table_new("t-passcount-stages", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < a->passcount.n; i++) {
        const pm_an_passcount_config *r = &a->passcount.rows[i];
        for (size_t s = 0; !rc && s < a->n_stages; s++) {
            if (!(r->stage_count[s] > 0) && !(r->stage_wall[s] > 0))
                continue;
            long ri = pm_table_add_row(t);
            if (ri < 0) {
                rc = 1;
                break;
            }
            char buf[64];
            rc |= pm_table_set(t, (size_t)ri, 0, a->configs[r->config].key, NAN);
            rc |= pm_table_set(t, (size_t)ri, 1, a->stages[s], NAN);
            pm_fmt_share(buf, sizeof buf, r->stage_count[s]);
            rc |= pm_table_set(t, (size_t)ri, 2, buf, r->stage_count[s]);
            pm_fmt_share(buf, sizeof buf, r->stage_wall[s]);
            rc |= pm_table_set(t, (size_t)ri, 3, buf, r->stage_wall[s]);
        }
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

static int by_count_desc(const void *pa, const void *pb)
{
    const pm_an_passcount_pass *a = *(const pm_an_passcount_pass *const *)pa,
                               *b = *(const pm_an_passcount_pass *const *)pb;
    return (a->instructions < b->instructions) - (a->instructions > b->instructions);
}

/* The counted passes of each config, heaviest first (top: at most that many per config; 0: all) */
static pm_table *pass_table(const pm_analysis *a, size_t top)
{
    static const pm_col cols[] = {
        {"config", "config", NULL},
        {"tool", "tool", NULL},
        {"pass", "pass", NULL},
        {"stage", "stage", NULL},
        {"instructions", "instructions", "count"},
        {"count_share", "by count", "fraction"},
        {"wall_s", "wall", "s"},
        {"wall_share", "by wall", "fraction"},
        {"how", "counted at", NULL},
    };
    pm_table *t = pm_table_new("t-passcount-passes", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < a->passcount.n; i++) {
        const pm_an_passcount_config *r = &a->passcount.rows[i];
        const pm_an_passcount_pass **order = calloc(r->n_passes ? r->n_passes : 1, sizeof *order);
        size_t n = 0;
        if (!order) {
            rc = 1;
            break;
        }
        for (size_t p = 0; p < r->n_passes; p++)
            if (r->passes[p].instructions >= 0)
                order[n++] = &r->passes[p];
        qsort(order, n, sizeof *order, by_count_desc);
        for (size_t p = 0; !rc && p < n && (!top || p < top); p++) {
            const pm_an_passcount_pass *q = order[p];
            long ri = pm_table_add_row(t);
            if (ri < 0) {
                rc = 1;
                break;
            }
            size_t k = (size_t)ri;
            char buf[64];
            double cs = r->counted > 0 ? q->instructions / r->counted : NAN,
                   ws = r->wall > 0 ? q->wall_s / r->wall : NAN;
            rc |= pm_table_set(t, k, 0, a->configs[r->config].key, NAN);
            rc |= pm_table_set(t, k, 1, q->tool, NAN);
            rc |= pm_table_set(t, k, 2, q->name, NAN);
            rc |= pm_table_set(t, k, 3, stage_name(a, q->stage), NAN);
            rc |= pm_table_setf(t, k, 4, q->instructions, "%.0f", q->instructions);
            pm_fmt_share(buf, sizeof buf, cs);
            rc |= pm_table_set(t, k, 5, buf, cs);
            pm_fmt_seconds(buf, sizeof buf, q->wall_s);
            rc |= pm_table_set(t, k, 6, buf, q->wall_s);
            pm_fmt_share(buf, sizeof buf, ws);
            rc |= pm_table_set(t, k, 7, buf, ws);
            rc |= pm_table_set(t, k, 8, q->by_timer ? "its timer" : "entry point", NAN);
        }
        free(order);
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

/* Per tool, each pass no run could count, once, with why */
static pm_table *missing_table(const pm_analysis *a)
{
    static const pm_col cols[] = {{"tool", "tool", NULL}, {"pass", "pass", NULL}, {"why", "why not counted", NULL}};
    pm_table *t = pm_table_new("t-passcount-missing", NULL, cols, N_OF(cols));
    int rc = 0;
    for (size_t i = 0; t && !rc && i < a->passcount.n; i++) {
        const pm_an_passcount_config *r = &a->passcount.rows[i];
        for (size_t p = 0; !rc && p < r->n_passes; p++) {
            const pm_an_passcount_pass *q = &r->passes[p];
            int seen = q->instructions >= 0;
            for (size_t k = 0; !seen && k < t->n_rows; k++)
                seen = !strcmp(t->cells[k * t->n_cols].text, q->tool) &&
                    !strcmp(t->cells[k * t->n_cols + 1].text, q->name);
            if (seen)
                continue;
            long ri = pm_table_add_row(t);
            if (ri < 0) {
                rc = 1;
                break;
            }
            rc |= pm_table_set(t, (size_t)ri, 0, q->tool, NAN) | pm_table_set(t, (size_t)ri, 1, q->name, NAN) |
                pm_table_set(t, (size_t)ri, 2, q->why ? q->why : "-", NAN);
        }
    }
    if (rc) {
        pm_table_free(t);
        return NULL;
    }
    return t;
}

#define PC_METHOD                                                                                                      \
    "Instructions counted by callgrind (the callgrind meter: exact, the same under any load), each "                   \
    "pass's at its own timer's start and stop, beside the wall its timing report gave in the same run "                \
    "(under the meter: the instrumented run's wall). Counts are not time: a pass that waits on memory "                \
    "or I/O has a smaller share by count than by wall. Shares: of the counted passes' instructions, "                  \
    "and of the same report rows' wall"

static int passcount_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_an_passcount *pc = &x->a->passcount;
    char title[160];
    snprintf(title, sizeof title,
             "per-pass instructions: dominant stage by count and by wall (%d of %zu configs "
             "agree)",
             pc->n_agree, pc->n);
    int rc = pm_report_text_table(x, f, stage_table(x->a), title, err);
    if (!rc)
        fprintf(f, "%s%s.\n", x->markdown ? "\n" : "", PC_METHOD);
    if (!rc)
        rc = pm_report_text_table(x, f, share_table(x->a), "stage shares by count beside by wall", err);
    if (!rc) {
        snprintf(title, sizeof title, "heaviest passes by count, %d per config (every pass: --json)", TOP_PASSES);
        rc = pm_report_text_table(x, f, pass_table(x->a, TOP_PASSES), title, err);
    }
    pm_table *m = rc ? NULL : missing_table(x->a);
    if (!rc && m && m->n_rows)
        rc = pm_report_text_table(x, f, m, "passes that could not be counted, per tool", err);
    else
        pm_table_free(m);
    return rc;
}

static int passcount_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_an_passcount *pc = &x->a->passcount;
    fprintf(f,
            "<h2 id=passcount>Per-pass instructions</h2><p class=sub>%d of %zu configs have the same dominant "
            "stage by count as by wall. ",
            pc->n_agree, pc->n);
    pm_html_esc(f, PC_METHOD);
    fputs(".</p>\n", f);
    int rc = pm_report_html_table(f, stage_table(x->a), 0, err);
    if (!rc)
        rc = pm_report_html_table(f, share_table(x->a), 0, err);
    if (!rc)
        rc = pm_report_html_table(f, pass_table(x->a, TOP_PASSES), 1, err);
    pm_table *m = rc ? NULL : missing_table(x->a);
    if (!rc && m && m->n_rows) {
        fputs("<p class=sub>Passes that could not be counted, per tool:</p>\n", f);
        rc = pm_report_html_table(f, m, 0, err);
    } else {
        pm_table_free(m);
    }
    return rc;
}

static int passcount_json(const pm_report_ctx *x, json_t *root)
{
    json_t *o = json_object();
    pm_table *t[] = {stage_table(x->a), share_table(x->a), pass_table(x->a, 0), missing_table(x->a)};
    static const char *const keys[] = {"configs", "stages", "passes", "not_counted"};
    int rc = o ? PM_OK : PM_ERR_NOMEM;
    for (size_t i = 0; i < N_OF(t); i++) {
        json_t *j = t[i] && !rc ? pm_table_json(t[i]) : NULL;
        if (!j || json_object_set_new(o, keys[i], j))
            rc = PM_ERR_NOMEM;
        pm_table_free(t[i]);
    }
    if (!rc && json_object_set_new(root, "passcount", o))
        return PM_ERR_NOMEM;
    if (rc)
        json_decref(o);
    return rc;
}

const pm_report_section pm_section_passcount = {.id = "passcount",
                                                .toc = "Per-pass instructions",
                                                .applies = passcount_applies,
                                                .text = passcount_text,
                                                .html = passcount_html,
                                                .json = passcount_json};
