#!/usr/bin/env bash
# passmap sweep --slurm on a real single-node Slurm (tests/support/slurm-single-node.sh: its own munged,
# slurmctld and slurmd, started as root without systemd, stopped by PID): a 3-shard job array, each task
# --exclusive, and a merge job that waits for the array (afterok). The merged store must hold the one-machine
# plan: every config and repeat once, no duplicates, and the report must run. In CI (CI=true) Slurm must start;
# elsewhere the test prints a SKIP line when it cannot.
source "$(dirname "$0")/lib.sh"

cat > "$TMP/s.ini" <<'INI'
[sweep]
name = slurmy
repeats = 2
timeout = 120s
[embedded]
tile = 256
[llm q]
models = qwen2:0.5b
windows = 32, 64
precisions = int8
layers = 1
[cnn r]
families = resnet18
resolutions = 64
precisions = fp16
blocks = 1
INI
cd "$TMP" || exit 1

# The scripts, without a cluster.
out=$("$PASSMAP" sweep --slurm --dry-run --shards 3 --partition test --time 10:00 --db "$TMP/out.db" s.ini 2>&1)
echo "$out" | grep -q '^#SBATCH --array=1-3$' && echo "$out" | grep -q '^#SBATCH --exclusive$' \
  && echo "$out" | grep -q '^#SBATCH --partition=test$' && echo "$out" | grep -q '^#SBATCH --time=10:00$' \
  && echo "$out" | grep -q -- "--shard \"\$k/3\"" && echo "$out" | grep -q "afterok" \
  && echo "$out" | grep -q "merge $TMP/out.db" && ok "--dry-run prints the array (exclusive) and the merge job" \
  || { fail "--dry-run scripts"; echo "$out" | sed 's/^/#   /'; }
[ ! -e "$TMP/out.db.slurm" ] && ok "--dry-run writes nothing" || fail "--dry-run wrote $TMP/out.db.slurm"
for bad in "--shards 0" "--shards x" "--partition a;b" "--time 1h" "--shard 1/2"; do
  # shellcheck disable=SC2086
  "$PASSMAP" sweep --slurm --dry-run $bad --db "$TMP/bad.db" s.ini >/dev/null 2>&1; rc=$?
  [ "$rc" = 2 ] && ok "--slurm $bad: usage error" || fail "--slurm $bad: rc=$rc"
done
check_fails "--shards without --slurm" "$PASSMAP" sweep --shards 3 --db "$TMP/bad.db" s.ini
out=$(PATH=/nonexistent "$PASSMAP" sweep --slurm --shards 2 --db "$TMP/nosb.db" s.ini 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "cannot run sbatch" && ok "no sbatch: a clear error" \
  || fail "no sbatch: rc=$rc $out"

slurm_up   # lib.sh: the single-node Slurm for this test, or a skip (a failure in CI)
ok "single-node Slurm up (munged, slurmctld, slurmd)"

out=$("$PASSMAP" sweep --slurm --json --shards 3 --db "$TMP/out.db" s.ini 2>&1)
ids=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["array_job"], d["merge_job"])' 2>/dev/null)
read -r array merge <<<"$ids"
[ -n "${merge:-}" ] && ok "submitted: array $array, merge $merge" || { fail "sweep --slurm: $out"; finish; exit; }
for _ in $(seq 1 240); do [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break; sleep 0.5; done
states=$(scontrol show job "$array" | grep -o 'JobState=[A-Z]*' | sort | uniq -c | tr -s ' ')
[ "$states" = " 3 JobState=COMPLETED" ] && ok "3 shard tasks completed" \
  || { fail "shard tasks: $states"; tail -n 20 "$TMP"/out.db.slurm/shard-*.log | sed 's/^/#   /'; }
scontrol show job "$array" | grep -q 'OverSubscribe=NO' && ok "each shard task ran --exclusive" \
  || fail "shard tasks not exclusive: $(scontrol show job "$array" | grep -o 'OverSubscribe=[A-Z]*' | sort -u)"
# afterok: the merge started only after the last shard ended
last_end=$(scontrol show job "$array" | grep -o 'EndTime=[0-9T:-]*' | cut -d= -f2 | sort | tail -1)
merge_start=$(scontrol show job "$merge" | grep -o 'StartTime=[0-9T:-]*' | cut -d= -f2)
[ -n "$last_end" ] && [ -n "$merge_start" ] && [[ ! "$merge_start" < "$last_end" ]] \
  && ok "the merge job started after every shard ended ($merge_start >= $last_end)" \
  || fail "merge started $merge_start, last shard ended $last_end"
scontrol show job "$merge" | grep -q 'JobState=COMPLETED' && ok "merge job completed" \
  || { fail "merge job: $(scontrol show job "$merge" | grep -o 'JobState=[A-Z]*')"; sed 's/^/#   /' "$TMP"/out.db.slurm/merge-*.log; }

# The merged store against the one-machine plan.
"$PASSMAP" sweep --dry-run --db "$TMP/plan.db" s.ini | grep -v '^  \|^dry run:' | awk '{print $1, $2, $3}' | sort > plan.txt
sqlite3 "$TMP/out.db" "select c.key, r.mode, 'r'||r.repeat from run r join config c on c.id = r.config_id" \
  | tr '|' ' ' | sort > merged.txt
[ -s plan.txt ] && cmp -s plan.txt merged.txt && ok "merged store = the one-machine plan ($(wc -l < plan.txt) runs, each once)" \
  || { fail "merged store differs from the plan"; diff plan.txt merged.txt | head | sed 's/^/#   /'; }
[ "$(sqlite3 "$TMP/out.db" "select count(*) from run where status <> 'ok' or host_id is null")" = 0 ] \
  && ok "every run ok and names its host" || fail "failed or host-less runs"
# The plan fixed at submit: written once, every shard store records its hash; a task's log has a line per run.
hashes=$(for k in 1 2 3; do sqlite3 "$TMP/out.db.slurm/shard-$k-of-3.db" "select value from meta where key = 'shard_plan:slurmy'"; done | sort -u)
[ -s "$TMP/out.db.slurm/plan.txt" ] && [ "$(echo "$hashes" | wc -l)" = 1 ] && echo "$hashes" | grep -qE '^plan:[0-9a-f]{16}$' \
  && ok "plan.txt written at submit; the 3 shard stores record its one hash" || fail "plan hashes: $hashes"
runs_logged=$(cat "$TMP"/out.db.slurm/shard-*.log | grep -cE '^\[[0-9]+/[0-9]+\] ')
[ "$runs_logged" -ge "$(wc -l < plan.txt)" ] && ok "the task logs have a progress line per run ($runs_logged)" \
  || { fail "progress lines in the task logs: $runs_logged"; cat "$TMP"/out.db.slurm/shard-*.log | head | sed 's/^/#   /'; }
# status of the store the submission merged into: the shard stores, the merged one (its 3 shards), and what
# Slurm says of the jobs (DB.slurm/plan.txt beside it)
"$PASSMAP" status "$TMP/out.db" > "$TMP/status.out" 2>&1
awk -v db="$TMP/out.db" '$0 == db { on = 1; next } /^[^ ]/ { on = 0 } on' "$TMP/status.out" \
  | grep -cE 'slurmy +[123]/3 ' | grep -qx 3 && grep -qE '^  merge +COMPLETED +job [0-9]+$' "$TMP/status.out" \
  && ok "status shows the merged store's 3 shards and the merge job COMPLETED" \
  || fail "status: $(cat "$TMP/status.out")"
check "report of the merged store" "$PASSMAP" report "$TMP/out.db"
finish
