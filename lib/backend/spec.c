/* Sweep spec loading: spec_ini.c reads the INI into a list of entries (with line numbers); expansion into the
 * config matrix happens afterwards so key order inside a section does not matter and every error can name its
 * line's section. Here: the [sweep] and [report] scalars, which sections a back end reads, the whole parse. */
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gen.h"
#include "meter.h"
#include "run.h"
#include "util.h"

/* The keys [sweep] and [report] read (kept beside apply_sweep_scalar, which reads them),
 * for "did you mean" on a mistyped key. */
static const char *const sweep_keys[] = {"name", "backend", "repeats", "min_repeats", "max_repeats", "precision",
                                         "stop", "warm_repeats", "seed", "order", "timeout", "mem_limit", "warm", "bindir",
                                         "meter", NULL};
static const char *const report_keys[] = {"size", "workload", NULL};

/* A back end's sections text with "[KIND NAME]" written out as every kind row's section ("[embedded],
 * [llm NAME], [cnn NAME]"), so a new kind row is listed without its back ends naming it. */
static void backend_sections(const char *sections, char *out, size_t cap)
{
    const char *at = sections ? strstr(sections, "[KIND NAME]") : NULL;
    if (!at) {
        snprintf(out, cap, "%s", sections ? sections : "");
        return;
    }
    snprintf(out, cap, "%.*s", (int)(at - sections), sections);
    for (int k = 0; pm_kind_at(k); k++)
        snprintf(out + strlen(out), cap - strlen(out), "%s[%s NAME]", k ? ", " : "", pm_kind_at(k)->name);
    snprintf(out + strlen(out), cap - strlen(out), "%s", at + strlen("[KIND NAME]"));
}

/* "; did you mean [step cc]?" for a section whose first word is close to a section spec.c or the back end
 * reads (its sections text: "[matrix NAME], [step NAME], ..."), else "". */
static const char *section_did_you_mean(char *buf, size_t len, const char *section, const char *sections)
{
    char names[16][32];
    const char *cands[18] = {"sweep", "report"};
    size_t n = 2;
    for (const char *p = sections ? strchr(sections, '[') : NULL; p && n < sizeof cands / sizeof cands[0];
         p = strchr(p + 1, '[')) {
        size_t w = strcspn(p + 1, " ]");
        if (w && w < sizeof names[0]) {
            snprintf(names[n - 2], sizeof names[0], "%.*s", (int)w, p + 1);
            cands[n] = names[n - 2];
            n++;
        }
    }
    size_t w = strcspn(section, " ");
    char word[64];
    if (w >= sizeof word)
        return "";
    snprintf(word, sizeof word, "%.*s", (int)w, section);
    const char *near = pm_util_closest(word, cands, n);
    if (!near || !strcmp(near, word))
        return "";
    snprintf(buf, len, "; did you mean [%s%s]?", near, section + w);
    return buf;
}

static int unknown_scalar(const entry *e, const char *what, pm_err *err)
{
    return pm_spec_unknown_key(e, what, !strcmp(e->section, "sweep") ? sweep_keys : report_keys, err);
}

