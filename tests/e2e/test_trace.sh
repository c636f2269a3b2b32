#!/usr/bin/env bash
# passmap trace and passmap show on stored runs: a Chrome-trace report (measured starts), an MLIR tree report
# (compiler order), an LLVM list (no order) imported into a fresh database, and the report fixture's real
# three-step sweep (a schema version 1 database). The trace is checked against the trace event format and
# parsed back with passmap parse; the schema migration of an existing version 1 database is checked too.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/imp.db
FX=$ROOT/tests/fixtures

check "trace --help" "$PASSMAP" trace --help
check "show --help" "$PASSMAP" show --help
check_fails "trace without a database" "$PASSMAP" trace
"$PASSMAP" trace >/dev/null 2>&1; [ $? -eq 2 ] && ok "trace usage error exits 2" || fail "trace usage error exits 2"
check_fails "trace of a missing database" "$PASSMAP" trace "$TMP/none.db" --run 1
check_fails "show of a missing database" "$PASSMAP" show "$TMP/none.db"

check "import three reports" "$PASSMAP" import --db "$DB" "$FX/chrome/llc-time-trace.json" "$FX/mlir/tree-single.txt" \
  "$FX/llvm/llc-time-passes.txt"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" -ge 2 ] && ok "new database at schema >= 2" || fail "schema version"
orders=$(sqlite3 "$DB" "SELECT c.key || '=' || coalesce(s.pass_order, 'NULL') FROM step s JOIN run r ON r.id = s.run_id
  JOIN config c ON c.id = r.config_id ORDER BY c.key" | tr '\n' ' ')
[ "$orders" = "llc-time-passes.txt=NULL llc-time-trace.json=timed tree-single.txt=sequence " ] \
  && ok "pass order stored per step (timed / sequence / none)" || fail "pass order: $orders"
n_start=$(sqlite3 "$DB" "SELECT count(start_s) FROM pass_time p JOIN step s ON s.id = p.step_id WHERE s.pass_order = 'timed'")
n_nostart=$(sqlite3 "$DB" "SELECT count(start_s) FROM pass_time p JOIN step s ON s.id = p.step_id WHERE s.pass_order IS NOT 'timed'")
[ "$n_start" -gt 100 ] && [ "$n_nostart" -eq 0 ] && ok "start offsets stored for the Chrome trace only ($n_start)" \
  || fail "start offsets ($n_start timed, $n_nostart others)"

# validates the trace event format, nesting per track, and compares with what passmap parse reads back
validate() {   # validate TRACE PARSE_JSON RUN_WALL [STORED_PASSES_TSV]
  python3 - "$@" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); back = json.load(open(sys.argv[2])); wall = float(sys.argv[3])
ev = t["traceEvents"]
assert isinstance(ev, list) and ev, "traceEvents"
assert t["otherData"]["schema"] >= 1 and t["otherData"]["units"]["ts"] == "us"
tracks = {}
for e in ev:
    assert isinstance(e["name"], str) and e["ph"] in ("X", "M"), e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] == "M":
        assert e["name"] in ("process_name", "process_sort_index", "thread_name"), e
        continue
    assert isinstance(e["ts"], int) and isinstance(e["dur"], int) and e["ts"] >= 0 and e["dur"] >= 0, e
    tracks.setdefault((e["pid"], e["tid"]), []).append(e)
steps = [e for e in ev if e["ph"] == "X" and e.get("cat") == "step"]
assert len(steps) == len(tracks), "one step span per track"
for k, es in tracks.items():
    es.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in es:   # spans on one track nest or follow each other, never overlap partially
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] and not (e["dur"] == 0 and e["ts"] == stack[-1]["ts"] + stack[-1]["dur"]):
            stack.pop()
        if stack:
            p = stack[-1]
            assert e["ts"] + e["dur"] <= p["ts"] + p["dur"], ("partial overlap", p["name"], e["name"])
        stack.append(e)
    assert es[0].get("cat") == "step", "the step span encloses its passes"
assert abs(back["total_wall_s"] - wall) < 1e-5 * max(1, len(steps)), ("total", back["total_wall_s"], wall)
assert abs(back["pass_wall_s"] - wall) < 1e-5 * max(1, len(steps)), ("counted", back["pass_wall_s"], wall)
if len(sys.argv) > 4:   # leaf passes keep their stored time
    stored = {}
    for line in open(sys.argv[4]):
        name, w = line.rstrip("\n").split("\t")
        stored.setdefault(name, []).append(float(w))
    parsed = {}
    for p in back["passes"]:
        parsed.setdefault(p["name"], []).append(p["wall_s"])
    # a child cut to fit its parent (reports round each row: children can add up past their parent) differs
    n = same = 0
    for name, ws in stored.items():
        if name in parsed and len(parsed[name]) == len(ws):
            n += 1
            same += all(abs(a - b) < 2e-6 for a, b in zip(sorted(ws), sorted(parsed[name])))
    assert n >= 10 and same >= 0.9 * n, ("pass times kept", same, n)
