/* The evidence a fix plan starts from: the study's analysis, and per config the facts its rules read. */
#include "fix_internal.h"

int pm_fix_load_study(fix_ctx *x, pm_err *err)
{
    pm_store_sweep_row *rows = NULL;
    size_t n = 0;
    int rc = pm_store_list_sweeps(x->store, &rows, &n, err);
    if (rc)
        return rc;
    long pick = -1;
    for (size_t i = 0; i < n; i++) {
        if (x->o->sweep ? !strcmp(rows[i].name, x->o->sweep) : !pm_fix_is_fix_sweep(rows[i].name) && !rows[i].superseded)
            pick = (long)i;
    }
    if (pick < 0) {
        rc = x->o->sweep ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no sweep named '%s'", x->o->db_path, x->o->sweep)
                         : pm_err_set(err, PM_ERR_NOTFOUND, "%s: no study sweep (run `passmap sweep` first)",
                                      x->o->db_path);
        goto cleanup;
    }
    snprintf(x->study, sizeof x->study, "%s", rows[pick].name);
    snprintf(x->backend, sizeof x->backend, "%s", rows[pick].backend);
    snprintf(x->fix_sweep, sizeof x->fix_sweep, "%s%s", x->study, FIX_SWEEP_SUFFIX);
    const pm_backend_ops *be = pm_backend_find(x->backend);
    if (!be || !be->fix) {
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "sweep '%s' uses the %s back end, which runs no fixes (its row in "
                        "the back-end table has no fix ops)", x->study, x->backend);
        goto cleanup;
    }
    x->fx = be->fix;
    /* Read the stored spec as if from its folder, so file axes and {spec_dir} mean what they meant. */
    char path[PATH_MAX + 160];
    json_t *meta = rows[pick].meta_json ? json_loads(rows[pick].meta_json, 0, NULL) : NULL;
    const char *dir = json_string_value(json_object_get(meta, "spec_dir"));
    if (dir && snprintf(path, sizeof path, "%s/%s.ini", dir, x->study) < (int)sizeof path)
        ;
    else
        snprintf(path, sizeof path, "%s", x->study);
    json_decref(meta);
    if ((rc = pm_spec_parse_as(rows[pick].spec_text, path, x->backend, &x->src_spec, err)))
        pm_err_wrap(err, "the spec stored with sweep '%s'", x->study);
cleanup:
    pm_store_sweep_rows_free(rows, n);
    return rc;
}

/* A config is evidence for a fix only when its timing report was read (pass rows: a wall alone says nothing about
 * where the time goes) and, for the report's proposals, when its runs were not contended. */
static int fix_evidence_usable(const fix_ctx *x, const pm_an_config *c, size_t *n_unread, size_t *n_contended)
{
    if (c->n_passes == 0) {
        (*n_unread)++;
        return 0;
    }
    if (x->exclude_contended && c->contended) {
        (*n_contended)++;
        return 0;
    }
    return 1;
}

static int no_evidence(fix_ctx *x, size_t n_unread, size_t n_contended, pm_err *err)
{
    if (n_unread && !n_contended)
        x->none_why = "no stock config has a readable timing report (no pass rows): no fix is proposed from a "
                      "wall alone";
    else if (n_contended)
        x->none_why = "every stock config with pass rows was contended: no conclusion (rerun on a quieter machine, "
                      "or --allow-contended)";
    else
        x->none_why = "no stock config with a successful cold run";
    return pm_err_set(err, PM_ERR_NOTFOUND, "sweep '%s': %s", x->study, x->none_why);
}

