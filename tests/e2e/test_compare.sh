#!/usr/bin/env bash
# e2e: passmap compare on real compiles. Two tiny matmul configs are compiled through the real
# mlir-opt -> mlir-translate -> llc chain with the stock back end (A) and with allow-pattern-rollback=0 (B),
# recorded by tests/e2e/compare_mkdb.c (real runner and parsers) until `passmap sweep` lands on main.
source "$(dirname "$0")/lib.sh"

json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

BUILD=${PASSMAP_BUILD:-$(dirname "$PASSMAP")}
SANF=""
case "$BUILD" in */san) SANF="-fsanitize=address,undefined";; esac
MKDB=$TMP/compare_mkdb
# shellcheck disable=SC2046
if ! cc -std=c11 -D_GNU_SOURCE $SANF -I"$ROOT/lib" $(pkg-config --cflags sqlite3 jansson) \
     -o "$MKDB" "$ROOT/tests/e2e/compare_mkdb.c" "$BUILD/libpassmap.a" \
     $(pkg-config --libs sqlite3 jansson gsl libzstd libxxhash inih) -ldl -lm -lpthread 2>"$TMP/cc.err"; then
  fail "build compare_mkdb"; sed 's/^/#   /' "$TMP/cc.err"; finish; exit 1
fi

FRONT="func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize,cse),one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline,func.func(convert-linalg-to-affine-loops,canonicalize,cse,lower-affine)"
STOCK="convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts"
NORB="convert-scf-to-cf{allow-pattern-rollback=0},expand-strided-metadata,lower-affine,convert-to-llvm{allow-pattern-rollback=0},reconcile-unrealized-casts"

model() { # N: one matmul function on NxN tensors
  cat <<MLIR
func.func @mm(%a: tensor<$1x$1xf32>, %b: tensor<$1x$1xf32>) -> tensor<$1x$1xf32> {
  %z = tensor.empty() : tensor<$1x$1xf32>
  %c = linalg.matmul ins(%a, %b : tensor<$1x$1xf32>, tensor<$1x$1xf32>) outs(%z : tensor<$1x$1xf32>) -> tensor<$1x$1xf32>
  return %c : tensor<$1x$1xf32>
}
MLIR
}

record() { # DB VARIANT BACKEND N
  local w=$TMP/work-$2-$4; mkdir -p "$w"; model "$4" >"$w/in.mlir"
  "$MKDB" "$1" demo "llm/tiny/mm/w$4/f32/L1/$2" "$2" 2 "$w" \
    "$LLVM_BIN/mlir-opt" "$w/in.mlir" "--pass-pipeline=builtin.module($FRONT,$3)" --mlir-timing \
      --mlir-timing-display=list -o "$w/out.mlir" :: \
    "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$w/out.mlir" -o "$w/out.ll" :: \
    "$LLVM_BIN/llc" -O2 -filetype=obj -time-passes "$w/out.ll" -o "$w/out.o"
}

ok_all=1
for n in 16 32; do
  record "$TMP/a.db" stock "$STOCK" $n || ok_all=0
  record "$TMP/b.db" no-rollback "$NORB" $n || ok_all=0
  record "$TMP/c.db" stock "$STOCK" $n || ok_all=0
  record "$TMP/c.db" no-rollback "$NORB" $n || ok_all=0
done
if [ $ok_all = 1 ]; then ok "real compiles recorded"; else fail "real compiles recorded"; fi

"$PASSMAP" compare "$TMP/a.db" "$TMP/b.db" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "compare A B exits 0" test $? -eq 0
check "text: both configs" grep -q "llm/tiny/mm/w16/f32/L1 (A: llm/tiny/mm/w16/f32/L1/stock, B: llm/tiny/mm/w16/f32/L1/no-rollback" "$TMP/out.txt"
check "text: w32 config" grep -q "^llm/tiny/mm/w32/f32/L1 " "$TMP/out.txt"
check "text: compile wall row with n=2 each" grep -Eq "^  compile wall +2 +2 " "$TMP/out.txt"
check "text: step rows for the three tools" \
  bash -c "grep -c '^  step \(llc\|mlir-opt\|mlir-translate\) ' '$TMP/out.txt' | grep -qx 6"
check "text: convert-to-llvm only in B is added" grep -Eq "pass mlir-opt: ConvertToLLVMPass .* added$" "$TMP/out.txt"
check "text: finalize-memref-to-llvm only in A is removed" \
  grep -Eq "pass mlir-opt: FinalizeMemRefToLLVMConversionPass .* removed$" "$TMP/out.txt"
