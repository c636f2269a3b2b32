#!/usr/bin/env bash
# The shard plan fixed at submit (issue 25): written once, read by every shard (a resubmitted shard keeps its
# configs even after the costs store changed), its hash recorded by each shard store; merge checks coverage over
# its output and inputs (a missing shard refuses, --partial merges and marks the study INCOMPLETE in the report,
# stores split two ways never merge); a run killed by a signal passmap did not send is redone on resume, up to
# the stated limit; --slurm passes site options through, every script passing bash -n.
source "$(dirname "$0")/lib.sh"
FIX=$ROOT/tests/fixtures/mlir/list-single.txt
cd "$TMP" || exit 1
# the spec and its inputs in a folder of their own (input = *.txt is read beside the spec)
mkdir in && for i in 1 2 3 4 5 6; do printf '%s\n' "$i" > "in/$i.txt"; done
cat > in/s.ini <<INI
[sweep]
name = planned
backend = command
repeats = 2
[matrix m]
input = *.txt
[step sh]
argv = /bin/sh -c "cat '$FIX' >&2; cat {input}"
tool = sh
INI
keys_of() { sqlite3 "$1" "select key from config order by key"; }
plan_keys() { awk -v k="$2" '$1 == "config" && $2 == k {print $4}' "$1" | sort; }

# --- the plan file
out=$("$PASSMAP" sweep --shards 3 --write-plan plan.txt in/s.ini 2>&1); rc=$?
[ "$rc" = 0 ] && [ "$(grep -c '^config ' plan.txt)" = 6 ] && grep -q '^shards 3$' plan.txt \
  && echo "$out" | grep -q 'shard 3/3: 2 configs' && echo "$out" | grep -q 'balance: ' \
  && ok "--write-plan: 6 configs over 3 shards, the expected cost per shard and the balance printed" \
  || { fail "--write-plan (rc=$rc)"; echo "$out" | sed 's/^/#   /'; }
"$PASSMAP" sweep --shards 3 --write-plan plan2.txt in/s.ini 2>&1 | grep -q . ; cmp -s plan.txt plan2.txt \
  && ok "the same spec gives the same plan" || fail "two plans of one spec differ"
# no cost known for any config (costs from a store without them): the balance is unknown, never "= 0.00"
"$PASSMAP" run -n 1 --db nocost.db --config zz -- true >/dev/null 2>&1
out=$("$PASSMAP" sweep --shards 3 --write-plan plan0.txt --costs nocost.db in/s.ini 2>&1)
echo "$out" | grep -q "balance: unknown (no config has a known cost)" && ! echo "$out" | grep -q "= 0.00" \
  && ok "--write-plan with no known cost: balance unknown" || { fail "--write-plan, no costs"; echo "$out" | sed 's/^/#   /'; }
