/* Section (run by the caller, which knows the store's path): between builds. A study whose axis picks the
 * compiler build compares each build with the next by pm_compare_run on that axis, with the pass alias table,
 * so every ratio, interval and verdict is compare's (one rule, one implementation: compare.h). */
#include "analysis.h"
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passalias.h"
#include "util.h"

void pm_an_builds_free(pm_an_builds *b)
{
    for (size_t i = 0; i < b->n_values; i++)
        pm_free_all(b->values[i], b->invoked ? b->invoked[i] : NULL);
    pm_free_all(b->values, b->invoked);
    for (size_t i = 0; i < b->n_pairs; i++) {
        pm_free_all(b->pairs[i].a, b->pairs[i].b, b->pairs[i].error);
        pm_compare_free(&b->pairs[i].cmp);
    }
    pm_free_all(b->pairs, b->axis, b->alias_error);
    memset(b, 0, sizeof *b);
}

/* The "tool:" lines of a fingerprint text (identity.h): the builds its steps ran, as one heap string. */
static char *tool_lines(const char *text)
{
    pm_sbuf b = {0};
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "  tool: ", 8))
            pm_sbuf_add(&b, "%.*s\n", (int)len, p);
        p += len + (nl != NULL);
    }
    return pm_sbuf_take(&b);
}

/* The program words of a fingerprint text's steps ("step 1 llc: llc-14 -O2 ..." -> "llc-14"), ", "-joined. */
static char *program_words(const char *text)
{
    pm_sbuf b = {0};
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *colon = !strncmp(p, "step ", 5) ? memchr(p, ':', len) : NULL;
        if (colon && colon + 2 < p + len) {
            const char *w = colon + 2;
            size_t wl = strcspn(w, " \n");
            char word[256];
            snprintf(word, sizeof word, "%.*s", (int)(wl < 255 ? wl : 255), w);
            if (!b.s || !strstr(b.s, word))
                pm_sbuf_add(&b, "%s%s", b.len ? ", " : "", word);
        }
        p += len + (nl != NULL);
    }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

static int cmp_values(const void *x, const void *y)
{
    const char *a = *(char *const *)x, *b = *(char *const *)y;
    char *ea, *eb;
    double da = strtod(a, &ea), db = strtod(b, &eb);
    if (*a && *b && !*ea && !*eb && da != db)
        return da < db ? -1 : 1;
    return strcmp(a, b);
}

/* The first axis on which two configs equal on every other axis ran other tool builds; NULL: none. tl: each
 * config's tool lines (NULL: no fingerprint recorded). */
static const char *find_axis(const pm_analysis *a, char *const *tl)
{
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *ci = &a->configs[i];
        for (size_t j = i + 1; tl[i] && j < a->n_configs; j++) {
            if (!tl[j] || !strcmp(tl[i], tl[j]))
                continue;
            for (size_t k = 0; k < ci->n_params; k++) {
                const char *ax = ci->params[k].name;
                const char *vj = pm_cfg_param(&a->configs[j].cfg, ax);
                if (vj && strcmp(vj, ci->params[k].value) && pm_cfg_equal_except(&ci->cfg, &a->configs[j].cfg, ax))
                    return ax;
            }
        }
    }
    return NULL;
}

static const pm_an_config *config_by_key(const pm_analysis *a, const char *key)
{
    for (size_t i = 0; key && i < a->n_configs; i++)
        if (!strcmp(a->configs[i].key, key))
            return &a->configs[i];
    return NULL;
}

/* The stage whose time moved most between the pair's matched configs (their analysis stage times). */
static void stage_moved(const pm_analysis *a, pm_an_builds_pair *p)
{
    p->stage = -1;
    double best = 0;
    for (size_t s = 0; s < a->n_stages; s++) {
        double ta = 0, tb = 0;
        int n = 0;
        for (size_t c = 0; c < p->cmp.n_configs; c++) {
            const pm_an_config *ca = config_by_key(a, p->cmp.configs[c].key_a);
            const pm_an_config *cb = config_by_key(a, p->cmp.configs[c].key_b);
            if (!ca || !cb || !ca->stage_s || !cb->stage_s || isnan(ca->stage_s[s]) || isnan(cb->stage_s[s]))
                continue;
            ta += ca->stage_s[s];
            tb += cb->stage_s[s];
            n++;
        }
        if (n && fabs(tb - ta) > best) {
            best = fabs(tb - ta);
            p->stage = (int)s;
            p->stage_a_s = ta;
            p->stage_b_s = tb;
        }
    }
}

