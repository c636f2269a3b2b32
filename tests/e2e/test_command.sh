#!/usr/bin/env bash
# The `command` back end against real compilers: a clang-22 -ftime-trace study of five of passmap's own C files
# x -O0..-O3 (sweep, report, compare --a opt=0 --b opt=2), an opt-22 -time-passes study over .ll files, a user's
# mlir-opt pipeline over .mlir files; bad specs fail with one line naming the line; a report file that never
# appears fails the run with the reason; argv never goes through a shell.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
CLANG=$(command -v clang-22 || echo "$LLVM_BIN/clang")
OPT=$(command -v opt-22 || echo "$LLVM_BIN/opt")
MLIR_OPT=$(command -v mlir-opt-22 || echo "$LLVM_BIN/mlir-opt")
q() { sqlite3 "$1" "$2"; }

# --- clang: the spec lives beside the sources it names (globs are relative to the spec file) ---
mkdir -p "$TMP/c/src" "$TMP/c/inc"
cp "$ROOT"/lib/base/error.c "$ROOT"/lib/base/util.c "$ROOT"/lib/parse/parse.c "$ROOT"/lib/parse/parse_llvm.c \
   "$ROOT"/lib/parse/parse_text.c "$TMP/c/src/"
cp "$ROOT"/lib/base/*.h "$ROOT"/lib/parse/*.h "$TMP/c/inc/"
cat > "$TMP/c/clang.ini" <<INI
[sweep]
name = clang-opt
backend = command
repeats = 2

[matrix c]                 ; each matrix is its own cartesian product
input = src/*.c            ; files: a glob relative to this spec, sorted
opt = 0, 1, 2, 3

[report]
size = opt
workload = input

[step cc]
argv = $CLANG -std=c11 -D_GNU_SOURCE -I{spec_dir}/inc -O{opt} -c {input} -o {out}/obj.o -ftime-trace
report = {out}/obj.json
format = auto
outputs = {out}/obj.o
tool = clang
ir.obj_bytes = size {out}/obj.o
ir.trace_events = count {out}/obj.json "ph":
null_argv = $CLANG -c -x c /dev/null -o {out}/null.o
INI
db=$TMP/clang.db
check "clang study: sweep of 5 files x 4 -O levels" "$PASSMAP" sweep --quiet --db "$db" "$TMP/c/clang.ini"
[ "$(q "$db" "select count(*) from run where mode='cold' and status='ok'")" = 40 ] && ok "40 ok cold runs" \
  || fail "40 ok cold runs: $(q "$db" "select status, note from run where status != 'ok' limit 3")"
[ "$(q "$db" "select count(*) from config where key = 'c/input=parse_llvm.c/opt=2'")" = 1 ] \
  && ok "config keys name every axis" || fail "config keys: $(q "$db" "select key from config limit 3")"
[ "$(q "$db" "select group_concat(name||'='||value, ' ') from config_param p join config c on c.id=p.config_id
             where c.key='c/input=util.c/opt=3'")" = "input=util.c opt=3" ] \
  && ok "config parameters stored" || fail "config parameters stored"
[ "$(q "$db" "select count(distinct tool) || ':' || min(tool) from step")" = "1:clang" ] \
  && ok "steps stored with tool clang" || fail "steps stored with tool clang"
n=$(q "$db" "select count(*) from v_pass where tool='clang' and counted")
[ "${n:-0}" -gt 100 ] && ok "-ftime-trace events stored as passes ($n)" || fail "-ftime-trace passes ($n)"
n=$(q "$db" "select count(*) from metric where name='ir.obj_bytes' and value > 0")
[ "$n" = 40 ] && ok "declared metric ir.obj_bytes per run" || fail "ir.obj_bytes ($n)"
n=$(q "$db" "select count(*) from metric where name='ir.trace_events' and value > 10")
[ "$n" = 40 ] && ok "declared regex count metric per run" || fail "ir.trace_events ($n)"
[ "$(q "$db" "select count(*) from startup where tool='clang' and status='ok' and argv like '%/dev/null%'")" = 5 ] \
  && ok "null_argv: clang started 5 times on /dev/null" || fail "clang start-up: $(q "$db" "select tool, status from startup")"
argv=$(q "$db" "select argv from step limit 1")
case "$argv" in "$CLANG -std=c11 -D_GNU_SOURCE -I$TMP/c/inc -O"[0-3]" -c $TMP/c/src/"*".c -o "*"/obj.o -ftime-trace")
  ok "argv substituted: {spec_dir} {opt} {input} {out}" ;; *) fail "argv: $argv" ;; esac

"$PASSMAP" report "$db" --json > "$TMP/report.json"
python3 - "$TMP/report.json" <<'PY' && ok "report: every config has a named dominant stage" || fail "report dominant stages"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["configs"]) == 20, len(j["configs"])
bad = [(c["key"], c["dominant_stage"]) for c in j["configs"] if c["dominant_stage"] in (None, "other")]
assert not bad, bad
stages = {c["dominant_stage"] for c in j["configs"]}
assert stages & {"frontend", "optimizer-rest", "codegen", "isel", "scalar-opt", "process-overhead", "irgen"}, stages
PY
python3 - "$TMP/report.json" <<'PY' && ok "report: regime map over files x -O from [report] size/workload" || fail "regime map axes"
import json, sys
r = json.load(open(sys.argv[1]))["regimes"]["command"]
assert r["rows"] == "input" and r["cols"] == "opt", (r["rows"], r["cols"])
assert len(r["cells"]) == 20, len(r["cells"])
assert sorted({c["col"] for c in r["cells"]}) == [0, 1, 2, 3]
assert r["boundaries"], "no sentence about the map"
PY
python3 - "$TMP/report.json" <<'PY' && ok "report: handoff over -O per file, fingerprint per file x -O (the spec's axes)" \
  || fail "handoff/fingerprint axes"
import json, sys
j = json.load(open(sys.argv[1]))
h = j["handoff"]
assert h["kind"] is None and h["x"] == "opt" and h["x_is_axis"] and not h["log_x"], h
assert h["series_axes"] == "input" and len(h["series"]) == 5 and len(h["points"]) == 20, h["series"]
assert h["series_pairs"] == 10 and h["series_js_distance"] is not None, h["series_pairs"]
assert all(t["n"] == 20 for t in h["trends"]) and any(t["slope"] for t in h["trends"] if t["slope"] is not None)
fp = j["fingerprints"]
assert len(fp) == 1 and fp[0]["figure"] == "fingerprint" and fp[0]["bar_axes"] == "input,opt", fp
assert len(fp[0]["bars"]) == 20 and fp[0]["bars"][0]["label"].endswith(" opt=0"), fp[0]["bars"][:2]
PY
"$PASSMAP" report "$db" | grep -q '^handoff: stage share vs opt over 20 configs, series by input (5); rising: ' \
  && ok "text: handoff sentence over the spec's axes" || fail "text handoff: $("$PASSMAP" report "$db" | grep '^handoff')"
# without [report] axes: the back end's declared size metric grows the compile, the -O levels are the series
sqlite3 "$db" "update sweep set meta_json = json_remove(meta_json, '$.report_size', '$.report_workload')"
"$PASSMAP" report "$db" --json > "$TMP/report-metric.json"
python3 - "$TMP/report-metric.json" <<'PY' && ok "handoff: declared ir.* metric as x, series by opt" || fail "metric handoff"
import json, sys
h = json.load(open(sys.argv[1]))["handoff"]
assert h["x"].startswith("ir.") and not h["x_is_axis"] and h["log_x"], h["x"]
assert h["series_axes"] == "opt" and h["series"] == ["opt=0", "opt=1", "opt=2", "opt=3"], h["series"]
PY
"$PASSMAP" report "$db" --x input --y opt --json > "$TMP/report2.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["regimes"]["command"]; assert (r["rows"], r["cols"], len(r["cells"])) == ("opt", "input", 20), r' \
  "$TMP/report2.json" && ok "report --x/--y picks the regime axes" || fail "report --x/--y"
"$PASSMAP" report "$db" | grep -q "^  not applicable" && fail "regimes said not applicable" || ok "regimes section filled"
"$PASSMAP" compare "$db" --a opt=0 --b opt=2 --json > "$TMP/compare.json"
python3 - "$TMP/compare.json" <<'PY' && ok "compare --a opt=0 --b opt=2 matches the 5 files" || fail "compare --a opt=0 --b opt=2"
import json, sys
j = json.load(open(sys.argv[1]))
keys = sorted(c["key"] for c in j["configs"])
assert len(keys) == 5, keys
assert keys[0] == "input=error.c", keys
assert j["a"]["variant"] == "opt=0" and j["b"]["variant"] == "opt=2", (j["a"], j["b"])
PY
"$PASSMAP" compare "$db" --a opt=0 --b opt=2 | grep -q '^A: .*(sweep clang-opt, opt=0)' && ok "compare names the sides" \
  || fail "compare names the sides"
check_fails "compare: unknown value is an error" "$PASSMAP" compare "$db" --a opt=0 --b opt=9
check_fails "compare: two different axes is a usage error" "$PASSMAP" compare "$db" --a opt=0 --b input=util.c

# --- opt: new-pass-manager -time-passes over generated .ll files ---
mkdir -p "$TMP/o/ll"
for f in error util parse_text; do
  "$CLANG" -std=c11 -D_GNU_SOURCE -I"$TMP/c/inc" -O0 -Xclang -disable-O0-optnone -S -emit-llvm \
    "$TMP/c/src/$f.c" -o "$TMP/o/ll/$f.ll"
done
cat > "$TMP/o/opt.ini" <<INI
[sweep]
name = opt-O3
backend = command
repeats = 1
[matrix m]
input = ll/*.ll
[step opt]
argv = $OPT -passes='default<O3>' -time-passes {input} -o {out}/out.bc
outputs = {out}/out.bc
ir.lines_in = lines {input}
INI
db=$TMP/opt.db
check "opt study sweeps" "$PASSMAP" sweep --quiet --db "$db" "$TMP/o/opt.ini"
[ "$(q "$db" "select count(*) from run where status='ok'")" = 3 ] && ok "3 ok opt runs" || fail "opt runs"
[ "$(q "$db" "select min(tool) from step")" = opt ] && ok "tool label is opt (version suffix dropped)" \
  || fail "tool label: $(q "$db" "select min(tool) from step")"
[ "$(q "$db" "select tool || ' ' || status || ' ' || note from startup")" = "opt not-measured [step opt] has no null_argv" ] \
  && ok "a step without null_argv: start-up not measured, and why" || fail "opt start-up: $(q "$db" "select * from startup")"
"$PASSMAP" report "$db" | grep -q 'process-overhead not split: start-up not measured' && ok "report says it is not split" \
  || fail "opt report: no not-split sentence"
[ "$(q "$db" "select count(*) from v_pass where pass='InstCombinePass'")" -ge 3 ] && ok "new-PM pass names stored" \
  || fail "new-PM pass names stored"
json=$("$PASSMAP" report "$db" --json)
python3 - "$json" <<'PY' && ok "opt passes map to stages (stages-opt.tsv), not other" || fail "opt stages"
import json, sys
j = json.loads(sys.argv[1])
for c in j["configs"]:
    assert c["dominant_stage"] not in (None, "other"), c["dominant_stage"]
    assert c["shares"]["other"]["mean"] < 0.5, c["shares"]["other"]
PY

# --- a user's mlir-opt pipeline over their .mlir files ---
mkdir -p "$TMP/m"
cat > "$TMP/m/a.mlir" <<'MLIR'
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %b : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
MLIR
sed 's/@f/@g/' "$TMP/m/a.mlir" > "$TMP/m/b.mlir"
cat > "$TMP/m/mlir.ini" <<INI
[sweep]
name = my-pipeline
backend = command
repeats = 1
[matrix p]
input = *.mlir
pass = canonicalize, cse
[step lower]
argv = $MLIR_OPT {input} --pass-pipeline=builtin.module(func.func({pass})) --mlir-timing -o {out}/out.mlir
outputs = {out}/out.mlir
ir.ops_after = mlir-ops {out}/out.mlir
INI
db=$TMP/mlir.db
check "mlir-opt pipeline study sweeps" "$PASSMAP" sweep --quiet --db "$db" "$TMP/m/mlir.ini"
[ "$(q "$db" "select count(*) from run where status='ok'")" = 4 ] && ok "4 ok mlir-opt runs" || fail "mlir-opt runs"
[ "$(q "$db" "select count(*) from v_pass where tool='mlir-opt' and pass like '%CSE%'")" -ge 2 ] \
  && ok "mlir-opt timing parsed" || fail "mlir-opt timing parsed"
# cse merges the two identical addi: 4 ops (func, addi, muli, return is not dialect.op) -> func.func, 1 addi, muli
[ "$(q "$db" "select min(value) from metric m join run r on r.id=m.run_id join config c on c.id=r.config_id
             where m.name='ir.ops_after' and c.key like '%pass=cse'")" = 3.0 ] \
  && ok "mlir-ops metric after cse" || fail "mlir-ops after cse: $(q "$db" "select name, value from metric")"

# --- bad specs: one line, with the line number, exit 2 ---
bad() { # DESC EXPECTED-SUBSTRING SPEC-BODY
  printf '[sweep]\nname = bad\nbackend = command\n%s\n' "$3" > "$TMP/m/bad.ini"
  local out rc; out=$("$PASSMAP" sweep --dry-run --db "$TMP/bad.db" "$TMP/m/bad.ini" 2>&1); rc=$?
  if [ "$rc" = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -qF "$2"; then ok "$1"
  else fail "$1 (rc=$rc): $out"; fi
}
bad "unknown axis in a placeholder" "bad.ini: line 7: [step s] argv: unknown placeholder {lvl}" \
  "[matrix m]
opt = 1
[step s]
argv = cc -O{lvl}"
bad "a glob that matches nothing" "line 5: [matrix m] input: 'nothing/*.c' matches no file" \
  "[matrix m]
input = nothing/*.c
[step s]
argv = cc {input}"
bad "a step with no argv" "line 7: [step s] has no argv" \
  "[matrix m]
opt = 1
[step s]
report = stdout"
bad "an unknown section" "line 7: section [llm x] is not read by back end command" \
  "[matrix m]
opt = 1
[llm x]
models = qwen2:0.5b
[step s]
argv = cc"

# --- a report file that never appears: the run is failed, with the reason ---
cat > "$TMP/m/noreport.ini" <<INI
[sweep]
name = noreport
backend = command
repeats = 1
[matrix m]
v = x
[step s]
argv = /bin/true {v}
report = {out}/trace.json
INI
"$PASSMAP" sweep --quiet --db "$TMP/noreport.db" "$TMP/m/noreport.ini" >/dev/null 2>&1
r=$(q "$TMP/noreport.db" "select status || '|' || note from run")
case "$r" in "failed|true: report "*"/trace.json never appeared") ok "missing report fails the run with the reason" ;;
  *) fail "missing report: $r" ;; esac

# a work folder whose path does not fit is refused naming the limit (it was cut: runs went to another folder)
msg=$("$PASSMAP" sweep --quiet --db "$TMP/longwork.db" --work-dir "$TMP/$(printf 'w%.0s' $(seq 1 4100))" \
      "$TMP/m/noreport.ini" 2>&1 >/dev/null)
case "$msg" in *"work folder path longer than 4095 bytes"*) ok "long --work-dir: error names the limit" ;;
  *) fail "long --work-dir: $msg" ;; esac

# --- no shell: \$, ; and quotes reach the program as written ---
cat > "$TMP/m/noshell.ini" <<INI
[sweep]
name = noshell
backend = command
repeats = 1
[matrix m]
v = x
[step s]
argv = /bin/echo \$HOME;{v} 'a  b' "{v} y"
report = stdout
INI
"$PASSMAP" sweep --quiet --keep --db "$TMP/noshell.db" "$TMP/m/noshell.ini" >/dev/null 2>&1
out=$(cat "$TMP"/noshell.db.runs/*/cold-r0/echo.stdout 2>/dev/null)
[ "$out" = '$HOME;x a  b x y' ] && ok "argv split before substitution, no shell" || fail "no shell: '$out'"
# --- passmap run --db: process stats and pass times of one command, stored together ---
db=$TMP/run.db
check "run --db records runs" "$PASSMAP" run -n 3 --db "$db" --config c/input=error.c/opt=1 --report "$TMP/r.json" -- \
  "$CLANG" -std=c11 -D_GNU_SOURCE -I"$TMP/c/inc" -O1 -c "$TMP/c/src/error.c" -o "$TMP/r.o" -ftime-trace
