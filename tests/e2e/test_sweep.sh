#!/usr/bin/env bash
# passmap sweep on the real embedded compiler: records, resumes, survives a kill, records failures.
source "$(dirname "$0")/lib.sh"

cat > "$TMP/tiny.ini" <<'INI'
[sweep]
name = tiny
repeats = 2
timeout = 120s
mem_limit = 8G
[embedded]
tile = 256
[llm q]
models = qwen2:0.5b
windows = 64
precisions = int8, fp16
layers = 1
INI
db=$TMP/tiny.db
q() { sqlite3 "$db" "$1"; }

check "sweep runs a 2-config x 2-repeat matrix" "$PASSMAP" sweep --quiet --db "$db" "$TMP/tiny.ini"
[ "$(q "select count(*) from run where mode='cold' and status='ok'")" = 4 ] && ok "4 ok cold runs recorded" \
  || fail "4 ok cold runs recorded (got $(q "select count(*)||' '||group_concat(status) from run"))"
[ "$(q "select count(*) from step")" = 12 ] && ok "3 steps per run" || fail "3 steps per run ($(q "select count(*) from step"))"
n=$(q "select count(*) from pass_time p join step s on s.id=p.step_id where s.tool='mlir-opt'")
[ "${n:-0}" -gt 20 ] && ok "mlir-opt passes stored ($n)" || fail "mlir-opt passes stored ($n)"
n=$(q "select count(*) from pass_time p join step s on s.id=p.step_id where s.tool='llc'")
[ "${n:-0}" -gt 20 ] && ok "llc passes stored ($n)" || fail "llc passes stored ($n)"
n=$(q "select count(*) from metric where name='ir.llvm_ops' and value > 0")
[ "$n" = 4 ] && ok "IR size metric per run" || fail "IR size metric per run ($n)"
n=$(q "select count(*) from metric where name='host.load1' and value >= 0 and step_id is null")
[ "$n" = 4 ] && ok "load average at each run's start" || fail "load average at each run's start ($n)"
# the IR each stage processes, measured once per config outside the timed runs, recorded with each run
n=$(q "select count(distinct name) from metric where name like 'ir.stage.%' and value > 0")
[ "$n" = 5 ] && ok "IR size at the entry of 5 stages" || fail "IR size at the entry of 5 stages ($n)"
n=$(q "select count(*) from metric a join metric b on a.run_id=b.run_id where a.name='ir.stage.lowering-to-llvm' and b.name='ir.stage.tiling' and a.value > 4 * b.value")
[ "$n" = 4 ] && ok "tiling and unrolling multiply the IR the lowering sees" || fail "stage sizes grow through tiling ($n)"
keys=$(q "select group_concat(key, ' ') from (select key from config order by key)")
[ "$keys" = "llm/qwen2/0.5b/w64/fp16/L1/stock llm/qwen2/0.5b/w64/int8/L1/stock" ] && ok "config keys" || fail "config keys: $keys"

out=$("$PASSMAP" sweep --json --db "$db" "$TMP/tiny.ini" 2>/dev/null)
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["ran"]==0 and d["already_done"]==4, d' \
  && ok "rerun resumes: nothing left to run" || fail "rerun resumes: $out"

# A sweep starts compiling at once: start-up's null runs come after the first measured run, and a config's
# stage-size probe after its own first run, whose record gets the sizes (a config with nothing to run here is never
# probed).
sed -e 's/name = tiny/name = first/' "$TMP/tiny.ini" > "$TMP/first.ini"
db_first=$TMP/first.db
check "sweep cut after one run" "$PASSMAP" sweep --quiet --max-runs 1 --db "$db_first" "$TMP/first.ini"
first_run=$(sqlite3 "$db_first" "select min(started_at) from run")
startup=$(sqlite3 "$db_first" "select min(measured_at) from startup")
[ -n "$startup" ] && [[ "$startup" > "$first_run" ]] && ok "start-up measured after the first run, not before it" \
  || fail "start-up at '$startup', first run at '$first_run'"
n=$(find "$db_first.runs" -name stage-sizes.stderr | wc -l)
[ "$n" = 1 ] && ok "only the config that ran was probed" || fail "configs probed: $n (expected 1)"
n=$(sqlite3 "$db_first" "select count(distinct name) from metric where name like 'ir.stage.%' and value > 0")
[ "$n" = 5 ] && ok "the first run carries its config's stage sizes" || fail "stage sizes on the first run: $n"

