/* The embedded back end's side of passmap fix (backend.h pm_backend_fix_ops): the catalogue is
 * data/fixes-embedded.tsv; a round is an embedded spec written as text (the same [llm]/[cnn] machinery as a
 * study, so a variant means the same thing); the output check compiles a reduced copy of the config, links
 * its object with a generated driver and compares the f32 results (embedded_check.h). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "embedded_check.h"
#include "gen.h"
#include "spec.h"
#include "util.h"

static void append(char **buf, size_t *len, size_t *cap, int *oom, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void append(char **buf, size_t *len, size_t *cap, int *oom, const char *fmt, ...)
{
    if (*oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (*len + (size_t)need + 1 > *cap) {
        size_t nc = (*cap + (size_t)need + 1) * 2;
        char *nb = realloc(*buf, nc);
        if (!nb) {
            *oom = 1;
            return;
        }
        *buf = nb;
        *cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t)need;
}

/* The spec text of a round: one section per distinct config listing its variants. The config keys equal the
 * study's (same [embedded] pipeline and per-section tile), so compare lines them up. window_cap/layers_cap
 * (0: none) reduce the configs for the output check. */
static char *round_text(const pm_spec *s, const int *cfgs, const char *const *variants, size_t n, int repeats,
                        const char *name, int window_cap, int layers_cap)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int oom = 0;
    const pm_embedded_spec *e = pm_embedded_spec_of(s);
    append(&buf, &len, &cap, &oom,
           "; written by passmap fix: the A/B of study '%s'\n[sweep]\nname = %s\nbackend = embedded\nrepeats = %d\n"
           "order = interleaved\nseed = %u\ntimeout = %gs\nmem_limit = %llu\n[embedded]\ntile = %d\nunroll = %d\n"
           "display = %s\njson = %s\nsingle_thread = %s\nllc_opt = %d\n",
           s->name, name, repeats, s->seed, s->timeout_s, (unsigned long long)s->mem_limit, e->tile, e->unroll,
           e->display, e->json ? "true" : "false", e->single_thread ? "true" : "false", e->llc_opt);
    if (e->bindir[0])
        append(&buf, &len, &cap, &oom, "bindir = %s\n", e->bindir);
    if (e->timing_twins)
        append(&buf, &len, &cap, &oom, "timing_twins = true\n");
    for (size_t i = 0; i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = cfgs[j] != cfgs[i];
        if (!first)
            continue;
        const pm_spec_config *c = &s->configs[cfgs[i]];
        const pm_kind *kind = pm_kind_find(c->kind);
        pm_workload w = pm_spec_workload(c);
        char sec[32];
        snprintf(sec, sizeof sec, "c%d", cfgs[i]);
        char *section = kind && kind->spec_section ? kind->spec_section(&w, sec, window_cap, layers_cap) : NULL;
        oom |= !section;   /* every config of an embedded study has a workload row (the spec made it from one) */
        append(&buf, &len, &cap, &oom, "%s", section ? section : "");
        free(section);
        int tile = pm_embedded_config_tile(c), unroll = pm_embedded_config_unroll(c);
        if (tile != e->tile)
            append(&buf, &len, &cap, &oom, "tile = %d\n", tile);
        if (unroll != e->unroll)
            append(&buf, &len, &cap, &oom, "unroll = %d\n", unroll);
        append(&buf, &len, &cap, &oom, "variants = ");
        int nv = 0;
        for (size_t j = i; j < n; j++) {
            if (cfgs[j] != cfgs[i])
                continue;
            int dup = 0;
            for (size_t k = i; k < j && !dup; k++)
                dup = cfgs[k] == cfgs[i] && !strcmp(variants[k], variants[j]);
            if (!dup)
                append(&buf, &len, &cap, &oom, "%s%s", nv++ ? ", " : "", variants[j]);
        }
        append(&buf, &len, &cap, &oom, "\n");
    }
    if (oom) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int embedded_round(const pm_spec *study, const int *configs, const char *const *variants, size_t n,
                          int repeats, const char *name, pm_spec **out, pm_err *err)
{
    *out = NULL;
    char *text = round_text(study, configs, variants, n, repeats, name, 0, 0);
    if (!text)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = pm_spec_parse(text, name, out, err);
    free(text);
    return rc;
}

