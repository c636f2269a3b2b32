/* The gate's outputs: text, JSON, JUnit XML, CI annotations (see gate_out.h). */
#include "gate_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "decide.h"
#include "table.h"

/* What a finding is about: "compile wall" (or the deciding metric), "step llc", "pass llc: ISel". */
static void row_name(const pm_gate_result *r, const pm_gate_finding *f, char *buf, size_t n)
{
    if (f->pass)
        snprintf(buf, n, "pass %s: %s", f->tool ? f->tool : "-", f->pass);
    else if (f->tool)
        snprintf(buf, n, "step %s", f->tool);
    else if (!f->st)
        snprintf(buf, n, "config");
    else
        snprintf(buf, n, "compile %s", r->cmp.decided_on == PM_DECIDE_WALL ? "wall"
                 : pm_decide_name((pm_decide_metric)r->cmp.decided_on));
}

/* Whether a finding fails the gate. */
static int fails(const pm_gate_result *r, const pm_gate_finding *f)
{
    return f->kind == PM_GATE_REGRESSION || (f->kind == PM_GATE_WIN && r->fail_on_win);
}

static void builds_line(FILE *out, const pm_gate_result *r, const char *side)
{
    size_t k = 0;
    fprintf(out, "%s builds: ", side);
    for (size_t i = 0; i < r->n_builds; i++) {
        const pm_gate_build *b = &r->builds[i];
        if (strcmp(b->side, side))
            continue;
        fprintf(out, "%s%s (%s%s%s; %s)", k++ ? "; " : "", b->tool, b->invoked ? b->invoked : "",
                b->invoked ? ": " : "", b->version ? b->version : "no version", b->hash && *b->hash ? b->hash
                : "file not hashed");
    }
    fprintf(out, "%s\n", k ? "" : "not recorded (a store of imported reports, or older than tool identities)");
}

