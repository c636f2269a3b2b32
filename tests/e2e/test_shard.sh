#!/usr/bin/env bash
# Scale-out on one machine: sweep --shard K/N partitions the plan deterministically, each shard resumes on its
# own database, merge joins them (idempotent, refuses other specs and running sweeps), status counts per shard.
source "$(dirname "$0")/lib.sh"

cat > "$TMP/s.ini" <<'INI'
[sweep]
name = shardy
repeats = 2
timeout = 120s
[embedded]
tile = 256
[llm q]
models = qwen2:0.5b
windows = 32
precisions = int8, fp16
layers = 1
[cnn r]
families = resnet18
resolutions = 64
precisions = fp16
blocks = 1
INI
cd "$TMP" || exit 1

for bad in 4/3 0/3 1/0 -1/2 3 a/b 1/3x; do
  out=$("$PASSMAP" sweep --shard "$bad" --db "$TMP/bad.db" s.ini 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -q -- "--shard '$bad'" && ok "--shard $bad: usage error naming it" \
    || fail "--shard $bad: rc=$rc $out"
done
[ ! -e "$TMP/bad.db" ] && ok "a bad --shard writes nothing" || fail "a bad --shard created a database"

# The plan of every shard, twice: deterministic, disjoint, and together exactly the one-machine plan.
plan() { "$PASSMAP" sweep --dry-run "$@" --db "$TMP/plan.db" s.ini | grep -v '^  \|^dry run:' | awk '{print $1, $2, $3}' | sort; }
plan > all.plan
for k in 1 2 3; do plan --shard "$k/3" > "p$k.plan"; done
plan --shard 2/3 > q2.plan
cmp -s p2.plan q2.plan && ok "same spec, same shards" \
  || fail "shard plans differ between two runs"
sort p1.plan p2.plan p3.plan > union.plan
cmp -s union.plan all.plan && ok "shards together are the one-machine plan, no run twice ($(wc -l < all.plan) runs)" \
  || { fail "union of shards differs from the plan"; diff union.plan all.plan | head; }
for k in 1 2 3; do awk '{print $1}' "p$k.plan" | sort -u > "c$k.keys"; done
[ -z "$(comm -12 c1.keys c2.keys)$(comm -12 c1.keys c3.keys)$(comm -12 c2.keys c3.keys)" ] \
  && ok "a config's repeats stay on one shard" || fail "a config is split over shards"
[ -s p1.plan ] && [ -s p2.plan ] && [ -s p3.plan ] && ok "3 configs over 3 shards: none empty" || fail "an empty shard"

# Run the shards (shard 2 interrupted after one run, then resumed on its own database).
check "shard 1/3 runs" "$PASSMAP" sweep --quiet --shard 1/3 --db s1.db s.ini
check "shard 2/3 stops after one run" "$PASSMAP" sweep --quiet --shard 2/3 --max-runs 1 --db s2.db s.ini
"$PASSMAP" status --json s2.db > st2.json
python3 - st2.json "$(wc -l < p2.plan)" <<'PY' && ok "status: shard 2/3 has 1 done, the rest left" || fail "status of a partial shard: $(cat st2.json)"
import json, sys
rows = json.load(open(sys.argv[1])); planned = int(sys.argv[2])
# every shard's plan is recorded (status counts against the whole plan): the others show as left here
assert len(rows) == 3 and all(x["done"] == 0 for x in rows if x["shard_k"] != 2), rows
r = [x for x in rows if x["shard_k"] == 2][0]
assert (r["shard_k"], r["shard_n"], r["done"], r["planned"], r["left"]) == (2, 3, 1, planned, planned - 1), r
PY
check "shard 2/3 resumes" "$PASSMAP" sweep --quiet --shard 2/3 --db s2.db s.ini
check "shard 3/3 runs" "$PASSMAP" sweep --quiet --shard 3/3 --db s3.db s.ini
"$PASSMAP" sweep --status --shard 3/3 --db s3.db s.ini | grep -qE 'shardy +3/3 .* 0 +0 ' && ok "sweep --status" \
  || fail "sweep --status: $("$PASSMAP" sweep --status --db s3.db s.ini 2>&1)"

check "merge three shards" "$PASSMAP" merge m.db s1.db s2.db s3.db
q() { sqlite3 m.db "$1"; }
want=$(wc -l < all.plan)
[ "$(q "select count(*) from run")" = "$want" ] && ok "merged store has every planned run ($want)" \
  || fail "merged runs: $(q "select count(*) from run"), want $want"
q "select c.key, r.mode, 'r'||r.repeat from run r join config c on c.id=r.config_id" | tr '|' ' ' | sort > merged.plan
cmp -s merged.plan all.plan && ok "merged store matches the one-machine plan (each config and repeat once)" \
  || { fail "merged store differs from the plan"; diff merged.plan all.plan | head; }
[ "$(q "select count(*) from run where host_id is null")" = 0 ] && ok "every run names its host" || fail "runs without host"
[ "$(q "select count(*) from host where cpu_model <> '' and cores > 0 and kernel <> '' and compiler like 'MLIR/LLVM %'")" -ge 1 ] \
  && ok "host fingerprint: CPU model, cores, kernel, compiler build" || fail "host row: $(q "select * from host")"
n_pass=$(q "select count(*) from pass_time"); n_src=0
for d in s1 s2 s3; do n_src=$((n_src + $(sqlite3 "$d.db" "select count(*) from pass_time"))); done
[ "$n_pass" = "$n_src" ] && [ "$n_pass" -gt 0 ] && ok "every pass row merged ($n_pass)" || fail "pass rows $n_pass vs $n_src"
[ "$(q "pragma foreign_key_check" | wc -l)" = 0 ] && ok "no dangling references" || fail "foreign keys broken"
check "report of the merged store" "$PASSMAP" report m.db

sqlite3 m.db .dump > before.sql
out=$("$PASSMAP" merge m.db s1.db s2.db s3.db)
sqlite3 m.db .dump > after.sql
cmp -s before.sql after.sql && echo "$out" | grep -q "0 runs merged, $want skipped as duplicates" \
  && ok "merging again changes nothing" || fail "second merge changed the store: $out"

check_fails "merge into itself" "$PASSMAP" merge m.db s1.db m.db
check_fails "merge into itself by another path" "$PASSMAP" merge m.db "./m.db"
sed 's/repeats = 2/repeats = 3/' s.ini > other.ini
check "a sweep of another spec text" "$PASSMAP" sweep --quiet --max-runs 1 --db other.db other.ini
n0=$(q "select count(*) from run")
out=$("$PASSMAP" merge m.db other.db 2>&1); rc=$?
# (its plan, 1 shard of another spec text, is not the study's 3: refused by the coverage check first)
[ "$rc" = 1 ] && echo "$out" | grep -q "the stores split it into 1 and into 3 shards" && [ "$(q "select count(*) from run")" = "$n0" ] \
  && ok "a different spec is refused, nothing merged" || fail "different spec: rc=$rc $out"
"$PASSMAP" merge --force m.db other.db >/dev/null 2>&1
[ "$(q "select count(*) from merge_log where forced = 1 and note like '%different spec text%'")" = 1 ] \
  && ok "--force merges it and records that" || fail "forced merge not recorded"

# Machines: shard 3 as if measured on another machine kind; the report stratifies and warns, compare warns.
cp s3.db s3x.db
sqlite3 s3x.db "update host set name = 'lab2', fingerprint = 'feedfacecafe0001', cpu_model = 'Other CPU'"
check "merge of shards from two machines" "$PASSMAP" merge mixed.db s1.db s2.db s3x.db
"$PASSMAP" report mixed.db > mixed.txt 2>&1
grep -qE '^machines \(2, 2 kinds\)' mixed.txt && grep -qE '^  lab2 +feedfacecafe0001 ' mixed.txt \
  && grep -q '^warning: this study mixes 2 machines of 2 kinds' mixed.txt \
  && ok "report: one row per machine and a warning that comparisons cross machines" \
  || { fail "report of a mixed study"; head -12 mixed.txt | sed 's/^/#   /'; }
"$PASSMAP" report m.db | grep -q '^machines' && fail "one-machine report shows a machines table" \
  || ok "one machine: no machines table"
"$PASSMAP" report mixed.db --json > mixed.json
python3 - mixed.json <<'PY' && ok "report --json: hosts, kinds, the host of each config" || fail "report --json hosts"
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert h["kinds"] == 2 and len(h["machines"]) == 2, h
assert sorted(set(h["config_host"].values())) == ["lab2", "vm"] or len(set(h["config_host"].values())) == 2, h
assert any("mixes 2 machines" in w for w in h["warnings"]), h
PY
# A config measured on both machines: its repeats mix machines.
sqlite3 s1.db "select key from config limit 1" > one.key
k=$(cat one.key)
cp s1.db s1x.db
sqlite3 s1x.db "update host set name = 'lab2', fingerprint = 'feedfacecafe0001', cpu_model = 'Other CPU';
  delete from run where config_id = (select id from config where key = '$k') and repeat = 0;"
"$PASSMAP" merge --partial split.db s1x.db >/dev/null
sqlite3 s1.db "delete from run where config_id = (select id from config where key = '$k') and repeat = 1"
"$PASSMAP" merge --partial split.db s1.db >/dev/null
"$PASSMAP" report split.db | grep -q "warning: $k: its cold repeats come from 2 machines" \
  && ok "a config whose repeats come from two machines is flagged" || fail "split config not flagged"
out=$("$PASSMAP" compare s1.db s1x.db 2>&1)
echo "$out" | grep -q "warning: comparison crosses machines" && ok "compare warns when A and B come from different machines" \
  || { fail "compare across machines"; echo "$out" | head -8 | sed 's/^/#   /'; }
"$PASSMAP" compare s2.db s2.db 2>&1 | grep -q "crosses machines" && fail "compare warns on one machine" \
  || ok "compare on one machine: no warning"

# A shard still being written by a running sweep is refused, and merged once the sweep is done.
sed 's/name = shardy/name = busy/' s.ini > busy.ini
"$PASSMAP" sweep --quiet --db busy.db busy.ini >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -s busy.db.lock ] && break; sleep 0.1; done
out=$("$PASSMAP" merge m.db busy.db 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "still being written by a running sweep (pid $pid" \
  && ok "a shard still being written is refused, naming the sweep" || fail "merge of a busy shard: rc=$rc $out"
kill -INT "$pid"; wait "$pid" 2>/dev/null
check "merged once the sweep stopped (--partial: it was interrupted)" "$PASSMAP" merge --partial m.db busy.db

# A merge killed half way keeps whole inputs only (one transaction each) and the rerun completes it, no run twice.
"$ROOT/scripts/make-shard-stores.sh" "$PASSMAP" big 3 3000 10
"$PASSMAP" merge killed.db big/shard-1.db big/shard-2.db big/shard-3.db >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(sqlite3 killed.db "select count(*) from merge_log" 2>/dev/null || echo 0)" -ge 1 ] && break; sleep 0.05
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
n=$(sqlite3 killed.db "select count(*) from run")
[ $((n % 3000)) = 0 ] && [ "$(sqlite3 killed.db "select count(*) from step")" = $((n * 3)) ] \
  && ok "killed merge kept whole inputs only ($n runs)" || fail "killed merge left a partial input: $n runs"
check "rerun of the killed merge" "$PASSMAP" merge killed.db big/shard-1.db big/shard-2.db big/shard-3.db
[ "$(sqlite3 killed.db "select count(*) || ' ' || count(distinct config_id || '/' || mode || '/' || repeat) from run")" = "9000 9000" ] \
  && [ "$(sqlite3 killed.db "select count(*) from pass_time")" = 270000 ] \
  && ok "after the rerun: every run once, every pass row" || fail "after rerun: $(sqlite3 killed.db "select count(*) from run")"

# A database written before hosts and shard plans existed (schema 1) opens, reports and merges.
# (the dump keeps no pragmas: set them as passmap 1 wrote them)
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 old.db
[ "$(sqlite3 old.db "select count(*) from sqlite_schema where name = 'host'")" = 0 ] \
  && ok "fixture is a schema-1 database" || fail "fixture is not schema 1 any more"
check "report of a schema-1 database" "$PASSMAP" report old.db
check "merge of a schema-1 database" "$PASSMAP" merge old-merged.db old.db
[ "$(sqlite3 old-merged.db 'select count(*) from run')" = "$(sqlite3 old.db 'select count(*) from run')" ] \
  && ok "all its runs merged" || fail "schema-1 merge lost runs"
finish
