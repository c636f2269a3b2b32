/* pm_gate: a sweep against a baseline by the one verdict rule, as pass / fail / inconclusive (see gate.h). */
#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "store.h"
#include "store_runs.h"
#include "util.h"

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

const char *pm_gate_outcome_name(pm_gate_outcome o)
{
    switch (o) {
    case PM_GATE_PASS: return "pass";
    case PM_GATE_FAIL: return "fail";
    case PM_GATE_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

const char *pm_gate_kind_name(pm_gate_kind k)
{
    switch (k) {
    case PM_GATE_REGRESSION: return "regression";
    case PM_GATE_WIN: return "win";
    case PM_GATE_UNSETTLED: return "unsettled";
    }
    return "?";
}

typedef struct finding_list {
    pm_gate_finding *v;
    size_t n, cap;
} finding_list;

/* Appends a finding; why is printf-formatted. -1 when out of memory. */
static int add_finding(finding_list *l, pm_gate_kind kind, const char *config, const char *tool, const char *pass,
                       const pm_compare_stat *st, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static int add_finding(finding_list *l, pm_gate_kind kind, const char *config, const char *tool, const char *pass,
                       const pm_compare_stat *st, const char *fmt, ...)
{
    pm_gate_finding *g = pm_grow(l->v, &l->cap, l->n, sizeof *g, 16);
    if (!g)
        return -1;
    l->v = g;
    int oom = 0;
    pm_gate_finding f = {.kind = kind, .st = st, .config = pm_util_strdup_opt(config, &oom), .tool = pm_util_strdup_opt(tool, &oom),
                         .pass = pm_util_strdup_opt(pass, &oom)};
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&f.why, fmt, ap) < 0) {
        f.why = NULL;
        oom = 1;
    }
    va_end(ap);
    l->v[l->n++] = f;   /* owned by the list even when incomplete, so it is freed */
    return oom ? -1 : 0;
}

/* A row's verdict as a finding: slower and faster only (an untested pass row settles nothing by itself). */
static int row_finding(finding_list *l, const char *config, const char *tool, const char *pass,
                       const pm_compare_stat *st)
{
    if (st->verdict != PM_VERDICT_SLOWER && st->verdict != PM_VERDICT_FASTER)
        return 0;
    return add_finding(l, st->verdict == PM_VERDICT_SLOWER ? PM_GATE_REGRESSION : PM_GATE_WIN, config, tool, pass,
                       st, "%s %.3fx [%.3f, %.3f]", pm_compare_verdict_name(st->verdict), st->ratio, st->ci_lo,
                       st->ci_hi);
}

/* Why a config's deciding verdict concludes nothing, in one line. */
static void unsettled_text(const pm_compare_config *c, const pm_compare_stat *d, const char *contended_base,
                           char *buf, size_t n)
{
    switch (d->verdict) {
    case PM_VERDICT_UNDECIDED:
        if (isfinite(d->repeats_needed))
            snprintf(buf, n, "undecided: %.3fx [%.3f, %.3f] straddles the threshold; about %.0f repeats a side "
                     "would settle it", d->ratio, d->ci_lo, d->ci_hi, ceil(d->repeats_needed));
        else
            snprintf(buf, n, "undecided: %.3fx [%.3f, %.3f] straddles the threshold", d->ratio, d->ci_lo, d->ci_hi);
        return;
    case PM_VERDICT_CONTENDED:
        snprintf(buf, n, "no conclusion (contended): %s%s%s", c->contended_a ? "baseline: " : "",
                 c->contended_a ? c->contended_a : "", c->contended_b ? (c->contended_a ? "; sweep: " : "sweep: ")
                 : "");
        if (c->contended_b) {
            size_t used = strlen(buf);
            snprintf(buf + used, n - used, "%s", c->contended_b);
        }
        return;
    case PM_VERDICT_BELOW_RESOLUTION:
        snprintf(buf, n, "below resolution: under %d ticks of its timer, no test", PM_COMPARE_RESOLUTION_TICKS);
        return;
    default:
        if (contended_base)
            snprintf(buf, n, "the baseline's runs were contended (%s): none kept; record the baseline again on a "
                     "quiet machine", contended_base);
        else
            snprintf(buf, n, "no test: n=%zu in the baseline, n=%zu in the sweep (3 a side are needed, all times "
                     "above zero)", d->n_a, d->n_b);
        return;
    }
}

typedef struct fp_side {
    pm_config_fp *fps;
    size_t n;
} fp_side;

static const pm_config_fp *fp_find(const fp_side *s, const char *key)
{
    for (size_t i = 0; key && i < s->n; i++)
        if (s->fps[i].key && !strcmp(s->fps[i].key, key))
            return &s->fps[i];
    return NULL;
}

/* The configs' fingerprints and the recorded tools of one side's sweep. */
static int read_side(const char *path, const char *sweep, const char *label, fp_side *fp, pm_gate_result *out,
                     size_t *cap_builds, pm_err *err)
{
    pm_store *st = NULL;
    pm_tool_ident *tools = NULL;
    size_t n_tools = 0;
    int64_t sweep_id = 0;
    int rc = pm_store_open_readonly(path, &st, err);
    if (rc == PM_OK)
        rc = pm_store_config_fps(st, sweep, &fp->fps, &fp->n, err);
    if (rc == PM_OK)
        rc = pm_store_pick_sweep(pm_store_db(st), sweep, &sweep_id, err);
    if (rc == PM_OK)
        rc = pm_store_read_tools(pm_store_db(st), sweep_id, &tools, &n_tools, err);
    for (size_t i = 0; rc == PM_OK && i < n_tools; i++) {
        pm_gate_build *b = pm_grow(out->builds, cap_builds, out->n_builds, sizeof *b, 8);
        if (!b) {
            rc = nomem(err);
            break;
        }
        out->builds = b;
        char line[256];
        int oom = 0;
        out->builds[out->n_builds++] = (pm_gate_build){
            .side = label, .tool = pm_util_strdup_opt(tools[i].name, &oom), .invoked = pm_util_strdup_opt(tools[i].invoked, &oom),
            .version = pm_util_strdup_opt(pm_version_line(tools[i].version_text ? tools[i].version_text : "", line,
                                                   sizeof line), &oom),
            .hash = pm_util_strdup_opt(tools[i].hash, &oom)};
        if (oom)
            rc = nomem(err);
    }
    pm_tool_idents_free(tools, n_tools);
    pm_store_close(st);
    return rc;
}

/* A fingerprint text without its tool lines ("  tool: HASH VERSION", identity.h): the steps, where their reports
 * are read, the environment. The tools are the compiler build, which a gate compares on purpose (it names them);
 * everything else must be the same for two runs to be one config. NULL when out of memory. */
static char *steps_only(const char *text)
{
    size_t n = strlen(text), k = 0;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "  tool: ", 8)) {
            memcpy(out + k, p, len);
            k += len;
        }
        p += len;
    }
    out[k] = '\0';
    return out;
}

