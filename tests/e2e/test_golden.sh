#!/usr/bin/env bash
# Outputs that must not change unless a commit means them to, byte for byte: the report of the e2e fixture as text,
# JSON, Markdown and HTML with its figure data, sweep --dry-run of every study, compare, fix --dry-run and show,
# normalised by scripts/golden-outputs.sh, against tests/golden/ (a commit that changes one on purpose runs
# scripts/update-golden.sh and commits the new files with the change).
. "$(dirname "$0")/lib.sh"
"$ROOT/scripts/golden-outputs.sh" "$PASSMAP" "$TMP/now" > "$TMP/gen.log" 2>&1 \
  && ok "the outputs were written" || { fail "golden-outputs.sh failed"; sed 's/^/#   /' "$TMP/gen.log"; }
have_gnuplot=1
command -v gnuplot > /dev/null || have_gnuplot=0
for g in "$ROOT"/tests/golden/*.gz; do
  name=$(basename "$g" .gz)
  if [ ! -e "$TMP/now/$name" ] && [ "$have_gnuplot" = 0 ] && case $name in figure-*|report.html|report-*) true;; *) false;; esac; then
    echo "ok $((_n + 1)) - # SKIP $name: no gnuplot here"; _n=$((_n + 1)); continue
  fi
  gzip -dc "$g" > "$TMP/want"
  if cmp -s "$TMP/want" "$TMP/now/$name"; then
    ok "$name unchanged"
  else
    fail "$name differs from tests/golden (on purpose? scripts/update-golden.sh, then commit tests/golden)"
    diff "$TMP/want" "$TMP/now/$name" 2>&1 | head -n 12 | cut -c1-200 | sed 's/^/#   /'
  fi
done
# An output with no golden file (a new study, a new figure) is one the comparison would miss.
for f in "$TMP"/now/*; do
  [ -e "$ROOT/tests/golden/$(basename "$f").gz" ] || fail "$(basename "$f") has no golden file (scripts/update-golden.sh)"
done
# The comparison can fail: one changed byte in a copy of an output is caught.
cp "$TMP/now/report.txt" "$TMP/changed" && printf 'x' >> "$TMP/changed"
gzip -dc "$ROOT/tests/golden/report.txt.gz" | cmp -s - "$TMP/changed" && fail "a changed report passes" || ok "a changed report is caught"
finish
