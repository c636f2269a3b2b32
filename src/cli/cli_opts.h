/* One option table per subcommand, read by its parser and by its --help (as git's parse-options and
 * usage_with_options), so the help lists exactly what the parser takes and every help has one shape: usage,
 * what it does, options, -h, --help, notes, exit status, man page. scripts/help2man.py writes the man pages
 * from that help. */
#ifndef PM_CLI_OPTS_H
#define PM_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

struct cli_cmd;
struct pm_backend_ops;
struct pm_backend_option;

typedef struct cli_opt {
    const char *name;     /* the long option without "--"; NULL ends the table; "": a heading (help) over the
                             options that follow, no option */
    int key;              /* what cli_getopt returns for it */
    int short_too;        /* 1: -KEY is taken as well (key is then a letter) */
    const char *arg;      /* the argument's name in the help ("FILE"); NULL: a flag. On a heading: NULL, or the
                             name of the back end whose options follow it (to the next heading), which --help
                             lists only after --backend NAME (cli_usage_for), else in one line saying how */
    const char *help;     /* '\n' continues it on a line of its own, in the help column. "{formats}",
                             "{backends}", "{run-backends}" and "{meters}" stand for a table's rows, listed when the help is
                             printed (cli_opts.c), so a new row shows in --help and its man page with no edit here */
                          /* NULL: a hidden alias (an old spelling kept for a release), parsed but not listed; the
                             command's notes name it */
    /* What cli_parse does with it, as git's OPT_* rows bind their variable: the rows below write into the
     * command's own option struct (the `into` of cli_parse) at off. CLI_KEY (0): nothing, cli_parse returns the
     * key to the caller's switch (options whose meaning is more than a value). A bound row needs no key: 0 is
     * given one of its own. */
    int kind;
    size_t off;               /* offsetof(the command's struct, its field) */
    long val, lo, hi;         /* CLI_SET, CLI_MODE: the value set; CLI_INT: the range */
    /* CLI_FN: parses arg into field; 0, or -1 having said why on stderr ("passmap CMD: ...") */
    int (*parse)(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
    const char *choices;      /* CLI_BIND_CHOICE: the words taken, ", "-separated */
} cli_opt;

enum {
    CLI_KEY = 0,   /* returned to the caller */
    CLI_SET,       /* int field = val (a flag: 1; its negation: 0) */
    CLI_STR,       /* const char * field = the argument */
    CLI_INT,       /* int field = the argument, an integer from lo to hi */
    CLI_MODE,      /* int field = val: one of the command's modes (git's OPT_CMDMODE); two different ones in
                      one command line are an error naming both */
    CLI_FN,        /* parse(cmd, row, argument, field) */
    CLI_LIST,      /* cli_list field: the argument appended (a repeated option) */
};

/* A repeated option's arguments in order, NULL-terminated (v NULL: none given); cli_list_free frees v. */
typedef struct cli_list {
    const char **v;
    size_t n;
} cli_list;
void cli_list_free(cli_list *l);

/* The bindings, appended to a row: {"db", 'd', 0, "FILE", "help", CLI_BIND_STR(report_cli, db)}. A row names
 * what it uses; the rest stays zero (hence the warning about fields left out is off for the option tables). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define CLI_BIND_FLAG(T, f) .kind = CLI_SET, .off = offsetof(T, f), .val = 1
#define CLI_BIND_UNSET(T, f) .kind = CLI_SET, .off = offsetof(T, f), .val = 0
#define CLI_BIND_STR(T, f) .kind = CLI_STR, .off = offsetof(T, f)
#define CLI_BIND_INT(T, f, min, max) .kind = CLI_INT, .off = offsetof(T, f), .lo = (min), .hi = (max)
#define CLI_BIND_MODE(T, f, v) .kind = CLI_MODE, .off = offsetof(T, f), .val = (v)
#define CLI_BIND_FN(T, f, fn) .kind = CLI_FN, .off = offsetof(T, f), .parse = (fn)
#define CLI_BIND_LIST(T, f) .kind = CLI_LIST, .off = offsetof(T, f)
#define CLI_BIND_CHOICE(T, f, words) .kind = CLI_FN, .off = offsetof(T, f), .parse = cli_choice, .choices = (words)

/* A parser's refusal: "passmap CMD: " and the text on stderr; returns -1 (cli_parse_args adds the hint). */
__attribute__((format(printf, 2, 3))) int cli_refuse(const struct cli_cmd *cmd, const char *fmt, ...);
/* Parsers for CLI_BIND_FN shared by the commands, each saying a refusal as "passmap CMD: --OPT ...". */
/* const char * field: one of the row's choices */
int cli_choice(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* int field: an integer >= 1 */
int cli_positive_int(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* double field: --threshold's "2%" or "0.02", in (0, 1) (cli_parse_threshold) */
int cli_threshold(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* const char * field: auto or a meter row's name */
int cli_meter_name(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* double field: a duration (30, 2.5s, 500ms, 5m, 1h); cli_positive_duration: also > 0 */
int cli_duration(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
int cli_positive_duration(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* pm_format field: auto or a timing-report format row's name */
int cli_format(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);
/* const char * field: a back end row's name */
int cli_backend_name(const struct cli_cmd *cmd, const struct cli_opt *o, const char *arg, void *field);

typedef struct cli_cmd {
    const char *name;         /* "report": the help's "passmap report", the man page passmap-report */
    const char *synopsis;     /* after "usage: passmap NAME "; '\n' continues it under itself */
    const char *about;        /* what it does, between usage and options; NULL: nothing */
    const cli_opt *opts;      /* without -h, --help, which every command has (cli_getopt returns CLI_HELP) */
    const char *notes;        /* after the options (environment, defaults, examples); NULL: none */
    void (*notes_fn)(FILE *out);   /* notes computed at run time (the data folder in use); NULL: none */
    const char *exit_status;  /* NULL: "0 ok, 1 the work failed, 2 bad usage" */
    const char *flags;        /* getopt's leading flags: "+" stops at the first operand (run, cache); NULL: "" */
    void (*seen)(void *into, const cli_opt *o);   /* cli_parse: told of each option given, once bound; NULL */
    int own_words;            /* 1: getopt is quiet and a bad option is said "passmap NAME: unknown or incomplete
                                 option: ARG" before the hint */
} cli_cmd;

#define CLI_HELP 'h'
#define CLI_BAD (-2)   /* cli_parse: a bound option's value was refused (said on stderr) */

/* getopt_long over cmd's table plus -h, --help. Returns the option's key, CLI_HELP, '?' for a bad option
 * (getopt said why) and -1 at the end, like getopt_long; optind and optarg as there. */
int cli_getopt(const cli_cmd *cmd, int argc, char **argv);
/* cli_getopt with the bound rows done: each writes into `into` (the command's option struct) and the next option
 * is read; returns the key of an unbound row, CLI_HELP, '?', CLI_BAD or -1 (the end). */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, void *into);
enum { CLI_GO = -1 };
/* A command's whole option parse (optind from 1), every row bound into `into`: CLI_GO when the command goes on
 * to its operands at optind, else its exit status: 0 the help printed (with the options of back end *backend
 * when backend is given and *backend set by then), 2 a bad option or value (said, then the hint). */
int cli_parse_args(const cli_cmd *cmd, int argc, char **argv, void *into, const char *const *backend);
/* After cli_parse_args: CLI_GO when one operand (a database file) is left, else says so and returns 2. */
int cli_one_db(const cli_cmd *cmd, int argc);
/* A command's table made of its own rows and the back-end rows' options of one of its sections: own (ending with
 * {0}), then for each back end whose options_of lists any, a heading (arg: its name, so --help lists them only
 * after --backend NAME; help: heading_of, NULL: the row's help_heading, else its name) and a row per option, bound to parse at off (lo: the back end's
 * index, pm_backend_at). NULL out of memory. Made once per process (one command line), never freed. */
const cli_opt *cli_with_backend_rows(const cli_opt *own,
                                     const struct pm_backend_option *(*options_of)(const struct pm_backend_ops *be),
                                     const char *(*heading_of)(const struct pm_backend_ops *be), size_t off,
                                     int (*parse)(const struct cli_cmd *, const cli_opt *, const char *, void *));
/* The back ends' options given on a command line, in order, for their rows (names without dashes; a flag "1"). */
typedef struct cli_given {
    const char *names[32], *values[32];
    int n;
} cli_given;
/* Appends --NAME ARG to g (ARG NULL: "1"); 0, or -1 having said that too many were given. */
int cli_given_add(const struct cli_cmd *cmd, cli_given *g, const char *name, const char *arg);
/* notes_fn of the commands that judge runs: the contention rule, from its own function. */
void cli_contended_notes(FILE *out);
/* The help in its one shape. */
void cli_usage(FILE *out, const cli_cmd *cmd);
/* The same with the options of back end `backend` listed in full (NULL: none; PASSMAP_HELP_ALL set in the
 * environment: every back end's, as scripts/help2man.py asks for the man pages). */
void cli_usage_for(FILE *out, const cli_cmd *cmd, const char *backend);
/* A usage error: "passmap NAME: MSG[: ARG]", then the hint. Returns PM_EXIT_USAGE. */
int cli_usage_error(const cli_cmd *cmd, const char *msg, const char *arg);
/* The one line after a usage error: "try 'passmap NAME --help'". Returns PM_EXIT_USAGE. */
int cli_try_help(const cli_cmd *cmd);

#endif
