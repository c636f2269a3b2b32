/* pm_probe: stage-entry sizes for a finished sweep (probe.h). */
#include "probe.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "identity.h"
#include "spec.h"
#include "store.h"
#include "store_sweeps.h"
#include "util.h"

/* The sizes are only the runs' when the steps, and so the tool builds, are the ones the runs recorded: each config
 * the store fingerprinted is fingerprinted again now and must match (a config recorded before fingerprints is
 * taken as it is). */
static int same_builds(pm_store *st, const char *sweep, const pm_spec *spec,
                       const pm_backend_ops *be, pm_backend_ctx *bctx, const char *work_dir, const char *self_exe,
                       pm_err *err)
{
    pm_config_fp *old = NULL;
    size_t n_old = 0;
    pm_tool_set tools = {0};
    char dir[PATH_MAX];
    int rc = pm_store_config_fps(st, sweep, &old, &n_old, err);
    if (rc)
        return rc;
    if (snprintf(dir, sizeof dir, "%s/identity", work_dir) >= (int)sizeof dir)
        rc = pm_err_set(err, PM_ERR_USAGE, "probe: work folder path too long: %s", work_dir);
    else
        rc = pm_util_mkdir_p(dir, err);
    const char *subst[8];
    pm_fp_subst(work_dir, spec->dir, self_exe, subst);
    double timeout = spec->timeout_s > 0 && spec->timeout_s < 30 ? spec->timeout_s : 30;
    for (size_t i = 0; i < n_old && !rc; i++) {
        int c = 0;
        while (c < spec->n_configs && strcmp(spec->configs[c].key, old[i].key))
            c++;
        if (c == spec->n_configs || !old[i].hash)
            continue;
        char *text = NULL, hash[48];
        rc = pm_fingerprint_config(be, bctx, c, subst, self_exe, &tools, dir, timeout, &text, hash, err);
        int same = rc ? 1 : pm_fingerprint_same(old[i].hash, old[i].text, text, hash);
        if (same < 0)
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        else if (!same) {
            char diff[480];
            pm_fp_diff(old[i].text, text, diff, sizeof diff);
            rc = pm_err_set(err, PM_ERR_USAGE, "sweep '%s', config %s: its runs were made with other steps "
                            "or tool builds than resolve now (%s): sizes measured now would not be theirs; put the "
                            "recorded builds first on PATH", sweep, old[i].key, diff);
        }
        free(text);
    }
    pm_util_remove_tree(dir);
    pm_tool_set_free(&tools);
    pm_config_fps_free(old, n_old);
    return rc;
}

