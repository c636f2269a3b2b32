#!/usr/bin/env bash
# Benchmark of `passmap report`: analysis (+ figures) of a 1,500-run sweep (150 configs x 10 repeats, ~250
# counted passes per run, replayed from real mlir-opt/llc timing reports by scripts/make-bench-db.py), against
# the same aggregation in Python/pandas (bench/report_ref.py), side by side with hyperfine.
# Targets: analysis + figures < 2 s; analysis >= 10x faster than pandas. Exits 1 when a target is missed.
# Usage: bench/report.sh [PASSMAP_BINARY]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/passmap}
db=${PASSMAP_BENCH_DB:-$root/build/bench-report.db}
py=/usr/bin/python3
[ -s "$db" ] || "$py" "$root/scripts/make-bench-db.py" bench "$db"
maps=("$root"/data/stages-*.tsv)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the two must agree before their speed means anything
c_dom=$("$bin" report "$db" --json | "$py" -c 'import json,sys,collections; j=json.load(sys.stdin); print(dict(collections.Counter(c["dominant_stage"] for c in j["configs"])))')
p_out=$("$py" "$root/bench/report_ref.py" "$db" "${maps[@]}")
echo "passmap dominant stages: $c_dom"
echo "pandas:                  $p_out"
hyperfine -N -w 1 -r 5 --export-json "$tmp/h.json" \
  "$bin report $db" \
  "$bin report $db --figures $tmp/figs" \
  "$py $root/bench/report_ref.py $db ${maps[*]}"
"$py" - "$tmp/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
c, cf, p = (x["mean"] for x in r)
print(f"analysis {c:.3f} s, analysis+figures {cf:.3f} s, pandas {p:.3f} s, ratio pandas/C {p / c:.1f}x")
ok = cf < 2.0 and p / c >= 10
print("targets (analysis+figures < 2 s, >= 10x pandas):", "met" if ok else "MISSED")
sys.exit(0 if ok else 1)
PY
