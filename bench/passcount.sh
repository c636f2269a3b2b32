#!/usr/bin/env bash
# Per-pass instruction counts (issue 32, docs/meters.md) under the callgrind meter: counts are exact, so this
# bench holds on a loaded machine (its times do not decide anything). On the demo's own compiles: the .ll of
# studies/demo.ini's smallest LLM config (qwen2 0.5b, window BENCH_PASSCOUNT_WINDOW (128), int8, one layer),
# made by a native sweep of the embedded pipeline, then
# - llc-22 -O2 -filetype=obj -time-passes, as the demo runs it;
# - opt-22 -O2 -time-passes on the same .ll.
# Per tool: coverage = the counted passes' instructions / the step's whole count (target >= 80%); agreement = the
# dominant stage by count against the dominant stage by native wall of the same passes (a wall-meter sweep of the
# step, 3 repeats; process-overhead left out, as the counts have none), target: the same. Printed: load, the
# time each tool took under the meter, the counts, and which Valgrind tool counted (passmap's pmcount where
# built: tens of minutes under callgrind, whose dumps walk every block at each of ~20,000 dumps).
# BENCH_PASSCOUNT=quick: opt only, on a generated .ll (BENCH_PASSCOUNT_FUNCS (4) functions of 1,500 chained
# operations and a loop each) instead of the demo's.
source "$(dirname "$0")/lib.sh"
bench_require valgrind || { bench_skip passcount coverage "no valgrind (scripts/install-deps.sh bench)"; exit 0; }
LLC=$LLVM_BIN/llc
OPT=$LLVM_BIN/opt
[ -x "$LLC" ] && [ -x "$OPT" ] || { bench_skip passcount coverage "no llc/opt in $LLVM_BIN"; exit 0; }
[ -f "$(dirname "$PASSMAP")/passmap-vgwrap.so" ] ||
  { bench_skip passcount coverage "passmap-vgwrap.so not built beside $PASSMAP (Valgrind's headers)"; exit 0; }
bench_machine
mkdir -p "$BENCH_TMP/in"

# the generated .ll for opt
"$PY" - "$BENCH_TMP/in/big.ll" "${BENCH_PASSCOUNT_FUNCS:-4}" 1500 <<'PY'
import sys
path, nf, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "w") as f:
    for k in range(nf):
        f.write(f"define i64 @f{k}(i64 %x, i64 %y, ptr %p) {{\nentry:\n")
        prev = "%x"
        for i in range(m):
            op = ("add", "mul", "xor", "sub", "and", "or")[i % 6]
            other = "%y" if i % 3 else f"{i * 7 + k + 1}"
            f.write(f"  %v{i} = {op} i64 {prev}, {other}\n")
            if i % 50 == 49:   # a store and a load now and then: memory passes have work
                f.write(f"  %q{i} = getelementptr i64, ptr %p, i64 {i}\n  store i64 %v{i}, ptr %q{i}\n"
                        f"  %l{i} = load i64, ptr %q{i}\n")
                prev = f"%l{i}"
            else:
                prev = f"%v{i}"
        f.write(f"  br label %loop\nloop:\n  %i = phi i64 [0, %entry], [%in, %loop]\n"
                f"  %acc = phi i64 [{prev}, %entry], [%a2, %loop]\n  %a1 = mul i64 %acc, 3\n"
                f"  %a2 = xor i64 %a1, %i\n  %in = add i64 %i, 1\n  %c = icmp slt i64 %in, %y\n"
                f"  br i1 %c, label %loop, label %exit\nexit:\n  ret i64 %a2\n}}\n")
PY

# the demo's .ll: its smallest LLM config through the embedded pipeline, natively
tools="opt"
opt_input=big.ll
if [ "${BENCH_PASSCOUNT:-full}" != quick ]; then
  cat >"$BENCH_TMP/demo.ini" <<INI