[ "$(q "$db" "select count(*) from run where status='ok' and wall_s > 0 and maxrss_kb > 0")" = 3 ] \
  && ok "process stats stored per run" || fail "process stats stored per run"
[ "$(q "$db" "select count(distinct s.run_id) from step s join pass_time p on p.step_id=s.id where s.tool='clang'")" = 3 ] \
  && ok "pass times stored with the same runs" || fail "pass times stored with the same runs"
[ "$(q "$db" "select group_concat(name||'='||value, ' ') from config_param")" = "input=error.c opt=1" ] \
  && ok "key NAME=VALUE parts become parameters" || fail "key parameters"
check "run --db appends repeats" "$PASSMAP" run -n 1 --db "$db" --config c/input=error.c/opt=1 --report stderr -- \
  "$OPT" -passes='default<O1>' -time-passes "$TMP/o/ll/error.ll" -o "$TMP/r.bc"
[ "$(q "$db" "select max(repeat) from run")" = 3 ] && ok "repeat numbers continue" || fail "repeat numbers continue"
"$PASSMAP" run -n 1 --db "$db" --config c/input=error.c/opt=1 --report "$TMP/none.json" -- /bin/true >/dev/null 2>&1
[ "$(q "$db" "select status || '|' || note from run where repeat = 4")" = "failed|report $TMP/none.json never appeared" ] \
  && ok "run --db: a report file that never appears fails the run" || fail "run --db missing report"
check_fails "run: --db without --config is a usage error" "$PASSMAP" run --db "$db" -- /bin/true
# a key part with no name was dropped without a word: a usage error (exit 2) naming the key, no database made
msg=$("$PASSMAP" run -n 1 --db "$TMP/badkey.db" --config c/=2 -- /bin/true 2>&1); rc=$?
[ $rc = 2 ] && [ "$(echo "$msg" | head -1)" = "passmap run: config key 'c/=2': part '=2' has no name before '='" ] \
  && [ ! -e "$TMP/badkey.db" ] && ok "run --db: a nameless key part is a usage error" || fail "bad key: rc=$rc $msg"
finish
