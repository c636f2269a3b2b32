#!/usr/bin/env bash
# A report section is one file plus one row (docs/architecture.md, "how to add"): a scratch section planted in
# a copy of the tree (its own file lib/output/sec_scratch.c and one line in lib/output/report_sections.h), built,
# shows in the text report, Markdown, the HTML report and its contents list, and JSON, each time at its row's
# place (after noise, before parallelism: the one order all formats follow).
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
# its own build: not the caller's (make SAN=1 check passes SAN and BUILD down through MAKEFLAGS)
check "the copy with the scratch section builds" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice -n 10 make -C "$TMP/tree" -j2 SAN=0 BUILD=build build/passmap
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
else
  ok "# SKIP HTML: no gnuplot"
fi
finish
