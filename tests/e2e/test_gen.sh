#!/usr/bin/env bash
# passmap gen: listing, errors, info, and the generated IR through the real embedded compiler
# (mlir-opt tiling pipeline -> mlir-translate -> llc) for one small config per precision.
source "$(dirname "$0")/lib.sh"

check "gen list" "$PASSMAP" gen list
"$PASSMAP" gen list >"$TMP/list.txt" 2>&1
if grep -q '^llm *qwen2 *0.5b 1.5b 7b$' "$TMP/list.txt" && grep -q '^llm *gemma2 *2b 9b$' "$TMP/list.txt"; then
  ok "gen list shows families and sizes"; else fail "gen list content"; cat "$TMP/list.txt" | sed 's/^/#   /'; fi
"$PASSMAP" gen list --json >"$TMP/list.json"
if grep -q '"phi3"' "$TMP/list.json" && grep -q '"1.1b"' "$TMP/list.json"; then ok "gen list --json"; else fail "gen list --json"; fi

"$PASSMAP" gen llm --family mistral --window 8 --precision int4 >/dev/null 2>"$TMP/bad.err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q 'gemma2, tinyllama, llama3.2, phi3, qwen2' "$TMP/bad.err"; then ok "bad family: usage error listing families"
else fail "bad family (rc=$rc)"; sed 's/^/#   /' "$TMP/bad.err"; fi
check_fails "missing --window" "$PASSMAP" gen llm --family qwen2 --precision int4
check_fails "bad precision" "$PASSMAP" gen llm --family qwen2 --window 8 --precision bf16
check "gen cnn writes a module" "$PASSMAP" gen cnn --family resnet18 --resolution 64 --precision int8 --blocks 2 -o "$TMP/c.mlir"
check "the CNN module verifies in mlir-opt" "$LLVM_BIN/mlir-opt" "$TMP/c.mlir" -o "$TMP/c-verified.mlir"
grep -q 'linalg.conv_2d' "$TMP/c.mlir" && grep -q 'arith.sitofp' "$TMP/c.mlir" && ok "CNN int8: convolutions with dequantised weights" \
  || fail "CNN int8 module content"
check_fails "gen cnn: bad resolution is an error" "$PASSMAP" gen cnn --family resnet18 --resolution 33 --precision int8 -o "$TMP/c2.mlir"
check_fails "gen cnn: unknown family is an error" "$PASSMAP" gen cnn --family vgg --resolution 64 --precision int8 -o "$TMP/c2.mlir"

"$PASSMAP" gen llm --family qwen2 --size 0.5b --window 16 --precision int4 --layers 2 -o "$TMP/q.mlir" --json >"$TMP/info.json"
if grep -q '"params": 494032768' "$TMP/info.json" && grep -q '"layers_emitted": 2' "$TMP/info.json" \
   && grep -q '"layers_total": 24' "$TMP/info.json"; then ok "gen --json info"; else fail "gen --json info"; cat "$TMP/info.json"; fi
"$PASSMAP" gen llm --family qwen2 --window 16 --precision int4 --layers 1 --info >"$TMP/q1.mlir" 2>"$TMP/info.txt"
if grep -q 'params 494032768' "$TMP/info.txt" && head -2 "$TMP/q1.mlir" | grep -q '^module {'; then ok "gen --info to stderr, module to stdout"
else fail "gen --info"; fi

PIPE='builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline,func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=256},canonicalize,affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=16},canonicalize,cse,lower-affine),convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)'
compile() { # NAME: compiles $TMP/NAME.mlir through the three tools
  local d=$TMP/$1
  mkdir -p "$d"
  "$LLVM_BIN/mlir-opt" "$d.mlir" --pass-pipeline="$PIPE" --mlir-timing --mlir-timing-display=tree --emit-bytecode \
      -o "$d/out.mlirbc" 2>"$d/opt.err" &&
  "$LLVM_BIN/mlir-translate" --mlir-to-llvmir --mlir-timing "$d/out.mlirbc" -o "$d/out.ll" 2>"$d/tr.err" &&
  "$LLVM_BIN/llc" -O2 -filetype=obj -time-passes "$d/out.ll" -o "$d/out.o" 2>"$d/llc.err"
}
for cfg in "qwen2 0.5b int4 0" "phi3 3.8b int8 1" "gemma2 2b fp16 0"; do
  set -- $cfg
  name=$1-$3
  fpl=(); [ "$4" = 1 ] && fpl=(--func-per-layer)
  if ! "$PASSMAP" gen llm --family "$1" --size "$2" --window 32 --precision "$3" --layers 1 "${fpl[@]}" -o "$TMP/$name.mlir"; then
    fail "$name: gen"; continue; fi
  if compile "$name"; then ok "$name: mlir-opt -> mlir-translate -> llc"; else
    fail "$name: compile"; tail -n 5 "$TMP/$name"/*.err | sed 's/^/#   /'; continue; fi
  d=$TMP/$name
  if [ -s "$d/out.o" ] && grep -q 'Execution time report' "$d/opt.err" && grep -q 'AffineLoopTiling' "$d/opt.err" \
     && grep -q 'Translate MLIR to LLVMIR' "$d/tr.err" && grep -q 'Pass execution timing report' "$d/llc.err" \
     && grep -q 'X86 DAG->DAG Instruction Selection' "$d/llc.err"; then ok "$name: object and three timing reports"
  else fail "$name: outputs"; fi
done
finish
