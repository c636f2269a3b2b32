#!/usr/bin/env bash
# Benchmark of passmap cache (not run by tests): hit latency vs ccache on the same `gcc -c` (target <= 0.8x), where
# a hit's time goes (process start: exec and dynamic loading, `passmap --version`; then, inside passmap, hashing
# the key, the lookup, restoring outputs, bookkeeping; the rest is option parsing, opening the cache, replaying
# the streams and exit), miss overhead over a plain compile, and llc recompile / hit.
# Usage: bench/cache.sh build/passmap
# Needs hyperfine, ccache, gcc, and llc/mlir-translate from LLVM; results go through bench/lib.sh.
source "$(dirname "$0")/lib.sh"
set -e
bench_require_hyperfine || { bench_skip cache all "hyperfine missing"; exit 0; }
bench_require ccache gcc || { bench_skip cache all "ccache or gcc missing"; exit 0; }
P=$PASSMAP
RUNS=${RUNS:-20}
W=$BENCH_TMP
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
# Compiles (the miss and llc blocks) cost 0.3-0.6 s a run: fewer runs keep make bench within 5 minutes; their
# ratios come from the paired and in-process rows below, these means are information.
HFC="hyperfine -N --style basic --runs ${BENCH_CACHE_COMPILE_RUNS:-5} --warmup 1"
mean() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["mean"])' "$1" "$2"; }

echo "== gcc -O2 -c x.c: plain, passmap hit, ccache hit; the process-start floors (load $(cut -d' ' -f1 /proc/loadavg)) =="
$HF --export-json hit.json \
  -n plain "gcc -O2 -c x.c -o x.o" \
  -n passmap-hit "$P cache exec -o x.o -- gcc -O2 -c x.c -o x.o" \
  -n ccache-hit "ccache gcc -O2 -c x.c -o x.o" \
  -n passmap-version "$P --version" \
  -n true "/bin/true"
# Inside passmap, per hit (PASSMAP_CACHE_DEBUG): medians of 30 hits.
for i in $(seq 1 30); do
  PASSMAP_CACHE_DEBUG=1 "$P" cache exec -o x.o -- gcc -O2 -c x.c -o x.o 2>&1 >/dev/null |
    sed -n 's/^passmap cache: hit .* wall \([0-9.]*\) .* phases hashing \([0-9.]*\) lookup \([0-9.]*\) restore \([0-9.]*\) bookkeeping \([0-9.]*\)$/\1 \2 \3 \4 \5/p'
