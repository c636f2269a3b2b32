#!/usr/bin/env bash
# Real clang-22 and llc-14/llc-22 on a file the test writes (issue 33, item 2): a [step]'s timing_flag gets each
# cold repeat an uninstrumented twin (run mode plain), planned in the dry run; the report and compare print what
# the flag costs and take the compile walls from the twins; the -O0 dominant phase is the same whether the study
# used -ftime-report or -ftime-trace; the phase split stays clang's own per-phase user split within 2 points.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
command -v clang-22 >/dev/null || { fail "clang-22 installed (make deps)"; finish; exit; }

mkdir -p "$TMP/s"
gen_c 250 "$TMP/s/big.c"   # ~3,300 lines: clang-22 -O0 spends ~0.15 s of user time, the timers' cost shows
spec() {   # NAME ARGV-TAIL TIMING-FLAG [REPORT]
  cat <<INI
[sweep]
name = $1
backend = command
repeats = 3

[matrix m]
input = big.c
opt = 0

[step cc]
argv = clang-22 -O{opt} -c {input} -o {out}/o.o $2
tool = clang
${4:+report = $4}
timing_flag = $3
INI
}
spec rep "-ftime-report" "-ftime-report" >"$TMP/s/rep.ini"
spec trace "-ftime-trace={out}/t.json" "-ftime-trace={out}/t.json" "{out}/t.json" >"$TMP/s/trace.ini"

# --- the plan: each cold repeat beside its twin, the twin's argv without the flag ---
"$PASSMAP" sweep "$TMP/s/rep.ini" --dry-run --db "$TMP/dry.db" >"$TMP/dry.txt" 2>&1
n_plain=$(grep -c ' plain  *r[0-9]' "$TMP/dry.txt"); n_cold=$(grep -c ' cold  *r[0-9]' "$TMP/dry.txt")
[ "$n_plain" = 3 ] && [ "$n_cold" = 3 ] && grep -q "6 runs planned" "$TMP/dry.txt" \
  && [ "$(grep -A1 ' plain  *r' "$TMP/dry.txt" | grep -c -- '-ftime-report')" = 0 ] \
  && ok "dry run: 3 plain twins planned beside 3 cold runs, without -ftime-report" \
  || fail "dry run plan: $n_plain plain, $n_cold cold: $(head -12 "$TMP/dry.txt")"
sed '/^timing_flag/d' "$TMP/s/rep.ini" >"$TMP/s/none.ini"
"$PASSMAP" sweep "$TMP/s/none.ini" --dry-run --db "$TMP/dry2.db" >"$TMP/dry2.txt" 2>&1
grep -q "3 runs planned" "$TMP/dry2.txt" && ! grep -q ' plain ' "$TMP/dry2.txt" \
  && ok "no timing_flag: no twin planned (the plan as before)" || fail "plan without timing_flag: $(tail -3 "$TMP/dry2.txt")"
sed 's/^timing_flag = .*/timing_flag = -ftime-repor/' "$TMP/s/rep.ini" >"$TMP/s/bad.ini"
check_fails "a timing_flag that is not one of argv's words is refused" "$PASSMAP" sweep "$TMP/s/bad.ini" --dry-run \
  --db "$TMP/dry3.db"

