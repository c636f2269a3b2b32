/* What makes a resume safe: each config's fingerprint, the contract a resumed store must keep (the same
 * spec, tools and configs), and the digest of the tools. */
#include "sweep_internal.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* Each config's fingerprint (identity.h): its steps expanded with placeholders for the paths that differ per
 * run and machine, with every step's tool identified once. */
int pm_sweep_fingerprint_configs(sweep_ctx *x, pm_err *err)
{
    const pm_spec *spec = x->spec;
    char dir[PATH_MAX];
    int rc;
    if ((rc = pm_sweep_fmt_path(dir, sizeof dir, err, "%s/identity", x->work)) || (rc = pm_util_mkdir_p(dir, err)))
        return rc;
    x->fp_text = calloc((size_t)spec->n_configs + 1, sizeof *x->fp_text);
    x->fp_hash = calloc((size_t)spec->n_configs + 1, sizeof *x->fp_hash);
    if (!x->fp_text || !x->fp_hash)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    const char *subst[8];
    pm_fp_subst(x->work, spec->dir, x->self, subst);
    /* the --version probe: short, whatever the spec allows a compile */
    double timeout = spec->timeout_s > 0 && spec->timeout_s < 30 ? spec->timeout_s : 30;
    /* this shard's configs first: the tools identified until then are the ones it runs, and only those are
     * recorded (a shard of a builds axis that never runs llc-22 does not claim a build of it) */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (int c = 0; c < spec->n_configs && !rc; c++) {
            if (x->in_shard[c] != !pass)
                continue;
            rc = pm_fingerprint_config(x->be, &x->bctx, c, subst, x->self, &x->tools, dir, timeout, &x->fp_text[c],
                                       x->fp_hash[c], err);
        }
        if (!pass)
            x->n_tools_used = x->tools.n;
    }
    if (!x->opts->keep_outputs)
        pm_util_remove_tree(dir);
    return rc;
}

static int spec_config_index(const pm_spec *spec, const char *key)
{
    for (int c = 0; c < spec->n_configs; c++)
        if (!strcmp(spec->configs[c].key, key))
            return c;
    return -1;
}

/* The spec text sweep NAME was recorded with, or NULL (a new sweep, an import). */
static int stored_spec_text(sweep_ctx *x, char **text, pm_err *err)
{
    pm_store_sweep_row *rows = NULL;
    size_t n = 0;
    *text = NULL;
    int rc = pm_store_list_sweeps(x->store, &rows, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        if (!strcmp(rows[i].name, x->spec->name) && rows[i].spec_text && rows[i].spec_text[0] &&
            !(*text = strdup(rows[i].spec_text)))
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    pm_store_sweep_rows_free(rows, n);
    return rc;
}

/* A spec is a contract: the runs recorded for a config were made with its fingerprint. A config whose steps
 * changed is refused, or with --force superseded (moved to a sweep of its own,
 * never read as the study); failed runs are moved aside the same way with --retry-failed, so their repeats run
 * again. A config recorded before fingerprints existed (schema 6 and older) has only its sweep's stored spec text
 * to go by: when that text changed it is refused the same way (its runs and the new ones would be two
 * measurements under one key, and the store would no longer say what its first runs measured); when it did not,
 * it takes the current fingerprint. */
#define PM_CONTRACT_LINES 20

int pm_sweep_check_contract(sweep_ctx *x, pm_err *err)
{
    const pm_spec *spec = x->spec;
    pm_config_fp *old = NULL;
    size_t n_old = 0, n_changed = 0, n_failed_runs = 0, n_retry = 0;
    const char **keys = NULL, **retry = NULL;
    char first[700] = "", *old_text = NULL;
    int rc = pm_store_config_fps(x->store, spec->name, &old, &n_old, err);
    if (rc || (rc = stored_spec_text(x, &old_text, err))) {
        pm_config_fps_free(old, n_old);
        return rc;
    }
    keys = calloc(n_old + 1, sizeof *keys);
    retry = calloc(n_old + 1, sizeof *retry);
    if (!keys || !retry) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n_old; i++) {
        int c = spec_config_index(spec, old[i].key);
        char line[700];
        /* a config the spec no longer lists keeps its runs, all of one fingerprint (passmap fix's rounds sweep
         * subsets of one sweep's configs) */
        if (c < 0)
            continue;
        int same = old[i].hash ? pm_fingerprint_same(old[i].hash, old[i].text, x->fp_text[c], x->fp_hash[c]) : 1;
        if (same < 0) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        if (!same) {
            char diff[480];
            pm_fp_diff(old[i].text, x->fp_text[c], diff, sizeof diff);
            snprintf(line, sizeof line, "config %s: %s", old[i].key, diff);
        } else if (!old[i].hash && old[i].n_runs > 0 && old_text && strcmp(old_text, spec->text)) {
            char diff[480];
            pm_fp_diff(old_text, spec->text, diff, sizeof diff);
            snprintf(line, sizeof line, "config %s: recorded before config fingerprints, and the spec text changed "
                     "since (%s)", old[i].key, diff);
        } else {
            if (old[i].n_failed && x->in_shard[c]) {
                n_failed_runs += (size_t)old[i].n_failed;
                retry[n_retry++] = old[i].key;
            }
            continue;
        }
        keys[n_changed++] = old[i].key;
        if (!first[0])
            snprintf(first, sizeof first, "%s", line);
        if (!x->opts->force && n_changed <= PM_CONTRACT_LINES)
            pm_sweep_notice(x, "%s", line);
    }
    if (n_changed && !x->opts->force) {
        if (n_changed > PM_CONTRACT_LINES)
            pm_sweep_notice(x, "... and %zu more changed configs", n_changed - PM_CONTRACT_LINES);
        rc = pm_err_set(err, PM_ERR_USAGE,
                        "%s: sweep '%s': the steps of %zu recorded config%s changed since their runs (%s%s); their "
                        "runs would mix two measurements: sweep under a new name (--name NAME or [sweep] name) or "
                        "--force to supersede their runs (kept aside, never in the report)",
                        x->opts->db_path, spec->name, n_changed, n_changed == 1 ? "" : "s", first,
                        n_changed > 1 ? "; all listed above" : "");
        goto cleanup;
    }
    if (n_changed) {
        char name[PM_SPEC_KEY_MAX + 64];
        int moved = 0;
        if ((rc = pm_store_supersede(x->store, spec->name, keys, n_changed, 0, name, sizeof name, &moved, err)))
            goto cleanup;
        pm_sweep_notice(x, "--force: %zu changed config%s superseded (%d run%s kept in sweep '%s', never read as '%s')",
               n_changed, n_changed == 1 ? "" : "s", moved, moved == 1 ? "" : "s", name[0] ? name : "-", spec->name);
    }
    int killed = 0, kept = 0;   /* no measurement, unless it keeps happening (PM_SWEEP_KILLED_RETRIES) */
    if (!x->opts->retry_failed &&
        (rc = pm_store_retry_killed(x->store, spec->name, PM_SWEEP_KILLED_RETRIES, &killed, &kept, err)))
        goto cleanup;
    if (killed)
        pm_sweep_notice(x, "%d run%s killed from outside (a signal passmap did not send) run%s again (retry %d at most)",
               killed, killed == 1 ? "" : "s", killed == 1 ? "s" : "", PM_SWEEP_KILLED_RETRIES);
    n_failed_runs -= (size_t)killed < n_failed_runs ? (size_t)killed : n_failed_runs;
    if (n_retry && x->opts->retry_failed) {
        char name[PM_SPEC_KEY_MAX + 64];
        int moved = 0;
        if ((rc = pm_store_supersede(x->store, spec->name, retry, n_retry, 1, name, sizeof name, &moved, err)))
            goto cleanup;
        pm_sweep_notice(x, "--retry-failed: %d failed run%s moved to sweep '%s'; their repeats run again", moved,
               moved == 1 ? "" : "s", name[0] ? name : "-");
    } else if (n_failed_runs) {
        pm_sweep_notice(x, "%zu failed run%s of %zu config%s count as done (--retry-failed runs them again)", n_failed_runs,
               n_failed_runs == 1 ? "" : "s", n_retry, n_retry == 1 ? "" : "s");
    }
cleanup:
    free(keys);
    free(retry);
    free(old_text);
    pm_config_fps_free(old, n_old);
    return rc;
}

