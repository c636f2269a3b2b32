/* Fix catalogue, rules, selection, budget and greedy combination (see fixplan.h). */
#include "fixplan.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fixrule.h"
#include "util.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static void def_free(pm_fix_def *d)
{
    pm_free_all(d->name, d->variant, d->regime, d->pass, d->size, d->why);
    memset(d, 0, sizeof *d);
}

void pm_fix_catalogue_free(pm_fix_catalogue *cat)
{
    if (!cat)
        return;
    for (size_t i = 0; i < cat->n; i++)
        def_free(&cat->items[i]);
    free(cat->items);
    cat->items = NULL;
    cat->n = 0;
}

/* The value a size term names for a config: its evidence, else an axis of the config when that is a number. */
static double evidence_value(const char *name, const void *ctx)
{
    const pm_fix_evidence *e = ctx;
    if (!strcmp(name, "window")) return e->window;
    if (!strcmp(name, "layers")) return e->layers;
    if (!strcmp(name, "tile")) return e->tile;
    if (!strcmp(name, "ops")) return e->ops;
    if (!strcmp(name, "llvm_ops")) return e->llvm_ops;
    if (!strcmp(name, "wall")) return e->wall_s;
    /* an axis of the config: its value when it is a number */
    pm_cfg axes = {.params = pm_unconst_ptr(e->params), .n_params = e->n_params};
    return pm_cfg_param_num(&axes, name);
}

static int any_glob(const char *globs, const char *s)
{
    if (!s)
        return !strcmp(globs, "*");
    char *buf = strdup(globs);
    int hit = 0;
    if (!buf)
        return 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save))
        hit = fnmatch(trim(t), s, 0) == 0;
    free(buf);
    return hit;
}

