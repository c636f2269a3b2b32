#!/usr/bin/env bash
# passmap parse on fresh output of the real mlir-opt and llc, plus the CLI's error paths.
source "$(dirname "$0")/lib.sh"
FX=$ROOT/tests/fixtures
PIPE='builtin.module(func.func(linalg-generalize-named-ops,canonicalize,cse),one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=8},canonicalize,lower-affine),convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)'

# checks a `passmap parse --json` output: FORMAT, n_reports, non-empty counted passes, per-pass sum <= total
json_ok() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == sys.argv[2], d["format"]
assert d["n_reports"] == int(sys.argv[3]), d["n_reports"]
counted = [p for p in d["passes"] if p["counted"]]
assert counted, "no counted passes"
s = sum(p["wall_s"] for p in counted)
assert abs(s - d["pass_wall_s"]) < 1e-6, (s, d["pass_wall_s"])
assert 0 < s <= d["total_wall_s"] * 1.02 + 0.001, (s, d["total_wall_s"])
for p in d["passes"]:
    assert p["parent"] < len(d["passes"])
PY
}

for disp in tree list; do
  if "$LLVM_BIN/mlir-opt" "$FX/mlir/input.mlir" --pass-pipeline="$PIPE" --mlir-timing --mlir-timing-display=$disp \
       -o "$TMP/out.mlir" 2>"$TMP/mlir-$disp.txt"; then ok "mlir-opt $disp runs"; else fail "mlir-opt $disp runs"; fi
  check "parse mlir $disp text" sh -c "'$PASSMAP' parse --json '$TMP/mlir-$disp.txt' >'$TMP/m.json'"
  check "mlir $disp text: passes sum <= total" json_ok "$TMP/m.json" mlir-text 1
  "$LLVM_BIN/mlir-opt" "$FX/mlir/input.mlir" --pass-pipeline="$PIPE" --mlir-timing --mlir-timing-display=$disp \
      --mlir-output-format=json -o "$TMP/out-json.mlir" 2>"$TMP/mlir-$disp.json"
  check "parse mlir $disp json" sh -c "'$PASSMAP' parse --json '$TMP/mlir-$disp.json' >'$TMP/mj.json'"
  check "mlir $disp json: passes sum <= total" json_ok "$TMP/mj.json" mlir-json 1
done
check "func.func Pipeline is a group" sh -c "'$PASSMAP' parse --all '$TMP/mlir-tree.txt' | grep -E \"^'func.func' Pipeline .* g\$\""

check "mlir-translate" "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$TMP/out.mlir" -o "$TMP/out.ll"
"$LLVM_BIN/llc" -O2 -filetype=obj -time-passes "$TMP/out.ll" -o "$TMP/out.o" 2>"$TMP/llc.txt"
check "parse llc -time-passes" sh -c "'$PASSMAP' parse --json '$TMP/llc.txt' >'$TMP/l.json'"
check "llc: 4 sections, passes sum <= total" json_ok "$TMP/l.json" llvm-text 4
check "llc: ISel breakdown rows are details" python3 -c "
import json; d = json.load(open('$TMP/l.json'))
rows = [p for p in d['passes'] if p['section'] == 'Instruction Selection and Scheduling' and p['name'] != 'Total']
assert rows and all(p['flags'] == 'd' for p in rows)"
"$LLVM_BIN/llc" -O2 -filetype=obj --time-trace --time-trace-file="$TMP/trace.json" "$TMP/out.ll" -o "$TMP/out.o"
check "parse llc --time-trace" sh -c "'$PASSMAP' parse --json '$TMP/trace.json' >'$TMP/t.json'"
check "chrome trace: passes sum <= total" json_ok "$TMP/t.json" chrome-trace 1

# several files share one report; the table prints a summary line
check "two files in one table" sh -c "'$PASSMAP' parse --top 5 '$TMP/mlir-tree.txt' '$TMP/llc.txt' | grep -q '5 report(s)'"
check "--tree keeps report order" sh -c "'$PASSMAP' parse --tree '$FX/mlir/tree-single.txt' | sed -n 2p | grep -q '^Parser '"

