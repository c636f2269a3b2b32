#!/usr/bin/env bash
# tests/run-tests.sh itself: a TAP "# SKIP" line is counted as a skip, not a pass, and its last line says so;
# a binary that reports nothing, or exits non-zero without a "not ok", is a failure.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/b/tests"
fake() { # name, script body
  printf '#!/bin/sh\n%s\n' "$2" > "$TMP/b/tests/$1"; chmod +x "$TMP/b/tests/$1"
}
fake test_a 'echo "ok 1 - runs"; echo "ok 2 - # SKIP no tool here"; echo "ok 3 - skipped as root (# SKIP)"'
"$ROOT/tests/run-tests.sh" --unit-only "$TMP/b" > "$TMP/out" 2>&1
check "one pass and two skips" grep -qx "1 passed, 0 failed, 2 skipped" "$TMP/out"
fake test_b 'echo "ok 1 - # SKIP nothing runs"'
"$ROOT/tests/run-tests.sh" --unit-only "$TMP/b" test_b > "$TMP/out" 2>&1
check "a binary whose only test is skipped is no failure" grep -qx "0 passed, 0 failed, 1 skipped" "$TMP/out"
fake test_c 'exit 0'
check_fails "a binary that reports no test fails the run" "$ROOT/tests/run-tests.sh" --unit-only "$TMP/b" test_c
fake test_d 'echo "ok 1 - fine"; exit 3'
"$ROOT/tests/run-tests.sh" --unit-only "$TMP/b" test_d > "$TMP/out" 2>&1
check "a non-zero exit without a not-ok counts as one failure" grep -qx "1 passed, 1 failed, 0 skipped" "$TMP/out"
finish
