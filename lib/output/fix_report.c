/* The proven fix table in the report (see fix_report.h). Predicted (the catalogue's rule) and measured (the
 * A/B) side by side; a rule that measured nothing is marked; the combination to ship comes first. */
#include "fix_report.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "table.h"

int pm_fix_report_load(const char *db_path, const char *sweep, char **json_text, pm_err *err)
{
    *json_text = NULL;
    if (!sweep)
        return PM_OK;
    pm_store *st = NULL;
    pm_err open_err = {0};
    /* A file the store cannot open as its own (an old or foreign schema that the analysis still reads) holds no
     * result of `passmap fix`: the report goes on without the section. */
    if (pm_store_open_readonly(db_path, &st, &open_err) != PM_OK)
        return PM_OK;
    int rc;
    char key[256];
    snprintf(key, sizeof key, "fix:%s", sweep);
    pm_err e2 = {0};
    rc = pm_store_meta_get(st, key, json_text, &e2);
    pm_store_close(st);
    if (rc == PM_ERR_NOTFOUND)
        return PM_OK;
    if (rc)
        *err = e2;
    return rc;
}

static const char *s(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "-";
}

static double d(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A ratio in the one ratio precision (pm_fmt_ratio_num: 3 significant digits, so a blob import at ~1e-4 of a
 * recompile still says something). */
static const char *ratio_str(double r, char *buf, size_t cap)
{
    pm_fmt_ratio_num(buf, cap, r);
    return buf;
}

void pm_fix_ratio_text(const json_t *o, char *out, size_t cap)
{
    double r = d(o, "ratio"), lo = d(o, "ci_lo"), hi = d(o, "ci_hi"), n = d(o, "n_configs");
    char rb[32], lb[32], hb[32];
    if (isnan(r))
        snprintf(out, cap, "-");
    else if ((isnan(lo) || isnan(hi)) && !isnan(n))
        snprintf(out, cap, "%sx (%.0f config%s, no interval)", ratio_str(r, rb, sizeof rb), n, n == 1 ? "" : "s");
    else if (isnan(lo) || isnan(hi))
        snprintf(out, cap, "%sx (no interval)", ratio_str(r, rb, sizeof rb));
    else
        snprintf(out, cap, "%sx [%s, %s]", ratio_str(r, rb, sizeof rb), ratio_str(lo, lb, sizeof lb),
                 ratio_str(hi, hb, sizeof hb));
    /* The verdict comes from compare's per-config verdicts (pm_fix_judge), not from the interval over configs:
     * say what they were, so the mark never reads against the printed interval. */
    const char *v = json_string_value(json_object_get(o, "verdict"));
    int faster = v && !strcmp(v, "faster"), slower = v && !strcmp(v, "slower");
    const json_t *cv = json_object_get(o, "config_verdicts");
    if (json_is_object(cv)) {
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "; per config by compare's rule: %.0f faster, %.0f slower, %.0f same, "
                 "%.0f undecided", d(cv, "faster"), d(cv, "slower"), d(cv, "same"), d(cv, "undecided"));
    } else if ((faster && !(hi < 1)) || (slower && !(lo > 1))) {
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "; every config %s by compare's rule", faster ? "faster" : "slower");
    }
    double need = d(o, "repeats_needed");
    if (v && !strncmp(v, "undecided", 9) && need > 0) {   /* also "undecided (budget)" */
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "; ~%.0f runs/side would settle it", need);
    }
    /* a verdict kept from contended runs (--allow-contended) is marked wherever it is printed */
    double nc = d(o, "contended_configs");
    if (nc > 0 && (faster || slower)) {
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "; %.0f config%s contended, kept by --allow-contended", nc,
                 nc == 1 ? "" : "s");
    }
}

