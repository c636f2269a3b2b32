#!/usr/bin/env bash
# Back ends are rows that own their data (docs/extending.md, "How to add a back end"):
# - an option of another back end is an error naming the back end, never silently ignored;
# - adding a back end is one file and one row: a scratch back end planted in a copy of the tree (its file in
#   own folder lib/backend/scratch/ and its row in backends.h, nothing else, as test_layers.sh plants violations) builds, is offered
#   by `passmap sweep --backend`, and sweeps: its runs are stored with their pass times, its fit rule with the
#   sweep, and the report reads them; `passmap sweep --help` lists it (the help's list comes from the table), and
#   its own option --scratch-level, from its row (sweep_options), which sweep parses and hands to its set_option;
# - adding a timing-report format is one file and one row too: a scratch format planted in the same copy (its
#   file in lib/parse/ and its line in parse_formats.h) is listed by the --help of parse, import and run, and
#   parses a report.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

# --- options a back end does not accept
printf '[sweep]\nname = emb\n[llm a]\nmodels = qwen2:0.5b\nwindows = 128\nprecisions = int8\n' > emb.ini
out=$("$PASSMAP" sweep --dry-run --device CPU --db emb.db emb.ini 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"--device is not an option of back end embedded (only of openvino)"* ]] \
  && ok "sweep --device with the embedded back end is an error naming it" || fail "sweep --device: rc=$rc $out"
out=$("$PASSMAP" run -n 1 --device NPU -- true 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"--device is not an option of back end command"* ]] \
  && ok "run --device with the command back end is an error naming it" || fail "run --device: rc=$rc $out"
out=$("$PASSMAP" run -n 1 --backend openvino --model m.xml --tool x 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"--tool is not an option of back end openvino (only of command)"* ]] \
  && ok "run --tool with the openvino back end is an error naming it" || fail "run --tool: rc=$rc $out"
check "run without another back end's option still runs" "$PASSMAP" run -n 1 -- true

# --- a scratch back end: one file and one row
tree=$TMP/tree
mkdir -p "$tree/src"
cp "$ROOT/Makefile" "$tree/"
cp -r "$ROOT/lib" "$ROOT/data" "$tree/"
cp -r "$ROOT/src/cli" "$tree/src/cli"
rm -rf "$tree/build"
report=$ROOT/tests/fixtures/mlir/list-single.txt
mkdir -p "$tree/lib/backend/scratch"
cat > "$tree/lib/backend/scratch/scratch.c" <<EOF
/* A scratch back end: [scratch] inputs = A B ... makes one config per input; its one step prints a real MLIR
 * timing report. */
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "spec.h"

static int scratch_parse_spec(pm_spec *s, pm_spec_entries *es, pm_err *err)
{
    for (int i = 0; i < es->n; i++) {
        pm_spec_entry *e = &es->items[i];
        if (strcmp(e->section, "scratch") || strcmp(e->name, "inputs"))
            continue;
        e->used = 1;
        char *list = strdup(e->value), *save = NULL;
        for (char *t = list ? strtok_r(list, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save)) {
            pm_spec_config c = {0};
            char key[64];
            snprintf(key, sizeof key, "scratch/input=%s", t);
            int rc = pm_cfg_set(&c.cfg, key, "scratch", "") || pm_spec_config_param(&c, "input", t, NULL)
                         ? pm_err_set(err, PM_ERR_NOMEM, "out of memory") : pm_spec_add_config(s, &c, err);
            if (rc) {
                free(list);
                return rc;
            }
        }
        free(list);
    }
    return s->n_configs ? PM_OK : pm_err_set(err, PM_ERR_USAGE, "[scratch] inputs: none");
}

static int scratch_steps(pm_backend_ctx *ctx, int config, const char *config_input, const char *run_dir,
                         pm_steps *out, pm_err *err)
{
    pm_step *st;
    if (pm_steps_push(out, &st) || !(st->tool = strdup("mlir-opt")) ||
        !(st->argv = pm_argv_new("/bin/sh", "-c", "cat \"\$0\" >&2", "$report", NULL)))
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    st->report_stream = PM_STREAM_STDERR;
    st->report_format = PM_FMT_AUTO;
    return PM_OK;
}

static const pm_fit_size scratch_fit_sizes[] = {{NULL, NULL, "ir.scratch_bytes"}, {0}};

/* its own option of passmap sweep, which the CLI lists and parses from this row */
static const pm_backend_option scratch_options[] = {{"scratch-level", "N", "the scratch back end's level (1 or 2)"},
                                                    {0}};

