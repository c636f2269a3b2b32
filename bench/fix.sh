#!/usr/bin/env bash
# passmap fix on the embedded LLM study's largest configs that fit a 2-core machine (a stated cut of
# studies/embedded-llm.ini: qwen2-0.5b and gemma2-2b at window 512, int8, 4 layers instead of 1 so that splitting
# functions means something): the recommended combination's compile wall / stock with its 95% CI, its output
# check, the compiled program's forward() run time / stock's with its 95% CI (the other side of the ledger: a
# trade-off is reported, not shipped), and the wall clock the search took. Target: <= 0.5x with identical outputs.
# It takes 20-40 minutes, so it runs only with BENCH_FIX=1 (and a BENCH_TIMEOUT to match):
#   BENCH_FIX=1 BENCH_TIMEOUT=3600 bench/runner.sh build/passmap   (or make bench with the same variables)
# BENCH_FIX_BUDGET (default 40m) is the budget handed to `passmap fix`.
source "$(dirname "$0")/lib.sh"

if [ "${BENCH_FIX:-0}" != 1 ]; then
    bench_skip fix recommended_wall_ratio "takes 20-40 min: run with BENCH_FIX=1 BENCH_TIMEOUT=3600"
    exit 0
fi
bench_require cc || { bench_skip fix recommended_wall_ratio "no cc for the output check"; exit 0; }
[ -x "$LLVM_BIN/mlir-opt" ] || { bench_skip fix recommended_wall_ratio "no mlir-opt"; exit 0; }

cat >"$BENCH_TMP/study.ini" <<'INI'
; cut of studies/embedded-llm.ini: its largest windows that fit here, 4 layers
[sweep]
name = embedded-llm-cut
repeats = 1
timeout = 900s
mem_limit = 12G
[embedded]
tile = 256
unroll = 16
[llm largest]
models = qwen2:0.5b, gemma2:2b
windows = 512
precisions = int8
layers = 4
INI
db=${BENCH_FIX_DB:-$BENCH_TMP/study.db}
bench_machine
t0=$(date +%s.%N)
"$PASSMAP" sweep --quiet --db "$db" "$BENCH_TMP/study.ini" >&2 || exit 1
t1=$(date +%s.%N)
"$PASSMAP" fix "$db" --budget "${BENCH_FIX_BUDGET:-40m}" --configs 2 --json >"$BENCH_TMP/fix.json" \
    2>"$BENCH_TMP/fix.err" || { tail -20 "$BENCH_TMP/fix.err" >&2; exit 1; }
t2=$(date +%s.%N)
"$PASSMAP" report "$db" --sweep embedded-llm-cut | sed -n '1,/^$/p' >&2

read -r ratio lo hi n output ship variant run rlo rhi rverdict rn < <("$PY" - "$BENCH_TMP/fix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d.get("recommended") or {}
run = r.get("run") or {}
f = lambda v: "-" if v is None else "%.4f" % v
print(f(r.get("ratio")), f(r.get("ci_lo")), f(r.get("ci_hi")), r.get("n_configs", 0),
      (r.get("output") or "none").split()[0], "yes" if r.get("ship") else "no", r.get("variant") or "none",
      f(run.get("ratio")), f(run.get("ci_lo")), f(run.get("ci_hi")),
      ("trade-off" if r.get("tradeoff") else (run.get("verdict") or "not-measured").replace(" ", "-")), run.get("n", 0))
PY
)
study_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
fix_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.0f", b - a }')
note="$variant on $n configs, output $output, ship $ship; study ${study_s}s, fix ${fix_s}s (budget ${BENCH_FIX_BUDGET:-40m})"
if [ "$ratio" = - ]; then
    bench_result fix recommended_wall_ratio 1 x 1 'ratio<=0.5' "no fix proven: $note"
elif [ "$lo" = - ]; then
    bench_result fix recommended_wall_ratio "$ratio" x 1 'ratio<=0.5' "$note"
else
    bench_result_ci fix recommended_wall_ratio "$ratio" x 1 'ratio<=0.5' "$lo" "$hi" "$note"
fi
# the other side of the ledger: the recommended variant's compiled forward() against stock's (check's reduced config)
rnote="forward() of the check's reduced config, n=$rn a side, $rverdict; $variant"
if [ "$run" = - ]; then
    bench_result fix recommended_run_ratio 1 x - - "run time not measured: $rnote"
elif [ "$rlo" = - ]; then
    bench_result fix recommended_run_ratio "$run" x - - "$rnote"
else
    bench_result_ci fix recommended_run_ratio "$run" x - - "$rlo" "$rhi" "$rnote"
fi
echo "recommended $variant: compile ${ratio}x [$lo, $hi], run ${run}x [$rlo, $rhi] ($rverdict), output $output" >&2
bench_result fix search_wall "$fix_s" s - - "wall clock of passmap fix (plan, A/B, combinations, output checks)"
if [ "$output" = bit-exact ] || [ "$output" = within ]; then
    bench_result fix outputs_identical 1 bool - 'value==1' "$output"
else
    bench_result fix outputs_identical 0 bool - 'value==1' "$output"
fi
