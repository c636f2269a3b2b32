#!/usr/bin/env bash
# passmap fix on an OpenVINO (NPU) study, through the stand-in libopenvino_c (tests/support/openvino_c.c): a CNN
# and an LLM config, warm = true. blob-cache is measured from the study's own runs (each stock compile's blob
# import is a warm run: recompile / import by compare's rule, no new run); reuse-strategy runs as an A/B round on
# the CNN only (upstream refuses it under NPUW, and the plan says so); bounded-window and compile-server have no
# compile option (the plan says so); no output check exists for the NPU, so every fix is "unchecked" and
# recommended only under --no-check. The stand-in's compile times are sleeps, not a compiler: this checks the
# plumbing and the rules, not what a real NPU compile gains.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
[ -f "$LIB" ] || { fail "stand-in library missing: $LIB"; finish; exit 1; }
json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null
}
q() { sqlite3 "$TMP/s.db" "$1"; }
runs() { q "SELECT count(*) FROM run JOIN config ON config.id = run.config_id
            JOIN sweep ON sweep.id = config.sweep_id WHERE sweep.name = '$1'"; }

for m in qwen2-0.5b-fp16 resnet18--fp16; do   # a CNN has no {size}
  mkdir -p "$TMP/ov/models/$m"
  printf '<?xml version="1.0"?>\n<net name="%s" version="11"/>\n' $m > "$TMP/ov/models/$m/openvino_model.xml"
  printf 'w' > "$TMP/ov/models/$m/openvino_model.bin"
done
cat > "$TMP/ov/ovs.ini" <<INI
[sweep]
name = ovs
backend = openvino
repeats = 3
warm = true
timeout = 60s
[openvino]
device = NPU
lib = $LIB
prefill_hint = STATIC
generate_pyramid = false
model = models/{family}-{size}-{precision}/openvino_model.xml
[llm q]
models = qwen2:0.5b
windows = 128
precisions = fp16
[cnn r]
families = resnet18
resolutions = 64
precisions = fp16
blocks = 1
INI
check "study sweep (a CNN and an LLM, warm = true)" "$PASSMAP" sweep --quiet --db "$TMP/s.db" "$TMP/ov/ovs.ini"
# The CNN compiles its IR too (its model path comes from the template), and warm = true adds no passmap-cache
# runs beside the imports: exactly one import (warm run) per cold compile.
[ "$(q "select count(*) from run where mode='cold' and status='ok'")" = 6 ] \
  && [ "$(q "select count(*) from run where mode='warm' and status='ok'")" = 6 ] \
  && [ "$(q "select count(*) from run where mode='cache-miss'")" = 0 ] \
  && [ "$(q "select count(*) from run where mode='warm' and note not like 'ov_core_import_model%'")" = 0 ] \
  && ok "one blob import per cold compile, CNN included; no cache runs mixed in" \
  || fail "runs: $(q "select c.key, r.mode, r.status, count(*) from run r join config c on c.id=r.config_id group by 1,2,3")"

"$PASSMAP" fix "$TMP/s.db" --dry-run --json > "$TMP/plan.json" 2>"$TMP/plan.err"
json_check "$TMP/plan.json" '{f["name"]: f for f in d["fixes"]}["blob-cache"]["plan"].startswith("measured from the study") and len({f["name"]: f for f in d["fixes"]}["blob-cache"]["configs"]) == 2' \
  && ok "plan: blob-cache measured from the study's own runs on both configs" || fail "plan: $(cat "$TMP/plan.json" "$TMP/plan.err")"
json_check "$TMP/plan.json" '[f for f in d["fixes"] if f["name"] == "reuse-strategy"][0]["configs"] == ["cnn/resnet18/r64/fp16/B1/stock"] and "not runnable for LLM configs under NPUW" in [f for f in d["fixes"] if f["name"] == "reuse-strategy"][0]["note"]' \
  && ok "plan: reuse-strategy on the CNN only, not runnable for LLM configs under NPUW" || fail "plan reuse: $(cat "$TMP/plan.json")"
json_check "$TMP/plan.json" 'all("no compile variant" in f["plan"] for f in d["fixes"] if f["name"] in ("bounded-window", "compile-server"))' \
  && ok "plan: bounded-window and compile-server listed as not runnable, with why" || fail "plan not runnable"
"$PASSMAP" fix "$TMP/s.db" --dry-run > "$TMP/plan.txt" 2>&1
grep -q 'not runnable for LLM configs under NPUW' "$TMP/plan.txt" && grep -q 'no compile variant implements it' "$TMP/plan.txt" \
  && ok "text plan gives the reasons" || fail "text plan: $(cat "$TMP/plan.txt")"
[ "$(runs ovs-fix)" = 0 ] && ok "--dry-run runs nothing" || fail "dry run ran $(runs ovs-fix)"

check "passmap fix --allow-contended --json" sh -c '"$0" fix "$1" --allow-contended --json > "$2"' "$PASSMAP" "$TMP/s.db" "$TMP/fix.json"
R='{r["name"]: r for r in d["results"]}'
json_check "$TMP/fix.json" "$R['blob-cache']['verdict'] == 'faster' and $R['blob-cache']['ratio'] < 0.5 and $R['blob-cache']['n_configs'] == 2 and $R['blob-cache']['min_runs'] >= 3" \
  && ok "blob-cache: recompile / import measured from the study ($(python3 -c "import json; print({r['name']: r for r in json.load(open('$TMP/fix.json'))['results']}['blob-cache']['ratio'])")x)" \
  || fail "blob-cache: $(cat "$TMP/fix.json")"
json_check "$TMP/fix.json" "$R['blob-cache']['output'].startswith('unchecked') and 'CPU plugin' in $R['blob-cache']['output'] and d['recommended']['variant'] == 'warm' and d['recommended']['ship'] is False" \
  && ok "blob-cache output unchecked (why given), so not shipped without --no-check" || fail "unchecked: $(cat "$TMP/fix.json")"
json_check "$TMP/fix.json" "$R['reuse-strategy']['configs'] == ['cnn/resnet18/r64/fp16/B1/stock'] and $R['reuse-strategy']['verdict'] in ('no effect', 'faster', 'slower', 'undecided', 'no conclusion (contended)') and 'NPUW' in $R['reuse-strategy']['note']" \
  && ok "reuse-strategy ran as an A/B on the CNN ($(python3 -c "import json; print({r['name']: r for r in json.load(open('$TMP/fix.json'))['results']}['reuse-strategy']['verdict'])"))" \
  || fail "reuse-strategy: $(cat "$TMP/fix.json")"
# The stand-in runs the strategy search at full cost (as upstream, which applies the strategy after it): only
# the CNN's stock and reuse-strategy compiles are in the A/B sweep, none of the LLM, and no warm variant.
[ "$(q "select count(*) from run r join config c on c.id=r.config_id join sweep s on s.id=c.sweep_id where s.name='ovs-fix' and (c.key like 'llm/%' or c.variant='warm')")" = 0 ] \
  && [ "$(q "select count(distinct c.variant) from config c join sweep s on s.id=c.sweep_id where s.name='ovs-fix'")" = 2 ] \
  && ok "A/B sweep holds the CNN's stock and reuse-strategy compiles only" || fail "fix sweep configs: $(q "select c.key from config c join sweep s on s.id=c.sweep_id where s.name='ovs-fix'")"
n1=$(runs ovs-fix)
check "rerun resumes" sh -c '"$0" fix "$1" --allow-contended --json > "$2"' "$PASSMAP" "$TMP/s.db" "$TMP/fix2.json"
[ "$(runs ovs-fix)" = "$n1" ] && ok "rerun ran no new compile ($n1 runs)" || fail "rerun: $n1 -> $(runs ovs-fix)"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if [(r["name"], r["verdict"], r["ratio"]) for r in a["results"]] == [(r["name"], r["verdict"], r["ratio"]) for r in b["results"]] else 1)' "$TMP/fix.json" "$TMP/fix2.json" \
  && ok "rerun gives the same table" || fail "rerun table differs"
