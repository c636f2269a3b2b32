#!/usr/bin/env bash
# The main job: a small sweep on the embedded compiler (MLIR/LLVM), then the report (text + HTML).
# Usage: scripts/demo.sh [PASSMAP_BINARY]
# An earlier demo in demo-out/ is kept and resumed (its finished runs are not measured again);
# DEMO_FRESH=1 (make demo DEMO_FRESH=1) replaces it, and says so. DEMO_METER=valgrind (opt-in) sweeps under
# that meter instead (exact instruction counts decide the A/B marks; ~20-100x slower; no warm runs) into
# demo-out/demo-METER.db, running DEMO_JOBS compiles at once (default: one per core; a count does not move when
# runs share the machine, and the sweep refuses --jobs under the wall meter).
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
db=$out/demo.db
meter=()
if [ -n "${DEMO_METER:-}" ]; then   # its own store: a sweep does not mix meters
  db=$out/demo-$DEMO_METER.db
  meter=(--meter "$DEMO_METER" --no-warm)
  case $DEMO_METER in wall | auto) ;; *) meter+=(--jobs "${DEMO_JOBS:-$(nproc)}") ;; esac
fi
echo "== sweep (studies/demo.ini${DEMO_METER:+, meter $DEMO_METER}) =="
start=$(date +%s)
"$pm" sweep "${meter[@]}" --db "$db" "$root/studies/demo.ini"
echo "sweep took $(( $(date +%s) - start )) s"
echo "== report =="
"$pm" report "$db" --html "$out/report.html" --figures "$out/figures" | tee "$out/report.txt"
"$pm" report "$db" --json > "$out/report.json"
echo "report: $out/report.html (text: $out/report.txt, JSON: $out/report.json)"
echo "next: passmap show $db   (every config's cold wall; --config KEY for one compile's pass tree)"