static int push_def(pm_fix_catalogue *cat, pm_fix_def *d, const char *name, const char *const *axes, pm_err *err)
{
    char msg[256];
    if (!d->name || !d->variant || !d->regime || !d->pass || !d->size || !d->why) {
        def_free(d);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    if (strlen(d->name) == 0 || strlen(d->name) > 48) {
        int line = d->line;
        def_free(d);
        return pm_err_set(err, PM_ERR_PARSE, "%s:%d: fix name must be 1..48 characters", name, line);
    }
    if (pm_fixrule_size(d->size, axes, NULL, NULL, msg, sizeof msg) < 0) {
        int line = d->line;
        def_free(d);
        return pm_err_set(err, PM_ERR_PARSE, "%s:%d: %s", name, line, msg);
    }
    for (size_t i = 0; i < cat->n; i++)
        if (!strcmp(cat->items[i].name, d->name)) {
            int line = d->line;
            pm_err_set(err, PM_ERR_PARSE, "%s:%d: fix '%s' declared twice", name, line, d->name);
            def_free(d);
            return PM_ERR_PARSE;
        }
    pm_fix_def *ni = realloc(cat->items, (cat->n + 1) * sizeof *ni);
    if (!ni) {
        def_free(d);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    cat->items = ni;
    cat->items[cat->n++] = *d;
    return PM_OK;
}

int pm_fix_catalogue_parse(const char *text, const char *name, pm_fix_catalogue *cat, pm_err *err)
{
    memset(cat, 0, sizeof *cat);
    char *copy = strdup(text);
    if (!copy)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK, line = 0;
    for (char *ln = copy, *next; ln; ln = next) {
        char *nl = strchr(ln, '\n');
        if (nl)
            *nl = '\0';
        next = nl ? nl + 1 : NULL;
        line++;
        char *t = trim(ln);
        if (!*t || *t == '#')
            continue;
        char *col[7];
        int n = 0;
        for (char *p = ln; n < 7;) {
            col[n++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (n < 7) {
            rc = pm_err_set(err, PM_ERR_PARSE,
                            "%s:%d: %d columns, need 7 (name, variant, regime, pass, superlinear, size, why)", name,
                            line, n);
            goto cleanup;
        }
        pm_fix_def d = {.line = line};
        if (pm_fixrule_superlinear(trim(col[4]), &d.superlinear)) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: superlinear '%s' (yes or -)", name, line, trim(col[4]));
            goto cleanup;
        }
        d.name = strdup(trim(col[0]));
        d.variant = strdup(trim(col[1]));
        d.regime = strdup(trim(col[2]));
        d.pass = strdup(trim(col[3]));
        d.size = strdup(trim(col[5]));
        d.why = strdup(trim(col[6]));
        if ((rc = push_def(cat, &d, name, NULL, err)))
            goto cleanup;
    }
    if (cat->n == 0)
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: no fix in the catalogue", name);
cleanup:
    free(copy);
    if (rc)
        pm_fix_catalogue_free(cat);
    return rc;
}

int pm_fix_catalogue_load(const char *path, pm_fix_catalogue *cat, pm_err *err)
{
    char *text;
    size_t len;
    memset(cat, 0, sizeof *cat);
    int rc = pm_util_read_file(path, &text, &len, err);
    if (rc)
        return pm_err_wrap(err, "fix catalogue");
    if (memchr(text, '\0', len))
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: binary data in a fix catalogue", path);
    else
        rc = pm_fix_catalogue_parse(text, path, cat, err);
    free(text);
    return rc;
}

int pm_fix_catalogue_from_decls(const pm_fix_decl *decls, int n, const char *const *axes, const char *name,
                                pm_fix_catalogue *cat, pm_err *err)
{
    memset(cat, 0, sizeof *cat);
    int rc = PM_OK;
    for (int i = 0; i < n && rc == PM_OK; i++) {
        const pm_fix_decl *x = &decls[i];
        pm_fix_def d = {.line = x->line};
        if (x->superlinear && pm_fixrule_superlinear(x->superlinear, &d.superlinear)) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: [fix %s] superlinear '%s' (yes or -)", name, x->line,
                            x->name, x->superlinear);
            break;
        }
        d.name = strdup(x->name ? x->name : "");
        d.variant = strdup(x->variant ? x->variant : x->name ? x->name : "");
        d.regime = strdup(x->regime ? x->regime : "*");
        d.pass = strdup(x->pass ? x->pass : "*");
        d.size = strdup(x->size ? x->size : "*");
        d.why = strdup(x->why ? x->why : "declared in the spec");
        rc = push_def(cat, &d, name, axes, err);
    }
    if (rc == PM_OK && cat->n == 0)
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: no fix declared (add a [fix NAME] section)", name);
    if (rc)
        pm_fix_catalogue_free(cat);
    return rc;
}

/* How many '+'-separated tokens of list equal tok[0..len). */
static size_t count_token(const char *list, const char *tok, size_t len)
{
    size_t n = 0;
    for (const char *p = list;;) {
        size_t l = strcspn(p, "+");
        n += l == len && !strncmp(p, tok, len);
        if (!p[l])
            return n;
        p += l + 1;
    }
}

/* The same '+'-tokens in any order (a variant is a set of fixes): equal as multisets, walked in place. */
static int same_tokens(const char *a, const char *b)
{
    for (const char *p = a;;) {
        size_t l = strcspn(p, "+");
        if (count_token(a, p, l) != count_token(b, p, l))
            return 0;
        if (!p[l])
            break;
        p += l + 1;
    }
    for (const char *p = b;;) {   /* a token of b that a lacks */
        size_t l = strcspn(p, "+");
        if (!count_token(a, p, l))
            return 0;
        if (!p[l])
            return 1;
        p += l + 1;
    }
}

long pm_fix_catalogue_find_variant(const pm_fix_catalogue *cat, const char *variant)
{
    for (size_t i = 0; i < cat->n; i++)
        if (same_tokens(cat->items[i].variant, variant))
            return (long)i;
    return -1;
}

int pm_fix_is_combination(const pm_fix_def *f)
{
    return strchr(f->variant, '+') != NULL;
}

int pm_fix_rule_matches(const pm_fix_def *f, const pm_fix_evidence *e, const char *const *superlinear,
                        size_t n_superlinear)
{
    char msg[8];
    if (!any_glob(f->regime, e->regime))
        return 0;
    if (strcmp(f->pass, "*")) {
        int heavy = 0;
        for (size_t i = 0; i < e->n_heavy && !heavy; i++)
            heavy = any_glob(f->pass, e->heavy[i]);
        if (!heavy)
            return 0;
    }
    if (f->superlinear) {
        int sl = 0;
        for (size_t i = 0; i < n_superlinear && !sl; i++)
            sl = any_glob(f->pass, superlinear[i]);
        if (!sl)
            return 0;
    }
    return pm_fixrule_size(f->size, NULL, evidence_value, e, msg, sizeof msg) == 1;
}

void pm_fix_selection_free(pm_fix_selection *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++)
        free(sel->picks[i].configs);
    free(sel->picks);
    sel->picks = NULL;
    sel->n = 0;
}

static double wall_of(const pm_fix_evidence *e)
{
    return isnan(e->wall_s) ? 0 : e->wall_s;
}

int pm_fix_select(const pm_fix_catalogue *cat, const pm_fix_evidence *ev, size_t n_ev, const char *const *superlinear,
                  size_t n_superlinear, int per_fix, pm_fix_selection *out, pm_err *err)
{
    pm_fix_select_opts so = {.per_fix = per_fix};
    return pm_fix_select_ex(cat, ev, n_ev, superlinear, n_superlinear, &so, out, err);
}

