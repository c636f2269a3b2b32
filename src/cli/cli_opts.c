/* The option tables (cli_opts.h): getopt_long's arrays built from a table, and the help printed from it. */
#include "cli_opts.h"
#include "meter.h"
#include "cmds.h"
#include "contention.h"
#include "backend.h"
#include "parse.h"
#include "run.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HELP_COL = 22 };   /* where an option's help starts: "  -o, --output FILE   text" */

/* The key getopt returns for row i: its own, or for a bound row without one, one past every char. */
static int cli_key(const cli_opt *o, size_t i)
{
    return o->key ? o->key : 256 + (int)i;
}

int cli_getopt(const cli_cmd *cmd, int argc, char **argv)
{
    /* built once per command: a process parses one command line (two for cache's wrapper), so the arrays live
     * as long as the process */
    static const cli_cmd *built;
    static struct option *lo;
    static char *so;
    if (built != cmd) {
        size_t n = 0;
        while (cmd->opts && cmd->opts[n].name)
            n++;
        free(lo);
        free(so);
        lo = calloc(n + 2, sizeof *lo);
        so = malloc(strlen(cmd->flags ? cmd->flags : "") + 2 + 2 * n + 1);
        if (!lo || !so) {
            fprintf(stderr, "passmap %s: out of memory parsing the options\n", cmd->name);
            built = NULL;
            return '?';
        }
        size_t k = (size_t)snprintf(so, 3 + strlen(cmd->flags ? cmd->flags : ""), "%sh", cmd->flags ? cmd->flags : "");
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const cli_opt *o = &cmd->opts[i];
            if (!*o->name)   /* a heading */
                continue;
            lo[m++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, cli_key(o, i)};
            if (o->short_too) {
                so[k++] = (char)o->key;
                if (o->arg)
                    so[k++] = ':';
            }
        }
        so[k] = '\0';
        lo[m] = (struct option){"help", no_argument, NULL, CLI_HELP};
        built = cmd;
    }
    return getopt_long(argc, argv, so, lo, NULL);
}

/* A bound row's argument into its field; 0, or -1 having said why. */
static int cli_bind(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *into)
{
    char *field = (char *)into + o->off;
    switch (o->kind) {
    case CLI_SET: *(int *)(void *)field = (int)o->val; return 0;
    case CLI_STR: *(const char **)(void *)field = arg; return 0;
    case CLI_INT: {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < o->lo || v > o->hi)
            return cli_refuse(cmd, "--%s needs an integer from %ld to %ld, not '%s'", o->name, o->lo, o->hi, arg);
        *(int *)(void *)field = (int)v;
        return 0;
    }
    case CLI_MODE: {
        int *mode = (int *)(void *)field;
        if (*mode && *mode != o->val) {
            const cli_opt *other = cmd->opts;
            while (other->name && !(other->kind == CLI_MODE && other->off == o->off && other->val == *mode))
                other++;
            return cli_refuse(cmd, "--%s and --%s are two modes: give one", other->name ? other->name : "?", o->name);
        }
        *mode = (int)o->val;
        return 0;
    }
    case CLI_FN: return o->parse(cmd, o, arg, field);
    case CLI_LIST: {
        cli_list *l = (cli_list *)(void *)field;
        const char **bigger = realloc(l->v, (l->n + 2) * sizeof *bigger);
        if (!bigger)
            return cli_refuse(cmd, "out of memory for --%s", o->name);
        l->v = bigger;
        l->v[l->n++] = arg;
        l->v[l->n] = NULL;
        return 0;
    }
    default: return 0;
    }
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, void *into)
{
    int c;
    while ((c = cli_getopt(cmd, argc, argv)) != -1 && c != CLI_HELP && c != '?') {
        size_t i = 0;
        while (cmd->opts[i].name && (!*cmd->opts[i].name || cli_key(&cmd->opts[i], i) != c))
            i++;
        const cli_opt *o = &cmd->opts[i];
        if (!o->name || o->kind == CLI_KEY)
            return c;
        if (cli_bind(cmd, o, optarg, into))
            return CLI_BAD;
        if (cmd->seen)
            cmd->seen(into, o);
    }
    return c;
}

int cli_parse_args(const cli_cmd *cmd, int argc, char **argv, void *into, const char *const *backend)
{
    optind = 1;
    if (cmd->own_words)
        opterr = 0;
    int c = cli_parse(cmd, argc, argv, into);
    if (c == -1)
        return CLI_GO;
    if (c == CLI_HELP) {
        cli_usage_for(stdout, cmd, backend ? *backend : NULL);
        return PM_EXIT_OK;
    }
    if (c == CLI_BAD)
        return cli_try_help(cmd);
    if (cmd->own_words)
        fprintf(stderr, "passmap %s: unknown or incomplete option: %s\n", cmd->name, argv[optind - 1]);
    return cli_try_help(cmd);
}

