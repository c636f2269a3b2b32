#!/usr/bin/env bash
# passmap sweep --backend openvino, end to end through the stand-in libopenvino_c (tests/support/openvino_c.c):
# the child per repeat, per-run folders, NPU log + trace + strategy parsed into the store, stock runs apart from
# instrumented ones, the blob import as a warm run (a failed import as a failed warm run), offline compiles.
# It checks passmap's plumbing, not a real NPU compiler.
source "$(dirname "$0")/lib.sh"
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
[ -f "$LIB" ] || { fail "stand-in library missing: $LIB"; finish; exit 1; }
for p in int4 fp16; do
  mkdir -p "$TMP/models/qwen2-0.5b-$p"   # optimum's layout: <dir>/openvino_model.xml
  printf '<?xml version="1.0"?>\n<net name="qwen2-%s" version="11"/>\n' $p > "$TMP/models/qwen2-0.5b-$p/openvino_model.xml"
  printf 'weights-%s' $p > "$TMP/models/qwen2-0.5b-$p/openvino_model.bin"
done
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
task_stats = true
prefill_hint = STATIC
generate_pyramid = false
model = models/{family}-{size}-{precision}/openvino_model.xml
[llm q]
models = qwen2:0.5b
windows = 128, 1024
precisions = int4, fp16
variants = stock, instrumented
INI
db=$TMP/npu.db
check "openvino sweep runs" "$PASSMAP" sweep --quiet --db "$db" "$TMP/npu.ini"
q() { sqlite3 "$db" "$1"; }
[ "$(q "select count(*) from run where mode='cold' and status='ok'")" = 16 ] && ok "16 cold compiles recorded ok" \
  || fail "cold runs: $(q "select status, note from run limit 3")"
m() { q "select count(*) from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id where $1"; }
[ "$(m "m.name='ov.instrumented' and m.value=1 and c.variant='instrumented' and r.mode='cold'")" = 8 ] && \
  [ "$(m "m.name='ov.instrumented' and m.value=0 and c.variant='stock' and r.mode='cold'")" = 8 ] \
  && ok "instrumented runs recorded apart from stock ones" || fail "ov.instrumented"
[ "$(m "m.name='npu.tasks' and c.variant='stock'")" = 0 ] && [ "$(m "m.name='npu.tasks' and c.variant='instrumented'")" = 8 ] \
  && ok "schedule trace only in instrumented runs" || fail "npu.tasks per variant"
[ "$(m "m.name='npu.vpuip.total' and c.variant='instrumented' and m.value > 0")" = 8 ] && [ "$(m "m.name='npu.vpuip.total' and c.variant='stock'")" = 0 ] \
  && ok "task statistics (dump-task-stats) only in instrumented runs" || fail "npu.vpuip.total per variant"
n=$(q "select count(*) from step s join run r on r.id=s.run_id join config c on c.id=r.config_id where c.variant='stock' and s.argv like '%--schedule-trace%'")
[ "$n" = 0 ] && ok "stock compiles ask for no instrumentation" || fail "stock argv: $n"
[ "$(q "select count(*) from run r join config c on c.id=r.config_id where r.mode='warm' and r.status='ok' and c.variant='stock' and r.wall_s > 0")" = 8 ] \
  && ok "each stock compile's blob import stored as a warm run with its time" || fail "warm runs: $(q "select count(*), status from run where mode='warm' group by status")"
[ "$(q "select count(*) from run r join config c on c.id=r.config_id where r.mode='warm' and c.variant='instrumented'")" = 0 ] \
  && ok "instrumented runs are not imported" || fail "instrumented warm runs"
[ "$(m "m.name='ov.blob_bytes' and c.variant='stock'")" = 8 ] && [ "$(m "m.name='ov.blob_bytes_weightless' and c.variant='instrumented'")" = 8 ] \
  && ok "blob size with weights (stock) and without (instrumented)" || fail "blob sizes"