int pm_fix_select_ex(const pm_fix_catalogue *cat, const pm_fix_evidence *ev, size_t n_ev,
                     const char *const *superlinear, size_t n_superlinear, const pm_fix_select_opts *so,
                     pm_fix_selection *out, pm_err *err)
{
    int per_fix = so->per_fix;
    memset(out, 0, sizeof *out);
    if (per_fix < 1)
        return pm_err_set(err, PM_ERR_USAGE, "configs per fix must be >= 1 (got %d)", per_fix);
    size_t n_single = 0;
    for (size_t f = 0; f < cat->n; f++)
        n_single += !pm_fix_is_combination(&cat->items[f]);
    size_t *match = malloc((n_ev ? n_ev : 1) * sizeof *match);
    int *taken = calloc(n_ev ? n_ev : 1, sizeof *taken);
    out->picks = calloc(n_single ? n_single : 1, sizeof *out->picks);
    int rc = PM_OK;
    if (!match || !taken || !out->picks) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t f = 0; f < cat->n; f++) {
        const pm_fix_def *d = &cat->items[f];
        if (pm_fix_is_combination(d))
            continue;
        pm_fix_pick *p = &out->picks[out->n++];
        p->fix = f;
        if (!strcmp(d->variant, "-")) {
            p->why_not = "no compile variant implements it in this back end";
            continue;
        }
        size_t nm = 0, n_refused = 0;
        char why[sizeof p->note] = "";
        for (size_t i = 0; i < n_ev; i++) {
            if (!pm_fix_rule_matches(d, &ev[i], superlinear, n_superlinear))
                continue;
            if (so->runnable && !so->runnable(so->user, f, i, why, sizeof why)) {
                n_refused++;   /* the back end cannot run it there: the plan says so, the fix runs elsewhere */
                continue;
            }
            match[nm++] = i;
        }
        if (n_refused)
            snprintf(p->note, sizeof p->note, "%.150s (%zu config%s)", why, n_refused, n_refused > 1 ? "s" : "");
        if (!nm) {
            p->why_not = n_refused ? p->note : "no config of the study matches its rule";
            continue;
        }
        /* measured from the study's own runs: every matching config, at no cost */
        p->from_study = so->from_study_variant && !strcmp(d->variant, so->from_study_variant);
        size_t want = nm < (size_t)per_fix || p->from_study ? nm : (size_t)per_fix;
        if (!(p->configs = malloc(want * sizeof *p->configs))) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
        memset(taken, 0, n_ev * sizeof *taken);
        /* Round robin over regimes: each pass over them takes the slowest untaken config of every regime, the
         * regimes visited in the order of their slowest untaken config. */
        while (p->n_configs < want) {
            size_t round_start = p->n_configs;
            for (;;) {
                long best = -1;
                for (size_t k = 0; k < nm; k++) {
                    size_t i = match[k];
                    if (taken[i])
                        continue;
                    int regime_used = 0;
                    for (size_t j = round_start; j < p->n_configs && !regime_used; j++) {
                        const char *r1 = ev[p->configs[j]].regime, *r2 = ev[i].regime;
                        regime_used = (r1 && r2 && !strcmp(r1, r2)) || (!r1 && !r2);
                    }
                    if (regime_used)
                        continue;
                    if (best < 0 || wall_of(&ev[i]) > wall_of(&ev[best]) ||
                        (wall_of(&ev[i]) == wall_of(&ev[best]) && strcmp(ev[i].key, ev[best].key) < 0))
                        best = (long)i;
                }
                if (best < 0 || p->n_configs == want)
                    break;
                taken[best] = 1;
                p->configs[p->n_configs++] = (size_t)best;
            }
        }
    }
cleanup:
    free(match);
    free(taken);
    if (rc)
        pm_fix_selection_free(out);
    return rc;
}

double pm_fix_plan_cost(const pm_fix_selection *sel, const pm_fix_evidence *ev, int repeats)
{
    double cost = 0;
    /* Stock runs once per distinct config. A fix measured from the study's runs costs nothing. */
    for (size_t a = 0; a < sel->n; a++)
        for (size_t i = 0; i < sel->picks[a].n_configs && !sel->picks[a].from_study; i++) {
            size_t c = sel->picks[a].configs[i];
            int seen = 0;
            for (size_t b = 0; b <= a && !seen; b++)
                for (size_t j = 0; j < sel->picks[b].n_configs && !seen && !sel->picks[b].from_study; j++)
                    seen = (b < a || j < i) && sel->picks[b].configs[j] == c;
            cost += wall_of(&ev[c]) * repeats * (seen ? 1 : 2);
        }
    return cost;
}