# --- the two studies, paired and recorded ---
check "sweep: -O0 under -ftime-report, with twins" "$PASSMAP" sweep --quiet --db "$TMP/rep.db" "$TMP/s/rep.ini"
check "sweep: -O0 under -ftime-trace, with twins" "$PASSMAP" sweep --quiet --db "$TMP/trace.db" "$TMP/s/trace.ini"
pairs=$(sqlite3 "$TMP/rep.db" "select count(*) from run c join run p on p.config_id = c.config_id and p.repeat = c.repeat
  join step sc on sc.run_id = c.id join step sp on sp.run_id = p.id where c.mode = 'cold' and p.mode = 'plain'
  and c.status = 'ok' and p.status = 'ok' and sc.argv like '%-ftime-report%' and sp.argv not like '%-ftime-report%'
  and sp.report_format is null")
[ "$pairs" = 3 ] && ok "the pair is recorded: 3 cold runs with -ftime-report, 3 plain twins without it (no report read)" \
  || fail "pairs recorded: $pairs"

"$PASSMAP" report "$TMP/rep.db" --allow-contended >"$TMP/rep.txt" 2>&1
"$PASSMAP" report "$TMP/rep.db" --allow-contended --json >"$TMP/rep.json" 2>"$TMP/rep.err" || fail "report --json: $(cat "$TMP/rep.err")"
"$PASSMAP" report "$TMP/trace.db" --allow-contended --json >"$TMP/trace.json" 2>"$TMP/trace.err" \
  || fail "report --json: $(cat "$TMP/trace.err")"
grep -q "^timing flags: what the instrument costs" "$TMP/rep.txt" \
  && grep -Eq "^clang-22 -ftime-report [+-][0-9]+% here" "$TMP/rep.txt" \
  && grep -q "^cold wall: of the cold runs' twins without their timing flags" "$TMP/rep.txt" \
  && ok "report: the flag's cost printed ($(grep -Eo 'clang-22 -ftime-report [+-][0-9]+% here' "$TMP/rep.txt"))" \
  || fail "report flag cost: $(grep -n -A3 'timing flags' "$TMP/rep.txt" | head -5)"
python3 - "$TMP/rep.json" "$TMP/rep.db" <<'PY' && ok "report JSON: the cost from the pairs, the compile wall the twins'" \
  || fail "report JSON timing_flags"
import json, sqlite3, sys, statistics
d = json.load(open(sys.argv[1]))
rows = d["timing_flags"]["table"]["rows"]
assert len(rows) == 1 and rows[0]["program"] == "clang-22" and rows[0]["flag"] == "-ftime-report", rows
assert rows[0]["pairs"] == 3, rows
db = sqlite3.connect(sys.argv[2])
w = dict(((m, r), x) for m, r, x in db.execute("select mode, repeat, wall_s from run"))
ratio = statistics.median(w[("cold", r)] / w[("plain", r)] for r in range(3))
assert abs(rows[0]["wall_overhead"] - (ratio - 1)) < 1e-5, (rows[0]["wall_overhead"], ratio)
plain = [w[("plain", r)] for r in range(3)]
gm = statistics.geometric_mean(plain)
assert abs(d["configs"][0]["wall_s"]["mean"] - gm) <= 1e-5 * gm, (d["configs"][0]["wall_s"], gm)
print("# -ftime-report cost %+.0f%% (wall), %+.0f%% (CPU)" % (100 * rows[0]["wall_overhead"], 100 * rows[0]["cpu_overhead"]),
      file=sys.stderr)
PY

# --- the -O0 answer does not depend on the instrument ---
python3 - "$TMP/rep.json" "$TMP/trace.json" <<'PY' && ok "-O0 dominant phase: the same under -ftime-report and -ftime-trace" \
  || fail "dominant phase differs between the instruments"
import json, sys
a, b = (json.load(open(p))["configs"][0] for p in sys.argv[1:3])
print("#", a["dominant_phase"], {k: round(v["mean"], 3) for k, v in a.get("phases_cpu", a["phases"]).items()},
      b["dominant_phase"], {k: round(v["mean"], 3) for k, v in b["phases"].items()}, file=sys.stderr)
assert a["dominant_phase"] == b["dominant_phase"], (a["dominant_phase"], b["dominant_phase"])
PY
sqlite3 -separator ' ' "$TMP/rep.db" "select run_id, pass, user_s from v_pass where section = 'Clang time report' \
  and pass in ('Front end', 'LLVM IR generation', 'Optimizer', 'Machine code generation')" >"$TMP/clang-phases.txt"
python3 - "$TMP/rep.json" "$TMP/clang-phases.txt" <<'PY' && ok "with twins: the phase split is clang's own per-phase user split within 2 points" \
  || fail "CPU phase split with twins"
import json, sys, collections
runs = collections.defaultdict(lambda: collections.defaultdict(float))
for line in open(sys.argv[2]):
    run, rest = line.split(" ", 1)
    name, user = rest.rsplit(" ", 1)
    ph = {"Front end": "frontend", "LLVM IR generation": "frontend", "Optimizer": "optimizer",
          "Machine code generation": "codegen"}[name]
    runs[run][ph] += float(user)
assert len(runs) == 3, len(runs)   # the cold runs' reports only: a twin reads none
c = json.load(open(sys.argv[1]))["configs"][0]
ours = {k: v["mean"] for k, v in c["phases_cpu"].items()}
timed = sum(ours.get(k, 0) for k in ("frontend", "optimizer", "codegen"))
for k in ("frontend", "optimizer", "codegen"):
    clang = sum(r[k] / sum(r.values()) for r in runs.values()) / len(runs)
    assert abs(ours.get(k, 0) / timed - clang) <= 0.02, (k, ours, clang)
PY

# --- compare: walls from the twins, each side's cost said, a difference between the sides named ---
"$PASSMAP" compare "$TMP/rep.db" "$TMP/trace.db" --allow-contended >"$TMP/c.txt" 2>&1
"$PASSMAP" compare "$TMP/rep.db" "$TMP/trace.db" --allow-contended --json >"$TMP/c.json" 2>&1
grep -Eq "^timing flags: A clang-22 -ftime-report [+-][0-9]+%, B clang-22 -ftime-trace=.* [+-][0-9]+%: compile walls are the runs without the flags" "$TMP/c.txt" \
  && ok "compare: each side's flag cost printed" || fail "compare: $(head -9 "$TMP/c.txt")"
python3 - "$TMP/c.json" "$TMP/rep.db" "$TMP/trace.db" <<'PY' && ok "compare: the compile wall rows are the twins' walls" \
  || fail "compare walls"
import json, sqlite3, sys, statistics
d = json.load(open(sys.argv[1]))
assert d["a"]["timing_flags"].startswith("clang-22 -ftime-report"), d["a"]
c = d["configs"][0]
for side, path in (("a", sys.argv[2]), ("b", sys.argv[3])):
    plain = [w for (w,) in sqlite3.connect(path).execute("select wall_s from run where mode = 'plain'")]
    gm = statistics.geometric_mean(plain)
    got = c["wall"]["gmean_" + side]
    assert abs(got - gm) <= 1e-6 * gm, (side, got, gm)
PY

python3 - "$TMP/c.json" "$TMP/rep.db" "$TMP/rep.json" <<'PY' && ok "step and pass seconds: the instrumented shares scaled to the twins' walls (compare and report)" \
  || fail "step and pass rows with twins"
import json, sqlite3, sys, statistics
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
runs = {r: (cid, cw, pw) for r, cid, cw, pw in db.execute(
    "select c.id, c.id, c.wall_s, p.wall_s from run c join run p on p.config_id = c.config_id and p.repeat = c.repeat "
    "where c.mode = 'cold' and p.mode = 'plain'")}
scale = {r: pw / cw for r, (_, cw, pw) in runs.items()}
assert len(scale) == 3 and any(abs(s - 1) > 0.01 for s in scale.values()), scale   # the check can tell
c = d["configs"][0]
step = {r: w for r, w in db.execute("select run_id, sum(wall_s) from step group by run_id")}
want = statistics.geometric_mean([step[r] * scale[r] for r in scale])
got = [x for x in c["steps"] if x["tool"] == "clang"][0]["gmean_a"]
assert abs(got - want) <= 1e-6 * want, ("step", got, want)
checked = 0
for row in c["passes"]:
    v = {r: w for r, w in db.execute("select run_id, sum(wall_s) from v_pass where pass = ? and counted and "
                                     "(flags & 16) = 0 and wall_s > 0 group by run_id", (row["pass"],))}
    if row.get("gmean_a") and len(v) == 3 and set(v) == set(scale):
        want = statistics.geometric_mean([v[r] * scale[r] for r in scale])
        assert abs(row["gmean_a"] - want) <= 1e-6 * want, (row["pass"], row["gmean_a"], want)
        checked += 1
assert checked >= 3, checked
# the report's pass seconds: the instrumented means times the twins' mean wall over the stages' sum
r = json.load(open(sys.argv[3]))["configs"][0]
dp = r["dominant_pass"]
raw = statistics.mean(w for (w,) in db.execute("select sum(wall_s) from v_pass where pass = ? and counted "
                                               "group by run_id", (dp["name"],)))
ratio = statistics.mean(pw for (_, _, pw) in runs.values()) / statistics.mean(cw for (_, cw, _) in runs.values())
assert abs(dp["mean_s"] / raw - ratio) <= 0.03 * ratio, (dp, raw, ratio)
PY

# --- llc-14 against llc-22: -time-passes costs each build its own ---
if command -v llc-14 >/dev/null && command -v llc-22 >/dev/null && command -v clang-14 >/dev/null; then
  clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm "$TMP/s/big.c" -o "$TMP/s/big.ll"
  cat >"$TMP/s/llc.ini" <<'INI'
[sweep]
name = llc
backend = command
repeats = 3

[matrix v]
input = big.ll
llvm = 14, 22

[step llc]
argv = llc-{llvm} -O2 {input} -o {out}/o.s -time-passes
tool = llc
timing_flag = -time-passes
INI
  check "sweep: llc-14 and llc-22 under -time-passes, with twins" "$PASSMAP" sweep --quiet --db "$TMP/llc.db" "$TMP/s/llc.ini"
  "$PASSMAP" report "$TMP/llc.db" --allow-contended --json >"$TMP/llc.json" 2>"$TMP/llc.err" || fail "report: $(cat "$TMP/llc.err")"
  python3 - "$TMP/llc.json" <<'PY' && ok "llc: the cost of -time-passes per build (llc 14 and 22, 3 pairs each)" \
    || fail "llc timing flags"
import json, sys
d = json.load(open(sys.argv[1]))["timing_flags"]
rows = d["table"]["rows"]
assert [(r["tool"], r["flag"], r["pairs"]) for r in rows] == [("llc", "-time-passes", 3)] * 2, rows
print("# llc -time-passes:", [(r["program"], "%+.0f%%" % (100 * r["wall_overhead"]), "CPU %+.0f%%" % (100 * r["cpu_overhead"]))
      for r in rows], "differs:", d["differs"], "undecided:", d["undecided"], file=sys.stderr)
# the two builds' costs are tested by compare's rule: exactly one of differ / undecided / alike, with the interval
assert not (d["differs"] and d["undecided"]), d
assert all("cost ratio" in (x or "cost ratio") for x in (d["differs"], d["undecided"])), d
PY
else
  ok "# SKIP llc-14/llc-22 or clang-14 not installed"
fi
finish
