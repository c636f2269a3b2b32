#!/usr/bin/env bash
# A report section, a timing-report format and a figure are each one file (or function) plus one row
# (docs/extending.md, "how to add"). Planted in one copy of the tree and built once:
# - a scratch section (its own file lib/output/sec_scratch.c and one line in lib/output/report_sections.h)
#   shows in the text report, Markdown, the HTML report and its contents list, and JSON, each time at its row's
#   place (after noise, before parallelism: the one order all formats follow); its data of its own is one
#   sub-structure of pm_analysis (lib/study/analysis.h), filled and freed by lib/study/analysis_scratch.c, and
#   one line in lib/study/analysis_sections.h (the driver and pm_analysis_free unchanged);
# - a scratch timing-report format (lib/parse/parse_scratch.c and one line in lib/parse/parse_formats.h) is
#   sniffed by `parse`, named by --format, imported with its row's default tool and named in the help lists;
# - a scratch figure (its draw function and one row in lib/output/figures.c) is drawn by --figures and shown in
#   the HTML report;
# - a scratch workload kind, toy (its own file lib/workload/gen_toy.c: its generator and its row, and one X(toy)
#   in lib/workload/kind_rows.h) is listed and emitted by `passmap gen`, expands its [toy NAME] section in a spec
#   that the embedded back end sweeps on the real compiler, and the report reads its configs by its row;
# - a scratch meter (lib/run/meter_scratch.c and one X(scratch) in lib/run/meter_rows.h) is taken by --meter and
#   [sweep] meter, measures `passmap run`, is listed by --help and asked by doctor.
# Nothing else in the copy's lib/ and src/ differs from the tree's.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data

# the copy keeps the sources' times and the built objects (when there are any), so make rebuilds what the
# new row touches
mkdir -p "$TMP/tree"
(cd "$ROOT" && tar cf - Makefile lib src data $( [ -d build ] && echo --exclude=build/san --exclude=build/tests \
   --exclude=build/fuzz build)) | (cd "$TMP/tree" && tar xf -)
cat > "$TMP/tree/lib/output/sec_scratch.c" <<'C'
#include "report.h"

static int scratch_text(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    fprintf(f, "\nscratch section: %zu configs\n", x->a->n_configs);
    fprintf(f, "scratch data: %zu stages, last %s\n", x->a->scratch.n, x->a->scratch.n ? x->a->scratch.stages[x->a->scratch.n - 1] : "-");
    return PM_OK;
}

static int scratch_html(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    (void)err;
    fprintf(f, "<h2 id=scratch>Scratch</h2><p>scratch section: %zu configs</p>\n", x->a->n_configs);
    return PM_OK;
}

static int scratch_json(const pm_report_ctx *x, json_t *root)
{
    json_object_set_new(root, "scratch", json_integer((json_int_t)x->a->n_configs));
    json_object_set_new(root, "scratch_stages", json_integer((json_int_t)x->a->scratch.n));
    return PM_OK;
}

const pm_report_section pm_section_scratch = {.id = "scratch", .toc = "Scratch", .text = scratch_text,
                                              .html = scratch_html, .json = scratch_json};
C
sed -i 's/^PM_REPORT_SECTION(noise)$/&\nPM_REPORT_SECTION(scratch)/' "$TMP/tree/lib/output/report_sections.h"
check "the row is planted" grep -qx 'PM_REPORT_SECTION(scratch)' "$TMP/tree/lib/output/report_sections.h"
# its data: a sub-structure (copies of the stage names, so its free has something to free), its analysis file, a row
python3 - "$TMP/tree/lib/study/analysis.h" <<'PY' || fail "could not plant the scratch sub-structure"
import sys
p = sys.argv[1]
s = open(p).read()
assert "typedef struct pm_analysis {" in s and "} pm_analysis;" in s
s = s.replace("typedef struct pm_analysis {",
              "typedef struct pm_an_scratch { char **stages; size_t n; } pm_an_scratch;\n\ntypedef struct pm_analysis {", 1)
