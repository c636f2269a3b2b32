#!/usr/bin/env bash
# passmap import: real timing reports (fixtures made by scripts/make-fixtures.sh) into a database.
source "$(dirname "$0")/lib.sh"
fx=$ROOT/tests/fixtures
db=$TMP/imp.db
check "import an MLIR tree report" "$PASSMAP" import --db "$db" --config mlir-tree "$fx/mlir/tree-single.txt"
check "import an llc -time-passes report" "$PASSMAP" import --db "$db" --config llc "$fx/llvm/llc-time-passes.txt"
check "import an MLIR JSON report with an explicit format" "$PASSMAP" import --db "$db" --format mlir-json --config mlir-json "$fx/mlir/tree-single.json"
tools=$(sqlite3 "$db" "select group_concat(tool, ',') from (select tool from step order by id)")
[ "$tools" = "mlir-opt,llc,mlir-opt" ] && ok "tools inferred from the format" || fail "tools: $tools"
# The stored per-pass sum equals what passmap parse reports for the same file (no loss, no double counting).
want=$("$PASSMAP" parse --json "$fx/mlir/tree-single.txt" | python3 -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["pass_wall_s"])')
got=$(sqlite3 "$db" "select printf('%.6f', sum(wall_s)) from v_pass where config_key='mlir-tree' and counted")
[ "$want" = "$got" ] && ok "stored counted wall = parsed pass sum ($got s)" || fail "stored $got vs parsed $want"
check "a second import of the same config is the next repeat" "$PASSMAP" import --db "$db" --config llc "$fx/llvm/llc-time-passes.txt"
[ "$(sqlite3 "$db" "select max(repeat) from run r join config c on c.id=r.config_id where c.key='llc'")" = 1 ] \
  && ok "repeat numbering" || fail "repeat numbering"
printf 'hello\nno report here\n' > "$TMP/none.txt"
check_fails "a file without a report is an error" "$PASSMAP" import --db "$db" "$TMP/none.txt"
check_fails "a missing file is an error" "$PASSMAP" import --db "$db" "$TMP/missing.txt"
check_fails "an unknown format is a usage error" "$PASSMAP" import --db "$db" --format nope "$fx/llvm/llc-time-passes.txt"
[ "$(sqlite3 "$db" "select count(*) from run")" = 4 ] && ok "failed imports recorded nothing" || fail "run count"
# The report reads the pass rows of its own sweep only: two sweeps in one store, interleaved, each report
# sees its own tools' passes (the pass scan walks a step-id range that holds the other sweep's steps too).
sdb=$TMP/two.db
"$PASSMAP" import --quiet --db "$sdb" --sweep a --config x "$fx/mlir/tree-single.txt" &&
  "$PASSMAP" import --quiet --db "$sdb" --sweep b --config y "$fx/llvm/llc-time-passes.txt" &&
  "$PASSMAP" import --quiet --db "$sdb" --sweep a --config x "$fx/mlir/tree-single.txt"
# sweep a's passes are MLIR passes only: every one maps to an mlir-opt stage, none is "other" (llc's would be)
other_a=$("$PASSMAP" report --json --sweep a "$sdb" | python3 -c 'import json,sys; c=json.load(sys.stdin)["configs"][0]; print("%s %.4f" % (c["dominant_pass"]["name"], c["shares"].get("other", {"mean": 0})["mean"]))')
case $other_a in
  *" 0.0000") ok "report per sweep reads only its own pass rows" ;;
  *) fail "pass rows crossed sweeps: sweep a has llc's passes ($other_a)" ;;
esac
check "import --help" "$PASSMAP" import --help
# import is now parse --db (issue 39): the old name prints one line naming the new spelling, then does as before;
# parse --db stores the same rows and prints the same line as import does
"$PASSMAP" import --db "$TMP/old.db" --sweep s --config c --tool llc "$fx/llvm/llc-time-passes.txt" >"$TMP/old.out" 2>"$TMP/old.err"; rc_old=$?
"$PASSMAP" parse --db "$TMP/new.db" --sweep s --config c --tool llc "$fx/llvm/llc-time-passes.txt" >"$TMP/new.out" 2>"$TMP/new.err"; rc_new=$?
rows() { sqlite3 "$1" "SELECT c.key, r.mode, r.repeat, r.wall_s, s.tool, (SELECT count(*) FROM pass_time p
  WHERE p.step_id = s.id) FROM run r JOIN config c ON c.id = r.config_id JOIN step s ON s.run_id = r.id"; }
[ $rc_old = 0 ] && [ $rc_new = 0 ] && [ "$(sed "s|$TMP/old.db|DB|" "$TMP/old.out")" = "$(sed "s|$TMP/new.db|DB|" "$TMP/new.out")" ] \
  && [ -n "$(rows "$TMP/new.db")" ] && [ "$(rows "$TMP/old.db")" = "$(rows "$TMP/new.db")" ] && [ ! -s "$TMP/new.err" ] \
  && ok "parse --db stores what import stored and prints the same line" || fail "parse --db vs import: $(cat "$TMP/old.out" "$TMP/new.out" "$TMP/new.err")"
[ "$(cat "$TMP/old.err")" = "passmap import is now passmap parse --db DB; the old name goes in the next release" ] \
  && ok "import: one line on stderr names its new spelling" || fail "import notice: $(cat "$TMP/old.err")"
"$PASSMAP" import --help 2>&1 | head -1 | grep -q '^usage: passmap import' && ok "import --help: no notice before the usage" \
  || fail "import --help starts with: $("$PASSMAP" import --help 2>&1 | head -1)"
"$PASSMAP" parse --db "$TMP/new.db" --json "$fx/llvm/llc-time-passes.txt" >/dev/null 2>&1; rc1=$?
"$PASSMAP" parse --config c "$fx/llvm/llc-time-passes.txt" >/dev/null 2>&1; rc2=$?
"$PASSMAP" parse --db "$TMP/new.db" --mode hot "$fx/llvm/llc-time-passes.txt" >/dev/null 2>&1; rc3=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] && ok "parse: --db with --json, --config without --db, a bad --mode: usage errors" \
  || fail "parse store options: rc $rc1 $rc2 $rc3"
"$PASSMAP" parse --db "$TMP/e.db" "$TMP/none.txt" >/dev/null 2>&1; [ $? = 1 ] && [ ! -e "$TMP/e.db" ] \
  && ok "parse --db of a file without a report: fails, no database left" || fail "parse --db of no report"
finish
