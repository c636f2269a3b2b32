#include "backend.h"
#include "parse_text.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends.h"
#include "run.h"
#include "util.h"

/* The back-end table, made from the rows of backends.h (adding a back end is its file and a row there). */
#define PM_BACKEND_ROW(name) &pm_backend_##name,
static const pm_backend_ops *const backends[] = {PM_BACKEND_ROWS(PM_BACKEND_ROW)};
#undef PM_BACKEND_ROW
#define N_BACKENDS (sizeof backends / sizeof backends[0])

const pm_backend_ops *pm_backend_find(const char *name)
{
    for (size_t i = 0; name && i < N_BACKENDS; i++)
        if (!strcmp(backends[i]->name, name))
            return backends[i];
    return NULL;
}

const pm_backend_ops *pm_backend_at(size_t i)
{
    return i < N_BACKENDS ? backends[i] : NULL;
}

const char *pm_backend_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < N_BACKENDS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", backends[i]->name);
    return names;
}

const pm_backend_ops *pm_backend_run_default(void)
{
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (backends[i]->run_one == PM_RUN_ONE_CMD)
            return backends[i];
    return NULL;
}

const char *pm_backend_run_names(void)
{
    static char names[256];
    if (names[0])
        return names;
    const pm_backend_ops *offered[N_BACKENDS], *def = pm_backend_run_default();
    size_t n = 0;
    if (def)
        offered[n++] = def;
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (backends[i]->run_one != PM_RUN_ONE_NONE && backends[i] != def)
            offered[n++] = backends[i];
    for (size_t i = 0; i < n; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0 ? "" : i + 1 == n ? " or " : ", ", offered[i]->name);
    return names;
}

static int row_accepts(const pm_backend_ops *be, const char *option)
{
    for (const char *const *o = be->options; o && *o; o++)
        if (!strcmp(*o, option))
            return 1;
    for (const pm_backend_option *o = be->sweep_options; o && o->name; o++)
        if (!strcmp(o->name, option))
            return 1;
    return 0;
}

int pm_backend_option_check(const pm_backend_ops *be, const char *option, pm_err *err)
{
    if (row_accepts(be, option))
        return PM_OK;
    char owners[256] = "";
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (row_accepts(backends[i], option))
            snprintf(owners + strlen(owners), sizeof owners - strlen(owners), "%s%s", owners[0] ? ", " : "",
                     backends[i]->name);
    if (!owners[0])
        return PM_OK;   /* not a back end's option: the command's own */
    return pm_err_set(err, PM_ERR_USAGE, "--%s is not an option of back end %s (only of %s)", option, be->name,
                      owners);
}

int pm_backend_set_option(const pm_backend_ops *be, struct pm_spec *spec, const char *option, const char *value,
                          pm_err *err)
{
    int rc = pm_backend_option_check(be, option, err);
    if (rc)
        return rc;
    if (!be->set_option)
        return pm_err_set(err, PM_ERR_USAGE, "--%s: back end %s takes no sweep options", option, be->name);
    return be->set_option(spec, option, value, err);
}

json_t *pm_backend_fit_sizes_json(const pm_backend_ops *be)
{
    json_t *a = json_array();
    for (const pm_fit_size *r = be->fit_sizes; a && r && r->metric; r++)
        if (json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "tool", r->tool ? r->tool : "*", "stage",
                                               r->stage ? r->stage : "*", "metric", r->metric))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

const pm_fit_size *pm_backend_fit_sizes_of(const char *name)
{
    static const pm_fit_size none[] = {{0}};
    const pm_backend_ops *be = pm_backend_find(name);
    return !be ? NULL : be->fit_sizes ? be->fit_sizes : none;
}

int pm_tool_label(const char *argv0, char *out, size_t cap)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    size_t n = strlen(base);
    /* strip "-22", "-22.1", "22" is kept when the whole name is digits */
    size_t end = n;
    while (end > 0 && (isdigit((unsigned char)base[end - 1]) || base[end - 1] == '.'))
        end--;
    if (end > 1 && end < n && base[end - 1] == '-')
        n = end - 1;
    /* a cut label would pick another tool's stage map */
    return snprintf(out, cap, "%.*s", (int)n, base) < (int)cap ? PM_OK : PM_ERR_USAGE;
}

