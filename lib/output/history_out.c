/* passmap history: text tables, JSON, small multiples in HTML (see history_out.h). */
#include "history_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static int is_change(pm_compare_verdict v)
{
    return v == PM_VERDICT_SLOWER || v == PM_VERDICT_FASTER;
}

/* A point's value with its unit: seconds, or a count for the instructions metric. */
static void fmt_value(const pm_history_row *r, double v, char *buf, size_t n)
{
    if (r->kind == PM_HISTORY_COMPILE && !strcmp(r->name, "instructions") && isfinite(v))
        snprintf(buf, n, "%.4g", v);
    else
        pm_fmt_time(buf, n, v, 0);
}

static void row_label(const pm_history_row *r, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s", pm_history_kind_name(r->kind), r->name);
}

/* The table of one config: a row per history row, a column per sweep. NULL when out of memory. */
static pm_table *config_table(const pm_history *h, const pm_history_config *c)
{
    pm_col *cols = calloc(h->n_sweeps + 1, sizeof *cols);
    if (!cols)
        return NULL;
    cols[0] = (pm_col){"row", "row", NULL};
    for (size_t i = 0; i < h->n_sweeps; i++)
        cols[i + 1] = (pm_col){h->sweeps[i].name, h->sweeps[i].name, "s"};
    pm_table *t = pm_table_new(c->key, c->key, cols, h->n_sweeps + 1);
    free(cols);
    for (size_t r = 0; t && r < c->n_rows; r++) {
        const pm_history_row *row = &c->rows[r];
        long k = pm_table_add_row(t);
        char label[300];
        row_label(row, label, sizeof label);
        int bad = k < 0 || pm_table_set(t, (size_t)k, 0, label, NAN);
        for (size_t i = 0; !bad && i < h->n_sweeps; i++) {
            const pm_history_point *p = &row->points[i];
            char v[64];
            fmt_value(row, p->value, v, sizeof v);
            /* ▲ slower, ▼ faster than the sweep before, by the rule */
            bad = pm_table_setf(t, (size_t)k, i + 1, p->value, "%s%s", v,
                                p->change == PM_VERDICT_SLOWER ? " ▲" : p->change == PM_VERDICT_FASTER ? " ▼" : "");
        }
        if (bad) {
            pm_table_free(t);
            return NULL;
        }
    }
    return t;
}

