#!/usr/bin/env bash
# passmap report on a database of real mlir-opt / mlir-translate / llc compiles (tests/fixtures/report/
# e2e-sweep.sql, regenerate with scripts/make-bench-db.py e2e): text, JSON, HTML with the nine figures
# (gnuplot), rendered in headless Chromium.
source "$(dirname "$0")/lib.sh"
# stage maps and fix rules: the real data files (data/stages-*.tsv, data/fixes.tsv)
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/e2e.db
sqlite3 "$DB" < "$ROOT/tests/fixtures/report/e2e-sweep.sql"

check "help exits 0" "$PASSMAP" report --help
check_fails "no database is a usage error" "$PASSMAP" report
"$PASSMAP" report >/dev/null 2>&1; [ $? -eq 2 ] && ok "usage error exits 2" || fail "usage error exits 2"
check_fails "missing sweep fails" "$PASSMAP" report "$DB" --sweep nope
check_fails "bad stage map fails" "$PASSMAP" report "$DB" --stage-map /nonexistent.tsv

out=$("$PASSMAP" report "$DB" 2>&1)
echo "$out" | grep -q '^sweep e2e (embedded): 24 configs, 72 ok runs' && ok "text header" || fail "text header"
echo "$out" | grep -qE '^llm/matmul/4/w2/f16/stock +[0-9.]+s' && ok "per-config row" || fail "per-config row"
# sizes numerically: 4 before 8 before 12
order=$(echo "$out" | grep -oE '^llm/matmul/[0-9]+/w2/f32' | head -3 | cut -d/ -f3 | tr '\n' ' ')
[ "$order" = "4 8 12 " ] && ok "sizes in numeric order" || fail "sizes in numeric order ($order)"

json=$("$PASSMAP" report "$DB" --json)
alt=$("$PASSMAP" report "$DB" --json --stage-map "$ROOT/tests/fixtures/stagemap/stages-embedded.tsv")
echo "$alt" | grep -q '"cleanup"' && ok "--stage-map replaces the default map" || fail "--stage-map replaces the default map"
python3 - "$json" <<'PY' && ok "json content consistent" || fail "json content consistent"
import json, sys
j = json.loads(sys.argv[1])
assert j["sweep"] == "e2e" and len(j["configs"]) == 24, "configs"
for c in j["configs"]:
    s = sum(v["mean"] for v in c["shares"].values())
    assert abs(s - 1) < 1e-4, (c["key"], s)  # JSON keeps 6 significant digits
    assert c["dominant_stage"] in j["stages"]
    assert c["cold_runs"] == 2 and c["warm_runs"] == 1
    assert c["cache_ratio"] > 1
assert "process-overhead" in j["stages"]
assert j["fits"] and all(f["n"] >= 3 for f in j["fits"])
assert j["fixes"] and all(f["fix"] for f in j["fixes"]), "every regime gets a fix from data/fixes.tsv"
assert j["regimes"]["llm"]["cells"], "regime cells"
assert j["meta"]["compiler"].startswith("Debian LLVM version 22"), j["meta"]
PY

html=$TMP/report.html
figs=$TMP/figs
check "html + figures" "$PASSMAP" report "$DB" --html "$html" --figures "$figs"
n_svg=$(grep -c '<svg' "$html")
[ "$n_svg" -eq 6 ] && ok "six LLM figures inline" || fail "six LLM figures inline (got $n_svg)"
[ "$(grep -c 'omitted: no CNN data in this sweep' "$html")" -eq 3 ] && ok "three CNN figures omitted with a note" \
  || fail "CNN figures note"
for f in regime-map handoff why-costly fingerprint precision precision-window; do
  [ -s "$figs/$f.svg" ] && [ -s "$figs/$f.png" ] || { fail "figure $f svg+png"; continue; }
  ok "figure $f svg+png"
done
grep -q 'Fix table' "$html" && grep -q 'Method' "$html" && ok "html sections" || fail "html sections"

if ! command -v chromium >/dev/null 2>&1; then
  echo "ok # SKIP chromium not installed"
else
  art=${PASSMAP_ARTIFACTS_DIR:-$ROOT/build/artifacts}
  mkdir -p "$art"
  prof=$(mktemp -d "$TMP/chrome.XXXXXX")
  flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
         --disable-component-update --disable-sync --user-data-dir="$prof")
  dom=$(timeout 60 chromium "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$html" 2>"$TMP/chrome.err")
  grep -E 'CONSOLE|Uncaught' "$TMP/chrome.err" && fail "chromium: console errors" || ok "chromium: no console errors"
  n=$(echo "$dom" | grep -o 'data-figure="[a-z-]*"' | sort -u | wc -l)
  [ "$n" -eq 9 ] && ok "chromium: all nine figure slots in the DOM" || fail "chromium: figure slots ($n)"
  nsvg=$(echo "$dom" | grep -o '<svg' | wc -l)
  [ "$nsvg" -ge 6 ] && ok "chromium: SVGs parsed into the DOM" || fail "chromium: svgs ($nsvg)"
  echo "$dom" | grep -q 'parsererror' && fail "chromium: page has parse errors" || ok "chromium: no parse errors"
  rm -f "$art/report.png"
  timeout 60 chromium "${flags[@]}" --screenshot="$art/report.png" --window-size=1200,4000 "file://$html" \
    >/dev/null 2>>"$TMP/chrome.err"
  [ -s "$art/report.png" ] && ok "chromium screenshot kept at $art/report.png" || { fail "chromium screenshot"; tail -5 "$TMP/chrome.err"; }
fi
finish
