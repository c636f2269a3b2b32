#!/usr/bin/env bash
# The first hour's mistakes: every error path says which file and what to do, on one line, with a non-zero
# exit; nothing prints a confident study from missing data (issue 23).
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
cd "$TMP" || exit 1
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } | sqlite3 full.db
echo hello > text.db
sqlite3 foreign.db 'CREATE TABLE t(x)'
cp full.db norun.db
sqlite3 norun.db 'PRAGMA foreign_keys=OFF; DELETE FROM pass_time; DELETE FROM metric; DELETE FROM step; DELETE FROM run;'

# expect NAME RC PATTERN CMD...: exit status RC, one line on stderr matching PATTERN, nothing on stdout.
expect() {
  local name=$1 want=$2 pat=$3; shift 3
  local out err rc
  out=$("$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
  if [ "$rc" = "$want" ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" | grep -q -- "$pat"
  then ok "$name"; else fail "$name (rc=$rc, stdout ${#out} bytes): $err"; fi
}
# (trace and status are old names now, each saying its new spelling on a line of its own: show --chrome-trace
# and sweep --status stand in for them)
for cmd in report show "show --chrome-trace x.json"; do
  c=${cmd%% *}
  expect "$cmd: missing file named" 1 "passmap $c: nope.db: no such database" "$PASSMAP" $cmd nope.db
  expect "$cmd: a text file is not a passmap database" 1 "passmap $c: text.db: not a passmap database" "$PASSMAP" $cmd text.db
  expect "$cmd: a foreign SQLite file is not a passmap database" 1 "passmap $c: foreign.db: not a passmap database" \
    "$PASSMAP" $cmd foreign.db
done
expect "report: a study with no runs is an error, not 85 lines of dashes" 1 "norun.db: sweep 'e2e' has no runs yet" \
  "$PASSMAP" report norun.db
expect "report --json: the same" 1 "norun.db: sweep 'e2e' has no runs yet" "$PASSMAP" report --json norun.db

# missing data: no stage map, no fix catalogue
expect "report: missing data folder named" 1 "no stage map: cannot open the data folder /nonexistent (from \$PASSMAP_DATA_DIR)" \
  env PASSMAP_DATA_DIR=/nonexistent "$PASSMAP" report full.db
mkdir empty maps
expect "report: a data folder without stages-*.tsv named" 1 "no stage map (stages-\*.tsv) in the data folder $TMP/empty" \
  env PASSMAP_DATA_DIR="$TMP/empty" "$PASSMAP" report full.db
cp "$ROOT"/data/stages-*.tsv maps/
out=$(PASSMAP_DATA_DIR=/nonexistent "$PASSMAP" report full.db --stage-map "$ROOT/data/stages-embedded.tsv" \
      2>&1) && echo "$out" | grep -q 'dominant stage' \
  && ok "report: --stage-map stands in for the data folder" || fail "explicit maps: $out"
expect "show: missing data folder named" 1 "no stage map: cannot open the data folder /nonexistent" \
  env PASSMAP_DATA_DIR=/nonexistent "$PASSMAP" show full.db --config llm/gemma2/2b/w128/fp16/L1/stock
expect "fix: missing data folder named" 1 "no stage map: cannot open the data folder /nonexistent" \
  env PASSMAP_DATA_DIR=/nonexistent "$PASSMAP" fix full.db --dry-run

# issue 37's mistakes, each with the message that names it and what to do, and its exit status
printf '[swep]\nname = x\nrepeats = 1\n[llm a]\nmodels = qwen2:0.5b\nwindows = 32\nprecisions = int8\nlayers = 1\n' > swep.ini
expect "spec: a misspelt [swep] named first, with its line, not '[sweep] name is required'" 2 \
  "swep.ini: line 2: section \[swep\] is read by no back end; did you mean \[sweep\]? (back end embedded reads" \
  "$PASSMAP" sweep --dry-run swep.ini
printf '[sweep]\nname = x\nbackend = command\n[matrx c]\nfiles = a.c\n' > matrx.ini
expect "spec: a misspelt [matrx c] named first, with its line, not 'no configs'" 2 \
  "matrx.ini: line 5: section \[matrx c\] is read by no back end; did you mean \[matrix c\]?" \
  "$PASSMAP" sweep --dry-run matrx.ini
expect "show --config: a key one letter off gets its near match and the command that lists them" 1 \
  "no config 'llm/qwen2/0.5b/w128/int8/L1/stok' in this sweep; did you mean 'llm/qwen2/0.5b/w128/int8/L1/stock'? (passmap show [^ ]*full.db lists its 16 configs)" \
  "$PASSMAP" show full.db --config llm/qwen2/0.5b/w128/int8/L1/stok
expect "show --chrome-trace --config: a key without its variant gets the full key" 1 \
  "did you mean 'llm/qwen2/0.5b/w128/int8/L1/stock'?" \
  "$PASSMAP" show full.db --config llm/qwen2/0.5b/w128/int8/L1 --chrome-trace t.json
expect "compare --a prec=...: the axes named, the near one suggested" 2 \
  "full.db: no config has an axis 'prec'; did you mean precision? (its axes: .*precision.*, variant)" \
  "$PASSMAP" compare full.db --a prec=int8 --b prec=fp16
before=$(ls -l full.db* 2>/dev/null | md5sum)
for side in "" -wal -shm -journal; do   # SQLite's own files, whether or not they exist yet
  expect "show --chrome-trace full.db$side: the store's file refused" 2 "refusing to write full.db$side: it is the" \
    "$PASSMAP" show full.db --run 1 --chrome-trace "full.db$side"
done
[ "$(ls -l full.db* 2>/dev/null | md5sum)" = "$before" ] && ok "the store's files untouched, none added" \
  || fail "a store file was written: $(ls full.db*)"
hint=$("$PASSMAP" show full.db | sed -n 2p)
[ "$hint" = "  passmap show full.db --config KEY" ] \
  && ok "show: its hint names the real store, not a literal DB" || fail "show hint: $hint"

# a mistyped subcommand: did you mean
expect "mistyped subcommand: did you mean" 2 "passmap: 'reprot' is not a command; did you mean 'report'?" "$PASSMAP" reprot
finish