int pm_history_write_text(FILE *out, const pm_history *h, int width, pm_err *err)
{
    fprintf(out, "history: %s, %zu %s%s, %zu configs, %zu change point%s (▲ slower, ▼ faster than the %s before "
                 "by compare's rule, threshold %.3g%%)\n", h->path, h->n_sweeps, h->axis ? "values of " : "sweeps",
            h->axis ? h->axis : "", h->n_configs, h->n_changes, h->n_changes == 1 ? "" : "s",
            h->axis ? "value" : "sweep", 100 * h->threshold);
    for (size_t i = 0; i < h->n_sweeps; i++)
        fprintf(out, "  %zu. %s%s%s%s: %s\n", i + 1, h->sweeps[i].name, h->sweeps[i].label ? " (" : "",
                h->sweeps[i].label ? h->sweeps[i].label : "", h->sweeps[i].label ? ")" : "",
                h->sweeps[i].compiler && *h->sweeps[i].compiler ? h->sweeps[i].compiler : "(compiler not recorded)");
    for (size_t c = 0; c < h->n_configs; c++) {
        const pm_history_config *cf = &h->configs[c];
        pm_table *t = config_table(h, cf);
        if (!t)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        fputc('\n', out);   /* the table's caption names the config */
        int rc = pm_table_text(t, out, width > 0 ? width : 1 << 30);
        pm_table_free(t);
        if (rc != PM_OK)
            return pm_err_set(err, PM_ERR_IO, "could not write the history");
        for (size_t r = 0; r < cf->n_rows; r++)
            for (size_t i = 0; i < h->n_sweeps; i++) {
                const pm_history_point *p = &cf->rows[r].points[i];
                if (!is_change(p->change))
                    continue;
                char label[300];
                row_label(&cf->rows[r], label, sizeof label);
                fprintf(out, "  %s at %s: %s %.3fx [%.3f, %.3f]%s%s\n", label, h->sweeps[i].name,
                        pm_compare_verdict_name(p->change), p->ratio, p->ci_lo, p->ci_hi, p->why ? ", by " : "",
                        p->why ? p->why : "");
            }
    }
    return PM_OK;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *pm_history_to_json(const pm_history *h)
{
    json_t *root = json_object(), *sweeps = json_array(), *configs = json_array();
    if (!root || !sweeps || !configs) {
        json_decref(root), json_decref(sweeps), json_decref(configs);
        return NULL;
    }
    json_object_set_new(root, "path", json_string(h->path));
    json_object_set_new(root, "threshold", json_real(h->threshold));
    json_object_set_new(root, "changes", json_integer((json_int_t)h->n_changes));
    for (size_t i = 0; i < h->n_sweeps; i++)
        json_array_append_new(sweeps, json_pack("{s:s, s:s, s:s?}", "name", h->sweeps[i].name, "compiler",
                                                h->sweeps[i].compiler ? h->sweeps[i].compiler : "", "label",
                                                h->sweeps[i].label));
    json_object_set_new(root, "sweeps", sweeps);
    for (size_t c = 0; c < h->n_configs; c++) {
        const pm_history_config *cf = &h->configs[c];
        json_t *rows = json_array();
        for (size_t r = 0; rows && r < cf->n_rows; r++) {
            const pm_history_row *row = &cf->rows[r];
            json_t *pts = json_array();
            for (size_t i = 0; pts && i < h->n_sweeps; i++) {
                const pm_history_point *p = &row->points[i];
                json_array_append_new(pts, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "value", jnum(p->value),
                    "change", is_change(p->change) ? json_string(pm_compare_verdict_name(p->change)) : json_null(),
                    "ratio", jnum(is_change(p->change) ? p->ratio : NAN),
                    "ci_lo", jnum(is_change(p->change) ? p->ci_lo : NAN),
                    "ci_hi", jnum(is_change(p->change) ? p->ci_hi : NAN),
                    "why", p->why ? json_string(p->why) : json_null()));
            }
            json_array_append_new(rows, json_pack("{s:s, s:s, s:o}", "kind", pm_history_kind_name(row->kind), "name",
                                                  row->name, "points", pts ? pts : json_null()));
        }
        json_array_append_new(configs, json_pack("{s:s, s:o}", "key", cf->key, "rows", rows ? rows : json_null()));
    }
    json_object_set_new(root, "configs", configs);
    return root;
}

/* One config's chart: a line per row over the sweeps (each row scaled to its own largest value, so a stage of
 * 2 ms and the compile's 2 s both show their shape), a marker at each change point with its words on hover. */
