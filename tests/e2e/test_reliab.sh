#!/usr/bin/env bash
# Reliability, third round: nothing destroyed, nothing dropped, no fake hits, bounded resources, no injection.
# Each case reproduced a failure of the code before it.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
cd "$TMP" || exit 1

# expect_fail STATUS GREP DESC CMD...: CMD exits with STATUS and its stderr matches GREP.
expect_fail() {
  local want=$1 pat=$2 desc=$3; shift 3
  "$@" >/dev/null 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$TMP/err"; then ok "$desc"
  else fail "$desc (rc=$rc)"; sed 's/^/#   /' "$TMP/err" | tail -5; fi
}
# is_db FILE DESC: FILE is still a passmap database with N runs.
runs_of() { sqlite3 "$1" "SELECT count(*) FROM run" 2>/dev/null; }
# An address-space limit for the runaway cases; AddressSanitizer reserves terabytes of shadow and cannot run under
# one, so a sanitizer build gets the timeouts only (and skips the inherited-limit case).
LIMIT_V="ulimit -v 3000000;"; ldd "$PASSMAP" 2>/dev/null | grep -q libasan && LIMIT_V=""

# --- 1. an output that is the database (or an input) is refused, the database left whole
"$PASSMAP" run -n 3 --db a.db --config k -- true >/dev/null 2>&1 || fail "run --db a.db"
before=$(runs_of a.db)
expect_fail 2 "refusing to write a.db: it is the database" "trace DB -o DB is refused" "$PASSMAP" trace a.db --run 1 -o a.db
expect_fail 2 "refusing to write a.db: it is the database" "report DB --html DB is refused" "$PASSMAP" report a.db --html a.db
expect_fail 2 "refusing to write a.db: it is the database" "run --db DB --stdout DB is refused" \
  "$PASSMAP" run -n 1 --db a.db --config k --stdout a.db -- echo hi
expect_fail 2 "it is the database" "run --db DB --stderr DB is refused" \
  "$PASSMAP" run -n 1 --db a.db --config k --stderr a.db -- true
ln -s a.db link.db
expect_fail 2 "it is the database a.db" "trace DB -o a symlink to DB is refused" "$PASSMAP" trace a.db --run 1 -o link.db
ln a.db hard.db
expect_fail 2 "it is the database a.db" "report DB --html a hard link to DB is refused" "$PASSMAP" report a.db --html hard.db
[ "$(runs_of a.db)" = "$before" ] && ok "the database is intact ($before runs)" || fail "the database was damaged"
# device files are still written in place (never renamed over), regular files replaced whole
check "trace -o /dev/null still works" "$PASSMAP" trace a.db --run 1 -o /dev/null   # lint: passmap itself, the device write under test
[ -c /dev/null ] && ok "/dev/null is still a device" || fail "/dev/null was replaced"
mkfifo fifo
( timeout 20 cat fifo > fifo.out ) &
sleep 1 # the reader must be there: a FIFO without one is an error, never a wait
check "trace -o FIFO is written in place" "$PASSMAP" trace a.db --run 1 -o fifo
wait
[ -p fifo ] && grep -q traceEvents fifo.out && ok "the FIFO stays a FIFO and carried the trace" || fail "FIFO output"
check "trace -o a regular file" "$PASSMAP" trace a.db --run 1 -o t.json
grep -q traceEvents t.json && ok "trace file written" || fail "trace file missing"

