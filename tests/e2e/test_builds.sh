#!/usr/bin/env bash
# Compiler builds as an axis (issue 19, item 8), on the real llc-14 and llc-22: a spec axis picks the build
# (`argv = llc-{llvm} ...`); the report's "between builds" section compares the builds pass by pass with compare's
# rule (text, HTML, JSON), a pass LLVM renamed matched through data/pass-aliases.tsv, the passes one build ran
# alone listed; shards of the study merge (each records only the builds it ran) while a shard whose `llc-14` is
# another binary is refused.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
q() { sqlite3 "$1" "$2"; }
for t in llc-14 llc-22 clang-14; do
  command -v $t >/dev/null || { echo "# $t is needed (make deps)"; fail "$t installed"; finish; exit; }
done
LLC14=$(command -v llc-14); LLC22=$(command -v llc-22); LLC16=$(command -v llc-16 || command -v llc-19 || true)
mkdir -p "$TMP/s" "$TMP/both" "$TMP/only14" "$TMP/only22" "$TMP/other14"
ln -s "$LLC14" "$TMP/both/llc-14"; ln -s "$LLC22" "$TMP/both/llc-22"
ln -s "$LLC14" "$TMP/only14/llc-14"; ln -s "$LLC22" "$TMP/only22/llc-22"

# a real C workload (60 functions with loops, branches and a switch) as LLVM 14 IR, which every later LLVM reads
gen_c 60 "$TMP/s/w.c"
clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm "$TMP/s/w.c" -o "$TMP/s/w.ll" || { fail "clang-14 -emit-llvm"; finish; exit; }
cat > "$TMP/s/b.ini" <<'INI'
[sweep]
name = builds
backend = command
repeats = 3

[matrix m]
input = w.ll
llvm = 14, 22

[step llc]
argv = llc-{llvm} -O2 {input} -o {out}/w.s -time-passes
INI
db=$TMP/b.db
check "sweep of a builds axis (llc-14, llc-22)" env PATH="$TMP/both:$PATH" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/b.ini"
[ "$(q "$db" "select group_concat(invoked, ',') from (select invoked from tool order by invoked)")" = "llc-14,llc-22" ] \
  && ok "one tool row per build, named by the program word" || fail "tool rows: $(q "$db" "select name, invoked, path from tool")"
check "resume of the builds study: not refused as another build" env PATH="$TMP/both:$PATH" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/b.ini"

# --- the report: between builds, in text, JSON and HTML ---
"$PASSMAP" report "$db" --allow-contended >"$TMP/r.txt" 2>&1
grep -q "^between builds" "$TMP/r.txt" && grep -q "Axis llvm picks the compiler build.* llvm=14 (llc-14), llvm=22 (llc-22)" "$TMP/r.txt" \
  && ok "text report: a between-builds section naming the builds" || fail "text report: $(grep -A3 -i between "$TMP/r.txt")"
grep -q "^  llvm=14 -> 22: compile .*passes in both builds: [0-9]* tested" "$TMP/r.txt" && grep -q "the stage that moved most: " "$TMP/r.txt" \
  && ok "text report: the pair's line with its tested passes and the stage that moved most" || fail "pair line: $(grep "llvm=14 -> 22" "$TMP/r.txt")"
grep -q "tool llc: 2 builds ran" "$TMP/r.txt" && fail "a builds axis is not 'more than one build of a tool'" \
  || ok "no mixed-builds warning for a builds axis"
"$PASSMAP" report "$db" --json --allow-contended >"$TMP/r.json" 2>"$TMP/r.err"
python3 - "$TMP/r.json" <<'PY' && ok "report --json: matched pass rows with compare's verdicts, an aliased pass, one-build-only passes" \
  || fail "report --json between_builds"
