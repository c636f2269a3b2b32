#include "stagemap.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#ifndef PM_DATA_DIR
#define PM_DATA_DIR "data"
#endif

typedef struct rule {
    char *tool, *pattern, *stage;
} rule;

struct pm_stagemap {
    rule *rules;
    size_t n, cap;
    char **stages;      /* distinct, first-seen order */
    char **phases;      /* [n_stages]: each stage's phase (owned), NULL until a rule declares it */
    size_t n_stages, cap_stages;
};

pm_stagemap *pm_stagemap_new(void)
{
    return calloc(1, sizeof(pm_stagemap));
}

void pm_stagemap_free(pm_stagemap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        pm_free_all(m->rules[i].tool, m->rules[i].pattern, m->rules[i].stage);
    for (size_t i = 0; i < m->n_stages; i++)
        pm_free_all(m->stages[i], m->phases[i]);
    pm_free_all(m->rules, m->stages, m->phases, m);
}

/* An installed binary (PREFIX/bin/passmap) keeps its data in PREFIX/share/passmap, wherever PREFIX was
 * moved: found from /proc/self/exe. A binary in the build tree has none there and uses the source tree's. */
static const char *installed_data_dir(void)
{
    static char dir[4096];
    static int tried;
    if (tried)
        return dir[0] ? dir : NULL;
    tried = 1;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || n >= (ssize_t)sizeof exe - 1)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    char cand[4200];
    snprintf(cand, sizeof cand, "%s/../share/passmap", exe);
    struct stat sb;
    if (stat(cand, &sb) != 0 || !S_ISDIR(sb.st_mode) || !realpath(cand, dir)) {
        dir[0] = 0;
        return NULL;
    }
    return dir;
}

const char *pm_data_dir(void)
{
    const char *d = getenv("PASSMAP_DATA_DIR");
    if (d && *d)
        return d;
    const char *inst = installed_data_dir();
    return inst ? inst : PM_DATA_DIR;
}