size_t pm_fix_fit_budget(pm_fix_selection *sel, const pm_fix_evidence *ev, int repeats, double budget_s)
{
    size_t dropped = 0;
    if (budget_s <= 0)
        return 0;
    while (pm_fix_plan_cost(sel, ev, repeats) > budget_s) {
        long most = -1;
        for (size_t a = 0; a < sel->n; a++)
            if (sel->picks[a].n_configs > 1 && !sel->picks[a].from_study &&
                (most < 0 || sel->picks[a].n_configs > sel->picks[most].n_configs))
                most = (long)a;
        if (most < 0) {
            /* One config each: drop the dearest fix. */
            for (size_t a = 0; a < sel->n; a++)
                if (sel->picks[a].n_configs == 1 && !sel->picks[a].from_study &&
                    (most < 0 || wall_of(&ev[sel->picks[a].configs[0]]) > wall_of(&ev[sel->picks[most].configs[0]])))
                    most = (long)a;
            if (most < 0)
                break;
            sel->picks[most].why_not = "does not fit the budget";
        }
        sel->picks[most].n_configs--;
        dropped++;
    }
    return dropped;
}

const char *pm_fix_verdict_name(pm_fix_verdict v)
{
    switch (v) {
    case PM_FIX_BETTER: return "faster";
    case PM_FIX_WORSE: return "slower";
    case PM_FIX_NO_EFFECT: return "no effect";
    case PM_FIX_CHANGES_OUTPUT: return "changes output";
    case PM_FIX_NOT_RUN: return "not run";
    case PM_FIX_CONTENDED: return "no conclusion (contended)";
    case PM_FIX_UNSETTLED: return "undecided";
    case PM_FIX_UNDECIDED_BUDGET: return "undecided (budget)";
    default: return "undecided";
    }
}

pm_fix_verdict pm_fix_judge(const pm_fix_measure *m, int at_limit, double threshold)
{
    (void)threshold;   /* compare's verdicts already apply it, on the intervals */
    if (m->n_configs == 0)
        return at_limit ? PM_FIX_NOT_RUN : PM_FIX_UNDECIDED;
    if (m->min_n < 3)
        return PM_FIX_UNDECIDED;
    if (m->n_contended && !m->allow_contended)
        return at_limit ? PM_FIX_CONTENDED : PM_FIX_UNDECIDED;
    if (m->slower)
        return PM_FIX_WORSE;
    if (m->undecided || m->untested || m->faster + m->same < m->n_configs)
        return at_limit ? PM_FIX_UNSETTLED : PM_FIX_UNDECIDED;
    return m->faster ? PM_FIX_BETTER : PM_FIX_NO_EFFECT;
}

int pm_fix_greedy(const size_t *ranked, size_t n_ranked, pm_fix_try_fn try_combo, void *user, size_t *best,
                  size_t *n_best, int *stopped_by_budget)
{
    *n_best = 0;
    if (stopped_by_budget)
        *stopped_by_budget = 0;
    if (n_ranked == 0)
        return PM_OK;
    size_t *cand = malloc((n_ranked + 1) * sizeof *cand);
    if (!cand)
        return PM_ERR_NOMEM;
    best[(*n_best)++] = ranked[0];
    for (size_t k = 1; k < n_ranked; k++) {
        memcpy(cand, best, *n_best * sizeof *cand);
        cand[*n_best] = ranked[k];
        pm_fix_verdict v = try_combo(user, cand, *n_best + 1, best, *n_best);
        if (v == PM_FIX_NOT_RUN) {
            if (stopped_by_budget)
                *stopped_by_budget = 1;
            break;
        }
        if (v == PM_FIX_BETTER)
            best[(*n_best)++] = ranked[k];
    }
    free(cand);
    return PM_OK;
}

int pm_fix_combo_variant(const pm_fix_catalogue *cat, const size_t *combo, size_t n, char *out, size_t cap,
                         pm_err *err)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t f = 0; f < cat->n; f++) {
        int in = 0;
        for (size_t i = 0; i < n && !in; i++)
            in = combo[i] == f;
        if (!in)
            continue;
        int w = snprintf(out + len, cap - len, "%s%s", len ? "+" : "", cat->items[f].variant);
        if (w < 0 || (size_t)w >= cap - len)
            return pm_err_set(err, PM_ERR_USAGE, "combination variant longer than %zu characters", cap - 1);
        len += (size_t)w;
    }
    return PM_OK;
}
