#!/usr/bin/env bash
# Every libFuzzer harness (tests/fuzz/, built by make check with clang-22) runs a fixed 3000 inputs from the
# committed seeds after replaying every crash found so far; any crash, leak or sanitizer report fails, and so does
# a harness left without a seed.
source "$(dirname "$0")/lib.sh"
FUZZ_DIR=${PASSMAP_BUILD:-$ROOT/build}/fuzz
if ! ls "$FUZZ_DIR"/fuzz_* >/dev/null 2>&1; then
  fail "no fuzz harnesses in $FUZZ_DIR (needs clang-22: make deps, then make check)"
  finish; exit
fi
# A relative binary path on purpose: `make fuzz` passed one and the cache-entry harness then ran unseeded.
exec "$ROOT/tests/fuzz/run.sh" "$FUZZ_DIR" "$(realpath --relative-to="$PWD" "$PASSMAP")" 3000