# --- 2. merge keeps distinct runs: two machines' run -n 3 --db with the same config key are 6 runs
"$PASSMAP" run -n 3 --db m1.db --config same -- true >/dev/null 2>&1
"$PASSMAP" run -n 3 --db m2.db --config same -- true >/dev/null 2>&1
check "merge two run --db stores" "$PASSMAP" merge all.db m1.db m2.db
[ "$(runs_of all.db)" = 6 ] && ok "merged store keeps all 6 runs" || fail "merged store has $(runs_of all.db) runs, not 6"
reps=$(sqlite3 all.db "SELECT group_concat(repeat, ',') FROM (SELECT repeat FROM run ORDER BY repeat)")
[ "$reps" = "0,1,2,3,4,5" ] && ok "appended runs renumbered (repeats $reps)" || fail "repeats $reps"
out=$("$PASSMAP" merge all.db m1.db m2.db 2>&1)
[ "$(runs_of all.db)" = 6 ] && echo "$out" | grep -q "0 runs merged, 6 skipped" && ok "merging again skips the 6 true duplicates" \
  || { fail "merge again: $(runs_of all.db) runs"; echo "$out" | sed 's/^/#   /'; }
"$PASSMAP" merge all2.db all.db >/dev/null 2>&1
check "a merged store merges into another with all its runs" test "$(runs_of all2.db)" = 6

# --- 3. a warm run is recorded only when the cache served a hit; an uncacheable step is named at the start
CLANG=$(command -v clang-22 || echo "$LLVM_BIN/clang")
mkdir -p w && printf 'int f(void){return 1;}\n' > w/a.c
spec_w() { # NAME EXTRA-STEP-TEXT
  printf '[sweep]\nname = w\nbackend = command\nrepeats = 1\nwarm = true\nwarm_repeats = 2\n[matrix m]\ninput = a.c\n%s\n' "$2" > "w/$1.ini"
}
spec_w good "[step cc]
argv = $CLANG -c {input} -o {out}/a.o
outputs = {out}/a.o"
spec_w runfolder "[step cc]
argv = $CLANG -c {input} -o {out}/a.o -fdebug-prefix-map={out}=x
outputs = {out}/a.o"
spec_w nooutput "[step nothing]
argv = /bin/true {input}"
"$PASSMAP" sweep --quiet --db w/good.db w/good.ini >/dev/null 2>&1
[ "$(sqlite3 w/good.db "SELECT count(*) FROM run WHERE mode='warm' AND status='ok'")" = 2 ] \
  && ok "a cacheable step: 2 warm runs served by the cache" || fail "good warm: $(sqlite3 w/good.db "SELECT mode, status, note FROM run")"
for s in runfolder nooutput; do
  "$PASSMAP" sweep --quiet --db w/$s.db w/$s.ini >/dev/null 2>w/$s.err
  n=$(sqlite3 w/$s.db "SELECT count(*) FROM run WHERE mode='warm' AND status='ok'")
  [ "$n" = 0 ] && ok "$s: no warm run recorded as a hit" || fail "$s: $n warm runs recorded ok (the cache served none)"
  sqlite3 w/$s.db "SELECT note FROM run WHERE mode='warm'" | grep -q "the cache served no hit" \
    && ok "$s: the warm runs say the cache served no hit" || fail "$s: warm notes"
done
grep -q "step clang (config m/input=a.c) cannot be cached: argument .* names the run folder" w/runfolder.err \
  && ok "a step whose argv names the run folder is named at sweep start" || { fail "run-folder notice"; sed 's/^/#   /' w/runfolder.err; }
grep -q "step true (config m/input=a.c) cannot be cached: no output" w/nooutput.err \
  && ok "a step without outputs is named at sweep start" || { fail "no-output notice"; sed 's/^/#   /' w/nooutput.err; }
! grep -q "cannot be cached" <("$PASSMAP" sweep --quiet --db w/good2.db w/good.ini 2>&1) \
  && ok "a cacheable step is not named" || fail "a cacheable step was named"

# --- 4. status counts against the plan, not against what a store holds
mkdir -p st && printf 'x\n' > st/a.txt && printf 'y\n' > st/b.txt && printf 'z\n' > st/c.txt
cat > st/s.ini <<'INI'
[sweep]
name = st
backend = command
repeats = 2
[matrix m]
input = *.txt
[step cat]
argv = /bin/cat {input}
INI
"$PASSMAP" sweep --quiet --shard 1/2 --db st/s1.db st/s.ini >/dev/null 2>&1 || fail "shard 1/2 sweep"
left=$("$PASSMAP" status --json st/s1.db | python3 -c 'import json,sys; print(sum(r["left"] for r in json.load(sys.stdin)))')
planned=$("$PASSMAP" status --json st/s1.db | python3 -c 'import json,sys; print(sum(r["planned"] for r in json.load(sys.stdin)))')
[ "$planned" = 6 ] && [ "$left" -gt 0 ] && ok "status of one shard: the plan is the spec's 3 configs x 2 (left $left)" \
  || fail "status of one shard: planned $planned, left $left"
