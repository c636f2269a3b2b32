/* pm_baseline: write a sweep's baseline file, and read one back into a store for the gate (see baseline.h). */
#include "baseline.h"

#include <jansson.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "compare.h"
#include "decide.h"
#include "parse.h"
#include "run.h"
#include "stats.h"
#include "store.h"
#include "store_compare.h"
#include "store_query.h"
#include "store_runs.h"
#include "util.h"

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

/* ---- writing ---- */

/* A field written as it is: a tab or line break in it would split the line, so it is refused with its name. */
static int field_ok(const char *s, const char *what, const char *key, pm_err *err)
{
    if (s && strpbrk(s, "\t\r\n"))
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "config %s: its %s '%s' has a tab or line break, which a "
                          "baseline line cannot hold; rename it", key, what, s);
    return PM_OK;
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* Writes s with \\, newline and tab escaped (or "-" when absent). */
static void put_escaped(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputc('-', f);
        return;
    }
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else
            fputc(*s, f);
    }
}

static void put_num(FILE *f, double v)
{
    if (isnan(v))
        fputc('-', f);
    else
        fprintf(f, "%.15g", v);
}

static int put_series(FILE *f, const pm_sample_config *c, const pm_sample_series *s, pm_err *err)
{
    int rc;
    if ((rc = field_ok(s->tool, "tool", c->key, err)) != PM_OK ||
        (rc = field_ok(s->pass, "pass name", c->key, err)) != PM_OK ||
        (rc = field_ok(s->metric, "metric", c->key, err)) != PM_OK)
        return rc;
    size_t n;
    double mean, sd;
    pm_sample_stats(s, c->n_runs, &n, &mean, &sd);
    fprintf(f, "series\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", c->key, pm_sample_scope_name(s->scope), or_dash(s->tool),
            or_dash(s->pass), s->metric, or_dash(s->unit), or_dash(s->format));
    put_num(f, s->tick > 0 ? s->tick : NAN);
    fprintf(f, "\t%.0f\t%zu\t", s->reads > 0 ? s->reads : 1, n);
    put_num(f, mean);
    fputc('\t', f);
    put_num(f, sd);
    fputc('\t', f);
    for (size_t i = 0; i < c->n_runs; i++) {
        if (i)
            fputc(',', f);
        put_num(f, s->v[i]);
    }
    if (!c->n_runs)
        fputc('-', f);
    fputc('\n', f);
    return PM_OK;
}

/* The file's text of samples into f. */
static int put_samples(FILE *f, const pm_samples *s, pm_err *err)
{
    int rc = field_ok(s->sweep, "sweep name", "-", err);
    if (rc != PM_OK)
        return rc;
    fprintf(f, "# passmap baseline: what `passmap gate` compares a sweep with (docs/regressions.md).\n"
               "# Written by `passmap baseline`; samples in run order; review a change to it as a diff.\n");
    fprintf(f, "passmap-baseline\t%d\nsweep\t%s\nmeter\t%s\ndecides\t%s\nstartup-cpu-wall\t", PM_BASELINE_VERSION,
            s->sweep, s->meter, s->decides);
    put_num(f, s->startup_cpu_wall_max);
    fputc('\t', f);
    put_num(f, s->startup_cpu_wall_min);
    fputc('\n', f);
    for (size_t i = 0; i < s->n_tools; i++) {
        const pm_sample_tool *t = &s->tools[i];
        if ((rc = field_ok(t->name, "tool", "-", err)) != PM_OK ||
            (rc = field_ok(t->invoked, "tool invocation", "-", err)) != PM_OK)
            return rc;
        fprintf(f, "tool\t%s\t%s\t%s\t", or_dash(t->name), or_dash(t->invoked), or_dash(t->hash));
        for (const char *p = t->version && *t->version ? t->version : "-"; *p; p++)
            fputc(*p == '\t' || *p == '\n' ? ' ' : *p, f);
        fputc('\n', f);
    }
    for (size_t i = 0; i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        if ((rc = field_ok(c->key, "key", c->key, err)) != PM_OK ||
            (rc = field_ok(c->variant, "variant", c->key, err)) != PM_OK ||
            (rc = field_ok(c->host, "machine", c->key, err)) != PM_OK ||
            (rc = field_ok(c->contended, "contention", c->key, err)) != PM_OK)
            return rc;
        fprintf(f, "config\t%s\t%s\t%s\t", c->key, or_dash(c->variant), or_dash(c->fp_hash));
        put_escaped(f, c->fp_text);
        fprintf(f, "\t%s\t%s\t%s\t%zu\n", or_dash(c->host), or_dash(c->host_fp), or_dash(c->contended), c->n_runs);
        for (size_t k = 0; k < c->n_series; k++)
            if ((rc = put_series(f, c, &c->series[k], err)) != PM_OK)
                return rc;
    }
    return PM_OK;
}

