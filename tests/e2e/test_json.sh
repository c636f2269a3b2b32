#!/usr/bin/env bash
# Every --json carries "schema" and "units" (docs/json.md); shares are fractions, variant is a string.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
DB=$TMP/e2e.db
gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz" | sqlite3 "$DB"
has_schema() {   # has_schema DESC JSON
  python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["schema"] == 1 and isinstance(j["units"], dict), "schema/units"
' <<<"$2" && ok "$1: schema and units" || fail "$1: schema and units"
}
has_schema "report" "$("$PASSMAP" report "$DB" --json)"
has_schema "parse" "$("$PASSMAP" parse --json "$ROOT/tests/fixtures/mlir/tree-single.txt")"
has_schema "run" "$("$PASSMAP" run --json -n 1 -- true)"
has_schema "gen list" "$("$PASSMAP" gen list --json)"
has_schema "show" "$("$PASSMAP" show "$DB" --json)"
has_schema "show --config" "$("$PASSMAP" show "$DB" --config llm/qwen2/0.5b/w128/int8/L1/stock --json)"
has_schema "cache stats" "$("$PASSMAP" cache --dir "$TMP/cache" stats --json)"
"$PASSMAP" report "$DB" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["units"]["wall_s"] == "s"
for c in j["configs"]:
    assert isinstance(c["variant"], str)
    assert 0 <= c["dominant_share"] <= 1, c["dominant_share"]
    for v in c["shares"].values():
        assert 0 <= v["mean"] <= 1
' && ok "report: shares are fractions, variant a string" || fail "report: fractions and types"
"$PASSMAP" run --json -n 1 -- true | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
assert r["instructions"] is None or isinstance(r["instructions"], int), r["instructions"]
' && ok "run: instructions an integer or null" || fail "run: instructions type"
finish
