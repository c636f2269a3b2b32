/* Section: the fix table, one row per regime (its evidence: the heaviest pass by share, its fit, user/wall, the
 * cache ratio), and the words on it. Which fix a row names is never decided here: pm_analysis_fix_words takes the
 * plan of `passmap fix` (pm_fix_propose: the back end's catalogue matched against the study) and the proven rows
 * of a fix sweep, so the report and `passmap fix --dry-run` cannot disagree. */
#include "util.h"
#include "analysis_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int an_fixes(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    struct pm_an_priv *pv = w->pv;
    size_t NS = a->n_stages, NP = pv->n_pids;
    int st_over = w->st_over;
    double *tmp = w->tmp;
    /* Fix table: one row per regime (dominant stage among configs). A row with contended configs gets no fix:
       a busy machine moves CPU wait into process-overhead and lowers user/wall, which is not a finding. */
    a->fixes.rows = calloc(NS, sizeof *a->fixes.rows);
    if (!a->fixes.rows)
        AN_NOMEM();
    for (size_t s = 0; s < NS; s++) {
        int n = 0;
        double share_sum = 0;
        int nr = 0, n_contended = 0;
        double su_sum = 0, out_sum = 0;   /* NAN once a config's start-up is unknown */
        for (size_t ci = 0; ci < a->n_configs; ci++)
            if (a->configs[ci].dominant_stage == (int)s && an_compared(a, &a->configs[ci])) {
                n++;
                n_contended += a->configs[ci].contended;
                share_sum += a->configs[ci].share[s].mean;
                su_sum += a->configs[ci].startup_share;
                out_sum += a->configs[ci].outside_share;
                if (!isnan(a->configs[ci].cache_ratio))
                    tmp[nr++] = a->configs[ci].cache_ratio;
            }
        if (!n)
            continue;
        pm_an_fix *x = &a->fixes.rows[a->fixes.n];
        x->stage = (int)s;
        x->n_configs = n;
        x->n_contended = n_contended;
        x->exponent = x->exponent_lo = x->user_wall = NAN;
        x->pass_stage = -1;
        x->cache_ratio = nr ? an_median(tmp, (size_t)nr) : NAN;
        x->share = share_sum / n;
        /* a compile server saves start-up, not the rest of the overhead: the rules read the two apart */
        x->startup_share = a->overhead.contended ? NAN : su_sum / n;   /* no conclusion from a contended start-up */
        x->outside_share = a->overhead.contended ? NAN : out_sum / n;
        if ((int)s != st_over) {
            /* the regime's heaviest pass: the largest summed share over its configs, in any stage (the regime is
               the stage that takes most, but its own passes may each be small next to another stage's one) */
            const char *bt = NULL, *bn = NULL;
            double bsum = 0;
            double *sum = calloc(NP + 1, sizeof *sum), *uwn = calloc(NP + 1, sizeof *uwn),
                   *uwd = calloc(NP + 1, sizeof *uwd);
            if (!sum || !uwn || !uwd) {
                free(sum); free(uwn); free(uwd);
                AN_NOMEM();
            }
            for (size_t ci = 0; ci < a->n_configs; ci++) {
                const pm_an_config *c = &a->configs[ci];
                if (c->dominant_stage != (int)s || !an_compared(a, c))
                    continue;
                for (size_t p = 0; p < c->n_passes; p++) {
                    const pm_an_pass *ps = &c->passes[p];
                    sum[ps->id] += ps->share;
                    if (!isnan(ps->user_wall)) {
                        uwn[ps->id] += ps->user_wall * ps->mean_s;
                        uwd[ps->id] += ps->mean_s;
                    }
                }
            }
            for (size_t k = 0; k < NP; k++)
                if (sum[k] > bsum) {
                    bsum = sum[k];
                    bt = pv->pids[k].tool;
                    bn = pv->pids[k].name;
                    x->user_wall = uwd[k] > 0 ? uwn[k] / uwd[k] : NAN;
                }
            free(sum); free(uwn); free(uwd);
            x->tool = bt;
            x->pass = bn;
            if (bn)
                x->share = bsum / n;
            for (size_t ci = 0; bn && ci < a->n_configs && x->pass_stage < 0; ci++)
                for (size_t p = 0; p < a->configs[ci].n_passes; p++)
                    if (a->configs[ci].passes[p].name == bn && a->configs[ci].passes[p].tool == bt) {
                        x->pass_stage = a->configs[ci].passes[p].stage;
                        break;
                    }
            for (size_t k = 0; bn && k < a->fits.n; k++)
                if (a->fits.rows[k].name == bn && a->fits.rows[k].tool == bt && a->fits.rows[k].reference) {   /* stock's */
                    x->exponent = a->fits.rows[k].exponent;
                    x->exponent_lo = a->fits.rows[k].lo;
                }
        } else {
            /* start-up is a single-threaded process phase */
            double u = 0, nu = 0;
            for (size_t ci = 0; ci < a->n_configs; ci++)
                if (a->configs[ci].dominant_stage == (int)s && !isnan(a->configs[ci].user_wall) &&
                    an_compared(a, &a->configs[ci])) {
                    u += a->configs[ci].user_wall;
                    nu += 1;
                }
            x->user_wall = nu > 0 ? u / nu : NAN;
        }
        a->fixes.n++;
    }
