/* Section (run by the caller, which knows the store's path): the in-sweep A/B. Each variant other than the
 * reference is compared with it by pm_compare_run itself, so the report's marks are compare's marks: one rule,
 * one implementation (compare.h). */
#include "analysis.h"
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

/* One comparison of the store with itself: B = `b` against A = `a`, on the variant (axis NULL) or on an axis. */
static int add_ab(pm_analysis *a, const char *db_path, double threshold, const char *axis, const char *va,
                  const char *vb, int *unreadable, pm_err *err)
{
    pm_an_ab *ab = realloc(a->ab.rows, (a->ab.n + 1) * sizeof *ab);
    if (!ab)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    a->ab.rows = ab;
    ab = &a->ab.rows[a->ab.n++];
    memset(ab, 0, sizeof *ab);
    ab->variant = strdup(vb);
    ab->against = strdup(va);
    ab->axis = axis;
    if (!ab->variant || !ab->against)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_compare_opts co = {.path_a = db_path, .path_b = db_path, .sweep_a = a->sweep, .sweep_b = a->sweep,
                          .variant_a = va, .variant_b = vb, .axis = axis, .threshold = threshold,
                          .walls_only = 1, .allow_contended = a->ab.allow_contended};
    pm_err e = {0};
    int rc = pm_compare_run(&co, &ab->cmp, &e);
    if (rc == PM_ERR_NOMEM)
        return pm_err_set(err, rc, "%s", e.msg);
    if (rc != PM_OK && !(ab->error = strdup(e.msg[0] ? e.msg : "compare failed")))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    /* a store compare cannot open (an old dump without passmap's schema stamp) fails every pair alike: say it once */
    *unreadable = rc != PM_OK && rc != PM_ERR_USAGE;
    return PM_OK;
}

int pm_analysis_ab(pm_analysis *a, const char *db_path, double threshold, int allow_contended, pm_err *err)
{
    a->ab.allow_contended = allow_contended;
    if (a->sweep && strchr(a->sweep, ','))   /* several sweeps: compare pairs within one sweep */
        return PM_OK;
    int rc = PM_OK, unreadable = 0;
    const char *ref = NULL;
    /* stock when present (a fix sweep reads each fix against stock, as passmap fix does), else the first regime
     * map's variant (kind rows in table order) */
    for (size_t i = 0; !ref && i < a->n_configs; i++)
        if (a->configs[i].variant && !strcmp(a->configs[i].variant, "stock") && a->configs[i].n_cold)
            ref = a->configs[i].variant;
    for (size_t i = 0; !ref && i < a->regimes.n; i++)
        ref = a->regimes.rows[i].variant;
    if (!ref) {   /* no regime map: the most common variant among the configs */
        size_t best = 0;
        for (size_t i = 0; i < a->n_configs; i++) {
            size_t n = 0;
            for (size_t k = 0; a->configs[i].variant && k < a->n_configs; k++)
                n += a->configs[k].variant && !strcmp(a->configs[k].variant, a->configs[i].variant);
            if (n > best)
                best = n, ref = a->configs[i].variant;
        }
    }
    for (size_t i = 0; ref && *ref && !rc && !unreadable && i < a->n_configs; i++) {
        const char *v = a->configs[i].variant;
        if (!v || !*v || !strcmp(v, ref) || !a->configs[i].n_cold)
            continue;
        size_t k = 0;
        while (k < a->ab.n && strcmp(a->ab.rows[k].variant, v))
            k++;
        if (k == a->ab.n)   /* each variant once */
            rc = add_ab(a, db_path, threshold, NULL, ref, v, &unreadable, err);
    }
    /* The precision study's ratios: each precision against the base on configs equal on every other axis
     * (variant included), so its per-config marks come from compare too. */
    for (size_t k = 0; a->precision.base && !rc && !unreadable && k < a->precision.n; k++)
        if (a->precision.time[k].label && strcmp(a->precision.time[k].label, a->precision.base))
            rc = add_ab(a, db_path, threshold, "precision", a->precision.base, a->precision.time[k].label, &unreadable, err);
    return rc;
}

void pm_an_ab_free(pm_an_ab_sec *ab)
{
    for (size_t i = 0; i < ab->n; i++) {
        pm_free_all(ab->rows[i].variant, ab->rows[i].against, ab->rows[i].error);
        pm_compare_free(&ab->rows[i].cmp);
    }
    free(ab->rows);
    memset(ab, 0, sizeof *ab);
}

/* The section row: needs the store's path (compare opens it); a sweep without runs has nothing to compare. */
int an_ab(an_work *w, pm_err *err)
{
    const pm_analysis *a = w->a;
    if (!w->opts->db_path || !an_has_runs(a))
        return PM_OK;
    return pm_analysis_ab(w->a, w->opts->db_path, 0, w->opts->allow_contended, err);
}

void an_ab_free(pm_analysis *a)
{
    pm_an_ab_free(&a->ab);
}
