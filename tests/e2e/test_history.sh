#!/usr/bin/env bash
# e2e: passmap history (lib/study/history.h): four sweeps of one config in one store, the third one 10% slower
# (all its passes): one change point per row, at the third sweep, the same verdicts `passmap compare` gives for
# each consecutive pair, the stage's change named by its pass; JSON and the HTML small multiples agree.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/support/timing-stores.sh"
db=$TMP/h.db
for i in 1 2 3 4; do
  s=1; [ "$i" -ge 3 ] && s=1.1
  for r in 1 2 3 4 5; do
    report "$s" "$((i * 10 + r))" 0.005 >"$TMP/r.txt"
    "$PASSMAP" import --quiet --db "$db" --sweep "build$i" --config cfgA --tool llc "$TMP/r.txt" || fail "import"
  done
done
"$PASSMAP" history "$db" --html "$TMP/h.html" >"$TMP/h.txt"
check "history exits 0" test $? -eq 0
check "text: four sweeps, one config" grep -q "^history: .*h.db, 4 sweeps, 1 configs, 3 change points" "$TMP/h.txt"
check "text: the compile's change point at build3, none elsewhere" grep -Eq "^compile wall +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+ ms ▲ +[0-9.]+ ms$" "$TMP/h.txt"
check "text: the stage's change named by its pass" grep -Eq "^  stage [a-z-]+ at build3: slower 1\.(09|10|11)[0-9]x .*, by pass llc: SelectionDAGISel " "$TMP/h.txt"
"$PASSMAP" history --json "$db" >"$TMP/h.json"
for pair in "build1 build2" "build2 build3" "build3 build4"; do
  set -- $pair
  "$PASSMAP" compare --json --a-sweep "$1" --b-sweep "$2" "$db" "$db" >"$TMP/c.json" 2>/dev/null
  check "change points agree with compare $1 -> $2" python3 - "$TMP/h.json" "$TMP/c.json" "$2" <<'PY'
import json, sys
h, c, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
i = [s["name"] for s in h["sweeps"]].index(b)
rows = {(r["kind"], r["name"]): r["points"][i] for r in h["configs"][0]["rows"]}
cc = c["configs"][0]
want = cc["wall"]["verdict"]
got = rows[("compile", "wall")]["change"]
assert (got or "none") == (want if want in ("slower", "faster") else "none"), (got, want)
for s in cc["steps"]:
    v = s["verdict"]
    assert (rows[("step", s["tool"])]["change"] or "none") == (v if v in ("slower", "faster") else "none")
PY
done
check "json: 3 changes, all at build3" python3 -c '
import json,sys; h=json.load(open(sys.argv[1]))
assert h["changes"] == 3
for r in h["configs"][0]["rows"]:
    ch = [p["change"] for p in r["points"]]
    assert ch == [None, None, "slower", None], (r["name"], ch)' "$TMP/h.json"
check "html: a chart per config, a red marker per change point" bash -c "test \$(grep -c '<svg' '$TMP/h.html') -eq 1 && test \$(grep -c '<circle class=\"slower\"' '$TMP/h.html') -eq 3"
"$PASSMAP" history --sweeps build4,build1 "$db" >"$TMP/rev.txt"
check "--sweeps: the order given" grep -Eq "^  1\. build4: .*" "$TMP/rev.txt"
"$PASSMAP" history --sweeps build1 "$db" >/dev/null 2>"$TMP/one.err"
check "one sweep: usage (2), says why" bash -c "test $? -eq 2 && grep -q 'needs two sweeps or more' '$TMP/one.err'"
finish
