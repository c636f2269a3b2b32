/* A faster variant's proofs beyond its compile time: its outputs checked against stock's, and the compiled
 * program's own run time and size (the ledger's program side). */
#include "fix_internal.h"

/* The folder of one side of a config's output check: DB.runs/fix-check/<key>/<variant> (absolute: the
 * steps run inside it), created. */
static int check_dir(fix_ctx *x, size_t cfg, const char *variant, char *dir, size_t cap, pm_err *err)
{
    char db_abs[PATH_MAX], safe[200];
    if (!realpath(x->o->db_path, db_abs))
        return pm_err_errno(err, PM_ERR_IO, "cannot resolve %s", x->o->db_path);
    size_t k = 0;
    for (const char *key = x->ev[cfg].key; key[k] && k + 1 < sizeof safe; k++)
        safe[k] = key[k] == '/' ? '_' : key[k];
    safe[k] = '\0';
    if (snprintf(dir, cap, "%s.runs/fix-check/%s/%s", db_abs, safe, variant) >= (int)cap)
        return pm_err_set(err, PM_ERR_USAGE, "check folder path too long");
    return pm_util_mkdir_p(dir, err);
}

/* The options of a check or program run: each process's group recorded while it runs (what: its part), so the
 * next passmap fix or sweep on the store reaps what a killed one left (the next one reaps at its start). */
static pm_fix_check_opts check_opts(fix_ctx *x, const char *what)
{
    pm_fix_check_opts co = {.reduce_window = x->o->check_window,
                            .reduce_layers = x->o->check_layers,
                            .cancel = x->o->stop,
                            .deadline = x->budget_s > 0 ? x->t0 + x->budget_s : 0};
    if (x->have_pgrec) {
        x->pgrec.what = what;
        co.on_start = pm_pgroup_record;
        co.on_start_arg = &x->pgrec;
    }
    return co;
}

/* Its process ended: its group's record goes. */
static void check_done(fix_ctx *x)
{
    if (x->have_pgrec) {
        pm_pgroup_unrecord(&x->pgrec);
        x->pgrec.what = NULL;
    }
}

/* Builds one side of the check with the back end's op. */
static int check_side(fix_ctx *x, size_t cfg, const char *variant, char *result, size_t cap, pm_err *err)
{
    char dir[PATH_MAX];
    int rc = check_dir(x, cfg, variant, dir, sizeof dir, err);
    if (rc)
        return rc;
    pm_fix_check_opts co = check_opts(x, "passmap fix: a [check] build");
    rc = x->fx->check_build(x->src_spec, pm_fix_ev_config(x, cfg), variant, dir, &co, result, cap, err);
    check_done(x);
    return rc;
}

/* How many times each side's program runs for the ledger: compare's rule needs 3 a side at least. */
#define LEDGER_RUNS_MAX 20

static json_t *ledger_stat(const pm_compare_stat *st, int n, const char *what, int estimated, int contended)
{
    return json_pack("{s:o, s:o, s:o, s:i, s:s, s:o, s:o, s:s, s:b, s:b}", "ratio", pm_fix_num(st->ratio), "ci_lo",
                     pm_fix_num(st->ci_lo), "ci_hi", pm_fix_num(st->ci_hi), "n", n, "verdict", pm_compare_verdict_name(st->verdict),
                     "stock_s", pm_fix_num(st->gmean_a), "fix_s", pm_fix_num(st->gmean_b), "what", what, "estimated", estimated,
                     "contended", contended);
}

/* The other side of the ledger for a fix whose output was checked the same: the compiled program's run time
 * (stock's and the fix's builds run alternately, each through lib/run, judged by compare's rule: Welch on log
 * times, the interval at the corrected level, the threshold; a run below PM_CONTENTION_RATIO CPU/wall is
 * contended, so no conclusion unless --allow-contended) and the size of what was built. A fix whose program
 * measures slower is a trade-off. Failures are stated in the ledger, not fatal: the compile side stands. */
