/* pm_cache argv models: which tool a command runs and what it reads and writes, from argv alone
 * (the outputs inferred, the options refused, C/C++ dependency mode). */
#include "cache_internal.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------- what the command reads and writes ---------- */

/* Tools whose outputs passmap infers from argv (a version suffix and a target prefix are allowed). */

static int name_is(const char *name, size_t len, const char *want, int allow_prefix)
{
    size_t w = strlen(want);
    if (len == w)
        return !memcmp(name, want, w);
    return allow_prefix && len > w && name[len - w - 1] == '-' && !memcmp(name + len - w, want, w);
}

/* Which tool argv runs; *first: index of its first own argument. */
static tool_kind tool_of(char *const *argv, size_t *first)
{
    const char *slash = strrchr(argv[0], '/');
    const char *name = slash ? slash + 1 : argv[0];
    size_t len = strlen(name);
    *first = 1;
    /* strip version suffixes: gcc-12, clang-22, clang++-22, llc-22.1 */
    for (;;) {
        size_t i = len;
        while (i > 0 && (isdigit((unsigned char)name[i - 1]) || name[i - 1] == '.'))
            i--;
        if (i == len || i == 0 || name[i - 1] != '-')
            break;
        len = i - 1;
    }
    static const char *const cc[] = {"gcc", "g++", "cc", "c++", "clang", "clang++"};
    static const char *const llvm[] = {"llc", "opt", "mlir-opt", "mlir-translate"};
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++)
        if (name_is(name, len, cc[i], 1))
            return TOOL_CC;
    for (size_t i = 0; i < sizeof llvm / sizeof *llvm; i++)
        if (name_is(name, len, llvm[i], 0))
            return TOOL_LLVM;
    if (name_is(name, len, "ov-compile", 0))
        return TOOL_OV;
    if (name_is(name, len, "passmap", 0) && argv[1] && !strcmp(argv[1], "ov-compile")) {
        *first = 2;
        return TOOL_OV;
    }
    return TOOL_OTHER;
}

