#!/usr/bin/env bash
# passmap merge of 100 shard stores totalling 150,000 runs (3 steps x 10 pass rows and 2 metrics per run, i.e.
# 4.5 M pass rows; scripts/make-shard-stores.sh) into a new store, against the peer: sqlite3's own ATTACH +
# INSERT ... SELECT of the same rows, one transaction per shard, with the same pragmas (WAL, synchronous=NORMAL,
# foreign keys on), the report's aggregate tables (schema 9) included, as the store needs them. Wall time and peak RSS of each; target: passmap <= 1.5x the peer's time. Both outputs are
# checked to hold the same rows. BENCH_MERGE_SHARDS / _RUNS / _PASSES change the size. By default 100 shards of
# 30,000 runs in all (about 30 s), so make bench stays within 5 minutes; BENCH_MERGE_RUNS=150000 is the scale-out
# issue's size (four merges of ~10 s each, about 2 minutes in all).
source "$(dirname "$0")/lib.sh"
bench_require sqlite3 || exit 1
[ -x /usr/bin/time ] || { bench_skip merge wall "GNU time (/usr/bin/time) missing"; exit 0; }
shards=${BENCH_MERGE_SHARDS:-100}
runs=${BENCH_MERGE_RUNS:-30000}
passes=${BENCH_MERGE_PASSES:-10}
per=$((runs / shards))
d=$BENCH_TMP/shards
t0=$(date +%s.%N)
"$ROOT/scripts/make-shard-stores.sh" "$PASSMAP" "$d" "$shards" "$per" "$passes" || exit 1
echo "made $shards shard stores of $per runs in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
inputs=()
for k in $(seq 1 "$shards"); do inputs+=("$d/shard-$k.db"); done