static void measure_program(fix_ctx *x, job *jb, size_t cfg, const char *stock_dir, const char *var_dir)
{
    json_decref(jb->ledger);
    jb->ledger = json_object();
    pm_fix_check_opts co = check_opts(x, "passmap fix: a program [run]");
    int conf = pm_fix_ev_config(x, cfg);
    pm_err err = {0};
    if (x->fx->program_run) {
        int n = x->min_r + 2 < LEDGER_RUNS_MAX ? x->min_r + 2 : LEDGER_RUNS_MAX, got = 0, rc = PM_OK;
        double a[LEDGER_RUNS_MAX], b[LEDGER_RUNS_MAX], cw;
        char what[160] = "";
        /* the contention rule's evidence: each run's CPU/wall against a serial program's one CPU */
        pm_contention ev;
        pm_contention_init(&ev);
        /* alternate, so a load change hits both sides alike; no run starts after the budget's deadline */
        for (int i = 0; i < 2 * n && rc == PM_OK; i++) {
            if (pm_fix_past_deadline(x)) {
                rc = pm_err_set(&err, PM_ERR_TIMEOUT, "budget: stopped at the deadline after %d runs a side", got);
                break;
            }
            if ((rc = x->fx->program_run(x->src_spec, conf, i % 2 ? var_dir : stock_dir, &co,
                                         i % 2 ? &b[i / 2] : &a[i / 2], &cw, what, sizeof what, &err)))
                break;
            pm_contention_add_tool(&ev, "program", 1, cw >= 0 ? cw : 0, 0, 1, 0);
            got += i % 2;
        }
        check_done(x);
        int contended = pm_contention_judge(&ev, 0, NAN, NULL) != 0;
        if (rc) {
            json_object_set_new(jb->ledger, "run", json_pack("{s:s}", "error", err.msg));
        } else {
            pm_compare_stat st;
            pm_compare_test(a, (size_t)got, b, (size_t)got, &st);
            pm_compare_stat *fam[1] = {&st};
            pm_compare_correct(fam, 1, PM_COMPARE_ALPHA, x->threshold);
            pm_compare_withhold(&st, contended, x->o->allow_contended);
            jb->tradeoff = st.verdict == PM_VERDICT_SLOWER;
            json_object_set_new(jb->ledger, "run", ledger_stat(&st, got, what, x->fx->estimated, contended));
            pm_fix_note(x, "program: %s runs %.3fx of stock's (%s, n=%d a side)%s", jb->b, st.ratio,
                 pm_compare_verdict_name(st.verdict), got, jb->tradeoff ? ": a trade-off" : "");
        }
    }
    if (x->fx->program_size) {
        double sa = NAN, sb = NAN;
        char what[96] = "";
        if (x->fx->program_size(x->src_spec, conf, stock_dir, &sa, what, sizeof what, &err) ||
            x->fx->program_size(x->src_spec, conf, var_dir, &sb, what, sizeof what, &err))
            json_object_set_new(jb->ledger, "size", json_pack("{s:s}", "error", err.msg));
        else
            json_object_set_new(jb->ledger, "size", json_pack("{s:o, s:o, s:o, s:s, s:b}", "ratio",
                                                              pm_fix_num(sa > 0 ? sb / sa : NAN), "stock_bytes", pm_fix_num(sa),
                                                              "fix_bytes", pm_fix_num(sb), "what", what, "estimated",
                                                              x->fx->estimated));
    }
}

/* One side of a stored program metric: the per-run sums of m over the ok cold runs of key in the fix sweep,
 * scaled; *count: how many values each run summed (every run of a side must agree: the same partition). */
static int stored_side(fix_ctx *x, const char *key, const pm_fix_program_metric *m, double **v, size_t *n,
                       int *count, pm_err *err)
{
    int *counts = NULL;
    int rc = pm_store_metric_sums(x->store, x->fix_sweep, key, m->name, v, &counts, n, err);
    if (rc)
        return rc;
    *count = *n ? counts[0] : 0;
    for (size_t i = 0; i < *n && rc == PM_OK; i++) {
        if (counts[i] != *count)
            rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "runs of %s print %d and %d values of %s", key, *count,
                            counts[i], m->name);
        (*v)[i] *= m->scale;
    }
    free(counts);
    if (rc) {
        free(*v);
        *v = NULL;
        *n = 0;
    }
    return rc;
}