cleanup:
    return rc;
}

/* Appends printf text to *dst (NULL: a new string); out of memory leaves *dst as it was and returns 1. */
static int cat(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cat(char **dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *piece = NULL;
    int n = vasprintf(&piece, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 1;
    size_t old = *dst ? strlen(*dst) : 0;
    char *grown = realloc(*dst, old + (size_t)n + 1);
    if (!grown) {
        free(piece);
        return 1;
    }
    memcpy(grown + old, piece, (size_t)n + 1);
    *dst = grown;
    free(piece);
    return 0;
}

static int config_stage(const pm_analysis *a, const char *key)
{
    for (size_t i = 0; key && i < a->n_configs; i++)
        if (!strcmp(a->configs[i].key, key))
            return a->configs[i].dominant_stage;
    return -1;
}

/* How many of a plan fix's matching configs are in regime `stage` (-1: any). */
static size_t matches_in(const pm_analysis *a, const json_t *fix, int stage)
{
    size_t n = 0, i;
    const json_t *m;
    json_array_foreach(json_object_get(fix, "matches"), i, m) {
        const char *reg = json_string_value(json_object_get(m, "regime"));
        n += stage < 0 || (reg && !strcmp(reg, a->stages[stage]));
    }
    return n;
}

/* A proven row (passmap fix's result, against stock) measured on a config of regime `stage`. */
static int proven_in(const pm_analysis *a, const json_t *row, int stage)
{
    size_t i;
    const json_t *k;
    json_array_foreach(json_object_get(row, "configs"), i, k)
        if (config_stage(a, json_string_value(k)) == stage)
            return 1;
    return 0;
}

static const char *js(const json_t *o, const char *k, const char *def)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : def;
}

/* "compile 0.41x, run 1.02x, .text 0.98x" from a proven row's ratios (a side not measured is left out). */
static void ledger_words(const json_t *row, char *buf, size_t cap)
{
    double r = json_number_value(json_object_get(row, "ratio"));
    const json_t *run = json_object_get(row, "run"), *size = json_object_get(row, "size");
    int n = snprintf(buf, cap, json_is_number(json_object_get(row, "ratio")) ? "compile %.3fx" : "compile -", r);
    if (json_is_number(json_object_get(run, "ratio")) && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", run %.3fx%s", json_number_value(json_object_get(run, "ratio")),
                      json_is_true(json_object_get(run, "estimated")) ? " (estimated)" : "");
    if (json_is_number(json_object_get(size, "ratio")) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", %s %.3fx", js(size, "what", "size"),
                 json_number_value(json_object_get(size, "ratio")));
}

int pm_analysis_fix_words(pm_analysis *a, const json_t *plan, const char *db_label)
{
    json_t *proven = a->fixes.proven_json ? json_loads(a->fixes.proven_json, 0, NULL) : NULL;
    const json_t *fixes = json_object_get(plan, "fixes");
    const char *none = js(plan, "none", NULL);
    int oom = 0;
    for (size_t i = 0; i < a->fixes.n && !oom; i++) {
        pm_an_fix *x = &a->fixes.rows[i];
        free(x->fix);
        x->fix = NULL;
        size_t k;
        const json_t *r, *f;
        /* proven rows first, with what they measured */
        json_array_foreach(json_object_get(proven, "results"), k, r) {
            if (strcmp(js(r, "against", ""), "stock") || !proven_in(a, r, x->stage))
                continue;
            char led[160];
            ledger_words(r, led, sizeof led);
            oom |= cat(&x->fix, "%s%s: measured %s (%s; output %s)", x->fix ? "; " : "", js(r, "name", "?"),
                       json_is_true(json_object_get(r, "tradeoff")) ? "a trade-off: faster to compile, slower to run"
                                                                    : js(r, "verdict", "?"),
                       led, js(r, "output", "-"));
        }
        json_array_foreach(fixes, k, f) {
            size_t n = matches_in(a, f, x->stage);
            if (!n || json_is_true(json_object_get(f, "combination")) || !json_array_size(json_object_get(f, "configs")))
                continue;
            int done = 0;
            size_t q;
            json_array_foreach(json_object_get(proven, "results"), q, r)
                done |= !strcmp(js(r, "variant", ""), js(f, "variant", "")) && proven_in(a, r, x->stage);
            if (!done)
                oom |= cat(&x->fix, "%s%s: predicted (rule %s holds on %zu config%s here)", x->fix ? "; " : "",
                           js(f, "name", "?"), js(f, "predicted", "?"), n, n == 1 ? "" : "s");
        }
        if (!x->fix && x->n_contended == x->n_configs)
            oom |= cat(&x->fix, "no conclusion: %d of %d configs contended", x->n_contended, x->n_configs);
        else if (!x->fix && none)
            oom |= cat(&x->fix, "none proposed: %s", none);
        else if (!x->fix)
            oom |= cat(&x->fix, "no fix of the %s catalogue matches%s", a->backend ? a->backend : "back end's",
                       x->n_contended ? " its uncontended configs" : " its configs");
    }
    /* the headline: the proven combination to ship, else the predicted fix whose rule holds on most configs */
    free(a->fixes.headline);
    free(a->fixes.top_why);
    a->fixes.headline = a->fixes.top_why = NULL;
    const json_t *rec = json_object_get(proven, "recommended");
    if (json_is_object(rec) && json_is_true(json_object_get(rec, "ship"))) {
        char led[160];
        ledger_words(rec, led, sizeof led);
        oom |= cat(&a->fixes.headline, "%s \u2014 proven by passmap fix (%s of stock over %d configs; output %s)",
                   js(rec, "variant", "?"), led, (int)json_integer_value(json_object_get(rec, "n_configs")),
                   js(rec, "output", "-"));
    } else {
        const json_t *best = NULL, *f;
        size_t k, nbest = 0;
        json_array_foreach(fixes, k, f) {
            size_t n = matches_in(a, f, -1);
            if (json_is_true(json_object_get(f, "combination")) || !json_array_size(json_object_get(f, "configs")) ||
                n <= nbest)
                continue;
            best = f;
            nbest = n;
        }
        if (proven)
            oom |= cat(&a->fixes.headline, "nothing proven to ship by passmap fix (see the proven fixes); ");
        if (best) {
            /* the regime it holds in most, and that regime's heaviest pass with its share */
            const pm_an_fix *reg = NULL;
            size_t rn = 0;
            for (size_t i = 0; i < a->fixes.n; i++) {
                size_t n = matches_in(a, best, a->fixes.rows[i].stage);
                if (n > rn) {
                    rn = n;
                    reg = &a->fixes.rows[i];
                }
            }
            /* a short answer: which fix, how sure, where, and the command that measures its ratio; its rule and
             * why are the fix table's and passmap fix --dry-run's, the heaviest pass the dominant lines' */
            oom |= cat(&a->fixes.headline, "%s \u2014 predicted for %zu of %zu config%s", js(best, "name", "?"), nbest,
                       a->n_configs, a->n_configs == 1 ? "" : "s");
            if (reg)
                oom |= cat(&a->fixes.headline, " (mostly %s)", a->stages[reg->stage]);
            oom |= cat(&a->fixes.headline, ", not measured: passmap fix %s", db_label ? db_label : "DB");
            if (*js(best, "why", ""))   /* what it changes, so the reader can judge it against the pass named */
                oom |= cat(&a->fixes.top_why, "%s", js(best, "why", ""));
        } else if (none) {
            oom |= cat(&a->fixes.headline, "no fix proposed: %s", none);
        } else if (!proven) {
            oom |= cat(&a->fixes.headline, "no fix proposed: no rule of the %s catalogue holds on this study's "
                                         "evidence", a->backend ? a->backend : "back end's");
        }
    }
    json_decref(proven);
    return oom ? PM_ERR_NOMEM : PM_OK;
}

void an_fixes_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->fixes.n; i++)
        free(a->fixes.rows[i].fix);
    pm_free_all(a->fixes.rows, a->fixes.proven_json, a->fixes.headline, a->fixes.top_why);
}
