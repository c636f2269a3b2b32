#!/usr/bin/env bash
# passmap ov-compile end to end against the stand-in libopenvino_c (tests/support/openvino_c.c): the dlopen path,
# the exact property list, the per-run working directory, export/import timing, strategy reuse, and the errors.
source "$(dirname "$0")/lib.sh"
BUILD=${PASSMAP_BUILD:-$ROOT/build}
LIB=$BUILD/tests/libopenvino_c.so
[ -f "$LIB" ] || { fail "stand-in $LIB not built (make test-support)"; finish; exit 1; }

printf '<?xml version="1.0"?>\n<net name="tiny" version="11"/>\n' >"$TMP/m.xml"
printf 'weights' >"$TMP/m.bin"
mkdir -p "$TMP/run1" "$TMP/run2" "$TMP/run3" "$TMP/cpu"

# result FILE KEY: the raw JSON value of KEY on the PASSMAP-OV-RESULT line.
result() { grep '^PASSMAP-OV-RESULT ' "$1" | tail -1 | grep -o "\"$2\":[^,}]*" | head -1 | cut -d: -f2-; }

PASSMAP_FAKEOV_PROPS_OUT=$TMP/props1.txt \
  check "ov-compile succeeds" "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 \
    --schedule-trace --strategy-out --import --workdir "$TMP/run1"
PASSMAP_FAKEOV_PROPS_OUT=$TMP/props1.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 \
  --schedule-trace --strategy-out --import --workdir "$TMP/run1" >"$TMP/out1.txt" 2>"$TMP/err1.txt"

# Two result lines with --import: the compile's before the import (an import that kills the process cannot lose
# it) and the final one; readers take the last.
[ "$(grep -c '^PASSMAP-OV-RESULT {' "$TMP/out1.txt")" = 2 ] \
  && grep '^PASSMAP-OV-RESULT ' "$TMP/out1.txt" | head -1 | grep -q '"ok":true.*"import_s":null.*"import_skipped":"the import had not finished' \
  && ok "interim result line before the import, final one after" || fail "result line count"
[ "$(tail -1 "$TMP/out1.txt" | cut -c1-18)" = "PASSMAP-OV-RESULT " ] && ok "result line is last" || fail "result line not last"
[ "$(result "$TMP/out1.txt" ok)" = true ] && ok "ok is true" || fail "ok: $(result "$TMP/out1.txt" ok)"
[ "$(result "$TMP/out1.txt" n_property_args)" = 28 ] && ok "28 property args" || fail "n_property_args"
for k in compile_s export_s import_s read_s; do
  v=$(result "$TMP/out1.txt" $k)
  [[ "$v" =~ ^[0-9.eE+-]+$ ]] && ok "$k is a number ($v)" || fail "$k is '$v'"
done
[ "$(result "$TMP/out1.txt" blob_bytes)" = $((47 + 4096 + 16 * 512 + 7)) ] && ok "blob size (with the weights)" || fail "blob_bytes"
[ "$(result "$TMP/out1.txt" blob_weightless)" = false ] && ok "CACHE_MODE=OPTIMIZE_SPEED: blob with weights" || fail "weightless"
[ "$(result "$TMP/out1.txt" compiler_type)" = '"PREFER_PLUGIN"' ] && [ "$(result "$TMP/out1.txt" compiler_type_source)" = '"core"' ] \
  && ok "compiler type read back, marked as the core's default" || fail "compiler_type"
[ "$(result "$TMP/out1.txt" compiler_type_resolved)" = '"DRIVER"' ] && [ "$(result "$TMP/out1.txt" compiler_type_set)" = '"DRIVER"' ] \
  && ok "compiler type pinned (DRIVER on a device) and recorded as the one used" || fail "compiler_type_resolved"
[ "$(result "$TMP/out1.txt" compiler_version_decoded)" = '"7.6"' ] && ok "compiler version decoded" || fail "compiler version"
[ "$(result "$TMP/out1.txt" instrumented)" = true ] && ok "instrumented run says so" || fail "instrumented"
[ "$(result "$TMP/out1.txt" openvino_version)" = '"2026.0.0-standin"' ] && ok "OpenVINO version" || fail "version"
for f in compileTimeScheduleTrace.json strategy_out.json model.blob; do
  [ -s "$TMP/run1/$f" ] && ok "$f in the workdir" || fail "$f missing from the workdir"