PY
}

run_wall() { sqlite3 "$1" "SELECT wall_s FROM run WHERE id = $2"; }
for cfg in llc-time-trace.json tree-single.txt llc-time-passes.txt; do
  out=$TMP/$cfg.trace.json
  if ! "$PASSMAP" trace "$DB" --config "$cfg" -o "$out" 2>"$TMP/err"; then fail "trace $cfg"; cat "$TMP/err"; continue; fi
  id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['otherData']['run_id'])" "$out")
  "$PASSMAP" parse --json "$out" >"$TMP/back.json" || { fail "parse back $cfg"; continue; }
  sqlite3 -separator $'\t' "$DB" "SELECT pass, wall_s FROM v_pass WHERE run_id = $id AND counted = 1
    AND pass NOT LIKE '%(self)' ORDER BY step_id, pass_idx" >"$TMP/stored.tsv"
  if validate "$out" "$TMP/back.json" "$(run_wall "$DB" "$id")" "$TMP/stored.tsv" 2>"$TMP/err"; then
    ok "trace $cfg: valid trace events, nesting per track; parse gives the run's total and pass times"
  else
    fail "trace $cfg round trip"; sed 's/^/#   /' "$TMP/err" | tail -5
  fi
done
grep -q '"placement":"report order' "$TMP/llc-time-passes.txt.trace.json" && ok "LLVM list marked: not execution order" \
  || fail "LLVM list order mark"
grep -q '"placement":"measured start offsets"' "$TMP/llc-time-trace.json.trace.json" && ok "Chrome trace: measured starts" \
  || fail "chrome placement"
# measured starts are kept: the first Verifier span of the Chrome fixture starts after its parent
python3 - "$TMP/tree-single.txt.trace.json" <<'PY' && ok "MLIR tree: passes in compiler order (Parser first, Output last)" || fail "MLIR order"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X" and e["cat"] != "step"]
top = sorted([e for e in ev if e["name"] in ("Parser", "Output")], key=lambda e: e["ts"])
assert [e["name"] for e in top] == ["Parser", "Output"], top
PY
# trace is now show --chrome-trace FILE (issue 39): the same bytes, to a file or to stdout ('-'); the old name
# prints one line naming the new spelling
"$PASSMAP" show "$DB" --config tree-single.txt --chrome-trace "$TMP/new.json" 2>"$TMP/new.err" \
  && cmp -s "$TMP/new.json" "$TMP/tree-single.txt.trace.json" && ok "show --chrome-trace FILE writes trace's bytes" \
  || fail "show --chrome-trace differs from trace: $(cat "$TMP/new.err")"
"$PASSMAP" show "$DB" --config tree-single.txt --chrome-trace - | cmp -s - "$TMP/tree-single.txt.trace.json" \
  && ok "show --chrome-trace -: the trace on stdout" || fail "show --chrome-trace -"
"$PASSMAP" trace "$DB" --config tree-single.txt >/dev/null 2>"$TMP/err"
[ "$(cat "$TMP/err")" = "passmap trace is now passmap show --chrome-trace FILE; the old name goes in the next release" ] \
  && ok "trace: one line on stderr names its new spelling" || fail "trace notice: $(cat "$TMP/err")"
"$PASSMAP" show "$DB" --config tree-single.txt --json --chrome-trace "$TMP/x.json" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$TMP/x.json" ] && ok "show --chrome-trace with --json: usage error" || fail "show --json --chrome-trace: rc=$rc"
"$PASSMAP" show "$DB" --chrome-trace "$TMP/x.json" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "^passmap show: say which run" "$TMP/err" && ok "show --chrome-trace of two configs: say which run" \
  || fail "show --chrome-trace without a config: rc=$rc $(cat "$TMP/err")"
check_fails "trace with two configs and no --config is an error" "$PASSMAP" trace "$DB"
"$PASSMAP" trace "$DB" --config nope >/dev/null 2>"$TMP/err"; grep -q "no config 'nope'" "$TMP/err" \
  && ok "unknown config named in the error" || fail "unknown config error"
"$PASSMAP" trace "$DB" --config tree-single.txt --repeat 7 >/dev/null 2>"$TMP/err"; grep -q "runs: cold #0 (ok)" "$TMP/err" \
  && ok "missing repeat lists the runs there are" || fail "missing repeat error: $(cat "$TMP/err")"