"$PASSMAP" merge --partial st/m.db st/s1.db >/dev/null 2>&1
"$PASSMAP" status st/m.db | grep -qE '^  st +2/2 .* [1-9][0-9]* +0 ' && ok "a merged store missing shard 2/2 shows its work left" \
  || { fail "merged store missing a shard"; "$PASSMAP" status st/m.db | sed 's/^/#   /'; }
cat > st/auto.ini <<'INI'
[sweep]
name = auto
backend = command
repeats = auto
min_repeats = 3
max_repeats = 6
precision = 0.01%
[matrix m]
input = a.txt
[step cat]
argv = /bin/cat {input}
INI
"$PASSMAP" sweep --quiet --max-runs 3 --db st/auto.db st/auto.ini >/dev/null 2>&1
left=$("$PASSMAP" status --json st/auto.db | python3 -c 'import json,sys; print(sum(r["left"] for r in json.load(sys.stdin)))')
[ "$left" = 3 ] && ok "an auto sweep stopped after min_repeats owes up to max_repeats (left $left)" \
  || fail "auto sweep stopped early: left $left"
"$PASSMAP" sweep --quiet --db st/auto.db st/auto.ini >/dev/null 2>&1
n=$(sqlite3 st/auto.db "SELECT count(*) FROM run")
left=$("$PASSMAP" status --json st/auto.db | python3 -c 'import json,sys; print(sum(r["left"] for r in json.load(sys.stdin)))')
[ "$left" = 0 ] && ok "finished auto sweep: left 0 ($n runs)" || fail "finished auto sweep: left $left ($n runs)"

# --- 5. generated Slurm scripts: every value quoted, line breaks refused, bash -n clean (no Slurm needed)
hostile="sl/d \$(touch PWNED) 'q' \"x\" \`touch PWNED2\` ;&|<>*"
mkdir -p "$hostile" && printf 'x\n' > "$hostile/a.txt"
cat > "$hostile/s.ini" <<'INI'
[sweep]
name = sl
backend = command
repeats = 1
[matrix m]
input = a.txt
[step cat]
argv = /bin/cat {input}
INI
# split_scripts FILE: the scripts a --slurm --dry-run printed, as sl/script1, sl/script2
split_scripts() { awk '/^# ---- /{n++; next} {print > ("sl/script" n)}' "$1"; }
"$PASSMAP" sweep --slurm --dry-run --shards 1 --db sl/out.db "$hostile/s.ini" > sl/dry.txt 2>&1 \
  && ok "--slurm --dry-run with a hostile spec path" || { fail "--slurm --dry-run hostile"; sed 's/^/#   /' sl/dry.txt; }
split_scripts sl/dry.txt
bash -n sl/script1 && bash -n sl/script2 && ok "both scripts pass bash -n" || fail "bash -n"
grep -q '^#SBATCH --array=1-1$' sl/script1 && grep -q '^#SBATCH --exclusive$' sl/script1 \
  && ok "the directives survive the hostile path" || fail "directives lost"
# the plan --dry-run printed (third part) is what a submit writes beside the scripts
mkdir -p sl/out.db.slurm && cp sl/script3 sl/out.db.slurm/plan.txt
( cd sl && SLURM_ARRAY_TASK_ID=1 sh ./script1 >/dev/null 2>&1 && sh ./script2 >/dev/null 2>&1 ) \
  && ok "the scripts run: the spec path reached passmap as one word" || fail "running the scripts"