int pm_probe_run(const char *db_path, const char *sweep, const char *work_dir, const char *self_exe,
                 const volatile sig_atomic_t *cancel, pm_probe_summary *sum, pm_err *err)
{
    memset(sum, 0, sizeof *sum);
    pm_store *st = NULL, *rw = NULL;   /* read: checked; rw opened at the first size added */
    pm_store_sweep_row *rows = NULL;
    size_t n = 0, pick = 0;
    pm_spec *spec = NULL;
    const pm_backend_ops *be = NULL;
    pm_backend_ctx bctx = {0};
    int lock_fd = -1, prepared = 0;
    /* the store's writer lock: a probe compiles, so never beside a sweep's timed runs (nor a merge); and the
     * store is opened read-only until a size is added, so a probe that fails before leaves an older store as it
     * was (a read-write open migrates it in place, and the passmap that made it could no longer resume it) */
    int rc = pm_store_open_readonly(db_path, &st, err);
    if (rc || (rc = pm_store_writer_lock(db_path, "probe", &lock_fd, err)) ||
        (rc = pm_store_list_sweeps(st, &rows, &n, err)))
        goto cleanup;
    for (pick = 0; sweep && pick < n && strcmp(rows[pick].name, sweep); pick++)
        ;
    if (!n || (sweep && pick == n)) {
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: no sweep %s%s", db_path, sweep ? sweep : "",
                        sweep ? "" : "recorded");
        goto cleanup;
    }
    if (!sweep && n > 1) {
        rc = pm_err_set(err, PM_ERR_USAGE, "%s holds %zu sweeps: name one with --sweep", db_path, n);
        goto cleanup;
    }
    if (!rows[pick].spec_text || !*rows[pick].spec_text) {
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "%s: sweep %s has no stored spec (an import or run --db): nothing "
                        "to probe", db_path, rows[pick].name);
        goto cleanup;
    }
    /* the stored spec as from its folder, so file axes and {spec_dir} mean what they meant (as passmap fix) */
    char path[PATH_MAX + 160];
    json_t *meta = rows[pick].meta_json ? json_loads(rows[pick].meta_json, 0, NULL) : NULL;
    const char *dir = json_string_value(json_object_get(meta, "spec_dir"));
    if (!dir || snprintf(path, sizeof path, "%s/%s.ini", dir, rows[pick].name) >= (int)sizeof path)
        snprintf(path, sizeof path, "%s", rows[pick].name);
    json_decref(meta);
    if ((rc = pm_spec_parse(rows[pick].spec_text, path, &spec, err))) {
        pm_err_wrap(err, "the spec stored with sweep '%s'", rows[pick].name);
        goto cleanup;
    }
    if (!(be = pm_backend_find(spec->backend)) || !be->probe_config) {
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "sweep %s: the %s back end measures no sizes before its runs",
                        rows[pick].name, spec->backend);
        goto cleanup;
    }
    bctx = (pm_backend_ctx){.spec = spec, .self_exe = self_exe, .cancel = cancel, .versions = json_object()};
    if (!bctx.versions) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (be->prepare && (rc = be->prepare(&bctx, err)))
        goto cleanup;
    prepared = 1;
    if ((rc = same_builds(st, rows[pick].name, spec, be, &bctx, work_dir, self_exe, err)))
        goto cleanup;
    for (int c = 0; c < spec->n_configs && !rc; c++) {
        if (cancel && *cancel) {
            rc = pm_err_set(err, PM_ERR_CHILD, "probe: interrupted (the sizes added so far are kept)");
            break;
        }
        int have = 0;
        if ((rc = pm_store_count_runs(st, rows[pick].name, spec->configs[c].key, "cold", &have, err)))
            break;
        if (!have)   /* not in this store (a spec edited since, or a shard): nothing to add to */
            continue;
        sum->configs++;
        char cdir[PATH_MAX];
        if (snprintf(cdir, sizeof cdir, "%s/c%d", work_dir, c) >= (int)sizeof cdir) {
            rc = pm_err_set(err, PM_ERR_USAGE, "probe: work folder path too long: %s", work_dir);
            break;
        }
        pm_util_remove_tree(cdir);
        if ((rc = pm_util_mkdir_p(cdir, err)))
            break;
        pm_backend_config prep = {0};
        if (!(rc = be->prepare_config ? be->prepare_config(&bctx, c, cdir, &prep, err) : PM_OK))
            rc = be->probe_config(&bctx, c, cdir, &prep, err);
        int found = 0;
        for (int k = 0; !rc && k < prep.n_metrics; k++) {
            if (strncmp(prep.metrics[k].name, "ir.stage.", 9))
                continue;
            int added = 0;
            found = 1;
            if (!rw && (rc = pm_store_open(db_path, &rw, err)))
                break;
            rc = pm_store_add_config_metric(rw, rows[pick].name, spec->configs[c].key, prep.metrics[k].name,
                                            prep.metrics[k].value, &added, err);
            sum->runs_added += added;
        }
        sum->probed += found;
        json_decref(prep.params);
        pm_util_remove_tree(cdir);
    }
cleanup:
    if (prepared && be->cleanup)
        be->cleanup(&bctx);
    json_decref(bctx.versions);
    pm_spec_free(spec);
    pm_store_sweep_rows_free(rows, n);
    pm_store_close(rw);
    pm_store_close(st);
    pm_store_writer_unlock(lock_fd);
    return rc;
}