static void not_cacheable(analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void not_cacheable(analysis *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pm_util_vfirst(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
}

static void add_out(analysis *a, const char *path, int arg)
{
    if (!path)   /* add_name failed and said why (not cacheable) */
        return;
    if (!strcmp(path, "-")) {
        a->stdout_output = 1;
        return;
    }
    if (a->n_out == sizeof a->out / sizeof *a->out) {
        not_cacheable(a, "more than %zu outputs", sizeof a->out / sizeof *a->out);
        return;
    }
    a->out[a->n_out] = path;
    a->out_arg[a->n_out++] = arg;
}

static const char *add_name(analysis *a, const char *dir, const char *file)
{
    if (a->n_names == sizeof a->names / sizeof *a->names) {
        not_cacheable(a, "more than %zu inferred output names", sizeof a->names / sizeof *a->names);
        return NULL;
    }
    char *n = a->names[a->n_names++];
    if (snprintf(n, PATH_MAX, "%s/%s", dir, file) >= PATH_MAX) {   /* a cut path would cache another file */
        not_cacheable(a, "output path longer than %d bytes", PATH_MAX - 1);
        return NULL;
    }
    return n;
}

/* Options after which a separate argument follows that names no output. */
static int cc_takes_arg(const char *o)
{
    static const char *const with_arg[] = {"-MT", "-MQ", "-I", "-D", "-U", "-include", "-imacros", "-isystem",
                                           "-iquote", "-idirafter", "-x", "-Xlinker", "-Xassembler",
                                           "-Xpreprocessor", "-Xclang", "-target", "--target", "-arch",
                                           "-L", "-l", "-aux-info", "-dumpbase", "-dumpdir", NULL};
    for (int i = 0; with_arg[i]; i++)
        if (!strcmp(o, with_arg[i]))
            return 1;
    return 0;
}

static void analyse_cc(char *const *argv, size_t first, analysis *a)
{
    int compile = 0, md = 0, have_o = 0;
    const char *mf = NULL;
    int mf_arg = -1;
    static const char *const side_files[] = {"-save-temps", "-ftime-trace", "-gsplit-dwarf", "-fdump-",
                                             "-fstack-usage", "-fcallgraph-info", "-fopt-info=", "-ftest-coverage",
                                             "--coverage", "-fsave-optimization-record", "-fprofile-arcs",
                                             "-fmodules", "-fmodule-output", "-Wp,-M", NULL};
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-o") || !strcmp(s, "--output")) {
            if (!argv[i + 1])
                break;
            add_out(a, argv[i + 1], (int)i + 1);
            have_o = 1;
            i++;
        } else if (!strncmp(s, "--output=", 9)) {
            add_out(a, s + 9, -1);
            have_o = 1;
        } else if (!strncmp(s, "-o", 2) && strncmp(s, "-objc", 5)) { /* -oF (gcc: -o=F names "=F") */
            add_out(a, s + 2, -1);
            have_o = 1;
        } else if (!strcmp(s, "-c") || !strcmp(s, "-S") || !strcmp(s, "-E")) {
            compile |= s[1] == 'E' ? 2 : 1;
        } else if (!strcmp(s, "-M") || !strcmp(s, "-MM")) {
            not_cacheable(a, "%s writes dependencies instead of compiling", s);
        } else if (!strcmp(s, "-MD") || !strcmp(s, "-MMD")) {
            md = 1;
        } else if (!strcmp(s, "-MF")) {
            if (!argv[i + 1])
                break;
            mf = argv[i + 1];
            mf_arg = (int)i + 1;
            i++;
        } else if (!strncmp(s, "-MF", 3)) {
            mf = s + 3;
        } else if (cc_takes_arg(s)) {
            if (argv[i + 1])
                i++;
        } else if (s[0] == '@') {
            not_cacheable(a, "response file %s (its options are not analysed)", s);
        } else {
            for (int k = 0; side_files[k]; k++)
                if (!strncmp(s, side_files[k], strlen(side_files[k])))
                    not_cacheable(a, "%s writes files that are not inferred", s);
        }
    }
    if (!compile)
        not_cacheable(a, "a link step (no -c, -S or -E): libraries are not in the key");
    if (mf && !md)
        not_cacheable(a, "-MF without -MD/-MMD");
    if (md && !mf)
        not_cacheable(a, "-MD/-MMD without -MF (add -MF FILE)");
    if (mf) {
        add_out(a, mf, mf_arg);
        a->user_depfile = mf;
    }
    if (!have_o) {
        if (compile & 2)
            a->stdout_output = 1; /* -E writes to stdout */
        else
            not_cacheable(a, "no -o (add -o FILE)");
    }
    a->deps = 1;
}

static void analyse_llvm(char *const *argv, size_t first, analysis *a)
{
    const char *slash = strrchr(argv[0], '/');
    int is_llc = !strncmp(slash ? slash + 1 : argv[0], "llc", 3);
    int have_o = 0;
    static const char *const side_files[] = {"time-trace", "stats-file", "save-stats", "remarks-output",
                                             "print-ir-tree-dir", "log-actions-to", "save-temps", NULL};
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-o") || !strcmp(s, "--o") || !strcmp(s, "--output")) {
            if (!argv[i + 1])
                break;
            add_out(a, argv[i + 1], (int)i + 1);
            have_o = 1;
            i++;
        } else if (!strncmp(s, "-o=", 3) || !strncmp(s, "--o=", 4) || !strncmp(s, "--output=", 9)) {
            add_out(a, strchr(s, '=') + 1, -1);
            have_o = 1;
        } else {
            for (int k = 0; side_files[k]; k++)
                if (strstr(s, side_files[k]))
                    not_cacheable(a, "%s writes files that are not inferred", s);
        }
    }
    if (!have_o) {
        if (is_llc)
            not_cacheable(a, "llc without -o names its output after the input (add -o FILE)");
        else
            a->stdout_output = 1; /* opt, mlir-opt, mlir-translate default to stdout */
    }
}

