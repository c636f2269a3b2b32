#!/usr/bin/env bash
# A report section, a timing-report format and a figure are each one file (or function) plus one row
# (docs/architecture.md, "how to add"). Planted in one copy of the tree and built once:
# - a scratch section (its own file lib/output/sec_scratch.c and one line in lib/output/report_sections.h)
#   shows in the text report, Markdown, the HTML report and its contents list, and JSON, each time at its row's
#   place (after noise, before parallelism: the one order all formats follow);
# - a scratch timing-report format (lib/parse/parse_scratch.c and one line in lib/parse/parse_formats.h) is
#   sniffed by `parse`, named by --format, imported with its row's default tool and named in the help lists;
# - a scratch figure (its draw function and one row in lib/output/figures.c) is drawn by --figures and shown in
#   the HTML report.
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
    return PM_OK;
}

const pm_report_section pm_section_scratch = {.id = "scratch", .toc = "Scratch", .text = scratch_text,
                                              .html = scratch_html, .json = scratch_json};
C
sed -i 's/^PM_REPORT_SECTION(noise)$/&\nPM_REPORT_SECTION(scratch)/' "$TMP/tree/lib/output/report_sections.h"
check "the row is planted" grep -qx 'PM_REPORT_SECTION(scratch)' "$TMP/tree/lib/output/report_sections.h"

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

C
python3 - "$TMP/tree/lib/output/figures.c" "$TMP/draw_scratch.c" <<'PY' || fail "could not plant the figure row"
import sys
p, draw = sys.argv[1], open(sys.argv[2]).read()
s = open(p).read()
anchor = "/* The figures: one row each"
row = '    {"fingerprint", "Family fingerprint", fig_fingerprint, size_bars, "no configs with cold runs"},\n'
assert anchor in s and row in s
s = s.replace(anchor, draw + anchor, 1)
s = s.replace(row, row + '    {"scratch-fig", "Scratch figure", draw_scratch, NULL, "no scratch data"},\n', 1)
open(p, "w").write(s)
PY
check "the figure row is planted" grep -q '"scratch-fig", "Scratch figure"' "$TMP/tree/lib/output/figures.c"
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
"$P" report --markdown "$DB" > "$TMP/r.md" 2>&1
check "Markdown: the scratch section at its place" \
  in_order "$TMP/r.md" '^noise: ' '^scratch section: 16 configs$' '^## parallelism$'
"$P" report --json "$DB" > "$TMP/r.json" 2>&1
check "JSON: the scratch key, between noise's keys and parallelism" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = list(d)
assert d["scratch"] == 16, d.get("scratch")
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
finish
