#!/usr/bin/env bash
# Installs passmap's Debian dependencies when any is missing. Idempotent and quiet when all are present.
set -euo pipefail
pkgs=(build-essential pkg-config libsqlite3-dev libjansson-dev libgsl-dev libzstd-dev libxxhash-dev
      libcmocka-dev gnuplot-nox sqlite3 mlir-22-tools llvm-22 clang-22 libclang-rt-22-dev ccache hyperfine python3-pandas
      chromium slurmctld slurmd slurm-client munge     # slurm + munge: a real single-node Slurm for tests/e2e/test_slurm.sh
      llvm-16 llvm-19)   # older opt/llc: tests/e2e/test_realcc.sh checks each LLVM's timers (skips absent ones)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Newest LLVM/MLIR Debian offers when 22 is absent.
if [[ " ${missing[*]} " == *" mlir-22-tools "* ]] && ! apt-cache show mlir-22-tools >/dev/null 2>&1; then
  v=$(apt-cache search --names-only '^mlir-[0-9]+-tools$' | sed -E 's/^mlir-([0-9]+)-tools.*/\1/' | sort -n | tail -1)
  missing=("${missing[@]/mlir-22-tools/mlir-$v-tools}"); missing=("${missing[@]/llvm-22/llvm-$v}")
  missing=("${missing[@]/clang-22/clang-$v}"); missing=("${missing[@]/libclang-rt-22-dev/libclang-rt-$v-dev}")
fi
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
