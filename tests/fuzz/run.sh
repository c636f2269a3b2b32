#!/usr/bin/env bash
# Runs every libFuzzer harness in FUZZ_DIR for RUNS inputs (fixed seed: the same inputs every time), seeded from
# tests/fixtures (parsers), the shipped specs (spec) and cache entries made by PASSMAP (cache reader), after
# replaying tests/fuzz/regressions/<harness>/ (every crash found so far). Prints one TAP line per harness with its
# inputs and coverage (libFuzzer's cov: edges, ft: features), a total line, and exits non-zero when any crashed,
# leaked or tripped a sanitizer, or when a harness had no seed (an unseeded harness explores a fraction of what a
# seeded one does); the crashing input is kept and named.
# Usage: tests/fuzz/run.sh FUZZ_DIR PASSMAP [RUNS]
#   FUZZ_TIME=SECONDS in the environment: every harness runs for that long instead (equal time each, a
#   nightly-style campaign; RUNS is then ignored).
set -u
dir=${1:?usage: run.sh FUZZ_DIR PASSMAP [RUNS]}
passmap=${2:?usage: run.sh FUZZ_DIR PASSMAP [RUNS]}
runs=${3:-20000}
fuzz_time=${FUZZ_TIME:-}
# Absolute: the cache entries are made from another folder (a relative build/passmap made none there).
case $passmap in /*) ;; *) passmap=$(cd "$(dirname "$passmap")" && pwd)/$(basename "$passmap") ;; esac
[ -x "$passmap" ] || { echo "not ok 1 - $passmap is not an executable passmap"; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
fx=$root/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/pm-fuzz.XXXXXX")
keep=0
trap '[ $keep -eq 0 ] && rm -rf "$work"' EXIT

seeds() { # harness -> seed files
  case $1 in
    parse_auto) ls "$fx"/mlir/*.txt "$fx"/mlir/*.json "$fx"/llvm/*.txt "$fx"/chrome/*.json "$fx"/npu/*.txt \
                   "$fx"/npu/*.json "$fx"/gcc/*.txt ;;
    parse_gcc_text) ls "$fx"/gcc/*.txt ;;
    parse_mlir_text) ls "$fx"/mlir/*.txt ;;
    parse_mlir_json) ls "$fx"/mlir/*.json ;;
    parse_llvm_text) ls "$fx"/llvm/*.txt ;;
    parse_chrome_trace) ls "$fx"/chrome/*.json ;;
    parse_npu_log) echo "$fx/npu/npu-log.txt" ;;
    parse_npu_schedule) echo "$fx/npu/compileTimeScheduleTrace.json" ;;
    parse_npu_strategy) echo "$fx/npu/strategy_out.json" ;;
    parse_npu_task_stats) echo "$fx/npu/task-stats.txt" ;;
    spec) ls "$root"/studies/*.ini "$fx"/report/e2e.ini ;;
    callgrind) echo "$fx/callgrind/seed.out" ;;
    cache_entry) find "$work/cache-dir" -name '*.entry' ;;
  esac
}

# real cache entries (stdout replay, one output, several outputs) from the passmap being tested
mkdir -p "$work/cache-dir" "$work/c"
(cd "$work/c" && for n in 1 2 3; do
   "$passmap" cache --dir "$work/cache-dir" exec -o "o$n.txt" -- sh -c "seq $((n * 40)) >o$n.txt; echo out$n" >/dev/null 2>&1
 done
 "$passmap" cache --dir "$work/cache-dir" exec -o a.txt -o b.txt -- sh -c 'echo a >a.txt; echo b >b.txt' >/dev/null 2>&1)

n=0; failed=0; total_execs=0
for bin in "$dir"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin"); h=${name#fuzz_}
  n=$((n + 1))
  corpus=$work/corpus-$h
  mkdir -p "$corpus"
  for f in $(seeds "$h"); do cp "$f" "$corpus/"; done
  if ! ls "$corpus"/* >/dev/null 2>&1; then
    failed=$((failed + 1))
    echo "not ok $n - fuzz $h: no seed input (tests/fuzz/run.sh's seeds() names none that exist)"
    continue
  fi
  log=$work/$h.log
  reg=$root/tests/fuzz/regressions/$h
  ok=1
  if [ -d "$reg" ] && ls "$reg"/* >/dev/null 2>&1; then
    "$bin" "$reg"/* >"$log" 2>&1 || ok=0
  fi
  if [ $ok -eq 1 ]; then
    if [ -n "$fuzz_time" ]; then budget=(-max_total_time="$fuzz_time"); else budget=(-runs="$runs" -seed=1); fi
    "$bin" "${budget[@]}" -max_len=131072 -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$work/$h-" "$corpus" >"$log" 2>&1 || ok=0
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  total_execs=$((total_execs + ${execs:-0}))
  if [ $ok -eq 1 ]; then
    echo "ok $n - fuzz $h: ${execs:-?} inputs, ${cov:-cov: ?}, $(ls "$corpus" | wc -l) seeds, no crash"
  else
    failed=$((failed + 1)); keep=1
    echo "not ok $n - fuzz $h crashed (log $log; input: $(ls "$work/$h-"* 2>/dev/null | head -1))"
    grep -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$log" | head -8 | sed 's/^/#   /'
  fi
done
[ $n -gt 0 ] || { echo "not ok 1 - no fuzz harness in $dir"; exit 1; }
echo "# $total_execs inputs in all over $n harnesses${fuzz_time:+ (${fuzz_time}s each)}"
echo "1..$n"
[ $failed -eq 0 ]