s = s.replace("} pm_analysis;", "    pm_an_scratch scratch;\n} pm_analysis;", 1)
open(p, "w").write(s)
PY
cat > "$TMP/tree/lib/study/analysis_scratch.c" <<'C'
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

int an_scratch(an_work *w, pm_err *err)
{
    pm_analysis *a = w->a;
    if (a->n_stages && !(a->scratch.stages = calloc(a->n_stages, sizeof *a->scratch.stages)))
        return an_nomem(err);
    for (; a->scratch.n < a->n_stages; a->scratch.n++)
        if (!(a->scratch.stages[a->scratch.n] = strdup(a->stages[a->scratch.n])))
            return an_nomem(err);
    return PM_OK;
}

void an_scratch_free(pm_analysis *a)
{
    for (size_t i = 0; i < a->scratch.n; i++)
        free(a->scratch.stages[i]);
    free(a->scratch.stages);
}
C
echo 'AN_SECTION(scratch)' >> "$TMP/tree/lib/study/analysis_sections.h"
check "the analysis row is planted" grep -qx 'AN_SECTION(scratch)' "$TMP/tree/lib/study/analysis_sections.h"

# a timing-report format: "SCRATCH-TIMING" then "NAME SECONDS" lines
cat > "$TMP/tree/lib/parse/parse_scratch.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"

static int scratch_parse(const char *buf, size_t len, pm_report *out, pm_err *err)
{
    const char *p = buf, *end = buf + len;
    out->n_reports = 1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char line[256], name[200];
        double s;
        if (n < sizeof line) {
            memcpy(line, p, n);
            line[n] = '\0';
            if (sscanf(line, "%199s %lf", name, &s) == 2) {
                pm_pass q = {.name = name, .wall_s = s, .user_s = -1, .parent = -1};
                if (pm_report_add_pass(out, &q))
                    return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            }
        }
        p += n + 1;
    }
    return PM_OK;
}

static int scratch_sniff(const char *buf, size_t len)
{
    return len >= 14 && memcmp(buf, "SCRATCH-TIMING", 14) == 0;
}

const pm_format_row pm_format_scratch_text = {"scratch-text", scratch_parse, scratch_sniff, 20, "scratchcc",
                                              1e-3, 1};
C
echo 'PM_FORMAT(SCRATCH_TEXT, scratch_text)' >> "$TMP/tree/lib/parse/parse_formats.h"
check "the format row is planted" grep -qx 'PM_FORMAT(SCRATCH_TEXT, scratch_text)' "$TMP/tree/lib/parse/parse_formats.h"

# a figure: its draw function and one row, after the fingerprint
cat > "$TMP/draw_scratch.c" <<'C'
static int draw_scratch(const fig_ctx *x, const char *name, char **body)
{
    (void)x;
    (void)name;
    *body = strdup("plot x title 'scratch'\n");
    return *body ? 0 : -1;
}

static int finding_scratch(const pm_analysis *a, const char *name, pm_sbuf *b)
{
    (void)name;
    pm_sbuf_add(b, "The scratch figure covers %zu configs.", a->n_configs);
    return 0;
}

C
python3 - "$TMP/tree/lib/output/figures.c" "$TMP/draw_scratch.c" <<'PY' || fail "could not plant the figure row"
import sys
p, draw = sys.argv[1], open(sys.argv[2]).read()
s = open(p).read()
anchor = "/* The figures: one row each"
row = '    {"fingerprint", "Family fingerprint", fig_fingerprint, fig_size_bars, "no configs with cold runs",\n     fig_finding_fingerprint},\n'
assert anchor in s and row in s
s = s.replace(anchor, draw + anchor, 1)
s = s.replace(row, row + '    {"scratch-fig", "Scratch figure", draw_scratch, NULL, "no scratch data", finding_scratch},\n', 1)
open(p, "w").write(s)
PY
check "the figure row is planted" grep -q '"scratch-fig", "Scratch figure"' "$TMP/tree/lib/output/figures.c"
# a workload kind: its file (generator and row) and one X(toy) in kind_rows.h
cat > "$TMP/tree/lib/workload/gen_toy.c" <<'C'
/* A scratch workload kind, toy: a chain of LAYERS square matmuls of WINDOW x WINDOW, one family ("tiny"). */
#include <stdio.h>
#include <string.h>

