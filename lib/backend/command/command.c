/* The `command` back end: any compiler, described in the spec.
 *
 *   [matrix NAME]          any number; each is its own cartesian product of its axes
 *   input = src/<glob>.c       an axis whose values are files: globs relative to the spec file, sorted
 *   opt = 0, 1, 2, 3       any other axis: a list
 *   [step NAME]            steps run in file order (steps.h for the keys)
 *   [fix NAME]             any number: a compile variant for `passmap fix` (keys below)
 *   [check]                argv: the command that says whether a fix computes what stock computes
 *   [run]                  argv: runs what the steps built (timed: the program side of passmap fix's ledger);
 *                          size = PATH (optional): the file whose size is the output's size
 *
 * [fix NAME] keys: step = NAME[, NAME] (the steps it changes; default every step); argv_add = WORDS (appended),
 * argv_drop = WORDS (each removed where it is a word of the step's argv template, before substitution; a word
 * the step does not have is an error), or argv = WORDS (the whole argv replaced; not with add/drop); the same
 * {placeholders} as [step]. variant = TOKEN (default NAME; "a+b" joins fixes). The rule, read by passmap fix in
 * the catalogue's words (data/fixes-embedded.tsv): regime, pass, superlinear, size, why (default: always).
 * [check] argv = WORDS, with {out} (the fix's build folder), {stock_out} (stock's) and every [step]
 * placeholder; exit 0 means the outputs are the same. [run] argv and size take the [step] placeholders ({out}: the
 * folder the check built the variant in); [run] must exit 0. A study's configs run stock (a `variant` axis stays a
 * label); variants apply only in the A/B sweep passmap fix writes.
 *
 * A config's key names every axis: "c/input=a.c/opt=2" (a file's name relative to its glob's fixed folder).
 * {axis} stands for the value (a file axis: its absolute path); {out} for the run folder, {bindir} for
 * [sweep] bindir (else the newest LLVM), {spec_dir} for the spec's folder. */
#include "backend.h"
#include "backends.h"

#include <stdlib.h>
#include <string.h>

#include "command_internal.h"
#include "util.h"

static int command_parse_spec(pm_spec *s, pm_spec_entries *es, pm_err *err)
{
    cmd_spec *cs = NULL;
    int rc = pm_command_spec_read(s, es, &cs, err);
    if (rc || (rc = pm_command_fixes_read(cs, es, err)))
        return rc;
    if (cs->run_size && !cs->run)
        return pm_err_set(err, PM_ERR_USAGE, "[run] size without [run] argv: say how the program runs");
    pm_command_note_bindir(cs);
    return PM_OK;
}

static int command_prepare(pm_backend_ctx *ctx, pm_err *err)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    cmd_state *st = calloc(1, sizeof *st);
    if (!st)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    ctx->state = st;
    if (!pm_command_find_bindir(ctx->spec, st->bindir, sizeof st->bindir) && cs->uses_bindir)
        return pm_err_set(err, PM_ERR_NOTFOUND, "{bindir}: no [sweep] bindir, no $PASSMAP_LLVM_BINDIR, no /usr/lib/llvm-N/bin");
    return PM_OK;
}

static int command_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir,
                         pm_steps *out, pm_err *err)
{
    (void)config_input;
    const cmd_spec *cs = ctx->spec->backend_data;
    const pm_spec_config *c = &ctx->spec->configs[config];
    lookup_ctx l = {.spec = ctx->spec, .c = c, .st = ctx->state, .run_dir = run_dir};
    /* A study's variant axis is a label; the rounds passmap fix writes apply the fixes their variants name. */
    return pm_command_expand_variant(cs, cs->fix_round ? c->variant : "", pm_command_lookup, &l, run_dir, out, err);
}

/* Start-up: each step's null_argv ({out} is the start-up folder); a tool without one is not measured. */
static int command_null_steps(pm_backend_ctx *ctx, const char *dir, pm_steps *out, char **not_measured, pm_err *err)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    pm_spec_config none;
    memset(&none, 0, sizeof none);
    lookup_ctx l = {.spec = ctx->spec, .c = &none, .st = ctx->state, .run_dir = dir};
    return pm_step_tmpls_expand_null(&cs->steps, pm_command_lookup, &l, dir, out, not_measured, err);
}

static void command_describe(pm_backend_ctx *ctx, json_t *meta)
{
    const cmd_spec *cs = ctx->spec->backend_data;
    json_t *steps = json_array();
    for (int i = 0; i < cs->steps.n; i++) {
        char *argv = pm_argv_join(cs->steps.items[i].argv);
        json_array_append_new(steps, json_pack("{s:s, s:s}", "name", cs->steps.items[i].name, "argv", argv ? argv : ""));
        free(argv);
    }
    json_object_set_new(meta, "steps", steps);
    json_object_set_new(meta, "compiler", json_string("command"));
    const cmd_state *st = ctx->state;
    if (cs->uses_bindir && st)
        json_object_set_new(meta, "bindir", json_string(st->bindir));
}

static void command_cleanup(pm_backend_ctx *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
}

/* passmap run --db records the command's runs as a sweep would (--config, --sweep name them; --report,
 * --format, --tool say where its timing report is and how to read it). */
static const char *const command_options[] = {"db", "config", "sweep", "report", "format", "tool", NULL};

/* A spec's steps declare their sizes: a stage's own (ir.stage.NAME), else the first declared; LLVM IR for the
 * LLVM tools a spec may drive. */
static const pm_fit_size command_fit_sizes[] = {
    {"llc", NULL, "ir.llvm_ops"}, {"mlir-translate", NULL, "ir.llvm_ops"}, {NULL, NULL, "ir.stage.{stage}"},
    {NULL, NULL, "ir.*"}, {0}};

const pm_backend_ops pm_backend_command = {
    .name = "command",
    .run_one = PM_RUN_ONE_CMD,
    .sections = "[matrix NAME], [step NAME], [fix NAME], [check], [run]",
    .parse_spec = command_parse_spec,
    .prepare = command_prepare,
    .steps = command_steps,
    .null_steps = command_null_steps,
    .describe = command_describe,
    .cleanup = command_cleanup,
    .fix = &pm_command_fix_ops,
    .options = command_options,
    .fit_sizes = command_fit_sizes,
};
