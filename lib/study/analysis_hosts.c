/* an_hosts: which machine measured which config. A study sharded over machines compares configs measured on
 * different machines; the report says so, per machine (the stratification) and in warnings naming what crosses. */
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct host_ctx {
    an_work *w;
    int *n_hosts_of;      /* per config: machines seen */
} host_ctx;

static int dup_all(pm_an_host *h, const pm_sq_host_row *r)
{
    return (h->name = strdup(r->name)) && (h->fingerprint = strdup(r->fingerprint)) &&
           (h->cpu_model = strdup(r->cpu_model)) && (h->kernel = strdup(r->kernel)) &&
           (h->compiler = strdup(r->compiler));
}

static int on_host(void *vctx, const pm_sq_host_row *r)
{
    host_ctx *ctx = vctx;
    pm_analysis *a = ctx->w->a;
    int cfg = an_find_cfg(a, r->config_id);
    if (cfg < 0)
        return PM_OK;
    size_t h = 0;
    while (h < a->machines.n && (strcmp(a->machines.rows[h].name, r->name) || strcmp(a->machines.rows[h].fingerprint, r->fingerprint)))
        h++;
    if (h == a->machines.n) {
        pm_an_host *p = realloc(a->machines.rows, (a->machines.n + 1) * sizeof *p);
        if (!p)
            return PM_ERR_NOMEM;
        a->machines.rows = p;
        memset(&p[h], 0, sizeof p[h]);
        a->machines.n++;
        if (!dup_all(&p[h], r))
            return PM_ERR_NOMEM;
        p[h].cores = r->cores;
        p[h].wall_geomean = NAN;
    }
    a->machines.rows[h].n_configs++;
    a->machines.rows[h].n_runs += r->n_runs;
    pm_an_config *c = &a->configs[cfg];
    c->host = ctx->n_hosts_of[cfg]++ == 0 ? (int)h : -2;
    return PM_OK;
}

static int same_word(const pm_tool_ident *x, const pm_tool_ident *y)
{
    return !strcmp(x->name, y->name) && (!x->invoked || !y->invoked || !strcmp(x->invoked, y->invoked));
}

/* The tool builds of the sweeps analysed; a tool with two builds (a forced merge) is said, never hidden. */
static int load_builds(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    for (size_t s = 0; s < w->sweeps.n; s++) {
        pm_tool_ident *t = NULL;
        size_t n = 0;
        int rc = pm_store_read_tools(w->db, w->sweeps.ids[s], &t, &n, err);
        if (rc)
            return rc;
        if (!n)
            continue;
        pm_tool_ident *g = realloc(a->method.tools, (a->method.n_tools + n) * sizeof *g);
        if (!g) {
            pm_tool_idents_free(t, n);
            return an_nomem(err);
        }
        a->method.tools = g;
        memcpy(a->method.tools + a->method.n_tools, t, n * sizeof *t);
        a->method.n_tools += n;
        free(t);
    }
    /* one tool is one (name, program word): a spec whose axis picks the build (llc-{llvm}) runs one build per
     * word; a word recorded before schema 8 (NULL) is its name's. One build is one hash and --version text less
     * the lines describing the machine (LLVM's Host CPU: one binary on a cluster of mixed CPUs) */
    char **build = calloc(a->method.n_tools + 1, sizeof *build);
    int oom = !build;
    for (size_t i = 0; !oom && i < a->method.n_tools; i++)
        oom = !(build[i] = pm_version_text_part(a->method.tools[i].version_text, 0));
    for (size_t i = 0; !oom && i < a->method.n_tools; i++) {
        size_t k = 0;
        for (size_t j = 0; j < a->method.n_tools; j++)
            k += same_word(&a->method.tools[i], &a->method.tools[j]) &&
                 (strcmp(a->method.tools[i].hash, a->method.tools[j].hash) || strcmp(build[i], build[j]));
        if (!k)
            continue;
        int said = 0;
        for (size_t j = 0; j < i && !said; j++)
            said = same_word(&a->method.tools[i], &a->method.tools[j]);
        a->method.mixed_builds = 1;
        if (said)
            continue;
        char buf[512];
        snprintf(buf, sizeof buf, "tool %s: %zu builds ran in this study under one program name (a forced "
                 "merge): its runs do not share one compiler build; compare within a build",
                 a->method.tools[i].invoked ? a->method.tools[i].invoked : a->method.tools[i].name, k + 1);
        oom = an_strlist_add(&a->machines.warnings, &a->machines.n_warnings, buf) != 0;
    }
    for (size_t i = 0; build && i < a->method.n_tools; i++)
        free(build[i]);
    free(build);
    if (oom)
        return an_nomem(err);
    return PM_OK;
}