int pm_gate_write_text(FILE *out, const pm_gate_result *r, int width, pm_err *err)
{
    const pm_compare_result *c = &r->cmp;
    char buf[2048];
    fprintf(out, "gate: %s (exit %d): %zu regression%s, %zu win%s%s, %zu config%s without a conclusion; %zu of "
                 "%zu compared configs concluded\n",
            pm_gate_outcome_name(r->outcome), (int)r->outcome, r->n_regressions, r->n_regressions == 1 ? "" : "s",
            r->n_wins, r->n_wins == 1 ? "" : "s", r->fail_on_win ? " (failing: --fail-on-win)" : "",
            r->n_unsettled, r->n_unsettled == 1 ? "" : "s", r->n_concluded, c->n_configs);
    const char *meter_a = c->a.meter ? c->a.meter : r->meter;
    fprintf(out, "baseline: %s (sweep %s%s, meter %s)\n", c->a.path, c->a.sweep ? c->a.sweep : "?",
            r->baseline_is_file ? ", baseline file" : "", meter_a ? meter_a : "not recorded");
    fprintf(out, "sweep:    %s (sweep %s, meter %s)\n", c->b.path, c->b.sweep ? c->b.sweep : "?",
            c->b.meter ? c->b.meter : "not recorded");
    builds_line(out, r, "baseline");
    builds_line(out, r, "sweep");
    if (c->host_warning)
        fprintf(out, "note: %s\n", c->host_warning);
    pm_decide_text((pm_decide_metric)c->decided_on, buf, sizeof buf);
    fprintf(out, "%s\n", buf);
    pm_compare_rule_text(buf, sizeof buf, c->threshold, c->allow_contended);
    fprintf(out, "rule: %s\n", buf);
    if (!r->n_findings) {
        fprintf(out, "\nevery compared config is the same as the baseline within %.3g%%\n", 100 * c->threshold);
        return PM_OK;
    }
    static const pm_col cols[] = {{"finding", "finding", NULL}, {"config", "config", NULL},
                                  {"row", "row", NULL}, {"ratio", "sweep/baseline", "ratio"},
                                  {"ci", "95% simultaneous CI", NULL}, {"why", "verdict", NULL}};
    pm_table *t = pm_table_new("gate", NULL, cols, sizeof cols / sizeof cols[0]);
    if (!t)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK;
    for (size_t i = 0; i < r->n_findings && rc == PM_OK; i++) {
        const pm_gate_finding *f = &r->findings[i];
        long row = pm_table_add_row(t);
        if (row < 0) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        size_t k = (size_t)row;
        char name[512];
        row_name(r, f, name, sizeof name);
        const char *what = fails(r, f) ? (f->kind == PM_GATE_REGRESSION ? "REGRESSION" : "WIN (fails)")
                                       : pm_gate_kind_name(f->kind);
        int bad = pm_table_set(t, k, 0, what, NAN) || pm_table_set(t, k, 1, f->config, NAN) ||
                  pm_table_set(t, k, 2, name, NAN);
        if (!bad && f->st && isfinite(f->st->ratio))
            bad = pm_table_setf(t, k, 3, f->st->ratio, "%.3f×", f->st->ratio) ||
                  (isfinite(f->st->ci_lo) ? pm_table_setf(t, k, 4, NAN, "[%.3f, %.3f]", f->st->ci_lo, f->st->ci_hi)
                                          : pm_table_set(t, k, 4, "-", NAN));
        else if (!bad)
            bad = pm_table_set(t, k, 3, "-", NAN) || pm_table_set(t, k, 4, "-", NAN);
        if (!bad)   /* a verdict's numbers are in the columns before it */
            bad = pm_table_set(t, k, 5, f->kind == PM_GATE_UNSETTLED || !f->st ? f->why
                               : pm_compare_verdict_name(f->st->verdict), NAN);
        if (bad)
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (rc == PM_OK) {
        fputc('\n', out);
        rc = pm_table_text(t, out, width > 0 ? width : 1 << 30);   /* piped: each row on one line */
        if (rc != PM_OK)
            pm_err_set(err, PM_ERR_IO, "could not write the gate's table");
    }
    pm_table_free(t);
    return rc;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *pm_gate_to_json(const pm_gate_result *r)
{
    json_t *root = json_object(), *findings = json_array(), *builds = json_array();
    if (!root || !findings || !builds) {
        json_decref(root), json_decref(findings), json_decref(builds);
        return NULL;
    }
    json_object_set_new(root, "outcome", json_string(pm_gate_outcome_name(r->outcome)));
    json_object_set_new(root, "exit_status", json_integer(r->outcome));
    json_object_set_new(root, "regressions", json_integer((json_int_t)r->n_regressions));
    json_object_set_new(root, "wins", json_integer((json_int_t)r->n_wins));
    json_object_set_new(root, "unsettled", json_integer((json_int_t)r->n_unsettled));
    json_object_set_new(root, "concluded", json_integer((json_int_t)r->n_concluded));
    json_object_set_new(root, "fail_on_win", json_boolean(r->fail_on_win));
    json_object_set_new(root, "threshold", json_real(r->cmp.threshold));
    json_object_set_new(root, "decided_on", json_string(pm_decide_name((pm_decide_metric)r->cmp.decided_on)));
    json_object_set_new(root, "baseline", json_pack("{s:o, s:o, s:b, s:o}", "path", jstr(r->cmp.a.path), "sweep",
                                                    jstr(r->cmp.a.sweep), "file", r->baseline_is_file, "meter",
                                                    jstr(r->cmp.a.meter ? r->cmp.a.meter : r->meter)));
    json_object_set_new(root, "sweep", json_pack("{s:o, s:o, s:o}", "path", jstr(r->cmp.b.path), "sweep",
                                                 jstr(r->cmp.b.sweep), "meter", jstr(r->cmp.b.meter)));
    for (size_t i = 0; i < r->n_builds; i++) {
        const pm_gate_build *b = &r->builds[i];
        json_array_append_new(builds, json_pack("{s:s, s:o, s:o, s:o, s:o}", "side", b->side, "tool", jstr(b->tool),
                                                "invoked", jstr(b->invoked), "version", jstr(b->version), "hash",
                                                jstr(b->hash)));
    }
    json_object_set_new(root, "builds", builds);
    for (size_t i = 0; i < r->n_findings; i++) {
        const pm_gate_finding *f = &r->findings[i];
        const pm_compare_stat *st = f->st;
        json_array_append_new(findings, json_pack("{s:s, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
            "kind", pm_gate_kind_name(f->kind), "fails", fails(r, f), "config", f->config, "tool", jstr(f->tool),
            "pass", jstr(f->pass), "verdict", st ? json_string(pm_compare_verdict_name(st->verdict)) : json_null(),
            "ratio", jnum(st ? st->ratio : NAN), "ci_lo", jnum(st ? st->ci_lo : NAN), "ci_hi",
            jnum(st ? st->ci_hi : NAN), "why", f->why));
    }
    json_object_set_new(root, "findings", findings);
    json_t *cmp = pm_compare_to_json(&r->cmp);
    json_object_set_new(root, "comparison", cmp ? cmp : json_null());
    return root;
}

/* XML text or attribute value, escaped. */
static void xml_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("&#10;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);   /* control characters are not XML 1.0 */
        }
    }
}