/* [sweep] and [report]: read here, whatever the back end. */
static int apply_sweep_scalar(pm_spec *s, entry *e, pm_err *err)
{
    char what[160];
    snprintf(what, sizeof what, "line %d: [%s] %s", e->line, e->section, e->name);
    const char *n = e->name, *v = e->value;
    e->used = 1;
    if (!strcmp(e->section, "sweep")) {
        if (!strcmp(n, "name")) {
            /* the name becomes NAME.db and NAME.db.runs/: a path in it would write elsewhere */
            if (!*v || strchr(v, '/') || strstr(v, "..") || *v == '.' || *v == '-')
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not a plain name (no '/', no '..', not starting "
                                  "with '.' or '-')", what, v);
            for (const char *q = v; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    return pm_err_set(err, PM_ERR_USAGE, "%s: control character in the name", what);
            return pm_spec_str(s->name, sizeof s->name, v, err, what);
        }
        if (!strcmp(n, "backend")) {
            if (!pm_backend_find(v))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (%s)", what, v, pm_backend_names());
            return pm_spec_str(s->backend, sizeof s->backend, v, err, what);
        }
        if (!strcmp(n, "repeats")) {
            s->repeats_auto = !strcmp(v, "auto");
            return s->repeats_auto ? PM_OK : pm_spec_int(v, 1, 1000, &s->repeats, err, what);
        }
        if (!strcmp(n, "min_repeats")) return pm_spec_int(v, 1, 1000, &s->min_repeats, err, what);
        if (!strcmp(n, "max_repeats")) return pm_spec_int(v, 1, 1000, &s->max_repeats, err, what);
        if (!strcmp(n, "precision")) {   /* "3%" or "0.03" */
            char *end;
            double x = strtod(v, &end);
            if (end != v && *end == '%' && !end[1])
                x /= 100, end++;
            if (end == v || *end || !(x > 0 && x < 1))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (a fraction or percentage in (0, 100%%), e.g. 3%%)",
                                  what, v);
            s->precision = x;
            return PM_OK;
        }
        if (!strcmp(n, "stop")) {   /* what settles a config under repeats = auto (docs/statistics.md) */
            if (strcmp(v, "answer") && strcmp(v, "precision"))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (answer: its dominant stage known or the precision "
                                  "met; precision: the precision only)", what, v);
            s->stop_on_precision = !strcmp(v, "precision");
            return PM_OK;
        }
        if (!strcmp(n, "warm_repeats")) return pm_spec_int(v, 1, 1000, &s->warm_repeats, err, what);
        if (!strcmp(n, "seed")) {
            int seed;
            int rc = pm_spec_int(v, 0, 1 << 30, &seed, err, what);
            s->seed = (unsigned)seed;
            return rc;
        }
        if (!strcmp(n, "order")) {
            if (strcmp(v, "interleaved") && strcmp(v, "sequential"))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (interleaved, sequential)", what, v);
            s->interleaved = !strcmp(v, "interleaved");
            return PM_OK;
        }
        if (!strcmp(n, "timeout")) {
            if (pm_run_parse_duration(v, &s->timeout_s, err))
                return pm_err_wrap(err, "%s", what);
            /* the runner reads 0 as "no limit": a step or [check] that hangs would hold the sweep forever */
            if (!(s->timeout_s > 0))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' must be more than 0 (passmap runs no process "
                                  "without a time limit; write e.g. 24h for a long one)", what, v);
            return PM_OK;
        }
        if (!strcmp(n, "mem_limit")) return pm_run_parse_size(v, &s->mem_limit, err) ? pm_err_wrap(err, "%s", what) : PM_OK;
        if (!strcmp(n, "warm")) return pm_spec_bool(v, &s->warm, err, what);
        if (!strcmp(n, "bindir")) return pm_spec_str(s->sweep_bindir, sizeof s->sweep_bindir, v, err, what);
        if (!strcmp(n, "meter")) {   /* a row of the meter table (meter.h), or auto; usable here or not: the sweep asks */
            if (strcmp(v, "auto") && !pm_meter_find(v))
                return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (%s)", what, v, pm_meter_names());
            return pm_spec_str(s->meter, sizeof s->meter, v, err, what);
        }
    } else if (!strcmp(e->section, "report")) {
        if (!strcmp(n, "size")) return pm_spec_str(s->report_size, sizeof s->report_size, v, err, what);
        if (!strcmp(n, "workload")) return pm_spec_str(s->report_workload, sizeof s->report_workload, v, err, what);
    }
    return unknown_scalar(e, what, err);
}

/* A section the spec itself ([sweep], [report]) or the back end reads: its first word is one of theirs. */
static int section_read(const char *section, const char *sections)
{
    size_t w = strcspn(section, " ");
    if ((w == 5 && !strncmp(section, "sweep", 5)) || (w == 6 && !strncmp(section, "report", 6)))
        return 1;
    for (const char *p = sections ? strchr(sections, '[') : NULL; p; p = strchr(p + 1, '['))
        if (strcspn(p + 1, " ]") == w && !strncmp(p + 1, section, w))
            return 1;
    return 0;
}