int pm_fix_build_evidence(fix_ctx *x, pm_err *err)
{
    if (!x->an) {
        pm_stagemap *map = pm_stagemap_new();
        if (!map)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        int rc = pm_stagemap_load_default(map, err);
        if (rc == PM_OK) {
            pm_an_opts ao = {.sweep = x->study, .map = map, .fit_sizes_of = pm_backend_fit_sizes_of};
            rc = pm_analysis_run(pm_store_db(x->store), &ao, &x->an, err);
        }
        pm_stagemap_free(map);
        if (rc)
            return rc;
    }
    size_t n_unread = 0, n_contended = 0;
    const pm_analysis *a = x->an;
    x->ev = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev);
    x->ev_cfg = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev_cfg);
    x->ev_an = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->ev_an);
    x->heavy_names = calloc(a->n_configs ? a->n_configs : 1, sizeof *x->heavy_names);
    x->superlinear = calloc(a->fits.n ? a->fits.n : 1, sizeof *x->superlinear);
    if (!x->ev || !x->ev_cfg || !x->ev_an || !x->heavy_names || !x->superlinear)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < a->fits.n; i++)
        if (a->fits.rows[i].superlinear)
            x->superlinear[x->n_superlinear++] = a->fits.rows[i].name;
    for (size_t i = 0; i < a->n_configs; i++) {
        const pm_an_config *c = &a->configs[i];
        if (!pm_fix_is_stock(c->variant) || c->n_cold == 0 || c->dominant_stage < 0)
            continue;
        if (!fix_evidence_usable(x, c, &n_unread, &n_contended))
            continue;
        const pm_spec_config *sc = NULL;
        for (int k = 0; k < x->src_spec->n_configs && !sc; k++)
            if (!strcmp(x->src_spec->configs[k].key, c->key))
                sc = &x->src_spec->configs[k];
        if (!sc)
            continue;   /* a config the stored spec no longer makes cannot be re-run */
        size_t nh = 0;
        for (size_t p = 0; p < c->n_passes; p++)
            nh += c->passes[p].share >= PM_FIX_HEAVY_SHARE;
        const char **heavy = calloc(nh ? nh : 1, sizeof *heavy);
        if (!heavy)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        nh = 0;
        for (size_t p = 0; p < c->n_passes; p++)
            if (c->passes[p].share >= PM_FIX_HEAVY_SHARE)
                heavy[nh++] = c->passes[p].name;
        size_t k = x->n_ev++;
        const pm_kind *kr = pm_kind_find(sc->kind);
        pm_workload w = pm_spec_workload(sc);
        x->heavy_names[k] = (char *)heavy;
        x->ev_cfg[k] = sc;
        x->ev_an[k] = c;
        x->ev[k] = (pm_fix_evidence){.key = c->key, .regime = a->stages[c->dominant_stage], .heavy = heavy,
                                     .n_heavy = nh, .window = w.window ? w.window : NAN,
                                     /* a workload's decoder layers (an LLM's; a CNN has blocks) */
                                     .layers = kr && pm_kind_list_has(kr->axes, "layers") ? w.layers : NAN,
                                     .tile = pm_cfg_param_num(&sc->cfg, "tile"), .ops = c->ir_ops,
                                     .llvm_ops = c->llvm_ops, .wall_s = c->wall.mean, .params = sc->params,
                                     .n_params = (size_t)sc->n_params};
    }
    if (x->n_ev == 0)
        return no_evidence(x, n_unread, n_contended, err);
    return PM_OK;
}

/* A config's key without its variant part (what compare matches on: pm_cfg_split_key), cut to cap. */
void pm_fix_base_key(const char *key, const char *variant, char *out, size_t cap)
{
    char *base = NULL;
    (void)pm_cfg_split_key(key, variant ? variant : "", &base, NULL);   /* out of memory: base NULL, the whole key */
    snprintf(out, cap, "%s", base ? base : key);
    free(base);
}

void pm_fix_ev_base(const fix_ctx *x, size_t k, char *out, size_t cap)
{
    pm_fix_base_key(x->ev[k].key, x->ev_cfg[k]->variant, out, cap);
}

int pm_fix_ev_config(const fix_ctx *x, size_t k)
{
    return (int)(x->ev_cfg[k] - x->src_spec->configs);
}