# The peer's output starts as the same empty passmap store (schema and pragmas) passmap would create.
"$PASSMAP" import --db "$BENCH_TMP/empty.db" "$ROOT/tests/fixtures/llvm/llc-time-passes.txt" >/dev/null
sqlite3 "$BENCH_TMP/empty.db" "DELETE FROM agg_cfg_pass; DELETE FROM agg_pass_stage; DELETE FROM agg_run_stage;
                               DELETE FROM agg_run; DELETE FROM pass_time; DELETE FROM pass_name; DELETE FROM metric; DELETE FROM step;
                               DELETE FROM run; DELETE FROM config; DELETE FROM sweep; DELETE FROM meta;
                               PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
{
  echo "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
  for f in "${inputs[@]}"; do
    cat <<SQL
ATTACH '$f' AS src;
BEGIN IMMEDIATE;
INSERT OR IGNORE INTO main.sweep(name, backend, spec_text, meta_json, created_at)
  SELECT name, backend, spec_text, meta_json, created_at FROM src.sweep;
INSERT OR IGNORE INTO main.host(name, fingerprint, cpu_model, cores, kernel, machine, compiler, first_seen)
  SELECT name, fingerprint, cpu_model, cores, kernel, machine, compiler, first_seen FROM src.host;
INSERT INTO main.config(sweep_id, key, kind, family, size, window, precision, resolution, layers, variant, params_json)
  SELECT ms.id, c.key, c.kind, c.family, c.size, c.window, c.precision, c.resolution, c.layers, c.variant,
         c.params_json FROM src.config c JOIN src.sweep ss ON ss.id = c.sweep_id JOIN main.sweep ms ON ms.name = ss.name;
CREATE TEMP TABLE off AS SELECT (SELECT coalesce(max(id), 0) FROM main.run) AS r,
  (SELECT coalesce(max(id), 0) FROM main.step) AS s, (SELECT coalesce(max(id), 0) FROM main.metric) AS m;
INSERT INTO main.run(id, config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb, started_at, note, host_id)
  SELECT r.id + o.r, mc.id, r.repeat, r.mode, r.status, r.wall_s, r.user_s, r.sys_s, r.maxrss_kb, r.started_at,
         r.note, mh.id
  FROM src.run r CROSS JOIN temp.off o JOIN src.config c ON c.id = r.config_id JOIN src.sweep ss ON ss.id = c.sweep_id
  JOIN main.sweep ms ON ms.name = ss.name JOIN main.config mc ON mc.sweep_id = ms.id AND mc.key = c.key
  LEFT JOIN src.host h ON h.id = r.host_id LEFT JOIN main.host mh ON mh.name = h.name AND mh.fingerprint = h.fingerprint;
INSERT INTO main.step SELECT s.id + o.s, s.run_id + o.r, s.seq, s.tool, s.argv, s.status, s.wall_s, s.user_s, s.sys_s,
  s.maxrss_kb, s.instructions, s.exit_code, s.term_signal, s.report_format, s.report_wall_s, s.stderr_tail,
  s.pass_order FROM src.step s CROSS JOIN temp.off o;
-- pass names are interned per file (schema 6): the peer maps their ids by name, as passmap merge does
INSERT OR IGNORE INTO main.pass_name(name) SELECT name FROM src.pass_name;
CREATE TEMP TABLE nm(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);
INSERT INTO temp.nm SELECT s.id, n.id FROM src.pass_name s JOIN main.pass_name n ON n.name = s.name;
INSERT INTO main.pass_time(step_id, idx, name_id, counted, wall_s, user_s, flags, depth, parent_idx, section,
                           report_index, start_s)
  SELECT p.step_id + o.s, p.idx, (SELECT dst FROM temp.nm WHERE src = p.name_id), p.counted, p.wall_s, p.user_s,
         p.flags, p.depth, p.parent_idx, p.section, p.report_index, p.start_s
  FROM src.pass_time p CROSS JOIN temp.off o;
-- the report's aggregates (schema 9) the shards carry, with the same id remapping (passmap merge copies them too)
INSERT OR IGNORE INTO main.agg_pass_stage(tool, name_id, stage)
  SELECT a.tool, (SELECT dst FROM temp.nm WHERE src = a.name_id), a.stage FROM src.agg_pass_stage a;
INSERT INTO main.agg_run(run_id, pass_sum) SELECT a.run_id + o.r, a.pass_sum FROM src.agg_run a CROSS JOIN temp.off o;
INSERT INTO main.agg_run_stage(run_id, stage, wall_s, user_s, user_wall_s)
  SELECT a.run_id + o.r, a.stage, a.wall_s, a.user_s, a.user_wall_s FROM src.agg_run_stage a CROSS JOIN temp.off o;
INSERT INTO main.agg_cfg_pass(config_id, tool, name_id, wall_s, log_s, n_log, user_s, user_wall_s, first_run, first_pos)
  SELECT mc.id, a.tool, (SELECT dst FROM temp.nm WHERE src = a.name_id), a.wall_s, a.log_s, a.n_log, a.user_s,
         a.user_wall_s, a.first_run + o.r, a.first_pos
  FROM src.agg_cfg_pass a CROSS JOIN temp.off o JOIN src.config c ON c.id = a.config_id
  JOIN src.sweep ss ON ss.id = c.sweep_id JOIN main.sweep ms ON ms.name = ss.name
  JOIN main.config mc ON mc.sweep_id = ms.id AND mc.key = c.key;
DROP TABLE temp.nm;
INSERT INTO main.metric SELECT m.id + o.m, m.run_id + o.r, m.step_id + o.s, m.name, m.value
  FROM src.metric m CROSS JOIN temp.off o;
INSERT OR IGNORE INTO main.shard SELECT ms.id, s.shard_k, s.shard_n, s.config_key, s.cold, s.cache_miss, s.warm
  FROM src.shard s JOIN src.sweep ss ON ss.id = s.sweep_id JOIN main.sweep ms ON ms.name = ss.name;
DROP TABLE temp.off;
COMMIT;
DETACH src;
SQL
  done
} > "$BENCH_TMP/peer.sql"