[ "$(runs_of sl/out.db)" = 1 ] && ok "shard swept and merged (1 run)" || fail "merged runs: $(runs_of sl/out.db)"
[ -z "$(find "$TMP" -name 'PWNED*')" ] && ok "nothing in the path was executed" || fail "injection: $(find "$TMP" -name 'PWNED*')"
nl="sl/n
touch PWNED3
"
mkdir -p "$nl" && cp "$hostile/s.ini" "$hostile/a.txt" "$nl/"
expect_fail 2 "line break" "a spec path with a newline is refused" "$PASSMAP" sweep --slurm --dry-run --db sl/o2.db "$nl/s.ini"
# --costs is read once at submit, into the plan: its path never reaches a script, so a line break in it is harmless
cp sl/out.db "$nl/c.db"
out=$("$PASSMAP" sweep --slurm --dry-run --db sl/o2.db --costs "$nl/c.db" "$hostile/s.ini" 2>&1); rc=$?
[ "$rc" = 0 ] && ! echo "$out" | grep -q -- "--costs\|PWNED3" && ok "a --costs path with a newline is read at submit, never scripted" \
  || { fail "--costs with a newline: rc=$rc"; echo "$out" | sed 's/^/#   /' | tail -5; }
expect_fail 2 "%" "a --db path with % is refused (Slurm file-name pattern)" "$PASSMAP" sweep --slurm --dry-run --db "sl/o%a.db" "$hostile/s.ini"
grep -q 'shard-%A_%a.log' sl/script1 && grep -q -- '--open-mode=append' sl/script1 && ok "per-attempt shard logs (%A_%a)" || fail "shard log name"
grep -q '^#SBATCH --kill-on-invalid-dep=yes$' sl/script2 && ok "the merge job is cancelled when a shard can never succeed" \
  || fail "merge job without --kill-on-invalid-dep"
expect_fail 2 "an absolute path on every node" "--slurm --work-dir takes a node-local absolute path, not a relative one" \
  "$PASSMAP" sweep --slurm --dry-run --work-dir sl/w --db sl/o3.db "$hostile/s.ini"
for o in --keep "--max-runs 3" "--device CPU" "--backend command"; do
  # shellcheck disable=SC2086
  expect_fail 2 "does not pass ${o%% *}" "--slurm $o is an error" "$PASSMAP" sweep --slurm --dry-run $o --db sl/o3.db "$hostile/s.ini"
done
PATH="$TMP/nosbatch:$PATH"; mkdir -p "$TMP/nosbatch"
printf '#!/bin/sh\ntouch "%s/SUBMITTED"\necho 1\n' "$TMP" > "$TMP/nosbatch/sbatch"; chmod +x "$TMP/nosbatch/sbatch"
"$PASSMAP" sweep --slurm --status --db sl/out.db "$hostile/s.ini" > sl/status.txt 2>&1
[ ! -e "$TMP/SUBMITTED" ] && grep -q "shard-1-of-1.db" sl/status.txt && ok "--slurm --status submits nothing and shows the shards" \
  || { fail "--slurm --status"; sed 's/^/#   /' sl/status.txt; }

# --- 6. one config cap for every back end, checked before expansion
mkdir -p cap
python3 - > cap/big.ini <<'PY'
print("[sweep]\nname = big\nbackend = command\n[matrix m]")
for i in range(9):
    print("a%d = " % i + ", ".join("v%d" % j for j in range(10)))
print("[step s]\nargv = /bin/true {a0}")
PY
python3 - > cap/over.ini <<'PY'
print("[sweep]\nname = over\nbackend = command\n[matrix m]")
print("a = " + ", ".join("v%d" % j for j in range(1200)))
print("b = " + ", ".join("w%d" % j for j in range(1000)))
print("[step s]\nargv = /bin/true {a}")
PY
expect_fail 2 "\[matrix m\] makes 1000000000 configs.*limit of 1000000" "a 10^9-config [matrix] fails fast naming the limit" \
  bash -c "$LIMIT_V"' exec timeout 30 "$0" sweep --dry-run --db cap/b.db cap/big.ini' "$PASSMAP"
