/* The option tables (cli_opts.h): getopt_long's arrays built from a table, and the help printed from it. */
#include "cli_opts.h"
#include "meter.h"
#include "cmds.h"
#include "backend.h"
#include "parse.h"

#include <getopt.h>
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
        if (end == arg || *end || v < o->lo || v > o->hi) {
            fprintf(stderr, "passmap %s: --%s needs an integer from %ld to %ld, not '%s'\n", cmd->name, o->name, o->lo,
                    o->hi, arg);
            return -1;
        }
        *(int *)(void *)field = (int)v;
        return 0;
    }
    case CLI_MODE: {
        int *mode = (int *)(void *)field;
        if (*mode && *mode != o->val) {
            const cli_opt *other = cmd->opts;
            while (other->name && !(other->kind == CLI_MODE && other->off == o->off && other->val == *mode))
                other++;
            fprintf(stderr, "passmap %s: --%s and --%s are two modes: give one\n", cmd->name,
                    other->name ? other->name : "?", o->name);
            return -1;
        }
        *mode = (int)o->val;
        return 0;
    }
    case CLI_FN: return o->parse(cmd, o, arg, field);
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
    }
    return c;
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

int cli_try_help(const cli_cmd *cmd)
{
    fprintf(stderr, "try 'passmap %s --help'\n", cmd->name);
    return PM_EXIT_USAGE;
}