#include "kinds.h"

static const char *const toy_families[] = {"tiny", NULL};
static const char *const *families(void) { return toy_families; }

static int emit(const pm_workload *w, FILE *out, pm_gen_info *info, pm_err *err)
{
    if (!w->family || strcmp(w->family, "tiny") || w->window < 1 || w->layers < 1)
        return pm_err_set(err, PM_ERR_USAGE, "toy: family tiny, a window and layers >= 1");
    int n = w->window;
    fprintf(out, "module {\n  func.func @forward(%%x: tensor<%dx%dxf32>, %%w: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
            "    %%zero = arith.constant 0.0 : f32\n", n, n, n, n, n, n);
    for (int l = 0; l < w->layers; l++) {
        char in[16];
        snprintf(in, sizeof in, l ? "%%y%d" : "%%x", l - 1);
        fprintf(out, "    %%e%d = tensor.empty() : tensor<%dx%dxf32>\n"
                "    %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
                "    %%y%d = linalg.matmul ins(%s, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) "
                "outs(%%f%d : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n",
                l, n, n, l, l, n, n, n, n, l, in, n, n, n, n, l, n, n, n, n);
    }
    fprintf(out, "    return %%y%d : tensor<%dx%dxf32>\n  }\n}\n", w->layers - 1, n, n);
    if (info)
        *info = (pm_gen_info){.params = (int64_t)n * n, .weight_bytes = 4 * (int64_t)n * n, .layers_total = w->layers,
                              .layers_emitted = w->layers, .linalg_ops = 2 * w->layers, .functions = 1};
    return ferror(out) ? pm_err_set(err, PM_ERR_IO, "writing the MLIR module") : PM_OK;
}

static double grow(const pm_workload *w, int tile)
{
    (void)w;
    (void)tile;
    return 1;
}

static char *section(const pm_workload *w, const char *name, int size_cap, int depth_cap)
{
    char *s = NULL;
    return asprintf(&s, "[toy %s]\nfamilies = %s\nwindows = %d\nlayers = %d\n", name, w->family,
                    pm_kind_capped(w->window, size_cap), pm_kind_capped(w->layers, depth_cap)) < 0 ? NULL : s;
}

/* [toy NAME] families, windows, layers: a config per family and window. */
static int expand(const pm_kind_reader *r, pm_err *err)
{
    char fwhat[192], wwhat[192];
    int nf, nw, layers, rc;
    const char *const *fams = r->list(r->user, "families", &nf, fwhat, sizeof fwhat);
    const char *const *windows = r->list(r->user, "windows", &nw, wwhat, sizeof wwhat);
    if (nf < 0 || nw < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = r->number(r->user, "layers", 1, 100, 1, &layers, err)))
        return rc;
    if (!nf || !nw)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] needs families and windows", r->section);
    if ((rc = r->check_size(r->user, (long long)nf * nw, err)))
        return rc;
    for (int f = 0; f < nf; f++) {
        if (!pm_kind_in_list(fams[f], toy_families))
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown toy family '%s' (tiny)", fwhat, fams[f]);
        for (int i = 0; i < nw; i++) {
            int window;
            if ((rc = pm_kind_parse_int(windows[i], 1, 64, &window, err, wwhat)))
                return rc;
            pm_workload wl = {.family = fams[f], .window = window, .layers = layers};
            char stem[128];
            snprintf(stem, sizeof stem, "toy/%s/w%d/L%d", fams[f], window, layers);
            if ((rc = r->add(r->user, &wl, stem, err)))
                return rc;
        }
    }
    return PM_OK;
}

