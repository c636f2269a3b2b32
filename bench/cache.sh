#!/usr/bin/env bash
# Benchmark of passmap cache (not run by tests): hit latency vs ccache on the same `gcc -c`, miss overhead
# over a plain compile, and llc recompile / hit.  Usage: bench/cache.sh [build/passmap]
# Needs hyperfine, ccache, jq, gcc, and llc/mlir-translate from LLVM.
set -eu
P=$(realpath "${1:-build/passmap}")
LLVM_BIN=${PASSMAP_LLVM_BINDIR:-$(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -V | tail -1)}
RUNS=${RUNS:-20}
W=$(mktemp -d "${TMPDIR:-/tmp}/pm-cache-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
export PASSMAP_CACHE_DIR=$W/pmcache CCACHE_DIR=$W/ccache
unset CCACHE_DISABLE CCACHE_PREFIX

# A C file big enough to be a real compile (~0.2-0.5 s at -O2).
{
  echo '#include <stdio.h>'
  echo '#include <string.h>'
  for i in $(seq 1 80); do
    echo "int f$i(const char *s, int n) { int h = $i; for (int k = 0; k < n; k++) { h = h * 31 + s[k]; if (h % 7 == $((i % 7))) h ^= (int)strlen(s); } return h; }"
  done
  echo 'int main(int c, char **v) { int t = 0;'
  for i in $(seq 1 80); do echo "  t += f$i(v[0], c);"; done
  echo '  printf("%d\n", t); return 0; }'
} > x.c

# An LLVM module from MLIR: many functions with arithmetic chains.
{
  for i in $(seq 1 400); do
    echo "llvm.func @g$i(%a: i64, %b: i64) -> i64 {"
    prev=%a
    for j in $(seq 1 20); do
      echo "  %m$j = llvm.mul $prev, %b : i64"
      echo "  %s$j = llvm.add %m$j, %a : i64"
      prev=%s$j
    done
    echo "  llvm.return $prev : i64"
    echo "}"
  done
} > m.mlir
"$LLVM_BIN/mlir-translate" --mlir-to-llvmir m.mlir -o m.ll

HF="hyperfine -N --style basic --runs $RUNS --warmup 3"
mean() { jq -r ".results[$2].mean" "$1"; }

echo "== gcc -O2 -c x.c: plain, passmap hit, ccache hit =="
$HF --export-json hit.json \
  -n plain "gcc -O2 -c x.c -o x.o" \
  -n passmap-hit "$P cache exec -o x.o -- gcc -O2 -c x.c -o x.o" \
  -n ccache-hit "ccache gcc -O2 -c x.c -o x.o"

echo "== gcc -O2 -c x.c: plain, passmap miss, ccache miss (caches emptied before each run) =="
$HF --export-json miss.json \
  -n plain --prepare "rm -f x.o" "gcc -O2 -c x.c -o x.o" \
  -n passmap-miss --prepare "$P cache clear" "$P cache exec -o x.o -- gcc -O2 -c x.c -o x.o" \
  -n ccache-miss --prepare "ccache -C" "ccache gcc -O2 -c x.c -o x.o"

echo "== llc -O2 m.ll: plain, passmap hit, passmap miss =="
$HF --export-json llc.json \
  -n llc-plain --prepare "rm -f m.s" "$LLVM_BIN/llc -O2 m.ll -o m.s" \
  -n llc-passmap-hit --prepare "rm -f m.s" "$P cache exec -o m.s -- $LLVM_BIN/llc -O2 m.ll -o m.s" \
  -n llc-passmap-miss --prepare "$P cache clear" "$P cache exec -o m.s -- $LLVM_BIN/llc -O2 m.ll -o m.s"

phit=$(mean hit.json 1); chit=$(mean hit.json 2)
plain=$(mean miss.json 0); pmiss=$(mean miss.json 1); cmiss=$(mean miss.json 2)
lplain=$(mean llc.json 0); lhit=$(mean llc.json 1); lmiss=$(mean llc.json 2)
# The cache's own time on a miss, measured inside passmap (total wall - CMD's wall): robust on a busy host.
own_overhead() { # label, command...
  local label=$1; shift
  for i in $(seq 1 10); do
    "$P" cache clear
    PASSMAP_CACHE_DEBUG=1 "$P" cache exec "$@" 2>&1 >/dev/null | sed -n 's/.* cmd \([0-9.]*\) overhead \([0-9.]*\)/\1 \2/p'
  done | sort -k2 -n | awk -v l="$label" '{c[NR]=$1; o[NR]=$2} END {m=int((NR+1)/2);
    printf "%-21s cmd %8.2f ms   cache overhead (median of %d) %6.2f ms = %.2f%%\n", l, c[m]*1000, NR, o[m]*1000, 100*o[m]/c[m]}'
}
# Plain and miss interleaved in pairs, so load drift on a shared host hits both alike; median of ratios.
paired() { # label, output, compiler command...
  local label=$1 out=$2; shift 2
  for i in $(seq 1 10); do
    "$P" cache clear; rm -f "$out"
    local t0=$(date +%s%N); "$@" >/dev/null 2>&1; local t1=$(date +%s%N)
    "$P" cache exec -o "$out" -- "$@" >/dev/null 2>&1; local t2=$(date +%s%N)
    echo "$(( t1 - t0 )) $(( t2 - t1 ))"
  done | awk '{print $2 / $1}' | sort -g | awk -v l="$label" '{r[NR]=$1} END {n=NR; m=r[int((n+1)/2)];
    printf "%-21s miss/plain median of %d interleaved pairs %.3f = %+.1f%%\n", l, n, m, (m-1)*100}'
}
echo
paired "gcc miss (paired)" x.o gcc -O2 -c x.c -o x.o
paired "llc miss (paired)" m.s "$LLVM_BIN/llc" -O2 m.ll -o m.s
own_overhead "gcc miss (in-process)" -o x.o -- gcc -O2 -c x.c -o x.o
own_overhead "llc miss (in-process)" -o m.s -- "$LLVM_BIN/llc" -O2 m.ll -o m.s
awk -v plain="$plain" -v phit="$phit" -v chit="$chit" -v pmiss="$pmiss" -v cmiss="$cmiss" \
    -v lplain="$lplain" -v lhit="$lhit" -v lmiss="$lmiss" 'BEGIN {
  printf "\nsummary (means)\n"
  printf "gcc -c plain          %8.2f ms\n", plain * 1000
  printf "passmap hit           %8.2f ms   ccache hit %8.2f ms   passmap/ccache %.2f  (goal <= 1)\n", phit * 1000, chit * 1000, phit / chit
  printf "passmap miss          %8.2f ms   overhead over plain %+.1f%%  (goal <= 5%%)   ccache miss overhead %+.1f%%\n", pmiss * 1000, (pmiss / plain - 1) * 100, (cmiss / plain - 1) * 100
  printf "llc plain             %8.2f ms   passmap hit %8.2f ms   recompile/hit %.1fx  (goal >= 20x)\n", lplain * 1000, lhit * 1000, lplain / lhit
  printf "llc passmap miss      %8.2f ms   overhead over plain %+.1f%%\n", lmiss * 1000, (lmiss / lplain - 1) * 100
}'