n=$(q "select count(*) from v_pass where tool='ov-compile' and pass='FeasibleAllocation'")
[ "${n:-0}" -ge 16 ] && ok "NPU timing rows parsed (FeasibleAllocation x$n)" || fail "FeasibleAllocation rows: $n"
n=$(q "select count(distinct report_index) from pass_time")
[ "$n" -ge 5 ] && ok "one report block per NPUW subgraph compile kept apart ($n)" || fail "report blocks: $n"
for k in npu.submodel.prefill.blocks npu.submodel.generate.blocks npu.submodel.lm_head.blocks npu.compile_net_ms npu.elf_export_ms ov.compile_s; do
  n=$(q "select count(*) from metric where name='$k'")
  [ "$n" = 16 ] && ok "metric $k per run" || fail "metric $k: $n"
done
# NPUW names its submodels only on "[ NPUW:INFO ] " lines (OPENVINO_NPUW_LOG_LEVEL=INFO, set by ov-compile); the
# compiler's "generated N barriers" lines name nothing. 2 prefill subgraphs, 1 LM head, none unattributed.
[ "$(m "m.name='npu.submodel.prefill.blocks' and m.value=2")" = 16 ] && [ "$(m "m.name='npu.submodel.lm_head.blocks' and m.value=1")" = 16 ] \
  && [ "$(m "m.name='npu.submodel.unattributed.blocks'")" = 0 ] \
  && ok "blocks attributed by NPUW's own lines and names only" || fail "submodel attribution: $(q "select name, value from metric where name like 'npu.submodel.%.blocks' limit 8")"
[ "$(m "m.name='ov.npuw.prefill_static' and m.value=1")" = 16 ] && ok "NPUW_LLM_PREFILL_HINT=STATIC recorded per run" || fail "prefill_static"
# STATIC prefill: the prefill is compiled at the window, so it costs more at 1024 than at 128.
r=$(q "select (select avg(wall_s) from v_pass where window=1024 and pass='FeasibleAllocation' and report_index=0) > (select avg(wall_s) from v_pass where window=128 and pass='FeasibleAllocation' and report_index=0)")
[ "$r" = 1 ] && ok "prefill pass time follows the window" || fail "pass time vs window"
v=$(q "select value from meta where key='ov.version'")
[ -n "$v" ] && ok "OpenVINO version recorded ($v)" || fail "ov.version meta"
m2=$(q "select json_extract(meta_json, '$.\"ov.version\"') from sweep where name='npu-tiny'")
[ "$m2" = "$v" ] && ok "versions in the sweep's method metadata (report/HTML)" || fail "sweep meta ov.version: '$m2'"
[ "$(q "select value from meta where key='ov.compiler_version_decoded'")" = 7.6 ] && ok "decoded compiler version recorded" || fail "compiler version"
[ "$(q "select value from meta where key='ov.npuw.prefill_attention_hint'")" = STATIC ] && [ "$(q "select value from meta where key='ov.npuw.generate_attention_hint'")" = STATIC ] \
  && [ "$(q "select value from meta where key='ov.npuw.shared_head'")" = YES ] \
  && [ "$(q "select json_extract(meta_json, '$.\"ov.npuw.shared_head\"') from sweep where name='npu-tiny'")" = YES ] \
  && ok "pinned attention hints and shared head in the run's metadata" || fail "attention pins meta: $(q "select key, value from meta where key like 'ov.npuw%'")"

# The report: which runs were instrumented, the prefill / generate / LM-head split, the ELF export time; the fix
# table summarises stock configs only.
"$PASSMAP" report "$db" > "$TMP/report.txt" 2>&1
grep -q '^NPU (OpenVINO) runs' "$TMP/report.txt" && grep -q '4 stock and 4 instrumented config(s)' "$TMP/report.txt" \
  && grep -Eq '^llm/qwen2/0.5b/w1024/fp16/L1/instrumented +instrumented ' "$TMP/report.txt" \
  && ok "text report marks the instrumented configs" || fail "report text: $(sed -n '/NPU/,$p' "$TMP/report.txt")"
"$PASSMAP" report "$db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = d["npu"]
assert n["instrumented_configs"] == 4 and n["stock_configs"] == 4, n
for c in n["configs"]:
    assert c["instrumented"] == c["config"].endswith("/instrumented"), c
    assert c["prefill_s"] > 0 and c["generate_s"] > 0 and c["lm_head_s"] > 0, c
    assert c["elf_export_ms"] > 0 and c["compile_net_ms"] > c["elf_export_ms"], c
    assert (c["blob_bytes"] is None) == c["instrumented"] and (c["blob_weightless_bytes"] is None) != c["instrumented"], c
