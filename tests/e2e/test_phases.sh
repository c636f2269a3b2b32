#!/usr/bin/env bash
# Real clang-22 on files the test writes (issue 33, items 3, 4, 6): -ftime-trace attribution (a pass's rows add up
# to clang's own Total for it, pass managers are pipeline rows that compare never tests, a pass's "(self)" row
# takes its pass's stage), cost fits never pool -O levels, a run without a report is not "failed".
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
command -v clang-22 >/dev/null || { fail "clang-22 installed (make deps)"; finish; exit; }

mkdir -p "$TMP/s/in"
gen_c 40 "$TMP/s/in/a.c"; gen_c 80 "$TMP/s/in/b.c"; gen_c 160 "$TMP/s/in/c.c"

# --- -ftime-trace at the default granularity: a pass's rows add up to clang's Total, pass managers are pipeline ---
clang-22 -O2 -c "$TMP/s/in/b.c" -o "$TMP/b.o" -ftime-trace="$TMP/b.json" || fail "clang-22 -ftime-trace"
"$PASSMAP" parse --json "$TMP/b.json" >"$TMP/b.parse.json"
python3 - "$TMP/b.parse.json" <<'PY' && ok "-ftime-trace: each pass's counted rows add up to clang's Total for it" \
  || fail "-ftime-trace: pass time kept in the pass managers"
import json, sys, collections
ps = json.load(open(sys.argv[1]))["passes"]
tot = {p["name"][6:]: p["wall_s"] for p in ps if p["name"].startswith("Total ")}
have = collections.defaultdict(float)
for p in ps:   # the pass's recorded spans (leaves counted, groups inclusive of their analyses) and its moved time
    if "s" not in p["flags"]:
        have[p["name"]] += p["wall_s"]
for name in ("InstCombinePass", "SROAPass", "LoopRotatePass", "IPSCCPPass"):
    assert name in tot, name
    # recorded spans + the time under the granularity = clang's Total (a µs per span of rounding)
    assert abs(have[name] - tot[name]) <= 1e-4 + 0.005 * tot[name], (name, have[name], tot[name])
PY
python3 - "$TMP/b.parse.json" <<'PY' && ok "-ftime-trace: pass managers' own time is a pipeline row (flag p), never a plain pass" \
  || fail "-ftime-trace: pass manager rows"
import json, sys
ps = json.load(open(sys.argv[1]))["passes"]
pm = [p for p in ps if p["counted"] and (p["name"].startswith("PassManager<") or "PassAdaptor" in p["name"])]
assert pm and all("p" in p["flags"] for p in pm), [(p["name"], p["flags"]) for p in pm if "p" not in p["flags"]]
PY

# --- a sweep: opt is an axis that changes the pipeline, input the size ---
cat > "$TMP/s/p.ini" <<'INI'
[sweep]
name = phases
backend = command
repeats = 3