void pm_fix_ledger_text(const json_t *o, char *out, size_t cap)
{
    const json_t *run = json_object_get(o, "run"), *size = json_object_get(o, "size");
    size_t used = 0;
    out[0] = '\0';
    char rb[32], lb[32], hb[32];
    if (json_is_object(run) && json_object_get(run, "error"))
        used += (size_t)snprintf(out, cap, "run: not measured (%s)", s(run, "error"));
    else if (json_is_object(run) && !isnan(d(run, "ratio"))) {
        double lo = d(run, "ci_lo"), hi = d(run, "ci_hi");
        if (isnan(lo) || isnan(hi))
            used += (size_t)snprintf(out, cap, "run %sx (n=%.0f, no interval), %s", ratio_str(d(run, "ratio"), rb,
                                     sizeof rb), d(run, "n"), s(run, "verdict"));
        else
            used += (size_t)snprintf(out, cap, "run %sx [%s, %s], %s (n=%.0f a side)", ratio_str(d(run, "ratio"), rb,
                                     sizeof rb), ratio_str(lo, lb, sizeof lb), ratio_str(hi, hb, sizeof hb),
                                     s(run, "verdict"), d(run, "n"));
        if (json_is_true(json_object_get(run, "estimated")) && used < cap)
            used += (size_t)snprintf(out + used, cap - used, " (estimated)");
    }
    if (used >= cap)
        return;
    if (json_is_object(size) && json_object_get(size, "error"))
        snprintf(out + used, cap - used, "%ssize: not measured (%s)", used ? "; " : "", s(size, "error"));
    else if (json_is_object(size) && !isnan(d(size, "ratio")))
        snprintf(out + used, cap - used, "%s%s %sx (%.0f of %.0f bytes)%s", used ? "; " : "", s(size, "what"),
                 ratio_str(d(size, "ratio"), rb, sizeof rb), d(size, "fix_bytes"), d(size, "stock_bytes"),
                 json_is_true(json_object_get(size, "estimated")) ? " (estimated)" : "");
    if (!out[0])
        snprintf(out, cap, "-");
}

/* The verdict column: "faster" becomes "trade-off" when the compiled program measured slower. */
static const char *verdict_word(const json_t *x)
{
    return json_is_true(json_object_get(x, "tradeoff")) ? "trade-off" : s(x, "verdict");
}

const char *pm_fix_nothing_why(const json_t *r)
{
    const json_t *x;
    size_t i;
    json_array_foreach(json_object_get(r, "results"), i, x)
        if (json_is_true(json_object_get(x, "tradeoff")))
            return "the fixes measured faster with unchanged output make the compiled program slower (trade-offs, "
                   "see the frontier; --accept-slower-code accepts them)";
    return "no fix measured faster with unchanged output";
}

void pm_fix_frontier_text(FILE *f, const json_t *r)
{
    const json_t *fr = json_object_get(r, "frontier"), *p;
    size_t i;
    int has_stock = 0;
    json_array_foreach(fr, i, p)
        has_stock |= !strcmp(s(p, "variant"), "stock");
    /* stock alone only when it is the one point: a fix that beats stock on both is a one-point frontier too */
    if (json_array_size(fr) == 0 || (json_array_size(fr) == 1 && has_stock)) {
        if (json_is_array(fr))
            fprintf(f, "  frontier (compile vs run time): stock alone: no fix is both proven faster to compile and "
                       "timed at run time\n");
        return;
    }
    fprintf(f, "  frontier (compile time vs the program's run time, ratios to stock; no point is better on both%s):\n",
            has_stock ? "" : "; stock is not on it: a point below is at least as fast on both");
    json_array_foreach(fr, i, p)
        fprintf(f, "    %-32s compile %6.3fx  run %6.3fx  %s\n", s(p, "variant"), d(p, "compile_ratio"),
                d(p, "run_ratio"), s(p, "why"));
}

/* The one ledger table: a row per fix measured, rendered as text and HTML. NULL when out of memory. */
/* A row kept from an earlier `passmap fix` run that this run did not measure again (fix.c keeps them). */
static const char *row_name(const json_t *x, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", s(x, "name"), json_is_true(json_object_get(x, "earlier")) ? " (earlier run)" : "");
    return buf;
}

/* When this run recommends nothing but an earlier run did, say so beside "nothing to ship". */
static void earlier_recommended(const json_t *r, char *out, size_t cap)
{
    const json_t *e = json_object_get(r, "earlier_recommended");
    out[0] = 0;
    if (!json_is_object(e))
        return;
    char m[192];
    pm_fix_ratio_text(e, m, sizeof m);
    snprintf(out, cap, "; an earlier fix run recommended %s (%s)", s(e, "variant"), m);
}

static pm_table *ledger_table(const json_t *r)
{
    static const pm_col cols[] = {
        {"fix", "fix", NULL},           {"against", "against", NULL},
        {"predicted", "predicted (rule)", NULL}, {"measured", "measured B/A [95% CI]", NULL},
        {"verdict", "verdict", NULL},   {"configs", "configs", "count"},
        {"output", "output", NULL},     {"program", "program (run time, size; B/A)", NULL},
    };
    pm_table *t = pm_table_new("t-proven", NULL, cols, sizeof cols / sizeof cols[0]);
    const json_t *x;
    size_t i;
    json_array_foreach(t ? json_object_get(r, "results") : NULL, i, x) {
        char m[192], led[512], nm[200];
        pm_fix_ratio_text(x, m, sizeof m);
        pm_fix_ledger_text(x, led, sizeof led);
        long row = pm_table_add_row(t);
        size_t k = (size_t)row;
        int rc = row < 0 || pm_table_set(t, k, 0, row_name(x, nm, sizeof nm), NAN) || pm_table_set(t, k, 1, s(x, "against"), NAN) ||
                 pm_table_setf(t, k, 2, NAN, "%s%s", s(x, "predicted"),
                               json_is_true(json_object_get(x, "rule_measured_nothing")) ? " (rule measured nothing)"
                                                                                         : "") ||
                 pm_table_set(t, k, 3, m, NAN) || pm_table_set(t, k, 4, verdict_word(x), NAN) ||
                 pm_table_setf(t, k, 5, d(x, "n_configs"), "%d", (int)d(x, "n_configs")) ||
                 pm_table_set(t, k, 6, s(x, "output"), NAN) || pm_table_set(t, k, 7, led, NAN);
        if (rc) {
            pm_table_free(t);
            return NULL;
        }
    }
    return t;
}