assert sum(f["configs"] for f in d["fixes"]) == 4, d["fixes"]
# NPUW LLM configs: the trace is the LM head's only, the pass time the whole compile's: never fitted together
npu_fits = [f for f in d["fits"] if f["x_metric"].startswith("npu.")]
assert npu_fits and all(f["n"] == 0 and f["npuw_left_out"] == 4 for f in npu_fits), npu_fits
' && ok "report JSON: submodel split, ELF export, blob sizes; fix table over stock configs only" || fail "report json"
if "$PASSMAP" report "$db" --html "$TMP/report.html" >/dev/null 2>&1; then
  grep -q '<h2 id=npu>NPU (OpenVINO) runs</h2>' "$TMP/report.html" && [ "$(grep -c '<tr class=instrumented>' "$TMP/report.html")" = 4 ] \
    && grep -q 'ELF export (s)' "$TMP/report.html" && ok "HTML report: NPU section, instrumented rows marked" || fail "report html"
else
  fail "passmap report --html failed"
fi

# A blob that cannot be imported (weightless NPUW export): the cold compile stays ok, the warm run fails with the reason.
sed -e 's/npu-tiny/npu-weightless/' -e 's/^variants = .*/variants = stock/' -e 's/^repeats = 2/repeats = 1/' \
  -e 's/^\[openvino\]/[openvino]\nprops = CACHE_MODE=OPTIMIZE_SIZE/' "$TMP/npu.ini" > "$TMP/wl.ini"
check "weightless sweep runs" "$PASSMAP" sweep --quiet --db "$TMP/wl.db" "$TMP/wl.ini"
[ "$(sqlite3 "$TMP/wl.db" "select count(*) from run where mode='cold' and status='ok'")" = 4 ] && \
  [ "$(sqlite3 "$TMP/wl.db" "select count(*) from run where mode='warm' and status='failed' and note like '%WEIGHTS_PATH%'")" = 4 ] \
  && ok "failed import: a failed warm run with its reason, the cold compile kept" \
  || fail "weightless: $(sqlite3 "$TMP/wl.db" "select mode, status, note from run")"

# OpenVINO's teardown (TBB, Level Zero) can crash after the work is done; ov-compile writes its result line
# before it. That result stands: the cold compiles are ok (the note says the process died after it), their
# timing rows are kept, and the import is still a warm run.
sed -e 's/npu-tiny/npu-crash/' -e 's/^variants = .*/variants = stock/' -e 's/^repeats = 2/repeats = 1/' "$TMP/npu.ini" > "$TMP/crash.ini"
PASSMAP_FAKEOV_CRASH_TEARDOWN=1 "$PASSMAP" sweep --quiet --db "$TMP/crash.db" "$TMP/crash.ini" >/dev/null 2>&1
c() { sqlite3 "$TMP/crash.db" "$1"; }
[ "$(c "select count(*) from run where mode='cold' and status='ok' and note like '%crashed%after writing its result%'")" = 4 ] \
  && [ "$(c "select count(*) from run where mode='warm' and status='ok'")" = 4 ] \
  && [ "$(c "select count(*) from v_pass where pass='FeasibleAllocation'")" -ge 4 ] \
  && ok "teardown crash after the result line: the compiles and imports are kept" \
  || fail "teardown crash: $(c "select mode, status, note from run")"

# Phases: the cold run is the compile phase (its wall, CPU and peak RSS, reported by the child); the export and
# the import are measured on their own (ov.export_s, the import as a warm run, their peak RSS as metrics). With
# 48 MB of weights the export writes them, the blob is read back and the import holds a copy: the process's
# peak is far above the compile's.
mkdir -p "$TMP/big/qwen2-0.5b-fp16"
printf '<?xml version="1.0"?>\n<net name="big" version="11"/>\n' > "$TMP/big/qwen2-0.5b-fp16/openvino_model.xml"
head -c $((48 * 1024 * 1024)) /dev/zero > "$TMP/big/qwen2-0.5b-fp16/openvino_model.bin"
sed -e 's/npu-tiny/npu-phases/' -e 's/^variants = .*/variants = stock/' -e 's/^repeats = 2/repeats = 1/' \
  -e 's#^model = models/#model = big/#' -e 's/^windows = .*/windows = 128/' -e 's/^precisions = .*/precisions = fp16/' \
  "$TMP/npu.ini" > "$TMP/phases.ini"