expect_fail 2 "makes 1200000 configs.*limit of 1000000" "a 1.2 M-config [matrix] is refused" \
  bash -c "$LIMIT_V"' exec timeout 60 "$0" sweep --dry-run --db cap/o.db cap/over.ini' "$PASSMAP"

# --- 8. step metrics: a regular file only, bounded, never a hang; anything else is "metric missing"
mkdir -p met && printf 'x\n' > met/a.txt
cat > met/m.ini <<'INI'
[sweep]
name = met
backend = command
repeats = 1
timeout = 20s
mem_limit = 1G
[matrix m]
input = a.txt
[step mk]
argv = /usr/bin/mkfifo {out}/fifo
ir.zero_lines = lines /dev/zero
ir.fifo_lines = lines {out}/fifo
ir.fifo_count = count {out}/fifo x
ir.zero_json = json /dev/zero a.b
ir.zero_size = size /dev/zero
ir.input_lines = lines {input}
INI
t0=$(date +%s)
timeout -s KILL 120 bash -c "$LIMIT_V"' exec "$0" sweep --quiet --db met/m.db met/m.ini' "$PASSMAP" >/dev/null 2>met/err
rc=$?; t1=$(date +%s)
[ "$rc" = 0 ] && [ $((t1 - t0)) -lt 60 ] && ok "metrics on /dev/zero and a FIFO: the sweep ends ($((t1 - t0)) s)" \
  || { fail "metric sweep rc=$rc after $((t1 - t0)) s"; sed 's/^/#   /' met/err | tail -3; }
[ "$(sqlite3 met/m.db "SELECT group_concat(name) FROM metric WHERE name LIKE 'ir.%'")" = "ir.input_lines" ] \
  && ok "device and FIFO metrics are missing, the regular file's is there" \
  || fail "metrics stored: $(sqlite3 met/m.db "SELECT name, value FROM metric WHERE name LIKE 'ir.%'")"

# --- 9. an inherited hard address-space limit below mem_limit: clamped with one notice; all runs failed = exit 1
cat > met/lim.ini <<'INI'
[sweep]
name = lim
backend = command
repeats = 2
[matrix m]
input = r.txt
[step cat]
argv = /bin/cat {input}
report = stdout
INI
# the step prints a real timing report, so its runs are ok (one without is no-report)
cp "$ROOT/tests/fixtures/mlir/list-single.txt" met/r.txt
if [ -n "$LIMIT_V" ]; then
bash -c "$LIMIT_V"' exec "$0" sweep --quiet --db met/l.db met/lim.ini' "$PASSMAP" >/dev/null 2>met/lerr
grep -c "above the address-space limit this process inherited" met/lerr | grep -qx 1 \
  && ok "mem_limit above the inherited hard limit: one notice" || { fail "no clamp notice"; sed 's/^/#   /' met/lerr | tail -3; }
[ "$(sqlite3 met/l.db "SELECT group_concat(status) FROM run")" = ok,ok ] && ok "the steps ran under the inherited limit (were spawn-error)" \
  || fail "runs under ulimit -v: $(sqlite3 met/l.db "SELECT status, note FROM run")"
else
  ok "# SKIP inherited address-space limit: a sanitizer build cannot run under ulimit -v"
  ok "# SKIP (same)"
fi
cat > met/fail.ini <<'INI'
[sweep]
name = fails
backend = command
repeats = 2
[matrix m]
input = a.txt
[step f]
argv = /bin/false {input}
INI
expect_fail 1 "every run failed \(2 of 2\)" "a sweep whose runs all failed exits 1" "$PASSMAP" sweep --quiet --db met/f.db met/fail.ini