/* One digest of every tool build the sweep ran: the host fingerprint's compiler part, so machines that ran
 * other builds are other machine kinds in the report. */
void pm_sweep_tools_digest(const pm_tool_set *t, char *out, size_t cap)
{
    XXH3_state_t *s = XXH3_createState();
    out[0] = '\0';
    if (!s || !t->n) {
        XXH3_freeState(s);
        return;
    }
    XXH3_64bits_reset(s);
    /* order-independent: sorted copies of the (name, hash, version) lines */
    char **lines = calloc(t->n, sizeof *lines);
    for (size_t i = 0; lines && i < t->n; i++)
        if (asprintf(&lines[i], "%s\t%s\t%s", t->items[i].name, t->items[i].hash, t->items[i].version_text) < 0)
            lines[i] = NULL;
    for (size_t i = 0; lines && i < t->n; i++)
        for (size_t j = i + 1; j < t->n; j++)
            if (lines[i] && lines[j] && strcmp(lines[i], lines[j]) > 0) {
                char *tmp = lines[i];
                lines[i] = lines[j];
                lines[j] = tmp;
            }
    for (size_t i = 0; lines && i < t->n; i++) {
        if (lines[i])
            XXH3_64bits_update(s, lines[i], strlen(lines[i]) + 1);
        free(lines[i]);
    }
    free(lines);
    snprintf(out, cap, "tools %016llx", (unsigned long long)XXH3_64bits_digest(s));
    XXH3_freeState(s);
}

/* A sweep already recorded with one meter is not resumed with another that measures differently (a slowed wall
 * beside native ones, counts beside none): the study would mix them. A sweep from before meters were recorded
 * was measured natively. */
int pm_sweep_check_meter(sweep_ctx *x, pm_err *err)
{
    pm_store_sweep_row *rows = NULL;
    size_t n = 0;
    int rc = pm_store_list_sweeps(x->store, &rows, &n, err);
    for (size_t i = 0; rc == PM_OK && i < n; i++) {
        if (strcmp(rows[i].name, x->spec->name))
            continue;
        json_t *m = rows[i].meta_json ? json_loads(rows[i].meta_json, 0, NULL) : NULL;
        const char *was = json_string_value(json_object_get(m, "meter"));
        const pm_meter *old = was ? pm_meter_find(was) : NULL;
        int runs = 0;
        for (int c = 0; c < x->spec->n_configs && !runs && rc == PM_OK; c++)
            rc = pm_store_count_runs(x->store, x->spec->name, x->spec->configs[c].key, "cold", &runs, err);
        if (rc == PM_OK && runs &&
            (old ? old != x->meter && (old->slows || x->meter->slows || old->counts != x->meter->counts)
                 : x->meter->slows))
            rc = pm_err_set(err, PM_ERR_USAGE, "sweep %s was measured with the %s meter, not %s: its walls and counts "
                            "would mix; resume with --meter %s, or record into another --db or --name", x->spec->name,
                            was ? was : "native (wall)", x->meter->name, was ? was : "auto");
        json_decref(m);
    }
    pm_store_sweep_rows_free(rows, n);
    return rc;
}
