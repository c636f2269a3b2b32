#!/usr/bin/env bash
# What a SIGKILLed sweep (or `run --db`) leaves running is killed by the next one on the database: a step that
# backgrounds a process keeps it in the step's process group, out of PR_SET_PDEATHSIG's reach; it survived the
# kill, wrote into the run folder the resumed sweep reuses and took CPU from the runs it measured.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
# durations no other test uses, so the processes found are this test's
FG=$((200000 + $$ % 100000)); BG=$((FG + 100000))
pids=()
# Whatever this test started and left: killed by pid (the passmaps, the sleeps found), never by name.
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
alive() { [ -e "/proc/$1" ] && ! grep -qE '^State:\s+[ZX]' "/proc/$1/status" 2>/dev/null; }
# wait_for PATTERN: pid of the process whose command line is exactly PATTERN (up to 10 s)
wait_for() {
  local p
  for _ in $(seq 1 100); do p=$(pgrep -f -x "$1") && { echo "$p" | head -1; return 0; }; sleep 0.1; done
  return 1
}

# The step of config n=1 backgrounds a sleep and execs another the first time it runs; a rerun is quick.
cat >"$TMP/s.ini" <<INI
[sweep]
name = orphan
backend = command
repeats = 1

[matrix m]
n = 1, 2

[step s]
argv = sh -c 'if [ {n} = 1 ] && [ ! -e {spec_dir}/once ]; then : >{spec_dir}/once; sleep $BG & exec sleep $FG; fi'
INI
db=$TMP/o.db
"$PASSMAP" sweep --quiet --db "$db" "$TMP/s.ini" >/dev/null 2>&1 &
pm=$!; pids+=("$pm")
bg=$(wait_for "sleep $BG") && pids+=("$bg") || fail "the step's background process never started"
fg=$(wait_for "sleep $FG") && pids+=("$fg")
pgid=$(ps -o pgid= -p "${bg:-0}" | tr -d ' ')
kill -KILL "$pm"; wait "$pm" 2>/dev/null
for _ in $(seq 1 50); do alive "${fg:-0}" || break; sleep 0.1; done
! alive "${fg:-0}" && ok "SIGKILL of passmap sweep takes the step's own process with it" || fail "sleep $FG outlived passmap"
# the situation: the backgrounded process is still alive, in the step's group
alive "${bg:-0}" && ok "the step's background process outlives a SIGKILLed sweep (group $pgid)" \
  || fail "no background process left to reap"
ls "$db".pgroup.* >/dev/null 2>&1 && ok "the killed sweep's step group is on record beside the database" \
  || fail "no process group record beside $db"

"$PASSMAP" sweep --quiet --db "$db" "$TMP/s.ini" >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && ok "resumed sweep completes" || { fail "resumed sweep (rc=$rc)"; sed 's/^/#   /' "$TMP/err"; }
! alive "${bg:-0}" && ok "resume killed the leftover background process" || fail "sleep $BG still alive after resume"
[ "$(grep -c "killed process group" "$TMP/err")" = 1 ] \
  && grep -q "^passmap sweep: killed process group $pgid (1 process) .*config m/n=1, cold r0, step sh$" "$TMP/err" \
  && ok "said once, naming the group and the config" || { fail "message"; sed 's/^/#   /' "$TMP/err"; }
runs=$(sqlite3 "$db" "select count(*) from run")
dups=$(sqlite3 "$db" "select count(*) from (select 1 from run group by config_id, mode, repeat having count(*) > 1)")
[ "$runs" = 2 ] && [ "$dups" = 0 ] && ok "2 runs, no duplicate" || fail "$runs runs, $dups duplicates"
! ls "$db".pgroup.* >/dev/null 2>&1 && ok "no record left after the sweep" || fail "record left: $(ls "$db".pgroup.*)"
"$PASSMAP" sweep --quiet --db "$db" "$TMP/s.ini" >/dev/null 2>"$TMP/err2"
[ ! -s "$TMP/err2" ] && ok "nothing to say when nothing was left" || fail "said: $(cat "$TMP/err2")"

# The warm path: the step is `passmap cache exec -- CMD`, and CMD (a wrapper's child) stays in the step's group,
# so what it backgrounds is on record too (in a group of its own it escaped). The 2nd call is the cache miss.
cat >"$TMP/w.ini" <<INI
[sweep]
name = nested
backend = command
repeats = 1
warm = true
warm_repeats = 1

[matrix m]
n = 1

[step s]
argv = sh -c 'c=\$(cat {spec_dir}/count 2>/dev/null || echo 0); echo \$((c + 1)) >{spec_dir}/count; if [ \$c = 1 ]; then sleep $((BG + 2)) & exec sleep $((FG + 2)); fi'
INI
"$PASSMAP" sweep --quiet --db "$TMP/w.db" "$TMP/w.ini" >/dev/null 2>&1 &
pm=$!; pids+=("$pm")
bg=$(wait_for "sleep $((BG + 2))") && pids+=("$bg") || fail "warm: the background process never started"
kill -KILL "$pm"; wait "$pm" 2>/dev/null
alive "${bg:-0}" && ok "warm: the background process outlives a SIGKILLed sweep" || fail "warm: nothing left"
"$PASSMAP" sweep --quiet --db "$TMP/w.db" "$TMP/w.ini" >/dev/null 2>"$TMP/err"
rc=$?
! alive "${bg:-0}" && grep -q "killed process group .*config m/n=1, cache-miss r0, step sh$" "$TMP/err" \
  && ok "warm: what the command under cache exec left is killed on resume" || { fail "warm: not reaped"; sed 's/^/#   /' "$TMP/err"; }
[ "$rc" -eq 0 ] && [ "$(sqlite3 "$TMP/w.db" "select group_concat(mode, ' ') from (select mode from run order by id)")" = "cold cache-miss warm" ] \
  && ok "warm: resumed sweep completes, one run per mode" || fail "warm: rc=$rc, runs $(sqlite3 "$TMP/w.db" "select group_concat(mode) from run")"

# passmap run --db continues the config's repeats: the same check before its runs
"$PASSMAP" run --db "$TMP/r.db" --config k -n 1 -- sh -c "sleep $((BG + 1)) & exec sleep $((FG + 1))" >/dev/null 2>&1 &
pm=$!; pids+=("$pm")
bg=$(wait_for "sleep $((BG + 1))") && pids+=("$bg") || fail "run: the background process never started"
kill -KILL "$pm"; wait "$pm" 2>/dev/null
alive "${bg:-0}" && ok "run --db: the background process outlives a SIGKILLed run" || fail "run --db: nothing left"
"$PASSMAP" run --db "$TMP/r.db" --config k -n 1 -- true >/dev/null 2>"$TMP/err"
! alive "${bg:-0}" && grep -q "^passmap run: killed process group .*config k, cold r0$" "$TMP/err" \
  && ok "run --db: the next run kills the leftover and says so" || { fail "run --db: not reaped"; sed 's/^/#   /' "$TMP/err"; }
finish
