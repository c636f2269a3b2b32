#!/usr/bin/env bash
# Runs every unit binary (cmocka, TAP output) and every e2e script (TAP lines via tests/e2e/lib.sh),
# tallies "ok"/"not ok" lines, and ends with one summary line: "N passed, N failed, N skipped" (an "ok" line with
# a TAP "# SKIP" directive is a skip, not a pass).
# A binary or script that exits non-zero without reporting a failure counts as one failure.
# Usage: tests/run-tests.sh [--unit-only] BUILD_DIR [FILTER]
set -u
unit_only=0
[ "${1:-}" = "--unit-only" ] && { unit_only=1; shift; }
build=${1:?usage: run-tests.sh [--unit-only] BUILD_DIR [FILTER]}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
export PASSMAP="$build/passmap" PASSMAP_BUILD="$build" PASSMAP_ROOT="$root"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/passmap-tests.XXXXXX")
passed=0; failed=0; skipped=0; failures=()

run_one() { # name, command...
  local name=$1; shift
  local log="$logdir/$(echo "$name" | tr '/ ' '__').log"
  local t0=$SECONDS
  "$@" >"$log" 2>&1 </dev/null
  local rc=$?
  local p f s
  p=$(grep -cE '^ok [0-9]+' "$log")
  s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
  p=$((p - s))
  f=$(grep -cE '^not ok [0-9]+' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then f=1; echo "no test reported" >>"$log"; fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  printf '%-44s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
  if [ "$f" -gt 0 ]; then
    failures+=("$name")
    grep -E '^not ok|ERROR|error:|Assertion|runtime error|AddressSanitizer|LeakSanitizer' "$log" | head -20 | sed 's/^/    /'
    echo "    (log: $log; last lines:)"; tail -n 15 "$log" | sed 's/^/    | /'
  fi
}

for bin in "$build"/tests/test_*; do
  [ -x "$bin" ] || continue
  case "$bin" in *.so) continue;; esac
  name="unit/$(basename "$bin")"
  [ -n "$filter" ] && [[ "$name" != *"$filter"* ]] && continue
  run_one "$name" "$bin"
done
if [ "$unit_only" -eq 0 ]; then
  for sh in "$root"/tests/e2e/test_*.sh; do
    [ -f "$sh" ] || continue
    name="e2e/$(basename "$sh" .sh)"
    [ -n "$filter" ] && [[ "$name" != *"$filter"* ]] && continue
    run_one "$name" bash "$sh"
  done
fi
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