[matrix m]
input = in/*.c
opt = 0, 2

[step cc]
argv = clang-22 -O{opt} -c {input} -o {out}/o.o -ftime-trace={out}/t.json
report = {out}/t.json
tool = clang
ir.lines = lines {input}
INI
db=$TMP/p.db
check "sweep: 3 inputs x -O0/-O2 under -ftime-trace" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/p.ini"
"$PASSMAP" report "$db" --json --allow-contended >"$TMP/r.json" 2>"$TMP/r.err" || fail "report --json: $(cat "$TMP/r.err")"
python3 - "$TMP/r.json" <<'PY' && ok "fits: one per -O level, never pooled across the pipeline axis" || fail "fits pool -O levels"
import json, sys
fits = json.load(open(sys.argv[1]))["fits"]
assert fits, "no fit"
assert all(f["group"] in ("opt=0", "opt=2") for f in fits), [(f["pass"], f["group"]) for f in fits]
assert all(f["n"] <= 3 for f in fits), [(f["pass"], f["n"]) for f in fits]
print("# fits:", [(f["pass"], f["group"], f["n"]) for f in fits][:6], file=sys.stderr)
PY
python3 - "$TMP/r.json" <<'PY' && ok "phases: each config's phase shares sum to its stage shares (frontend, optimizer, codegen, process)" \
  || fail "phase shares"
import json, sys
for c in json.load(open(sys.argv[1]))["configs"]:
    ph = {k: v["mean"] for k, v in c["phases"].items()}
    assert {"frontend", "optimizer", "codegen", "process"} <= set(ph), ph
    assert abs(sum(ph.values()) - sum(v["mean"] for v in c["shares"].values())) < 1e-4, (ph, c["shares"])
    assert c["dominant_phase"] == max(ph, key=ph.get), c["dominant_phase"]
    # the optimizer's passes are in the optimizer phase: at -O2 it holds more than at -O0
    print("#", c["key"], {k: round(v, 3) for k, v in ph.items()}, file=sys.stderr)
opt = {c["axes"]["opt"]: [] for c in json.load(open(sys.argv[1]))["configs"]}
for c in json.load(open(sys.argv[1]))["configs"]:
    opt[c["axes"]["opt"]].append(c["phases"]["optimizer"]["mean"])
assert min(opt["2"]) > max(opt["0"]), opt
PY
"$PASSMAP" report "$db" --allow-contended >"$TMP/r.txt" 2>&1
grep -q "^  phases: 6 configs, share of cold wall: frontend .*optimizer .*codegen " "$TMP/r.txt" \
  && grep -q "^config  *FRONTEND  *OPTIMIZER  *CODEGEN  *PROCESS " "$TMP/r.txt" \
  && ok "report: the headline and the stage table lead with the phase split" \
  || fail "report phases: $(grep -n "phases\|FRONTEND" "$TMP/r.txt" | head -3)"
st=$(sqlite3 "$db" "select count(*) from agg_pass_stage s join pass_name n on n.id = s.name_id where n.name like '%Pass (self)' and s.stage = 'other'")
n_self=$(sqlite3 "$db" "select count(*) from pass_name where name like '%Pass (self)' and name not like 'PassManager%' and name not like '%Adaptor%'")
[ "$st" = 0 ] && [ "$n_self" -gt 0 ] && ok "a pass's (self) row takes its pass's stage ($n_self such rows, none in other)" \
  || fail "(self) rows in other: $st of $n_self"
"$PASSMAP" compare "$db" --a opt=0 --b opt=2 --all-passes --allow-contended --json >"$TMP/c.json" 2>"$TMP/c.err" || fail "compare: $(cat "$TMP/c.err")"
python3 - "$TMP/c.json" <<'PY' && ok "compare: no pass manager tested as a pass, no (self) row apart from its pass" || fail "compare rows"
import json, sys
rows = [r for c in json.load(open(sys.argv[1]))["configs"] for r in c["passes"]]
bad = [r["pass"] for r in rows if r["pass"].startswith("PassManager<") or "PassAdaptor" in r["pass"]
       or r["pass"].endswith(" (self)") and r["pass"][:-7].endswith("Pass")]
assert rows and not bad, bad[:5]
PY

# --- -ftime-report: the phase split is of user CPU time (clang is serial and prints user times), the wall's beside,
# and it is clang's own per-phase user split (rescaled past the time outside clang's timers) within 2 points ---
sed -e 's/^name = phases/name = report/' -e 's/ -ftime-trace={out}\/t.json/ -ftime-report/' -e '/^report = /d' \
    -e 's/^input = in\/\*.c/input = in\/b.c/' "$TMP/s/p.ini" >"$TMP/s/f.ini"
check "sweep: -O0/-O2 under -ftime-report" "$PASSMAP" sweep --quiet --db "$TMP/f.db" "$TMP/s/f.ini"
"$PASSMAP" report "$TMP/f.db" --json --allow-contended >"$TMP/f.json" 2>"$TMP/f.err" || fail "report --json: $(cat "$TMP/f.err")"
sqlite3 -separator ' ' "$TMP/f.db" "select config_key, run_id, pass, user_s from v_pass where section = 'Clang time report' \
  and pass in ('Front end', 'LLVM IR generation', 'Optimizer', 'Machine code generation')" >"$TMP/clang-phases.txt"
python3 - "$TMP/f.json" "$TMP/clang-phases.txt" <<'PY' && ok "phases on user CPU time: clang's own per-phase user split within 2 points" \
  || fail "CPU phase split"
import json, sys, collections
runs = collections.defaultdict(lambda: collections.defaultdict(float))
for line in open(sys.argv[2]):
    key, run, rest = line.split(" ", 2)
    name, user = rest.rsplit(" ", 1)
    ph = {"Front end": "frontend", "LLVM IR generation": "frontend", "Optimizer": "optimizer",
          "Machine code generation": "codegen"}[name]
    runs[(key, run)][ph] += float(user)
clang = collections.defaultdict(lambda: collections.defaultdict(list))
for (key, run), ph in runs.items():
    tot = sum(ph.values())
    for k in ("frontend", "optimizer", "codegen"):
        clang[key][k].append(ph[k] / tot)
for c in json.load(open(sys.argv[1]))["configs"]:
    cpu = c["phases_cpu"]
    assert cpu, ("no CPU split", c["key"])
    inside = 1 - cpu["process"]["mean"] - cpu.get("other", {"mean": 0})["mean"]
    for k in ("frontend", "optimizer", "codegen"):
        ours, theirs = cpu[k]["mean"] / inside, sum(clang[c["key"]][k]) / len(clang[c["key"]][k])
        print("# %s %s: ours %.3f, clang's %.3f (wall %.3f)" % (c["key"], k, ours, theirs, c["phases"][k]["mean"]),
              file=sys.stderr)
        assert abs(ours - theirs) <= 0.02, (c["key"], k, ours, theirs)
PY
"$PASSMAP" report "$TMP/f.db" --allow-contended >"$TMP/f.txt" 2>&1
grep -q "^  phases: 2 configs, share of user CPU time (wall in brackets)" "$TMP/f.txt" \
  && grep -q "^m/input=b.c/opt=2 .* user CPU " "$TMP/f.txt" && ok "report: the phase split says it is of user CPU time, the wall beside" \
  || fail "report: CPU phases: $(grep -n "phases" "$TMP/f.txt" | head -3)"

# --- a run without a report is its own status, not "failed" ---
sed -e 's/^name = phases/name = noreport/' -e 's/ -ftime-trace={out}\/t.json//' -e 's/^opt = 0, 2/opt = 0/' \
    -e '/^report = /d' -e 's/^repeats = 3/repeats = 1/' -e 's/^input = in\/\*.c/input = in\/a.c/' "$TMP/s/p.ini" >"$TMP/s/n.ini"
"$PASSMAP" sweep --quiet --db "$TMP/n.db" "$TMP/s/n.ini" >/dev/null 2>&1
"$PASSMAP" report "$TMP/n.db" >"$TMP/n.txt" 2>&1
grep -q "0 ok runs, 0 failed, 1 without a report" "$TMP/n.txt" && ok "report: a no-report run is not counted failed" \
  || fail "no-report counts: $(head -2 "$TMP/n.txt")"
finish