void pm_data_dir_searched(char *buf, size_t n)
{
    const char *d = getenv("PASSMAP_DATA_DIR");
    if (d && *d)
        snprintf(buf, n, "%s (from $PASSMAP_DATA_DIR)", d);
    else if (installed_data_dir())
        snprintf(buf, n, "%s (next to the binary)", installed_data_dir());
    else   /* both places the binary looked, so a moved build tree says what is missing */
        snprintf(buf, n, "BINDIR/../share/passmap (absent), then %s (the source tree it was built from)",
                 PM_DATA_DIR);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The stage's index (added when new); -1 out of memory. */
static long add_stage(pm_stagemap *m, const char *stage)
{
    for (size_t i = 0; i < m->n_stages; i++)
        if (!strcmp(m->stages[i], stage))
            return (long)i;
    if (m->n_stages == m->cap_stages) {
        size_t cap = m->cap_stages ? m->cap_stages * 2 : 8;
        char **p = realloc(m->stages, cap * sizeof *p);
        if (!p)
            return -1;
        m->stages = p;
        char **q = realloc(m->phases, cap * sizeof *q);
        if (!q)
            return -1;
        m->phases = q;
        m->cap_stages = cap;
    }
    m->phases[m->n_stages] = NULL;
    if (!(m->stages[m->n_stages] = strdup(stage)))
        return -1;
    return (long)m->n_stages++;
}

static int add_rule(pm_stagemap *m, const char *tool, const char *pattern, const char *stage)
{
    rule *p = pm_grow(m->rules, &m->cap, m->n, sizeof *p, 32);
    if (!p)
        return PM_ERR_NOMEM;
    m->rules = p;
    rule *r = &m->rules[m->n];
    r->tool = strdup(tool);
    r->pattern = strdup(pattern);
    r->stage = strdup(stage);
    if (!r->tool || !r->pattern || !r->stage) {
        free(r->tool);
        free(r->pattern);
        free(r->stage);
        return PM_ERR_NOMEM;
    }
    m->n++;
    return add_stage(m, stage) < 0 ? PM_ERR_NOMEM : PM_OK;
}

int pm_stagemap_is_phase(const char *phase)
{
    for (const char *const *p = pm_stage_phases; *p; p++)
        if (!strcmp(*p, phase))
            return 1;
    return 0;
}

/* A rule's phase: its stage's, one phase per stage across every map (the phase split sums stages). */
static int set_phase(pm_stagemap *m, const char *stage, const char *phase, const char *origin, int lineno,
                     pm_err *err)
{
    if (!pm_stagemap_is_phase(phase))
        return pm_err_set(err, PM_ERR_PARSE, "%s:%d: unknown phase '%s' (phases: frontend, optimizer, codegen, "
                          "link, process, other)", origin, lineno, phase);
    long i = add_stage(m, stage);
    if (i < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if (m->phases[i])
        return strcmp(m->phases[i], phase) ? pm_err_set(err, PM_ERR_PARSE, "%s:%d: stage %s is in phase %s "
                                                        "elsewhere, not %s (one phase per stage)", origin, lineno,
                                                        stage, m->phases[i], phase) : PM_OK;
    return (m->phases[i] = strdup(phase)) ? PM_OK : pm_err_set(err, PM_ERR_NOMEM, "out of memory");
}

/* pm_tsv3_each, with an optional fourth field when fourth: f[3] is NULL when absent. */
typedef int (*tsv4_fn)(void *ctx, const char *const f[4], const char *origin, int lineno, pm_err *err);
static int tsv_each(const char *text, const char *origin, const char *expected, int fourth, tsv4_fn fn, void *ctx,
                    pm_err *err)
{
    char *copy = strdup(text);
    if (!copy)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK, lineno = 0;
    char *save = NULL;
    /* a UTF-8 byte order mark (some editors write one) is no part of the first row's tool */
    char *start = strncmp(copy, "\xEF\xBB\xBF", 3) ? copy : copy + 3;
    /* strtok_r would skip empty lines and so miscount: split by hand. */
    for (char *line = start; line && rc == PM_OK; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *t = trim(line);
        if (!*t)
            continue;
        char *f[4] = {0};
        int nf = 0, max = fourth ? 4 : 3;
        char *p = t;
        while (nf < max && p) {
            char *tab = strchr(p, '\t');
            if (tab)
                *tab = 0;
            f[nf++] = trim(p);
            p = tab ? tab + 1 : NULL;
        }
        if (nf < 3 || p || !*f[0] || !*f[1] || !*f[2] || (f[3] && !*f[3]))
            rc = pm_err_set(err, PM_ERR_PARSE, "%s:%d: expected %s", origin, lineno, expected);
        else
            rc = fn(ctx, (const char *const *)f, origin, lineno, err);
    }
    free(copy);
    return rc;
}

typedef struct tsv3_call {
    pm_tsv3_fn fn;
    void *ctx;
} tsv3_call;

static int tsv3_row(void *ctx, const char *const f[4], const char *origin, int lineno, pm_err *err)
{
    const tsv3_call *c = ctx;
    return c->fn(c->ctx, f, origin, lineno, err);
}

int pm_tsv3_each(const char *text, const char *origin, const char *expected, pm_tsv3_fn fn, void *ctx, pm_err *err)
{
    tsv3_call c = {fn, ctx};
    return tsv_each(text, origin, expected, 0, tsv3_row, &c, err);
}

static int stagemap_row(void *ctx, const char *const f[4], const char *origin, int lineno, pm_err *err)
{
    const char *phase = f[3];
    int rc = add_rule(ctx, f[0], f[1], f[2]);
    if (rc)
        return pm_err_set(err, rc, "out of memory");
    return phase ? set_phase(ctx, f[2], phase, origin, lineno, err) : PM_OK;
}

int pm_stagemap_load_text(pm_stagemap *m, const char *text, const char *origin, pm_err *err)
{
    return tsv_each(text, origin, "tool<TAB>pattern<TAB>stage[<TAB>phase]", 1, stagemap_row, m, err);
}

int pm_stagemap_load(pm_stagemap *m, const char *path, pm_err *err)
{
    char *buf;
    size_t len;
    int rc = pm_util_read_file(path, &buf, &len, err);
    if (rc != PM_OK)
        return rc;
    rc = pm_stagemap_load_text(m, buf, path, err);
    free(buf);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pm_stagemap_load_default(pm_stagemap *m, pm_err *err)
{
    const char *dir = pm_data_dir();
    char where[4400];
    DIR *d = opendir(dir);
    if (!d) {   /* every pass would be "other": a confident, wrong study; say where we looked instead */
        int e = errno;
        pm_data_dir_searched(where, sizeof where);
        return pm_err_set(err, PM_ERR_NOTFOUND,
                          "no stage map: cannot open the data folder %s: %s; set PASSMAP_DATA_DIR to passmap's "
                          "data folder or pass --stage-map FILE", where, strerror(e));
    }
    char **names = NULL;   /* every stages-*.tsv: grows, no cap on the number of tools' maps */
    size_t n = 0, cap = 0;
    int rc = PM_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "stages-", 7) || len <= 4 || strcmp(e->d_name + len - 4, ".tsv"))
            continue;
        if (n == cap) {
            char **g = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *g);
            if (!g) {
                rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
                break;
            }
            names = g;
        }
        if (!(names[n++] = strdup(e->d_name))) {
            n--;
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
    }
    closedir(d);
    if (!n && rc == PM_OK) {
        pm_data_dir_searched(where, sizeof where);
        rc = pm_err_set(err, PM_ERR_NOTFOUND,
                        "no stage map (stages-*.tsv) in the data folder %s; set PASSMAP_DATA_DIR to passmap's "
                        "data folder or pass --stage-map FILE", where);
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str); /* deterministic order across file systems */
    for (size_t i = 0; i < n; i++) {
        if (rc == PM_OK) {
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path)
                rc = pm_err_set(err, PM_ERR_USAGE, "data folder path longer than %zu bytes: %.80s...",
                                sizeof path - 1, dir);
            else
                rc = pm_stagemap_load(m, path, err);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

const char *pm_stagemap_match(const pm_stagemap *m, const char *tool, const char *pass)
{
    /* a group's "(self)" row (a trace's time of a span outside its children) is its group's: "SimplifyCFGPass
     * (self)" is SimplifyCFGPass's own time, matched as SimplifyCFGPass (the maps' "*Pass" cannot see it) */
    static const char self[] = " (self)";
    size_t n = strlen(pass), k = sizeof self - 1;
    char stack[256], *heap = NULL;
    const char *name = pass;
    if (n > k && !strcmp(pass + n - k, self)) {
        char *b = n - k < sizeof stack ? stack : (heap = malloc(n - k + 1));
        if (b) {   /* out of memory: the full name, as before */
            memcpy(b, pass, n - k);
            b[n - k] = '\0';
            name = b;
        }
    }
    const char *stage = PM_STAGE_OTHER;
    for (size_t i = 0; i < m->n; i++)
        if (!fnmatch(m->rules[i].tool, tool ? tool : "", 0) && !fnmatch(m->rules[i].pattern, name, 0)) {
            stage = m->rules[i].stage;
            break;
        }
    free(heap);
    return stage;
}

size_t pm_stagemap_rules(const pm_stagemap *m) { return m->n; }
size_t pm_stagemap_n_stages(const pm_stagemap *m) { return m->n_stages; }
const char *pm_stagemap_stage(const pm_stagemap *m, size_t i) { return i < m->n_stages ? m->stages[i] : NULL; }

const char *const pm_stage_phases[] = {"frontend", "optimizer", "codegen", "link", "process", "other", NULL};

const char *pm_stagemap_phase(const pm_stagemap *m, const char *stage)
{
    if (!stage || !strcmp(stage, PM_STAGE_OVERHEAD))
        return "process";   /* the process's time outside every pass: start-up, reading, writing */
    for (size_t i = 0; m && i < m->n_stages; i++)
        if (!strcmp(m->stages[i], stage))
            return m->phases[i] ? m->phases[i] : "other";
    return "other";
}