const pm_kind pm_kind_toy = {
    .name = "toy", .label = "Toy", .key_legend = "toy/FAMILY/wWINDOW/LLAYERS/VARIANT",
    .handoff_x = "wall", .series = "family", .bars = "family,window", .figure = "fingerprint",
    .regime_rows = "family", .regime_cols = "window", .slice = "layers", .rows_label = "toy family",
    .cols_label = "window", .regime_figure = "regime-map",
    .axes = "family,window,layers", .depth_axis = "layers", .emit = emit, .grow = grow, .spec_section = section,
    .size_axis = "window", .families = families,
    .section_keys = "families,windows,layers,variants", .expand = expand,
};
C
sed -i 's/^#define PM_KIND_ROWS(X) \(.*\)$/#define PM_KIND_ROWS(X) \1 X(toy)/' "$TMP/tree/lib/workload/kind_rows.h"
check "the kind row is planted" grep -q '^#define PM_KIND_ROWS(X) .* X(toy)$' "$TMP/tree/lib/workload/kind_rows.h"
# a meter: its file (the runner as it is, plus a count of its own) and one X(scratch) in meter_rows.h
cat > "$TMP/tree/lib/run/meter_scratch.c" <<'C'
#include "meter.h"

static int scratch_exec(const char *const argv[], const pm_run_opts *opts, const char *scratch, pm_run_result *res,
                        pm_err *err)
{
    (void)scratch;
    int rc = pm_run_exec(argv, opts, res, err);
    res->instructions = 4242;
    return rc;
}

const pm_meter pm_meter_scratch = {.name = "scratch", .about = "scratch meter: a constant count", .counts = 1,
                                   .slowdown_guess = 1, .exec = scratch_exec};
C
sed -i 's/^#define PM_METER_ROWS(X) .*/& X(scratch)/' "$TMP/tree/lib/run/meter_rows.h"
check "the meter row is planted" grep -q '^#define PM_METER_ROWS(X) .* X(scratch)$' "$TMP/tree/lib/run/meter_rows.h"
# what the rows touched: their files and one line each, nothing else in lib/ or src/
(cd "$TMP/tree" && for d in lib src; do diff -rq "$ROOT/$d" "$d"; done) > "$TMP/changed.txt"
sed -e 's|^Only in \(.*\): |new \1/|' -e 's|^Files .* and \(.*\) differ$|row \1|' "$TMP/changed.txt" \
  | sort > "$TMP/changed.sorted"
printf '%s\n' "new lib/output/sec_scratch.c" "new lib/parse/parse_scratch.c" "new lib/workload/gen_toy.c" \
  "new lib/study/analysis_scratch.c" "row lib/study/analysis.h" "row lib/study/analysis_sections.h" \
  "row lib/output/figures.c" "row lib/output/report_sections.h" "row lib/parse/parse_formats.h" \
  "row lib/workload/kind_rows.h" "new lib/run/meter_scratch.c" "row lib/run/meter_rows.h" | sort > "$TMP/changed.want"
check "the copy differs by the rows' files and their rows only" diff "$TMP/changed.want" "$TMP/changed.sorted"
for f in lib/output/report_sections.h lib/parse/parse_formats.h lib/workload/kind_rows.h lib/run/meter_rows.h; do
  [ "$(diff "$ROOT/$f" "$TMP/tree/$f" | grep -c '^[<>]')" -le 2 ] && ok "$f: one line" \
    || { fail "$f: more than one line changed"; diff "$ROOT/$f" "$TMP/tree/$f" | sed 's/^/#   /'; }
done

# its own build: not the caller's (make SAN=1 check passes SAN and BUILD down through MAKEFLAGS)
check "the copy with the scratch rows builds" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice -n 10 make -C "$TMP/tree" -j2 SAN=0 BUILD=build build/passmap
P=$TMP/tree/build/passmap

DB=$TMP/e2e.db
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 "$DB"
# where a line sits: its number, or 0
at() { grep -n -m1 -- "$1" "$2" | cut -d: -f1 | grep . || echo 0; }
in_order() { # FILE PATTERN...: each pattern found, each after the one before
  local f=$1 prev=0 n; shift
  for p in "$@"; do n=$(at "$p" "$f"); [ "$n" -gt "$prev" ] || return 1; prev=$n; done
}