# the report fixture: a real three-step compile (mlir-opt, mlir-translate, llc) in a version 1 database
V1=$TMP/v1.db
gzip -dc "$FX/report/e2e-sweep.sql.gz" | sqlite3 "$V1"
KEY=llm/qwen2/0.5b/w128/int8/L1/stock
check "trace of a version 1 database" "$PASSMAP" trace "$V1" --config "$KEY" -o "$TMP/v1.trace.json"
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['otherData']['run_id'])" "$TMP/v1.trace.json")
"$PASSMAP" parse --json "$TMP/v1.trace.json" >"$TMP/back.json"
validate "$TMP/v1.trace.json" "$TMP/back.json" "$(run_wall "$V1" "$id")" && ok "3-step trace: one track per step, total round-trips" \
  || fail "3-step trace"
median=$(sqlite3 "$V1" "SELECT r.id FROM run r JOIN config c ON c.id = r.config_id WHERE c.key = '$KEY' AND r.mode = 'cold'
  AND r.status = 'ok' ORDER BY r.wall_s LIMIT 1 OFFSET (SELECT (count(*) - 1) / 2 FROM run r JOIN config c ON c.id = r.config_id
  WHERE c.key = '$KEY' AND r.mode = 'cold' AND r.status = 'ok')")
[ "$id" = "$median" ] && ok "default run: the median-wall cold run" || fail "default run $id, median $median"
check "trace --run ID --mode is refused" test "$("$PASSMAP" trace "$V1" --run 1 --mode warm >/dev/null 2>&1; echo $?)" = 2

# show: the tree, width-aware, no colour in a pipe, folded small passes
out=$(COLUMNS=100 "$PASSMAP" show "$V1" --config "$KEY")
echo "$out" | grep -q '^step 2  llc' && ok "show: one block per step" || fail "show steps"
echo "$out" | grep -qE '^  X86 DAG->DAG Instruction Selection +[0-9.]+ ms +[0-9.]+% isel +#+$' \
  && ok "show: time, share, stage and bar per pass" || fail "show row"
awk '{ if (length($0) > 100) bad = 1 } END { exit bad }' <<<"$out" && ok "show fits COLUMNS=100" || fail "show wider than 100"
out60=$(COLUMNS=60 "$PASSMAP" show "$V1" --config "$KEY")
awk '{ if (length($0) > 60) bad = 1 } END { exit bad }' <<<"$(echo "$out60" | sed 1d | grep -v '^step\|more passes\|breakdown\|order')" \
  && ok "show fits COLUMNS=60" || fail "show wider than 60"
printf '%s' "$out" | grep -q $'\033' && fail "show: colour in a pipe" || ok "show: no colour in a pipe"
if command -v script >/dev/null 2>&1; then
  tty_out=$(COLUMNS=100 script -qec "'$PASSMAP' show '$V1' --config '$KEY'" /dev/null)
  printf '%s' "$tty_out" | grep -q $'\033\[' && ok "show: colour on a terminal" || fail "show: no colour on a terminal"
  nc_out=$(NO_COLOR=1 COLUMNS=100 script -qec "'$PASSMAP' show '$V1' --config '$KEY'" /dev/null)
  printf '%s' "$nc_out" | grep -q $'\033\[' && fail "show: colour despite NO_COLOR" || ok "show: NO_COLOR respected on a terminal"
fi
echo "$out" | grep -q 'more passes below 0.5%' && ok "show folds passes below --min-share" || fail "show fold"
all=$("$PASSMAP" show "$V1" --config "$KEY" --min-share 0 | wc -l)
[ "$all" -gt "$(echo "$out" | wc -l)" ] && ok "show --min-share 0 shows every pass" || fail "show --min-share 0"
"$PASSMAP" show "$V1" | grep -qE "^$KEY +[0-9.]+ (s|ms)  #+" && ok "show without --config: configs with bars" || fail "show overview"
"$PASSMAP" show "$V1" --config "$KEY" --json | python3 -c "
import json,sys; j=json.load(sys.stdin); assert j['schema']==1 and len(j['steps'])==3 and j['units']['share']" \
  && ok "show --json" || fail "show --json"
check_fails "show --min-share 2 is refused" "$PASSMAP" show "$V1" --config "$KEY" --min-share 2

# an existing version 1 database is migrated by the next writer, and keeps its runs
sqlite3 "$V1" "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"
before=$(sqlite3 "$V1" "SELECT count(*) FROM run")
check "import into a version 1 database" "$PASSMAP" import --db "$V1" --sweep e2e "$FX/mlir/tree-single.txt"
[ "$(sqlite3 "$V1" 'PRAGMA user_version')" -ge 2 ] && ok "version 1 database migrated" || fail "migration"
[ "$(sqlite3 "$V1" "SELECT count(*) FROM run")" -eq $((before + 1)) ] && ok "migration keeps the runs" || fail "runs after migration"
[ "$(sqlite3 "$V1" "SELECT pass_order FROM step ORDER BY id DESC LIMIT 1")" = sequence ] && ok "migrated database records order" \
  || fail "order after migration"
finish
