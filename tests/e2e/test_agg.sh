#!/usr/bin/env bash
# The report's aggregates (schema 9, issue 24): the writers keep per-run stage sums and per-(config, pass) sums;
# the report reads them instead of the pass rows when every run in scope has them and their stages agree with
# its map, and then says exactly what summing the rows says. Each writer path: merge, the migration of an older
# file, import (pm_store_record_run, as sweep and run --db). Each variant is a folder with its store as s.db:
# the report names its store's path.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# variant NAME [SQL]: a copy of agg/s.db in NAME/, changed by SQL
variant() { mkdir -p "$1" && cp agg/s.db "$1/s.db" && { [ -z "${2:-}" ] || sqlite3 "$1/s.db" "$2"; }; }
# rep NAME [ARGS]: the report of NAME/s.db
rep() { local d=$1; shift; (cd "$d" && "$PASSMAP" report s.db "$@" 2>&1); }
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 v1.db
mkdir -p agg old mig && cp v1.db old/s.db && cp v1.db mig/s.db
"$PASSMAP" merge agg/s.db v1.db > merge.log 2>&1 || { fail "merge: $(cat merge.log)"; finish; exit 1; }
runs=$(sqlite3 agg/s.db "SELECT count(*) FROM run WHERE status='ok' AND mode IN ('cold','warm')")
n=$(sqlite3 agg/s.db "SELECT count(*) FROM agg_run")
[ "$runs" -gt 0 ] && [ "$n" = "$runs" ] && ok "merge: every ok cold/warm run aggregated ($n)" \
  || fail "merge: $n aggregated of $runs runs"
# the same store without aggregates for one run: the report sums the pass rows (the path before schema 9)
drop_one="DELETE FROM agg_run WHERE run_id = (SELECT min(run_id) FROM agg_run)"
variant rows "$drop_one"
rep agg --json > agg.json; rep rows --json > rows.json
grep -q '"configs"' agg.json && cmp -s agg.json rows.json \
  && ok "report --json from the aggregates is byte-identical to the sum of the rows" \
  || fail "report --json: $(diff agg.json rows.json | head -5)"
rep agg > agg.txt; rep rows > rows.txt
cmp -s agg.txt rows.txt && ok "report text from the aggregates is byte-identical to the sum of the rows" \
  || fail "report text: $(diff agg.txt rows.txt | head -5)"
# the report reads the aggregates, not the rows: doubled pass rows change nothing while every run has its sums
variant doubled "UPDATE pass_time SET wall_s = wall_s * 2"
rep doubled --json > doubled.json
cmp -s agg.json doubled.json && ok "the report reads the aggregates (pass rows left unread)" \
  || fail "doubled rows changed the report: $(diff agg.json doubled.json | head -5)"
variant doubled-rows "UPDATE pass_time SET wall_s = wall_s * 2; $drop_one"
rep doubled-rows --json > dr.json
grep -q '"configs"' dr.json && ! cmp -s agg.json dr.json \
  && ok "a run without aggregates: the rows are summed (the doubled rows show)" || fail "rows path not taken"
# a stage map that puts a recorded pass elsewhere: the stored stage sums do not apply, the rows are summed
pass=$(sqlite3 agg/s.db "SELECT n.name FROM agg_pass_stage a JOIN pass_name n ON n.id = a.name_id WHERE a.stage <> 'other' ORDER BY n.name LIMIT 1")
tool=$(sqlite3 agg/s.db "SELECT a.tool FROM agg_pass_stage a JOIN pass_name n ON n.id = a.name_id WHERE n.name = '$pass' LIMIT 1")
printf '%s\t%s\tmoved-stage\n' "$tool" "$pass" > moved.tsv
cat "$ROOT"/data/stages-*.tsv >> moved.tsv
cat "$ROOT"/data/stages-*.tsv > same.tsv
rep doubled --stage-map "$TMP/moved.tsv" --json > moved.json
rep doubled-rows --stage-map "$TMP/moved.tsv" --json > moved-rows.json
[ -n "$pass" ] && grep -q moved-stage moved.json && cmp -s moved.json moved-rows.json \
  && ok "--stage-map that moves '$pass': the rows are summed" || fail "--stage-map: $(diff moved.json moved-rows.json | head -5)"
rep doubled --stage-map "$TMP/same.tsv" --json > same-map.json
cmp -s agg.json same-map.json && ok "--stage-map with the same assignment: the aggregates still apply" \
  || fail "--stage-map same: $(diff agg.json same-map.json | head -5)"