COLUMNS=200 "$P" report "$DB" > "$TMP/r.txt" 2>&1
check "text: the scratch section, between noise and parallelism" \
  in_order "$TMP/r.txt" '^noise: ' '^scratch section: 16 configs$' '^parallelism$'
check "text: the scratch section reads its own data" grep -qx 'scratch data: 13 stages, last process-overhead' "$TMP/r.txt"
"$P" report --markdown "$DB" > "$TMP/r.md" 2>&1
check "Markdown: the scratch section at its place" \
  in_order "$TMP/r.md" '^noise: ' '^scratch section: 16 configs$' '^## parallelism$'
"$P" report --json "$DB" > "$TMP/r.json" 2>&1
check "JSON: the scratch key, between noise's keys and parallelism" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = list(d)
assert d["scratch"] == 16, d.get("scratch")
assert d["scratch_stages"] == len(d["stages"]) == 13, (d.get("scratch_stages"), d["stages"])
assert keys.index("startup") < keys.index("scratch") < keys.index("parallelism"), keys' "$TMP/r.json"
if command -v gnuplot >/dev/null 2>&1; then
  "$P" report "$DB" --html "$TMP/r.html" > "$TMP/html.log" 2>&1
  check "HTML: the scratch section between noise and parallelism" \
    in_order "$TMP/r.html" '<h2 id=noise>' '<h2 id=scratch>Scratch</h2><p>scratch section: 16 configs</p>' '<h2 id=parallelism>'
  check "HTML: the contents list names it at its place" \
    grep -q '<li><a href="#noise">Noise</a></li><li><a href="#scratch">Scratch</a></li><li><a href="#parallelism">' "$TMP/r.html"

  check "--figures draws the scratch figure" bash -c '"$1" report "$2" --figures "$3" > "$3.log" 2>&1; [ -s "$3/scratch-fig.svg" ]' \
    _ "$P" "$DB" "$TMP/figs"
  check "HTML: the scratch figure is shown" grep -q 'Scratch figure' "$TMP/r.html"
  check "HTML: with its finding under the title" grep -q '<p class=finding>The scratch figure covers [0-9]* configs.</p>' "$TMP/r.html"
else
  ok "# SKIP HTML: no gnuplot"
fi
# the format: sniffed, named, imported with its default tool, listed
printf 'SCRATCH-TIMING\nalpha 0.250\nbeta 0.125\n' > "$TMP/t.scratch"
out=$("$P" parse "$TMP/t.scratch" 2>&1)
check "parse sniffs the scratch format and reads its passes" \
  bash -c '[[ "$1" == *alpha* && "$1" == *beta* && "$1" == *scratch-text* ]]' _ "$out"
check "parse --format scratch-text names the row" "$P" parse --format scratch-text "$TMP/t.scratch"
"$P" import --db "$TMP/imp.db" "$TMP/t.scratch" > "$TMP/imp.log" 2>&1
check "import records the row's default tool" \
  bash -c '[ "$(sqlite3 "$1" "SELECT count(*) FROM step WHERE tool = '"'scratchcc'"'")" = 1 ]' _ "$TMP/imp.db"
check "parse --help lists the scratch format" bash -c '"$1" parse --help | grep -q scratch-text' _ "$P"
check "import --help lists the scratch format" bash -c '"$1" import --help | grep -q scratch-text' _ "$P"
# the meter: taken by --meter, measures a run, listed by the help, asked by doctor
check "run --meter scratch measures with the row" bash -c \
  '[ "$("$1" run -n 1 --json --meter scratch -- true | python3 -c "import json,sys; print(json.load(sys.stdin)[\"runs\"][0][\"instructions\"])")" = 4242 ]' _ "$P"