int pm_split_words(const char *line, char ***words, pm_err *err)
{
    size_t len = strlen(line);
    char *buf = malloc(len + 1);
    char **v = calloc(1, sizeof *v);
    int rc = PM_OK;
    if (!buf || !v) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    const char *p = line;
    for (;;) {
        p = pm_text_skip_blanks(p);
        if (!*p)
            break;
        size_t k = 0;
        while (*p && *p != ' ' && *p != '\t') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q)
                    buf[k++] = *p++;
                if (!*p) {
                    rc = pm_err_set(err, PM_ERR_USAGE, "unterminated %c quote", q);
                    goto cleanup;
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                buf[k++] = p[1];
                p += 2;
            } else {
                buf[k++] = *p++;
            }
        }
        buf[k] = '\0';
        if (pm_argv_push(&v, buf) != PM_OK) {
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
cleanup:
    free(buf);
    if (rc) {
        pm_argv_free(v);
        v = NULL;
    }
    *words = v;
    return rc;
}

static const char *const metric_kinds[PM_SM__COUNT] = {
    [PM_SM_SIZE] = "size", [PM_SM_LINES] = "lines", [PM_SM_COUNT] = "count", [PM_SM_JSON] = "json",
    [PM_SM_MLIR_OPS] = "mlir-ops", [PM_SM_LLVM_INSTS] = "llvm-insts"};

const char *pm_step_metric_kind_name(pm_step_metric_kind k)
{
    return k < PM_SM__COUNT ? metric_kinds[k] : "?";
}

void pm_step_metric_free(pm_step_metric *m)
{
    pm_free_all(m->name, m->source, m->arg);
    memset(m, 0, sizeof *m);
}

int pm_step_metric_parse(const char *text, pm_step_metric *m, pm_err *err)
{
    memset(m, 0, sizeof *m);
    while (isspace((unsigned char)*text))
        text++;
    size_t kl = strcspn(text, " \t");
    int kind = -1;
    for (int k = 0; k < PM_SM__COUNT; k++)
        if (strlen(metric_kinds[k]) == kl && !strncmp(text, metric_kinds[k], kl))
            kind = k;
    if (kind < 0)
        return pm_err_set(err, PM_ERR_USAGE, "unknown metric kind '%.*s' (size, lines, count, json, mlir-ops, llvm-insts)",
                          (int)kl, text);
    const char *src = text + kl;
    while (isspace((unsigned char)*src))
        src++;
    size_t sl = strcspn(src, " \t");
    if (!sl)
        return pm_err_set(err, PM_ERR_USAGE, "metric %s: no file (or stdout/stderr) given", metric_kinds[kind]);
    const char *arg = src + sl;
    while (isspace((unsigned char)*arg))
        arg++;
    int wants_arg = kind == PM_SM_COUNT || kind == PM_SM_JSON;
    if (wants_arg && !*arg)
        return pm_err_set(err, PM_ERR_USAGE, "metric %s: needs %s after the file", metric_kinds[kind],
                          kind == PM_SM_COUNT ? "a regex" : "a JSON path");
    if (!wants_arg && *arg)
        return pm_err_set(err, PM_ERR_USAGE, "metric %s: unexpected '%s' after the file", metric_kinds[kind], arg);
    if (kind == PM_SM_COUNT) {
        regex_t re;
        int e = regcomp(&re, arg, REG_EXTENDED);
        if (e) {
            char msg[128];
            regerror(e, &re, msg, sizeof msg);
            return pm_err_set(err, PM_ERR_USAGE, "metric count: bad regex '%s': %s", arg, msg);
        }
        regfree(&re);
    }
    m->kind = (pm_step_metric_kind)kind;
    m->source = strndup(src, sl);
    m->arg = wants_arg ? strdup(arg) : NULL;
    if (!m->source || (wants_arg && !m->arg)) {
        pm_step_metric_free(m);
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    }
    return PM_OK;
}

/* Line-wise scan of a file; per-kind counting. Stops with -1 past max bytes (a file that grew) or past the
 * deadline (pm_util_now; 0: none), checked every 4096 lines. */
