#!/usr/bin/env bash
# e2e: passmap run (JSON shape and statistics, failures, timeout, per-run stderr files, usage errors).
source "$(dirname "$0")/lib.sh"

json_check() { # FILE PYTHON-EXPR-ON-d: passes when the expression is true
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

"$PASSMAP" run -n 3 --json -- true >"$TMP/true.json"
check "run -n 3 --json true exits 0" test $? -eq 0
check "json: command recorded" json_check "$TMP/true.json" 'd["command"] == ["true"]'
check "json: 3 ok runs" json_check "$TMP/true.json" \
  'len(d["runs"]) == 3 and all(r["status"] == "ok" and r["exit_code"] == 0 and r["signal"] is None for r in d["runs"])'
check "json: summary n, ordering of stats" json_check "$TMP/true.json" \
  '(s := d["summary"]["wall_s"])["n"] == 3 and 0 < s["min"] <= s["median"] <= s["max"] < 5 and s["stddev"] >= 0'
check "json: summary mean matches runs" json_check "$TMP/true.json" \
  'abs(d["summary"]["wall_s"]["mean"] - sum(r["wall_s"] for r in d["runs"]) / 3) < 1e-6'
check "json: maxrss plausible" json_check "$TMP/true.json" '100 < d["summary"]["maxrss_kb"]["min"] < 100000'
check "json: instructions null or positive" json_check "$TMP/true.json" \
  'all(r["instructions"] is None or r["instructions"] > 0 for r in d["runs"])'
check "json: failures all zero" json_check "$TMP/true.json" 'set(d["summary"]["failures"].values()) == {0}'

# Failures are counted, never dropped, and make the exit status 1.
"$PASSMAP" run -n 2 --json -- sh -c 'exit 4' >"$TMP/fail.json"
check "failing command exits 1" test $? -eq 1
check "json: failed runs kept with exit code" json_check "$TMP/fail.json" \
  '[r["exit_code"] for r in d["runs"]] == [4, 4] and d["summary"]["failures"]["failed"] == 2 and d["summary"]["wall_s"] is None'

t0=$SECONDS
"$PASSMAP" run -n 1 --timeout 0.3s --json -- sh -c 'sleep 30 & sleep 30' >"$TMP/timeout.json"
rc=$?
check "timeout exits 1" test $rc -eq 1
check "timeout ends quickly" test $((SECONDS - t0)) -lt 5
check "json: status timeout" json_check "$TMP/timeout.json" \
  'd["runs"][0]["status"] == "timeout" and d["summary"]["failures"]["timeout"] == 1'

"$PASSMAP" run -n 1 --json -- /nonexistent/tool >"$TMP/spawn.json"
check "json: spawn error reported" json_check "$TMP/spawn.json" \
  'd["runs"][0]["status"] == "spawn-error" and "No such file" in d["runs"][0]["spawn_error"]'

# Per-run stderr files, --cwd, and the human table.
mkdir -p "$TMP/wd"
"$PASSMAP" run -n 2 --cwd "$TMP/wd" --stderr "$TMP/err" -- sh -c 'pwd >&2; echo run >&2' >"$TMP/table.txt"
check "table run exits 0" test $? -eq 0
check "stderr kept per run (FILE.1)" grep -qx "$TMP/wd" "$TMP/err.1"
check "stderr kept per run (FILE.2)" grep -qx run "$TMP/err.2"
check "no unsuffixed stderr file with -n 2" test ! -e "$TMP/err"
# the terminal table in the report's one duration format ("5.333 ms"); --json keeps the raw seconds
check "table has a wall row with units" grep -qE '^wall +[0-9.]+ (s|ms|us) +[0-9.]+ (s|ms|us)' "$TMP/table.txt"
check "no raw seconds on the terminal" bash -c "! grep -qE '^wall_s|[0-9]\.[0-9]{6}' '$TMP/table.txt'"
check "table header" grep -qE 'mean +median +stddev +min +max' "$TMP/table.txt"
"$PASSMAP" run -n 1 --stdout "$TMP/out" -- echo hello >/dev/null
check "stdout kept as FILE with -n 1" grep -qx hello "$TMP/out"
"$PASSMAP" run -n 2 -v --warmup 1 -- true >"$TMP/verbose.txt"
check "-v prints one line per run" test "$(grep -c '^run [0-9]: ok' "$TMP/verbose.txt")" -eq 2

# The kernel OOM killer: a run killed by it inside a memory-limited cgroup is `oom` (the cgroup's oom_kill count
# rose), where any other outside SIGKILL is `killed`. A private child of our own memory cgroup (v1 memory
# controller or v2) with a 64 MiB limit, so only the test's own process can be killed. Needs root and a
# writable memory cgroup; otherwise skipped, saying why.
oom_cg=
own_v1=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)$/\3/p' /proc/self/cgroup | head -1)
own_v2=$(sed -n 's/^0:://p' /proc/self/cgroup | head -1)
v1_mnt=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
v2_mnt=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
if [ "$(id -u)" = 0 ] && [ -n "$v1_mnt" ] && [ -n "$own_v1" ] && mkdir "$v1_mnt${own_v1%/}/pm-oom-$$" 2>/dev/null; then
  oom_cg=$v1_mnt${own_v1%/}/pm-oom-$$
  echo $((64 << 20)) >"$oom_cg/memory.limit_in_bytes" 2>/dev/null || { rmdir "$oom_cg"; oom_cg=; }
  echo 0 >"$oom_cg/memory.swappiness" 2>/dev/null || true
elif [ "$(id -u)" = 0 ] && [ -n "$v2_mnt" ] && [ -n "$own_v2" ] && mkdir "$v2_mnt${own_v2%/}/pm-oom-$$" 2>/dev/null; then
  oom_cg=$v2_mnt${own_v2%/}/pm-oom-$$
  { echo $((64 << 20)) >"$oom_cg/memory.max" && echo 0 >"$oom_cg/memory.swap.max"; } 2>/dev/null || { rmdir "$oom_cg"; oom_cg=; }
fi
if [ -n "$oom_cg" ]; then
  # passmap itself moves into the cgroup (it reads its own cgroup's count; the child starts there too)
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$oom_cg" "$PASSMAP" run -n 1 --json -- \
    python3 -c 'b = bytearray(b"x") * (512 << 20)' >"$TMP/oom.json" 2>/dev/null
  check "kernel OOM kill in a memory-limited cgroup is oom, not killed" json_check "$TMP/oom.json" \
    'd["runs"][0]["status"] == "oom" and d["runs"][0]["signal"] == 9'
  rmdir "$oom_cg" 2>/dev/null || true
else
  echo "ok $((_n + 1)) - # SKIP no writable memory cgroup here (needs root and cgroup v1 memory or v2)"; _n=$((_n + 1))
fi

# Usage.
"$PASSMAP" run --help >"$TMP/help.txt"
check "--help exits 0" test $? -eq 0
check "--help prints usage" grep -q 'usage: passmap run' "$TMP/help.txt"
for args in "" "-n 0 -- true" "-n abc -- true" "--timeout 5x -- true" "--timeout -1 -- true" \
            "--mem-limit abc -- true" "--bogus -- true" "-n" "--warmup -1 -- true"; do
  # shellcheck disable=SC2086
  "$PASSMAP" run $args >/dev/null 2>"$TMP/usage.err"
  rc=$?
  check "usage error '$args' exits 2" test $rc -eq 2
done
check "usage error names the problem" grep -q "invalid duration" <("$PASSMAP" run --timeout 5x -- true 2>&1)
finish