check "phases sweep runs" "$PASSMAP" sweep --quiet --db "$TMP/phases.db" "$TMP/phases.ini"
p() { sqlite3 "$TMP/phases.db" "$1"; }
[ "$(p "select count(*) from run r join metric m on m.run_id=r.id and m.name='ov.compile_s' where r.mode='cold' and r.status='ok' and abs(r.wall_s - m.value) < 1e-9")" = 1 ] \
  && ok "cold run's wall is the child's compile phase" || fail "cold wall: $(p "select r.wall_s, m.value from run r join metric m on m.run_id=r.id and m.name='ov.compile_s'")"
[ "$(p "select count(*) from run r join step s on s.run_id=r.id where r.mode='cold' and r.maxrss_kb > 0 and s.maxrss_kb - r.maxrss_kb > 60000")" = 1 ] \
  && ok "cold run's peak RSS is the compile phase's (the process's, with export and import, kept on the step)" \
  || fail "cold rss: $(p "select r.maxrss_kb, s.maxrss_kb from run r join step s on s.run_id=r.id where r.mode='cold'")"
[ "$(p "select count(*) from metric where name in ('ov.export_s', 'ov.export_peak_rss_kb', 'ov.import_peak_rss_kb')")" = 3 ] \
  && [ "$(p "select count(*) from run where mode='warm' and status='ok'")" = 1 ] \
  && ok "export and import measured apart (metrics, the import as a warm run)" || fail "phase metrics"

# The import reads the whole weights bank back and may kill the process (out of memory): the interim result
# line written after the compile and export keeps the compile, and the import is a failed warm run saying how it
# died (the signal, the peak RSS at death, the weights' size), never a missing row.
PASSMAP_FAKEOV_CRASH_IMPORT=1 "$PASSMAP" sweep --quiet --db "$TMP/crash-imp.db" "$TMP/crash.ini" >/dev/null 2>&1
ci() { sqlite3 "$TMP/crash-imp.db" "$1"; }
[ "$(ci "select count(*) from run where mode='cold' and status='ok' and note like '%crashed%after writing its result%'")" = 4 ] \
  && [ "$(ci "select count(*) from run where mode='warm' and status='failed' and note like 'the import died: ov-compile killed by SIGABRT%peak RSS%weights 0.0 MB%MemTotal%'")" = 4 ] \
  && ok "a crash in the import: the compile stands (interim result line), a failed warm run with how it died" \
  || fail "import crash: $(ci "select mode, status, note from run")"

# Offline: no NPU present, platform named: cold runs ok and marked offline, no warm runs.
sed -e 's/npu-tiny/npu-offline/' -e 's/^variants = .*/variants = stock/' -e 's/^repeats = 2/repeats = 1/' \
  -e 's/^\[openvino\]/[openvino]\nplatform = NPU4000/' "$TMP/npu.ini" > "$TMP/off.ini"
PASSMAP_FAKEOV_DEVICES=CPU check "offline sweep runs" "$PASSMAP" sweep --quiet --db "$TMP/off.db" "$TMP/off.ini"
[ "$(sqlite3 "$TMP/off.db" "select count(*) from run r join metric m on m.run_id=r.id where r.mode='cold' and r.status='ok' and m.name='ov.offline' and m.value=1")" = 4 ] && \
  [ "$(sqlite3 "$TMP/off.db" "select count(*) from run where mode='warm'")" = 0 ] \
  && ok "offline: cold runs ok, recorded offline, nothing imported" || fail "offline: $(sqlite3 "$TMP/off.db" "select mode, status, note from run")"

