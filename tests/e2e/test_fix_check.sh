#!/usr/bin/env bash
# passmap fix's output check and its stored table, on a `command` study whose "compiler" is a shell script that
# sleeps and prints a real MLIR timing report (tests/fixtures/mlir/list-single.txt): the fix `fast` drops the
# sleep, so it measures faster on any machine. Issue 26's reproductions, each failing on the code before:
#   - a [check] that outlives the spec's timeout gave the fix "changes output": it must read "unchecked"
#     (a check that gave no answer is not a difference), and the fix must not ship;
#   - Ctrl-C during the [check] was ignored until the check ended: passmap must stop within seconds;
#   - `timeout = 0s` meant no limit (a hanging check ran forever): it is refused;
#   - a second `passmap fix` overwrote the first's table: rows it did not measure are kept, marked earlier;
#   - `import --format llvm-text` of an MLIR report stored an ok run of 0 s: refused, naming the format seen.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
mkdir -p "$TMP/s"
cat >"$TMP/s/cc.sh" <<SH
sleep "\$1"
cat "$ROOT/tests/fixtures/mlir/list-single.txt" >&2
SH
write_spec() { # FILE CHECK-ARGV TIMEOUT
  cat >"$1" <<INI
[sweep]
name = s
backend = command
repeats = 3
timeout = $3

[matrix m]
delay = 0.4

[step cc]
argv = sh {spec_dir}/cc.sh {delay}
tool = mlir-opt

[fix fast]
argv_drop = {delay}
argv_add = 0.01
regime = *
why = the sleep is not the compile

[check]
argv = $2
INI
}

# 1. A [check] that times out: "unchecked", not "changes output"; nothing ships.
write_spec "$TMP/s/slow.ini" "sleep 30" 3s
check "the study" "$PASSMAP" sweep --quiet --db "$TMP/slow.db" "$TMP/s/slow.ini"
"$PASSMAP" fix "$TMP/slow.db" --quiet --allow-contended --json >"$TMP/slow.json" 2>"$TMP/slow.err"
check "fix over a timed-out check exits 0" test -s "$TMP/slow.json"
if json_check "$TMP/slow.json" 'any(r["variant"] == "fast" and r["verdict"] != "changes output" and
        r["output"].startswith("unchecked") and "timed out" in r["output"] for r in d["results"])'; then
  ok "a timed-out check reads unchecked (timed out), not changes output"
else
  fail "a timed-out check reads unchecked (timed out), not changes output"
  python3 -c 'import json,sys; [print("#  ", r["variant"], r["verdict"], r["output"]) for r in json.load(open(sys.argv[1]))["results"]]' "$TMP/slow.json"
fi
if json_check "$TMP/slow.json" 'not (d.get("recommended") or {}).get("ship")'; then
  ok "a fix whose check gave no answer does not ship"
else
  fail "a fix whose check gave no answer does not ship"
fi

# The test's own processes only (the machine is shared): a process group passmap fix has on record for the
# database, and the live members of a group (a zombie is dead: this container's init may be slow to reap).
recorded_group() { # DB: the pgid of the first record beside DB
  local f
  for f in "$1".pgroup.*; do [ -e "$f" ] && awk '$1 == "group" {print $2; exit}' "$f" && return; done
}
alive() { [ -r "/proc/$1/stat" ] && ! grep -qE '^[0-9]+ \(.*\) Z ' "/proc/$1/stat"; }
group_alive() { local p; for p in $(pgrep -g "$1" 2>/dev/null); do alive "$p" && echo "$p"; done; }

# 2. Ctrl-C during a long [check]: passmap stops within seconds, not after the check's 120 s.
write_spec "$TMP/s/hang.ini" "sleep 100" 120s
sed -i 's/^name = s$/name = h/' "$TMP/s/hang.ini"
check "the second study" "$PASSMAP" sweep --quiet --db "$TMP/hang.db" "$TMP/s/hang.ini"
"$PASSMAP" fix "$TMP/hang.db" --allow-contended >"$TMP/hang.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q 'check: fast' "$TMP/hang.out" && break; sleep 0.1; done
hang_group=
for _ in $(seq 1 100); do   # the [check]'s own group, on record while it runs
  hang_group=$(recorded_group "$TMP/hang.db")
  [ -n "$hang_group" ] && grep -q '^sleep' "/proc/$hang_group/cmdline" 2>/dev/null && break
  hang_group=; sleep 0.1
