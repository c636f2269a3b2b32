# Sourced by e2e tests: TAP output ("ok N - desc" / "not ok N - desc") that tests/run-tests.sh tallies.
# Provides: $PASSMAP (binary), $ROOT, $TMP (cleaned on exit), ok, fail, check, check_fails, finish.
set -u
ROOT=${PASSMAP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PASSMAP=${PASSMAP:-$ROOT/build/passmap}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pm-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0; _failed=0
ok()   { _n=$((_n + 1)); echo "ok $_n - $*"; }
fail() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
# check DESC CMD...: passes when CMD exits 0; shows its output on failure.
check() {
  local desc=$1; shift
  local out
  if out=$("$@" 2>&1); then ok "$desc"; else fail "$desc"; echo "$out" | tail -n 20 | sed 's/^/#   /'; fi
}
# check_fails DESC CMD...: passes when CMD exits non-zero (and did not crash with a signal).
check_fails() {
  local desc=$1; shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ]; then ok "$desc"; else fail "$desc (rc=$rc)"; echo "$out" | tail -n 20 | sed 's/^/#   /'; fi
}
finish() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
# LLVM tools used by the real-compiler tests.
LLVM_BIN=${PASSMAP_LLVM_BINDIR:-$(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -V | tail -1)}
