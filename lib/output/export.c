/* Exports of a sweep's samples: LNT report v2, Bencher Metric Format, CSV (see export.h). */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "stats.h"

/* A series' test or benchmark name: "KEY", "KEY/step/TOOL", "KEY/pass/TOOL/PASS" (a run metric: the key). */
static void series_name(const pm_sample_config *c, const pm_sample_series *s, char *buf, size_t n)
{
    if (s->scope == PM_SAMPLE_RUN)
        snprintf(buf, n, "%s", c->key);
    else if (s->scope == PM_SAMPLE_STEP)
        snprintf(buf, n, "%s/step/%s", c->key, s->tool ? s->tool : "-");
    else
        snprintf(buf, n, "%s/pass/%s/%s", c->key, s->tool ? s->tool : "-", s->pass ? s->pass : "-");
}

static int is_wall(const pm_sample_series *s)
{
    return !strcmp(s->metric, "wall");
}

static int dump(FILE *out, json_t *root, pm_err *err)
{
    int bad = !root || json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15) | JSON_SORT_KEYS) != 0;
    json_decref(root);
    if (bad)
        return pm_err_set(err, PM_ERR_NOMEM, "could not build the JSON (out of memory)");
    fputc('\n', out);
    return PM_OK;
}

static int write_lnt(FILE *out, const pm_samples *s, const pm_export_opts *o, pm_err *err)
{
    char ident[2048];
    pm_samples_identity(s, ident, sizeof ident);
    const char *machine = o->machine;
    for (size_t i = 0; !machine && i < s->n_configs; i++)
        machine = s->configs[i].host;
    json_t *root = json_object(), *tests = json_array();
    if (!root || !tests) {
        json_decref(root), json_decref(tests);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    json_object_set_new(root, "format_version", json_string("2"));
    json_object_set_new(root, "machine", json_pack("{s:s, s:s}", "name", machine ? machine : "unknown",
                                                   "passmap_meter", s->meter ? s->meter : ""));
    /* run info values are strings; llvm_project_revision is NTS's order field (mandatory) */
    json_object_set_new(root, "run", json_pack("{s:s, s:s, s:s, s:s}", "llvm_project_revision",
                                               o->order ? o->order : *ident ? ident : "unknown",
                                               "passmap_compiler", ident, "passmap_sweep", s->sweep ? s->sweep : "",
                                               "passmap_decides", s->decides ? s->decides : ""));
    for (size_t i = 0; i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        for (size_t k = 0; k < c->n_series; k++) {
            const pm_sample_series *se = &c->series[k];
            if (!is_wall(se))
                continue;   /* NTS's compile_time is a time in seconds; it has no field for the others */
            char name[2048];
            series_name(c, se, name, sizeof name);
            json_t *samples = json_array();
            for (size_t r = 0; samples && r < c->n_runs; r++)
                if (!isnan(se->v[r]))
                    json_array_append_new(samples, json_real(se->v[r]));
            json_array_append_new(tests, json_pack("{s:s, s:o}", "name", name, "compile_time",
                                                   samples ? samples : json_null()));
        }
    }
    json_object_set_new(root, "tests", tests);
    return dump(out, root, err);
}

/* A measure of BMF: the geometric mean of the recorded values, with the 95% log-t interval when n >= 3. */
static json_t *bmf_measure(const pm_sample_series *se, size_t n_runs, double scale)
{
    double *x = malloc((n_runs ? n_runs : 1) * sizeof *x);
    size_t n = 0;
    for (size_t r = 0; x && r < n_runs; r++)
        if (se->v[r] > 0)
            x[n++] = se->v[r] * scale;
    pm_stats_logci ci = {.gmean = NAN, .lo = NAN, .hi = NAN};
    if (x && n)
        pm_stats_log_interval(x, n, 0.95, &ci);
    free(x);
    if (!isfinite(ci.gmean))
        return NULL;
    json_t *m = json_pack("{s:f}", "value", ci.gmean);
    if (m && isfinite(ci.lo) && isfinite(ci.hi)) {
        json_object_set_new(m, "lower_value", json_real(ci.lo));
        json_object_set_new(m, "upper_value", json_real(ci.hi));
    }
    return m;
}

static int write_bmf(FILE *out, const pm_samples *s, const pm_export_opts *o, pm_err *err)
{
    (void)o;
    json_t *root = json_object();
    if (!root)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        for (size_t k = 0; k < c->n_series; k++) {
            const pm_sample_series *se = &c->series[k];
            /* latency: Bencher's built-in measure, in nanoseconds; instructions: a count, a measure by name */
            const char *measure = is_wall(se) ? "latency" : !strcmp(se->metric, "instructions") ? "instructions"
                                                                                                 : NULL;
            if (!measure)
                continue;
            char name[2048];
            series_name(c, se, name, sizeof name);
            json_t *m = bmf_measure(se, c->n_runs, is_wall(se) ? 1e9 : 1);
            if (!m)
                continue;   /* no positive sample: nothing to track */
            json_t *bench = json_object_get(root, name);
            if (!bench) {
                bench = json_object();
                json_object_set_new(root, name, bench);
            }
            json_object_set_new(bench, measure, m);
        }
    }
    return dump(out, root, err);
}

/* An RFC 4180 field: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int write_csv(FILE *out, const pm_samples *s, const pm_export_opts *o, pm_err *err)
{
    char ident[2048];
    pm_samples_identity(s, ident, sizeof ident);
    fputs("sweep,config,scope,tool,pass,metric,unit,run,value,compiler,meter,machine\r\n", out);
    for (size_t i = 0; i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        for (size_t k = 0; k < c->n_series; k++) {
            const pm_sample_series *se = &c->series[k];
            for (size_t r = 0; r < c->n_runs; r++) {
                if (isnan(se->v[r]))
                    continue;
                const char *f[] = {s->sweep, c->key, pm_sample_scope_name(se->scope), se->tool, se->pass,
                                   se->metric, se->unit};
                for (size_t j = 0; j < sizeof f / sizeof f[0]; j++) {
                    csv_field(out, f[j]);
                    fputc(',', out);
                }
                fprintf(out, "%zu,%.15g,", r, se->v[r]);
                csv_field(out, ident);
                fputc(',', out);
                csv_field(out, s->meter);
                fputc(',', out);
                csv_field(out, o->machine ? o->machine : c->host);
                fputs("\r\n", out);
            }
        }
    }
    return ferror(out) ? pm_err_set(err, PM_ERR_IO, "could not write the CSV") : PM_OK;
}

static const pm_export_format formats[] = {
    {"lnt", "LNT JSON report, format version 2 (NTS compile_time, seconds)", write_lnt},
    {"bmf", "Bencher Metric Format JSON (latency in ns; instructions)", write_bmf},
    {"csv", "one row per sample, with units, compiler, meter and machine", write_csv},
};

const pm_export_format *pm_export_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(formats[i].name, name))
            return &formats[i];
    return NULL;
}

const pm_export_format *pm_export_rows(size_t *n)
{
    *n = sizeof formats / sizeof formats[0];
    return formats;
}