done
kill -INT $pid
t0=$(date +%s)
for _ in $(seq 1 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  fail "Ctrl-C during the [check] stops passmap fix within 15 s"
  kill -KILL $pid; wait $pid 2>/dev/null
else
  wait $pid
  ok "Ctrl-C during the [check] stops passmap fix within 15 s ($(( $(date +%s) - t0 )) s)"
fi
left=$([ -n "$hang_group" ] && group_alive "$hang_group")
if [ -z "$hang_group" ]; then
  fail "the [check]'s group was never on record"
elif [ -n "$left" ]; then
  fail "the interrupted check leaves no process behind (group $hang_group: $left)"; kill -KILL -- "-$hang_group"
else
  ok "the interrupted check leaves no process behind (its group $hang_group)"
fi

# 3. timeout = 0s is refused with the line.
write_spec "$TMP/s/zero.ini" "true" 0s
check_fails "timeout = 0s is refused" "$PASSMAP" sweep --quiet --db "$TMP/zero.db" "$TMP/s/zero.ini"
"$PASSMAP" sweep --quiet --db "$TMP/zero.db" "$TMP/s/zero.ini" 2>"$TMP/zero.err"
if grep -q 'zero.ini' "$TMP/zero.err" && grep -q 'more than 0' "$TMP/zero.err"; then
  ok "the refusal names the file and the rule"
else
  fail "the refusal names the file and the rule"; sed 's/^/#   /' "$TMP/zero.err"
fi

# 4. A second fix keeps the first's rows it did not measure (planted: a row and a recommendation of an
# earlier run with another catalogue), marked earlier in the JSON and the report.
python3 - "$TMP/slow.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
key = "fix:s"
d = json.loads(db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0])
d["results"].append({"name": "ghost", "variant": "ghost", "against": "stock", "verdict": "faster", "ratio": 0.5,
                     "ci_lo": 0.4, "ci_hi": 0.6, "n_configs": 1, "output": "same ([check] exits 0)",
                     "predicted": "*"})
d["recommended"] = {"variant": "ghost", "ratio": 0.5, "ci_lo": 0.4, "ci_hi": 0.6, "n_configs": 1, "ship": True}
db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(d), key))
db.commit()
PY
"$PASSMAP" fix "$TMP/slow.db" --quiet --allow-contended --json >"$TMP/again.json" 2>"$TMP/again.err"
if json_check "$TMP/again.json" '(any(r["name"] == "ghost" and r.get("earlier") for r in d["results"]) and
        d.get("earlier_recommended", {}).get("variant") == "ghost")'; then
  ok "a second fix keeps the earlier run's rows and recommendation, marked earlier"
else
  fail "a second fix keeps the earlier run's rows and recommendation, marked earlier"; head -c 300 "$TMP/again.json"; tail -c 1500 "$TMP/again.json"
fi
"$PASSMAP" report "$TMP/slow.db" >"$TMP/report.txt" 2>&1
if grep -q 'ghost (earlier run)' "$TMP/report.txt" && grep -q 'an earlier fix run recommended ghost' "$TMP/report.txt"; then
  ok "the report marks the earlier rows"
else
  fail "the report marks the earlier rows"; grep -A8 'proven fixes' "$TMP/report.txt" | sed 's/^/#   /'
fi
"$PASSMAP" fix "$TMP/slow.db" --quiet --allow-contended --json >"$TMP/third.json" 2>&1
if json_check "$TMP/third.json" 'sum(r["name"] == "ghost" for r in d["results"]) == 1'; then
  ok "a third run keeps the earlier row once"
else
  fail "a third run keeps the earlier row once"
fi

# 5. import with a named format that reads only names from another format's report.
check_fails "import --format llvm-text of an MLIR report is refused" \
  "$PASSMAP" import --db "$TMP/imp.db" --format llvm-text "$ROOT/tests/fixtures/mlir/list-single.txt"
"$PASSMAP" import --db "$TMP/imp.db" --format llvm-text "$ROOT/tests/fixtures/mlir/list-single.txt" 2>"$TMP/imp.err"
if grep -q 'list-single.txt' "$TMP/imp.err" && grep -q 'mlir-text' "$TMP/imp.err"; then
  ok "the refusal names the file and the format it looks like"
else
  fail "the refusal names the file and the format it looks like"; sed 's/^/#   /' "$TMP/imp.err"
fi
check "import with the right format still works" \
  "$PASSMAP" import --db "$TMP/imp2.db" --format mlir-text "$ROOT/tests/fixtures/mlir/list-single.txt"