check "text: summary with geomean" grep -Eq "2 configs matched, 2 with a wall ratio; geomean ratio B/A [0-9]" "$TMP/out.txt"
check "text: regime table" grep -Eq "^  (mlir-opt|llc|mlir-translate) +2 " "$TMP/out.txt"

"$PASSMAP" compare --json "$TMP/a.db" "$TMP/b.db" >"$TMP/out.json"
check "json exits 0" test $? -eq 0
check "json: sides" json_check "$TMP/out.json" \
  'd["a"]["variant"] == "stock" and d["b"]["variant"] == "no-rollback" and d["a"]["sweep"] == "demo"'
check "json: summary" json_check "$TMP/out.json" \
  '(s := d["summary"])["n_configs"] == 2 and 0 < s["geomean_ratio"] < 10 and s["ci_lo"] <= s["geomean_ratio"] <= s["ci_hi"]'
check "json: wall ratio equals mean B / mean A" json_check "$TMP/out.json" \
  'all(abs(c["wall"]["ratio"] - c["wall"]["mean_b"] / c["wall"]["mean_a"]) < 1e-9 for c in d["configs"])'
check "json: per-pass presence" json_check "$TMP/out.json" \
  'any(p["pass"] == "ConvertToLLVMPass" and p["presence"] == "added" and p["mean_b"] > 0 for p in d["configs"][0]["passes"])'
check "json: llc passes compared on both sides" json_check "$TMP/out.json" \
  'any(p["tool"] == "llc" and p["presence"] == "both" and p["n_a"] == 2 and p["n_b"] == 2 for p in d["configs"][0]["passes"])'
check "json: pass totals and regimes" json_check "$TMP/out.json" \
  'len(d["passes"]) > 5 and sum(r["n_configs"] for r in d["summary"]["by_regime"]) == 2 and d["only_a"] == [] == d["only_b"]'

check "markdown table" bash -c "'$PASSMAP' compare --markdown '$TMP/a.db' '$TMP/b.db' | grep -q '^| compile wall | 2 | 2 |'"
check "--top 2 limits pass rows" bash -c "'$PASSMAP' compare --top 2 '$TMP/a.db' '$TMP/b.db' | grep -q 'more passes; --all-passes'"

# One database holding both variants.
"$PASSMAP" compare "$TMP/c.db" "$TMP/b.db" >/dev/null 2>"$TMP/amb.err"
check "ambiguous variant is a usage error (2)" test $? -eq 2
check "ambiguity message lists variants" grep -q "several variants (no-rollback, stock): pick one with --a-variant" "$TMP/amb.err"
check "one database, two variants" bash -c \
  "'$PASSMAP' compare '$TMP/c.db' --a-variant stock --b-variant no-rollback | grep -q '2 configs matched'"
"$PASSMAP" compare "$TMP/c.db" >/dev/null 2>&1
check "one database without variants: usage (2)" test $? -eq 2

# Errors.
"$PASSMAP" compare "$TMP/missing.db" "$TMP/b.db" >/dev/null 2>"$TMP/miss.err"
check "missing database exits 1" test $? -eq 1
check "missing database message" grep -q "missing.db: no such database" "$TMP/miss.err"
check "missing database not created" test ! -e "$TMP/missing.db"
echo "not sqlite" >"$TMP/junk.db"
check_fails "junk database fails" "$PASSMAP" compare "$TMP/junk.db" "$TMP/b.db"
"$PASSMAP" compare --top x "$TMP/a.db" "$TMP/b.db" >/dev/null 2>&1
check "bad --top: usage (2)" test $? -eq 2
"$PASSMAP" compare >/dev/null 2>&1
check "no arguments: usage (2)" test $? -eq 2
check "--help exits 0" bash -c "'$PASSMAP' compare --help | grep -q '^usage: passmap compare'"

# Nothing matches: exit 1, unmatched configs listed.
w=$TMP/work-other; mkdir -p "$w"; model 16 >"$w/in.mlir"
"$MKDB" "$TMP/d.db" demo "cnn/other/r8/f32/B1/stock" stock 1 "$w" "$LLVM_BIN/mlir-opt" "$w/in.mlir" -o "$w/out.mlir"
"$PASSMAP" compare "$TMP/a.db" "$TMP/d.db" >"$TMP/nomatch.txt" 2>"$TMP/nomatch.err"
check "no match exits 1" test $? -eq 1
check "unmatched listed" grep -q "only in B: cnn/other/r8/f32/B1/stock" "$TMP/nomatch.txt"
check "no match said on stderr" grep -q "no config matched (2 only in A, 1 only in B)" "$TMP/nomatch.err"

finish