static int scratch_set_option(pm_spec *s, const char *name, const char *value, pm_err *err)
{
    return strcmp(value, "1") && strcmp(value, "2") ? pm_err_set(err, PM_ERR_USAGE, "--%s: 1 or 2, not '%s'", name,
                                                                 value) : PM_OK;
}

/* its own doctor check with an option of its own, which passmap doctor runs and lists from this row */
static int scratch_doctor_check(const pm_backend_doctor_ctx *ctx, int *ready, int *asked, pm_err *err)
{
    const char *probe = "none";
    for (int i = 0; i < ctx->n_given; i++)
        if (!strcmp(ctx->names[i], "scratch-probe"))
            probe = ctx->values[i];
    *ready = strcmp(probe, "bad") != 0;
    *asked = ctx->asked;
    if (ctx->json)
        json_object_set_new(ctx->json, "scratch_probe", json_string(probe));
    else
        fprintf(ctx->text, "scratch probe:         %s\n", probe);
    return PM_OK;
}

static const pm_backend_option scratch_doctor_options[] = {{"scratch-probe", "X", "the scratch back end's probe"},
                                                           {0}};
static const pm_backend_doctor scratch_doctor = {.options = scratch_doctor_options,
                                                 .heading = "scratch (backend = scratch only)",
                                                 .check = scratch_doctor_check};

const pm_backend_ops pm_backend_scratch = {
    .name = "scratch",
    .sections = "[scratch]",
    .parse_spec = scratch_parse_spec,
    .steps = scratch_steps,
    .fit_sizes = scratch_fit_sizes,
    .sweep_options = scratch_options,
    .set_option = scratch_set_option,
    .help_heading = "Scratch back end:",
    .doctor = &scratch_doctor,
};
EOF
sed -i 's/^#define PM_BACKEND_ROWS(X) \(.*\)$/#define PM_BACKEND_ROWS(X) \1 X(scratch)/' "$tree/lib/backend/backends.h"
grep -q 'X(command) X(scratch)$' "$tree/lib/backend/backends.h" && ok "the scratch row is planted" || fail "no row planted"
diff -r "$ROOT/lib" "$tree/lib" > changed.txt
[ "$(grep -c '^Only in\|^diff ' changed.txt)" = 2 ] && ok "the copy differs by the back end's file and one row" \
  || { fail "the copy differs by more"; sed 's/^/#   /' changed.txt; }
# a scratch timing-report format in the same copy: "pass NAME SECONDS" lines
cat > "$tree/lib/parse/parse_scratch.c" <<'EOF'
/* A scratch timing-report format: "pass NAME SECONDS" lines. */
#include "parse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_scratch(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    char *text = strndup(buf, len), *save = NULL;
    int rc = text ? PM_OK : PM_ERR_NOMEM;
    for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l && !rc; l = strtok_r(NULL, "\n", &save)) {
        char name[64];
        double s;
        if (sscanf(l, "pass %63s %lf", name, &s) == 2)
            rc = pm_report_add_pass(out, &(pm_pass){.name = name, .wall_s = s, .user_s = -1, .parent = -1});
    }
    out->n_reports++;
    free(text);
    return rc ? pm_err_set(err, rc, "out of memory") : PM_OK;
}

static int sniff_scratch(const char *buf, size_t len)
{
    return len >= 5 && !strncmp(buf, "pass ", 5);
}

const pm_format_row pm_format_scratch_text = {"scratch-text", parse_scratch, sniff_scratch, 0, "scratch", 1e-3, 1};
EOF
echo 'PM_FORMAT(SCRATCH_TEXT, scratch_text)' >> "$tree/lib/parse/parse_formats.h"
diff -r "$ROOT/lib/parse" "$tree/lib/parse" > changed.txt
[ "$(grep -c '^Only in\|^diff ' changed.txt)" = 2 ] && ok "the parse folder differs by the format's file and one row" \
  || { fail "the parse folder differs by more"; sed 's/^/#   /' changed.txt; }
# the copy builds alone (not as part of the caller's make: its own flags, no sanitizer)
check "the copy with the scratch back end and format builds" \
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice make -s -C "$tree" -j2 SAN=0 BUILD=build OPT=-O1 build/passmap
P=$tree/build/passmap
printf '[sweep]\nname = scratch\nbackend = scratch\nrepeats = 2\n[scratch]\ninputs = a b\n' > s.ini
check "the scratch back end sweeps" "$P" sweep --quiet --db s.db s.ini
[ "$(sqlite3 s.db "select count(*) from run where status = 'ok' and mode = 'cold'")" = 4 ] \
  && ok "its 4 cold runs are stored ok" || fail "scratch runs: $(sqlite3 s.db 'select status, count(*) from run group by 1')"