done
[ ! -e "$PWD/compileTimeScheduleTrace.json" ] || [ "$PWD" = "$TMP/run1" ] && ok "no trace in the caller's cwd" || fail "trace leaked to cwd"
grep -q 'MultiClusterStrategyAssignment' "$TMP/out1.txt" && ok "compiler log on stdout" || fail "no compiler log"
grep -q '^ov-compile: NPU compile' "$TMP/err1.txt" && ok "summary on stderr" || fail "no summary"

# The captured stdout is an NPU log: one report block per NPUW subgraph compile (2 prefill, 2 generate, 1 LM
# head), the result line ignored.
"$PASSMAP" parse "$TMP/out1.txt" >"$TMP/parse1.txt" 2>&1
grep -q '^format npu-log, 5 report(s)' "$TMP/parse1.txt" && ok "passmap parse reads the stdout as npu-log" \
  || { fail "parse of the stdout"; tail -3 "$TMP/parse1.txt" | sed 's/^/#   /'; }
grep -q '^MultiClusterStrategyAssignment' "$TMP/parse1.txt" && ok "strategy pass parsed" || fail "no strategy pass row"
[ "$(grep -c '^\[ NPUW:INFO \] Compiling Subgraph\[[0-9]*\]: model_\(prefill\|kv[0-9]*\|lm_head\)' "$TMP/out1.txt")" = 5 ] \
  && ok "OPENVINO_NPUW_LOG_LEVEL=INFO set for the compile: NPUW names each subgraph's submodel" || fail "no NPUW lines"

cat >"$TMP/expect1.txt" <<EOF
nargs=28
device=NPU
cwd=$(cd "$TMP/run1" && pwd -P)
LOG_LEVEL=LOG_INFO
NPU_BYPASS_UMD_CACHING=YES
NPU_COMPILER_TYPE=DRIVER
NPU_USE_NPUW=YES
NPUW_LLM=YES
NPUW_LLM_MAX_PROMPT_LEN=512
NPUW_LLM_MIN_RESPONSE_LEN=128
NPUW_LLM_BATCH_DIM=0
NPUW_LLM_SEQ_LEN_DIM=2
NPUW_LLM_PREFILL_ATTENTION_HINT=STATIC
NPUW_LLM_GENERATE_ATTENTION_HINT=STATIC
NPUW_LLM_SHARED_HEAD=YES
CACHE_MODE=OPTIMIZE_SPEED
NPU_COMPILATION_MODE_PARAMS=compute-layers-with-higher-precision=Sqrt,Power,ReduceMean,Add_RMSNorm optimization-level=3 enable-schedule-trace=true write-strategy-to-json=true
EOF
check "property list exactly as documented" diff "$TMP/expect1.txt" "$TMP/props1.txt"

# --prop overrides and merges; CPU gets no NPU-only keys.
PASSMAP_FAKEOV_PROPS_OUT=$TMP/props2.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --device CPU \
  --prop PERFORMANCE_HINT=LATENCY --log-level LOG_WARNING --workdir "$TMP/cpu" >/dev/null 2>&1
printf 'nargs=4\ndevice=CPU\ncwd=%s\nLOG_LEVEL=LOG_WARNING\nPERFORMANCE_HINT=LATENCY\n' "$(cd "$TMP/cpu" && pwd -P)" >"$TMP/expect2.txt"
check "CPU property list" diff "$TMP/expect2.txt" "$TMP/props2.txt"

# A stock NPUW compile sends no compilation-mode params at all (a user value would replace NPUW's default).
PASSMAP_FAKEOV_PROPS_OUT=$TMP/props-stock.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 \
  --prefill-hint STATIC --generate-pyramid NO --import --workdir "$TMP/run1" >"$TMP/out-stock.txt" 2>&1
