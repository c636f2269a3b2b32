#!/usr/bin/env bash
# A matched pass is the same pass (issue 33, item 5), on real llc-14, llc-16 and llc-22 -time-passes output
# (tests/fixtures/llvm/greedy/README.md): LLVM 14's one `Greedy Register Allocator` (the general allocator) pairs
# with LLVM 16+'s `Greedy Register Allocator #2`, not with the AMX tile allocator that took its name, so the row's
# ratio is about 1, never 0.02x; the AMX allocator reads "added". Where the instances' times cannot tell which is
# which, the pairs are "ambiguous match": shown, never tested. llc's ReachingDefAnalysis (a legacy pass) is counted
# and matches LLVM 22's "Reaching Definitions Analysis" through the alias table.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
FIX=$ROOT/tests/fixtures/llvm/greedy
mkdir -p "$TMP/s"
cp "$FIX"/llc14-time-passes.txt "$FIX"/llc16-time-passes.txt "$FIX"/llc22-time-passes.txt "$TMP/s/"
# "llc-99": LLVM 16's report with the AMX allocator as slow as the general one: no instance order fits alone
awk '$NF == "Allocator" && $(NF-1) == "Register" && $(NF-2) == "Greedy" { sub(/0\.0013 \(  0\.1%\)  Greedy/, "0.0174 (  0.1%)  Greedy") } { print }' \
  "$FIX/llc16-time-passes.txt" > "$TMP/s/llc99-time-passes.txt"
grep -q '0.0174 (  0.1%)  Greedy Register Allocator$' "$TMP/s/llc99-time-passes.txt" || fail "the doctored llc-99 report"
# "llc-98": the AMX allocator's time noisy, within 8x of LLVM 14's general one (0.0080 against 0.0545 s) while
# 16's #2 is closer (0.0174): two offsets fit, the closer pairs (a busy machine's tiny timers did this in CI)
awk '$NF == "Allocator" && $(NF-1) == "Register" && $(NF-2) == "Greedy" { sub(/0\.0013 \(  0\.1%\)  Greedy/, "0.0080 (  0.1%)  Greedy") } { print }' \
  "$FIX/llc16-time-passes.txt" > "$TMP/s/llc98-time-passes.txt"
grep -q '0.0080 (  0.1%)  Greedy Register Allocator$' "$TMP/s/llc98-time-passes.txt" || fail "the doctored llc-98 report"
cat > "$TMP/s/g.ini" <<'INI'
[sweep]
name = greedy
backend = command
repeats = 3

[matrix m]
llvm = 14, 16, 22, 99, 98

[step llc]
argv = cat {spec_dir}/llc{llvm}-time-passes.txt
report = stdout
tool = llc
INI
db=$TMP/g.db
check "sweep of the captured llc reports" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/g.ini"

# rows PAIR: compare --json of llvm=A against llvm=B, every pass row
rows() { "$PASSMAP" compare "$db" --a "llvm=$1" --b "llvm=$2" --all-passes --allow-contended --json >"$TMP/c$1-$2.json" 2>"$TMP/c.err" \
           || { fail "compare $1 -> $2: $(cat "$TMP/c.err")"; return 1; }; }
for b in 16 22 98; do
  rows 14 $b || continue
  python3 - "$TMP/c14-$b.json" <<'PY' && ok "llc 14 -> $b: the general allocator is one matched pass (ratio ~1), the AMX one added" \
    || fail "llc 14 -> $b: greedy matched wrong"
import json, sys
rows = json.load(open(sys.argv[1]))["configs"][0]["passes"]
g = {(r["pass"], r["presence"]): r for r in rows if r["pass"].startswith("Greedy Register Allocator")}
both = g[("Greedy Register Allocator #2", "both")]
assert both["printed_as"] == "Greedy Register Allocator", both
assert 1 / 8 < both["ratio"] < 8 and both["verdict"] != "ambiguous match (not tested)", both["ratio"]
assert ("Greedy Register Allocator", "added") in g and ("Greedy Register Allocator", "both") not in g, sorted(g)
print("# 14 -> B: ratio %.3f, %s" % (both["ratio"], both["verdict"]), file=sys.stderr)
PY
done
rows 16 22 && python3 - "$TMP/c16-22.json" <<'PY' && ok "llc 16 -> 22: the same instances match by name" || fail "llc 16 -> 22"
import json, sys
rows = json.load(open(sys.argv[1]))["configs"][0]["passes"]
g = {r["pass"]: r for r in rows if r["pass"].startswith("Greedy Register Allocator")}
assert set(g) == {"Greedy Register Allocator", "Greedy Register Allocator #2"}, sorted(g)
assert all(r["presence"] == "both" and "printed_as" not in r for r in g.values()), g
PY
rows 14 99 && python3 - "$TMP/c14-99.json" <<'PY' && ok "instances of like times: an ambiguous match, shown with its ratio, not tested" \
  || fail "ambiguous match"
import json, sys
rows = json.load(open(sys.argv[1]))["configs"][0]["passes"]
amb = {r["pass"]: r for r in rows if r["verdict"] == "ambiguous match (not tested)"}
g = amb["Greedy Register Allocator"]
assert g["presence"] == "both" and g["p"] is None and g["ratio"] > 0 and g["rule_verdict"] == g["verdict"], g
assert all(r["p"] is None for r in amb.values()), amb
# other instance groups whose numbering shifted between the builds and whose times cannot tell are ambiguous too
print("# ambiguous:", sorted(amb)[:6], file=sys.stderr)
PY
# the text table says it too
"$PASSMAP" compare "$db" --a llvm=14 --b llvm=99 --all-passes --allow-contended >"$TMP/c.txt" 2>&1
grep -q "Greedy Register Allocator .*ambiguous match" "$TMP/c.txt" && ok "compare's table marks the ambiguous match" \
  || fail "text: $(grep Greedy "$TMP/c.txt")"

# ReachingDefAnalysis: a legacy llc pass, counted, matched with LLVM 22's new name
python3 - "$TMP/c14-22.json" <<'PY' && ok "ReachingDefAnalysis counted and matched with Reaching Definitions Analysis" \
  || fail "ReachingDefAnalysis"
import json, sys
rows = json.load(open(sys.argv[1]))["configs"][0]["passes"]
r = [r for r in rows if r["pass"] == "Reaching Definitions Analysis"]
assert len(r) == 1 and r[0]["presence"] == "both" and r[0]["printed_as"] == "ReachingDefAnalysis", r
PY
"$PASSMAP" parse --json "$FIX/llc14-time-passes.txt" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [p for p in d["passes"] if p["name"] == "ReachingDefAnalysis"]
assert r and r[0]["counted"], r' && ok "parse: llc-14 ReachingDefAnalysis is counted" || fail "parse: ReachingDefAnalysis not counted"
finish