static int info_from(const pm_samples *s, pm_baseline_info *info)
{
    memset(info, 0, sizeof *info);
    info->n_configs = s->n_configs;
    if (!(info->sweep = strdup(s->sweep ? s->sweep : "")) || !(info->meter = strdup(s->meter ? s->meter : "")) ||
        !(info->decides = strdup(s->decides ? s->decides : "")) ||
        !(info->contended = calloc(s->n_configs ? s->n_configs : 1, sizeof *info->contended)))
        return -1;
    for (size_t i = 0; i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        info->n_series += c->n_series;
        if (!c->contended)
            continue;
        pm_baseline_note *nt = &info->contended[info->n_contended++];
        *nt = (pm_baseline_note){strdup(c->key), strdup(c->contended)};
        if (!nt->key || !nt->reason)
            return -1;
    }
    return 0;
}

int pm_baseline_write(const char *db, const char *sweep, const char *out, pm_baseline_info *info_out,
                      pm_err *err)
{
    pm_samples s;
    char *text = NULL;
    size_t len = 0;
    int rc = pm_samples_load(db, sweep, &s, err);
    if (rc != PM_OK)
        return rc;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        rc = nomem(err);
        goto cleanup;
    }
    rc = put_samples(f, &s, err);
    if (fclose(f) != 0 && rc == PM_OK)
        rc = nomem(err);
    if (rc == PM_OK)
        rc = pm_util_write_file_atomic(out, text, len, 0644, NULL, err);
    if (rc == PM_OK && info_out && info_from(&s, info_out)) {
        pm_baseline_info_free(info_out);
        rc = nomem(err);
    }
cleanup:
    free(text);
    pm_samples_free(&s);
    return rc;
}

/* ---- reading ---- */

int pm_baseline_sniff(const char *path, int *is_file, pm_err *err)
{
    *is_file = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pm_err_set(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "%s: %s", path, strerror(errno));
    char head[64] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    *is_file = !strncmp(head, "# passmap baseline", 18) || !strncmp(head, "passmap-baseline\t", 17);
    return PM_OK;
}

const char *pm_baseline_contended(const pm_baseline_info *info, const char *key)
{
    for (size_t i = 0; info && key && i < info->n_contended; i++)
        if (!strcmp(info->contended[i].key, key))
            return info->contended[i].reason;
    return NULL;
}

void pm_baseline_info_free(pm_baseline_info *info)
{
    if (!info)
        return;
    pm_free_all(info->sweep, info->meter, info->decides);
    for (size_t i = 0; i < info->n_contended; i++)
        pm_free_all(info->contended[i].key, info->contended[i].reason);
    free(info->contended);
    memset(info, 0, sizeof *info);
}

