#!/usr/bin/env bash
# Benchmark of `passmap report`: analysis (+ figures) of a 1,500-run sweep (150 configs x 10 repeats, ~250
# counted passes per run, replayed from a real sweep's runs by scripts/make-bench-db.py), against
# the same aggregation in Python/pandas (bench/report_ref.py), side by side with hyperfine.
# Targets: analysis + figures < 2 s; analysis >= 10x faster than pandas.
# Usage: bench/report.sh PASSMAP_BINARY   (PASSMAP_BENCH_DB: reuse a database; default build/bench-report.db)
source "$(dirname "$0")/lib.sh"
bench_require_hyperfine || { bench_skip report all "hyperfine missing"; exit 0; }
"$PY" -c 'import pandas, numpy' 2>/dev/null || { bench_skip report vs_pandas "python3-pandas missing"; exit 0; }
db=${PASSMAP_BENCH_DB:-$ROOT/build/bench-report.db}
[ -s "$db" ] || "$PY" "$ROOT/scripts/make-bench-db.py" "$db" || exit 1
maps=("$ROOT"/data/stages-*.tsv)
export PASSMAP_DATA_DIR=$ROOT/data
# the two must agree before their speed means anything
c_dom=$("$PASSMAP" report "$db" --json | "$PY" -c 'import json,sys,collections; j=json.load(sys.stdin); print(dict(collections.Counter(c["dominant_stage"] for c in j["configs"])))') || exit 1
p_out=$("$PY" "$ROOT/bench/report_ref.py" "$db" "${maps[@]}") || exit 1
echo "passmap dominant stages: $c_dom"
echo "pandas:                  $p_out"
hyperfine -N -w 1 -r 5 --export-json "$BENCH_TMP/h.json" \
  "$PASSMAP report $db" \
  "$PASSMAP report $db --figures $BENCH_TMP/figs" \
  "$PY $ROOT/bench/report_ref.py $db ${maps[*]}" >&2 || exit 1
read -r c cf p <<<"$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(*(x["mean"] for x in r))' "$BENCH_TMP/h.json")"
bench_result report analysis_plus_figures "$cf" s - 'value<2' "1500 runs, 9 figure slots via gnuplot"
bench_result report analysis_vs_pandas "$c" s "$p" 'ratio<=0.1' "same aggregation in pandas (bench/report_ref.py)"
