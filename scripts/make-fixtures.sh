#!/usr/bin/env bash
# Regenerates the real-tool timing-report fixtures under tests/fixtures/{mlir,llvm,chrome}.
# Needs mlir-22-tools, llvm-22 (LLVM_BIN overrides the directory) and clang-14. Timings differ on every run and
# tests/unit/test_parse_*.c assert values read off the committed files: after regenerating, update those values.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
FX=$ROOT/tests/fixtures
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
IN=$FX/mlir/input.mlir

# embedded-compiler.md FRONT,TILE,BACK (stock) plus convert-bufferization-to-memref (the deallocation pipeline leaves
# bufferization.clone for returned buffers, which mlir-translate rejects), with small tile sizes so one run takes well under a second.
FRONT='func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline'
TILE='func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=8},canonicalize,affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=4},canonicalize,cse,lower-affine)'
BACK='convert-bufferization-to-memref,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts'
PIPE="builtin.module($FRONT,$TILE,$BACK)"

mlir() { # NAME ARGS...: stderr of one mlir-opt run → mlir/NAME
    local name=$1; shift
    "$LLVM_BIN/mlir-opt" "$IN" --pass-pipeline="$PIPE" --mlir-timing "$@" -o "$TMP/out.mlir" 2>"$FX/mlir/$name"
}
for disp in tree list; do
    mlir "$disp-threaded.txt" --mlir-timing-display=$disp
    mlir "$disp-single.txt" --mlir-timing-display=$disp --mlir-disable-threading
    mlir "$disp-threaded.json" --mlir-timing-display=$disp --mlir-output-format=json
    mlir "$disp-single.json" --mlir-timing-display=$disp --mlir-output-format=json --mlir-disable-threading
done

# LLVM codegen of the lowered module.
"$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$TMP/out.mlir" -o "$FX/llvm/input.ll"
llc() { "$LLVM_BIN/llc" -O2 -filetype=obj "$FX/llvm/input.ll" -o "$TMP/out.o" "$@"; }
llc -time-passes 2>"$FX/llvm/llc-time-passes.txt"
llc -time-passes -time-passes-per-run 2>"$FX/llvm/llc-time-passes-per-run.txt"
# opt (new pass manager) adds an "Analysis execution timing report" section.
"$LLVM_BIN/opt" -passes='default<O2>' -time-passes "$FX/llvm/input.ll" -o "$TMP/out.bc" 2>"$FX/llvm/opt-O2-time-passes.txt"
# opt -passes=verify: VerifierPass and VerifierAnalysis are the same time (the new PM does not pause a pass for
# its analyses); LLVM <= 15's new PM prints one list with nested timers (opt14-O2-time-passes.txt).
"$LLVM_BIN/opt" -passes=verify -time-passes "$FX/llvm/input.ll" -o /dev/null 2>"$FX/llvm/opt22-verify-time-passes.txt"
if command -v opt-14 >/dev/null && command -v clang-14 >/dev/null; then
    clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm "$FX/chrome/input.c" -o "$TMP/in14.ll"
    opt-14 -passes='default<O2>' -time-passes "$TMP/in14.ll" -o /dev/null 2>"$FX/llvm/opt14-O2-time-passes.txt"
fi
# llc 22 has no -time-passes-json; it does have --time-trace (Chrome trace).
llc --time-trace --time-trace-granularity=0 --time-trace-file="$FX/chrome/llc-time-trace.json"

# clang -ftime-trace on a small C file: the other common Chrome-trace producer.
if command -v clang-14 >/dev/null; then
    (cd "$TMP" && clang-14 -O2 -c -ftime-trace -ftime-trace-granularity=0 "$FX/chrome/input.c" -o input.o &&
        cp input.json "$FX/chrome/clang14-ftime-trace.json")
fi
# clang -ftime-report titles differ by version ("... Pass execution timing report ..." in 14, "Clang time report"
# from 20): one report from each end of the range the LLVM text parser supports.
for v in 14 22; do
    if command -v clang-$v >/dev/null; then
        (cd "$TMP" && clang-$v -O2 -c -ftime-report "$FX/chrome/input.c" -o input.o 2>"$FX/llvm/clang$v-ftime-report.txt")
    fi
done
# gcc -ftime-report ("Time variable" table), plain and with -ftime-report-details.
if command -v gcc >/dev/null; then
    mkdir -p "$FX/gcc"
    gcc -O2 -ftime-report -c "$FX/chrome/input.c" -o "$TMP/g.o" 2>"$FX/gcc/gcc12-O2-ftime-report.txt"
    gcc -O0 -ftime-report -c "$FX/chrome/input.c" -o "$TMP/g.o" 2>"$FX/gcc/gcc12-O0-ftime-report.txt"
    gcc -O2 -ftime-report -ftime-report-details -c "$FX/chrome/input.c" -o "$TMP/g.o" 2>"$FX/gcc/gcc12-O2-details.txt"
fi
echo "fixtures regenerated under $FX"