/* Unknown sections first, with their line: a misspelt [swep] or [matrx c] is the mistake to name, not the
 * "name is required" or "no configs" it causes. Here a section no back end reads; one another back end reads
 * (an [openvino] section in an embedded spec) is left to the back end's own check after parsing. */
static int check_sections(const entries *es, const char *backend, pm_err *err)
{
    const char *name = backend;
    for (int i = 0; !name && i < es->n; i++)
        if (!strcmp(es->items[i].section, "sweep") && !strcmp(es->items[i].name, "backend"))
            name = es->items[i].value;
    const pm_backend_ops *be = pm_backend_find(name ? name : "embedded");
    if (!be)
        return PM_OK;   /* an unknown back end: the check that names the back ends says so */
    char all[1024] = "", one[512], dym[160] = "";
    const char *names = pm_backend_names();
    for (const char *p = names; *p;) {   /* every back end's sections, for "known" and the near match */
        size_t w = strcspn(p, ", ");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)(w < sizeof nm ? w : sizeof nm - 1), p);
        const pm_backend_ops *b = pm_backend_find(nm);
        if (b) {
            backend_sections(b->sections, one, sizeof one);
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? ", " : "", one);
        }
        p += w;
        p += strspn(p, ", ");
    }
    for (int i = 0; i < es->n; i++)
        if (!section_read(es->items[i].section, all)) {
            backend_sections(be->sections, one, sizeof one);
            /* the near match among this back end's sections first ([swep]: [sweep], not command's [step]) */
            if (!*section_did_you_mean(dym, sizeof dym, es->items[i].section, one))
                section_did_you_mean(dym, sizeof dym, es->items[i].section, all);
            return pm_err_set(err, PM_ERR_USAGE, "line %d: section [%s] is read by no back end%s (back end %s reads %s)",
                              es->items[i].line, es->items[i].section, dym, be->name, one);
        }
    return PM_OK;
}