[sweep]
name = demo-ll
repeats = 1
timeout = 300s
[embedded]
tile = 256
unroll = 16
display = tree
[llm window]
models = qwen2:0.5b
windows = ${BENCH_PASSCOUNT_WINDOW:-128}
precisions = int8
layers = 1
INI
  if "$PASSMAP" sweep --quiet --keep --meter wall --db "$BENCH_TMP/demo.db" "$BENCH_TMP/demo.ini" \
      >"$BENCH_TMP/demo.log" 2>&1 && ll=$(find "$BENCH_TMP/demo.db.runs" -path '*cold-r0/out.ll' | head -1) && [ -n "$ll" ]; then
    cp "$ll" "$BENCH_TMP/in/demo.ll"
    tools="llc opt"
    opt_input=demo.ll
  else
    cat "$BENCH_TMP/demo.log"
    bench_skip passcount llc_coverage "the demo's .ll could not be made"
  fi
else
  bench_skip passcount llc_coverage "BENCH_PASSCOUNT=quick: opt only"
fi

spec() { # FILE NAME TOOL METER REPEATS
  local argv
  case $3 in
    llc) argv="$LLC -O2 -filetype=obj -time-passes {input} -o {out}/x.o"; input=in/demo.ll ;;
    opt) argv="$OPT -O2 -time-passes {input} -o {out}/x.bc"; input=in/$opt_input ;;
  esac
  cat >"$1" <<INI
[sweep]
name = $2
backend = command
repeats = $5
meter = $4
timeout = 600s
[matrix m]
input = $input
[step $3]
argv = $argv
report = stderr
tool = $3
INI
}

# which Valgrind tool the callgrind meter counts with (doctor says it)
counter=$("$PASSMAP" doctor 2>/dev/null | grep -q "counted by passmap's tool pmcount" && echo pmcount || echo callgrind)
for tool in $tools; do
  spec "$BENCH_TMP/$tool-wall.ini" "$tool-wall" "$tool" wall 3
  spec "$BENCH_TMP/$tool-cg.ini" "$tool-cg" "$tool" callgrind 1
  "$PASSMAP" sweep --quiet --db "$BENCH_TMP/$tool-wall.db" "$BENCH_TMP/$tool-wall.ini" >"$BENCH_TMP/$tool-wall.log" 2>&1 ||
    { cat "$BENCH_TMP/$tool-wall.log"; bench_skip passcount "${tool}_coverage" "the wall sweep failed"; continue; }
  t0=$(date +%s)
  "$PASSMAP" sweep --quiet --db "$BENCH_TMP/$tool-cg.db" "$BENCH_TMP/$tool-cg.ini" >"$BENCH_TMP/$tool-cg.log" 2>&1 ||
    { cat "$BENCH_TMP/$tool-cg.log"; bench_skip passcount "${tool}_coverage" "the callgrind sweep failed"; continue; }
  took=$(( $(date +%s) - t0 ))
  "$PASSMAP" report --json "$BENCH_TMP/$tool-cg.db" >"$BENCH_TMP/$tool-cg.json" 2>/dev/null
  "$PASSMAP" report --json "$BENCH_TMP/$tool-wall.db" >"$BENCH_TMP/$tool-wall.json" 2>/dev/null
  read -r cov by_count by_wall native heaviest <<<"$("$PY" - "$BENCH_TMP/$tool-cg.json" "$BENCH_TMP/$tool-wall.json" <<'PY'
import json, sys
pc = json.load(open(sys.argv[1]))["passcount"]
c = pc["configs"]["rows"][0]
wall = json.load(open(sys.argv[2]))["configs"][0]["shares"]
native = max((s for s in wall if s != "process-overhead"), key=lambda s: wall[s]["mean"] or 0)
heaviest = pc["passes"]["rows"][0]["pass"].replace(" ", "_")
print("%.4f %s %s %s %s" % (c["counted"], c["by_count"], c["by_wall"], native, heaviest))
PY
)"
  pct=$("$PY" -c "print(round(100 * $cov, 1))")
  echo "$tool -O2 on $([ "$tool" = opt ] && echo "$opt_input" || echo demo.ll): counted passes $pct% of the run" \
    "(counted by $counter), $took s under the meter at load $(cut -d' ' -f1 /proc/loadavg)"
  bench_result passcount "${tool}_coverage_pct" "$pct" % - "value>=80" \
    "counted passes / the step's whole count, meter callgrind ($counter), ${took} s under it (the meter's slowdown probe included); heaviest: $heaviest"
  bench_result passcount "${tool}_same_dominant" "$([ "$by_count" = "$native" ] && echo 1 || echo 0)" bool - "value==1" \
    "by count: $by_count; by native wall (3 runs): $native; by the instrumented run's wall: $by_wall"
done