check "--help" "$PASSMAP" parse --help
check_fails "missing file fails" "$PASSMAP" parse "$TMP/nope.txt"
"$PASSMAP" parse "$TMP/nope.txt" 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "cannot open" "$TMP/err.txt" \
  && ok "missing file: exit 1, clear message" || fail "missing file: exit 1, clear message"
echo "just a log line" >"$TMP/empty.txt"
"$PASSMAP" parse "$TMP/empty.txt" 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "no timing report in $TMP/empty.txt; formats tried: mlir-text, mlir-json, llvm-text" "$TMP/err.txt" \
  && ok "no report: exit 1 naming the file and the formats tried" || fail "no report: exit 1 naming the formats tried"
# one empty file among good ones is still an error (it was silently skipped)
"$PASSMAP" parse "$FX/mlir/tree-single.txt" "$TMP/empty.txt" >/dev/null 2>"$TMP/err.txt"; [ $? -eq 1 ] \
  && grep -q "no timing report in $TMP/empty.txt" "$TMP/err.txt" && ok "an empty file among reports: exit 1" \
  || fail "an empty file among reports: exit 1"
: >"$TMP/zero.txt"
check_fails "a 0-byte file is no report" "$PASSMAP" parse "$TMP/zero.txt"
# clang 14's "... Pass execution timing report ..." was read as 0 passes with exit 0
n=$("$PASSMAP" parse --json "$FX/llvm/clang14-ftime-report.txt" | python3 -c 'import json,sys; print(sum(p["counted"] for p in json.load(sys.stdin)["passes"]))')
[ "${n:-0}" -gt 50 ] && ok "clang 14 -ftime-report: $n counted passes" || fail "clang 14 -ftime-report: ${n:-0} counted passes"
# only a breakdown section (no pass report): rows, but none counted -> exit 1, not a 0-pass table
sed -n '/Instruction Selection and Scheduling/,/Total$/p' "$FX/llvm/llc-time-passes.txt" | sed '1i ===-----------------------------------------------------------------------===' >"$TMP/isel-only.txt"
"$PASSMAP" parse "$TMP/isel-only.txt" >/dev/null 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "no counted pass" "$TMP/err.txt" \
  && ok "breakdown rows only: exit 1" || fail "breakdown rows only: exit 1 ($(cat "$TMP/err.txt"))"
# not regular files: /dev/zero grew memory without end, a FIFO blocked forever
"$PASSMAP" parse /dev/zero 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "not a regular file" "$TMP/err.txt" \
  && ok "/dev/zero refused" || fail "/dev/zero refused"
mkfifo "$TMP/fifo"
timeout 60 "$PASSMAP" parse "$TMP/fifo" 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "not a regular file" "$TMP/err.txt" \
  && ok "FIFO refused without blocking" || fail "FIFO refused without blocking"
printf '[{"wall": {"duration": 1}, "name": 3}]' >"$TMP/bad.json"
"$PASSMAP" parse --format mlir-json "$TMP/bad.json" 2>"$TMP/err.txt"; [ $? -eq 1 ] && grep -q "bad.json" "$TMP/err.txt" \
  && ok "malformed json: exit 1 naming the file" || fail "malformed json: exit 1 naming the file"
"$PASSMAP" parse --format nosuch "$TMP/empty.txt" 2>/dev/null; [ $? -eq 2 ] && ok "unknown format: usage error" \
  || fail "unknown format: usage error"
# A metrics-only file (the NPU schedule trace) prints its metrics rather than "no report".
out=$("$PASSMAP" parse --json "$ROOT/tests/fixtures/npu/compileTimeScheduleTrace.json")
echo "$out" | python3 -c 'import json,sys; m=json.load(sys.stdin)["metrics"]; assert m["npu.tasks"]==7 and m["npu.tasks.DMA"]==3, m' \
  && ok "schedule trace: metrics in --json (7 tasks, 3 DMA)" || fail "schedule trace metrics: $out"
