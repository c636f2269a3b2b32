#!/usr/bin/env bash
# The HTML report above the drill-down's bound (200 configs): a 210-config store (scripts/make-bench-db.py, the
# report bench's replay of tests/fixtures/report/e2e-sweep.sql.gz, ~250 passes a run). Every config keeps its
# anchor and one-line summary; only the slowest 50 and those with failed runs are drawn in full, so the section's
# size grows per config, not per pass row; the page says what it drew and where the rest is.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
PY=${PYTHON:-python3}
DB=$TMP/s210.db
BENCH_CONFIGS=210 "$PY" "$ROOT/scripts/make-bench-db.py" "$DB" >&2 || { fail "make-bench-db.py"; finish; }
# one failed run in a fast (first-generation) config: it is drawn in full for its failure
slow_key=llm/qwen2/0.5b/128/int8/g0
sqlite3 "$DB" "UPDATE run SET status='failed', note='scale test' WHERE id=(SELECT r.id FROM run r JOIN config c
  ON c.id=r.config_id WHERE c.key='$slow_key' AND r.mode='cold' ORDER BY r.id LIMIT 1)"
html=$TMP/r.html
"$PASSMAP" report "$DB" --html "$html" > "$TMP/report.out" 2>&1 && ok "report --html at 210 configs" \
  || { fail "report --html"; tail -3 "$TMP/report.out"; }

drill=$TMP/drill.html
sed -n '/<h2 id=drilldown>/,$p' "$html" > "$drill"
note=$(grep -o '<p class=sub id=drill-bound>.*' "$drill" | head -1 | cut -c1-900)
case $note in
  *"210 configs: above 200 the page draws 51 in full"*"the 50 with the slowest mean cold wall and 1 with failed runs"*"passmap show $DB --config KEY"*)
    ok "the page says which configs it draws and where the rest is (the command names the real store)" ;;
  *) fail "drill-down bound note: ${note:0:300}" ;;
esac
icicles=$(grep -o '<svg class=icicle' "$drill" | wc -l)
[ "$icicles" -eq 51 ] && ok "51 pass trees drawn (50 slowest + 1 failed)" || fail "pass trees drawn: $icicles"
anchors=$(grep -o '<section class=cfg id="cfg-[0-9]*"' "$drill" | wc -l)
[ "$anchors" -eq 210 ] && ok "every config keeps its section" || fail "config sections: $anchors"
# every link to a config section (the tables, the contents list) has its target
missing=0
for id in $(grep -o 'href="#cfg-[0-9]*"' "$html" | sed 's/href="#//; s/"//' | sort -u); do
  grep -q "id=\"$id\"" "$html" || missing=$((missing + 1))
done
[ "$missing" -eq 0 ] && ok "every #cfg- link has its target" || fail "$missing #cfg- links without a target"
stubs=$(grep -o '<p class=note>not drawn (<a href="#drill-bound">why</a>): <code>passmap show '"$DB"' --config [^<]*</code>' "$drill" | wc -l)
[ "$stubs" -eq 159 ] && ok "the 159 others name passmap show --config KEY" || fail "stubs: $stubs"
grep -q "<h4 class=warn>Failed: cold run" "$drill" && ok "the failed config is drawn with its failure" || fail "failed config drawn"
grep -qF '<li><a href="#drill-bound">159 more: the configs table</a></li>' "$html" \
  && ok "contents list: the drawn configs and how many more" || fail "contents list bound"
# bounded: drawn sections (~50 KB each, whatever the pass count) plus under 1 KB per other config; the full
# drill-down of this store is ~46 KB per config, 9.7 MB
bytes=$(wc -c < "$drill")
limit=$((51 * 60000 + 159 * 1000))
[ "$bytes" -le "$limit" ] && ok "drill-down $bytes bytes <= $limit" || fail "drill-down $bytes bytes > $limit"
finish