static void junit_property(FILE *out, const char *name, const char *value)
{
    fputs("      <property name=\"", out);
    xml_esc(out, name);
    fputs("\" value=\"", out);
    xml_esc(out, value ? value : "");
    fputs("\"/>\n", out);
}

/* The testcase of one config: its findings as failures (those that fail) or in system-out; unsettled: skipped. */
static void junit_case(FILE *out, const pm_gate_result *r, const char *config)
{
    size_t n_fail = 0, n_uns = 0;
    const pm_gate_finding *first_fail = NULL, *uns = NULL;
    for (size_t i = 0; i < r->n_findings; i++) {
        const pm_gate_finding *f = &r->findings[i];
        if (strcmp(f->config, config))
            continue;
        if (fails(r, f) && !n_fail++)
            first_fail = f;
        if (f->kind == PM_GATE_UNSETTLED && !n_uns++)
            uns = f;
    }
    fputs("    <testcase classname=\"passmap.gate\" name=\"", out);
    xml_esc(out, config);
    fputs("\">\n", out);
    char name[512];
    if (first_fail) {
        row_name(r, first_fail, name, sizeof name);
        fprintf(out, "      <failure type=\"%s\" message=\"", pm_gate_kind_name(first_fail->kind));
        xml_esc(out, name);
        fputs(": ", out);
        xml_esc(out, first_fail->why);
        fputs("\">", out);
        for (size_t i = 0; i < r->n_findings; i++) {
            const pm_gate_finding *f = &r->findings[i];
            if (strcmp(f->config, config) || !fails(r, f))
                continue;
            row_name(r, f, name, sizeof name);
            xml_esc(out, name);
            fputs(": ", out);
            xml_esc(out, f->why);
            fputs("\n", out);
        }
        fputs("</failure>\n", out);
    } else if (uns) {
        fputs("      <skipped message=\"", out);
        xml_esc(out, uns->why);
        fputs("\"/>\n", out);
    }
    fputs("    </testcase>\n", out);
}