"$PASSMAP" fix "$TMP/s.db" --allow-contended --no-check --json > "$TMP/nc.json" 2>/dev/null
json_check "$TMP/nc.json" "d['recommended']['variant'] == 'warm' and d['recommended']['ship'] is True and d['recommended']['output'].startswith('unchecked')" \
  && ok "--no-check: blob-cache recommended, marked unchecked" || fail "no-check: $(cat "$TMP/nc.json")"
"$PASSMAP" fix "$TMP/s.db" --allow-contended > "$TMP/fix.txt" 2>&1
grep -q 'NOT PROVEN: warm' "$TMP/fix.txt" && grep -Eq '^blob-cache +stock +[0-9.e-]+x' "$TMP/fix.txt" \
  && ok "text table: blob-cache measured, not proven (unchecked)" || fail "text: $(cat "$TMP/fix.txt")"

# Offline (no NPU, a platform named): nothing is imported, so blob-cache has nothing to be measured from and says
# so; it is not a "no effect" of a rule.
sed -e 's/^name = ovs/name = ovoff/' -e 's/^\[openvino\]/[openvino]\nplatform = NPU4000/' "$TMP/ov/ovs.ini" > "$TMP/ov/ovoff.ini"
PASSMAP_FAKEOV_DEVICES=CPU check "offline study sweep" "$PASSMAP" sweep --quiet --db "$TMP/off.db" "$TMP/ov/ovoff.ini"
PASSMAP_FAKEOV_DEVICES=CPU "$PASSMAP" fix "$TMP/off.db" --allow-contended --max-repeats 3 --json > "$TMP/off.json" 2>/dev/null
json_check "$TMP/off.json" "$R['blob-cache']['verdict'] == 'not run' and 'no ok warm runs' in $R['blob-cache']['note'] and not $R['blob-cache'].get('rule_measured_nothing')" \
  && ok "offline study: blob-cache not run, and why" || fail "offline: $(cat "$TMP/off.json")"
