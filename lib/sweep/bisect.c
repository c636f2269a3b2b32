/* pm_bisect: `git bisect run` driven by the verdict rule (see bisect.h). */
#include "bisect.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "run.h"
#include "spec.h"
#include "stagemap.h"
#include "sweep.h"
#include "util.h"

enum { GIT_GOOD = 0, GIT_BAD = 1, GIT_SKIP = 125 };
#define GIT_TIMEOUT_S 300.0
/* `git bisect run` as a whole: its steps each have their own build timeout; this only ends a hung git */
#define BISECT_RUN_TIMEOUT_S (7 * 24 * 3600.0)

static int nomem(pm_err *err)
{
    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

typedef struct brow {
    char *config, *tool, *pass;   /* the config key; tool NULL: the whole compile; pass NULL: a step */
} brow;

/* What the step needs, written by pm_bisect_run into WORK/bisect.state. */
typedef struct bstate {
    const volatile sig_atomic_t *cancel;   /* pm_bisect_opts.cancel (not in the file) */
    char repo[PATH_MAX], work[PATH_MAX], spec[PATH_MAX], build[4096], good[64], level[16];
    int repeats, max_repeats, allow_contended;
    double threshold, build_timeout_s;
    brow *rows;
    size_t n_rows, cap_rows;
} bstate;

static void bstate_free(bstate *s)
{
    for (size_t i = 0; i < s->n_rows; i++)
        free(s->rows[i].config), free(s->rows[i].tool), free(s->rows[i].pass);
    free(s->rows);
    s->rows = NULL;
    s->n_rows = s->cap_rows = 0;
}

static void note(const pm_bisect_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const pm_bisect_opts *o, const char *fmt, ...)
{
    if (!o || !o->note)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->note(o->user, line);
}

/* ---- subprocesses, all through the runner ---- */

/* Runs argv in cwd, stdout to out_path (NULL: discarded), stderr to err_path; *ok: it exited 0. */
static int run_cmd(const char *const *argv, const char *cwd, const char *out_path, const char *err_path,
                   double timeout_s, const volatile sig_atomic_t *cancel, int *ok, pm_err *err)
{
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = cwd, .stdout_path = out_path, .stderr_path = err_path,
                      .cancel = cancel};
    pm_run_result res;
    int rc = pm_run_exec(argv, &ro, &res, err);
    *ok = rc == PM_OK && res.status == PM_RUN_OK;
    return rc;
}

/* git -C repo ARGS...: its first line of stdout into out (cap bytes; "" when none). PM_ERR_CHILD naming the
 * command and git's own message when it fails. */
