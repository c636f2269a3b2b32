#!/usr/bin/env bash
# The main job: a small sweep on the embedded compiler (MLIR/LLVM), then the report (text + HTML).
# Usage: scripts/demo.sh [PASSMAP_BINARY]   (DEMO_RESUME=1 keeps an earlier demo database and resumes it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pm=${1:-$root/build/passmap}
out=$root/demo-out
[ "${DEMO_RESUME:-0}" = 1 ] || rm -rf "$out"
mkdir -p "$out"
echo "== sweep (studies/demo.ini) =="
"$pm" sweep --db "$out/demo.db" "$root/studies/demo.ini"
echo "== report =="
"$pm" report "$out/demo.db" --html "$out/report.html" --figures "$out/figures" | tee "$out/report.txt"
"$pm" report "$out/demo.db" --json > "$out/report.json"
echo "report: $out/report.html (text: $out/report.txt, JSON: $out/report.json)"
