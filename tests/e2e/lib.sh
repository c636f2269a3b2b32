# Sourced by e2e tests: TAP output ("ok N - desc" / "not ok N - desc") that tests/run-tests.sh tallies.
# Provides: $PASSMAP (binary), $ROOT, $TMP (cleaned on exit), ok, fail, check, check_fails, finish, slurm_up,
# gen_c (a C file of N generated functions, for the real-compiler tests).
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
# slurm_up: starts the single-node Slurm of tests/support/slurm-single-node.sh for this test (root; in CI it is
# installed first) and exports SLURM_TEST_DIR and SLURM_CONF; the EXIT trap then stops it. Where it cannot
# start, the test ends with a SKIP, or, in CI, a failure (the cause, in the log).
slurm_up() {
  local support=$ROOT/tests/support/slurm-single-node.sh rc
  _slurm_skip() {
    if [ "${CI:-}" = true ]; then fail "Slurm did not start in CI: $1"; else echo "ok $((_n + 1)) - # SKIP Slurm cannot start here: $1"; _n=$((_n + 1)); fi
    finish; exit
  }
  [ "$(id -u)" -eq 0 ] || _slurm_skip "not root"
  chmod 0711 "$TMP" # munged runs as the munge user and must reach its folder inside
  export SLURM_TEST_DIR=$TMP/slurm
  # stderr kept: in CI a failed install is a failure whose cause must be in the log
  if [ "${CI:-}" = true ]; then "$support" install || _slurm_skip "installing slurmctld slurmd slurm-client munge failed"; fi
  trap 'SLURM_TEST_DIR=$SLURM_TEST_DIR "$ROOT/tests/support/slurm-single-node.sh" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
  "$support" up > "$TMP/up.out" 2> "$TMP/up.err"; rc=$?
  if [ "$rc" -ne 0 ]; then
    [ "$rc" = 3 ] && _slurm_skip "$(tail -1 "$TMP/up.err")"
    fail "single-node Slurm did not start"; sed 's/^/#   /' "$TMP/up.err" | tail -30; finish; exit
  fi
  export SLURM_CONF=$SLURM_TEST_DIR/slurm.conf
}
# LLVM tools used by the real-compiler tests.
LLVM_BIN=${PASSMAP_LLVM_BINDIR:-$(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -V | tail -1)}

# chrome_flags: headless Chromium as the HTML tests run it (a fresh profile under $TMP, files may read files).
chrome_flags() {
  CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
                --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")"
                --allow-file-access-from-files)
}
# chrome_page_checks PAGE WHAT [FLAGS...]: opens PAGE, a check page that writes TAP lines into <pre id="result">
# ending with "# end of checks", and reports each as "chromium: ..." (WHAT names the checks when none ran);
# Chromium's stderr in $TMP/chrome.err.
chrome_page_checks() {
  local page=$1 what=$2 dom res line; shift 2
  chrome_flags
  dom=$(timeout 180 chromium "${CHROME_FLAGS[@]}" "$@" --dump-dom "file://$page" 2>"$TMP/chrome.err")
  res=$(echo "$dom" | sed -n '/<pre id="result">/,/# end of checks/p' | sed 's/<pre id="result">//; s/&gt;/>/g')
  echo "$res" | grep -q '# end of checks' && ok "chromium: the $what ran" || fail "chromium: no result: $(tail -3 "$TMP/chrome.err")"
  while IFS= read -r line; do
    case $line in
      "ok - "*) ok "chromium: ${line#ok - }" ;;
      "not ok - "*) fail "chromium: ${line#not ok - }" ;;
    esac
  done <<<"$res"
}
# report_fixture DB: the report fixture (a real sweep, tests/fixtures/report) as a passmap store at DB.
report_fixture() {
  { gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
    | sqlite3 "$1"
}
# gen_c N FILE: N functions with loops, branches and a switch (about 13 lines each)
gen_c() {
    python3 - "$1" "$2" <<'PY'
import sys
n, path, out = int(sys.argv[1]), sys.argv[2], []
for i in range(n):
    out.append(f"""struct s{i} {{ int a[16]; double d; }};
int f{i}(int *p, int n, struct s{i} *q) {{
  int acc = {i};
  for (int k = 0; k < n; k++) {{
    acc += p[k] * {i % 7 + 1} + q->a[k & 15];
    if (acc > {1000 + i}) acc ^= k << 2; else acc -= p[(k * 3) % n];
    for (int j = 0; j < 16; j++) q->a[j] += acc >> (j & 7);
  }}
  q->d = acc * 0.5 + {i}.25;
  switch (acc & 7) {{ case 0: return acc + 1; case 1: return acc * 3; case 2: return acc - 2; default: break; }}
  return acc;
}}
""")
open(path, "w").write("".join(out))
PY
}
