#!/usr/bin/env bash
# merge of a store recorded before a config's fingerprint held its input files' contents (issue 34.5's tail): an
# old shard's config has the same steps and builds as a new one's, but the files its runs compiled cannot be
# verified. The merge refuses to mix them (not even with --force) and says so, naming that store and what to do;
# a resume of the old store with this passmap records the inputs' contents (the old fingerprint is its text less
# the input lines, as an older passmap wrote it), after which the merge goes through. An input whose content
# really differs is still "other steps". Before, the refusal read "other steps than in OUT" with the input lines
# as the difference, naming neither the old store nor a way out.
source "$(dirname "$0")/lib.sh"
q() { sqlite3 "$1" "$2"; }
mkdir -p "$TMP/s"
printf 'one\n' >"$TMP/s/a.txt"
cat >"$TMP/s/cc.sh" <<SH
cat "\$1" >/dev/null
cat "$ROOT/tests/fixtures/mlir/list-single.txt" >&2
SH
cat >"$TMP/s/s.ini" <<'INI'
[sweep]
name = s
backend = command
repeats = 1
timeout = 10s

[matrix m]
input = *.txt

[step cc]
argv = sh {spec_dir}/cc.sh {input}
tool = mlir-opt
INI
check "a store with the inputs' contents in its fingerprints" "$PASSMAP" sweep --quiet --db "$TMP/new.db" "$TMP/s/s.ini"
cp "$TMP/new.db" "$TMP/old.db"
# as an older passmap recorded it: the text without the input lines (its hash is planted: the rule is on the text)
q "$TMP/old.db" "UPDATE config SET fingerprint = 'xxh3-128:0000000000000000000000000000000f',
  fingerprint_text = replace(fingerprint_text, substr(fingerprint_text, instr(fingerprint_text, 'input input: ')), '')"
q "$TMP/old.db" "SELECT fingerprint_text FROM config" | grep -q '^input ' && fail "the plant left an input line"

check "merge the new store" "$PASSMAP" merge --partial "$TMP/out.db" "$TMP/new.db"
out=$("$PASSMAP" merge --force --partial "$TMP/out.db" "$TMP/old.db" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "old.db was recorded before passmap fingerprinted input files' contents" \
  && echo "$out" | grep -q "Rerun that shard with this passmap into a new database" \
  && echo "$out" | grep -q "passmap sweep SPEC --db .*old.db" \
  && ok "an old store's config: refused, the store named, why and what to do" || fail "old store merged (rc=$rc): $out"
# the other way round: the output is the old one
check "merge the old store first" "$PASSMAP" merge --partial "$TMP/out2.db" "$TMP/old.db"
out=$("$PASSMAP" merge --partial "$TMP/out2.db" "$TMP/new.db" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "out2.db was recorded before passmap fingerprinted" \
  && ok "the output the old one: it is the one named" || fail "old output (rc=$rc): $out"
# an input whose content differs: other steps, as before
printf 'two\n' >"$TMP/s/a.txt"
check "a store of the edited input" "$PASSMAP" sweep --quiet --db "$TMP/edited.db" "$TMP/s/s.ini"
out=$("$PASSMAP" merge --force --partial "$TMP/out.db" "$TMP/edited.db" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "other steps than in .*'input input: xxh3-128:[0-9a-f]*' -> 'input input: xxh3-128:" \
  && ok "an edited input is still another measurement" || fail "edited input (rc=$rc): $out"
finish