# An offline study (platform set) on a machine with an NPU: its runs would be on-device compiles pooled with
# offline ones: each run fails saying so, nothing on-device is recorded ok.
"$PASSMAP" sweep --quiet --db "$TMP/off-npu.db" "$TMP/off.ini" >/dev/null 2>&1
[ "$(sqlite3 "$TMP/off-npu.db" "select count(*) from run where status='ok'")" = 0 ] \
  && [ "$(sqlite3 "$TMP/off-npu.db" "select count(*) from step where stderr_tail like '%compiles offline for NPU4000, but this machine has an NPU%'")" = 4 ] \
  && ok "offline study on an NPU machine: refused per run, never pooled with on-device compiles" \
  || fail "offline on NPU: $(sqlite3 "$TMP/off-npu.db" "select mode, status, note from run limit 3")"
# The report says where its numbers come from: offline (the plugin's compiler for a named platform, not the
# compile an NPU runs) or on a device with the pinned compiler.
"$PASSMAP" report "$TMP/off.db" > "$TMP/off-report.txt" 2>&1
grep -q 'offline compiles.*not the compile an NPU runs' "$TMP/off-report.txt" && ok "report: offline numbers say so" \
  || fail "offline report: $(grep -A4 '^NPU' "$TMP/off-report.txt")"
grep -q 'on-device compiles, compiler DRIVER' "$TMP/report.txt" && ok "report: on-device numbers name the pinned compiler" \
  || fail "device report: $(grep -A4 '^NPU' "$TMP/report.txt")"
[ "$(q "select value from meta where key='ov.compiler_type'")" = DRIVER ] && ok "meta: the compiler used (pinned), not the plugin default" \
  || fail "meta compiler type: $(q "select value from meta where key='ov.compiler_type'")"

