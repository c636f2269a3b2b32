#!/usr/bin/env bash
# The sweep's ETA from measured per-config times (issue 23): with a fast and a slow config interleaved, what
# is left after the fast one's second run is the slow one's run, not the average run (which said 0-1 s here).
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
cat > eta.ini <<'INI'
[sweep]
name = eta
backend = command
repeats = 2

[matrix m]
t = 0.05, 2

[step s]
argv = sh -c "sleep {t}; cat '{spec_dir}/report.txt' >&2"
INI
# a real mlir-opt timing report, so each run is ok (a run without one is no-report, and a sweep of those fails)
cp "$ROOT/tests/fixtures/mlir/list-single.txt" report.txt
out=$("$PASSMAP" sweep eta.ini 2>&1); rc=$?
[ $rc = 0 ] && ok "sweep ran" || fail "sweep rc=$rc: $out"
# rounds are shuffled: what is left after run 3 is whichever config run 4 is
line=$(echo "$out" | grep '^\[3/4\] ')
eta=$(echo "$line" | sed -n 's/.*ETA \([0-9]*\)s$/\1/p')
if echo "$out" | grep -q '^\[4/4\] m/t=2 '; then
  [ -n "$eta" ] && [ "$eta" -ge 2 ] && [ "$eta" -le 4 ] && ok "ETA with the slow run left: its time (${eta}s)" || fail "ETA: $line"
else
  [ "$eta" = 0 ] && ok "ETA with the fast run left: 0s" || fail "ETA: $line"
fi
echo "$out" | grep -q '^\[4/4\] .*ETA 0s$' && ok "ETA 0s at the end" || fail "last line: $(echo "$out" | grep '^\[4/4\]')"
finish