# Chrome traces are read streaming, their memory bounded by the spans, not the bytes: a 96 MiB trace of a few
# spans and large metadata events (64 KiB of args each) parses in well under half its size (read whole into one
# Jansson tree it took about 20 times its size). ASan's quarantine would hold every freed event: kept small.
if [ -x /usr/bin/time ]; then
  python3 - "$TMP/big-trace.json" <<'PY'
import sys
pad = "x" * 65536
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents":[{"ph":"X","name":"root","ts":0,"dur":100,"pid":1,"tid":1}')
    for k in range(1536):
        f.write(',{"ph":"M","name":"thread_name","pid":1,"tid":%d,"args":{"name":"%s"}}' % (k, pad))
    f.write(',{"ph":"X","name":"leaf","ts":10,"dur":20,"pid":1,"tid":1}]}\n')
PY
  size_kb=$(( $(stat -c %s "$TMP/big-trace.json") / 1024 ))
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=1" /usr/bin/time -f %M -o "$TMP/rss.txt" \
    "$PASSMAP" parse --json "$TMP/big-trace.json" >"$TMP/big.out" 2>"$TMP/big.err"
  rss_kb=$(tail -1 "$TMP/rss.txt")
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [p["name"] for p in d["passes"]] == ["root", "root (self)", "leaf"], d' "$TMP/big.out" \
    && [ "$rss_kb" -lt $((size_kb / 2)) ] \
    && ok "96 MiB chrome trace parsed streaming: peak RSS ${rss_kb} KiB for a ${size_kb} KiB file" \
    || fail "streaming chrome trace: RSS ${rss_kb} KiB, file ${size_kb} KiB: $(head -c 600 "$TMP/big.out" "$TMP/big.err")"
  rm -f "$TMP/big-trace.json"
fi
# rows that look like rows but cannot be read are said, never dropped silently (issue 34.18)
printf '%s\n' 'Time variable                                   usr           sys          wall           GGC' \
  ' tree PTA                           :   x.00 (  1%)   0.00 (  0%)   0.01 (  1%)    10k (  1%)' \
  ' expand                             :   0.01 (  2%)   0.00 (  0%)   0.02 (  3%)    20k (  1%)' \
  ' TOTAL                              :   0.01          0.00          0.03         2118k' > "$TMP/badrow.txt"
"$PASSMAP" parse "$TMP/badrow.txt" >/dev/null 2>"$TMP/badrow.err"
check "gcc: a row that does not read is named in a warning" grep -q "warning: .*badrow.txt: 1 row not read (the first: line 2: ' tree PTA" "$TMP/badrow.err"
printf '[sweep]\nname = bad\nbackend = command\nrepeats = 1\n[matrix m]\nv = 1\n[step g]\nargv = /bin/cat %s\nreport = stdout\nformat = gcc-text\ntool = gcc\n' \
  "$TMP/badrow.txt" > "$TMP/badrow.ini"
"$PASSMAP" sweep --quiet --db "$TMP/badrow.db" "$TMP/badrow.ini" >/dev/null 2>&1
check "sweep: a row that does not read is said in the run's note" \
  test "$(sqlite3 "$TMP/badrow.db" "SELECT count(*) FROM run WHERE note LIKE 'gcc report: 1 row not read (the first: line 2:%'")" = 1
printf '[{"ph":"X","name":"a","ts":0,"dur":1000},{"ph":"X","name":"b","ts":5}]' > "$TMP/badrow.json"
"$PASSMAP" parse "$TMP/badrow.json" >/dev/null 2>"$TMP/badrow.err"
check "Chrome: an X event without dur is named in a warning" grep -q "1 row not read (the first: an X event without a numeric dur at byte 41)" "$TMP/badrow.err"

finish
