#!/usr/bin/env bash
# Benchmark of `passmap report`: analysis (+ figures) of sweeps replayed from a real sweep's runs by
# scripts/make-bench-db.py (10 cold repeats per config, ~250 counted passes per run), against the same
# aggregation in Python/pandas (bench/report_ref.py) and in DuckDB over Parquet (bench/report_duckdb.js; the
# rows are exported to Parquet once per store, beside it, and that export is not timed), side by side with
# hyperfine, at each store size.
# Sizes (configs; x10 = runs): BENCH_REPORT_CONFIGS, default "150 1500" (1.5k and 15k runs); add 15000 for the
# 150k-run store (~3.7 GB, minutes to build). A scaling line per tool is printed at the end.
# Targets: analysis + figures < 2 s at 1.5k runs and < 5 s at 15k; analysis >= 10x faster than pandas at 1.5k;
# issue 24's at 15k (>= 30x pandas, >= 1x DuckDB) and 150k (analysis <= 5 s, with figures <= 10 s, >= 30x pandas).
# Usage: bench/report.sh PASSMAP_BINARY   (PASSMAP_BENCH_DB: use this one database instead of the sizes)
source "$(dirname "$0")/lib.sh"
bench_require_hyperfine || { bench_skip report all "hyperfine missing"; exit 0; }
"$PY" -c 'import pandas, numpy' 2>/dev/null || { bench_skip report vs_pandas "python3-pandas missing"; exit 0; }
maps=("$ROOT"/data/stages-*.tsv)
# DuckDB from npm (scripts/install-deps.sh bench puts @duckdb/node-api in build/duckdb): skipped when absent
duck=1
DUCKDB_NODE_DIR=${DUCKDB_NODE_DIR:-$ROOT/build/duckdb}; export DUCKDB_NODE_DIR
if ! command -v node >/dev/null || [ ! -d "$DUCKDB_NODE_DIR/node_modules/@duckdb/node-api" ]; then
  duck=0; bench_skip report vs_duckdb "node or @duckdb/node-api missing (scripts/install-deps.sh bench)"