const char *pm_fix_decided_metric(const json_t *rec)
{
    const char *m = json_string_value(json_object_get(rec, "decided_on"));
    return m && strcmp(m, "wall") ? m : "compile wall";
}

/* The fix sweep's record as a JSON object; NULL when there is none or it is not an object. */
static json_t *load_report(const char *json_text)
{
    json_t *r = json_text ? json_loads(json_text, 0, NULL) : NULL;
    if (json_is_object(r))
        return r;
    json_decref(r);
    return NULL;
}

int pm_fix_report_text(FILE *f, const char *json_text)
{
    json_t *r = load_report(json_text);
    if (!r)
        return PM_OK;
    char m[192];
    const json_t *rec = json_object_get(r, "recommended");
    fprintf(f, "proven fixes (passmap fix, A/B sweep %s)\n", s(r, "fix_sweep"));
    if (json_is_object(rec)) {
        pm_fix_ratio_text(rec, m, sizeof m);
        char led[512];
        pm_fix_ledger_text(rec, led, sizeof led);
        fprintf(f, "  %s %s: %s %s of stock over %d configs; output %s; program: %s\n",
                json_is_true(json_object_get(rec, "ship")) ? "ship"
                : json_is_true(json_object_get(rec, "tradeoff")) ? "not recommended (trade-off: its program runs "
                                                                    "slower; --accept-slower-code):"
                                                                  : "not proven:",
                s(rec, "variant"), pm_fix_decided_metric(rec), m, (int)d(rec, "n_configs"), s(rec, "output"), led);
    } else {
        char prev[320];
        earlier_recommended(r, prev, sizeof prev);
        fprintf(f, "  nothing to ship: %s%s\n", pm_fix_nothing_why(r), prev);
    }
    pm_table *t = ledger_table(r);
    /* one line per fix at any width, as the ledger always printed: a row is read whole */
    int rc = t ? pm_table_text(t, f, INT_MAX / 2) : PM_ERR_NOMEM;
    pm_table_free(t);
    pm_fix_frontier_text(f, r);
    fputc('\n', f);
    json_decref(r);
    return rc;
}

int pm_fix_report_html(FILE *f, const char *json_text)
{
    json_t *r = load_report(json_text);
    if (!r)
        return PM_OK;
    char m[192];
    const json_t *rec = json_object_get(r, "recommended");
    fputs("<section id=proven-fixes><h2>Proven fixes</h2>\n<p><b>", f);
    if (json_is_object(rec)) {
        pm_fix_ratio_text(rec, m, sizeof m);
        pm_html_esc(f, json_is_true(json_object_get(rec, "ship")) ? "Ship " : "Not proven: ");
        pm_html_esc(f, s(rec, "variant"));
        fputs("</b>: ", f);
        pm_html_esc(f, pm_fix_decided_metric(rec));
        fprintf(f, " %s of stock over %d configs; output ", m, (int)d(rec, "n_configs"));
        pm_html_esc(f, s(rec, "output"));
    } else {
        fputs("Nothing to ship</b>: ", f);
        char prev[320];
        earlier_recommended(r, prev, sizeof prev);
        pm_html_esc(f, pm_fix_nothing_why(r));
        pm_html_esc(f, prev);
    }
    fputs(".</p>\n<p>Measured by <code>passmap fix</code> (A/B sweep <code>", f);
    pm_html_esc(f, s(r, "fix_sweep"));
    fputs("</code>): B/A is the fix's compile wall (or the metric its row was decided on) over its base, geometric "
          "mean over configs with its 95% CI.</p>\n",
          f);
    pm_table *t = ledger_table(r);
    int rc = t ? pm_table_html(t, f, 0) : PM_ERR_NOMEM;
    pm_table_free(t);
    fputs("</section>\n", f);
    json_decref(r);
    return rc;
}
