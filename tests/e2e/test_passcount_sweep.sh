#!/usr/bin/env bash
# Per-pass counts in a sweep (issue 32, docs/meters.md): a small llc-22 compile swept under the callgrind meter
# stores each timed pass's instruction count beside its wall (pass_count), the counted passes sum to at most the
# step's process count, the heaviest pass is a named llc pass, and the report shows the counts beside the wall
# with the dominant stage by each. Counts are exact (callgrind), so the checks hold on a loaded machine; a few
# minutes under load (the meter's slowdown is measured once, then one counted run).
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
LLC=$LLVM_BIN/llc
skip() { echo "ok $((_n + 1)) - # SKIP $1"; _n=$((_n + 1)); finish; exit; }
command -v valgrind >/dev/null || skip "valgrind not installed"
[ -x "$LLC" ] || skip "no llc in $LLVM_BIN"
[ -f "$ROOT/build/passmap-vgwrap.so" ] || skip "build/passmap-vgwrap.so not built (Valgrind's headers missing)"
export PASSMAP_VGWRAP=$ROOT/build/passmap-vgwrap.so   # the SAN build's binary sits elsewhere

cp "$ROOT/tests/fixtures/callgrind/one.ll" "$TMP/one.ll"
cat > "$TMP/pc.ini" <<INI
[sweep]
name = pc
backend = command
repeats = 1
meter = callgrind
[matrix m]
input = one.ll
[step llc]
argv = $LLC -O0 -filetype=obj -time-passes {input} -o {out}/x.o
report = stderr
tool = llc
INI
(cd "$TMP" && "$PASSMAP" sweep --quiet pc.ini --db pc.db) > "$TMP/sweep.out" 2>&1
check "the sweep ran under the callgrind meter" grep -q "1 ok" "$TMP/sweep.out"

q() { sqlite3 "$TMP/pc.db" "$1"; }
process=$(q "SELECT s.instructions FROM step s JOIN run r ON r.id = s.run_id WHERE r.mode = 'cold'")
counted=$(q "SELECT sum(instructions) FROM pass_count")
n_rows=$(q "SELECT count(*) FROM pass_count")
n_counted=$(q "SELECT count(instructions) FROM pass_count")
n_pass=$(q "SELECT count(*) FROM pass_time WHERE counted = 1")
check "one pass_count row per counted report row ($n_rows of $n_pass)" test "$n_rows" -eq "$n_pass"
# llc's Parse IR timer starts where the wrapper cannot see it; every other pass timer is counted
check "all passes but at most one counted ($n_counted of $n_rows)" test "$n_counted" -ge $((n_rows - 1))
check "the counted passes sum to at most the process count ($counted <= $process)" \
  test "$counted" -gt 0 -a "$counted" -le "$process"
check "a pass without a count says why" test "$(q "SELECT count(*) FROM pass_count WHERE instructions IS NULL AND (why IS NULL OR why = '')")" -eq 0
heaviest=$(q "SELECT n.name FROM pass_count c JOIN pass_time p ON p.step_id = c.step_id AND p.idx = c.idx
              JOIN pass_name n ON n.id = p.name_id ORDER BY c.instructions DESC LIMIT 1")
check "the heaviest pass is named ($heaviest)" test -n "$heaviest"
check "counted at the timers" test "$(q "SELECT count(*) FROM pass_count WHERE how = 'timer'")" -eq "$n_counted"
check "no callgrind file left in the run folders" test -z "$(find "$TMP" -name 'callgrind.out.*')"

"$PASSMAP" report "$TMP/pc.db" > "$TMP/report.txt" 2> "$TMP/report.err"
check "the report shows per-pass instructions" grep -q "per-pass instructions: dominant stage by count and by wall" "$TMP/report.txt"
check "the report names the heaviest pass beside its wall" grep -qF "$heaviest" "$TMP/report.txt"
"$PASSMAP" report --json "$TMP/pc.db" > "$TMP/report.json"
check "the JSON report has every counted pass, its count the store's" python3 - "$TMP/report.json" "$heaviest" "$n_counted" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["passcount"]
rows = d["passes"]["rows"] if isinstance(d["passes"], dict) and "rows" in d["passes"] else d["passes"]
assert len(rows) == int(sys.argv[3]), (len(rows), sys.argv[3])
assert rows[0]["pass"] == sys.argv[2], rows[0]
assert rows[0]["instructions"] > 0 and rows[0]["wall_s"] is not None, rows[0]
c = d["configs"]["rows"][0] if isinstance(d["configs"], dict) else d["configs"][0]
assert c["by_count"] and c["by_wall"], c
PY
# a store without per-pass counts has no section
sqlite3 "$TMP/pc.db" "DELETE FROM pass_count"
"$PASSMAP" report "$TMP/pc.db" > "$TMP/report2.txt" 2>&1
check_fails "no counts, no section" grep -q "per-pass instructions" "$TMP/report2.txt"
finish