/* Whether two configs ran other steps (merge's rule, less the tool builds): 1 with the first difference in diff,
 * 0 when the same or when a side recorded no fingerprint, -1 when out of memory. */
static int steps_differ(const pm_config_fp *a, const pm_config_fp *b, char *diff, size_t n)
{
    if (!a || !b || !a->hash || !b->hash || !strcmp(a->hash, b->hash))
        return 0;
    if (!a->text || !b->text) {   /* hashes alone cannot tell a build from a step */
        snprintf(diff, n, "fingerprint %s in the baseline, %s in the sweep, no text to tell why", a->hash, b->hash);
        return 1;
    }
    char *sa = steps_only(a->text), *sb = steps_only(b->text);
    int rc = !sa || !sb ? -1 : strcmp(sa, sb) != 0;
    if (rc == 1)
        pm_fp_diff(sa, sb, diff, n);
    free(sa);
    free(sb);
    return rc;
}

static int classify(pm_gate_result *out, const fp_side *fa, const fp_side *fb, const pm_baseline_info *info,
                    finding_list *reg, finding_list *win, finding_list *uns)
{
    pm_compare_result *r = &out->cmp;
    char why[768];
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        const pm_config_fp *pa = fp_find(fa, c->key_a), *pb = fp_find(fb, c->key_b);
        char diff[400];
        int differ = steps_differ(pa, pb, diff, sizeof diff);
        if (differ < 0)
            return -1;
        if (differ) {
            if (add_finding(uns, PM_GATE_UNSETTLED, c->key, NULL, NULL, NULL,
                            "not the same config: its steps differ from the baseline's (%s); record the baseline "
                            "again", diff))
                return -1;
            continue;
        }
        const pm_compare_stat *d = pm_compare_decider(r, c);
        if (d->verdict == PM_VERDICT_SLOWER || d->verdict == PM_VERDICT_FASTER) {
            if (row_finding(d->verdict == PM_VERDICT_SLOWER ? reg : win, c->key, NULL, NULL, d))
                return -1;
            out->n_concluded++;
        } else if (d->verdict == PM_VERDICT_SAME) {
            out->n_concluded++;
        } else {
            unsettled_text(c, d, info ? pm_baseline_contended(info, c->key_a) : NULL, why, sizeof why);
            if (add_finding(uns, PM_GATE_UNSETTLED, c->key, NULL, NULL, d, "%s", why))
                return -1;
        }
        for (size_t k = 0; k < c->n_steps; k++) {
            const pm_compare_row *row = &c->steps[k];
            if (row_finding(row->st.verdict == PM_VERDICT_SLOWER ? reg : win, c->key, row->tool, NULL, &row->st))
                return -1;
        }
        for (size_t k = 0; k < c->n_passes; k++) {
            const pm_compare_row *row = &c->passes[k];
            if (row_finding(row->st.verdict == PM_VERDICT_SLOWER ? reg : win, c->key, row->tool, row->pass,
                            &row->st))
                return -1;
        }
    }
    for (size_t i = 0; i < r->n_only_a; i++)
        if (add_finding(uns, PM_GATE_UNSETTLED, r->only_a[i], NULL, NULL, NULL,
                        "in the baseline, missing from the sweep"))
            return -1;
    for (size_t i = 0; i < r->n_only_b; i++)
        if (add_finding(uns, PM_GATE_UNSETTLED, r->only_b[i], NULL, NULL, NULL,
                        "in the sweep, not in the baseline: record the baseline again to include it"))
            return -1;
    return 0;
}