int cli_one_db(const cli_cmd *cmd, int argc)
{
    if (optind == argc - 1)
        return CLI_GO;
    fprintf(stderr, "passmap %s: expected one database file (try 'passmap %s --help')\n", cmd->name, cmd->name);
    return PM_EXIT_USAGE;
}

const cli_opt *cli_with_backend_rows(const cli_opt *own,
                                     const pm_backend_option *(*options_of)(const pm_backend_ops *be),
                                     const char *(*heading_of)(const pm_backend_ops *be), size_t off,
                                     int (*parse)(const cli_cmd *, const cli_opt *, const char *, void *))
{
    size_t n = 0, k = 0;
    while (own[n].name)
        n++;
    size_t cap = n + 1;
    for (size_t b = 0; pm_backend_at(b); b++)
        for (const pm_backend_option *o = options_of(pm_backend_at(b)); o && o->name; o++)
            cap += 2;
    cli_opt *all = calloc(cap, sizeof *all);
    if (!all)
        return NULL;
    for (; k < n; k++)
        all[k] = own[k];
    for (size_t b = 0; pm_backend_at(b); b++) {
        const pm_backend_ops *be = pm_backend_at(b);
        const pm_backend_option *first = options_of(be);
        for (const pm_backend_option *o = first; o && o->name; o++) {
            if (o == first)
                all[k++] = (cli_opt){"", 0, 0, be->name,
                                     heading_of             ? heading_of(be)
                                         : be->help_heading ? be->help_heading
                                                            : be->name};
            all[k++] =
                (cli_opt){o->name, 0, 0, o->arg, o->help, .kind = CLI_FN, .off = off, .parse = parse, .lo = (long)b};
        }
    }
    return all;
}

int cli_given_add(const cli_cmd *cmd, cli_given *g, const char *name, const char *arg)
{
    if (g->n == (int)(sizeof g->names / sizeof g->names[0]))
        return cli_refuse(cmd, "more than %d back-end options given", g->n);
    g->names[g->n] = name;
    g->values[g->n++] = arg ? arg : "1";
    return 0;
}

void cli_contended_notes(FILE *out)
{
    char rule[512];
    pm_contention_rule_text(rule, sizeof rule, 0);
    fprintf(out, "Contended runs: %s.\n", rule);
}

