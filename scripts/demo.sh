#!/usr/bin/env bash
# The main job: a small sweep on the embedded compiler (MLIR/LLVM), then the report (text + HTML).
# Usage: scripts/demo.sh [PASSMAP_BINARY]
# An earlier demo in demo-out/ is kept and resumed (its finished runs are not measured again);
# DEMO_FRESH=1 (make demo DEMO_FRESH=1) replaces it, and says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pm=${1:-$root/build/passmap}
out=${DEMO_OUT:-$root/demo-out}
if [ -e "$out" ]; then
  if [ "${DEMO_FRESH:-0}" = 1 ]; then
    echo "DEMO_FRESH=1: replacing the earlier demo in $out"
    rm -rf "$out"
  elif [ -e "$out/demo.db" ]; then
    echo "resuming the earlier demo in $out (its finished runs are kept; make demo DEMO_FRESH=1 starts over)"
  fi
fi
mkdir -p "$out"
echo "== sweep (studies/demo.ini) =="
"$pm" sweep --db "$out/demo.db" "$root/studies/demo.ini"
echo "== report =="
"$pm" report "$out/demo.db" --html "$out/report.html" --figures "$out/figures" | tee "$out/report.txt"
"$pm" report "$out/demo.db" --json > "$out/report.json"
echo "report: $out/report.html (text: $out/report.txt, JSON: $out/report.json)"
echo "next: passmap show $out/demo.db   (every config's cold wall; --config KEY for one compile's pass tree)"