static int git(const bstate *s, char *out, size_t cap, ...)
{
    const char *argv[16] = {"git", "-C", s->repo};
    size_t n = 3;
    va_list ap;
    va_start(ap, cap);
    for (const char *a; n < 15 && (a = va_arg(ap, const char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    char o_path[PATH_MAX + 16], e_path[PATH_MAX + 16];
    snprintf(o_path, sizeof o_path, "%s/git.out", s->work);
    snprintf(e_path, sizeof e_path, "%s/git.err", s->work);
    pm_err err = {0};
    int ok, rc = run_cmd(argv, NULL, o_path, e_path, GIT_TIMEOUT_S, NULL, &ok, &err);
    if (rc != PM_OK)
        return rc;
    char *text = NULL;
    size_t len = 0;
    if (out && cap) {
        out[0] = '\0';
        if (pm_util_read_file(o_path, &text, &len, &err) == PM_OK) {
            snprintf(out, cap, "%.*s", (int)strcspn(text, "\n"), text);
            free(text);
        }
    }
    return ok ? PM_OK : PM_ERR_CHILD;   /* git's own words are in WORK/git.err */
}

/* The same, with the failure as an error naming what was asked. */
#define GIT_OR_FAIL(s, out, cap, err, what, ...)                                                                 \
    (git((s), (out), (cap), __VA_ARGS__, (const char *)NULL) != PM_OK                                            \
         ? pm_err_set((err), PM_ERR_CHILD, "%s: git %s failed (see %s/git.err)", (s)->repo, (what), (s)->work)   \
         : PM_OK)

/* ---- the state file ---- */

static int field_ok(const char *v, const char *what, pm_err *err)
{
    if (v && strpbrk(v, "\t\r\n"))
        return pm_err_set(err, PM_ERR_USAGE, "bisect: the %s has a tab or line break, which the state file cannot "
                          "hold", what);
    return PM_OK;
}

static int state_write(const bstate *s, pm_err *err)
{
    char path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    int rc;
    if ((rc = field_ok(s->build, "build command", err)) != PM_OK)
        return rc;
    snprintf(path, sizeof path, "%s/bisect.state", s->work);
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return nomem(err);
    fprintf(f, "# passmap bisect: what `passmap bisect --step` reads (written by `passmap bisect`)\n"
               "repo\t%s\nspec\t%s\nbuild\t%s\ngood\t%s\nlevel\t%s\nrepeats\t%d\nmax_repeats\t%d\n"
               "threshold\t%.17g\nallow_contended\t%d\nbuild_timeout_s\t%.17g\n",
            s->repo, s->spec, s->build, s->good, s->level, s->repeats, s->max_repeats, s->threshold,
            s->allow_contended, s->build_timeout_s);
    for (size_t i = 0; i < s->n_rows; i++)
        fprintf(f, "row\t%s\t%s\t%s\n", s->rows[i].config, s->rows[i].tool ? s->rows[i].tool : "-",
                s->rows[i].pass ? s->rows[i].pass : "-");
    if (fclose(f) != 0)
        rc = nomem(err);
    else
        rc = pm_util_write_file_atomic(path, text, len, 0644, NULL, err);
    free(text);
    return rc;
}

static int add_row(bstate *s, const char *config, const char *tool, const char *pass)
{
    brow *g = pm_grow(s->rows, &s->cap_rows, s->n_rows, sizeof *g, 8);
    if (!g)
        return -1;
    s->rows = g;
    brow *r = &g[s->n_rows++];
    *r = (brow){strdup(config), tool ? strdup(tool) : NULL, pass ? strdup(pass) : NULL};
    return !r->config || (tool && !r->tool) || (pass && !r->pass) ? -1 : 0;
}

static int state_read(const char *work, bstate *s, pm_err *err)
{
    char path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    memset(s, 0, sizeof *s);
    snprintf(s->work, sizeof s->work, "%s", work);
    snprintf(path, sizeof path, "%s/bisect.state", work);
    int rc = pm_util_read_file(path, &text, &len, err);
    if (rc != PM_OK)
        return pm_err_wrap(err, "bisect --step: the state `passmap bisect` writes");
    for (char *line = text, *next; line && *line && rc == PM_OK; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *f[4] = {line, NULL, NULL, NULL};
        for (int k = 1; k < 4 && f[k - 1]; k++) {
            char *t = strchr(f[k - 1], '\t');
            if (t)
                *t = '\0', f[k] = t + 1;
        }
        if (line[0] == '#' || !f[1])
            continue;
#define STR(name) else if (!strcmp(f[0], #name)) snprintf(s->name, sizeof s->name, "%s", f[1])
        if (!strcmp(f[0], "row")) {
            if (!f[2] || !f[3])
                rc = pm_err_set(err, PM_ERR_PARSE, "%s: a row line has 4 fields", path);
            else if (add_row(s, f[1], strcmp(f[2], "-") ? f[2] : NULL, strcmp(f[3], "-") ? f[3] : NULL))
                rc = nomem(err);
        }
        STR(repo); STR(spec); STR(build); STR(good); STR(level);
        else if (!strcmp(f[0], "repeats")) s->repeats = atoi(f[1]);
        else if (!strcmp(f[0], "max_repeats")) s->max_repeats = atoi(f[1]);
        else if (!strcmp(f[0], "allow_contended")) s->allow_contended = atoi(f[1]);
        else if (!strcmp(f[0], "threshold")) s->threshold = strtod(f[1], NULL);
        else if (!strcmp(f[0], "build_timeout_s")) s->build_timeout_s = strtod(f[1], NULL);
#undef STR
    }
    free(text);
    if (rc == PM_OK && (!s->repo[0] || !s->spec[0] || !s->good[0] || !s->n_rows || s->repeats < 1))
        rc = pm_err_set(err, PM_ERR_PARSE, "%s: incomplete; run `passmap bisect` again", path);
    if (rc != PM_OK)
        bstate_free(s);
    return rc;
}

/* ---- one revision: build, sweep, judge ---- */

static void db_of(const bstate *s, const char *rev, char *out, size_t n)
{
    snprintf(out, n, "%s/%s.db", s->work, rev);
}

/* The user's build command in the tree; *ok: it exited 0 (its output: WORK/build-REV.log). */
static int build_rev(const bstate *s, const char *rev, int *ok, pm_err *err)
{
    char log[PATH_MAX + 96];
    snprintf(log, sizeof log, "%s/build-%s.log", s->work, rev);
    const char *argv[] = {"sh", "-c", s->build, NULL};
    int rc = run_cmd(argv, s->repo, log, log, s->build_timeout_s, s->cancel, ok, err);
    if (rc == PM_OK && s->cancel && *s->cancel)
        rc = pm_err_set(err, PM_ERR_TIMEOUT, "bisect: interrupted during the build of %s", rev);
    return rc;
}

/* Whether the state's regressed rows name this spec config (the bisection compares whole keys); 1 when no rows
 * are known yet (the ends, before their comparison). */
static int regressed_config(const bstate *s, const pm_spec_config *c)
{
    for (size_t i = 0; i < s->n_rows; i++)
        if (!strcmp(s->rows[i].config, c->key))
            return 1;
    return !s->n_rows;
}

/* The spec swept into db with `repeats` cold runs per config (a store already there resumes), only the configs
 * that regressed once they are known; *ok_runs: ok runs recorded now or before this call's plan. */
static int sweep_rev(const bstate *s, const char *db, int repeats, int *ok_runs, pm_err *err)
{
    pm_spec *spec = NULL;
    int rc = pm_spec_load_as(s->spec, NULL, &spec, err);
    if (rc != PM_OK)
        return rc;
    int kept = 0;
    for (int i = 0; i < spec->n_configs; i++) {
        if (regressed_config(s, &spec->configs[i]))
            spec->configs[kept++] = spec->configs[i];
        else
            pm_spec_config_clear(&spec->configs[i]);
    }
    spec->n_configs = kept;
    spec->repeats = spec->min_repeats = spec->max_repeats = repeats;
    spec->repeats_auto = 0;
    /* force: a store left by an earlier bisection of this revision whose build came out other bytes keeps
     * its old runs aside (superseded), never mixed with these */
    pm_sweep_opts so = {.db_path = db, .warm = 0, .force = 1};
    pm_sweep_summary sum;
    rc = pm_sweep_run(spec, &so, &sum, err);
    pm_spec_free(spec);
    *ok_runs = rc == PM_OK ? sum.ok + sum.already_done : 0;
    return rc;
}

/* The stat of a regressed row in a comparison, or NULL when the comparison lacks it. */
static const pm_compare_stat *row_stat(const pm_compare_result *r, const brow *b)
{
    for (size_t i = 0; i < r->n_configs; i++) {
        const pm_compare_config *c = &r->configs[i];
        if (strcmp(c->key, b->config))
            continue;
        if (!b->tool)
            return pm_compare_decider(r, c);
        const pm_compare_row *rows = b->pass ? c->passes : c->steps;
        size_t n = b->pass ? c->n_passes : c->n_steps;
        for (size_t k = 0; k < n; k++)
            if (!pm_util_strcmp_null(rows[k].tool, b->tool) && !pm_util_strcmp_null(rows[k].pass, b->pass))
                return &rows[k].st;
    }
    return NULL;
}

static void row_text(const brow *b, char *out, size_t n)
{
    if (b->pass)
        snprintf(out, n, "%s: pass %s: %s", b->config, b->tool, b->pass);
    else if (b->tool)
        snprintf(out, n, "%s: step %s", b->config, b->tool);
    else
        snprintf(out, n, "%s: compile", b->config);
}

static int compare_dbs(const bstate *s, const char *a, const char *b, pm_compare_result *r, pm_err *err)
{
    /* every pass tested (compare --all-passes): the default family keeps the passes with >= 1% of the compile's
     * wall, which a loaded machine inflates, so a regressed pass could fall out of it at one revision and leave
     * that revision undecided */
    pm_compare_opts co = {.path_a = a, .path_b = b, .threshold = s->threshold,
                          .allow_contended = s->allow_contended, .all_passes = 1, .whole_key = 1};
    return pm_compare_run(&co, r, err);
}

/* *verdict GIT_BAD (a regressed row slower), GIT_GOOD (every one same or faster) or -1 (undecided). */
static int judge(const bstate *s, const char *db, int *verdict, char *line, size_t n, pm_err *err)
{
    char good_db[PATH_MAX + 80];
    db_of(s, s->good, good_db, sizeof good_db);
    pm_compare_result r;
    int rc = compare_dbs(s, good_db, db, &r, err);
    if (rc != PM_OK)
        return rc;
    size_t decided = 0;
    const brow *open = NULL;
    const pm_compare_stat *open_st = NULL;
    *verdict = -1;
    for (size_t i = 0; i < s->n_rows && *verdict != GIT_BAD; i++) {
        const pm_compare_stat *st = row_stat(&r, &s->rows[i]);
        char what[600];
        row_text(&s->rows[i], what, sizeof what);
        if (st && st->verdict == PM_VERDICT_SLOWER) {
            *verdict = GIT_BAD;
            snprintf(line, n, "bad: %s slower than the good end, %.3fx [%.3f, %.3f]", what, st->ratio, st->ci_lo,
                     st->ci_hi);
        } else if (st && (st->verdict == PM_VERDICT_SAME || st->verdict == PM_VERDICT_FASTER)) {
            decided++;
        } else if (!open) {
            open = &s->rows[i];
            open_st = st;
        }
    }
    if (*verdict != GIT_BAD && decided == s->n_rows) {
        *verdict = GIT_GOOD;
        snprintf(line, n, "good: %zu regressed row%s the same as at the good end (or faster)", decided,
                 decided == 1 ? "" : "s");
    } else if (*verdict != GIT_BAD && open) {
        char what[600];
        row_text(open, what, sizeof what);
        snprintf(line, n, "undecided: %s %s", what, open_st ? pm_compare_verdict_name(open_st->verdict) : "missing");
    }
    pm_compare_free(&r);
    return PM_OK;
}

static void log_step(const bstate *s, const char *rev, int status, const char *line)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/steps.log", s->work);
    FILE *f = fopen(path, "a");
    if (!f)
        return;   /* the count in the result is then short; the verdict itself went to git */
    fprintf(f, "%s\t%s\t%s\n", rev, status == GIT_GOOD ? "good" : status == GIT_BAD ? "bad" : "skip", line);
    fclose(f);
}

/* Builds and measures rev into its store until judged or max_repeats; *status as for git. */
static int measure_and_judge(const bstate *s, const char *rev, int *status, char *line, size_t n, pm_err *err)
{
    char db[PATH_MAX + 80];
    db_of(s, rev, db, sizeof db);
    int ok, rc = build_rev(s, rev, &ok, err);
    if (rc != PM_OK)
        return rc;
    if (!ok) {
        *status = GIT_SKIP;
        snprintf(line, n, "skip: the build failed (%s/build-%s.log)", s->work, rev);
        return PM_OK;
    }
    for (int repeats = s->repeats;; repeats = repeats * 2 < s->max_repeats ? repeats * 2 : s->max_repeats) {
        int ok_runs, verdict;
        if ((rc = sweep_rev(s, db, repeats, &ok_runs, err)) != PM_OK)
            return rc;
        if (ok_runs == 0) {
            *status = GIT_SKIP;
            snprintf(line, n, "skip: no run of the spec succeeded (passmap show %s)", db);
            return PM_OK;
        }
        if ((rc = judge(s, db, &verdict, line, n, err)) != PM_OK)
            return rc;
        if (verdict >= 0) {
            *status = verdict;
            return PM_OK;
        }
        if (repeats >= s->max_repeats) {   /* never a guess: git tries another revision */
            *status = GIT_SKIP;
            size_t used = strlen(line);
            snprintf(line + used, n - used, " after %d repeats: skipped", repeats);
            return PM_OK;
        }
    }
}

int pm_bisect_step(const char *work, int *git_status, char *line, size_t n, pm_err *err)
{
    bstate s;
    char rev[64];
    int rc = state_read(work, &s, err);
    if (rc != PM_OK)
        return rc;
    if ((rc = GIT_OR_FAIL(&s, rev, sizeof rev, err, "rev-parse HEAD", "rev-parse", "HEAD")) == PM_OK &&
        (rc = measure_and_judge(&s, rev, git_status, line, n, err)) == PM_OK)
        log_step(&s, rev, *git_status, line);
    bstate_free(&s);
    return rc;
}

/* ---- the whole bisection ---- */

/* The regressed rows of the ends' comparison, at the finest level that has any. */
static int regressed_rows(bstate *s, const pm_compare_result *r)
{
    static const char *const levels[] = {"pass", "step", "config"};
    for (int level = 0; level < 3 && !s->n_rows; level++) {
        for (size_t i = 0; i < r->n_configs; i++) {
            const pm_compare_config *c = &r->configs[i];
            if (level == 2) {
                if (pm_compare_decider(r, c)->verdict == PM_VERDICT_SLOWER && add_row(s, c->key, NULL, NULL))
                    return -1;
                continue;
            }
            const pm_compare_row *rows = level == 0 ? c->passes : c->steps;
            size_t n = level == 0 ? c->n_passes : c->n_steps;
            for (size_t k = 0; k < n; k++)
                if (rows[k].st.verdict == PM_VERDICT_SLOWER && add_row(s, c->key, rows[k].tool, rows[k].pass))
                    return -1;
        }
        snprintf(s->level, sizeof s->level, "%s", levels[level]);
    }
    return 0;
}

/* Checks out rev (detached), builds and sweeps it with `repeats`; the ends must build and run. */
static int measure_end(const pm_bisect_opts *o, const bstate *s, const char *name, const char *rev, int repeats,
                       pm_err *err)
{
    char db[PATH_MAX + 80];
    db_of(s, rev, db, sizeof db);
    int ok, ok_runs, rc = GIT_OR_FAIL(s, NULL, 0, err, "checkout", "checkout", "-q", "--detach", rev);
    if (rc == PM_OK)
        rc = build_rev(s, rev, &ok, err);
    if (rc == PM_OK && !ok)
        rc = pm_err_set(err, PM_ERR_CHILD, "the %s end %s does not build (%s/build-%s.log)", name, rev, s->work, rev);
    if (rc == PM_OK) {
        note(o, "%s end %.12s: built; sweeping %d repeats", name, rev, repeats);
        rc = sweep_rev(s, db, repeats, &ok_runs, err);
    }
    if (rc == PM_OK && !ok_runs)
        rc = pm_err_set(err, PM_ERR_CHILD, "the %s end %s: no run of the spec succeeded (passmap show %s)", name,
                        rev, db);
    return rc;
}

/* The pass that moved most from parent to culprit, among the regressed configs' slower pass rows. */
static int culprit_pass(const bstate *s, const char *parent_db, const char *culprit_db, pm_bisect_result *res,
                        pm_err *err)
{
    pm_compare_result r;
    int rc = compare_dbs(s, parent_db, culprit_db, &r, err);
    if (rc != PM_OK)
        return rc;
    const pm_compare_row *best = NULL;
    for (size_t i = 0; i < r.n_configs; i++)
        for (size_t k = 0; k < r.configs[i].n_passes; k++) {
            const pm_compare_row *p = &r.configs[i].passes[k];
            if (p->st.verdict == PM_VERDICT_SLOWER && (!best || p->st.delta > best->st.delta))
                best = p;
        }
    if (best) {
        res->ratio = best->st.ratio, res->ci_lo = best->st.ci_lo, res->ci_hi = best->st.ci_hi;
        res->delta_s = best->st.delta;
        res->pass_tool = best->tool ? strdup(best->tool) : NULL;
        res->pass_name = best->pass ? strdup(best->pass) : NULL;
        pm_stagemap *map = pm_stagemap_new();
        pm_err ignored = {0};
        const char *stage = map && pm_stagemap_load_default(map, &ignored) == PM_OK
                            ? pm_stagemap_match(map, best->tool, best->pass) : NULL;
        res->stage = stage ? strdup(stage) : NULL;
        pm_stagemap_free(map);
        if ((best->tool && !res->pass_tool) || (best->pass && !res->pass_name))
            rc = nomem(err);
    }
    pm_compare_free(&r);
    return rc;
}

/* The revisions the step judged (WORK/steps.log, a line each) and how many of them it skipped. */
static void count_steps(const bstate *s, pm_bisect_result *res)
{
    char path[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    pm_err ignored = {0};
    snprintf(path, sizeof path, "%s/steps.log", s->work);
    if (pm_util_read_file(path, &text, &len, &ignored) != PM_OK)
        return;
    for (char *p = text; *p; p++)
        res->steps += *p == '\n';
    for (char *p = strstr(text, "\tskip\t"); p; p = strstr(p + 1, "\tskip\t"))
        res->skipped++;
    free(text);
}

/* The state from the options: absolute paths (the step runs in the tree, from git), passmap's own path, the
 * repeats and limits. */
static int setup(const pm_bisect_opts *o, bstate *s, char *self, size_t n, pm_err *err)
{
    char buf[PATH_MAX];
    if (!o->repo || !o->good || !o->bad || !o->build || !o->spec || !o->work)
        return pm_err_set(err, PM_ERR_USAGE, "bisect: the repository, both ends, a build command, a spec and a "
                          "work folder are needed");
    int rc = pm_util_mkdir_p(o->work, err);
    if (rc == PM_OK)
        rc = field_ok(o->build, "build command", err);
    if (rc != PM_OK)
        return rc;
    if (!realpath(o->repo, s->repo) || !realpath(o->work, s->work) || !realpath(o->spec, s->spec))
        return pm_err_set(err, PM_ERR_NOTFOUND, "bisect: %s: %s", !realpath(o->repo, buf) ? o->repo
                          : !realpath(o->work, buf) ? o->work : o->spec, strerror(errno));
    if (o->self_exe) {
        snprintf(self, n, "%s", o->self_exe);
    } else {
        ssize_t k = readlink("/proc/self/exe", self, n - 1);
        if (k <= 0)
            return pm_err_set(err, PM_ERR_IO, "bisect: cannot find passmap itself (/proc/self/exe): %s",
                              strerror(errno));
        self[k] = '\0';
    }
    snprintf(s->build, sizeof s->build, "%s", o->build);
    s->cancel = o->cancel;
    s->repeats = o->repeats > 0 ? o->repeats : 5;
    s->max_repeats = o->max_repeats >= s->repeats ? o->max_repeats : s->repeats > 20 ? s->repeats : 20;
    s->threshold = o->threshold;
    s->allow_contended = o->allow_contended;
    s->build_timeout_s = o->build_timeout_s > 0 ? o->build_timeout_s : 3600;
    return PM_OK;
}

/* The ends, until their comparison shows a regression (s->rows) or max_repeats says there is none to find
 * (res->why). */
static int measure_ends(const pm_bisect_opts *o, bstate *s, const char *good, const char *bad,
                        pm_bisect_result *res, pm_err *err)
{
    char good_db[PATH_MAX + 80], bad_db[PATH_MAX + 80];
    db_of(s, good, good_db, sizeof good_db);
    db_of(s, bad, bad_db, sizeof bad_db);
    for (int repeats = s->repeats;; repeats = repeats * 2 < s->max_repeats ? repeats * 2 : s->max_repeats) {
        pm_compare_result r;
        int rc;
        if ((rc = measure_end(o, s, "good", good, repeats, err)) != PM_OK ||
            (rc = measure_end(o, s, "bad", bad, repeats, err)) != PM_OK ||
            (rc = compare_dbs(s, good_db, bad_db, &r, err)) != PM_OK)
            return rc;
        int bad_rows = regressed_rows(s, &r);
        size_t undecided = r.undecided + r.n_contended;
        pm_compare_free(&r);
        if (bad_rows)
            return nomem(err);
        if (s->n_rows)   /* the good end is every step's reference: its spread bounds every step's interval, so
                          * it gets the most repeats once (a step's own repeats cannot narrow it) */
            return repeats < s->max_repeats ? measure_end(o, s, "good", good, s->max_repeats, err) : PM_OK;
        if (repeats >= s->max_repeats || !undecided) {
            res->why = strdup(undecided ? "the bad end is not slower than the good end by the rule, even at the "
                                          "most repeats (configs undecided or contended): nothing to bisect"
                                        : "the bad end is not slower than the good end by the rule: nothing to "
                                          "bisect");
            return res->why ? PM_OK : nomem(err);
        }
    }
}

/* git bisect run with the step, and what it named (res->culprit, or res->why). */
static int run_bisect(const pm_bisect_opts *o, const bstate *s, const char *self, pm_bisect_result *res,
                      pm_err *err)
{
    char log[PATH_MAX + 32];
    snprintf(log, sizeof log, "%s/bisect-run.log", s->work);
    const char *argv[] = {"git", "-C", s->repo, "bisect", "run", self, "bisect", "--step", s->work, NULL};
    int ok, rc = run_cmd(argv, s->repo, log, log, BISECT_RUN_TIMEOUT_S, o->cancel, &ok, err);
    if (rc != PM_OK)
        return rc;
    if (o->cancel && *o->cancel)
        return pm_err_set(err, PM_ERR_TIMEOUT, "bisect: interrupted; the tree is reset (git bisect reset), the "
                          "stores in %s stay for the next run", s->work);
    char *text = NULL;
    size_t len = 0;
    if ((rc = pm_util_read_file(log, &text, &len, err)) != PM_OK)
        return rc;
    const char *hit = strstr(text, " is the first bad commit");
    if (hit) {
        const char *line = hit;
        while (line > text && line[-1] != '\n')
            line--;
        snprintf(res->culprit, sizeof res->culprit, "%.*s", (int)(hit - line), line);
    } else {
        const char *skip = strstr(text, "only 'skip'ped commits left");
        res->why = strdup(skip ? "only skipped commits left: undecided or unbuildable revisions hide the first bad "
                                 "commit (WORK/steps.log says why each was skipped)"
                               : "git bisect run ended without naming a commit (WORK/bisect-run.log)");
        if (!res->why)
            rc = nomem(err);
    }
    free(text);
    return rc;
}

/* The culprit's subject and the pass that moved most between its parent (judged good, or the good end: its
 * store is in WORK) and it. */
static int describe_culprit(const bstate *s, pm_bisect_result *res, pm_err *err)
{
    char parent[64], subject[512], parent_db[PATH_MAX + 80], culprit_db[PATH_MAX + 80], rev[80];
    db_of(s, res->culprit, culprit_db, sizeof culprit_db);
    snprintf(rev, sizeof rev, "%s^", res->culprit);
    if (git(s, parent, sizeof parent, "rev-parse", "-q", "--verify", "--end-of-options", rev, (const char *)NULL) !=
        PM_OK)
        snprintf(parent, sizeof parent, "%s", s->good);
    db_of(s, parent, parent_db, sizeof parent_db);
    if (access(parent_db, R_OK) != 0)
        db_of(s, s->good, parent_db, sizeof parent_db);
    if (git(s, subject, sizeof subject, "log", "-1", "--format=%s", res->culprit, (const char *)NULL) == PM_OK &&
        !(res->subject = strdup(subject)))
        return nomem(err);
    return culprit_pass(s, parent_db, culprit_db, res, err);
}

int pm_bisect_run(const pm_bisect_opts *o, pm_bisect_result *res, pm_err *err)
{
    memset(res, 0, sizeof *res);
    bstate s = {0};
    char good[64], bad[64], orig[256], self[PATH_MAX] = "", buf[PATH_MAX + 64];
    int started = 0, checked_out = 0;
    int rc = setup(o, &s, self, sizeof self, err);
    if (rc != PM_OK)
        return rc;
    if ((rc = GIT_OR_FAIL(&s, good, sizeof good, err, "rev-parse (good end)", "rev-parse", "--verify", "-q",
                          o->good)) != PM_OK ||
        (rc = GIT_OR_FAIL(&s, bad, sizeof bad, err, "rev-parse (bad end)", "rev-parse", "--verify", "-q",
                          o->bad)) != PM_OK ||
        (rc = GIT_OR_FAIL(&s, buf, sizeof buf, err, "status", "status", "--porcelain", "--untracked-files=no"))
            != PM_OK)
        goto cleanup;
    if (buf[0]) {
        rc = pm_err_set(err, PM_ERR_USAGE, "bisect: %s has changes to tracked files (git status); commit or stash "
                        "them: bisect checks revisions out", s.repo);
        goto cleanup;
    }
    snprintf(s.good, sizeof s.good, "%s", good);
    if (git(&s, orig, sizeof orig, "symbolic-ref", "-q", "--short", "HEAD", (const char *)NULL) != PM_OK &&
        (rc = GIT_OR_FAIL(&s, orig, sizeof orig, err, "rev-parse HEAD", "rev-parse", "HEAD")) != PM_OK)
        goto cleanup;
    checked_out = 1;
    if ((rc = measure_ends(o, &s, good, bad, res, err)) != PM_OK || res->why)
        goto cleanup;
    note(o, "regression between the ends: %zu %s row%s slower; bisecting on %s", s.n_rows, s.level,
         s.n_rows == 1 ? "" : "s", s.level);
    if ((rc = GIT_OR_FAIL(&s, NULL, 0, err, "checkout", "checkout", "-q", orig)) != PM_OK ||
        (rc = state_write(&s, err)) != PM_OK)
        goto cleanup;
    checked_out = 0;
    snprintf(buf, sizeof buf, "%s/steps.log", s.work);
    unlink(buf);
    if ((rc = GIT_OR_FAIL(&s, NULL, 0, err, "bisect start", "bisect", "start", bad, good)) != PM_OK)
        goto cleanup;
    started = 1;
    rc = run_bisect(o, &s, self, res, err);
cleanup:
    if (started)
        git(&s, NULL, 0, "bisect", "reset", (const char *)NULL);
    else if (checked_out)
        git(&s, NULL, 0, "checkout", "-q", orig, (const char *)NULL);
    count_steps(&s, res);
    if (rc == PM_OK && !(res->level = strdup(s.level[0] ? s.level : "-")))
        rc = nomem(err);
    if (rc == PM_OK && res->culprit[0])
        rc = describe_culprit(&s, res, err);
    bstate_free(&s);
    if (rc != PM_OK)
        pm_bisect_result_free(res);
    return rc;
}

void pm_bisect_result_free(pm_bisect_result *r)
{
    if (!r)
        return;
    pm_free_all(r->subject, r->level, r->pass_tool, r->pass_name, r->stage, r->why);
    memset(r, 0, sizeof *r);
}