# --- 10a. readers refuse a foreign or future-schema database; writers refuse a foreign one without touching it
sqlite3 foreign.db "PRAGMA application_id = 1234; CREATE TABLE pass_time(x); CREATE TABLE t(x); INSERT INTO t VALUES(1);"
cp a.db future.db && sqlite3 future.db "PRAGMA user_version = 999"
for c in report show trace; do
  expect_fail 1 "foreign.db: not a passmap database" "$c refuses a foreign database" "$PASSMAP" $c foreign.db
  expect_fail 1 "newer than this passmap" "$c refuses a future-schema database" "$PASSMAP" $c future.db
done
before=$(sqlite3 foreign.db "PRAGMA journal_mode")
"$PASSMAP" run -n 1 --db foreign.db --config k -- true >/dev/null 2>&1
[ "$(sqlite3 foreign.db "PRAGMA journal_mode")" = "$before" ] && ok "a refused foreign database keeps its journal mode ($before)" \
  || fail "a foreign database was switched to $(sqlite3 foreign.db "PRAGMA journal_mode")"

# --- 10b. merge reads an older-schema input from an upgraded copy: the input is not changed (read-only media)
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 old1.db
sum_before=$(md5sum < old1.db)
chmod a-w old1.db
check "merge of a read-only schema-1 input" "$PASSMAP" merge old-out.db old1.db
[ "$(md5sum < old1.db)" = "$sum_before" ] && [ "$(sqlite3 old1.db "PRAGMA user_version")" = 1 ] \
  && ok "the input is unchanged (still schema 1)" || fail "the input was upgraded in place"
[ "$(runs_of old-out.db)" = "$(runs_of old1.db)" ] && ok "all its runs merged" || fail "runs lost"
[ -z "$(ls old-out.db.upgrade-* 2>/dev/null)" ] && ok "the upgraded copy is removed" || fail "copy left behind"
chmod u+w old1.db
# a dry run, and a command that fails before it writes, leave an older store byte-identical: migrated in place,
# the passmap that made it could no longer resume it (issue 34.9)
for cmd in "fix --dry-run" "probe --sweep nosuch"; do
  "$PASSMAP" $cmd old1.db >/dev/null 2>&1
  [ "$(md5sum < old1.db)" = "$sum_before" ] && ok "passmap $cmd on a schema-1 store leaves it byte-identical" \
    || fail "passmap $cmd migrated the store (now schema $(sqlite3 old1.db "PRAGMA user_version"))"
done

# --- 10c. a malformed placeholder is an error, not a literal argv word
mkdir -p ph && printf 'x\n' > ph/a.txt
for a in '{out' '{}' '{{input}}'; do
  printf '[sweep]\nname = p\nbackend = command\n[matrix m]\ninput = a.txt\n[step s]\nargv = /bin/cat %s\n' "$a" > ph/p.ini
  expect_fail 2 "line 7: \[step s\] argv: .*placeholder" "argv word $a is an error" "$PASSMAP" sweep --dry-run --db ph/p.db ph/p.ini
done
printf '[sweep]\nname = p\nbackend = command\n[matrix m]\ninput = a.txt\n[step s]\nargv = /bin/echo {{x} {input}\n' > ph/ok.ini
check "{{ is still a literal {" "$PASSMAP" sweep --dry-run --db ph/p.db ph/ok.ini

# --- 10d. min_repeats / max_repeats / precision without repeats = auto are errors, not ignored
printf '[sweep]\nname = p\nbackend = command\nrepeats = 2\nmin_repeats = 5\n[matrix m]\ninput = a.txt\n[step s]\nargv = /bin/cat {input}\n' > ph/mr.ini
expect_fail 2 "line 5: \[sweep\] min_repeats applies only with repeats = auto" "min_repeats without repeats = auto is an error" \
  "$PASSMAP" sweep --dry-run --db ph/mr.db ph/mr.ini

# --- 10e. a declared output outside the run folder may be the user's own file: a warm sweep's cache miss never
# destroys it. A step that fails or does not write it leaves it as it was; one that writes it replaces it.
mkdir -p uo/user && cp "$ROOT/tests/fixtures/mlir/list-single.txt" uo/r.txt
cat > uo/step.sh <<'SH'
cat "$(dirname "$0")/r.txt" >&2
case $1 in
  fail) exit 3 ;;
  write) echo "written by the step" > "$2" ;;
