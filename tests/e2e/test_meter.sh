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
check "its slowdown against a native run, measured at its start, per tool" \
  test "$(q "select json_extract(meta_json, '$.meter_slowdown.loop') > 1 from sweep")" = 1
COLUMNS=200 "$PASSMAP" report "$TMP/m.db" > "$TMP/report.txt" 2>&1
check "the report's Method names the meter, its slowdown, and that its walls are not compile times" \
  grep -q "^meter: valgrind .*slowdown against a native run, measured at the sweep's start: loop [0-9]*x; its walls are the instrumented runs', not compile times" "$TMP/report.txt"
check "no count file left in the run folders" test -z "$(find "$TMP/m.db.runs" -name 'passmap-meter-*' -o -name 'cg.*' -o -name meter-slowdown)"
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

sed 's/^repeats = 3/repeats = 4/' "$TMP/m.ini" > "$TMP/m4.ini"
out=$("$PASSMAP" sweep --dry-run --db "$TMP/m.db" "$TMP/m4.ini" 2>&1)
check "--dry-run prints the meter's measured slowdown and the expected time of the runs left" \
  bash -c '[[ "$1" == *"4 runs planned (12 already recorded)"*"meter valgrind: steps run ~"*"x their native time; expected time "[0-9]* ]]' _ "$out"
# --jobs 2: the same counts (a count does not care what runs beside it), each run marked as one of two at once
check "sweep --jobs 2 under the valgrind meter" "$PASSMAP" sweep --quiet --jobs 2 --db "$TMP/j.db" "$TMP/m.ini"
counts() { sqlite3 "$1" "select c.key || ' ' || group_concat(distinct s.instructions) from step s join run r on r.id = s.run_id join config c on c.id = r.config_id group by c.key order by c.key"; }
counts "$TMP/j.db" > "$TMP/j.counts"; counts "$TMP/m.db" > "$TMP/m.counts"
# Two sweeps' counts of one command may differ by a few dozen instructions (the client's stack alignment moves
# with the size of what it inherits), within one sweep not at all: far below 0.001%
check "--jobs 2 gives the counts of --jobs 1 (within 0.001%)" python3 -c '
import sys
a = dict(l.split() for l in open(sys.argv[1])); b = dict(l.split() for l in open(sys.argv[2]))
assert a.keys() == b.keys() and all("," not in v for v in list(a.values()) + list(b.values())), (a, b)
assert all(abs(int(a[k]) - int(b[k])) <= 1e-5 * int(a[k]) for k in a), (a, b)' "$TMP/m.counts" "$TMP/j.counts"
check "... its runs record that they ran two at once (host.jobs: contended)" \
  test "$(sqlite3 "$TMP/j.db" "select count(*) from metric where name = 'host.jobs' and value = 2")" = 12
# with --jobs the slowdown's metered half is the pool's first run (no serial metered compile before the pool),
# and start-up is measured before the pool: both still recorded
check "... the meter's slowdown is recorded from the pool's first run" python3 -c '
import json, sqlite3, sys
m = json.loads(sqlite3.connect(sys.argv[1]).execute("select meta_json from sweep").fetchone()[0])
assert m["meter_slowdown"] and all(v > 1 for v in m["meter_slowdown"].values()), m' "$TMP/j.db"
check "... and start-up measured once" test "$(sqlite3 "$TMP/j.db" "select count(*) > 0 from startup")" = 1
"$PASSMAP" compare "$TMP/j.db" --a n=2000 --b n=2100 --json > "$TMP/j.json" 2>&1
check "... so their walls are contended, and their counts still decide" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["configs"]:
    assert "2 compiles at once (sweep --jobs)" in c["contended"]["a"], c["contended"]
    assert c["wall"]["verdict"] == "no conclusion (contended)" and c["metric"]["verdict"] == "slower", c' "$TMP/j.json"
check "no step group record left beside the database" test -z "$(ls "$TMP" | grep 'j.db.pgroup')"
out=$("$PASSMAP" sweep --quiet --jobs 2 --meter wall --db "$TMP/w.db" "$TMP/m.ini" 2>&1)
check "--jobs 2 with the wall meter is refused with the reason" \
  bash -c '[[ "$1" == *"--jobs 2 needs a meter that counts instructions"*"every time contended"* ]]' _ "$out"
check "... before anything ran" test ! -e "$TMP/w.db"

