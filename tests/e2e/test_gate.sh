#!/usr/bin/env bash
# e2e: passmap gate and passmap baseline (docs/regressions.md). Stores are made of LLVM -time-passes reports
# imported as runs (passmap import), so every case is exact: the same build 20 times (0 of 20 fail), a 5%
# regression of one config (20 of 20 fail), an undecidable case, configs on one side only, wins, each exit status
# checked, the JUnit XML validated against tests/schemas/junit.xsd, and a baseline file round-tripped.
source "$(dirname "$0")/lib.sh"

json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

source "$ROOT/tests/support/timing-stores.sh"   # report, store: exact stores of imported reports

check "baseline store" store "$TMP/base.db" 1 5 0.01 1 1 1

# The same build measured 20 times (another jitter each time): the gate never fails.
fails=0 other=0
for seed in $(seq 2 21); do
  store "$TMP/same$seed.db" "$seed" 5 0.01 1 1 1
  "$PASSMAP" gate "$TMP/base.db" "$TMP/same$seed.db" >"$TMP/same.out" 2>&1
  case $? in 0) ;; 1) fails=$((fails + 1)); sed 's/^/#   /' "$TMP/same.out" | head -30 ;; *) other=$((other + 1)) ;; esac
done
check "same build, 20 sweeps: 0 exit 1 (got $fails), none unreadable" test "$fails" -eq 0 -a "$other" -eq 0
# One config's input 5% larger (all its times x 1.05): exit 1 in 20 of 20, naming that config and its passes.
fails=0
for seed in $(seq 2 21); do
  store "$TMP/reg$seed.db" "$seed" 5 0.01 1 1.05 1
  "$PASSMAP" gate "$TMP/base.db" "$TMP/reg$seed.db" >"$TMP/reg.out" 2>&1 && { sed 's/^/#   /' "$TMP/reg.out" | head -30; continue; }
  [ $? -eq 1 ] && grep -Eq "^REGRESSION +cfgB +compile wall" "$TMP/reg.out" && ! grep -Eq "REGRESSION +cfg[AC]" "$TMP/reg.out" &&
    fails=$((fails + 1))
done
check "5% regression of cfgB: exit 1 in 20 of 20 (got $fails), only cfgB named" test "$fails" -eq 20
"$PASSMAP" gate "$TMP/base.db" "$TMP/reg2.db" >"$TMP/reg.txt"
check "exit 1 for the regression" test $? -eq 1
check "text: the outcome line" grep -q "^gate: fail (exit 1): 6 regressions, 0 wins" "$TMP/reg.txt"
check "text: the slowest pass named" grep -Eq "^REGRESSION +cfgB +pass llc: SelectionDAGISel +1\.0[45][0-9]× " "$TMP/reg.txt"
check "text: the builds of both sides are named" grep -q "^sweep builds: " "$TMP/reg.txt"

# Annotations: one line per regressed config/pass, GitHub's workflow-command shape, no file or line.
"$PASSMAP" gate --annotations github "$TMP/base.db" "$TMP/reg2.db" >"$TMP/annot.txt"
check "annotations: exit 1" test $? -eq 1
check "annotations: 6 ::error:: lines (compile wall, step, 4 passes)" test "$(grep -c '^::error title=passmap gate::compile time regression: cfgB: ' "$TMP/annot.txt")" -eq 6
check "annotations: no file= or line=" bash -c "! grep -q '^::error .*\(file\|line\)=' '$TMP/annot.txt'"
check "annotations: a % is escaped for GitHub" bash -c "! grep '^::' '$TMP/annot.txt' | grep -q '%[^0-9A-F]'"
check_fails "annotations: an unknown style is a usage error" "$PASSMAP" gate --annotations jenkins "$TMP/base.db" "$TMP/reg2.db"

# JSON and JUnit
"$PASSMAP" gate --json --junit "$TMP/reg.xml" "$TMP/base.db" "$TMP/reg2.db" >"$TMP/reg.json"
check "json: exit 1" test $? -eq 1
check "json: outcome, status, findings" json_check "$TMP/reg.json" \
  'd["outcome"] == "fail" and d["exit_status"] == 1 and d["regressions"] == 6 and all(f["config"] == "cfgB" and f["fails"] for f in d["findings"]) and d["comparison"]["summary"]["slower"] == 1'
