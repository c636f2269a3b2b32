#!/usr/bin/env bash
# passmap report on a real sweep's database (tests/fixtures/report/e2e-sweep.sql.gz: `passmap sweep` of
# tests/fixtures/report/e2e.ini, regenerate with scripts/make-report-fixture.sh): text, JSON, HTML with the nine
# figures (gnuplot), rendered in headless Chromium.
source "$(dirname "$0")/lib.sh"
# stage maps and the fix catalogue: the real data files (data/stages-*.tsv, data/fixes-embedded.tsv)
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/e2e.db
gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz" | sqlite3 "$DB"
# the dump carries no passmap stamp (application id, schema version 1): stamp it so passmap compare, and so the
# report's A/B (int8 vs fp16 of the precision study), can open it
sqlite3 "$DB" "PRAGMA application_id = $((0x706d6170)); PRAGMA user_version = 1;"

check "help exits 0" "$PASSMAP" report --help
check_fails "no database is a usage error" "$PASSMAP" report
"$PASSMAP" report >/dev/null 2>&1; [ $? -eq 2 ] && ok "usage error exits 2" || fail "usage error exits 2"
check_fails "missing sweep fails" "$PASSMAP" report "$DB" --sweep nope
check_fails "bad stage map fails" "$PASSMAP" report "$DB" --stage-map /nonexistent.tsv

out=$(COLUMNS=200 "$PASSMAP" report "$DB" 2>&1)
echo "$out" | grep -q '^sweep e2e (embedded): 16 configs, 48 ok runs' && ok "text header" || fail "text header"
# two cold repeats: the geometric mean alone, no interval (an interval needs n >= 3)
echo "$out" | grep -qE '^llm/qwen2/0.5b/w128/int8/L1/stock +[0-9.]+ m?s \(n=2, no interval\) +[a-z-]+ +[0-9.]+% +.+ +[0-9.]+× ' \
  && ok "per-config row: wall, no interval at n=2, dominant stage, share, recompile/hit" || fail "per-config row"
echo "$out" | grep -qE '^noise: [0-9]+ of 16 configs noisy .*[0-9]+ contended' && ok "noise diagnostics line" || fail "noise diagnostics line"
# headline first: the A/B summary line, dominant stage per kind, heaviest pass, top fix and its why, cache hit,
# slowest compile; one answer a line, each short enough for two lines of an 80-column terminal (issue 37)
hl=$(echo "$out" | sed -n '/^headline$/,/^$/p' | sed '1d;$d' | sed "s|$DB|DB|g")   # the store's path is the user's
[ "$(echo "$hl" | head -1)" = "  fp16 vs int8: no test on wall: 2 runs a side, 3 needed, 0 of 6 configs decided" ] \
  && echo "$hl" | grep -q '^  dominant stage: LLM, 12 configs: ' && echo "$hl" | grep -q '^  heaviest pass: ' \
  && echo "$hl" | grep -q '^  top fix: ' && echo "$hl" | grep -q '^    why: dialect conversions without pattern rollback' \
  && echo "$hl" | grep -q '^  cache: a hit is [0-9.]*× faster than a cold compile' && echo "$hl" | grep -q '^  slowest compile: ' \
  && ok "text: headline first, one answer a line" || { fail "text headline"; echo "$hl" | sed 's/^/#   /'; }
# ranges rounded before they are compared: never "12–12%"; every answer line short (the why is the catalogue's)
if echo "$hl" | grep -qE '([0-9]+)–\1%'; then fail "a range whose rounded ends are equal"; else ok "headline: no 12–12% range"; fi
# every printed headline line within 120 columns (two rows of an 80-column terminal): a longer answer (the fix's
# why, the catalogue's words) goes on below its label, a command to copy whole on its own line (issue 37)
long=$(echo "$hl" | python3 -c 'import sys; print("".join(l for l in sys.stdin if len(l.rstrip("\n")) > 120), end="")')
[ -z "$long" ] && ok "headline: every line within 120 columns" || fail "headline lines too long: $long"
echo "$hl" | grep -qE '^  phases: 16 configs, share of cold wall: .*process [0-9]+–[0-9]+%$' \
  && ok "headline: the phases on one line" || fail "headline phases: $(echo "$hl" | grep -A1 phases:)"