static long count_lines(FILE *f, pm_step_metric_kind kind, const regex_t *re, size_t max, double deadline)
{
    char *line = NULL;
    size_t cap = 0, total = 0;
    long n = 0, lines = 0;
    int in_fn = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) >= 0) {
        total += (size_t)got;
        if (total > max || (deadline > 0 && (++lines & 4095) == 0 && pm_util_now() > deadline)) {
            n = -1;
            break;
        }
        switch (kind) {
        case PM_SM_LINES:
            n++;
            break;
        case PM_SM_COUNT: {
            /* every non-overlapping match, so one-line files (JSON traces) count too */
            line[strcspn(line, "\n")] = '\0';
            regmatch_t mt;
            for (const char *p = line; *p && regexec(re, p, 1, &mt, p == line ? 0 : REG_NOTBOL) == 0;) {
                n++;
                p += mt.rm_eo > 0 ? mt.rm_eo : 1;
            }
            break;
        }
        case PM_SM_LLVM_INSTS:
            /* indented lines inside function bodies: about one per instruction */
            if (!strncmp(line, "define ", 7))
                in_fn = 1;
            else if (line[0] == '}')
                in_fn = 0;
            else if (in_fn && line[0] == ' ' && line[1] == ' ' && line[2] != ';')
                n++;
            break;
        case PM_SM_MLIR_OPS: {
            /* a statement "[%r, ... =] dialect.op" or the generic "\"dialect.op\"" form */
            const char *p = line;
            p = pm_text_skip_blanks(p);
            if (*p == '%' || *p == '^') {
                if (*p == '^')
                    break;
                const char *eq = strstr(p, " = ");
                if (!eq)
                    break;
                p = eq + 3;
            }
            if (*p == '"')
                p++;
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            if (q > p && isalpha((unsigned char)*p) && *q == '.' && (isalpha((unsigned char)q[1]) || q[1] == '_'))
                n++;
            break;
        }
        default:
            break;
        }
    }
    free(line);
    return n;
}

static int json_number_at(const char *path, const char *text, size_t len, const char *dotted, double *value,
                          pm_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je), *cur = root;
    if (!root)
        return pm_err_set(err, PM_ERR_PARSE, "%s: not JSON (%s, line %d)", path, je.text, je.line);
    char *copy = strdup(dotted);
    int rc = PM_OK;
    for (char *save = NULL, *t = copy ? strtok_r(copy, ".", &save) : NULL; t && cur; t = strtok_r(NULL, ".", &save)) {
        char *end;
        long idx = strtol(t, &end, 10);
        cur = json_is_array(cur) && !*end && end != t ? json_array_get(cur, (size_t)idx) : json_object_get(cur, t);
    }
    if (!copy)
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    else if (!json_is_number(cur))
        rc = pm_err_set(err, PM_ERR_NOTFOUND, "%s: no number at %s", path, dotted);
    else
        *value = json_number_value(cur);
    free(copy);
    json_decref(root);
    return rc;
}