import json, sys
j = json.load(open(sys.argv[1]))
b = j["between_builds"]
assert b and b["axis"] == "llvm" and b["values"] == ["14", "22"] and b["programs"] == ["llc-14", "llc-22"], b and b["values"]
assert b["aliases"] > 0 and b["alias_error"] is None, b["alias_error"]
p = b["pairs"][0]
assert p["a"] == "14" and p["b"] == "22" and "error" not in p, p.get("error")
rows = p["compare"]["configs"][0]["passes"]
both = [r for r in rows if r["presence"] == "both"]
verdicts = {"faster", "slower", "same", "undecided", "below resolution", "no conclusion (contended)"}
# matched rows exist and carry compare's rule verdicts (not the family's "not tested")
assert any(r["pass"] == "X86 DAG->DAG Instruction Selection" for r in both), [r["pass"] for r in both][:20]
assert sum(r["verdict"] in verdicts for r in both) >= 3, [(r["pass"], r["verdict"]) for r in both][:10]
c = p["counts"]
assert c["tested"] >= 1 and c["tested"] + c["ambiguous"] == len(b["passes"]["rows"]), (c, len(b["passes"]["rows"]))
# a pass LLVM renamed between 14 and 22 matched as one row, saying what one build printed
ren = [r for r in both if r.get("printed_as")]
assert ren and p["counts"]["renamed"] == len(ren), rows
print("# renamed:", [(r["printed_as"], r["pass"]) for r in ren], file=sys.stderr)
# the real llc-14's greedy allocator is the same pass as llc-22's "#2" (22 runs the AMX tile allocator first
# under the plain name): one matched row, never 14's allocator against 22's tile allocator (issue 33)
g = [r for r in rows if r["pass"] == "Greedy Register Allocator #2" and r["presence"] == "both"]
assert g and g[0].get("printed_as") == "Greedy Register Allocator", [(r["pass"], r["presence"], r.get("printed_as"))
                                                                     for r in rows if "Greedy" in r["pass"]]
assert not [r for r in rows if r["pass"] == "Greedy Register Allocator" and r["presence"] == "both"]
# passes one build ran alone are listed
only = b["one_build_only"]["rows"]
assert p["counts"]["only_a"] + p["counts"]["only_b"] == len(only) and only, only
assert all(o["build"] in ("llvm=14", "llvm=22") for o in only), only
print("# one build only:", [(o["pass"], o["build"]) for o in only][:6], file=sys.stderr)
assert p["stage_moved_most"] and p["stage_moved_most"]["stage"], p["stage_moved_most"]
PY
"$PASSMAP" report "$db" --html "$TMP/r.html" --allow-contended >"$TMP/h.out" 2>&1
grep -q "<h2 id=builds>Between builds</h2>" "$TMP/r.html" && grep -q "Passes in one build only" "$TMP/r.html" \
  && grep -q 'href="#builds"' "$TMP/r.html" && ok "HTML report: the between-builds section, in the contents" \
  || fail "HTML report: no between-builds section"
# compare itself matches through the alias table too
"$PASSMAP" compare "$db" --a llvm=14 --b llvm=22 --all-passes --allow-contended >"$TMP/c.txt" 2>&1
grep -q '(printed as "' "$TMP/c.txt" && ok "compare --a llvm=14 --b llvm=22: a renamed pass matched, its printed name said" \
  || fail "compare: $(grep -i printed "$TMP/c.txt" | head -3)"

# without the alias table the renamed pass splits into a removed and an added row: the table is what matched it
mkdir -p "$TMP/noalias"; cp "$ROOT"/data/stages-*.tsv "$TMP/noalias/"
PASSMAP_DATA_DIR=$TMP/noalias "$PASSMAP" report "$db" --json --allow-contended >"$TMP/n.json" 2>"$TMP/n.err"
python3 - "$TMP/r.json" "$TMP/n.json" <<'PY' && ok "without data/pass-aliases.tsv: the renamed pass is two one-build rows, said" \
  || fail "no alias table"
