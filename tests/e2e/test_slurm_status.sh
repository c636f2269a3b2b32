#!/usr/bin/env bash
# `passmap sweep --slurm --status` knows the study's jobs (recorded at submit in DB.slurm/jobs.txt, and found by
# name and script) and shows Slurm's state of each shard task and of the merge job beside the shard databases'
# progress, with what to do. First with stand-in sbatch/squeue/sacct (any machine), then on a real single-node
# Slurm (tests/support/slurm-single-node.sh; root): a cancelled task shows CANCELLED, the merge job Slurm cancelled
# for it shows so, and following the printed recipe (resubmit the task, then the merge) completes the study.
# In CI (CI=true) Slurm must start; elsewhere the real-Slurm half prints a SKIP line when it cannot.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cat > s.ini <<'INI'
[sweep]
name = stat
backend = command
repeats = 1
timeout = 120s
[matrix m]
t = 1, 2, 3
[step s]
argv = sh -c "sleep {t}; cat '{spec_dir}/report.txt' >&2"
INI
# a real mlir-opt timing report, so each run is ok
cp "$ROOT/tests/fixtures/mlir/list-single.txt" report.txt

# --- stand-ins: sbatch hands out 1 then 2; squeue answers what the real one said (tests/fixtures/slurm/)
mkdir -p fake
cat > fake/sbatch <<SH
#!/bin/sh
n=\$(cat "$TMP/fake/next" 2>/dev/null || echo 1); echo \$((n + 1)) > "$TMP/fake/next"; echo "\$n"
SH
chmod +x fake/sbatch
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --slurm --shards 3 --db "$TMP/f.db" s.ini > sub.out 2>&1
grep -qx 'shards 1' f.db.slurm/jobs.txt && grep -qx 'merge 2' f.db.slurm/jobs.txt \
  && ok "submit records the array and merge job ids in DB.slurm/jobs.txt" \
  || { fail "jobs.txt"; sed 's/^/#   /' sub.out f.db.slurm/jobs.txt; }
# no squeue at all (PATH holds only the stand-in sbatch): one line, and the shards' progress still shown
PATH="$TMP/fake" "$PASSMAP" sweep --slurm --status --db "$TMP/f.db" s.ini > st.out 2>&1; rc=$?
[ "$rc" = 0 ] && [ "$(grep -c 'cannot run squeue' st.out)" = 1 ] && grep -q 'shard 2/3: not started' st.out \
  && ok "without squeue: one line says so, the shards' progress is still shown" \
  || { fail "status without squeue: rc=$rc"; sed 's/^/#   /' st.out; }
# squeue lists task 2 cancelled, the others completed, the merge cancelled by --kill-on-invalid-dep; sacct has
# no accounting
sed "s|@DIR@|$TMP/f.db.slurm|g" "$ROOT/tests/fixtures/slurm/squeue-cancelled.txt" > fake/squeue.txt
cat > fake/squeue <<SH
#!/bin/sh
cat "$TMP/fake/squeue.txt"
SH
printf '#!/bin/sh\necho "sacct: error: Slurm accounting storage is disabled" >&2\nexit 1\n' > fake/sacct
chmod +x fake/squeue fake/sacct
touch f.db.slurm/shard-1_2.log # task 2 started before it was cancelled
touch f.db.slurm/shard-30_1.log # an earlier array Slurm no longer lists: sacct is asked, and cannot tell
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --slurm --status --db "$TMP/f.db" s.ini > st.out 2>&1; rc=$?
[ "$rc" = 0 ] && grep -qE '^  shard 1/3 +COMPLETED +job 1_1$' st.out && grep -qE '^  shard 2/3 +CANCELLED +job 1_2$' st.out \
  && grep -qE '^  shard 3/3 +COMPLETED +job 1_3$' st.out \
  && grep -qE '^  merge +CANCELLED \(DependencyNeverSatisfied\) +job 2$' st.out \
  && ok "status shows each task's Slurm state and the merge job's, with its reason" \
  || { fail "status with squeue"; sed 's/^/#   /' st.out; }
[ "$(grep -c '^slurm: jobs 30 are no longer in squeue and sacct cannot tell their end: sacct failed: sacct: error: Slurm accounting storage is disabled$' st.out)" = 1 ] \
  && ok "a known job neither squeue nor sacct lists: one line says why" || { fail "sacct note"; sed 's/^/#   /' st.out; }