[ "$(sqlite3 s.db "select count(*) > 0 from pass_time")" = 1 ] && ok "with the pass times of its report" \
  || fail "no pass rows"
[[ "$(sqlite3 s.db "select meta_json from sweep")" == *'"fit_sizes":[{"metric":"ir.scratch_bytes","stage":"*","tool":"*"}]'* ]] \
  && ok "its fit rule is recorded with the sweep" || fail "fit_sizes: $(sqlite3 s.db 'select meta_json from sweep')"
check "and the report reads the store" "$P" report s.db
out=$("$P" sweep --dry-run --backend nosuch --db x.db s.ini 2>&1)
[[ "$out" == *"embedded, openvino, command, scratch"* ]] && ok "sweep --backend lists the scratch row" \
  || fail "--backend list: $out"
out=$("$P" sweep --help 2>&1)
[[ "$out" == *"--backend NAME"*"override the spec's back end: embedded, openvino, command, scratch"* ]] \
  && ok "sweep --help lists the scratch row" || fail "sweep --help: $(echo "$out" | grep -A1 -- --backend)"
for c in parse import run; do
  out=$("$P" "$c" --help 2>&1)
  [[ "$(echo "$out" | sed -n '/--format NAME/,/default/p' | tr -s ' \n' ' ')" == *"gcc-text, scratch-text (default"* ]] \
    && ok "$c --help lists the scratch format" || fail "$c --help: $(echo "$out" | grep -A2 -- '--format')"
done
printf 'pass alpha 0.250\npass beta 0.750\n' > r.scratch
out=$("$P" parse --format scratch-text --json r.scratch 2>&1)
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["format"] == "scratch-text" and len(d["passes"]) == 2, d' "$out" \
  && ok "parse --format scratch-text reads its report" || fail "parse scratch: $out"
out=$("$P" sweep --dry-run --device CPU --db s2.db s.ini 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"back end scratch"* ]] && ok "--device with the scratch back end names it" \
  || fail "scratch --device: rc=$rc $out"
# its own option, from its row: listed by sweep --help, parsed, and refused with another back end
out=$("$P" sweep --help 2>&1)
[[ "$out" == *"The scratch back end's options: passmap sweep --backend scratch --help"* ]] \
  && ok "sweep --help points to the scratch row's options" || fail "sweep --help: $out"
out=$("$P" sweep --backend scratch --help 2>&1)
[[ "$out" == *$'Scratch back end:\n  --scratch-level N   the scratch back end\'s level (1 or 2)'* ]] \
  && ok "sweep --backend scratch --help lists its option from the row" || fail "sweep --backend scratch --help: $out"
check "sweep takes --scratch-level for the scratch back end" "$P" sweep --dry-run --scratch-level 2 --db s3.db s.ini
out=$("$P" sweep --dry-run --scratch-level 3 --db s3.db s.ini 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"--scratch-level: 1 or 2, not '3'"* ]] && ok "the row's set_option judges its value" \
  || fail "--scratch-level 3: rc=$rc $out"
out=$("$P" sweep --dry-run --scratch-level 1 --db emb.db emb.ini 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"--scratch-level is not an option of back end embedded (only of scratch)"* ]] \
  && ok "--scratch-level with the embedded back end is an error naming both" || fail "embedded --scratch-level: rc=$rc $out"
# its own doctor check and option, from its row: listed after --backend scratch, run, and failing only when asked
out=$("$P" doctor --help 2>&1)
[[ "$out" == *"The scratch back end's options: passmap doctor --backend scratch --help"* ]] \
  && "$P" doctor --backend scratch --help | grep -q -- '^  --scratch-probe X  *the scratch back end.s probe$' \
  && ok "doctor --backend scratch --help lists its option from the row" || fail "doctor --help: $out"
out=$("$P" doctor --json --scratch-probe seven 2>/dev/null)
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["scratch_probe"] == "seven", d' "$out" \
  && ok "doctor runs the scratch row's check with its option" || fail "doctor --json: $out"
"$P" doctor --scratch-probe bad >/dev/null 2>&1; rc1=$?
"$P" doctor --backend scratch --scratch-probe bad >/dev/null 2>&1; rc2=$?
out=$("$P" doctor --backend scratch --scratch-probe bad 2>&1)
[ $rc2 = 1 ] && [ $rc1 != 1 -o "$(echo "$out" | grep -c FAILED)" != 0 ] && [[ "$out" == *$'scratch (backend = scratch only)\nscratch probe:         bad'* ]] \
  && ok "a back end's failing check fails the doctor when --backend asks for it" || fail "doctor scratch: rc $rc1 $rc2 $out"
finish