esac
exit 0
SH
cat > uo/s.ini <<INI
[sweep]
name = uo
backend = command
repeats = 1
warm = true
warm_repeats = 1
[matrix m]
what = fail, nowrite, write
[step s]
argv = /bin/sh {spec_dir}/step.sh {what} $TMP/uo/user/{what}.o
outputs = $TMP/uo/user/{what}.o
INI
for w in fail nowrite write; do echo "mine: $w" > "uo/user/$w.o"; done
"$PASSMAP" sweep --quiet --db uo/s.db uo/s.ini >uo/out 2>uo/err
for w in fail nowrite; do
  [ "$(cat "uo/user/$w.o" 2>&1)" = "mine: $w" ] && ok "a step that does $w: the user's output outside the run folder is intact" \
    || { fail "a step that does $w: the user's output is $(cat "uo/user/$w.o" 2>&1)"; sed 's/^/#   /' uo/err | tail -3; }
done
[ "$(cat uo/user/write.o 2>&1)" = "written by the step" ] && ok "a step that writes its output outside the run folder replaces it" \
  || fail "written output: $(cat uo/user/write.o 2>&1)"
[ "$(ls -A uo/user | grep -c passmap-prev)" = 0 ] && ok "no copy left beside the outputs" || fail "copies left: $(ls -A uo/user)"
[ "$(sqlite3 uo/s.db "SELECT r.status FROM run r JOIN config c ON c.id = r.config_id WHERE c.key = 'm/what=write' AND r.mode = 'warm'")" = ok ] \
  && ok "the step that writes its output is still served warm from the cache" \
  || fail "warm run of the writing step: $(sqlite3 uo/s.db "SELECT c.key, r.mode, r.status, r.note FROM run r JOIN config c ON c.id = r.config_id")"


# --- contention (issue 33): under real competing busy loops the report's noise flags and compare's withheld
# verdicts name the same configs, from the one evidence constructor (the report once left the pressure in seconds
# out of its evidence and flagged none where compare flagged every config)
CLANG=$(command -v clang-22 || echo "$LLVM_BIN/clang")
mkdir -p busy
cp "$ROOT"/lib/base/util.c "$ROOT"/lib/base/*.h busy/
cat > busy/s.ini <<INI
[sweep]
name = busy
backend = command
repeats = 3
[matrix m]
opt = 0, 2
[step cc]
argv = $CLANG -std=c11 -D_GNU_SOURCE -O{opt} -c {spec_dir}/util.c -o {out}/util.o -ftime-trace
report = {out}/util.json
tool = clang
INI
loops=()
for _ in $(seq 0 "$(nproc)"); do sh -c 'while :; do :; done' & loops+=($!); done   # one more than the CPUs
"$PASSMAP" sweep --quiet --db busy/s.db busy/s.ini >busy/out 2>&1 || { fail "busy sweep"; sed 's/^/#   /' busy/out | tail -3; }
kill "${loops[@]}"; wait "${loops[@]}" 2>/dev/null
"$PASSMAP" report --json busy/s.db >busy/r.json 2>busy/err
"$PASSMAP" compare --json busy/s.db --a opt=0 --b opt=2 >busy/c.json 2>>busy/err
python3 - busy/r.json busy/c.json <<'PY' && ok "busy loops: report and compare flag the same configs (and some)" \
  || { fail "busy loops: report and compare disagree"; sed 's/^/#   /' busy/err | tail -3; }
import json, sys
r, c = (json.load(open(p)) for p in sys.argv[1:])
rep = sorted(k["key"] for k in r["configs"] if k["noise"]["contended"])
cmp = sorted([x["key_a"] for x in c["configs"] if x["contended"]["a"]] + [x["key_b"] for x in c["configs"] if x["contended"]["b"]])
print("# report:", rep, "compare:", cmp)
assert rep == cmp and rep, (rep, cmp)
PY

finish