grep -q "^to do: shard 2 ended without completing ($TMP/f.db.slurm/shard-1_2.log).*sbatch --array=2 $TMP/f.db.slurm/shards.sbatch" st.out \
  && grep -q "^to do: merge job 2 was cancelled.*sbatch $TMP/f.db.slurm/merge.sbatch" st.out \
  && ok "status says what to do: resubmit the cancelled task alone, then the merge" \
  || { fail "status: what to do"; sed 's/^/#   /' st.out; }
# `passmap status DB` on the database a submission writes into says the same (it used to show the stores only)
# (status is now sweep --status DB: the old name says so in its first line, then prints the same)
PATH="$TMP/fake:$PATH" "$PASSMAP" status "$TMP/f.db" > st2.out 2>&1
[ "$(head -1 st2.out)" = "passmap status is now passmap sweep --status; the old name goes in the next release" ] \
  && tail -n +2 st2.out | cmp -s st.out - && ok "passmap status DB shows the Slurm states too, as sweep --slurm --status does" \
  || { fail "passmap status DB differs from sweep --slurm --status"; diff st.out st2.out | sed 's/^/#   /'; }
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --status "$TMP/f.db" > st3.out 2>&1
cmp -s st.out st3.out && ok "passmap sweep --status DB (no spec) shows the same" \
  || { fail "sweep --status DB differs"; diff st.out st3.out | sed 's/^/#   /'; }
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --slurm --status --json --db "$TMP/f.db" s.ini > st.json 2> st.err
python3 - st.json > st.py.out 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["slurm"]
assert [r["state"] for r in s["shards"]] == ["COMPLETED", "CANCELLED", "COMPLETED"], s
assert s["merge"] == {"job": "2", "state": "CANCELLED", "reason": "DependencyNeverSatisfied", "attempts": 1}, s
assert any("--array=2" in t for t in s["todo"]), s
assert isinstance(d["stores"], list)
PY
[ $? = 0 ] && ok "--json: slurm.shards, slurm.merge, slurm.todo beside the stores" \
  || { fail "--json"; sed 's/^/#   /' st.json st.err st.py.out | head -40; }
# a task resubmitted by hand (job 57, not in jobs.txt) is found by its script, and is the shard's newest attempt;
# a job of another study with the same sweep name (another folder's script) is not the study's
printf '57_2|RUNNING|None|%s/f.db.slurm/shards.sbatch\n99_2|FAILED|None|/elsewhere/shards.sbatch\n' "$TMP" >> fake/squeue.txt
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --slurm --status --db "$TMP/f.db" s.ini > st.out 2>&1
grep -qE '^  shard 2/3 +RUNNING +job 57_2 \(newest of its jobs\)$' st.out && ! grep -q 'ended without completing' st.out \
  && ok "a hand-resubmitted task is found by its script; another study's job is not" \
  || { fail "resubmitted task"; sed 's/^/#   /' st.out; }
# squeue failing (controller down): one line
printf '#!/bin/sh\necho "squeue: error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n' > fake/squeue
PATH="$TMP/fake:$PATH" "$PASSMAP" sweep --slurm --status --db "$TMP/f.db" s.ini > st.out 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q '^slurm: squeue failed: squeue: error: Unable to contact slurm controller' st.out \
  && grep -q 'shard 1/3: not started' st.out && ok "squeue failing: one line, progress still shown" \
  || { fail "squeue failing: rc=$rc"; sed 's/^/#   /' st.out; }

# --- a real single-node Slurm
slurm_up   # lib.sh: the single-node Slurm for this test, or a skip (a failure in CI)
ok "single-node Slurm up ($(sinfo --version))"
status() { "$PASSMAP" sweep --slurm --status --db "$TMP/out.db" s.ini > real.out 2>&1; }
show() { sed 's/^/#   /' real.out; squeue -t all -r -o '%i|%T|%r|%o' 2>&1 | sed 's/^/#   squeue: /'; }
state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
wait_state() { # job, extended regexp of states, seconds
  local i
  for i in $(seq 1 $(($3 * 4))); do state_of "$1" | grep -qxE "$2" && return 0; sleep 0.25; done
  return 1
}