static int embedded_check_build(const pm_spec *study, int config, const char *variant, const char *dir,
                                const pm_fix_check_opts *o, char *result, size_t cap, pm_err *err)
{
    pm_embedded_tools tools;
    const pm_embedded_spec *es = pm_embedded_spec_of(study);
    int rc = pm_embedded_find_tools(es->bindir[0] ? es->bindir : NULL, &tools, err);
    if (rc)
        return PM_ERR_UNSUPPORTED;
    const char *vars[1] = {variant};
    char *text = round_text(study, &config, vars, 1, 1, "check", o->reduce_window > 0 ? o->reduce_window : 128,
                            o->reduce_layers > 0 ? o->reduce_layers : 2);
    pm_spec *spec = NULL;
    if (!text)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = pm_spec_parse(text, "check", &spec, err)))
        goto cleanup;
    const pm_spec_config *c = &spec->configs[0];
    char input[PATH_MAX + 16];
    snprintf(input, sizeof input, "%s/input.mlir", dir);
    FILE *f = fopen(input, "w");
    if (!f) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", input);
        goto cleanup;
    }
    pm_gen_info info;
    const pm_kind *k = pm_kind_find(c->kind);
    pm_workload w = pm_spec_workload(c);
    rc = k && k->emit ? k->emit(&w, f, &info, err)
                      : pm_err_set(err, PM_ERR_UNSUPPORTED, "no generator for kind '%s'", c->kind);
    if (fclose(f) && !rc)
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", input);
    if (rc)
        goto cleanup;
    const pm_embedded_spec *se = pm_embedded_spec_of(spec);
    int vtile = pm_spec_variant_tile(c);
    pm_embedded_opts eo = {.bindir = tools.bindir, .tile = vtile ? vtile : pm_embedded_config_tile(c),
                           .unroll = pm_embedded_config_unroll(c),
                           .no_rollback = pm_spec_variant_has(c, "no-rollback"), .single_thread = se->single_thread,
                           .display = se->display, .json = se->json, .llc_opt = se->llc_opt};
    rc = pm_embedded_check_run(&eo, &tools, input, dir, o, o->timeout_s > 0 ? o->timeout_s : spec->timeout_s, result,
                               cap, err);
cleanup:
    pm_spec_free(spec);
    free(text);
    return rc;
}

static int embedded_check_compare(const pm_spec *study, int config, const char *stock_result, const char *result,
                                  const pm_fix_check_opts *o, int *same, char *outcome, size_t cap, pm_err *err)
{
    (void)study, (void)config, (void)o;
    pm_check_cmp cmp;
    int rc = pm_embedded_check_compare(stock_result, result, &cmp, err);
    if (rc)
        return rc;
    *same = cmp.within;
    if (cmp.bit_exact)
        snprintf(outcome, cap, "bit-exact (%lld values)", (long long)cmp.n);
    else if (cmp.within)
        snprintf(outcome, cap, "within %g (%lld of %lld values differ, max rel %.2g)", PM_CHECK_TOLERANCE,
                 (long long)cmp.n_differ, (long long)cmp.n, cmp.max_rel);
    else
        snprintf(outcome, cap, "differs (%lld of %lld values, max abs %.3g)", (long long)cmp.n_differ,
                 (long long)cmp.n, cmp.max_abs);
    return PM_OK;
}

/* The ledger's program side: @forward of the check's reduced config, timed by its driver; .text of its object. */
static int embedded_program_run(const pm_spec *study, int config, const char *dir, const pm_fix_check_opts *o,
                                double *run_s, double *cpu_wall, char *what, size_t cap, pm_err *err)
{
    (void)config;
    snprintf(what, cap, "forward() of the check's reduced config (window <= %d, %d layers)",
             o->reduce_window > 0 ? o->reduce_window : 128, o->reduce_layers > 0 ? o->reduce_layers : 2);
    return pm_embedded_check_time(dir, o, o->timeout_s > 0 ? o->timeout_s : study->timeout_s, run_s, cpu_wall, err);
}

static int embedded_program_size(const pm_spec *study, int config, const char *dir, double *bytes, char *what,
                                 size_t cap, pm_err *err)
{
    (void)study, (void)config;
    char obj[PATH_MAX];
    if (snprintf(obj, sizeof obj, "%s/out.o", dir) >= (int)sizeof obj)
        return pm_err_set(err, PM_ERR_USAGE, "check folder path too long: %s", dir);
    snprintf(what, cap, ".text");
    return pm_elf_section_size(obj, ".text", bytes, err);
}

const pm_backend_fix_ops pm_embedded_fix = {
    .program_run = embedded_program_run,
    .program_size = embedded_program_size,
    .catalogue_file = "fixes-embedded.tsv",
    .round = embedded_round,
    .check_build = embedded_check_build,
    .check_compare = embedded_check_compare,
    .tolerance = PM_CHECK_TOLERANCE,
};