void pm_baseline_remove_store(const char *dir, const char *store_path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[4300];
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(p, sizeof p, "%s%s", store_path, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
}

enum { MAX_FIELDS = 16 };

/* Splits line (modified) at tabs; a field "-" becomes NULL. Returns the count (fields past MAX_FIELDS are
 * counted, not kept). */
static size_t split_line(char *line, char **field)
{
    size_t n = 0;
    for (char *p = line;; n++) {
        char *t = strchr(p, '\t');
        if (t)
            *t = '\0';
        if (n < MAX_FIELDS)
            field[n] = strcmp(p, "-") ? p : NULL;
        if (!t)
            return n + 1;
        p = t + 1;
    }
}

static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* A number field ("-": NaN); 0 when it does not parse. */
static int num_field(const char *s, double *v)
{
    if (!s) {
        *v = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && !errno;
}

/* The comma-separated samples into v (n of them expected). */
static int samples_field(char *s, double *v, size_t n)
{
    size_t k = 0;
    if (!s)
        return n == 0;
    for (char *p = s; k < n; k++) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (!strcmp(p, "-"))
            v[k] = NAN;
        else if (!num_field(p, &v[k]) || !(v[k] >= 0))
            return 0;
        if (!c)
            return k + 1 == n;
        p = c + 1;
    }
    return 0;
}

typedef struct reader {
    const char *file;
    size_t line_no;
    pm_samples *s;
    size_t cap_tools, cap_configs, cap_series;
    int have_version;
    pm_err *err;
} reader;

static int bad_line(reader *rd, const char *what)
{
    return pm_err_set(rd->err, PM_ERR_PARSE, "%s:%zu: %s; write the file again with `passmap baseline`", rd->file,
                      rd->line_no, what);
}

static int read_config(reader *rd, char **fd, size_t n)
{
    double runs;
    if (n != 9 || !fd[1] || !num_field(fd[8], &runs) || !(runs >= 0) || runs != floor(runs))
        return bad_line(rd, "a config line has 9 fields: config KEY VARIANT FINGERPRINT TEXT HOST HOST-FP "
                            "CONTENDED RUNS");
    if (!rd->s->sweep)
        return bad_line(rd, "a config before the sweep line");
    pm_sample_config *g = pm_grow(rd->s->configs, &rd->cap_configs, rd->s->n_configs, sizeof *g, 16);
    if (!g)
        return nomem(rd->err);
    rd->s->configs = g;
    pm_sample_config *c = &g[rd->s->n_configs++];
    rd->cap_series = 0;
    if (fd[4])
        unescape(fd[4]);
    int oom = 0;
    *c = (pm_sample_config){.key = pm_util_strdup_opt(fd[1], &oom), .variant = pm_util_strdup_opt(fd[2], &oom),
                            .fp_hash = pm_util_strdup_opt(fd[3], &oom), .fp_text = pm_util_strdup_opt(fd[4], &oom),
                            .host = pm_util_strdup_opt(fd[5], &oom), .host_fp = pm_util_strdup_opt(fd[6], &oom),
                            .contended = pm_util_strdup_opt(fd[7], &oom), .n_runs = (size_t)runs};
    return oom ? nomem(rd->err) : PM_OK;
}

static int read_series(reader *rd, char **fd, size_t n)
{
    double reads, count, tick;
    int scope = n == 14 ? pm_sample_scope_from_name(fd[2]) : -1;
    if (n != 14 || !fd[1] || scope < 0 || !fd[5] || !num_field(fd[8], &tick) || !num_field(fd[9], &reads) ||
        !num_field(fd[10], &count))
        return bad_line(rd, "a series line has 14 fields: series KEY SCOPE(run, step, pass) TOOL PASS METRIC UNIT "
                            "FORMAT TICK READS N MEAN SD SAMPLES");
    pm_sample_config *c = rd->s->n_configs ? &rd->s->configs[rd->s->n_configs - 1] : NULL;
    if (!c || strcmp(c->key, fd[1]))
        return bad_line(rd, "a series of another config than the config line above it");
    if ((scope == PM_SAMPLE_PASS && !fd[4]) || (scope != PM_SAMPLE_RUN && !fd[3]))
        return bad_line(rd, "a step series needs its tool, a pass series its tool and pass");
    pm_sample_series *g = pm_grow(c->series, &rd->cap_series, c->n_series, sizeof *g, 8);
    if (!g)
        return nomem(rd->err);
    c->series = g;
    pm_sample_series *se = &g[c->n_series++];
    int oom = 0;
    *se = (pm_sample_series){.scope = (pm_sample_scope)scope, .tool = pm_util_strdup_opt(fd[3], &oom),
                             .pass = pm_util_strdup_opt(fd[4], &oom), .metric = pm_util_strdup_opt(fd[5], &oom),
                             .unit = pm_util_strdup_opt(fd[6], &oom), .format = pm_util_strdup_opt(fd[7], &oom), .tick = tick,
                             .reads = isnan(reads) || reads < 1 ? 1 : reads,
                             .v = malloc((c->n_runs ? c->n_runs : 1) * sizeof *se->v)};
    if (oom || !se->v)
        return nomem(rd->err);
    if (!samples_field(fd[13], se->v, c->n_runs))
        return bad_line(rd, "the samples are not one number >= 0 (or -) per run of the config");
    return PM_OK;
}

static int read_tool(reader *rd, char **fd, size_t n)
{
    if (n != 5 || !fd[1])
        return bad_line(rd, "a tool line has 5 fields: tool NAME INVOKED HASH VERSION");
    pm_sample_tool *g = pm_grow(rd->s->tools, &rd->cap_tools, rd->s->n_tools, sizeof *g, 8);
    if (!g)
        return nomem(rd->err);
    rd->s->tools = g;
    int oom = 0;
    g[rd->s->n_tools++] = (pm_sample_tool){.name = pm_util_strdup_opt(fd[1], &oom), .invoked = pm_util_strdup_opt(fd[2], &oom),
                                           .hash = pm_util_strdup_opt(fd[3], &oom), .version = pm_util_strdup_opt(fd[4], &oom)};
    return oom ? nomem(rd->err) : PM_OK;
}

/* One of the header's one-name lines (sweep, meter, decides) into *dst. */
static int read_name(reader *rd, char **fd, size_t n, char **dst)
{
    if (n != 2 || !fd[1] || *dst)
        return bad_line(rd, "the sweep, meter and decides lines each come once, with one name");
    return (*dst = strdup(fd[1])) ? PM_OK : nomem(rd->err);
}

static int read_line(reader *rd, char *line)
{
    char *fd[MAX_FIELDS];
    size_t n = split_line(line, fd);
    if (n > MAX_FIELDS)
        return bad_line(rd, "too many fields");
    const char *what = fd[0] ? fd[0] : "";
    if (!rd->have_version) {
        double v;
        if (strcmp(what, "passmap-baseline") || n != 2 || !num_field(fd[1], &v))
            return bad_line(rd, "not a passmap baseline (its first line is passmap-baseline VERSION)");
        if (v != PM_BASELINE_VERSION)
            return pm_err_set(rd->err, PM_ERR_UNSUPPORTED, "%s: baseline format %s, this passmap reads %d: write "
                              "it again with this passmap's `passmap baseline`", rd->file, fd[1], PM_BASELINE_VERSION);
        rd->have_version = 1;
        return PM_OK;
    }
    if (!strcmp(what, "series"))
        return read_series(rd, fd, n);
    if (!strcmp(what, "config"))
        return read_config(rd, fd, n);
    if (!strcmp(what, "tool"))
        return read_tool(rd, fd, n);
    if (!strcmp(what, "sweep"))
        return read_name(rd, fd, n, &rd->s->sweep);
    if (!strcmp(what, "meter"))
        return read_name(rd, fd, n, &rd->s->meter);
    if (!strcmp(what, "decides"))
        return read_name(rd, fd, n, &rd->s->decides);
    if (!strcmp(what, "startup-cpu-wall")) {
        if (n != 3 || !num_field(fd[1], &rd->s->startup_cpu_wall_max) ||
            !num_field(fd[2], &rd->s->startup_cpu_wall_min))
            return bad_line(rd, "startup-cpu-wall MAX MIN");
        return PM_OK;
    }
    return bad_line(rd, "unknown line");
}

int pm_baseline_read(const char *file, pm_samples *out, pm_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    out->startup_cpu_wall_max = out->startup_cpu_wall_min = NAN;
    reader rd = {.file = file, .s = out, .err = err};
    int rc = pm_util_read_file(file, &buf, &len, err);
    for (char *p = buf, *end = buf + len; rc == PM_OK && p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl)
            *nl = '\0';   /* the last line ends at the buffer's own NUL */
        rd.line_no++;
        if (*p && *p != '#')
            rc = read_line(&rd, p);
        p = nl ? nl + 1 : end;
    }
    if (rc == PM_OK && (!out->sweep || !out->meter || !out->decides))
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: no %s line: not a whole baseline; write it again with `passmap "
                        "baseline`", file, !out->sweep ? "sweep" : !out->meter ? "meter" : "decides");
    free(buf);
    if (rc != PM_OK)
        pm_samples_free(out);
    return rc;
}