check "junit: valid against tests/schemas/junit.xsd" xmllint --noout --schema "$ROOT/tests/schemas/junit.xsd" "$TMP/reg.xml"
sed 's/<testcase classname="passmap.gate" name="cfgA">/<testcase classname="passmap.gate">/' "$TMP/reg.xml" >"$TMP/bad.xml"
check_fails "junit: the schema refuses a testcase without a name" xmllint --noout --schema "$ROOT/tests/schemas/junit.xsd" "$TMP/bad.xml"
check "junit: 3 tests, 1 failure on cfgB" python3 - "$TMP/reg.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
assert s.get("tests") == "3" and s.get("failures") == "1", s.attrib
cases = {c.get("name"): c for c in s.iter("testcase")}
assert sorted(cases) == ["cfgA", "cfgB", "cfgC"]
assert cases["cfgB"].find("failure") is not None and cases["cfgA"].find("failure") is None
assert "SelectionDAGISel" in cases["cfgB"].find("failure").text
PY

# The same build: exit 0, JUnit valid with no failure.
"$PASSMAP" gate --junit "$TMP/same.xml" "$TMP/base.db" "$TMP/same2.db" >"$TMP/same.txt"
check "same build: exit 0" test $? -eq 0
check "same build: junit valid" xmllint --noout --schema "$ROOT/tests/schemas/junit.xsd" "$TMP/same.xml"
check "same build: junit without failures" grep -q '<testsuites name="passmap gate" tests="3" failures="0"' "$TMP/same.xml"

# Undecidable: 3 runs a side, a 2.5% difference inside +-4% jitter: the interval straddles the threshold -> 3.
store "$TMP/u_base.db" 31 3 0.04 1 1 1
store "$TMP/u_new.db" 32 3 0.04 1.025 1.025 1.025
"$PASSMAP" gate --junit "$TMP/u.xml" "$TMP/u_base.db" "$TMP/u_new.db" >"$TMP/u.txt"
check "undecidable: exit 3" test $? -eq 3
check "undecidable: says undecided" grep -Eq "^unsettled +cfg[ABC] .*undecided: " "$TMP/u.txt"
check "undecidable: junit valid, skipped" bash -c "xmllint --noout --schema '$ROOT/tests/schemas/junit.xsd' '$TMP/u.xml' && grep -q '<skipped message=\"undecided' '$TMP/u.xml'"
# n = 2: no test, no claim -> 3
store "$TMP/n2.db" 33 2 0.01 1 1 1
"$PASSMAP" gate "$TMP/base.db" "$TMP/n2.db" >"$TMP/n2.txt"
check "n=2: exit 3" test $? -eq 3
check "n=2: says why" grep -q "no test: n=5 in the baseline, n=2 in the sweep" "$TMP/n2.txt"
# A config missing from the sweep, and one the baseline lacks: 3 each
store "$TMP/miss.db" 34 5 0.01 1 1 -
"$PASSMAP" gate "$TMP/base.db" "$TMP/miss.db" >"$TMP/miss.txt"
check "config missing from the sweep: exit 3" test $? -eq 3
check "missing: named" grep -Eq "^unsettled +cfgC .*in the baseline, missing from the sweep" "$TMP/miss.txt"
"$PASSMAP" gate "$TMP/miss.db" "$TMP/base.db" >"$TMP/new.txt"
check "config without a baseline: exit 3" test $? -eq 3
# A regression wins over an inconclusive config: 1
store "$TMP/regmiss.db" 35 5 0.01 1 1.05 -
"$PASSMAP" gate "$TMP/base.db" "$TMP/regmiss.db" >/dev/null
check "regression and a missing config: exit 1" test $? -eq 1

