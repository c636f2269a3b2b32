#!/usr/bin/env bash
# passmap fix on a `command` study with a real compiler: clang-22 -O2 -g over two of passmap's own C files, built
# the way a debug CI might, with LLVM's machine-code verifier on (-mllvm -verify-machineinstrs). Two fixes are
# declared in the spec: noverify (drop the verifier: much less work, the same machine code) and o0 (-O2 -> -O0:
# less work, other code). The spec's [check] compares the .text sections. o0 must measure faster and be caught
# as "changes output" (never recommended); noverify must never be reported as changing output, and when it
# measures faster its check must say "same" (whether it is significant depends on the machine's load: a
# contended run may leave it undecided, which is accepted and stated). o0's rule names an axis (opt >= 1).
# Plus: the dry run runs nothing, the rerun resumes, the report shows the table, and the stored spec is read
# from its own folder.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
CLANG=$(command -v clang-22 || echo "$LLVM_BIN/clang")
OBJCOPY=$(command -v llvm-objcopy-22 || echo "$LLVM_BIN/llvm-objcopy")
if [ ! -x "$CLANG" ] || [ ! -x "$OBJCOPY" ]; then ok "# SKIP no clang or llvm-objcopy"; finish; exit; fi
json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
runs() { sqlite3 "$TMP/s.db" "SELECT count(*) FROM run JOIN config ON config.id = run.config_id
                              JOIN sweep ON sweep.id = config.sweep_id WHERE sweep.name = '$1'"; }

mkdir -p "$TMP/c/src" "$TMP/c/inc"
cp "$ROOT"/lib/study/compare.c "$ROOT"/lib/backend/spec.c "$TMP/c/src/"
cp "$ROOT"/lib/*/*.h "$ROOT"/lib/*/*/*.h "$TMP/c/inc/"
cat >"$TMP/c/s.ini" <<INI
[sweep]
name = s
backend = command
repeats = 1
timeout = 120s

[matrix c]
input = src/*.c
opt = 2

[step cc]
argv = $CLANG -std=c11 -D_GNU_SOURCE -I{spec_dir}/inc -O{opt} -g -mllvm -verify-machineinstrs -c {input}
  -o {out}/obj.o -ftime-trace
report = {out}/obj.json
tool = clang

[fix noverify]
step = cc
argv_drop = -mllvm -verify-machineinstrs
regime = *
why = the verifier checks the machine code, it does not change it

[fix o0]
argv_drop = -O{opt}
argv_add = -O0
size = opt >= 1 & wall >= 0.01
why = no optimisation at all (it changes the code: the check must say so)

[check]
argv = sh -c "$OBJCOPY -O binary --only-section=.text {stock_out}/obj.o {out}/stock.text &&
  $OBJCOPY -O binary --only-section=.text {out}/obj.o {out}/fix.text && cmp {out}/stock.text {out}/fix.text"
INI
check "the study" "$PASSMAP" sweep --quiet --db "$TMP/s.db" "$TMP/c/s.ini"

# From another folder: the stored spec is read from its own folder again (src/*.c, {spec_dir}).
cd "$TMP"
out=$("$PASSMAP" fix "$TMP/s.db" --dry-run 2>&1)
if echo "$out" | grep -q "noverify .*A/B against stock" && echo "$out" | grep -q "o0 .*A/B against stock"; then
  ok "--dry-run: both declared fixes are planned against stock"
else fail "--dry-run plan"; echo "$out" | sed 's/^/#   /'; fi
[ "$(runs s-fix)" = 0 ] && ok "--dry-run runs nothing" || fail "--dry-run ran $(runs s-fix) runs"

# a loaded machine's runs are contended: keep the verdicts (marked) so o0's "faster" does not depend on the load
"$PASSMAP" fix "$TMP/s.db" --max-repeats 5 --quiet --allow-contended --json >"$TMP/fix.json" 2>"$TMP/fix.err"
rc=$?
[ $rc = 0 ] && ok "passmap fix ran" || { fail "passmap fix rc=$rc"; tail -20 "$TMP/fix.err" | sed 's/^/#   /'; }
if json_check "$TMP/fix.json" '[r["verdict"] for r in d["results"] if r["name"] == "o0"] == ["changes output"]' &&
   json_check "$TMP/fix.json" '[r for r in d["results"] if r["name"] == "o0"][0]["output"].startswith("differs ([check] exits 1")'; then
  ok "o0 measured faster, then the spec's check caught that it changes the code"
else fail "o0 not caught"; python3 -m json.tool "$TMP/fix.json" | grep -E '"(name|verdict|output|ratio)"' | sed 's/^/#   /'; fi
if json_check "$TMP/fix.json" '[r for r in d["results"] if r["name"] == "o0"][0]["ratio"] < 0.9'; then
  ok "o0's measured ratio is below 0.9"
else fail "o0 ratio"; fi
nv=$(python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["results"] if r["name"]=="noverify"][0]
print(r["verdict"], r["ratio"], r["output"])' "$TMP/fix.json")
case "$nv" in
  "faster "*"same ([check] exits 0)") ok "noverify proven: faster, and the check says the machine code is the same ($nv)" ;;
  "no effect "*|"undecided "*|"not run "*) ok "noverify: no significant difference on this machine now ($nv)" ;;
  *) fail "noverify: $nv" ;;
esac
if json_check "$TMP/fix.json" 'any(p["pass"] == "RunPass: Verify generated machine code" and p.get("removed") and p["delta_s"] < 0
   for p in [r for r in d["results"] if r["name"] == "noverify"][0]["cheaper"])'; then
  ok "noverify's cheaper passes name the verifier it removed"
else fail "noverify cheaper: $(python3 -c 'import json,sys; print([r["cheaper"] for r in json.load(open(sys.argv[1]))["results"]])' "$TMP/fix.json")"; fi
if json_check "$TMP/fix.json" 'd["recommended"] is None or (d["recommended"]["variant"] == "noverify" and d["recommended"]["ship"])'; then
  ok "a fix that changes the output is never recommended"
else fail "recommendation: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recommended"])' "$TMP/fix.json")"; fi
n=$(sqlite3 "$TMP/s.db" "SELECT count(*) FROM config JOIN sweep ON sweep.id = config.sweep_id
                         WHERE sweep.name = 's-fix' AND key = 'c/input=compare.c/opt=2/o0' AND variant = 'o0'")
[ "$n" = 1 ] && ok "the A/B configs keep the study key with the variant as its last part" || fail "fix keys ($n)"
a=$(sqlite3 "$TMP/s.db" "SELECT s.argv FROM step s JOIN run r ON r.id = s.run_id JOIN config c ON c.id = r.config_id
                         WHERE c.key = 'c/input=spec.c/opt=2/o0' LIMIT 1")
case "$a" in *" -g -mllvm -verify-machineinstrs -c "*" -ftime-trace -O0") ok "the fix's argv change ran: $a" ;;
  *) fail "o0 argv: $a" ;; esac

out=$("$PASSMAP" report "$TMP/s.db" --sweep s 2>&1)
if echo "$out" | head -1 | grep -q "^proven fixes" && echo "$out" | grep -q "o0 .*changes output"; then
  ok "the report opens with the proven fix table, o0 marked as changing output"
else fail "report head"; echo "$out" | head -8 | sed 's/^/#   /'; fi

before=$(runs s-fix)
"$PASSMAP" fix "$TMP/s.db" --max-repeats 5 --quiet --allow-contended >/dev/null 2>&1
[ "${before:-0}" -gt 0 ] && [ "$(runs s-fix)" = "$before" ] && ok "rerun resumes: no run repeated ($before runs)" || fail "rerun: $before -> $(runs s-fix)"
finish
