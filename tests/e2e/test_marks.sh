#!/usr/bin/env bash
# Every mark verifiable from its row (issue 37): a real sweep (int8 and fp16 of one model, 3 cold repeats, so
# every row is tested), then every mark that compare and the report print, text and JSON, and the summary line
# both open with, is recomputed from the numbers in its own row by the documented rule (tests/e2e/check_marks.py:
# the interval against the 2% threshold, to the printed precision; the ratio from the printed means of the
# metric that decided). The machine is shared, so its runs may be contended: --allow-contended shows the marks.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
chk=$ROOT/tests/e2e/check_marks.py
cat > "$TMP/m.ini" <<'INI'
[sweep]
name = marks
repeats = 3
timeout = 120s
mem_limit = 8G
[embedded]
tile = 256
[llm m]
models = qwen2:0.5b
windows = 32, 64
precisions = int8, fp16
layers = 1
INI
check "sweep: 2 configs x 2 precisions x 3 repeats" "$PASSMAP" sweep --quiet --db "$TMP/m.db" "$TMP/m.ini"
pair=(--a precision=int8 --b precision=fp16)

"$PASSMAP" compare --allow-contended --all-passes "$TMP/m.db" "${pair[@]}" > "$TMP/c.txt" 2>"$TMP/c.err"
check "compare text: every mark is the rule's on its printed interval, every B/A its printed means'" \
  python3 "$chk" compare-text "$TMP/c.txt"
"$PASSMAP" compare --allow-contended --all-passes --json "$TMP/m.db" "${pair[@]}" > "$TMP/c.json"
check "compare JSON: every verdict is the rule's on its interval" python3 "$chk" compare-json "$TMP/c.json"
head -1 "$TMP/c.txt" > "$TMP/sum.txt"
grep -Eq '^fp16 vs int8: .* on (wall|cpu time \(user\+sys\)|instructions \(user space\))(,|:| \().*, [0-9] of 2 configs decided$' "$TMP/sum.txt" \
  && ok "compare opens with the summary line: $(cat "$TMP/sum.txt")" || fail "compare's first line: $(cat "$TMP/sum.txt")"
decided=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["decided_on"])' "$TMP/c.json")
grep -qF " on $decided" "$TMP/sum.txt" && ok "the summary names the metric that decided ($decided)" \
  || fail "summary line without '$decided'"
# the summary's word, where it has an interval, is the rule's on it (a faster B printed as A/B, turned back)
if grep -q '\[' "$TMP/sum.txt"; then check "summary line: its word is the rule's" python3 "$chk" summary "$TMP/sum.txt"
else ok "summary line without an interval (fewer than 3 configs decided): nothing to recompute"; fi

COLUMNS=400 "$PASSMAP" report --allow-contended "$TMP/m.db" > "$TMP/r.txt" 2>"$TMP/r.err"
check "report text: every A/B mark and B/A (and wall B/A) recomputed from its row" python3 "$chk" report-text "$TMP/r.txt"
sed -n '/^headline$/,/^$/p' "$TMP/r.txt" | sed -n 2p | sed 's/^  //' > "$TMP/rsum.txt"
cmp -s "$TMP/rsum.txt" "$TMP/sum.txt" && ok "the headline opens with compare's summary line" \
  || fail "headline's first line '$(cat "$TMP/rsum.txt")' is not compare's '$(cat "$TMP/sum.txt")'"
"$PASSMAP" report --allow-contended --json "$TMP/m.db" > "$TMP/r.json"
check "report JSON: each A/B row's deciding statistics give its verdict" python3 "$chk" report-json "$TMP/r.json"
python3 - "$TMP/r.json" "$TMP/c.json" <<'PY' && ok "report JSON: the A/B rows carry compare's deciding metric and line" \
  || fail "report JSON A/B rows"
import json, sys
r, c = (json.load(open(f)) for f in sys.argv[1:3])
ab = r["ab"]["comparisons"][0]
assert ab["line"] and ab["line"].startswith("fp16 vs int8: "), ab.get("line")
want = {x["key"]: x.get("metric", x["wall"]) for x in c["configs"]}
for x in ab["configs"]:
    assert x["decided_on"] == c["summary"]["decided_on"]
    for k in ("ratio", "ci_lo", "ci_hi", "verdict"):
        a, b = x["decided"][k], want[x["key"]][k]
        assert a == b if isinstance(a, str) or a is None else abs(a - b) <= 1e-4 * abs(b), (k, a, b)
PY

# the checker can fail: a mark the interval does not carry, a ratio its means do not give
python3 - "$TMP/r.txt" "$TMP/bad.txt" <<'PY'   # the first A/B row's mark turned into one its interval denies
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for i, l in enumerate(lines):
    m = re.match(r"^(llm/\S+ +[0-9.]+× +)(.+?)(  +\[)", l)
    if m:
        wrong = "faster" if m.group(2).startswith("slower") else "slower"
        lines[i] = m.group(1) + wrong + " " * max(2, len(m.group(2)) - len(wrong) + 2) + l[m.end(2):].lstrip()
        break
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(lines))
PY
if python3 "$chk" report-text "$TMP/bad.txt" >/dev/null; then fail "the checker passed a wrong mark"; else ok "the checker fails a wrong mark"; fi
sed -E '0,/^(llm\/[^ ]+ +)[0-9.]+×/s//\19.99×/' "$TMP/r.txt" > "$TMP/bad2.txt"
if python3 "$chk" report-text "$TMP/bad2.txt" >/dev/null; then fail "the checker passed a wrong B/A"; else ok "the checker fails a B/A its means do not give"; fi
finish
