#!/usr/bin/env bash
# passmap's counting tool (src/vgwrap/count_tool.c, docs/meters.md): Valgrind's pmcount counts what cachegrind
# counts, its dumps end parts that `passmap parse --callgrind` reads as callgrind's, and the valgrind meter,
# which counts with it and the timer wrapper, leaves the printing of a timing report out, so that a compile with
# -time-passes counts (nearly) the same run to run. Counts are exact, so the checks hold on a loaded machine.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
WRAP=$ROOT/build/passmap-vgwrap.so
TOOLS=$ROOT/build/vgtool
LLC=$LLVM_BIN/llc
skip() { echo "ok $((_n + 1)) - # SKIP $1"; _n=$((_n + 1)); finish; exit; }
command -v valgrind >/dev/null || skip "valgrind not installed"
[ -x "$LLC" ] || skip "no llc in $LLVM_BIN"
[ -f "$WRAP" ] || skip "build/passmap-vgwrap.so not built (Valgrind's headers missing)"
ls "$TOOLS"/pmcount-* >/dev/null 2>&1 || skip "build/vgtool/pmcount not built (Valgrind's static core missing)"

IN=$ROOT/tests/fixtures/callgrind/one.ll
total() { awk '/^totals:/ { s += $2 } /^summary:/ { c = $2 } END { print (s ? s : c) }' "$1"; }
pmcount() { # OUT ARGS...: the compile under pmcount and the wrapper, its report in OUT.err
  local out=$1; shift
  LD_PRELOAD=$WRAP VALGRIND_LIB=$TOOLS valgrind --tool=pmcount --pmcount-out-file="$out" "$@" 2> "$out.err"
}

# the client's environment moves its stack, and with it a count by some hundred instructions: cachegrind runs
# with a VALGRIND_LIB of the same length (its own folder, slashes in front)
same_len=$(valgrind -d --tool=none true 2>&1 | sed -n 's|.*launcher launching \(.*\)/none-[^/]*$|\1|p' | head -1)
while [ ${#same_len} -lt ${#TOOLS} ]; do same_len=/$same_len; done
VALGRIND_LIB=$same_len valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$TMP/cg.out" \
  "$LLC" -O0 -filetype=obj "$IN" -o "$TMP/a.o" 2>/dev/null
VALGRIND_LIB=$TOOLS valgrind --tool=pmcount --pmcount-out-file="$TMP/plain.out" \
  "$LLC" -O0 -filetype=obj "$IN" -o "$TMP/b.o" 2>/dev/null
cg=$(total "$TMP/cg.out"); pc=$(total "$TMP/plain.out")
check "pmcount counts what cachegrind counts ($pc, cachegrind $cg)" test -n "$pc" -a "$pc" = "$cg"

pmcount "$TMP/t1.out" "$LLC" -O0 -filetype=obj -time-passes "$IN" -o "$TMP/t1.o"
t1=$(total "$TMP/t1.out")
check "the timer wrapper dumped at timer starts" grep -q '^desc: Trigger: Client Request: start ' "$TMP/t1.out"

# the valgrind meter counts with pmcount and the wrapper: the report's printing, which sorts and formats the
# times, is left out. What stays is the heap the printing leaves to the exit's frees: tens of instructions in
# 29 M; cachegrind's count moves by ~5,000 (0.016%).
counts=$(PASSMAP_VGWRAP=$WRAP "$PASSMAP" run -n 3 --json --meter valgrind -- "$LLC" -O0 -filetype=obj -time-passes \
  "$IN" -o "$TMP/m.o" 2>/dev/null | python3 -c 'import json,sys; print(*[r["instructions"] for r in json.load(sys.stdin)["runs"]])')
check "under the valgrind meter with -time-passes the count moves by <= 0.002% ($counts)" \
  python3 -c 'import sys; v = [int(x) for x in sys.argv[1:]]; assert len(v) == 3 and (max(v) - min(v)) / min(v) <= 2e-5, v' $counts

grep -Ev '^==[0-9]+==' "$TMP/t1.out.err" > "$TMP/report.txt"
"$PASSMAP" parse --callgrind "$TMP/t1.out" --tool llc --json "$TMP/report.txt" > "$TMP/pc.json" 2> "$TMP/pc.err"
check "passmap parse --callgrind reads pmcount's file: every pass timer but Parse IR counted" \
  python3 - "$TMP/pc.json" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mechanism"] == "timer", d["mechanism"]
rows = d["passes"]
missing = [r["name"] for r in rows if r["instructions"] is None]
assert len(missing) <= 1, missing
s = sum(r["instructions"] for r in rows if r["instructions"] is not None)
assert d["total_instructions"] == int(sys.argv[2]), (d["total_instructions"], sys.argv[2])
assert 0 < s <= d["total_instructions"], (s, d["total_instructions"])
assert d["timed_instructions"] >= s * 0.95, (d["timed_instructions"], s)
PY
finish