! grep -q '^NPU_COMPILATION_MODE_PARAMS' "$TMP/props-stock.txt" && ok "stock run: no mode params" || fail "stock sent mode params"
grep -qx 'NPUW_LLM_PREFILL_HINT=STATIC' "$TMP/props-stock.txt" && grep -qx 'NPUW_LLM_GENERATE_PYRAMID=NO' "$TMP/props-stock.txt" \
  && ok "prefill hint and generate pyramid sent" || fail "window settings"
[ "$(result "$TMP/out-stock.txt" instrumented)" = false ] && ok "stock run is not instrumented" || fail "stock instrumented"

# The warm path: a weightless NPUW blob (CACHE_MODE=OPTIMIZE_SIZE) does not import through the C API. The compile
# still counts (exit 0, ok); the import failure is reported with its reason.
"$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 --cache-mode OPTIMIZE_SIZE --import \
  --workdir "$TMP/run1" >"$TMP/out-wl.txt" 2>"$TMP/err-wl.txt"; rc=$?
[ $rc = 0 ] && [ "$(result "$TMP/out-wl.txt" ok)" = true ] && ok "failed import: the compile is still ok" || fail "weightless rc=$rc"
grep -q '"import_error":"ov_core_import_model failed.*WEIGHTS_PATH' "$TMP/out-wl.txt" && ok "import error with its reason" \
  || fail "no import_error"
[ "$(result "$TMP/out-wl.txt" blob_bytes)" = $((47 + 4096 + 16 * 512)) ] && ok "weightless blob size recorded" || fail "weightless size"
grep -q 'import FAILED' "$TMP/err-wl.txt" && ok "summary says the import failed" || fail "summary"

# Offline: no NPU listed, NPU_PLATFORM named: compile and export, no import, recorded offline.
out=$(PASSMAP_FAKEOV_DEVICES=CPU "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 --import \
  --workdir "$TMP/run1" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'device NPU not available.*--platform NPU4000' && ok "no NPU, no platform: says how" \
  || fail "no platform rc=$rc: $out"
PASSMAP_FAKEOV_DEVICES=CPU "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 --import \
  --platform NPU4000 --workdir "$TMP/run1" >"$TMP/out-off.txt" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(result "$TMP/out-off.txt" offline)" = true ] && [ "$(result "$TMP/out-off.txt" import_s)" = null ] \
  && ok "offline compile: ok, recorded offline, no import" || fail "offline rc=$rc"

# The NPUW settings whose defaults move inside 2026.x are pinned (and recorded) from 2026.0 on: a 2026.1 that
# defaults the prefill attention to PYRAMID compiles the same work as 2026.0; 2025.x, which has no such keys
# (NPUW rejects unknown NPUW_LLM_* keys), gets none and the result says so.
for v in 2026.0.0 2026.1.0; do
  PASSMAP_FAKEOV_VERSION=$v PASSMAP_FAKEOV_PROPS_OUT=$TMP/props-$v.txt "$PASSMAP" ov-compile --lib "$LIB" \
    --model "$TMP/m.xml" --window 512 --import --workdir "$TMP/run1" >"$TMP/out-$v.txt" 2>&1
done
grep -qx 'NPUW_LLM_PREFILL_ATTENTION_HINT=STATIC' "$TMP/props-2026.1.0.txt" && grep -qx 'NPUW_LLM_GENERATE_ATTENTION_HINT=STATIC' "$TMP/props-2026.1.0.txt" \
  && grep -qx 'NPUW_LLM_SHARED_HEAD=YES' "$TMP/props-2026.1.0.txt" \
  && [ "$(grep -c 'NPUW:INFO.*model_prefill' "$TMP/out-2026.1.0.txt")" = "$(grep -c 'NPUW:INFO.*model_prefill' "$TMP/out-2026.0.0.txt")" ] \
  && grep -q '"NPUW_LLM_PREFILL_ATTENTION_HINT":"STATIC"' "$TMP/out-2026.1.0.txt" \
  && ok "attention hints and shared head pinned and recorded: 2026.1 compiles what 2026.0 does" || fail "attention pins"
