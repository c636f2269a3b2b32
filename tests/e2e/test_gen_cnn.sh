#!/bin/bash
# pm_gen_cnn output through the real embedded compiler (FRONT,TILE,BACK with T=256 U=16, then mlir-translate
# and llc): resnet18 stem at 64 px in fp16 and int8. The generator is called through a tiny C driver linked
# against the library the tests were built with (the `passmap gen cnn` CLI belongs to another module).
source "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$PASSMAP")
if [ ! -x "$LLVM_BIN/mlir-opt" ] || [ ! -f "$BUILD/libpassmap.a" ]; then
  ok "# SKIP no mlir-opt or libpassmap.a"; finish; exit
fi
cat > "$TMP/drv.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "gen.h"
int main(int argc, char **argv)
{
    pm_workload o = {.family = argv[1], .resolution = atoi(argv[2]), .precision = argv[3], .blocks = atoi(argv[4])};
    pm_gen_info info;
    pm_err e;
    FILE *f = fopen(argv[5], "w");
    if (!f) return 1;
    int rc = pm_gen_cnn(&o, f, &info, &e);
    fclose(f);
    if (rc) { fprintf(stderr, "%s\n", e.msg); return 1; }
    printf("%d %d\n", info.layers_emitted, info.linalg_ops);
    return 0;
}
C
check "driver builds" cc -std=c11 -fsanitize=address,undefined $(for d in "$ROOT"/lib/*/; do printf -- "-I%s " "$d"; done) "$TMP/drv.c" "$BUILD/libpassmap.a" -lm -o "$TMP/drv"

FRONT='func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline'
TILE='func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=256},canonicalize,affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=16},canonicalize,cse,lower-affine)'
BACK='convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts'

for prec in fp16 int8; do
  m="$TMP/r18_$prec.mlir"
  out=$("$TMP/drv" resnet18 64 "$prec" 1 "$m")
  if [ "$out" = "1 6" ]; then ok "$prec: stem emitted (1 conv, 6 linalg ops)"; else fail "$prec: got '$out'"; fi
  check "$prec: mlir-opt FRONT,TILE,BACK" timeout 120 "$LLVM_BIN/mlir-opt" "$m" \
    --pass-pipeline="builtin.module($FRONT,$TILE,$BACK)" --mlir-timing --emit-bytecode -o "$TMP/$prec.mlirbc"
  check "$prec: mlir-translate" timeout 60 "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$TMP/$prec.mlirbc" -o "$TMP/$prec.ll"
  check "$prec: llc" timeout 120 "$LLVM_BIN/llc" -O2 -filetype=obj "$TMP/$prec.ll" -o "$TMP/$prec.o"
  if [ -s "$TMP/$prec.o" ] && grep -q 'define .*@forward' "$TMP/$prec.ll"; then ok "$prec: object with @forward"; else fail "$prec: no object"; fi
  if [ "$prec" = int8 ]; then
    if grep -q 'sitofp' "$TMP/$prec.ll"; then ok "int8: dequant survives to LLVM IR"; else fail "int8: no sitofp in LLVM IR"; fi
  fi
done
finish