# 6. --budget bounds the whole command (issue 34.4): the study measured its steps at 0.05 s, but every compile now
# takes 1.5 s more, so the first round (estimated ~0.3 s) really takes ~9 s. The command must end within the
# budget plus one step, say the budget ended it, and keep what the round measured: "undecided (budget)" with its
# ratio and runs (issue 34.13), not "not run".
mkdir -p "$TMP/b"
cat >"$TMP/b/cc.sh" <<SH
sleep "\$1"
[ -e "$TMP/b/slow" ] && sleep 1.5
cat "$ROOT/tests/fixtures/mlir/list-single.txt" >&2
SH
write_spec "$TMP/b/s.ini" true 3s   # its compiles take 0.05 s, then 1.5 s more
sed -i 's/^delay = 0.4$/delay = 0.05/' "$TMP/b/s.ini"
check "the budget study" "$PASSMAP" sweep --quiet --db "$TMP/b.db" "$TMP/b/s.ini"
touch "$TMP/b/slow"
t0=$(date +%s.%N)
"$PASSMAP" fix "$TMP/b.db" --quiet --allow-contended --budget 4s --json >"$TMP/b.json" 2>"$TMP/b.err"
took=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 1))")
# 4 s of budget, one compile of up to 1.6 s past it, and passmap's own start and end (analysis, compare)
python3 -c "import sys; sys.exit(0 if $took <= 4 + 1.6 + 2 else 1)" && ok "fix --budget 4s ended after ${took} s (a step of 1.6 s)" \
  || { fail "fix --budget 4s ran ${took} s"; tail -5 "$TMP/b.err" | sed 's/^/#   /'; }
if json_check "$TMP/b.json" 'd["budget_exhausted"] and any(r["variant"] == "fast" and r["verdict"] == "undecided (budget)"
        and r["ratio"] is not None and r["repeats"] > 0 for r in d["results"])'; then
  ok "the fix the budget ended reads undecided (budget) with its ratio and runs; budget_exhausted"
else
  fail "budget-ended fix"; python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("#", d["budget_exhausted"], [(r["variant"], r["verdict"], r.get("ratio"), r.get("repeats"), r.get("note")) for r in d["results"]])' "$TMP/b.json"
fi


# 7. fix's [check] processes (issue 34.10): their group is recorded like a sweep step's, so what a SIGKILLed
# passmap fix left running is reaped by the next one; SIGTERM stops it like Ctrl-C, its check's group with it.
# The check backgrounds a sleep (its marker) that outlives the check.
mkdir -p "$TMP/k"
cp "$TMP/s/cc.sh" "$TMP/k/cc.sh"
# The marker is this test's own (its shell's PID in the duration): no other process is ever taken for it.
MARK=20.$$
write_spec "$TMP/k/s.ini" "sh -c \"sleep $MARK & sleep 2\"" 10s
check "the kill study" "$PASSMAP" sweep --quiet --db "$TMP/k.db" "$TMP/k/s.ini"
groups_seen=
marker() { # the check's backgrounded sleep, looked for only in the group fix has on record for k.db
  local g
  g=$(recorded_group "$TMP/k.db") && [ -n "$g" ] || return 1
  case " $groups_seen " in *" $g "*) ;; *) groups_seen="$groups_seen $g" ;; esac
  pgrep -g "$g" -xf "sleep $MARK" | head -1
}
end_markers() { # ends this test's leftovers: the marker in a group seen on record, or by its unique command line
  local g p
  for g in $groups_seen; do for p in $(pgrep -g "$g" -xf "sleep $MARK"); do kill -KILL "$p" 2>/dev/null; done; done
  for p in $(pgrep -xf "sleep $MARK"); do kill -KILL "$p" 2>/dev/null; done
}
"$PASSMAP" fix "$TMP/k.db" --quiet --allow-contended >/dev/null 2>&1 &
fpid=$!
left=
for _ in $(seq 1 300); do left=$(marker) && [ -n "$left" ] && break; sleep 0.1; done
kill -KILL "$fpid"; wait "$fpid" 2>/dev/null
if [ -n "$left" ] && alive "$left" && ls "$TMP"/k.db.pgroup.* >/dev/null 2>&1; then
  ok "SIGKILL of fix during its check: the check's leftover runs on, its group on record"
else
  fail "no leftover on record after SIGKILL (marker ${left:-none}; $(ls "$TMP" | grep pgroup))"