/* ---- a baseline as a store ---- */

/* The series of c with this scope and metric (tool for a step), or NULL. */
static const pm_sample_series *find_series(const pm_sample_config *c, pm_sample_scope scope, const char *tool,
                                           const char *metric)
{
    for (size_t i = 0; i < c->n_series; i++) {
        const pm_sample_series *s = &c->series[i];
        if (s->scope == scope && !strcmp(s->metric, metric) && (!tool || !pm_util_strcmp_null(s->tool, tool)))
            return s;
    }
    return NULL;
}

static double at(const pm_sample_series *s, size_t r)
{
    return s ? s->v[r] : NAN;
}

/* Records config c's runs: each a run row (wall, user, sys), one step per step tool (the first carries the run's
 * instructions) with its passes as a report of their format, and a measured CPU pressure: 0 when the config
 * was judged uncontended when the baseline was written, its whole wall when contended (recorded with samples only
 * where a count decided), so the rule judges it as it did then. Steps and passes are read on
 * wall, as compare reads them; other metrics stay in the file. */
static int store_config(pm_store *st, const pm_sample_config *c, int64_t config_id, int64_t host_id, pm_err *err)
{
    const pm_sample_series *wall = find_series(c, PM_SAMPLE_RUN, NULL, "wall"),
                           *user = find_series(c, PM_SAMPLE_RUN, NULL, "user"),
                           *sys = find_series(c, PM_SAMPLE_RUN, NULL, "sys"),
                           *ins = find_series(c, PM_SAMPLE_RUN, NULL, "instructions");
    if (c->n_runs && !wall)
        return pm_err_set(err, PM_ERR_PARSE, "config %s: %zu runs but no run wall series", c->key, c->n_runs);
    const pm_sample_series **steps = calloc(c->n_series + 1, sizeof *steps);
    pm_step_record *rec_steps = calloc(c->n_series + 1, sizeof *rec_steps);
    pm_run_result *res = calloc(c->n_series + 1, sizeof *res);
    pm_report *reps = calloc(c->n_series + 1, sizeof *reps);
    size_t n_steps = 0;
    int rc = PM_OK;
    if (!steps || !rec_steps || !res || !reps) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < c->n_series; i++)
        if (c->series[i].scope == PM_SAMPLE_STEP && !strcmp(c->series[i].metric, "wall"))
            steps[n_steps++] = &c->series[i];
    for (size_t r = 0; rc == PM_OK && r < c->n_runs; r++) {
        double n_ins = at(ins, r);
        for (size_t k = 0; k < n_steps; k++) {
            pm_report_init(&reps[k]);
            res[k] = (pm_run_result){.status = PM_RUN_OK, .wall_s = steps[k]->v[r], .user_s = -1, .sys_s = -1,
                                     .instructions = isnan(n_ins) ? -1 : k == 0 ? (int64_t)n_ins : 0,
                                     .psi_cpu_some_us = -1, .psi_cgroup_some_us = -1, .steal_s = -1};
            rec_steps[k] = (pm_step_record){.tool = steps[k]->tool, .argv = "baseline", .result = &res[k]};
            for (size_t p = 0; rc == PM_OK && p < c->n_series; p++) {
                const pm_sample_series *ps = &c->series[p];
                if (ps->scope != PM_SAMPLE_PASS || strcmp(ps->metric, "wall") ||
                    pm_util_strcmp_null(ps->tool, steps[k]->tool) || !(ps->v[r] > 0))
                    continue;
                pm_format fmt = ps->format ? pm_format_from_name(ps->format) : PM_FMT_AUTO;
                reps[k].format = fmt == PM_FMT__COUNT ? PM_FMT_AUTO : fmt;
                /* a pass read k times a run: k rows, as its report had them (compare sums them) */
                size_t times = (size_t)ps->reads;
                for (size_t j = 0; rc == PM_OK && j < times; j++) {
                    pm_pass pp = {.name = ps->pass, .wall_s = ps->v[r] / (double)times, .user_s = -1, .parent = -1};
                    if (pm_report_add_pass(&reps[k], &pp) != PM_OK)
                        rc = nomem(err);
                }
                rec_steps[k].report = &reps[k];
            }
        }
        char psi_name[64];
        snprintf(psi_name, sizeof psi_name, "%s", pm_run_pressure_name(0));
        double w = at(wall, r), u = at(user, r), y = at(sys, r);
        /* uncontended: no pressure; contended: pressure all its wall, so the one rule judges it contended again
         * (and withholds what it withholds: its timed rows, never a count) */
        pm_metric psi = {.name = psi_name, .value = c->contended && w > 0 ? w * 1e6 : 0};
        pm_run_record rec = {.config_id = config_id, .repeat = (int)r, .mode = "cold", .status = "ok",
                             .wall_s = isnan(w) ? -1 : w, .user_s = isnan(u) ? -1 : u, .sys_s = isnan(y) ? -1 : y,
                             .steps = rec_steps, .n_steps = (int)n_steps, .metrics = &psi, .n_metrics = 1,
                             .host_id = host_id};
        int64_t run_id;
        if (rc == PM_OK)
            rc = pm_store_record_run(st, &rec, &run_id, err);
        for (size_t k = 0; k < n_steps; k++)
            pm_report_free(&reps[k]);
    }