static int add_pair(pm_analysis *a, const char *db_path, double threshold, const pm_passalias *al, size_t ia,
                    size_t ib, pm_err *err)
{
    pm_an_builds *bw = &a->between;
    pm_an_builds_pair *p = &bw->pairs[bw->n_pairs++];
    memset(p, 0, sizeof *p);
    p->stage = -1;
    if (!(p->a = strdup(bw->values[ia])) || !(p->b = strdup(bw->values[ib])))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_compare_opts co = {.path_a = db_path, .path_b = db_path, .sweep_a = a->sweep, .sweep_b = a->sweep,
                          .variant_a = p->a, .variant_b = p->b, .axis = bw->axis, .threshold = threshold,
                          .allow_contended = a->ab.allow_contended, .aliases = al};
    pm_err e = {0};
    int rc = pm_compare_run(&co, &p->cmp, &e);
    if (rc == PM_ERR_NOMEM)
        return pm_err_set(err, rc, "%s", e.msg);
    if (rc != PM_OK && !(p->error = strdup(e.msg[0] ? e.msg : "compare failed")))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (rc == PM_OK)
        stage_moved(a, p);
    return PM_OK;
}

int pm_analysis_builds(pm_analysis *a, const char *db_path, double threshold, pm_err *err)
{
    pm_an_builds *bw = &a->between;
    if (!a->sweep || strchr(a->sweep, ',') || a->n_configs < 2)
        return PM_OK;
    pm_store *st = NULL;
    pm_config_fp *fps = NULL;
    size_t n_fps = 0;
    char **tl = calloc(a->n_configs, sizeof *tl), **words = calloc(a->n_configs, sizeof *words);
    pm_passalias *al = NULL;
    pm_err e = {0};
    int rc = PM_OK;
    if (!tl || !words) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* a store that cannot be read again (or predates fingerprints) has no builds axis to find */
    if (pm_store_open_readonly(db_path, &st, &e) || pm_store_config_fps(st, a->sweep, &fps, &n_fps, &e))
        goto cleanup;
    for (size_t i = 0; i < a->n_configs; i++)
        for (size_t k = 0; k < n_fps; k++)
            if (fps[k].text && !strcmp(fps[k].key, a->configs[i].key)) {
                if (!(tl[i] = tool_lines(fps[k].text)) || !(words[i] = program_words(fps[k].text))) {
                    rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                    goto cleanup;
                }
                break;
            }
    const char *axis = find_axis(a, tl);
    if (!axis)
        goto cleanup;
    if (!(bw->axis = strdup(axis)) || !(bw->values = calloc(a->n_configs, sizeof *bw->values)) ||
        !(bw->invoked = calloc(a->n_configs, sizeof *bw->invoked))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < a->n_configs; i++) {
        const char *v = pm_cfg_param(&a->configs[i].cfg, axis);
        size_t k = 0;
        while (v && k < bw->n_values && strcmp(bw->values[k], v))
            k++;
        if (!v || k < bw->n_values)
            continue;
        if (!(bw->values[bw->n_values++] = strdup(v))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    qsort(bw->values, bw->n_values, sizeof *bw->values, cmp_values);
    for (size_t k = 0; k < bw->n_values; k++)   /* the words of the first config of each build */
        for (size_t i = 0; i < a->n_configs && !bw->invoked[k]; i++) {
            const char *v = pm_cfg_param(&a->configs[i].cfg, axis);
            if (v && !strcmp(v, bw->values[k]) && words[i] && !(bw->invoked[k] = strdup(words[i]))) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                goto cleanup;
            }
        }
    if (!(al = pm_passalias_new())) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    pm_err ae = {0};
    if (pm_passalias_load_default(al, &ae)) {
        pm_passalias_free(al);
        al = NULL;
        if (!(bw->alias_error = strdup(ae.msg))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    bw->n_aliases = pm_passalias_rows(al);
    /* each build against the next; with more than two, also the first against the last */
    size_t n_pairs = bw->n_values - 1 + (bw->n_values > 2);
    if (!(bw->pairs = calloc(n_pairs + 1, sizeof *bw->pairs))) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t k = 0; k + 1 < bw->n_values && !rc; k++)
        rc = add_pair(a, db_path, threshold, al, k, k + 1, err);
    if (!rc && bw->n_values > 2)
        rc = add_pair(a, db_path, threshold, al, 0, bw->n_values - 1, err);
cleanup:
    for (size_t i = 0; i < a->n_configs; i++) {
        free(tl ? tl[i] : NULL);
        free(words ? words[i] : NULL);
    }
    free(tl);
    free(words);
    pm_passalias_free(al);
    pm_config_fps_free(fps, n_fps);
    pm_store_close(st);
    return rc;
}

/* The section row, after ab (it reads a->ab.allow_contended); like ab, it needs the store's path. */
int an_builds(an_work *w, pm_err *err)
{
    const pm_analysis *a = w->a;
    if (!w->opts->db_path || !an_has_runs(a))
        return PM_OK;
    return pm_analysis_builds(w->a, w->opts->db_path, 0, err);
}

void an_builds_free(pm_analysis *a)
{
    pm_an_builds_free(&a->between);
}