fi
"$PASSMAP" fix "$TMP/k.db" --quiet --allow-contended >"$TMP/k2.out" 2>&1
if [ -n "$left" ] && ! alive "$left"; then ok "the next fix reaped the killed one's check leftover"
else fail "the leftover $left outlived the next fix"; [ -n "$left" ] && kill -KILL "$left" 2>/dev/null; fi
# SIGTERM during the check: stops within seconds, the check's group ended, no record left behind
end_markers   # the rerun's own check's, ended
sqlite3 "$TMP/k.db" "DELETE FROM meta WHERE key LIKE 'fix:%'"
rm -rf "$TMP/k.db.runs/fix-check"
"$PASSMAP" fix "$TMP/k.db" --quiet --allow-contended >/dev/null 2>&1 &
fpid=$!
term=
for _ in $(seq 1 300); do term=$(marker) && [ -n "$term" ] && [ "$term" != "$left" ] && break; term=; sleep 0.1; done
kill -TERM "$fpid"
for _ in $(seq 1 50); do kill -0 "$fpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$fpid" 2>/dev/null; then fail "SIGTERM: fix still runs after 5 s"; kill -KILL "$fpid"
elif [ -n "$term" ] && ! alive "$term" && ! ls "$TMP"/k.db.pgroup.* >/dev/null 2>&1; then
  ok "SIGTERM during the check: fix stopped, the check's group ended, no record left"
else
  fail "SIGTERM: marker ${term:-none} alive=$(alive "$term" && echo yes), records: $(ls "$TMP" | grep pgroup)"
fi
wait "$fpid" 2>/dev/null
end_markers   # the rerun's own check leftovers


# 8. a bounded, seeded kill campaign over passmap fix (issue 34): SIGKILL at seeded moments of its rounds, checks
# and program [run]s, four times, then a fix to the end. After every kill the store is whole and no run is there
# twice; every process group a killed fix left on record is gone once the next fix ran (checked by group, not
# name). The parts it killed are said (from the records' what lines).
cp "$TMP/k/s.ini" "$TMP/k/c.ini"
printf '\n[run]\nargv = sleep 0.3\n' >>"$TMP/k/c.ini"
check "the campaign study" "$PASSMAP" sweep --quiet --db "$TMP/c.db" "$TMP/k/c.ini"
RANDOM=34
bad=0 groups= parts=
for round in 1 2 3 4; do
  "$PASSMAP" fix "$TMP/c.db" --quiet --allow-contended >/dev/null 2>&1 &
  fpid=$!
  sleep "$((RANDOM % 6)).$((RANDOM % 10))"
  kill -KILL "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null
  for f in "$TMP"/c.db.pgroup.*; do
    [ -e "$f" ] || continue
    groups="$groups $(awk '$1 == "group" {print $2}' "$f")"
    parts="$parts; $(sed -n 's/^what //p' "$f")"
  done
  ic=$(sqlite3 "$TMP/c.db" "PRAGMA integrity_check")
  dup=$(sqlite3 "$TMP/c.db" "SELECT count(*) FROM (SELECT config_id, mode, repeat FROM run GROUP BY 1, 2, 3 HAVING count(*) > 1)")
  if [ "$ic" != ok ] || [ "$dup" != 0 ]; then bad=1; echo "# kill $round: integrity '$ic', duplicates '$dup'"; fi
done
"$PASSMAP" fix "$TMP/c.db" --quiet --allow-contended --json >"$TMP/c.json" 2>"$TMP/c.err"; rc=$?
left=
for g in $groups; do
  for p in $(pgrep -g "$g" 2>/dev/null); do alive "$p" && left="$left $p"; done
done
dup=$(sqlite3 "$TMP/c.db" "SELECT count(*) FROM (SELECT config_id, mode, repeat FROM run GROUP BY 1, 2, 3 HAVING count(*) > 1)")
[ "$bad" = 0 ] && [ "$rc" = 0 ] && [ "$dup" = 0 ] && [ -z "$left" ] && json_check "$TMP/c.json" 'd["results"]' \
  && ok "fix killed 4 times at seeded moments: whole, no duplicate run, no group left (recorded:${groups:- none}${parts}); the last run ends" \
  || { fail "fix kill campaign (rc=$rc, duplicates $dup, left:${left:- none})"; tail -3 "$TMP/c.err" | sed 's/^/#   /'; }
end_markers   # the last run's own check, ended

finish
