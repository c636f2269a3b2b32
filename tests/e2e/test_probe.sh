#!/usr/bin/env bash
# e2e: passmap probe DB measures the stage-entry sizes a finished sweep lacks, so the report's cost fits get
# their x (a store without them gets no fit): a real embedded sweep (qwen2 0.5b, one layer, three windows, one
# repeat) with its ir.stage.* metrics deleted, as an older store has none.
source "$(dirname "$0")/lib.sh"

cat >"$TMP/p.ini" <<INI
[sweep]
name = probe
repeats = 1
timeout = 120s
mem_limit = 8G
[embedded]
tile = 256
[llm q]
models = qwen2:0.5b
windows = 32, 64, 128
precisions = int8
layers = 1
INI
check "sweep" "$PASSMAP" sweep --quiet --db "$TMP/p.db" "$TMP/p.ini"
before=$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM metric WHERE name LIKE 'ir.stage.%'")
check "the sweep measured stage-entry sizes" test "$before" -gt 0
"$PASSMAP" report --json "$TMP/p.db" >"$TMP/orig.json" 2>/dev/null
sqlite3 "$TMP/p.db" "DELETE FROM metric WHERE name LIKE 'ir.stage.%'"
"$PASSMAP" report --json "$TMP/p.db" >"$TMP/r0.json" 2>/dev/null
check "without them: no config has stage sizes, no mlir-opt pass a fit" python3 - "$TMP/r0.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert all(not c["stage_ir_ops"] for c in j["configs"]), [c["stage_ir_ops"] for c in j["configs"]]
assert all(x["x_metric"] is None and x["no_fit"] for x in j["fits"] if x["tool"] == "mlir-opt"), j["fits"]
PY
"$PASSMAP" probe "$TMP/p.db" >"$TMP/probe.out" 2>"$TMP/probe.err"
check "probe exits 0" test $? -eq 0
check "probe says what it added" grep -qE "^$TMP/p.db: 3 configs, 3 with stage-entry sizes measured; [1-9][0-9]* run metrics added" "$TMP/probe.out"
after=$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM metric WHERE name LIKE 'ir.stage.%'")
check "the same number of size metrics as the sweep recorded ($before)" test "$after" -eq "$before"
"$PASSMAP" report --json "$TMP/p.db" >"$TMP/r1.json" 2>/dev/null
check "probed: the sizes and fits the sweep itself gave" python3 - "$TMP/orig.json" "$TMP/r1.json" <<'PY'
import json, sys
o, r = (json.load(open(f)) for f in sys.argv[1:3])
so = {c["key"]: c["stage_ir_ops"] for c in o["configs"]}
sr = {c["key"]: c["stage_ir_ops"] for c in r["configs"]}
assert all(so.values()) and so == sr, (so, sr)
fo = [(f["pass"], f["x_metric"], f["n"]) for f in o["fits"]]
fr = [(f["pass"], f["x_metric"], f["n"]) for f in r["fits"]]
assert fo == fr, (fo, fr)
PY
"$PASSMAP" probe "$TMP/p.db" >"$TMP/probe2.out" 2>&1
check "a second probe adds nothing" grep -q "; 0 run metrics added" "$TMP/probe2.out"
# SIGKILL of a probe midway (issue 34's campaign): the store stays whole, its lock is free, and the next probe adds
# exactly what is missing
sqlite3 "$TMP/p.db" "DELETE FROM metric WHERE name LIKE 'ir.stage.%'"
"$PASSMAP" probe "$TMP/p.db" >/dev/null 2>&1 &
ppid=$!
sleep 1.5
kill -KILL "$ppid" 2>/dev/null; wait "$ppid" 2>/dev/null
check "a killed probe leaves the store whole" test "$(sqlite3 "$TMP/p.db" "PRAGMA integrity_check")" = ok
"$PASSMAP" probe "$TMP/p.db" >/dev/null 2>"$TMP/probe3.err"
check "the next probe runs (no lock left) and the sizes are complete again ($before)" \
  test "$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM metric WHERE name LIKE 'ir.stage.%'")" -eq "$before"
"$PASSMAP" probe "$TMP/none.db" >/dev/null 2>"$TMP/none.err"
check "no database: an error naming it" bash -c "grep -q 'passmap probe: $TMP/none.db: no such database' '$TMP/none.err'"
check "no database: none created (a failing probe writes nothing)" test ! -e "$TMP/none.db"
# a store a sweep (or merge) is writing: refused naming the holder, nothing compiled beside its timed runs
printf 'pid 4242 on elsewhere\nsweep\n' > "$TMP/p.db.lock"
flock -o "$TMP/p.db.lock" sleep 5 &
holder=$!
sleep 0.3
"$PASSMAP" probe "$TMP/p.db" >/dev/null 2>"$TMP/locked.err"
check "a store being written: refused naming its holder" \
  grep -q "p.db is being written by a running passmap sweep (pid 4242 on elsewhere)" "$TMP/locked.err"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
# runs recorded with another build than resolves now: refused (the sizes would not be theirs), nothing added
sqlite3 "$TMP/p.db" "DELETE FROM metric WHERE name LIKE 'ir.stage.%';
  UPDATE config SET fingerprint = 'xxh3-128:00', fingerprint_text = replace(fingerprint_text, 'tool: xxh3-128:', 'tool: xxh3-128:0ther')
  WHERE id = (SELECT min(id) FROM config)"
"$PASSMAP" probe "$TMP/p.db" >/dev/null 2>"$TMP/build.err"
check "another build than the runs recorded: refused, the difference named" \
  grep -q "its runs were made with other steps or tool builds than resolve now (.*0ther" "$TMP/build.err"
check "nothing added under another build" test "$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM metric WHERE name LIKE 'ir.stage.%'")" = 0

finish