fi
export PASSMAP_DATA_DIR=$ROOT/data
sizes=${BENCH_REPORT_CONFIGS:-150 1500}
[ -n "${PASSMAP_BENCH_DB:-}" ] && sizes=given
scaling=
# the schema this passmap writes (a tiny store made here): a kept bench store of an older schema is rebuilt, as
# a reader reads an older file as it is (schema 6's interned pass names would not be measured)
"$PASSMAP" import --db "$BENCH_TMP/schema.db" "$ROOT/tests/fixtures/llvm/llc-time-passes.txt" >/dev/null || exit 1
schema=$(sqlite3 "$BENCH_TMP/schema.db" "PRAGMA user_version") || exit 1
for n in $sizes; do
  if [ "$n" = given ]; then db=$PASSMAP_BENCH_DB; else db=$ROOT/build/bench-report-$n.db; fi
  if [ "$n" != given ] && [ -s "$db" ] && [ "$(sqlite3 "$db" "PRAGMA user_version")" -lt "$schema" ]; then
    echo "report: $db is of an older schema: rebuilt as schema $schema (passmap merge)" >&2
    mv "$db" "$BENCH_TMP/old-$n.db" && rm -f "$db-wal" "$db-shm" || exit 1
    "$PASSMAP" merge "$db" "$BENCH_TMP/old-$n.db" >&2 || exit 1
    rm -f "$BENCH_TMP/old-$n.db"
  fi
  # built from a schema-1 dump, then merged into a store of today's schema: an old file would be migrated in
  # a memory copy at every read-only open (three per report), which is not what a user's store costs
  if [ ! -s "$db" ]; then
    BENCH_CONFIGS=$n "$PY" "$ROOT/scripts/make-bench-db.py" "$BENCH_TMP/v1-$n.db" >&2 || exit 1
    "$PASSMAP" merge "$db" "$BENCH_TMP/v1-$n.db" >&2 || exit 1
    rm -f "$BENCH_TMP/v1-$n.db"
  fi
  runs=$(sqlite3 "$db" "SELECT count(*) FROM run WHERE mode='cold' AND status='ok'") || exit 1
  # the two must agree before their speed means anything
  c_dom=$("$PASSMAP" report "$db" --json | "$PY" -c 'import json,sys,collections; j=json.load(sys.stdin); print(dict(sorted(collections.Counter(c["dominant_stage"] for c in j["configs"]).items())))') || exit 1
  t0=$EPOCHREALTIME
  p_dom=$("$PY" "$ROOT/bench/report_ref.py" "$db" "${maps[@]}" | "$PY" -c 'import ast,re,sys; s=sys.stdin.read(); print(dict(sorted(ast.literal_eval(re.search(r"dominant=(\{[^}]*\})", s).group(1)).items())))') || exit 1
  t_p=$("$PY" -c "print($EPOCHREALTIME - $t0)")
  echo "$runs runs: passmap dominant stages $c_dom; pandas $p_dom"
  [ "$c_dom" = "$p_dom" ] || { echo "report: passmap and pandas disagree on the dominant stages at $runs runs" >&2; exit 1; }
  duck_cmd=()
  if [ "$duck" = 1 ]; then
    pq=$db.parquet   # the rows DuckDB reads, exported once per store (not timed), rebuilt when the store is newer
    if [ ! -s "$pq/pass_time.parquet" ] || [ "$db" -nt "$pq/pass_time.parquet" ]; then
      rm -rf "$pq" && node "$ROOT/bench/report_duckdb.js" export "$db" "$pq" >&2 || exit 1
    fi
    t0=$EPOCHREALTIME
    d_dom=$(node "$ROOT/bench/report_duckdb.js" "$pq" "${maps[@]}" | "$PY" -c 'import ast,re,sys; s=sys.stdin.read(); print(dict(sorted(ast.literal_eval(re.search(r"dominant=(\{[^}]*\})", s).group(1)).items())))') || exit 1
    t_d=$("$PY" -c "print($EPOCHREALTIME - $t0)")
    echo "$runs runs: DuckDB dominant stages $d_dom"
    [ "$c_dom" = "$d_dom" ] || { echo "report: passmap and DuckDB disagree on the dominant stages at $runs runs" >&2; exit 1; }
    duck_cmd=("node $ROOT/bench/report_duckdb.js $pq ${maps[*]}")
  fi
  # At 15k runs and above the agreement check just above ran each tool once on this store (its warm-up: the
  # pages are cached), and pandas takes 10-15 s a run: no warm-up and fewer runs keep make bench within 5 minutes
  # Above 20k runs (pandas ~3 min a run) the peers' agreement runs just above are their one timed run (their
  # parse of the printed stages, ~0.1 s, is inside it), and hyperfine times passmap alone, twice
  r=3; w=1; [ "$runs" -gt 5000 ] && r=2 && w=0
  peers=("$PY $ROOT/bench/report_ref.py $db ${maps[*]}" "${duck_cmd[@]}")
  [ "$runs" -gt 20000 ] && peers=()
  hyperfine -N -w "$w" -r "$r" --export-json "$BENCH_TMP/h$n.json" \
    "$PASSMAP report $db" \
    "$PASSMAP report $db --figures $BENCH_TMP/figs$n" "${peers[@]}" >&2 || exit 1
  read -r c cf p d <<<"$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(*(x["mean"] for x in r))' "$BENCH_TMP/h$n.json")"
  if [ "$runs" -gt 20000 ]; then
    p=$t_p; d=; [ "$duck" = 1 ] && d=$t_d
    echo "report: at $runs runs pandas took $p s and DuckDB ${d:-(not run)} s in their one run (the agreement run)"
  fi
  target_f=-; target_p=-; target_d=-
  case $runs in  # the issues' targets, at the sizes they name
    1500) target_f='value<2'; target_p='ratio<=0.1' ;;
    15000) target_f='value<5'; target_p='ratio<=0.0334'; target_d='ratio<=1' ;;
    150000) target_f='value<=10'; target_p='value<=5&&ratio<=0.0334' ;;
  esac
  bench_result report "analysis_plus_figures_${runs}runs" "$cf" s - "$target_f" "$runs runs, figures via gnuplot"
  bench_result report "analysis_vs_pandas_${runs}runs" "$c" s "$p" "$target_p" "same aggregation in pandas (bench/report_ref.py)"
  line=$(printf '%8d runs: passmap %7.2f s (+figures %7.2f s), pandas %8.2f s, pandas/passmap %5.1fx' "$runs" "$c" "$cf" "$p" "$("$PY" -c "print($p/$c)")")
  if [ -n "${d:-}" ]; then
    bench_result report "analysis_vs_duckdb_${runs}runs" "$c" s "$d" "$target_d" "same aggregation in DuckDB over Parquet (bench/report_duckdb.js; the Parquet export is not timed)"
    line="$line$(printf ', DuckDB %7.2f s, duckdb/passmap %5.2fx' "$d" "$("$PY" -c "print($d/$c)")")"
  fi
  scaling="$scaling$line"$'\n'
done
echo "scaling of the report with the store size (means of hyperfine runs):"
printf '%s' "$scaling"