int pm_gate_write_junit(FILE *out, const pm_gate_result *r, pm_err *err)
{
    const pm_compare_result *c = &r->cmp;
    size_t tests = c->n_configs + c->n_only_a + c->n_only_b, failures = 0, skipped = 0;
    /* counted per testcase, as junit_case writes them */
    const char **keys = calloc(tests ? tests : 1, sizeof *keys);
    if (!keys)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < c->n_configs; i++)
        keys[k++] = c->configs[i].key;
    for (size_t i = 0; i < c->n_only_a; i++)
        keys[k++] = c->only_a[i];
    for (size_t i = 0; i < c->n_only_b; i++)
        keys[k++] = c->only_b[i];
    for (size_t i = 0; i < tests; i++) {
        int f = 0, s = 0;
        for (size_t j = 0; j < r->n_findings; j++) {
            if (strcmp(r->findings[j].config, keys[i]))
                continue;
            f |= fails(r, &r->findings[j]);
            s |= r->findings[j].kind == PM_GATE_UNSETTLED;
        }
        failures += f;
        skipped += !f && s;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"passmap gate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n"
                 "  <testsuite name=\"passmap gate: ",
            tests, failures, skipped);
    xml_esc(out, c->b.sweep);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n    <properties>\n", tests,
            failures, skipped);
    junit_property(out, "outcome", pm_gate_outcome_name(r->outcome));
    char num[64];
    snprintf(num, sizeof num, "%d", (int)r->outcome);
    junit_property(out, "exit_status", num);
    junit_property(out, "baseline", c->a.path);
    junit_property(out, "sweep", c->b.path);
    snprintf(num, sizeof num, "%.6g", c->threshold);
    junit_property(out, "threshold", num);
    junit_property(out, "decided_on", pm_decide_name((pm_decide_metric)c->decided_on));
    for (size_t i = 0; i < r->n_builds; i++) {
        char name[300], val[600];
        const pm_gate_build *b = &r->builds[i];
        snprintf(name, sizeof name, "build.%s.%s", b->side, b->tool ? b->tool : "?");
        snprintf(val, sizeof val, "%s; %s", b->version ? b->version : "", b->hash ? b->hash : "");
        junit_property(out, name, val);
    }
    fputs("    </properties>\n", out);
    for (size_t i = 0; i < tests; i++)
        junit_case(out, r, keys[i]);
    fputs("  </testsuite>\n</testsuites>\n", out);
    free(keys);
    return ferror(out) ? pm_err_set(err, PM_ERR_IO, "could not write the JUnit XML") : PM_OK;
}

/* One row per CI system; escape_percent: GitHub's workflow commands read %, CR and LF as escapes. */
typedef struct annot_row {
    pm_gate_annot_style style;
    int escape_percent;
} annot_row;

static const annot_row annot_styles[] = {
    {{"github", "::error title=passmap gate::", "::warning title=passmap gate::"}, 1},
    {{"azure", "##vso[task.logissue type=error]", "##vso[task.logissue type=warning]"}, 0},
    {{"plain", "error: ", "warning: "}, 0},
};

const pm_gate_annot_style *pm_gate_annot_style_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof annot_styles / sizeof annot_styles[0]; i++)
        if (!strcmp(annot_styles[i].style.name, name))
            return &annot_styles[i].style;
    return NULL;
}

void pm_gate_annot_style_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof annot_styles / sizeof annot_styles[0] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", annot_styles[i].style.name);
}

int pm_gate_write_annotations(FILE *out, const pm_gate_result *r, const pm_gate_annot_style *style)
{
    const annot_row *row = (const annot_row *)style;   /* style is the first member of its row */
    for (size_t i = 0; i < r->n_findings; i++) {
        const pm_gate_finding *f = &r->findings[i];
        char name[512], msg[2048], esc[6144];
        row_name(r, f, name, sizeof name);
        snprintf(msg, sizeof msg, "compile time %s: %s: %s: %s (sweep %s vs baseline %s)",
                 f->kind == PM_GATE_REGRESSION ? "regression" : f->kind == PM_GATE_WIN ? "win" : "not concluded",
                 f->config, name, f->why, r->cmp.b.sweep ? r->cmp.b.sweep : "?", r->cmp.a.path);
        size_t k = 0;
        for (const char *p = msg; *p && k + 4 < sizeof esc; p++) {
            if (row->escape_percent && (*p == '%' || *p == '\r' || *p == '\n'))
                k += (size_t)snprintf(esc + k, sizeof esc - k, "%%%02X", (unsigned char)*p);
            else if (*p == '\r' || *p == '\n')
                esc[k++] = ' ';
            else
                esc[k++] = *p;
        }
        esc[k] = '\0';
        fprintf(out, "%s%s\n", fails(r, f) ? style->error_prefix : style->warning_prefix, esc);
    }
    return ferror(out) ? PM_ERR_IO : PM_OK;
}
