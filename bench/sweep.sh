#!/usr/bin/env bash
# Benchmark of `passmap sweep` itself, on real compiles:
#   overhead         (sweep wall - sum of step walls) / sweep wall. The sweep wall is the run loop's (planning to
#                    the last run stored: step set-up, cache wrapping, report parsing, metric reading, one
#                    transaction per run), without the stage-size probes and start-up null runs it makes between
#                    runs. Target <= 1%.
#   first_run_share  time from starting passmap to the start of the first measured compile, over the whole
#                    sweep's wall (the first run's started_at in the store). Target <= 2%.
#   before_loop      everything outside the run loop: process start, store set-up, input generation, tool
#                    identity, probes and start-up runs.
# Default: a cut of the demo (3 configs of studies/demo.ini, its repeats and warm runs: 18 runs, ~30 s). The demo
# itself (23 configs, ~4 min) with BENCH_SWEEP=demo; BENCH_SWEEP_SPEC=FILE: any spec.
# Usage: bench/sweep.sh PASSMAP_BINARY
source "$(dirname "$0")/lib.sh"
[ -x "$LLVM_BIN/mlir-opt" ] || { bench_skip sweep all "no mlir-opt"; exit 0; }
if [ -n "${BENCH_SWEEP_SPEC:-}" ]; then
  spec=$BENCH_SWEEP_SPEC
elif [ "${BENCH_SWEEP:-}" = demo ]; then
  spec=$ROOT/studies/demo.ini
else
  # the demo's [sweep] and [embedded] sections, one model of [llm window] at both windows and the CNN's smaller
  # resolution: the same tools, repeats and warm runs on 4 configs
  spec=$BENCH_TMP/demo-cut.ini
  "$PY" - "$ROOT/studies/demo.ini" "$spec" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
keep = []
for sec in re.split(r"(?m)^(?=\[)", text):
    head = sec.split("\n", 1)[0].strip()
    if head in ("[sweep]", "[embedded]"):
        keep.append(sec.replace("name = demo", "name = demo-cut"))
    elif head == "[llm window]":
        keep.append(re.sub(r"(?m)^models = .*$", "models = qwen2:0.5b", re.sub(r"(?m)^precisions = .*$", "precisions = int8", sec)))
    elif head == "[cnn]":
        keep.append(re.sub(r"(?m)^resolutions = .*$", "resolutions = 224", sec))
open(sys.argv[2], "w").write("".join(keep))
PY
fi
name=$(basename "$spec" .ini)
db=$BENCH_TMP/sweep.db
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
"$PASSMAP" sweep --quiet --json --db "$db" "$spec" >"$BENCH_TMP/sum.json" || exit 1
t1=$(date +%s.%N)
steps=$(sqlite3 "$db" "select coalesce(sum(wall_s), 0) from step") || exit 1
# julianday -> Unix seconds; started_at is the run's recording time minus its wall (its first step's start)
first=$(sqlite3 "$db" "select (julianday(min(started_at)) - 2440587.5) * 86400.0 from run") || exit 1
read -r loop runs <<<"$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["wall_s"], d["ran"])' "$BENCH_TMP/sum.json")"
"$PY" - "$loop" "$steps" "$t0" "$t1" "$runs" "$first" <<'PY' >"$BENCH_TMP/o.txt" || exit 1
import sys
loop, steps, t0, t1, runs, first = (float(x) for x in sys.argv[1:])
print(f"{(loop - steps) / loop:.5f} {(t1 - t0 - loop):.3f} {loop:.2f} {steps:.2f} {int(runs)} {first - t0:.3f} "
      f"{(first - t0) / (t1 - t0):.5f} {t1 - t0:.2f}")
PY
read -r frac pre loop_s steps_s n to_first share wall <<<"$(cat "$BENCH_TMP/o.txt")"
echo "sweep overhead: (sweep wall $loop_s s - step walls $steps_s s) / sweep wall = $frac over $n runs"
echo "time to the first measured compile: $to_first s of the sweep's $wall s wall = $share"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_result sweep overhead "$frac" fraction - 'value<=0.01' "$name: $n runs, run loop $loop_s s, steps $steps_s s"
bench_result sweep first_run_share "$share" fraction - 'value<=0.02' "$name: first measured compile after $to_first s of $wall s"
bench_result sweep before_loop "$pre" s - - "$name: process start, store set-up, input generation, tool identity, probes and start-up runs"
if [ -z "${BENCH_SWEEP_SPEC:-}" ] && [ "${BENCH_SWEEP:-}" != demo ]; then
  bench_skip sweep demo "the whole demo (~4 min): BENCH_SWEEP=demo"
fi