int an_hosts(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int brc = load_builds(w, err);
    if (brc)
        return brc;
    /* A study merged with shards missing (merge --partial): every figure below lacks their configs. */
    for (size_t s = 0; s < w->sweeps.n; s++) {
        char *note = NULL, buf[1200];
        int unfinished = 0;
        if ((brc = pm_sq_incomplete(w->db, w->sweeps.ids[s], &note, &unfinished, err)))
            return brc;
        if (!note)
            continue;
        snprintf(buf, sizeof buf, "INCOMPLETE STUDY (%s): %s; every table, map, fit and ratio here lacks those "
                 "configs", unfinished ? "a merge did not finish" : "merged with --partial", note);
        free(note);
        free(a->incomplete);
        if (!(a->incomplete = strdup(buf)))
            return an_nomem(err);
    }
    host_ctx ctx = {.w = w, .n_hosts_of = calloc(a->n_configs + 1, sizeof(int))};
    if (!ctx.n_hosts_of)
        return an_nomem(err);
    for (size_t i = 0; i < a->n_configs; i++)
        a->configs[i].host = -1;
    int rc = pm_sq_cold_hosts(w->db, on_host, &ctx, err);
    if (rc == PM_ERR_NOMEM)
        rc = an_nomem(err);
    if (rc)
        goto cleanup;
    /* Machine kinds: distinct fingerprints. */
    for (size_t i = 0; i < a->machines.n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(a->machines.rows[i].fingerprint, a->machines.rows[j].fingerprint);
        a->machines.n_kinds += !seen;
    }
    /* Per machine: geometric mean cold wall of the configs it alone measured. */
    for (size_t h = 0; h < a->machines.n; h++) {
        double sum = 0;
        int n = 0;
        for (size_t i = 0; i < a->n_configs; i++)
            if (a->configs[i].host == (int)h && a->configs[i].wall.mean > 0) {
                sum += log(a->configs[i].wall.mean);
                n++;
            }
        a->machines.rows[h].wall_geomean = n ? exp(sum / n) : NAN;
    }
    if (a->machines.n > 1) {
        char buf[768];
        if (a->machines.n_kinds > 1)
            snprintf(buf, sizeof buf,
                     "this study mixes %zu machines of %d kinds (CPU, cores, kernel or compiler build differ): "
                     "configs measured on different machines are compared in the tables, regime maps, fits and "
                     "precision ratios, so their differences include the machines'; compare within a machine, or "
                     "rerun on one machine kind",
                     a->machines.n, a->machines.n_kinds);
        else if (a->method.mixed_builds)
            snprintf(buf, sizeof buf,
                     "this study mixes %zu machines of one CPU, core count and kernel, and more than one compiler "
                     "build (above): comparisons across configs include the builds' differences",
                     a->machines.n);
        else
            snprintf(buf, sizeof buf,
                     "this study mixes %zu machines of one kind (same CPU, cores, kernel and compiler build): "
                     "comparisons across configs assume the machines time alike",
                     a->machines.n);
        if (an_strlist_add(&a->machines.warnings, &a->machines.n_warnings, buf)) {
            rc = an_nomem(err);
            goto cleanup;
        }
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        if (a->configs[i].host != -2)
            continue;
        char buf[512];
        snprintf(buf, sizeof buf, "%s: its cold repeats come from %d machines, so its interval mixes machines",
                 a->configs[i].key, ctx.n_hosts_of[i]);
        if (an_strlist_add(&a->machines.warnings, &a->machines.n_warnings, buf)) {
            rc = an_nomem(err);
            goto cleanup;
        }
    }
cleanup:
    free(ctx.n_hosts_of);
    return rc;
}

void an_hosts_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->machines.n; i++) {
        pm_an_host *h = &a->machines.rows[i];
        free(h->name); free(h->fingerprint); free(h->cpu_model); free(h->kernel); free(h->compiler);
    }
    free(a->machines.rows);
    pm_free_strs(a->machines.warnings, a->machines.n_warnings);
    pm_tool_idents_free(a->method.tools, a->method.n_tools);
    free(a->incomplete);
}
