/* One option table per subcommand, read by its parser and by its --help (as git's parse-options and
 * usage_with_options), so the help lists exactly what the parser takes and every help has one shape: usage,
 * what it does, options, -h, --help, notes, exit status, man page. scripts/help2man.py writes the man pages
 * from that help. */
#ifndef PM_CLI_OPTS_H
#define PM_CLI_OPTS_H

#include <stdio.h>

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
} cli_opt;

typedef struct cli_cmd {
    const char *name;         /* "report": the help's "passmap report", the man page passmap-report */
    const char *synopsis;     /* after "usage: passmap NAME "; '\n' continues it under itself */
    const char *about;        /* what it does, between usage and options; NULL: nothing */
    const cli_opt *opts;      /* without -h, --help, which every command has (cli_getopt returns CLI_HELP) */
    const char *notes;        /* after the options (environment, defaults, examples); NULL: none */
    void (*notes_fn)(FILE *out);   /* notes computed at run time (the data folder in use); NULL: none */
    const char *exit_status;  /* NULL: "0 ok, 1 the work failed, 2 bad usage" */
    const char *flags;        /* getopt's leading flags: "+" stops at the first operand (run, cache); NULL: "" */
} cli_cmd;

#define CLI_HELP 'h'

/* getopt_long over cmd's table plus -h, --help. Returns the option's key, CLI_HELP, '?' for a bad option
 * (getopt said why) and -1 at the end, like getopt_long; optind and optarg as there. */
int cli_getopt(const cli_cmd *cmd, int argc, char **argv);
/* The help in its one shape. */
void cli_usage(FILE *out, const cli_cmd *cmd);
/* The same with the options of back end `backend` listed in full (NULL: none; PASSMAP_HELP_ALL set in the
 * environment: every back end's, as scripts/help2man.py asks for the man pages). */
void cli_usage_for(FILE *out, const cli_cmd *cmd, const char *backend);
/* The one line after a usage error: "try 'passmap NAME --help'". Returns PM_EXIT_USAGE. */
int cli_try_help(const cli_cmd *cmd);

#endif