echo "$hl" | grep -qE '^ +passmap fix DB$' && ok "headline: the fix command whole on its own line" \
  || fail "fix command: $(echo "$hl" | grep -A1 'top fix')"
# the answers with their continuation lines joined (a line indented past its label's)
hlj=$(echo "$hl" | python3 -c '
import sys
out = []
for l in sys.stdin.read().split("\n"):
    if out and (l.startswith("      ") or (l.startswith("    ") and not l.startswith("    why: "))):
        out[-1] += " " + l.strip()
    else:
        out.append(l)
print("\n".join(out))')
# process start-up is no regime: the CNN configs led by it are too small to tell, their next stage named
echo "$hlj" | grep -q 'dominant stage: CNN, 4 configs: lowering-to-llvm leads 2 (34–36%); 2 too small to tell (start-up, then lowering-to-llvm)' \
  && ok "headline: start-up-led configs are too small to tell" || fail "headline: process-overhead as a regime"
# "dominates" only at >= 50% of every such config's compile, "leads" below (this fixture's stages are at 19-36%);
# the top fix is one of the embedded catalogue's (no NPU words such as CACHE_DIR in an embedded study)
if echo "$out" | python3 -c '
import re, sys
t = sys.stdin.read()
heads = [l for l in t.splitlines() if "dominant stage:" in l]
bad = [m.group(0) for l in heads for m in re.finditer(r"dominates \d+ \(share (\d+)", l) if int(m.group(1)) < 50]
sys.exit(0 if heads and not bad and "leads" in " ".join(heads) else 1)'; then
  ok "headline: a stage below 50% leads, never dominates"
else fail "dominates below 50%"; echo "$out" | grep "dominant stage" | sed 's/^/#   /'; fi
echo "$out" | grep "top fix:" | grep -qE "top fix: (no-rollback|tile-512|per-layer) " && ! echo "$out" | grep -q "CACHE_DIR" \
  && ok "top fix: from the embedded catalogue, no NPU words" || fail "top fix: $(echo "$out" | grep 'top fix:')"
# stage names whole, every table line within the terminal width (wide tables continue below, first column repeated)
n80=$(COLUMNS=80 "$PASSMAP" report "$DB" | sed -n '/^\(phase and \)\?stage shares/,/^regimes/p' | sed '$d')
echo "$n80" | grep -q 'canonicalize-cse' && echo "$n80" | grep -q 'process-overhead' && ok "text: stage names not cut" \
  || fail "text: stage names cut"
# the table's lines (its title, one sentence, wraps in the terminal)
sed 1d <<<"$n80" | awk '{ if (length($0) > 80) bad = 1 } END { exit bad }' && ok "text: stage table fits 80 columns" || fail "text: wider than 80"
[ "$(echo "$n80" | grep -c '^config ')" -ge 2 ] && ok "text: wide table continues in blocks" || fail "text: blocks"
# the precision pairs by compare's rule: 2 repeats a side, so a ratio but no test and no mark (n/a) on any row
ab=$(echo "$out" | sed -n '/^A\/B in this sweep/,/^$/p')
# the pair and the deciding metric in the caption; the decisive columns first: config, B/A, mark (then the
# interval, p, and the A and B means B/A divides); no empty noise column
echo "$ab" | sed -n 2p | grep -q '^precision fp16 (B) vs int8 (A); decided on: wall; B/A, CI, p, mark, A and B are of the deciding metric, per config by passmap compare' \
  && ok "A/B caption: the pair and what decided" || fail "A/B caption: $(echo "$ab" | sed -n 2p)"
[ "$(echo "$ab" | grep -cE '^llm/[a-z0-9]+/.*/int8→fp16/[^ ]* +[0-9.]+× +n/a +n=2, no interval +- +[0-9.]+ m?s \(n=2, no interval\) +[0-9.]+ m?s \(n=2, no interval\) *$')" -eq 6 ] \
  && ok "A/B table: 6 precision pairs, n=2: no interval, no mark" || { fail "A/B table n=2"; echo "$ab" | head -4; }
# every row says which A and which B, in each block of a table split at 80 columns (issue 37)
abn=$(COLUMNS=80 "$PASSMAP" report "$DB" | sed -n '/^A\/B in this sweep/,/^configs/p')
[ "$(echo "$abn" | grep -c '^llm/.*/int8→fp16/')" -ge 12 ] && [ "$(echo "$abn" | grep -c '^config (A→B) ')" -ge 2 ] \
  && ok "A/B at 80 columns: each row of each block names its B (int8→fp16)" || fail "A/B rows at 80: $(echo "$abn" | sed -n 3,4p)"
echo "$ab" | grep -q noise && fail "A/B table: a noise column with nothing contended" || ok "A/B table: no empty noise column"
# n=2 everywhere: no config decided, no summary ratio drawn, and the line says why (the summary line above)
# read cold (issue 12): the keys and process-overhead explained beside the configs table; the times behind
# recompile / hit in the headline
cfgs=$(echo "$out" | sed -n '/^configs (cold wall/,/^stage shares/p')
echo "$cfgs" | grep -q '^LLM keys llm/FAMILY/SIZE/wWINDOW/.*w128 = a 128-token prompt window, L1 = 1 decoder layer.*; CNN keys cnn/.*r224 = a 224-pixel input, B2 = the stem and first 2 blocks' \
  && ok "text: config keys explained beside the configs table" || fail "text: key legend"
echo "$cfgs" | grep -q '^process-overhead = the compile.s wall outside every pass timer' && ok "text: process-overhead defined there" \
  || fail "text: process-overhead definition"
echo "$hl" | grep -qE 'faster than a cold compile \([0-9.]+–[0-9.]+× over 16 configs\): [0-9.]+ ms against [0-9.]+ s$' \
  && ok "headline: recompile / hit with the warm and cold times" || fail "headline: warm time"
echo "$out" | grep -q '^fits: no fit: this store has no stage-entry sizes (ir.stage.\*).*`passmap probe DB` measures them' \
  && ok "text: no stage-entry sizes, no fit, what to rerun" || fail "text: the no-fit sentence"
md=$("$PASSMAP" report "$DB" --markdown)
echo "$md" | grep -q '^| config | cold wall (95% CI) |' && echo "$md" | grep -q '^|---|---:|' && ok "--markdown tables" || fail "--markdown"
# regime boundaries are stated in words
echo "$out" | sed -n '/^regimes/,/^$/p' | grep -qE 'dominates|leads' && ok "regimes stated in words" || fail "regimes in words"

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
assert j["fits"] and all(f["n"] >= 3 or (f["n"] == 0 and f["no_fit"]) for f in j["fits"])
# the fixture has no stage-entry sizes: the mlir-opt passes get no fit (the input size is no stand-in), llc's
# and mlir-translate's fit against the LLVM IR they read
scf = [f for f in j["fits"] if f["pass"] == "SCFToControlFlowPass"]
assert scf and scf[0]["x_metric"] is None and scf[0]["exponent"] is None and not scf[0]["superlinear"], scf
assert "no stage-entry sizes" in scf[0]["no_fit"] and "passmap probe DB" in scf[0]["no_fit"]
assert all(f["variant"] == "stock" and f["reference"] for f in j["fits"])
assert j["fixes"] and all(f["fix"] for f in j["fixes"]), "every regime row says which fixes passmap fix proposes (or why none)"
assert j["regimes"]["llm"]["cells"], "regime cells"
assert j["meta"]["compiler"] == "MLIR/LLVM" and j["meta"]["compiler_version"].startswith("22."), j["meta"]
ab = j["ab"]["comparisons"]
assert [(x["axis"], x["against"], x["variant"]) for x in ab] == [("precision", "int8", "fp16")], ab
assert len(ab[0]["configs"]) == 6 and all(c["wall"]["verdict"] == "n/a" and c["wall"]["ci_lo"] is None for c in ab[0]["configs"])
assert "Holm" in j["ab"]["rule"]
PY

html=$TMP/report.html
figs=$TMP/figs
# under a C locale (as in CI): gnuplot's scripts are UTF-8 and it used to warn in every figure log that iconv
# could not convert the degree sign
LC_ALL=C check "html + figures" "$PASSMAP" report "$DB" --html "$html" --figures "$figs"
if grep -l iconv "$figs"/*.log; then fail "gnuplot warns of iconv in a C locale"; else ok "no iconv warning from gnuplot in a C locale"; fi
# The handoff and fingerprints are keyed on the configs' axes through the kind table: the embedded study must
# give exactly what it gave when they were keyed on LLM families (captured in tests/fixtures/report/before-axes).
before=$ROOT/tests/fixtures/report/before-axes
for f in handoff fingerprint cnn-fingerprint regime-map cnn-regime-map precision precision-window cnn-spine; do
  cmp -s "$before/$f.dat" "$figs/$f.dat" && ok "same $f points as before the axes" || fail "$f.dat differs from before"
done
python3 - "$json" "$before/report.json" <<'PY' && ok "same regimes, handoff trends and family distance as before" \
  || fail "regimes/handoff differ from before"
import json, sys
now, old = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
# the same boundaries; a stage below 50% of the compile now "leads" where it used to "dominate"
norm = lambda r: json.loads(json.dumps(r).replace(" leads ", " dominates "))
assert norm(now["regimes"]["llm"]) == old["regimes"]["llm"] and norm(now["regimes"]["cnn"]) == old["regimes"]["cnn"]
h = now["handoff"]
assert h["trends"] == old["handoff"]["trends"], "trends"
assert h["series_js_distance"] == old["handoff"]["family_js_distance"], "distance"
assert h["series_pairs"] == old["handoff"]["family_pairs"]
assert h["kind"] == "llm" and h["x"] == "wall" and h["series_axes"] == "family" and h["series"] == ["gemma2", "qwen2"]
fp = {f["figure"]: f for f in now["fingerprints"]}
assert fp["fingerprint"]["held"] == "precision=int8 window=512", fp["fingerprint"]["held"]
assert fp["cnn-fingerprint"]["bar_axes"] == "family"
PY
# A log axis within about one decade gets 1-2-5 (or 1-2-3-5) ticks: gnuplot's own gave the handoff a single
# labelled tick ("1") and crowded why-costly's panels.
if python3 - "$figs" <<'PY'
import re, sys
hand = open(sys.argv[1] + "/handoff.gp").read()
why = open(sys.argv[1] + "/why-costly.gp").read()
tics = lambda s, ax: [len(m.split(",")) for m in re.findall(r"set %stics \(([^)]*)\)" % ax, s)]
assert tics(hand, "x") and min(tics(hand, "x")) >= 3, hand
assert tics(why, "x") and min(tics(why, "x")) >= 3 and min(tics(why, "y")) >= 3
PY
then ok "log axes within a decade get at least three labelled ticks"; else fail "log axis ticks"; fi
# every figure read at its drawn size (issue 37): x and y tick labels drawn, three or more on a log axis, units on
# the ticks of time and share axes, no 1e+09, at most 940 px wide, no text under 10 px (tests/e2e/check_figures.py)
check "every figure: ticks on both axes, with units, legible" python3 "$ROOT/tests/e2e/check_figures.py" "$figs"
# a figure folder whose paths would not fit is refused naming the limit (it was cut: figures went elsewhere)
long=$TMP/$(printf 'd%.0s' $(seq 1 4100))
msg=$("$PASSMAP" report "$DB" --figures "$long" 2>&1 >/dev/null)
case "$msg" in *"figure folder path longer than 4032 bytes"*) ok "long --figures folder: error names the limit" ;;
  *) fail "long --figures folder: $msg" ;; esac
n_svg=$(grep -o '</figcaption><p class=finding>[^<]*</p><svg' "$html" | wc -l)
[ "$n_svg" -eq 9 ] && ok "all nine figures inline, each with its finding" || fail "nine figures inline with findings (got $n_svg)"
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
sed -n '/<h2 id=configs>/,/<h2 id=shares>/p' "$html" | grep -q '<p class=sub id=keys>LLM keys .*w128 = a 128-token' \
  && sed -n '/<h2 id=configs>/,/<h2 id=shares>/p' "$html" | grep -q 'process-overhead = the compile' \
  && sed -n '/<h2 id=fixes>/,/<h2 id=fits>/p' "$html" | grep -q 'process-overhead = the compile' \
  && ok "html: keys and process-overhead explained beside the tables that show them" || fail "html: key legend"
grep -q 'id="t-ab-1"\|id=t-ab-1' "$html" && grep -q '<details id=marks>' "$html" && ok "html: A/B table and the marks legend (in the Method)" || fail "html A/B table"
# The answer, then its evidence, then where it holds: after the headline the A/B tables (issue 37: the rows
# behind its first lines), then the figures, the regime map first, in the page and in its contents list.
secs=$(grep -oE '<(section|h2)( class=[a-z]+)? id=[a-z-]+' "$html" | sed 's/.*id=//' | tr '\n' ' ')
toc=$(grep -oE '<nav class=toc.*</nav>' "$html" | grep -oE 'href="#[a-z-]+"' | sed 's/href="#//; s/"//' | tr '\n' ' ')
first_fig=$(grep -oE '<figure id="fig-[a-z-]+"' "$html" | head -1)
case "$secs|$toc" in
  *"headline ab figures "*"|"*"headline ab figures "*) ok "html: the A/B follows the headline, then the figures" ;;
  *) fail "html section order: $secs / contents: $toc" ;;
esac
[ "$first_fig" = '<figure id="fig-regime-map"' ] && ok "html: the first figure is the regime map" || fail "first figure: $first_fig"

if ! command -v chromium >/dev/null 2>&1; then
  echo "ok # SKIP chromium not installed"
else
  # The page is checked from inside: tests/e2e/report_check.html loads the report in a 1400 px frame, sorts,
  # filters, follows a drill-down link and writes TAP lines into its DOM, read back with --dump-dom.
  art=${PASSMAP_ARTIFACTS_DIR:-$ROOT/build/artifacts}
  mkdir -p "$art"
  page=$TMP/page
  mkdir -p "$page"
  cp "$html" "$page/report.html"
  cp "$ROOT/tests/e2e/report_check.html" "$page/"
  chrome_page_checks "$page/report_check.html" "in-page checks" --virtual-time-budget=10000 --enable-logging=stderr \
    --v=0 --window-size=1420,1000
  flags=("${CHROME_FLAGS[@]}" --virtual-time-budget=10000)
  grep -E 'CONSOLE|Uncaught' "$TMP/chrome.err" && fail "chromium: console errors" || ok "chromium: no console errors"
  rm -f "$art/report.png" "$art/report-drilldown.png"
  timeout 60 chromium "${flags[@]}" --screenshot="$art/report.png" --window-size=1400,2400 "file://$page/report.html" \
    >/dev/null 2>>"$TMP/chrome.err"
  [ -s "$art/report.png" ] && ok "chromium screenshot kept at $art/report.png" || { fail "chromium screenshot"; tail -5 "$TMP/chrome.err"; }
  # the harness, screenshotted after its checks: the drill-down section of the last config
  timeout 60 chromium "${flags[@]}" --screenshot="$art/report-drilldown.png" --window-size=1400,900 \
    "file://$page/report_check.html" >/dev/null 2>>"$TMP/chrome.err"
  [ -s "$art/report-drilldown.png" ] && ok "drill-down screenshot kept at $art/report-drilldown.png" || fail "drill-down screenshot"
fi
finish