static void chart(FILE *out, const pm_history *h, const pm_history_config *c)
{
    static const char *const colour[] = {"#222", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                         "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
    const double w = 360, ht = 180, pad = 24;
    double dx = h->n_sweeps > 1 ? (w - 2 * pad) / (double)(h->n_sweeps - 1) : 0;
    fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", w, ht, w, ht);
    for (size_t i = 0; i < h->n_sweeps; i++) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"9\" text-anchor=\"middle\">", pad + dx * (double)i,
                ht - 4);
        pm_html_esc(out, h->sweeps[i].name);
        fputs("</text>\n", out);
    }
    for (size_t r = 0; r < c->n_rows; r++) {
        const pm_history_row *row = &c->rows[r];
        double top = 0;
        for (size_t i = 0; i < h->n_sweeps; i++)
            if (isfinite(row->points[i].value) && row->points[i].value > top)
                top = row->points[i].value;
        if (!(top > 0))
            continue;
        const char *col = colour[r % (sizeof colour / sizeof colour[0])];
        char label[300];
        row_label(row, label, sizeof label);
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col,
                row->kind == PM_HISTORY_COMPILE ? "2.5" : "1.2");
        for (size_t i = 0; i < h->n_sweeps; i++)
            if (isfinite(row->points[i].value))
                fprintf(out, "%.1f,%.1f ", pad + dx * (double)i,
                        ht - pad - (ht - 2 * pad) * row->points[i].value / top);
        fputs("\"><title>", out);
        pm_html_esc(out, label);
        fputs("</title></polyline>\n", out);
        for (size_t i = 0; i < h->n_sweeps; i++) {
            const pm_history_point *p = &row->points[i];
            if (!is_change(p->change) || !isfinite(p->value))
                continue;
            char words[700];
            snprintf(words, sizeof words, "%s at %s: %s %.3fx [%.3f, %.3f]%s%s", label, h->sweeps[i].name,
                     pm_compare_verdict_name(p->change), p->ratio, p->ci_lo, p->ci_hi, p->why ? ", by " : "",
                     p->why ? p->why : "");
            fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>",
                    p->change == PM_VERDICT_SLOWER ? "slower" : "faster", pad + dx * (double)i,
                    ht - pad - (ht - 2 * pad) * p->value / top, p->change == PM_VERDICT_SLOWER ? "#d62728" : "#2ca02c");
            pm_html_esc(out, words);
            fputs("</title></circle>\n", out);
        }
    }
    fputs("</svg>\n", out);
}

int pm_history_write_html(FILE *out, const pm_history *h, pm_err *err)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>passmap history</title>\n"
          "<style>body{font:14px sans-serif;margin:1em}figure{display:inline-block;vertical-align:top;margin:.5em;"
          "border:1px solid #ddd;padding:.5em}figcaption{font-weight:bold}details{max-width:60em}"
          "table{border-collapse:collapse}td,th{padding:2px 6px;border-bottom:1px solid #eee}</style>\n"
          "</head><body>\n<h1>Compile time across builds</h1>\n<p>", out);
    pm_html_esc(out, h->path);
    fprintf(out, ": %zu sweeps, %zu configs, %zu change points (red: slower, green: faster than the sweep before, "
                 "by compare's rule at threshold %.3g%%). Each line is scaled to its own largest value.</p>\n<ol>",
            h->n_sweeps, h->n_configs, h->n_changes, 100 * h->threshold);
    for (size_t i = 0; i < h->n_sweeps; i++) {
        fputs("<li>", out);
        pm_html_esc(out, h->sweeps[i].name);
        if (h->sweeps[i].label) {
            fputs(" (", out);
            pm_html_esc(out, h->sweeps[i].label);
            fputs(")", out);
        }
        fputs(": ", out);
        pm_html_esc(out, h->sweeps[i].compiler && *h->sweeps[i].compiler ? h->sweeps[i].compiler
                                                                          : "(compiler not recorded)");
        fputs("</li>", out);
    }
    fputs("</ol>\n", out);
    for (size_t c = 0; c < h->n_configs; c++) {
        const pm_history_config *cf = &h->configs[c];
        fputs("<figure><figcaption>", out);
        pm_html_esc(out, cf->key);
        fputs("</figcaption>\n", out);
        chart(out, h, cf);
        pm_table *t = config_table(h, cf);
        if (!t)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        fputs("<details><summary>values</summary>\n", out);
        int rc = pm_table_html(t, out, 0);
        pm_table_free(t);
        if (rc != PM_OK)
            return pm_err_set(err, PM_ERR_IO, "could not write the history's HTML");
        fputs("</details></figure>\n", out);
    }
    fputs("</body></html>\n", out);
    return ferror(out) ? pm_err_set(err, PM_ERR_IO, "could not write the history's HTML") : PM_OK;
}
