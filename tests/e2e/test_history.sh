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
# sweep --label: recorded with the sweep, shown by history (text, JSON, HTML); a resume without it keeps it
printf 'define i32 @f(i32 %%a) {\n  %%b = mul i32 %%a, %%a\n  ret i32 %%b\n}\n' >"$TMP/in.ll"
printf '[sweep]\nname = lab\nbackend = command\nrepeats = 3\n[matrix m]\ninput = in.ll\n[step llc]\nargv = %s -O2 -time-passes {input} -o {out}/out.s\n' \
  "$LLVM_BIN/llc" >"$TMP/lab.ini"
check "sweep --label" "$PASSMAP" sweep --quiet --db "$TMP/lab.db" --name r1 --label "2026-12-01 a1b2c3d" "$TMP/lab.ini"
check "sweep --label, another sweep" "$PASSMAP" sweep --quiet --db "$TMP/lab.db" --name r2 --label "2026-12-02 <e4f5>" "$TMP/lab.ini"
check "a resume without --label" "$PASSMAP" sweep --quiet --db "$TMP/lab.db" --name r2 "$TMP/lab.ini"
"$PASSMAP" history "$TMP/lab.db" --html "$TMP/lab.html" >"$TMP/lab.txt"
check "history: each sweep with its label" bash -c "grep -q '^  1\. r1 (2026-12-01 a1b2c3d): llc ' '$TMP/lab.txt' && grep -q '^  2\. r2 (2026-12-02 <e4f5>): llc ' '$TMP/lab.txt'"
check "history --json: the labels" bash -c "'$PASSMAP' history --json '$TMP/lab.db' | python3 -c 'import json,sys; assert [s[\"label\"] for s in json.load(sys.stdin)[\"sweeps\"]] == [\"2026-12-01 a1b2c3d\", \"2026-12-02 <e4f5>\"]'"
check "history --html: the label, escaped" grep -q '(2026-12-02 &lt;e4f5&gt;)' "$TMP/lab.html"
check_fails "sweep --label '': usage" "$PASSMAP" sweep --quiet --db "$TMP/lab.db" --name r3 --label "" "$TMP/lab.ini"
"$PASSMAP" history --sweeps build1 "$db" >/dev/null 2>"$TMP/one.err"
check "one sweep: usage (2), says why" bash -c "test $? -eq 2 && grep -q 'needs two sweeps or more' '$TMP/one.err'"
finish