# reuse-strategy is off under NPUW: a spec asking for it on LLM configs is refused up front.
sed -e 's/npu-tiny/npu-reuse/' -e 's/^variants = .*/variants = stock, reuse-strategy/' "$TMP/npu.ini" > "$TMP/reuse.ini"
out=$("$PASSMAP" sweep --quiet --db "$TMP/reuse.db" "$TMP/reuse.ini" 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q 'off under NPUW' && ok "reuse-strategy on LLM configs refused" || fail "reuse rc=$rc: $out"

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

# The study itself, cut to one model, window, precision and repeat, against the stand-in: ok cold runs, a warm
# run with its import time, the instrumented run apart from the stock one.
sed -e 's/^models = .*/models = qwen2:0.5b/' -e 's/^windows = .*/windows = 128/' -e 's/^precisions = .*/precisions = int4/' \
  -e 's/^repeats = .*/repeats = 1/' -e "s#^device = NPU#device = NPU\nlib = $LIB#" "$ROOT/studies/npu-llm.ini" > "$TMP/study.ini"
check "studies/npu-llm.ini (cut) runs" "$PASSMAP" sweep --quiet --db "$TMP/study.db" "$TMP/study.ini"
s() { sqlite3 "$TMP/study.db" "$1"; }
[ "$(s "select count(*) from run where mode='cold' and status='ok'")" = 2 ] && ok "study: stock and instrumented cold runs ok" \
  || fail "study cold: $(s "select mode, status, note from run")"
[ "$(s "select count(*) from run r join config c on c.id=r.config_id where r.mode='warm' and r.status='ok' and r.wall_s > 0 and c.variant='stock'")" = 1 ] \
  && ok "study: the stock run's import time as a warm run" || fail "study warm"
[ "$(s "select c.variant || '=' || m.value from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id where m.name='ov.instrumented' order by c.variant" | tr '\n' ' ')" = "instrumented=1.0 stock=0.0 " ] \
  && ok "study: instrumented run recorded apart" || fail "study instrumented: $(s "select c.variant, m.value from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id where m.name='ov.instrumented'")"

# Issue 38. A build whose NPUW logging is compiled out prints no "[ NPUW:" line: every run stores the count (0),
# the report says the split is unavailable on this build, and the split inferred from upstream's compile order
# (generate variants, prefill, LM head) shows labelled inferred. Window 1000 also makes NPUW compile other values
# than sent (1024 = align64(1000)): the effective ones are stored and the report shows the difference.
sed -e 's/npu-tiny/npu-nolog/' -e 's/^repeats = 2/repeats = 1/' -e 's/^windows = .*/windows = 1000/' \
  -e 's/^precisions = .*/precisions = int4/' -e 's/^variants = .*/variants = stock/' "$TMP/npu.ini" > "$TMP/nolog.ini"
PASSMAP_FAKEOV_NPUW_NOLOG=1 check "sweep on a build without NPUW lines" "$PASSMAP" sweep --quiet --db "$TMP/nolog.db" "$TMP/nolog.ini"
nl() { sqlite3 "$TMP/nolog.db" "$1"; }
[ "$(nl "select value from metric where name='npu.log.lines.NPUW'")" = 0.0 ] \
  && [ "$(nl "select group_concat(name || '=' || value, ' ') from metric where name like 'npu.submodel.inferred.%.blocks' order by name")" != "" ] \
  && [ "$(nl "select value from metric where name='npu.submodel.inferred.generate.blocks'")" = 2.0 ] \
  && [ "$(nl "select value from metric where name='npu.submodel.inferred.prefill.blocks'")" = 2.0 ] \
  && [ "$(nl "select value from metric where name='npu.submodel.inferred.lm_head.blocks'")" = 1.0 ] \
  && ok "no NPUW lines: the count (0) stored, the split inferred by upstream's order" \
  || fail "nolog metrics: $(nl "select name, value from metric where name like 'npu.%'")"
[ "$(nl "select value from metric where name='ov.npuw.max_prompt_len'")" = 1024.0 ] \
  && [ "$(nl "select value from metric where name='ov.npuw.max_prompt_len.sent'")" = 1000.0 ] \
  && ok "the compiled window (1024) stored, the sent one (1000) beside it" || fail "effective window: $(nl "select name, value from metric where name like 'ov.npuw.%'")"
"$PASSMAP" report "$TMP/nolog.db" > "$TMP/nolog.txt" 2>&1
"$PASSMAP" report "$TMP/nolog.db" --json > "$TMP/nolog.json" 2>&1
grep -q 'submodel split unavailable on this build' "$TMP/nolog.txt" && grep -q 'compiled MAX_PROMPT_LEN 1024 (sent 1000)' "$TMP/nolog.txt" \
  && python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["npu"]["configs"][0]
assert c["split_inferred"] and c["npuw_lines"] == 0 and c["prefill_s"] > 0 and c["unattributed_s"] is None, c
assert c["npuw_settings"]["MAX_PROMPT_LEN"] == {"compiled": 1024, "sent": 1000}, c["npuw_settings"]
' "$TMP/nolog.json" && ok "report: split unavailable, the inferred split labelled, compiled vs sent" \
  || fail "nolog report: $(sed -n '/^NPU/,$p' "$TMP/nolog.txt")"
"$PASSMAP" show "$TMP/nolog.db" 2>&1 | grep -q '^NPUW compiled: MAX_PROMPT_LEN 1024 (sent 1000), MIN_RESPONSE_LEN 128,.* GENERATE_PYRAMID NO' \
  && "$PASSMAP" show "$TMP/nolog.db" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["npuw_settings"]
assert s["MAX_PROMPT_LEN"] == {"compiled": 1024, "sent": 1000} and s["MIN_RESPONSE_LEN"]["sent"] is None, s
' && ok "show: the compiled NPUW settings, the sent one where it differs" || fail "show npuw: $("$PASSMAP" show "$TMP/nolog.db" 2>&1 | tail -2)"

# A refused key is named in the failed run's note (a 2026 plugin refuses what the selected compiler does not list).
sed -e 's/^repeats = 1/repeats = 2/' "$TMP/nolog.ini" > "$TMP/refused.ini"
out=$(PASSMAP_FAKEOV_REFUSE=NPUW_LLM_SHARED_HEAD "$PASSMAP" sweep --quiet --db "$TMP/refused.db" "$TMP/refused.ini" 2>&1)
[ "$(sqlite3 "$TMP/refused.db" "select count(*) from run where status='failed' and note like '%refused property NPUW_LLM_SHARED_HEAD%'")" = 2 ] \
  && [ "$(echo "$out" | grep -c '^passmap sweep: ov-compile failed: refused property NPUW_LLM_SHARED_HEAD')" = 1 ] \
  && ok "sweep: the refused property printed once and named in each run's note" \
  || fail "refused: $out $(sqlite3 "$TMP/refused.db" "select status, note from run")"

# An import that dies (the OOM killer's SIGKILL, or an address-space limit too small for the weights bank) is a
# failed warm run with its reason; the compile is kept.
# (The 48 MB weights of the phases test: more than the limit's 1 MB of slack.)
sed -e 's#^model = models/#model = big/#' -e 's/^precisions = .*/precisions = fp16/' "$TMP/nolog.ini" > "$TMP/big.ini"
for how in KILL_IMPORT IMPORT_RLIMIT_AS; do
  env PASSMAP_FAKEOV_$how=1 "$PASSMAP" sweep --quiet --db "$TMP/imp-$how.db" "$TMP/big.ini" >/dev/null 2>&1
  ik() { sqlite3 "$TMP/imp-$how.db" "$1"; }
  want='the import died: ov-compile killed by SIGKILL%peak RSS%weights 50.3 MB%MemTotal%'
  # the limit ends the import with an allocation failure, or (a sanitizer's allocator) kills the process
  [ $how = IMPORT_RLIMIT_AS ] && want='%import%weights 50.3 MB%'
  [ "$(ik "select count(*) from run where mode='cold' and status='ok'")" = 1 ] \
    && [ "$(ik "select count(*) from run where mode='warm' and status='failed' and note like '$want'")" = 1 ] \
    && ok "import dies ($how): a failed warm run with its reason, the compile kept" \
    || fail "import $how: $(ik "select mode, status, note from run")"
done
# Past the stated share of RAM the import is not attempted: a failed warm run saying why.
sed -e 's/^\[openvino\]/[openvino]\nimport_max_ram_share = 0.000000000001/' "$TMP/nolog.ini" > "$TMP/ram.ini"
"$PASSMAP" sweep --quiet --db "$TMP/ram.db" "$TMP/ram.ini" >/dev/null 2>&1
[ "$(sqlite3 "$TMP/ram.db" "select count(*) from run where mode='warm' and status='failed' and note like 'import not attempted: the weights%exceed%of RAM (MemTotal%'")" = 1 ] \
  && ok "import skipped above the RAM share, stated" || fail "ram skip: $(sqlite3 "$TMP/ram.db" "select mode, status, note from run")"

# Vocabulary: HFA is an attention hint; MLIR is refused by a 2026 library; every [openvino] key is suggested.
sed -e 's/^\[openvino\]/[openvino]\nprefill_attention_hint = HFA\ncompiler_type = MLIR/' "$TMP/nolog.ini" > "$TMP/mlir.ini"
"$PASSMAP" sweep --quiet --db "$TMP/mlir.db" "$TMP/mlir.ini" >/dev/null 2>&1
[ "$(sqlite3 "$TMP/mlir.db" "select count(*) from step where stderr_tail like '%NPU_COMPILER_TYPE MLIR does not exist in OpenVINO 2026%'")" = 1 ] \
  && ok "spec: HFA accepted, MLIR refused by a 2026 library" || fail "mlir spec: $(sqlite3 "$TMP/mlir.db" "select stderr_tail from step")"
sed -e 's/^\[openvino\]/[openvino]\ncompiler_typ = DRIVER/' "$TMP/nolog.ini" > "$TMP/typo.ini"
out=$("$PASSMAP" sweep --quiet --db "$TMP/typo.db" "$TMP/typo.ini" 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q 'compiler_type' && ok "did you mean: compiler_type" || fail "typo rc=$rc: $out"
sed -e 's/^\[openvino\]/[openvino]\nprefill_attention_hnt = HFA/' "$TMP/nolog.ini" > "$TMP/typo2.ini"
out=$("$PASSMAP" sweep --quiet --db "$TMP/typo2.db" "$TMP/typo2.ini" 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q 'prefill_attention_hint' && ok "did you mean: prefill_attention_hint" || fail "typo2 rc=$rc: $out"
finish
