#!/usr/bin/env bash
# The meters (lib/run/meter*.c, issue 32): the valgrind meter counts the instructions of a step's whole process
# tree exactly (a shell step's children included), leaves no file behind, and its counts decide compare's
# verdicts (same for identical configs, slower for ~5% more work), with its walls marked as not compile times;
# a sweep records its meter and refuses to resume with one that measures differently; an unknown meter is refused
# with the list. Tiny steps only: Valgrind is slow.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
if ! command -v valgrind >/dev/null 2>&1; then
  ok "# SKIP no valgrind (scripts/install-deps.sh test installs it)"; finish; exit
fi
export TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR" "$TMP/cwd"
count() { # the instructions `passmap run --meter valgrind` counts for the command
  "$PASSMAP" run -n 1 --json --meter valgrind -- "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["instructions"])'
}
one=$(count /bin/true)
three=$(count sh -c '/bin/true; /bin/true; /bin/true; :')   # not builtins; the last not exec'd in place
shell=$(count sh -c ':')
check "run --meter valgrind counts a command" test "$one" -gt 10000
# three forked children of the shell are counted with it: at least the shell plus three times one child
check "the shell's children are counted ($shell + 3 x $one <= $three)" test $((shell + 3 * one)) -le "$three"
check "no count file left in TMPDIR" test -z "$(ls -A "$TMPDIR")"

cat > "$TMP/m.ini" <<'INI'
[sweep]
name = m
backend = command
repeats = 3
meter = valgrind

[matrix m]
n = 2000, 2100
copy = a, b

[step s]
argv = sh -c 'i=0; while [ $i -lt {n} ]; do i=$((i+1)); done; printf "{\"traceEvents\":[{\"name\":\"loop\",\"ph\":\"X\",\"ts\":0,\"dur\":%d}]}" $i'
report = stdout
format = chrome-trace
tool = loop
INI
check "a sweep under the valgrind meter" "$PASSMAP" sweep --quiet --db "$TMP/m.db" "$TMP/m.ini"
q() { sqlite3 "$TMP/m.db" "$1"; }
check "every step has its count" test "$(q "select count(*) from step where instructions > 0")" = 12
check "the counts are exact: one value per config" \
  test "$(q "select count(*) from (select c.key from step s join run r on r.id = s.run_id join config c on c.id = r.config_id group by c.key having count(distinct s.instructions) = 1)")" = 4
check "the sweep records its meter" test "$(q "select json_extract(meta_json, '$.meter') from sweep")" = valgrind
check "no count file left in the run folders" test -z "$(find "$TMP/m.db.runs" -name 'passmap-meter-*' -o -name 'cg.*')"
"$PASSMAP" compare "$TMP/m.db" --a copy=a --b copy=b > "$TMP/same.txt" 2>&1
check "compare decides on the counts" grep -q "^decided on: instructions (user space); wall shown" "$TMP/same.txt"
check "... and says the walls are Valgrind's" \
  grep -q "walls and steps of A and B were measured under the valgrind meter: the instrumented runs', not compile times" "$TMP/same.txt"
check "identical constant counts: same (not a division by zero)" \
  test "$(grep -c '^compile instructions (user space) .* same$' "$TMP/same.txt")" = 2
"$PASSMAP" compare "$TMP/m.db" --a n=2000 --b n=2100 --json > "$TMP/slower.json" 2>&1
check "5% more work: slower on both configs, whatever the machine's load" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["decided_on"] == "instructions (user space)", d["summary"]
assert [c["metric"]["verdict"] for c in d["configs"]] == ["slower", "slower"], d["configs"]
assert d["a"]["meter"] == "valgrind" and d["a"]["walls_slowed"], d["a"]' "$TMP/slower.json"

# another meter on the same sweep would mix instrumented and native walls
out=$("$PASSMAP" sweep --quiet --meter wall --db "$TMP/m.db" "$TMP/m.ini" 2>&1)
check "resuming with another meter is refused with the way out" \
  bash -c '[[ "$1" == *"sweep m was measured with the valgrind meter, not wall"*"--meter valgrind"* ]]' _ "$out"
out=$("$PASSMAP" sweep --quiet --meter nosuch --db "$TMP/x.db" "$TMP/m.ini" 2>&1)
check "an unknown --meter is refused with the list" bash -c '[[ "$1" == *"--meter is one of auto, wall, counters, valgrind, not '"'nosuch'"'"* ]]' _ "$out"
sed 's/^meter = valgrind/meter = cachegrind/' "$TMP/m.ini" > "$TMP/bad.ini"
out=$("$PASSMAP" sweep --dry-run --db "$TMP/x.db" "$TMP/bad.ini" 2>&1)
check "[sweep] meter names its line and the list" bash -c '[[ "$1" == *"line 5"*"cachegrind"*"auto, wall, counters, valgrind"* ]]' _ "$out"
check "sweep --help lists the meters from the table" bash -c '"$1" sweep --help | grep -q "auto, wall, counters, valgrind"' _ "$PASSMAP"
finish
