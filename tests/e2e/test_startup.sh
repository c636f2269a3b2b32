#!/usr/bin/env bash
# Start-up on the real embedded compiler: each tool started on a null input once per sweep (recorded, not redone
# on resume), and the report splitting process-overhead into start-up and outside passes that sum to it.
source "$(dirname "$0")/lib.sh"

cat > "$TMP/su.ini" <<'INI'
[sweep]
name = su
repeats = 2
warm = false
timeout = 120s
[llm q]
models = qwen2:0.5b
windows = 32
precisions = int8
layers = 1
INI
db=$TMP/su.db
q() { sqlite3 "$db" "$1"; }

# cut after one run, then resume: the start-up rows are the first sweep's, never measured again
check "sweep cut after one run" "$PASSMAP" sweep --quiet --max-runs 1 --db "$db" "$TMP/su.ini"
[ "$(q "select count(*) from run")" = 1 ] && ok "one run recorded" || fail "one run recorded ($(q "select count(*) from run"))"
got=$(q "select group_concat(tool || '=' || n, ' ') from (select tool, count(*) n from startup where status='ok' group by tool order by tool)")
[ "$got" = "llc=5 mlir-opt=5 mlir-translate=5" ] && ok "each tool started 5 times on a null input" || fail "start-up rows: $got"
n=$(q "select count(*) from startup where wall_s > 0 and user_s >= 0 and sys_s >= 0 and argv like '%empty.mlir%' and tool='mlir-opt'")
[ "$n" = 5 ] && ok "mlir-opt ran on the empty module with wall, user, sys" || fail "mlir-opt null runs ($n)"
before=$(q "select group_concat(id || measured_at) from startup")
out=$("$PASSMAP" sweep --json --db "$db" "$TMP/su.ini" 2>/dev/null)
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["ran"]==1 and d["startup_runs"]==0, d' \
  && ok "resume runs what is left, no start-up again" || fail "resume: $out"
[ "$(q "select group_concat(id || measured_at) from startup")" = "$before" ] && ok "start-up rows unchanged by the resume" \
  || fail "start-up rows changed on resume"

# the report: both parts, summing to process-overhead, in the text, the JSON and the HTML
"$PASSMAP" report --json "$db" > "$TMP/r.json" 2>"$TMP/r.err" || fail "report --json: $(cat "$TMP/r.err")"
python3 - "$TMP/r.json" <<'PY' && ok "JSON: start-up + outside passes = process-overhead (share and s)" || fail "JSON overhead split"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["startup"]["measured"] and {t["tool"] for t in j["startup"]["tools"]} == {"mlir-opt", "mlir-translate", "llc"}
assert j["noise"]["baseline"] == "per-tool null-input runs", j["noise"]
for c in j["configs"]:
    o = c["overhead"]
    assert o["startup_share"] > 0 and o["outside_passes_share"] >= 0, o
    assert abs(o["startup_share"] + o["outside_passes_share"] - c["shares"]["process-overhead"]["mean"]) < 1e-6, (o, c["shares"])
    assert abs(o["startup_s"] + o["outside_passes_s"] - o["process_overhead_s"]) < 1e-5, o
    # a busy machine during the null runs makes them no serial baseline (then no ratio): either way it is stated
    assert j["startup"]["contended"] or c["noise"]["cpu_ratio"] > 0, (c["noise"], j["startup"])
PY
txt=$(COLUMNS=200 "$PASSMAP" report "$db")
echo "$txt" | grep -qE '^llm/qwen2/0.5b/w32/int8/L1/stock +[0-9.]+% +[0-9.]+% +[0-9.]+% ' \
  && echo "$txt" | grep -q '^process-overhead = start-up' && ok "text: process-overhead, start-up, outside passes" \
  || fail "text overhead table"
echo "$txt" | grep -qE '^mlir-opt +5 +0 +0\.[0-9]+' && ok "text: start-up per tool" || fail "text start-up table"
check "HTML report" "$PASSMAP" report "$db" --html "$TMP/r.html"
grep -q 'id=overhead' "$TMP/r.html" && grep -q 't-startup' "$TMP/r.html" && ok "HTML: overhead split and start-up tables" \
  || fail "HTML overhead section"
finish