# Interrupted sweep: kill it after its first run, then resume; nothing recorded is lost, nothing doubled.
sed -e 's/name = tiny/name = killed/' -e 's/repeats = 2/repeats = 3/' "$TMP/tiny.ini" > "$TMP/killed.ini"
db2=$TMP/killed.db
"$PASSMAP" sweep --quiet --db "$db2" "$TMP/killed.ini" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  n=$(sqlite3 "$db2" "select count(*) from run" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 1 ] && break
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
before=$(sqlite3 "$db2" "select count(*) from run")
partial=$(sqlite3 "$db2" "select count(*) from run r where (select count(*) from step s where s.run_id=r.id)=0")
[ "$partial" = 0 ] && ok "killed sweep left no partial run ($before runs kept)" || fail "partial runs after kill: $partial"
check "resumed sweep completes" "$PASSMAP" sweep --quiet --db "$db2" "$TMP/killed.ini"
after=$(sqlite3 "$db2" "select count(*) from run")
dups=$(sqlite3 "$db2" "select count(*) from (select config_id, repeat from run group by config_id, repeat, mode having count(*)>1)")
[ "$after" = 6 ] && [ "$dups" = 0 ] && ok "6 runs after resume, no duplicate repeat" || fail "after resume: $after runs, $dups dups"

# A compile that times out is recorded as a timeout, not lost, and the sweep goes on.
sed -e 's/name = tiny/name = slow/' -e 's/timeout = 120s/timeout = 0.01s/' -e 's/repeats = 2/repeats = 1/' "$TMP/tiny.ini" > "$TMP/slow.ini"
"$PASSMAP" sweep --quiet --db "$TMP/slow.db" "$TMP/slow.ini" >/dev/null 2>&1
st=$(sqlite3 "$TMP/slow.db" "select group_concat(status) from run")
[ "$st" = "timeout,timeout" ] && ok "timeouts recorded as runs" || fail "timeouts recorded: '$st'"

# --warm: one compile through the cache fills it, then hits; the report shows recompile / hit per config.
check "sweep --warm on the recorded sweep" "$PASSMAP" sweep --quiet --warm --db "$db" "$TMP/tiny.ini"
[ "$(q "select count(*) from run where mode='cache-miss' and status='ok'")" = 2 ] && ok "one cache-filling compile per config" || fail "cache-miss runs"
[ "$(q "select count(*) from run where mode='warm' and status='ok'")" = 6 ] && ok "warm hits recorded (3 per config)" || fail "warm runs: $(q "select count(*) from run where mode='warm'")"
r=$(q "select (select avg(wall_s) from run where mode='cold') / (select avg(wall_s) from run where mode='warm')")
# a sanity bound, not a speed test (make bench measures the hit against ccache): under the sanitizer build a hit pays
# ASan's start-up in passmap's own process (4.5x here, where the -O2 build gives more)
python3 -c "import sys; sys.exit(0 if float('$r') > 2 else 1)" && ok "a cache hit is much cheaper than a recompile (x$r)" || fail "recompile/hit ratio $r"
[ "$(q "select count(*) from pass_time p join step s on s.id=p.step_id join run r on r.id=s.run_id where r.mode='warm'")" = 0 ] \
  && ok "replayed timing reports of hits are not stored as passes" || fail "warm runs have pass rows"
"$PASSMAP" report "$db" > "$TMP/report.txt" 2>&1
grep -q "recompile ÷ hit" "$TMP/report.txt" && grep -qE "[0-9.]+× " "$TMP/report.txt" && ok "report shows recompile/hit per config" \
  || { fail "report recompile/hit"; head -5 "$TMP/report.txt"; }

# Two sweeps in one database (an LLM and a CNN study), reported together with --sweep A,B.
printf '[sweep]\nname = tinycnn\nrepeats = 1\n[cnn r]\nfamilies = resnet18\nresolutions = 64\nprecisions = fp16\nblocks = 1\n' > "$TMP/cnn.ini"
check "a CNN sweep into the same database" "$PASSMAP" sweep --quiet --db "$db" "$TMP/cnn.ini"
"$PASSMAP" report "$db" --sweep tiny,tinycnn --json > "$TMP/both.json" 2>"$TMP/both.err"
python3 - "$TMP/both.json" <<'PY' && ok "report --sweep tiny,tinycnn covers both sweeps" || fail "report of two sweeps: $(cat "$TMP/both.err")"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = sorted({c["kind"] for c in d["configs"]})
assert kinds == ["cnn", "llm"] and len(d["configs"]) == 3, (kinds, len(d["configs"]))
PY
check_fails "report of an unknown sweep name fails" "$PASSMAP" report "$db" --sweep tiny,nosuch

check_fails "bad spec is a usage error" "$PASSMAP" sweep --db "$TMP/x.db" /nonexistent.ini
printf '[sweep]\nname = x\n[llm a]\nmodels = qwen2:77b\nwindows = 64\nprecisions = int8\n' > "$TMP/bad.ini"
out=$("$PASSMAP" sweep --db "$TMP/x.db" "$TMP/bad.ini" 2>&1); rc=$?
[ "$rc" = 2 ] && [[ "$out" == *"0.5b"* ]] && ok "unknown size names the valid sizes" || fail "bad size: rc=$rc $out"
check "sweep --help" "$PASSMAP" sweep --help
finish