/* The program side of an estimated back end (fx->run_metrics, size_metrics), read from the round's own compiles
 * of the job's first config: stock's and the fix's values, the run metric judged by compare's rule at the
 * metric's resolution (the estimates are deterministic: the repeats only confirm them, and contention cannot
 * touch them), the size as the ratio of the means. Needs no output check: the numbers come with the compile.
 * A fix whose estimate is slower past the threshold is a trade-off. Failures are stated, not fatal. */
static void measure_stored(fix_ctx *x, job *jb)
{
    json_decref(jb->ledger);
    jb->ledger = json_object();
    jb->tradeoff = 0;
    if (!jb->n_cfg || !jb->ledger)
        return;
    char base[600], ka[700], kb[700];
    pm_fix_ev_base(x, jb->cfg[0], base, sizeof base);
    snprintf(ka, sizeof ka, "%s/stock", base);
    snprintf(kb, sizeof kb, "%s/%s", base, jb->b);
    for (int side = 0; side < 2; side++) {
        const pm_fix_program_metric *list = side ? x->fx->size_metrics : x->fx->run_metrics, *m = NULL;
        if (!list)
            continue;
        double *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        int ca = 0, cb = 0;
        pm_err err = {0};
        char msg[2048] = "", what[200];
        for (const pm_fix_program_metric *p = list; p->name && !m && !msg[0]; p++) {
            free(a);
            a = NULL;
            if (stored_side(x, ka, p, &a, &na, &ca, &err))
                snprintf(msg, sizeof msg, "%s", err.msg);
            else if (na)
                m = p;
        }
        if (!msg[0] && !m)
            snprintf(msg, sizeof msg, "no ok stock compile of %s in %s carries %s%s", base, x->fix_sweep,
                     list[0].name, list[1].name ? " or the others" : "");
        if (!msg[0] && stored_side(x, kb, m, &b, &nb, &cb, &err))
            snprintf(msg, sizeof msg, "%s", err.msg);
        if (!msg[0] && !nb)
            snprintf(msg, sizeof msg, "no ok %s compile of %s carries %s (stock's do)", jb->b, base, m->name);
        if (!msg[0] && ca != cb)
            snprintf(msg, sizeof msg, "stock's compile gives %d values of %s, %s's %d: different partitions, not "
                     "comparable", ca, m->name, jb->b, cb);
        if (msg[0]) {
            json_object_set_new(jb->ledger, side ? "size" : "run", json_pack("{s:s}", "error", msg));
        } else if (!side) {
            if (ca > 1)
                snprintf(what, sizeof what, "%s, sum of %d subgraph estimates", m->what, ca);
            else
                snprintf(what, sizeof what, "%s", m->what);
            pm_compare_stat st;
            pm_compare_test_tick(a, na, b, nb, m->tick, ca, &st);
            pm_compare_stat *fam[1] = {&st};
            pm_compare_correct(fam, 1, PM_COMPARE_ALPHA, x->threshold);
            jb->tradeoff = st.verdict == PM_VERDICT_SLOWER;
            json_object_set_new(jb->ledger, "run",
                                ledger_stat(&st, (int)(na < nb ? na : nb), what, x->fx->estimated, 0));
            pm_fix_note(x, "program: %s's %s is %.3fx of stock's (%s, n=%zu/%zu)%s", jb->b, what, st.ratio,
                 pm_compare_verdict_name(st.verdict), na, nb, jb->tradeoff ? ": a trade-off" : "");
        } else {
            double sa = 0, sb = 0;
            for (size_t i = 0; i < na; i++)
                sa += a[i] / (double)na;
            for (size_t i = 0; i < nb; i++)
                sb += b[i] / (double)nb;
            json_object_set_new(jb->ledger, "size", json_pack("{s:o, s:o, s:o, s:s, s:b}", "ratio",
                                                              pm_fix_num(sa > 0 ? sb / sa : NAN), "stock_bytes", pm_fix_num(sa),
                                                              "fix_bytes", pm_fix_num(sb), "what", m->what, "estimated",
                                                              x->fx->estimated));
        }
        free(a);
        free(b);
    }
}

/* Checks job b's output against stock on its first config. Fills jb->output and jb->same; CHANGES_OUTPUT on a
 * difference, or when the variant does not build or run. */