measure() { # label, command... -> "wall_s peak_kb cpu_s"
  /usr/bin/time -f '%e %M %U %S' -o "$BENCH_TMP/$1.time" "${@:2}" >"$BENCH_TMP/$1.out" 2>"$BENCH_TMP/$1.err" \
    || { echo "$1 failed:"; tail -5 "$BENCH_TMP/$1.err"; return 1; }
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$BENCH_TMP/$1.time"
}
# Order peer, passmap, passmap, peer (each into a fresh output): drift on a shared machine hits both alike;
# the faster of each pair counts.
peer() { rm -f "$BENCH_TMP"/peer.db*; cp "$BENCH_TMP/empty.db" "$BENCH_TMP/peer.db"; sync
         measure "$1" sqlite3 "$BENCH_TMP/peer.db" ".read $BENCH_TMP/peer.sql"; }
pm() { rm -f "$BENCH_TMP"/out.db*; sync; measure "$1" "$PASSMAP" merge "$BENCH_TMP/out.db" "${inputs[@]}"; }
read -r p1_s p1_kb p1_cpu < <(peer peer1) || exit 1
read -r m1_s m1_kb m1_cpu < <(pm passmap1) || exit 1
read -r m2_s m2_kb m2_cpu < <(pm passmap2) || exit 1
read -r p2_s p2_kb p2_cpu < <(peer peer2) || exit 1
tail -1 "$BENCH_TMP/passmap2.out"
echo "walls: peer $p1_s, passmap $m1_s, passmap $m2_s, peer $p2_s s"
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b ? a : b) }'; }
pm_s=$(min "$m1_s" "$m2_s"); peer_s=$(min "$p1_s" "$p2_s")
pm_cpu=$(min "$m1_cpu" "$m2_cpu"); peer_cpu=$(min "$p1_cpu" "$p2_cpu")
pm_kb=$(( m1_kb > m2_kb ? m1_kb : m2_kb )); peer_kb=$(( p1_kb > p2_kb ? p1_kb : p2_kb ))

# Same rows in both, and every run once.
count() { sqlite3 "$1" "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT count(*) FROM step) || ' ' ||
                              (SELECT count(*) FROM pass_time) || ' ' || (SELECT count(*) FROM metric) || ' ' ||
                              (SELECT count(*) FROM v_pass) || ' ' || (SELECT sum(length(pass)) FROM v_pass) || ' ' ||
                              (SELECT count(*) FROM agg_run) || ' ' || (SELECT count(*) FROM agg_run_stage) || ' ' ||
                              (SELECT count(*) FROM agg_cfg_pass) || ' ' || (SELECT total(wall_s) FROM agg_cfg_pass)"; }
a=$(count "$BENCH_TMP/out.db"); b=$(count "$BENCH_TMP/peer.db")
echo "rows (runs steps passes metrics, passes named, name bytes, aggregates: runs, run stages, config passes, their wall): passmap $a, peer $b"
[ "$a" = "$b" ] && [ "${a%% *}" = "$((per * shards))" ] || { echo "merged rows differ"; exit 1; }
# Merging all of them again adds nothing (the idempotence check runs over every run).
read -r again_s again_kb again_cpu < <(measure again "$PASSMAP" merge "$BENCH_TMP/out.db" "${inputs[@]}") || exit 1
[ "$(count "$BENCH_TMP/out.db")" = "$a" ] || { echo "second merge changed the store"; exit 1; }

note="$shards shards, $((per * shards)) runs, $passes passes/step; peer: sqlite3 ATTACH + INSERT...SELECT; faster of 2 each"
bench_result merge wall "$pm_s" s "$peer_s" "ratio<=1.5" "$note"
bench_result merge cpu "$pm_cpu" s "$peer_cpu" "" "user + sys: the machine is shared, wall includes waiting for a core"
bench_result merge peak_rss "$((pm_kb / 1024))" MiB "$((peer_kb / 1024))" "" "peak RSS of the merging process"
bench_result merge remerge_wall "$again_s" s "" "" "merging the same $shards shards again: all skipped as duplicates"
[ "$runs" -ge 150000 ] || bench_skip merge wall_150k_runs "the issue's 150,000 runs (~2 min): BENCH_MERGE_RUNS=150000"