done >phases.txt
read -r in_wall in_hash in_lookup in_restore in_book < <("$PY" -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
if len(rows) < 20: sys.exit("bench: fewer than 20 hits recorded their phases")
print(*(statistics.median(c) for c in zip(*rows)))' phases.txt) || exit 1

echo "== gcc -O2 -c x.c: plain, passmap miss, ccache miss (caches emptied before each run) =="
$HFC --export-json miss.json \
  -n plain --prepare "rm -f x.o" "gcc -O2 -c x.c -o x.o" \
  -n passmap-miss --prepare "$P cache clear" "$P cache exec -o x.o -- gcc -O2 -c x.c -o x.o" \
  -n ccache-miss --prepare "ccache -C" "ccache gcc -O2 -c x.c -o x.o"

echo "== llc -O2 m.ll: plain, passmap hit, passmap miss =="
$HFC --export-json llc.json \
  -n llc-plain --prepare "rm -f m.s" "$LLVM_BIN/llc -O2 m.ll -o m.s" \
  -n llc-passmap-hit --prepare "rm -f m.s" "$P cache exec -o m.s -- $LLVM_BIN/llc -O2 m.ll -o m.s" \
  -n llc-passmap-miss --prepare "$P cache clear" "$P cache exec -o m.s -- $LLVM_BIN/llc -O2 m.ll -o m.s"

phit=$(mean hit.json 1); chit=$(mean hit.json 2); pstart=$(mean hit.json 3); tstart=$(mean hit.json 4)
plain=$(mean miss.json 0); pmiss=$(mean miss.json 1); cmiss=$(mean miss.json 2)
lplain=$(mean llc.json 0); lhit=$(mean llc.json 1); lmiss=$(mean llc.json 2)
# The cache's own time on a miss, measured inside passmap (total wall - CMD's wall): robust on a busy host.
own_overhead() { # label, command...
  local label=$1; shift
  for i in $(seq 1 10); do
    "$P" cache clear
    PASSMAP_CACHE_DEBUG=1 "$P" cache exec "$@" 2>&1 >/dev/null | sed -n 's/.* cmd \([0-9.]*\) overhead \([0-9.]*\).*/\1 \2/p'
  done | sort -k2 -n | awk -v l="$label" '{c[NR]=$1; o[NR]=$2} END {m=int((NR+1)/2);
    printf "%s %.6f %.6f\n", l, c[m], o[m]}'
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
    printf "%s %.6f\n", l, m}'
}
# Results (VALUE/PEER = passmap/peer): hit latency vs ccache, miss overhead, llc recompile / hit.
read -r _ gcc_pair < <(paired gcc x.o gcc -O2 -c x.c -o x.o)
read -r _ llc_pair < <(paired llc m.s "$LLVM_BIN/llc" -O2 m.ll -o m.s)
read -r _ gcc_cmd gcc_own < <(own_overhead gcc -o x.o -- gcc -O2 -c x.c -o x.o)
read -r _ llc_cmd llc_own < <(own_overhead llc -o m.s -- "$LLVM_BIN/llc" -O2 m.ll -o m.s)
ms() { awk -v v="$1" 'BEGIN { printf "%.3f", v * 1000 }'; }
bench_result cache gcc.hit_latency "$(ms "$phit")" ms "$(ms "$chit")" 'ratio<=0.8' "hyperfine means, $RUNS runs; peer = ccache hit on the same gcc -c"
# Where the hit's time goes: the process start measured apart (hyperfine means), the phases inside passmap
# (medians), the rest by difference.
bench_result cache hit.process_start "$(ms "$pstart")" ms "$(ms "$tstart")" - "passmap --version: exec, dynamic loading, main; peer = /bin/true"
bench_result cache hit.hashing "$(ms "$in_hash")" ms - - "argv analysis, compiler identity (memoised), inputs hashed"
bench_result cache hit.lookup "$(ms "$in_lookup")" ms - - "entry read, checksum, zstd decompression, dependencies re-hashed"
bench_result cache hit.restore "$(ms "$in_restore")" ms - - "outputs written (temp file + rename), streams copied"
bench_result cache hit.bookkeeping "$(ms "$in_book")" ms - - "LRU mark, stats under flock, manifest"
bench_result cache hit.rest "$(awk -v h="$phit" -v s="$pstart" -v w="$in_wall" 'BEGIN { printf "%.3f", (h - s - w) * 1000 }')" ms - - "hit mean - process start - passmap's own wall: options, cache open, stream replay, exit"
bench_result cache gcc.miss_overhead_paired "$gcc_pair" ratio - 'value<=1.05' "miss/plain, median of 10 interleaved pairs"
bench_result cache gcc.miss_overhead_own "$(awk -v o="$gcc_own" -v c="$gcc_cmd" 'BEGIN { printf "%.5f", o / c }')" fraction - 'value<=0.05' "cache's own time / compile time inside passmap, median of 10"
bench_result cache llc.miss_overhead_paired "$llc_pair" ratio - 'value<=1.05' "miss/plain, median of 10 interleaved pairs"
bench_result cache llc.miss_overhead_own "$(awk -v o="$llc_own" -v c="$llc_cmd" 'BEGIN { printf "%.5f", o / c }')" fraction - 'value<=0.05' "cache's own time / compile time inside passmap, median of 10"
bench_result cache llc.recompile_over_hit "$(awk -v a="$lplain" -v b="$lhit" 'BEGIN { printf "%.1f", a / b }')" x - 'value>=20' "llc -O2 plain mean / passmap hit mean"
bench_result cache gcc.miss_vs_plain_means "$(ms "$pmiss")" ms "$(ms "$plain")" - "hyperfine means of ${BENCH_CACHE_COMPILE_RUNS:-5} runs; noisy on a shared host, see the paired rows"
