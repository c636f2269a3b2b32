#!/usr/bin/env bash
# passmap sweep --backend openvino, end to end through the stand-in libopenvino_c (tests/support/openvino_c.c):
# the child per repeat, per-run folders, NPU log + trace + strategy parsed into the store, import as warm run,
# and the strategy-reuse arm. It checks passmap's plumbing, not a real NPU compiler.
source "$(dirname "$0")/lib.sh"
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
[ -f "$LIB" ] || { fail "stand-in library missing: $LIB"; # --backend / --device on the command line override the spec.
sed -e '/^backend = openvino/d' -e 's/npu-tiny/npu-override/' -e 's/repeats = 2/repeats = 1/' "$TMP/npu.ini" > "$TMP/override.ini"
check "sweep --backend openvino --device CPU overrides the spec" "$PASSMAP" sweep --quiet --backend openvino --device CPU --db "$TMP/ov2.db" "$TMP/override.ini"
[ "$(sqlite3 "$TMP/ov2.db" "select backend from sweep")" = openvino ] && ok "sweep recorded as openvino" || fail "override backend"
n=$(sqlite3 "$TMP/ov2.db" "select count(*) from step where argv like '%--device CPU%'")
[ "$n" = 8 ] && ok "every compile asked for device CPU" || fail "device override: $n"
check_fails "unknown --backend is a usage error" "$PASSMAP" sweep --backend tpu --db "$TMP/x.db" "$TMP/override.ini"
finish; exit 1; }
mkdir -p "$TMP/models"
for p in int4 fp16; do printf '<?xml version="1.0"?>\n<net name="qwen2-%s" version="11"/>\n' $p > "$TMP/models/qwen2-0.5b-$p.xml"; done
cat > "$TMP/npu.ini" <<INI
[sweep]
name = npu-tiny
backend = openvino
repeats = 2
timeout = 60s
[openvino]
device = NPU
lib = $LIB
schedule_trace = true
strategy_json = true
model = models/{family}-{size}-{precision}.xml
[llm q]
models = qwen2:0.5b
windows = 128, 1024
precisions = int4, fp16
variants = stock, reuse-strategy
INI
db=$TMP/npu.db
export PASSMAP_CACHE_DIR=$TMP/cache
check "openvino sweep runs" "$PASSMAP" sweep --quiet --db "$db" "$TMP/npu.ini"
q() { sqlite3 "$db" "$1"; }
[ "$(q "select count(*) from run where mode='cold' and status='ok'")" = 16 ] && ok "16 cold compiles recorded" \
  || fail "cold runs: $(q "select status, note from run limit 3")"
[ "$(q "select count(*) from run where mode='warm'")" = 16 ] && ok "each compile's blob import stored as a warm run" || fail "warm runs"
n=$(q "select count(*) from v_pass where tool='ov-compile' and pass='FeasibleAllocation'")
[ "${n:-0}" -ge 16 ] && ok "NPU timing rows parsed (FeasibleAllocation x$n)" || fail "FeasibleAllocation rows: $n"
n=$(q "select count(distinct report_index) from pass_time")
[ "$n" -ge 2 ] && ok "several report blocks per compile kept apart" || fail "report blocks: $n"
for m in npu.tasks npu.tiles npu.peak_kb ov.compile_s ov.import_s; do
  n=$(q "select count(*) from metric where name='$m'")
  [ "$n" = 16 ] && ok "metric $m per run" || fail "metric $m: $n"
done
# The larger window must cost more in the stand-in (its times scale with the window): the data is not constant.
r=$(q "select (select avg(wall_s) from v_pass where window=1024 and pass='FeasibleAllocation') > (select avg(wall_s) from v_pass where window=128 and pass='FeasibleAllocation')")
[ "$r" = 1 ] && ok "pass time follows the window" || fail "pass time vs window"
reused=$(q "select count(*) from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id where m.name='ov.strategy_reused' and m.value=1 and c.variant='reuse-strategy'")
[ "$reused" -ge 4 ] && ok "reuse-strategy arm reuses the cached strategy ($reused runs)" || fail "strategy reused: $reused"
stock=$(q "select count(*) from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id where m.name='ov.strategy_reused' and m.value=1 and c.variant='stock'")
[ "$stock" = 0 ] && ok "stock arm never reuses" || fail "stock reused: $stock"
v=$(q "select value from meta where key='ov.version'")
[ -n "$v" ] && ok "OpenVINO version recorded ($v)" || fail "ov.version meta"
m=$(q "select json_extract(meta_json, '$.\"ov.version\"') from sweep where name='npu-tiny'")
[ "$m" = "$v" ] && ok "versions in the sweep's method metadata (report/HTML)" || fail "sweep meta ov.version: '$m'"
sed -e "s#lib = .*#lib = $TMP/none.so#" -e 's/npu-tiny/npu-nolib/' "$TMP/npu.ini" > "$TMP/nolib.ini"
"$PASSMAP" sweep --quiet --db "$TMP/nolib.db" "$TMP/nolib.ini" >/dev/null 2>&1
st=$(sqlite3 "$TMP/nolib.db" "select count(*) from run where status='failed'")
err=$(sqlite3 "$TMP/nolib.db" "select stderr_tail from step limit 1")
[ "$st" = 16 ] && [[ "$err" == *"libopenvino_c"* || "$err" == *"none.so"* ]] && ok "missing library: every run recorded as failed, naming it" \
  || fail "missing library: $st failed; $err"
# --backend / --device on the command line override the spec.
sed -e '/^backend = openvino/d' -e 's/npu-tiny/npu-override/' -e 's/repeats = 2/repeats = 1/' "$TMP/npu.ini" > "$TMP/override.ini"
check "sweep --backend openvino --device CPU overrides the spec" "$PASSMAP" sweep --quiet --backend openvino --device CPU --db "$TMP/ov2.db" "$TMP/override.ini"
[ "$(sqlite3 "$TMP/ov2.db" "select backend from sweep")" = openvino ] && ok "sweep recorded as openvino" || fail "override backend"
n=$(sqlite3 "$TMP/ov2.db" "select count(*) from step where argv like '%--device CPU%'")
[ "$n" = 8 ] && ok "every compile asked for device CPU" || fail "device override: $n"
check_fails "unknown --backend is a usage error" "$PASSMAP" sweep --backend tpu --db "$TMP/x.db" "$TMP/override.ini"
finish
