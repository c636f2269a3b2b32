#!/usr/bin/env bash
# passmap show at 80 columns and below: every line fits, the columns give way by priority (bar and stage narrow,
# then the bar goes, then the stage) so that pass names stay whole,
# and a line says what was dropped; NO_COLOR keeps the block glyphs and drops only the colour (issue 23).
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/e2e.db
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 "$DB"
KEY=llm/qwen2/1.5b/w512/fp16/L1/stock
fits() { awk -v w="$1" 'length($0) > w { bad = 1; print "# " length($0) ": " $0 } END { exit bad }'; }

out=$(COLUMNS=80 "$PASSMAP" show "$DB" --config "$KEY")
echo "$out" | fits 80 && ok "show --config fits 80 columns (header and step lines included)" || fail "wider than 80"
echo "$out" | grep -qE '^ +SCFToControlFlowPass +[0-9.]+ ms +[0-9.]+% lowering-to[-a-z]*~? +#+$' \
  && ok "80 columns: time, share, stage and bar all kept" || fail "80 columns row: $(echo "$out" | grep SCFToControl)"
# the stage column and the bar narrow before a pass name is cut (issue 37: names were cut at 26 columns beside a
# 22-column stage and a 16-column bar)
echo "$out" | grep -qE '^  FinalizeMemRefToLLVMConversionPass +[0-9.]+ ms' && ! echo "$out" | grep -qE '^ +[A-Za-z][^ ]*~ ' \
  && ok "80 columns: pass names up to 36 columns whole, the stage column narrowed instead" \
  || fail "80 columns cut a name: $(echo "$out" | grep -E 'FinalizeMemRef|~ ' | head -3)"
echo "$out" | grep -q 'dropped' && fail "80 columns: something dropped" || ok "80 columns: nothing dropped"
out=$(COLUMNS=80 "$PASSMAP" show "$DB")
echo "$out" | fits 80 && ok "show (configs) fits 80 columns" || fail "configs wider than 80"
out=$(COLUMNS=60 "$PASSMAP" show "$DB" --config "$KEY")
echo "$out" | fits 60 && ok "show fits 60 columns" || fail "wider than 60"
echo "$out" | grep -q '^(bar and stage columns dropped; COLUMNS=[0-9]* shows all)$' && ok "60 columns: says what it dropped" \
  || fail "no drop note: $(echo "$out" | head -4)"
out=$(COLUMNS=72 "$PASSMAP" show "$DB" --config "$KEY")
echo "$out" | grep -q '^(bar column dropped; COLUMNS=[0-9]* shows all)$' && echo "$out" | grep -qE ' lowering-to[-a-z]*~? *$' \
  && ok "72 columns: the bar goes first, the stage stays" || fail "72: $(echo "$out" | sed -n 3,6p)"

if command -v script >/dev/null 2>&1; then
  tty=$(NO_COLOR=1 COLUMNS=100 script -qec "'$PASSMAP' show '$DB' --config '$KEY'" /dev/null)
  printf '%s' "$tty" | grep -q $'\033\[' && fail "NO_COLOR: colour" || ok "NO_COLOR: no colour on a terminal"
  printf '%s' "$tty" | grep -q '█' && ! printf '%s' "$tty" | grep -q '##' && ok "NO_COLOR: the same block glyphs, not '#'" \
    || fail "NO_COLOR bars: $(printf '%s' "$tty" | sed -n 5p)"
  tty=$(NO_COLOR=1 COLUMNS=100 script -qec "'$PASSMAP' show '$DB'" /dev/null)
  printf '%s' "$tty" | grep -q "^$KEY .*s  █" && ok "NO_COLOR: the configs' bars in block glyphs too" || fail "configs bars"
else
  ok "no script(1): terminal checks skipped (# SKIP)"
fi
"$PASSMAP" show "$DB" --config "$KEY" | grep -q '█' && fail "block glyphs in a pipe" || ok "a pipe gets '#' bars"
finish