# Wins: reported, exit 0; --fail-on-win makes them fail.
store "$TMP/win.db" 36 5 0.01 1 0.95 1
"$PASSMAP" gate "$TMP/base.db" "$TMP/win.db" >"$TMP/win.txt"
check "a 5% win: exit 0" test $? -eq 0
check "a 5% win: reported" grep -Eq "^win +cfgB +compile wall +0\.9[45][0-9]× " "$TMP/win.txt"
"$PASSMAP" gate --fail-on-win --annotations plain "$TMP/base.db" "$TMP/win.db" >"$TMP/winf.txt"
check "--fail-on-win: exit 1" test $? -eq 1
check "--fail-on-win: error lines for the win" grep -q "^error: compile time win: cfgB: compile wall: faster" "$TMP/winf.txt"

# Errors and usage: distinct statuses
"$PASSMAP" gate "$TMP/base.db" "$TMP/nonexistent.db" >/dev/null 2>"$TMP/err.txt"
check "unreadable sweep: exit 4" test $? -eq 4
check "unreadable sweep: one line naming the file" bash -c "test \$(wc -l <'$TMP/err.txt') -eq 1 && grep -q nonexistent.db '$TMP/err.txt'"
"$PASSMAP" gate "$TMP/base.db" >/dev/null 2>&1
check "one operand: usage (2)" test $? -eq 2
"$PASSMAP" gate --json --annotations github "$TMP/base.db" "$TMP/base.db" >/dev/null 2>&1
check "--json with --annotations: usage (2)" test $? -eq 2

# The baseline file: written, read back by the gate as the store it came from.
"$PASSMAP" baseline "$TMP/base.db" -o "$TMP/base.tsv" 2>"$TMP/bl.err"
check "baseline: exit 0" test $? -eq 0
check "baseline: says what it wrote" grep -q "sweep demo, 3 configs, 24 series, decided on wall, meter wall" "$TMP/bl.err"
check "baseline: header and one config line per config" bash -c "grep -q '^passmap-baseline	1$' '$TMP/base.tsv' && test \$(grep -c '^config	' '$TMP/base.tsv') -eq 3"
check "baseline: meter and deciding metric" bash -c "grep -q '^meter	wall$' '$TMP/base.tsv' && grep -q '^decides	wall$' '$TMP/base.tsv'"
check "baseline: a pass series with its tick, n, samples" grep -Eq "^series	cfgB	pass	llc	SelectionDAGISel	wall	s	llvm-text	0.0001	1	5	[0-9.]+	[0-9.]+	([0-9.]+,){4}[0-9.]+$" "$TMP/base.tsv"
"$PASSMAP" baseline "$TMP/base.db" -o "$TMP/base2.tsv" 2>/dev/null
check "baseline: stable (written twice, the same bytes)" cmp "$TMP/base.tsv" "$TMP/base2.tsv"
"$PASSMAP" gate --json "$TMP/base.tsv" "$TMP/reg2.db" >"$TMP/f_reg.json"
check "baseline file, regression: exit 1" test $? -eq 1
"$PASSMAP" gate --json "$TMP/base.db" "$TMP/reg2.db" >"$TMP/s_reg.json"
check "baseline file: the same numbers as its store" python3 - "$TMP/f_reg.json" "$TMP/s_reg.json" <<'PY'
import json, sys
f, s = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((x["config"], x["tool"] or "", x["pass"] or "", round(x["ratio"], 9), round(x["ci_lo"], 9)) for x in d["findings"])
assert key(f) == key(s), (key(f), key(s))
assert f["baseline"]["file"] and f["baseline"]["meter"] == "wall" and not s["baseline"]["file"]
PY
for seed in 2 3 4; do
  "$PASSMAP" gate "$TMP/base.tsv" "$TMP/same$seed.db" >/dev/null
  check "baseline file, same build (seed $seed): exit 0" test $? -eq 0