# another meter on the same sweep would mix instrumented and native walls
out=$("$PASSMAP" sweep --quiet --meter wall --db "$TMP/m.db" "$TMP/m.ini" 2>&1)
check "resuming with another meter is refused with the way out" \
  bash -c '[[ "$1" == *"sweep m was measured with the valgrind meter, not wall"*"--meter valgrind"* ]]' _ "$out"
out=$("$PASSMAP" sweep --quiet --meter nosuch --db "$TMP/x.db" "$TMP/m.ini" 2>&1)
check "an unknown --meter is refused with the list" bash -c '[[ "$1" == *"--meter is one of auto, wall, counters, valgrind, callgrind, not '"'nosuch'"'"* ]]' _ "$out"
sed 's/^meter = valgrind/meter = cachegrind/' "$TMP/m.ini" > "$TMP/bad.ini"
out=$("$PASSMAP" sweep --dry-run --db "$TMP/x.db" "$TMP/bad.ini" 2>&1)
check "[sweep] meter names its line and the list" bash -c '[[ "$1" == *"line 5"*"cachegrind"*"auto, wall, counters, valgrind"* ]]' _ "$out"
check "sweep --help lists the meters from the table" bash -c '"$1" sweep --help | grep -q "auto, wall, counters, valgrind"' _ "$PASSMAP"
"$PASSMAP" doctor --json > "$TMP/doctor.json" 2>/dev/null
check "doctor asks each meter row whether it runs here" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["default_backend"]["checks"]
assert c["meter_valgrind"]["ok"] and c["meter_wall"]["ok"], c
assert "meter_counters" in c, c' "$TMP/doctor.json"
# fix --jobs: its rounds are sweeps, run N at once under a count meter; refused under wall before anything runs
cat > "$TMP/f.ini" <<'INI'
[sweep]
name = f
backend = command
repeats = 3
meter = valgrind

[matrix m]
copy = a

[step s]
argv = sh -c 'n=3000; for a; do n=$a; done; i=0; while [ $i -lt $n ]; do i=$((i+1)); done; printf "{\"traceEvents\":[{\"name\":\"loop\",\"ph\":\"X\",\"ts\":0,\"dur\":%d}]}" $i' _
report = stdout
format = chrome-trace
tool = loop

[fix shorter]
step = s
argv_add = 1500
regime = *
why = half the loop
INI
check "the fix study under the valgrind meter" "$PASSMAP" sweep --quiet --db "$TMP/f.db" "$TMP/f.ini"
out=$("$PASSMAP" fix "$TMP/f.db" --no-check --jobs 2 --meter wall 2>&1); rc=$?
check "fix --jobs 2 with the wall meter is refused with the reason (exit $rc)" \
  bash -c '[ "$2" = 2 ] && [[ "$1" == *"--jobs 2 needs a meter that counts instructions"* ]]' _ "$out" "$rc"
check "... before anything ran" test "$(sqlite3 "$TMP/f.db" "select count(*) from sweep")" = 1
"$PASSMAP" fix "$TMP/f.db" --quiet --no-check --jobs 2 --meter valgrind --max-repeats 3 --json > "$TMP/f.json" 2>"$TMP/f.err"
# the counts decide although every run shares the machine by design (a count is not contended): half the loop
# is "faster" and shipped, its ratio named as instructions; every fix-round run recorded as one of two at once
check "fix --jobs 2 --meter valgrind: the counts decide, half the loop is faster" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r, rec = d["results"][0], d["recommended"]
assert r["verdict"] == "faster" and r["decided_on"] == "instructions (user space)", r
assert 0.4 < r["ratio"] < 0.6 and r["regimes"][0]["geomean_ratio"] == r["ratio"], r
assert rec["ship"] and rec["decided_on"] == "instructions (user space)", rec' "$TMP/f.json"
check "... each fix-round run recorded as one of 2 compiles at once" test "$(sqlite3 "$TMP/f.db" "select count(*)
  from metric m join run r on r.id = m.run_id join config c on c.id = r.config_id join sweep s on s.id = c.sweep_id
  where s.name = 'f-fix' and m.name = 'host.jobs' and m.value = 2")" -ge 6
out=$("$PASSMAP" fix "$TMP/f.db" --no-check --meter valgrind --max-repeats 3 2>&1)
check "fix's text names the metric of its ratio" bash -c '[[ "$1" == *"SHIP shorter: instructions (user space) 0.5"* ]]' _ "$out"
finish