cleanup:
    free(steps), free(rec_steps), free(res), free(reps);
    return rc;
}

static int samples_to_store(const pm_samples *s, pm_store *st, pm_err *err)
{
    int64_t sweep_id;
    /* the meter where a sweep records it (its meta_json), so compare reads the baseline's as any side's */
    json_t *meta = json_pack("{s:s}", "meter", s->meter);
    char *meta_text = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
    json_decref(meta);
    if (!meta_text)
        return nomem(err);
    int rc = pm_store_sweep(st, s->sweep, "baseline", NULL, meta_text, &sweep_id, err);
    free(meta_text);
    if (rc == PM_OK && !isnan(s->startup_cpu_wall_max) && !isnan(s->startup_cpu_wall_min)) {
        /* two null-input rows whose medians are the sweep's max and min CPU/wall: what the deciding metric reads */
        pm_startup_row rows[2] = {
            {.tool = "baseline-max", .status = "ok", .wall_s = 1, .user_s = s->startup_cpu_wall_max, .sys_s = 0},
            {.tool = "baseline-min", .status = "ok", .wall_s = 1, .user_s = s->startup_cpu_wall_min, .sys_s = 0}};
        rc = pm_store_record_startup(st, sweep_id, 0, rows, 2, err);
    }
    pm_tool_ident *tools = calloc(s->n_tools + 1, sizeof *tools);
    if (!tools)
        return nomem(err);
    for (size_t i = 0; i < s->n_tools; i++)   /* borrowed: not freed below */
        tools[i] = (pm_tool_ident){.name = s->tools[i].name, .invoked = s->tools[i].invoked,
                                   .hash = s->tools[i].hash, .version_text = s->tools[i].version,
                                   .path = s->tools[i].invoked ? s->tools[i].invoked : s->tools[i].name};
    if (rc == PM_OK && s->n_tools)
        rc = pm_store_record_tools(st, sweep_id, 0, tools, s->n_tools, err);
    free(tools);
    for (size_t i = 0; rc == PM_OK && i < s->n_configs; i++) {
        const pm_sample_config *c = &s->configs[i];
        pm_config cfg = {.key = c->key, .kind = "command", .variant = c->variant};
        int64_t config_id, host_id = 0;
        if ((rc = pm_store_config(st, sweep_id, &cfg, &config_id, err)) != PM_OK)
            break;
        if (c->fp_hash && (rc = pm_store_config_set_fingerprint(st, config_id, c->fp_hash, c->fp_text, err)) != PM_OK)
            break;
        if (c->host && c->host_fp) {   /* the machine, so a gate across machines says so as compare does */
            pm_host h = {0};
            snprintf(h.name, sizeof h.name, "%s", c->host);
            snprintf(h.fingerprint, sizeof h.fingerprint, "%s", c->host_fp);
            if ((rc = pm_store_host(st, &h, &host_id, err)) != PM_OK)
                break;
        }
        rc = store_config(st, c, config_id, host_id, err);
    }
    return rc;
}

int pm_baseline_to_store(const char *file, const char *store_path, pm_baseline_info *info, pm_err *err)
{
    pm_samples s;
    pm_store *st = NULL;
    memset(info, 0, sizeof *info);
    int rc = pm_baseline_read(file, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((rc = pm_store_open(store_path, &st, err)) == PM_OK)
        rc = samples_to_store(&s, st, err);
    if (rc != PM_OK)
        pm_err_wrap(err, "%s", file);
    if (rc == PM_OK && info_from(&s, info)) {
        pm_baseline_info_free(info);
        rc = nomem(err);
    }
    pm_store_close(st);
    pm_samples_free(&s);
    return rc;
}