done
"$PASSMAP" gate "$TMP/base.tsv" "$TMP/miss.db" >/dev/null
check "baseline file, missing config: exit 3" test $? -eq 3
# A damaged file: exit 4, one line naming the file and line
sed 's/^series	cfgB	run	-	-	wall	\(.*\),[0-9.]*$/series	cfgB	run	-	-	wall	\1/' "$TMP/base.tsv" >"$TMP/bad.tsv"
"$PASSMAP" gate "$TMP/bad.tsv" "$TMP/same2.db" >/dev/null 2>"$TMP/bad.err"
check "damaged baseline: exit 4" test $? -eq 4
check "damaged baseline: names the file and line" grep -Eq "bad.tsv:[0-9]+: the samples are not one number" "$TMP/bad.err"
# Real compiles: two LLVM builds behind one program word ({spec_dir}/bin/llc), so the steps are the same and only
# the build differs: the gate compares them as one config and names both builds; other steps (-O1 for -O2)
# are not the same config (merge's rule, less the build), whatever the times: 3.
# input.ll: IR every LLVM from 14 on reads (the fixtures' is newer than the older builds take)
real_sweep() { # NAME LLC OPT
  mkdir -p "$TMP/$1/bin" && ln -sf "$2" "$TMP/$1/bin/llc"
  printf 'define i32 @f(i32 %%n) {\nentry:\n  br label %%loop\nloop:\n  %%i = phi i32 [ 0, %%entry ], [ %%i2, %%loop ]\n  %%s = phi i32 [ 0, %%entry ], [ %%s2, %%loop ]\n  %%m = mul i32 %%i, %%i\n  %%s2 = add i32 %%s, %%m\n  %%i2 = add i32 %%i, 1\n  %%c = icmp slt i32 %%i2, %%n\n  br i1 %%c, label %%loop, label %%exit\nexit:\n  ret i32 %%s2\n}\n' >"$TMP/$1/input.ll"
  printf '[sweep]\nname = llc\nbackend = command\nrepeats = 3\n[matrix m]\ninput = input.ll\n[step llc]\nargv = {spec_dir}/bin/llc %s -time-passes {input} -o {out}/out.s\n' "$3" >"$TMP/$1/llc.ini"
  "$PASSMAP" sweep --quiet --db "$TMP/$1.db" "$TMP/$1/llc.ini"
}
old_llc=$(ls -d /usr/lib/llvm-1[0-9]/bin/llc 2>/dev/null | sort -V | tail -1)
if [ -n "$old_llc" ] && [ -x "$LLVM_BIN/llc" ] && [ "$old_llc" != "$LLVM_BIN/llc" ]; then
  check "real: a sweep with $old_llc" real_sweep old "$old_llc" -O2
  check "real: a sweep with $LLVM_BIN/llc" real_sweep new "$LLVM_BIN/llc" -O2
  "$PASSMAP" gate "$TMP/old.db" "$TMP/new.db" >"$TMP/builds.txt" 2>&1
  rc=$?
  check "real, two builds: pass, fail or inconclusive, never an error (got $rc)" test $rc -eq 0 -o $rc -eq 1 -o $rc -eq 3
  check "real, two builds: one config, not 'not the same config'" bash -c "grep -q 'of 1 compared configs' '$TMP/builds.txt' && ! grep -q 'not the same config' '$TMP/builds.txt'"
  check "real, two builds on this machine: not 'crosses machines'" bash -c "! grep -q 'crosses machines' '$TMP/builds.txt'"
  check "real, two builds: both named" bash -c "grep -q '^baseline builds: llc ({spec_dir}/bin/llc: .*LLVM version 1' '$TMP/builds.txt' && grep -q '^sweep builds: llc ({spec_dir}/bin/llc: .*LLVM version 2' '$TMP/builds.txt'"
  "$PASSMAP" baseline "$TMP/old.db" -o "$TMP/old.tsv" 2>/dev/null
  "$PASSMAP" gate "$TMP/old.tsv" "$TMP/new.db" >"$TMP/builds_f.txt" 2>&1
  check "real, baseline file: the old build named from the file" grep -q '^baseline builds: llc ({spec_dir}/bin/llc: .*LLVM version 1' "$TMP/builds_f.txt"
  # a command spec's key ends with an axis (m/input=a.ll), which compare alone would read as the variant: two
  # configs of one matrix are two configs to the gate, not two variants
  cp "$TMP/new/input.ll" "$TMP/new/input2.ll"
  sed -i 's/^input = input.ll$/input = input.ll, input2.ll/' "$TMP/new/llc.ini"
  check "real: two configs of one matrix" "$PASSMAP" sweep --quiet --db "$TMP/two.db" "$TMP/new/llc.ini"
  "$PASSMAP" gate "$TMP/two.db" "$TMP/two.db" >"$TMP/two.txt" 2>&1
  rc=$?
  check "real, two configs: compared as two (rc $rc)" bash -c "test $rc -ne 4 && grep -q 'of 2 compared configs' '$TMP/two.txt'"
  check "real, two configs: a baseline of both" bash -c "'$PASSMAP' baseline '$TMP/two.db' -o '$TMP/two.tsv' 2>/dev/null && test \$(grep -c '^config	' '$TMP/two.tsv') -eq 2"
  check "real: a sweep with other steps (-O1)" real_sweep o1 "$LLVM_BIN/llc" -O1
  "$PASSMAP" gate "$TMP/new.db" "$TMP/o1.db" >"$TMP/o1.txt" 2>&1
  check "real, other steps: exit 3" test $? -eq 3
  check "real, other steps: not the same config, the difference named" grep -Eq "^unsettled +m/input=input.ll +config .*not the same config: its steps differ .*-O2.*-O1" "$TMP/o1.txt"