# The program side of the ledger, estimated: the compiler's "Estimated inference latency" and the exported
# blob's size, read from the round's own compiles (no output check needed). PASSMAP_FAKEOV_REPLAY (a test
# injection of the stand-in, not upstream behaviour) makes a compile that replays a strategy take 50 ms against
# 300 ms and adds US to its estimate: a fix faster to compile whose estimated program is slower is a trade-off,
# never recommended without --accept-slower-code; with US = 0 it is the same program. The first reuse-strategy
# compile of a round has no cached strategy yet (it searches, as stock does: 428 us), the other four replay
# (728 us), so 5 repeats a side and the estimate's ratio is the geometric mean's, (728/428)^(4/5).
sed -e 's/^name = ovs/name = ovl/' -e '/^\[llm q\]/,/^precisions/d' "$TMP/ov/ovs.ini" > "$TMP/ov/ovl.ini"
check "CNN-only study sweep" "$PASSMAP" sweep --quiet --db "$TMP/l.db" "$TMP/ov/ovl.ini"
cp "$TMP/l.db" "$TMP/l0.db"
PASSMAP_FAKEOV_REPLAY=50:300 "$PASSMAP" fix "$TMP/l.db" --allow-contended --min-repeats 5 --json > "$TMP/l.json" 2>"$TMP/l.err"
RS="$R['reuse-strategy']"
json_check "$TMP/l.json" "$RS['verdict'] == 'faster' and $RS['run']['estimated'] is True and $RS['run']['verdict'] == 'slower' and abs($RS['run']['ratio'] - (728.0 / 428.0) ** 0.8) < 0.01 and abs($RS['run']['stock_s'] - 428e-6) < 1e-9 and 'estimated inference latency' in $RS['run']['what']" \
  && ok "reuse-strategy: compiles faster, estimated latency $(python3 -c "import json; print({r['name']: r for r in json.load(open('$TMP/l.json'))['results']}['reuse-strategy']['run']['ratio'])")x of stock's (slower)" \
  || fail "estimated run side: $(cat "$TMP/l.json" "$TMP/l.err")"
json_check "$TMP/l.json" "$RS['tradeoff'] is True and $RS['size']['estimated'] is True and $RS['size']['ratio'] == 1 and $RS['size']['what'] == 'blob with weights' and $RS['size']['stock_bytes'] > 4096" \
  && ok "reuse-strategy is a trade-off; blob size ratio beside it (estimated)" || fail "trade-off/size: $(cat "$TMP/l.json")"
json_check "$TMP/l.json" "d['recommended'] is None or 'reuse-strategy' not in d['recommended']['variant'].split('+')" \
  && ok "a trade-off is not recommended" || fail "recommended: $(cat "$TMP/l.json")"
"$PASSMAP" fix "$TMP/l.db" --allow-contended --min-repeats 5 > "$TMP/l.txt" 2>&1
grep -Eq '^ +program: run [0-9.]+x \[[0-9.]+, [0-9.]+\], slower \(n=[0-9]+ a side\) \(estimated\); blob with weights 1\.00x \([0-9]+ of [0-9]+ bytes\) \(estimated\) +<- trade-off' "$TMP/l.txt" \
  && ok "text table: trade-off, run ratio and size ratio marked (estimated)" || fail "text ledger: $(cat "$TMP/l.txt")"
PASSMAP_FAKEOV_REPLAY=50:0 "$PASSMAP" fix "$TMP/l0.db" --allow-contended --min-repeats 5 --json > "$TMP/l0.json" 2>"$TMP/l0.err"
json_check "$TMP/l0.json" "$RS['verdict'] == 'faster' and $RS['run']['verdict'] == 'same' and $RS['run']['ratio'] == 1 and $RS['tradeoff'] is False" \
  && ok "same estimate: not a trade-off" || fail "same estimate: $(cat "$TMP/l0.json" "$TMP/l0.err")"
finish
