#!/usr/bin/env bash
# Writes SHARDS shard databases of one synthetic study into OUTDIR (shard-K.db), RUNS_PER_SHARD cold runs each,
# 3 steps per run with PASSES pass rows each and 2 run metrics, in passmap's own schema (taken from a store
# `passmap import` creates) and as a sharded sweep lays them out: one sweep, the shard's configs, its host.
# For `make bench` (bench/merge.sh) and the kill-mid-merge test; the rows are synthetic, the schema is real.
# Usage: scripts/make-shard-stores.sh PASSMAP OUTDIR SHARDS RUNS_PER_SHARD [PASSES]
set -euo pipefail
pm=$1 out=$2 shards=$3 per=$4 passes=${5:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
tmpl=$out/.template.db
rm -f "$tmpl"
"$pm" import --db "$tmpl" "$root/tests/fixtures/llvm/llc-time-passes.txt" >/dev/null
sqlite3 "$tmpl" "DELETE FROM agg_cfg_pass; DELETE FROM agg_pass_stage; DELETE FROM agg_run_stage; DELETE FROM agg_run;
                 DELETE FROM pass_time; DELETE FROM pass_name; DELETE FROM metric; DELETE FROM step; DELETE FROM run;
                 DELETE FROM config; DELETE FROM sweep; DELETE FROM meta; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
configs=$(( (per + 2) / 3 ))
# Shard 1 is built row by row; the others are copies of it renamed to their own configs and host (fast).
for k in 1; do
  db=$out/shard-$k.db
  rm -f "$db" "$db-wal" "$db-shm"
  cp "$tmpl" "$db"
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA foreign_keys = OFF;
BEGIN;
INSERT INTO sweep(id, name, backend, spec_text, meta_json)
  VALUES(1, 'bench-merge', 'embedded', '[sweep]\nname = bench-merge\nrepeats = 3\n',
         '{"compiler":"MLIR/LLVM","compiler_version":"22.1.8"}');
INSERT INTO host(id, name, fingerprint, cpu_model, cores, kernel, machine, compiler)
  VALUES(1, 'node-$k', 'f00d$k', 'bench CPU', 8, '6.1.0', 'x86_64', 'MLIR/LLVM 22.1.8');
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < $configs)
INSERT INTO config(id, sweep_id, key, kind, family, size, window, precision, layers, variant)
  SELECT i + 1, 1, printf('llm/f%d/s%d/w128/int8/L1/stock', $k, i), 'llm', 'f$k', 's' || i, 128, 'int8', 1, 'stock'
  FROM c;
WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i + 1 < $per)
INSERT INTO run(id, config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb, started_at, note, host_id)
  SELECT i + 1, i / 3 + 1, i % 3, 'cold', 'ok', 1.0 + (i % 7) * 0.1, 0.9, 0.1, 100000 + i,
         '2026-01-01T00:00:00.000Z', NULL, 1 FROM r;
INSERT INTO step(id, run_id, seq, tool, argv, status, wall_s, user_s, sys_s, maxrss_kb, instructions, exit_code,
                 term_signal, report_format, report_wall_s)
  SELECT (r.id - 1) * 3 + s.seq + 1, r.id, s.seq, s.tool, s.tool || ' -time-passes in.mlir', 'ok', 0.3, 0.3, 0.03,
         90000, 123456789, 0, 0, 'llvm-text', 0.29
  FROM run r, (SELECT 0 AS seq, 'mlir-opt' AS tool UNION ALL SELECT 1, 'mlir-translate' UNION ALL SELECT 2, 'llc') s;
WITH RECURSIVE p(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM p WHERE i + 1 < $passes)
INSERT INTO pass_name(id, name) SELECT i + 1, 'pass-' || i FROM p;
WITH RECURSIVE p(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM p WHERE i + 1 < $passes)
INSERT INTO pass_time(step_id, idx, name_id, section, parent_idx, depth, wall_s, user_s, flags, report_index, counted)
  SELECT st.id, p.i, p.i + 1, NULL, NULL, 0, 0.001 * (p.i + 1), 0.001 * (p.i + 1), 0, 0, 1 FROM step st, p;
INSERT INTO metric(run_id, step_id, name, value) SELECT id, NULL, 'ir.ops', 1000 + config_id FROM run;
INSERT INTO metric(run_id, step_id, name, value) SELECT id, NULL, 'ir.llvm_ops', 20000 + config_id FROM run;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
  # the report's aggregates, as a sweep's writer keeps them in each shard: summed by passmap merge of the raw
  # rows into a fresh store (ids unchanged); then the shard plan (merge would refuse one shard of N alone) and
  # no merge log row (a shard has none)
  mv "$db" "$out/raw-$k.db"
  PASSMAP_DATA_DIR=${PASSMAP_DATA_DIR:-$root/data} "$pm" merge "$db" "$out/raw-$k.db" >/dev/null
  rm -f "$out/raw-$k.db" "$out/raw-$k.db-wal" "$out/raw-$k.db-shm"
  sqlite3 "$db" "DELETE FROM merge_log; INSERT INTO shard(sweep_id, shard_k, shard_n, config_key, cold, cache_miss, warm)
                 SELECT 1, $k, $shards, key, 3, 0, 0 FROM config; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
done
for k in $(seq 2 "$shards"); do
  db=$out/shard-$k.db
  rm -f "$db" "$db-wal" "$db-shm"
  cp "$out/shard-1.db" "$db"
  sqlite3 "$db" >/dev/null <<SQL
BEGIN;
UPDATE config SET key = replace(key, 'llm/f1/', 'llm/f$k/'), family = 'f$k';
UPDATE shard SET shard_k = $k, config_key = replace(config_key, 'llm/f1/', 'llm/f$k/');
UPDATE host SET name = 'node-$k', fingerprint = 'f00d$k';
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
done
rm -f "$tmpl" "$tmpl-wal" "$tmpl-shm"