void cli_list_free(cli_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int cli_refuse(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "passmap %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

int cli_duration(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    return pm_run_parse_duration(arg, field, &err) ? cli_refuse(cmd, "--%s: %s", o->name, err.msg) : 0;
}

int cli_positive_duration(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_err err = {0};
    if (pm_run_parse_duration(arg, field, &err) || !(*(double *)field > 0))
        return cli_refuse(cmd, "--%s: '%s' is not a positive duration (e.g. 90s, 20m, 1h)", o->name, arg);
    return 0;
}

int cli_choice(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    size_t n = strlen(arg);
    for (const char *p = o->choices; n && (p = strstr(p, arg)); p += n)
        if ((p == o->choices || p[-1] == ' ') && (!p[n] || p[n] == ',')) {
            *(const char **)field = arg;
            return 0;
        }
    return cli_refuse(cmd, "--%s is one of %s, not '%s'", o->name, o->choices, arg);
}

int cli_positive_int(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v <= 0 || v > INT_MAX)
        return cli_refuse(cmd, "--%s needs a positive integer, not '%s'", o->name, arg);
    *(int *)field = (int)v;
    return 0;
}

int cli_threshold(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if (cli_parse_threshold(arg, field))
        return cli_refuse(cmd, "--%s needs a fraction or percentage in (0, 100%%), e.g. 2%%: %s", o->name, arg);
    return 0;
}

int cli_format(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    pm_format f = strcmp(arg, "auto") ? pm_format_from_name(arg) : PM_FMT_AUTO;
    if (f == PM_FMT__COUNT)
        return cli_refuse(cmd, "--%s: unknown format '%s'", o->name, arg);
    *(pm_format *)field = f;
    return 0;
}

int cli_backend_name(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if (!pm_backend_find(arg))
        return cli_refuse(cmd, "--%s is one of %s, not '%s'", o->name, pm_backend_names(), arg);
    *(const char **)field = arg;
    return 0;
}

int cli_meter_name(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    if (strcmp(arg, "auto") && !pm_meter_find(arg))
        return cli_refuse(cmd, "--%s is one of %s, not '%s'", o->name, pm_meter_names(), arg);
    *(const char **)field = arg;
    return 0;
}

/* The lists a help names in braces, each computed from its table: the timing-report formats the short lists name
 * (parse_formats.h, pm_format_listed: llvm-json only when asked for by name), every back end (PM_BACKEND_ROWS),
 * the back ends `passmap run` offers (its default first, "(default)" after it). Each ", "-separated, malloc'd,
 * NULL out of memory. */
static char *list_formats(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int n = 0;
    for (int i = PM_FMT_AUTO + 1; i < PM_FMT__COUNT; i++)
        if (pm_format_listed((pm_format)i))
            fprintf(f, "%s%s", n++ ? ", " : "", pm_format_name((pm_format)i));
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *list_backends(void)
{
    return strdup(pm_backend_names());
}

static char *list_run_backends(void)
{
    const pm_backend_ops *def = pm_backend_run_default();
    const char *names = pm_backend_run_names();   /* the default first */
    char *buf = NULL;
    if (!def)
        return strdup(names);
    return asprintf(&buf, "%s (default)%s", def->name, names + strlen(def->name)) < 0 ? NULL : buf;
}

static char *list_meters(void)
{
    return strdup(pm_meter_names());
}

static const struct {
    const char *name;
    char *(*make)(void);
} LISTS[] = {{"{formats}", list_formats}, {"{backends}", list_backends}, {"{run-backends}", list_run_backends},
             {"{meters}", list_meters}};

enum { LIST_WIDTH = 110 };   /* a computed list wraps after a comma rather than pass this column */

/* A computed list at column col: its ", "-separated names, wrapped under the help column. Returns the column. */
static int put_list(FILE *out, const char *list, int col)
{
    for (const char *p = list; *p;) {
        const char *sep = strstr(p, ", ");
        int len = sep ? (int)(sep - p) + 1 : (int)strlen(p);   /* a name with its comma */
        if (p != list && col + 1 + len > LIST_WIDTH) {
            fputc('\n', out);
            col = fprintf(out, "%*s", HELP_COL, "");
        } else if (p != list) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, (size_t)len, out);
        col += len;
        p += len + (sep ? 1 : 0);
    }
    return col;
}

/* "  -o, --output FILE" padded to the help column (two spaces after a longer one), then the help, each line of
 * it after the first under the column, a list's name in braces replaced by the list. */
static void put_opt(FILE *out, const char *spec, const char *help)
{
    int w = fprintf(out, "  %s", spec), col = w;
    for (; col < HELP_COL || col < w + 2; col++)
        fputc(' ', out);
    for (const char *p = help; *p; p++) {
        size_t k = 0;
        while (*p == '{' && k < sizeof LISTS / sizeof LISTS[0] && strncmp(p, LISTS[k].name, strlen(LISTS[k].name)))
            k++;
        if (*p == '\n') {
            fputc('\n', out);
            col = fprintf(out, "%*s", HELP_COL, "");
        } else if (*p == '{' && k < sizeof LISTS / sizeof LISTS[0]) {
            char *list = LISTS[k].make();
            col = put_list(out, list ? list : "(out of memory listing them)", col);
            free(list);
            p += strlen(LISTS[k].name) - 1;
        } else {
            fputc(*p, out);
            col++;
        }
    }
    fputc('\n', out);
}

void cli_usage(FILE *out, const cli_cmd *cmd)
{
    cli_usage_for(out, cmd, NULL);
}

void cli_usage_for(FILE *out, const cli_cmd *cmd, const char *backend)
{
    /* the synopsis: a continued line under its first word, another form of the command ("passmap ...") under
     * the first "passmap" */
    int indent = (int)strlen("usage: passmap  ") + (int)strlen(cmd->name);
    fprintf(out, "usage: passmap %s ", cmd->name);
    for (const char *p = cmd->synopsis; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%*s", strncmp(p + 1, "passmap ", 8) ? indent : (int)strlen("usage: "), "");
    }
    fputc('\n', out);
    if (cmd->about)
        fprintf(out, "%s\n", cmd->about);
    fputs("\noptions:\n", out);
    int listed = 1;   /* 0: in a back end's section that is not listed */
    for (const cli_opt *o = cmd->opts; o && o->name; o++) {
        char spec[128];
        if (!o->help)   /* a hidden alias */
            continue;
        if (!*o->name) {
            listed = !o->arg || getenv("PASSMAP_HELP_ALL") || (backend && !strcmp(backend, o->arg));
            if (listed)
                fprintf(out, "%s\n", o->help);
            else
                fprintf(out, "The %s back end's options: passmap %s --backend %s --help\n", o->arg, cmd->name, o->arg);
            continue;
        }
        if (!listed)
            continue;
        if (o->short_too)
            snprintf(spec, sizeof spec, "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(spec, sizeof spec, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        put_opt(out, spec, o->help);
    }
    put_opt(out, "-h, --help", "this help");
    if (cmd->notes)
        fprintf(out, "%s\n", cmd->notes);
    if (cmd->notes_fn)
        cmd->notes_fn(out);
    fprintf(out, "exit status: %s\nmore: man passmap-%s\n",
            cmd->exit_status ? cmd->exit_status : "0 ok, 1 the work failed, 2 bad usage", cmd->name);
}

int cli_usage_error(const cli_cmd *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "passmap %s: %s%s%s\n", cmd->name, msg, arg ? ": " : "", arg ? arg : "");
    return cli_try_help(cmd);
}

int cli_try_help(const cli_cmd *cmd)
{
    fprintf(stderr, "try 'passmap %s --help'\n", cmd->name);
    return PM_EXIT_USAGE;
}
