/* Section: the fix table, one row per regime, and the rules (data/fixes.tsv) that pick a fix. */
#include "analysis_internal.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static double evidence(const pm_an_fix *f, const char *name)
{
    if (!strcmp(name, "exponent")) return f->exponent;
    if (!strcmp(name, "exponent_lo")) return f->exponent_lo;
    if (!strcmp(name, "share")) return f->share;
    if (!strcmp(name, "user_wall")) return f->user_wall;
    if (!strcmp(name, "cache_ratio")) return f->cache_ratio;
    if (!strcmp(name, "startup_share")) return f->startup_share;
    if (!strcmp(name, "outside_share")) return f->outside_share;
    return NAN;
}

static int cond_holds(const pm_an_fix *f, const char *cond, const char *r2_name, double r2)
{
    if (!strcmp(cond, "*"))
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", cond);
    char *save = NULL;
    for (char *term = strtok_r(buf, "&", &save); term; term = strtok_r(NULL, "&", &save)) {
        while (*term == ' ')
            term++;
        char *op = strpbrk(term, "<>");
        if (!op)
            return 0;
        char name[64];
        size_t len = (size_t)(op - term);
        if (len >= sizeof name)
            return 0;
        memcpy(name, term, len);
        name[len] = 0;
        while (len && name[len - 1] == ' ')
            name[--len] = 0;
        int ge = op[1] == '=';
        double lim = strtod(op + 1 + ge, NULL);
        double v = !strcmp(name, r2_name) ? r2 : evidence(f, name);
        if (isnan(v))
            return 0;
        int okv = *op == '<' ? (ge ? v <= lim : v < lim) : (ge ? v >= lim : v > lim);
        if (!okv)
            return 0;
    }
    return 1;
}

static int choose_fixes(pm_analysis *a, const char *path, double *fit_r2, pm_err *err)
{
    char def[4096];
    int explicit_path = path != NULL;
    if (!path) {
        snprintf(def, sizeof def, "%s/fixes.tsv", pm_data_dir());
        path = def;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!explicit_path)
            return PM_OK; /* no default rules installed: the table still shows the evidence */
        return pm_err_errno(err, PM_ERR_IO, "fix rules %s", path);
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) { /* a folder "reads" as no rules at all */
        fclose(f);
        return pm_err_set(err, PM_ERR_IO, "fix rules %s: not a regular file", path);
    }
    char line[2048];
    int lineno = 0, rc = PM_OK;
    typedef char *rule[4];   /* stage, pass, condition, fix */
    rule *rules = NULL;
    int nr = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t ll = strlen(line);
        if (ll == sizeof line - 1 && line[ll - 1] != '\n' && !feof(f)) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: line longer than %zu characters", path, lineno,
                            sizeof line - 2);
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *fld[4] = {0};
        char *p = line;
        for (int i = 0; i < 4 && p; i++) {
            fld[i] = p;
            char *t = i < 3 ? strchr(p, '\t') : NULL;
            if (t)
                *t = 0;
            p = t ? t + 1 : NULL;
        }
        if (!fld[3]) {
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: expected stage<TAB>pass<TAB>condition<TAB>fix", path, lineno);
            break;
        }
        rule *grown = realloc(rules, (size_t)(nr + 1) * sizeof *rules);
        if (!grown) {
            rc = an_nomem(err);
            break;
        }
        rules = grown;
        int got = 1;
        for (int i = 0; i < 4; i++)
            got &= (rules[nr][i] = strdup(fld[i])) != NULL;
        nr++;
        if (!got) {
            rc = an_nomem(err);
            break;
        }
    }
    if (rc == PM_OK && ferror(f))
        rc = pm_err_errno(err, PM_ERR_IO, "fix rules %s", path);
    fclose(f);
    for (size_t i = 0; rc == PM_OK && i < a->n_fixes; i++) {
        pm_an_fix *x = &a->fixes[i];
        for (int r = 0; r < nr && !x->n_contended; r++) {   /* contended evidence: no conclusion */
            if (fnmatch(rules[r][0], an_stage_name(a, x->stage), 0) ||
                fnmatch(rules[r][1], x->pass ? x->pass : "", 0))
                continue;
            if (cond_holds(x, rules[r][2], "r2", fit_r2[i])) {
                x->fix = strdup(rules[r][3]);
                break;
            }
        }
    }
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < 4; i++)
            free(rules[r][i]);
    free(rules);
    return rc;
}

int an_fixes(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    int rc = PM_OK;
    struct pm_an_priv *pv = w->pv;
    size_t NS = a->n_stages, NP = pv->n_pids;
    int st_over = w->st_over;
    double *tmp = w->tmp, *fit_r2 = NULL;
    /* Fix table: one row per regime (dominant stage among configs). A row with contended configs gets no fix:
       a busy machine moves CPU wait into process-overhead and lowers user/wall, which is not a finding. */
    a->fixes = calloc(NS, sizeof *a->fixes);
    fit_r2 = calloc(NS, sizeof *fit_r2);
    if (!a->fixes || !fit_r2)
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
        pm_an_fix *x = &a->fixes[a->n_fixes];
        x->stage = (int)s;
        x->n_configs = n;
        x->n_contended = n_contended;
        x->exponent = x->exponent_lo = x->user_wall = NAN;
        x->cache_ratio = nr ? an_median(tmp, (size_t)nr) : NAN;
        x->share = share_sum / n;
        /* a compile server saves start-up, not the rest of the overhead: the rules read the two apart */
        x->startup_share = a->startup_contended ? NAN : su_sum / n;   /* no conclusion from a contended start-up */
        x->outside_share = a->startup_contended ? NAN : out_sum / n;
        fit_r2[a->n_fixes] = NAN;
        if ((int)s != st_over) {
            /* the pass of this stage with the largest summed share over the regime's configs */
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
                    if (ps->stage != (int)s)
                        continue;
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
            for (size_t k = 0; bn && k < a->n_fits; k++)
                if (a->fits[k].name == bn && a->fits[k].tool == bt && a->fits[k].reference) {   /* stock's */
                    x->exponent = a->fits[k].exponent;
                    x->exponent_lo = a->fits[k].lo;
                    fit_r2[a->n_fixes] = a->fits[k].r2;
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
        a->n_fixes++;
    }
    rc = choose_fixes(a, w->opts->fixes_path, fit_r2, err);
cleanup:
    free(fit_r2);
    return rc;
}
