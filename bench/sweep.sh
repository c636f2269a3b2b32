#!/usr/bin/env bash
# Benchmark of `passmap sweep` itself: its overhead, (sweep wall - sum of step walls) / sweep wall, on the demo
# (studies/demo.ini, every step a real compile). The sweep wall is the run loop's (planning to the last run
# stored: step set-up, cache wrapping, report parsing, metric reading, one transaction per run); input
# generation before the loop is reported apart. Target: overhead <= 1%.
# Usage: bench/sweep.sh PASSMAP_BINARY   (BENCH_SWEEP_SPEC: another spec, e.g. a smaller one on a busy machine)
source "$(dirname "$0")/lib.sh"
spec=${BENCH_SWEEP_SPEC:-$ROOT/studies/demo.ini}
db=$BENCH_TMP/sweep.db
t0=$(date +%s.%N)
"$PASSMAP" sweep --quiet --json --db "$db" "$spec" >"$BENCH_TMP/sum.json" || exit 1
t1=$(date +%s.%N)
steps=$(sqlite3 "$db" "select coalesce(sum(wall_s), 0) from step") || exit 1
read -r loop runs <<<"$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["wall_s"], d["ran"])' "$BENCH_TMP/sum.json")"
"$PY" - "$loop" "$steps" "$t0" "$t1" "$runs" <<'PY' >"$BENCH_TMP/o.txt" || exit 1
import sys
loop, steps, t0, t1, runs = (float(x) for x in sys.argv[1:])
print(f"{(loop - steps) / loop:.5f} {(t1 - t0 - loop):.3f} {loop:.2f} {steps:.2f} {int(runs)}")
PY
read -r frac pre loop_s steps_s n <<<"$(cat "$BENCH_TMP/o.txt")"
echo "sweep overhead: (sweep wall $loop_s s - step walls $steps_s s) / sweep wall = $frac over $n runs"
bench_result sweep overhead "$frac" fraction - 'value<=0.01' "$(basename "$spec"): $n runs, run loop $loop_s s, steps $steps_s s"
bench_result sweep before_loop "$pre" s - - "input generation, store set-up and process start, outside the run loop"
