#!/usr/bin/env bash
# Installs the Debian packages one task needs when any is missing. Idempotent and quiet when all are present.
# Usage: scripts/install-deps.sh [--list] [PROFILE...]   (default: all)
#   demo   build + `make demo`: compiler and libraries, gnuplot (figures), MLIR/LLVM (the embedded compiler)
#   test   demo + what `make test` runs: cmocka, the sqlite3/jq/python3 CLIs the e2e scripts use, clang (the
#          command back end's study, libFuzzer), chromium (the HTML report test), a real single-node Slurm,
#          rclone + fuse3 (a FUSE mount of a network type), valgrind (the valgrind meter's tests)
#   bench  demo + the benchmark peers of `make bench` (ccache, hyperfine, pandas, valgrind for bench/meter.sh;
#          DuckDB: Node.js here, then npm's @duckdb/node-api, whose platform package carries the DuckDB binary,
#          into build/duckdb)
#   all    every profile
# --list prints the packages of the profiles (after the LLVM version fallback) and installs nothing.
set -euo pipefail
demo=(build-essential pkg-config libsqlite3-dev libjansson-dev libgsl-dev libzstd-dev libxxhash-dev
      gnuplot-nox mlir-22-tools llvm-22)
test=(libcmocka-dev sqlite3 jq python3 clang-22 libclang-rt-22-dev chromium
      slurmctld slurmd slurm-client munge   # slurm + munge: a real single-node Slurm for tests/e2e/test_slurm.sh
      rclone fuse3   # a real FUSE mount of a network type for tests/e2e/test_journal_fuse.sh
      llvm-16 llvm-19   # older opt/llc: tests/e2e/test_realcc.sh checks each LLVM's timers (skips absent ones)
      libxml2-utils   # xmllint: tests/e2e/test_gate.sh validates the gate's JUnit XML against tests/schemas/junit.xsd
      python3-jsonschema   # tests/e2e/test_export.sh validates the LNT and BMF exports against tests/schemas/
      valgrind   # the valgrind meter (exact instruction counts): tests/e2e/test_meter.sh
      lintian)   # make deb checks the package with it
bench=(sqlite3 ccache hyperfine python3-pandas nodejs valgrind)   # valgrind: bench/meter.sh
# the one npm package (bench/report_duckdb.js), pinned; into build/duckdb, never committed (build/ is ignored)
DUCKDB_NPM=@duckdb/node-api@1.5.6-r.1
list=0
profiles=()
for a in "$@"; do
  case "$a" in
    --list) list=1 ;;
    demo|test|bench|all) profiles+=("$a") ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown profile '$a' (demo, test, bench, all)" >&2; exit 2 ;;
  esac
done
[ ${#profiles[@]} -eq 0 ] && profiles=(all)
pkgs=("${demo[@]}")
for p in "${profiles[@]}"; do
  case "$p" in
    test) pkgs+=("${test[@]}") ;;
    bench) pkgs+=("${bench[@]}") ;;
    all) pkgs+=("${test[@]}" "${bench[@]}") ;;
  esac
done
# each package once, in first-seen order
declare -A seen=()
uniq=()
for p in "${pkgs[@]}"; do [ -n "${seen[$p]:-}" ] || { seen[$p]=1; uniq+=("$p"); }; done
pkgs=("${uniq[@]}")
# Newest LLVM/MLIR Debian offers when 22 is absent (apt-cache needs no root; without package lists: 22).
if ! apt-cache show mlir-22-tools >/dev/null 2>&1; then
  v=$(apt-cache search --names-only '^mlir-[0-9]+-tools$' 2>/dev/null | sed -E 's/^mlir-([0-9]+)-tools.*/\1/' | sort -n | tail -1)
  if [ -n "$v" ]; then
    pkgs=("${pkgs[@]/mlir-22-tools/mlir-$v-tools}"); pkgs=("${pkgs[@]/llvm-22/llvm-$v}")
    pkgs=("${pkgs[@]/clang-22/clang-$v}"); pkgs=("${pkgs[@]/libclang-rt-22-dev/libclang-rt-$v-dev}")
  fi
fi
if [ "$list" = 1 ]; then printf '%s\n' "${pkgs[@]}"; exit 0; fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
want_npm=0
for p in "${profiles[@]}"; do case "$p" in bench|all) want_npm=1 ;; esac; done
npm_step() {
  [ "$want_npm" = 1 ] || return 0
  local dir; dir="$(cd "$(dirname "$0")/.." && pwd)/build/duckdb"
  [ -d "$dir/node_modules/@duckdb/node-api" ] && return 0
  echo "installing (bench): $DUCKDB_NPM into $dir" >&2
  # Debian's nodejs comes without npm (its own package); a nodejs that bundles it conflicts with that package
  command -v npm >/dev/null || ${SUDO:-} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends npm >/dev/null
  mkdir -p "$dir" && npm install --prefix "$dir" --no-audit --no-fund --silent "$DUCKDB_NPM" >&2
}
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ ${#missing[@]} -eq 0 ]; then npm_step; exit; fi
# root (a container, a fresh Debian whose minimal install has no sudo) runs apt itself; anyone else needs sudo
if [ -n "$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "install-deps.sh: missing packages and no sudo to install them: as root, run" \
       "apt-get install --no-install-recommends ${missing[*]} (or install sudo), then run this again" >&2
  exit 1
fi
echo "installing (${profiles[*]}): ${missing[*]}" >&2
# through env: sudo drops DEBIAN_FRONTEND from the environment, and a debconf question would wait for an answer
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# A fresh machine's empty package lists hid the newest version above: look again now.
if [[ " ${missing[*]} " == *" mlir-22-tools "* ]] && ! apt-cache show mlir-22-tools >/dev/null 2>&1; then
  v=$(apt-cache search --names-only '^mlir-[0-9]+-tools$' | sed -E 's/^mlir-([0-9]+)-tools.*/\1/' | sort -n | tail -1)
  missing=("${missing[@]/mlir-22-tools/mlir-$v-tools}"); missing=("${missing[@]/llvm-22/llvm-$v}")
  missing=("${missing[@]/clang-22/clang-$v}"); missing=("${missing[@]/libclang-rt-22-dev/libclang-rt-$v-dev}")
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
npm_step
