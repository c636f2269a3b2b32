#!/usr/bin/env bash
# golden-outputs.sh BIN OUTDIR: the outputs that must not change unless a commit means them to, written to OUTDIR
# normalised (tests/e2e/test_golden.sh compares them with tests/golden/; scripts/update-golden.sh rewrites those).
#   report-*       report text, JSON, Markdown and HTML of the e2e fixture (tests/fixtures/report)
#   figure-*       the figure data and gnuplot scripts of that report (report --figures)
#   dry-STUDY.txt  sweep --dry-run of every studies/*.ini (clang-self on two of its files)
#   compare.json, compare.txt, fix-dry.json, show.txt   compare, fix --dry-run and show on the fixture
# Normalised: the binary's path reads @BIN@, the source tree's @ROOT@, the work folder's @TMP@; in the HTML each
# gnuplot-drawn SVG is one placeholder line (its data and script are compared as figure-*; the drawing is
# gnuplot's, and differs between its versions). An exit status other than 0 is part of the output ("rc=N").
set -u
bin=${1:?usage: golden-outputs.sh BIN OUTDIR}
out=${2:?usage: golden-outputs.sh BIN OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/passmap-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
{ gzip -dc "$root/tests/fixtures/report/e2e-sweep.sql.gz"
  echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } | sqlite3 e2e.db || exit 2

normalise() { # file: paths replaced in place (longest first: the binary may be inside the tree)
  sed -i -e "s|$bin|@BIN@|g" -e "s|$work|@TMP@|g" -e "s|$root|@ROOT@|g" "$1"
}
run() { # name, args...: stdout and stderr of one command, then its status
  local name=$1; shift
  "$bin" "$@" > "$out/$name" 2>&1
  echo "rc=$?" >> "$out/$name"
  normalise "$out/$name"
}

run report.txt report e2e.db
run report.json report e2e.db --json
run report.md report e2e.db --markdown
if command -v gnuplot > /dev/null; then
  run report-figures.txt report e2e.db --figures figs
  for f in figs/*.dat figs/*.gp; do
    [ -e "$f" ] || continue
    cp "$f" "$out/figure-$(basename "$f")"
    normalise "$out/figure-$(basename "$f")"
  done
  run report-html.txt report e2e.db --html report.html
  python3 - report.html "$out/report.html" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r"<svg(?:(?!</svg>).)*?Produced by GNUPLOT.*?</svg>", "<svg gnuplot/>", s, flags=re.S)
open(sys.argv[2], "w", encoding="utf-8").write(s)
PY
  normalise "$out/report.html"
fi
# clang-self compiles passmap's own lib/base and lib/parse (a glob): every file split there would change its plan.
# Its copy here reads two files that stay (the glob is the spec reader's, tested on its own), beside lib/.
mkdir -p studies
ln -s "$root/lib" lib
for study in "$root"/studies/*.ini; do
  name=$(basename "$study" .ini)
  if [ "$name" = clang-self ]; then
    sed 's|^input = .*|input = ../lib/base/error.c ../lib/parse/passcount.c|' "$study" > studies/clang-self.ini
    study=studies/clang-self.ini
  fi
  run "dry-$name.txt" sweep "$study" --dry-run --db "dry-$name.db"
done
run compare.json compare e2e.db --a precision=int8 --b precision=fp16 --json
run compare.txt compare e2e.db --a precision=int8 --b precision=fp16
run fix-dry.json fix e2e.db --dry-run --json
run show.txt show e2e.db
exit 0