int pm_step_metric_eval(const pm_step_metric *m, const char *cwd, const char *stdout_path, const char *stderr_path,
                        double timeout_s, double *value, pm_err *err)
{
    double deadline = timeout_s > 0 ? pm_util_now() + timeout_s : 0;
    char path[4096];
    const char *src = m->source;
    if (!strcmp(src, "stdout"))
        src = stdout_path;
    else if (!strcmp(src, "stderr"))
        src = stderr_path;
    else if (src[0] != '/' && cwd) {
        snprintf(path, sizeof path, "%s/%s", cwd, src);
        src = path;
    }
    if (m->kind == PM_SM_SIZE) {
        struct stat st;
        if (stat(src, &st))
            return pm_err_errno(err, errno == ENOENT ? PM_ERR_NOTFOUND : PM_ERR_IO, "%s", src);
        if (!S_ISREG(st.st_mode)) /* a device's or FIFO's size is no measurement */
            return pm_err_set(err, PM_ERR_IO, "%s is not a regular file", src);
        *value = (double)st.st_size;
        return PM_OK;
    }
    /* The reader reports use: a regular file only (a FIFO would block, /dev/zero never ends), at most
     * PM_PARSE_MAX_BYTES; any failure leaves the metric missing. */
    if (m->kind == PM_SM_JSON) {
        char *buf = NULL;
        size_t len = 0;
        if (access(src, F_OK))
            return pm_err_errno(err, PM_ERR_NOTFOUND, "%s", src);
        int rc = pm_util_read_file_max(src, PM_PARSE_MAX_BYTES, &buf, &len, err);
        if (rc == PM_OK)
            rc = json_number_at(src, buf, len, m->arg, value, err);
        free(buf);
        return rc;
    }
    int fd, rc = pm_util_open_regular(src, PM_PARSE_MAX_BYTES, &fd, err);
    if (rc)
        return rc;
    regex_t re;
    if (m->kind == PM_SM_COUNT && regcomp(&re, m->arg, REG_EXTENDED)) {
        close(fd);
        return pm_err_set(err, PM_ERR_USAGE, "bad regex '%s'", m->arg);
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        rc = pm_err_errno(err, PM_ERR_NOMEM, "%s", src);
        close(fd);
    } else {
        long n = count_lines(f, m->kind, &re, PM_PARSE_MAX_BYTES, deadline);
        if (n < 0)
            rc = pm_err_set(err, PM_ERR_IO, "%s: over %zu bytes or the step's timeout of %.0f s: metric missing", src,
                            PM_PARSE_MAX_BYTES, timeout_s);
        else
            *value = (double)n;
        fclose(f);
    }
    if (m->kind == PM_SM_COUNT)
        regfree(&re);
    return rc;
}

int pm_steps_push(pm_steps *s, pm_step **out)
{
    pm_step *items = realloc(s->items, (size_t)(s->n + 1) * sizeof *items);
    if (!items)
        return PM_ERR_NOMEM;
    s->items = items;
    *out = &items[s->n++];
    memset(*out, 0, sizeof **out);
    return PM_OK;
}

void pm_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int pm_argv_push(char ***argv, const char *arg)
{
    size_t n = 0;
    if (*argv)
        while ((*argv)[n])
            n++;
    char **nv = realloc(*argv, (n + 2) * sizeof *nv);
    if (!nv)
        return PM_ERR_NOMEM;
    *argv = nv;
    nv[n] = strdup(arg);
    nv[n + 1] = NULL;
    return nv[n] ? PM_OK : PM_ERR_NOMEM;
}

char **pm_argv_new(const char *first, ...)
{
    char **argv = calloc(1, sizeof *argv);
    if (!argv)
        return NULL;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *)) {
        if (pm_argv_push(&argv, a) != PM_OK) {
            va_end(ap);
            pm_argv_free(argv);
            return NULL;
        }
    }
    va_end(ap);
    return argv;
}

static int needs_quote(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@", *s))
            return 1;
    return 0;
}

char *pm_argv_join(char *const argv[])
{
    size_t cap = 1;
    for (char *const *a = argv; *a; a++)
        cap += strlen(*a) * 4 + 3;
    char *out = malloc(cap), *p = out;
    if (!out)
        return NULL;
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            *p++ = ' ';
        if (!needs_quote(*a)) {
            p = stpcpy(p, *a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = *a; *c; c++) {
            if (*c == '\'')
                p = stpcpy(p, "'\\''");
            else
                *p++ = *c;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

void pm_steps_free(pm_steps *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        pm_step *st = &s->items[i];
        pm_argv_free(st->argv);
        pm_argv_free(st->plain_argv);
        pm_argv_free(st->more_outputs);
        for (int k = 0; k < st->n_artifacts; k++)
            free(st->artifacts[k]);
        for (int k = 0; k < st->n_metrics; k++)
            pm_step_metric_free(&st->metrics[k]);
        pm_free_all(st->tool, st->cwd, st->output, st->input, st->report_path, st->metrics);
    }
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

int pm_fix_check_start(const pm_fix_check_opts *o, const char *what, struct pm_run_opts *ro, pm_err *err)
{
    ro->cancel = o->cancel;
    ro->on_start = o->on_start;
    ro->on_start_arg = o->on_start_arg;
    if (o->deadline > 0 && pm_util_now() >= o->deadline)
        return pm_err_set(err, PM_ERR_TIMEOUT, "budget: the deadline came before %s", what);
    return PM_OK;
}