else
  ok "# SKIP two LLVM builds needed (llvm-1x and $LLVM_BIN)"
fi
# One machine, two compiler builds: not "crosses machines" (the host fingerprint covers the compiler build, which
# is what a gate compares; the note used to come with every gate of a new build), from a store or a baseline
# file; another CPU is another machine.
on_host() { # DB NAME CPU COMPILER KERNEL: every run of DB measured on that host
  sqlite3 "$1" "insert into host(name, fingerprint, cpu_model, cores, kernel, machine, compiler)
    values ('$2', substr(lower(hex(randomblob(8))), 1, 16), '$3', 2, '$5', 'x86_64', '$4');
    update run set host_id = last_insert_rowid();"
}
cp "$TMP/base.db" "$TMP/hA.db" && on_host "$TMP/hA.db" ci1 "Xeon 8480" "LLVM 21.1.0" 6.1.0-25
cp "$TMP/same2.db" "$TMP/hB.db" && on_host "$TMP/hB.db" ci1 "Xeon 8480" "LLVM 22.1.8" 6.1.0-28
cp "$TMP/same2.db" "$TMP/hC.db" && on_host "$TMP/hC.db" ci1 "EPYC 9654" "LLVM 22.1.8" 6.1.0-28
"$PASSMAP" gate "$TMP/hA.db" "$TMP/hB.db" >"$TMP/hB.txt" 2>&1
check "one machine, another compiler build: exit 0 (rc $?)" test $? -eq 0
check "one machine, another compiler build: no 'crosses machines'" bash -c "! grep -q 'crosses machines' '$TMP/hB.txt'"
check "compare, one machine, another build: no 'crosses machines'" bash -c "! '$PASSMAP' compare '$TMP/hA.db' '$TMP/hB.db' 2>&1 | grep -q 'crosses machines'"
"$PASSMAP" baseline "$TMP/hA.db" -o "$TMP/hA.tsv" 2>/dev/null
"$PASSMAP" gate "$TMP/hA.tsv" "$TMP/hB.db" >"$TMP/hBf.txt" 2>&1
check "baseline file of the same machine: no 'crosses machines'" bash -c "! grep -q 'crosses machines' '$TMP/hBf.txt'"
check "another CPU: crosses machines, named" bash -c "'$PASSMAP' gate '$TMP/hA.db' '$TMP/hC.db' 2>&1 | grep -q 'crosses machines'"
check "baseline file, another CPU: crosses machines" bash -c "'$PASSMAP' gate '$TMP/hA.tsv' '$TMP/hC.db' 2>&1 | grep -q 'crosses machines'"
check_fails "baseline over its own database is refused" "$PASSMAP" baseline "$TMP/base.db" -o "$TMP/base.db"
finish