PASSMAP_FAKEOV_VERSION=2025.3.0 PASSMAP_FAKEOV_PROPS_OUT=$TMP/props-2025.txt "$PASSMAP" ov-compile --lib "$LIB" \
  --model "$TMP/m.xml" --window 512 --workdir "$TMP/run1" >"$TMP/out-2025.txt" 2>&1; rc=$?
[ $rc = 0 ] && ! grep -q ATTENTION "$TMP/props-2025.txt" && grep -q '"npuw_pins":"not pinned: OpenVINO 2025.3.0' "$TMP/out-2025.txt" \
  && ok "2025.x: no attention keys sent (unknown there), the result says they were not pinned" || fail "2025 rc=$rc"
out=$("$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 --prop NPUW_LLM_BOGUS=1 --workdir "$TMP/run1" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'Unsupported configuration key: NPUW_LLM_BOGUS' && ok "stand-in rejects unknown NPUW_LLM_* keys" || fail "bogus key rc=$rc"

# Offline and instrumented: NPUW adds its arch defaults (optimization-level=3 on 4000) only with a device, so
# passmap keeps only NPUW's precision default in front; the weights bank stays on the host (no device context).
PASSMAP_FAKEOV_DEVICES=CPU PASSMAP_FAKEOV_PROPS_OUT=$TMP/props-off.txt "$PASSMAP" ov-compile --lib "$LIB" \
  --model "$TMP/m.xml" --window 512 --schedule-trace --platform NPU4000 --export "$TMP/run1/model.blob" --workdir "$TMP/run1" \
  >"$TMP/out-off2.txt" 2>&1; rc=$?
[ $rc = 0 ] && grep -qx 'NPU_COMPILATION_MODE_PARAMS=compute-layers-with-higher-precision=Sqrt,Power,ReduceMean,Add_RMSNorm enable-schedule-trace=true' "$TMP/props-off.txt" \
  && ok "offline instrumented: no optimization-level=3 prepended" || fail "offline mode params rc=$rc: $(grep MODE "$TMP/props-off.txt")"
grep -qx 'NPUW_WEIGHTS_BANK_ALLOC=CPU' "$TMP/props-off.txt" && [ "$(result "$TMP/out-off2.txt" ok)" = true ] \
  && ok "offline NPUW: NPUW_WEIGHTS_BANK_ALLOC=CPU, the compile completes" || fail "offline weights bank"
grep -q 'NPUW_WEIGHTS_BANK_ALLOC' "$TMP/props1.txt" && fail "weights bank alloc sent on a device" || ok "on a device: the bank where NPUW puts it"

# The result line is written before teardown: a crash in OpenVINO's teardown does not lose it.
PASSMAP_FAKEOV_CRASH_TEARDOWN=1 "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --workdir "$TMP/run1" \
  >"$TMP/out-crash.txt" 2>/dev/null; rc=$?
[ $rc != 0 ] && [ "$(result "$TMP/out-crash.txt" ok)" = true ] && ok "teardown crash: result line already written" \
  || fail "teardown crash rc=$rc"

# Deterministic strategy replay through the cache (not under NPUW): the first compile stores strategy_out.json,
# the second is offered it; the search still runs at full cost (replay overwrites its result afterwards).
export PASSMAP_CACHE_DIR=$TMP/cache
"$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --reuse-strategy --workdir "$TMP/run2" \
  >"$TMP/out2.txt" 2>&1
[ "$(result "$TMP/out2.txt" strategy_reused)" = false ] && ok "first compile: no strategy to reuse" || fail "reused on first"
key=$(result "$TMP/out2.txt" strategy_key | tr -d '"')
[ -s "$TMP/cache/strategy/$key.json" ] && ok "strategy stored under its key" || fail "no cache/strategy/$key.json"
PASSMAP_FAKEOV_PROPS_OUT=$TMP/props3.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" \
  --reuse-strategy --workdir "$TMP/run3" >"$TMP/out3.txt" 2>&1
[ "$(result "$TMP/out3.txt" strategy_reused)" = true ] && ok "second compile reuses the strategy" || fail "not reused"
grep -qx 'NPU_COMPILATION_MODE_PARAMS=read-strategy-from-json=true' "$TMP/props3.txt" && ok "read-strategy-from-json passed" \
  || fail "read-strategy-from-json missing"
check "strategy_in.json in the workdir" cmp "$TMP/cache/strategy/$key.json" "$TMP/run3/strategy_in.json"
mc() { grep 'MultiClusterStrategyAssignment' "$1" | head -1 | awk '{print $4}'; }
[ -n "$(mc "$TMP/out2.txt")" ] && [ "$(mc "$TMP/out2.txt")" = "$(mc "$TMP/out3.txt")" ] \
  && ok "replay: the strategy search costs the same (no faked speed-up)" || fail "mc time $(mc "$TMP/out2.txt") -> $(mc "$TMP/out3.txt")"
out=$("$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 512 --reuse-strategy 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q 'off under NPUW' && ok "--reuse-strategy refused under NPUW" || fail "reuse+window rc=$rc"
unset PASSMAP_CACHE_DIR

# Errors: missing library (explicit and default search), bad device, usage.
out=$(env -u PASSMAP_OPENVINO_LIB LD_LIBRARY_PATH=/nonexistent "$PASSMAP" ov-compile --model "$TMP/m.xml" 2>&1); rc=$?
[ $rc = 1 ] && ok "missing library exits 1" || fail "missing library rc=$rc"
echo "$out" | grep -qF 'passmap ov-compile: libopenvino_c.so not found (install OpenVINO or set PASSMAP_OPENVINO_LIB)' \
  && ok "missing library message" || { fail "missing library message"; echo "$out" | sed 's/^/#   /'; }
echo "$out" | grep -q '^PASSMAP-OV-RESULT {"schema":2,"ok":false' && ok "failure still has a result line" || fail "no failure result line"
out=$(PASSMAP_OPENVINO_LIB=$TMP/nope.so "$PASSMAP" ov-compile --model "$TMP/m.xml" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "not found: $TMP/nope.so" && ok "PASSMAP_OPENVINO_LIB is used" || fail "env lib rc=$rc"
out=$("$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --device NOPE --workdir "$TMP" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -qF 'device NOPE not available; OpenVINO lists: CPU, GPU, NPU' \
  && ok "bad device: clear error, exit 1" || fail "bad device rc=$rc: $out"
"$PASSMAP" ov-compile --lib "$LIB" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "no --model is a usage error" || fail "usage rc=$rc"
"$PASSMAP" ov-compile --help | grep -q -- '--reuse-strategy' && ok "--help" || fail "--help"

# The compiler that ran (issue 38): DRIVER pinned on a core whose default is the plugin's (2026.1). An NPUW
# compiled model does not answer NPU_COMPILER_VERSION; the core answers with its own type unless the pinned one
# is set on it first: the version recorded, and where it came from, are DRIVER's (7.6), not PLUGIN's (7.9).
mkdir -p "$TMP/drv"
PASSMAP_FAKEOV_VERSION=2026.1.0 "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 128 \
  --compiler-type DRIVER --workdir "$TMP/drv" >"$TMP/drv.out" 2>"$TMP/drv.err"; rc=$?
[ $rc = 0 ] && [ "$(result "$TMP/drv.out" compiler_version)" = '"458758"' ] \
  && [ "$(result "$TMP/drv.out" compiler_version_source)" = '"core with NPU_COMPILER_TYPE=DRIVER"' ] \
  && grep -q 'compiler DRIVER 7.6 (version from the core with NPU_COMPILER_TYPE=DRIVER)' "$TMP/drv.err" \
  && ok "DRIVER pinned on a PLUGIN-default core: DRIVER's version, its source recorded" \
  || fail "pinned DRIVER version rc=$rc: $(result "$TMP/drv.out" compiler_version) $(result "$TMP/drv.out" compiler_version_source)"

# A refused key is named: a 2026 plugin refuses keys the selected compiler does not list.
out=$(PASSMAP_FAKEOV_REFUSE=NPU_BYPASS_UMD_CACHING "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" \
  --workdir "$TMP/drv" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q '"refused_property":"NPU_BYPASS_UMD_CACHING"' \
  && echo "$out" | grep -q '^passmap ov-compile: refused property NPU_BYPASS_UMD_CACHING ' \
  && ok "refused key named in the result and on stderr" || fail "refused key rc=$rc: $out"

# What was compiled, not what was sent: NPUW rounds the window up to 64; the compiled model says so.
"$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 1000 --min-response-len 100 --workdir "$TMP/drv" \
  >"$TMP/eff.out" 2>"$TMP/eff.err"; rc=$?
[ $rc = 0 ] && grep '^PASSMAP-OV-RESULT ' "$TMP/eff.out" | tail -1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read().split(" ", 1)[1])
e, p = d["effective"], d["properties"]
assert p["NPUW_LLM_MAX_PROMPT_LEN"] == "1000" and e["NPUW_LLM_MAX_PROMPT_LEN"] == "1024", (p, e)
assert p["NPUW_LLM_MIN_RESPONSE_LEN"] == "100" and e["NPUW_LLM_MIN_RESPONSE_LEN"] == "128", e
assert e["NPUW_LLM_GENERATE_PYRAMID"] == "YES" and e["NPUW_LLM_PREFILL_ATTENTION_HINT"] == "STATIC", e
' && grep -q '^ov-compile: NPUW_LLM_MAX_PROMPT_LEN compiled as 1024 (sent 1000)' "$TMP/eff.err" \
  && ok "effective NPUW values read back and shown where they differ from the sent ones" || fail "effective rc=$rc: $(cat "$TMP/eff.err")"

# Vocabulary: MLIR is gone in 2026 (refused before any compile), HFA is an attention hint, unknown words are usage errors.
out=$(PASSMAP_FAKEOV_PROPS_OUT=$TMP/mlir-props.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" \
  --compiler-type MLIR --workdir "$TMP/drv" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'NPU_COMPILER_TYPE MLIR does not exist in OpenVINO 2026.0.0-standin' && [ ! -e "$TMP/mlir-props.txt" ] \
  && ok "MLIR refused for a 2026 library, before the compile" || fail "MLIR rc=$rc: $out"
out=$(PASSMAP_FAKEOV_VERSION=2025.3.0 PASSMAP_FAKEOV_PROPS_OUT=$TMP/mlir-props.txt "$PASSMAP" ov-compile --lib "$LIB" \
  --model "$TMP/m.xml" --compiler-type MLIR --workdir "$TMP/drv" 2>&1); rc=$?
[ $rc = 0 ] && grep -qx 'NPU_COMPILER_TYPE=MLIR' "$TMP/mlir-props.txt" && ok "MLIR still sent to a 2025.3 library" || fail "MLIR 2025 rc=$rc: $out"
out=$("$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --compiler-type TURBO 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q 'compiler-type is one of PLUGIN, DRIVER, PREFER_PLUGIN' && ok "--compiler-type validated" \
  || fail "compiler-type validation rc=$rc: $out"
PASSMAP_FAKEOV_PROPS_OUT=$TMP/hfa-props.txt "$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 128 \
  --prefill-attention-hint HFA --generate-attention-hint HFA --workdir "$TMP/drv" >/dev/null 2>&1; rc=$?
[ $rc = 0 ] && grep -qx 'NPUW_LLM_PREFILL_ATTENTION_HINT=HFA' "$TMP/hfa-props.txt" \
  && grep -qx 'NPUW_LLM_GENERATE_ATTENTION_HINT=HFA' "$TMP/hfa-props.txt" && ok "HFA accepted and sent" || fail "HFA rc=$rc"

# The import: past the stated share of RAM it is not attempted, and says why.
"$PASSMAP" ov-compile --lib "$LIB" --model "$TMP/m.xml" --window 128 --import --import-max-ram-share 1e-12 \
  --workdir "$TMP/drv" >"$TMP/ram.out" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(result "$TMP/ram.out" import_skipped_ram)" = true ] \
  && grep -q 'no import (not attempted: the weights (0.0 MB) exceed 1e-10% of RAM' "$TMP/ram.out" \
  && ok "import skipped with a stated reason above the RAM share" || fail "RAM share rc=$rc: $(tail -2 "$TMP/ram.out")"
finish