# a config line before the 'shards' line is range-checked too (it was read before N was known)
{ grep -v '^shards ' plan.txt | sed '0,/^config 1 /s//config 5 /'; echo "shards 3"; } > late.txt
out=$("$PASSMAP" sweep --quiet --plan late.txt --shard 1/3 --db late.db in/s.ini 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "in shard 5, out of 1..3" && ok "--plan: shard 5 of 3 refused before the shards line too" \
  || fail "late shards line: rc=$rc $out"
check_fails "--plan without --shard" "$PASSMAP" sweep --plan plan.txt --db x.db in/s.ini
check_fails "--plan of 3 shards with --shard 1/2" "$PASSMAP" sweep --plan plan.txt --shard 1/2 --db x.db in/s.ini
sed 's/repeats = 2/repeats = 3/' in/s.ini > in/other.ini
out=$("$PASSMAP" sweep --quiet --plan plan.txt --shard 1/3 --db x.db in/other.ini 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "made for another text of spec" && ok "a plan of another spec text is refused" \
  || fail "plan of another spec: rc=$rc $out"

# --- shards swept from the plan; a progress merge into the costs store does not move a resubmitted shard
check "shard 1/3 from the plan" "$PASSMAP" sweep --quiet --shard 1/3 --plan plan.txt --db s1.db in/s.ini
[ "$(keys_of s1.db)" = "$(plan_keys plan.txt 1)" ] && ok "shard 1 ran exactly the plan's shard-1 configs" \
  || fail "shard 1 configs: $(keys_of s1.db | tr '\n' ' ') vs plan $(plan_keys plan.txt 1 | tr '\n' ' ')"
sqlite3 s1.db "select value from meta where key = 'shard_plan:planned'" | grep -qE '^plan:[0-9a-f]{16}$' \
  && ok "the shard store records the plan's hash" || fail "no plan hash in the shard store"
check "progress merge (--partial)" "$PASSMAP" merge --partial progress.db s1.db
out=$("$PASSMAP" sweep --quiet --shard 2/3 --plan plan.txt --max-runs 1 --db s2.db in/s.ini 2>&1); rc=$?
[ "$rc" = 0 ] && ok "shard 2/3 stops after one run" || fail "shard 2/3 --max-runs 1: rc=$rc $out"
# issue 37: --max-runs says how many runs it left, and that the same command resumes them
echo "$out" | grep -qE '^--max-runs 1: [1-9][0-9]* runs left; the same command resumes them$' \
  && ok "--max-runs says how many runs are left" || fail "--max-runs left nothing said: $out"
out=$("$PASSMAP" sweep --quiet --shard 2/3 --costs progress.db --db s2.db in/s.ini 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "was started under shard plan plan:" \
  && ok "resumed with a recomputed plan (costs from the progress merge): refused, nothing run" \
  || fail "recomputed plan on resume: rc=$rc $out"
check "shard 2/3 resumes from the plan file" "$PASSMAP" sweep --quiet --shard 2/3 --plan plan.txt --db s2.db in/s.ini
[ "$(keys_of s2.db)" = "$(plan_keys plan.txt 2)" ] && ok "the resubmitted shard kept its configs" \
  || fail "shard 2 configs: $(keys_of s2.db | tr '\n' ' ')"

"$PASSMAP" status s1.db s2.db | grep -q "^together: sweep planned: incomplete: 2 of 6 configs owe runs (shard 3/3" \
  && ok "status of two shard stores: together, shard 3/3 is missing" || fail "status together: $("$PASSMAP" status s1.db s2.db)"

# --- coverage at merge
out=$("$PASSMAP" merge m.db s1.db s2.db 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "sweep planned: incomplete: 2 of 6 configs owe runs (shard 3/3 unfinished or missing)" \
  && echo "$out" | grep -q "nothing merged" && [ ! -e m.db ] \
  && ok "a missing shard refuses the merge, naming it; nothing written" || fail "merge without shard 3: rc=$rc $out"
out=$("$PASSMAP" merge --partial m.db s1.db s2.db 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "marked incomplete" && ok "merge --partial merges and says it marked the study" \
  || fail "merge --partial: rc=$rc $out"
"$PASSMAP" report m.db > rep.txt 2>&1
grep -q "INCOMPLETE STUDY (merged with --partial): sweep planned: incomplete: 2 of 6 configs" rep.txt \
  && ok "the report says the study is incomplete and what is missing" || { fail "report of a partial merge"; head -20 rep.txt | sed 's/^/#   /'; }
"$PASSMAP" report --json m.db > rep.json
python3 - rep.json <<'PY' && ok "report --json carries the mark" || fail "report --json: no incomplete mark"
import json, sys
w = json.load(open(sys.argv[1]))["incomplete"]
assert w.startswith("INCOMPLETE STUDY"), w
PY
"$PASSMAP" status m.db | grep -qE '^  planned +3/3 +2 +4 +0 +4 ' && ok "status of the partial merge: shard 3/3 left 4" \
  || { fail "status of the partial merge"; "$PASSMAP" status m.db | sed 's/^/#   /'; }
# status is now sweep --status DB...: the same output, several databases, or --db alone; the old name's only
# difference is its one line on stderr
"$PASSMAP" status s1.db s2.db >old.out 2>old.err; rc_old=$?
"$PASSMAP" sweep --status s1.db s2.db >new.out 2>new.err; rc_new=$?
"$PASSMAP" sweep --status --json --db m.db >new.json 2>/dev/null && "$PASSMAP" status --json m.db >old.json 2>/dev/null
[ $rc_old = $rc_new ] && [ -s new.out ] && cmp -s old.out new.out && [ ! -s new.err ] && cmp -s old.json new.json \
  && [ "$(cat old.err)" = "passmap status is now passmap sweep --status; the old name goes in the next release" ] \
  && ok "sweep --status DB... and --db DB: status's output; status: one line naming it" \
  || fail "sweep --status vs status: rc $rc_old/$rc_new $(cat old.err new.err)"
e=$("$PASSMAP" sweep --status 2>&1); rc=$?
[ $rc = 2 ] && echo "$e" | grep -q 'with --status: a SPEC.ini, or the databases DB' && ok "sweep --status alone: says what it takes" \
  || fail "sweep --status alone: rc=$rc $e"
check "shard 3/3 from the plan" "$PASSMAP" sweep --quiet --shard 3/3 --plan plan.txt --db s3.db in/s.ini
check "merge of the last shard completes the study" "$PASSMAP" merge m.db s3.db
"$PASSMAP" report m.db 2>&1 | grep -q "INCOMPLETE" && fail "complete study still marked incomplete" \
  || ok "complete: the mark is gone"
[ "$(sqlite3 m.db "select count(*) from run")" = 12 ] && ok "12 runs, each once" || fail "runs: $(sqlite3 m.db "select count(*) from run")"

# --- a merge that dies between its inputs (here: out of file size, SIGXFSZ, at the first limit that lets some
# inputs in and not all) leaves a study that says it is incomplete; merging again finishes and clears the mark
found=0
for lim in $(seq 128 16 1024); do
  rm -f kill.db kill.db-*
  (ulimit -f "$lim"; exec "$PASSMAP" merge kill.db s1.db s2.db s3.db) >/dev/null 2>&1
  n=$(sqlite3 kill.db "select count(*) from run" 2>/dev/null)
  [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt 12 ] && { found=1; break; }
done
if [ "$found" = 1 ]; then
  "$PASSMAP" report kill.db 2>&1 | grep -q "INCOMPLETE STUDY (a merge did not finish): a merge into kill.db stopped before its last input" \
    && ok "a merge killed after $n of 12 runs: the report says the study is incomplete" \
    || fail "killed merge ($n runs): $("$PASSMAP" report kill.db 2>&1 | head -3)"
  out=$("$PASSMAP" merge kill.db s1.db s2.db s3.db 2>&1); rc=$?
  [ "$rc" = 0 ] && [ "$(sqlite3 kill.db "select count(*) from run")" = 12 ] && ! "$PASSMAP" report kill.db 2>&1 | grep -q INCOMPLETE \
    && ok "merging again completes the study and clears the mark" || fail "merge again (rc=$rc): $out"
else
  fail "no file size limit stopped the merge between its inputs"
fi

# --- a bounded, seeded kill campaign over merge (issue 34): SIGKILL at seeded moments of a three-input merge,
# then the same merge again; after every kill the store is whole, no run is there twice, and a partial study says
# it is partial; at the end all 12 runs, each once, and no mark
RANDOM=34
bad=0
rm -f camp.db camp.db-*
for round in 1 2 3 4 5 6; do
  "$PASSMAP" merge camp.db s1.db s2.db s3.db >/dev/null 2>&1 &
  mp=$!
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
  kill -KILL "$mp" 2>/dev/null; wait "$mp" 2>/dev/null
  [ -e camp.db ] || continue
  [ "$(sqlite3 camp.db "SELECT count(*) FROM sqlite_schema WHERE name = 'run'" 2>&1)" = 1 ] || continue   # killed before its schema
  ic=$(sqlite3 camp.db "PRAGMA integrity_check" 2>&1)
  dup=$(sqlite3 camp.db "SELECT count(*) FROM (SELECT config_id, mode, repeat FROM run GROUP BY 1, 2, 3 HAVING count(*) > 1)" 2>&1)
  n=$(sqlite3 camp.db "SELECT count(*) FROM run" 2>/dev/null)
  marked=1
  if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt 12 ]; then
    "$PASSMAP" report camp.db 2>&1 | grep -q "INCOMPLETE STUDY" || marked=0
  fi
  if [ "$ic" != ok ] || [ "$dup" != 0 ] || [ "$marked" != 1 ]; then
    bad=1; echo "# kill $round: integrity '$ic', duplicates '$dup', runs '$n', marked $marked"
  fi
done
out=$("$PASSMAP" merge camp.db s1.db s2.db s3.db 2>&1); rc=$?
[ "$bad" = 0 ] && [ "$rc" = 0 ] && [ "$(sqlite3 camp.db "select count(*) from run")" = 12 ] \
  && [ "$(sqlite3 camp.db "SELECT count(*) FROM (SELECT config_id, mode, repeat FROM run GROUP BY 1, 2, 3 HAVING count(*) > 1)")" = 0 ] \
  && ! "$PASSMAP" report camp.db 2>&1 | grep -q INCOMPLETE \
  && ok "merge killed 6 times at seeded moments: whole, no duplicate, partial studies marked; the rerun completes it" \
  || fail "merge kill campaign (rc=$rc): $out"

# --- stores split two ways never merge, not even with --partial
check "shard 1/2 of the same spec" "$PASSMAP" sweep --quiet --shard 1/2 --db t1.db in/s.ini
out=$("$PASSMAP" merge --partial mixed.db s1.db t1.db 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "split it into 2 and into 3 shards" && [ ! -e mixed.db ] \
  && ok "shards of 3 and of 2 are refused, even with --partial" || fail "mixed N: rc=$rc $out"
out=$("$PASSMAP" merge --force forced.db s1.db t1.db 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "(--force: marked incomplete)" && ! echo "$out" | grep -q -- "--partial" \
  && ok "merge --force of them: marked incomplete, said as --force's (no --partial was given)" || fail "forced mixed: rc=$rc $out"

# --- a run killed by a signal passmap did not send: the scheduler's order, SIGTERM to the compiler first, then
# to passmap. The killed run is recorded; the resume redoes it.
cat > k.ini <<INI
[sweep]
name = killy
backend = command
repeats = 2
[matrix m]
n = 1, 2
[step sh]
argv = /bin/sh -c "if [ {n} = 1 ] && [ ! -e $TMP/k.flag ]; then touch $TMP/k.flag; kill -TERM \$\$; fi; sleep 0.5; cat '$FIX' >&2"
tool = sh
INI
"$PASSMAP" sweep --quiet --db k.db k.ini > k1.out 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -e k.flag ] && break; sleep 0.05; done
sleep 0.1; kill -TERM "$pid"; wait "$pid"
[ "$(sqlite3 k.db "select count(*) from run where status = 'killed'")" = 1 ] && ok "the planted kill is recorded as killed" \
  || { fail "planted kill: $(sqlite3 k.db "select status from run")"; sed 's/^/#   /' k1.out; }
out=$("$PASSMAP" sweep --quiet --db k.db k.ini 2>&1)
echo "$out" | grep -q "1 run killed from outside (a signal passmap did not send) runs again" \
  && [ "$(sqlite3 k.db "select count(*) || ':' || sum(r.status = 'ok') from run r join config c on c.id = r.config_id
          join sweep w on w.id = c.sweep_id where w.name = 'killy'")" = "4:4" ] \
  && ok "resume redoes the killed run: 4 runs, all ok" || { fail "resume after a kill"; echo "$out" | sed 's/^/#   /'; }
[ "$(sqlite3 k.db "select count(*) from run r join config c on c.id = r.config_id join sweep w on w.id = c.sweep_id
     where w.superseded_by = 'killy' and r.status = 'killed'")" = 1 ] && ok "the killed run is kept aside" \
  || fail "killed run not kept aside"
# a run killed on every attempt: retried PM_SWEEP_KILLED_RETRIES (2) times, then counted done
cat > k2.ini <<INI
[sweep]
name = always
backend = command
repeats = 1
[matrix m]
n = 1
[step sh]
argv = /bin/sh -c "kill -TERM \$\$"
tool = sh
INI
for i in 1 2 3 4; do "$PASSMAP" sweep --quiet --db k2.db k2.ini > "k2.$i.out" 2>&1; done
grep -q "runs again" k2.2.out && grep -q "runs again" k2.3.out && ! grep -q "runs again" k2.4.out \
  && [ "$(sqlite3 k2.db "select count(*) from run where status = 'killed'")" = 3 ] \
  && ok "a run killed every time: 2 retries, then it counts as done" \
  || { fail "retry limit"; sed 's/^/#   /' k2.*.out; }

# --- site options on --slurm (scripts only)
out=$("$PASSMAP" sweep --slurm --dry-run --shards 3 --account lab_1 --qos high --constraint 'avx2&ib' --mem 16G \
      --throttle 2 --sbatch-args '--mail-type=END --reservation=r1' --db "$TMP/sl.db" in/s.ini 2>&1); rc=$?
awk '/^# ---- /{n++; next} {print > ("script" n)}' <<<"$out"
[ "$rc" = 0 ] && grep -q '^#SBATCH --account=lab_1$' script1 && grep -q '^#SBATCH --qos=high$' script2 \
  && grep -q '^#SBATCH --constraint=avx2&ib$' script1 && grep -q '^#SBATCH --mem=16G$' script1 \
  && grep -q '^#SBATCH --array=1-3%2$' script1 && grep -q -- "--plan $TMP/sl.db.slurm/plan.txt" script1 \
  && echo "$out" | grep -q 'sbatch --parsable --mail-type=END --reservation=r1' \
  && ok "site options: account, qos, constraint, mem, throttle, extra sbatch words, the plan" \
  || { fail "site options (rc=$rc)"; echo "$out" | sed 's/^/#   /'; }
grep -q '^config ' script3 && bash -n script1 && bash -n script2 && ok "the plan is printed; both scripts pass bash -n" \
  || fail "dry-run plan or bash -n"
for bad in "--account=a b" "--qos=q;x" "--constraint=a b" "--mem=16GB;x" "--throttle=0" $'--sbatch-args=a\nb'; do
  "$PASSMAP" sweep --slurm --dry-run --shards 2 "$bad" --db "$TMP/bad.db" in/s.ini > bad.out 2>&1; rc=$?
  [ "$rc" = 2 ] && ok "--slurm ${bad%%=*} with a value no #SBATCH line can carry: usage error" \
    || { fail "--slurm $bad: rc=$rc"; sed 's/^/#   /' bad.out; }
done
check_fails "--account without --slurm" "$PASSMAP" sweep --account lab --db "$TMP/bad.db" in/s.ini
# the site options are hidden old spellings of --sbatch-args words (issue 39): one line each, not in --help
echo "$out" | grep -qx "passmap sweep: --account is now --sbatch-args '--account=lab_1'; the old spelling goes in the next release" \
  && [ "$(echo "$out" | grep -c '^passmap sweep: --[a-z]* is now --sbatch-args')" = 4 ] \
  && ! "$PASSMAP" sweep --help | grep -qE -- '^  --(account|qos|constraint|mem) ' && "$PASSMAP" sweep --help | grep -q -- '--account A, --qos Q' \
  && ok "--account, --qos, --constraint, --mem: a line each naming --sbatch-args; in --help's notes only" \
  || fail "site options' notices: $(echo "$out" | grep 'is now')"
out=$("$PASSMAP" sweep --slurm --dry-run --shards 3 --sbatch-args '--account=lab_1 --mem=16G' --db "$TMP/sl.db" in/s.ini 2>&1)
echo "$out" | grep -q 'sbatch --parsable --account=lab_1 --mem=16G' && ! echo "$out" | grep -q 'is now' \
  && ok "--sbatch-args '--account=A --mem=M': given to sbatch, no notice" || fail "sbatch-args: $out"
out=$("$PASSMAP" sweep --slurm --dry-run --shards 2 --no-warm --work-dir '$TMPDIR' --db "$TMP/sl.db" in/s.ini 2>&1)
echo "$out" | grep -q -- '--work-dir "${TMPDIR:-/tmp}/passmap-$SLURM_ARRAY_JOB_ID-$k"' \
  && ok "--work-dir '\$TMPDIR': each task's run folders on its node's scratch" || { fail "--work-dir \$TMPDIR"; echo "$out" | sed 's/^/#   /'; }
check_fails "--slurm --work-dir with warm runs (the cache would not survive a requeue)" \
  "$PASSMAP" sweep --slurm --dry-run --shards 2 --warm --work-dir /scratch --db "$TMP/sl.db" in/s.ini

# --- the journal: the rollback journal where WAL is unsafe (network filesystems; PASSMAP_JOURNAL forces it)
check "a sweep with PASSMAP_JOURNAL=delete" env PASSMAP_JOURNAL=delete "$PASSMAP" sweep --quiet --db j.db in/s.ini
[ "$(sqlite3 j.db 'pragma journal_mode')" = delete ] && [ ! -e j.db-wal ] && ok "its store uses the rollback journal" \
  || fail "journal mode: $(sqlite3 j.db 'pragma journal_mode')"
[ "$(sqlite3 s1.db 'pragma journal_mode')" = wal ] && ok "a local store keeps WAL" || fail "local store not WAL"
finish