int pm_spec_parse_as(const char *text, const char *path, const char *backend, pm_spec **out, pm_err *err)
{
    int rc = PM_OK;
    entries es = {0};
    pm_spec *s = calloc(1, sizeof *s);
    if (!s)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (snprintf(s->path, sizeof s->path, "%s", path ? path : "") >= (int)sizeof s->path) {
        rc = pm_err_set(err, PM_ERR_USAGE, "spec path longer than %zu bytes: %.80s...", sizeof s->path - 1, path);
        goto cleanup;
    }
    {
        /* {spec_dir}: relative paths in a spec are relative to the spec file, not to the caller's cwd */
        char buf[4096];
        const char *slash = path ? strrchr(path, '/') : NULL;
        snprintf(buf, sizeof buf, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");   /* < s->path */
        if (!buf[0])
            snprintf(buf, sizeof buf, "%s", "/");
        char *abs = realpath(buf, NULL);
        int n = snprintf(s->dir, sizeof s->dir, "%s", abs ? abs : buf);
        free(abs);
        if (n < 0 || (size_t)n >= sizeof s->dir) {
            rc = pm_err_set(err, PM_ERR_USAGE, "%s: folder path too long", path);
            goto cleanup;
        }
    }
    s->repeats = 3;
    s->min_repeats = 3;
    s->max_repeats = 10;
    s->precision = 0.03;
    s->interleaved = 1;
    s->seed = 1;
    s->timeout_s = 600;
    s->mem_limit = 16ULL << 30;
    s->warm_repeats = 3;
    snprintf(s->backend, sizeof s->backend, "%s", "embedded");
    if (!(s->text = strdup(text))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = pm_spec_ini_read(text, path ? path : "spec", &es, err)))
        goto cleanup;
    if ((rc = check_sections(&es, backend, err)))
        goto fail;
    for (int i = 0; i < es.n; i++) {
        if (strcmp(es.items[i].section, "sweep") && strcmp(es.items[i].section, "report"))
            continue;
        if ((rc = apply_sweep_scalar(s, &es.items[i], err)))
            goto fail;
    }
    if (!s->name[0]) {
        rc = pm_err_set(err, PM_ERR_USAGE, "[sweep] name is required");
        goto fail;
    }
    if (backend && (!pm_backend_find(backend) || snprintf(s->backend, sizeof s->backend, "%s", backend) < 0)) {
        rc = pm_err_set(err, PM_ERR_USAGE, "back end '%s' (%s)", backend, pm_backend_names());
        goto fail;
    }
    const pm_backend_ops *be = pm_backend_find(s->backend);
    if ((rc = be->parse_spec(s, &es, err)) || (rc = pm_spec_check_unique_keys(s, err)))
        goto fail;
    for (int i = 0; i < es.n; i++) {
        const entry *e = &es.items[i];
        if (e->used)
            continue;
        int known = 0;
        for (int j = 0; j < es.n; j++)
            if (es.items[j].used && !strcmp(es.items[j].section, e->section))
                known = 1;
        if (known) {   /* the section's keys this spec used are keys the back end reads: suggest among them */
            const char **cands = calloc((size_t)es.n, sizeof *cands);
            size_t nc = 0;
            char dym[96] = "";
            for (int j = 0; cands && j < es.n; j++)
                if (es.items[j].used && !strcmp(es.items[j].section, e->section))
                    cands[nc++] = es.items[j].name;
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [%s]: unknown key '%s'%s", e->line, e->section, e->name,
                            cands ? pm_spec_did_you_mean(dym, sizeof dym, e->name, cands, nc) : "");
            free(cands);
        }
        else {
            char dym[160] = "", secs[512];
            backend_sections(be->sections, secs, sizeof secs);
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: section [%s] is not read by back end %s%s (%s)", e->line,
                            e->section, be->name, section_did_you_mean(dym, sizeof dym, e->section, secs), secs);
        }
        goto fail;
    }
    /* the adaptive rule's settings without the rule would be read as doing something */
    for (int i = 0; i < es.n && !s->repeats_auto; i++) {
        const pm_spec_entry *e = &es.items[i];
        if (!strcmp(e->section, "sweep") && (!strcmp(e->name, "min_repeats") || !strcmp(e->name, "max_repeats") ||
                                             !strcmp(e->name, "precision") || !strcmp(e->name, "stop"))) {
            rc = pm_err_set(err, PM_ERR_USAGE, "line %d: [sweep] %s applies only with repeats = auto (repeats is %d "
                            "here)", e->line, e->name, s->repeats);
            goto fail;
        }
    }
    if (s->min_repeats > s->max_repeats) {
        rc = pm_err_set(err, PM_ERR_USAGE, "[sweep] min_repeats %d exceeds max_repeats %d", s->min_repeats,
                        s->max_repeats);
        goto fail;
    }
    if (s->repeats_auto)
        s->repeats = s->min_repeats;   /* the first round; later rounds only for the configs not settled */
    goto cleanup;
fail:
    pm_err_wrap(err, "%s", path);
cleanup:
    pm_spec_entries_free(&es);
    if (rc) {
        pm_spec_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int pm_spec_parse(const char *text, const char *path, pm_spec **out, pm_err *err)
{
    return pm_spec_parse_as(text, path, NULL, out, err);
}

int pm_spec_load_as(const char *path, const char *backend, pm_spec **out, pm_err *err)
{
    *out = NULL;
    char *text;
    size_t len;
    int rc = pm_util_read_file_max(path, PM_SPEC_MAX_BYTES, &text, &len, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "spec");
    if (memchr(text, '\0', len))
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: binary data in spec", path);
    else
        rc = pm_spec_parse_as(text, path, backend, out, err);
    free(text);
    return rc;
}

int pm_spec_load(const char *path, pm_spec **out, pm_err *err)
{
    return pm_spec_load_as(path, NULL, out, err);
}

void pm_spec_free(pm_spec *spec)
{
    if (!spec)
        return;
    for (int i = 0; i < spec->n_configs; i++)
        pm_spec_config_clear(&spec->configs[i]);
    free(spec->configs);
    if (spec->backend_free)
        spec->backend_free(spec->backend_data);
    pm_free_all(spec->text, spec);
}
