#!/usr/bin/env bash
# passmap report on a real sweep's database (tests/fixtures/report/e2e-sweep.sql.gz: `passmap sweep` of
# tests/fixtures/report/e2e.ini, regenerate with scripts/make-report-fixture.sh): text, JSON, HTML with the nine
# figures (gnuplot), rendered in headless Chromium.
source "$(dirname "$0")/lib.sh"
# stage maps and fix rules: the real data files (data/stages-*.tsv, data/fixes.tsv)
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/e2e.db
gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz" | sqlite3 "$DB"

check "help exits 0" "$PASSMAP" report --help
check_fails "no database is a usage error" "$PASSMAP" report
"$PASSMAP" report >/dev/null 2>&1; [ $? -eq 2 ] && ok "usage error exits 2" || fail "usage error exits 2"
check_fails "missing sweep fails" "$PASSMAP" report "$DB" --sweep nope
check_fails "bad stage map fails" "$PASSMAP" report "$DB" --stage-map /nonexistent.tsv

out=$("$PASSMAP" report "$DB" 2>&1)
echo "$out" | grep -q '^sweep e2e (embedded): 16 configs, 48 ok runs' && ok "text header" || fail "text header"
# two cold repeats: the geometric mean alone, no interval (an interval needs n >= 3)
echo "$out" | grep -qE '^llm/qwen2/0.5b/w128/int8/L1/stock +[0-9.]+s +n=2, no interval +[a-z-]+ +[0-9.]+% +[0-9.]+x ' \
  && ok "per-config row: wall, no interval at n=2, dominant stage, share, recompile/hit" || fail "per-config row"
# regime boundaries are stated in words
echo "$out" | sed -n '/^regimes/,/^$/p' | grep -qE 'dominates' && ok "regimes stated in words" || fail "regimes in words"

json=$("$PASSMAP" report "$DB" --json)
alt=$("$PASSMAP" report "$DB" --json --stage-map "$ROOT/tests/fixtures/stagemap/stages-embedded.tsv")
echo "$alt" | grep -q '"cleanup"' && ok "--stage-map replaces the default map" || fail "--stage-map replaces the default map"
python3 - "$json" <<'PY' && ok "json content consistent" || fail "json content consistent"
import json, sys
j = json.loads(sys.argv[1])
assert j["sweep"] == "e2e" and len(j["configs"]) == 16, "configs"
assert sum(c["kind"] == "cnn" for c in j["configs"]) == 4, "cnn configs"
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
assert j["meta"]["compiler"] == "MLIR/LLVM" and j["meta"]["compiler_version"].startswith("22."), j["meta"]
PY

html=$TMP/report.html
figs=$TMP/figs
check "html + figures" "$PASSMAP" report "$DB" --html "$html" --figures "$figs"
n_svg=$(grep -c '<svg' "$html")
[ "$n_svg" -eq 9 ] && ok "all nine figures inline" || fail "nine figures inline (got $n_svg)"
[ "$(grep -c 'omitted:' "$html")" -eq 0 ] && ok "no figure omitted" || fail "omitted figures"
# a sweep without CNN configs leaves the CNN figures out with a note, not an error
sqlite3 "$DB" "DELETE FROM run WHERE config_id IN (SELECT id FROM config WHERE kind='cnn'); DELETE FROM config WHERE kind='cnn';"
"$PASSMAP" report "$DB" --html "$TMP/llm-only.html" >/dev/null 2>&1
[ "$(grep -c 'omitted: no CNN data in this sweep' "$TMP/llm-only.html")" -eq 3 ] && ok "three CNN figures omitted with a note" \
  || fail "CNN figures note"
for f in regime-map handoff why-costly fingerprint precision precision-window cnn-regime-map cnn-spine cnn-fingerprint; do
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
  [ "$nsvg" -ge 9 ] && ok "chromium: SVGs parsed into the DOM" || fail "chromium: svgs ($nsvg)"
  echo "$dom" | grep -q 'parsererror' && fail "chromium: page has parse errors" || ok "chromium: no parse errors"
  rm -f "$art/report.png"
  timeout 60 chromium "${flags[@]}" --screenshot="$art/report.png" --window-size=1200,4000 "file://$html" \
    >/dev/null 2>>"$TMP/chrome.err"
  [ -s "$art/report.png" ] && ok "chromium screenshot kept at $art/report.png" || { fail "chromium screenshot"; tail -5 "$TMP/chrome.err"; }
fi
finish
