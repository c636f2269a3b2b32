#!/usr/bin/env bash
# passmap fix --budget B ends within B and one step's timeout (issue 34.4), wherever the deadline falls: in the
# rounds, in a check build of several steps, in the [check] or in the program's [run]s. The study's four steps
# take 0.05 s each in the rounds and 0.6 s each in the output check's builds (a slow check: 2.4 s a build);
# the [check] takes 0.5 s, each [run] 0.2 s; every process logs its start. Five budgets (seeded, 4-8 s: the
# rounds take about 2 s, a smaller budget leaves the fix out of the plan) spread over the phases: each fix must end within B + the step timeout (2 s) + 2 s of passmap's own work, no process may
# start after the deadline, and a fix stopped by it says so (budget_exhausted; "unchecked: budget" or a ledger
# stopped at the deadline). Before, a check build's steps ran on past the deadline (up to a whole build).
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
mkdir -p "$TMP/s"
LOG=$TMP/starts.log
cat >"$TMP/s/cc.sh" <<SH
echo "\$(date +%s.%N) step \$1" >>"$LOG"
case \$PWD in *fix-check*) sleep 0.55 ;; esac
sleep "\$2"
cat "$ROOT/tests/fixtures/mlir/list-single.txt" >&2
SH
cat >"$TMP/s/chk.sh" <<SH
echo "\$(date +%s.%N) check" >>"$LOG"
sleep 0.5
SH
cat >"$TMP/s/run.sh" <<SH
echo "\$(date +%s.%N) run" >>"$LOG"
sleep 0.2
SH
{
  printf '[sweep]\nname = s\nbackend = command\nrepeats = 3\ntimeout = 2s\n\n[matrix m]\ndelay = 0.05\n\n'
  for s in a b c d; do printf '[step %s]\nargv = sh {spec_dir}/cc.sh %s {delay}\ntool = mlir-opt\n\n' $s $s; done
  printf '[fix fast]\nargv_drop = {delay}\nargv_add = 0.01\nregime = *\nwhy = the sleep is not the compile\n\n'
  printf '[check]\nargv = sh {spec_dir}/chk.sh\n\n[run]\nargv = sh {spec_dir}/run.sh\n'
} >"$TMP/s/s.ini"
check "the study" "$PASSMAP" sweep --quiet --db "$TMP/study.db" "$TMP/s/s.ini"

RANDOM=344
good=0
for trial in 1 2 3 4 5; do
  b=$((4 + RANDOM % 4)).$((RANDOM % 10))
  cp "$TMP/study.db" "$TMP/t$trial.db"
  : >"$LOG"
  t0=$(date +%s.%N)
  "$PASSMAP" fix "$TMP/t$trial.db" --allow-contended --budget "${b}s" --json >"$TMP/t$trial.json" 2>"$TMP/t$trial.err"
  rc=$?
  t1=$(date +%s.%N)
  if python3 - "$TMP/t$trial.json" "$LOG" "$t0" "$t1" "$b" "$rc" <<'PY'
import json, sys
path, log, t0, t1, b, rc = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
took, why = t1 - t0, []
if rc != 0:
    why.append(f"exit {rc}")
if took > b + 2 + 2:
    why.append(f"ran {took:.1f} s")
starts = [(float(l.split()[0]) - t0, " ".join(l.split()[1:])) for l in open(log) if l.strip()]
late = [f"{w} at {t:.2f} s" for t, w in starts if t > b + 0.3]   # passmap's clock starts just after the shell's
if late:
    why.append("started after the deadline: " + ", ".join(late[:4]))
d = json.load(open(path)) if rc == 0 else {}
fast = [r for r in d.get("results", []) if r["variant"] == "fast"]
if rc == 0 and took > b:   # the deadline came: said
    if not d["budget_exhausted"]:
        why.append("budget_exhausted false")
    out = fast[0].get("output", "") if fast else ""
    if out.startswith("unchecked") and "budget" not in out:
        why.append("unchecked, not by the budget: " + out)
print(f"# budget {b} s: ran {took:.1f} s, {len(starts)} processes, last at {max([t for t, _ in starts] or [0]):.2f} s; "
      f"fast: {fast[0]['verdict'] if fast else '-'} / {fast[0].get('output', '-') if fast else '-'} / "
      f"{(fast[0].get('run') or {}).get('error', '') if fast else ''}")
if why:
    print("# " + "; ".join(why))
sys.exit(1 if why else 0)
PY
  then good=$((good + 1)); else tail -3 "$TMP/t$trial.err" | sed 's/^/#   /'; fi
done
[ "$good" = 5 ] && ok "fix --budget B ended within B + one step's timeout, no process after the deadline: $good of 5" \
  || fail "fix --budget B within B + one step's timeout: $good of 5"
finish