static void analyse_ov(char *const *argv, size_t first, analysis *a)
{
    const char *model = NULL, *weights = NULL, *workdir = ".";
    int do_import = 0, exported = 0;
    for (size_t i = first; argv[i]; i++) {
        const char *s = argv[i], *val = NULL;
        const char *eq = strchr(s, '=');
        size_t nlen = eq ? (size_t)(eq - s) : strlen(s);
#define OPT_IS(name) (nlen == strlen(name) && !strncmp(s, name, nlen))
        int takes = OPT_IS("--model") || OPT_IS("-m") || OPT_IS("--weights") || OPT_IS("--export") ||
                    OPT_IS("--workdir");
        if (takes) {
            if (eq) {
                val = eq + 1;
            } else if (argv[i + 1]) {
                val = argv[++i];
            } else {
                break;
            }
        }
        if (OPT_IS("--model") || OPT_IS("-m"))
            model = val;
        else if (OPT_IS("--weights"))
            weights = val;
        else if (OPT_IS("--workdir"))
            workdir = val;
        else if (OPT_IS("--export")) {
            add_out(a, val, eq ? -1 : (int)i);
            exported = 1;
        } else if (OPT_IS("--import"))
            do_import = 1;
        else if (OPT_IS("--schedule-trace"))
            add_out(a, add_name(a, workdir, "compileTimeScheduleTrace.json"), -1);
        else if (OPT_IS("--strategy-out"))
            add_out(a, add_name(a, workdir, "strategy_out.json"), -1);
#undef OPT_IS
    }
    if (do_import && !exported)
        add_out(a, add_name(a, workdir, "model.blob"), -1);
    if (!a->n_out)
        not_cacheable(a, "ov-compile without --export or --import exports no blob");
    /* the weights are an input: --weights, else the .bin beside the .xml */
    size_t ml = model ? strlen(model) : 0;
    if (!weights && ml > 4 && !strcmp(model + ml - 4, ".xml")) {
        char *bin = a->names[sizeof a->names / sizeof *a->names - 1];
        if (snprintf(bin, PATH_MAX, "%.*s.bin", (int)(ml - 4), model) >= PATH_MAX)
            not_cacheable(a, "weights path longer than %d bytes", PATH_MAX - 1);
        else if (!access(bin, F_OK))
            a->extra_input = bin;
    }
}

/* Fills a from argv: inferred outputs, extra inputs, dependency mode, or why the command is not cacheable. */
void pc_analyse(const pm_cache_request *req, analysis *a)
{
    memset(a, 0, sizeof *a);
    size_t first;
    a->tool = tool_of(req->argv, &first);
    if (a->tool == TOOL_CC)
        analyse_cc(req->argv, first, a);
    else if (a->tool == TOOL_LLVM)
        analyse_llvm(req->argv, first, a);
    else if (a->tool == TOOL_OV)
        analyse_ov(req->argv, first, a);
    for (size_t i = 0; i < a->n_out; i++)
        if (!a->out[i] || !a->out[i][0])
            not_cacheable(a, "an empty output name");
    if (!a->n_out && !a->stdout_output && !pc_count_list(req->outputs))
        not_cacheable(a, "no output declared (--output) or inferred");
}

/* w is x, or ends in it (-oFILE, --output=FILE name the file too) */
static int names(const char *w, const char *x)
{
    size_t nw = strlen(w), nx = x ? strlen(x) : 0;
    return nx && nw >= nx && !strcmp(w + nw - nx, x);
}

static int in_list(const char *const *l, const char *s)
{
    for (; l && *l; l++)
        if (names(s, *l))
            return 1;
    return 0;
}

int pm_cache_why_uncacheable(const pm_cache_request *req, const char *run_dir, char *why, size_t cap)
{
    analysis *a = calloc(1, sizeof *a);
    if (!a || !req->argv || !req->argv[0]) {
        free(a);
        return 0; /* nothing to say: exec reports it */
    }
    pc_analyse(req, a);
    int no = a->why[0] != 0;
    if (no)
        snprintf(why, cap, "%s", a->why);
    size_t n_dir = run_dir ? strlen(run_dir) : 0;
    for (size_t i = 1; !no && n_dir && req->argv[i]; i++) {
        const char *w = req->argv[i], *at = strstr(w, run_dir);
        /* the folder itself, not a longer name (warm-r0 in warm-r01) */
        int longer = at && (isalnum((unsigned char)at[n_dir]) || strchr("._-", at[n_dir]) != NULL) && at[n_dir];
        if (!at || longer || in_list(req->inputs, w) || in_list(req->outputs, w))
            continue;
        int inferred = 0;
        for (size_t k = 0; k < a->n_out && !inferred; k++)
            inferred = names(w, a->out[k]);
        if (!inferred) {
            no = 1;
            snprintf(why, cap, "argument '%.200s' names the run folder, which is new for every run", w);
        }
    }
    free(a);
    return no;
}