# merging again adds nothing and leaves the sums as they were
before=$(sqlite3 agg/s.db "SELECT total(wall_s), total(log_s), count(*) FROM agg_cfg_pass")
"$PASSMAP" merge agg/s.db v1.db > merge2.log 2>&1
after=$(sqlite3 agg/s.db "SELECT total(wall_s), total(log_s), count(*) FROM agg_cfg_pass")
[ "$before" = "$after" ] && ok "merging the same input again leaves the aggregates" || fail "merge again: $before -> $after"
# merge copies an input's own aggregates (ids remapped) when all its runs are new: the same rows summing them makes
aggdump() { sqlite3 "$1" "SELECT run_id, printf('%.17g', pass_sum) FROM agg_run ORDER BY 1;
  SELECT run_id, stage, printf('%.17g %.17g %.17g', wall_s, user_s, user_wall_s) FROM agg_run_stage ORDER BY 1, 2;
  SELECT tool, name_id, stage FROM agg_pass_stage ORDER BY 1, 2;
  SELECT config_id, tool, name_id, printf('%.17g %.17g %d %.17g %.17g', wall_s, log_s, n_log, user_s, user_wall_s),
         first_run, first_pos FROM agg_cfg_pass ORDER BY 1, 2, 3"; }
"$PASSMAP" import --db imp.db --sweep imported "$ROOT/tests/fixtures/llvm/llc-time-passes.txt" > imp0.log 2>&1 \
  || fail "import: $(cat imp0.log)"
variant one-missing "$drop_one"
"$PASSMAP" merge copied.db imp.db agg/s.db > mc.log 2>&1 || fail "merge (copy): $(cat mc.log)"
"$PASSMAP" merge summed.db imp.db one-missing/s.db > ms.log 2>&1 || fail "merge (sum): $(cat ms.log)"
aggdump copied.db > copied.agg; aggdump summed.db > summed.agg
[ -s copied.agg ] && [ "$(sqlite3 copied.db 'SELECT min(run_id) FROM agg_run WHERE run_id > 1')" -gt 1 ] \
  && cmp -s copied.agg summed.agg && ok "merge: the copied aggregates are the summed ones, to the bit" \
  || fail "merge copy: $(diff copied.agg summed.agg | head -5)"
variant tripled "UPDATE agg_cfg_pass SET wall_s = wall_s * 3"
"$PASSMAP" merge tripled-out.db tripled/s.db > mt.log 2>&1 || fail "merge (tripled): $(cat mt.log)"
[ "$(sqlite3 tripled-out.db 'SELECT total(wall_s) FROM agg_cfg_pass')" = "$(sqlite3 tripled/s.db 'SELECT total(wall_s) FROM agg_cfg_pass')" ] \
  && ok "merge copies the input's aggregates (not summed from the rows again)" || fail "merge summed the rows"
# the migration builds them for an older file when a writer opens it (import adds one run: record_run's path)
"$PASSMAP" import --db mig/s.db --sweep imported "$ROOT/tests/fixtures/llvm/llc-time-passes.txt" > imp.log 2>&1 \
  || fail "import: $(cat imp.log)"
m_runs=$(sqlite3 mig/s.db "SELECT count(*) FROM run WHERE status='ok' AND mode IN ('cold','warm')")
m_n=$(sqlite3 mig/s.db "SELECT count(*) FROM agg_run")
[ "$(sqlite3 mig/s.db 'PRAGMA user_version')" -ge 8 ] && [ "$m_n" = "$m_runs" ] \
  && ok "migration + import: every run aggregated ($m_n)" || fail "migration: $m_n of $m_runs"
sweep=$(sqlite3 v1.db "SELECT name FROM sweep LIMIT 1")
# (startup.recorded says whether the file has the start-up table, schema 5: the one difference allowed)
rep mig --sweep "$sweep" --json | jq 'del(.startup.recorded)' > mig.json
rep old --sweep "$sweep" --json | jq 'del(.startup.recorded)' > old.json
grep -q '"configs"' mig.json && cmp -s mig.json old.json && ok "a migrated file reports what the older file read as it is reports" \
  || fail "migrated: $(diff mig.json old.json | head -5)"
imp=$(sqlite3 mig/s.db "SELECT count(*) FROM agg_cfg_pass a JOIN config c ON c.id = a.config_id JOIN sweep s ON s.id = c.sweep_id WHERE s.name = 'imported'")
[ "$imp" -gt 0 ] && ok "import: its run's pass sums recorded ($imp passes)" || fail "import: no pass sums"
finish