void pm_fix_check_job(fix_ctx *x, job *jb)
{
    if ((x->fx->run_metrics || x->fx->size_metrics) && !jb->from_study)
        measure_stored(x, jb);
    if (x->o->no_check) {
        snprintf(jb->output, sizeof jb->output, "unchecked (--no-check)");
        return;
    }
    if (!x->fx->check_build || !x->fx->check_compare) {
        snprintf(jb->output, sizeof jb->output, "unchecked: the %s back end has no output check", x->backend);
        return;
    }
    if (!jb->n_cfg)
        return;
    static const char no_time[] = "unchecked: budget (the deadline came before its check)";
    if (pm_fix_past_deadline(x)) {   /* a check is up to three steps: each starts only before the deadline */
        snprintf(jb->output, sizeof jb->output, "%s", no_time);
        jb->check_gave_no_answer = 1;
        return;
    }
    size_t cfg = jb->cfg[0];
    check_ref *ref = NULL;
    for (size_t i = 0; i < x->n_refs && !ref; i++)
        if (x->refs[i].cfg == cfg)
            ref = &x->refs[i];
    pm_err err = {0};
    if (!ref) {
        check_ref *nr = realloc(x->refs, (x->n_refs + 1) * sizeof *nr);
        if (!nr) {
            snprintf(jb->output, sizeof jb->output, "unchecked: out of memory");
            return;
        }
        x->refs = nr;
        ref = &x->refs[x->n_refs++];
        memset(ref, 0, sizeof *ref);
        ref->cfg = cfg;
        pm_fix_note(x, "check: stock on %s", x->ev[cfg].key);
        int rc = check_side(x, cfg, "stock", ref->path, sizeof ref->path, &err);
        if (rc == PM_ERR_UNSUPPORTED || rc == PM_ERR_TIMEOUT)
            snprintf(ref->error, sizeof ref->error, "unchecked: %.200s", err.msg);
        else if (rc)
            snprintf(ref->error, sizeof ref->error, "unchecked: stock did not build: %.160s", err.msg);
        ref->no_answer = rc == PM_ERR_TIMEOUT;
    }
    if (ref->error[0]) {
        snprintf(jb->output, sizeof jb->output, "%.150s", ref->error);
        jb->check_gave_no_answer = ref->no_answer;
        pm_fix_past_deadline(x); /* budget_exhausted when the deadline stopped it */
        return;
    }
    char path[PATH_MAX];
    if (pm_fix_past_deadline(x)) {
        snprintf(jb->output, sizeof jb->output, "%s", no_time);
        jb->check_gave_no_answer = 1;
        return;
    }
    pm_fix_note(x, "check: %s on %s", jb->b, x->ev[cfg].key);
    int same = 0, rc = check_side(x, cfg, jb->b, path, sizeof path, &err);
    pm_fix_check_opts co = check_opts(x, "passmap fix: the [check]");
    if (rc ||
        (pm_fix_past_deadline(x) && (rc = pm_err_set(&err, PM_ERR_TIMEOUT, "budget (the deadline came before its "
                                                                     "[check] ran)"))) ||
        (rc = x->fx->check_compare(x->src_spec, pm_fix_ev_config(x, cfg), ref->path, path, &co, &same, jb->output,
                                   sizeof jb->output, &err))) {
        /* A check that timed out or was interrupted gave no answer: unchecked, never "changes output". A variant
         * whose output cannot be built, run or compared is not proven to compute the same. */
        snprintf(jb->output, sizeof jb->output, "%s: %.140s", rc == PM_ERR_TIMEOUT ? "unchecked" : "differs",
                 err.msg);
        same = 0;
    }
    check_done(x);
    pm_fix_past_deadline(x);
    jb->same = same;
    jb->check_gave_no_answer = rc == PM_ERR_TIMEOUT;
    if (!same && rc != PM_ERR_TIMEOUT)
        jb->verdict = PM_FIX_CHANGES_OUTPUT;
    pm_fix_note(x, "check: %s: %s", jb->b, jb->output);
    if (same && (x->fx->program_run || x->fx->program_size)) {
        char stock_dir[PATH_MAX], var_dir[PATH_MAX];
        if (check_dir(x, cfg, "stock", stock_dir, sizeof stock_dir, &err) == PM_OK &&
            check_dir(x, cfg, jb->b, var_dir, sizeof var_dir, &err) == PM_OK)
            measure_program(x, jb, cfg, stock_dir, var_dir);
    }
}