import json, sys
a = json.load(open(sys.argv[1]))["between_builds"]; n = json.load(open(sys.argv[2]))["between_builds"]
import re
base = lambda n: re.sub(r" #[0-9]+$", "", n)   # a row paired with another instance keeps its base name
ren = [r for r in a["pairs"][0]["compare"]["configs"][0]["passes"] if r.get("printed_as") and base(r["printed_as"]) != base(r["pass"])][0]
assert "pass-aliases.tsv" in n["alias_error"], n["alias_error"]
names = {(r["pass"], r["presence"]) for r in n["pairs"][0]["compare"]["configs"][0]["passes"]}
assert (ren["printed_as"], "removed") in names and (ren["pass"], "added") in names, (ren, sorted(names)[:10])
PY

# --- shards: each records only the builds it ran; merge accepts them ---
check "shard 1/2 where both builds are installed" env PATH="$TMP/both:$PATH" "$PASSMAP" sweep --quiet --shard 1/2 --db "$TMP/a.db" "$TMP/s/b.ini"
s1=$(q "$TMP/a.db" "select substr(c.key, length(c.key) - 1) from config c")
if [ "$s1" = 22 ]; then rest=14; else rest=22; fi
# the other shard on a machine that has only its own build (PATH without /usr/bin: the other llc-N is missing)
check "shard 2/2 on a machine with only llc-$rest" env PATH="$TMP/only$rest:/nonexistent" "$PASSMAP" sweep --quiet --shard 2/2 --db "$TMP/b2.db" "$TMP/s/b.ini"
[ "$(q "$TMP/b2.db" "select group_concat(invoked) from tool")" = "llc-$rest" ] && ok "a shard records only the build it ran" \
  || fail "shard tools: $(q "$TMP/b2.db" "select invoked, hash from tool")"
# one shard at a time: the first is a partial merge (coverage is checked against the plan), the second completes it
check "merge shard 1 (partial)" "$PASSMAP" merge --partial "$TMP/m.db" "$TMP/a.db"
check "merge shard 2: a builds axis is not another build" "$PASSMAP" merge "$TMP/m.db" "$TMP/b2.db"
[ "$(q "$TMP/m.db" "select count(distinct config_id) || ':' || count(*) from run")" = "2:6" ] && ok "merged: 2 configs, 6 runs" \
  || fail "merged runs: $(q "$TMP/m.db" "select count(*) from run")"
"$PASSMAP" report "$TMP/m.db" --json --allow-contended >"$TMP/m.json" 2>"$TMP/m.err"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["between_builds"]; assert b and b["values"]==["14","22"] and "error" not in b["pairs"][0], b' \
  "$TMP/m.json" && ok "the merged study reports between builds" || fail "merged report: $(head -c 300 "$TMP/m.json")"

# --- a different binary under the same word for the same config: refused ---
if [ -n "$LLC16" ]; then
  ln -s "$LLC16" "$TMP/other14/llc-14"; ln -s "$LLC22" "$TMP/other14/llc-22"
  check "the study elsewhere, where llc-14 is another binary" env PATH="$TMP/other14:$PATH" "$PASSMAP" sweep --quiet --db "$TMP/o.db" "$TMP/s/b.ini"
  out=$("$PASSMAP" merge "$TMP/m2.db" "$db" 2>&1 && "$PASSMAP" merge "$TMP/m2.db" "$TMP/o.db" 2>&1); rc=$?
  [ "$rc" = 1 ] && echo "$out" | grep -q "refused: sweep 'builds' ran another build of llc-14" \
    && ok "merge refuses another binary named llc-14" || fail "merge of another llc-14 (rc=$rc): $out"
  out=$("$PASSMAP" merge --force "$TMP/m2.db" "$TMP/o.db" 2>&1); rc=$?
  [ "$rc" = 1 ] && echo "$out" | grep -q "config m/input=w.ll/llvm=14: other steps than in .*not even with --force" \
    && ok "--force still never mixes the config's two measurements" || fail "merge --force (rc=$rc): $out"
else
  fail "llc-16 or llc-19 installed (a second binary to name llc-14)"
fi
finish