check "sweep --help lists the scratch meter" bash -c '"$1" sweep --help | grep -q "auto, wall, counters, valgrind, callgrind, scratch"' _ "$P"
check "doctor asks the scratch meter" bash -c '"$1" doctor 2>/dev/null | grep -q "^meter scratch: *scratch meter: a constant count"' _ "$P"
printf '[sweep]\nname = s\nbackend = command\nrepeats = 1\nmeter = scratch\n[matrix m]\nv = 1\n[step s]\nargv = true {v}\n' > "$TMP/meter.ini"
check "[sweep] meter = scratch sweeps with the row" "$P" sweep --quiet --db "$TMP/meter.db" "$TMP/meter.ini"
check "... its count recorded" test "$(sqlite3 "$TMP/meter.db" "select group_concat(instructions) from step")" = 4242
# the kind: listed and emitted by passmap gen, swept from its own spec section, read by the report through its row
check "gen list names the toy kind" bash -c '"$1" gen list | grep -q "^toy  *tiny"' _ "$P"
"$P" gen toy --family tiny --window 4 --layers 2 -o "$TMP/toy.mlir" > "$TMP/gen.log" 2>&1
check "gen toy emits its module" grep -q 'linalg.matmul' "$TMP/toy.mlir"
out=$("$P" gen nosuch 2>&1)
check "gen's unknown-kind message lists the toy row" bash -c '[[ "$1" == *"(llm, cnn, toy, list)"* ]]' _ "$out"
printf '[sweep]\nname = nothing\n[embedded]\ntile = 256\n' > "$TMP/none.ini"
out=$("$P" sweep --dry-run --db "$TMP/none.db" "$TMP/none.ini" 2>&1)
check "a spec without configs names the toy section" \
  bash -c '[[ "$1" == *"add an [llm NAME], [cnn NAME] or [toy NAME] section"* ]]' _ "$out"
printf '[sweep]\nname = typo\n[toy a]\nfamilies = tiny\nwindows = 4\n[toi b]\nwindows = 4\n' > "$TMP/typo.ini"
out=$("$P" sweep --dry-run --db "$TMP/typo.db" "$TMP/typo.ini" 2>&1)
check "a mistyped section: did you mean the toy section, which the back end's list names" bash -c \
  '[[ "$1" == *"[toi b] is read by no back end; did you mean [toy b]? (back end embedded reads [embedded], [llm NAME], [cnn NAME], [toy NAME])"* ]]' _ "$out"
printf '[sweep]\nname = toy\nrepeats = 1\ntimeout = 120s\n[toy a]\nfamilies = tiny\nwindows = 4, 8\nlayers = 2\n' > "$TMP/toy.ini"
check "the embedded back end sweeps a [toy NAME] section" "$P" sweep --quiet --db "$TMP/toy.db" "$TMP/toy.ini"
tq() { sqlite3 "$TMP/toy.db" "$1"; }
check "its two configs, keyed by the row's stem" \
  test "$(tq "select group_concat(key || ' ' || kind, ', ') from (select key, kind from config order by key)")" \
  = "toy/tiny/w4/L2/stock toy, toy/tiny/w8/L2/stock toy"
check "their runs are ok, with the compiler's pass times" \
  test "$(tq "select count(*) from run where status = 'ok'")/$(tq "select count(*) > 20 from pass_time")" = 2/1
check "the row's axes and the pipeline's are the configs' parameters" \
  test "$(tq "select group_concat(name || '=' || value, ' ') from (select name, value from config_param p join config c on c.id = p.config_id where c.key = 'toy/tiny/w8/L2/stock' order by name)")" \
  = "family=tiny layers=2 tile=256 unroll=16 window=8"
COLUMNS=200 "$P" report "$TMP/toy.db" > "$TMP/toy.txt" 2>&1
check "the report shows the row's key legend" grep -q '^Toy keys toy/FAMILY/wWINDOW/LLAYERS/VARIANT$' "$TMP/toy.txt"
check "... and its regime map (rows by family, columns by window)" grep -q '^  toy: family tiny: ' "$TMP/toy.txt"
"$P" report --json "$TMP/toy.db" > "$TMP/toy.json" 2>&1
check "JSON: its regime map and its fingerprint by the row's axes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["regimes"]["toy"]["cells"], d["regimes"]
fp = [f for f in d["fingerprints"] if f["kind"] == "toy"]
assert fp and fp[0]["bar_axes"] == "family,window", d["fingerprints"]' "$TMP/toy.json"
finish
