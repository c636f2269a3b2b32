#!/usr/bin/env bash
# e2e: passmap history along the axis that picks the LLVM build (studies/llvm-versions.ini's shape, on a small
# cut): one function of studies/llvm-versions.c made into LLVM 14 IR, llc-N -O2 of each LLVM installed among 14,
# 16, 19, 22, 3 repeats, the valgrind meter (its counts decide, and do not move with the machine's load). The
# change points history marks must be compare's verdicts pair by pair (`compare DB DB --a llvm=A --b llvm=B`),
# the text, JSON and HTML must agree, and each point must name its own llc.
source "$(dirname "$0")/lib.sh"
vers=""
for v in 14 16 19 22; do command -v "llc-$v" >/dev/null && vers="$vers${vers:+,}$v"; done
if ! command -v valgrind >/dev/null || ! command -v clang-14 >/dev/null || [ "$(echo "$vers" | tr ',' '\n' | wc -l)" -lt 3 ]; then
  ok "# SKIP needs valgrind, clang-14 and three of llc-14, -16, -19, -22 (have: ${vers:-none})"
  finish; exit 0
fi
awk '/^struct s1 /{exit} {print}' "$ROOT/studies/llvm-versions.c" >"$TMP/cut.c"
clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm "$TMP/cut.c" -o "$TMP/cut.ll" || fail "clang-14"
printf '[sweep]\nname = lv\nbackend = command\nrepeats = 3\nmeter = valgrind\ntimeout = 600s\n[matrix v]\ninput = cut.ll\nllvm = %s\n[step llc]\nargv = llc-{llvm} -O2 {input} -o {out}/o.s -time-passes\n' \
  "$(echo "$vers" | sed 's/,/, /g')" >"$TMP/lv.ini"
check "sweep of $vers under valgrind" "$PASSMAP" sweep --quiet --db "$TMP/lv.db" "$TMP/lv.ini"
"$PASSMAP" history "$TMP/lv.db" --axis "llvm=$vers" --html "$TMP/lv.html" >"$TMP/lv.txt"
check "history --axis: exit 0" test $? -eq 0
sed 's/^/#   /' "$TMP/lv.txt"
n=$(echo "$vers" | tr ',' '\n' | wc -l)
check "text: $n values of llvm, one config" grep -q "^history: .*lv.db, $n values of llvm, 1 configs, " "$TMP/lv.txt"
check "text: each point names its own llc" bash -c "for v in ${vers//,/ }; do grep -Eq \"^  [0-9]+\\. llvm=\$v: llc .*LLVM version \$v\\.\" '$TMP/lv.txt' || exit 1; done"
"$PASSMAP" history "$TMP/lv.db" --axis "llvm=$vers" --json >"$TMP/lv.json"
prev=""
for v in ${vers//,/ }; do
  if [ -n "$prev" ]; then
    "$PASSMAP" compare --json "$TMP/lv.db" "$TMP/lv.db" --a "llvm=$prev" --b "llvm=$v" >"$TMP/c.json" 2>/dev/null
    check "change points agree with compare llvm=$prev -> llvm=$v" python3 - "$TMP/lv.json" "$TMP/c.json" "llvm=$v" <<'PY'
import json, sys
h, c, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
i = [s["name"] for s in h["sweeps"]].index(b)
rows = {(r["kind"], r["name"]): r["points"][i] for r in h["configs"][0]["rows"]}
cc = c["configs"][0]
d = c["summary"]["decided_on"]
decider = cc["metric"] if d != "wall" else cc["wall"]
assert d.startswith("instructions"), d
compile_row = [v for (k, n), v in rows.items() if k == "compile"]
assert len(compile_row) == 1
def mark(v): return v if v in ("slower", "faster") else "none"
assert (compile_row[0]["change"] or "none") == mark(decider["verdict"]), (compile_row[0], decider["verdict"])
for s in cc["steps"]:
    assert (rows[("step", s["tool"])]["change"] or "none") == mark(s["verdict"]), s
PY
  fi
  prev=$v
done
check "html: one chart, a marker per change point of the JSON" python3 - "$TMP/lv.json" "$TMP/lv.html" <<'PY'
import json, sys
h, page = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
marks = sum(1 for c in h["configs"] for r in c["rows"] for p in r["points"] if p["change"] in ("slower", "faster"))
assert page.count("<svg") == 1, page.count("<svg")
assert page.count('<circle class="slower"') + page.count('<circle class="faster"') == marks == h["changes"], marks
PY
check_fails "--axis with one value: usage" "$PASSMAP" history "$TMP/lv.db" --axis llvm=14
check_fails "--axis without values: usage" "$PASSMAP" history "$TMP/lv.db" --axis llvm
finish