/* Moves the three lists into out->findings, regressions first. */
static int gather(pm_gate_result *out, finding_list *l, size_t n_lists)
{
    size_t total = 0;
    for (size_t i = 0; i < n_lists; i++)
        total += l[i].n;
    out->findings = calloc(total ? total : 1, sizeof *out->findings);
    if (!out->findings)
        return -1;
    for (size_t i = 0; i < n_lists; i++) {
        if (l[i].n)
            memcpy(out->findings + out->n_findings, l[i].v, l[i].n * sizeof *l[i].v);
        out->n_findings += l[i].n;
        free(l[i].v);
        l[i] = (finding_list){0};
    }
    return 0;
}

static void free_findings(pm_gate_finding *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pm_free_all(f[i].config, f[i].tool, f[i].pass, f[i].why);
    }
    free(f);
}

int pm_gate_run(const pm_gate_opts *opts, pm_gate_result *out, pm_err *err)
{
    memset(out, 0, sizeof *out);
    if (!opts || !opts->baseline || !opts->path)
        return pm_err_set(err, PM_ERR_USAGE, "gate: a baseline and a sweep's database are needed");
    char tmpdir[4096] = "", store_path[4200] = "";
    pm_baseline_info info = {0};
    fp_side fa = {0}, fb = {0};
    finding_list lists[3] = {{0}};
    size_t cap_builds = 0;
    const char *base_path = opts->baseline, *base_sweep = opts->baseline_sweep;
    int is_file = 0, rc = pm_baseline_sniff(opts->baseline, &is_file, err);
    if (rc != PM_OK)
        return rc;
    if (is_file) {
        /* the file becomes a store of its own in a temporary folder, so the rule reads both sides alike */
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/passmap-gate.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            rc = pm_err_set(err, PM_ERR_IO, "%s: cannot make a temporary folder: %s (set TMPDIR to a writable one)",
                            tmpdir, strerror(errno));
            tmpdir[0] = '\0';
            goto cleanup;
        }
        snprintf(store_path, sizeof store_path, "%s/baseline.db", tmpdir);
        if ((rc = pm_baseline_to_store(opts->baseline, store_path, &info, err)) != PM_OK)
            goto cleanup;
        base_path = store_path;
        base_sweep = info.sweep;
        out->baseline_is_file = 1;
        if (info.meter && !(out->meter = strdup(info.meter))) {
            rc = nomem(err);
            goto cleanup;
        }
    }
    pm_compare_opts co = {.path_a = base_path, .path_b = opts->path, .sweep_a = base_sweep, .sweep_b = opts->sweep,
                          .threshold = opts->threshold, .allow_contended = opts->allow_contended, .whole_key = 1};
    if ((rc = pm_compare_run(&co, &out->cmp, err)) != PM_OK) {
        if (is_file)
            pm_err_wrap(err, "baseline %s", opts->baseline);
        goto cleanup;
    }
    if (is_file) {   /* name the file, not the temporary store */
        free(out->cmp.a.path);
        if (!(out->cmp.a.path = strdup(opts->baseline))) {
            rc = nomem(err);
            goto cleanup;
        }
    }
    if ((rc = read_side(base_path, out->cmp.a.sweep, "baseline", &fa, out, &cap_builds, err)) != PM_OK ||
        (rc = read_side(opts->path, out->cmp.b.sweep, "sweep", &fb, out, &cap_builds, err)) != PM_OK)
        goto cleanup;
    out->fail_on_win = opts->fail_on_win;
    if (classify(out, &fa, &fb, is_file ? &info : NULL, &lists[0], &lists[1], &lists[2]) ||
        gather(out, lists, 3)) {
        rc = nomem(err);
        goto cleanup;
    }
    for (size_t i = 0; i < out->n_findings; i++) {
        out->n_regressions += out->findings[i].kind == PM_GATE_REGRESSION;
        out->n_wins += out->findings[i].kind == PM_GATE_WIN;
        out->n_unsettled += out->findings[i].kind == PM_GATE_UNSETTLED;
    }
    if (out->n_regressions || (opts->fail_on_win && out->n_wins))
        out->outcome = PM_GATE_FAIL;
    else if (out->n_unsettled || out->n_concluded == 0)
        out->outcome = PM_GATE_INCONCLUSIVE;   /* nothing compared concludes nothing either */
    else
        out->outcome = PM_GATE_PASS;
cleanup:
    for (size_t i = 0; i < 3; i++)
        free_findings(lists[i].v, lists[i].n);
    pm_config_fps_free(fa.fps, fa.n);
    pm_config_fps_free(fb.fps, fb.n);
    pm_baseline_info_free(&info);
    if (tmpdir[0])
        pm_baseline_remove_store(tmpdir, store_path);
    if (rc != PM_OK)
        pm_gate_free(out);
    return rc;
}

void pm_gate_free(pm_gate_result *r)
{
    if (!r)
        return;
    pm_compare_free(&r->cmp);
    free_findings(r->findings, r->n_findings);
    for (size_t i = 0; i < r->n_builds; i++)
        pm_free_all(r->builds[i].tool, r->builds[i].invoked, r->builds[i].version, r->builds[i].hash);
    pm_free_all(r->builds, r->meter);
    memset(r, 0, sizeof *r);
}