"$PASSMAP" sweep --slurm --json --shards 3 --db "$TMP/out.db" s.ini > sub.json 2> sub.err
ids=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["array_job"], d["merge_job"])' sub.json 2>/dev/null)
read -r array merge <<<"$ids"
[ -n "${merge:-}" ] && ok "submitted: array $array, merge $merge" || { fail "sweep --slurm"; sed 's/^/#   /' sub.json sub.err; finish; exit; }
# every task --exclusive on 2 CPUs: one runs, the others wait
status
grep -qE "^  shard 3/3 +(PENDING|RUNNING)( \([A-Za-z]+\))? +job ${array}_3$" real.out \
  && grep -qE "^  merge +PENDING \(Dependency\) +job $merge$" real.out \
  && ok "status while it runs: the tasks' states and the merge waiting on its dependency" || { fail "status while running"; show; }
# cancel the running task (Slurm keeps it: CANCELLED) and a waiting one (Slurm drops a task cancelled in the
# array's pending record: squeue lists its array, not it)
wait_state "${array}_1" RUNNING 60 || { fail "task ${array}_1 never ran"; show; }
scancel "${array}_1" "${array}_3"
wait_state "${array}_1" CANCELLED 30 || { fail "task ${array}_1 not cancelled"; show; }
# --kill-on-invalid-dep: Slurm cancels the merge job once every task has ended
wait_state "$merge" 'CANCELLED|FAILED|COMPLETED' 120
status
grep -qE "^  shard 1/3 +CANCELLED +job ${array}_1$" real.out && grep -qE "^  shard 3/3 +gone \(cancelled while it waited\) +job ${array}_3$" real.out \
  && ok "status shows the cancelled running task as CANCELLED, the cancelled waiting one as gone" \
  || { fail "status after scancel"; show; }
grep -qE "^  merge +CANCELLED \(DependencyNeverSatisfied\) +job $merge$" real.out && grep -q "^to do: merge job $merge was cancelled" real.out \
  && ok "status shows the merge job Slurm cancelled, and to submit it again once the shards are done" \
  || { fail "merge after scancel"; show; }
resubmit=$(sed -n "s|^to do: shards 1,3 ended without completing ($TMP/out.db.slurm/shard-${array}_1.log): read the log.*resubmit: \(sbatch --array=1,3 [^ ]*\) (it resumes.*|\1|p" real.out)
[ -n "$resubmit" ] && ok "status says what to do: $resubmit" || { fail "no resubmit line"; show; }
# follow the recipe as printed: the tasks alone, then the merge
again=$(sbatch --parsable ${resubmit#sbatch } 2> resub.err | cut -d';' -f1)
[ -n "$again" ] || { fail "resubmit: $(cat resub.err)"; show; }
for _ in $(seq 1 240); do [ -z "$(squeue -h -j "$again" 2>/dev/null)" ] && break; sleep 0.5; done
status
grep -qE "^  shard 2/3 +COMPLETED +job ${array}_2$" real.out && grep -qE "^  shard 1/3 +COMPLETED +job ${again}_1 \(newest of its jobs\)$" real.out \
  && grep -qE "^  shard 3/3 +COMPLETED +job ${again}_3$" real.out \
  && ok "the resubmitted tasks (job $again, not submitted by passmap) are found and shown COMPLETED" || { fail "after resubmit"; show; }
remerge=$(sed -n "s/^to do: merge job $merge was cancelled.*submit it again: \(sbatch [^ ]*merge.sbatch\)$/\1/p" real.out)
[ -n "$remerge" ] && m2=$(sbatch --parsable ${remerge#sbatch } 2> remerge.err | cut -d';' -f1)
for _ in $(seq 1 240); do [ -z "$(squeue -h -j "${m2:-0}" 2>/dev/null)" ] && break; sleep 0.5; done
status
grep -qE "^  merge +COMPLETED +job ${m2:-none} \(newest of its jobs\)$" real.out && ! grep -q '^to do:' real.out \
  && [ "$(sqlite3 "$TMP/out.db" 'select count(*) from run')" = 3 ] \
  && ok "the merge submitted as printed completed (3 runs); nothing left to do" || { fail "after the merge"; show; }
finish
